//! `cargo xtask bench tasks`: the same scripted tasks through `cotab mcp`,
//! Playwright MCP and chrome-devtools-mcp, on the same fixture pages, in
//! interleaved rounds: per server and task, the tool calls, the bytes and
//! o200k_base tokens of everything the model would read of their answers,
//! the wall time and whether the task succeeded. No model: each task is a
//! fixed sequence of tool calls per server ([`scripts`]).
//!
//! cotab drives a tab the person shared in a headless Chromium launched
//! with the release build; each peer launches its own headless browser
//! from the same Chromium binary, its first call made before the task so
//! its start is not counted. The peers are installed from npm at the
//! versions `xtask/bench-tasks/package-lock.json` pins.

mod mcp;
mod scripts;

use super::stats::Summary;
use crate::setup::run;
use anyhow::{Context, Result};
use cotab_e2e::browser::{Browser, LaunchOptions};
use mcp::{Peer, Server, Tally};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Rounds of every task on every server, unless `COTAB_TASK_ROUNDS` says.
const ROUNDS: usize = 3;

/// One task run on one server.
struct Outcome {
    tally: Tally,
    time: Duration,
    failure: Option<String>,
}

/// Installs the peers, launches cotab's browser and runs the rounds, then
/// prints the tables as markdown.
pub(crate) async fn run_tasks(root: &Path, release: &Path) -> Result<()> {
    let peers = install_peers(root)?;
    let chromium = cotab_e2e::browser::chromium_path()?;
    let rounds = std::env::var("COTAB_TASK_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(ROUNDS);
    let browser = Browser::launch(LaunchOptions::default()).await?;
    let home = browser.fixture.url("/");
    let page = browser.open_tab(&home).await?;
    browser.share(&page, &home).await?;
    let site = browser.fixture.base.clone();
    let work = tempfile::tempdir()?;
    let load_before = load();
    let mut outcomes: Vec<Vec<Vec<Outcome>>> = (0..scripts::TASKS.len())
        .map(|_| Peer::ALL.iter().map(|_| Vec::new()).collect())
        .collect();
    let mut tool_lists = [(0, 0); 3];
    let only = std::env::var("COTAB_TASKS").ok();
    let chosen = |task: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|n| n.trim() == task))
    };
    for round in 0..rounds {
        for (t, task) in scripts::TASKS.iter().enumerate() {
            if !chosen(task) {
                continue;
            }
            // Each round starts with another server, so none always runs
            // on a machine the one before left busy.
            for k in 0..Peer::ALL.len() {
                let p = (k + round + t) % Peer::ALL.len();
                let peer = Peer::ALL[p];
                let dir = work.path().join(format!("{round}-{t}-{p}"));
                std::fs::create_dir_all(&dir)?;
                let (program, args) = command(peer, release, &browser, &peers, &chromium);
                let env = [("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")];
                let mut s = Server::start(peer, &program, &args, &dir, &env).await?;
                if tool_lists[p] == (0, 0) {
                    tool_lists[p] = s.tool_list().await?;
                }
                let warm = match peer {
                    Peer::ChromeDevtoolsMcp => (
                        "navigate_page",
                        json!({"pageId": 1, "type": "url", "url": home}),
                    ),
                    _ => ("browser_navigate", json!({"url": home})),
                };
                s.uncounted(warm.0, warm.1).await?;
                let start = Instant::now();
                let result = scripts::run(t, &mut s, &site).await;
                let time = start.elapsed();
                let each: Vec<String> = s.calls.iter().map(|(t, n)| format!("{t} {n}")).collect();
                eprintln!(
                    "round {round}: {task} on {}: {} calls, {} tokens ({}), {} ms{}",
                    peer.name(),
                    s.tally.calls,
                    s.tally.tokens,
                    each.join(", "),
                    time.as_millis(),
                    match &result {
                        Ok(()) => String::new(),
                        Err(e) => format!(", FAILED: {e:#}"),
                    }
                );
                outcomes[t][p].push(Outcome {
                    tally: s.tally,
                    time,
                    failure: result.err().map(|e| format!("{e:#}")),
                });
                s.stop().await;
            }
        }
    }
    let load_after = load();
    print_report(&outcomes, &tool_lists, rounds, (load_before, load_after));
    Ok(())
}

/// How each server is started.
fn command(
    peer: Peer,
    release: &Path,
    browser: &Browser,
    peers: &Path,
    chromium: &Path,
) -> (PathBuf, Vec<String>) {
    let chromium = chromium.display().to_string();
    let bin = |name: &str| peers.join("node_modules/.bin").join(name);
    match peer {
        Peer::Cotab => (
            release.join("cotab"),
            vec![
                "mcp".into(),
                "--runtime-dir".into(),
                browser.runtime_dir.display().to_string(),
            ],
        ),
        Peer::PlaywrightMcp => (
            bin("playwright-mcp"),
            vec![
                "--headless".into(),
                "--isolated".into(),
                "--executable-path".into(),
                chromium,
                "--no-sandbox".into(),
            ],
        ),
        Peer::ChromeDevtoolsMcp => (
            bin("chrome-devtools-mcp"),
            vec![
                "--headless".into(),
                "--isolated".into(),
                "--executablePath".into(),
                chromium,
                "--chromeArg=--no-sandbox".into(),
                "--chromeArg=--disable-gpu".into(),
                "--no-usage-statistics".into(),
                "--no-performance-crux".into(),
            ],
        ),
    }
}

/// `npm ci` of the pinned peers into `target/bench-tasks` (again only when
/// the lock changed); their directory.
fn install_peers(root: &Path) -> Result<PathBuf> {
    let source = root.join("xtask/bench-tasks");
    let dir = cotab_e2e::target_dir().join("bench-tasks");
    std::fs::create_dir_all(&dir)?;
    let lock = std::fs::read(source.join("package-lock.json")).context("the peers' lock")?;
    let installed = std::fs::read(dir.join("package-lock.json")).ok();
    if installed.as_deref() == Some(&lock[..]) && dir.join("node_modules").exists() {
        return Ok(dir);
    }
    for file in ["package.json", "package-lock.json"] {
        std::fs::copy(source.join(file), dir.join(file))?;
    }
    eprintln!("cargo xtask bench tasks: installing the peers from npm");
    run(Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(&dir)
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        .env("PUPPETEER_SKIP_DOWNLOAD", "1"))?;
    Ok(dir)
}

/// The 1-minute load average.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".into())
}

/// The median of `values`.
fn median(mut values: Vec<usize>) -> usize {
    values.sort_unstable();
    values.get(values.len() / 2).copied().unwrap_or(0)
}

fn print_report(
    outcomes: &[Vec<Vec<Outcome>>],
    tool_lists: &[(usize, usize); 3],
    rounds: usize,
    load: (String, String),
) {
    println!(
        "### Tasks through MCP, {rounds} round(s), what an answer does not show looked \
         for with {:?}, 1-minute load {} before, {} after\n",
        scripts::Look::from_env(),
        load.0,
        load.1
    );
    println!("| task | server | calls | bytes | tokens | wall time p50 | succeeded |");
    println!("|---|---|---|---|---|---|---|");
    let mut totals = [0usize; 3];
    for (t, task) in scripts::TASKS.iter().enumerate() {
        for (p, peer) in Peer::ALL.iter().enumerate() {
            let runs = &outcomes[t][p];
            if runs.is_empty() {
                continue;
            }
            let pick = |f: fn(&Tally) -> usize| median(runs.iter().map(|o| f(&o.tally)).collect());
            let times: Vec<Duration> = runs.iter().map(|o| o.time).collect();
            let wall = Summary::of(&times).map_or("-".into(), |s| format!("{:.0} ms", s.median));
            let ok = runs.iter().filter(|o| o.failure.is_none()).count();
            let tokens = pick(|t| t.tokens);
            totals[p] += tokens;
            println!(
                "| {task} | {} | {} | {} | {tokens} | {wall} | {ok}/{} |",
                peer.name(),
                pick(|t| t.calls),
                pick(|t| t.bytes),
                runs.len()
            );
        }
    }
    println!("\n| server | tokens over the tasks | cotab's share | tool list (bytes, tokens) |");
    println!("|---|---|---|---|");
    for (p, peer) in Peer::ALL.iter().enumerate() {
        let share = match totals[p] {
            0 => "-".into(),
            n => format!("{:.0}%", 100.0 * totals[0] as f64 / n as f64),
        };
        println!(
            "| {} | {} | {share} | {}, {} |",
            peer.name(),
            totals[p],
            tool_lists[p].0,
            tool_lists[p].1
        );
    }
    for (t, task) in scripts::TASKS.iter().enumerate() {
        for (p, peer) in Peer::ALL.iter().enumerate() {
            for o in outcomes[t][p].iter().filter_map(|o| o.failure.as_ref()) {
                println!("\nFailed: {task} on {}: {o}", peer.name());
            }
        }
    }
}
