//! Actions that cause a navigation (a link, a script, a form submitted
//! with Enter) answer once the new page has committed and loaded, so what
//! the agent asks next describes the new page; actions that do not
//! navigate answer at once.

use crate::toolset::{find_ref, on_page, snapshot};
use cotab_e2e::browser::LaunchOptions;
use cotab_shared::controller::{
    Acquire, Click, ClickParams, Empty, Navigate, NavigateAction, NavigateParams, SelectParams,
    Snapshot, SnapshotParams, TabsList, TabsSelect, Type, TypeParams, Wait, WaitParams, WaitUntil,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actions_that_navigate_answer_once_the_new_page_has_loaded() -> anyhow::Result<()> {
    let (_browser, _page, tab, mut agent) = on_page("/navigates", LaunchOptions::default()).await?;
    let back = NavigateParams {
        action: Some(NavigateAction::Back),
        ..NavigateParams::default()
    };
    for (name, want) in [
        ("link \"Go by link\"", "/second?via=link"),
        ("button \"Go by script\"", "/second?via=script"),
    ] {
        let target = find_ref(&snapshot(&mut agent).await?, name)?;
        agent.call::<Click>(&ClickParams::on(target)).await?;
        // At once: no waiting, no retries.
        let now = agent.call::<Snapshot>(&SnapshotParams::default()).await?;
        assert!(now.url.ends_with(want), "{name}: {}", now.url);
        assert_eq!(now.title, "Second page", "{name}");
        assert!(now.text.contains("heading \"Second\""), "{}", now.text);
        let listed = agent.call::<TabsList>(&Empty {}).await?;
        let shown = listed.tabs.iter().find(|t| t.id == tab);
        assert!(
            shown.is_some_and(|t| t.url.ends_with(want) && t.title == "Second page"),
            "{listed:?}"
        );
        agent.call::<Navigate>(&back).await?;
    }

    // A form submitted with Enter.
    let query = find_ref(&snapshot(&mut agent).await?, "textbox \"Query\"")?;
    agent
        .call::<Type>(&TypeParams {
            text: "cotab".into(),
            element: Some(query),
            clear: false,
            submit: true,
            expect: None,
        })
        .await?;
    let now = agent.call::<Snapshot>(&SnapshotParams::default()).await?;
    assert!(now.url.ends_with("/submitted?q=cotab"), "{}", now.url);
    assert_eq!(now.title, "Submitted");
    agent.call::<Navigate>(&back).await?;
    // And with its button.
    let search = find_ref(&snapshot(&mut agent).await?, "button \"Search\"")?;
    agent.call::<Click>(&ClickParams::on(search)).await?;
    let now = agent.call::<Snapshot>(&SnapshotParams::default()).await?;
    assert!(now.url.contains("/submitted?q="), "{}", now.url);
    assert_eq!(now.title, "Submitted");
    agent.call::<Navigate>(&back).await?;

    // A jump within the page and a click that stays answer too.
    let jump = find_ref(
        &snapshot(&mut agent).await?,
        "link \"Jump within the page\"",
    )?;
    agent.call::<Click>(&ClickParams::on(jump)).await?;
    let now = agent.call::<Snapshot>(&SnapshotParams::default()).await?;
    assert!(now.url.ends_with("/navigates#part"), "{}", now.url);
    let stay = find_ref(&now.text, "button \"Stay\"")?;
    agent.call::<Click>(&ClickParams::on(stay)).await?;
    let now = agent.call::<Snapshot>(&SnapshotParams::default()).await?;
    assert_eq!(now.title, "Stayed");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_waits_for_the_page_it_leads_to_however_slow() -> anyhow::Result<()> {
    let (browser, _page, _tab, mut agent) = on_page("/navigates", LaunchOptions::default()).await?;
    let slow = find_ref(&snapshot(&mut agent).await?, "link \"Go slowly\"")?;
    let click = tokio::spawn(async move {
        let r = agent.call::<Click>(&ClickParams::on(slow)).await;
        (agent, r)
    });
    // The server holds the page back: the click does not answer.
    let mut click = click;
    assert!(
        tokio::time::timeout(std::time::Duration::from_millis(1500), &mut click)
            .await
            .is_err(),
        "the click answered before its page came"
    );
    browser.fixture.open_gate();
    let (mut agent, r) = tokio::time::timeout(crate::toolset::DEADLINE, click).await??;
    r?;
    let now = agent.call::<Snapshot>(&SnapshotParams::default()).await?;
    assert!(now.url.ends_with("/slow"), "{}", now.url);
    assert_eq!(now.title, "Second page");
    Ok(())
}

/// `page.wait networkIdle` on `agent`'s tab, with a short deadline.
async fn network_idle(agent: &mut cotab_host::client::Client) -> anyhow::Result<()> {
    agent
        .call::<Wait>(&WaitParams {
            timeout_ms: Some(5_000),
            ..WaitParams::until(WaitUntil::NetworkIdle)
        })
        .await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_shared_long_after_it_loaded_is_network_idle_in_front_and_behind(
) -> anyhow::Result<()> {
    let browser = cotab_e2e::browser::Browser::launch(LaunchOptions::default()).await?;
    let url = browser.fixture.url("/navigates");
    let page = browser.open_tab(&url).await?;
    // The page has long reached network idle when the tab is shared: its
    // lifecycle events all came before cotab's session.
    browser
        .eval(
            &page,
            "new Promise(r => setTimeout(() => r(document.readyState), 1500))",
        )
        .await?;
    let tab = browser.share(&page, &url).await?;
    let mut agent = browser.agent("idle").await?;
    agent
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    network_idle(&mut agent).await?;
    // Behind the person's tab, and after a navigation there.
    let mine = browser.open_tab(&browser.fixture.url("/input")).await?;
    browser.activate(&mine).await?;
    network_idle(&mut agent).await?;
    agent.call::<Acquire>(&Empty {}).await?;
    let link = find_ref(&snapshot(&mut agent).await?, "link \"Go by link\"")?;
    agent.call::<Click>(&ClickParams::on(link)).await?;
    network_idle(&mut agent).await?;
    Ok(())
}

/// Issue 36: five tabs that loaded in the background, each shared and
/// brought to the front in turn, are network idle at once: the page
/// reached it before cotab's session, which must learn it from the
/// browser.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tabs_that_loaded_in_the_background_are_network_idle_once_shared() -> anyhow::Result<()> {
    let browser = cotab_e2e::browser::Browser::launch(LaunchOptions::default()).await?;
    let mut events = browser.cdp.events();
    let mut pages = Vec::new();
    for i in 0..5 {
        let url = browser.fixture.url(&format!("/second?n={i}"));
        // A session of the harness's own on a blank background tab hears
        // the page's lifecycle from its start.
        let r = browser
            .cdp
            .send(
                "Target.createTarget",
                serde_json::json!({"url": "about:blank", "background": true}),
            )
            .await?;
        let target = r["targetId"].as_str().unwrap_or_default().to_owned();
        let page = browser.attach_page(&target).await?;
        browser
            .cdp
            .send_to(Some(&page.session), "Page.enable", serde_json::json!({}))
            .await?;
        browser
            .cdp
            .send_to(
                Some(&page.session),
                "Page.setLifecycleEventsEnabled",
                serde_json::json!({"enabled": true}),
            )
            .await?;
        browser
            .cdp
            .send_to(
                Some(&page.session),
                "Page.navigate",
                serde_json::json!({"url": url}),
            )
            .await?;
        pages.push((url, page));
    }
    // Each reached network idle in the background.
    let mut idle: Vec<String> = Vec::new();
    let clock = cotab_e2e::Deadline::new(
        "network idle in five tabs",
        std::time::Duration::from_secs(30),
    );
    while idle.len() < pages.len() {
        match tokio::time::timeout(std::time::Duration::from_millis(100), events.recv()).await {
            Ok(Some(e)) => {
                let session = e["sessionId"].as_str().unwrap_or_default();
                let is_page = pages.iter().any(|(_, p)| p.session == session);
                if is_page
                    && e["method"] == "Page.lifecycleEvent"
                    && e["params"]["name"] == "networkIdle"
                    && !idle.iter().any(|s| s == session)
                {
                    idle.push(session.to_owned());
                }
            }
            Ok(None) => anyhow::bail!("the harness's events ended"),
            Err(_) => clock.next(idle.len()).await?,
        }
    }
    let mut agent = browser.agent("idle").await?;
    for (url, page) in &pages {
        let tab = browser.share(page, url).await?;
        agent
            .call::<TabsSelect>(&SelectParams { tab_id: tab })
            .await?;
        if let Err(e) = network_idle(&mut agent).await {
            browser.print_daemon_log_tail(60);
            return Err(e);
        }
    }
    Ok(())
}
