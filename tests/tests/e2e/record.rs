//! Issue 39: the activity record of an agent session in a real browser —
//! each request that acted, named as the person reads it, never what was
//! typed into a password field; the person's takeover, hand-back and
//! developer-mode switches beside them; `cotab activity` reads it, and
//! its export opens in a browser as one page with no script.

use crate::toolset::{find_ref, on_page, snapshot};
use cotab_e2e::binary;
use cotab_e2e::browser::LaunchOptions;
use cotab_shared::controller::{Click, ClickParams, Type, TypeParams};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

fn activity(state: &Path, args: &[&str]) -> anyhow::Result<Output> {
    Ok(Command::new(binary("cotab")?)
        .env("COTAB_LOG_DIR", state)
        .arg("activity")
        .args(args)
        .output()?)
}

fn json(out: &Output) -> anyhow::Result<Value> {
    anyhow::ensure!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(serde_json::from_slice(&out.stdout)?)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_session_is_kept_with_what_the_person_did_and_exports_as_one_page(
) -> anyhow::Result<()> {
    let (browser, page, tab, mut agent) = on_page("/signup", LaunchOptions::default()).await?;
    let outline = snapshot(&mut agent).await?;
    let password = find_ref(&outline, "textbox \"Password\"")?;
    let submit = find_ref(&outline, "button \"Sign up\"")?;
    agent
        .call::<Type>(&TypeParams {
            text: "hunter2-secret".into(),
            element: Some(password),
            clear: false,
            submit: false,
            expect: None,
        })
        .await?;
    agent.call::<Click>(&ClickParams::on(submit)).await?;
    browser.take_control(&page, tab).await?;
    browser.hand_back(&page, tab).await?;
    browser.set_developer_mode(&page, true).await?;
    browser.set_developer_mode(&page, false).await?;

    let state = browser.runtime_dir.with_file_name("logs");
    let clock = cotab_e2e::Deadline::new("the record", Duration::from_secs(10));
    let (id, entries) = loop {
        let list = json(&activity(&state, &["--json"])?)?;
        let id = list["sessions"][0]["id"].as_str().unwrap_or("").to_owned();
        if !id.is_empty() {
            let shown = json(&activity(&state, &["show", &id, "--json"])?)?;
            let entries = shown["entries"].as_array().cloned().unwrap_or_default();
            if entries.len() >= 6 {
                break (id, entries);
            }
        }
        clock.next(list).await?;
    };
    let line = |e: &Value| {
        format!(
            "{}|{}|{}",
            e["method"].as_str().unwrap_or(""),
            e["what"].as_str().unwrap_or(""),
            e["outcome"].as_str().unwrap_or("")
        )
    };
    let lines: Vec<String> = entries.iter().map(line).collect();
    assert_eq!(
        lines,
        [
            "input.type|type 14 characters · textbox \"Password\"|ok".to_owned(),
            "input.click|click · button \"Sign up\"|ok".to_owned(),
            format!("person.takeover|take control of tab {tab} · Sign up|ok"),
            format!("person.handBack|hand back tab {tab} · Sign up|ok"),
            "person.developerMode|turn developer mode on|ok".to_owned(),
            "person.developerMode|turn developer mode off|ok".to_owned(),
        ]
    );
    assert!(entries
        .iter()
        .all(|e| e["tab"] == tab.0 || e["tab"].is_null()));
    let file = state.join("activity").join(format!("{id}.jsonl"));
    let kept = std::fs::read_to_string(&file)?;
    assert!(!kept.contains("hunter2"), "typed text kept: {kept}");

    // The export, opened in a browser: one page, every entry, no script.
    let out = state.with_file_name("export.html");
    let path = out.to_str().unwrap_or_default();
    json(&activity(&state, &["export", &id, "-o", path, "--json"])?)?;
    let shown = browser.open_tab(&format!("file://{path}")).await?;
    let rows = browser
        .eval(&shown, "document.querySelectorAll('tbody tr').length")
        .await?;
    assert_eq!(rows, 6);
    let scripts = browser.eval(&shown, "document.scripts.length").await?;
    assert_eq!(scripts, 0);
    let person = browser
        .eval(&shown, "document.querySelectorAll('tr.person').length")
        .await?;
    assert_eq!(person, 4);
    Ok(())
}
