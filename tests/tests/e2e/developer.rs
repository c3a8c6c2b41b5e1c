//! Developer mode switched off while an agent works: the extension
//! re-attaches every shared tab to clear what raw CDP left, and the
//! agent's reads in flight across it are answered on the new session, not
//! failed.

use cotab_e2e::browser::{Browser, LaunchOptions};
use cotab_shared::controller::{
    Acquire, Capture, CaptureParams, Empty, ImageFormat, SelectParams, Snapshot, SnapshotParams,
    TabsSelect,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_in_flight_when_developer_mode_goes_off_are_answered() -> anyhow::Result<()> {
    let browser = Browser::launch(LaunchOptions::default()).await?;
    let url = browser.fixture.url("/");
    let page = browser.open_tab(&url).await?;
    let tab = browser.share(&page, &url).await?;
    let mut reader = browser.agent("reader").await?;
    reader
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    reader.call::<Acquire>(&Empty {}).await?;
    let stop = Arc::new(AtomicBool::new(false));
    let reads = {
        let stop = stop.clone();
        tokio::spawn(async move {
            let mut done = 0u32;
            let mut failed = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let shot = reader
                    .call::<Capture>(&CaptureParams {
                        format: ImageFormat::Jpeg,
                        ..CaptureParams::default()
                    })
                    .await;
                if let Err(e) = shot {
                    failed.push(format!("capture: {e}"));
                }
                if let Err(e) = reader.call::<Snapshot>(&SnapshotParams::default()).await {
                    failed.push(format!("snapshot: {e}"));
                }
                done += 2;
            }
            (done, failed)
        })
    };
    // The person flips the switch while the reads go on: each off
    // re-attaches the tab under them.
    for on in [true, false, true, false, true, false] {
        browser.set_developer_mode(&page, on).await?;
    }
    stop.store(true, Ordering::Relaxed);
    let (done, failed) = reads.await?;
    assert!(done > 10, "only {done} reads");
    assert!(
        failed.is_empty(),
        "{} of {done} reads failed: {failed:?}",
        failed.len()
    );
    Ok(())
}
