//! The broker's safety rules end to end over the sockets, against the fake
//! extension: takeover, leases between agents, selection fences, stale
//! frames, resume grace, developer mode and the media budget.

use crate::harness::{notification, tab, Daemon, FakeExt, Reply, Responder, Script, WAIT};
use cotab_host::client::Client;
use cotab_shared::controller::{
    Acquire, Capture, CaptureParams, Click, ClickParams, Empty, Evaluate, EvaluateParams,
    FrameGeometry, FrameId, ImageFormat, KeyDown, KeyParams, KeyUp, KeyUpParams, MouseDown,
    MouseMove, MouseUp, MouseUpParams, PointerParams, Resume, ResumeParams, SelectParams, Status,
    TabsSelect, Type, TypeParams,
};
use cotab_shared::input::InputEvent;
use cotab_shared::native::{Command, CommandClass, Event, Holder, SharedTabs, TabInfo};
use cotab_shared::{ErrorKind, TabId, PROTOCOL_VERSION};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

fn two_tabs() -> Script {
    Script {
        tabs: vec![tab(7), tab(9)],
        ..Script::default()
    }
}

async fn controller(d: &Daemon, name: &str, tab_id: i32) -> Client {
    let mut c = d.client().await;
    c.hello(name).await.expect("hello");
    c.call::<TabsSelect>(&SelectParams {
        tab_id: TabId(tab_id),
    })
    .await
    .expect("select");
    c.call::<Acquire>(&Empty {}).await.expect("acquire");
    c
}

fn human(id: i32, on: bool) -> TabInfo {
    TabInfo {
        human_control: on,
        ..tab(id)
    }
}

fn key(k: &str) -> KeyParams {
    KeyParams {
        key: k.into(),
        modifiers: vec![],
        expect: None,
    }
}

async fn capture(c: &mut Client) -> cotab_shared::controller::CaptureResult {
    c.call::<Capture>(&CaptureParams {
        format: ImageFormat::Png,
        quality: None,
        ..CaptureParams::default()
    })
    .await
    .expect("captured")
}

/// Reads responses until the one with `id`.
async fn response(c: &mut Client, id: i64) -> Value {
    loop {
        let msg = tokio::time::timeout(WAIT, c.next_message())
            .await
            .expect("in time")
            .expect("message");
        if msg["id"] == id {
            return msg;
        }
    }
}

#[tokio::test]
async fn takeover_releases_held_input_and_notifies_the_agent() {
    let d = Daemon::start().await;
    let mut ext = FakeExt::connect(&d.host_sock(), two_tabs()).await;
    let mut a = controller(&d, "alpha", 7).await;
    ext.controllers_until(|t| {
        t.iter()
            .any(|c| c.tab_id == TabId(7) && c.holder == Holder::agent("alpha"))
    })
    .await;
    a.call::<KeyDown>(&key("a")).await.expect("key down");
    let (down, class) = ext.next_cdp_class("Input.dispatchKeyEvent").await;
    assert_eq!(
        (down["type"].as_str(), class),
        (Some("keyDown"), CommandClass::Act)
    );
    capture(&mut a).await;
    a.call::<MouseDown>(&PointerParams {
        x: 10.0,
        y: 10.0,
        frame_id: None,
        button: None,
        expect: None,
    })
    .await
    .expect("mouse down");
    let (pressed, _) = ext.next_cdp_class("Input.dispatchMouseEvent").await;
    assert_eq!(pressed["type"], "mousePressed");
    assert_eq!(pressed["x"], 5.0, "image pixels / DPR 2");

    ext.event(Event::Shared(SharedTabs {
        tabs: vec![human(7, true), tab(9)],
    }));
    let mut released = Vec::new();
    while released.len() < 2 {
        let cmd = ext.next_command().await;
        if let (Some(call), Some(class)) = (cmd.call(), cmd.class()) {
            let (method, params) = (&call.method, &call.params);
            // The drawing of where the mouse down went, sent once it
            // answered (before the takeover), is the person's view.
            if method.starts_with("Overlay.") {
                continue;
            }
            assert_eq!(class, CommandClass::Release, "{method}");
            // The undo of what the agent's session set up on the tab (the
            // interception of file choosers) goes among the releases.
            if method.starts_with("Input.") {
                released.push(params["type"].as_str().unwrap_or_default().to_string());
            }
        }
    }
    released.sort();
    assert_eq!(released, vec!["keyUp", "mouseReleased"]);
    let n = notification(&mut a, "control.revoked").await;
    assert_eq!(n, json!({"tabId": 7, "reason": "human"}));
    ext.controllers_until(|t| {
        t.iter()
            .any(|c| c.tab_id == TabId(7) && c.holder == Holder::Human)
    })
    .await;
    let err = a
        .call::<Type>(&TypeParams {
            text: "x".into(),
            ..TypeParams::default()
        })
        .await
        .expect_err("person has control");
    assert_eq!(err.kind(), Some(ErrorKind::HumanHasControl));
    // The agent's own releases are answered without sending anything.
    let r = a
        .call::<KeyUp>(&KeyUpParams { key: "a".into() })
        .await
        .expect("key up");
    assert!(r.already_released);
    let r = a
        .call::<MouseUp>(&MouseUpParams { button: None })
        .await
        .expect("mouse up");
    assert!(r.already_released);
    // Hand back: nobody controls it until the agent acquires again.
    hand_back(&mut ext, &mut a).await;
}

/// The person hands tab 7 back (nobody controls it then), and `a`
/// acquires it again.
async fn hand_back(ext: &mut FakeExt, a: &mut Client) {
    ext.event(Event::Shared(SharedTabs {
        tabs: vec![tab(7), tab(9)],
    }));
    ext.controllers_until(|t| {
        t.iter()
            .any(|c| c.tab_id == TabId(7) && c.holder == Holder::Nobody)
    })
    .await;
    a.call::<Acquire>(&Empty {}).await.expect("acquire again");
}

/// Sends a key down, and returns the `type`s of the mouse events the fake
/// extension was asked for before it.
async fn mouse_events_before_a_key(ext: &mut FakeExt, a: &mut Client) -> Vec<String> {
    a.call::<KeyDown>(&key("a")).await.expect("key down");
    let mut seen = Vec::new();
    loop {
        if let Some(call) = ext.next_command().await.call() {
            let params = &call.params;
            match call.method.as_str() {
                "Input.dispatchKeyEvent" => return seen,
                "Input.dispatchMouseEvent" => {
                    seen.push(params["type"].as_str().unwrap_or_default().to_owned());
                }
                _ => {}
            }
        }
    }
}

#[tokio::test]
async fn a_second_agent_gets_no_control_but_may_capture() {
    let d = Daemon::start().await;
    let _ext = FakeExt::connect(&d.host_sock(), two_tabs()).await;
    let _a = controller(&d, "alpha", 7).await;
    let mut b = d.agent().await;
    b.call::<TabsSelect>(&SelectParams { tab_id: TabId(7) })
        .await
        .expect("select");
    let err = b.call::<Acquire>(&Empty {}).await.expect_err("taken");
    assert_eq!(err.kind(), Some(ErrorKind::NoControl));
    let err = b
        .call::<Type>(&TypeParams {
            text: "x".into(),
            ..TypeParams::default()
        })
        .await
        .expect_err("not ours");
    assert_eq!(err.kind(), Some(ErrorKind::NoControl));
    capture(&mut b).await;
}

#[tokio::test]
async fn selecting_during_a_slow_action_voids_it_with_tab_changed() {
    let d = Daemon::start().await;
    let gate = Arc::new(Notify::new());
    let mut ext = FakeExt::connect(
        &d.host_sock(),
        Script {
            gates: [("Input.insertText".to_string(), gate.clone())].into(),
            ..two_tabs()
        },
    )
    .await;
    let mut a = controller(&d, "alpha", 7).await;
    a.send_raw(r#"{"jsonrpc":"2.0","id":100,"method":"input.type","params":{"text":"slow"}}"#)
        .await
        .expect("sent");
    ext.next_cdp("Input.insertText").await;
    a.send_raw(r#"{"jsonrpc":"2.0","id":101,"method":"tabs.select","params":{"tabId":9}}"#)
        .await
        .expect("sent");
    let r = response(&mut a, 101).await;
    assert_eq!(r["result"]["selectionRevision"], 2);
    gate.notify_one();
    let r = response(&mut a, 100).await;
    assert_eq!(r["error"]["data"]["kind"], "TAB_CHANGED", "{r}");
}

#[tokio::test]
async fn a_main_frame_navigation_makes_the_frame_stale() {
    let d = Daemon::start().await;
    let mut ext = FakeExt::connect(&d.host_sock(), two_tabs()).await;
    let mut a = controller(&d, "alpha", 7).await;
    let click = |frame_id| ClickParams {
        frame_id,
        ..ClickParams::at(20.0, 20.0)
    };
    let err = a.call::<Click>(&click(None)).await.expect_err("no frame");
    assert_eq!(err.kind(), Some(ErrorKind::StaleFrame));
    let shot = capture(&mut a).await;
    assert_eq!(shot.geometry.viewport_width, 50.0);
    a.call::<Click>(&click(Some(shot.frame_id.clone())))
        .await
        .expect("clicked");
    let (released, class) = loop {
        let (p, class) = ext.next_cdp_class("Input.dispatchMouseEvent").await;
        if p["type"] == "mouseReleased" {
            break (p, class);
        }
    };
    assert_eq!(released["x"], 10.0);
    assert_eq!(class, CommandClass::Release);
    // A sub-frame navigation changes nothing; a main-frame one does.
    ext.event(Event::Cdp {
        session: None,
        tab_id: TabId(7),
        method: "Page.frameNavigated".into(),
        params: json!({"frame": {"id": "sub", "parentId": "main", "url": "http://x/"}}),
    });
    a.call::<Click>(&click(Some(shot.frame_id.clone())))
        .await
        .expect("still fresh");
    ext.event(Event::Cdp {
        session: None,
        tab_id: TabId(7),
        method: "Page.frameNavigated".into(),
        // Another page of the tab's own site: another site would be
        // refused for its site first.
        params: json!({"frame": {"id": "main", "url": "http://example.test/next"}}),
    });
    let give_up = tokio::time::Instant::now() + WAIT;
    loop {
        match a.call::<Click>(&click(Some(shot.frame_id.clone()))).await {
            Err(e) => {
                assert_eq!(e.kind(), Some(ErrorKind::StaleFrame));
                break;
            }
            Ok(_) => assert!(tokio::time::Instant::now() < give_up, "never went stale"),
        }
    }
}

#[tokio::test]
async fn input_at_a_frame_carries_its_viewport_and_is_refused_once_the_page_scrolled() {
    let (scroll, responder) = scrolling_page();
    let (_d, mut ext, mut a, shot) = captured(Script {
        responder: Some(responder),
        ..two_tabs()
    })
    .await;
    let at = |x, y| PointerParams {
        x,
        y,
        frame_id: Some(shot.frame_id.clone()),
        button: None,
        expect: None,
    };
    // A press: the daemon reads the viewport before it, so that it is
    // never held back in the extension behind a check.
    a.call::<MouseDown>(&at(10.0, 10.0)).await.expect("pressed");
    let press = next_mouse_event(&mut ext).await;
    assert_eq!(
        (press.0["type"].as_str(), press.1),
        (Some("mousePressed"), None)
    );
    // A move names the frame's viewport for the extension to check right
    // before it, in the same trip. Scrolled by less than the tolerance:
    // still the frame's viewport.
    scroll_to(&scroll, 0.75);
    a.call::<MouseMove>(&at(12.0, 10.0)).await.expect("moved");
    let moved = next_mouse_event(&mut ext).await;
    assert_eq!(moved.0["type"], "mouseMoved");
    assert_eq!(moved.1, Some(shot.geometry.clone()));
    // Scrolled by more: refused, and the held button does not move with
    // the refused move; its release goes where the last move went.
    scroll_to(&scroll, 30.0);
    let err = a
        .call::<MouseMove>(&at(40.0, 20.0))
        .await
        .expect_err("the page scrolled");
    assert_eq!(err.kind(), Some(ErrorKind::StaleFrame), "{err}");
    let r = a
        .call::<MouseUp>(&MouseUpParams { button: None })
        .await
        .expect("mouse up");
    assert!(!r.already_released);
    let released = loop {
        let (p, class) = ext.next_cdp_class("Input.dispatchMouseEvent").await;
        if p["type"] == "mouseReleased" {
            break (p, class);
        }
    };
    assert_eq!(
        (&released.0["x"], &released.0["y"], released.1),
        (&json!(6.0), &json!(5.0), CommandClass::Release),
        "{released:?}"
    );
    // A press (checked by the daemon) and a click (its move checked by
    // the extension, its press recorded before) refused for the scroll
    // never reached the page: nothing to release, so the next input the
    // extension is asked for is the key.
    let err = a
        .call::<MouseDown>(&at(10.0, 10.0))
        .await
        .expect_err("the page scrolled");
    assert_eq!(err.kind(), Some(ErrorKind::StaleFrame), "{err}");
    assert_eq!(
        refused_click(&mut a, &shot.frame_id).await,
        Some(ErrorKind::StaleFrame),
        "the page scrolled"
    );
    // The extension refused the click at its viewport check: it sent
    // none of its events, and the daemon sends no release.
    assert_eq!(
        mouse_events_before_a_key(&mut ext, &mut a).await,
        Vec::<String>::new()
    );
}

#[tokio::test]
async fn a_click_refused_for_its_frame_after_a_takeover_releases_nothing() {
    let (scroll, responder) = scrolling_page();
    let gate = Arc::new(Notify::new());
    let (_d, mut ext, mut a, shot) = captured(Script {
        responder: Some(responder),
        gates: [("Input.dispatchMouseEvent".to_string(), gate.clone())].into(),
        ..two_tabs()
    })
    .await;
    scroll_to(&scroll, 30.0);
    let click = json!({"jsonrpc":"2.0","id":100,"method":"input.click",
                       "params":{"x":10,"y":10,"frameId":shot.frame_id}});
    a.send_raw(&click.to_string()).await.expect("sent");
    // The click is with the extension, its press recorded, when the
    // person takes control; then the extension refuses it for its frame.
    let (events, viewport) = next_input(&mut ext).await;
    let kinds: Vec<_> = events.iter().map(|e| e.params["type"].clone()).collect();
    assert_eq!(
        (kinds, viewport),
        (
            vec![
                json!("mouseMoved"),
                json!("mousePressed"),
                json!("mouseReleased")
            ],
            Some(shot.geometry.clone())
        )
    );
    ext.event(Event::Shared(SharedTabs {
        tabs: vec![human(7, true), tab(9)],
    }));
    notification(&mut a, "control.revoked").await;
    gate.notify_one();
    let r = response(&mut a, 100).await;
    assert_eq!(r["error"]["data"]["kind"], "STALE_FRAME", "{r}");
    // Handed back and acquired again: the next input the extension is
    // asked for is the agent's key, not a release of the refused press.
    hand_back(&mut ext, &mut a).await;
    assert_eq!(
        mouse_events_before_a_key(&mut ext, &mut a).await,
        Vec::<String>::new()
    );
}

#[tokio::test]
async fn a_click_cut_short_by_a_dialog_leaves_its_releases_to_the_extension() {
    let gate = Arc::new(Notify::new());
    let (_d, mut ext, mut a, shot) = captured(Script {
        gates: [("Input.dispatchMouseEvent".to_string(), gate.clone())].into(),
        ..two_tabs()
    })
    .await;
    let click = json!({"jsonrpc":"2.0","id":100,"method":"input.click",
                       "params":{"x":10,"y":10,"frameId":shot.frame_id,"clickCount":2,
                                 "modifiers":["Shift"]}});
    a.send_raw(&click.to_string()).await.expect("sent");
    // The whole double click, its move checked against the frame, goes
    // to the extension as one command.
    let (events, viewport) = next_input(&mut ext).await;
    assert_eq!(viewport, Some(shot.geometry.clone()));
    let fields: Vec<_> = events
        .iter()
        .map(|e| {
            let p = &e.params;
            (
                e.method.as_str(),
                p["type"].clone(),
                p["x"].clone(),
                p["buttons"].clone(),
                p["clickCount"].clone(),
                p["modifiers"].clone(),
                e.class(),
            )
        })
        .collect();
    let (x, shift) = (json!(5.0), json!(8));
    let event = |kind: &str, buttons: u32, count: Value, class| {
        (
            "Input.dispatchMouseEvent",
            json!(kind),
            x.clone(),
            json!(buttons),
            count,
            shift.clone(),
            class,
        )
    };
    assert_eq!(
        fields,
        vec![
            event("mouseMoved", 0, Value::Null, CommandClass::Act),
            event("mousePressed", 1, json!(1), CommandClass::Act),
            event("mouseReleased", 0, json!(1), CommandClass::Release),
            event("mousePressed", 1, json!(2), CommandClass::Act),
            event("mouseReleased", 0, json!(2), CommandClass::Release),
        ]
    );
    // A dialog opens while the extension is still at it: the agent hears
    // at once — the click succeeded and opened it — and the daemon sends
    // no release of its own (the extension's may be on its way: a second
    // would reach the page).
    ext.event(Event::Cdp {
        session: None,
        tab_id: TabId(7),
        method: "Page.javascriptDialogOpening".into(),
        params: json!({"message": "hi", "type": "alert"}),
    });
    let r = response(&mut a, 100).await;
    assert_eq!(
        r["result"]["dialog"],
        json!({"tabId": 7, "type": "alert", "message": "hi"}),
        "{r}"
    );
    ext.event(Event::Cdp {
        session: None,
        tab_id: TabId(7),
        method: "Page.javascriptDialogClosed".into(),
        params: json!({"result": true}),
    });
    gate.notify_one();
    // The events the fake extension sent for the command (it keeps no
    // dialog rule: the real one sends no second press after a dialog) and
    // no release of the daemon's; the press record is gone, so the button
    // can be pressed again.
    assert_eq!(
        mouse_events_before_a_key(&mut ext, &mut a).await,
        [
            "mouseMoved",
            "mousePressed",
            "mouseReleased",
            "mousePressed",
            "mouseReleased"
        ]
    );
    // (The press's answer passes the same gate.)
    gate.notify_one();
    a.call::<MouseDown>(&PointerParams {
        x: 10.0,
        y: 10.0,
        frame_id: Some(shot.frame_id.clone()),
        button: None,
        expect: None,
    })
    .await
    .expect("not held any more");
}

#[tokio::test]
async fn a_click_whose_move_fails_is_handed_over_whole_and_answers_the_failure() {
    let responder: Responder = Arc::new(|_, method, params| {
        (method == "Input.dispatchMouseEvent" && params["type"] == "mouseMoved")
            .then_some(Reply::Err(ErrorKind::CommandFailed, "Internal error"))
    });
    let (_d, mut ext, mut a, shot) = captured(Script {
        responder: Some(responder),
        ..two_tabs()
    })
    .await;
    assert_eq!(
        refused_click(&mut a, &shot.frame_id).await,
        Some(ErrorKind::CommandFailed),
        "the move failed"
    );
    // The move, the press and the release went to the browser together:
    // the press came with its release, and the move's failure is the
    // answer.
    assert_eq!(
        mouse_events_before_a_key(&mut ext, &mut a).await,
        vec!["mouseMoved", "mousePressed", "mouseReleased"]
    );
}

/// A daemon, the fake extension following `script`, agent `alpha` in
/// control of tab 7, and a capture of it.
async fn captured(
    script: Script,
) -> (
    Daemon,
    FakeExt,
    Client,
    cotab_shared::controller::CaptureResult,
) {
    let d = Daemon::start().await;
    let ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut a = controller(&d, "alpha", 7).await;
    let shot = capture(&mut a).await;
    (d, ext, a, shot)
}

/// The kind of the error of an `input.click` at (10, 10) of `frame`,
/// which must fail.
async fn refused_click(a: &mut Client, frame: &FrameId) -> Option<ErrorKind> {
    a.call::<Click>(&ClickParams {
        frame_id: Some(frame.clone()),
        ..ClickParams::at(10.0, 10.0)
    })
    .await
    .expect_err("a refused click")
    .kind()
}

/// A 50×25 page whose vertical scroll offset the test moves
/// ([`scroll_to`]), and the responder that reports it.
fn scrolling_page() -> (Arc<Mutex<f64>>, Responder) {
    let scroll = Arc::new(Mutex::new(0.0_f64));
    let page_y = scroll.clone();
    let responder: Responder = Arc::new(move |_, method, _| match method {
        "Page.getLayoutMetrics" => {
            let y = *page_y.lock().unwrap_or_else(|e| e.into_inner());
            Reply::ok(
                json!({"cssVisualViewport": {"clientWidth": 50, "clientHeight": 25,
                             "pageX": 0, "pageY": y, "zoom": 1}}),
            )
        }
        _ => None,
    });
    (scroll, responder)
}

fn scroll_to(scroll: &Mutex<f64>, y: f64) {
    *scroll.lock().unwrap_or_else(|e| e.into_inner()) = y;
}

/// The next `input` command the fake extension is asked for: its events
/// and the frame it is checked against.
async fn next_input(ext: &mut FakeExt) -> (Vec<InputEvent>, Option<FrameGeometry>) {
    loop {
        if let Command::Input { events, frame, .. } = ext.next_command().await {
            return (events, frame);
        }
    }
}

/// The next `Input.dispatchMouseEvent` the fake extension is asked for:
/// its params and the frame it is checked against
/// ([`Command::ActInFrame`]).
async fn next_mouse_event(ext: &mut FakeExt) -> (Value, Option<FrameGeometry>) {
    loop {
        let command = ext.next_command().await;
        let frame = match &command {
            Command::ActInFrame { frame, .. } => Some(frame.clone()),
            _ => None,
        };
        if let Some(call) = command.call() {
            if call.method == "Input.dispatchMouseEvent" {
                return (call.params.clone(), frame);
            }
        }
    }
}

#[tokio::test]
async fn a_dropped_connection_past_the_grace_releases_held_keys() {
    let d = Daemon::start_with(Duration::from_secs(10), Duration::from_millis(200)).await;
    let mut ext = FakeExt::connect(&d.host_sock(), two_tabs()).await;
    let mut a = controller(&d, "alpha", 7).await;
    a.call::<KeyDown>(&key("Enter")).await.expect("key down");
    let (down, _) = ext.next_cdp_class("Input.dispatchKeyEvent").await;
    assert_eq!(down["type"], "keyDown");
    drop(a);
    let (up, class) = ext.next_cdp_class("Input.dispatchKeyEvent").await;
    assert_eq!(
        (up["type"].as_str(), class),
        (Some("keyUp"), CommandClass::Release)
    );
    ext.controllers_until(|t| {
        t.iter()
            .any(|c| c.tab_id == TabId(7) && c.holder == Holder::Nobody)
    })
    .await;
}

#[tokio::test]
async fn developer_mode_off_voids_an_inflight_evaluate() {
    let d = Daemon::start().await;
    let gate = Arc::new(Notify::new());
    let mut ext = FakeExt::connect(
        &d.host_sock(),
        Script {
            gates: [("Runtime.evaluate".to_string(), gate.clone())].into(),
            ..two_tabs()
        },
    )
    .await;
    let mut a = controller(&d, "alpha", 7).await;
    let eval = EvaluateParams {
        expression: "1 + 1".into(),
        await_promise: None,
    };
    let err = a.call::<Evaluate>(&eval).await.expect_err("off by default");
    assert_eq!(err.kind(), Some(ErrorKind::DeveloperModeOff));
    ext.event(Event::DeveloperMode { enabled: true });
    let n = notification(&mut a, "developerMode.changed").await;
    assert_eq!(n["enabled"], true);
    a.send_raw(
        r#"{"jsonrpc":"2.0","id":200,"method":"page.evaluate","params":{"expression":"1 + 1"}}"#,
    )
    .await
    .expect("sent");
    let (_, class) = ext.next_cdp_class("Runtime.evaluate").await;
    assert_eq!(class, CommandClass::Privileged);
    ext.event(Event::DeveloperMode { enabled: false });
    let n = notification(&mut a, "developerMode.changed").await;
    assert_eq!(n["enabled"], false);
    gate.notify_one();
    let r = response(&mut a, 200).await;
    assert_eq!(r["error"]["data"]["kind"], "DEVELOPER_MODE_OFF", "{r}");
}

#[tokio::test]
async fn captures_past_the_media_budget_are_busy() {
    let d = Daemon::start().await;
    let _ext = FakeExt::connect(
        &d.host_sock(),
        Script {
            silent: ["Page.captureScreenshot".to_string()].into(),
            ..two_tabs()
        },
    )
    .await;
    let mut a = controller(&d, "alpha", 7).await;
    let n = cotab_shared::limits::MAX_MEDIA_IN_FLIGHT_PER_CONNECTION as i64;
    for id in 1..=n + 1 {
        a.send_raw(&format!(
            r#"{{"jsonrpc":"2.0","id":{},"method":"page.capture","params":{{}}}}"#,
            1000 + id
        ))
        .await
        .expect("sent");
    }
    let r = response(&mut a, 1000 + n + 1).await;
    assert_eq!(r["error"]["data"]["kind"], "BUSY", "{r}");
    // Other methods still have room.
    a.send_raw(r#"{"jsonrpc":"2.0","id":5,"method":"host.status"}"#)
        .await
        .expect("sent");
    let r = response(&mut a, 5).await;
    assert!(r["result"]["pid"].is_number(), "{r}");
}

/// Review finding: after another connection resumed the session, the old
/// connection still answered `host.status` as if it had a session, and
/// still received the session's notifications (`control.revoked`
/// included).
#[tokio::test]
async fn a_connection_whose_session_was_resumed_elsewhere_has_no_session() {
    let d = Daemon::start().await;
    let ext = FakeExt::connect(&d.host_sock(), two_tabs()).await;
    let mut old = d.client().await;
    let hello = old.hello("alpha").await.expect("hello");
    old.call::<TabsSelect>(&SelectParams { tab_id: TabId(7) })
        .await
        .expect("select");
    old.call::<Acquire>(&Empty {}).await.expect("acquire");
    let mut new = d.client().await;
    new.call::<Resume>(&ResumeParams {
        protocol_version: PROTOCOL_VERSION,
        ticket: hello.ticket,
    })
    .await
    .expect("resumed");
    let err = old
        .call::<Status>(&Empty {})
        .await
        .expect_err("the session moved");
    assert_eq!(err.kind(), Some(ErrorKind::AuthenticationFailed));

    ext.event(Event::Shared(SharedTabs {
        tabs: vec![human(7, true), tab(9)],
    }));
    let n = notification(&mut new, "control.revoked").await;
    assert_eq!(n, json!({"tabId": 7, "reason": "human"}));
    // Up to the answers of two later requests, the old connection gets no
    // notification at all.
    for id in [300, 301] {
        old.send_raw(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"host.status"}}"#
        ))
        .await
        .expect("sent");
        loop {
            let msg = tokio::time::timeout(WAIT, old.next_message())
                .await
                .expect("in time")
                .expect("message");
            assert!(msg.get("method").is_none(), "the old connection got {msg}");
            if msg["id"] == id {
                break;
            }
        }
    }
}
