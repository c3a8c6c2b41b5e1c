//! The `cotab` CLI against the real daemon: each command, `--json`,
//! session continuity across invocations, and its exit codes.

use crate::shared_fixture;
use cotab_e2e::binary;
use cotab_e2e::fixture::FIELD_CENTRE;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn cotab(runtime: &Path, args: &[&str]) -> anyhow::Result<Output> {
    Ok(Command::new(binary("cotab")?)
        .arg("--runtime-dir")
        .arg(runtime)
        .args(args)
        .output()?)
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "status {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_drives_a_shared_tab() -> anyhow::Result<()> {
    let (browser, page, tab) = shared_fixture().await?;
    let run = browser.runtime_dir.clone();

    let status: Value = serde_json::from_str(&ok(&cotab(&run, &["--json", "status"])?))?;
    assert_eq!(status["lane"], "online", "{status}");

    let tabs = ok(&cotab(&run, &["tabs"])?);
    assert!(
        tabs.contains(&tab.to_string()) && tabs.contains("Fixture"),
        "{tabs}"
    );
    let tabs: Value = serde_json::from_str(&ok(&cotab(&run, &["--json", "tabs"])?))?;
    assert_eq!(tabs["tabs"][0]["id"], tab.0, "{tabs}");

    // The selection made by one invocation holds for the next ones.
    ok(&cotab(&run, &["select", &tab.to_string()])?);
    let tabs: Value = serde_json::from_str(&ok(&cotab(&run, &["--json", "tabs"])?))?;
    assert_eq!(tabs["tabs"][0]["selected"], true, "{tabs}");

    let dir = tempfile::tempdir()?;
    let shot = dir.path().join("shot.jpg");
    ok(&cotab(
        &run,
        &["screenshot", "-o", shot.to_str().unwrap_or_default()],
    )?);
    let bytes = std::fs::read(&shot)?;
    assert_eq!(&bytes[..3], &[0xFF, 0xD8, 0xFF], "not a JPEG");

    let (x, y) = (FIELD_CENTRE.0.to_string(), FIELD_CENTRE.1.to_string());
    ok(&cotab(&run, &["click", &x, &y])?);
    ok(&cotab(&run, &["type", "from the cli"])?);
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('name').value")
            .await?,
        "from the cli"
    );
    ok(&cotab(&run, &["press", "Enter"])?);
    cotab_e2e::wait_for(
        "the CLI's form submission",
        std::time::Duration::from_secs(15),
        || async {
            Ok((browser.eval(&page, "document.title").await? == "Submitted").then_some(()))
        },
    )
    .await?;

    let second = browser.fixture.url("/second");
    let nav = ok(&cotab(&run, &["navigate", &second])?);
    assert!(nav.contains("Second page"), "{nav}");

    // Errors: a typed message on stderr and exit code 1.
    let out = cotab(&run, &["select", "987654"])?;
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("TAB_NOT_SHARED"));
    let out = cotab(&run, &["press", "NoSuchKey"])?;
    assert_eq!(out.status.code(), Some(1));

    // No daemon: exit code 3 and a message that says what to do.
    let empty = tempfile::tempdir()?;
    let out = cotab(empty.path(), &["status"])?;
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("not running"));
    Ok(())
}
