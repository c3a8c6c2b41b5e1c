//! The person's boundary against every path (issue 15), in real Chromium:
//! a shared tab whose page becomes a local file or one of cotab's own
//! pages — by raw CDP, by the person, by the page's own history — is
//! suspended for agents at once, and nothing of that page reaches them;
//! raw CDP that reaches beyond the tab is refused; and a cotab page in a
//! shared tab can change nothing about who controls what.

use crate::shared_fixture;
use cotab_e2e::browser::{Browser, Page};
use cotab_e2e::wait_for;
use cotab_host::client::Client;
use cotab_shared::controller::{
    Acquire, Capture, CaptureParams, CdpSend, CdpSendParams, Empty, Evaluate, EvaluateParams,
    KeyDown, KeyParams, KeyUp, KeyUpParams, Navigate, NavigateAction, NavigateParams, SelectParams,
    Snapshot, SnapshotParams, Status, TabsList, TabsSelect,
};
use cotab_shared::reach::Blocked;
use cotab_shared::{ErrorKind, TabId, EXTENSION_ID};
use serde_json::{json, Value};
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(15);

/// Text of a local file only the tests know; it must never reach an
/// agent.
const CANARY: &str = "canary-3f9c1d-local-file";

/// An agent that selected `tab` and holds its lease.
async fn controller(browser: &Browser, tab: TabId) -> anyhow::Result<Client> {
    let mut agent = browser.agent("boundary-agent").await?;
    agent
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    agent.call::<Acquire>(&Empty {}).await?;
    Ok(agent)
}

/// The next notification named `method` whose params satisfy `want`.
async fn notification(
    agent: &mut Client,
    method: &str,
    want: impl Fn(&Value) -> bool,
) -> anyhow::Result<Value> {
    let found = tokio::time::timeout(DEADLINE, async {
        loop {
            let msg = agent.next_message().await?;
            if msg["method"] == method && want(&msg["params"]) {
                return anyhow::Ok(msg["params"].clone());
            }
        }
    })
    .await;
    match found {
        Ok(r) => r,
        Err(_) => anyhow::bail!("no such {method} notification within {DEADLINE:?}"),
    }
}

/// What the person does in the tab: navigates it (as typing a url would),
/// through the test's own CDP session.
async fn person_goes_to(browser: &Browser, page: &Page, url: &str) -> anyhow::Result<()> {
    browser
        .cdp
        .send_to(Some(&page.session), "Page.navigate", json!({"url": url}))
        .await?;
    wait_for("the page to load", DEADLINE, || async {
        let state = browser.eval(page, "document.readyState").await;
        Ok((state.ok() == Some(json!("complete"))).then_some(()))
    })
    .await
}

/// The tab's url, as the browser (not cotab) reports it.
pub(crate) async fn location(browser: &Browser, page: &Page) -> anyhow::Result<String> {
    Ok(browser
        .eval(page, "location.href")
        .await?
        .as_str()
        .unwrap_or_default()
        .to_owned())
}

fn eval(expression: &str) -> EvaluateParams {
    EvaluateParams {
        expression: expression.into(),
        await_promise: None,
    }
}

fn cdp(method: &str, params: Value) -> CdpSendParams {
    CdpSendParams {
        session_id: None,
        method: method.into(),
        params: Some(params),
    }
}

/// `tab` as `tabs.list` shows it.
async fn listed(
    agent: &mut Client,
    tab: TabId,
) -> anyhow::Result<cotab_shared::controller::AgentTab> {
    let list = agent.call::<TabsList>(&Empty {}).await?;
    list.tabs
        .into_iter()
        .find(|t| t.id == tab)
        .ok_or_else(|| anyhow::anyhow!("tab {tab} is not listed"))
}

/// Every observing and acting request on the selected tab is refused
/// `BLOCKED_TARGET` (the privileged ones `DEVELOPER_MODE_OFF` first, unless
/// `developer`); the answers are returned as text, so the caller can check
/// that nothing of the page is in them.
async fn everything_refused(agent: &mut Client, developer: bool) -> anyhow::Result<String> {
    let mut seen = String::new();
    let kinds = [
        agent
            .call::<Snapshot>(&SnapshotParams::default())
            .await
            .map(|r| serde_json::to_string(&r).unwrap_or_default()),
        agent
            .call::<Capture>(&CaptureParams::default())
            .await
            .map(|r| r.width.to_string()),
        agent
            .call::<Evaluate>(&eval("document.body.innerText"))
            .await
            .map(|r| r.value.to_string()),
        agent
            .call::<CdpSend>(&cdp(
                "Runtime.evaluate",
                json!({"expression": "document.documentElement.outerHTML", "returnByValue": true}),
            ))
            .await
            .map(|r| r.to_string()),
    ];
    for (i, r) in kinds.into_iter().enumerate() {
        match r {
            Ok(text) => anyhow::bail!("request {i} on a blocked page answered: {text}"),
            Err(e) => {
                seen.push_str(&e.to_string());
                let want = if i >= 2 && !developer {
                    ErrorKind::DeveloperModeOff
                } else {
                    ErrorKind::BlockedTarget
                };
                anyhow::ensure!(e.kind() == Some(want), "request {i}: {e}");
            }
        }
    }
    Ok(seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_tab_that_reaches_a_local_file_by_any_path_is_suspended() -> anyhow::Result<()> {
    let (browser, page, tab) = shared_fixture().await?;
    let web = browser.fixture.url("/");
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("canary.txt");
    std::fs::write(&file, CANARY)?;
    let file_url = format!("file://{}", file.display());
    let popup_url = format!("chrome-extension://{EXTENSION_ID}/popup.html");
    let mut agent = controller(&browser, tab).await?;
    browser.set_developer_mode(&page, true).await?;
    let mut seen = String::new();

    // Raw CDP cannot take the tab there, nor reach beyond it.
    for (method, params) in [
        ("Page.navigate", json!({"url": file_url})),
        ("Page.navigate", json!({"url": popup_url})),
        ("Target.createTarget", json!({"url": popup_url})),
        ("Target.getTargets", json!({})),
        ("Storage.getCookies", json!({})),
        (
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": "1"}),
        ),
    ] {
        let err = agent
            .call::<CdpSend>(&cdp(method, params))
            .await
            .expect_err(method);
        assert_eq!(
            err.kind(),
            Some(ErrorKind::BlockedTarget),
            "{method}: {err}"
        );
    }
    // A page cannot send itself to a local file either (the browser's own
    // rule): the tab stays where it was.
    agent
        .call::<Evaluate>(&eval(&format!("location.href = {file_url:?}; 1")))
        .await?;
    assert_eq!(location(&browser, &page).await?, web);
    // The attempt the browser refused suspends nothing.
    assert_eq!(listed(&mut agent, tab).await?.blocked, None);
    agent.call::<Capture>(&CaptureParams::default()).await?;

    // The agent holds a key when the person goes to the file: suspended at
    // once, and the key is released by the extension.
    agent
        .call::<KeyDown>(&KeyParams {
            key: "a".into(),
            modifiers: vec![],
            expect: None,
        })
        .await?;
    let held = "chrome.storage.local.get('heldPresses').then(r => (r.heldPresses || []).length)";
    assert_eq!(browser.in_worker(held).await?, json!(1));
    person_goes_to(&browser, &page, &file_url).await?;
    let revoked = notification(&mut agent, "control.revoked", |_| true).await?;
    assert_eq!(revoked, json!({"tabId": tab.0, "reason": "blockedTarget"}));
    wait_for("the held key to be released", DEADLINE, || async {
        Ok((browser.in_worker(held).await? == json!(0)).then_some(()))
    })
    .await?;
    let err = agent.call::<KeyUp>(&KeyUpParams { key: "a".into() }).await;
    assert!(
        matches!(&err, Ok(r) if r.already_released),
        "released already, not sent again: {err:?}"
    );
    seen.push_str(&everything_refused(&mut agent, true).await?);
    // The person sees why the agent stopped.
    let popup = browser.open_popup().await?;
    let note = format!(
        "document.querySelector('.suspended[data-tab-id=\"{}\"]')?.textContent ?? null",
        tab.0
    );
    wait_for("the popup to say agents are paused", DEADLINE, || async {
        let text = browser.eval(&popup, &note).await?;
        Ok((text == json!("Agents paused: local file")).then_some(()))
    })
    .await?;
    browser.close(&popup).await?;
    let listed_tab = listed(&mut agent, tab).await?;
    assert_eq!(listed_tab.blocked, Some(Blocked::LocalFile));
    assert_eq!(
        (listed_tab.url.as_str(), listed_tab.title.as_str()),
        ("", "")
    );
    let err = agent
        .call::<Acquire>(&Empty {})
        .await
        .expect_err("suspended");
    assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget), "{err}");

    // Back on a web page: driveable again, after an acquire.
    person_goes_to(&browser, &page, &web).await?;
    notification(&mut agent, "tab.updated", |p| {
        p["id"] == tab.0 && p.get("blocked").is_none()
    })
    .await?;
    let back = listed(&mut agent, tab).await?;
    assert_eq!(back.blocked, None);
    assert_eq!(back.url, web);
    agent.call::<Capture>(&CaptureParams::default()).await?;
    agent.call::<Acquire>(&Empty {}).await?;

    // The tab's history now holds the file: going back there is refused,
    // by cotab's navigation and by raw CDP.
    let err = agent
        .call::<Navigate>(&NavigateParams {
            action: Some(NavigateAction::Back),
            ..NavigateParams::default()
        })
        .await
        .expect_err("the previous entry is the file");
    assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget), "{err}");
    let history = browser
        .cdp
        .send_to(Some(&page.session), "Page.getNavigationHistory", json!({}))
        .await?;
    let file_entry = history["entries"]
        .as_array()
        .and_then(|e| e.iter().find(|e| e["url"] == file_url.as_str()))
        .map(|e| e["id"].clone())
        .expect("the file is in the history");
    let err = agent
        .call::<CdpSend>(&cdp(
            "Page.navigateToHistoryEntry",
            json!({"entryId": file_entry}),
        ))
        .await
        .expect_err("the entry is the file");
    assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget), "{err}");
    assert_eq!(location(&browser, &page).await?, web);

    // The page's own script goes back (a path no check before sending can
    // see): the tab is suspended before anything of the file is read, also
    // by a second agent reading the tab as fast as it can meanwhile.
    let mut observer = browser.agent("observer").await?;
    observer
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    let racing = tokio::spawn(async move {
        let mut read = String::new();
        for _ in 0..400 {
            match observer.call::<Snapshot>(&SnapshotParams::default()).await {
                Ok(r) => read.push_str(&r.text),
                Err(e) if e.kind() == Some(ErrorKind::BlockedTarget) => return Ok(read),
                Err(e) => read.push_str(&e.to_string()),
            }
        }
        anyhow::bail!("the observer never saw the tab suspended")
    });
    let r = agent
        .call::<Evaluate>(&eval("history.back(); 'went'"))
        .await;
    seen.push_str(&format!("{r:?}"));
    seen.push_str(&racing.await??);
    wait_for("the file to be shown", DEADLINE, || async {
        Ok((location(&browser, &page).await? == file_url).then_some(()))
    })
    .await?;
    seen.push_str(&everything_refused(&mut agent, true).await?);
    person_goes_to(&browser, &page, &web).await?;

    assert!(!seen.contains(CANARY), "the file reached the agent: {seen}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cotab_page_in_a_shared_tab_can_reach_nothing() -> anyhow::Result<()> {
    let (browser, page, tab) = shared_fixture().await?;
    let other_url = browser.fixture.url("/input");
    let other = browser.open_tab(&other_url).await?;
    let other_tab = {
        let popup = browser.open_popup().await?;
        let id = browser.tab_id_in_popup(&popup, &other_url).await?;
        browser.close(&popup).await?;
        id
    };
    let mut agent = controller(&browser, tab).await?;

    // The person (or a link the browser allowed) takes the shared tab to
    // cotab's own popup page.
    let popup_url = format!("chrome-extension://{EXTENSION_ID}/popup.html");
    person_goes_to(&browser, &page, &popup_url).await?;
    notification(&mut agent, "control.revoked", |p| {
        p["reason"] == "blockedTarget"
    })
    .await?;
    everything_refused(&mut agent, false).await?;
    assert_eq!(
        listed(&mut agent, tab).await?.blocked,
        Some(Blocked::ExtensionPage)
    );

    // Whatever that page asks of the worker is refused: it is in a shared
    // tab, which an agent may be driving.
    let asks = [
        json!({"type": "share", "tabId": other_tab.0}),
        json!({"type": "setDeveloperMode", "enabled": true}),
        json!({"type": "takeControl", "tabId": tab.0}),
        json!({"type": "unshare", "tabId": tab.0}),
    ];
    for ask in asks {
        let reply = browser
            .eval(&page, &format!("chrome.runtime.sendMessage({ask})"))
            .await?;
        assert_eq!(reply["ok"], false, "{ask}: {reply}");
    }
    let state = browser
        .eval(&page, "chrome.runtime.sendMessage({type: 'getState'})")
        .await?;
    assert_eq!(state["ok"], false, "{state}");
    // Writing the switch straight to storage is undone.
    browser
        .eval(
            &page,
            "chrome.storage.local.set({developerMode: true}).then(() => 1)",
        )
        .await?;
    wait_for("the switch to be turned off again", DEADLINE, || async {
        let v = browser
            .eval(
                &page,
                "chrome.storage.local.get('developerMode').then(r => r.developerMode)",
            )
            .await?;
        Ok((v == json!(false)).then_some(()))
    })
    .await?;
    let status = agent.call::<Status>(&Empty {}).await?;
    assert!(!status.developer_mode, "{status:?}");

    // Nothing changed: the other tab is not shared, the tab is still
    // shared and nobody but the person took control.
    person_goes_to(&browser, &page, &browser.fixture.url("/")).await?;
    notification(&mut agent, "tab.updated", |p| {
        p["id"] == tab.0 && p.get("blocked").is_none()
    })
    .await?;
    let list = agent.call::<TabsList>(&Empty {}).await?;
    let ids: Vec<TabId> = list.tabs.iter().map(|t| t.id).collect();
    assert_eq!(ids, [tab], "only the tab the person shared");
    agent.call::<Acquire>(&Empty {}).await?;
    let err = agent
        .call::<Evaluate>(&eval("1"))
        .await
        .expect_err("developer mode stayed off");
    assert_eq!(err.kind(), Some(ErrorKind::DeveloperModeOff), "{err}");
    drop(other);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_files_are_driveable_only_under_the_directories_the_person_allowed(
) -> anyhow::Result<()> {
    let root = tempfile::tempdir()?;
    let site = root.path().join("site");
    std::fs::create_dir(&site)?;
    std::fs::write(
        site.join("page.html"),
        "<title>Site</title><p>allowed page</p>",
    )?;
    std::fs::write(
        site.join("next.html"),
        "<title>Next</title><p>next page</p>",
    )?;
    std::fs::write(root.path().join("secret.txt"), CANARY)?;
    let config = root.path().join("config.json");
    let allow = |dirs: &[&std::path::Path]| -> anyhow::Result<()> {
        let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        std::fs::write(&config, serde_json::to_vec(&json!({"fileDirs": dirs}))?)?;
        Ok(())
    };
    allow(&[&site])?;
    let browser = Browser::launch(cotab_e2e::browser::LaunchOptions {
        env: vec![("COTAB_CONFIG".into(), config.display().to_string())],
        ..Default::default()
    })
    .await?;
    let page_url = format!("file://{}", site.join("page.html").display());
    let page = browser.open_tab(&page_url).await?;
    // The person shares the local page from the popup, as any other.
    let tab = browser.share(&page, &page_url).await?;
    let mut agent = controller(&browser, tab).await?;
    let outline = agent
        .call::<Snapshot>(&SnapshotParams::default())
        .await?
        .text;
    assert!(outline.contains("allowed page"), "{outline}");
    let next = format!("file://{}", site.join("next.html").display());
    agent
        .call::<Navigate>(&NavigateParams {
            url: Some(next.clone()),
            ..NavigateParams::default()
        })
        .await?;
    let secret = format!("file://{}", root.path().join("secret.txt").display());
    let err = agent
        .call::<Navigate>(&NavigateParams {
            url: Some(secret.clone()),
            ..NavigateParams::default()
        })
        .await
        .expect_err("outside the directory");
    assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget), "{err}");
    let err = agent
        .call::<Navigate>(&NavigateParams {
            url: Some(format!("file://{}/../secret.txt", site.display())),
            ..NavigateParams::default()
        })
        .await
        .expect_err("out by a dot segment");
    assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget), "{err}");
    assert_eq!(location(&browser, &page).await?, next);

    // The person takes the permission back: the tab is suspended at once.
    allow(&[])?;
    notification(&mut agent, "control.revoked", |p| {
        p["reason"] == "blockedTarget"
    })
    .await?;
    let refused = everything_refused(&mut agent, false).await?;
    assert!(!refused.contains(CANARY));
    Ok(())
}
