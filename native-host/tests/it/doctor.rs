//! `cotab doctor`: each check of a working cotab, with the command that
//! fixes what fails — under a temporary HOME, so the host manifests it
//! reads and writes are the test's own.

use crate::harness::{tab, Daemon, FakeExt, Script, WAIT};
use serde_json::Value;
use std::path::Path;
use tokio::process::Command;

const CLI: &str = env!("CARGO_BIN_EXE_cotab");
const HOST: &str = env!("CARGO_BIN_EXE_cotab-host");

/// `cotab --json doctor` with `home` as HOME and the CLI's folder on PATH.
async fn doctor(rt: &Path, home: &Path) -> (Option<i32>, Value) {
    let bin = Path::new(CLI).parent().expect("a folder");
    let out = Command::new(CLI)
        .args(["--json", "--runtime-dir"])
        .arg(rt)
        .arg("doctor")
        .env("HOME", home)
        .env("PATH", bin)
        .env_remove("XDG_STATE_HOME")
        .env_remove("COTAB_LOG_DIR")
        .output();
    let out = tokio::time::timeout(WAIT, out)
        .await
        .expect("doctor exits")
        .expect("output");
    let v = serde_json::from_slice(&out.stdout).expect("one JSON value");
    (out.status.code(), v)
}

fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == name))
        .unwrap_or_else(|| panic!("no {name} check in {report}"))
}

#[tokio::test]
async fn the_doctor_names_the_fix_of_each_failure_and_passes_once_they_are_fixed() {
    let home = tempfile::tempdir().expect("home");
    // Chromium is installed for this user: its profile folder is there.
    std::fs::create_dir_all(home.path().join(".config/chromium")).expect("profile");
    std::fs::write(home.path().join(".config/chromium/Local State"), "{}").expect("it ran");
    let d = Daemon::start().await;
    let rt = d.runtime_dir();

    // No browser yet, no manifest.
    let (code, report) = doctor(&rt, home.path()).await;
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(report["ok"], false);
    assert_eq!(check(&report, "PATH")["ok"], true, "{report}");
    let manifest = check(&report, "chromium host manifest");
    assert_eq!(manifest["ok"], false, "{report}");
    assert_eq!(manifest["fix"], "cotab-host install --browser chromium");
    assert!(
        report["checks"]
            .as_array()
            .is_some_and(|c| c.iter().all(|c| c["name"] != "chrome host manifest")),
        "Chrome is not installed for this user: {report}"
    );
    let daemon = check(&report, "daemon");
    assert_eq!(daemon["ok"], true, "{report}");
    assert!(
        daemon["detail"]
            .as_str()
            .is_some_and(|d| d.contains(", up ") && d.ends_with('s')),
        "{daemon}"
    );
    // The logs go to the user's state directory, made private.
    let logs = home.path().join(".local/state/cotab");
    assert!(
        check(&report, "logs")["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with(&logs.display().to_string())),
        "{report}"
    );
    let lane = check(&report, "browser lane");
    assert_eq!(lane["ok"], false, "{report}");
    assert!(
        lane["fix"]
            .as_str()
            .is_some_and(|f| f.contains("Load unpacked")),
        "{lane}"
    );

    // The fixes: the manifest installed, the extension connected.
    let installed = Command::new(HOST)
        .args(["install", "--browser", "chromium"])
        .env("HOME", home.path())
        .status()
        .await
        .expect("install");
    assert!(installed.success());
    let _ext = FakeExt::connect_as(
        &d.host_sock(),
        Script {
            tabs: vec![tab(7)],
            ..Script::default()
        },
        "doctor",
        cotab_host::VERSION,
    )
    .await;
    let (code, report) = doctor(&rt, home.path()).await;
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(
        check(&report, "browser lane")["detail"],
        format!(
            // The fake extension stays on native messaging.
            "online over native messaging, extension {} (id {})",
            cotab_host::VERSION,
            cotab_shared::EXTENSION_ID
        ),
        "{report}"
    );
    for name in [
        "cotab",
        "cotab-host",
        "PATH",
        "chromium host manifest",
        "runtime directory",
        "logs",
        "daemon",
        "browser lane",
        "versions",
    ] {
        let c = check(&report, name);
        assert_eq!(c["ok"], true, "{c}");
        assert!(c.get("fix").is_none(), "{c}");
    }

    // A manifest for another extension is caught.
    let file = home
        .path()
        .join(".config/chromium/NativeMessagingHosts/dev.cotab.host.json");
    let text = std::fs::read_to_string(&file).expect("manifest");
    std::fs::write(
        &file,
        text.replace(
            cotab_shared::EXTENSION_ID,
            "aaaabbbbccccddddeeeeffffgggghhhh",
        ),
    )
    .expect("tampered");
    let (code, report) = doctor(&rt, home.path()).await;
    assert_eq!(code, Some(1));
    let manifest = check(&report, "chromium host manifest");
    assert!(
        manifest["detail"]
            .as_str()
            .is_some_and(|d| d.contains("allowed_origins")),
        "{manifest}"
    );
}

#[tokio::test]
async fn cotab_logs_prints_the_last_lines_and_follows_across_a_rotation() {
    use tokio::io::AsyncBufReadExt as _;
    let dir = tempfile::tempdir().expect("dir");
    let logs = dir.path().join("logs");
    cotab_host::logs::prepare_log_dir(&logs).expect("log dir");
    std::fs::write(logs.join("daemon.log.1"), "one\ntwo\n").expect("older");
    std::fs::write(logs.join("daemon.log"), "three\nfour\n").expect("current");
    std::fs::write(logs.join("relay.log"), "relay line\n").expect("relay");
    let logs_of = |args: &[&str]| {
        let mut cmd = Command::new(CLI);
        cmd.arg("logs")
            .args(args)
            .env("COTAB_LOG_DIR", &logs)
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true);
        cmd
    };
    let out = logs_of(&["-n", "3"]).output().await.expect("logs");
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "two\nthree\nfour\n");
    let out = logs_of(&["--relay"]).output().await.expect("logs");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "relay line\n");

    let mut follow = logs_of(&["-f", "-n", "1"]).spawn().expect("follow");
    let mut lines = tokio::io::BufReader::new(follow.stdout.take().expect("stdout")).lines();
    macro_rules! next {
        () => {
            tokio::time::timeout(WAIT, lines.next_line())
                .await
                .expect("in time")
                .expect("read")
        };
    }
    assert_eq!(next!(), Some("four".into()));
    let append = |text: &str| {
        use std::io::Write as _;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(logs.join("daemon.log"))
            .expect("open");
        f.write_all(text.as_bytes()).expect("append");
    };
    append("five\n");
    assert_eq!(next!(), Some("five".into()));
    // Rotated: the new file is read from its start.
    std::fs::rename(logs.join("daemon.log"), logs.join("daemon.log.1")).expect("rotate");
    std::fs::write(logs.join("daemon.log"), "six\n").expect("new");
    assert_eq!(next!(), Some("six".into()));
    follow.kill().await.expect("stop");
}
