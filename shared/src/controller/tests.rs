//! Golden lines and decoding tests of the controller link.

use super::*;
use crate::error::ErrorKind;
use crate::ids::{RequestId, TabId};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

fn parse(line: &str) -> Result<Call, RpcError> {
    let env = decode_line(line).map_err(|(_, e)| e)?;
    Call::parse(&env.method, env.params)
}

#[test]
fn decodes_a_typed_call() {
    let call = parse(r#"{"jsonrpc":"2.0","id":1,"method":"tabs.select","params":{"tabId":5}}"#);
    assert_eq!(
        call,
        Ok(Call::TabsSelect(SelectParams { tab_id: TabId(5) }))
    );
    let call = parse(r#"{"jsonrpc":"2.0","id":"a","method":"host.status"}"#);
    assert_eq!(call, Ok(Call::Status(Empty {})));
    let call = parse(r#"{"jsonrpc":"2.0","id":2,"method":"page.capture","params":{}}"#);
    assert_eq!(call, Ok(Call::Capture(CaptureParams::default())));
    let call = parse(
        r#"{"jsonrpc":"2.0","id":3,"method":"input.press","params":{"key":"Enter","modifiers":["Shift"]}}"#,
    );
    assert_eq!(
        call,
        Ok(Call::Press(PressParams {
            key: "Enter".into(),
            modifiers: vec![Modifier::Shift],
            expect: None,
        }))
    );
}

#[test]
fn parse_error_for_non_json() {
    let (id, err) = decode_line("{not json").expect_err("not JSON");
    assert_eq!(id, None);
    assert_eq!(err.code, PARSE_ERROR);
}

#[test]
fn invalid_request_keeps_the_id() {
    let (id, err) =
        decode_line(r#"{"jsonrpc":"1.0","id":4,"method":"x"}"#).expect_err("bad version");
    assert_eq!(id, Some(RequestId::Number(4)));
    assert_eq!(err.code, INVALID_REQUEST);
    let (id, err) = decode_line(r#"{"id":"k","params":3}"#).expect_err("no method");
    assert_eq!(id, Some(RequestId::String("k".into())));
    assert_eq!(err.code, INVALID_REQUEST);
    let (_, err) = decode_line("[1,2]").expect_err("not an object");
    assert_eq!(err.code, INVALID_REQUEST);
    let (id, _) =
        decode_line(r#"{"jsonrpc":"1.0","id":null,"method":"x"}"#).expect_err("bad version");
    assert_eq!(id, Some(RequestId::Null));
}

/// Issue 15: `"id": null` is a request, not a notification.
#[test]
fn a_null_id_is_a_request_and_a_missing_one_a_notification() {
    let env =
        decode_line(r#"{"jsonrpc":"2.0","id":null,"method":"host.status"}"#).expect("null id");
    assert_eq!(env.id, Some(RequestId::Null));
    let env = decode_line(r#"{"jsonrpc":"2.0","method":"host.status"}"#).expect("no id");
    assert_eq!(env.id, None);
    let line =
        serde_json::to_string(&Response::ok(Some(RequestId::Null), json!(1))).expect("encodes");
    assert_eq!(line, r#"{"jsonrpc":"2.0","id":null,"result":1}"#);
}

#[test]
fn unknown_method() {
    let err = parse(r#"{"jsonrpc":"2.0","id":1,"method":"tabs.explode"}"#).expect_err("unknown");
    assert_eq!(err.code, METHOD_NOT_FOUND);
    assert_eq!(err.kind(), ErrorKind::InvalidRequest);
}

#[test]
fn invalid_params_name_the_field_but_not_the_value() {
    let secret = "hunter2-secret-value";
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tabs.select","params":{{"tabId":"{secret}"}}}}"#
    );
    let err = parse(&line).expect_err("wrong type");
    assert_eq!(err.code, INVALID_PARAMS);
    assert!(err.message.contains("params.tabId"), "{}", err.message);
    assert!(!err.message.contains(secret), "{}", err.message);

    let err = parse(r#"{"jsonrpc":"2.0","id":1,"method":"tabs.select","params":{}}"#)
        .expect_err("missing");
    assert_eq!(err.message, "invalid params: missing field `params.tabId`");

    let line = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"page.capture","params":{{"format":"{secret}"}}}}"#
    );
    let err = parse(&line).expect_err("bad enum");
    assert!(err.message.contains("params.format"), "{}", err.message);
    assert!(!err.message.contains(secret), "{}", err.message);

    let line =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"host.status","params":{{"{secret}":1}}}}"#);
    let err = parse(&line).expect_err("unknown field");
    assert!(!err.message.contains(secret), "{}", err.message);

    let err = parse(r#"{"jsonrpc":"2.0","id":1,"method":"host.status","params":[1]}"#)
        .expect_err("array");
    assert_eq!(err.code, INVALID_PARAMS);
}

#[test]
fn response_golden() {
    let ok = Response::ok(Some(RequestId::Number(1)), json!({"tabs":[]}));
    assert_eq!(
        serde_json::to_value(&ok).expect("serialises"),
        json!({"jsonrpc":"2.0","id":1,"result":{"tabs":[]}})
    );
    let err = Response::err(None, RpcError::new(SERVER_ERROR, ErrorKind::Busy, "busy"));
    assert_eq!(
        serde_json::to_value(&err).expect("serialises"),
        json!({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"busy","data":{"kind":"BUSY"}}})
    );
    let back: Response = serde_json::from_value(json!({"jsonrpc":"2.0","id":null,
        "error":{"code":-32000,"message":"busy","data":{"kind":"BUSY"}}}))
    .expect("deserialises");
    assert_eq!(back, err);
}

#[test]
fn notification_golden() {
    let n = Notification::new(AgentEvent::TabClosed { tab_id: TabId(3) });
    let v = serde_json::to_value(&n).expect("serialises");
    assert_eq!(
        v,
        json!({"jsonrpc":"2.0","method":"tab.closed","params":{"tabId":3}})
    );
    assert_eq!(
        serde_json::from_value::<Notification>(v).expect("deserialises"),
        n
    );
    let n = Notification::new(AgentEvent::LaneOnline {});
    let v = serde_json::to_value(&n).expect("serialises");
    assert_eq!(
        v,
        json!({"jsonrpc":"2.0","method":"lane.online","params":{}})
    );
}

#[test]
fn new_rule_messages_golden() {
    let n = Notification::new(AgentEvent::ControlRevoked {
        tab_id: TabId(3),
        reason: RevokeReason::Human,
    });
    assert_eq!(
        serde_json::to_value(&n).expect("serialises"),
        json!({"jsonrpc":"2.0","method":"control.revoked","params":{"tabId":3,"reason":"human"}})
    );
    let n = Notification::new(AgentEvent::DeveloperModeChanged { enabled: true });
    assert_eq!(
        serde_json::to_value(&n).expect("serialises"),
        json!({"jsonrpc":"2.0","method":"developerMode.changed","params":{"enabled":true}})
    );
    let call = parse(
        r#"{"jsonrpc":"2.0","id":1,"method":"input.mouseDown","params":{"x":1,"y":2,"frameId":"f9","button":"right","expect":{"url":"http://a/","selectionRevision":3}}}"#,
    );
    assert_eq!(
        call,
        Ok(Call::MouseDown(PointerParams {
            x: 1.0,
            y: 2.0,
            frame_id: Some(FrameId("f9".into())),
            button: Some(MouseButton::Right),
            expect: Some(Expect {
                url: Some("http://a/".into()),
                selection_revision: Some(3),
            }),
        }))
    );
    assert_eq!(
        parse(r#"{"jsonrpc":"2.0","id":1,"method":"input.gesture.end"}"#),
        Ok(Call::GestureEnd(Empty {}))
    );
    assert_eq!(
        parse(r#"{"jsonrpc":"2.0","id":1,"method":"cdp.send","params":{"method":"Page.reload"}}"#),
        Ok(Call::CdpSend(CdpSendParams {
            session_id: None,
            method: "Page.reload".into(),
            params: None
        }))
    );
    let r = ReleaseResult {
        already_released: true,
    };
    assert_eq!(
        serde_json::to_value(&r).expect("serialises"),
        json!({"alreadyReleased":true})
    );
}

#[test]
fn toolset_messages_golden() {
    assert_eq!(
        parse(
            r#"{"jsonrpc":"2.0","id":1,"method":"input.click","params":{"ref":"e12","clickCount":2,"modifiers":["Shift"]}}"#
        ),
        Ok(Call::Click(ClickParams {
            element: Some(Ref("e12".into())),
            click_count: Some(2),
            modifiers: vec![Modifier::Shift],
            ..ClickParams::default()
        }))
    );
    assert_eq!(
        parse(r#"{"jsonrpc":"2.0","id":1,"method":"input.click","params":{"x":3,"y":4}}"#),
        Ok(Call::Click(ClickParams::at(3.0, 4.0)))
    );
    assert_eq!(
        parse(r#"{"jsonrpc":"2.0","id":1,"method":"page.navigate","params":{"action":"back"}}"#),
        Ok(Call::Navigate(NavigateParams {
            action: Some(NavigateAction::Back),
            ..NavigateParams::default()
        }))
    );
    assert_eq!(
        parse(
            r#"{"jsonrpc":"2.0","id":1,"method":"page.wait","params":{"until":"textGone","text":"Loading","timeoutMs":500}}"#
        ),
        Ok(Call::Wait(WaitParams {
            text: Some("Loading".into()),
            timeout_ms: Some(500),
            ..WaitParams::until(WaitUntil::TextGone)
        }))
    );
    assert_eq!(
        parse(r#"{"jsonrpc":"2.0","id":1,"method":"input.check","params":{"ref":"e3"}}"#),
        Ok(Call::Check(CheckParams {
            element: Ref("e3".into()),
            checked: true
        }))
    );
    assert_eq!(
        parse(
            r#"{"jsonrpc":"2.0","id":1,"method":"page.capture","params":{"maxWidth":640,"knownFrameId":"f2"}}"#
        ),
        Ok(Call::Capture(CaptureParams {
            max_width: Some(640),
            known_frame_id: Some(FrameId("f2".into())),
            ..CaptureParams::default()
        }))
    );
    let n = Notification::new(AgentEvent::DialogOpened(DialogInfo {
        tab_id: TabId(4),
        kind: DialogKind::Prompt,
        message: "Name?".into(),
        default_prompt: Some("x".into()),
    }));
    assert_eq!(
        serde_json::to_value(&n).expect("serialises"),
        json!({"jsonrpc":"2.0","method":"dialog.opened","params":{"tabId":4,"type":"prompt","message":"Name?","defaultPrompt":"x"}})
    );
    let unchanged = CaptureResult {
        format: ImageFormat::Jpeg,
        data: None,
        unchanged: true,
        width: 10,
        height: 10,
        device_pixel_ratio: 1.0,
        frame_id: FrameId("f2".into()),
        geometry: FrameGeometry {
            viewport_width: 10.0,
            viewport_height: 10.0,
            scroll_x: 0.0,
            scroll_y: 0.0,
        },
    };
    let v = serde_json::to_value(&unchanged).expect("serialises");
    assert_eq!(v["unchanged"], true);
    assert!(v.get("data").is_none());
    let c = ConsoleResult {
        messages: vec![ConsoleMessage {
            seq: 3,
            level: ConsoleLevel::Error,
            text: "boom".into(),
            exception: true,
            url: Some("http://a/".into()),
            line: Some(7),
        }],
        next: 3,
        dropped: 0,
    };
    assert_eq!(
        serde_json::to_value(&c).expect("serialises"),
        json!({"messages":[{"seq":3,"level":"error","text":"boom","exception":true,"url":"http://a/","line":7}],"next":3,"dropped":0})
    );
}

#[test]
fn results_golden() {
    let r = CaptureResult {
        format: ImageFormat::Jpeg,
        data: Some("AAAA".into()),
        unchanged: false,
        width: 800,
        height: 600,
        device_pixel_ratio: 1.0,
        frame_id: FrameId("f1".into()),
        geometry: FrameGeometry {
            viewport_width: 800.0,
            viewport_height: 600.0,
            scroll_x: 0.0,
            scroll_y: 40.0,
        },
    };
    assert_eq!(
        serde_json::to_value(&r).expect("serialises"),
        json!({"format":"jpeg","data":"AAAA","width":800,"height":600,"devicePixelRatio":1.0,
               "frameId":"f1","geometry":{"viewportWidth":800.0,"viewportHeight":600.0,
               "scrollX":0.0,"scrollY":40.0}})
    );
    let s = StatusResult {
        protocol_version: 1,
        daemon_version: "0.1.0".into(),
        pid: 9,
        lane: LaneState::Online,
        extension_version: Some("0.1.0".into()),
        lane_transport: Some(LaneTransport::WebSocket),
        shared_tabs: 1,
        agents: 2,
        developer_mode: false,
        uptime_secs: 75,
        sites: Vec::new(),
        sites_refused: Vec::new(),
    };
    assert_eq!(
        serde_json::to_value(&s).expect("serialises"),
        json!({"protocolVersion":1,"daemonVersion":"0.1.0","pid":9,"lane":"online",
               "extensionVersion":"0.1.0","laneTransport":"webSocket","sharedTabs":1,
               "agents":2,"developerMode":false,"uptimeSecs":75})
    );
    for t in [LaneTransport::NativeMessaging, LaneTransport::WebSocket] {
        assert_eq!(serde_json::to_value(t).expect("serialises"), t.as_str());
    }
}

/// The controller link's decoders, fed anything, return a value or a
/// typed error and never panic; errors never echo submitted values;
/// what the response and notification decoders accept round-trips.
mod bad_input {
    use super::*;
    use crate::arbitrary::{almost_json, json, nested, tagged, WORDS};
    use proptest::prelude::*;

    /// What submitted values are replaced with, to look for echoes.
    const MARK: &str = "ZQXJ";

    fn codes() -> [i64; 5] {
        [
            PARSE_ERROR,
            INVALID_REQUEST,
            METHOD_NOT_FOUND,
            INVALID_PARAMS,
            SERVER_ERROR,
        ]
    }

    /// Decodes a line the way the daemon does; `Err` is the error
    /// response it would send.
    fn decode(line: &str) -> Result<Option<Call>, RpcError> {
        let env = decode_line(line).map_err(|(_, e)| e)?;
        Call::parse(&env.method, env.params).map(Some)
    }

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

    /// Every string value becomes [`MARK`], and so does every key that
    /// is not one of cotab's field names.
    fn mark(v: Value) -> Value {
        match v {
            Value::String(_) => Value::from(MARK),
            Value::Array(a) => Value::Array(a.into_iter().map(mark).collect()),
            Value::Object(m) => Value::Object(
                m.into_iter()
                    .map(|(k, v)| {
                        let known = WORDS.contains(&k.as_str());
                        (if known { k } else { MARK.into() }, mark(v))
                    })
                    .collect(),
            ),
            other => other,
        }
    }

    #[test]
    fn deep_nesting_is_a_parse_error_not_a_stack_overflow() {
        // Issue 5: 100 000 `[`, bare and inside the params of a valid
        // envelope.
        let deep = nested(100_000, "");
        let err = decode(&deep).expect_err("refused");
        assert_eq!(err.code, PARSE_ERROR);
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"cdp.send","params":{{"method":"m","params":{deep}}}}}"#
        );
        let err = decode(&line).expect_err("refused");
        assert_eq!(err.code, PARSE_ERROR);
        // Just under the limit is fine as far as the envelope goes.
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"cdp.send","params":{{"method":"m","params":{{"a":{}0{}}}}}}}"#,
            "[".repeat(100),
            "]".repeat(100)
        );
        assert!(decode(&line).is_ok(), "{line}");
        // A bare array is refused at its first byte; the same depth
        // inside a member reaches the recursion limit.
        assert!(serde_json::from_str::<Response>(&deep).is_err());
        assert!(serde_json::from_str::<Notification>(&deep).is_err());
        let resp = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{deep}}}"#);
        let e = serde_json::from_str::<Response>(&resp).expect_err("refused");
        assert!(e.to_string().contains("recursion limit"), "{e}");
        let note = format!(r#"{{"jsonrpc":"2.0","method":"tab.updated","params":{deep}}}"#);
        let e = serde_json::from_str::<Notification>(&note).expect_err("refused");
        assert!(e.to_string().contains("recursion limit"), "{e}");
    }

    proptest! {
        #[test]
        fn any_line_decodes_or_gets_a_json_rpc_error(bytes in almost_json()) {
            if let Ok(line) = std::str::from_utf8(&bytes) {
                if let Err(e) = decode(line) {
                    prop_assert!(codes().contains(&e.code), "{:?}", e);
                }
            }
            survives::<Response>(&bytes);
            survives::<Notification>(&bytes);
        }

        #[test]
        fn request_shaped_lines_never_echo_submitted_values(
            method in proptest::sample::select(Call::METHODS),
            params in json(),
            id in prop_oneof![Just(json!(1)), Just(json!("a")), Just(json!(null)), json()],
        ) {
            let params = mark(params);
            let line = json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string();
            if let Err(e) = decode(&line) {
                prop_assert!(codes().contains(&e.code), "{:?}", e);
                prop_assert!(!e.message.contains(MARK), "{} echoes a value: {}", line, e.message);
            }
        }

        #[test]
        fn response_and_notification_shaped_json_round_trips(
            resp in tagged("jsonrpc"),
            note in tagged("method"),
            any in json(),
        ) {
            for v in [resp, note, any] {
                round_trips::<Response>(v.clone())?;
                round_trips::<Notification>(v.clone())?;
                survives::<Response>(v.to_string().as_bytes());
                survives::<Notification>(v.to_string().as_bytes());
            }
        }
    }
}
