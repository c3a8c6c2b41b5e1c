//! Tabs a shared page opens (a link with a target, `window.open`): shared
//! at once in the `cotab` group, announced to the agent on the opener,
//! listed and driveable; a popup window, which no group can show, stays
//! unshared.

use crate::dialogs::next_notification;
use crate::toolset::{find_ref, on_page, snapshot, DEADLINE};
use cotab_e2e::browser::LaunchOptions;
use cotab_e2e::wait_for;
use cotab_shared::controller::{
    Acquire, Click, ClickParams, Empty, SelectParams, Snapshot, SnapshotParams, TabsList,
    TabsSelect, Wait, WaitParams, WaitUntil,
};
use cotab_shared::TabId;
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tabs_a_shared_page_opens_are_shared_grouped_and_announced() -> anyhow::Result<()> {
    let (browser, _page, tab, mut agent) = on_page("/opener", LaunchOptions::default()).await?;
    let mut seen = agent.forward_notifications();
    let outline = snapshot(&mut agent).await?;
    let link = find_ref(&outline, "link \"Open the second page\"")?;
    let script = find_ref(&outline, "button \"Open by script\"")?;
    let popup = find_ref(&outline, "button \"Open a popup\"")?;

    let mut opened = Vec::new();
    for (target, from) in [(link, "link"), (script, "script")] {
        agent.call::<Click>(&ClickParams::on(target)).await?;
        // The agent on the opener hears of the new tab, which is shared.
        let note = next_notification(&mut agent, &mut seen, "tab.opened").await?;
        assert_eq!(note["params"]["openerTabId"], tab.0, "{note}");
        let id = TabId(
            note["params"]["id"]
                .as_i64()
                .and_then(|i| i32::try_from(i).ok())
                .ok_or_else(|| anyhow::anyhow!("no id: {note}"))?,
        );
        let listed = agent.call::<TabsList>(&Empty {}).await?;
        assert!(listed.tabs.iter().any(|t| t.id == id), "{listed:?}");
        // It is in the `cotab` group, as the person sees it.
        let group = browser
            .in_worker(&format!(
                "chrome.tabs.get({}).then(t => t.groupId < 0 ? null : chrome.tabGroups.get(t.groupId)).then(g => g && g.title)",
                id.0
            ))
            .await?;
        // (titled after the agent at work in it once the worker has
        // looked: `toolset working · cotab`).
        assert!(
            group.as_str().is_some_and(cotab_shared::is_tab_group_title),
            "tab {id} from the {from}: {group}"
        );
        // And the agent can drive it.
        agent
            .call::<TabsSelect>(&SelectParams { tab_id: id })
            .await?;
        // Its page shows once it has loaded what the link named.
        agent
            .call::<Wait>(&WaitParams {
                text: Some("Second".into()),
                ..WaitParams::until(WaitUntil::Text)
            })
            .await?;
        let shown = agent.call::<Snapshot>(&SnapshotParams::default()).await?;
        assert!(shown.url.contains(&format!("from={from}")), "{}", shown.url);
        assert_eq!(shown.title, "Second page");
        agent
            .call::<TabsSelect>(&SelectParams { tab_id: tab })
            .await?;
        agent.call::<Acquire>(&Empty {}).await?;
        opened.push(id);
    }

    // A popup window cannot be grouped: it is left unshared, and the agent
    // never hears of it.
    agent.call::<Click>(&ClickParams::on(popup)).await?;
    let popup_tab = wait_for("the popup window's tab", DEADLINE, || async {
        let tabs = browser
            .in_worker("chrome.tabs.query({windowType: 'popup'}).then(ts => ts.map(t => t.id))")
            .await?;
        Ok(tabs
            .as_array()
            .and_then(|a| a.first())
            .and_then(Value::as_i64))
    })
    .await?;
    // The share is tried and refused, and the person's popup says why.
    let popup = browser.open_popup().await?;
    let why = wait_for("the popup to tell the refusal", DEADLINE, || async {
        let text = browser
            .cdp
            .eval(
                &popup.session,
                "document.getElementById('error').textContent",
            )
            .await?;
        Ok(text
            .as_str()
            .filter(|t| t.contains("cannot join the cotab group"))
            .map(str::to_owned))
    })
    .await?;
    assert!(why.contains(&popup_tab.to_string()), "{why}");
    let listed = agent.call::<TabsList>(&Empty {}).await?;
    assert!(
        listed.tabs.iter().all(|t| i64::from(t.id.0) != popup_tab),
        "{listed:?}"
    );
    assert_eq!(listed.tabs.len(), 3, "{listed:?}");
    while let Ok(n) = seen.try_recv() {
        assert_ne!(n["method"], "tab.opened", "{n}");
    }
    Ok(())
}
