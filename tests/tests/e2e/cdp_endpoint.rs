//! `cotab cdp-endpoint` driven by the real clients of npm
//! (`playwright-core`'s `connectOverCDP`, `puppeteer-core`'s `connect`,
//! locked in `tests/playwright`, installed by `cargo xtask test` under
//! `<target>/playwright`) running `tests/playwright/cdp_endpoint.cjs`
//! against the real daemon and a shared fixture tab. What the page did is
//! checked through the harness's CDP oracle.

use cotab_e2e::browser::{Browser, LaunchOptions, Page};
use cotab_e2e::{binary, target_dir};
use cotab_shared::TabId;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt as _, BufReader};
use tokio::process::{Child, ChildStdout, Command};

/// How long one client script may take.
const SCRIPT_DEADLINE: Duration = Duration::from_secs(90);

/// The node modules `cargo xtask test` installs from `tests/playwright`.
fn node_modules() -> anyhow::Result<PathBuf> {
    let dir = target_dir().join("playwright").join("node_modules");
    anyhow::ensure!(
        dir.join("playwright-core").is_dir() && dir.join("puppeteer-core").is_dir(),
        "{} lacks playwright-core or puppeteer-core: run `cargo xtask test`, which installs them",
        dir.display()
    );
    Ok(dir)
}

/// A running `cotab cdp-endpoint`: the process, its url and its token.
struct Endpoint {
    _process: Child,
    url: String,
    token: String,
}

async fn endpoint(browser: &Browser) -> anyhow::Result<Endpoint> {
    let mut process = Command::new(binary("cotab")?)
        .arg("--runtime-dir")
        .arg(&browser.runtime_dir)
        .arg("--json")
        .arg("cdp-endpoint")
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let stdout = process.stdout.take().expect("piped");
    let mut line = String::new();
    let mut stdout = BufReader::new(stdout);
    tokio::time::timeout(Duration::from_secs(10), stdout.read_line(&mut line)).await??;
    let v: Value = serde_json::from_str(&line)?;
    Ok(Endpoint {
        _process: process,
        url: v["endpoint"].as_str().unwrap_or_default().to_owned(),
        token: v["token"].as_str().unwrap_or_default().to_owned(),
    })
}

/// Starts the client script with `steps`; its stdin stays open (the
/// `afterTakeover` step waits for a line on it).
fn script(
    browser: &Browser,
    e: &Endpoint,
    client: &str,
    steps: &[&str],
) -> anyhow::Result<(Child, BufReader<ChildStdout>)> {
    script_with(browser, e, client, steps, &[])
}

/// [`script`] with more environment for the steps.
fn script_with(
    browser: &Browser,
    e: &Endpoint,
    client: &str,
    steps: &[&str],
    env: &[(&str, &str)],
) -> anyhow::Result<(Child, BufReader<ChildStdout>)> {
    let js = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("playwright")
        .join("cdp_endpoint.cjs");
    let mut child = Command::new("node")
        .arg(js)
        .arg(client)
        .args(steps)
        .env("NODE_PATH", node_modules()?)
        .env("COTAB_CDP_ENDPOINT", &e.url)
        .env("COTAB_CDP_TOKEN", &e.token)
        .env("FIXTURE", browser.fixture.url("").trim_end_matches('/'))
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let out = BufReader::new(child.stdout.take().expect("piped"));
    Ok((child, out))
}

/// The next step line the script prints.
async fn next_step(out: &mut BufReader<ChildStdout>) -> anyhow::Result<Value> {
    let mut line = String::new();
    let n = tokio::time::timeout(SCRIPT_DEADLINE, out.read_line(&mut line)).await??;
    anyhow::ensure!(n > 0, "the client script ended early");
    Ok(serde_json::from_str(&line)?)
}

/// Runs the script to its end; each step's line by name.
async fn run(
    browser: &Browser,
    e: &Endpoint,
    client: &str,
    steps: &[&str],
) -> anyhow::Result<Vec<Value>> {
    run_with(browser, e, client, steps, &[]).await
}

/// [`run`] with more environment for the steps.
async fn run_with(
    browser: &Browser,
    e: &Endpoint,
    client: &str,
    steps: &[&str],
    env: &[(&str, &str)],
) -> anyhow::Result<Vec<Value>> {
    let (mut child, mut out) = script_with(browser, e, client, steps, env)?;
    let mut lines = Vec::new();
    for _ in 0..=steps.len() {
        lines.push(next_step(&mut out).await?);
    }
    tokio::time::timeout(SCRIPT_DEADLINE, child.wait()).await??;
    eprintln!("{client}: {lines:?}");
    Ok(lines)
}

fn step<'a>(lines: &'a [Value], name: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["step"] == name)
        .unwrap_or_else(|| panic!("no step {name} in {lines:?}"))
}

fn ok<'a>(lines: &'a [Value], name: &str) -> &'a Value {
    let l = step(lines, name);
    assert_eq!(l["ok"], true, "step {name} failed: {l}");
    &l["value"]
}

/// A browser whose fixture tab is shared with developer mode on, a tab
/// at `unshared` beside it that nobody shared, and a running endpoint.
struct Setup {
    browser: Browser,
    page: Page,
    tab: TabId,
    url: String,
    other: Option<Page>,
    e: Endpoint,
}

async fn setup(unshared: Option<&str>) -> anyhow::Result<Setup> {
    setup_at("/", unshared).await
}

/// [`setup`] with the shared tab at `path`.
async fn setup_at(path: &str, unshared: Option<&str>) -> anyhow::Result<Setup> {
    let browser = Browser::launch(LaunchOptions::default()).await?;
    let url = browser.fixture.url(path);
    let page = browser.open_tab(&url).await?;
    let tab = browser.share(&page, &url).await?;
    let other = match unshared {
        Some(path) => Some(browser.open_tab(&browser.fixture.url(path)).await?),
        None => None,
    };
    browser.set_developer_mode(&page, true).await?;
    let e = endpoint(&browser).await?;
    Ok(Setup {
        browser,
        page,
        tab,
        url,
        other,
        e,
    })
}

/// A client's script of what a person's automation does, on a shared
/// tab beside one the person did not share; what the page did is read by
/// the harness.
async fn drives_the_shared_tab(client: &str) -> anyhow::Result<()> {
    let Setup {
        browser,
        page,
        url,
        e,
        ..
    } = setup(Some("/second")).await?;
    let lines = run(
        &browser,
        &e,
        client,
        &[
            "pages",
            "evaluate",
            "click",
            "fill",
            "screenshot",
            "goto",
            "waitForSelector",
            "dialog",
            "newPage",
            "popup",
        ],
    )
    .await?;
    ok(&lines, "connect");
    // The shared tab only.
    assert_eq!(ok(&lines, "pages"), &serde_json::json!([url]));
    assert_eq!(ok(&lines, "evaluate"), 42);
    assert_eq!(ok(&lines, "click"), "Clicked");
    assert_eq!(ok(&lines, "fill"), "Ada");
    let shot = ok(&lines, "screenshot");
    assert_eq!(shot["png"], "PNG", "{shot}");
    assert!(shot["bytes"].as_u64() > Some(1000), "{shot}");
    let at = |path: &str| Value::from(browser.fixture.url(path));
    assert_eq!(ok(&lines, "goto"), &at("/delayed"));
    assert_eq!(ok(&lines, "waitForSelector"), "found");
    assert_eq!(ok(&lines, "dialog"), "confirmed");
    assert_eq!(ok(&lines, "newPage"), "Second page");
    assert_eq!(ok(&lines, "popup"), &at("/second?from=link"));
    assert_eq!(browser.eval(&page, "document.title").await?, "Dialogs");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn playwright_drives_the_shared_tab_through_connect_over_cdp() -> anyhow::Result<()> {
    drives_the_shared_tab("playwright").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn puppeteer_drives_the_shared_tab_through_connect() -> anyhow::Result<()> {
    drives_the_shared_tab("puppeteer").await
}

/// Issue 36: a script closes the page it opened and the shared tab it
/// attached (`page.close()`, which sends `Target.closeTarget` on the
/// browser's session while the tab's own session holds the lease): each
/// close answers and the tab is gone from the browser.
async fn closes_the_tabs_it_controls(client: &str) -> anyhow::Result<()> {
    let Setup {
        browser, url, e, ..
    } = setup(None).await?;
    let lines = run(&browser, &e, client, &["closePages"]).await?;
    let closed = ok(&lines, "closePages");
    assert_eq!(closed["left"], serde_json::json!([url]), "{closed}");
    assert_eq!(closed["after"], serde_json::json!([]), "{closed}");
    let targets = browser
        .cdp
        .send("Target.getTargets", serde_json::json!({}))
        .await?;
    let pages: Vec<&str> = targets["targetInfos"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["type"] == "page")
        .filter_map(|t| t["url"].as_str())
        .collect();
    let fixture = browser.fixture.url("");
    assert!(
        !pages.iter().any(|u| u.starts_with(fixture.as_str())),
        "{pages:?}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn playwright_closes_the_tabs_it_controls() -> anyhow::Result<()> {
    closes_the_tabs_it_controls("playwright").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn puppeteer_closes_the_tabs_it_controls() -> anyhow::Result<()> {
    closes_the_tabs_it_controls("puppeteer").await
}

/// A page with a form in a frame of another site and a dedicated worker:
/// Playwright fills and submits the form and evaluates in the worker,
/// through their own sessions; then Puppeteer, connecting to the page as
/// it is, finds both again. The page heard of each payment. The frame's
/// password field reads redacted: the redaction scan runs in the frame's
/// own session, where its document is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_of_other_sites_and_workers_are_driven_through_their_own_sessions(
) -> anyhow::Result<()> {
    let Setup {
        browser, page, e, ..
    } = setup(None).await?;
    let expected = serde_json::json!({
        "frame": "http://localhost/pay",
        "card": "4242",
        "pin": "[redacted]",
        "button": "Paid",
        "worker": 42,
    });
    let lines = run(&browser, &e, "playwright", &["checkout"]).await?;
    assert_eq!(ok(&lines, "checkout"), &expected);
    assert_eq!(browser.eval(&page, "document.title").await?, "Paid");
    browser
        .eval(&page, "document.title = 'Checkout'; 'reset'")
        .await?;
    let lines = run(&browser, &e, "puppeteer", &["checkout"]).await?;
    assert_eq!(ok(&lines, "checkout"), &expected);
    assert_eq!(browser.eval(&page, "document.title").await?, "Paid");
    Ok(())
}

/// A client that has the page's new frames held for it and goes away
/// without running them does not leave the person's page hanging: the
/// end of its lease lets them run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_held_for_a_client_that_went_away_run() -> anyhow::Result<()> {
    let Setup {
        browser, page, e, ..
    } = setup(None).await?;
    let (mut child, mut out) = script(&browser, &e, "raw", &["holdFrames"])?;
    let connected = next_step(&mut out).await?;
    assert_eq!(connected["ok"], true, "{connected}");
    let ready = next_step(&mut out).await?;
    assert_eq!(ready["waiting"], true, "{ready}");
    let pay = "document.body.dataset.pay ?? 'held'";
    // Held while the client is there: the frame attached waiting, so the
    // form has not run.
    assert_eq!(browser.eval(&page, pay).await?, "held");
    go_on(&mut child).await?;
    tokio::time::timeout(SCRIPT_DEADLINE, child.wait()).await??;
    until(&browser, &page, pay, "ready").await
}

/// Until `expression` on `page` gives `want`, within 15 s.
async fn until(browser: &Browser, page: &Page, expression: &str, want: &str) -> anyhow::Result<()> {
    let clock = cotab_e2e::Deadline::new(expression, Duration::from_secs(15));
    loop {
        let now = browser.eval(page, expression).await?;
        if now == want {
            return Ok(());
        }
        clock.next(now).await?;
    }
}

/// Tells a script waiting on its stdin (after `ready`) to go on.
async fn go_on(child: &mut Child) -> anyhow::Result<()> {
    use tokio::io::AsyncWriteExt as _;
    child
        .stdin
        .as_mut()
        .expect("piped")
        .write_all(b"go\n")
        .await?;
    Ok(())
}

/// Until the script connected and said `ready`.
async fn when_ready(out: &mut BufReader<ChildStdout>) -> anyhow::Result<()> {
    let connected = next_step(out).await?;
    assert_eq!(connected["ok"], true, "{connected}");
    let ready = next_step(out).await?;
    assert_eq!(ready["step"], "ready", "{ready}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_takeover_fails_the_scripts_next_action_with_the_reason() -> anyhow::Result<()> {
    let Setup {
        browser,
        page,
        tab,
        e,
        ..
    } = setup(None).await?;
    let (mut child, mut out) = script(&browser, &e, "playwright", &["afterTakeover"])?;
    when_ready(&mut out).await?;
    // The client's own session and the tab's are one agent to the person.
    let popup = browser.open_popup().await?;
    let agents = "document.getElementById('agents').textContent";
    until(
        &browser,
        &popup,
        agents,
        "Agent connected: Playwright (CDP)",
    )
    .await?;
    browser.take_control(&page, tab).await?;
    go_on(&mut child).await?;
    let acted = next_step(&mut out).await?;
    assert_eq!(acted["ok"], false, "{acted}");
    let error = acted["error"].as_str().unwrap_or_default();
    assert!(error.contains("the person took control"), "{error}");
    tokio::time::timeout(SCRIPT_DEADLINE, child.wait()).await??;
    // The person holds the tab; the page is as it was.
    assert_eq!(browser.eval(&page, "document.title").await?, "Fixture");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turning_developer_mode_off_closes_the_client_and_a_new_one_is_refused(
) -> anyhow::Result<()> {
    let Setup {
        browser, page, e, ..
    } = setup(None).await?;
    let (mut child, mut out) = script(&browser, &e, "playwright", &["untilDisconnected"])?;
    when_ready(&mut out).await?;
    browser.set_developer_mode(&page, false).await?;
    let gone = next_step(&mut out).await?;
    assert_eq!(gone["value"], "disconnected", "{gone}");
    tokio::time::timeout(SCRIPT_DEADLINE, child.wait()).await??;
    // Off, a client is refused at connect, saying why.
    let lines = run(&browser, &e, "playwright", &[]).await?;
    let connect = step(&lines, "connect");
    assert_eq!(connect["ok"], false, "{connect}");
    assert!(
        connect["error"]
            .as_str()
            .unwrap_or_default()
            .contains("403"),
        "{connect}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_reaches_nothing_the_person_did_not_share() -> anyhow::Result<()> {
    let Setup {
        browser,
        url,
        other,
        e,
        ..
    } = setup(Some("/other")).await?;
    let other = other.expect("opened");
    let lines = run_with(
        &browser,
        &e,
        "playwright",
        &["probe", "evaluate"],
        &[("PROBE_TARGET", other.target_id.as_str())],
    )
    .await?;
    let probe = ok(&lines, "probe");
    // The browser's own view holds the shared tab's page only.
    assert_eq!(probe["targets"], serde_json::json!([url]), "{probe}");
    for refused in [
        "attachOther",
        "createChrome",
        "createFile",
        "storage",
        "browserClose",
        "newContext",
        "pageTarget",
        "pageNavigateChrome",
        "pageScript",
        "ignoreInput",
    ] {
        let why = probe[refused].as_str().unwrap_or_default();
        assert!(
            !why.is_empty() && why != "allowed",
            "{refused} was allowed: {probe}"
        );
    }
    // A second session on the shared tab (`newCDPSession`) works, and the
    // page's own still does.
    assert_eq!(probe["second"], 42, "{probe}");
    assert_eq!(ok(&lines, "evaluate"), 42);
    // The tab nobody shared was not touched.
    assert_eq!(browser.eval(&other, "document.title").await?, "Not shared");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_reads_nothing_is_dropped_and_the_tab_freed() -> anyhow::Result<()> {
    let Setup { browser, e, .. } = setup(None).await?;
    let lines = run(&browser, &e, "raw", &["flood"]).await?;
    assert_eq!(ok(&lines, "flood"), "dropped");
    // Its session and lease went with it: the next client takes the tab.
    let lines = run(&browser, &e, "playwright", &["evaluate"]).await?;
    assert_eq!(ok(&lines, "evaluate"), 42);
    Ok(())
}

/// What the input recorder's page holds: `(keys, buttons)` down.
async fn held(browser: &Browser, page: &Page) -> anyhow::Result<(i64, i64)> {
    let b = browser.eval(page, "balance()").await?;
    Ok((
        b["keys"].as_i64().unwrap_or(-1),
        b["buttons"].as_i64().unwrap_or(-1),
    ))
}

/// Until the page holds nothing, within 15 s; then each of the key up and
/// the button up came once.
async fn released_once(browser: &Browser, page: &Page) -> anyhow::Result<()> {
    let clock = cotab_e2e::Deadline::new("the key and button released", Duration::from_secs(15));
    loop {
        let now = held(browser, page).await?;
        if now == (0, 0) {
            break;
        }
        clock.next(format!("{now:?}")).await?;
    }
    let ups = browser
        .eval(
            page,
            "JSON.stringify(__events.filter(e => e.type.endsWith('up')).map(e => e.type + ':' + (e.key ?? e.button)).sort())",
        )
        .await?;
    assert_eq!(ups, r#"["keyup:q","mouseup:0"]"#);
    Ok(())
}

/// What takes a script's authority away while it holds a key and a
/// button through the endpoint.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Revocation {
    /// The person presses Take control.
    Takeover,
    /// The script disconnects (after one more move of its own).
    ClientGone,
    /// The person turns developer mode off: the endpoint closes the
    /// client.
    DeveloperModeOff,
    /// The person unshares the tab.
    Unshare,
    /// The person goes to a local file in the tab: agents are suspended
    /// there.
    BlockedPage,
    /// The native-messaging relay dies: the lane drops.
    LaneLost,
}

/// Issue 36: a key and a mouse button a Playwright script holds through
/// the endpoint (mid-drag) are released once when `how` takes its
/// authority away, as the agent protocol's are.
async fn released_after(how: Revocation) -> anyhow::Result<()> {
    let s = setup_at("/input", None).await?;
    let r = released_after_in(how, &s).await;
    if r.is_err() {
        s.browser.print_daemon_log_tail(80);
    }
    r
}

async fn released_after_in(how: Revocation, s: &Setup) -> anyhow::Result<()> {
    let Setup {
        browser,
        page,
        tab,
        e,
        ..
    } = s;
    let (browser, page, tab) = (browser, page, *tab);
    let (mut child, mut out) = script(browser, e, "playwright", &["holdInput"])?;
    when_ready(&mut out).await?;
    assert_eq!(held(browser, page).await?, (1, 1));
    match how {
        Revocation::Takeover => browser.take_control(page, tab).await?,
        Revocation::ClientGone => {}
        Revocation::DeveloperModeOff => browser.set_developer_mode(page, false).await?,
        Revocation::Unshare => browser.unshare(page, tab).await?,
        Revocation::BlockedPage => {
            // The page goes with the navigation: the ledger says what the
            // extension released, the key and the button.
            let ledger =
                "chrome.storage.local.get('heldPresses').then(r => (r.heldPresses || []).length)";
            assert_eq!(
                browser.in_worker(ledger).await?,
                2,
                "the extension's ledger has them"
            );
            browser
                .cdp
                .send_to(
                    Some(&page.session),
                    "Page.navigate",
                    serde_json::json!({"url": "file:///etc/hostname"}),
                )
                .await?;
            let clock = cotab_e2e::Deadline::new("the ledger emptied", Duration::from_secs(15));
            loop {
                let now = browser.in_worker(ledger).await?;
                if now == 0 {
                    break;
                }
                clock.next(now).await?;
            }
        }
        Revocation::LaneLost => {
            use nix::sys::signal::{kill, Signal};
            use nix::unistd::Pid;
            let relays = browser.relay_pids();
            anyhow::ensure!(relays.len() == 1, "one relay: {relays:?}");
            kill(Pid::from_raw(relays[0]), Signal::SIGKILL)?;
        }
    }
    if !matches!(how, Revocation::BlockedPage | Revocation::ClientGone) {
        released_once(browser, page).await?;
    }
    go_on(&mut child).await?;
    let acted = next_step(&mut out).await?;
    let may_act = how == Revocation::ClientGone;
    assert_eq!(acted["ok"], may_act, "{how:?}: {acted}");
    // It is never told the person took control when something else
    // ended its control.
    let said = acted["error"].as_str().unwrap_or_default();
    assert!(
        how == Revocation::Takeover || !said.contains("the person took control"),
        "{how:?}: {said}"
    );
    tokio::time::timeout(SCRIPT_DEADLINE, child.wait()).await??;
    if how != Revocation::BlockedPage {
        // Nothing more came with the script's end.
        released_once(browser, page).await?;
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_takeover_releases_what_a_script_holds_through_the_endpoint() -> anyhow::Result<()> {
    released_after(Revocation::Takeover).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_that_disconnects_holding_input_leaves_nothing_held() -> anyhow::Result<()> {
    released_after(Revocation::ClientGone).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn developer_mode_off_releases_what_a_script_holds_through_the_endpoint() -> anyhow::Result<()>
{
    released_after(Revocation::DeveloperModeOff).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unshare_releases_what_a_script_holds_through_the_endpoint() -> anyhow::Result<()> {
    released_after(Revocation::Unshare).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_page_releases_what_a_script_holds_through_the_endpoint() -> anyhow::Result<()> {
    released_after(Revocation::BlockedPage).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_lane_releases_what_a_script_holds_through_the_endpoint() -> anyhow::Result<()> {
    released_after(Revocation::LaneLost).await
}
