//! Bench item 2's snapshots: `page.snapshot` against direct CDP's
//! `DOMSnapshot.captureSnapshot` (what it reads) and
//! `Accessibility.getFullAXTree` (what a client reading the browser's
//! accessibility tree waits for) on the same tab, interleaved, on the
//! tiny fixture page and on the catalogue of about 5,000 elements
//! (`/big`), with where cotab's time went: the worker's
//! `chrome.debugger` call for the capture and its posting, the lane's
//! transport, and the daemon (the outline, the agent socket). On the same
//! pages, an evaluation whose value is text (`document.title`), which
//! waits for the redaction scan, against direct CDP's, and the scan on its
//! own: what the scan costs grows with the page.

use super::probe::{direct, evaluation, scan, timed};
use super::worker_trace::{hop_split, trace_rows, worker_trace, TraceRecord};
use super::{Row, Sample};
use anyhow::{bail, Result};
use cotab_e2e::browser::{Browser, Page};
use cotab_host::client::Client;
use cotab_shared::controller::{Evaluate, Navigate, NavigateParams, Snapshot, SnapshotParams};
use serde_json::json;
use std::time::Duration;

/// Warm-up rounds of each page, not measured.
const WARM_UP: usize = 10;
/// Measured rounds on the tiny fixture page and on the catalogue.
const SMALL_ROUNDS: usize = 100;
const BIG_ROUNDS: usize = 30;
/// The longest outline `page.snapshot` may give: the whole catalogue.
const MAX_CHARS: usize = 400_000;

/// The browser's accessibility tree, for comparison.
const AX_TREE: &str = "Accessibility.getFullAXTree";
/// The capture the daemon asks the worker for.
const CAPTURE: &str = "DOMSnapshot.captureSnapshot";

/// Item 2's snapshot rows: both pages, the tab left on the fixture page.
pub(super) async fn snapshots(
    browser: &Browser,
    page: &Page,
    agent: &mut Client,
) -> Result<Vec<Row>> {
    let mut rows = one_page(browser, page, agent, "the fixture page", SMALL_ROUNDS).await?;
    rows.extend(playwright(browser, "/", "the fixture page", SMALL_ROUNDS).await);
    let back = browser.fixture.url("/");
    agent
        .call::<Navigate>(&NavigateParams::to(browser.fixture.url("/big")))
        .await?;
    let elements = browser
        .eval(page, "document.getElementsByTagName('*').length")
        .await?;
    let label = format!("the {elements}-element catalogue");
    let big = one_page(browser, page, agent, &label, BIG_ROUNDS).await;
    agent.call::<Navigate>(&NavigateParams::to(back)).await?;
    rows.extend(big?);
    rows.extend(playwright(browser, "/big", &label, BIG_ROUNDS).await);
    Ok(rows)
}

/// Playwright's aria snapshot of the fixture's `path`, the same rounds,
/// in a browser of its own (the machine's Chromium, launched by
/// `playwright-core` from `tests/playwright`): the row `page.snapshot` is
/// judged against. None, with a note, when Playwright cannot run here.
async fn playwright(browser: &Browser, path: &str, label: &str, rounds: usize) -> Option<Row> {
    let url = browser.fixture.url(path);
    let timed = tokio::task::spawn_blocking(move || -> Result<Vec<f64>> {
        let root = cotab_e2e::workspace_root();
        let modules = crate::outlines::ensure_playwright(&root)?;
        let chromium = cotab_e2e::browser::chromium_path()?;
        let out = std::process::Command::new("node")
            .arg(
                root.join("tests")
                    .join("playwright")
                    .join("time_snapshots.cjs"),
            )
            .arg(&chromium)
            .arg(&url)
            .arg(WARM_UP.to_string())
            .arg(rounds.to_string())
            .env("NODE_PATH", modules)
            .output()?;
        if !out.status.success() {
            bail!("{}", String::from_utf8_lossy(&out.stderr).trim());
        }
        Ok(serde_json::from_slice(&out.stdout)?)
    })
    .await;
    match timed {
        Ok(Ok(ms)) => Some(Row::new(
            "2",
            &format!("Playwright's `ariaSnapshot({{mode: 'ai'}})` of {label} (its own browser)"),
            "Playwright",
            Sample::Millis(ms),
        )),
        Ok(Err(e)) => {
            eprintln!("note: Playwright's snapshot of {label} was not timed: {e:#}");
            None
        }
        Err(e) => {
            eprintln!("note: Playwright's snapshot of {label} was not timed: {e}");
            None
        }
    }
}

/// An evaluation whose value is text: `page.evaluate` waits for the
/// redaction scan before it answers.
const TITLE: &str = "document.title";

/// Direct AX tree and `page.snapshot`, interleaved, on the page the tab
/// shows, and the split of cotab's time; then `document.title` through
/// `page.evaluate` and directly, and the scan directly, interleaved.
async fn one_page(
    browser: &Browser,
    page: &Page,
    agent: &mut Client,
    label: &str,
    rounds: usize,
) -> Result<Vec<Row>> {
    let params = SnapshotParams {
        max_chars: Some(MAX_CHARS),
        ..SnapshotParams::default()
    };
    let (mut tree_ms, mut capture_ms, mut snapshot_times) = (Vec::new(), Vec::new(), Vec::new());
    let styles = json!({ "computedStyles": cotab_host::outline::dom::STYLES });
    let (mut nodes, mut chars) = (0, 0);
    for round in 0..WARM_UP + rounds {
        if round == WARM_UP {
            // The worker's trace of the warm-up is dropped.
            worker_trace(browser).await?;
        }
        let (d_tree, tree) = timed(direct(browser, page, AX_TREE, json!({}))).await?;
        let (d_capture, _) = timed(direct(browser, page, CAPTURE, styles.clone())).await?;
        let (d_snap, r) = timed(async { Ok(agent.call::<Snapshot>(&params).await?) }).await?;
        if r.refs == 0 || r.truncated {
            bail!(
                "the snapshot of {label} found {} refs, truncated: {}",
                r.refs,
                r.truncated
            );
        }
        if round >= WARM_UP {
            nodes = tree["nodes"].as_array().map_or(0, Vec::len);
            chars = r.text.chars().count();
            tree_ms.push(d_tree);
            capture_ms.push(d_capture);
            snapshot_times.push(d_snap);
        }
    }
    eprintln!("note: {label}: {nodes} AX nodes, an outline of {chars} characters");
    let trace = worker_trace(browser).await?;
    let records: Vec<&TraceRecord> = trace.iter().filter(|r| r.what == CAPTURE).collect();
    let evaluations = text_evaluations(browser, page, agent, rounds).await?;
    let split = hop_split(browser, CAPTURE, &records, &snapshot_times);
    let mut rows = vec![
        Row::new(
            "2",
            &format!("`DOMSnapshot.captureSnapshot` of {label}"),
            "direct CDP",
            Sample::Latency(capture_ms),
        ),
        Row::new(
            "2",
            &format!("`Accessibility.getFullAXTree` of {label}"),
            "direct CDP",
            Sample::Latency(tree_ms),
        ),
        Row::new(
            "2",
            &format!("`page.snapshot` of {label}"),
            "cotab",
            Sample::Latency(snapshot_times),
        ),
    ];
    let in_worker = format!("the capture of {label}");
    rows.extend(trace_rows("2", &trace, &[(CAPTURE, in_worker.as_str())]));
    if let Some((daemon, transport)) = split {
        rows.push(Row::new(
            "2",
            &format!("`page.snapshot` of {label} in the agent socket and the daemon (the outline)"),
            "cotab",
            Sample::Millis(daemon),
        ));
        rows.push(Row::new(
            "2",
            &format!("the capture of {label} in the lane's transport, both ways"),
            "cotab",
            Sample::Millis(transport),
        ));
    }
    let [direct_title, cotab_title, scan] = evaluations;
    rows.extend(
        [
            (
                format!("`Runtime.evaluate` `{TITLE}` on {label}"),
                "direct CDP",
                direct_title,
            ),
            (
                format!("`page.evaluate` `{TITLE}` (text: it waits for the scan) on {label}"),
                "cotab",
                cotab_title,
            ),
            (
                format!("`Runtime.evaluate` of the redaction scan on {label}"),
                "direct CDP",
                scan,
            ),
        ]
        .map(|(what, path, times)| Row::new("2", &what, path, Sample::Latency(times))),
    );
    Ok(rows)
}

/// `document.title` directly and through `page.evaluate`, and the
/// redaction scan directly, interleaved, after a warm-up.
async fn text_evaluations(
    browser: &Browser,
    page: &Page,
    agent: &mut Client,
    rounds: usize,
) -> Result<[Vec<Duration>; 3]> {
    let (params, raw) = evaluation(TITLE);
    let scan = scan();
    let mut out: [Vec<Duration>; 3] = Default::default();
    for round in 0..WARM_UP + rounds {
        let (d_direct, r) = timed(direct(browser, page, "Runtime.evaluate", raw.clone())).await?;
        let title = r["result"]["value"].clone();
        let (d_cotab, r) = timed(async { Ok(agent.call::<Evaluate>(&params).await?) }).await?;
        if r.value != title || !title.is_string() {
            bail!(
                "page.evaluate of {TITLE} gave {:?}, direct CDP {title}",
                r.value
            );
        }
        let (d_scan, r) = timed(direct(browser, page, "Runtime.evaluate", scan.clone())).await?;
        if !r["result"]["value"]["passwords"].is_array() {
            bail!("the redaction scan gave {r}");
        }
        if round >= WARM_UP {
            out[0].push(d_direct);
            out[1].push(d_cotab);
            out[2].push(d_scan);
        }
    }
    Ok(out)
}
