//! `cargo xtask soak [--minutes N]`: an idle shared browser keeps its
//! extension's service worker and native port.
//!
//! It builds what `load-browser` builds, starts headless Chromium through
//! the end-to-end harness, shares one fixture tab through the real popup
//! and then leaves the browser alone for `N` minutes (default 30). The
//! harness keeps only its browser-level CDP connection: its session on the
//! shared tab is detached, the popup is closed, and nothing attaches to the
//! extension's service worker (a DevTools session would keep the worker
//! alive and hide the very thing the soak looks for); the run refuses to
//! start if one is attached.
//!
//! The native port lives as long as the relay process the browser started
//! for it (`cotab-host chrome-extension://…/`), so the run watches that
//! process in `/proc` every few seconds: its pid must not change. Once a
//! minute it asks the daemon `host.status` from a fresh connection (which
//! the daemon answers without the extension): the lane must stay `online`.
//! It prints a line per minute and fails on the first change. See
//! `docs/reliability.md`.

use crate::load_browser::{build_for_browser, daemon_pid, probe_status, rss_kib};
use anyhow::{bail, Context, Result};
use cotab_e2e::browser::{Browser, LaunchOptions};
use cotab_shared::controller::LaneState;
use cotab_shared::EXTENSION_ID;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;
use tokio::time::Instant;

/// The run's length unless `--minutes` says otherwise.
pub(crate) const DEFAULT_MINUTES: u64 = 30;
/// How often the relay's pid is looked at between two status lines.
const RELAY_CHECK: Duration = Duration::from_secs(5);
/// Between two status probes, in seconds.
const MINUTE_SECS: u64 = 60;

/// Runs `cargo xtask soak`.
pub(crate) fn run_soak(root: &Path, minutes: u64) -> Result<()> {
    build_for_browser(root)?;
    tokio::runtime::Runtime::new()?.block_on(soak(minutes))
}

/// The extension's service worker as a CDP target: whether it runs, and
/// whether any DevTools client is attached to it. Read with the
/// browser-level `Target.getTargets`, which attaches to nothing.
async fn worker_state(browser: &Browser) -> Result<Option<bool>> {
    let r = browser.cdp.send("Target.getTargets", json!({})).await?;
    let prefix = format!("chrome-extension://{EXTENSION_ID}/");
    let infos = r["targetInfos"]
        .as_array()
        .context("Target.getTargets returned no targetInfos")?;
    Ok(infos
        .iter()
        .find(|t| {
            t["type"] == "service_worker"
                && t["url"].as_str().is_some_and(|u| u.starts_with(&prefix))
        })
        .map(|t| t["attached"] == Value::Bool(true)))
}

fn worker_text(state: Option<bool>) -> &'static str {
    match state {
        Some(false) => "running",
        Some(true) => "running, DevTools attached",
        None => "not running",
    }
}

async fn soak(minutes: u64) -> Result<()> {
    let browser = Browser::launch(LaunchOptions {
        env: vec![("COTAB_LOG".into(), "info".into())],
        ..LaunchOptions::default()
    })
    .await?;
    let result = watch(&browser, minutes).await;
    if result.is_err() {
        browser.print_daemon_log_tail(20);
    }
    result
}

async fn watch(browser: &Browser, minutes: u64) -> Result<()> {
    let url = browser.fixture.url("/");
    let page = browser.open_tab(&url).await?;
    let tab = browser.share(&page, &url).await?;
    // The harness's session on the tab is not needed any more.
    browser
        .cdp
        .send(
            "Target.detachFromTarget",
            json!({"sessionId": page.session}),
        )
        .await?;

    let sock = browser.agent_socket();
    let status = probe_status(&sock).await?;
    if status.lane != LaneState::Online || status.shared_tabs != 1 {
        bail!(
            "after sharing: lane {}, {} shared tabs (expected online, 1)",
            status.lane,
            status.shared_tabs
        );
    }
    let daemon = daemon_pid(&browser.runtime_dir)?;
    let worker = worker_state(browser).await?;
    if worker == Some(true) {
        bail!("a DevTools session is attached to the extension's service worker: it would keep the worker alive");
    }
    let relays = browser.relay_pids();
    let [relay] = relays[..] else {
        bail!("expected one relay process for this browser, found {relays:?}");
    };
    println!(
        "tab {tab} shared; relay pid {relay}, daemon pid {daemon}, service worker {}; idle for {minutes} min",
        worker_text(worker)
    );

    let start = Instant::now();
    for minute in 1..=minutes {
        let mark = start + Duration::from_secs(MINUTE_SECS.saturating_mul(minute));
        // The relay, every few seconds: a restart in between shows too.
        loop {
            let now = Instant::now();
            if now >= mark {
                break;
            }
            tokio::time::sleep_until((now + RELAY_CHECK).min(mark)).await;
            let pids = browser.relay_pids();
            if pids != [relay] {
                bail!(
                    "after {:.0?}: the relay changed: pid {relay} then {pids:?} (the worker or its native port went away)",
                    start.elapsed()
                );
            }
        }
        let status = probe_status(&sock)
            .await
            .with_context(|| format!("minute {minute}: host.status"))?;
        let worker = worker_state(browser).await?;
        let rss = rss_kib(daemon).map_or("–".into(), crate::load::mib);
        println!(
            "minute {minute}/{minutes}: relay pid {relay} (unchanged), lane {}, shared tabs {}, daemon pid {} (RSS {rss}), service worker {}",
            status.lane,
            status.shared_tabs,
            status.pid,
            worker_text(worker)
        );
        if status.lane != LaneState::Online {
            bail!("minute {minute}: the lane is {}", status.lane);
        }
        if status.pid != daemon {
            bail!(
                "minute {minute}: the daemon's pid changed from {daemon} to {}",
                status.pid
            );
        }
        if worker == Some(true) {
            bail!("minute {minute}: a DevTools session attached to the service worker");
        }
    }
    println!("the relay and the lane held for {minutes} min");
    Ok(())
}
