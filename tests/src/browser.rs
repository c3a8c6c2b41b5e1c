//! Launching Chromium with cotab, and the person's side of a session:
//! opening tabs, sharing and unsharing them through the real popup page.

use crate::cdp::Cdp;
use crate::fixture::Fixture;
use crate::{binary, extension_dir, wait_for, Deadline};
use anyhow::{anyhow, bail, Context, Result};
use cotab_host::client::Client;
use cotab_shared::controller::{Empty, Hello, HelloParams, LaneState, LaneTransport, Status};
use cotab_shared::{TabId, EXTENSION_ID};
use serde_json::{json, Value};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

mod recorder;
mod relays;

pub use relays::relay_pids;

/// How long the harness waits for the browser, the extension or the daemon.
pub const STARTUP_DEADLINE: Duration = Duration::from_secs(30);

/// How long a starting browser may take to open its DevTools port. A
/// browser's first start on a fresh machine reads its whole binary and
/// builds caches, and two tests may start at once.
const LAUNCH_DEADLINE: Duration = Duration::from_secs(90);

/// How many of the browser's last log lines a failed start reports.
const LOG_TAIL_LINES: usize = 30;

/// How the browser is started.
#[derive(Debug, Clone, Default)]
pub struct LaunchOptions {
    /// Show a window (needs a display).
    pub headed: bool,
    /// Extra environment for the browser, and so for the native host and
    /// the daemon it starts (e.g. `COTAB_RESUME_GRACE_MS`).
    pub env: Vec<(String, String)>,
    /// cotab's icon pinned to the toolbar, as the person pins it (the
    /// profile's `extensions.pinned_extensions`); a new profile has it in
    /// the Extensions menu.
    pub pinned: bool,
    /// More unpacked extensions loaded beside cotab (a peer's, to measure
    /// both in one browser).
    pub extra_extensions: Vec<PathBuf>,
}

/// The Chromium executable: `COTAB_CHROMIUM` when set, else Debian's real
/// binary (its `/usr/bin/chromium` wrapper adds flags of its own), else the
/// first browser on `PATH`.
pub fn chromium_path() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("COTAB_CHROMIUM") {
        return Ok(PathBuf::from(p));
    }
    for p in [
        "/usr/lib/chromium/chromium",
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
    ] {
        if Path::new(p).is_file() {
            return Ok(PathBuf::from(p));
        }
    }
    bail!("Chromium not found: install it with `apt-get install -y chromium chromium-driver`, or set COTAB_CHROMIUM")
}

/// One browser with cotab loaded, its profile and runtime directory, and
/// the fixture server. Dropping it stops the browser and the daemon.
pub struct Browser {
    /// CDP connection to the browser (test oracle and popup driver).
    pub cdp: Cdp,
    /// Fixture pages.
    pub fixture: Fixture,
    /// The daemon's runtime directory (`COTAB_RUNTIME_DIR`).
    pub runtime_dir: PathBuf,
    child: Child,
    chromium: PathBuf,
    extension: PathBuf,
    options: LaunchOptions,
    // Kept for its Drop, which deletes the profile and runtime directory.
    _root: tempfile::TempDir,
}

/// An agent connected to the daemon at `socket` with an open session
/// (for tasks that cannot borrow the [`Browser`]).
pub async fn agent_at(socket: &Path, name: &str) -> Result<Client> {
    let mut client = Client::connect(socket).await?;
    client.call::<Hello>(&HelloParams::new(name)).await?;
    Ok(client)
}

/// Waits until the daemon says `want` carries the lane (`host.status`'s
/// `laneTransport`), for at most `deadline`.
pub async fn carried_by(agent: &mut Client, want: LaneTransport, deadline: Duration) -> Result<()> {
    let clock = crate::Deadline::new("the lane's transport", deadline);
    loop {
        let status = agent.call::<Status>(&Empty {}).await?;
        if status.lane_transport == Some(want) {
            return Ok(());
        }
        clock.next(status.lane_transport).await?;
    }
}

/// Starts Chromium on the profile under `root` and connects to it over CDP.
async fn start_chromium(
    chromium: &Path,
    extension: &Path,
    root: &Path,
    options: &LaunchOptions,
) -> Result<(Child, Cdp)> {
    let profile = root.join("profile");
    let runtime_dir = root.join("run");
    let mut cmd = Command::new(chromium);
    if !options.headed {
        cmd.arg("--headless=new");
    }
    cmd.args([
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--remote-debugging-port=0",
        "--window-size=1280,900",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .arg(format!(
        "--load-extension={}",
        std::iter::once(extension)
            .chain(options.extra_extensions.iter().map(PathBuf::as_path))
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(",")
    ))
    .arg("about:blank")
    // The browser passes its environment to the native host it starts,
    // so the relay and the daemon use this test's runtime directory.
    .env("COTAB_RUNTIME_DIR", &runtime_dir)
    .env("COTAB_LOG_DIR", root.join("logs"))
    .env(
        "COTAB_LOG",
        std::env::var("COTAB_LOG").unwrap_or_else(|_| "debug".into()),
    )
    .env("COTAB_IDLE_EXIT_SECS", "120")
    .envs(options.env.iter().map(|(k, v)| (k, v)))
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(
        fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(root.join("chromium.log"))?,
    );
    // A process group of its own: at the end of a test the renderers and
    // helpers go with the browser, and none still writes into the profile
    // as its directory is removed.
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let port_file = profile.join("DevToolsActivePort");
    // Chromium itself now and then dies of a signal as it starts, before
    // it opened its DevTools port (a zygote that could not fork, on a
    // loaded machine): it is started once more then, and only then.
    let mut tries = 0;
    loop {
        tries += 1;
        let mut child = cmd
            .spawn()
            .with_context(|| format!("starting {}", chromium.display()))?;
        let clock = Deadline::new("Chromium's DevToolsActivePort", LAUNCH_DEADLINE);
        let (ws, exited) = loop {
            if let Some(ws) = devtools_url(&port_file) {
                break (Ok(ws), None);
            }
            let exited = child.try_wait().ok().flatten();
            if exited.is_some() {
                let e = anyhow!("Chromium ended before it opened its DevTools port");
                break (Err(e), exited);
            }
            if let Err(e) = clock.next("the port file not written").await {
                break (Err(e), None);
            }
        };
        match ws {
            Ok(ws) => {
                let cdp = Cdp::connect(&ws).await?;
                return Ok((child, cdp));
            }
            Err(e) => {
                // Its helpers too: none may still write into the profile
                // when it starts again.
                if let Ok(pid) = i32::try_from(child.id()) {
                    let group = nix::unistd::Pid::from_raw(pid);
                    let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
                }
                let _ = child.kill();
                let _ = child.wait();
                let crashed = exited.is_some_and(|s| s.signal().is_some());
                let log = fs::read_to_string(root.join("chromium.log")).unwrap_or_default();
                if crashed && tries == 1 {
                    eprintln!(
                        "Chromium died as it started ({}); starting it once more. Its log:\n{}",
                        exited.map_or_else(String::new, |s| s.to_string()),
                        log_tail(&log, LOG_TAIL_LINES)
                    );
                    continue;
                }
                return Err(e.context(format!(
                    "the browser {}; the last lines of its log:\n{}",
                    exited.map_or("was still running".to_owned(), |s| format!(
                        "had exited ({s})"
                    )),
                    log_tail(&log, LOG_TAIL_LINES),
                )));
            }
        }
    }
}

/// The DevTools WebSocket url Chromium wrote to `port_file`, once it did.
fn devtools_url(port_file: &Path) -> Option<String> {
    let text = fs::read_to_string(port_file).ok()?;
    let mut lines = text.lines();
    match (lines.next(), lines.next()) {
        (Some(port), Some(path)) => Some(format!("ws://127.0.0.1:{port}{path}")),
        _ => None,
    }
}

/// The last `lines` lines of `log`.
fn log_tail(log: &str, lines: usize) -> String {
    let all: Vec<&str> = log.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

impl Browser {
    /// Starts Chromium with the built extension and waits until the
    /// extension's lane is online at the daemon.
    pub async fn launch(options: LaunchOptions) -> Result<Browser> {
        let extension = extension_dir()?;
        let host = binary("cotab-host")?;
        let chromium = chromium_path()?;
        let root = tempfile::Builder::new().prefix("cotab-e2e-").tempdir()?;
        let profile = root.path().join("profile");
        let runtime_dir = root.path().join("run");
        fs::create_dir_all(profile.join("Default"))?;
        // chrome://extensions' developer mode: without it, an unpacked
        // extension the browser reloads (as a person's Reload click does)
        // comes back disabled as an "unsupported developer extension".
        let pinned: &[&str] = if options.pinned { &[EXTENSION_ID] } else { &[] };
        fs::write(
            profile.join("Default").join("Preferences"),
            json!({"extensions": {"ui": {"developer_mode": true}, "pinned_extensions": pinned}})
                .to_string(),
        )?;
        fs::create_dir(&runtime_dir)?;
        fs::set_permissions(&runtime_dir, fs::Permissions::from_mode(0o700))?;

        // The real installer writes the host manifest into the profile,
        // which Chromium reads before any system location.
        let status = Command::new(&host)
            .args(["install", "--browser", "chromium", "--user-data-dir"])
            .arg(&profile)
            .stdout(Stdio::null())
            .status()
            .context("running cotab-host install")?;
        if !status.success() {
            bail!("cotab-host install failed: {status}");
        }

        let fixture = Fixture::start()?;
        let (child, cdp) = start_chromium(&chromium, &extension, root.path(), &options).await?;
        let browser = Browser {
            cdp,
            fixture,
            runtime_dir,
            child,
            chromium,
            extension,
            options,
            _root: root,
        };
        browser.wait_lane_online().await?;
        Ok(browser)
    }

    /// The person presses and releases `key` (one character) in `page`,
    /// through the harness's own CDP connection: not through cotab.
    pub async fn person_types(&self, page: &Page, key: char) -> Result<()> {
        let key = key.to_string();
        for kind in ["keyDown", "keyUp"] {
            self.cdp
                .send_to(
                    Some(&page.session),
                    "Input.dispatchKeyEvent",
                    json!({"type": kind, "key": key,
                           "text": if kind == "keyDown" { key.as_str() } else { "" }}),
                )
                .await?;
        }
        Ok(())
    }

    /// The person clicks (left button, press and release) the centre of
    /// the element `selector` in `page`, through the harness's own CDP
    /// connection: not through cotab.
    pub async fn person_clicks(&self, page: &Page, selector: &str) -> Result<()> {
        let at = self
            .eval(
                page,
                &format!(
                    "(() => {{ const r = document.querySelector({}).getBoundingClientRect(); \
                     return [r.x + r.width / 2, r.y + r.height / 2]; }})()",
                    serde_json::to_string(selector)?
                ),
            )
            .await?;
        let (x, y) = (at[0].as_f64().unwrap_or(0.0), at[1].as_f64().unwrap_or(0.0));
        for kind in ["mousePressed", "mouseReleased"] {
            self.cdp
                .send_to(
                    Some(&page.session),
                    "Input.dispatchMouseEvent",
                    json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
                )
                .await?;
        }
        Ok(())
    }

    /// The whole browser exits (SIGTERM, as when the person quits); the
    /// daemon is left running. Waits until the browser is gone.
    pub async fn quit(&mut self) -> Result<()> {
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM)?;
        let deadline = crate::Deadline::new("the browser to exit", STARTUP_DEADLINE);
        while self.child.try_wait()?.is_none() {
            deadline.next("still running").await?;
        }
        Ok(())
    }

    /// The whole browser exits ([`Browser::quit`]) and starts again with
    /// the same profile; the daemon is left running. Waits until the
    /// extension's lane is online again.
    pub async fn restart(&mut self) -> Result<()> {
        self.quit().await?;
        // A fresh DevToolsActivePort is how the new browser is found.
        let _ = fs::remove_file(self._root.path().join("profile").join("DevToolsActivePort"));
        let (child, cdp) = start_chromium(
            &self.chromium,
            &self.extension,
            self._root.path(),
            &self.options,
        )
        .await?;
        self.child = child;
        self.cdp = cdp;
        self.wait_lane_online().await
    }

    /// The pids of the native-messaging relays the browser started for this
    /// browser's runtime directory (`cotab-host chrome-extension://…`).
    pub fn relay_pids(&self) -> Vec<i32> {
        relay_pids(&self.runtime_dir)
    }

    /// The browser's profile directory (`--user-data-dir`), where the host
    /// manifest was installed (`NativeMessagingHosts/`).
    pub fn profile_dir(&self) -> PathBuf {
        self._root.path().join("profile")
    }

    /// The daemon's pid, from its pid file.
    pub fn daemon_pid(&self) -> Option<i32> {
        fs::read_to_string(self.runtime_dir.join("daemon.pid"))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// The browser's own DevTools endpoint, `http://127.0.0.1:PORT`, for a
    /// client measured beside cotab's.
    pub fn devtools_http(&self) -> Result<String> {
        let text =
            fs::read_to_string(self._root.path().join("profile").join("DevToolsActivePort"))?;
        let port = text.lines().next().unwrap_or_default().trim();
        anyhow::ensure!(!port.is_empty(), "DevToolsActivePort names no port");
        Ok(format!("http://127.0.0.1:{port}"))
    }

    /// Evaluates `expression` (awaiting a promise) in the extension's
    /// service worker, then detaches again: a CDP session on the worker
    /// would keep it alive.
    pub async fn in_worker(&self, expression: &str) -> Result<Value> {
        let url = format!("chrome-extension://{EXTENSION_ID}/background.js");
        let target = wait_for(
            "the extension's service worker",
            STARTUP_DEADLINE,
            || async {
                let targets = self.cdp.send("Target.getTargets", json!({})).await?;
                Ok(targets["targetInfos"].as_array().and_then(|list| {
                    list.iter()
                        .find(|t| t["type"] == "service_worker" && t["url"] == url.as_str())
                        .and_then(|t| t["targetId"].as_str().map(str::to_owned))
                }))
            },
        )
        .await?;
        let session = self.cdp.attach(&target).await?;
        let value = self.cdp.eval(&session, expression).await;
        self.cdp
            .send("Target.detachFromTarget", json!({"sessionId": session}))
            .await?;
        value
    }

    /// Stops every service worker, the extension's among them, as the
    /// browser does to an idle worker (`ServiceWorker.stopAllWorkers`
    /// through `page`'s session).
    pub async fn stop_workers(&self, page: &Page) -> Result<()> {
        for method in [
            "ServiceWorker.enable",
            "ServiceWorker.stopAllWorkers",
            "ServiceWorker.disable",
        ] {
            self.cdp
                .send_to(Some(&page.session), method, json!({}))
                .await?;
        }
        Ok(())
    }

    /// Reloads the extension as the person's Reload click in
    /// chrome://extensions does.
    pub async fn reload_extension(&self) -> Result<()> {
        let page = self.open_tab("chrome://extensions").await?;
        let reload = format!(
            "chrome.developerPrivate.reload('{EXTENSION_ID}', {{failQuietly: false}}).then(() => true)"
        );
        let r = self.eval(&page, &reload).await;
        self.close(&page).await?;
        if r? != Value::Bool(true) {
            bail!("chrome.developerPrivate.reload did not succeed");
        }
        Ok(())
    }

    /// Path of the agent socket.
    pub fn agent_socket(&self) -> PathBuf {
        self.runtime_dir.join("agent.sock")
    }

    /// Waits until the daemon reports the browser lane online.
    pub async fn wait_lane_online(&self) -> Result<()> {
        let socket = self.agent_socket();
        wait_for(
            "the extension's lane to come online at the daemon",
            STARTUP_DEADLINE,
            || async {
                if !socket.exists() {
                    return Ok(None);
                }
                let mut client = Client::connect(&socket).await?;
                let status = client.call::<Status>(&Empty {}).await;
                // host.status needs a session: open one first when asked to.
                let status = match status {
                    Ok(s) => s,
                    Err(_) => {
                        client.call::<Hello>(&HelloParams::new("harness")).await?;
                        client.call::<Status>(&Empty {}).await?
                    }
                };
                Ok((status.lane == LaneState::Online).then_some(()))
            },
        )
        .await
    }

    /// An agent connected to the daemon with an open session.
    pub async fn agent(&self, name: &str) -> Result<Client> {
        agent_at(&self.agent_socket(), name).await
    }

    /// Opens `url` in a new tab of the browser window and returns the CDP
    /// session of the page (an oracle independent of cotab).
    pub async fn open_tab(&self, url: &str) -> Result<Page> {
        let r = self
            .cdp
            .send("Target.createTarget", json!({"url": url}))
            .await?;
        let target_id = r["targetId"]
            .as_str()
            .ok_or_else(|| anyhow!("createTarget returned no targetId"))?
            .to_string();
        let session = self.cdp.attach(&target_id).await?;
        self.cdp
            .send_to(Some(&session), "Runtime.enable", json!({}))
            .await?;
        let page = Page { target_id, session };
        // A new tab shows `about:blank`, complete, before it navigates:
        // only the page asked for counts.
        let blank = url == "about:blank";
        wait_for("the new tab to load", STARTUP_DEADLINE, || async {
            let state = self
                .cdp
                .eval(&page.session, "[document.readyState, location.href]")
                .await?;
            let loaded = state[0] == "complete" && (blank || state[1] != "about:blank");
            Ok(loaded.then_some(()))
        })
        .await?;
        Ok(page)
    }

    /// A new CDP session of the harness on an open tab (e.g. after its
    /// renderer crashed and the page loaded again).
    pub async fn attach_page(&self, target_id: &str) -> Result<Page> {
        let session = self.cdp.attach(target_id).await?;
        self.cdp
            .send_to(Some(&session), "Runtime.enable", json!({}))
            .await?;
        Ok(Page {
            target_id: target_id.to_owned(),
            session,
        })
    }

    /// Opens the real popup page as a tab.
    pub async fn open_popup(&self) -> Result<Page> {
        let url = format!("chrome-extension://{EXTENSION_ID}/popup.html");
        self.open_tab(&url).await
    }

    /// The chrome tab id of the tab showing `url`, as the popup lists it.
    pub async fn tab_id_in_popup(&self, popup: &Page, url: &str) -> Result<TabId> {
        let expr = format!(
            "(() => {{ const li = document.querySelector('li[data-url=' + JSON.stringify({url}) + ']'); return li ? Number(li.dataset.tabId) : null; }})()",
            url = serde_json::to_string(url)?
        );
        wait_for(
            "the tab to appear in the popup",
            STARTUP_DEADLINE,
            || async {
                let v = self.cdp.eval(&popup.session, &expr).await?;
                Ok(v.as_i64().map(|id| TabId(id as i32)))
            },
        )
        .await
    }

    /// Clicks a popup control and waits for its counterpart to appear.
    async fn click_popup(&self, popup: &Page, tab: TabId, action: &str, then: &str) -> Result<()> {
        let selector = format!("[data-tab-id=\"{tab}\"][data-action=\"{action}\"]");
        let after = format!("[data-tab-id=\"{tab}\"][data-action=\"{then}\"]");
        let click = format!(
            "(() => {{ const b = document.querySelector({s}); if (!b) return false; b.click(); return true; }})()",
            s = serde_json::to_string(&selector)?
        );
        wait_for(
            &format!("the popup's {action} button"),
            STARTUP_DEADLINE,
            || async {
                Ok(
                    (self.cdp.eval(&popup.session, &click).await? == Value::Bool(true))
                        .then_some(()),
                )
            },
        )
        .await?;
        let present = format!(
            "document.querySelector({}) !== null",
            serde_json::to_string(&after)?
        );
        let error = "document.getElementById('error')?.textContent || ''";
        wait_for(
            &format!("the popup to show {then}"),
            STARTUP_DEADLINE,
            || async {
                if self.cdp.eval(&popup.session, &present).await? == Value::Bool(true) {
                    return Ok(Some(()));
                }
                let shown = self.cdp.eval(&popup.session, error).await?;
                match shown.as_str() {
                    Some(e) if !e.is_empty() => bail!("the popup shows an error: {e}"),
                    _ => Ok(None),
                }
            },
        )
        .await
    }

    /// Shares the tab showing `url` by clicking Share in the real popup,
    /// then closes the popup and brings the shared tab to the front.
    pub async fn share(&self, page: &Page, url: &str) -> Result<TabId> {
        let popup = self.open_popup().await?;
        let tab = self.tab_id_in_popup(&popup, url).await?;
        self.click_popup(&popup, tab, "share", "unshare").await?;
        self.close(&popup).await?;
        self.activate(page).await?;
        Ok(tab)
    }

    /// Unshares a tab by clicking Unshare in the real popup.
    pub async fn unshare(&self, page: &Page, tab: TabId) -> Result<()> {
        let popup = self.open_popup().await?;
        self.click_popup(&popup, tab, "unshare", "share").await?;
        self.close(&popup).await?;
        self.activate(page).await
    }

    /// Takes control of a shared tab with the popup's Take control button.
    pub async fn take_control(&self, page: &Page, tab: TabId) -> Result<()> {
        let popup = self.open_popup().await?;
        self.click_popup(&popup, tab, "take-control", "hand-back")
            .await?;
        self.close(&popup).await?;
        self.activate(page).await
    }

    /// Hands a tab back with the popup's Hand back button.
    pub async fn hand_back(&self, page: &Page, tab: TabId) -> Result<()> {
        let popup = self.open_popup().await?;
        self.click_popup(&popup, tab, "hand-back", "take-control")
            .await?;
        self.close(&popup).await?;
        self.activate(page).await
    }

    /// Flips the popup's developer-mode switch to `on`.
    pub async fn set_developer_mode(&self, page: &Page, on: bool) -> Result<()> {
        let popup = self.open_popup().await?;
        // A click before the popup's code listens would flip the checkbox
        // and write nothing: wait for its first render (the tab rows).
        wait_for("the popup to render", STARTUP_DEADLINE, || async {
            let ready = "document.querySelector('li[data-tab-id]') !== null";
            Ok((self.cdp.eval(&popup.session, ready).await? == Value::Bool(true)).then_some(()))
        })
        .await?;
        let toggle = format!(
            "(() => {{ const s = document.getElementById('developer-mode'); if (!s) return null; \
             if (s.checked !== {on}) s.click(); return s.checked; }})()"
        );
        wait_for(
            "the popup's developer-mode switch",
            STARTUP_DEADLINE,
            || async {
                Ok(
                    (self.cdp.eval(&popup.session, &toggle).await? == Value::Bool(on))
                        .then_some(()),
                )
            },
        )
        .await?;
        // The click writes the switch asynchronously; closing the popup
        // before the write lands would lose it.
        let stored =
            "chrome.storage.local.get('developerMode').then(r => r.developerMode === true)";
        wait_for(
            "the developer-mode switch to be stored",
            STARTUP_DEADLINE,
            || async {
                Ok((self.cdp.eval(&popup.session, stored).await? == Value::Bool(on)).then_some(()))
            },
        )
        .await?;
        self.close(&popup).await?;
        self.activate(page).await
    }

    /// Brings a tab to the front (background tabs capture slowly).
    pub async fn activate(&self, page: &Page) -> Result<()> {
        self.cdp
            .send("Target.activateTarget", json!({"targetId": page.target_id}))
            .await?;
        Ok(())
    }

    /// Closes a tab.
    pub async fn close(&self, page: &Page) -> Result<()> {
        self.cdp
            .send("Target.closeTarget", json!({"targetId": page.target_id}))
            .await?;
        Ok(())
    }

    /// Evaluates an expression in a page through the harness's own CDP
    /// session (not through cotab).
    pub async fn eval(&self, page: &Page, expression: &str) -> Result<Value> {
        self.cdp.eval(&page.session, expression).await
    }

    /// Prints the last `lines` lines of the daemon's log to stderr, for a
    /// failed run.
    pub fn print_daemon_log_tail(&self, lines: usize) {
        let log = self.daemon_log();
        let tail: Vec<&str> = log.lines().rev().take(lines).collect();
        eprintln!("--- daemon log (last lines) ---");
        for l in tail.iter().rev() {
            eprintln!("{l}");
        }
    }

    /// The daemon's log, for failure reports.
    pub fn daemon_log(&self) -> String {
        let logs = self.runtime_dir.with_file_name("logs");
        fs::read_to_string(logs.join("daemon.log")).unwrap_or_default()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // A failing test panics; `COTAB_E2E_LOGS` shows the log of every
        // test (tests that return an error do not panic here).
        if std::thread::panicking() || std::env::var_os("COTAB_E2E_LOGS").is_some() {
            eprintln!("--- daemon log ---\n{}", self.daemon_log());
        }
        // Best effort: the processes may already be gone.
        let group = nix::unistd::Pid::from_raw(self.child.id() as i32);
        let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
        let _ = self.child.kill();
        let _ = self.child.wait();
        // The daemon runs detached from the browser; stop it by its pid file.
        if let Ok(pid) = fs::read_to_string(self.runtime_dir.join("daemon.pid")) {
            if let Ok(pid) = pid.trim().parse::<i32>() {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGTERM,
                );
            }
        }
    }
}

/// A tab the harness opened, with its own CDP session.
#[derive(Debug, Clone)]
pub struct Page {
    /// CDP target id.
    pub target_id: String,
    /// Flat CDP session id.
    pub session: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_start_reports_the_logs_last_lines() {
        assert_eq!(log_tail("a\nb\nc\n", 2), "b\nc");
        assert_eq!(log_tail("a", 5), "a");
        assert_eq!(log_tail("", 5), "");
    }
}
