//! Bench item 4: the daemon alone. The release `cotab-host daemon` with the
//! load run's fake extension on `host.sock` (real native-messaging framing,
//! no browser) and 1 or 64 agents on `agent.sock`, each agent sending
//! `tabs.list` (each asks the fake extension `listShared` once), one
//! request in flight per agent:
//!
//! - back to back ([`Load::BackToBack`]): each agent sends its next request
//!   as soon as the last is answered, which measures the most the daemon
//!   serves; with 64 agents there are always 64 requests waiting, so the
//!   latency is mostly queueing (on average 64 / the rate);
//! - at a fixed rate ([`Load::Rate`], open loop): requests are due at
//!   evenly spaced times, spread over the agents in turn, and each is timed
//!   from when it was due, so a late answer also counts against the
//!   requests that had to wait for it. This is the latency at a given load.
//!
//! A fresh daemon per run, so the peak resident memory (`VmHWM`) belongs to
//! that run alone.

use super::stats::Summary;
use crate::load::fake_ext::FakeExt;
use crate::load::{request_line, wait_for_socket, DaemonProcess};
use anyhow::{bail, Context, Result};
use cotab_shared::controller::{Empty, Hello, HelloParams, SelectParams, TabsList, TabsSelect};
use cotab_shared::native::TabInfo;
use cotab_shared::TabId;
use std::path::Path;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::time::Instant;

/// Time each agent runs before measuring starts.
const WARM_UP: Duration = Duration::from_millis(500);
/// Time measured.
const MEASURE: Duration = Duration::from_secs(3);
/// The fake extension's one tab.
const TAB: i32 = 1;

/// How the agents send.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Load {
    /// Each agent sends its next request once the last is answered.
    BackToBack,
    /// This many requests per second in all, due at evenly spaced times.
    Rate(u32),
}

/// One daemon run's figures.
pub(crate) struct DaemonFigures {
    pub(crate) agents: usize,
    pub(crate) load: Load,
    pub(crate) requests: usize,
    pub(crate) per_second: f64,
    pub(crate) latency: Summary,
    pub(crate) peak_rss_kib: u64,
    /// The daemon's CPU time (all threads) per measured request.
    pub(crate) cpu_us_per_request: f64,
    /// The bench process's (the agents' and the fake extension's) CPU time
    /// per measured request, back to back only: at a fixed rate its thread
    /// is kept busy by the schedule.
    pub(crate) bench_cpu_us_per_request: Option<f64>,
    /// Whether the daemon and the bench ran pinned to cores of their own.
    pub(crate) pinned: bool,
}

/// Runs the daemon with `agents` agents sending as `load` says and
/// measures it.
pub(crate) fn run(binary: &Path, agents: usize, load: Load) -> Result<DaemonFigures> {
    let dir = tempfile::Builder::new().prefix("cotab-bench").tempdir()?;
    let mut daemon = DaemonProcess::start(binary, &dir.path().join("rt"))?;
    // The daemon's threads on one core, the bench's on another, so that
    // neither waits for the other's time slice (the scheduler tends to wake
    // a peer on the waker's core).
    let cores = allowed_cpus()
        .filter(|c| c.len() >= 2)
        .map(|c| (c[0], c[c.len() - 1]));
    let daemon_pinned = cores.is_some_and(|(_, last)| pin(&["-a", "-p"], last, daemon.pid()));
    let result = std::thread::scope(|s| {
        s.spawn(|| {
            // This thread's id, from `/proc/thread-self` ("<pid>/task/<tid>").
            let tid = std::fs::read_link("/proc/thread-self")
                .ok()
                .and_then(|p| p.file_name()?.to_str()?.parse::<u32>().ok());
            let pinned = match (cores, tid) {
                (Some((first, _)), Some(tid)) if daemon_pinned => pin(&["-p"], first, tid),
                _ => false,
            };
            // One thread for every agent and the fake extension.
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            rt.block_on(drive(&mut daemon, agents, load))
                .map(|figures| DaemonFigures { pinned, ..figures })
        })
        .join()
        .map_err(|_| anyhow::anyhow!("the agents' thread panicked"))?
    });
    daemon.stop();
    result
}

/// The CPUs this process may run on (`Cpus_allowed_list` in
/// `/proc/self/status`, e.g. `0-3,8`), in order.
fn allowed_cpus() -> Option<Vec<u32>> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))?;
    let mut cpus = Vec::new();
    for part in list.trim().split(',') {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse::<u32>().ok()?..=b.parse::<u32>().ok()?),
            None => cpus.push(part.parse().ok()?),
        }
    }
    Some(cpus)
}

/// Pins `target` (with `args`: `-a -p` for every thread of a process, `-p`
/// for one thread, which its later threads inherit) to `cpu` with
/// `taskset`; false if that failed.
fn pin(args: &[&str], cpu: u32, target: u32) -> bool {
    std::process::Command::new("taskset")
        .args(args)
        .args(["-c", &cpu.to_string(), &target.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

async fn drive(daemon: &mut DaemonProcess, agents: usize, load: Load) -> Result<DaemonFigures> {
    let host_sock = daemon.runtime_dir.join(cotab_host::runtime::HOST_SOCKET);
    let agent_sock = daemon.runtime_dir.join(cotab_host::runtime::AGENT_SOCKET);
    wait_for_socket(daemon, &agent_sock).await?;
    let tab = TabInfo {
        id: TabId(TAB),
        url: "http://example.test/bench".into(),
        title: "Bench".into(),
        human_control: false,
        blocked: None,
        opener: None,
        target_id: None,
    };
    let _fake = FakeExt::connect(&host_sock, tab).await?;
    let start = Instant::now();
    let warm_until = start + WARM_UP;
    let stop_at = warm_until + MEASURE;
    let mut tasks = Vec::with_capacity(agents);
    let mut due = Vec::with_capacity(agents);
    for i in 0..agents {
        let mut conn = AgentConn::connect(&agent_sock, i).await?;
        tasks.push(match load {
            Load::BackToBack => tokio::spawn(async move { conn.run(warm_until, stop_at).await }),
            Load::Rate(_) => {
                let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
                due.push(tx);
                tokio::spawn(async move { conn.run_due(rx, warm_until).await })
            }
        });
    }
    let mut latencies = Vec::new();
    let cpu_before = match load {
        Load::BackToBack => {
            tokio::time::sleep_until(warm_until).await;
            let cpu_before = cpu_pair(daemon.pid())?;
            for t in tasks {
                latencies.extend(t.await??);
            }
            cpu_before
        }
        Load::Rate(rate) => {
            // Tokio's timers tick in milliseconds, which would send the
            // requests due within one tick together: the schedule is kept
            // by yielding until each is due. This task shares the thread
            // (and, pinned, the core) with the agents and the fake
            // extension, which run between.
            let interval = Duration::from_secs(1) / rate;
            let mut cpu_before = None;
            for k in 0u32.. {
                let at = start + interval * k;
                if at >= stop_at {
                    break;
                }
                while Instant::now() < at {
                    tokio::task::yield_now().await;
                }
                if cpu_before.is_none() && at >= warm_until {
                    cpu_before = Some(cpu_pair(daemon.pid())?);
                }
                let agent = k as usize % due.len();
                if due[agent].send(at).is_err() {
                    break; // That agent failed; its error is reported below.
                }
            }
            due.clear();
            for t in tasks {
                latencies.extend(t.await??);
            }
            cpu_before.context("the measured part of the schedule never started")?
        }
    };
    let (daemon_after, bench_after) = cpu_pair(daemon.pid())?;
    let cpu = daemon_after.saturating_sub(cpu_before.0);
    let bench_cpu = bench_after.saturating_sub(cpu_before.1);
    daemon.check_alive()?;
    let peak_rss_kib = daemon.peak_rss_kib()?;
    let requests = latencies.len();
    Ok(DaemonFigures {
        agents,
        requests,
        load,
        per_second: requests as f64 / MEASURE.as_secs_f64(),
        latency: Summary::of(&latencies).context("no request was measured")?,
        peak_rss_kib,
        cpu_us_per_request: cpu as f64 / 1e3 / requests.max(1) as f64,
        bench_cpu_us_per_request: (load == Load::BackToBack)
            .then(|| bench_cpu as f64 / 1e3 / requests.max(1) as f64),
        pinned: false,
    })
}

/// CPU time so far of the daemon `pid` and of this process.
fn cpu_pair(pid: u32) -> Result<(u64, u64)> {
    Ok((cpu_ns(pid)?, cpu_ns(std::process::id())?))
}

/// CPU time of every thread of `pid` so far, in nanoseconds (the first
/// field of each `/proc/<pid>/task/<tid>/schedstat`).
fn cpu_ns(pid: u32) -> Result<u64> {
    let dir = format!("/proc/{pid}/task");
    let mut total = 0;
    for task in std::fs::read_dir(&dir).with_context(|| format!("reading {dir}"))? {
        let path = task?.path().join("schedstat");
        // A thread that ended meanwhile has no file any more.
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        total += super::cpu::schedstat_ns(&text)
            .with_context(|| format!("no CPU time in {}", path.display()))?;
    }
    Ok(total)
}

/// What an agent reads of a line from the daemon.
#[derive(serde::Deserialize)]
struct Answer {
    #[serde(default, deserialize_with = "present")]
    method: bool,
    id: Option<i64>,
    #[serde(default)]
    error: Option<Box<serde_json::value::RawValue>>,
    #[serde(default, deserialize_with = "present")]
    result: bool,
}

/// Whether a field is there, whatever it holds.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    serde::Deserialize::deserialize(d).map(|_: serde::de::IgnoredAny| true)
}

/// One agent connection with its session and selected tab.
struct AgentConn {
    index: usize,
    writer: tokio::net::unix::OwnedWriteHalf,
    reader: BufReader<tokio::net::unix::OwnedReadHalf>,
    next_id: i64,
    line: String,
}

impl AgentConn {
    async fn connect(sock: &Path, index: usize) -> Result<AgentConn> {
        let stream = UnixStream::connect(sock)
            .await
            .with_context(|| format!("connecting to {}", sock.display()))?;
        let (r, w) = stream.into_split();
        let mut conn = AgentConn {
            index,
            writer: w,
            reader: BufReader::new(r),
            next_id: 1,
            line: String::new(),
        };
        let hello = HelloParams::new(format!("bench-{index}"));
        let id = conn.next();
        conn.writer
            .write_all(&request_line::<Hello>(id, &hello)?)
            .await?;
        conn.answer(id).await?;
        let id = conn.next();
        conn.writer
            .write_all(&request_line::<TabsSelect>(
                id,
                &SelectParams { tab_id: TabId(TAB) },
            )?)
            .await?;
        conn.answer(id).await?;
        Ok(conn)
    }

    fn next(&mut self) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Reads lines until the answer to `id`; fails on an error answer.
    async fn answer(&mut self, id: i64) -> Result<()> {
        loop {
            self.line.clear();
            let n = tokio::time::timeout(
                Duration::from_secs(10),
                self.reader.read_line(&mut self.line),
            )
            .await
            .with_context(|| format!("agent {}: no answer within 10 s", self.index))??;
            if n == 0 {
                bail!("agent {}: the daemon closed the connection", self.index);
            }
            // Only the four fields it needs are read: the bench's own
            // parsing shares the two cores with the daemon.
            let a: Answer = serde_json::from_str(&self.line)
                .with_context(|| format!("agent {}: not a JSON-RPC line", self.index))?;
            if a.method {
                continue; // A notification.
            }
            if let Some(e) = a.error.as_ref().filter(|_| a.id.is_none()) {
                bail!(
                    "agent {}: the daemon could not read a request: {e}",
                    self.index
                );
            }
            let got = a.id.unwrap_or_default();
            if got != id {
                bail!(
                    "agent {}: an answer for {got} while waiting for {id}",
                    self.index
                );
            }
            if let Some(e) = a.error {
                bail!("agent {}: request {id} failed: {e}", self.index);
            }
            if !a.result {
                bail!("agent {}: request {id} has no result", self.index);
            }
            return Ok(());
        }
    }

    /// One `tabs.list`, sent and answered.
    async fn list(&mut self) -> Result<()> {
        let id = self.next();
        self.writer
            .write_all(&request_line::<TabsList>(id, &Empty {})?)
            .await?;
        self.answer(id).await
    }

    /// Sends `tabs.list` at each time `due` gives, or as soon as the last
    /// one is answered if that is later, until `due` closes; returns, for
    /// the requests due after `warm_until`, the time from when each was due
    /// to its answer.
    async fn run_due(
        &mut self,
        mut due: tokio::sync::mpsc::UnboundedReceiver<Instant>,
        warm_until: Instant,
    ) -> Result<Vec<Duration>> {
        let mut latencies = Vec::new();
        while let Some(at) = due.recv().await {
            self.list().await?;
            if at >= warm_until {
                latencies.push(at.elapsed());
            }
        }
        Ok(latencies)
    }

    /// Sends `tabs.list` back to back until `stop_at`; returns the
    /// latencies of the requests sent after `warm_until`.
    async fn run(&mut self, warm_until: Instant, stop_at: Instant) -> Result<Vec<Duration>> {
        let mut latencies = Vec::new();
        loop {
            let sent = Instant::now();
            if sent >= stop_at {
                return Ok(latencies);
            }
            self.list().await?;
            if sent >= warm_until {
                latencies.push(sent.elapsed());
            }
        }
    }
}
