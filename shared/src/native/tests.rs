//! The native-messaging wire: every message of both directions, read and
//! written as the other side does.

use super::*;
use crate::error::ErrorKind;
use proptest::prelude::*;
use serde_json::json;

fn round_trip<T>(value: &T, golden: Value)
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    assert_eq!(serde_json::to_value(value).expect("serialises"), golden);
    let back: T = serde_json::from_value(golden).expect("deserialises");
    assert_eq!(&back, value);
}

#[test]
fn hello_golden() {
    round_trip(
        &ExtensionToHost::Hello {
            protocol_version: 1,
            lane_id: LaneId("lane-1".into()),
            extension_id: crate::EXTENSION_ID.into(),
            version: "0.1.0".into(),
        },
        json!({"type":"hello","protocolVersion":1,"laneId":"lane-1",
               "extensionId":crate::EXTENSION_ID,"version":"0.1.0"}),
    );
}

#[test]
fn command_names_are_the_method_or_the_op() {
    let act = Command::Act(CdpCall::new(TabId(1), "Page.reload", Value::Null));
    assert_eq!(act.name(), "Page.reload");
    assert_eq!(Command::ListShared.name(), "listShared");
    let input = Command::Input {
        tab_id: TabId(1),
        events: Vec::new(),
        frame: None,
    };
    assert_eq!(input.name(), "input");
    assert_eq!(Command::CreateTab { url: None }.name(), "createTab");
    assert_eq!(Command::CloseTab { tab_id: TabId(1) }.name(), "closeTab");
}

#[test]
fn each_operation_has_the_class_that_decides_who_may_run_it() {
    let call = || CdpCall::new(TabId(1), "Page.reload", Value::Null);
    for class in [
        CommandClass::Observe,
        CommandClass::Act,
        CommandClass::Release,
        CommandClass::Privileged,
    ] {
        let command = Command::plain(call(), class);
        assert_eq!(command.class(), Some(class));
        assert_eq!(command.call(), Some(&call()));
    }
    let frame = FrameGeometry {
        viewport_width: 1.0,
        viewport_height: 1.0,
        scroll_x: 0.0,
        scroll_y: 0.0,
    };
    let in_frame = Command::ActInFrame {
        call: call(),
        frame,
    };
    assert_eq!(in_frame.class(), Some(CommandClass::Act));
    let input = Command::Input {
        tab_id: TabId(1),
        events: Vec::new(),
        frame: None,
    };
    assert_eq!((input.class(), input.call()), (None, None));
}

#[test]
fn only_what_the_main_thread_runs_in_order_has_its_scan_ride_behind_it() {
    assert!(runs_in_order_with_scan("Runtime.evaluate"));
    assert!(runs_in_order_with_scan("Runtime.callFunctionOn"));
    for method in ["DOM.getOuterHTML", "Page.navigate", "Runtime.evaluat", ""] {
        assert!(!runs_in_order_with_scan(method), "{method}");
    }
}

#[test]
fn request_golden() {
    round_trip(
        &HostToExtension::Request {
            id: 7,
            command: Command::Act(CdpCall::new(
                TabId(3),
                "Page.navigate",
                json!({"url":"http://127.0.0.1/"}),
            )),
        },
        json!({"type":"request","id":7,"command":{"op":"act","tabId":3,
               "method":"Page.navigate","params":{"url":"http://127.0.0.1/"}}}),
    );
    for (command, op) in [
        (
            Command::Observe(CdpCall::new(TabId(3), "Page.getLayoutMetrics", json!({}))),
            "observe",
        ),
        (
            Command::Release(CdpCall::new(TabId(3), "Input.dispatchKeyEvent", json!({}))),
            "release",
        ),
    ] {
        let method = command.name().to_owned();
        round_trip(
            &command,
            json!({"op":op,"tabId":3,"method":method,"params":{}}),
        );
    }
    // An agent's evaluation carries the daemon's redaction scan; its
    // result is then a `Scanned` in the response.
    round_trip(
        &HostToExtension::Request {
            id: 8,
            command: Command::Developer {
                call: CdpCall::new(TabId(3), "Runtime.evaluate", json!({"expression":"1+1"})),
                session: None,
                scan: Some("scan()".into()),
            },
        },
        json!({"type":"request","id":8,"command":{"op":"developer","tabId":3,
               "method":"Runtime.evaluate","params":{"expression":"1+1"},"scan":"scan()"}}),
    );
    // Raw CDP for a child session of the tab.
    round_trip(
        &HostToExtension::Request {
            id: 11,
            command: Command::Developer {
                call: CdpCall::new(TabId(3), "DOM.getDocument", json!({})),
                session: Some("3D541C72A1AB".into()),
                scan: None,
            },
        },
        json!({"type":"request","id":11,"command":{"op":"developer","tabId":3,
               "method":"DOM.getDocument","params":{},"sessionId":"3D541C72A1AB"}}),
    );
    // Input aimed at a capture's frame names the frame's viewport.
    let frame = FrameGeometry {
        viewport_width: 1280.0,
        viewport_height: 720.0,
        scroll_x: 0.0,
        scroll_y: 96.5,
    };
    round_trip(
        &HostToExtension::Request {
            id: 9,
            command: Command::ActInFrame {
                call: CdpCall::new(
                    TabId(3),
                    "Input.dispatchMouseEvent",
                    json!({"type":"mouseWheel","x":10,"y":20}),
                ),
                frame: frame.clone(),
            },
        },
        json!({"type":"request","id":9,"command":{"op":"actInFrame","tabId":3,
               "method":"Input.dispatchMouseEvent","params":{"type":"mouseWheel","x":10,"y":20},
               "frame":{"viewportWidth":1280.0,"viewportHeight":720.0,
                        "scrollX":0.0,"scrollY":96.5}}}),
    );
    // A click in one trip: its events, the first checked against the
    // frame's viewport.
    round_trip(
        &HostToExtension::Request {
            id: 10,
            command: Command::Input {
                tab_id: TabId(3),
                events: vec![
                    InputEvent::new(
                        "Input.dispatchMouseEvent",
                        json!({"type":"mouseMoved","x":10,"y":20}),
                    ),
                    InputEvent::new(
                        "Input.dispatchMouseEvent",
                        json!({"type":"mousePressed","x":10,"y":20,"button":"left"}),
                    ),
                ],
                frame: Some(frame),
            },
        },
        json!({"type":"request","id":10,"command":{"op":"input","tabId":3,"events":[
               {"method":"Input.dispatchMouseEvent","params":{"type":"mouseMoved","x":10,"y":20}},
               {"method":"Input.dispatchMouseEvent",
                "params":{"type":"mousePressed","x":10,"y":20,"button":"left"}}],
               "frame":{"viewportWidth":1280.0,"viewportHeight":720.0,
                        "scrollX":0.0,"scrollY":96.5}}}),
    );
    round_trip(
        &Scanned {
            result: json!({"result":{"value":2}}),
            scan: Outcome::Error(WireError::new(ErrorKind::CommandFailed, "gone")),
        },
        json!({"result":{"result":{"value":2}},
               "scan":{"error":{"kind":"COMMAND_FAILED","message":"gone"}}}),
    );
    // The old generic command, and an operation without its tab or its
    // frame, are refused with what is missing.
    let refused = |v: Value| {
        serde_json::from_value::<HostToExtension>(json!({"type":"request","id":1,"command":v}))
            .expect_err("refused")
            .to_string()
    };
    assert!(
        refused(json!({"op":"cdp","tabId":3,"method":"Page.reload"}))
            .contains("unknown variant `cdp`")
    );
    assert!(refused(json!({"op":"act","method":"Page.reload"})).contains("missing field `tabId`"));
    assert!(
        refused(json!({"op":"actInFrame","tabId":3,"method":"Page.reload"}))
            .contains("missing field `frame`")
    );
    round_trip(
        &HostToExtension::Controllers {
            tabs: vec![
                TabControl {
                    tab_id: TabId(3),
                    holder: Holder::agent("a"),
                },
                TabControl {
                    tab_id: TabId(4),
                    holder: Holder::Human,
                },
            ],
            recorded: vec![TabId(4)],
        },
        json!({"type":"controllers","tabs":[
            {"tabId":3,"holder":{"kind":"agent","name":"a"}},
            {"tabId":4,"holder":{"kind":"human"}}],"recorded":[4]}),
    );
    round_trip(
        &HostToExtension::Request {
            id: 8,
            command: Command::ListShared,
        },
        json!({"type":"request","id":8,"command":{"op":"listShared"}}),
    );
    round_trip(
        &HostToExtension::Request {
            id: 9,
            command: Command::CreateTab {
                url: Some("http://127.0.0.1/".into()),
            },
        },
        json!({"type":"request","id":9,"command":{"op":"createTab","url":"http://127.0.0.1/"}}),
    );
    round_trip(
        &HostToExtension::Request {
            id: 10,
            command: Command::CloseTab { tab_id: TabId(5) },
        },
        json!({"type":"request","id":10,"command":{"op":"closeTab","tabId":5}}),
    );
    round_trip(
        &HostToExtension::Request {
            id: 11,
            command: Command::ForwardEvents {
                tab_id: TabId(5),
                all: true,
            },
        },
        json!({"type":"request","id":11,"command":{"op":"forwardEvents","tabId":5,"all":true}}),
    );
    round_trip(
        &HostToExtension::Request {
            id: 12,
            command: Command::Aim(Aim {
                tab_id: TabId(5),
                backend_node_id: 42,
                class: CommandClass::Act,
                point: AimPoint::Hit,
            }),
        },
        json!({"type":"request","id":12,"command":{"op":"aim","tabId":5,"backendNodeId":42,
               "class":"act","point":"hit"}}),
    );
    round_trip(
        &Aimed {
            object_id: "o1".into(),
            quads: json!({"quads": [[0, 0, 10, 0, 10, 10, 0, 10]]}),
            metrics: json!({}),
            point: Some((5.0, 5.0)),
        },
        json!({"objectId":"o1","quads":{"quads":[[0,0,10,0,10,10,0,10]]},"metrics":{},
               "point":[5.0,5.0]}),
    );
    for (method, params) in ENABLED_CDP_DOMAINS {
        assert!(method.contains('.'));
        assert!(serde_json::from_str::<Value>(params).is_ok_and(|v| v.is_object()));
    }
    round_trip(
        &HostToExtension::Welcome {
            protocol_version: 1,
        },
        json!({"type":"welcome","protocolVersion":1}),
    );
    round_trip(
        &HostToExtension::Policy {
            file_dirs: crate::reach::LocalFiles(vec!["/home/ada/site".into()]),
        },
        json!({"type":"policy","fileDirs":["/home/ada/site"]}),
    );
    round_trip(
        &HostToExtension::SocketOffer {
            port: 41234,
            token: "ab".repeat(32),
        },
        json!({"type":"socketOffer","port":41234,"token":"ab".repeat(32)}),
    );
    round_trip(
        &HostToExtension::SocketSwitched { accepted: false },
        json!({"type":"socketSwitched","accepted":false}),
    );
    round_trip(&ExtensionToHost::SocketOpen, json!({"type":"socketOpen"}));
    round_trip(
        &HostToExtension::Agents {
            names: vec!["ada".into(), "cotab-mcp".into()],
        },
        json!({"type":"agents","names":["ada","cotab-mcp"]}),
    );
    // A port past u16 is refused, not truncated.
    assert!(serde_json::from_value::<HostToExtension>(
        json!({"type":"socketOffer","port":70000,"token":"t"})
    )
    .is_err());
}

#[test]
fn response_golden() {
    round_trip(
        &ExtensionToHost::Response {
            id: 7,
            outcome: Outcome::Result(json!({"frameId":"F"})),
        },
        json!({"type":"response","id":7,"result":{"frameId":"F"}}),
    );
    round_trip(
        &ExtensionToHost::Response {
            id: 9,
            outcome: Outcome::Error(WireError::new(
                ErrorKind::TabNotShared,
                "tab 4 is not shared",
            )),
        },
        json!({"type":"response","id":9,"error":{"kind":"TAB_NOT_SHARED",
               "message":"tab 4 is not shared"}}),
    );
}

#[test]
fn responses_read_in_any_field_order_and_refuse_ambiguity() {
    let read = |v: Value| serde_json::from_str::<ExtensionToHost>(&v.to_string());
    assert_eq!(
        read(json!({"result": null, "id": 3, "type": "response"})).expect("reads"),
        ExtensionToHost::Response {
            id: 3,
            outcome: Outcome::Result(Value::Null)
        }
    );
    // An escaped tag and unknown fields.
    let escaped = r#"{"type":"respons\u0065","id":3,"result":1,"x":[1]}"#;
    assert!(serde_json::from_str::<ExtensionToHost>(escaped).is_ok());
    let refused = |v: Value, says: &str| {
        let e = read(v).expect_err("refused").to_string();
        assert!(e.contains(says), "{e}");
    };
    refused(
        json!({"type": "response", "id": 3}),
        "`result` or an `error`",
    );
    refused(
        json!({"type": "response", "id": 3, "result": 1, "error": {"kind": "TIMEOUT", "message": "m"}}),
        "both",
    );
    refused(
        json!({"type": "response", "result": 1}),
        "missing field `id`",
    );
    refused(
        json!({"type": "hello", "protocolVersion": 2}),
        "missing field `laneId`",
    );
    refused(json!({"id": 1, "result": 1}), "missing field `type`");
    refused(json!({"type": "later", "id": 1}), "unknown variant `later`");
    refused(json!({"type": 7}), "invalid type");
    refused(
        json!({"type": "response", "id": -1, "result": 1}),
        "invalid value",
    );
    refused(json!([1, 2]), "invalid type");
    let twice = r#"{"type":"response","id":1,"id":2,"result":1}"#;
    let e = serde_json::from_str::<ExtensionToHost>(twice).expect_err("refused");
    assert!(e.to_string().contains("duplicate field `id`"), "{e}");
}

#[test]
fn event_golden() {
    round_trip(
        &ExtensionToHost::Event {
            event: Event::Shared(SharedTabs {
                tabs: vec![TabInfo {
                    id: TabId(1),
                    url: "http://a/".into(),
                    title: "A".into(),
                    human_control: true,
                    blocked: None,
                    opener: Some(TabId(3)),
                    target_id: None,
                }],
            }),
        },
        json!({"type":"event","event":{"kind":"shared","tabs":[{"id":1,"url":"http://a/",
               "title":"A","humanControl":true,"openerTabId":3}]}}),
    );
    round_trip(
        &ExtensionToHost::Event {
            event: Event::TabClosed {
                tab_id: TabId(2),
                with_window: false,
            },
        },
        json!({"type":"event","event":{"kind":"tabClosed","tabId":2}}),
    );
    round_trip(
        &ExtensionToHost::Event {
            event: Event::TabClosed {
                tab_id: TabId(2),
                with_window: true,
            },
        },
        json!({"type":"event","event":{"kind":"tabClosed","tabId":2,"withWindow":true}}),
    );
    round_trip(
        &ExtensionToHost::Event {
            event: Event::DeveloperMode { enabled: false },
        },
        json!({"type":"event","event":{"kind":"developerMode","enabled":false}}),
    );
    round_trip(
        &ExtensionToHost::Event {
            event: Event::Detached {
                tab_id: TabId(2),
                reason: "target_closed".into(),
            },
        },
        json!({"type":"event","event":{"kind":"detached","tabId":2,"reason":"target_closed"}}),
    );
    round_trip(
        &ExtensionToHost::Event {
            event: Event::Cdp {
                session: None,
                tab_id: TabId(2),
                method: "Page.loadEventFired".into(),
                params: json!({"timestamp":1.5}),
            },
        },
        json!({"type":"event","event":{"kind":"cdp","tabId":2,
               "method":"Page.loadEventFired","params":{"timestamp":1.5}}}),
    );
    round_trip(
        &ExtensionToHost::Event {
            event: Event::Cdp {
                tab_id: TabId(2),
                method: "Runtime.executionContextCreated".into(),
                params: json!({"context":{"id":1}}),
                session: Some("9E41".into()),
            },
        },
        json!({"type":"event","event":{"kind":"cdp","tabId":2,
               "method":"Runtime.executionContextCreated","params":{"context":{"id":1}},
               "sessionId":"9E41"}}),
    );
}

#[test]
fn frame_limits() {
    assert_eq!(frame_len(0u32.to_ne_bytes(), 10), Err(FrameError::Empty));
    assert_eq!(frame_len(10u32.to_ne_bytes(), 10), Ok(10));
    assert_eq!(
        frame_len(11u32.to_ne_bytes(), 10),
        Err(FrameError::TooLarge { len: 11, limit: 10 })
    );
    assert!(matches!(
        frame_len(u32::MAX.to_ne_bytes(), crate::limits::MAX_EXTENSION_TO_HOST),
        Err(FrameError::TooLarge { .. })
    ));
    assert_eq!(encode_frame(b"", 10), Err(FrameError::Empty));
    assert_eq!(encode_frame(&[b'1'; 10], 10).map(|f| f.len()), Ok(14));
    assert!(encode_frame(&[b'1'; 11], 10).is_err());
}

proptest! {
    #[test]
    fn frame_round_trip(payload in proptest::collection::vec(any::<u8>(), 1..4096)) {
        let frame = encode_frame(&payload, 4096).expect("within limit");
        let header: [u8; 4] = frame[..4].try_into().expect("four bytes");
        let len = frame_len(header, 4096).expect("valid header");
        prop_assert_eq!(&frame[4..4 + len], &payload[..]);
    }
}

/// Every deserialiser of the native link, fed anything, returns a
/// value or an error and never panics; what it accepts serialises and
/// reads back to the same value.
mod bad_input {
    use super::*;
    use crate::arbitrary::{almost_json, json, nested, tagged};

    fn survives<T>(bytes: &[u8])
    where
        T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
    {
        if let Ok(msg) = serde_json::from_slice::<T>(bytes) {
            let text = serde_json::to_string(&msg).expect("serialises");
            serde_json::from_str::<T>(&text).expect("reads back");
        }
    }

    fn round_trips<T>(v: Value) -> Result<(), TestCaseError>
    where
        T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
    {
        if let Ok(msg) = serde_json::from_value::<T>(v) {
            let again = serde_json::to_value(&msg).expect("serialises");
            let back: T = serde_json::from_value(again).expect("reads back");
            prop_assert_eq!(back, msg);
        }
        Ok(())
    }

    #[test]
    fn deep_nesting_is_a_typed_error_not_a_stack_overflow() {
        // Issue 5: serde_json's recursion limit refuses it at depth 128.
        let deep = nested(100_000, "");
        let event = format!(
            r#"{{"type":"event","event":{{"kind":"cdp","tabId":1,"method":"m","params":{deep}}}}}"#
        );
        // A bare array is refused at its first byte; the same depth
        // inside a member reaches the recursion limit.
        assert!(serde_json::from_str::<ExtensionToHost>(&deep).is_err());
        assert!(serde_json::from_str::<HostToExtension>(&deep).is_err());
        let e = serde_json::from_str::<ExtensionToHost>(&event).expect_err("refused");
        assert!(e.to_string().contains("recursion limit"), "{e}");
        let request = format!(
            r#"{{"type":"request","id":1,"command":{{"op":"act","tabId":1,"method":"m","params":{deep}}}}}"#
        );
        let e = serde_json::from_str::<HostToExtension>(&request).expect_err("refused");
        assert!(e.to_string().contains("recursion limit"), "{e}");
    }

    #[test]
    fn invalid_utf8_is_a_typed_error() {
        let bytes = b"{\"type\":\"hello\",\"version\":\"\xff\"}";
        assert!(serde_json::from_slice::<ExtensionToHost>(bytes).is_err());
    }

    proptest! {
        #[test]
        fn any_bytes_never_panic(bytes in almost_json()) {
            survives::<HostToExtension>(&bytes);
            survives::<ExtensionToHost>(&bytes);
        }

        #[test]
        fn message_shaped_json_never_panics_and_round_trips(
            msg in tagged("type"),
            command in tagged("op"),
            event in tagged("kind"),
        ) {
            let mut with_parts = msg.clone();
            if let Value::Object(m) = &mut with_parts {
                m.insert("command".into(), command);
                m.insert("event".into(), event);
            }
            for v in [msg, with_parts] {
                round_trips::<HostToExtension>(v.clone())?;
                round_trips::<ExtensionToHost>(v.clone())?;
                survives::<HostToExtension>(v.to_string().as_bytes());
                survives::<ExtensionToHost>(v.to_string().as_bytes());
            }
        }

        #[test]
        fn any_json_never_panics(v in json()) {
            round_trips::<HostToExtension>(v.clone())?;
            round_trips::<ExtensionToHost>(v)?;
        }
    }
}
