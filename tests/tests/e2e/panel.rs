//! Issue 38: the side panel (the popup page opened as `popup.html?panel`)
//! shows each agent at work — what it is doing now and its latest
//! requests in the person's terms, never what it typed — hears of each
//! request as it happens, and stops every agent at once. Agents cannot
//! reach it.

use crate::toolset::{find_ref, on_page, snapshot};
use cotab_e2e::browser::{Browser, LaunchOptions, Page};
use cotab_shared::controller::{
    Click, ClickParams, CreateTabParams, Navigate, NavigateParams, Press, PressParams, TabsCreate,
    Type, TypeParams, Wait, WaitParams, WaitUntil,
};
use cotab_shared::{ErrorKind, EXTENSION_ID};
use serde_json::Value;
use std::time::Duration;

/// Until `expression` on the panel gives something `ok` accepts, within
/// 10 s; that value.
pub(crate) async fn until(
    browser: &Browser,
    panel: &Page,
    expression: &str,
    ok: impl Fn(&Value) -> bool,
) -> anyhow::Result<Value> {
    let clock = cotab_e2e::Deadline::new(expression, Duration::from_secs(10));
    loop {
        let now = browser.eval(panel, expression).await?;
        if ok(&now) {
            return Ok(now);
        }
        clock.next(now).await?;
    }
}

/// The lines the panel shows for `agent`'s latest requests.
fn recent(agent: &str) -> String {
    format!(
        "[...document.querySelectorAll('section.agent[data-agent=\"{agent}\"] ol.recent li')]\
         .map(li => li.dataset.outcome + '|' + li.textContent)"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_side_panel_shows_each_agent_at_work_and_stops_them_all() -> anyhow::Result<()> {
    let (browser, page, tab, mut agent) = on_page("/signup", LaunchOptions::default()).await?;
    let panel_url = format!("chrome-extension://{EXTENSION_ID}/popup.html?panel");
    let panel = browser.open_tab(&panel_url).await?;
    until(
        &browser,
        &panel,
        "document.getElementById('watch-status').dataset.watching",
        |v| v == "true",
    )
    .await?;

    // The agent acts: the panel tells it in the person's terms.
    let outline = snapshot(&mut agent).await?;
    let email = find_ref(&outline, "textbox \"Email\"")?;
    agent
        .call::<Type>(&TypeParams {
            text: "ada-secret@example.org".into(),
            element: Some(email),
            clear: false,
            submit: false,
            expect: None,
        })
        .await?;
    agent
        .call::<Press>(&PressParams {
            key: "Tab".into(),
            modifiers: vec![],
            expect: None,
        })
        .await?;
    let lines = until(&browser, &panel, &recent("toolset"), |v| {
        v.as_array().is_some_and(|a| a.len() >= 2)
    })
    .await?;
    let text = lines.to_string();
    assert!(
        text.contains("ok|") && text.contains("type 22 characters · textbox \\\"Email\\\""),
        "{text}"
    );
    assert!(text.contains("press Tab — done"), "{text}");
    // The tab as the person knows it, by its title.
    assert!(text.contains(" in “Sign up”"), "{text}");
    assert!(!text.contains("ada-secret"), "typed text shown: {text}");
    // Once the agent pauses, the panel shows the tab it works in.
    let picture = format!(
        "document.querySelector('section.agent[data-agent=\"toolset\"] figure.picture[data-tab=\"{tab}\"] img')?.naturalWidth ?? 0"
    );
    until(&browser, &panel, &picture, |v| {
        v.as_u64().is_some_and(|w| w > 0)
    })
    .await?;
    // What an agent is doing now shows while it runs.
    let mut waiter = browser.agent("waiter").await?;
    waiter
        .call::<cotab_shared::controller::TabsSelect>(&cotab_shared::controller::SelectParams {
            tab_id: tab,
        })
        .await?;
    let wait = tokio::spawn(async move {
        waiter
            .call::<Wait>(&WaitParams {
                time_ms: Some(3_000),
                ..WaitParams::until(WaitUntil::Time)
            })
            .await
    });
    let now =
        "document.querySelector('section.agent[data-agent=\"waiter\"] p.now')?.textContent ?? ''";
    let waiting = "Now: wait in “Sign up”".to_owned();
    until(&browser, &panel, now, |v| {
        v.as_str() == Some(waiting.as_str())
    })
    .await?;
    wait.await??;
    until(&browser, &panel, now, |v| v == "Idle").await?;

    // Stop all agents: the person holds the tab; the agent is refused.
    browser
        .eval(&panel, "document.getElementById('stop-all').click(); 1")
        .await?;
    let controller = format!(
        "document.querySelector('.controller[data-tab-id=\"{tab}\"]')?.dataset.controller ?? ''"
    );
    until(&browser, &panel, &controller, |v| v == "human").await?;
    let refused = agent
        .call::<Click>(&ClickParams::at(10.0, 10.0))
        .await
        .expect_err("the person holds the tab");
    assert_eq!(
        refused.kind(),
        Some(ErrorKind::HumanHasControl),
        "{refused}"
    );
    let lines = until(&browser, &panel, &recent("toolset"), |v| {
        v.to_string().contains("HUMAN_HAS_CONTROL|")
    })
    .await?;
    assert!(
        lines.to_string().contains("refused: you have control"),
        "{lines}"
    );

    // No agent reaches the panel's page.
    for attempt in [
        agent
            .call::<Navigate>(&NavigateParams::to(panel_url.clone()))
            .await
            .map(drop),
        agent
            .call::<TabsCreate>(&CreateTabParams {
                url: Some(panel_url.clone()),
            })
            .await
            .map(drop),
    ] {
        let err = attempt.expect_err("refused");
        assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget), "{err}");
    }
    let _ = page;
    Ok(())
}

/// Issue 38: the person turns the drawing of what agents aim at off from
/// the panel (and on again): the agent's next action is not drawn, and a
/// panel opened later shows the choice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_person_turns_the_drawings_off_from_the_panel() -> anyhow::Result<()> {
    use crate::overlay::{hover, shot, until_shot};
    use cotab_shared::controller::Hover;
    let (browser, page, _tab, mut agent) = on_page("/watchful", LaunchOptions::default()).await?;
    let panel_url = format!("chrome-extension://{EXTENSION_ID}/popup.html?panel");
    let panel = browser.open_tab(&panel_url).await?;
    let switch = "document.getElementById('agent-pointer').checked";
    until(
        &browser,
        &panel,
        "document.getElementById('watch-status').dataset.watching",
        |v| v == "true",
    )
    .await?;
    assert_eq!(browser.eval(&panel, switch).await?, true);
    browser
        .eval(
            &panel,
            "document.getElementById('agent-pointer').click(); 1",
        )
        .await?;
    browser.activate(&page).await?;
    let target = find_ref(&snapshot(&mut agent).await?, "button \"Delete draft\"")?;
    let bare = shot(&browser, &page).await?;
    agent.call::<Hover>(&hover(&target)).await?;
    // Not drawn: the next shots are the bare page (the drawing would come
    // with the hover's answer).
    for _ in 0..3 {
        assert_eq!(shot(&browser, &page).await?, bare, "drawn while off");
    }
    // A panel opened now shows it off; turned on there, drawn again.
    let second = browser.open_tab(&panel_url).await?;
    until(&browser, &second, switch, |v| v == false).await?;
    browser
        .eval(
            &second,
            "document.getElementById('agent-pointer').click(); 1",
        )
        .await?;
    until(&browser, &panel, switch, |v| v == true).await?;
    browser.activate(&page).await?;
    agent.call::<Hover>(&hover(&target)).await?;
    until_shot(&browser, &page, &bare, true).await?;
    Ok(())
}
