//! The agent toolset (issue 4) against a scripted page: snapshot refs,
//! input by ref, waits, history, tabs, console, uploads and
//! capture options — the CDP each method sends, and its refusals.

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

fn ax_tree() -> Value {
    let mut nodes = vec![json!({"nodeId": "root", "role": {"value": "RootWebArea"},
        "name": {"value": "Fake"}, "childIds": elements().iter().map(|e| e.0.to_string()).collect::<Vec<_>>(),
        "backendDOMNodeId": 1})];
    for (id, role, name, _) in elements() {
        let mut n = json!({"nodeId": id.to_string(), "parentId": "root", "role": {"value": role},
            "name": {"value": name}, "backendDOMNodeId": id});
        if id == 13 {
            n["properties"] =
                json!([{"name": "checked", "value": {"type": "tristate", "value": "false"}}]);
        }
        nodes.push(n);
    }
    json!({ "nodes": nodes })
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
            "Accessibility.getFullAXTree" => Reply::ok(ax_tree()),
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
                    tab_id: tab,
                    method: "Page.loadEventFired".into(),
                    params: json!({"timestamp": 2.0}),
                }],
            )),
            "Page.setLifecycleEventsEnabled" => Some(Reply::EventsFirst(
                ["commit", "load", "networkIdle"]
                    .into_iter()
                    .map(|name| Event::Cdp {
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
        if let cotab_shared::native::Command::Cdp {
            method,
            params,
            class,
            ..
        } = ext.next_command().await
        {
            let done = method == last;
            out.push((method, params, class));
            if done {
                return out;
            }
        }
    }
}

fn methods(cmds: &[(String, Value, CommandClass)]) -> Vec<&str> {
    cmds.iter().map(|c| c.0.as_str()).collect()
}

#[tokio::test]
async fn snapshot_issues_refs_that_only_the_latest_snapshot_keeps() {
    let d = Daemon::start().await;
    let (script, state) = page_script();
    let ext = FakeExt::connect(&d.host_sock(), script).await;
    // Observing needs no lease.
    let mut c = observer(&d).await;
    let first = c
        .call::<Snapshot>(&SnapshotParams::default())
        .await
        .expect("snapshot");
    assert_eq!(first.refs, 9);
    assert!(!first.truncated);
    assert!(
        first.text.starts_with("- button \"Go\" [ref=e1]\n"),
        "{}",
        first.text
    );
    assert!(first
        .text
        .contains("- checkbox \"Agree\" [unchecked] [ref=e3]"));
    let second = snapshot(&mut c).await;
    assert_eq!(find_ref(&second, "\"Go\""), Ref("e10".into()));
    c.call::<Acquire>(&Empty {}).await.expect("acquire");

    // A ref of the older snapshot never acts on anything.
    let err = c
        .call::<Click>(&ClickParams::on(Ref("e1".into())))
        .await
        .expect_err("stale");
    assert_eq!(err.kind(), Some(ErrorKind::StaleRef));
    // A node gone from the page.
    state.lock().expect("state").gone.push(11);
    let err = c
        .call::<Click>(&ClickParams::on(Ref("e10".into())))
        .await
        .expect_err("gone");
    assert_eq!(err.kind(), Some(ErrorKind::StaleRef));
    // A main-frame navigation since the snapshot.
    ext.event(Event::Cdp {
        tab_id: TabId(7),
        method: "Page.frameNavigated".into(),
        params: json!({"frame": {"id": "MAIN", "loaderId": "L2"}}),
    });
    let give_up = tokio::time::Instant::now() + WAIT;
    loop {
        let err = c
            .call::<Click>(&ClickParams::on(Ref("e11".into())))
            .await
            .expect_err("stale after navigation");
        if err.kind() == Some(ErrorKind::StaleRef) {
            break;
        }
        assert!(tokio::time::Instant::now() < give_up, "{err}");
    }
    let small = c
        .call::<Snapshot>(&SnapshotParams {
            max_chars: Some(70),
        })
        .await
        .expect("snapshot");
    assert!(small.truncated);
    assert!(small.text.ends_with("more nodes)"), "{}", small.text);
    let err = c
        .call::<Snapshot>(&SnapshotParams {
            max_chars: Some(400_001),
        })
        .await
        .expect_err("too large");
    assert_eq!(err.rpc().map(|e| e.code), Some(INVALID_PARAMS));
}

#[tokio::test]
async fn a_ref_click_asks_for_its_node_the_scroll_to_it_and_its_box_at_once() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let resolved = Arc::new(tokio::sync::Semaphore::new(0));
    let script = Script {
        held: HashMap::from([("DOM.resolveNode".to_string(), resolved.clone())]),
        ..script
    };
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let go = find_ref(&snapshot(&mut c).await, "\"Go\"");
    let click = tokio::spawn(async move { c.call::<Click>(&ClickParams::on(go)).await });
    // The scroll, then the quads and the viewport read after it, are asked
    // for while the node's answer is held back.
    let cmds = cdp_until(&mut ext, "Page.getLayoutMetrics").await;
    let from = cmds
        .iter()
        .rposition(|c| c.0 == "DOM.resolveNode")
        .expect("the node asked for");
    let trip = &cmds[from..];
    assert_eq!(
        methods(trip),
        [
            "DOM.resolveNode",
            "DOM.scrollIntoViewIfNeeded",
            "DOM.getContentQuads",
            "Page.getLayoutMetrics"
        ],
        "{cmds:?}"
    );
    let asked: Vec<_> = trip[..3]
        .iter()
        .map(|c| (c.1["backendNodeId"].clone(), c.2))
        .collect();
    assert_eq!(
        asked,
        [
            (json!(11), CommandClass::Observe),
            (json!(11), CommandClass::Act),
            (json!(11), CommandClass::Observe)
        ]
    );
    resolved.add_permits(1);
    tokio::time::timeout(WAIT, click)
        .await
        .expect("in time")
        .expect("task")
        .expect("clicked");
}

#[tokio::test]
async fn a_ref_click_aims_at_the_visible_centre_after_a_hit_test() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let go = find_ref(&snapshot(&mut c).await, "\"Go\"");
    c.call::<Click>(&ClickParams {
        click_count: Some(2),
        ..ClickParams::on(go)
    })
    .await
    .expect("clicked");
    let cmds = cdp_until(&mut ext, "DOM.resolveNode").await;
    assert_eq!(
        cmds.last().map(|c| c.1["backendNodeId"].clone()),
        Some(json!(11))
    );
    let cmds = cdp_until(&mut ext, "DOM.getNodeForLocation").await;
    assert!(methods(&cmds).contains(&"DOM.scrollIntoViewIfNeeded"));
    assert!(methods(&cmds).contains(&"DOM.getContentQuads"));
    // The hit test reads document coordinates: the centre plus the scroll.
    let hit = &cmds.last().expect("hit test").1;
    assert_eq!(
        (hit["x"].as_f64(), hit["y"].as_f64()),
        (Some(140.0), Some(210.0))
    );
    let mut mouse = Vec::new();
    while mouse.len() < 5 {
        mouse.push(ext.next_cdp("Input.dispatchMouseEvent").await);
    }
    let seen: Vec<(&str, f64, f64, u64)> = mouse
        .iter()
        .map(|m| {
            (
                m["type"].as_str().unwrap_or_default(),
                m["x"].as_f64().unwrap_or(-1.0),
                m["y"].as_f64().unwrap_or(-1.0),
                m["clickCount"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            ("mouseMoved", 140.0, 110.0, 0),
            ("mousePressed", 140.0, 110.0, 1),
            ("mouseReleased", 140.0, 110.0, 1),
            ("mousePressed", 140.0, 110.0, 2),
            ("mouseReleased", 140.0, 110.0, 2),
        ]
    );

    // Exactly one of ref or x+y, named in the error.
    let err = c
        .call::<Click>(&ClickParams {
            x: Some(1.0),
            ..ClickParams::on(Ref("e1".into()))
        })
        .await
        .expect_err("both");
    assert!(err.to_string().contains("params.ref"), "{err}");
    let err = c
        .call::<Click>(&ClickParams::default())
        .await
        .expect_err("neither");
    assert!(err.to_string().contains("params.ref"), "{err}");
    let err = c
        .call::<Click>(&ClickParams {
            x: Some(1.0),
            ..ClickParams::default()
        })
        .await
        .expect_err("no y");
    assert!(err.to_string().contains("params.y"), "{err}");
}

#[tokio::test]
async fn zero_size_and_covered_elements_are_not_interactable() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let _ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let outline = snapshot(&mut c).await;
    let err = c
        .call::<Click>(&ClickParams::on(find_ref(&outline, "\"Tiny\"")))
        .await
        .expect_err("no size");
    assert_eq!(err.kind(), Some(ErrorKind::NotInteractable));
    assert!(err.to_string().contains("no size"), "{err}");
    let err = c
        .call::<Click>(&ClickParams::on(find_ref(&outline, "\"Under\"")))
        .await
        .expect_err("covered");
    assert_eq!(err.kind(), Some(ErrorKind::NotInteractable));
    assert!(err.to_string().contains("covered"), "{err}");
}

#[tokio::test]
async fn typing_by_ref_focuses_clears_types_and_submits() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let outline = snapshot(&mut c).await;
    c.call::<Type>(&TypeParams {
        text: "Ada".into(),
        element: Some(find_ref(&outline, "\"Name\"")),
        clear: true,
        submit: true,
        expect: None,
    })
    .await
    .expect("typed");
    let cmds = cdp_until(&mut ext, "Input.dispatchKeyEvent").await;
    let m = methods(&cmds);
    let at = |name: &str| m.iter().position(|x| *x == name).expect(name);
    // The focus, its check (which only reads), then the emptying.
    let calls: Vec<usize> = (0..m.len())
        .filter(|&i| m[i] == "Runtime.callFunctionOn")
        .collect();
    assert_eq!(calls.len(), 2, "{m:?}");
    assert!(at("DOM.focus") < calls[0]);
    assert!(calls[1] < at("Input.insertText"));
    let clears: Vec<&Value> = calls
        .iter()
        .map(|&i| &cmds[i].1["arguments"][0]["value"])
        .collect();
    assert_eq!(clears, [false, true]);
    assert_eq!(cmds[at("Input.insertText")].1["text"], "Ada");
    let down = &cmds.last().expect("enter").1;
    assert_eq!(
        (down["type"].as_str(), down["key"].as_str()),
        (Some("keyDown"), Some("Enter"))
    );
    let up = ext.next_cdp("Input.dispatchKeyEvent").await;
    assert_eq!(up["type"], "keyUp");
    // A button takes no text.
    let err = c
        .call::<Type>(&TypeParams {
            text: "x".into(),
            element: Some(find_ref(&outline, "\"Go\"")),
            ..TypeParams::default()
        })
        .await
        .expect_err("not editable");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));
}

#[tokio::test]
async fn typing_by_ref_asks_for_the_focus_and_its_check_at_once() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let focused = Arc::new(tokio::sync::Semaphore::new(0));
    let script = Script {
        held: HashMap::from([("DOM.focus".to_string(), focused.clone())]),
        ..script
    };
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let name = find_ref(&snapshot(&mut c).await, "\"Name\"");
    let typed = tokio::spawn(async move {
        c.call::<Type>(&TypeParams {
            text: "Ada".into(),
            element: Some(name),
            clear: true,
            ..TypeParams::default()
        })
        .await
    });
    // The check (that the element takes text and has the focus; it only
    // reads) is asked for while the focus's answer is held back.
    let cmds = cdp_until(&mut ext, "Runtime.callFunctionOn").await;
    let m = methods(&cmds);
    assert_eq!(m[m.len() - 2..], ["DOM.focus", "Runtime.callFunctionOn"]);
    let check = &cmds.last().expect("the check").1;
    assert!(
        check["functionDeclaration"]
            .as_str()
            .is_some_and(|f| f.contains("activeElement !== el")),
        "{check}"
    );
    assert_eq!(check["arguments"][0]["value"], false, "{check}");
    // Emptying it waits for the focus's answer: another agent's request,
    // asked for now, reaches the extension first.
    let mut other = observer(&d).await;
    let listed = tokio::spawn(async move { other.call::<TabsList>(&Empty {}).await });
    assert!(
        matches!(
            ext.next_command().await,
            cotab_shared::native::Command::ListShared
        ),
        "the emptying went out before the focus answered"
    );
    listed.await.expect("task").expect("listed");
    focused.add_permits(1);
    let clear = ext.next_cdp("Runtime.callFunctionOn").await;
    assert_eq!(clear["arguments"][0]["value"], true, "{clear}");
    assert_eq!(ext.next_cdp("Input.insertText").await["text"], "Ada");
    tokio::time::timeout(WAIT, typed)
        .await
        .expect("in time")
        .expect("task")
        .expect("typed");
}

#[tokio::test]
async fn select_option_and_check_change_only_what_differs() {
    let d = Daemon::start().await;
    let (script, state) = page_script();
    let _ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let outline = snapshot(&mut c).await;
    let color = find_ref(&outline, "\"Color\"");
    let r = c
        .call::<SelectOption>(&SelectOptionParams {
            element: color.clone(),
            values: vec!["Red".into()],
        })
        .await
        .expect("selected");
    assert_eq!(r.selected, vec!["r".to_string()]);
    let err = c
        .call::<SelectOption>(&SelectOptionParams {
            element: color,
            values: vec!["secret-colour".into()],
        })
        .await
        .expect_err("no option");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));
    assert!(!err.to_string().contains("secret-colour"));
    let err = c
        .call::<SelectOption>(&SelectOptionParams {
            element: find_ref(&outline, "\"Go\""),
            values: vec!["x".into()],
        })
        .await
        .expect_err("not a select");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));

    let agree = find_ref(&outline, "\"Agree\"");
    let check = |checked| CheckParams {
        element: agree.clone(),
        checked,
    };
    c.call::<Check>(&check(true)).await.expect("checked");
    assert!(state.lock().expect("state").checked);
    // Already checked: nothing is clicked (a click would uncheck it).
    c.call::<Check>(&check(true)).await.expect("still checked");
    assert!(state.lock().expect("state").checked);
    c.call::<Check>(&check(false)).await.expect("unchecked");
    assert!(!state.lock().expect("state").checked);
    let err = c
        .call::<Check>(&CheckParams {
            element: find_ref(&outline, "\"Go\""),
            checked: true,
        })
        .await
        .expect_err("not checkable");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));
}

#[tokio::test]
async fn an_html5_drag_is_intercepted_and_dropped_with_its_data() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let outline = snapshot(&mut c).await;
    c.call::<Drag>(&DragParams {
        from: find_ref(&outline, "\"Card\""),
        to: find_ref(&outline, "\"Zone\""),
    })
    .await
    .expect("dragged");
    let cmds = cdp_until(&mut ext, "Input.dispatchDragEvent").await;
    let intercept = cmds
        .iter()
        .find(|c| c.0 == "Input.setInterceptDrags")
        .expect("interception on");
    assert_eq!(intercept.1["enabled"], true);
    let enter = &cmds.last().expect("drag event").1;
    assert_eq!(enter["type"], "dragEnter");
    assert_eq!(
        (enter["x"].as_f64(), enter["y"].as_f64()),
        (Some(650.0), Some(150.0))
    );
    assert_eq!(enter["data"]["items"][0]["data"], "card");
    for kind in ["dragOver", "drop"] {
        assert_eq!(ext.next_cdp("Input.dispatchDragEvent").await["type"], kind);
    }
    let up = ext.next_cdp("Input.dispatchMouseEvent").await;
    assert_eq!(up["type"], "mouseReleased");
    let (off, class) = ext.next_cdp_class("Input.setInterceptDrags").await;
    assert_eq!(
        (off["enabled"].as_bool(), class),
        (Some(false), CommandClass::Release)
    );
}

#[tokio::test]
async fn scroll_turns_the_wheel_at_the_centre_or_brings_a_ref_into_view() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    c.call::<Scroll>(&ScrollParams {
        delta_y: Some(300.0),
        ..ScrollParams::default()
    })
    .await
    .expect("scrolled");
    let wheel = ext.next_cdp("Input.dispatchMouseEvent").await;
    assert_eq!(
        (
            wheel["type"].as_str(),
            wheel["x"].as_f64(),
            wheel["y"].as_f64(),
            wheel["deltaY"].as_f64()
        ),
        (Some("mouseWheel"), Some(400.0), Some(300.0), Some(300.0))
    );
    let outline = snapshot(&mut c).await;
    c.call::<Scroll>(&ScrollParams {
        element: Some(find_ref(&outline, "\"Zone\"")),
        ..ScrollParams::default()
    })
    .await
    .expect("into view");
    let p = ext.next_cdp("DOM.scrollIntoViewIfNeeded").await;
    assert_eq!(p["backendNodeId"], 19);
    let err = c
        .call::<Scroll>(&ScrollParams::default())
        .await
        .expect_err("nothing to do");
    assert!(err.to_string().contains("params.deltaY"), "{err}");
}

#[tokio::test]
async fn console_messages_are_buffered_per_tab_and_filtered() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    ext.event(Event::Cdp {
        tab_id: TabId(7),
        method: "Runtime.consoleAPICalled".into(),
        params: json!({"type": "log", "args": [{"type": "string", "value": "hello"},
                                               {"type": "number", "value": 42}],
                       "stackTrace": {"callFrames": [{"url": "http://example.test/a.js", "lineNumber": 4}]}}),
    });
    ext.event(Event::Cdp {
        tab_id: TabId(7),
        method: "Runtime.exceptionThrown".into(),
        params: json!({"exceptionDetails": {"text": "Uncaught",
                       "exception": {"type": "object", "description": "Error: boom"}}}),
    });
    let give_up = tokio::time::Instant::now() + WAIT;
    let all = loop {
        let r = c
            .call::<Console>(&ConsoleParams::default())
            .await
            .expect("console");
        if r.messages.len() == 2 {
            break r;
        }
        assert!(tokio::time::Instant::now() < give_up, "{r:?}");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    };
    assert_eq!(all.messages[0].text, "hello 42");
    assert_eq!(all.messages[0].level, ConsoleLevel::Info);
    assert_eq!(all.messages[0].line, Some(5));
    assert!(all.messages[1].exception);
    assert_eq!(all.messages[1].text, "Error: boom");
    let errors = c
        .call::<Console>(&ConsoleParams {
            levels: Some(vec![ConsoleLevel::Error]),
            since: None,
        })
        .await
        .expect("console");
    assert_eq!(errors.messages.len(), 1);
    let newer = c
        .call::<Console>(&ConsoleParams {
            levels: None,
            since: Some(all.next),
        })
        .await
        .expect("console");
    assert!(newer.messages.is_empty());
    assert_eq!(newer.dropped, 0);
}

#[tokio::test]
async fn waits_poll_until_the_condition_holds_or_time_out() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let _ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = observer(&d).await;
    let r = c
        .call::<Wait>(&WaitParams {
            text: Some("Ready".into()),
            ..WaitParams::until(WaitUntil::Text)
        })
        .await
        .expect("appeared");
    assert!(r.waited_ms >= 150, "{r:?}");
    let err = c
        .call::<Wait>(&WaitParams {
            text: Some("Never".into()),
            timeout_ms: Some(300),
            ..WaitParams::until(WaitUntil::Text)
        })
        .await
        .expect_err("timeout");
    assert_eq!(err.kind(), Some(ErrorKind::Timeout));
    let err = c
        .call::<Wait>(&WaitParams::until(WaitUntil::TextGone))
        .await
        .expect_err("no text");
    assert!(err.to_string().contains("params.text"), "{err}");
    let err = c
        .call::<Wait>(&WaitParams {
            selector: Some("a[[".into()),
            ..WaitParams::until(WaitUntil::Selector)
        })
        .await
        .expect_err("bad selector");
    assert!(err.to_string().contains("params.selector"), "{err}");
    // Already loaded, already idle (reported again by the browser when
    // asked): at once.
    for until in [WaitUntil::Load, WaitUntil::NetworkIdle] {
        let r = tokio::time::timeout(WAIT, c.call::<Wait>(&WaitParams::until(until)))
            .await
            .expect("in time")
            .expect("done");
        assert!(r.waited_ms < 5_000);
    }
    let r = c
        .call::<Wait>(&WaitParams {
            time_ms: Some(50),
            ..WaitParams::until(WaitUntil::Time)
        })
        .await
        .expect("slept");
    assert!(r.waited_ms >= 50);
}

#[tokio::test]
async fn uploads_come_only_from_allowed_directories() {
    let root = tempfile::tempdir().expect("tempdir");
    let allowed = root.path().join("allowed");
    let outside = root.path().join("outside");
    std::fs::create_dir_all(&allowed).expect("dir");
    std::fs::create_dir_all(&outside).expect("dir");
    std::fs::write(allowed.join("cv.txt"), "hello").expect("file");
    std::fs::write(outside.join("secret.txt"), "secret").expect("file");
    std::os::unix::fs::symlink(outside.join("secret.txt"), allowed.join("escape.txt"))
        .expect("symlink");
    let config = root.path().join("config.json");
    std::fs::write(&config, json!({"uploadDirs": [allowed]}).to_string()).expect("config");
    // The only test of this binary that reads the config.
    std::env::set_var(cotab_host::config::CONFIG_ENV, &config);

    let d = Daemon::start().await;
    let (script, _) = page_script();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let outline = snapshot(&mut c).await;
    let input = find_ref(&outline, "\"Attachment\"");
    let files = |p: &std::path::Path| SetFilesParams {
        element: input.clone(),
        paths: vec![p.display().to_string()],
    };
    for bad in [allowed.join("escape.txt"), outside.join("secret.txt")] {
        let err = c.call::<SetFiles>(&files(&bad)).await.expect_err("refused");
        assert_eq!(err.kind(), Some(ErrorKind::PathNotAllowed));
        assert!(!err.to_string().contains("secret"), "{err}");
    }
    c.call::<SetFiles>(&files(&allowed.join("cv.txt")))
        .await
        .expect("uploaded");
    // The browser refused the path for an extension: the page builds the
    // file from its bytes.
    let cmds = cdp_until(&mut ext, "DOM.setFileInputFiles").await;
    assert_eq!(
        cmds.last().map(|c| c.1["backendNodeId"].clone()),
        Some(json!(17))
    );
    let built = loop {
        let p = ext.next_cdp("Runtime.callFunctionOn").await;
        if p["functionDeclaration"]
            .as_str()
            .is_some_and(|f| f.contains("DataTransfer"))
        {
            break p;
        }
    };
    let file = &built["arguments"][0]["value"][0];
    assert_eq!(
        (file["name"].as_str(), file["type"].as_str()),
        (Some("cv.txt"), Some("text/plain"))
    );
    assert_eq!(file["data"], "aGVsbG8=");
    let err = c
        .call::<SetFiles>(&SetFilesParams {
            element: find_ref(&outline, "\"Go\""),
            paths: vec![allowed.join("cv.txt").display().to_string()],
        })
        .await
        .expect_err("not a file input");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));
}

#[tokio::test]
async fn created_tabs_are_selected_and_controlled_and_closing_clears_the_selection() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let r = c
        .call::<TabsCreate>(&CreateTabParams {
            url: Some("http://example.test/new".into()),
        })
        .await
        .expect("created");
    assert_eq!(r.tab_id, TabId(100));
    assert_eq!(r.selection_revision, 2);
    // Acting needs no acquire: the new tab's lease is ours.
    c.call::<Type>(&TypeParams {
        text: "x".into(),
        ..TypeParams::default()
    })
    .await
    .expect("typed in the new tab");
    let err = c
        .call::<TabsCreate>(&CreateTabParams {
            url: Some("chrome://settings".into()),
        })
        .await
        .expect_err("blocked");
    assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget));
    c.call::<TabsClose>(&CloseTabParams::default())
        .await
        .expect("closed");
    loop {
        if let cotab_shared::native::Command::CloseTab { tab_id } = ext.next_command().await {
            assert_eq!(tab_id, TabId(100));
            break;
        }
    }
    let err = c
        .call::<Type>(&TypeParams {
            text: "x".into(),
            ..TypeParams::default()
        })
        .await
        .expect_err("nothing selected");
    assert!(err.to_string().contains("no tab selected"), "{err}");
}

#[tokio::test]
async fn captures_downscale_clip_and_report_unchanged_frames() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let shot = c
        .call::<Capture>(&CaptureParams {
            format: ImageFormat::Png,
            max_width: Some(400),
            ..CaptureParams::default()
        })
        .await
        .expect("captured");
    assert!(shot.width <= 400, "{}", shot.width);
    assert_eq!(shot.device_pixel_ratio, 0.5);
    let p = ext.next_cdp("Page.captureScreenshot").await;
    assert_eq!(p["clip"]["y"], PAGE_Y, "clips are in document coordinates");
    assert_eq!(p["clip"]["scale"], 0.25);
    let again = c
        .call::<Capture>(&CaptureParams {
            format: ImageFormat::Png,
            max_width: Some(400),
            known_frame_id: Some(shot.frame_id.clone()),
            ..CaptureParams::default()
        })
        .await
        .expect("captured");
    assert!(again.unchanged);
    assert_eq!(again.data, None);
    assert_eq!(again.frame_id, shot.frame_id);
    // Clicks on the unchanged frame still aim right.
    c.call::<Click>(&ClickParams {
        frame_id: Some(again.frame_id.clone()),
        ..ClickParams::at(100.0, 50.0)
    })
    .await
    .expect("clicked");
    let moved = ext.next_cdp("Input.dispatchMouseEvent").await;
    assert_eq!(
        (moved["x"].as_f64(), moved["y"].as_f64()),
        (Some(200.0), Some(100.0))
    );

    let outline = snapshot(&mut c).await;
    let zone = c
        .call::<Capture>(&CaptureParams {
            format: ImageFormat::Png,
            clip: Some(find_ref(&outline, "\"Zone\"")),
            ..CaptureParams::default()
        })
        .await
        .expect("clipped");
    assert_eq!((zone.width, zone.height), (200, 200));
    let p = ext.next_cdp("Page.captureScreenshot").await;
    assert_eq!(
        (p["clip"]["x"].as_f64(), p["clip"]["y"].as_f64()),
        (Some(600.0), Some(100.0 + PAGE_Y))
    );
    let different = c
        .call::<Capture>(&CaptureParams {
            format: ImageFormat::Png,
            known_frame_id: Some(shot.frame_id),
            ..CaptureParams::default()
        })
        .await
        .expect("captured");
    assert!(!different.unchanged);
    assert!(different.data.is_some());
    let status = c.call::<Status>(&Empty {}).await.expect("status");
    assert!(!status.developer_mode);
}

#[tokio::test]
async fn history_navigation_goes_to_the_entry_and_waits_for_the_page() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let nav = |action| NavigateParams {
        action: Some(action),
        ..NavigateParams::default()
    };
    c.call::<Navigate>(&nav(NavigateAction::Back))
        .await
        .expect("back");
    let p = ext.next_cdp("Page.navigateToHistoryEntry").await;
    assert_eq!(p["entryId"], 5);
    let err = c
        .call::<Navigate>(&nav(NavigateAction::Forward))
        .await
        .expect_err("no next entry");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));
    c.call::<Navigate>(&nav(NavigateAction::Reload))
        .await
        .expect("reloaded");
    ext.next_cdp("Page.reload").await;
    let err = c
        .call::<Navigate>(&NavigateParams {
            url: Some("http://example.test/".into()),
            action: Some(NavigateAction::Back),
            expect: None,
        })
        .await
        .expect_err("both");
    assert!(err.to_string().contains("params.action"), "{err}");
}

/// A capture and an accessibility tree big enough to be read off the
/// daemon's thread (a browser frame over 256 KiB, a capture of over 1 MiB
/// of base64, a tree of over 2,000 nodes) come through whole.
#[tokio::test]
async fn large_captures_and_trees_are_read_whole() {
    use base64::Engine as _;
    let mut image = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    image.extend_from_slice(&640u32.to_be_bytes());
    image.extend_from_slice(&480u32.to_be_bytes());
    image.extend_from_slice(&[8, 2, 0, 0, 0]);
    image.resize(900_000, 7);
    let data = base64::engine::general_purpose::STANDARD.encode(&image);
    assert!(data.len() > 1 << 20);
    let buttons = 2_500;
    let mut nodes = vec![json!({"nodeId": "root", "role": {"value": "RootWebArea"},
        "name": {"value": "Big"}, "backendDOMNodeId": 1,
        "childIds": (0..buttons).map(|i| format!("b{i}")).collect::<Vec<_>>()})];
    nodes.extend((0..buttons).map(|i| {
        json!({"nodeId": format!("b{i}"), "parentId": "root", "role": {"value": "button"},
               "name": {"value": format!("B{i}")}, "backendDOMNodeId": 10 + i})
    }));
    let tree = json!({ "nodes": nodes });
    let reply_data = data.clone();
    let responder: Responder = Arc::new(move |_tab, method, _params| match method {
        "Page.captureScreenshot" => Reply::ok(json!({ "data": reply_data })),
        "Accessibility.getFullAXTree" => Reply::ok(tree.clone()),
        _ => None,
    });
    let d = Daemon::start().await;
    let _ext = FakeExt::connect(&d.host_sock(), Script::one_tab(7, responder)).await;
    let mut a = Client::connect(&d.agent_sock()).await.expect("connect");
    a.hello("large").await.expect("hello");
    a.call::<TabsSelect>(&SelectParams { tab_id: TabId(7) })
        .await
        .expect("select");
    let params = CaptureParams {
        format: ImageFormat::Png,
        ..CaptureParams::default()
    };
    let shot = a.call::<Capture>(&params).await.expect("capture");
    assert_eq!((shot.width, shot.height), (640, 480));
    assert_eq!(shot.data.as_deref(), Some(data.as_str()));
    let again = a
        .call::<Capture>(&CaptureParams {
            known_frame_id: Some(shot.frame_id),
            ..params
        })
        .await
        .expect("capture again");
    assert!(again.unchanged && again.data.is_none());
    let snap = a
        .call::<Snapshot>(&SnapshotParams {
            max_chars: Some(400_000),
        })
        .await
        .expect("snapshot");
    assert_eq!(snap.refs, buttons);
    assert!(
        snap.text.contains("button \"B2499\""),
        "{}",
        &snap.text[..200]
    );
}

/// An accessibility tree of a root and `(backend id, role, name)` leaves.
fn leaves(root: &str, items: &[(i64, &str, &str)]) -> Value {
    let mut nodes = vec![json!({"nodeId": "root", "role": {"value": "RootWebArea"},
        "name": {"value": root},
        "childIds": items.iter().map(|i| i.0.to_string()).collect::<Vec<_>>()})];
    for (id, role, name) in items {
        nodes.push(
            json!({"nodeId": id.to_string(), "parentId": "root", "role": {"value": role},
            "name": {"value": name}, "backendDOMNodeId": id}),
        );
    }
    json!({ "nodes": nodes })
}

/// A page of frames: MAIN holds A (which holds D), B (in another
/// process: no owner here, and its tree fails with `b_tree`) and C (its
/// tree fails with `c_tree`).
fn framed_page(b_tree: ErrorKind, c_tree: ErrorKind) -> Responder {
    Arc::new(move |_tab, method, params| {
        let frame = params["frameId"].as_str().unwrap_or("MAIN");
        match (method, frame) {
            ("Page.getFrameTree", _) => Reply::ok(json!({"frameTree": {
            "frame": {"id": "MAIN"},
            "childFrames": [
                {"frame": {"id": "A"}, "childFrames": [{"frame": {"id": "D"}}]},
                {"frame": {"id": "B"}},
                {"frame": {"id": "C"}},
            ]}})),
            ("Runtime.evaluate", _) => Reply::ok(json!({"result": {"type": "object",
                "value": {"url": "http://example.test/frames", "title": "Frames"}}})),
            ("DOM.getFrameOwner", "A") => Reply::ok(json!({"backendNodeId": 20})),
            ("DOM.getFrameOwner", "C") => Reply::ok(json!({"backendNodeId": 22})),
            ("DOM.getFrameOwner", "D") => Reply::ok(json!({"backendNodeId": 30})),
            ("DOM.getFrameOwner", _) => Reply::failed("Frame with the given id was not found."),
            ("Accessibility.getFullAXTree", "MAIN") => Reply::ok(leaves(
                "main",
                &[
                    (10, "button", "Main first"),
                    (20, "iframe", "a"),
                    (21, "iframe", "b"),
                    (22, "iframe", "c"),
                    (11, "button", "Main last"),
                ],
            )),
            ("Accessibility.getFullAXTree", "A") => {
                Reply::ok(leaves("a", &[(40, "button", "In A"), (30, "iframe", "d")]))
            }
            ("Accessibility.getFullAXTree", "D") => Reply::ok(leaves("d", &[(50, "link", "In D")])),
            ("Accessibility.getFullAXTree", "B") => Some(Reply::Err(b_tree, "no tree for B")),
            ("Accessibility.getFullAXTree", "C") => Some(Reply::Err(c_tree, "no tree for C")),
            _ => None,
        }
    })
}

#[tokio::test]
async fn a_snapshot_asks_for_its_parts_at_once_and_reads_nested_and_unreadable_frames() {
    let frame_tree = Arc::new(tokio::sync::Notify::new());
    let owners = Arc::new(tokio::sync::Semaphore::new(0));
    let d = Daemon::start().await;
    let mut ext = FakeExt::connect(
        &d.host_sock(),
        Script {
            gates: [("Page.getFrameTree".to_string(), frame_tree.clone())].into(),
            held: [("DOM.getFrameOwner".to_string(), owners.clone())].into(),
            ..Script::one_tab(
                7,
                framed_page(ErrorKind::CommandFailed, ErrorKind::CommandFailed),
            )
        },
    )
    .await;
    let mut c = observer(&d).await;
    let call = tokio::spawn(async move { c.call::<Snapshot>(&SnapshotParams::default()).await });
    // The main frame's tree and the url and title are asked for while the
    // frame tree is still unanswered.
    let first = cdp_until(&mut ext, "Runtime.evaluate").await;
    assert_eq!(
        methods(&first),
        [
            "Page.getFrameTree",
            "Accessibility.getFullAXTree",
            "Runtime.evaluate"
        ]
    );
    frame_tree.notify_one();
    // A child frame's tree is asked for while its owner is unanswered.
    let child = cdp_until(&mut ext, "Accessibility.getFullAXTree").await;
    assert_eq!(
        methods(&child),
        ["DOM.getFrameOwner", "Accessibility.getFullAXTree"]
    );
    assert_eq!(child[0].1["frameId"], "A");
    assert_eq!(child[1].1["frameId"], "A");
    owners.add_permits(4);
    let snap = tokio::time::timeout(WAIT, call)
        .await
        .expect("in time")
        .expect("task")
        .expect("snapshot");
    assert_eq!(snap.url, "http://example.test/frames");
    assert_eq!(snap.title, "Frames");
    // B (no owner) and C (no tree) stay empty; D is inside A.
    assert_eq!(
        snap.text,
        "- button \"Main first\" [ref=e1]\n\
         - iframe \"a\" [ref=e2]\n  \
           - button \"In A\" [ref=e3]\n  \
           - iframe \"d\" [ref=e4]\n    \
             - link \"In D\" [ref=e5]\n\
         - iframe \"b\" [ref=e6]\n\
         - iframe \"c\" [ref=e7]\n\
         - button \"Main last\" [ref=e8]"
    );
}

#[tokio::test]
async fn a_child_frame_that_fails_for_another_reason_fails_the_snapshot() {
    // C (owner read) and B (owner unreadable too): the lost browser is
    // reported either way, never taken for an unreadable frame.
    for (b_tree, c_tree) in [
        (ErrorKind::CommandFailed, ErrorKind::RuntimeLost),
        (ErrorKind::RuntimeLost, ErrorKind::CommandFailed),
    ] {
        let d = Daemon::start().await;
        let _ext = FakeExt::connect(
            &d.host_sock(),
            Script::one_tab(7, framed_page(b_tree, c_tree)),
        )
        .await;
        let mut c = observer(&d).await;
        let err = c
            .call::<Snapshot>(&SnapshotParams::default())
            .await
            .expect_err("a frame's tree failed");
        assert_eq!(
            err.kind(),
            Some(ErrorKind::RuntimeLost),
            "{b_tree:?} {c_tree:?}"
        );
    }
}
