//! What a video of the tab costs an agent's click (issue 39): a click on
//! the fixture's button (which changes the page, so the screencast sends
//! frames the video encodes) with no video, then with one recording at 25
//! frames a second into 1280 × 800, interleaved round by round; and what
//! the video holds: its bytes per frame, with the time `video.stop`
//! takes to finish the file.

use super::probe::timed;
use super::{Row, Sample};
use anyhow::{anyhow, Result};
use cotab_host::client::Client;
use cotab_shared::controller::{
    Click, ClickParams, Empty, Snapshot, SnapshotParams, VideoStart, VideoStartParams, VideoStop,
};
use std::time::Duration;

const WARM_UP: usize = 2;
const ROUNDS: usize = 20;
/// How long the video runs before the click that is timed: frames flow.
const RUNNING: Duration = Duration::from_millis(300);

pub(super) async fn video_clicks(agent: &mut Client) -> Result<Vec<Row>> {
    let outline = agent
        .call::<Snapshot>(&SnapshotParams::default())
        .await?
        .text;
    let button = cotab_e2e::outline_ref(&outline, "button \"Click me\"")
        .ok_or_else(|| anyhow!("no ref for the button in:\n{outline}"))?;
    let params = ClickParams::on(button);
    let (mut without, mut with, mut stops, mut per_frame) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..WARM_UP + ROUNDS {
        let (d, _) = timed(async { Ok(agent.call::<Click>(&params).await?) }).await?;
        agent
            .call::<VideoStart>(&VideoStartParams::default())
            .await?;
        agent.call::<Click>(&params).await?;
        tokio::time::sleep(RUNNING).await;
        let (w, _) = timed(async { Ok(agent.call::<Click>(&params).await?) }).await?;
        let (s, stopped) = timed(async { Ok(agent.call::<VideoStop>(&Empty {}).await?) }).await?;
        if round < WARM_UP {
            continue;
        }
        without.push(d);
        with.push(w);
        for video in &stopped.videos {
            if let Some(path) = &video.path {
                if let Some(bytes) = video.bytes.checked_div(video.frames) {
                    stops.push(s);
                    per_frame.push(bytes as usize);
                }
                drop(std::fs::remove_file(path));
            }
        }
    }
    Ok(vec![
        Row::new(
            "39",
            "`input.click` on a ref, no video of the tab",
            "cotab",
            Sample::Latency(without),
        ),
        Row::new(
            "39",
            "`input.click` on a ref while a video of the tab records (25 fps, 1280 × 800)",
            "cotab",
            Sample::Latency(with),
        ),
        Row::new(
            "39",
            "`video.stop` of a video of ≈ 0.4 s (its file finished); bytes a frame",
            "cotab",
            Sample::Frames(stops, per_frame),
        ),
    ])
}
