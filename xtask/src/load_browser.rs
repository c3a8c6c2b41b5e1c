//! `cargo xtask load-browser [--secs N]`: cotab under load in real headless
//! Chromium, end to end.
//!
//! It builds the extension and the release `cotab-host`, starts Chromium
//! through the end-to-end harness, opens 16 fixture tabs (`/input`, each in
//! its own window so none is a background tab) and shares them through the
//! real popup. Then 8 agents work on 4 tabs each for `N` seconds (default
//! 60): every agent controls 2 tabs and observes 2 tabs another agent
//! controls, one connection and session per (agent, tab). A controlling
//! session loops over `page.capture`, `page.snapshot`, `input.click`,
//! `input.mouseMove` and `input.press`; an observing one over
//! `page.capture` and `page.snapshot`. Requests are pipelined on each
//! connection with distinct ids, paced on the client so the daemon's
//! admission limits are never reached.
//!
//! The run fails (non-zero exit) on a lost answer, an answer with an id
//! that is not outstanding (a duplicate or one never sent), any error
//! answer (with the pacing even `BUSY` is unexpected), a lease revoked or
//! the lane lost, the page not seeing exactly the input answered, or the
//! daemon or browser gone. It prints per method the count, the errors by
//! kind and the p50/p99 latency, and the daemon's resident memory before
//! and after. See `docs/reliability.md`.

use crate::build_extension::ensure_wasm_target;
use crate::load::{mib, nearest_rank};
use crate::setup::{ensure_chromium, run};
use anyhow::{bail, Context, Result};
use cotab_e2e::browser::{Browser, LaunchOptions, Page};
use cotab_e2e::wait_for;
use cotab_shared::controller::{
    Acquire, Capture, CaptureParams, CaptureResult, Click, ClickParams, Empty, Hello, HelloParams,
    ImageFormat, LaneState, Method, MouseMove, OutgoingRequest, PointerParams, Press, PressParams,
    Response, RpcError, RpcOutcome, SelectParams, Snapshot, SnapshotParams, Status, StatusResult,
    TabsSelect,
};
use cotab_shared::limits::{
    MAX_IN_FLIGHT_PER_CONNECTION, MAX_IN_FLIGHT_TOTAL, MAX_MEDIA_IN_FLIGHT_PER_CONNECTION,
    MAX_MEDIA_IN_FLIGHT_TOTAL, MAX_SHARED_TABS,
};
use cotab_shared::{ErrorKind, RequestId, TabId};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::OwnedWriteHalf;
use tokio::net::UnixStream;
use tokio::sync::{oneshot, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;
use tokio::time::Instant;

mod plan;
use plan::{plan, Ledger, Op, Role, Slot};

/// Agents.
const AGENTS: usize = 8;
/// Tabs each agent works on.
const TABS_PER_AGENT: usize = 4;
/// Of those, tabs each agent controls (the others it observes).
const CONTROLLED_PER_AGENT: usize = 2;
/// Tabs shared: every tab has one controlling and one observing agent.
const TABS: usize = AGENTS * CONTROLLED_PER_AGENT;
/// Requests a controlling session keeps in flight (at most one of them
/// input: two clicks at once would press the same button twice).
const CONTROLLER_DEPTH: usize = 4;
/// Requests an observing session keeps in flight.
const OBSERVER_DEPTH: usize = 2;
/// Captures are JPEG, downscaled to this width.
const CAPTURE_WIDTH: u32 = 640;
/// How long a request may go unanswered before it counts as lost: past
/// the daemon's own 30 s command deadline, by which it must have answered.
const WAIT: Duration = Duration::from_secs(40);
/// The run's length unless `--secs` says otherwise.
pub(crate) const DEFAULT_SECS: u64 = 60;

// The design stays within the documented limits (`docs/protocol.md`).
const _: () = assert!(TABS <= MAX_SHARED_TABS);
const _: () = assert!(TABS_PER_AGENT == 2 * CONTROLLED_PER_AGENT);
const _: () = assert!(CONTROLLER_DEPTH <= MAX_IN_FLIGHT_PER_CONNECTION);
const _: () = assert!(CONTROLLER_DEPTH <= MAX_MEDIA_IN_FLIGHT_PER_CONNECTION);
const _: () = assert!(OBSERVER_DEPTH <= MAX_MEDIA_IN_FLIGHT_PER_CONNECTION);
// The client-side budgets are the binding ones: without them the sessions
// could have more in flight than the daemon admits.
const _: () = assert!(
    TABS * (CONTROLLER_DEPTH + OBSERVER_DEPTH) > MAX_IN_FLIGHT_TOTAL,
    "the daemon-wide limit is what the run pushes against"
);

/// Builds what the harness needs and points it at the release host.
///
/// The extension (`dist/extension/`) and `cargo build -p cotab-host --bins
/// --release`; `COTAB_BIN_DIR` then makes the harness start those
/// binaries. Call it before any thread is started.
pub(crate) fn build_for_browser(root: &Path) -> Result<()> {
    ensure_wasm_target()?;
    ensure_chromium()?;
    crate::build_extension::run(root)?;
    run(
        Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .current_dir(root)
            .args(["build", "-p", "cotab-host", "--bins", "--release"]),
    )?;
    // Single-threaded still: nothing reads the environment concurrently.
    std::env::set_var(
        "COTAB_BIN_DIR",
        cotab_e2e::target_dir().join("release").into_os_string(),
    );
    Ok(())
}

/// Runs `cargo xtask load-browser`.
pub(crate) fn run_load_browser(root: &Path, secs: u64) -> Result<()> {
    build_for_browser(root)?;
    tokio::runtime::Runtime::new()?.block_on(drive(Duration::from_secs(secs)))
}

fn ms(d: Option<Duration>) -> String {
    match d {
        Some(d) => format!("{:.1} ms", d.as_secs_f64() * 1000.0),
        None => "–".into(),
    }
}

/// An error kind as it is on the wire (`BUSY`, `STALE_FRAME`, …).
fn kind_name(kind: ErrorKind) -> String {
    match serde_json::to_value(kind) {
        Ok(Value::String(s)) => s,
        _ => format!("{kind:?}"),
    }
}

/// What came back for one method.
#[derive(Debug, Default)]
struct MethodFigures {
    answered: usize,
    ok: usize,
    errors: BTreeMap<String, usize>,
    latencies: Vec<Duration>,
}

/// What the whole run saw.
#[derive(Debug, Default)]
struct Figures {
    methods: BTreeMap<Op, MethodFigures>,
    /// Everything that fails the run, as it happened.
    violations: Vec<String>,
}

type Shared<T> = Arc<Mutex<T>>;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Nothing panics while holding it; a poisoned lock still holds usable
    // figures.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A request waiting for its answer.
struct Entry {
    op: Op,
    at: Instant,
    /// Where a caller waits for the outcome (setup requests).
    reply: Option<oneshot::Sender<RpcOutcome>>,
    // Held until the answer is read; dropping them frees the room.
    _permits: Vec<OwnedSemaphorePermit>,
}

/// One agent connection with its own session, on one tab.
struct Conn {
    slot: Slot,
    name: String,
    writer: OwnedWriteHalf,
    ledger: Shared<Ledger<Entry>>,
    next_id: i64,
    /// Key and button events the page must have recorded: two for each
    /// click or press answered with a result.
    recorded_events: Arc<AtomicUsize>,
    reader: JoinHandle<()>,
}

impl Conn {
    async fn connect(sock: &Path, slot: Slot, figures: Shared<Figures>) -> Result<Conn> {
        let name = format!(
            "agent {} on tab #{} ({:?})",
            slot.agent, slot.tab, slot.role
        );
        let stream = UnixStream::connect(sock)
            .await
            .with_context(|| format!("{name}: connecting to {}", sock.display()))?;
        let (r, writer) = stream.into_split();
        let ledger: Shared<Ledger<Entry>> = Arc::default();
        let recorded_events = Arc::new(AtomicUsize::new(0));
        let reader = tokio::spawn(read_answers(
            BufReader::new(r),
            name.clone(),
            ledger.clone(),
            figures,
            recorded_events.clone(),
        ));
        Ok(Conn {
            slot,
            name,
            writer,
            ledger,
            next_id: 1,
            recorded_events,
            reader,
        })
    }

    /// Sends one request; its answer goes to `reply` when given.
    async fn send<M: Method>(
        &mut self,
        op: Op,
        params: &M::Params,
        permits: Vec<OwnedSemaphorePermit>,
        reply: Option<oneshot::Sender<RpcOutcome>>,
    ) -> Result<()> {
        debug_assert_eq!(op.method(), M::NAME);
        let id = self.next_id;
        self.next_id += 1;
        let mut line = serde_json::to_vec(&OutgoingRequest {
            jsonrpc: "2.0",
            id: RequestId::Number(id),
            method: M::NAME,
            params,
        })?;
        line.push(b'\n');
        // Recorded before the write, so the answer always finds it.
        lock(&self.ledger)
            .sent(
                id,
                Entry {
                    op,
                    at: Instant::now(),
                    reply,
                    _permits: permits,
                },
            )
            .map_err(|e| anyhow::anyhow!("{}: {e}", self.name))?;
        self.writer
            .write_all(&line)
            .await
            .with_context(|| format!("{}: writing {}", self.name, op.method()))
    }

    /// One request, answered before the next (setup).
    async fn call<M: Method>(&mut self, op: Op, params: &M::Params) -> Result<M::Result> {
        let (tx, rx) = oneshot::channel();
        self.send::<M>(op, params, Vec::new(), Some(tx)).await?;
        let outcome = tokio::time::timeout(WAIT, rx)
            .await
            .with_context(|| format!("{}: no answer to {} within {WAIT:?}", self.name, M::NAME))?
            .with_context(|| format!("{}: the connection closed", self.name))?;
        match outcome {
            RpcOutcome::Result(v) => serde_json::from_value(v)
                .with_context(|| format!("{}: the result of {}", self.name, M::NAME)),
            RpcOutcome::Error(e) => bail!("{}: {} failed: {}", self.name, M::NAME, describe(&e)),
        }
    }

    /// Opens the session, selects the tab and, as its controller, takes its
    /// lease; captures once so coordinate input has a frame. Returns the
    /// capture's size in image pixels.
    async fn set_up(&mut self, tab: TabId) -> Result<(f64, f64)> {
        self.call::<Hello>(
            Op::Hello,
            &HelloParams::new(format!("load-{}", self.slot.agent)),
        )
        .await?;
        self.call::<TabsSelect>(Op::Select, &SelectParams { tab_id: tab })
            .await?;
        if self.slot.role == Role::Controller {
            self.call::<Acquire>(Op::Acquire, &Empty {}).await?;
        }
        let frame: CaptureResult = self.call::<Capture>(Op::Capture, &capture_params()).await?;
        Ok((f64::from(frame.width), f64::from(frame.height)))
    }

    /// The load: the role's requests in turn until `end`, pipelined within
    /// the session's depth and the run's daemon-wide budgets; then waits
    /// for every answer, closes its side and checks nothing more comes.
    async fn load(mut self, end: Instant, size: (f64, f64), pacing: Arc<Pacing>) -> Result<Done> {
        let role = self.slot.role;
        let depth = Arc::new(Semaphore::new(role.depth()));
        let input = Arc::new(Semaphore::new(1));
        let cycle = role.cycle();
        let mut k = 0usize;
        'load: loop {
            let op = cycle[k % cycle.len()];
            let mut permits = Vec::with_capacity(4);
            // Always in this order, so no two waiters hold each other's.
            if op.is_input() {
                match take(&input, end).await {
                    Some(p) => permits.push(p),
                    None => break 'load,
                }
            }
            for sem in [
                Some(&depth),
                (op == Op::Capture).then_some(&pacing.media),
                Some(&pacing.in_flight),
            ]
            .into_iter()
            .flatten()
            {
                match take(sem, end).await {
                    Some(p) => permits.push(p),
                    None => break 'load,
                }
            }
            let (x, y) = point(size, k);
            match op {
                Op::Capture => {
                    self.send::<Capture>(op, &capture_params(), permits, None)
                        .await?
                }
                Op::Snapshot => {
                    self.send::<Snapshot>(op, &SnapshotParams::default(), permits, None)
                        .await?
                }
                Op::Click => {
                    let p = ClickParams {
                        x: Some(x),
                        y: Some(y),
                        ..ClickParams::default()
                    };
                    self.send::<Click>(op, &p, permits, None).await?
                }
                Op::MouseMove => {
                    let p = PointerParams {
                        x,
                        y,
                        frame_id: None,
                        button: None,
                        expect: None,
                    };
                    self.send::<MouseMove>(op, &p, permits, None).await?
                }
                Op::Press => {
                    let p = PressParams {
                        key: "a".into(),
                        modifiers: Vec::new(),
                        expect: None,
                    };
                    self.send::<Press>(op, &p, permits, None).await?
                }
                Op::Hello | Op::Select | Op::Acquire => unreachable!("not in a load cycle"),
            }
            k += 1;
        }
        // Every answer is in once all the depth's room is back.
        let drained = tokio::time::timeout(WAIT, depth.acquire_many(role.depth() as u32)).await;
        let lost = lock(&self.ledger).outstanding();
        let mut problems = Vec::new();
        if drained.is_err() || lost > 0 {
            problems.push(format!(
                "{}: {lost} answers lost (none within {WAIT:?})",
                self.name
            ));
        }
        self.writer.shutdown().await?;
        if tokio::time::timeout(WAIT, &mut self.reader).await.is_err() {
            problems.push(format!("{}: the daemon did not close", self.name));
            self.reader.abort();
        }
        Ok(Done {
            slot: self.slot,
            sent: k,
            recorded_events: self.recorded_events.load(Ordering::Relaxed),
            problems,
        })
    }
}

/// A permit of `sem`, or `None` once `end` has passed.
async fn take(sem: &Arc<Semaphore>, end: Instant) -> Option<OwnedSemaphorePermit> {
    if Instant::now() >= end {
        return None;
    }
    tokio::time::timeout_at(end, sem.clone().acquire_owned())
        .await
        .ok()?
        .ok()
}

fn capture_params() -> CaptureParams {
    CaptureParams {
        format: ImageFormat::Jpeg,
        max_width: Some(CAPTURE_WIDTH),
        ..CaptureParams::default()
    }
}

/// A point inside the capture for the `k`-th request, spread over its
/// middle.
fn point((w, h): (f64, f64), k: usize) -> (f64, f64) {
    let fx = 0.2 + 0.6 * ((k * 37) % 100) as f64 / 100.0;
    let fy = 0.2 + 0.6 * ((k * 61) % 100) as f64 / 100.0;
    ((w * fx).floor(), (h * fy).floor())
}

/// The daemon-wide budgets the sessions share, as the daemon counts them
/// (a request counts from its write until its answer is read; the daemon
/// frees its own count before it answers).
struct Pacing {
    in_flight: Arc<Semaphore>,
    media: Arc<Semaphore>,
}

/// A session at the end of the load.
struct Done {
    slot: Slot,
    sent: usize,
    recorded_events: usize,
    problems: Vec<String>,
}

fn describe(e: &RpcError) -> String {
    format!("{}: {}", kind_name(e.kind()), e.message)
}

/// The reader of one connection: matches every answer to its request.
async fn read_answers(
    r: BufReader<tokio::net::unix::OwnedReadHalf>,
    name: String,
    ledger: Shared<Ledger<Entry>>,
    figures: Shared<Figures>,
    recorded_events: Arc<AtomicUsize>,
) {
    let mut lines = r.lines();
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                lock(&figures)
                    .violations
                    .push(format!("{name}: reading: {e}"));
                break;
            }
        };
        let at = Instant::now();
        let v: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(_) => {
                lock(&figures)
                    .violations
                    .push(format!("{name}: a line that is not JSON"));
                continue;
            }
        };
        let Some(id) = v.get("id") else {
            // A notification: a lost lease or lane means the load broke
            // something; anything else (controllers, tab updates) is news.
            let method = v["method"].as_str().unwrap_or_default();
            if matches!(method, "control.revoked" | "lane.offline" | "tab.closed") {
                lock(&figures)
                    .violations
                    .push(format!("{name}: notification {method}: {}", v["params"]));
            }
            continue;
        };
        let Some(id) = id.as_i64() else {
            lock(&figures)
                .violations
                .push(format!("{name}: an answer with id {id}"));
            continue;
        };
        let resp: Response = match serde_json::from_value(v) {
            Ok(r) => r,
            Err(e) => {
                lock(&figures)
                    .violations
                    .push(format!("{name}: not a response ({e})"));
                continue;
            }
        };
        let entry = match lock(&ledger).answered(id) {
            Ok(entry) => entry,
            Err(e) => {
                lock(&figures).violations.push(format!("{name}: {e}"));
                continue;
            }
        };
        {
            let mut f = lock(&figures);
            let m = f.methods.entry(entry.op).or_default();
            m.answered += 1;
            match &resp.outcome {
                RpcOutcome::Result(_) => {
                    m.ok += 1;
                    m.latencies.push(at - entry.at);
                    recorded_events.fetch_add(entry.op.recorded_events(), Ordering::Relaxed);
                }
                RpcOutcome::Error(e) => {
                    *m.errors.entry(kind_name(e.kind())).or_default() += 1;
                    // With the pacing no error is expected, BUSY included.
                    if f.violations.len() < 50 {
                        f.violations.push(format!(
                            "{name}: {} failed: {}",
                            entry.op.method(),
                            describe(e)
                        ));
                    }
                }
            }
        }
        if let Some(reply) = entry.reply {
            // The caller may have given up; nothing to do then.
            let _ = reply.send(resp.outcome);
        }
    }
}

/// Opens `url` in a new window (so it is its window's active tab and
/// renders like a visible one) and waits for its load. The harness's
/// session on it is the oracle for what the page saw.
async fn open_window(browser: &Browser, url: &str) -> Result<Page> {
    let r = browser
        .cdp
        .send(
            "Target.createTarget",
            json!({"url": url, "newWindow": true}),
        )
        .await?;
    let target_id = r["targetId"]
        .as_str()
        .context("createTarget returned no targetId")?
        .to_string();
    let session = browser.cdp.attach(&target_id).await?;
    let page = Page { target_id, session };
    wait_for(
        "the new window's page to load",
        Duration::from_secs(30),
        || async {
            Ok((browser.eval(&page, "document.readyState").await? == "complete").then_some(()))
        },
    )
    .await?;
    Ok(page)
}

/// The daemon's pid, from `daemon.pid` in the runtime directory.
pub(crate) fn daemon_pid(runtime_dir: &Path) -> Result<u32> {
    let path = runtime_dir.join("daemon.pid");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    text.trim()
        .parse()
        .with_context(|| format!("{} does not hold a pid", path.display()))
}

/// `VmRSS` of `pid` in KiB.
pub(crate) fn rss_kib(pid: u32) -> Result<u64> {
    crate::load::status_kib(pid, "VmRSS")
}

/// `host.status` from a fresh connection and session, ended with
/// `session.bye`. It does not reach the extension.
pub(crate) async fn probe_status(sock: &Path) -> Result<StatusResult> {
    let mut client = cotab_host::client::Client::connect(sock)
        .await
        .with_context(|| format!("connecting to {}", sock.display()))?;
    client.hello("status-probe").await?;
    let status = client.call::<Status>(&Empty {}).await?;
    client
        .call::<cotab_shared::controller::Bye>(&Empty {})
        .await?;
    Ok(status)
}

async fn drive(duration: Duration) -> Result<()> {
    let browser = Browser::launch(LaunchOptions {
        // Per-request debug lines would cost the daemon more than the load.
        env: vec![("COTAB_LOG".into(), "warn".into())],
        ..LaunchOptions::default()
    })
    .await?;
    let result = drive_browser(&browser, duration).await;
    if result.is_err() {
        browser.print_daemon_log_tail(20);
    }
    result
}

async fn drive_browser(browser: &Browser, duration: Duration) -> Result<()> {
    println!("Sharing {TABS} tabs through the popup…");
    let mut pages = Vec::with_capacity(TABS);
    let mut tabs = Vec::with_capacity(TABS);
    for t in 0..TABS {
        let url = browser.fixture.url(&format!("/input?tab={t}"));
        let page = open_window(browser, &url).await?;
        let tab = browser
            .share(&page, &url)
            .await
            .with_context(|| format!("sharing tab #{t}"))?;
        pages.push(page);
        tabs.push(tab);
    }
    let sock = browser.agent_socket();
    let status = probe_status(&sock).await?;
    if status.lane != LaneState::Online || status.shared_tabs != TABS {
        bail!(
            "before the load: lane {}, {} shared tabs (expected online, {TABS})",
            status.lane,
            status.shared_tabs
        );
    }
    let pid = daemon_pid(&browser.runtime_dir)?;
    let rss_start = rss_kib(pid)?;

    let figures: Shared<Figures> = Arc::default();
    let slots = plan();
    println!(
        "Connecting {} sessions ({AGENTS} agents × {TABS_PER_AGENT} tabs)…",
        slots.len()
    );
    let mut conns = Vec::with_capacity(slots.len());
    for slot in &slots {
        conns.push(Conn::connect(&sock, *slot, figures.clone()).await?);
    }
    let sizes = futures_util::future::try_join_all(
        conns
            .iter_mut()
            .map(|c| async { c.set_up(tabs[c.slot.tab]).await }),
    )
    .await?;

    let pacing = Arc::new(Pacing {
        in_flight: Arc::new(Semaphore::new(MAX_IN_FLIGHT_TOTAL)),
        media: Arc::new(Semaphore::new(MAX_MEDIA_IN_FLIGHT_TOTAL)),
    });
    println!("Load for {}s…", duration.as_secs());
    let started = Instant::now();
    let end = started + duration;
    let tasks: Vec<JoinHandle<Result<Done>>> = conns
        .into_iter()
        .zip(sizes)
        .map(|(c, size)| tokio::spawn(c.load(end, size, pacing.clone())))
        .collect();
    let mut done = Vec::with_capacity(tasks.len());
    for t in tasks {
        done.push(t.await??);
    }
    let elapsed = started.elapsed();

    let mut problems: Vec<String> = done.iter().flat_map(|d| d.problems.clone()).collect();
    // The daemon and the browser are still there.
    let rss_end = match rss_kib(pid) {
        Ok(k) => Some(k),
        Err(e) => {
            problems.push(format!("the daemon (pid {pid}) is gone: {e:#}"));
            None
        }
    };
    match probe_status(&sock).await {
        Ok(s) if s.lane == LaneState::Online && s.shared_tabs == TABS && s.pid == pid => {}
        Ok(s) => problems.push(format!(
            "after the load: daemon pid {}, lane {}, {} shared tabs (expected {pid}, online, {TABS})",
            s.pid, s.lane, s.shared_tabs
        )),
        Err(e) => problems.push(format!("after the load, host.status failed: {e:#}")),
    }
    if let Err(e) = browser.cdp.send("Browser.getVersion", json!({})).await {
        problems.push(format!("the browser does not answer: {e:#}"));
    }
    // Each page saw exactly the input answered with a result, and holds
    // nothing.
    for d in done.iter().filter(|d| d.slot.role == Role::Controller) {
        let b = browser.eval(&pages[d.slot.tab], "balance()").await?;
        let (keys, buttons, events) = (
            b["keys"].as_i64(),
            b["buttons"].as_i64(),
            b["events"].as_u64(),
        );
        if keys != Some(0) || buttons != Some(0) || events != Some(d.recorded_events as u64) {
            problems.push(format!(
                "tab #{}: the page saw {b} (expected no key or button held and {} events)",
                d.slot.tab, d.recorded_events
            ));
        }
    }

    let f = std::mem::take(&mut *lock(&figures));
    problems.extend(f.violations.iter().cloned());
    print_report(&f, &done, elapsed, rss_start, rss_end);
    if !problems.is_empty() {
        let n = problems.len();
        problems.truncate(30);
        bail!(
            "the browser load run failed ({n} problems):\n  {}",
            problems.join("\n  ")
        );
    }
    Ok(())
}

fn print_report(
    f: &Figures,
    done: &[Done],
    elapsed: Duration,
    rss_start: u64,
    rss_end: Option<u64>,
) {
    println!();
    println!("| method | answered | ok | errors by kind | p50 | p99 | max |");
    println!("|---|---:|---:|---|---:|---:|---:|");
    let mut total = 0;
    for (op, m) in &f.methods {
        let mut sorted = m.latencies.clone();
        sorted.sort();
        let errors = if m.errors.is_empty() {
            "–".to_string()
        } else {
            m.errors
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        total += m.answered;
        println!(
            "| {} | {} | {} | {errors} | {} | {} | {} |",
            op.method(),
            m.answered,
            m.ok,
            ms(nearest_rank(&sorted, 50)),
            ms(nearest_rank(&sorted, 99)),
            ms(sorted.last().copied()),
        );
    }
    let load: usize = done.iter().map(|d| d.sent).sum();
    println!();
    println!(
        "{total} requests answered ({load} during the load, {:.0}/s over {:.1}s); {} sessions on {TABS} tabs",
        load as f64 / elapsed.as_secs_f64(),
        elapsed.as_secs_f64(),
        done.len()
    );
    println!(
        "daemon RSS before the load: {}; after: {}",
        mib(rss_start),
        rss_end.map_or("–".into(), |k| format!(
            "{} ({:+} KiB)",
            mib(k),
            k as i64 - rss_start as i64
        ))
    );
}

#[cfg(test)]
mod tests;
