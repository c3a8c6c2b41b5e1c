//! The toolbar icon's badge on each tab, read from the browser: nothing on
//! a tab that is not shared, `ON` on a shared one, `AI` while an agent
//! holds control, `YOU` while the person does, and nothing again once the
//! tab is unshared.

use cotab_e2e::browser::Browser;
use cotab_e2e::Deadline;
use cotab_shared::controller::{Acquire, Empty, Release, SelectParams, TabsSelect};
use cotab_shared::TabId;
use serde_json::{json, Value};
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(15);

/// The badge text and tooltip the browser shows on `tab`.
async fn badge(browser: &Browser, tab: TabId) -> anyhow::Result<Value> {
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

    browser.take_control(&page, tab).await?;
    shows(&browser, tab, "YOU", "cotab: you have control of this tab").await?;
    browser.hand_back(&page, tab).await?;
    agent.call::<Release>(&Empty {}).await?;
    shows(&browser, tab, "ON", "cotab: shared, no agent has control").await?;

    browser.unshare(&page, tab).await?;
    shows(&browser, tab, "", "cotab").await?;
    // The tab nobody shared never had a badge.
    shows(&browser, other_tab, "", "cotab").await?;
    drop(other);
    Ok(())
}
