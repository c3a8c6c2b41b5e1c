//! The built binaries: relay origin check, relay end to end (with the
//! daemon it starts, and with a fake daemon sending an oversize frame), the
//! daemon's single-instance lock, and the CLI (its kept session and
//! control).

use crate::harness::{eventually, tab, Daemon, FakeExt, Script, WAIT};
use cotab_host::runtime::{AGENT_SOCKET, HOST_SOCKET, PID_FILE};
use cotab_shared::native::{ExtensionToHost, Holder, HostToExtension, TabControl};
use cotab_shared::{LaneId, TabId, NATIVE_PROTOCOL_VERSION};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixListener;
use tokio::process::{Child, Command};

const HOST: &str = env!("CARGO_BIN_EXE_cotab-host");
const CLI: &str = env!("CARGO_BIN_EXE_cotab");

fn origin() -> String {
    cotab_shared::extension_origin(cotab_shared::EXTENSION_ID)
}

fn frame(payload: &[u8]) -> Vec<u8> {
    let mut f = (payload.len() as u32).to_ne_bytes().to_vec();
    f.extend_from_slice(payload);
    f
}

async fn read_frame(r: &mut (impl AsyncReadExt + Unpin)) -> Vec<u8> {
    let mut header = [0u8; 4];
    r.read_exact(&mut header).await.expect("header");
    let mut body = vec![0u8; u32::from_ne_bytes(header) as usize];
    r.read_exact(&mut body).await.expect("body");
    body
}

fn hello_frame() -> Vec<u8> {
    let hello = ExtensionToHost::Hello {
        protocol_version: NATIVE_PROTOCOL_VERSION,
        lane_id: LaneId("lane-relay".into()),
        extension_id: cotab_shared::EXTENSION_ID.into(),
        version: "0.0.2".into(),
    };
    frame(&serde_json::to_vec(&hello).expect("json"))
}

fn relay(runtime_dir: &Path) -> Child {
    Command::new(HOST)
        .arg(origin())
        .env("COTAB_RUNTIME_DIR", runtime_dir)
        .env("COTAB_LOG_DIR", runtime_dir.with_extension("logs"))
        .env("COTAB_IDLE_EXIT_SECS", "5")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn relay")
}

async fn stop_daemon(runtime_dir: &Path) {
    let pid_path = runtime_dir.join(PID_FILE);
    let pid: i32 = eventually(|| {
        let p = pid_path.clone();
        async move {
            tokio::fs::read_to_string(p)
                .await
                .map(|s| s.trim().parse::<i32>())
        }
    })
    .await
    .expect("pid");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGTERM,
    )
    .expect("kill");
    eventually(|| {
        let p = pid_path.clone();
        async move {
            if p.exists() {
                Err("pid file still there")
            } else {
                Ok(())
            }
        }
    })
    .await;
    assert!(
        !runtime_dir.join(AGENT_SOCKET).exists(),
        "sockets removed on SIGTERM"
    );
}

#[tokio::test]
async fn relay_with_a_wrong_origin_exits_without_reading_stdin() {
    let mut child = Command::new(HOST)
        .arg("chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn");
    // stdin stays open and empty: a relay that read it would hang.
    let status = tokio::time::timeout(WAIT, child.wait())
        .await
        .expect("exits at once")
        .expect("status");
    assert!(!status.success());
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut out)
        .await
        .expect("read");
    assert!(out.is_empty(), "nothing on stdout");
}

#[tokio::test]
async fn relay_starts_the_daemon_and_relays_welcome() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let rt = tmp.path().join("rt");
    let mut child = relay(&rt);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    stdin.write_all(&hello_frame()).await.expect("write hello");
    let welcome = tokio::time::timeout(WAIT, read_frame(&mut stdout))
        .await
        .expect("welcome in time");
    assert_eq!(
        serde_json::from_slice::<HostToExtension>(&welcome).expect("json"),
        HostToExtension::Welcome {
            protocol_version: NATIVE_PROTOCOL_VERSION
        }
    );
    let mut c = cotab_host::client::Client::connect(rt.join(AGENT_SOCKET))
        .await
        .expect("connect");
    c.hello("relay-test").await.expect("hello");
    let s = c
        .call::<cotab_shared::controller::Status>(&cotab_shared::controller::Empty {})
        .await
        .expect("status");
    assert_eq!(s.lane, cotab_shared::controller::LaneState::Online);
    assert_eq!(s.extension_version.as_deref(), Some("0.0.2"));
    drop(stdin);
    let status = tokio::time::timeout(WAIT, child.wait())
        .await
        .expect("relay exits")
        .expect("status");
    assert!(
        status.success(),
        "relay exits cleanly when the browser closes stdin"
    );
    stop_daemon(&rt).await;
}

#[tokio::test]
async fn relay_drops_an_oversize_frame_from_the_daemon() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let rt = tmp.path().join("rt");
    cotab_host::runtime::prepare_runtime_dir(&rt).expect("runtime dir");
    let listener = UnixListener::bind(rt.join(HOST_SOCKET)).expect("bind fake daemon");
    let mut child = relay(&rt);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let (mut sock, _) = tokio::time::timeout(WAIT, listener.accept())
        .await
        .expect("relay connects")
        .expect("accept");
    stdin.write_all(&hello_frame()).await.expect("write");
    let got = tokio::time::timeout(WAIT, read_frame(&mut sock))
        .await
        .expect("forwarded");
    assert!(matches!(
        serde_json::from_slice::<ExtensionToHost>(&got),
        Ok(ExtensionToHost::Hello { .. })
    ));
    let big = vec![b' '; cotab_shared::limits::MAX_HOST_TO_EXTENSION + 1];
    sock.write_all(&frame(&big)).await.expect("write big");
    sock.write_all(&frame(br#"{"type":"welcome","protocolVersion":1}"#))
        .await
        .expect("write small");
    let out = tokio::time::timeout(WAIT, read_frame(&mut stdout))
        .await
        .expect("small frame in time");
    assert_eq!(out, br#"{"type":"welcome","protocolVersion":1}"#);
    drop(sock);
    let status = tokio::time::timeout(WAIT, child.wait())
        .await
        .expect("relay exits")
        .expect("status");
    assert!(status.success(), "relay exits when the daemon side closes");
}

#[tokio::test]
async fn a_second_daemon_exits_zero_and_sigterm_cleans_up() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let rt = tmp.path().join("rt");
    let mut first = Command::new(HOST)
        .args(["daemon", "--foreground"])
        .env("COTAB_RUNTIME_DIR", &rt)
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn");
    let sock = rt.join(AGENT_SOCKET);
    eventually(|| tokio::net::UnixStream::connect(sock.clone())).await;
    let second = Command::new(HOST)
        .args(["daemon", "--foreground"])
        .env("COTAB_RUNTIME_DIR", &rt)
        .output();
    let second = tokio::time::timeout(WAIT, second)
        .await
        .expect("exits")
        .expect("output");
    assert!(second.status.success());
    assert!(String::from_utf8_lossy(&second.stderr).contains("already running"));
    stop_daemon(&rt).await;
    let status = tokio::time::timeout(WAIT, first.wait())
        .await
        .expect("exits")
        .expect("status");
    assert!(status.success());
}

#[tokio::test]
async fn daemon_refuses_an_open_runtime_dir() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().expect("tempdir");
    let rt = tmp.path().join("rt");
    std::fs::create_dir(&rt).expect("mkdir");
    std::fs::set_permissions(&rt, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let out = Command::new(HOST)
        .args(["daemon", "--foreground"])
        .env("COTAB_RUNTIME_DIR", &rt)
        .output();
    let out = tokio::time::timeout(WAIT, out)
        .await
        .expect("exits")
        .expect("output");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("must be 0700"));
}

/// Runs the CLI against the daemon of runtime directory `rt`.
pub(crate) async fn cli(rt: &Path, args: &[&str]) -> std::process::Output {
    let out = Command::new(CLI)
        .arg("--runtime-dir")
        .arg(rt)
        .args(args)
        .output();
    tokio::time::timeout(WAIT, out)
        .await
        .expect("cli exits")
        .expect("output")
}

#[tokio::test]
async fn cli_without_a_daemon_exits_3() {
    use std::os::unix::fs::PermissionsExt;
    // A private directory (tempdir's mode follows the umask) with no socket.
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let out = cli(tmp.path(), &["tabs"]).await;
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the cotab daemon is not running"));
}

/// A private runtime directory whose agent socket is a listener of the
/// test's: it takes the CLI's first connection and closes it unanswered,
/// as a daemon that crashes at that moment does (its socket file stays).
async fn a_daemon_that_dies_under_the_cli(args: &[&str]) -> (tempfile::TempDir, Child) {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let listener = UnixListener::bind(tmp.path().join(AGENT_SOCKET)).expect("bind");
    let cli = Command::new(CLI)
        .arg("--runtime-dir")
        .arg(tmp.path())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn cli");
    let (conn, _) = tokio::time::timeout(WAIT, listener.accept())
        .await
        .expect("the CLI connects")
        .expect("accept");
    drop(conn);
    drop(listener);
    (tmp, cli)
}

/// Issue 36: a command in the moment the daemon is restarted after a
/// crash waits for the new daemon instead of failing on the broken
/// connection.
#[tokio::test]
async fn a_command_while_the_daemon_restarts_waits_for_the_new_one() {
    let (tmp, cli) = a_daemon_that_dies_under_the_cli(&["--json", "status"]).await;
    let mut daemon = Command::new(HOST)
        .args(["daemon", "--foreground"])
        .env("COTAB_RUNTIME_DIR", tmp.path())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn daemon");
    let out = tokio::time::timeout(WAIT, cli.wait_with_output())
        .await
        .expect("the CLI ends")
        .expect("output");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["lane"], "absent", "{v}");
    stop_daemon(tmp.path()).await;
    let _ = daemon.wait().await;
}

/// Issue 36: a daemon that died and is not restarted is "not running"
/// (exit 3, with what to do) after a bounded wait, never a bare transport
/// error.
#[tokio::test]
async fn a_command_whose_daemon_died_for_good_says_it_is_not_running() {
    let started = std::time::Instant::now();
    let (_tmp, cli) = a_daemon_that_dies_under_the_cli(&["tabs"]).await;
    let out = tokio::time::timeout(WAIT, cli.wait_with_output())
        .await
        .expect("the CLI ends")
        .expect("output");
    let waited = started.elapsed();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nothing answers") && err.contains("cotab doctor"),
        "{err}"
    );
    assert!(!err.contains("connection"), "{err}");
    assert!(waited >= Duration::from_secs(5), "waited {waited:?}");
}

/// Issue 36: `cargo install` users get completions from the binary itself,
/// with no daemon and no runtime directory.
#[tokio::test]
async fn the_cli_prints_its_completions_for_each_shell() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let nowhere = tmp.path().join("absent");
    for (shell, says) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef cotab"),
        ("fish", "complete -c cotab"),
        ("elvish", "edit:completion:arg-completer[cotab]"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = cli(&nowhere, &["completions", shell]).await;
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(script.contains(says), "{shell}: {script}");
        for sub in ["navigate", "snapshot", "cdp-endpoint", "completions"] {
            assert!(script.contains(sub), "{shell} lacks {sub}");
        }
    }
    let out = cli(&nowhere, &["completions", "tcsh"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let out = cli(&nowhere, &["--json", "completions", "bash"]).await;
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON value");
    assert_eq!(v["error"]["kind"], "USAGE");
}

#[tokio::test]
async fn cli_keeps_its_session_between_invocations() {
    let d = Daemon::start().await;
    let mut ext = FakeExt::connect(
        &d.host_sock(),
        Script {
            tabs: vec![tab(7), tab(9)],
            ..Script::default()
        },
    )
    .await;
    let rt = d.runtime_dir();
    let out = cli(&rt, &["select", "9"]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = cli(&rt, &["tabs"]).await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().any(|l| l.starts_with("* 9  Tab 9")), "{text}");
    let out = cli(&rt, &["press", "Control+a"]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let down = ext.next_cdp("Input.dispatchKeyEvent").await;
    assert_eq!(down["modifiers"], 2);
    // `select` took control; a screenshot then a click uses its frame.
    let shot = d.dir.path().join("shot.png");
    let out = cli(
        &rt,
        &[
            "screenshot",
            "-o",
            shot.to_str().expect("utf-8"),
            "--format",
            "png",
        ],
    )
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = cli(&rt, &["click", "20", "10"]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let moved = ext.next_cdp("Input.dispatchMouseEvent").await;
    assert_eq!(
        (moved["x"].as_f64(), moved["y"].as_f64()),
        (Some(10.0), Some(5.0))
    );
    let out = cli(&rt, &["key-down", "a"]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = cli(&rt, &["key-up", "a"]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("released a"));
    let out = cli(&rt, &["eval", "1"]).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: DEVELOPER_MODE_OFF: "));
    let out = cli(&rt, &["release"]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = cli(&rt, &["select", "8"]).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: TAB_NOT_SHARED: "));
    let out = cli(&rt, &["--json", "status"]).await;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["lane"], "online");
}

#[tokio::test]
async fn an_idle_daemon_exits_by_itself() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let rt = tmp.path().join("rt");
    let mut child = Command::new(HOST)
        .args(["daemon", "--foreground"])
        .env("COTAB_RUNTIME_DIR", &rt)
        .env("COTAB_IDLE_EXIT_SECS", "1")
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn");
    let status = tokio::time::timeout(WAIT, child.wait())
        .await
        .expect("exits when idle")
        .expect("status");
    assert!(status.success());
    assert!(!rt.join(PID_FILE).exists(), "pid file removed");
    assert!(!rt.join(HOST_SOCKET).exists(), "socket removed");
}

/// Issue 5: the CLI talks only to a daemon in a directory that is ours
/// alone; a lookalike with open permissions is refused before connecting.
#[tokio::test]
async fn the_cli_refuses_a_runtime_dir_others_could_have_prepared() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let rt = dir.path().join("run");
    std::fs::create_dir(&rt).expect("mkdir");
    std::fs::set_permissions(&rt, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    // Something listens, as a planted daemon would.
    let _listener = UnixListener::bind(rt.join(AGENT_SOCKET)).expect("bind");
    let out = cli(&rt, &["status"]).await;
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("refusing to connect") && stderr.contains("0700"),
        "{stderr}"
    );

    // A symlinked directory is refused too.
    std::fs::set_permissions(&rt, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&rt, &link).expect("symlink");
    let out = cli(&link, &["status"]).await;
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("symlink"),
        "{out:?}"
    );
}

/// The holder of `tab` in a `controllers` message.
fn holder_of(c: &[TabControl], tab: i32) -> Option<&Holder> {
    c.iter().find(|t| t.tab_id == TabId(tab)).map(|t| &t.holder)
}

#[tokio::test]
async fn the_cli_keeps_control_between_invocations_and_a_release_until_it_takes_it_again() {
    let grace = Duration::from_millis(300);
    let d = Daemon::start_with(Duration::from_secs(5), grace).await;
    let mut ext = FakeExt::connect(
        &d.host_sock(),
        Script {
            tabs: vec![tab(9)],
            ..Script::default()
        },
    )
    .await;
    let rt = d.runtime_dir();
    let cli_holds = |c: &[TabControl]| holder_of(c, 9) == Some(&Holder::agent("cotab-cli"));
    let out = cli(&rt, &["select", "9"]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    ext.controllers_until(cli_holds).await;
    // A key held when the CLI exits is released at the end of the resume
    // grace: past that mark the CLI still holds the tab, and the person
    // sees the same controller all along.
    let out = cli(&rt, &["key-down", "b"]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let down = ext.next_cdp("Input.dispatchKeyEvent").await;
    assert_eq!(
        (down["type"].as_str(), down["key"].as_str()),
        (Some("keyDown"), Some("b"))
    );
    let up = ext.next_cdp("Input.dispatchKeyEvent").await;
    assert_eq!(
        (up["type"].as_str(), up["key"].as_str()),
        (Some("keyUp"), Some("b")),
        "the daemon's release at the grace"
    );
    let out = cli(&rt, &["press", "a"]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for _down_and_up in 0..2 {
        assert_eq!(ext.next_cdp("Input.dispatchKeyEvent").await["key"], "a");
    }
    // Whatever the daemon published before those events has arrived.
    while let Ok(c) = ext.controllers.try_recv() {
        assert!(cli_holds(&c), "control flipped between invocations: {c:?}");
    }

    // Released stays released: the next acting command does not take it.
    let out = cli(&rt, &["release"]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    ext.controllers_until(|c| holder_of(c, 9) == Some(&Holder::Nobody))
        .await;
    let out = cli(&rt, &["press", "b"]).await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: NO_CONTROL: control was given back with `cotab release`")
            && err.contains("`cotab acquire`")
            && err.contains("`--take`"),
        "{err}"
    );
    // `--take` takes it, and from then on commands take it by themselves.
    let out = cli(&rt, &["--take", "press", "c"]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    ext.controllers_until(cli_holds).await;
    let down = ext.next_cdp("Input.dispatchKeyEvent").await;
    assert_eq!(down["key"], "c", "nothing was sent for the refused `b`");
    let out = cli(&rt, &["release"]).await;
    assert!(out.status.success());
    let out = cli(&rt, &["acquire"]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = cli(&rt, &["press", "d"]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
