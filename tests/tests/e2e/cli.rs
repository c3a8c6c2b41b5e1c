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

    // No daemon in a private directory: exit code 3 and a message that says
    // what to do.
    let empty = tempfile::tempdir()?;
    std::fs::set_permissions(
        empty.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )?;
    let out = cotab(empty.path(), &["status"])?;
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("not running"));
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_snapshot_click_by_ref_downscaled_screenshot_and_wait_progress() -> anyhow::Result<()> {
    let browser = cotab_e2e::browser::Browser::launch(Default::default()).await?;
    let url = browser.fixture.url("/signup");
    let page = browser.open_tab(&url).await?;
    let tab = browser.share(&page, &url).await?;
    let run = browser.runtime_dir.clone();
    ok(&cotab(&run, &["select", &tab.to_string()])?);

    // `cotab snapshot` prints the outline; `cotab click eN` clicks a ref.
    let outline = ok(&cotab(&run, &["snapshot"])?);
    let line = outline
        .lines()
        .find(|l| l.contains("checkbox \"I accept the terms\""))
        .ok_or_else(|| anyhow::anyhow!("no checkbox in:\n{outline}"))?;
    let start = line
        .find("[ref=")
        .ok_or_else(|| anyhow::anyhow!("no ref: {line}"))?
        + 5;
    let r = &line[start..start + line[start..].find(']').unwrap_or(0)];
    ok(&cotab(&run, &["click", r])?);
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('terms').checked")
            .await?,
        true
    );
    // `cotab snapshot --changes` prints only what the click changed, the
    // checkbox with its ref, from one command to the next (the CLI's
    // session is resumed); then that nothing did.
    let changed = ok(&cotab(&run, &["snapshot", "--changes"])?);
    assert!(
        changed.lines().any(|l| l.starts_with('+')
            && l.contains("[checked]")
            && l.contains(&format!("[ref={r}]"))),
        "{changed}"
    );
    assert!(changed.len() < outline.len(), "{changed}");
    assert_eq!(
        ok(&cotab(&run, &["snapshot", "--changes"])?).trim(),
        "no change since your last snapshot of this page"
    );

    // `cotab screenshot --max-width 800` writes an image that wide.
    let dir = tempfile::tempdir()?;
    let shot = dir.path().join("small.png");
    let shown = ok(&cotab(
        &run,
        &[
            "screenshot",
            "-o",
            shot.to_str().unwrap_or_default(),
            "--format",
            "png",
            "--max-width",
            "800",
        ],
    )?);
    assert!(shown.contains("800x"), "{shown}");
    let png = std::fs::read(&shot)?;
    assert_eq!(&png[1..4], b"PNG");
    assert_eq!(
        u32::from_be_bytes([png[16], png[17], png[18], png[19]]),
        800
    );

    // A wait longer than a second says what it waits for; a short one does not.
    let out = cotab(&run, &["wait", "time", "1500"])?;
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("waiting for"),
        "{out:?}"
    );
    let out = cotab(&run, &["wait", "text", "Create an account"])?;
    assert!(out.status.success(), "{out:?}");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("waiting for"),
        "{out:?}"
    );
    // A new snapshot keeps the element's ref; a navigation makes it stale,
    // a typed error with exit code 1.
    let again = ok(&cotab(&run, &["snapshot"])?);
    assert!(again.contains(&format!("[ref={r}]")), "{again}");
    ok(&cotab(&run, &["reload"])?);
    let out = cotab(&run, &["click", r])?;
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("STALE_REF"),
        "{out:?}"
    );
    // Another document: the whole outline, and why.
    let whole = ok(&cotab(&run, &["snapshot", "--changes"])?);
    assert!(
        whole.starts_with("# the whole page: another page") && whole.contains("checkbox"),
        "{whole}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_follows_a_chain_of_dialogs_and_says_how_to_answer_each() -> anyhow::Result<()> {
    let browser = cotab_e2e::browser::Browser::launch(Default::default()).await?;
    let url = browser.fixture.url("/dialogs");
    let page = browser.open_tab(&url).await?;
    let tab = browser.share(&page, &url).await?;
    let run = browser.runtime_dir.clone();
    ok(&cotab(&run, &["select", &tab.to_string()])?);
    let outline = ok(&cotab(&run, &["snapshot"])?);
    let delete = cotab_e2e::outline_ref(&outline, "button \"Delete draft\"")
        .ok_or_else(|| anyhow::anyhow!("no Delete button in:\n{outline}"))?;
    let answer = "answer it with `cotab dialog accept` or `cotab dialog dismiss`";

    let out = ok(&cotab(&run, &["click", &delete.0])?);
    assert_eq!(
        out.trim(),
        format!(
            "clicked {}; then a confirm dialog (\"Delete the draft?\") opened: {answer}",
            delete.0
        )
    );
    // What the dialog blocks says so, in the CLI's terms.
    let out = cotab(&run, &["snapshot"])?;
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        format!(
            "error: DIALOG_OPEN: a confirm dialog (\"Delete the draft?\") is open on this tab: {answer}"
        )
    );
    let out = ok(&cotab(&run, &["dialog", "accept"])?);
    assert_eq!(
        out.trim(),
        format!("accepted the dialog; then a prompt dialog (\"Type its name to confirm\") opened: {answer}")
    );
    let out = ok(&cotab(&run, &["dialog", "accept", "--text", "cli"])?);
    assert!(
        out.contains("then an alert dialog (\"Deleted cli\") opened"),
        "{out}"
    );
    let out: Value = serde_json::from_str(&ok(&cotab(&run, &["--json", "dialog", "accept"])?))?;
    assert_eq!(out, serde_json::json!({}), "the chain is over");
    assert!(ok(&cotab(&run, &["snapshot"])?).contains("deleted cli"));
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_prints_resizes_emulates_and_outlines_one_element() -> anyhow::Result<()> {
    let browser = cotab_e2e::browser::Browser::launch(Default::default()).await?;
    let url = browser.fixture.url("/long");
    let page = browser.open_tab(&url).await?;
    let tab = browser.share(&page, &url).await?;
    let run = browser.runtime_dir.clone();
    ok(&cotab(&run, &["select", &tab.to_string()])?);
    let dir = tempfile::tempdir()?;

    let pdf = dir.path().join("page.pdf");
    let shown = ok(&cotab(
        &run,
        &["pdf", "-o", pdf.to_str().unwrap_or_default()],
    )?);
    assert!(shown.ends_with(" bytes\n"), "{shown}");
    assert!(std::fs::read(&pdf)?.starts_with(b"%PDF-"));
    let out = cotab(&run, &["--json", "pdf", "-o", "-"])?;
    assert_eq!(out.status.code(), Some(2), "{out:?}");

    let sized = ok(&cotab(&run, &["--json", "resize", "700", "450"])?);
    let sized: Value = serde_json::from_str(&sized)?;
    assert_eq!(
        (sized["width"].as_f64(), sized["height"].as_f64()),
        (Some(700.0), Some(450.0))
    );
    assert_eq!(browser.eval(&page, "innerWidth").await?, 700);
    let out = cotab(&run, &["resize", "5000", "450"])?;
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("INVALID_REQUEST"),
        "{out:?}"
    );
    let shot = dir.path().join("whole.png");
    let shown = ok(&cotab(
        &run,
        &[
            "screenshot",
            "--full-page",
            "-o",
            shot.to_str().unwrap_or_default(),
        ],
    )?);
    let tall: u32 = shown
        .split_whitespace()
        .nth(1)
        .and_then(|size| size.split('x').nth(1))
        .and_then(|h| h.parse().ok())
        .ok_or_else(|| anyhow::anyhow!("no size in {shown}"))?;
    assert!(tall > 4000, "{shown}");
    ok(&cotab(&run, &["resize", "--clear"])?);
    assert_ne!(browser.eval(&page, "innerWidth").await?, 700);

    let said = ok(&cotab(
        &run,
        &["emulate", "--color-scheme", "dark", "--media", "print"],
    )?);
    assert!(
        said.contains("colorScheme: dark") && said.contains("media: print"),
        "{said}"
    );
    assert_eq!(
        browser
            .eval(&page, "matchMedia('(prefers-color-scheme: dark)').matches")
            .await?,
        true
    );
    let said = ok(&cotab(&run, &["emulate", "--color-scheme", "clear"])?);
    assert_eq!(said, "media: print\n");
    let out = cotab(&run, &["emulate"])?;
    assert_eq!(out.status.code(), Some(2), "{out:?}");

    let outline = ok(&cotab(&run, &["snapshot"])?);
    let r = cotab_e2e::outline_ref(&outline, "button \"Bottom button\"")
        .ok_or_else(|| anyhow::anyhow!("no button in {outline}"))?;
    let part = ok(&cotab(&run, &["snapshot", "--ref", &r.0, "--depth", "1"])?);
    assert_eq!(part, format!("- button \"Bottom button\" [ref={r}]\n"));
    let out = cotab(&run, &["snapshot", "--depth", "0"])?;
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_answers_the_file_chooser_a_click_opened() -> anyhow::Result<()> {
    let (_dir, allowed, _secret, options) = crate::toolset::upload_dirs()?;
    let file = allowed.join("a.txt");
    std::fs::write(&file, "one")?;
    let browser = cotab_e2e::browser::Browser::launch(options).await?;
    let url = browser.fixture.url("/chooser");
    let page = browser.open_tab(&url).await?;
    let tab = browser.share(&page, &url).await?;
    let run = browser.runtime_dir.clone();
    ok(&cotab(&run, &["select", &tab.to_string()])?);
    let outline = ok(&cotab(&run, &["snapshot"])?);
    let attach = cotab_e2e::outline_ref(&outline, "Attach files")
        .ok_or_else(|| anyhow::anyhow!("no Attach button in:\n{outline}"))?;
    let out = ok(&cotab(&run, &["click", &attach.0])?);
    assert_eq!(
        out.trim(),
        format!(
            "clicked {}; then a file chooser for files opened: answer it with \
             `cotab upload --chooser FILE...` (no file cancels it)",
            attach.0
        )
    );
    let path = file.display().to_string();
    assert_eq!(
        ok(&cotab(&run, &["upload", "--chooser", &path])?).trim(),
        "set 1 file(s)"
    );
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('got').textContent")
            .await?,
        "files: a.txt (3)"
    );
    // Answered: nothing waits any more.
    let out = cotab(&run, &["upload", "--chooser"])?;
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("INVALID_REQUEST: no file chooser is open"),
        "{out:?}"
    );
    // Neither an input nor --chooser: a usage error.
    assert_eq!(cotab(&run, &["upload"])?.status.code(), Some(2));
    assert_eq!(cotab(&run, &["upload", &attach.0])?.status.code(), Some(2));
    Ok(())
}
