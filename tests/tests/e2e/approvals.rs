//! Issue 40: the person asks to approve what an agent does in a shared
//! tab — typing a password, submitting a form, every action — in the
//! side panel; such a request waits, with nothing of it in the page,
//! until they approve it there; a no refuses it, and "Stop all agents"
//! voids it.

use crate::panel::until;
use crate::toolset::{find_ref, on_page, snapshot};
use cotab_e2e::browser::{Browser, LaunchOptions, Page};
use cotab_host::client::ClientError;
use cotab_shared::controller::{
    Capture, CaptureParams, Check, CheckParams, Click, ClickParams, Type, TypeParams,
};
use cotab_shared::{ErrorKind, EXTENSION_ID};
use serde_json::Value;

/// The requests the panel shows waiting: `ask|text` each.
const WAITING: &str = "[...document.querySelectorAll('#approvals li')]\
    .map(li => li.dataset.ask + '|' + (li.querySelector('.text')?.textContent ?? ''))";

/// Clicks the panel's `selector`, once it is there.
async fn click(browser: &Browser, panel: &Page, selector: &str) -> anyhow::Result<()> {
    let el = format!("document.querySelector('{selector}')");
    // A request's buttons take clicks a moment after it is shown.
    until(browser, panel, &format!("!!{el} && !{el}.disabled"), |v| {
        v == true
    })
    .await?;
    browser.eval(panel, &format!("{el}.click(); 1")).await?;
    Ok(())
}

/// Turns the panel's switch `selector` on, and waits until it shows so.
async fn turn_on(browser: &Browser, panel: &Page, selector: &str) -> anyhow::Result<()> {
    click(browser, panel, selector).await?;
    let checked = format!("document.querySelector('{selector}').checked");
    until(browser, panel, &checked, |v| v == true).await?;
    Ok(())
}

/// Waits until the panel shows one request waiting; its `ask|text`.
async fn one_waiting(browser: &Browser, panel: &Page) -> anyhow::Result<String> {
    let shown = until(browser, panel, WAITING, |v| {
        v.as_array().is_some_and(|a| a.len() == 1)
    })
    .await?;
    Ok(shown[0].as_str().unwrap_or_default().to_owned())
}

fn kind<T: std::fmt::Debug>(r: &Result<T, ClientError>) -> Option<ErrorKind> {
    match r {
        Err(ClientError::Rpc(e)) => Some(e.kind()),
        _ => None,
    }
}

async fn value(browser: &Browser, page: &Page, id: &str) -> anyhow::Result<Value> {
    browser
        .eval(page, &format!("document.getElementById('{id}').value"))
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_or_any_action_waits_for_the_persons_yes_in_the_side_panel() -> anyhow::Result<()>
{
    let (browser, page, tab, mut agent) = on_page("/signup", LaunchOptions::default()).await?;
    let outline = snapshot(&mut agent).await?;
    let email = find_ref(&outline, "textbox \"Email\"")?;
    let password = find_ref(&outline, "textbox \"Password\"")?;
    let terms = find_ref(&outline, "checkbox \"I accept the terms\"")?;
    let panel = browser
        .open_tab(&format!(
            "chrome-extension://{EXTENSION_ID}/popup.html?panel"
        ))
        .await?;
    let switch = |what: &str| {
        format!(
            "#scopes li[data-tab=\"{}\"] input.ask-before[data-what=\"{what}\"]",
            tab.0
        )
    };
    turn_on(&browser, &panel, &switch("password")).await?;
    assert_eq!(
        browser
            .eval(&panel, "document.getElementById('waiting').hidden")
            .await?,
        true,
        "nothing waits yet"
    );

    // The email goes without asking.
    let typed = |el: &cotab_shared::controller::Ref, text: &str| TypeParams {
        text: text.into(),
        element: Some(el.clone()),
        ..TypeParams::default()
    };
    agent
        .call::<Type>(&typed(&email, "ada@example.org"))
        .await?;
    assert_eq!(value(&browser, &page, "email").await?, "ada@example.org");

    // The password waits, masked, even on a page whose script says
    // every field is plain text; a no leaves the field empty.
    browser
        .eval(
            &page,
            "Object.defineProperty(HTMLInputElement.prototype, 'type', \
             {get() { return 'text'; }, configurable: true}); 1",
        )
        .await?;
    let params = typed(&password, "correct horse");
    let task = tokio::spawn(async move {
        let r = agent.call::<Type>(&params).await;
        (agent, r)
    });
    assert_eq!(
        one_waiting(&browser, &panel).await?,
        format!("password|{}", "•".repeat(13))
    );
    assert_eq!(value(&browser, &page, "password").await?, "");
    click(&browser, &panel, "#approvals button.deny").await?;
    let (mut agent, r) = task.await?;
    assert_eq!(kind(&r), Some(ErrorKind::DeniedByPerson), "{r:?}");
    assert_eq!(value(&browser, &page, "password").await?, "");

    // Asked again and approved, it is typed.
    let params = typed(&password, "correct horse");
    let task = tokio::spawn(async move {
        let r = agent.call::<Type>(&params).await;
        (agent, r)
    });
    one_waiting(&browser, &panel).await?;
    click(&browser, &panel, "#approvals button.approve").await?;
    let (mut agent, r) = task.await?;
    r?;
    assert_eq!(value(&browser, &page, "password").await?, "correct horse");
    until(
        &browser,
        &panel,
        "document.getElementById('waiting').hidden",
        |v| v == true,
    )
    .await?;

    // Submitting: the button, by its ref or at its point, waits; a
    // checkbox at its point does not.
    turn_on(&browser, &panel, &switch("submit")).await?;
    let sign_up = find_ref(&outline, "button \"Sign up\"")?;
    let task = tokio::spawn(async move {
        let r = agent.call::<Click>(&ClickParams::on(sign_up)).await;
        (agent, r)
    });
    assert_eq!(one_waiting(&browser, &panel).await?, "submit|");
    click(&browser, &panel, "#approvals button.deny").await?;
    let (mut agent, r) = task.await?;
    assert_eq!(kind(&r), Some(ErrorKind::DeniedByPerson), "{r:?}");
    let result = "document.getElementById('result').textContent";
    assert_eq!(browser.eval(&page, result).await?, "", "not submitted");
    let centre = |id: &str| {
        format!(
            "(() => {{ const r = document.querySelector('{id}').getBoundingClientRect(); \
             return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
        )
    };
    let shot = agent.call::<Capture>(&CaptureParams::default()).await?;
    let dpr = shot.device_pixel_ratio;
    let at = |point: &Value| ClickParams {
        x: point[0].as_f64().map(|x| x * dpr),
        y: point[1].as_f64().map(|y| y * dpr),
        frame_id: Some(shot.frame_id.clone()),
        ..ClickParams::default()
    };
    let terms_at = at(&browser.eval(&page, &centre("#terms")).await?);
    agent.call::<Click>(&terms_at).await?;
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('terms').checked")
            .await?,
        true,
        "a checkbox is no submit: not asked"
    );
    let shot = agent.call::<Capture>(&CaptureParams::default()).await?;
    let button_at = ClickParams {
        frame_id: Some(shot.frame_id.clone()),
        ..at(&browser.eval(&page, &centre("button[type=submit]")).await?)
    };
    let task = tokio::spawn(async move {
        let r = agent.call::<Click>(&button_at).await;
        (agent, r)
    });
    assert_eq!(one_waiting(&browser, &panel).await?, "submit|");
    assert_eq!(browser.eval(&page, result).await?, "");
    click(&browser, &panel, "#approvals button.approve").await?;
    let (mut agent, r) = task.await?;
    r?;
    until(&browser, &page, result, |v| {
        v.as_str().is_some_and(|t| t.starts_with("Welcome"))
    })
    .await?;
    browser
        .eval(&page, "document.getElementById('terms').checked = false; 1")
        .await?;

    // Every action: the checkbox waits; "Stop all agents" voids it.
    turn_on(&browser, &panel, &switch("step")).await?;
    let check = CheckParams {
        element: terms.clone(),
        checked: true,
    };
    let task = tokio::spawn(async move {
        let r = agent.call::<Check>(&check).await;
        (agent, r)
    });
    assert!(one_waiting(&browser, &panel).await?.starts_with("step|"));
    click(&browser, &panel, "#stop-all").await?;
    let (_agent, r) = task.await?;
    assert_eq!(kind(&r), Some(ErrorKind::HumanHasControl), "{r:?}");
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('terms').checked")
            .await?,
        false,
        "nothing reached the page"
    );
    until(
        &browser,
        &panel,
        "document.getElementById('waiting').hidden",
        |v| v == true,
    )
    .await?;
    Ok(())
}

/// The daemon killed and started again by the extension's relay: the tab
/// still asks before what the person chose (the same page target), so a
/// new agent's password waits for their yes in the panel as before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tabs_approvals_outlive_the_daemon_killed_and_started_again() -> anyhow::Result<()> {
    use cotab_shared::controller::{Acquire, Empty, SelectParams, TabsSelect};
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let (browser, page, tab, agent) = on_page("/signup", LaunchOptions::default()).await?;
    let panel = browser
        .open_tab(&format!(
            "chrome-extension://{EXTENSION_ID}/popup.html?panel"
        ))
        .await?;
    let switch = format!(
        "#scopes li[data-tab=\"{}\"] input.ask-before[data-what=\"password\"]",
        tab.0
    );
    turn_on(&browser, &panel, &switch).await?;
    drop(agent);

    let daemon = browser.daemon_pid().expect("the daemon's pid file");
    kill(Pid::from_raw(daemon), Signal::SIGKILL)?;
    browser.wait_lane_online().await?;
    assert_ne!(browser.daemon_pid(), Some(daemon));
    let mut agent = cotab_e2e::wait_for(
        "the new daemon to list the tab",
        std::time::Duration::from_secs(20),
        || async {
            let mut a = browser.agent("after").await?;
            Ok(a.call::<TabsSelect>(&SelectParams { tab_id: tab })
                .await
                .is_ok()
                .then_some(a))
        },
    )
    .await?;
    agent.call::<Acquire>(&Empty {}).await?;
    let outline = snapshot(&mut agent).await?;
    let password = find_ref(&outline, "textbox \"Password\"")?;
    let params = TypeParams {
        text: "correct horse".into(),
        element: Some(password),
        ..TypeParams::default()
    };
    let task = tokio::spawn(async move {
        let r = agent.call::<Type>(&params).await;
        (agent, r)
    });
    assert_eq!(
        one_waiting(&browser, &panel).await?,
        format!("password|{}", "•".repeat(13))
    );
    assert_eq!(value(&browser, &page, "password").await?, "");
    click(&browser, &panel, "#approvals button.deny").await?;
    let (_agent, r) = task.await?;
    assert_eq!(kind(&r), Some(ErrorKind::DeniedByPerson), "{r:?}");
    assert_eq!(value(&browser, &page, "password").await?, "");
    Ok(())
}
