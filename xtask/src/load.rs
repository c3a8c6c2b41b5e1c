//! `cargo xtask load`: the daemon under load, from the outside.
//!
//! It builds the release `cotab-host`, starts `cotab-host daemon
//! --foreground` in a temporary runtime directory, connects a fake
//! extension ([`fake_ext`]) to `host.sock` and 64 agents to `agent.sock`,
//! then runs rounds of 64 agents × 16 requests. Each round checks that every
//! request is answered exactly once and that `BUSY` comes exactly where the
//! admission limits (`docs/protocol.md`, Limits) say, and reads the daemon's
//! resident memory. It prints a markdown table and fails on a lost,
//! duplicated or unexpected answer, or on a `BUSY` count other than the
//! expected one; memory is reported, not judged.
//!
//! It owns no daemon logic: it drives the real binary over its sockets.
//! See `docs/reliability.md`.

pub(crate) mod fake_ext;

use crate::setup::run;
use anyhow::{bail, Context, Result};
use cotab_shared::controller::{
    Capture, CaptureParams, Empty, Hello, HelloParams, ImageFormat, Method, OutgoingRequest,
    Response, RpcOutcome, SelectParams, TabsList, TabsSelect,
};
use cotab_shared::limits::{
    MAX_IN_FLIGHT_PER_CONNECTION, MAX_IN_FLIGHT_TOTAL, MAX_MEDIA_IN_FLIGHT_PER_CONNECTION,
    MAX_MEDIA_IN_FLIGHT_TOTAL,
};
use cotab_shared::native::TabInfo;
use cotab_shared::{ErrorKind, RequestId, TabId};
use fake_ext::FakeExt;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::OwnedWriteHalf;
use tokio::net::UnixStream;
use tokio::sync::{mpsc, Notify, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// Agents, each on its own connection.
const AGENTS: usize = 64;
/// Requests each agent sends per round.
const PER_AGENT: usize = 16;
/// Rounds in one run.
const ROUNDS: usize = 10;
/// The one tab the fake extension shares.
const TAB: i32 = 1;
/// Deadline for anything the run waits for (a round's answers, the
/// daemon's sockets); well under the daemon's own 30 s command deadline.
const WAIT: Duration = Duration::from_secs(20);

/// What one round sends and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Every agent sends 16 `tabs.list` at once while the fake extension
    /// holds its answers: exactly the daemon-wide limit gets through.
    BurstList,
    /// `tabs.list` and `page.capture` alternately, paced by the agents so
    /// no limit is ever reached: no `BUSY` at all.
    Paced,
    /// Every agent sends 16 `page.capture` at once while the fake extension
    /// holds its answers: exactly the daemon-wide media budget gets through.
    BurstCapture,
}

impl Kind {
    /// Round `round` (from 1) cycles through the kinds.
    fn of_round(round: usize) -> Kind {
        match round % 3 {
            1 => Kind::BurstList,
            2 => Kind::Paced,
            _ => Kind::BurstCapture,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::BurstList => "burst tabs.list",
            Kind::Paced => "paced list+capture",
            Kind::BurstCapture => "burst page.capture",
        }
    }

    /// Whether the agent's `k`-th request of the round is a capture.
    fn is_capture(self, k: usize) -> bool {
        match self {
            Kind::BurstList => false,
            Kind::Paced => k % 2 == 1,
            Kind::BurstCapture => true,
        }
    }

    /// How many requests of the round get `BUSY`.
    ///
    /// In a burst every request is sent before any is answered. Each agent
    /// stays within its connection's limits for requests (16 ≤ 16), so only
    /// the daemon-wide limit refuses: all but 64 `tabs.list`. For captures
    /// the daemon-wide media budget (48) is reached before the connection
    /// media budgets (12 each, 64 connections) or the request limit (64),
    /// so all but 48 captures are refused.
    fn expected_busy(self) -> usize {
        let total = AGENTS * PER_AGENT;
        match self {
            Kind::BurstList => total - MAX_IN_FLIGHT_TOTAL,
            Kind::Paced => 0,
            Kind::BurstCapture => total - MAX_MEDIA_IN_FLIGHT_TOTAL,
        }
    }
}

/// Runs the load: build, start, drive, report.
pub(crate) fn run_load(root: &Path) -> Result<()> {
    // The reasoning behind the expected counts holds for these limits.
    const _: () = assert!(PER_AGENT <= MAX_IN_FLIGHT_PER_CONNECTION);
    const _: () = assert!(AGENTS * PER_AGENT > MAX_IN_FLIGHT_TOTAL);
    const _: () = assert!(MAX_MEDIA_IN_FLIGHT_TOTAL <= MAX_IN_FLIGHT_TOTAL);
    const _: () = assert!(AGENTS * MAX_MEDIA_IN_FLIGHT_PER_CONNECTION >= MAX_MEDIA_IN_FLIGHT_TOTAL);

    run(
        Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .current_dir(root)
            .args(["build", "-p", "cotab-host", "--bins", "--release"]),
    )?;
    let binary = cotab_e2e::target_dir().join("release").join("cotab-host");
    let dir = tempfile::Builder::new().prefix("cotab-load").tempdir()?;
    let mut daemon = DaemonProcess::start(&binary, &dir.path().join("rt"))?;
    let result = tokio::runtime::Runtime::new()?.block_on(drive(&mut daemon));
    daemon.stop();
    result
}

/// The daemon's process; killed on drop.
pub(crate) struct DaemonProcess {
    child: Child,
    pub(crate) runtime_dir: PathBuf,
}

impl DaemonProcess {
    pub(crate) fn start(binary: &Path, runtime_dir: &Path) -> Result<DaemonProcess> {
        let child = Command::new(binary)
            .args(["daemon", "--foreground"])
            .env("COTAB_RUNTIME_DIR", runtime_dir)
            // Warnings (a slow agent, a dropped connection) are worth seeing
            // during a load run; per-connection info lines are not.
            .env("COTAB_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        Ok(DaemonProcess {
            child,
            runtime_dir: runtime_dir.to_path_buf(),
        })
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Fails if the daemon has exited.
    pub(crate) fn check_alive(&mut self) -> Result<()> {
        match self.child.try_wait()? {
            Some(status) => bail!("the daemon exited: {status}"),
            None => Ok(()),
        }
    }

    /// Resident memory in KiB (`VmRSS` in `/proc/<pid>/status`).
    pub(crate) fn rss_kib(&self) -> Result<u64> {
        self.status_kib("VmRSS")
    }

    /// Peak resident memory so far in KiB (`VmHWM`).
    pub(crate) fn peak_rss_kib(&self) -> Result<u64> {
        self.status_kib("VmHWM")
    }

    fn status_kib(&self, field: &str) -> Result<u64> {
        status_kib(self.pid(), field)
    }

    pub(crate) fn stop(&mut self) {
        // SIGKILL of our own child: the run is over and the temporary
        // runtime directory goes with it, so a graceful stop buys nothing.
        // Failing means it already exited.
        let _ = self.child.kill();
        // Reaps it; the exit status is of no interest after a kill.
        let _ = self.child.wait();
    }
}

impl Drop for DaemonProcess {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Counts the coordinator of a burst waits on.
#[derive(Default)]
struct Progress {
    sent: AtomicUsize,
    busy: AtomicUsize,
    changed: Notify,
}

impl Progress {
    fn bump(&self, counter: &AtomicUsize) {
        counter.fetch_add(1, Ordering::Relaxed);
        // `notify_one` keeps a permit when nobody waits yet, so the
        // coordinator never misses a change.
        self.changed.notify_one();
    }
}

/// Client-side pacing of a paced round: permits for requests and captures
/// in flight, daemon-wide, as the daemon counts them.
struct Pacing {
    in_flight: Arc<Semaphore>,
    media: Arc<Semaphore>,
}

/// What became of one request.
#[derive(Debug)]
enum Answer {
    /// A result, after this long.
    Ok(Duration),
    /// `BUSY`.
    Busy,
    /// Any other error.
    Failed(ErrorKind, String),
}

/// One agent: its connection and the answers its reader forwards.
struct Agent {
    index: usize,
    writer: OwnedWriteHalf,
    answers: mpsc::UnboundedReceiver<Result<(Response, Instant)>>,
    reader: JoinHandle<()>,
}

impl Agent {
    /// Connects, opens a session and selects the shared tab.
    async fn connect(sock: &Path, index: usize) -> Result<Agent> {
        let stream = UnixStream::connect(sock)
            .await
            .with_context(|| format!("connecting to {}", sock.display()))?;
        let (r, writer) = stream.into_split();
        let (tx, answers) = mpsc::unbounded_channel();
        let reader = tokio::spawn(async move {
            let mut lines = BufReader::new(r).lines();
            loop {
                let msg = match lines.next_line().await {
                    Ok(Some(line)) => decode(&line),
                    Ok(None) => break,
                    Err(e) => Err(e.into()),
                };
                let stop = msg.is_err();
                // `Ok(None)`: a notification, which the run ignores.
                if let Some(msg) = msg.transpose() {
                    if tx.send(msg.map(|m| (m, Instant::now()))).is_err() || stop {
                        break;
                    }
                }
            }
        });
        let mut agent = Agent {
            index,
            writer,
            answers,
            reader,
        };
        agent
            .call::<Hello>(1, &HelloParams::new(format!("load-{index}")))
            .await?;
        agent
            .call::<TabsSelect>(2, &SelectParams { tab_id: TabId(TAB) })
            .await?;
        Ok(agent)
    }

    /// One request, answered before the next (setup only).
    async fn call<M: Method>(&mut self, id: i64, params: &M::Params) -> Result<Value> {
        self.writer
            .write_all(&request_line::<M>(id, params)?)
            .await?;
        let (resp, _) = self.next_answer().await?;
        if resp.id != Some(RequestId::Number(id)) {
            bail!(
                "agent {}: {} got an answer for {:?}",
                self.index,
                M::NAME,
                resp.id
            );
        }
        match resp.outcome {
            RpcOutcome::Result(v) => Ok(v),
            RpcOutcome::Error(e) => bail!("agent {}: {} failed: {e:?}", self.index, M::NAME),
        }
    }

    async fn next_answer(&mut self) -> Result<(Response, Instant)> {
        tokio::time::timeout(WAIT, self.answers.recv())
            .await
            .with_context(|| format!("agent {}: no answer within {WAIT:?}", self.index))?
            .with_context(|| format!("agent {}: the daemon closed the connection", self.index))?
    }

    /// Sends this agent's requests of round `round` and collects their
    /// answers. Any answer whose id is not outstanding (a duplicate, or one
    /// never sent) fails the round.
    async fn round(
        &mut self,
        round: usize,
        kind: Kind,
        pacing: Option<&Pacing>,
        progress: &Progress,
    ) -> Result<Vec<Answer>> {
        struct Sent {
            at: Instant,
            // Held until the answer arrives; dropping it frees the room.
            _permits: Vec<OwnedSemaphorePermit>,
        }
        let sent: Mutex<HashMap<i64, Sent>> = Mutex::default();
        let own_media = Arc::new(Semaphore::new(MAX_MEDIA_IN_FLIGHT_PER_CONNECTION));
        let index = self.index;
        let Agent {
            writer, answers, ..
        } = self;
        let sending = async {
            for k in 0..PER_AGENT {
                let id = request_id(round, index, k);
                let capture = kind.is_capture(k);
                let mut permits = Vec::new();
                if let Some(p) = pacing {
                    if capture {
                        permits.push(own_media.clone().acquire_owned().await?);
                        permits.push(p.media.clone().acquire_owned().await?);
                    }
                    permits.push(p.in_flight.clone().acquire_owned().await?);
                }
                // Recorded before the write, so the answer always finds it.
                lock(&sent).insert(
                    id,
                    Sent {
                        at: Instant::now(),
                        _permits: permits,
                    },
                );
                let line = if capture {
                    request_line::<Capture>(
                        id,
                        &CaptureParams {
                            format: ImageFormat::Png,
                            ..CaptureParams::default()
                        },
                    )?
                } else {
                    request_line::<TabsList>(id, &Empty {})?
                };
                writer.write_all(&line).await?;
                progress.bump(&progress.sent);
            }
            Ok::<_, anyhow::Error>(())
        };
        let receiving = async {
            let mut got = Vec::with_capacity(PER_AGENT);
            while got.len() < PER_AGENT {
                let (resp, at) = tokio::time::timeout(WAIT, answers.recv())
                    .await
                    .with_context(|| {
                        format!(
                            "agent {index}: {} of {PER_AGENT} answers within {WAIT:?} (lost answers)",
                            got.len()
                        )
                    })?
                    .with_context(|| format!("agent {index}: the daemon closed the connection"))??;
                let Some(RequestId::Number(id)) = resp.id else {
                    bail!("agent {index}: an answer with id {:?}", resp.id);
                };
                let Some(s) = lock(&sent).remove(&id) else {
                    bail!("agent {index}: an answer for id {id}, which is not outstanding (duplicate or never sent)");
                };
                got.push(match resp.outcome {
                    RpcOutcome::Result(_) => Answer::Ok(at - s.at),
                    RpcOutcome::Error(e) if e.kind() == ErrorKind::Busy => {
                        progress.bump(&progress.busy);
                        Answer::Busy
                    }
                    RpcOutcome::Error(e) => Answer::Failed(e.kind(), e.message),
                });
            }
            Ok(got)
        };
        let ((), got) = tokio::try_join!(sending, receiving)?;
        Ok(got)
    }

    /// Closes the agent's side and checks that nothing more comes before the
    /// daemon closes its side.
    async fn finish(mut self) -> Result<()> {
        self.writer.shutdown().await?;
        let extra = tokio::time::timeout(WAIT, self.answers.recv())
            .await
            .with_context(|| format!("agent {}: the daemon did not close", self.index))?;
        if let Some(extra) = extra {
            bail!(
                "agent {}: an answer after the last round: {extra:?}",
                self.index
            );
        }
        self.reader.await?;
        Ok(())
    }
}

/// Ids are unique over the whole run, so a late duplicate is caught in any
/// later round too.
fn request_id(round: usize, agent: usize, k: usize) -> i64 {
    (round * 100_000 + agent * 100 + k) as i64
}

/// One request as a line, newline included.
pub(crate) fn request_line<M: Method>(id: i64, params: &M::Params) -> Result<Vec<u8>> {
    let mut line = serde_json::to_vec(&OutgoingRequest {
        jsonrpc: "2.0",
        id: RequestId::Number(id),
        method: M::NAME,
        params,
    })?;
    line.push(b'\n');
    Ok(line)
}

/// A response, `None` for a notification (no `id` member).
fn decode(line: &str) -> Result<Option<Response>> {
    let v: Value = serde_json::from_str(line).with_context(|| format!("not JSON: {line}"))?;
    if v.get("id").is_none() {
        return Ok(None);
    }
    Ok(Some(
        serde_json::from_value(v).with_context(|| format!("not a response: {line}"))?,
    ))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Nothing panics while holding it; a poisoned lock still holds a
    // usable map.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// One round's figures.
struct Row {
    answered: usize,
    ok: usize,
    busy: usize,
    failed: Vec<(ErrorKind, String)>,
    latencies: Vec<Duration>,
}

async fn drive(daemon: &mut DaemonProcess) -> Result<()> {
    let host_sock = daemon.runtime_dir.join(cotab_host::runtime::HOST_SOCKET);
    let agent_sock = daemon.runtime_dir.join(cotab_host::runtime::AGENT_SOCKET);
    // The daemon binds `host.sock` before `agent.sock`; probing only the
    // agent socket spares the daemon an empty browser connection.
    wait_for_socket(daemon, &agent_sock).await?;
    let tab = TabInfo {
        id: TabId(TAB),
        url: "http://example.test/load".into(),
        title: "Load".into(),
        human_control: false,
        blocked: None,
        opener: None,
        target_id: None,
    };
    let fake = FakeExt::connect(&host_sock, tab).await?;
    let mut agents = Vec::with_capacity(AGENTS);
    for i in 0..AGENTS {
        agents.push(Agent::connect(&agent_sock, i).await?);
    }

    println!(
        "| round | kind | requests | answered | ok | BUSY (expected) | to extension | p50 | p99 | daemon RSS |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut problems = Vec::new();
    let mut rss = Vec::new();
    for round in 1..=ROUNDS {
        let kind = Kind::of_round(round);
        let before = fake.received();
        let (back, row) = one_round(agents, round, kind, &fake).await?;
        agents = back;
        daemon.check_alive()?;
        let to_extension = fake.received() - before;
        let kib = daemon.rss_kib()?;
        rss.push(kib);
        let requests = AGENTS * PER_AGENT;
        let expected = kind.expected_busy();
        println!(
            "| {round} | {} | {requests} | {} | {} | {} ({expected}) | {to_extension} | {} | {} | {} |",
            kind.name(),
            row.answered,
            row.ok,
            row.busy,
            percentile(&row.latencies, 50),
            percentile(&row.latencies, 99),
            mib(kib),
        );
        if row.answered != requests {
            problems.push(format!(
                "round {round}: {} of {requests} answered",
                row.answered
            ));
        }
        if row.busy != expected {
            problems.push(format!(
                "round {round}: {} BUSY, expected {expected}",
                row.busy
            ));
        }
        // Each `tabs.list` that got through asks the extension once.
        if kind == Kind::BurstList && to_extension != MAX_IN_FLIGHT_TOTAL {
            problems.push(format!(
                "round {round}: {to_extension} requests reached the extension, expected {MAX_IN_FLIGHT_TOTAL}"
            ));
        }
        if let Some((kind, message)) = row.failed.first() {
            problems.push(format!(
                "round {round}: {} requests failed, e.g. {kind:?}: {message}",
                row.failed.len()
            ));
        }
    }
    for agent in agents {
        agent.finish().await?;
    }
    daemon.check_alive()?;
    if let (Some(first), Some(last)) = (rss.first(), rss.last()) {
        println!();
        println!(
            "daemon RSS after round 1: {}; after round {ROUNDS}: {} ({:+} KiB)",
            mib(*first),
            mib(*last),
            *last as i64 - *first as i64
        );
    }
    if !problems.is_empty() {
        bail!("the load run failed:\n  {}", problems.join("\n  "));
    }
    Ok(())
}

/// Runs one round on every agent at once; gives the agents back.
async fn one_round(
    agents: Vec<Agent>,
    round: usize,
    kind: Kind,
    fake: &FakeExt,
) -> Result<(Vec<Agent>, Row)> {
    let progress = Arc::new(Progress::default());
    let pacing = (kind == Kind::Paced).then(|| {
        Arc::new(Pacing {
            in_flight: Arc::new(Semaphore::new(MAX_IN_FLIGHT_TOTAL)),
            media: Arc::new(Semaphore::new(MAX_MEDIA_IN_FLIGHT_TOTAL)),
        })
    });
    let burst = pacing.is_none();
    // In a burst nothing is answered until every request is sent and every
    // refusal is in, so which requests get through does not depend on
    // timing.
    fake.hold(burst);
    let tasks: Vec<_> = agents
        .into_iter()
        .map(|mut agent| {
            let (progress, pacing) = (progress.clone(), pacing.clone());
            tokio::spawn(async move {
                let r = agent.round(round, kind, pacing.as_deref(), &progress).await;
                (agent, r)
            })
        })
        .collect();
    if burst {
        let total = AGENTS * PER_AGENT;
        let expected = kind.expected_busy();
        let give_up = Instant::now() + WAIT;
        while progress.sent.load(Ordering::Relaxed) < total
            || progress.busy.load(Ordering::Relaxed) < expected
        {
            // On a timeout the hold is released all the same: the counts
            // below then say what went wrong.
            if tokio::time::timeout_at(give_up, progress.changed.notified())
                .await
                .is_err()
            {
                break;
            }
        }
        fake.hold(false);
    }
    let mut back = Vec::with_capacity(AGENTS);
    let mut row = Row {
        answered: 0,
        ok: 0,
        busy: 0,
        failed: Vec::new(),
        latencies: Vec::new(),
    };
    let mut first_error = None;
    for task in tasks {
        let (agent, r) = task.await?;
        back.push(agent);
        match r {
            Ok(answers) => {
                for a in answers {
                    row.answered += 1;
                    match a {
                        Answer::Ok(d) => {
                            row.ok += 1;
                            row.latencies.push(d);
                        }
                        Answer::Busy => row.busy += 1,
                        Answer::Failed(kind, message) => row.failed.push((kind, message)),
                    }
                }
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e.context(format!("round {round} ({})", kind.name())));
    }
    Ok((back, row))
}

/// Waits until `sock` accepts a connection.
pub(crate) async fn wait_for_socket(daemon: &mut DaemonProcess, sock: &Path) -> Result<()> {
    let give_up = Instant::now() + WAIT;
    loop {
        if UnixStream::connect(sock).await.is_ok() {
            return Ok(());
        }
        daemon.check_alive()?;
        if Instant::now() > give_up {
            bail!("{} did not come up within {WAIT:?}", sock.display());
        }
        // Polling with a deadline: the daemon announces its sockets no
        // other way.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The `p`-th percentile (nearest rank) as milliseconds, `–` when empty.
fn percentile(samples: &[Duration], p: usize) -> String {
    let mut v = samples.to_vec();
    v.sort();
    match nearest_rank(&v, p) {
        Some(d) => format!("{:.1} ms", d.as_secs_f64() * 1000.0),
        None => "–".into(),
    }
}

/// The `p`-th percentile by nearest rank of `sorted` (ascending).
pub(crate) fn nearest_rank(sorted: &[Duration], p: usize) -> Option<Duration> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len()).div_ceil(100).clamp(1, sorted.len());
    Some(sorted[rank - 1])
}

/// A `kB` field of `/proc/<pid>/status` (`VmRSS`, `VmHWM`).
pub(crate) fn status_kib(pid: u32, field: &str) -> Result<u64> {
    let path = format!("/proc/{pid}/status");
    let status = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .with_context(|| format!("no {field} in {path}"))
}

/// KiB as MiB with one decimal.
pub(crate) fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expected_busy_counts_follow_the_limits() {
        assert_eq!(Kind::BurstList.expected_busy(), 1024 - 64);
        assert_eq!(Kind::BurstCapture.expected_busy(), 1024 - 48);
        assert_eq!(Kind::Paced.expected_busy(), 0);
    }

    #[test]
    fn request_ids_are_unique_over_the_run() {
        let mut seen = std::collections::HashSet::new();
        for r in 1..=ROUNDS {
            for a in 0..AGENTS {
                for k in 0..PER_AGENT {
                    assert!(seen.insert(request_id(r, a, k)));
                }
            }
        }
    }

    #[test]
    fn percentile_is_nearest_rank() {
        let v: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(percentile(&v, 50), "50.0 ms");
        assert_eq!(percentile(&v, 99), "99.0 ms");
        assert_eq!(percentile(&[], 50), "–");
        assert_eq!(nearest_rank(&v, 100), Some(Duration::from_millis(100)));
        let one = [Duration::from_millis(7)];
        assert_eq!(nearest_rank(&one, 99), Some(one[0]));
        assert_eq!(nearest_rank(&[], 50), None);
    }
}
