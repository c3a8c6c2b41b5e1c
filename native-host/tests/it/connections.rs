//! The daemon's edges (issue 15): a connection past the agent limit is
//! answered `BUSY` and closed; a daemon out of file descriptors neither
//! spins nor floods its log, and serves a new session once the flood ends;
//! a browser connection another one replaced is closed, and what it sends
//! changes nothing.

use crate::harness::{tab, Daemon, FakeExt, Script, WAIT};
use cotab_host::client::{Client, ClientError};
use cotab_host::runtime::AGENT_SOCKET;
use cotab_shared::controller::{Empty, Status, TabsList};
use cotab_shared::native::{Event, SharedTabs};
use cotab_shared::ErrorKind;
use serde_json::Value;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::UnixStream;
use tokio::process::{Child, Command};

const HOST: &str = env!("CARGO_BIN_EXE_cotab-host");

/// The line the daemon sends a connection past the limit, and then EOF.
async fn refusal(stream: UnixStream) -> Value {
    let mut lines = BufReader::new(stream).lines();
    let line = tokio::time::timeout(WAIT, lines.next_line())
        .await
        .expect("an answer in time")
        .expect("read")
        .expect("a line");
    let eof = tokio::time::timeout(WAIT, lines.next_line())
        .await
        .expect("closed in time");
    assert!(matches!(eof, Ok(None) | Err(_)), "then closed: {eof:?}");
    serde_json::from_str(&line).expect("json")
}

/// A session, once the daemon has room for it: a connection closed just
/// now gives its place back a moment later. Every attempt must be answered
/// in time, so a daemon that stopped accepting fails here.
async fn hello(sock: &Path) -> Client {
    tokio::time::timeout(WAIT, async {
        loop {
            let mut c = Client::connect(sock).await.expect("connect");
            match c.hello("after-the-flood").await {
                Ok(_) => return c,
                Err(ClientError::Rpc(e)) if e.kind() == ErrorKind::Busy => {
                    tokio::task::yield_now().await;
                }
                Err(e) => panic!("hello: {e:?}"),
            }
        }
    })
    .await
    .expect("a session in time")
}

#[tokio::test]
async fn a_connection_past_the_agent_limit_is_told_busy_and_closed() {
    let d = Daemon::start_max_agents(3).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(d.agent().await);
    }
    let past = UnixStream::connect(d.agent_sock()).await.expect("connect");
    let r = refusal(past).await;
    assert_eq!(r["error"]["data"]["kind"], "BUSY", "{r}");
    assert!(r["id"].is_null(), "{r}");
    let msg = r["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("limit is 3"), "{msg}");
    // The connections within the limit are served as before.
    held[0].call::<Status>(&Empty {}).await.expect("status");
    // A closed connection gives its place back.
    held.pop();
    let mut again = d.agent_eventually().await;
    again.call::<Status>(&Empty {}).await.expect("status");
}

/// Starts the daemon binary allowed `nofile` open files, its log (stderr)
/// in `log`, with `env` set.
fn daemon_with_nofile(rt: &Path, log: &Path, nofile: u64, env: &[(&str, &str)]) -> Child {
    let log = std::fs::File::create(log).expect("log file");
    // The shell lowers the limit and then becomes the daemon (`exec`), so
    // the pid is the daemon's.
    Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -n {nofile} && exec \"$0\" daemon --foreground"
        ))
        .arg(HOST)
        .env("COTAB_RUNTIME_DIR", rt)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(log))
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the daemon")
}

/// CPU time the process `pid` has used (`/proc/<pid>/schedstat`).
fn cpu_time(pid: u32) -> Duration {
    let s = std::fs::read_to_string(format!("/proc/{pid}/schedstat")).expect("schedstat");
    let ns: u64 = s
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .expect("run time");
    Duration::from_nanos(ns)
}

/// Opens `n` connections to `sock` and keeps them, without a word.
async fn flood(sock: &Path, n: usize) -> Vec<UnixStream> {
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        // Past the daemon's files, connections still queue in the
        // backlog; past the backlog they are refused, which is fine.
        match UnixStream::connect(sock).await {
            Ok(s) => v.push(s),
            Err(_) => break,
        }
    }
    v
}

#[tokio::test]
async fn a_daemon_out_of_file_descriptors_pauses_logs_once_and_recovers() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let rt = tmp.path().join("rt");
    let log = tmp.path().join("daemon.log");
    // A limit the flood passes: the agent limit is lifted so that
    // `accept()` itself runs out of descriptors.
    let mut child = daemon_with_nofile(&rt, &log, 64, &[("COTAB_MAX_AGENTS", "1000")]);
    let pid = child.id().expect("pid");
    let sock = rt.join(AGENT_SOCKET);
    crate::harness::eventually(|| UnixStream::connect(sock.clone())).await;
    let idle = flood(&sock, 120).await;
    assert!(
        idle.len() > 64,
        "the flood passes the limit ({})",
        idle.len()
    );
    // A measuring window, not a wait for an event: what is measured is
    // how much CPU and log the daemon spends while it cannot accept.
    let before = (cpu_time(pid), std::fs::metadata(&log).expect("log").len());
    let window = Duration::from_secs(2);
    tokio::time::sleep(window).await;
    let after = (cpu_time(pid), std::fs::metadata(&log).expect("log").len());
    let cpu = after.0 - before.0;
    let logged = after.1 - before.1;
    // A spinning accept loop uses the whole window and logs a line per
    // attempt; pausing between attempts uses next to nothing.
    assert!(
        cpu < window / 4,
        "the daemon used {cpu:?} of CPU in {window:?}"
    );
    assert!(
        logged < 4096,
        "the daemon logged {logged} bytes in {window:?}"
    );
    let text = std::fs::read_to_string(&log).expect("log");
    let warnings = text.matches("accept failed").count();
    assert_eq!(warnings, 1, "one warning per episode:\n{text}");
    drop(idle);
    // The flood is over: a new session is served.
    let mut c = hello(&sock).await;
    c.call::<Status>(&Empty {}).await.expect("status");
    child.kill().await.expect("kill");
}

#[tokio::test]
async fn the_agent_limit_follows_the_file_limit_so_a_flood_is_refused_not_starved() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let rt = tmp.path().join("rt");
    let log = tmp.path().join("daemon.log");
    // 96 files leave room for 32 agents (`accept::FD_RESERVE` is 64).
    let mut child = daemon_with_nofile(&rt, &log, 96, &[]);
    let sock = rt.join(AGENT_SOCKET);
    crate::harness::eventually(|| UnixStream::connect(sock.clone())).await;
    let mut idle = flood(&sock, 31).await;
    // The 32nd is served, the 33rd refused.
    let mut last = hello(&sock).await;
    last.call::<Status>(&Empty {}).await.expect("status");
    let past = UnixStream::connect(&sock).await.expect("connect");
    let r = refusal(past).await;
    assert_eq!(r["error"]["data"]["kind"], "BUSY", "{r}");
    idle.truncate(0);
    let mut c = hello(&sock).await;
    c.call::<Status>(&Empty {}).await.expect("status");
    let text = std::fs::read_to_string(&log).expect("log");
    assert!(!text.contains("accept failed"), "{text}");
    child.kill().await.expect("kill");
}

#[tokio::test]
async fn a_replaced_browser_connection_is_closed_and_what_it_sends_changes_nothing() {
    let d = Daemon::start().await;
    let one = |id| Script {
        tabs: vec![tab(id)],
        ..Script::default()
    };
    let mut a = FakeExt::connect_as(&d.host_sock(), one(1), "profile-a", "1.0.0").await;
    let mut agent = d.agent().await;
    // A second browser profile on the same runtime directory.
    let _b = FakeExt::connect_as(&d.host_sock(), one(2), "profile-b", "2.0.0").await;
    tokio::time::timeout(WAIT, async {
        loop {
            let s = agent.call::<Status>(&Empty {}).await.expect("status");
            if s.extension_version.as_deref() == Some("2.0.0") {
                return;
            }
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("the second connection became the lane");
    // The old connection speaks after its replacement took over.
    a.event(Event::DeveloperMode { enabled: true });
    a.event(Event::Shared(SharedTabs {
        tabs: vec![tab(1), tab(9)],
    }));
    a.closed_by_the_daemon().await;
    let status = agent.call::<Status>(&Empty {}).await.expect("status");
    assert!(!status.developer_mode, "{status:?}");
    let tabs = agent.call::<TabsList>(&Empty {}).await.expect("tabs");
    let ids: Vec<i32> = tabs.tabs.iter().map(|t| t.id.0).collect();
    assert_eq!(ids, [2], "only the current connection's tabs");
}
