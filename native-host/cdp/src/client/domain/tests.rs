//! The browser-level messages read and written as the protocol names them.

use super::*;
use serde_json::json;

fn page_info() -> TargetInfo {
    TargetInfo {
        target_id: "T1".into(),
        kind: "page",
        title: "Inbox".into(),
        url: "https://mail.example/".into(),
        attached: true,
        opener_id: None,
        can_access_opener: false,
        browser_context_id: Some("ctx"),
    }
}

#[test]
fn events_read_as_the_browsers_on_the_session_they_go_to() {
    let info = page_info();
    let attached = Event::AttachedToTarget {
        session_id: "S1",
        target_info: &info,
        waiting_for_debugger: false,
    };
    assert_eq!(
        attached.message(Some("B1")),
        json!({
            "method": "Target.attachedToTarget",
            "params": {
                "sessionId": "S1",
                "targetInfo": {
                    "targetId": "T1", "type": "page", "title": "Inbox",
                    "url": "https://mail.example/", "attached": true,
                    "canAccessOpener": false, "browserContextId": "ctx",
                },
                "waitingForDebugger": false,
            },
            "sessionId": "B1",
        })
    );
    let gone = Event::DetachedFromTarget {
        session_id: "S1",
        target_id: "T1",
    };
    assert_eq!(
        gone.message(None),
        json!({"method": "Target.detachedFromTarget", "params": {"sessionId": "S1", "targetId": "T1"}})
    );
    let mut opened = page_info();
    opened.opener_id = Some("T0".into());
    let created = Event::TargetCreated {
        target_info: &opened,
    }
    .message(None);
    assert_eq!(created["params"]["targetInfo"]["openerId"], "T0");
}

#[test]
fn params_of_the_wrong_shape_are_refused_as_the_browser_refuses_them() {
    let ok: AttachToTarget = params(json!({"targetId": "T1", "flatten": true, "extra": 1}))
        .expect("unknown fields are ignored");
    assert!(ok.flatten && ok.target_id == "T1");
    for bad in [json!({}), json!({"targetId": 7}), json!([]), Value::Null] {
        let e = params::<AttachToTarget>(bad.clone()).expect_err("refused");
        assert_eq!(e.code, -32602, "{bad}");
        assert!(e.message.starts_with("Invalid parameters"), "{}", e.message);
    }
    let auto: SetAutoAttach = params(json!({"autoAttach": true})).expect("auto-attach");
    assert!(auto.auto_attach && !auto.wait_for_debugger_on_start);
    assert!(params::<SetAutoAttach>(json!({"autoAttach": "yes"})).is_err());
    let whole: GetTargetInfo = params(json!({})).expect("the browser's own");
    assert_eq!(whole.target_id, None);
}

#[test]
fn a_tabs_children_are_asked_for_as_flat_frames_and_workers() {
    assert_eq!(
        result(&AutoAttachChildren::on(true)).expect("json"),
        json!({
            "autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true,
            "filter": [{"type": "iframe"}, {"type": "worker"}],
        })
    );
    assert_eq!(
        result(&AutoAttachChildren::off()).expect("json"),
        json!({"autoAttach": false, "waitForDebuggerOnStart": false, "flatten": true})
    );
}
