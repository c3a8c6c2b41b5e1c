//! Item 2's cost of the activity record's pictures (issue 39): the
//! daemon pictures a tab once no agent request has ended there until the
//! drawing of what it aimed at faded (1.5 s and 125 ms). A click that
//! comes just as the picture is being taken waits behind it; one that
//! comes later does not. Both are timed on the
//! fixture's button, interleaved, with the picture's own cost over
//! direct CDP (the same command) and its size.

use super::probe::{direct, timed};
use super::{Row, Sample};
use anyhow::{anyhow, Context as _, Result};
use base64::Engine as _;
use cotab_e2e::browser::{Browser, Page};
use cotab_host::client::Client;
use cotab_shared::controller::{Click, ClickParams, Snapshot, SnapshotParams};
use serde_json::json;
use std::time::Duration;

const WARM_UP: usize = 3;
const ROUNDS: usize = 30;
/// Just past the daemon's quiet time: the picture is on its way.
const DURING: Duration = Duration::from_millis(1_635);
/// Well past it: the picture is taken.
const AFTER: Duration = Duration::from_millis(2_300);

pub(super) async fn record_frames(
    browser: &Browser,
    page: &Page,
    agent: &mut Client,
) -> Result<Vec<Row>> {
    let outline = agent
        .call::<Snapshot>(&SnapshotParams::default())
        .await?
        .text;
    let button = cotab_e2e::outline_ref(&outline, "button \"Click me\"")
        .ok_or_else(|| anyhow!("no ref for the button in:\n{outline}"))?;
    let params = ClickParams::on(button);
    let (mut during, mut after, mut direct_ms, mut bytes) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..WARM_UP + ROUNDS {
        for (pause, into) in [(DURING, &mut during), (AFTER, &mut after)] {
            agent.call::<Click>(&params).await?;
            tokio::time::sleep(pause).await;
            let (d, _) = timed(async { Ok(agent.call::<Click>(&params).await?) }).await?;
            if round >= WARM_UP {
                into.push(d);
            }
        }
        // What the daemon sends for a picture, directly, once all is quiet.
        tokio::time::sleep(AFTER).await;
        let (d, b64) = timed(async {
            let shot = direct(
                browser,
                page,
                "Page.captureScreenshot",
                json!({"format": "jpeg", "quality": 30}),
            )
            .await?;
            Ok(shot["data"].as_str().unwrap_or_default().to_owned())
        })
        .await?;
        if round >= WARM_UP {
            direct_ms.push(d);
            let jpeg = base64::engine::general_purpose::STANDARD
                .decode(b64)
                .context("the picture's base64")?;
            bytes.push(jpeg.len());
        }
    }
    Ok(vec![
        Row::new(
            "2",
            "`input.click` on a ref 1635 ms after the one before (the record's picture on its way)",
            "cotab",
            Sample::Latency(during),
        ),
        Row::new(
            "2",
            "`input.click` on a ref 2300 ms after the one before (the picture taken)",
            "cotab",
            Sample::Latency(after),
        ),
        Row::new(
            "2",
            "the record's picture: `Page.captureScreenshot` of the viewport, jpeg q30",
            "direct CDP",
            Sample::Frames(direct_ms, bytes),
        ),
    ])
}
