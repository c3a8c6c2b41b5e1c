//! The agent toolset against a scripted page: snapshot refs, input by
//! ref ([`input`]), waits, history, tabs, console, uploads and capture
//! options ([`page`]) — the CDP each method sends, and its refusals. This
//! module holds the scripted page.

mod input;
mod page;

use crate::harness::{tab, Daemon, FakeExt, Reply, Responder, Script, WAIT};
use cotab_host::client::Client;
use cotab_shared::controller::{
    Acquire, Capture, CaptureParams, Check, CheckParams, Click, ClickParams, CloseTabParams,
    Console, ConsoleLevel, ConsoleParams, CreateTabParams, Drag, DragParams, Empty, ImageFormat,
    Navigate, NavigateAction, NavigateParams, Ref, Scroll, ScrollParams, SelectOption,
    SelectOptionParams, SelectParams, SetFiles, SetFilesParams, Snapshot, SnapshotParams, Status,
    TabsClose, TabsCreate, TabsList, TabsSelect, Type, TypeParams, Wait, WaitParams, WaitUntil,
    INVALID_PARAMS,
};
use cotab_shared::native::{CommandClass, Event};
use cotab_shared::{ErrorKind, TabId};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The page's elements: backend id → (role, name, box in viewport CSS px).
fn elements() -> Vec<(i64, &'static str, &'static str, [f64; 4])> {
    vec![
        (11, "button", "Go", [100.0, 100.0, 80.0, 20.0]),
        (12, "textbox", "Name", [100.0, 140.0, 200.0, 20.0]),
        (13, "checkbox", "Agree", [100.0, 180.0, 10.0, 10.0]),
        (14, "combobox", "Color", [100.0, 200.0, 100.0, 20.0]),
        (15, "button", "Tiny", [300.0, 100.0, 0.0, 0.0]),
        (16, "button", "Under", [300.0, 200.0, 50.0, 20.0]),
        (17, "button", "Attachment", [300.0, 300.0, 80.0, 20.0]),
        (18, "listitem", "Card", [400.0, 100.0, 60.0, 60.0]),
        (19, "region", "Zone", [600.0, 100.0, 100.0, 100.0]),
    ]
}

/// Scroll offset of the fake viewport (document y of its top).
const PAGE_Y: f64 = 100.0;

#[derive(Default)]
pub(crate) struct PageState {
    checked: bool,
    gone: Vec<i64>,
    innertext_polls: u32,
    dragging: bool,
}

fn object_id(params: &Value) -> i64 {
    params["objectId"]
        .as_str()
        .and_then(|s| s.strip_prefix("obj-"))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// The markup of a leaf element of role `role` named `name`: its tag,
/// attributes and text.
fn markup(role: &str, name: &str) -> (&'static str, Vec<(String, String)>, String) {
    let label = || vec![("aria-label".to_string(), name.to_string())];
    match role {
        "button" => ("BUTTON", vec![], name.to_string()),
        "link" => ("A", vec![("href".into(), "/x".into())], name.to_string()),
        "textbox" => ("INPUT", label(), String::new()),
        "checkbox" => {
            let mut a = label();
            a.push(("type".into(), "checkbox".into()));
            ("INPUT", a, String::new())
        }
        "combobox" => ("SELECT", label(), String::new()),
        "listitem" => ("LI", label(), String::new()),
        "region" => ("SECTION", label(), String::new()),
        "iframe" => (
            "IFRAME",
            vec![("title".into(), name.to_string())],
            String::new(),
        ),
        other => panic!("no markup for {other}"),
    }
}

/// A leaf element of a fixture document: backend id, role, name.
pub(crate) type Leaf<'a> = (i64, &'a str, &'a str);

/// A `DOMSnapshot.captureSnapshot` result as the browser writes it: each
/// document a body of `(backend id, role, name)` leaves, all laid out;
/// `frames` maps an iframe's backend id to the document it shows.
pub(crate) fn capture(docs: &[(&str, &[Leaf])], frames: &[(i64, usize)]) -> Value {
    let mut strings: Vec<String> = Vec::new();
    let mut at = |s: &str| -> i64 {
        let i = strings.iter().position(|x| x == s).unwrap_or_else(|| {
            strings.push(s.to_string());
            strings.len() - 1
        });
        i as i64
    };
    let (block, visible) = (at("block"), at("visible"));
    let mut documents = Vec::new();
    for (d, (frame, items)) in docs.iter().enumerate() {
        let (mut parent, mut kind, mut name, mut value, mut backend, mut attrs) = (
            vec![-1, 0, 1],
            vec![9, 1, 1],
            vec![at("#document"), at("HTML"), at("BODY")],
            vec![-1, -1, -1],
            vec![
                1000 * d as i64 + 1,
                1000 * d as i64 + 2,
                1000 * d as i64 + 3,
            ],
            vec![Vec::<i64>::new(), vec![], vec![]],
        );
        let mut content = (Vec::new(), Vec::new());
        for (id, role, label) in items.iter() {
            let (tag, a, text) = markup(role, label);
            let i = kind.len() as i64;
            parent.push(2);
            kind.push(1);
            name.push(at(tag));
            value.push(-1);
            backend.push(*id);
            attrs.push(a.iter().flat_map(|(k, v)| [at(k), at(v)]).collect());
            if let Some((_, doc)) = frames.iter().find(|(f, _)| f == id) {
                content.0.push(i);
                content.1.push(*doc as i64);
            }
            if !text.is_empty() {
                parent.push(i);
                kind.push(3);
                name.push(at("#text"));
                value.push(at(&text));
                backend.push(id + 100_000);
                attrs.push(vec![]);
            }
        }
        let laid: Vec<i64> = (0..kind.len() as i64).collect();
        let styles: Vec<Vec<i64>> = laid.iter().map(|_| vec![block, visible]).collect();
        documents.push(json!({
            "frameId": at(frame), "baseURL": at("http://example.test/"),
            "nodes": {"parentIndex": parent, "nodeType": kind, "nodeName": name,
                      "nodeValue": value, "backendNodeId": backend, "attributes": attrs,
                      "contentDocumentIndex": {"index": content.0, "value": content.1}},
            "layout": {"nodeIndex": laid, "styles": styles},
        }));
    }
    json!({"documents": documents, "strings": strings})
}

fn page_capture(checked: bool) -> Value {
    let items: Vec<(i64, &str, &str)> = elements().iter().map(|e| (e.0, e.1, e.2)).collect();
    let mut v = capture(&[("MAIN", &items)], &[]);
    if checked {
        let ids = &v["documents"][0]["nodes"]["backendNodeId"];
        let at = ids
            .as_array()
            .and_then(|ids| ids.iter().position(|id| id == 13));
        v["documents"][0]["nodes"]["inputChecked"] = json!({"index": [at.expect("the checkbox")]});
    }
    v
}

/// A PNG header of `w`×`h`.
fn png(w: u32, h: u32) -> String {
    use base64::Engine as _;
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    b.extend_from_slice(&w.to_be_bytes());
    b.extend_from_slice(&h.to_be_bytes());
    b.extend_from_slice(&[8, 2, 0, 0, 0]);
    base64::engine::general_purpose::STANDARD.encode(b)
}

fn page_responder(state: Arc<Mutex<PageState>>) -> Responder {
    Arc::new(move |tab, method, params| {
        let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
        let rect = |id: i64| elements().into_iter().find(|e| e.0 == id).map(|e| e.3);
        match method {
            "Page.getFrameTree" => Reply::ok(json!({"frameTree": {
                "frame": {"id": "MAIN", "loaderId": "L1", "url": "http://example.test/"},
                "childFrames": []}})),
            "DOMSnapshot.captureSnapshot" => Reply::ok(page_capture(st.checked)),
            "Page.getLayoutMetrics" => Reply::ok(json!({
                "cssLayoutViewport": {"clientWidth": 800, "clientHeight": 600, "pageX": 0, "pageY": PAGE_Y},
                "cssVisualViewport": {"clientWidth": 800, "clientHeight": 600, "pageX": 0, "pageY": PAGE_Y,
                                      "zoom": 1}})),
            "DOM.resolveNode" => {
                let id = params["backendNodeId"].as_i64().unwrap_or(0);
                if st.gone.contains(&id) {
                    return Reply::failed("No node with given id found");
                }
                Reply::ok(json!({"object": {"objectId": format!("obj-{id}")}}))
            }
            // A node gone from the page cannot be scrolled to either.
            "DOM.scrollIntoViewIfNeeded"
                if st
                    .gone
                    .contains(&params["backendNodeId"].as_i64().unwrap_or(0)) =>
            {
                Reply::failed("No node with given id found")
            }
            "DOM.getContentQuads" => {
                let [x, y, w, h] = rect(params["backendNodeId"].as_i64().unwrap_or(0))?;
                Reply::ok(json!({"quads": [[x, y, x + w, y, x + w, y + h, x, y + h]]}))
            }
            "DOM.getNodeForLocation" => {
                let (x, y) = (
                    params["x"].as_f64().unwrap_or(0.0),
                    params["y"].as_f64().unwrap_or(0.0) - PAGE_Y,
                );
                let hit = elements()
                    .into_iter()
                    .find(|e| {
                        let [ex, ey, w, h] = e.3;
                        x >= ex && x < ex + w && y >= ey && y < ey + h
                    })
                    .map(|e| e.0);
                match hit {
                    // An overlay lies on "Under".
                    Some(16) => Reply::ok(json!({"backendNodeId": 50, "frameId": "MAIN"})),
                    Some(id) => Reply::ok(json!({"backendNodeId": id, "frameId": "MAIN"})),
                    None => Reply::failed("No node found at given location"),
                }
            }
            "Runtime.callFunctionOn" => {
                let f = params["functionDeclaration"].as_str().unwrap_or_default();
                let id = object_id(params);
                let arg = params.pointer("/arguments/0/value").cloned();
                let value = if f.contains("n.parentNode || n.host") {
                    json!(params.pointer("/arguments/0/objectId") != Some(&json!("obj-50")))
                } else if f.contains("aria-checked") {
                    if id == 13 {
                        json!({"state": st.checked, "radio": false})
                    } else {
                        json!({"state": null, "radio": false})
                    }
                } else if f.contains("HTMLSelectElement") {
                    let wanted = arg.unwrap_or_default();
                    if id != 14 {
                        json!({"error": "not-select"})
                    } else if wanted == json!(["Red"]) || wanted == json!(["r"]) {
                        json!({"selected": ["r"]})
                    } else {
                        json!({"error": "no-option"})
                    }
                } else if f.contains("'not-editable'") {
                    json!(if id == 12 { "ok" } else { "not-editable" })
                } else if f.contains("this.type === 'file'") {
                    json!({"file": id == 17, "multiple": false, "disabled": false})
                } else if f.contains("new DataTransfer()") {
                    json!(arg.and_then(|a| a.as_array().map(Vec::len)).unwrap_or(0))
                } else if f.contains("n.draggable") {
                    json!(id == 18)
                } else {
                    Value::Null
                };
                Reply::ok(json!({"result": {"type": "object", "value": value}}))
            }
            "Input.dispatchMouseEvent" => {
                let kind = params["type"].as_str().unwrap_or_default();
                let (x, y) = (
                    params["x"].as_f64().unwrap_or(0.0),
                    params["y"].as_f64().unwrap_or(0.0),
                );
                if kind == "mouseReleased"
                    && (100.0..110.0).contains(&x)
                    && (180.0..190.0).contains(&y)
                {
                    st.checked = !st.checked;
                }
                if kind == "mousePressed" && (400.0..460.0).contains(&x) {
                    st.dragging = true;
                }
                if kind == "mouseMoved" && st.dragging && params["buttons"] == 1 {
                    st.dragging = false;
                    return Some(Reply::Ok(
                        json!({}),
                        vec![Event::Cdp {
                            session: None,
                            tab_id: tab,
                            method: "Input.dragIntercepted".into(),
                            params: json!({"data": {"items": [{"mimeType": "text/plain", "data": "card"}],
                                                    "dragOperationsMask": 1}}),
                        }],
                    ));
                }
                Reply::ok(json!({}))
            }
            "DOM.setFileInputFiles" => Reply::failed("Not allowed"),
            "Runtime.evaluate" => {
                let e = params["expression"].as_str().unwrap_or_default();
                if e.contains("innerText") {
                    st.innertext_polls += 1;
                    // "Ready" appears at the third look; "Never" never does.
                    let ready = e.contains("Ready") && st.innertext_polls >= 3;
                    return Reply::ok(json!({"result": {"type": "boolean", "value": ready}}));
                }
                if e.contains("querySelector") {
                    let v = if e.contains("[[") {
                        json!("invalid")
                    } else {
                        json!(true)
                    };
                    return Reply::ok(json!({"result": {"value": v}}));
                }
                if e == "document.readyState" {
                    return Reply::ok(json!({"result": {"type": "string", "value": "complete"}}));
                }
                None
            }
            "Page.captureScreenshot" => {
                let scale = params
                    .pointer("/clip/scale")
                    .and_then(Value::as_f64)
                    .unwrap_or(1.0);
                let width = params
                    .pointer("/clip/width")
                    .and_then(Value::as_f64)
                    .unwrap_or(800.0);
                let height = params
                    .pointer("/clip/height")
                    .and_then(Value::as_f64)
                    .unwrap_or(600.0);
                // The page's DPR is 2 (the harness's `window.devicePixelRatio`).
                let w = (width * 2.0 * scale).round() as u32;
                let h = (height * 2.0 * scale).round() as u32;
                Reply::ok(json!({"data": png(w, h)}))
            }
            "Page.getNavigationHistory" => Reply::ok(json!({"currentIndex": 1, "entries": [
                {"id": 5, "url": "http://example.test/a", "title": "A"},
                {"id": 6, "url": "http://example.test/b", "title": "B"}]})),
            "Page.navigateToHistoryEntry" | "Page.reload" => Some(Reply::Ok(
                json!({}),
                vec![Event::Cdp {
                    session: None,
                    tab_id: tab,
                    method: "Page.loadEventFired".into(),
                    params: json!({"timestamp": 2.0}),
                }],
            )),
            "Page.setLifecycleEventsEnabled" => Some(Reply::EventsFirst(
                ["commit", "load", "networkIdle"]
                    .into_iter()
                    .map(|name| Event::Cdp {
                        session: None,
                        tab_id: tab,
                        method: "Page.lifecycleEvent".into(),
                        params: json!({"frameId": "MAIN", "loaderId": "L1", "name": name}),
                    })
                    .collect(),
                json!({}),
            )),
            _ => None,
        }
    })
}

pub(crate) fn page_script() -> (Script, Arc<Mutex<PageState>>) {
    let state = Arc::new(Mutex::new(PageState::default()));
    let script = Script {
        tabs: vec![tab(7)],
        responder: Some(page_responder(state.clone())),
        ..Script::default()
    };
    (script, state)
}

/// An agent with tab 7 selected, observing (no lease).
async fn observer(d: &Daemon) -> Client {
    let mut c = d.agent().await;
    c.call::<TabsSelect>(&SelectParams { tab_id: TabId(7) })
        .await
        .expect("select");
    c
}

pub(crate) async fn controller(d: &Daemon) -> Client {
    let mut c = observer(d).await;
    c.call::<Acquire>(&Empty {}).await.expect("acquire");
    c
}

async fn snapshot(c: &mut Client) -> String {
    c.call::<Snapshot>(&SnapshotParams::default())
        .await
        .expect("snapshot")
        .text
}

/// The ref on the outline's line containing `needle`.
fn find_ref(outline: &str, needle: &str) -> Ref {
    let line = outline
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle} in\n{outline}"));
    let start = line.find("[ref=").expect("a ref") + 5;
    let end = line[start..].find(']').expect("closing bracket") + start;
    Ref(line[start..end].to_string())
}

/// The CDP commands (method, params, class) the fake receives until
/// `last` arrives (inclusive).
pub(crate) async fn cdp_until(ext: &mut FakeExt, last: &str) -> Vec<(String, Value, CommandClass)> {
    let mut out = Vec::new();
    loop {
        let command = ext.next_command().await;
        if let (Some(call), Some(class)) = (command.call(), command.class()) {
            let done = call.method == last;
            out.push((call.method.clone(), call.params.clone(), class));
            if done {
                return out;
            }
        }
    }
}

fn methods(cmds: &[(String, Value, CommandClass)]) -> Vec<&str> {
    cmds.iter().map(|c| c.0.as_str()).collect()
}
