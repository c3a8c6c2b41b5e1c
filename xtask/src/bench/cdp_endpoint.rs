//! Bench item 2's CDP endpoint rows: Playwright's `page.evaluate` and
//! `page.screenshot` on the shared tab through `cotab cdp-endpoint` and,
//! interleaved, through the browser's own DevTools endpoint, both from one
//! `playwright-core` (`tests/playwright/time_cdp_endpoint.cjs`).

use super::{Row, Sample};
use anyhow::{bail, Context, Result};
use cotab_e2e::browser::{Browser, Page};
use cotab_host::client::Client;
use cotab_shared::controller::{Acquire, Empty, Release};
use serde_json::Value;
use std::io::BufRead as _;
use std::process::{Command, Stdio};

/// Rounds not measured, then measured.
const WARM_UP: usize = 20;
const ROUNDS: usize = 200;

/// The rows, with the bench agent's lease handed over to the endpoint's
/// session for their time and taken back after.
pub(super) async fn cdp_endpoint(
    browser: &Browser,
    page: &Page,
    agent: &mut Client,
) -> Result<Vec<Row>> {
    let url = browser.eval(page, "location.href").await?;
    let url = url.as_str().unwrap_or_default().to_owned();
    agent.call::<Release>(&Empty {}).await?;
    let runtime = browser.runtime_dir.clone();
    let direct = browser.devtools_http()?;
    let timed = tokio::task::spawn_blocking(move || measure(&runtime, &direct, &url)).await?;
    agent.call::<Acquire>(&Empty {}).await?;
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
    Ok(vec![
        Row::new(
            "2",
            "Playwright `page.evaluate('1+1')`",
            "the browser's own endpoint",
            Sample::Millis(ms("direct", "evaluate")),
        ),
        Row::new(
            "2",
            "Playwright `page.evaluate('1+1')`",
            "`cotab cdp-endpoint`",
            Sample::Millis(ms("cotab", "evaluate")),
        ),
        Row::new(
            "2",
            "Playwright `page.screenshot` (JPEG q80)",
            "the browser's own endpoint",
            Sample::Millis(ms("direct", "screenshot")),
        ),
        Row::new(
            "2",
            "Playwright `page.screenshot` (JPEG q80)",
            "`cotab cdp-endpoint`",
            Sample::Millis(ms("cotab", "screenshot")),
        ),
    ])
}

fn measure(runtime: &std::path::Path, direct: &str, url: &str) -> Result<Value> {
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
    let out = Command::new("node")
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
