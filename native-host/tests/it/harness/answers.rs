//! How the fake extension answers: the viewport check of a `frame`,
//! an `input` command's events by the shared `InputPlan`, and each CDP
//! command, scripted by the test or by default in the shared `cdp` types.

use super::{png_100x50, Reply, Script};
use cotab_shared::cdp::{
    CaptureScreenshot, CdpCommand as _, CdpEvent as _, CssViewport, Evaluate, Evaluated,
    GetLayoutMetrics, HandleJavaScriptDialog, JavascriptDialogClosed, LayoutMetrics,
    LoadEventFired, Navigate, Navigated, RemoteObject, Screenshot,
};
use cotab_shared::controller::FrameGeometry;
use cotab_shared::input::{InputEvent, InputPlan};
use cotab_shared::native::aim::{contains, inside};
use cotab_shared::native::{check_viewport, Aim, CdpCall, Command, CommandClass, Event};
use cotab_shared::{TabId, WireError};
use serde_json::{json, Value};
use tokio::sync::mpsc;

/// The extension's check of a `frame` (none: `Ok`): `None` when the
/// script keeps its read unanswered; else `STALE_FRAME` unless the live
/// viewport is the frame's.
pub(super) fn viewport_check(
    script: &Script,
    before: &mut Vec<Event>,
    tab_id: TabId,
    frame: Option<&FrameGeometry>,
) -> Option<Result<(), WireError>> {
    let Some(frame) = frame else {
        return Some(Ok(()));
    };
    let (live, _) = cdp_answer(
        script,
        before,
        tab_id,
        "Page.getLayoutMetrics",
        &json!({}),
        CommandClass::Observe,
    )?;
    Some(live.and_then(|v| check_viewport(frame, LayoutMetrics::viewport_in(v))))
}

/// The answer to an `input` command's events, handed over as the
/// extension hands them over, group by group and in order, each a command
/// of its own to the tests that watch what the extension is asked (the
/// first with the viewport it was checked against); the answer is the
/// first failure, else the last result. `None` when the script keeps one
/// unanswered.
pub(super) fn input_answer(
    script: &Script,
    tx: &mpsc::UnboundedSender<Command>,
    before: &mut Vec<Event>,
    tab_id: TabId,
    events: &[InputEvent],
    frame: &Option<FrameGeometry>,
) -> Option<(Result<Value, WireError>, Vec<Event>)> {
    let mut plan = match InputPlan::new(events) {
        Ok(plan) => plan,
        Err(e) => return Some((Err(e), Vec::new())),
    };
    let mut first = true;
    let mut answers = Vec::new();
    while plan.begin_group(|| None) {
        while let Some(event) = plan.next_event() {
            // Each event is a command of its own to the tests that watch
            // what the extension is asked, the first one in the frame.
            let call = CdpCall::new(tab_id, event.method.clone(), event.params.clone());
            let _ = tx.send(match frame.clone().filter(|_| first) {
                Some(frame) if event.class() == CommandClass::Act => {
                    Command::ActInFrame { call, frame }
                }
                _ => Command::plain(call, event.class()),
            });
            first = false;
            plan.handed(event, Ok(()));
            let (result, after) = cdp_answer(
                script,
                before,
                tab_id,
                &event.method,
                &event.params,
                event.class(),
            )?;
            answers.push(result.map(|v| (v, after)));
        }
    }
    Some(match plan.finish(answers) {
        Err(e) => (Err(e), Vec::new()),
        Ok(last) => {
            let (v, after) = last.unwrap_or((Value::Null, Vec::new()));
            (Ok(v), after)
        }
    })
}

/// The answer to an element aim, run as the extension runs it
/// (`cotab_shared::native::aim`): each call a command of its own to the
/// tests that watch what the extension is asked. `None` when the script
/// keeps one unanswered.
pub(super) fn aim_answer(
    script: &Script,
    tx: &mpsc::UnboundedSender<Command>,
    before: &mut Vec<Event>,
    aim: &Aim,
) -> Option<Result<Value, WireError>> {
    let tab_id = aim.tab_id;
    let mut ask = |method: &str, params: &Value, class: CommandClass| {
        let call = CdpCall::new(tab_id, method, params.clone());
        let _ = tx.send(Command::plain(call, class));
        cdp_answer(script, before, tab_id, method, params, class).map(|(r, _)| r)
    };
    let calls = aim.calls();
    let mut answers = Vec::new();
    for (method, params, class) in &calls {
        answers.push(ask(method, params, *class)?);
    }
    let answers: [Result<Value, WireError>; 4] = answers.try_into().ok()?;
    let sighted = match aim.read(answers) {
        Ok(sighted) => sighted,
        Err(e) => return Some(Err(e)),
    };
    if let Some(location) = &sighted.hit_test {
        let hit = ask("DOM.getNodeForLocation", location, CommandClass::Observe)?;
        let judged = match aim.hit(hit) {
            Ok(None) => Ok(()),
            Ok(Some(resolve)) => {
                let other = ask("DOM.resolveNode", &resolve, CommandClass::Observe)?;
                match contains(&sighted.aimed.object_id, other) {
                    Ok(call) => {
                        inside(ask("Runtime.callFunctionOn", &call, CommandClass::Observe)?)
                    }
                    Err(e) => Err(e),
                }
            }
            Err(e) => Err(e),
        };
        if let Err(e) = judged {
            return Some(Err(e));
        }
    }
    Some(Ok(sighted.aimed.into_value()))
}

/// The `Page.getLayoutMetrics` read of the extension's viewport check.
pub(super) fn layout_read(tab_id: TabId) -> Command {
    Command::Observe(CdpCall::new(tab_id, "Page.getLayoutMetrics", json!({})))
}

/// The fake's answer to one CDP command and the events that follow it, or
/// `None` when the script keeps it unanswered. A scripted responder is
/// asked once (it may keep state); its events-first replies go to
/// `before`.
pub(super) fn cdp_answer(
    script: &Script,
    before: &mut Vec<Event>,
    tab_id: TabId,
    method: &str,
    params: &Value,
    class: CommandClass,
) -> Option<(Result<Value, WireError>, Vec<Event>)> {
    if let Some(reply) = script
        .responder
        .as_ref()
        .and_then(|r| r(tab_id, method, params))
    {
        return Some(match reply {
            Reply::Ok(v, events) => (Ok(v), events),
            Reply::EventsFirst(events, v) => {
                before.extend(events);
                (Ok(v), Vec::new())
            }
            Reply::Err(kind, message) => (Err(WireError::new(kind, message)), Vec::new()),
        });
    }
    if script.silent.contains(method) {
        return None;
    }
    // The browser's answers, in the types the daemon reads them as.
    fn answer<T: serde::Serialize>(r: &T) -> Value {
        serde_json::to_value(r).expect("serialises")
    }
    let value = |kind: &str, value: Value| Evaluated {
        result: RemoteObject {
            kind: kind.into(),
            value: Some(value),
            ..RemoteObject::default()
        },
        exception_details: None,
    };
    let (v, after) = match method {
        Navigate::METHOD => (
            answer(&Navigated {
                loader_id: Some("L".into()),
                error_text: None,
            }),
            Some(Event::Cdp {
                session: None,
                tab_id,
                method: LoadEventFired::METHOD.into(),
                params: json!({"timestamp": 1.0}),
            }),
        ),
        GetLayoutMetrics::METHOD => (
            answer(&LayoutMetrics {
                css_layout_viewport: None,
                css_visual_viewport: Some(CssViewport {
                    client_width: 50.0,
                    client_height: 25.0,
                    page_x: 0.0,
                    page_y: 0.0,
                }),
            }),
            None,
        ),
        Evaluate::METHOD if class == CommandClass::Privileged => {
            (answer(&value("number", json!(42))), None)
        }
        Evaluate::METHOD if params["expression"] == "window.devicePixelRatio" => {
            (answer(&value("number", json!(2))), None)
        }
        Evaluate::METHOD if params["expression"] == "location.href" => (
            answer(&value(
                "string",
                json!(format!("http://example.test/{}", tab_id.0)),
            )),
            None,
        ),
        Evaluate::METHOD => (
            answer(&value(
                "object",
                json!({"url": "http://example.test/done", "title": "Loaded"}),
            )),
            None,
        ),
        // As the browser does, the close follows the answer.
        HandleJavaScriptDialog::METHOD => (
            json!({}),
            Some(Event::Cdp {
                session: None,
                tab_id,
                method: JavascriptDialogClosed::METHOD.into(),
                params: json!({"result": params["accept"]}),
            }),
        ),
        CaptureScreenshot::METHOD => {
            use base64::Engine as _;
            let data = base64::engine::general_purpose::STANDARD.encode(png_100x50());
            (answer(&Screenshot { data: Some(data) }), None)
        }
        _ => (json!({}), None),
    };
    Some((Ok(v), after.into_iter().collect()))
}
