//! The person and the agent at work together: the person types, scrolls
//! and opens a tab of their own in the tab in front, while the agent
//! fills a form in a shared tab behind it that asks for a confirmation,
//! then a note, and then opens a receipt in a new tab. Every agent request
//! answers (none times out), and the person's tab gets exactly the keys
//! the person sent.

use crate::dialogs::next_notification;
use crate::toolset::DEADLINE;
use cotab_e2e::browser::{Browser, LaunchOptions, Page};
use cotab_e2e::outline_ref;
use cotab_host::client::Client;
use cotab_shared::controller::{
    Acquire, Acted, Click, ClickParams, Dialog, DialogKind, DialogParams, Empty, Ref, SelectParams,
    Snapshot, SnapshotParams, TabsList, TabsSelect, Type, TypeParams,
};
use cotab_shared::TabId;
use serde_json::json;
use std::future::Future;

/// `call`, which must answer within [`DEADLINE`].
async fn answered<T>(
    what: &str,
    call: impl Future<Output = Result<T, cotab_host::client::ClientError>>,
) -> anyhow::Result<T> {
    tokio::time::timeout(DEADLINE, call)
        .await
        .map_err(|_| anyhow::anyhow!("{what} did not answer in time"))?
        .map_err(|e| anyhow::anyhow!("{what}: {e}"))
}

async fn snapshot_ref(agent: &mut Client, needle: &str) -> anyhow::Result<Ref> {
    let outline = answered(
        "snapshot",
        agent.call::<Snapshot>(&SnapshotParams::default()),
    )
    .await?
    .text;
    outline_ref(&outline, needle).ok_or_else(|| anyhow::anyhow!("no {needle:?} in:\n{outline}"))
}

fn opened(acted: &Acted) -> Option<(DialogKind, &str)> {
    acted.dialog.as_ref().map(|d| (d.kind, d.message.as_str()))
}

/// What the agent does on the form in tab `tab`; returns the receipt tab.
async fn agent_work(agent: &mut Client, tab: TabId) -> anyhow::Result<TabId> {
    let mut seen = agent.forward_notifications();
    for (field, text) in [
        ("textbox \"Name\"", "Ada"),
        ("textbox \"Email\"", "ada@example.org"),
    ] {
        let target = snapshot_ref(agent, field).await?;
        answered(
            "type",
            agent.call::<Type>(&TypeParams {
                text: text.into(),
                element: Some(target),
                ..TypeParams::default()
            }),
        )
        .await?;
    }
    let send = snapshot_ref(agent, "button \"Send\"").await?;
    let clicked = answered("click Send", agent.call::<Click>(&ClickParams::on(send))).await?;
    assert_eq!(
        opened(&clicked),
        Some((DialogKind::Confirm, "Send the report?"))
    );
    let answer = |text: Option<&str>| DialogParams {
        accept: true,
        prompt_text: text.map(str::to_owned),
    };
    let next = answered("accept the confirm", agent.call::<Dialog>(&answer(None))).await?;
    assert_eq!(
        opened(&next),
        Some((DialogKind::Prompt, "A note for the team?"))
    );
    let next = answered(
        "answer the prompt",
        agent.call::<Dialog>(&answer(Some("from the soak"))),
    )
    .await?;
    assert_eq!(next.dialog, None);
    let receipt = snapshot_ref(agent, "link \"See the receipt\"").await?;
    answered(
        "click the receipt",
        agent.call::<Click>(&ClickParams::on(receipt)),
    )
    .await?;
    let note = next_notification(agent, &mut seen, "tab.opened").await?;
    assert_eq!(note["params"]["openerTabId"], tab.0, "{note}");
    let new = TabId(
        note["params"]["id"]
            .as_i64()
            .and_then(|i| i32::try_from(i).ok())
            .ok_or_else(|| anyhow::anyhow!("no id: {note}"))?,
    );
    let listed = answered("tabs.list", agent.call::<TabsList>(&Empty {})).await?;
    assert!(listed.tabs.iter().any(|t| t.id == new), "{listed:?}");
    answered(
        "select the receipt",
        agent.call::<TabsSelect>(&SelectParams { tab_id: new }),
    )
    .await?;
    let page = answered(
        "snapshot the receipt",
        agent.call::<Snapshot>(&SnapshotParams::default()),
    )
    .await?;
    assert!(page.url.ends_with("/second?receipt=1"), "{}", page.url);
    Ok(new)
}

/// What the person does in their own tab `mine`: types, scrolls, opens a
/// tab of their own and comes back. Returns the keys they typed.
async fn person_work(browser: &Browser, mine: &Page) -> anyhow::Result<String> {
    let text = "hello agent";
    for (i, ch) in text.chars().enumerate() {
        browser.person_types(mine, ch).await?;
        if i % 4 == 3 {
            browser
                .cdp
                .send_to(
                    Some(&mine.session),
                    "Input.dispatchMouseEvent",
                    json!({"type": "mouseWheel", "x": 50, "y": 50, "deltaX": 0, "deltaY": 120}),
                )
                .await?;
        }
        // At a person's pace: each key lands before the next goes.
        browser.eval(mine, "__events.length").await?;
        if i == 5 {
            let own = browser.open_tab(&browser.fixture.url("/other")).await?;
            browser.activate(&own).await?;
            browser.activate(mine).await?;
        }
    }
    Ok(text
        .chars()
        .flat_map(|c| [format!("keydown:{c}"), format!("keyup:{c}")])
        .collect::<Vec<_>>()
        .join(" "))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_person_works_in_front_while_the_agent_fills_a_form_behind() -> anyhow::Result<()> {
    let browser = Browser::launch(LaunchOptions::default()).await?;
    let url = browser.fixture.url("/coform");
    let form = browser.open_tab(&url).await?;
    let tab = browser.share(&form, &url).await?;
    let mine = browser.open_tab(&browser.fixture.url("/input")).await?;
    browser.activate(&mine).await?;
    let mut agent = browser.agent("coworker").await?;
    agent
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    agent.call::<Acquire>(&Empty {}).await?;

    let (agent_done, typed) =
        tokio::join!(agent_work(&mut agent, tab), person_work(&browser, &mine));
    let receipt = agent_done?;
    let typed = typed?;

    // The form went out with the agent's answers.
    assert_eq!(
        browser.eval(&form, "document.title").await?,
        "Sent: from the soak"
    );
    assert_eq!(
        browser
            .eval(
                &form,
                "[document.getElementById('name').value, document.getElementById('email').value]"
            )
            .await?,
        json!(["Ada", "ada@example.org"])
    );
    // The person's tab got their keys and nothing else, and holds none.
    let keys = browser
        .eval(
            &mine,
            "__events.filter(e => e.type.startsWith('key')).map(e => e.type + ':' + e.key).join(' ')",
        )
        .await?;
    assert_eq!(keys, typed.as_str());
    assert_eq!(browser.balance(&mine).await?, (0, 0));
    // The agent's tabs never took the front from the person.
    let active = browser
        .in_worker("chrome.tabs.query({active: true}).then(t => t.map(t => t.id))")
        .await?;
    for t in [tab, receipt] {
        assert!(
            !active
                .as_array()
                .is_some_and(|ids| ids.contains(&json!(t.0))),
            "tab {t} came to the front: {active}"
        );
    }
    Ok(())
}
