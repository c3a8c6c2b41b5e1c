//! What a script can trust of the `cotab` CLI: exit codes (0, 1 for an
//! error the daemon answered, 2 for a usage error, 3 for no daemon), one
//! JSON object on stdout for every outcome with `--json`, errors that name
//! `cotab` commands and say why, and screenshots in the format their file
//! names.

use crate::binaries::cli;
use crate::harness::{png_100x50, tab, Daemon, FakeExt, Script};
use cotab_host::runtime::CLI_TICKET_FILE;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The one JSON object on stdout, with nothing on stderr.
fn json_only(out: &std::process::Output) -> Value {
    assert!(out.stderr.is_empty(), "stderr: {}", stderr(out));
    // One value and nothing else: `from_slice` refuses trailing data.
    serde_json::from_slice(&out.stdout).expect("one JSON value on stdout")
}

/// A private runtime directory with no daemon.
fn no_daemon() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o700)).expect("chmod");
    tmp
}

async fn sharing() -> (Daemon, FakeExt) {
    let d = Daemon::start().await;
    let ext = FakeExt::connect(
        &d.host_sock(),
        Script {
            tabs: vec![tab(7), tab(9)],
            ..Script::default()
        },
    )
    .await;
    (d, ext)
}

#[tokio::test]
async fn usage_errors_exit_2_before_the_daemon_is_asked_with_or_without_json() {
    // No daemon runs: a usage error is found before it would be asked.
    let tmp = no_daemon();
    let rt = tmp.path();
    for args in [
        &["wait", "text"][..],
        &["wait", "time", "soon"],
        &["screenshot", "-o", "shot.gif"],
        &["screenshot", "-o", "shot.png", "--format", "jpeg"],
        &["click", "10", "x"],
        &["mcp", "--take"],
        &["no-such-command"],
        &["select"],
    ] {
        let out = cli(rt, args).await;
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).starts_with("error: "),
            "{args:?}: {}",
            stderr(&out)
        );
        let mut with_json = vec!["--json"];
        with_json.extend_from_slice(args);
        let out = cli(rt, &with_json).await;
        assert_eq!(out.status.code(), Some(2), "{with_json:?}");
        let v = json_only(&out);
        assert_eq!(v["error"]["kind"], "USAGE", "{v}");
        assert!(v["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
    }
    let out = cli(rt, &["--json", "screenshot", "-o", "-"]).await;
    assert_eq!(json_only(&out)["error"]["kind"], "USAGE");
    let out = cli(rt, &["--json", "tabs"]).await;
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(json_only(&out)["error"]["kind"], "DAEMON_NOT_RUNNING");
}

#[tokio::test]
async fn with_json_the_daemons_errors_are_one_object_on_stdout() {
    let (d, _ext) = sharing().await;
    let rt = d.runtime_dir();
    let out = cli(&rt, &["--json", "select", "8"]).await;
    assert_eq!(out.status.code(), Some(1));
    let v = json_only(&out);
    assert_eq!(v["error"]["kind"], "TAB_NOT_SHARED", "{v}");
    let out = cli(&rt, &["--json", "select", "9"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json_only(&out)["tabId"], 9);
}

#[tokio::test]
async fn errors_name_cotab_commands_and_tell_a_ref_never_issued_from_a_stale_one() {
    let (d, _ext) = sharing().await;
    let rt = d.runtime_dir();
    let out = cli(&rt, &["click", "e1"]).await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim(),
        "error: INVALID_REQUEST: no tab selected: run `cotab select TAB` first"
    );
    assert!(cli(&rt, &["select", "9"]).await.status.success());
    let out = cli(&rt, &["click", "e9999"]).await;
    assert_eq!(out.status.code(), Some(1));
    let said = stderr(&out);
    assert!(
        said.starts_with("error: STALE_REF: e9999 was never issued")
            && said.contains("`cotab snapshot`"),
        "{said}"
    );
    assert!(!said.contains("page.snapshot"), "{said}");
}

#[tokio::test]
async fn a_lost_session_says_why_nothing_is_selected() {
    let (d, _ext) = sharing().await;
    let rt = d.runtime_dir();
    assert!(cli(&rt, &["select", "9"]).await.status.success());
    // The daemon no longer knows the kept ticket (as after its restart).
    std::fs::write(rt.join(CLI_TICKET_FILE), "forgotten").expect("ticket");
    let out = cli(&rt, &["press", "a"]).await;
    assert_eq!(out.status.code(), Some(1));
    let said = stderr(&out);
    assert!(
        said.contains("the CLI's session ended (the daemon restarted")
            && said.contains("run `cotab select TAB`"),
        "{said}"
    );
    // From then on the new session is the kept one: plain wording again.
    let out = cli(&rt, &["press", "a"]).await;
    assert_eq!(
        stderr(&out).trim(),
        "error: INVALID_REQUEST: no tab selected: run `cotab select TAB` first"
    );
}

#[tokio::test]
async fn a_screenshot_takes_the_format_its_file_names_and_dash_is_stdout() {
    let (d, mut ext) = sharing().await;
    let rt = d.runtime_dir();
    assert!(cli(&rt, &["select", "9"]).await.status.success());
    for (name, format) in [
        ("shot.png", "png"),
        ("shot.JPG", "jpeg"),
        ("shot.jpeg", "jpeg"),
    ] {
        let path = d.dir.path().join(name);
        let out = cli(&rt, &["screenshot", "-o", path.to_str().expect("utf-8")]).await;
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let sent = ext.next_cdp("Page.captureScreenshot").await;
        assert_eq!(sent["format"], format, "{name}");
        assert!(path.is_file(), "{name}");
    }
    let path = d.dir.path().join("shot.bin");
    let out = cli(
        &rt,
        &[
            "screenshot",
            "-o",
            path.to_str().expect("utf-8"),
            "--format",
            "png",
        ],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        ext.next_cdp("Page.captureScreenshot").await["format"],
        "png"
    );
    // `-o -`: the image itself, and nothing else, on stdout.
    let out = cli(&rt, &["screenshot", "-o", "-", "--format", "png"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout, png_100x50());
    assert!(!d.dir.path().join("-").exists() && !Path::new("-").exists());
}
