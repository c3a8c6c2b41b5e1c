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
    let email = find_ref(&outline, "textbox \"Email\"")?;
    agent
        .call::<Type>(&TypeParams {
            text: "ada@example.org".into(),
            element: Some(email),
            clear: false,
            submit: false,
            expect: None,
        })
        .await?;
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
    // Once the tab is quiet, the record holds a picture of it.
    let state = browser.runtime_dir.with_file_name("logs");
    let clock = cotab_e2e::Deadline::new("a frame", Duration::from_secs(10));
    loop {
        let list = json(&activity(&state, &["--json"])?)?;
        if list["sessions"][0]["frames"] == 1 {
            break;
        }
        clock.next(list).await?;
    }
    browser.take_control(&page, tab).await?;
    browser.hand_back(&page, tab).await?;
    browser.set_developer_mode(&page, true).await?;
    browser.set_developer_mode(&page, false).await?;

    let clock = cotab_e2e::Deadline::new("the record", Duration::from_secs(10));
    let (id, entries) = loop {
        let list = json(&activity(&state, &["--json"])?)?;
        let id = list["sessions"][0]["id"].as_str().unwrap_or("").to_owned();
        if !id.is_empty() {
            let shown = json(&activity(&state, &["show", &id, "--json"])?)?;
            let entries = shown["entries"].as_array().cloned().unwrap_or_default();
            if entries.len() >= 7 {
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
            "input.type|type 15 characters · textbox \"Email\"|ok".to_owned(),
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
    // What was typed: as it is into the email field, masked into the
    // password's.
    assert_eq!(entries[0]["typed"], "ada@example.org");
    assert_eq!(entries[1]["typed"], "•".repeat(14));
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
    assert_eq!(rows, 7);
    let scripts = browser.eval(&shown, "document.scripts.length").await?;
    assert_eq!(scripts, 0);
    let person = browser
        .eval(&shown, "document.querySelectorAll('tr.person').length")
        .await?;
    assert_eq!(person, 4);
    // The click's picture: the tab's viewport, shown.
    let picture = browser
        .eval(
            &shown,
            "[...document.querySelectorAll('td.f img')].map(i => i.naturalWidth)",
        )
        .await?;
    let width = browser.eval(&page, "innerWidth").await?;
    assert_eq!(picture, serde_json::json!([width]));
    // No frame of the tab while the person held it: only the click's.
    let kept = std::fs::read_to_string(&file)?;
    assert_eq!(kept.matches("\"frameOf\"").count(), 1);
    Ok(())
}

/// Until `expression` on `page` gives something `ok` accepts, within 10 s.
async fn until(
    browser: &cotab_e2e::browser::Browser,
    page: &cotab_e2e::browser::Page,
    expression: &str,
    ok: impl Fn(&Value) -> bool,
) -> anyhow::Result<Value> {
    let clock = cotab_e2e::Deadline::new(expression, Duration::from_secs(10));
    loop {
        let now = browser.eval(page, expression).await?;
        if ok(&now) {
            return Ok(now);
        }
        clock.next(now).await?;
    }
}

/// A session of 10,000 requests on two tabs, every hundredth failed,
/// written as the daemon writes one.
fn long_session(state: &Path) -> anyhow::Result<String> {
    use cotab_host::record::{Header, Record, Writer, FORMAT};
    use cotab_shared::watch::ActivityEntry;
    let record = Record::in_state_dir(state);
    let id = "1000000000000-1-1".to_owned();
    let mut w = Writer::create(
        &record,
        &Header {
            format: FORMAT,
            id: id.clone(),
            agent: "marathon".into(),
            started_ms: 1_764_000_000_000,
        },
    )?;
    for seq in 1..=10_000u64 {
        w.append(&ActivityEntry {
            seq,
            at_ms: 1_764_000_000_000 + seq * 100,
            agent: "marathon".into(),
            tab: Some(cotab_shared::TabId(if seq % 2 == 0 { 11 } else { 12 })),
            method: "input.click".into(),
            what: format!("click · button \"Step {seq}\""),
            outcome: Some(if seq % 100 == 0 { "TIMEOUT" } else { "ok" }.into()),
            ms: Some(20),
            typed: None,
            site: None,
        })?;
    }
    Ok(id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewer_lists_sessions_pages_a_long_one_shows_pictures_and_clears() -> anyhow::Result<()>
{
    use cotab_shared::controller::{Navigate, NavigateParams};
    use cotab_shared::{ErrorKind, EXTENSION_ID};
    let (browser, _page, _tab, mut agent) = on_page("/signup", LaunchOptions::default()).await?;
    let outline = snapshot(&mut agent).await?;
    let submit = find_ref(&outline, "button \"Sign up\"")?;
    agent.call::<Click>(&ClickParams::on(submit)).await?;
    let state = browser.runtime_dir.with_file_name("logs");
    // The click's picture is in the record before the viewer opens.
    let clock = cotab_e2e::Deadline::new("a frame", Duration::from_secs(10));
    loop {
        let list = json(&activity(&state, &["--json"])?)?;
        if list["sessions"][0]["frames"] == 1 {
            break;
        }
        clock.next(list).await?;
    }
    let long = long_session(&state)?;

    let url = format!("chrome-extension://{EXTENSION_ID}/popup.html?record");
    let viewer = browser.open_tab(&url).await?;
    let rows = "[...document.querySelectorAll('#record-sessions tbody tr')].map(r => r.dataset.id)";
    let ids = until(&browser, &viewer, rows, |v| {
        v.as_array().is_some_and(|a| a.len() == 2)
    })
    .await?;
    assert!(ids.to_string().contains(&long), "{ids}");
    // The long session, a page at a time.
    let open = |id: &str| {
        format!(
            "document.querySelector('#record-sessions tr[data-id=\"{id}\"] button.open').click(); 1"
        )
    };
    browser.eval(&viewer, &open(&long)).await?;
    let range = "document.getElementById('record-range').textContent";
    until(&browser, &viewer, range, |v| v == "entries 1–50 of 10000").await?;
    let first = "document.querySelector('#record-entries li')?.dataset.seq";
    assert_eq!(browser.eval(&viewer, first).await?, "1");
    browser
        .eval(
            &viewer,
            "document.getElementById('record-later').click(); 1",
        )
        .await?;
    until(&browser, &viewer, range, |v| v == "entries 51–100 of 10000").await?;
    // Only what did not get done: every hundredth.
    browser
        .eval(
            &viewer,
            "(() => { const o = document.getElementById('record-outcome'); o.value = 'failed'; \
             o.dispatchEvent(new Event('change')); return 1; })()",
        )
        .await?;
    until(&browser, &viewer, range, |v| v == "entries 1–50 of 100").await?;
    let outcomes = "[...document.querySelectorAll('#record-entries li')].every(li => li.dataset.outcome === 'TIMEOUT')";
    assert_eq!(browser.eval(&viewer, outcomes).await?, true);
    // Only one tab, whatever the outcome.
    browser
        .eval(
            &viewer,
            "(() => { document.getElementById('record-outcome').value = ''; \
             const t = document.getElementById('record-tab'); t.value = '12'; \
             t.dispatchEvent(new Event('change')); return 1; })()",
        )
        .await?;
    until(&browser, &viewer, range, |v| v == "entries 1–50 of 5000").await?;

    // The agent's own session shows the click with its picture.
    let own = ids
        .as_array()
        .and_then(|a| a.iter().find(|i| i.as_str() != Some(long.as_str())))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    browser.eval(&viewer, &open(&own)).await?;
    let picture = "document.querySelector('#record-entries li .frame img')?.naturalWidth ?? 0";
    until(&browser, &viewer, picture, |v| {
        v.as_u64().is_some_and(|w| w > 0)
    })
    .await?;
    let what = "document.querySelector('#record-entries li .what').textContent";
    let what = browser.eval(&viewer, what).await?;
    assert!(
        what.as_str()
            .is_some_and(|w| w.starts_with("click · button \"Sign up\"")),
        "{what}"
    );

    // No agent reaches the viewer.
    let err = agent
        .call::<Navigate>(&NavigateParams::to(url.clone()))
        .await
        .expect_err("refused");
    assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget), "{err}");

    // Cleared from the viewer: that session, then all.
    browser
        .eval(
            &viewer,
            "window.confirm = () => true; document.getElementById('record-clear').click(); 1",
        )
        .await?;
    until(&browser, &viewer, rows, |v| {
        v.as_array().is_some_and(|a| a.len() == 1)
    })
    .await?;
    let left = json(&activity(&state, &["--json"])?)?;
    assert_eq!(left["sessions"][0]["id"], long.as_str());
    browser
        .eval(
            &viewer,
            "document.getElementById('record-clear-all').click(); 1",
        )
        .await?;
    until(&browser, &viewer, rows, |v| {
        v.as_array().is_some_and(Vec::is_empty)
    })
    .await?;
    let left = json(&activity(&state, &["--json"])?)?;
    assert_eq!(left["sessions"], serde_json::json!([]));
    Ok(())
}
