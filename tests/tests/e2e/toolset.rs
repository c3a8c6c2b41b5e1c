//! The agent toolset in real Chromium (issue 4): an accessibility snapshot
//! with element refs, input by ref, waits, history, tabs, console,
//! uploads and capture options — each through the agent socket, under the
//! broker's rules.

use base64::Engine as _;
use cotab_e2e::browser::{Browser, LaunchOptions, Page};
use cotab_e2e::{wait_for, Deadline};
use cotab_host::client::Client;
use cotab_shared::controller::{
    Acquire, Capture, CaptureParams, Check, CheckParams, Click, ClickParams, CloseTabParams,
    Console, ConsoleLevel, ConsoleParams, ConsoleResult, CreateTabParams, Drag, DragParams, DropOn,
    DropParams, Empty, Navigate, NavigateAction, NavigateParams, Ref, Scroll, ScrollParams,
    SelectOption, SelectOptionParams, SelectParams, SetFiles, SetFilesParams, Snapshot,
    SnapshotParams, TabsClose, TabsCreate, TabsList, TabsSelect, Type, TypeParams, Wait,
    WaitParams, WaitUntil,
};
use cotab_shared::{ErrorKind, TabId};
use serde_json::{json, Value};
use std::time::Duration;

pub(crate) const DEADLINE: Duration = Duration::from_secs(15);

/// A browser with fixture `path` open and shared, and an agent that
/// selected it and holds its lease.
pub(crate) async fn on_page(
    path: &str,
    options: LaunchOptions,
) -> anyhow::Result<(Browser, Page, TabId, Client)> {
    let browser = Browser::launch(options).await?;
    let url = browser.fixture.url(path);
    let page = browser.open_tab(&url).await?;
    let tab = browser.share(&page, &url).await?;
    let mut agent = browser.agent("toolset").await?;
    agent
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    agent.call::<Acquire>(&Empty {}).await?;
    Ok((browser, page, tab, agent))
}

/// The ref on the first outline line that contains `needle`.
pub(crate) fn find_ref(outline: &str, needle: &str) -> anyhow::Result<Ref> {
    cotab_e2e::outline_ref(outline, needle).ok_or_else(|| {
        anyhow::anyhow!("no line with {needle:?} and a ref in the snapshot:\n{outline}")
    })
}

pub(crate) async fn snapshot(agent: &mut Client) -> anyhow::Result<String> {
    Ok(agent
        .call::<Snapshot>(&SnapshotParams::default())
        .await?
        .text)
}

async fn title(browser: &Browser, page: &Page) -> anyhow::Result<Value> {
    browser.eval(page, "document.title").await
}

async fn wait_title(browser: &Browser, page: &Page, want: &str) -> anyhow::Result<()> {
    wait_for(&format!("the title {want:?}"), DEADLINE, || async {
        Ok((title(browser, page).await? == want).then_some(()))
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_is_filled_and_submitted_by_refs_from_one_snapshot() -> anyhow::Result<()> {
    let (browser, page, _tab, mut agent) = on_page("/signup", LaunchOptions::default()).await?;
    let outline = snapshot(&mut agent).await?;
    assert!(
        outline.contains("heading \"Create an account\""),
        "{outline}"
    );
    let email = find_ref(&outline, "textbox \"Email\"")?;
    let password = find_ref(&outline, "textbox \"Password\"")?;
    let country = find_ref(&outline, "combobox \"Country\"")?;
    let terms = find_ref(&outline, "checkbox \"I accept the terms\"")?;
    let submit = find_ref(&outline, "button \"Sign up\"")?;

    let typed = |element: &Ref, text: &str| TypeParams {
        text: text.into(),
        element: Some(element.clone()),
        ..TypeParams::default()
    };
    agent
        .call::<Type>(&typed(&email, "ada@example.org"))
        .await?;
    agent
        .call::<Type>(&typed(&password, "correct horse"))
        .await?;
    // The snapshot shows the email typed, in Playwright's format, and no
    // trace of the password.
    let filled = snapshot(&mut agent).await?;
    assert!(
        filled.contains("textbox \"Email\"") && filled.contains(": ada@example.org"),
        "{filled}"
    );
    assert!(!filled.contains("correct horse"), "{filled}");
    let chosen = agent
        .call::<SelectOption>(&SelectOptionParams {
            element: country.clone(),
            values: vec!["Japan".into()],
        })
        .await?;
    assert_eq!(chosen.selected, vec!["jp".to_string()]);
    agent
        .call::<Check>(&CheckParams {
            element: terms.clone(),
            checked: true,
        })
        .await?;
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('terms').checked")
            .await?,
        true
    );
    // Checking what is already checked changes nothing.
    agent
        .call::<Check>(&CheckParams {
            element: terms.clone(),
            checked: true,
        })
        .await?;
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('terms').checked")
            .await?,
        true
    );
    agent
        .call::<Click>(&ClickParams::on(submit.clone()))
        .await?;
    wait_title(&browser, &page, "Signed up").await?;
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('result').textContent")
            .await?,
        "Welcome ada@example.org from jp"
    );
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('password').value")
            .await?,
        "correct horse"
    );

    // Typing with `clear` replaces the value.
    agent
        .call::<Type>(&TypeParams {
            clear: true,
            ..typed(&email, "grace@example.org")
        })
        .await?;
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('email').value")
            .await?,
        "grace@example.org"
    );

    // A newer snapshot of the same document keeps each element's ref, and
    // gives none of the old ones to another element.
    let newer = snapshot(&mut agent).await?;
    let submit_now = find_ref(&newer, "button \"Sign up\"")?;
    assert_eq!(submit_now, submit, "the same element keeps its ref");
    assert_eq!(find_ref(&newer, "textbox \"Email\"")?, email);

    // After a navigation, the latest refs are stale too.
    agent
        .call::<Navigate>(&NavigateParams::to(browser.fixture.url("/second")))
        .await?;
    let err = agent
        .call::<Click>(&ClickParams::on(submit_now))
        .await
        .expect_err("after navigation");
    assert_eq!(err.kind(), Some(ErrorKind::StaleRef), "{err}");
    assert_eq!(title(&browser, &page).await?, "Second page");

    // History: back, forward, reload.
    let back = agent
        .call::<Navigate>(&NavigateParams {
            action: Some(NavigateAction::Back),
            ..NavigateParams::default()
        })
        .await?;
    assert_eq!(back.url, browser.fixture.url("/signup"));
    let forward = agent
        .call::<Navigate>(&NavigateParams {
            action: Some(NavigateAction::Forward),
            ..NavigateParams::default()
        })
        .await?;
    assert_eq!(forward.title, "Second page");
    let reloaded = agent
        .call::<Navigate>(&NavigateParams {
            action: Some(NavigateAction::Reload),
            ..NavigateParams::default()
        })
        .await?;
    assert_eq!(reloaded.url, browser.fixture.url("/second"));

    // A field that hands the focus to another takes no text, and is not
    // cleared: the text would go where the focus went.
    agent
        .call::<Navigate>(&NavigateParams::to(browser.fixture.url("/focus-thief")))
        .await?;
    let thief = find_ref(&snapshot(&mut agent).await?, "textbox \"Nickname\"")?;
    let err = agent
        .call::<Type>(&TypeParams {
            clear: true,
            ..typed(&thief, "Ada")
        })
        .await
        .expect_err("the focus moved away");
    assert_eq!(err.kind(), Some(ErrorKind::NotInteractable), "{err}");
    assert!(err.to_string().contains("moved the focus"), "{err}");
    assert_eq!(
        browser
            .eval(
                &page,
                "[document.getElementById('thief').value, document.getElementById('other').value]"
            )
            .await?,
        json!(["keep", ""])
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elements_are_scrolled_into_view_dragged_and_refused_when_covered() -> anyhow::Result<()> {
    let (browser, page, _tab, mut agent) = on_page("/long", LaunchOptions::default()).await?;
    let outline = snapshot(&mut agent).await?;
    let bottom = find_ref(&outline, "button \"Bottom button\"")?;
    agent
        .call::<Click>(&ClickParams::on(bottom.clone()))
        .await?;
    wait_title(&browser, &page, "Bottom clicked").await?;
    assert!(
        browser
            .eval(&page, "scrollY")
            .await?
            .as_f64()
            .unwrap_or(0.0)
            > 1000.0
    );

    // Scroll by a wheel delta, then an element into view.
    agent
        .call::<Scroll>(&ScrollParams {
            delta_y: Some(-5000.0),
            ..ScrollParams::default()
        })
        .await?;
    wait_for("the page to scroll to the top", DEADLINE, || async {
        Ok((browser.eval(&page, "scrollY").await?.as_f64() == Some(0.0)).then_some(()))
    })
    .await?;
    agent
        .call::<Scroll>(&ScrollParams {
            element: Some(bottom),
            ..ScrollParams::default()
        })
        .await?;
    assert!(
        browser
            .eval(&page, "scrollY")
            .await?
            .as_f64()
            .unwrap_or(0.0)
            > 1000.0
    );

    // HTML5 drag and drop between two zones.
    agent
        .call::<Navigate>(&NavigateParams::to(browser.fixture.url("/drag")))
        .await?;
    let outline = snapshot(&mut agent).await?;
    let card = find_ref(&outline, "\"Card\"")?;
    let right = find_ref(&outline, "\"Right zone\"")?;
    agent
        .call::<Drag>(&DragParams {
            from: card,
            to: right,
        })
        .await?;
    wait_title(&browser, &page, "Dropped in right").await?;
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('item').parentElement.id")
            .await?,
        "right"
    );

    // A covered element and a zero-size one are refused, saying why.
    agent
        .call::<Navigate>(&NavigateParams::to(browser.fixture.url("/covered")))
        .await?;
    let outline = snapshot(&mut agent).await?;
    let under = find_ref(&outline, "\"Hidden action\"")?;
    let err = agent
        .call::<Click>(&ClickParams::on(under))
        .await
        .expect_err("covered");
    assert_eq!(err.kind(), Some(ErrorKind::NotInteractable), "{err}");
    assert!(err.to_string().contains("covered"), "{err}");
    if let Ok(tiny) = find_ref(&outline, "\"Tiny action\"") {
        let err = agent
            .call::<Click>(&ClickParams::on(tiny))
            .await
            .expect_err("zero size");
        assert_eq!(err.kind(), Some(ErrorKind::NotInteractable), "{err}");
    }
    assert_eq!(title(&browser, &page).await?, "Covered");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waits_end_when_the_condition_holds_or_time_out() -> anyhow::Result<()> {
    let (browser, page, _tab, mut agent) = on_page("/second", LaunchOptions::default()).await?;
    agent
        .call::<Navigate>(&NavigateParams::to(browser.fixture.url("/delayed")))
        .await?;
    let waited = agent
        .call::<Wait>(&WaitParams {
            text: Some("Ready now".into()),
            ..WaitParams::until(WaitUntil::Text)
        })
        .await?;
    assert!(waited.waited_ms <= 15_000, "{waited:?}");
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('status').textContent")
            .await?,
        "Ready now"
    );
    agent
        .call::<Wait>(&WaitParams {
            text: Some("Loading".into()),
            ..WaitParams::until(WaitUntil::TextGone)
        })
        .await?;
    agent
        .call::<Wait>(&WaitParams {
            selector: Some("#status".into()),
            ..WaitParams::until(WaitUntil::Selector)
        })
        .await?;
    agent
        .call::<Wait>(&WaitParams::until(WaitUntil::Load))
        .await?;
    let err = agent
        .call::<Wait>(&WaitParams {
            text: Some("This text never appears".into()),
            timeout_ms: Some(300),
            ..WaitParams::until(WaitUntil::Text)
        })
        .await
        .expect_err("never");
    assert_eq!(err.kind(), Some(ErrorKind::Timeout), "{err}");
    let err = agent
        .call::<Wait>(&WaitParams::until(WaitUntil::Text))
        .await
        .expect_err("no text given");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest), "{err}");
    Ok(())
}

/// Reads the console until `done` holds for the answer.
async fn poll_console(
    agent: &mut Client,
    params: ConsoleParams,
    what: &str,
    done: impl Fn(&ConsoleResult) -> bool,
) -> anyhow::Result<ConsoleResult> {
    let clock = Deadline::new(what, DEADLINE);
    loop {
        let r = agent.call::<Console>(&params).await?;
        if done(&r) {
            return Ok(r);
        }
        clock.next(r).await?;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn console_messages_and_uncaught_errors_are_read_back() -> anyhow::Result<()> {
    let (browser, page, _tab, mut agent) = on_page("/second", LaunchOptions::default()).await?;
    agent
        .call::<Navigate>(&NavigateParams::to(browser.fixture.url("/console")))
        .await?;
    let all = poll_console(
        &mut agent,
        ConsoleParams::default(),
        "the uncaught error",
        |r| r.messages.iter().any(|m| m.exception),
    )
    .await?;
    let find = |text: &str| all.messages.iter().find(|m| m.text.contains(text)).cloned();
    let hello = find("hello from the page").ok_or_else(|| anyhow::anyhow!("no log: {all:?}"))?;
    assert_eq!(hello.level, ConsoleLevel::Info);
    assert!(hello.text.contains("42"), "{hello:?}");
    assert_eq!(
        find("careful now").map(|m| m.level),
        Some(ConsoleLevel::Warning)
    );
    assert_eq!(
        find("something bad").map(|m| m.level),
        Some(ConsoleLevel::Error)
    );
    let boom = find("uncaught boom").ok_or_else(|| anyhow::anyhow!("no exception: {all:?}"))?;
    assert!(
        boom.exception && boom.level == ConsoleLevel::Error,
        "{boom:?}"
    );

    let warnings = agent
        .call::<Console>(&ConsoleParams {
            levels: Some(vec![ConsoleLevel::Warning]),
            ..ConsoleParams::default()
        })
        .await?;
    assert!(
        warnings
            .messages
            .iter()
            .all(|m| m.level == ConsoleLevel::Warning),
        "{warnings:?}"
    );
    assert!(!warnings.messages.is_empty());

    // Only what came after the cursor.
    browser
        .eval(&page, "document.getElementById('log').click()")
        .await?;
    let since = ConsoleParams {
        since: Some(all.next),
        ..ConsoleParams::default()
    };
    let newer = poll_console(&mut agent, since, "the new log line", |r| {
        !r.messages.is_empty()
    })
    .await?;
    assert_eq!(newer.messages.len(), 1, "{newer:?}");
    assert_eq!(newer.messages[0].text, "clicked 7");

    // Another page: only its own messages, unless all are asked for.
    agent
        .call::<Navigate>(&NavigateParams::to(browser.fixture.url("/second")))
        .await?;
    let current = ConsoleParams {
        current_document: true,
        ..ConsoleParams::default()
    };
    let fresh = agent.call::<Console>(&current).await?;
    assert!(fresh.messages.is_empty(), "{fresh:?}");
    let kept = agent.call::<Console>(&ConsoleParams::default()).await?;
    assert!(
        kept.messages.iter().any(|m| m.text == "clicked 7"),
        "{kept:?}"
    );
    browser
        .eval(&page, "console.log('on the second page'), 1")
        .await?;
    let own = poll_console(&mut agent, current, "the second page's line", |r| {
        !r.messages.is_empty()
    })
    .await?;
    assert_eq!(own.messages.len(), 1, "{own:?}");
    assert_eq!(own.messages[0].text, "on the second page");
    Ok(())
}

/// A directory with an `allowed` directory the host config names for
/// uploads and a `secret.txt` beside it, outside, and the options that
/// start the browser with that config.
pub(crate) fn upload_dirs() -> anyhow::Result<(
    tempfile::TempDir,
    std::path::PathBuf,
    std::path::PathBuf,
    LaunchOptions,
)> {
    let dir = tempfile::tempdir()?;
    let allowed = dir.path().join("allowed");
    std::fs::create_dir(&allowed)?;
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "not for agents\n")?;
    let config = dir.path().join("config.json");
    std::fs::write(
        &config,
        serde_json::json!({ "uploadDirs": [allowed] }).to_string(),
    )?;
    let options = LaunchOptions {
        env: vec![("COTAB_CONFIG".into(), config.display().to_string())],
        ..LaunchOptions::default()
    };
    Ok((dir, allowed, secret, options))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_are_uploaded_only_from_allowed_directories() -> anyhow::Result<()> {
    let (_dir, allowed, secret, options) = upload_dirs()?;
    let file = allowed.join("report.txt");
    std::fs::write(&file, "quarterly numbers\n")?;
    std::os::unix::fs::symlink(&secret, allowed.join("link.txt"))?;
    let (browser, page, _tab, mut agent) = on_page("/upload", options).await?;
    let outline = snapshot(&mut agent).await?;
    let input = find_ref(&outline, "Attachment")?;
    let upload = |path: &std::path::Path| SetFilesParams {
        element: Some(input.clone()),
        paths: vec![path.display().to_string()],
    };
    for refused in [
        secret.clone(),
        allowed.join("link.txt"),
        allowed.join("../secret.txt"),
    ] {
        let err = agent
            .call::<SetFiles>(&upload(&refused))
            .await
            .expect_err("outside");
        assert_eq!(err.kind(), Some(ErrorKind::PathNotAllowed), "{err}");
        assert!(
            !err.to_string().contains("secret"),
            "the error echoes the path: {err}"
        );
    }
    agent.call::<SetFiles>(&upload(&file)).await?;
    wait_title(&browser, &page, "Uploaded report.txt").await?;
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('name').textContent")
            .await?,
        "report.txt (18 bytes)"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_and_data_are_dropped_onto_an_element_from_allowed_directories_only(
) -> anyhow::Result<()> {
    let (_dir, allowed, secret, options) = upload_dirs()?;
    let file = allowed.join("notes.txt");
    std::fs::write(&file, "twelve chars")?;
    let (browser, page, _tab, mut agent) = on_page("/drop", options).await?;
    let zone = find_ref(&snapshot(&mut agent).await?, "Drop zone")?;
    let drop = |paths: Vec<String>, text: Option<&str>| DropParams {
        element: zone.clone(),
        paths,
        data: text
            .map(|t| [("text/plain".to_string(), t.to_string())].into())
            .unwrap_or_default(),
    };
    let err = agent
        .call::<DropOn>(&drop(vec![secret.display().to_string()], Some("x")))
        .await
        .expect_err("outside the allowed directories");
    assert_eq!(err.kind(), Some(ErrorKind::PathNotAllowed), "{err}");
    let err = agent
        .call::<DropOn>(&drop(Vec::new(), None))
        .await
        .expect_err("nothing to drop");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest), "{err}");
    assert_eq!(title(&browser, &page).await?, "Drop");
    agent
        .call::<DropOn>(&drop(vec![file.display().to_string()], Some("hello")))
        .await?;
    wait_title(&browser, &page, "dropped").await?;
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('got').textContent")
            .await?,
        "text=hello files=notes.txt (12)"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tabs_are_created_and_closed_and_captures_downscaled_or_unchanged() -> anyhow::Result<()> {
    let (browser, _page, tab, mut agent) = on_page("/signup", LaunchOptions::default()).await?;
    let created = agent
        .call::<TabsCreate>(&CreateTabParams {
            url: Some(browser.fixture.url("/second")),
        })
        .await?;
    let list = agent.call::<TabsList>(&Empty {}).await?;
    let new = list
        .tabs
        .iter()
        .find(|t| t.id == created.tab_id)
        .ok_or_else(|| anyhow::anyhow!("the new tab is not listed: {list:?}"))?;
    assert!(new.selected);
    assert_eq!(new.title, "Second page");
    assert!(snapshot(&mut agent).await?.contains("heading \"Second\""));
    agent
        .call::<TabsClose>(&CloseTabParams {
            tab_id: Some(created.tab_id),
        })
        .await?;
    let ids: Vec<TabId> = agent
        .call::<TabsList>(&Empty {})
        .await?
        .tabs
        .iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(ids, vec![tab]);

    agent
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    agent.call::<Acquire>(&Empty {}).await?;
    let small = agent
        .call::<Capture>(&CaptureParams {
            max_width: Some(640),
            ..CaptureParams::default()
        })
        .await?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(small.data.as_deref().unwrap_or_default())?;
    let image = image::load_from_memory(&bytes)?;
    assert_eq!(image.width(), 640);
    assert_eq!((small.width, small.height), (image.width(), image.height()));

    let first = agent.call::<Capture>(&CaptureParams::default()).await?;
    assert!(first.data.is_some() && !first.unchanged);
    let again = agent
        .call::<Capture>(&CaptureParams {
            known_frame_id: Some(first.frame_id.clone()),
            ..CaptureParams::default()
        })
        .await?;
    assert!(again.unchanged, "an identical page was captured as changed");
    assert!(again.data.is_none());
    assert_eq!(again.frame_id, first.frame_id);

    // Once the page changes, the capture carries an image again.
    let outline = snapshot(&mut agent).await?;
    let email = find_ref(&outline, "textbox \"Email\"")?;
    agent
        .call::<Type>(&TypeParams {
            text: "visible change".into(),
            element: Some(email),
            ..TypeParams::default()
        })
        .await?;
    let changed = agent
        .call::<Capture>(&CaptureParams {
            known_frame_id: Some(first.frame_id),
            ..CaptureParams::default()
        })
        .await?;
    assert!(!changed.unchanged && changed.data.is_some());
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_the_person_moves_into_the_group_is_shared() -> anyhow::Result<()> {
    let (browser, page, tab, mut agent) = on_page("/signup", LaunchOptions::default()).await?;
    let other_url = browser.fixture.url("/second");
    let _other = browser.open_tab(&other_url).await?;
    let popup = browser.open_popup().await?;
    let other_tab = browser.tab_id_in_popup(&popup, &other_url).await?;
    // What a drag into the group does: the tab joins the `cotab` group.
    let joined = format!(
        "chrome.tabs.get({tab}).then(t => chrome.tabs.group({{tabIds: [{other_tab}], groupId: t.groupId}}))"
    );
    browser.eval(&popup, &joined).await?;
    browser.close(&popup).await?;
    browser.activate(&page).await?;
    let listed = {
        let clock = Deadline::new("the grouped tab to be listed", DEADLINE);
        loop {
            let list = agent.call::<TabsList>(&Empty {}).await?;
            if list.tabs.iter().any(|t| t.id == other_tab) {
                break list;
            }
            clock.next(list).await?;
        }
    };
    assert_eq!(listed.tabs.len(), 2, "{listed:?}");
    agent
        .call::<TabsSelect>(&SelectParams { tab_id: other_tab })
        .await?;
    assert!(snapshot(&mut agent).await?.contains("heading \"Second\""));
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elements_inside_an_iframe_are_in_the_snapshot_and_act_by_ref() -> anyhow::Result<()> {
    let (browser, page, _tab, mut agent) = on_page("/framed", LaunchOptions::default()).await?;
    let clock = Deadline::new("the iframe's form in the snapshot", DEADLINE);
    let outline = loop {
        let text = snapshot(&mut agent).await?;
        if text.contains("button \"Sign up\"") {
            break text;
        }
        clock.next(text).await?;
    };
    assert!(outline.contains("heading \"Outer page\""), "{outline}");
    let terms = find_ref(&outline, "checkbox \"I accept the terms\"")?;
    agent.call::<Click>(&ClickParams::on(terms)).await?;
    assert_eq!(
        browser
            .eval(
                &page,
                "document.getElementById('inner').contentDocument.getElementById('terms').checked"
            )
            .await?,
        true
    );
    Ok(())
}
