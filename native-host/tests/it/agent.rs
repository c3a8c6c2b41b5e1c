//! The controller link against an in-process daemon and a fake extension.

use crate::harness::{tab, Daemon, FakeExt, Script, WAIT};
use cotab_shared::controller::{
    Acquire, Capture, CaptureParams, Click, ClickParams, Empty, ImageFormat, LaneState, Navigate,
    NavigateParams, Press, PressParams, Resume, ResumeParams, SelectParams, Status, TabsList,
    TabsSelect, Type, TypeParams, INVALID_PARAMS, METHOD_NOT_FOUND, PARSE_ERROR,
};
use cotab_shared::{ErrorKind, TabId, PROTOCOL_VERSION};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

fn one_tab() -> Script {
    Script {
        tabs: vec![tab(7)],
        ..Script::default()
    }
}

async fn selected_agent(d: &Daemon) -> cotab_host::client::Client {
    let mut c = d.agent().await;
    c.call::<TabsSelect>(&SelectParams { tab_id: TabId(7) })
        .await
        .expect("select");
    c.call::<Acquire>(&Empty {}).await.expect("acquire");
    c
}

#[tokio::test]
async fn tabs_list_shows_only_shared_tabs() {
    let d = Daemon::start().await;
    let _ext = FakeExt::connect(&d.host_sock(), one_tab()).await;
    let mut c = d.agent().await;
    let list = c.call::<TabsList>(&Empty {}).await.expect("list");
    assert_eq!(list.tabs.len(), 1);
    assert_eq!(list.tabs[0].id, TabId(7));
    assert!(!list.tabs[0].selected);
    c.call::<TabsSelect>(&SelectParams { tab_id: TabId(7) })
        .await
        .expect("select");
    let list = c.call::<TabsList>(&Empty {}).await.expect("list");
    assert!(list.tabs[0].selected);
}

#[tokio::test]
async fn selecting_an_unshared_tab_is_refused() {
    let d = Daemon::start().await;
    let _ext = FakeExt::connect(&d.host_sock(), one_tab()).await;
    let mut c = d.agent().await;
    let err = c
        .call::<TabsSelect>(&SelectParams { tab_id: TabId(8) })
        .await
        .expect_err("not shared");
    assert_eq!(err.kind(), Some(ErrorKind::TabNotShared));
}

/// A navigation to `http://example.test/next` sent on `d`'s one tab whose
/// load event the fake extension holds until the returned gate opens; the
/// call runs in its own task.
async fn held_navigation(
    d: &Daemon,
) -> (
    FakeExt,
    Arc<Notify>,
    tokio::task::JoinHandle<
        Result<cotab_shared::controller::NavigateResult, cotab_host::client::ClientError>,
    >,
) {
    let gate = Arc::new(Notify::new());
    let mut ext = FakeExt::connect(
        &d.host_sock(),
        Script {
            hold_load: Some(gate.clone()),
            ..one_tab()
        },
    )
    .await;
    let mut c = selected_agent(d).await;
    let call = tokio::spawn(async move {
        c.call::<Navigate>(&NavigateParams::to("http://example.test/next"))
            .await
    });
    let params = ext.next_cdp("Page.navigate").await;
    assert_eq!(params["url"], "http://example.test/next");
    (ext, gate, call)
}

#[tokio::test]
async fn navigate_waits_for_the_load_event() {
    let d = Daemon::start().await;
    let (mut ext, gate, mut call) = held_navigation(&d).await;
    // Without the load event the call must not finish.
    assert!(tokio::time::timeout(Duration::from_millis(200), &mut call)
        .await
        .is_err());
    gate.notify_one();
    let r = tokio::time::timeout(WAIT, call)
        .await
        .expect("in time")
        .expect("task")
        .expect("navigated");
    assert_eq!(r.title, "Loaded");
    assert_eq!(r.url, "http://example.test/done");
    ext.next_cdp("Runtime.evaluate").await;
}

#[tokio::test]
async fn a_navigation_on_a_tab_that_closes_fails_at_once() {
    // A deadline far beyond the test's wait: only the close can end it.
    let d = Daemon::start_with_deadline(Duration::from_secs(60)).await;
    let (ext, _gate, call) = held_navigation(&d).await;
    // The person closes the tab while its page loads.
    ext.event(cotab_shared::native::Event::TabClosed {
        tab_id: TabId(7),
        with_window: false,
    });
    let err = tokio::time::timeout(WAIT, call)
        .await
        .expect("failed at once, not at the deadline")
        .expect("task")
        .expect_err("the tab is gone");
    assert_eq!(err.kind(), Some(ErrorKind::TabNotShared), "{err}");
    assert!(err.to_string().contains("was closed"), "{err}");
}

#[tokio::test]
async fn navigate_refuses_other_schemes_and_non_urls() {
    let d = Daemon::start().await;
    let _ext = FakeExt::connect(&d.host_sock(), one_tab()).await;
    let mut c = selected_agent(&d).await;
    let err = c
        .call::<Navigate>(&NavigateParams::to("file:///etc/passwd"))
        .await
        .expect_err("blocked");
    assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget));
    let err = c
        .call::<Navigate>(&NavigateParams::to("not a url secret-q"))
        .await
        .expect_err("invalid");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));
    assert!(!err.to_string().contains("secret-q"));
}

#[tokio::test]
async fn press_enter_sends_key_down_with_text_then_key_up() {
    let d = Daemon::start().await;
    let mut ext = FakeExt::connect(&d.host_sock(), one_tab()).await;
    let mut c = selected_agent(&d).await;
    c.call::<Press>(&PressParams {
        key: "Enter".into(),
        modifiers: vec![],
        expect: None,
    })
    .await
    .expect("pressed");
    let down = ext.next_cdp("Input.dispatchKeyEvent").await;
    assert_eq!(down["type"], "keyDown");
    assert_eq!(down["text"], "\r");
    assert_eq!(down["windowsVirtualKeyCode"], 13);
    let up = ext.next_cdp("Input.dispatchKeyEvent").await;
    assert_eq!(up["type"], "keyUp");
    let err = c
        .call::<Press>(&PressParams {
            key: "Hyperdrive".into(),
            modifiers: vec![],
            expect: None,
        })
        .await
        .expect_err("unknown key");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));
    assert!(!err.to_string().contains("Hyperdrive"));
}

#[tokio::test]
async fn capture_reads_geometry_and_click_scales_by_dpr() {
    let d = Daemon::start().await;
    let mut ext = FakeExt::connect(&d.host_sock(), one_tab()).await;
    let mut c = selected_agent(&d).await;
    let shot = c
        .call::<Capture>(&CaptureParams {
            format: ImageFormat::Png,
            quality: None,
            ..CaptureParams::default()
        })
        .await
        .expect("captured");
    assert_eq!(
        (shot.width, shot.height, shot.device_pixel_ratio),
        (100, 50, 2.0)
    );
    let err = c
        .call::<Capture>(&CaptureParams {
            format: ImageFormat::Png,
            quality: Some(5),
            ..CaptureParams::default()
        })
        .await
        .expect_err("quality with png");
    assert!(err.to_string().contains("params.quality"), "{err}");
    c.call::<Click>(&ClickParams::at(100.0, 50.0))
        .await
        .expect("clicked");
    let moved = ext.next_cdp("Input.dispatchMouseEvent").await;
    assert_eq!(
        (
            moved["type"].as_str(),
            moved["x"].as_f64(),
            moved["y"].as_f64()
        ),
        (Some("mouseMoved"), Some(50.0), Some(25.0))
    );
    let pressed = ext.next_cdp("Input.dispatchMouseEvent").await;
    assert_eq!(
        (pressed["type"].as_str(), pressed["buttons"].as_u64()),
        (Some("mousePressed"), Some(1))
    );
    let released = ext.next_cdp("Input.dispatchMouseEvent").await;
    assert_eq!(released["type"], "mouseReleased");
    let err = c
        .call::<Click>(&ClickParams::at(-1.0, 0.0))
        .await
        .expect_err("negative");
    assert!(err.to_string().contains("params.x"), "{err}");
}

#[tokio::test]
async fn malformed_json_gets_a_parse_error_and_the_connection_lives_on() {
    let d = Daemon::start().await;
    let mut c = d.agent().await;
    let r = c.call_raw("{not json").await.expect("an answer");
    assert_eq!(r["error"]["code"], PARSE_ERROR);
    assert!(r["id"].is_null());
    c.call::<Status>(&Empty {}).await.expect("still usable");
}

#[tokio::test]
async fn unknown_method_is_method_not_found() {
    let d = Daemon::start().await;
    let mut c = d.agent().await;
    let r = c
        .call_raw(r#"{"jsonrpc":"2.0","id":41,"method":"tabs.explode"}"#)
        .await
        .expect("an answer");
    assert_eq!(r["id"], 41);
    assert_eq!(r["error"]["code"], METHOD_NOT_FOUND);
}

#[tokio::test]
async fn invalid_params_name_the_field_without_the_value() {
    let d = Daemon::start().await;
    let mut c = d.agent().await;
    let r = c
        .call_raw(
            r#"{"jsonrpc":"2.0","id":1,"method":"tabs.select","params":{"tabId":"secret-xyz"}}"#,
        )
        .await
        .expect("an answer");
    assert_eq!(r["error"]["code"], INVALID_PARAMS);
    let msg = r["error"]["message"].as_str().expect("message");
    assert!(msg.contains("params.tabId"), "{msg}");
    assert!(!msg.contains("secret-xyz"), "{msg}");
}

#[tokio::test]
async fn an_overlong_line_closes_only_that_connection() {
    let d = Daemon::start().await;
    let mut victim = d.agent().await;
    let mut other = d.agent().await;
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"input.type","params":{{"text":"{}"}}}}"#,
        "x".repeat(cotab_shared::limits::MAX_CONTROLLER_LINE + 16)
    );
    let r = victim.call_raw(&long).await.expect("an answer");
    assert!(r["id"].is_null());
    assert_eq!(r["error"]["message"], "line too long");
    assert_eq!(r["error"]["data"]["kind"], "INVALID_REQUEST");
    assert!(
        victim.next_message().await.is_err(),
        "the connection is closed"
    );
    other
        .call::<Status>(&Empty {})
        .await
        .expect("other connection still works");
}

#[tokio::test]
async fn calls_before_hello_are_refused() {
    let d = Daemon::start().await;
    let mut c = d.client().await;
    let err = c.call::<Status>(&Empty {}).await.expect_err("no session");
    assert_eq!(err.kind(), Some(ErrorKind::AuthenticationFailed));
    let err = c
        .call::<Resume>(&ResumeParams {
            protocol_version: PROTOCOL_VERSION,
            ticket: cotab_shared::Ticket("bogus".into()),
        })
        .await
        .expect_err("unknown ticket");
    assert_eq!(err.kind(), Some(ErrorKind::AuthenticationFailed));
}

#[tokio::test]
async fn a_name_the_person_could_not_read_as_it_is_is_refused() {
    let d = Daemon::start().await;
    for bad in [
        "",
        "   ",
        "ada\nyou have control",
        "ada\u{202e}lortnoc",
        "\u{2066}ada",
        "ada\u{7}",
    ] {
        let mut c = d.client().await;
        let err = c.hello(bad).await.expect_err(bad);
        assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest), "{bad:?}");
    }
    let mut c = d.client().await;
    c.hello("Ada · the agent (é)")
        .await
        .expect("a name of words");
}

#[tokio::test]
async fn resume_keeps_the_selection_across_connections() {
    let d = Daemon::start().await;
    let _ext = FakeExt::connect(&d.host_sock(), one_tab()).await;
    let mut c = d.client().await;
    let hello = c.hello("resumer").await.expect("hello");
    c.call::<TabsSelect>(&SelectParams { tab_id: TabId(7) })
        .await
        .expect("select");
    c.call::<Acquire>(&Empty {}).await.expect("acquire");
    drop(c);
    let mut c = d.client().await;
    // Resuming takes the session even if the old connection has not been
    // noticed as closed yet.
    let r = c
        .call::<Resume>(&ResumeParams {
            protocol_version: PROTOCOL_VERSION,
            ticket: hello.ticket.clone(),
        })
        .await
        .expect("resumed");
    assert_eq!(r.selected_tab, Some(TabId(7)));
    c.call::<Type>(&TypeParams {
        text: "hi".into(),
        ..TypeParams::default()
    })
    .await
    .expect("typed");
}

#[tokio::test]
async fn lane_drop_fails_the_pending_call_with_unknown_outcome() {
    let d = Daemon::start().await;
    let mut ext = FakeExt::connect(
        &d.host_sock(),
        Script {
            silent: ["Input.insertText".to_string()].into(),
            ..one_tab()
        },
    )
    .await;
    let mut c = selected_agent(&d).await;
    let call = tokio::spawn(async move {
        c.call::<Type>(&TypeParams {
            text: "hello".into(),
            ..TypeParams::default()
        })
        .await
    });
    let params = ext.next_cdp("Input.insertText").await;
    assert_eq!(params["text"], "hello");
    ext.disconnect();
    let err = tokio::time::timeout(WAIT, call)
        .await
        .expect("in time")
        .expect("task")
        .expect_err("dropped");
    assert_eq!(err.kind(), Some(ErrorKind::UnknownOutcome));
}

#[tokio::test]
async fn absent_lane_fails_at_once() {
    let d = Daemon::start().await;
    let mut c = d.agent().await;
    let status = c.call::<Status>(&Empty {}).await.expect("status");
    assert_eq!(status.lane, LaneState::Absent);
    let err = c.call::<TabsList>(&Empty {}).await.expect_err("absent");
    assert_eq!(err.kind(), Some(ErrorKind::LaneAbsent));
}

#[tokio::test]
async fn offline_lane_fails_with_runtime_lost_at_the_deadline() {
    let d = Daemon::start_with_deadline(Duration::from_millis(300)).await;
    let ext = FakeExt::connect(&d.host_sock(), one_tab()).await;
    let mut c = selected_agent(&d).await;
    let s = c.call::<Status>(&Empty {}).await.expect("status");
    assert_eq!((s.lane, s.shared_tabs), (LaneState::Online, 1));
    ext.disconnect();
    let give_up = tokio::time::Instant::now() + WAIT;
    loop {
        let s = c.call::<Status>(&Empty {}).await.expect("status");
        if s.lane == LaneState::Offline {
            assert_eq!(s.shared_tabs, 0, "no browser shares any tab now");
            break;
        }
        assert!(
            tokio::time::Instant::now() < give_up,
            "lane never went offline"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The lane's loss revoked the lease, so acting is refused at once;
    // observing waits for the lane until the deadline.
    let err = c
        .call::<Type>(&TypeParams {
            text: "x".into(),
            ..TypeParams::default()
        })
        .await
        .expect_err("no lease");
    assert_eq!(err.kind(), Some(ErrorKind::NoControl));
    let err = c.call::<TabsList>(&Empty {}).await.expect_err("lost");
    assert_eq!(err.kind(), Some(ErrorKind::RuntimeLost));
}

#[tokio::test]
async fn lane_events_reach_agents_as_notifications() {
    let d = Daemon::start().await;
    let mut c = d.agent().await;
    let _ext = FakeExt::connect(&d.host_sock(), one_tab()).await;
    let msg = tokio::time::timeout(WAIT, c.next_message())
        .await
        .expect("in time")
        .expect("message");
    assert_eq!(msg["method"], "lane.online");
}

#[tokio::test]
async fn a_press_waits_for_file_choosers_to_be_intercepted() {
    let d = Daemon::start().await;
    let gate = Arc::new(Notify::new());
    let mut ext = FakeExt::connect(
        &d.host_sock(),
        Script {
            gates: [(
                "Page.setInterceptFileChooserDialog".to_string(),
                gate.clone(),
            )]
            .into(),
            ..one_tab()
        },
    )
    .await;
    let mut c = selected_agent(&d).await;
    let press = tokio::spawn(async move {
        c.call::<Press>(&PressParams {
            key: "Enter".into(),
            modifiers: Vec::new(),
            expect: None,
        })
        .await
    });
    let on = ext.next_cdp("Page.setInterceptFileChooserDialog").await;
    assert_eq!(on["enabled"], true);
    // While the browser has not answered the "on", nothing of the press
    // goes: another agent's request overtakes it.
    let mut other = d.agent().await;
    other.call::<TabsList>(&Empty {}).await.expect("listed");
    gate.notify_one();
    let mut order = Vec::new();
    while order.len() < 2 {
        match ext.next_command().await {
            cotab_shared::native::Command::ListShared => order.push("list"),
            cotab_shared::native::Command::Input { .. } => order.push("input"),
            _ => {}
        }
    }
    assert_eq!(order, ["list", "input"]);
    tokio::time::timeout(WAIT, press)
        .await
        .expect("in time")
        .expect("task")
        .expect("pressed");
}
