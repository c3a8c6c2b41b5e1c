//! The activity record (issue 39): each agent request that acted is kept
//! in the daemon's state directory with what the person did meanwhile,
//! privately; `cotab activity` lists, shows, exports and clears it; a
//! daemon killed mid-write loses at most the line it was writing.

use crate::harness::{eventually, notification, tab, Daemon, FakeExt, Script, WAIT};
use cotab_host::record::Record;
use cotab_shared::controller::{
    Acquire, CdpSend, CdpSendParams, Empty, Evaluate, EvaluateParams, Navigate, NavigateParams,
    Press, PressParams, SelectParams, TabsSelect, Type, TypeParams,
};
use cotab_shared::native::{Event, SharedTabs};
use cotab_shared::TabId;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use tokio::process::Command;

const CLI: &str = env!("CARGO_BIN_EXE_cotab");

/// `cotab activity ARGS` reading the record in `state`.
async fn activity(state: &Path, args: &[&str]) -> std::process::Output {
    let out = Command::new(CLI)
        .env("COTAB_LOG_DIR", state)
        .arg("activity")
        .args(args)
        .output();
    tokio::time::timeout(WAIT, out)
        .await
        .expect("cli exits")
        .expect("output")
}

fn json(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON value")
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).expect("meta").permissions().mode() & 0o777
}

fn taken(id: i32, human: bool) -> cotab_shared::native::TabInfo {
    cotab_shared::native::TabInfo {
        human_control: human,
        ..tab(id)
    }
}

#[tokio::test]
async fn each_request_that_acted_is_kept_and_the_cli_reads_exports_and_clears_it() {
    let d = Daemon::start().await;
    let (ext, mut agent) = d.controlling_tab_7().await;
    agent
        .call::<Press>(&PressParams {
            key: "Enter".into(),
            modifiers: vec![],
            expect: None,
        })
        .await
        .expect("press");
    agent
        .call::<Type>(&TypeParams {
            text: "s3cret-password".into(),
            element: None,
            clear: false,
            submit: false,
            expect: None,
        })
        .await
        .expect("type");
    let _ = agent
        .call::<Navigate>(&NavigateParams::to("file:///etc/passwd?token=x"))
        .await;
    // The person takes control.
    ext.event(Event::Shared(SharedTabs {
        tabs: vec![taken(7, true)],
    }));
    let state = d.dir.path().join("state");
    let sessions = eventually(|| {
        let state = state.clone();
        async move {
            let v = json(&activity(&state, &["--json"]).await);
            let done = v["sessions"][0]["byPerson"] == 1 && v["sessions"][0]["requests"] == 3;
            if done {
                Ok(v)
            } else {
                Err(v)
            }
        }
    })
    .await;
    let s = &sessions["sessions"][0];
    assert_eq!(s["agent"], "test-agent");
    assert_eq!(s["failed"], 1, "{s}");
    assert_eq!(s["tabs"], serde_json::json!([7]));
    let id = s["id"].as_str().expect("id").to_owned();
    // Private, and nothing typed, no query.
    let record = state.join("activity");
    assert_eq!(mode(&record), 0o700);
    let file = record.join(format!("{id}.jsonl"));
    assert_eq!(mode(&file), 0o600);
    let text = std::fs::read_to_string(&file).expect("read");
    assert!(
        !text.contains("s3cret") && !text.contains("token="),
        "{text}"
    );
    let shown = json(&activity(&state, &["show", &id, "--json"]).await);
    let what: Vec<&str> = shown["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["what"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        what,
        [
            "press Enter",
            "type 15 characters",
            "go to file:///etc/passwd",
            "take control of tab 7 · Tab 7"
        ]
    );
    assert_eq!(shown["entries"][3]["method"], "person.takeover");
    // Typed into whatever had the focus: kept masked.
    assert_eq!(shown["entries"][1]["typed"], "•".repeat(15));
    assert_eq!(shown["entries"][2]["outcome"], "BLOCKED_TARGET");
    let plain = activity(&state, &["show", &id]).await;
    let plain = String::from_utf8_lossy(&plain.stdout);
    assert!(
        plain.contains("(you)") && plain.contains("→ BLOCKED_TARGET"),
        "{plain}"
    );
    // One page, private.
    let page = d.dir.path().join("export.html");
    let out = activity(
        &state,
        &["export", &id, "-o", page.to_str().expect("utf-8")],
    )
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(mode(&page), 0o600);
    let html = std::fs::read_to_string(&page).expect("page");
    assert!(html.contains("press Enter") && html.contains("default-src 'none'"));
    assert!(!html.contains("<script"));
    // Bad input: typed errors, nothing lost.
    let bad = activity(&state, &["show", "../../etc/passwd", "--json"]).await;
    assert_eq!(bad.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&bad.stdout).expect("json");
    assert_eq!(v["error"]["kind"], "USAGE");
    let missing = activity(&state, &["clear", "12345", "--json"]).await;
    assert_eq!(missing.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&missing.stdout).expect("json");
    assert_eq!(v["error"]["kind"], "SESSION_NOT_FOUND");
    assert_eq!(activity(&state, &["clear"]).await.status.code(), Some(2));
    assert_eq!(
        json(&activity(&state, &["list", "--json"]).await)["sessions"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    // Cleared, and the agent's next request starts its record again.
    assert_eq!(
        json(&activity(&state, &["clear", &id, "--json"]).await)["cleared"],
        1
    );
    assert!(!file.exists());
    ext.event(Event::Shared(SharedTabs {
        tabs: vec![taken(7, false)],
    }));
    agent.call::<Acquire>(&Empty {}).await.expect("acquire");
    agent
        .call::<Press>(&PressParams {
            key: "a".into(),
            modifiers: vec![],
            expect: None,
        })
        .await
        .expect("press");
    eventually(|| {
        let file = file.clone();
        async move {
            let r = Record::in_state_dir(file.parent().and_then(Path::parent).expect("state"));
            match r.list() {
                Ok(l) if l.len() == 1 && l[0].requests == 1 => Ok(()),
                other => Err(format!("{other:?}")),
            }
        }
    })
    .await;
    assert_eq!(
        json(&activity(&state, &["clear", "--all", "--json"]).await)["cleared"],
        1
    );
}

/// A daemon killed while it writes entries leaves every whole entry
/// readable, at most one line torn, and the next daemon goes on.
/// The session's entries as `cotab activity show --json` reads them, once
/// it holds `n`.
async fn entries(d: &Daemon, n: usize) -> Vec<Value> {
    let state = d.dir.path().join("state");
    eventually(|| {
        let state = state.clone();
        async move {
            let listed = json(&activity(&state, &["--json"]).await);
            let id = listed["sessions"][0]["id"]
                .as_str()
                .unwrap_or("")
                .to_owned();
            let shown = json(&activity(&state, &["show", &id, "--json"]).await);
            match shown["entries"].as_array() {
                Some(e) if e.len() >= n => Ok(e.clone()),
                _ => Err(shown),
            }
        }
    })
    .await
}

#[tokio::test]
async fn raw_cdp_and_scripts_are_kept_as_their_method_and_size_only() {
    let d = Daemon::start().await;
    let (ext, mut agent) = d.controlling_tab_7().await;
    ext.event(Event::DeveloperMode { enabled: true });
    notification(&mut agent, "developerMode.changed").await;
    let secret = "hunter2-in-the-params";
    agent
        .call::<CdpSend>(&CdpSendParams {
            method: "Input.insertText".into(),
            params: Some(serde_json::json!({ "text": secret })),
            session_id: None,
        })
        .await
        .expect("raw CDP");
    let script = format!("document.title = '{secret}'");
    // The fake browser answers nothing an evaluation reads; whatever it
    // answers, the request is kept.
    let _ = agent
        .call::<Evaluate>(&EvaluateParams {
            expression: script.clone(),
            await_promise: None,
        })
        .await;
    let entries = entries(&d, 2).await;
    let what: Vec<&str> = entries
        .iter()
        .filter(|e| !e["method"].as_str().unwrap_or("").starts_with("person."))
        .map(|e| e["what"].as_str().unwrap_or(""))
        .collect();
    let params_size = serde_json::to_vec(&serde_json::json!({ "text": secret }))
        .expect("json")
        .len();
    assert_eq!(
        what,
        [
            format!("raw CDP Input.insertText ({params_size} bytes)"),
            format!("run a script ({} bytes)", script.len()),
        ],
        "{entries:?}"
    );
    let dir = d.dir.path().join("state").join("activity");
    for file in std::fs::read_dir(&dir).expect("record") {
        let text = std::fs::read_to_string(file.expect("entry").path()).expect("read");
        assert!(!text.contains("hunter2"), "{text}");
    }
}

#[tokio::test]
async fn a_daemon_killed_mid_write_loses_at_most_the_line_being_written() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let tmp = tempfile::tempdir().expect("tempdir");
    let rt = tmp.path().join("rt");
    let state = tmp.path().join("state");
    let spawn = || crate::harness::daemon_binary(&rt, &state, &tmp.path().join("none.json"));
    let mut daemon = spawn();
    let host = rt.join(cotab_host::runtime::HOST_SOCKET);
    let agent_sock = rt.join(cotab_host::runtime::AGENT_SOCKET);
    eventually(|| tokio::net::UnixStream::connect(host.clone())).await;
    let _ext = FakeExt::connect(
        &host,
        Script {
            tabs: vec![tab(7)],
            ..Script::default()
        },
    )
    .await;
    let mut agent = eventually(|| {
        let sock = agent_sock.clone();
        async move {
            let mut c = cotab_host::client::Client::connect(sock).await?;
            c.hello("killed").await?;
            c.call::<TabsSelect>(&SelectParams { tab_id: TabId(7) })
                .await?;
            Ok::<_, cotab_host::client::ClientError>(c)
        }
    })
    .await;
    agent.call::<Acquire>(&Empty {}).await.expect("acquire");
    let pid = daemon.id().expect("pid");
    let presses = tokio::spawn(async move {
        let mut n = 0u32;
        while agent
            .call::<Press>(&PressParams {
                key: "a".into(),
                modifiers: vec![],
                expect: None,
            })
            .await
            .is_ok()
        {
            n += 1;
        }
        n
    });
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    kill(
        Pid::from_raw(i32::try_from(pid).expect("pid")),
        Signal::SIGKILL,
    )
    .expect("kill");
    let _ = daemon.wait().await;
    let answered = presses.await.expect("presses");
    assert!(answered > 0, "no press was answered before the kill");
    let record = Record::in_state_dir(&state);
    let list = record.list().expect("the record reads");
    assert_eq!(list.len(), 1, "{list:?}");
    let session = record.read(&list[0].id).expect("session");
    assert!(session.skipped <= 1, "{}", session.skipped);
    assert!(session.entries.iter().all(|e| e.what == "press a"));
    // Every answered press but the last few still queued is kept.
    assert!(!session.entries.is_empty());
    assert!(session.entries.len() as u32 <= answered + 1);
    drop(std::fs::remove_file(&agent_sock));
    drop(std::fs::remove_file(&host));
    // The next daemon reads and prunes the record without harm.
    let mut again = spawn();
    eventually(|| tokio::net::UnixStream::connect(agent_sock.clone())).await;
    assert_eq!(record.list().expect("reads").len(), 1);
    let _ = again.kill().await;
}

/// The viewer's asks over a watch: each answered with its number, bad
/// ones with an error and nothing lost.
#[tokio::test]
async fn a_watch_asks_the_record_a_page_at_a_time_and_bad_asks_are_refused() {
    use crate::watch::{next, watch, Watch};
    use cotab_shared::watch::{RecordAnswer, RecordAsk};
    use futures_util::SinkExt as _;
    async fn ask(w: &mut Watch, ask: RecordAsk) -> RecordAnswer {
        w.send(serde_json::to_vec(&ask).expect("json"))
            .await
            .expect("send");
        loop {
            if let Some(answer) = next(w).await.record {
                assert_eq!(answer.ask, ask.ask);
                return answer;
            }
        }
    }
    let d = Daemon::start().await;
    let (_ext, mut agent) = d.controlling_tab_7().await;
    for key in ["a", "b", "c"] {
        agent
            .call::<Press>(&PressParams {
                key: key.into(),
                modifiers: vec![],
                expect: None,
            })
            .await
            .expect("press");
    }
    let mut w = watch(&d).await;
    // Entries reach the record off the request's path: ask until there.
    let deadline = tokio::time::Instant::now() + WAIT;
    let list = loop {
        let a = ask(
            &mut w,
            RecordAsk {
                ask: 1,
                op: "list".into(),
                ..RecordAsk::default()
            },
        )
        .await;
        if a.sessions.first().is_some_and(|s| s.requests == 3) {
            break a;
        }
        assert!(tokio::time::Instant::now() < deadline, "{a:?}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    let id = list.sessions[0].id.clone();
    let page = ask(
        &mut w,
        RecordAsk {
            ask: 2,
            op: "page".into(),
            id: Some(id.clone()),
            from: Some(1),
            count: Some(5),
            ..RecordAsk::default()
        },
    )
    .await;
    assert_eq!(page.error, None);
    assert_eq!(page.total, 3);
    assert_eq!(
        page.entries
            .iter()
            .map(|e| e.what.as_str())
            .collect::<Vec<_>>(),
        ["press b", "press c"]
    );
    assert_eq!(page.tabs, vec![TabId(7)]);
    for (n, bad) in [
        (
            3,
            RecordAsk {
                op: "page".into(),
                id: Some("../../etc/passwd".into()),
                ..RecordAsk::default()
            },
        ),
        (
            4,
            RecordAsk {
                op: "frames".into(),
                id: Some("12345".into()),
                seqs: vec![1],
                ..RecordAsk::default()
            },
        ),
        (
            5,
            RecordAsk {
                op: "delete".into(),
                ..RecordAsk::default()
            },
        ),
        (
            6,
            RecordAsk {
                op: "page".into(),
                ..RecordAsk::default()
            },
        ),
    ] {
        let a = ask(&mut w, RecordAsk { ask: n, ..bad }).await;
        assert!(a.error.is_some(), "{a:?}");
    }
    // Nothing was lost, and a clear of the session takes it.
    let a = ask(
        &mut w,
        RecordAsk {
            ask: 7,
            op: "clear".into(),
            id: Some(id),
            ..RecordAsk::default()
        },
    )
    .await;
    assert_eq!((a.error, a.cleared), (None, 1));
    let a = ask(
        &mut w,
        RecordAsk {
            ask: 8,
            op: "list".into(),
            ..RecordAsk::default()
        },
    )
    .await;
    assert!(a.sessions.is_empty());
}
