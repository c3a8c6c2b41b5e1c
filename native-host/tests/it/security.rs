//! Local attacks (issue 5): another user on the agent and host sockets, a
//! runtime directory or socket path prepared by someone else, a relay
//! started for another origin, and the host manifest's origins (secrets in
//! developer-mode results and in the daemon's log are [`crate::secrets`]'s).
//! `docs/security.md` maps each protection to its test here.
//!
//! The tests that act as another user run a process as `nobody`
//! (`setpriv`), so they need root; run as anyone else they say so on
//! stderr and pass without checking (the protections do not depend on
//! root, only the test's ability to become someone else does).

use crate::harness::{eventually, WAIT};
use cotab_host::runtime::{AGENT_SOCKET, HOST_SOCKET, LOCK_FILE, PID_FILE};
use cotab_shared::native::ExtensionToHost;
use cotab_shared::{LaneId, NATIVE_PROTOCOL_VERSION};
use serde_json::{json, Value};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};

const HOST: &str = env!("CARGO_BIN_EXE_cotab-host");
const CLI: &str = env!("CARGO_BIN_EXE_cotab");

/// `nobody`'s uid and gid.
const NOBODY: u32 = 65534;

fn is_root() -> bool {
    if nix::unistd::geteuid().is_root() {
        return true;
    }
    eprintln!("not root: cannot act as another user; this test checks nothing");
    false
}

fn chown_nobody(path: &Path) {
    nix::unistd::chown(
        path,
        Some(nix::unistd::Uid::from_raw(NOBODY)),
        Some(nix::unistd::Gid::from_raw(NOBODY)),
    )
    .expect("chown");
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// `setpriv` arguments that drop to `nobody` with no supplementary groups.
const AS_NOBODY: [&str; 3] = ["--reuid=65534", "--regid=65534", "--clear-groups"];

fn frame(payload: &[u8]) -> Vec<u8> {
    let mut f = (payload.len() as u32).to_ne_bytes().to_vec();
    f.extend_from_slice(payload);
    f
}

fn hello_frame() -> Vec<u8> {
    let hello = ExtensionToHost::Hello {
        protocol_version: NATIVE_PROTOCOL_VERSION,
        lane_id: LaneId("lane-security".into()),
        extension_id: cotab_shared::EXTENSION_ID.into(),
        version: "0.0.3".into(),
    };
    frame(&serde_json::to_vec(&hello).expect("json"))
}

/// A temporary directory whose top level anyone may traverse, so the only
/// barrier in a test is the runtime directory inside it.
fn open_tempdir() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    chmod(tmp.path(), 0o755);
    tmp
}

/// Starts the daemon binary with stderr to `log`; `prefix` runs before it
/// (e.g. `setpriv` as nobody) and `umask` is set first.
pub(crate) fn spawn_daemon(rt: &Path, log: &Path, prefix: &[&str], umask: &str) -> Child {
    spawn_daemon_logging(rt, log, prefix, umask, "trace")
}

/// [`spawn_daemon`] with `COTAB_LOG` set to `level`.
pub(crate) fn spawn_daemon_logging(
    rt: &Path,
    log: &Path,
    prefix: &[&str],
    umask: &str,
    level: &str,
) -> Child {
    let log = std::fs::File::create(log).expect("log file");
    // A shell only to set the umask; `exec` leaves the daemon as the child.
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("umask {umask} && exec \"$@\""))
        .arg("sh")
        .args(prefix)
        .args([HOST, "daemon", "--foreground"])
        .env("COTAB_RUNTIME_DIR", rt)
        .env("COTAB_LOG", level)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(log))
        .kill_on_drop(true);
    cmd.spawn().expect("spawn daemon")
}

pub(crate) async fn wait_listening(path: &Path) {
    eventually(|| {
        let p = path.to_path_buf();
        async move { std::fs::symlink_metadata(p).map(|_| ()) }
    })
    .await;
}

pub(crate) async fn stop(mut child: Child) {
    if let Some(pid) = child.id() {
        // Already gone is fine: the test only wants it stopped.
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid as i32),
            nix::sys::signal::Signal::SIGTERM,
        );
    }
    tokio::time::timeout(WAIT, child.wait())
        .await
        .expect("daemon stops")
        .expect("status");
}

/// `cotab status` as nobody: its exit code and stderr.
async fn cli_as_nobody(rt: &Path) -> (Option<i32>, String) {
    run_as_nobody(
        Command::new("setpriv")
            .args(AS_NOBODY)
            .args([CLI, "--runtime-dir"])
            .arg(rt)
            .arg("status"),
    )
    .await
}

/// A raw client as nobody, below the CLI's own directory check: exit 3 if
/// the kernel refuses the connection, 4 if the daemon hangs up without
/// answering `session.hello`, 0 if it answers.
async fn raw_client_as_nobody(sock: &Path) -> (Option<i32>, String) {
    const CLIENT: &str = r#"
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print(e, file=sys.stderr); sys.exit(3)
try:
    # The daemon may hang up before the line is even written.
    s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"session.hello","params":{"protocolVersion":1,"agent":"x"}}\n')
    data = s.recv(4096)
except OSError as e:
    print(e, file=sys.stderr); sys.exit(4)
sys.exit(0 if data else 4)
"#;
    run_as_nobody(
        Command::new("setpriv")
            .args(AS_NOBODY)
            .args(["/usr/bin/python3", "-c", CLIENT])
            .arg(sock),
    )
    .await
}

async fn run_as_nobody(cmd: &mut Command) -> (Option<i32>, String) {
    let out = cmd.env_remove("COTAB_RUNTIME_DIR").output();
    let out = tokio::time::timeout(WAIT, out)
        .await
        .expect("client exits")
        .expect("run setpriv");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Another user cannot reach the agent socket: each layer alone stops
/// them. The daemon runs as root with umask 000 inherited (so nothing but
/// the daemon's own care makes its files private); a raw client runs as
/// nobody. Exit 3 means the kernel refused the connection; exit 4 means
/// it connected and the daemon hung up. The `cotab` CLI, as nobody, does
/// not even try: the directory is not its user's.
#[tokio::test]
async fn another_uid_is_refused_by_each_layer() {
    if !is_root() {
        return;
    }
    let tmp = open_tempdir();
    let rt = tmp.path().join("rt");
    let log = tmp.path().join("daemon.log");
    let daemon = spawn_daemon(&rt, &log, &[], "000");
    let agent_sock = rt.join(AGENT_SOCKET);
    wait_listening(&agent_sock).await;
    eventually(|| tokio::net::UnixStream::connect(agent_sock.clone())).await;
    let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode(&rt), 0o700, "runtime dir private despite umask 000");
    assert_eq!(
        mode(&agent_sock),
        0o600,
        "agent.sock private despite umask 000"
    );
    assert_eq!(mode(&rt.join(HOST_SOCKET)), 0o600, "host.sock too");

    // Both layers, then the socket's mode alone, then the directory alone.
    for (dir_mode, sock_mode, layer) in [
        (0o700, 0o600, "both"),
        (0o711, 0o600, "socket mode"),
        (0o700, 0o666, "directory mode"),
    ] {
        chmod(&rt, dir_mode);
        chmod(&agent_sock, sock_mode);
        let (code, stderr) = raw_client_as_nobody(&agent_sock).await;
        assert_eq!(
            code,
            Some(3),
            "{layer}: the connection is refused: {stderr}"
        );
    }

    // Neither file layer: nobody connects, and SO_PEERCRED refuses them.
    chmod(&rt, 0o711);
    chmod(&agent_sock, 0o666);
    let (code, stderr) = raw_client_as_nobody(&agent_sock).await;
    assert_eq!(code, Some(4), "connected, then hung up on: {stderr}");
    // The CLI refuses a directory that is not its user's before connecting.
    let (code, stderr) = cli_as_nobody(&rt).await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("refusing to connect"), "{stderr}");
    chmod(&rt, 0o700);
    stop(daemon).await;
    let log = std::fs::read_to_string(&log).expect("log");
    assert!(
        log.contains("refused an agent connection from another user"),
        "{log}"
    );
}

/// The daemon itself checks the peer's uid: a daemon running as nobody
/// hangs up on root, whose uid differs, on both sockets, although root's
/// connection gets past every file permission.
#[tokio::test]
async fn a_daemon_refuses_a_peer_of_another_uid() {
    if !is_root() {
        return;
    }
    let tmp = open_tempdir();
    let rt = tmp.path().join("rt");
    std::fs::create_dir(&rt).expect("mkdir");
    chmod(&rt, 0o700);
    chown_nobody(&rt);
    let log = tmp.path().join("daemon.log");
    let mut prefix = vec!["setpriv"];
    prefix.extend(AS_NOBODY);
    let daemon = spawn_daemon(&rt, &log, &prefix, "077");
    let agent_sock = rt.join(AGENT_SOCKET);
    let host_sock = rt.join(HOST_SOCKET);
    wait_listening(&agent_sock).await;
    assert_eq!(
        std::fs::metadata(&agent_sock).expect("meta").uid(),
        NOBODY,
        "the daemon runs as nobody"
    );

    let mut agent = eventually(|| tokio::net::UnixStream::connect(agent_sock.clone())).await;
    // A refused peer may see the hang-up as an error on write or as EOF.
    let _ = agent
        .write_all(
            br#"{"jsonrpc":"2.0","id":1,"method":"session.hello","params":{"protocolVersion":1,"agent":"root"}}
"#,
        )
        .await;
    let mut buf = Vec::new();
    let read = tokio::time::timeout(WAIT, agent.read_to_end(&mut buf))
        .await
        .expect("hung up in time");
    assert!(
        buf.is_empty(),
        "no answer to another uid: {read:?} {}",
        String::from_utf8_lossy(&buf)
    );

    let mut browser = tokio::net::UnixStream::connect(&host_sock)
        .await
        .expect("root gets past the file permissions");
    let _ = browser.write_all(&hello_frame()).await;
    let mut buf = Vec::new();
    let read = tokio::time::timeout(WAIT, browser.read_to_end(&mut buf))
        .await
        .expect("hung up in time");
    assert!(buf.is_empty(), "no welcome to another uid: {read:?}");

    stop(daemon).await;
    let log = std::fs::read_to_string(&log).expect("log");
    assert!(
        log.contains("refused an agent connection from another user"),
        "{log}"
    );
    assert!(
        log.contains("refused a browser connection from another user"),
        "{log}"
    );
}

/// What a test plants in the runtime directory before the daemon starts.
enum Plant {
    /// The runtime directory is a symlink to a private directory.
    DirSymlink,
    /// The runtime directory belongs to nobody.
    DirOwnedByNobody,
    /// The runtime directory has this mode.
    DirMode(u32),
    /// A regular file at this name.
    File(&'static str),
    /// A symlink at this name to a file outside.
    Symlink(&'static str),
    /// A listening socket owned by nobody at this name.
    ForeignSocket(&'static str),
}

/// A runtime directory or socket path prepared by someone else: the daemon
/// exits non-zero, says why, and leaves what it found where it was.
#[tokio::test]
async fn the_daemon_refuses_paths_prepared_by_someone_else() {
    let root = is_root();
    let cases = [
        (Plant::DirSymlink, "is a symlink"),
        (Plant::DirOwnedByNobody, "is owned by uid 65534"),
        (Plant::DirMode(0o750), "has mode 750; it must be 0700"),
        (Plant::DirMode(0o701), "has mode 701; it must be 0700"),
        (Plant::File(AGENT_SOCKET), "agent.sock is a regular file"),
        (Plant::File(HOST_SOCKET), "host.sock is a regular file"),
        (Plant::Symlink(AGENT_SOCKET), "agent.sock is a symlink"),
        (Plant::Symlink(HOST_SOCKET), "host.sock is a symlink"),
        (
            Plant::ForeignSocket(AGENT_SOCKET),
            "agent.sock is a socket owned by uid 65534",
        ),
        (
            Plant::ForeignSocket(HOST_SOCKET),
            "host.sock is a socket owned by uid 65534",
        ),
        (Plant::Symlink(LOCK_FILE), "daemon.lock"),
    ];
    for (plant, why) in cases {
        let needs_root = matches!(plant, Plant::DirOwnedByNobody | Plant::ForeignSocket(_));
        if needs_root && !root {
            continue;
        }
        let tmp = tempfile::tempdir().expect("tempdir");
        let rt = tmp.path().join("rt");
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::write(&elsewhere, b"someone's file").expect("write");
        let mut planted: Option<PathBuf> = None;
        // Kept alive so a planted socket is a live one.
        let mut _listener = None;
        if let Plant::DirSymlink = plant {
            let real = tmp.path().join("real");
            std::fs::create_dir(&real).expect("mkdir");
            chmod(&real, 0o700);
            std::os::unix::fs::symlink(&real, &rt).expect("symlink");
        } else {
            std::fs::create_dir(&rt).expect("mkdir");
            chmod(&rt, 0o700);
        }
        match plant {
            Plant::DirSymlink => {}
            Plant::DirOwnedByNobody => chown_nobody(&rt),
            Plant::DirMode(mode) => chmod(&rt, mode),
            Plant::File(name) => {
                let p = rt.join(name);
                std::fs::write(&p, b"planted").expect("write");
                planted = Some(p);
            }
            Plant::Symlink(name) => {
                let p = rt.join(name);
                std::os::unix::fs::symlink(&elsewhere, &p).expect("symlink");
                planted = Some(p);
            }
            Plant::ForeignSocket(name) => {
                let p = rt.join(name);
                _listener = Some(std::os::unix::net::UnixListener::bind(&p).expect("bind"));
                chown_nobody(&p);
                planted = Some(p);
            }
        }
        let before = planted
            .as_ref()
            .map(|p| std::fs::symlink_metadata(p).expect("planted").ino());
        let out = Command::new(HOST)
            .args(["daemon", "--foreground"])
            .env("COTAB_RUNTIME_DIR", &rt)
            .output();
        let out = tokio::time::timeout(WAIT, out)
            .await
            .expect("exits at once")
            .expect("output");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{why}: must fail: {stderr}");
        assert!(stderr.contains(why), "expected {why:?} in: {stderr}");
        if let Some(p) = &planted {
            let after = std::fs::symlink_metadata(p).map(|m| m.ino()).ok();
            assert_eq!(after, before, "{why}: the planted path is left alone");
        }
        assert_eq!(
            std::fs::read(&elsewhere).expect("read"),
            b"someone's file",
            "{why}: a link's target is untouched"
        );
        if !matches!(
            plant,
            Plant::DirSymlink | Plant::DirOwnedByNobody | Plant::DirMode(_)
        ) {
            for name in [AGENT_SOCKET, HOST_SOCKET, PID_FILE] {
                let p = rt.join(name);
                if Some(&p) != planted.as_ref() {
                    assert!(!p.exists(), "{why}: {name} not left behind");
                }
            }
        }
    }
}

/// A relay does not talk to a daemon in a runtime directory someone else
/// owns (`/tmp/cotab-<uid>` is a name anyone can take first): it checks
/// the directory before connecting.
#[tokio::test]
async fn the_relay_refuses_a_runtime_dir_of_another_user() {
    if !is_root() {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let rt = tmp.path().join("rt");
    std::fs::create_dir(&rt).expect("mkdir");
    chmod(&rt, 0o700);
    let listener = std::os::unix::net::UnixListener::bind(rt.join(HOST_SOCKET)).expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    chown_nobody(&rt);
    let mut child = Command::new(HOST)
        .arg(cotab_shared::extension_origin(cotab_shared::EXTENSION_ID))
        .env("COTAB_RUNTIME_DIR", &rt)
        .env("COTAB_LOG_DIR", tmp.path().join("logs"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn relay");
    let mut stdin = child.stdin.take().expect("stdin");
    // The relay may already have exited and closed its stdin.
    let _ = stdin.write_all(&hello_frame()).await;
    let out = tokio::time::timeout(WAIT, child.wait_with_output())
        .await
        .expect("exits")
        .expect("output");
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is owned by uid 65534"), "{stderr}");
    assert_eq!(
        listener.accept().map(|_| ()).map_err(|e| e.kind()),
        Err(std::io::ErrorKind::WouldBlock),
        "the relay never connected to the foreign socket"
    );
}

/// Runs the relay with `args` and a stdin pipe holding a whole frame, the
/// write end kept open; returns its exit status and what is left unread.
async fn relay_with_pending_frame(args: &[String]) -> (std::process::ExitStatus, Vec<u8>) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (read_end, write_end): (OwnedFd, OwnedFd) = nix::unistd::pipe().expect("pipe");
    let hello = hello_frame();
    nix::unistd::write(write_end.as_fd(), &hello).expect("write frame");
    let child_stdin = read_end.try_clone().expect("dup");
    let mut child = Command::new(HOST)
        .args(args)
        // Should the check ever be skipped, the relay and any daemon it
        // starts stay in the test's directory and exit soon.
        .env("COTAB_RUNTIME_DIR", tmp.path().join("rt"))
        .env("COTAB_IDLE_EXIT_SECS", "1")
        .stdin(Stdio::from(child_stdin))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn");
    let status = tokio::time::timeout(WAIT, child.wait())
        .await
        .expect("exits at once, stdin still open")
        .expect("status");
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut out)
        .await
        .expect("read stdout");
    assert!(out.is_empty(), "nothing on stdout");
    // Our copy of the read end sees what the relay left in the pipe.
    nix::fcntl::fcntl(
        std::os::fd::AsRawFd::as_raw_fd(&read_end),
        nix::fcntl::FcntlArg::F_SETFL(nix::fcntl::OFlag::O_NONBLOCK),
    )
    .expect("nonblocking");
    let mut left = vec![0u8; hello.len() + 16];
    let n = match nix::unistd::read(std::os::fd::AsRawFd::as_raw_fd(&read_end), &mut left) {
        Ok(n) => n,
        Err(nix::errno::Errno::EAGAIN) => 0,
        Err(e) => panic!("read: {e}"),
    };
    left.truncate(n);
    drop(write_end);
    (status, left)
}

/// A relay started for any caller but cotab's exact origin exits non-zero
/// and reads nothing: the frame waiting on its stdin is still there, whole,
/// after it exited.
#[tokio::test]
async fn a_relay_for_another_origin_exits_leaving_stdin_unread() {
    let id = cotab_shared::EXTENSION_ID;
    let cases: [(&str, Vec<String>); 5] = [
        ("no argument", vec![]),
        (
            "another extension",
            vec!["chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/".into()],
        ),
        (
            "no trailing slash",
            vec![format!("chrome-extension://{id}")],
        ),
        (
            "a path",
            vec![format!("chrome-extension://{id}/popup.html")],
        ),
        ("a web origin", vec!["https://example.com/".into()]),
    ];
    for (what, args) in cases {
        let (status, left) = relay_with_pending_frame(&args).await;
        assert!(!status.success(), "{what}: exits non-zero");
        assert_eq!(left, hello_frame(), "{what}: the frame is left unread");
    }
}

/// `cotab-host install` writes exactly one exact origin, the one the relay
/// accepts, for every browser it knows, into a profile or the per-user
/// folder; no pattern appears anywhere in the file.
#[tokio::test]
async fn install_writes_one_exact_origin_for_every_browser() {
    use clap::ValueEnum as _;
    let origin = cotab_shared::extension_origin(cotab_shared::EXTENSION_ID);
    for browser in cotab_host::install::Browser::value_variants() {
        let name = browser
            .to_possible_value()
            .expect("a named variant")
            .get_name()
            .to_owned();
        for profile in [true, false] {
            let tmp = tempfile::tempdir().expect("tempdir");
            let mut cmd = Command::new(HOST);
            cmd.args(["install", "--browser", &name])
                .env("HOME", tmp.path().join("home"));
            if profile {
                cmd.arg("--user-data-dir").arg(tmp.path().join("profile"));
            }
            let out = tokio::time::timeout(WAIT, cmd.output())
                .await
                .expect("exits")
                .expect("output");
            assert!(out.status.success(), "{name}: {out:?}");
            // `NAME: installed FILE → EXE`.
            let line = String::from_utf8_lossy(&out.stdout).into_owned();
            let file = line
                .split_once(": installed ")
                .and_then(|(_, rest)| rest.split_once(" → "))
                .map(|(file, _)| file.to_owned())
                .unwrap_or_else(|| panic!("{name}: {line}"));
            let path = PathBuf::from(file);
            assert!(path.starts_with(tmp.path()), "{name}: {}", path.display());
            let text = std::fs::read_to_string(&path).expect("manifest");
            assert!(!text.contains('*'), "{name}: no wildcard: {text}");
            let v: Value = serde_json::from_str(&text).expect("json");
            assert_eq!(v["allowed_origins"], json!([origin]), "{name}");
            assert!(cotab_host::relay::origin_allowed(&origin));
            assert_eq!(v["name"], cotab_shared::NATIVE_HOST_NAME);
        }
    }
}
