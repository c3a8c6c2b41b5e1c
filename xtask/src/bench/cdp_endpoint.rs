//! Bench item 2's CDP endpoint rows, in a browser of their own: Playwright's
//! `page.evaluate` and `page.screenshot` on a shared tab through `cotab
//! cdp-endpoint` and, interleaved, through the browser's own DevTools
//! endpoint, both from one `playwright-core`
//! (`tests/playwright/time_cdp_endpoint.cjs`); and, when the peer bench is
//! set up beside the checkout ([`PeerRelay`]), on a second tab of the same
//! page and size in the same browser through the relay of Playwright's own
//! MCP bridge, interleaved with the others. The Playwright Extension is
//! loaded in that browser only, so the other items run without it.

use super::probe::{direct, viewport};
use super::{Row, Sample};
use anyhow::{bail, Context, Result};
use cotab_e2e::browser::{Browser, LaunchOptions, Page};
use serde_json::{json, Value};
use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Rounds not measured, then measured.
const WARM_UP: usize = 20;
const ROUNDS: usize = 200;

/// The pieces of Playwright's MCP bridge that the peer bench
/// (`../shared/peers` beside the checkout) sets up into `target/peers`:
/// the Playwright Extension, the module that hands out the relay
/// `@playwright/mcp --extension` starts, and the program that shows the
/// relay's connect page in a running browser. Used as they are, never
/// copied.
#[derive(Debug, Clone)]
pub(super) struct PeerRelay {
    /// The unpacked Playwright Extension, for the browser to load.
    pub(super) extension: PathBuf,
    relay_js: PathBuf,
    opener_js: PathBuf,
    work: PathBuf,
}

impl PeerRelay {
    /// The pieces, or what is missing and how to get it.
    pub(super) fn find() -> Result<PeerRelay, String> {
        let root = cotab_e2e::workspace_root();
        let peers = root.join("..").join("shared").join("peers");
        let work = cotab_e2e::target_dir().join("peers");
        let relay = PeerRelay {
            extension: work.join("playwright-extension"),
            relay_js: peers.join("pwrelay.cjs"),
            opener_js: peers.join("open-url.cjs"),
            work: work.clone(),
        };
        let needed = [
            relay.relay_js.clone(),
            relay.opener_js.clone(),
            relay.extension.join("manifest.json"),
            work.join("pwmcp/node_modules/playwright-core/lib/coreBundle.js"),
        ];
        match needed.iter().find(|p| !p.is_file()) {
            None => Ok(relay),
            Some(missing) => Err(format!(
                "{} is missing (the peer bench's set-up: bash {}/setup.sh)",
                missing.display(),
                peers.display()
            )),
        }
    }
}

/// The rows, from a browser of their own with cotab (one tab shared,
/// developer mode on) and, with `relay`, the Playwright Extension.
pub(super) async fn cdp_endpoint(relay: Option<&PeerRelay>) -> Result<Vec<Row>> {
    let browser = Browser::launch(LaunchOptions {
        extra_extensions: relay.iter().map(|r| r.extension.clone()).collect(),
        ..LaunchOptions::default()
    })
    .await?;
    let url = browser.fixture.url("/");
    let page = browser.open_tab(&url).await?;
    browser.share(&page, &url).await?;
    browser.set_developer_mode(&page, true).await?;
    sized(&browser, &page).await?;
    // The relay's tab: the same page at the same size, in a window of its
    // own, so that the Playwright Extension's tab group and active tab
    // leave the shared tab alone.
    let relay = match relay {
        Some(r) => {
            let tab_url = format!("{url}?through=relay");
            let created = browser
                .cdp
                .send(
                    "Target.createTarget",
                    json!({"url": tab_url, "newWindow": true}),
                )
                .await?;
            let target = created["targetId"].as_str().unwrap_or_default();
            sized(&browser, &browser.attach_page(target).await?).await?;
            Some((r.clone(), tab_url, browser.profile_dir()))
        }
        None => None,
    };
    let runtime = browser.runtime_dir.clone();
    let direct = browser.devtools_http()?;
    let timed =
        tokio::task::spawn_blocking(move || measure(&runtime, &direct, &url, relay.as_ref()))
            .await?;
    let v = match timed {
        Ok(v) => v,
        Err(e) => {
            eprintln!("note: Playwright over the CDP endpoint was not timed: {e:#}");
            return Ok(Vec::new());
        }
    };
    let ms = |way: &str, op: &str| -> Vec<f64> {
        v[way][op]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default()
    };
    let mut rows = Vec::new();
    for (op, what) in OPS {
        for (way, path) in WAYS {
            if v.get(way).is_some() {
                rows.push(Row::new("2", what, path, Sample::Millis(ms(way, op))));
            }
        }
    }
    Ok(rows)
}

/// The operations the script times, with their rows' names.
const OPS: [(&str, &str); 2] = [
    ("evaluate", "Playwright `page.evaluate('1+1')`"),
    ("screenshot", "Playwright `page.screenshot` (JPEG q80)"),
];

/// The ways the script reaches the page (the relay's only when it ran),
/// with their rows' paths.
const WAYS: [(&str, &str); 3] = [
    ("direct", "the browser's own endpoint"),
    ("cotab", "`cotab cdp-endpoint`"),
    ("relay", "Playwright MCP bridge's relay (another tab)"),
];

/// The bench's viewport on `page`, set by the harness's own session, so
/// each way captures the same pixels.
async fn sized(browser: &Browser, page: &Page) -> Result<()> {
    direct(
        browser,
        page,
        "Emulation.setDeviceMetricsOverride",
        viewport(),
    )
    .await?;
    Ok(())
}

fn measure(
    runtime: &Path,
    direct: &str,
    url: &str,
    relay: Option<&(PeerRelay, String, PathBuf)>,
) -> Result<Value> {
    let root = cotab_e2e::workspace_root();
    let modules = crate::outlines::ensure_playwright(&root)?;
    let mut endpoint = Command::new(cotab_e2e::binary("cotab")?)
        .arg("--runtime-dir")
        .arg(runtime)
        .arg("--json")
        .arg("cdp-endpoint")
        .stdout(Stdio::piped())
        .spawn()
        .context("starting cotab cdp-endpoint")?;
    let mut line = String::new();
    let read = endpoint
        .stdout
        .take()
        .map(|out| std::io::BufReader::new(out).read_line(&mut line));
    let started: Value = match read {
        Some(Ok(_)) => serde_json::from_str(&line).context("cotab cdp-endpoint's first line")?,
        _ => {
            let _ = endpoint.kill();
            bail!("cotab cdp-endpoint printed nothing");
        }
    };
    let text = |k: &str| started[k].as_str().unwrap_or_default().to_owned();
    // The relay shows its connect page by running a browser binary with
    // the profile and the page's url; this one opens it in the running
    // browser instead (the peer bench's own stand-in).
    let opener_dir = tempfile::tempdir()?;
    let mut node = Command::new("node");
    if let Some((relay, tab_url, profile)) = relay {
        let opener = opener_dir.path().join("open-url");
        std::fs::write(
            &opener,
            format!(
                "#!/bin/sh\nexec node '{}' \"$@\"\n",
                relay.opener_js.display()
            ),
        )?;
        std::fs::set_permissions(&opener, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
        node.env("COTAB_PW_RELAY", &relay.relay_js)
            .env("COTAB_PW_OPENER", &opener)
            .env("COTAB_PW_PROFILE", profile)
            .env("COTAB_PW_TAB", tab_url)
            .env("COTAB_CHECKOUT", &root)
            .env("PEERS_WORK", &relay.work);
    }
    let out = node
        .arg(
            root.join("tests")
                .join("playwright")
                .join("time_cdp_endpoint.cjs"),
        )
        .arg(text("endpoint"))
        .arg(text("token"))
        .arg(direct)
        .arg(url)
        .arg(WARM_UP.to_string())
        .arg(ROUNDS.to_string())
        .env("NODE_PATH", modules)
        .output();
    let _ = endpoint.kill();
    let _ = endpoint.wait();
    let out = out?;
    if !out.status.success() {
        bail!("{}", String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(serde_json::from_slice(&out.stdout)?)
}
