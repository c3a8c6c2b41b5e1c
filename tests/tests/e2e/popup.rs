//! The popup as the person sees it, rendered by the real browser in each
//! state: a shared tab with its url and nobody in control, the agents
//! connected, an agent in control, developer mode on (its warning), the person in control, and
//! an action's error, dropped once it no longer holds. Each state is
//! captured to `target/e2e-shots/popup-*.png` (to look at) and checked on
//! the pixels: what must show is inside the popup's viewport, at its size,
//! in its colour; what must not show takes no room.

use base64::Engine as _;
use cotab_e2e::browser::{Browser, Page};
use cotab_e2e::Deadline;
use cotab_shared::controller::{Acquire, Empty, SelectParams, TabsSelect};
use cotab_shared::TabId;
use serde_json::{json, Value};
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(15);

/// The developer-mode warning's background (`popup.css`).
const WARNING_RGB: [u8; 3] = [0xb3, 0x26, 0x1e];

/// Waits until `expression`, evaluated in the popup, is `want`.
async fn popup_shows(
    browser: &Browser,
    popup: &Page,
    expression: &str,
    want: Value,
) -> anyhow::Result<()> {
    let clock = Deadline::new(expression, DEADLINE);
    loop {
        let now = browser.eval(popup, expression).await?;
        if now == want {
            return Ok(());
        }
        clock.next(now).await?;
    }
}

/// The box of the element `selector` in CSS pixels, `null` when it takes
/// no room (hidden).
fn rect_of(selector: &str) -> String {
    format!(
        "(() => {{ const el = document.querySelector({s}); if (!el) return null; \
         const r = el.getBoundingClientRect(); \
         return r.width && r.height ? [r.left, r.top, r.width, r.height] : null; }})()",
        s = serde_json::to_string(selector).expect("a string")
    )
}

/// Captures the popup as a PNG, saved as `popup-{name}.png`.
async fn shot(browser: &Browser, popup: &Page, name: &str) -> anyhow::Result<image::RgbImage> {
    let r = browser
        .cdp
        .send_to(
            Some(&popup.session),
            "Page.captureScreenshot",
            json!({"format": "png"}),
        )
        .await?;
    let bytes =
        base64::engine::general_purpose::STANDARD.decode(r["data"].as_str().unwrap_or_default())?;
    let dir = cotab_e2e::target_dir().join("e2e-shots");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join(format!("popup-{name}.png")), &bytes)?;
    Ok(image::load_from_memory_with_format(&bytes, image::ImageFormat::Png)?.to_rgb8())
}

/// How many pixels of `image` inside `rect` (CSS px, at `dpr`) are
/// `rgb`, within a small tolerance.
fn pixels_of(image: &image::RgbImage, rect: &Value, dpr: f64, rgb: [u8; 3]) -> usize {
    let side = |i: usize| rect[i].as_f64().unwrap_or(0.0) * dpr;
    let (x, y, w, h) = (side(0), side(1), side(2), side(3));
    let mut n = 0;
    for py in (y as u32)..((y + h) as u32).min(image.height()) {
        for px in (x as u32)..((x + w) as u32).min(image.width()) {
            let p = image.get_pixel(px, py).0;
            if p.iter().zip(rgb).all(|(a, b)| a.abs_diff(b) <= 8) {
                n += 1;
            }
        }
    }
    n
}

/// The element is on screen: it has a box inside the popup's viewport.
async fn on_screen(browser: &Browser, popup: &Page, selector: &str) -> anyhow::Result<Value> {
    let rect = browser.eval(popup, &rect_of(selector)).await?;
    let size = browser.eval(popup, "[innerWidth, innerHeight]").await?;
    let (x, y, w, h) = (
        rect[0].as_f64().unwrap_or(-1.0),
        rect[1].as_f64().unwrap_or(-1.0),
        rect[2].as_f64().unwrap_or(0.0),
        rect[3].as_f64().unwrap_or(0.0),
    );
    let inside = x >= 0.0
        && y >= 0.0
        && w > 0.0
        && h > 0.0
        && x + w <= size[0].as_f64().unwrap_or(0.0) + 1.0
        && y + h <= size[1].as_f64().unwrap_or(0.0) + 1.0;
    anyhow::ensure!(inside, "{selector} is not on screen: {rect} in {size}");
    Ok(rect)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_popup_shows_each_state_on_screen() -> anyhow::Result<()> {
    let (browser, page, tab) = crate::shared_fixture().await?;
    let url = browser.fixture.url("/");
    let popup = browser.open_popup().await?;
    let dpr = browser
        .eval(&popup, "devicePixelRatio")
        .await?
        .as_f64()
        .unwrap_or(1.0);
    let li = |tab: TabId, rest: &str| format!("li[data-tab-id=\"{}\"] {rest}", tab.0);

    // Shared, nobody in control: its url shows in full.
    popup_shows(
        &browser,
        &popup,
        &format!("document.querySelector('{}')?.textContent", li(tab, ".url")),
        json!(url),
    )
    .await?;
    on_screen(&browser, &popup, &li(tab, ".url")).await?;
    popup_shows(
        &browser,
        &popup,
        &rect_of("#developer-warning"),
        Value::Null,
    )
    .await?;
    popup_shows(
        &browser,
        &popup,
        "document.getElementById('agents').textContent",
        json!("No agent connected"),
    )
    .await?;
    // A fresh profile has cotab's icon inside the extensions menu, where
    // its badge does not show: the popup asks for the pin.
    popup_shows(
        &browser,
        &popup,
        "document.getElementById('pin-hint').textContent",
        json!(
            "Pin cotab to the toolbar (the puzzle icon, then the pin) to see on every tab \
             whether an agent has control."
        ),
    )
    .await?;
    on_screen(&browser, &popup, "#pin-hint").await?;
    shot(&browser, &popup, "shared").await?;

    // An agent takes control: the popup names it.
    let mut agent = browser.agent("ada").await?;
    agent
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    agent.call::<Acquire>(&Empty {}).await?;
    popup_shows(
        &browser,
        &popup,
        &format!(
            "document.querySelector('{}')?.textContent",
            li(tab, ".controller")
        ),
        json!("Agent ada has control"),
    )
    .await?;
    on_screen(&browser, &popup, &li(tab, ".controller")).await?;
    // The popup names who is connected, and counts a second session.
    let second = browser.agent("ada").await?;
    popup_shows(
        &browser,
        &popup,
        "document.getElementById('agents').textContent",
        json!("Agents connected: ada ×2"),
    )
    .await?;
    on_screen(&browser, &popup, "#agents").await?;
    shot(&browser, &popup, "agent").await?;
    drop(second);
    popup_shows(
        &browser,
        &popup,
        "document.getElementById('agents').textContent",
        json!("Agent connected: ada"),
    )
    .await?;

    // Developer mode on: the warning shows, red, inside the popup.
    browser.set_developer_mode(&page, true).await?;
    popup_shows(
        &browser,
        &popup,
        "document.getElementById('developer-warning').textContent",
        json!("Developer mode is on: agents can run JavaScript and raw CDP in the shared tabs."),
    )
    .await?;
    let warning = on_screen(&browser, &popup, "#developer-warning").await?;
    let image = shot(&browser, &popup, "developer-mode").await?;
    let red = pixels_of(&image, &warning, dpr, WARNING_RGB);
    let area = (warning[2].as_f64().unwrap_or(0.0) * warning[3].as_f64().unwrap_or(0.0) * dpr * dpr)
        as usize;
    assert!(
        red * 2 > area,
        "the warning is drawn in its colour: {red} of {area} pixels"
    );
    browser.set_developer_mode(&page, false).await?;
    popup_shows(
        &browser,
        &popup,
        &rect_of("#developer-warning"),
        Value::Null,
    )
    .await?;

    // The person takes control: the popup says so.
    browser.take_control(&page, tab).await?;
    popup_shows(
        &browser,
        &popup,
        &format!(
            "document.querySelector('{}')?.dataset.controller",
            li(tab, ".controller")
        ),
        json!("human"),
    )
    .await?;
    shot(&browser, &popup, "person").await?;

    // An action that failed is shown until it no longer holds: sharing a
    // tab on a page that cannot be shared fails (asked with a button the
    // popup would not offer), and the error goes once that tab is shared.
    // (A fragment of its own: the browser's first tab shows about:blank.)
    let blocked = "about:blank#not-shareable";
    let blank = browser.open_tab(blocked).await?;
    let blank_tab = browser.tab_id_in_popup(&popup, blocked).await?;
    browser
        .eval(
            &popup,
            &format!(
                "(() => {{ const b = document.createElement('button'); \
                 b.dataset.action = 'share'; b.dataset.tabId = '{}'; \
                 document.getElementById('tabs').appendChild(b); b.click(); }})()",
                blank_tab.0
            ),
        )
        .await?;
    popup_shows(
        &browser,
        &popup,
        "!document.getElementById('error').hidden",
        json!(true),
    )
    .await?;
    on_screen(&browser, &popup, "#error").await?;
    shot(&browser, &popup, "error").await?;
    let other = browser.fixture.url("/other");
    browser
        .cdp
        .send_to(Some(&blank.session), "Page.navigate", json!({"url": other}))
        .await?;
    browser.share(&blank, &other).await?;
    popup_shows(
        &browser,
        &popup,
        "document.getElementById('error').hidden",
        json!(true),
    )
    .await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_cotab_unshared_by_itself_says_why_until_it_is_shared_again() -> anyhow::Result<()> {
    let (browser, page, tab) = crate::shared_fixture().await?;
    // The person goes to a browser page: the browser takes cotab's
    // debugger away, and the tab is no longer shared.
    browser
        .cdp
        .send_to(
            Some(&page.session),
            "Page.navigate",
            json!({"url": "chrome://version"}),
        )
        .await?;
    let popup = browser.open_popup().await?;
    let note = format!(
        "document.querySelector('li[data-tab-id=\"{}\"] .unshared')?.textContent",
        tab.0
    );
    popup_shows(
        &browser,
        &popup,
        &note,
        json!("Unshared by cotab: the tab went to a page the browser keeps from extensions"),
    )
    .await?;
    on_screen(
        &browser,
        &popup,
        &format!("li[data-tab-id=\"{}\"] .unshared", tab.0),
    )
    .await?;
    shot(&browser, &popup, "unshared").await?;
    // Back on a web page and shared again: the note is gone.
    let url = browser.fixture.url("/");
    browser
        .cdp
        .send_to(Some(&page.session), "Page.navigate", json!({"url": url}))
        .await?;
    browser.share(&page, &url).await?;
    popup_shows(&browser, &popup, &note, Value::Null).await?;
    Ok(())
}
