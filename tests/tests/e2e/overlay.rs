//! Issue 38: the person sees an agent at work in the shared tab — the
//! element an action aims at, drawn by the browser over the page — and
//! neither the page nor the agent can see it. The drawing is read off the
//! harness's own screenshots of the tab (the browser's screenshots carry
//! the overlay layer); what the page could notice is read off a hostile
//! page that watches for it (`/watchful`, under a strict CSP).

use crate::toolset::{find_ref, on_page, snapshot};
use base64::Engine as _;
use cotab_e2e::browser::{Browser, LaunchOptions, Page};
use cotab_shared::controller::{Capture, CaptureParams, Hover, HoverParams, ImageFormat, Ref};
use serde_json::{json, Value};
use std::time::Duration;

/// The harness's own screenshot of the viewport (PNG, base64): the
/// browser's screenshots of the whole viewport carry the overlay layer
/// (those of a clip do not).
pub(crate) async fn shot(browser: &Browser, page: &Page) -> anyhow::Result<String> {
    let r = browser
        .cdp
        .send_to(
            Some(&page.session),
            "Page.captureScreenshot",
            json!({"format": "png"}),
        )
        .await?;
    Ok(r["data"].as_str().unwrap_or_default().to_owned())
}

/// Until the harness's screenshot is `want` (or is
/// not, with `differs`), within 10 s.
pub(crate) async fn until_shot(
    browser: &Browser,
    page: &Page,
    want: &str,
    differs: bool,
) -> anyhow::Result<()> {
    let what = if differs {
        "the drawing to show"
    } else {
        "the drawing to fade"
    };
    let clock = cotab_e2e::Deadline::new(what, Duration::from_secs(10));
    loop {
        let now = shot(browser, page).await?;
        if (now != want) == differs {
            return Ok(());
        }
        clock.next(now.len()).await?;
    }
}

pub(crate) fn hover(target: &Ref) -> HoverParams {
    HoverParams {
        element: Some(target.clone()),
        ..HoverParams::default()
    }
}

/// The page's own view of what changed in it.
async fn seen(browser: &Browser, page: &Page) -> anyhow::Result<Value> {
    browser.eval(page, "seen()").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_person_sees_what_an_agent_aims_at_and_neither_page_nor_agent_does(
) -> anyhow::Result<()> {
    let (browser, page, _tab, mut agent) = on_page("/watchful", LaunchOptions::default()).await?;
    let outline = snapshot(&mut agent).await?;
    let target = find_ref(&outline, "button \"Delete draft\"")?;
    let before_page = seen(&browser, &page).await?;
    let bare = shot(&browser, &page).await?;
    let png = CaptureParams {
        format: ImageFormat::Png,
        ..CaptureParams::default()
    };
    let agents_bare = agent.call::<Capture>(&png).await?;

    // The agent aims at the element: the person sees it drawn.
    agent.call::<Hover>(&hover(&target)).await?;
    until_shot(&browser, &page, &bare, true).await?;

    // The page saw nothing of it: no node, no mutation, no shadow root,
    // the same element under the point, the same focus and style, no
    // focus event. (The hover's own pointer events are the agent's
    // action, which the page may see as it would the person's.)
    let during = seen(&browser, &page).await?;
    assert_eq!(during, before_page, "the page noticed the drawing");
    assert_eq!(during["under"], "target", "{during}");

    // The person's own click goes through it to the page.
    let (x, y) = (240.0, 160.0);
    for kind in ["mousePressed", "mouseReleased"] {
        browser
            .cdp
            .send_to(
                Some(&page.session),
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            )
            .await?;
    }
    assert_eq!(browser.eval(&page, "window.clicks").await?, 1);

    // The agent's capture holds the page, not the drawing: the same image
    // as before the action.
    agent.call::<Hover>(&hover(&target)).await?;
    until_shot(&browser, &page, &bare, true).await?;
    let agents = agent.call::<Capture>(&png).await?;
    let decode = |b64: &str| {
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap_or_default()
    };
    assert_eq!(
        decode(agents.data.as_deref().unwrap_or_default()),
        decode(agents_bare.data.as_deref().unwrap_or_default()),
        "the agent's capture holds the drawing"
    );

    // Drawn again, it fades by itself.
    agent.call::<Hover>(&hover(&target)).await?;
    until_shot(&browser, &page, &bare, true).await?;
    until_shot(&browser, &page, &bare, false).await?;
    Ok(())
}
