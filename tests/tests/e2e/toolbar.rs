//! The toolbar icon's badge on each tab, read from the browser: nothing on
//! a tab that is not shared, `ON` on a shared one, `AI` while an agent
//! holds control, `YOU` while the person does, and nothing again once the
//! tab is unshared; the `cotab` tab group titled after who works in it;
//! cotab's own icon at each size; and, pinned, no hint to pin it.

use cotab_e2e::browser::{Browser, LaunchOptions};
use cotab_e2e::Deadline;
use cotab_shared::controller::{Acquire, Empty, Release, SelectParams, TabsSelect};
use cotab_shared::TabId;
use serde_json::{json, Value};
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(15);

/// The badge text and tooltip the browser shows on `tab`.
pub(crate) async fn badge(browser: &Browser, tab: TabId) -> anyhow::Result<Value> {
    browser
        .in_worker(&format!(
            "Promise.all([chrome.action.getBadgeText({{tabId: {t}}}), \
             chrome.action.getTitle({{tabId: {t}}})])",
            t = tab.0
        ))
        .await
}

/// Waits until `tab` shows `text` with `title`.
async fn shows(browser: &Browser, tab: TabId, text: &str, title: &str) -> anyhow::Result<()> {
    let want = json!([text, title]);
    let clock = Deadline::new("the badge", DEADLINE);
    loop {
        let now = badge(browser, tab).await?;
        if now == want {
            return Ok(());
        }
        clock.next(now).await?;
    }
}

/// Waits until the tab group of `tab` is titled `title`.
async fn group_titled(browser: &Browser, tab: TabId, title: &str) -> anyhow::Result<()> {
    let clock = Deadline::new("the group's title", DEADLINE);
    loop {
        let now = browser
            .in_worker(&format!(
                "chrome.tabs.get({}).then(t => chrome.tabGroups.get(t.groupId)).then(g => g.title)",
                tab.0
            ))
            .await?;
        if now == title {
            return Ok(());
        }
        clock.next(now).await?;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_badge_shows_who_controls_each_tab() -> anyhow::Result<()> {
    let (browser, page, tab) = crate::shared_fixture().await?;
    let other_url = browser.fixture.url("/other");
    let other = browser.open_tab(&other_url).await?;
    let other_tab = browser
        .tab_id_in_popup(&browser.open_popup().await?, &other_url)
        .await?;
    browser.activate(&page).await?;

    shows(&browser, tab, "ON", "cotab: shared, no agent has control").await?;
    shows(&browser, other_tab, "", "cotab").await?;

    let mut agent = browser.agent("ada").await?;
    agent
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    agent.call::<Acquire>(&Empty {}).await?;
    shows(
        &browser,
        tab,
        "AI",
        "cotab: agent ada has control of this tab",
    )
    .await?;
    // The tab group, which the person sees from any tab, says the same.
    group_titled(&browser, tab, "ada working · cotab").await?;

    browser.take_control(&page, tab).await?;
    shows(&browser, tab, "YOU", "cotab: you have control of this tab").await?;
    group_titled(&browser, tab, "you have control · cotab").await?;
    browser.hand_back(&page, tab).await?;
    agent.call::<Release>(&Empty {}).await?;
    shows(&browser, tab, "ON", "cotab: shared, no agent has control").await?;
    group_titled(&browser, tab, "cotab").await?;
    // A tab shared while the group is titled after an agent joins that
    // group, not a new one.
    agent.call::<Acquire>(&Empty {}).await?;
    group_titled(&browser, tab, "ada working · cotab").await?;
    let third_url = browser.fixture.url("/other?third");
    let third_page = browser.open_tab(&third_url).await?;
    let third = browser.share(&third_page, &third_url).await?;
    let groups = browser
        .in_worker(&format!(
            "Promise.all([{}, {}].map(id => chrome.tabs.get(id).then(t => t.groupId)))",
            tab.0, third.0
        ))
        .await?;
    assert_eq!(groups[0], groups[1], "{groups}");
    group_titled(&browser, third, "ada working · cotab").await?;
    agent.call::<Release>(&Empty {}).await?;
    group_titled(&browser, third, "cotab").await?;

    browser.unshare(&page, tab).await?;
    shows(&browser, tab, "", "cotab").await?;
    // The tab nobody shared never had a badge.
    shows(&browser, other_tab, "", "cotab").await?;
    drop(other);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pinned_cotab_shows_its_own_icon_and_asks_for_no_pin() -> anyhow::Result<()> {
    let browser = Browser::launch(LaunchOptions {
        pinned: true,
        ..LaunchOptions::default()
    })
    .await?;
    let on_toolbar = browser
        .in_worker("chrome.action.getUserSettings().then(s => s.isOnToolbar)")
        .await?;
    assert_eq!(on_toolbar, true, "the profile pinned it");
    // Every icon the manifest names is a square PNG of its size.
    let sizes = browser
        .in_worker(
            "Promise.all(Object.entries(chrome.runtime.getManifest().icons).map(async ([n, p]) => { \
               const b = await createImageBitmap(await (await fetch(p)).blob()); \
               return [Number(n), b.width, b.height]; }))",
        )
        .await?;
    assert_eq!(
        sizes,
        json!([[16, 16, 16], [32, 32, 32], [48, 48, 48], [128, 128, 128]])
    );
    let action = browser
        .in_worker("chrome.runtime.getManifest().action.default_icon")
        .await?;
    assert_eq!(action["16"], "icons/cotab-16.png");
    // The popup asks for no pin: it decides the hint before it lists the
    // tabs, in the same pass.
    let url = browser.fixture.url("/");
    let _page = browser.open_tab(&url).await?;
    let popup = browser.open_popup().await?;
    browser.tab_id_in_popup(&popup, &url).await?;
    let hint = "document.getElementById('pin-hint').hidden";
    assert_eq!(browser.eval(&popup, hint).await?, true);
    Ok(())
}

/// cotab's notifications the browser shows, by id.
async fn notices(browser: &Browser) -> anyhow::Result<Value> {
    browser.in_worker("chrome.notifications.getAll()").await
}

/// Waits until the browser shows the notifications `want`.
async fn notified(browser: &Browser, want: Value) -> anyhow::Result<()> {
    let clock = Deadline::new("the notifications", DEADLINE);
    loop {
        let now = notices(browser).await?;
        if now == want {
            return Ok(());
        }
        clock.next(now).await?;
    }
}

/// A request that waits for the person's yes while no side panel is open
/// is told by a notification, which goes once the person answered it in
/// the panel; the badge says `ASK` meanwhile. A panel open when the
/// request began and closed while it waits leaves the person told.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_waiting_with_no_side_panel_open_is_notified_until_answered() -> anyhow::Result<()>
{
    use crate::approvals::{answer, ask_before, one_waiting, open_panel};
    use cotab_shared::controller::{Click, ClickParams};
    let (browser, _page, tab, mut agent) =
        crate::toolset::on_page("/signup", LaunchOptions::default()).await?;
    let outline = crate::toolset::snapshot(&mut agent).await?;
    let terms = crate::toolset::find_ref(&outline, "checkbox \"I accept the terms\"")?;
    let panel = open_panel(&browser).await?;
    ask_before(&browser, &panel, tab, "step").await?;

    let click = ClickParams::on(terms);
    let task = tokio::spawn(async move {
        let r = agent.call::<Click>(&click).await;
        (agent, r)
    });
    // The panel lists it: no notification while it is open.
    assert_eq!(one_waiting(&browser, &panel).await?, "step|");
    let clock = Deadline::new("the badge", DEADLINE);
    loop {
        let now = badge(&browser, tab).await?;
        if now[0] == "ASK" {
            break;
        }
        clock.next(now).await?;
    }
    assert_eq!(notices(&browser).await?, json!({}));
    browser.close(&panel).await?;
    let id = format!("cotab-ask-{}", tab.0);
    notified(&browser, json!({ &id: true })).await?;
    assert_eq!(badge(&browser, tab).await?[0], "ASK");
    group_titled(&browser, tab, "toolset waiting for you · cotab").await?;

    // The person opens the panel (a click on the notification would) and
    // says no: the notification goes.
    let panel = open_panel(&browser).await?;
    assert_eq!(one_waiting(&browser, &panel).await?, "step|");
    answer(&browser, &panel, "deny").await?;
    let (_agent, r) = task.await?;
    assert!(r.is_err(), "{r:?}");
    notified(&browser, json!({})).await?;
    group_titled(&browser, tab, "toolset working · cotab").await?;
    Ok(())
}

/// A notification of a request waiting for the person goes when the
/// request ends while the worker is stopped (the lane goes with it, and
/// the request with the lane): the worker that starts again clears it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notification_left_by_a_stopped_worker_goes_when_its_request_ended() -> anyhow::Result<()>
{
    use crate::approvals::{ask_before, open_panel};
    use cotab_shared::controller::{Click, ClickParams};
    let (browser, page, tab, mut agent) =
        crate::toolset::on_page("/signup", LaunchOptions::default()).await?;
    let outline = crate::toolset::snapshot(&mut agent).await?;
    let terms = crate::toolset::find_ref(&outline, "checkbox \"I accept the terms\"")?;
    let panel = open_panel(&browser).await?;
    ask_before(&browser, &panel, tab, "step").await?;
    browser.close(&panel).await?;
    let click = ClickParams::on(terms);
    let task = tokio::spawn(async move {
        let r = agent.call::<Click>(&click).await;
        (agent, r)
    });
    let id = format!("cotab-ask-{}", tab.0);
    notified(&browser, json!({ &id: true })).await?;

    browser.stop_workers(&page).await?;
    let (_agent, r) = task.await?;
    assert!(r.is_err(), "the request ended with the lane: {r:?}");
    // The side panel's page wakes the worker, as the person opening it
    // would.
    open_panel(&browser).await?;
    let clock = Deadline::new("the notification to go", DEADLINE);
    loop {
        match notices(&browser).await {
            Ok(now) if now == json!({}) => return Ok(()),
            Ok(now) => clock.next(now).await?,
            // The worker's target may still be the stopped one's.
            Err(e) => clock.next(e.to_string()).await?,
        }
    }
}
