//! `cotab mcp` driven by MCP clients nobody here wrote: the MCP
//! Inspector's CLI (npm `@modelcontextprotocol/inspector`, installed by
//! `cargo xtask test` under `<target>/mcp-client`), one server process per
//! call as that CLI runs them, and the official MCP Python SDK (PyPI
//! `mcp`, under `<target>/mcp-python`, driving `tests/mcp-python/client.py`)
//! in one session, against the real daemon and a shared fixture page. The
//! page's own state is checked through the harness's CDP oracle.

use cotab_e2e::browser::{Browser, LaunchOptions};
use cotab_e2e::{binary, target_dir, wait_for};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long one inspector run may take (it starts node and our server).
const CALL_DEADLINE: Duration = Duration::from_secs(60);

/// The inspector's launcher, as `cargo xtask test` installs it.
fn inspector() -> anyhow::Result<PathBuf> {
    let path = target_dir()
        .join("mcp-client")
        .join("node_modules")
        .join(".bin")
        .join("mcp-inspector");
    anyhow::ensure!(
        path.is_file(),
        "{} is missing: run `cargo xtask test`, which installs the MCP Inspector",
        path.display()
    );
    Ok(path)
}

/// Runs the inspector's CLI against `cotab mcp` with `args` (its
/// `--method …` options) and returns the JSON it prints. The session is
/// kept in a file so the refs of one call's snapshot hold in the next.
async fn inspect(runtime: &Path, session: &Path, args: &[&str]) -> anyhow::Result<Value> {
    inspect_serving(runtime, session, &[], args).await
}

/// [`inspect`] with `server_args` for `cotab mcp` (`--caps vision`).
async fn inspect_serving(
    runtime: &Path,
    session: &Path,
    server_args: &[&str],
    args: &[&str],
) -> anyhow::Result<Value> {
    let cotab = binary("cotab")?;
    let mut cmd = tokio::process::Command::new(inspector()?);
    // `cotab mcp` writes the files it names itself in its workspace: the
    // session's directory, not the source tree.
    if let Some(dir) = session.parent() {
        cmd.current_dir(dir);
    }
    cmd.arg("--cli")
        .arg(&cotab)
        .arg("mcp")
        .arg("--runtime-dir")
        .arg(runtime)
        .arg("--session-file")
        .arg(session)
        .args(server_args)
        .args(args)
        .kill_on_drop(true);
    let out = tokio::time::timeout(CALL_DEADLINE, cmd.output()).await??;
    let stdout = String::from_utf8_lossy(&out.stdout);
    anyhow::ensure!(
        out.status.success(),
        "inspector {args:?} failed: {:?}\nstdout: {stdout}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout)
        .map_err(|e| anyhow::anyhow!("inspector {args:?} printed no JSON ({e}): {stdout}"))
}

/// A tool call's text, failing on a tool error.
async fn call_tool(
    runtime: &Path,
    session: &Path,
    tool: &str,
    tool_args: &[&str],
) -> anyhow::Result<String> {
    let mut args = vec!["--method", "tools/call", "--tool-name", tool];
    if !tool_args.is_empty() {
        args.push("--tool-arg");
        args.extend_from_slice(tool_args);
    }
    let r = inspect(runtime, session, &args).await?;
    anyhow::ensure!(r["isError"] != true, "{tool} failed: {r}");
    Ok(r["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string())
}

/// A browser with the MCP fixture page shared, and a directory for the
/// session file.
async fn shared_mcp_page() -> anyhow::Result<(Browser, cotab_e2e::browser::Page, tempfile::TempDir)>
{
    shared_mcp_page_with(LaunchOptions::default()).await
}

/// [`shared_mcp_page`] in a browser launched with `options`.
async fn shared_mcp_page_with(
    options: LaunchOptions,
) -> anyhow::Result<(Browser, cotab_e2e::browser::Page, tempfile::TempDir)> {
    let browser = Browser::launch(options).await?;
    let url = browser.fixture.url("/mcp");
    let page = browser.open_tab(&url).await?;
    browser.share(&page, &url).await?;
    Ok((browser, page, tempfile::tempdir()?))
}

/// The ref on the outline line that contains `needle`.
fn ref_of(outline: &str, needle: &str) -> Option<String> {
    cotab_e2e::outline_ref(outline, needle).map(|r| r.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_client_snapshots_and_clicks_by_ref() -> anyhow::Result<()> {
    let (browser, page, dir) = shared_mcp_page().await?;
    let run = browser.runtime_dir.clone();
    let session = dir.path().join("mcp.ticket");

    let list = inspect(&run, &session, &["--method", "tools/list"]).await?;
    let names: Vec<&str> = list["tools"]
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    for expected in [
        "browser_tabs",
        "browser_navigate",
        "browser_navigate_back",
        "browser_snapshot",
        "browser_click",
        "browser_hover",
        "browser_type",
        "browser_press_key",
        "browser_select_option",
        "browser_drag",
        "browser_take_screenshot",
        "browser_wait_for",
        "browser_handle_dialog",
        "browser_console_messages",
        "browser_file_upload",
    ] {
        assert!(names.contains(&expected), "{expected} missing: {names:?}");
    }
    // Developer mode is off by default: no JavaScript tool.
    assert!(!names.contains(&"browser_evaluate"), "{names:?}");

    let outline = call_tool(&run, &session, "browser_snapshot", &[]).await?;
    assert!(outline.contains("Not pressed yet"), "{outline}");
    let button = ref_of(&outline, "button \"Press me\"")
        .ok_or_else(|| anyhow::anyhow!("no ref for the button in:\n{outline}"))?;

    let clicked = call_tool(
        &run,
        &session,
        "browser_click",
        &["element=Press me button", &format!("target={button}")],
    )
    .await?;
    assert!(clicked.starts_with("### Result\nClicked"), "{clicked}");
    // The page itself saw the click.
    wait_for(
        "the page to count the click",
        Duration::from_secs(15),
        || async { Ok((browser.eval(&page, "window.presses").await? == 1).then_some(())) },
    )
    .await?;

    let again = call_tool(&run, &session, "browser_snapshot", &[]).await?;
    assert!(again.contains("Pressed 1 time(s)"), "{again}");
    // Typing slowly presses a key per character; at once, none.
    let name = ref_of(&again, "textbox \"Name\"")
        .ok_or_else(|| anyhow::anyhow!("no ref for the textbox in:\n{again}"))?;
    for (slowly, keys) in [("true", 3), ("false", 3)] {
        call_tool(
            &run,
            &session,
            "browser_type",
            &[
                &format!("target={name}"),
                "text=Ada",
                &format!("slowly={slowly}"),
            ],
        )
        .await?;
        let state = browser
            .eval(
                &page,
                "[document.getElementById('name').value, window.keys]",
            )
            .await?;
        assert_eq!(state, serde_json::json!(["Ada", keys]), "slowly={slowly}");
    }
    assert!(!again.contains("Not pressed yet"), "{again}");

    // A ref from before that snapshot is stale: a tool error with its kind.
    let stale = inspect(
        &run,
        &session,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "browser_click",
            "--tool-arg",
            "element=Press me button",
            &format!("ref={button}"),
        ],
    )
    .await?;
    if ref_of(&again, "button \"Press me\"").as_deref() != Some(button.as_str()) {
        assert_eq!(stale["isError"], true, "{stale}");
        let text = stale["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.starts_with("STALE_REF: "), "{text}");
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_vision_an_mcp_client_clicks_at_a_point_of_its_screenshot() -> anyhow::Result<()> {
    let (browser, page, dir) = shared_mcp_page().await?;
    let run = browser.runtime_dir.clone();
    let session = dir.path().join("mcp.ticket");
    let vision = ["--caps", "vision"];
    let call = |tool: &'static str, tool_args: Vec<String>| {
        let (run, session) = (run.clone(), session.clone());
        async move {
            let mut args = vec!["--method", "tools/call", "--tool-name", tool];
            if !tool_args.is_empty() {
                args.push("--tool-arg");
                args.extend(tool_args.iter().map(String::as_str));
            }
            inspect_serving(&run, &session, &vision, &args).await
        }
    };
    let list = inspect_serving(&run, &session, &vision, &["--method", "tools/list"]).await?;
    assert!(
        list["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["name"] == "browser_mouse_click_xy")),
        "{list}"
    );
    // Before any screenshot there is no frame to read the point off.
    let early = call("browser_mouse_click_xy", vec!["x=1".into(), "y=1".into()]).await?;
    assert_eq!(early["isError"], true, "{early}");
    let shot = call("browser_take_screenshot", Vec::new()).await?;
    assert_ne!(shot["isError"], true, "{shot}");
    // The button's centre in the screenshot's pixels (the page's scale is 1).
    let centre = browser
        .eval(
            &page,
            "(() => { const r = [...document.querySelectorAll('button')] \
               .find(b => b.textContent.includes('Press me')).getBoundingClientRect(); \
               return [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)]; })()",
        )
        .await?;
    let (x, y) = (centre[0].clone(), centre[1].clone());
    let clicked = call(
        "browser_mouse_click_xy",
        vec![format!("x={x}"), format!("y={y}")],
    )
    .await?;
    assert_ne!(clicked["isError"], true, "{clicked}");
    wait_for(
        "the page to count the click",
        Duration::from_secs(15),
        || async { Ok((browser.eval(&page, "window.presses").await? == 1).then_some(())) },
    )
    .await?;
    Ok(())
}

/// The MCP Python SDK's interpreter, as `cargo xtask test` installs it.
fn python() -> anyhow::Result<PathBuf> {
    let path = target_dir().join("mcp-python").join("bin").join("python");
    anyhow::ensure!(
        path.is_file(),
        "{} is missing: run `cargo xtask test`, which installs the MCP Python SDK",
        path.display()
    );
    Ok(path)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_python_sdk_snapshots_and_clicks_by_target() -> anyhow::Result<()> {
    let (_uploads, allowed, _secret, options) = crate::toolset::upload_dirs()?;
    let upload = allowed.join("a.txt");
    std::fs::write(&upload, "one")?;
    let (browser, page, dir) = shared_mcp_page_with(options).await?;
    let workspace = dir.path().join("workspace");
    std::fs::create_dir(&workspace)?;
    let script = cotab_e2e::workspace_root()
        .join("tests")
        .join("mcp-python")
        .join("client.py");
    let mut cmd = tokio::process::Command::new(python()?);
    cmd.arg(&script)
        .arg(binary("cotab")?)
        .arg(&browser.runtime_dir)
        .arg("Press me")
        .arg(&workspace)
        .arg(browser.fixture.url("/chooser"))
        .arg(&upload)
        .kill_on_drop(true);
    let out = tokio::time::timeout(CALL_DEADLINE, cmd.output()).await??;
    let stdout = String::from_utf8_lossy(&out.stdout);
    anyhow::ensure!(
        out.status.success(),
        "the Python client failed: {:?}\nstdout: {stdout}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_str(&stdout)?;
    assert_eq!(seen["server"], "cotab", "{seen}");
    let tools: Vec<&str> = seen["tools"]
        .as_array()
        .map(|t| t.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for tool in [
        "browser_snapshot",
        "browser_click",
        "browser_fill_form",
        "browser_find",
    ] {
        assert!(tools.contains(&tool), "{tool} missing: {tools:?}");
    }
    assert_eq!(seen["snapshotError"], false, "{seen}");
    assert!(seen["ref"].is_string(), "no ref for the button: {seen}");
    assert_eq!(seen["clickedError"], false, "{seen}");
    // The click's answer is the page after it (the page is left for the
    // chooser page later, so its own count is gone by now).
    assert!(
        seen["clicked"]
            .as_str()
            .is_some_and(|t| t.contains("Pressed 1 time(s)")),
        "{seen}"
    );
    // An argument the tool does not take is a tool error that names it.
    assert_eq!(seen["unknownArgumentError"], true, "{seen}");
    assert!(
        seen["unknownArgument"]
            .as_str()
            .is_some_and(|t| t.contains("`selector`")),
        "{seen}"
    );
    // Files land in the workspace, where the model named them, and
    // nowhere else.
    for (key, file) in [("screenshot", "shots/page.png"), ("pdf", "page.pdf")] {
        assert_eq!(seen[format!("{key}Error")], false, "{seen}");
        assert!(
            seen[key]
                .as_str()
                .is_some_and(|t| t.contains(&format!("]({file})"))),
            "{seen}"
        );
    }
    assert_eq!(
        &std::fs::read(workspace.join("shots/page.png"))?[1..4],
        b"PNG"
    );
    assert!(std::fs::read(workspace.join("page.pdf"))?.starts_with(b"%PDF-"));
    assert_eq!(seen["escapeError"], true, "{seen}");
    // The click's answer reloaded nothing; the list starts with a heading
    // whatever it holds.
    assert_eq!(seen["networkError"], false, "{seen}");
    assert!(
        seen["network"]
            .as_str()
            .is_some_and(|t| t.starts_with("### Network\n")),
        "{seen}"
    );
    assert!(!dir.path().join("outside.pdf").exists());
    assert_eq!(seen["resizedError"], false, "{seen}");
    assert_eq!(browser.eval(&page, "innerWidth").await?, 640);
    assert_eq!(seen["darkError"], false, "{seen}");
    assert_eq!(
        browser
            .eval(&page, "matchMedia('(prefers-color-scheme: dark)').matches")
            .await?,
        true
    );
    // The click opened the page's file chooser: its answer names it as
    // Playwright MCP does, and browser_file_upload fills it.
    assert_eq!(seen["chooserError"], false, "{seen}");
    assert!(
        seen["chooser"]
            .as_str()
            .is_some_and(|t| t.contains("- [File chooser]: can be handled by browser_file_upload")),
        "{seen}"
    );
    assert_eq!(seen["uploadedError"], false, "{seen}");
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('got').textContent")
            .await?,
        "files: a.txt (3)"
    );
    assert_eq!(browser.eval(&page, "window.cancels").await?, 0);
    // A click that changed one line of the sign-up form: the answer is that
    // line, under the lines that say where, not the form again.
    assert_eq!(seen["changedError"], false, "{seen}");
    let changed = seen["changed"].as_str().unwrap_or_default();
    let form = seen["form"].as_str().unwrap_or_default();
    assert!(changed.contains("### Snapshot changes\n"), "{changed}");
    assert!(
        changed
            .lines()
            .any(|l| l.starts_with('+') && l.ends_with("status: Accept the terms")),
        "{changed}"
    );
    assert!(!changed.contains("Password"), "{changed}");
    assert!(form.contains("Password"), "{form}");
    assert!(changed.len() < form.len(), "{changed}\n---\n{form}");
    Ok(())
}
