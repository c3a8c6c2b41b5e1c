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

/// Runs method `$m` with `$p` on agent `$a` in a task of its own,
/// which hands the agent back with the answer.
#[macro_export]
macro_rules! in_background {
    ($a:expr, $m:ty, $p:expr) => {{
        let mut a = $a;
        let p = $p;
        tokio::spawn(async move {
            let r = a.call::<$m>(&p).await;
            (a, r)
        })
    }};
}

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

/// The side panel's page, in a tab of its own.
pub(crate) async fn open_panel(browser: &Browser) -> anyhow::Result<Page> {
    browser
        .open_tab(&format!(
            "chrome-extension://{EXTENSION_ID}/popup.html?panel"
        ))
        .await
}

/// Turns asking before `what` in `tab` on with the panel's switch, and
/// waits until the daemon says so (the switch itself checks at the
/// click).
pub(crate) async fn ask_before(
    browser: &Browser,
    panel: &Page,
    tab: cotab_shared::TabId,
    what: &str,
) -> anyhow::Result<()> {
    let item = format!("#scopes li[data-tab=\"{}\"]", tab.0);
    click(
        browser,
        panel,
        &format!("{item} input.ask-before[data-what=\"{what}\"]"),
    )
    .await?;
    let asks = format!("document.querySelector('{item}')?.dataset.asks.split(' ')");
    until(browser, panel, &asks, |v| {
        v.as_array().is_some_and(|a| a.iter().any(|w| w == what))
    })
    .await?;
    Ok(())
}

/// Waits until the panel shows one request waiting; its `ask|text`.
pub(crate) async fn one_waiting(browser: &Browser, panel: &Page) -> anyhow::Result<String> {
    let shown = until(browser, panel, WAITING, |v| {
        v.as_array().is_some_and(|a| a.len() == 1)
    })
    .await?;
    Ok(shown[0].as_str().unwrap_or_default().to_owned())
}

/// Answers the request the panel shows with its button `answer`, and
/// waits until the panel shows it no more: the next wait is then not
/// met by this request still shown.
pub(crate) async fn answer(browser: &Browser, panel: &Page, answer: &str) -> anyhow::Result<()> {
    click(browser, panel, &format!("#approvals button.{answer}")).await?;
    none_waiting(browser, panel).await
}

/// Until the panel shows no request waiting.
pub(crate) async fn none_waiting(browser: &Browser, panel: &Page) -> anyhow::Result<()> {
    until(
        browser,
        panel,
        "document.getElementById('waiting').hidden",
        |v| v == true,
    )
    .await?;
    Ok(())
}

/// The mark on the picture of the one request waiting, once the picture
/// has loaded: `[x, y, width, height]` in the tab's CSS pixels.
const MARK: &str = "(() => { const f = document.querySelector('#approvals li figure.frame'); \
    const m = f && f.querySelector('.mark'); \
    return f && f.querySelector('img').naturalWidth > 0 && m \
        ? m.dataset.mark.split(' ').map(Number) : null; })()";

/// Waits until the panel shows the picture of the request waiting with
/// a mark; checks that the mark is `rect` (`[x, y, width, height]` in
/// CSS pixels, as the page's `getBoundingClientRect` gives it) to a
/// pixel, and that it is drawn inside the picture.
async fn marked(browser: &Browser, panel: &Page, rect: &Value) -> anyhow::Result<()> {
    let mark = until(browser, panel, MARK, |v| v.is_array()).await?;
    for i in 0..4 {
        let (got, want) = (mark[i].as_f64(), rect[i].as_f64());
        let close = matches!((got, want), (Some(g), Some(w)) if (g - w).abs() <= 1.5);
        assert!(close, "the mark {mark} is where the page has {rect}");
    }
    let inside = "(() => { const f = document.querySelector('#approvals figure.frame') \
        .getBoundingClientRect(); const m = document.querySelector('#approvals .mark') \
        .getBoundingClientRect(); return m.left >= f.left - 8 && m.right <= f.right + 8 \
        && m.top >= f.top - 8 && m.bottom <= f.bottom + 8 && m.width > 0 && m.height > 0; })()";
    assert_eq!(
        browser.eval(panel, inside).await?,
        true,
        "drawn on the picture"
    );
    Ok(())
}

/// The box of the page's element `selector` as the page has it, or the
/// point at its centre (no size).
fn rect_of(selector: &str, point: bool) -> String {
    format!(
        "(() => {{ const r = document.querySelector('{selector}').getBoundingClientRect(); \
         return {point} ? [r.left + r.width / 2, r.top + r.height / 2, 0, 0] \
             : [r.left, r.top, r.width, r.height]; }})()"
    )
}

pub(crate) fn kind<T: std::fmt::Debug>(r: &Result<T, ClientError>) -> Option<ErrorKind> {
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
    let panel = open_panel(&browser).await?;
    ask_before(&browser, &panel, tab, "password").await?;
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
    let task = in_background!(agent, Type, params);
    assert_eq!(
        one_waiting(&browser, &panel).await?,
        format!("password|{}", "•".repeat(13))
    );
    assert_eq!(value(&browser, &page, "password").await?, "");
    // The toolbar's badge on the tab asks too, for a person whose side
    // panel is closed.
    let badge = || crate::toolbar::badge(&browser, tab);
    let text = |v: Value| v[0].as_str().unwrap_or_default().to_owned();
    let clock = cotab_e2e::Deadline::new("the badge asks", std::time::Duration::from_secs(15));
    while text(badge().await?) != "ASK" {
        clock.next(badge().await?).await?;
    }
    answer(&browser, &panel, "deny").await?;
    let clock = cotab_e2e::Deadline::new("the badge is back", std::time::Duration::from_secs(15));
    while text(badge().await?) != "AI" {
        clock.next(badge().await?).await?;
    }
    let (agent, r) = task.await?;
    assert_eq!(kind(&r), Some(ErrorKind::DeniedByPerson), "{r:?}");
    assert_eq!(value(&browser, &page, "password").await?, "");

    // Asked again and approved, it is typed.
    let params = typed(&password, "correct horse");
    let task = in_background!(agent, Type, params);
    one_waiting(&browser, &panel).await?;
    answer(&browser, &panel, "approve").await?;
    let (agent, r) = task.await?;
    r?;
    assert_eq!(value(&browser, &page, "password").await?, "correct horse");

    // Submitting: the button, by its ref or at its point, waits; a
    // checkbox at its point does not.
    ask_before(&browser, &panel, tab, "submit").await?;
    let sign_up = find_ref(&outline, "button \"Sign up\"")?;
    let task = in_background!(agent, Click, ClickParams::on(sign_up));
    assert_eq!(one_waiting(&browser, &panel).await?, "submit|");
    // The person sees the tab behind the panel, with the button marked.
    let button = browser
        .eval(&page, &rect_of("button[type=submit]", false))
        .await?;
    marked(&browser, &panel, &button).await?;
    answer(&browser, &panel, "deny").await?;
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
    let task = in_background!(agent, Click, button_at);
    assert_eq!(one_waiting(&browser, &panel).await?, "submit|");
    assert_eq!(browser.eval(&page, result).await?, "");
    let point = browser
        .eval(&page, &rect_of("button[type=submit]", true))
        .await?;
    marked(&browser, &panel, &point).await?;
    answer(&browser, &panel, "approve").await?;
    let (agent, r) = task.await?;
    r?;
    until(&browser, &page, result, |v| {
        v.as_str().is_some_and(|t| t.starts_with("Welcome"))
    })
    .await?;
    browser
        .eval(&page, "document.getElementById('terms').checked = false; 1")
        .await?;

    // Every action: the checkbox waits; "Stop all agents" voids it.
    ask_before(&browser, &panel, tab, "step").await?;
    let check = CheckParams {
        element: terms.clone(),
        checked: true,
    };
    let task = in_background!(agent, Check, check);
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
    none_waiting(&browser, &panel).await
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
    let panel = open_panel(&browser).await?;
    ask_before(&browser, &panel, tab, "password").await?;
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
    let task = in_background!(agent, Type, params);
    assert_eq!(
        one_waiting(&browser, &panel).await?,
        format!("password|{}", "•".repeat(13))
    );
    assert_eq!(value(&browser, &page, "password").await?, "");
    answer(&browser, &panel, "deny").await?;
    let (_agent, r) = task.await?;
    assert_eq!(kind(&r), Some(ErrorKind::DeniedByPerson), "{r:?}");
    assert_eq!(value(&browser, &page, "password").await?, "");
    Ok(())
}

/// Waits for one step to wait in the panel, and answers it ([`answer`]).
async fn step_answered(browser: &Browser, panel: &Page, how: &str) -> anyhow::Result<()> {
    let shown = one_waiting(browser, panel).await?;
    assert!(shown.starts_with("step|"), "{shown}");
    answer(browser, panel, how).await
}

/// Step mode on a form behind the person's tab: each step waits for the
/// person's yes — the click that opens a confirm, the answer to it, the
/// answer to the prompt that follows (a no leaves the prompt open for
/// another try) — and the receipt tab the page opens asks the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_step_mode_a_dialog_chain_and_the_tab_it_opens_each_wait_for_a_yes() -> anyhow::Result<()>
{
    use crate::dialogs::next_notification;
    use cotab_shared::controller::{
        Acquire, Dialog, DialogKind, DialogParams, Empty, Navigate, NavigateParams, SelectParams,
        TabsSelect,
    };
    let (browser, form, tab, mut agent) = on_page("/coform", LaunchOptions::default()).await?;
    let mut seen = agent.forward_notifications();
    let send = find_ref(&snapshot(&mut agent).await?, "button \"Send\"")?;
    // The panel in front: the form is behind it.
    let panel = open_panel(&browser).await?;
    browser.activate(&panel).await?;
    ask_before(&browser, &panel, tab, "step").await?;

    let task = in_background!(agent, Click, ClickParams::on(send));
    step_answered(&browser, &panel, "approve").await?;
    let (agent, r) = task.await?;
    let dialog = r?.dialog.expect("the confirm");
    assert_eq!(dialog.kind, DialogKind::Confirm);

    let task = in_background!(
        agent,
        Dialog,
        DialogParams {
            accept: true,
            prompt_text: None,
        }
    );
    step_answered(&browser, &panel, "approve").await?;
    let (agent, r) = task.await?;
    assert_eq!(r?.dialog.map(|d| d.kind), Some(DialogKind::Prompt));

    let note = DialogParams {
        accept: true,
        prompt_text: Some("checked".into()),
    };
    let task = in_background!(agent, Dialog, note.clone());
    step_answered(&browser, &panel, "deny").await?;
    let (agent, r) = task.await?;
    assert_eq!(kind(&r), Some(ErrorKind::DeniedByPerson), "{r:?}");
    // The prompt is still open (the page's script waits on it): the
    // same answer again, approved, closes it.
    let task = in_background!(agent, Dialog, note.clone());
    step_answered(&browser, &panel, "approve").await?;
    let (mut agent, r) = task.await?;
    r?;
    assert_eq!(
        browser.eval(&form, "document.title").await?,
        "Sent: checked"
    );

    let receipt = find_ref(&snapshot(&mut agent).await?, "link \"See the receipt\"")?;
    let task = in_background!(agent, Click, ClickParams::on(receipt));
    step_answered(&browser, &panel, "approve").await?;
    let (mut agent, r) = task.await?;
    r?;
    let opened = next_notification(&mut agent, &mut seen, "tab.opened").await?;
    let new = cotab_shared::TabId(
        opened["params"]["id"]
            .as_i64()
            .and_then(|i| i32::try_from(i).ok())
            .ok_or_else(|| anyhow::anyhow!("no id: {opened}"))?,
    );
    // The page's new tab asks what its opener asks: the panel says so,
    // and the agent's step there waits too.
    until(
        &browser,
        &panel,
        &format!(
            "document.querySelector('#scopes li[data-tab=\"{}\"]')?.dataset.asks",
            new.0
        ),
        |v| v == "step",
    )
    .await?;
    agent
        .call::<TabsSelect>(&SelectParams { tab_id: new })
        .await?;
    agent.call::<Acquire>(&Empty {}).await?;
    let there = browser.fixture.url("/second?after=receipt");
    let task = in_background!(agent, Navigate, NavigateParams::to(&there));
    step_answered(&browser, &panel, "deny").await?;
    let (_agent, r) = task.await?;
    assert_eq!(kind(&r), Some(ErrorKind::DeniedByPerson), "{r:?}");
    Ok(())
}

/// The person quits the browser while a step waits for their yes: the
/// request ends with the browser, not as a no nobody gave after the
/// wait.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_waiting_when_the_browser_quits_ends_with_the_browser() -> anyhow::Result<()> {
    let (mut browser, _page, tab, agent) = on_page("/signup", LaunchOptions::default()).await?;
    let mut agent = agent;
    let terms = find_ref(
        &snapshot(&mut agent).await?,
        "checkbox \"I accept the terms\"",
    )?;
    let panel = open_panel(&browser).await?;
    ask_before(&browser, &panel, tab, "step").await?;
    let task = in_background!(
        agent,
        Check,
        CheckParams {
            element: terms,
            checked: true,
        }
    );
    assert!(one_waiting(&browser, &panel).await?.starts_with("step|"));
    browser.quit().await?;
    let (_agent, r) = tokio::time::timeout(std::time::Duration::from_secs(20), task).await??;
    let ended = kind(&r);
    assert!(
        matches!(
            ended,
            Some(
                ErrorKind::RuntimeLost
                    | ErrorKind::TabNotShared
                    | ErrorKind::NoControl
                    | ErrorKind::UnknownOutcome
            )
        ),
        "{r:?}"
    );
    Ok(())
}
