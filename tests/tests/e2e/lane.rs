//! The lane's transports in real Chromium: the worker moves the lane to
//! the daemon's loopback WebSocket and everything rides it, a large
//! capture included; a web page that finds the port cannot use it; with
//! the WebSocket off the lane runs on native messaging alone. (The fault
//! matrix in `faults` runs over the WebSocket, and drops it.)

use base64::Engine as _;
use cotab_e2e::browser::{Browser, LaunchOptions};
use cotab_e2e::fixture::BUTTON_CENTRE;
use cotab_e2e::wait_for;
use cotab_host::client::Client;
use cotab_shared::controller::{
    Acquire, Capture, CaptureParams, Click, ClickParams, Empty, ImageFormat, LaneTransport,
    SelectParams, TabsSelect,
};
use cotab_shared::TabId;
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(20);

/// Waits until the daemon reports `want` as the lane's transport.
async fn carried_by(agent: &mut Client, want: LaneTransport) -> anyhow::Result<()> {
    cotab_e2e::browser::carried_by(agent, want, DEADLINE).await
}

/// Captures a PNG of the page (it must cross the lane whole), clicks
/// the fixture's button and checks the page saw the click (its title).
async fn drive(
    browser: &Browser,
    page: &cotab_e2e::browser::Page,
    agent: &mut Client,
    tab: TabId,
) -> anyhow::Result<()> {
    agent
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    agent.call::<Acquire>(&Empty {}).await?;
    let shot = agent
        .call::<Capture>(&CaptureParams {
            format: ImageFormat::Png,
            quality: None,
            ..CaptureParams::default()
        })
        .await?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(shot.data.as_deref().unwrap_or_default())?;
    let image = image::load_from_memory_with_format(&bytes, image::ImageFormat::Png)?;
    assert_eq!((image.width(), image.height()), (shot.width, shot.height));
    let dpr = shot.device_pixel_ratio;
    browser.eval(page, "document.title = 'Fixture'").await?;
    agent
        .call::<Click>(&ClickParams {
            x: Some(BUTTON_CENTRE.0 * dpr),
            y: Some(BUTTON_CENTRE.1 * dpr),
            frame_id: Some(shot.frame_id.clone()),
            ..ClickParams::default()
        })
        .await?;
    wait_for("the page to see the click", DEADLINE, || async {
        let title = browser.eval(page, "document.title").await?;
        Ok((title == "Clicked").then_some(()))
    })
    .await
}

/// The port the daemon's WebSocket listens on, from its log.
fn socket_port(browser: &Browser) -> Option<u16> {
    let log = browser.daemon_log();
    let line = log
        .lines()
        .find(|l| l.contains("the lane's WebSocket listens"))?;
    let at = line.find("port=")? + "port=".len();
    line[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_websocket_carries_the_lane_and_a_web_page_cannot_use_it() -> anyhow::Result<()> {
    let browser = Browser::launch(LaunchOptions::default()).await?;
    let url = browser.fixture.url("/");
    let page = browser.open_tab(&url).await?;
    let tab = browser.share(&page, &url).await?;
    let mut agent = browser.agent("e2e").await?;
    carried_by(&mut agent, LaneTransport::WebSocket).await?;
    drive(&browser, &page, &mut agent, tab).await?;

    // The shared page itself finds the port and knocks with every token
    // it can think of: each socket is refused (its Origin is the page's),
    // and the lane is untouched.
    let port = socket_port(&browser).expect("the daemon logs its WebSocket's port");
    let refused = browser
        .eval(
            &page,
            &format!(
                "Promise.all(['', 'lane/', 'lane/{zeros}', 'lane/x?y'].map(p => new Promise(r => {{
                    const ws = new WebSocket('ws://127.0.0.1:{port}/' + p);
                    ws.onopen = () => r('opened');
                    ws.onclose = () => r('refused');
                }})))",
                zeros = "0".repeat(64)
            ),
        )
        .await?;
    assert_eq!(
        refused,
        serde_json::json!(["refused", "refused", "refused", "refused"])
    );
    carried_by(&mut agent, LaneTransport::WebSocket).await?;
    drive(&browser, &page, &mut agent, tab).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_websocket_the_lane_runs_on_native_messaging() -> anyhow::Result<()> {
    let browser = Browser::launch(LaunchOptions {
        env: vec![("COTAB_SOCKET_LANE".into(), "off".into())],
        ..LaunchOptions::default()
    })
    .await?;
    let url = browser.fixture.url("/");
    let page = browser.open_tab(&url).await?;
    let tab = browser.share(&page, &url).await?;
    let mut agent = browser.agent("e2e").await?;
    carried_by(&mut agent, LaneTransport::NativeMessaging).await?;
    drive(&browser, &page, &mut agent, tab).await?;
    assert!(browser.daemon_log().contains("the lane's WebSocket is off"));
    assert!(socket_port(&browser).is_none());
    Ok(())
}
