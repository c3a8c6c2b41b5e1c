//! The typed CDP layer's tests: params as the browser names them, results
//! and events read by shape.

use super::*;
use serde_json::json;

#[test]
fn params_are_the_browsers_names() {
    assert_eq!(
        Evaluate::by_value("1").params(),
        json!({"expression": "1", "returnByValue": true})
    );
    assert_eq!(
        CallFunctionOn {
            object_id: "o",
            function_declaration: "f",
            arguments: vec![
                CallArgument::Value(json!(2)),
                CallArgument::ObjectId("p".into())
            ],
            return_by_value: true,
            await_promise: true,
        }
        .params(),
        json!({"objectId": "o", "functionDeclaration": "f",
               "arguments": [{"value": 2}, {"objectId": "p"}],
               "returnByValue": true, "awaitPromise": true})
    );
    assert_eq!(
        ResolveNode(Node { backend_node_id: 7 }).params(),
        json!({"backendNodeId": 7})
    );
    assert_eq!(
        GetNodeForLocation {
            x: 1.0,
            y: 2.0,
            include_user_agent_shadow_dom: false,
            ignore_pointer_events_none: true
        }
        .params(),
        json!({"x": 1.0, "y": 2.0, "includeUserAgentShadowDOM": false,
               "ignorePointerEventsNone": true})
    );
    assert_eq!(
        CaptureSnapshot {
            computed_styles: vec!["display".into()]
        }
        .params(),
        json!({"computedStyles": ["display"]})
    );
    assert_eq!(
        DescribeNode {
            object_id: "o1".into()
        }
        .params(),
        json!({"objectId": "o1"})
    );
    assert_eq!(
        MouseEvent {
            kind: "mouseWheel",
            x: 1.0,
            y: 2.0,
            delta_y: Some(-3.0),
            ..MouseEvent::default()
        }
        .params(),
        json!({"type": "mouseWheel", "x": 1.0, "y": 2.0, "deltaY": -3.0})
    );
    let press = crate::input::InputEvent::of(&MouseEvent {
        kind: "mousePressed",
        button: Some("left"),
        ..MouseEvent::default()
    });
    assert_eq!(
        press.role(),
        crate::input::InputRole::Press("button:left".into())
    );
    assert_eq!(GetLayoutMetrics {}.params(), json!({}));
    assert_eq!(
        HandleJavaScriptDialog {
            accept: true,
            prompt_text: None
        }
        .params(),
        json!({"accept": true})
    );
    assert_eq!(
        NavigateToHistoryEntry { entry_id: None }.params(),
        json!({"entryId": null})
    );
    assert_eq!(
        CaptureScreenshot {
            format: "png",
            quality: None,
            clip: None,
            capture_beyond_viewport: false,
        }
        .params(),
        json!({"format": "png"})
    );
}

#[test]
fn results_read_what_cotab_uses_and_refuse_another_shape() {
    let r = Evaluate::response(json!({"result": {"type": "number", "value": 2}})).expect("reads");
    assert_eq!(r.result.value, Some(json!(2)));
    assert!(!r.threw());
    let threw = Evaluate::response(json!({"result": {}, "exceptionDetails": {"text": "x"}}))
        .expect("reads");
    assert!(threw.threw());
    let tree = GetFrameTree::response(json!({"frameTree": {
        "frame": {"id": "M", "loaderId": "L", "url": "https://a.test/"},
        "childFrames": [{"frame": {"id": "C1", "parentId": "M"},
                         "childFrames": [{"frame": {"id": "C2"}}]},
                        {"frame": {"id": "C3"}}]}}))
    .expect("reads");
    let mut ids = Vec::new();
    tree.frame_tree.descendants(&mut ids);
    assert_eq!(ids, ["C1", "C2", "C3"]);
    assert_eq!(tree.frame_tree.frame.loader_id, "L");
    let e = GetContentQuads::response(json!({"quads": "many"})).expect_err("refused");
    assert_eq!(e.kind, ErrorKind::CommandFailed);
    assert_eq!(
        e.message,
        "the browser's answer to DOM.getContentQuads was malformed"
    );
    assert_eq!(Reload::response(json!({})), Ok(Done {}));
}

#[test]
fn events_are_read_by_name() {
    let params = json!({"frameId": "F", "loaderId": "L", "name": "networkIdle",
                        "timestamp": 1.0});
    let e = LifecycleEvent::parse("Page.lifecycleEvent", &params).expect("parses");
    assert_eq!((e.frame_id.as_str(), e.name.as_str()), ("F", "networkIdle"));
    assert_eq!(LifecycleEvent::parse("Page.loadEventFired", &params), None);
    assert_eq!(
        LifecycleEvent::parse("Page.lifecycleEvent", &json!({"name": 1})),
        None
    );
    let nav = FrameNavigated::parse(
        "Page.frameNavigated",
        &json!({"frame": {"id": "M", "url": "https://a.test/"},
                "type": "BackForwardCacheRestore"}),
    )
    .expect("parses");
    assert_eq!(nav.frame.parent_id, None);
    assert_eq!(nav.kind.as_deref(), Some("BackForwardCacheRestore"));
}

#[test]
fn best_effort_commands_are_enable_commands_and_the_event_sources_are_not() {
    for method in BEST_EFFORT_CDP {
        assert!(
            ENABLED_CDP_DOMAINS.iter().any(|(m, _)| *m == method),
            "{method} is not sent at attach"
        );
    }
    // Without these the daemon would not see dialogs, navigations or
    // crashes: a share must fail rather than go on without them.
    for needed in ["Page.enable", "Runtime.enable", "Inspector.enable"] {
        assert!(!BEST_EFFORT_CDP.contains(&needed), "{needed}");
    }
}

#[test]
fn the_keep_alive_screencast_a_video_gives_back_is_the_one_each_session_starts() {
    let (_, at_attach) = ENABLED_CDP_DOMAINS
        .iter()
        .find(|(m, _)| *m == StartScreencast::METHOD)
        .expect("started at attach");
    let at_attach: serde_json::Value = serde_json::from_str(at_attach).expect("JSON");
    assert_eq!(StartScreencast::KEEP_ALIVE.params(), at_attach);
    let frame = ScreencastFrame::parse(
        "Page.screencastFrame",
        &json!({"data": "/9j/", "sessionId": 3, "metadata": {"deviceWidth": 8}}),
    )
    .expect("parses");
    assert_eq!((frame.data.as_str(), frame.session_id), ("/9j/", 3));
    assert_eq!(
        ScreencastFrameAck { session_id: 3 }.params(),
        json!({"sessionId": 3})
    );
}
