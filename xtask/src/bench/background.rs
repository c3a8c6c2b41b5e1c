//! Bench item 6: a shared tab behind the person's tab. One headless
//! Chromium with the release build of cotab and one shared fixture page;
//! the same requests are timed with the shared tab in front, then with
//! another tab (the person's) in front of it, in one run, so the two
//! compare. Every request must answer; a failure to measure is an error.

use super::browser::frame_pause;
use super::{Row, Sample};
use anyhow::{Context, Result};
use cotab_e2e::browser::{Browser, LaunchOptions};
use cotab_host::client::Client;
use cotab_shared::controller::{
    Acquire, Capture, CaptureParams, Click, ClickParams, Empty, ImageFormat, Ref, Scroll,
    ScrollParams, SelectParams, Snapshot, SnapshotParams, TabsSelect, Wait, WaitParams, WaitUntil,
};
use std::time::{Duration, Instant};

/// The item's number in the report.
pub(crate) const ITEM: &str = "6";
/// Rounds dropped before measuring.
const WARM_UP: usize = 5;
/// Measured rounds of each request, in each place.
const ROUNDS: usize = 50;
/// Where the shared tab is, as the rows name it.
pub(crate) const PLACES: [&str; 2] = ["in front", "behind the person's tab"];
/// The requests measured, as the rows name them.
pub(crate) const REQUESTS: [&str; 6] = [
    "`input.click` on a ref",
    "`input.click` at a capture's point",
    "`input.scroll` (a wheel at a point)",
    "`page.snapshot`",
    "`page.capture` jpeg",
    "`page.wait` for a selector present",
];

/// The row label of `request` with the tab at `place`.
pub(crate) fn label(request: &str, place: &str) -> String {
    format!("{request}, shared tab {place}")
}

/// Runs item 6 and returns its rows.
pub(crate) async fn run() -> Result<Vec<Row>> {
    let browser = Browser::launch(LaunchOptions::default()).await?;
    let url = browser.fixture.url("/");
    let page = browser.open_tab(&url).await?;
    let tab = browser.share(&page, &url).await?;
    let mut agent = browser.agent("bench-background").await?;
    agent
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    agent.call::<Acquire>(&Empty {}).await?;
    let mut rows = Vec::new();
    for place in PLACES {
        let other = if place == PLACES[0] {
            browser.activate(&page).await?;
            None
        } else {
            let other = browser.open_tab(&browser.fixture.url("/other")).await?;
            browser.activate(&other).await?;
            Some(other)
        };
        let times = measure(&mut agent)
            .await
            .with_context(|| format!("measuring with the shared tab {place}"))?;
        for (request, v) in REQUESTS.iter().zip(times) {
            rows.push(Row::new(
                ITEM,
                &label(request, place),
                "cotab",
                Sample::Latency(v),
            ));
        }
        if let Some(other) = other {
            browser.close(&other).await?;
        }
    }
    Ok(rows)
}

/// Each of [`REQUESTS`], [`ROUNDS`] times after a warm-up, each round after
/// a pause that moves it against the display's frames ([`frame_pause`]).
async fn measure(agent: &mut Client) -> Result<[Vec<Duration>; 6]> {
    let outline = agent.call::<Snapshot>(&SnapshotParams::default()).await?;
    let mut button = button_of(&outline.text)?;
    let jpeg = CaptureParams {
        format: ImageFormat::Jpeg,
        ..CaptureParams::default()
    };
    let mut times: [Vec<Duration>; 6] = Default::default();
    for round in 0..WARM_UP + ROUNDS {
        tokio::time::sleep(frame_pause(round)).await;
        let mut took = [Duration::ZERO; 6];
        let start = Instant::now();
        agent
            .call::<Click>(&ClickParams::on(button.clone()))
            .await?;
        took[0] = start.elapsed();
        let shot = agent
            .call::<Capture>(&jpeg)
            .await
            .with_context(|| format!("round {round}: the capture for a point"))?;
        let start = Instant::now();
        agent
            .call::<Click>(&ClickParams {
                x: Some(10.0),
                y: Some(10.0),
                frame_id: Some(shot.frame_id.clone()),
                ..ClickParams::default()
            })
            .await
            .with_context(|| format!("round {round}: the click at a point"))?;
        took[1] = start.elapsed();
        let start = Instant::now();
        agent
            .call::<Scroll>(&ScrollParams {
                x: Some(10.0),
                y: Some(10.0),
                delta_y: Some(if round % 2 == 0 { 40.0 } else { -40.0 }),
                ..ScrollParams::default()
            })
            .await
            .with_context(|| format!("round {round}: the wheel"))?;
        took[2] = start.elapsed();
        let start = Instant::now();
        let outline = agent
            .call::<Snapshot>(&SnapshotParams::default())
            .await
            .with_context(|| format!("round {round}: the snapshot"))?;
        took[3] = start.elapsed();
        // A snapshot's refs replace the ones before.
        button = button_of(&outline.text)?;
        let start = Instant::now();
        agent
            .call::<Capture>(&jpeg)
            .await
            .with_context(|| format!("round {round}: the capture"))?;
        took[4] = start.elapsed();
        let start = Instant::now();
        agent
            .call::<Wait>(&WaitParams {
                selector: Some("#btn".into()),
                ..WaitParams::until(WaitUntil::Selector)
            })
            .await
            .with_context(|| format!("round {round}: the wait"))?;
        took[5] = start.elapsed();
        if round >= WARM_UP {
            for (v, d) in times.iter_mut().zip(took) {
                v.push(d);
            }
        }
    }
    Ok(times)
}

/// The ref of the fixture's button in a snapshot's outline.
fn button_of(outline: &str) -> Result<Ref> {
    cotab_e2e::outline_ref(outline, "button \"Click me\"")
        .context("no button in the fixture's snapshot")
}
