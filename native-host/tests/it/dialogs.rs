//! JavaScript dialogs against a scripted page: announced, blocking what
//! comes after them, answered, followed along a chain, and the actions
//! they cut short reported as having opened them.

use crate::harness::{Daemon, FakeExt, Reply, Script, WAIT};
use crate::toolset::{cdp_until, controller, page_script};
use cotab_shared::controller::{
    Console, ConsoleParams, Dialog, DialogKind, DialogParams, Scroll, ScrollParams, Type,
    TypeParams,
};
use cotab_shared::native::{CommandClass, Event};
use cotab_shared::{ErrorKind, TabId};
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;

#[tokio::test]
async fn dialogs_are_announced_block_calls_and_are_answered() {
    let d = Daemon::start().await;
    let (mut script, _) = page_script();
    script.silent = ["Input.insertText".to_string()].into();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let mut rx = c.forward_notifications();

    // A call pending in the page when a dialog opens answers at once: it
    // opened the dialog.
    let call = tokio::spawn(async move {
        let r = c
            .call::<Type>(&TypeParams {
                text: "hello".into(),
                ..TypeParams::default()
            })
            .await;
        (c, r)
    });
    ext.next_cdp("Input.insertText").await;
    ext.event(Event::Cdp {
        session: None,
        tab_id: TabId(7),
        method: "Page.javascriptDialogOpening".into(),
        params: json!({"url": "http://example.test/", "message": "Sure?", "type": "confirm",
                       "hasBrowserHandler": true}),
    });
    let (mut c, r) = tokio::time::timeout(WAIT, call)
        .await
        .expect("unblocked in time")
        .expect("task");
    let opened = r.expect("the typing opened the dialog").dialog;
    assert_eq!(
        opened.map(|d| (d.kind, d.message)),
        Some((
            cotab_shared::controller::DialogKind::Confirm,
            "Sure?".to_string()
        ))
    );
    let note = tokio::time::timeout(WAIT, rx.recv())
        .await
        .expect("notified in time")
        .expect("a notification");
    assert_eq!(note["method"], "dialog.opened");
    assert_eq!(note["params"]["type"], "confirm");
    assert_eq!(note["params"]["message"], "Sure?");

    // New calls fail at once; the console still answers.
    let err = c
        .call::<Scroll>(&ScrollParams {
            delta_y: Some(1.0),
            ..ScrollParams::default()
        })
        .await
        .expect_err("blocked");
    assert_eq!(err.kind(), Some(ErrorKind::DialogOpen));
    assert!(
        err.to_string().contains(
            "a confirm dialog (\"Sure?\") is open on this tab: answer it with page.dialog"
        ),
        "{err}"
    );
    c.call::<Console>(&ConsoleParams::default())
        .await
        .expect("console answers");
    let answered = c
        .call::<Dialog>(&DialogParams {
            accept: true,
            prompt_text: None,
        })
        .await
        .expect("answered");
    assert_eq!(answered.dialog, None, "no dialog followed");
    let p = ext.next_cdp("Page.handleJavaScriptDialog").await;
    assert_eq!(p["accept"], true);
    let err = c
        .call::<Dialog>(&DialogParams {
            accept: false,
            prompt_text: None,
        })
        .await
        .expect_err("no dialog");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));
    c.call::<Scroll>(&ScrollParams {
        delta_y: Some(1.0),
        ..ScrollParams::default()
    })
    .await
    .expect("unblocked");
}

#[tokio::test]
async fn a_key_press_cut_short_by_a_dialog_leaves_its_release_to_the_extension() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let gate = Arc::new(tokio::sync::Notify::new());
    let script = Script {
        gates: HashMap::from([("Input.dispatchKeyEvent".to_string(), gate.clone())]),
        ..script
    };
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let press = |key: &str| cotab_shared::controller::PressParams {
        key: key.into(),
        modifiers: vec![],
        expect: None,
    };
    let call = {
        let p = press("a");
        tokio::spawn(async move {
            let r = c.call::<cotab_shared::controller::Press>(&p).await;
            (c, r)
        })
    };
    // The key down and its up go to the extension as one command.
    let events = loop {
        if let cotab_shared::native::Command::Input { events, .. } = ext.next_command().await {
            break events;
        }
    };
    let kinds: Vec<_> = events
        .iter()
        .map(|e| (e.params["type"].clone(), e.params["key"].clone(), e.class()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (json!("keyDown"), json!("a"), CommandClass::Act),
            (json!("keyUp"), json!("a"), CommandClass::Release),
        ]
    );
    ext.event(Event::Cdp {
        session: None,
        tab_id: TabId(7),
        method: "Page.javascriptDialogOpening".into(),
        params: json!({"message": "hi", "type": "alert"}),
    });
    let (mut c, r) = tokio::time::timeout(WAIT, call)
        .await
        .expect("in time")
        .expect("task");
    assert_eq!(
        r.expect("the press opened the dialog")
            .dialog
            .map(|d| d.message),
        Some("hi".to_string())
    );
    ext.event(Event::Cdp {
        session: None,
        tab_id: TabId(7),
        method: "Page.javascriptDialogClosed".into(),
        params: json!({"result": true}),
    });
    gate.notify_one();
    // The daemon sent no key up of its own (the extension's may be on its
    // way), and the key is not held any more: it can be pressed again.
    gate.notify_one();
    c.call::<cotab_shared::controller::Press>(&press("a"))
        .await
        .expect("pressed again");
    let keys: Vec<_> = cdp_until(&mut ext, "Input.dispatchKeyEvent")
        .await
        .into_iter()
        .chain(cdp_until(&mut ext, "Input.dispatchKeyEvent").await)
        .chain(cdp_until(&mut ext, "Input.dispatchKeyEvent").await)
        .filter(|(m, _, _)| m == "Input.dispatchKeyEvent")
        .map(|(_, p, _)| p["type"].clone())
        .collect();
    assert_eq!(keys, [json!("keyDown"), json!("keyUp"), json!("keyDown")]);
}

/// A `Page.javascriptDialogOpening` of tab 7.
fn opening(kind: &str, message: &str) -> Event {
    Event::Cdp {
        session: None,
        tab_id: TabId(7),
        method: "Page.javascriptDialogOpening".into(),
        params: json!({"type": kind, "message": message, "defaultPrompt": "draft"}),
    }
}

/// A `Page.javascriptDialogClosed` of tab 7.
fn closed() -> Event {
    Event::Cdp {
        session: None,
        tab_id: TabId(7),
        method: "Page.javascriptDialogClosed".into(),
        params: json!({"result": true}),
    }
}

/// The page script, with the answers to dialogs (and the probe after
/// them) taken from `answers` in turn while it lasts.
fn chained(answers: Vec<(&'static str, Reply)>) -> Script {
    let (mut script, _) = page_script();
    let page = script.responder.take().expect("the page answers");
    let answers = Arc::new(std::sync::Mutex::new(std::collections::VecDeque::from(
        answers,
    )));
    script.responder = Some(Arc::new(move |tab, method, params| {
        let mut answers = answers.lock().expect("answers");
        let probe = method == "Runtime.evaluate" && params["expression"] == "0";
        let ours = method == "Page.handleJavaScriptDialog" || probe;
        if ours && answers.front().is_some_and(|(m, _)| *m == method) {
            return answers.pop_front().map(|(_, r)| r);
        }
        drop(answers);
        page(tab, method, params)
    }));
    script
}

#[tokio::test]
async fn a_chain_of_dialogs_is_followed_and_each_answer_names_the_next() {
    let d = Daemon::start().await;
    let script = chained(vec![
        // The confirm's answer closes it, and the page opens a prompt at
        // once: it is open before the probe is sent.
        (
            "Page.handleJavaScriptDialog",
            Reply::Ok(json!({}), vec![closed(), opening("prompt", "Name?")]),
        ),
        // The prompt's answer closes it; the alert opens while the probe
        // waits for the page.
        (
            "Page.handleJavaScriptDialog",
            Reply::Ok(json!({}), vec![closed()]),
        ),
        (
            "Runtime.evaluate",
            Reply::EventsFirst(vec![opening("alert", "Done")], json!({"result": {}})),
        ),
    ]);
    let ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    ext.event(opening("confirm", "Sure?"));
    let answer = |text: Option<&str>| DialogParams {
        accept: true,
        prompt_text: text.map(str::to_owned),
    };
    let next = |r: cotab_shared::controller::Acted| r.dialog.map(|d| (d.kind, d.message));
    let r = answer_once_open(&mut c, &answer(None))
        .await
        .expect("answered");
    assert_eq!(next(r), Some((DialogKind::Prompt, "Name?".to_string())));
    let r = tokio::time::timeout(WAIT, c.call::<Dialog>(&answer(Some("x"))))
        .await
        .expect("in time")
        .expect("answered");
    assert_eq!(next(r), Some((DialogKind::Alert, "Done".to_string())));
    // The alert's answer: the default close, and a probe the page answers.
    let r = c.call::<Dialog>(&answer(None)).await.expect("answered");
    assert_eq!(next(r), None);
    let err = c
        .call::<Dialog>(&answer(None))
        .await
        .expect_err("no dialog");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));
}

#[tokio::test]
async fn an_answer_whose_close_the_browser_never_reports_times_out_at_its_deadline() {
    let d = Daemon::start_with_deadline(std::time::Duration::from_millis(400)).await;
    let script = chained(vec![(
        "Page.handleJavaScriptDialog",
        Reply::Ok(json!({}), vec![]),
    )]);
    let ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    ext.event(opening("alert", "Hi"));
    let started = std::time::Instant::now();
    let err = answer_once_open(
        &mut c,
        &DialogParams {
            accept: true,
            prompt_text: None,
        },
    )
    .await
    .expect_err("answered without the browser's close");
    assert_eq!(err.kind(), Some(ErrorKind::Timeout), "{err}");
    assert!(err.to_string().contains("did not report the dialog closed"));
    assert!(started.elapsed() < WAIT);
}

/// `page.dialog` with `params`, once the dialog the fake extension
/// announced has reached the daemon (its `dialog.opened`).
async fn answer_once_open(
    c: &mut cotab_host::client::Client,
    params: &DialogParams,
) -> Result<cotab_shared::controller::Acted, cotab_host::client::ClientError> {
    tokio::time::timeout(WAIT, async {
        while c.next_message().await.expect("the daemon is there")["method"] != "dialog.opened" {}
    })
    .await
    .expect("the dialog reaches the daemon in time");
    c.call::<Dialog>(params).await
}
