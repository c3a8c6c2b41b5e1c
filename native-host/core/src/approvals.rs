//! Which agent requests wait for the person's yes: a pure reading of a
//! request against what its tab asks before ([`AskBefore`]), so the
//! daemon holds it before any of it reaches the page.
//!
//! - **Step**: every request that acts — input, navigation, answering a
//!   dialog, opening or closing a tab, emulation, `page.evaluate` and raw
//!   commands that are not reads. Reads (snapshots, captures, waits, the
//!   console and network logs, raw `get…`/`describe…` commands) and the
//!   release of held input (a key up, a mouse button up, a gesture's end)
//!   never wait: a release must always go.
//! - **Files**: `input.setFiles`, `input.drop` with paths, and raw
//!   `DOM.setFileInputFiles` / `Input.dispatchDragEvent` carrying files.
//! - **Password**: typing (`input.type`, `input.press`, `input.keyDown`,
//!   raw `Input.insertText` and key events) into a field that takes a
//!   secret — the element typed into or the one with the focus, which
//!   the daemon reads first ([`Check::if_secret`]) — and every script
//!   (`page.evaluate`, raw `Runtime.evaluate` and the like), which could
//!   fill such a field without focus or keys.
//!
//! - **Submit**: a click (`input.click`, `input.mouseDown`, a raw mouse
//!   press) on a form's submit button — the ref's element, or the one at
//!   the point, which the daemon reads first ([`Check::if_submits`]; a
//!   point in a frame cannot be seen into and counts as one) — Enter or
//!   Space while the focus is in a form (`input.press`, `input.keyDown`,
//!   `input.type` with `submit`, raw key events), a touch (which cannot
//!   be read before it lands), and every script.
//!
//! When several apply, files, then a password, then a submit beat step:
//! the person is shown the most telling reason.

use cotab_shared::controller::{Call, Ref};
use cotab_shared::watch::AskBefore;
use serde_json::Value;
use std::collections::BTreeSet;

/// What the daemon must find out, and ask, before running a request.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Check {
    /// Ask for this whatever the page holds.
    pub ask: Option<AskBefore>,
    /// Ask for [`AskBefore::Password`] if this element takes a secret.
    pub if_secret: Option<SecretAt>,
    /// Ask for [`AskBefore::Submit`] if this would submit a form.
    pub if_submits: Option<SubmitAt>,
}

/// A point a request names: in a frame's capture (image pixels, with
/// the frame's id) or, raw, in the page's viewport (CSS pixels).
#[derive(Debug, Clone, PartialEq)]
pub struct PagePoint {
    /// Where.
    pub x: f64,
    /// Where.
    pub y: f64,
    /// The frame capture it is of; none for CSS pixels.
    pub frame: Option<cotab_shared::controller::FrameId>,
    /// Whether `x`, `y` are image pixels of the latest capture.
    pub captured: bool,
}

/// What a request would press that may submit a form.
#[derive(Debug, Clone, PartialEq)]
pub enum SubmitAt {
    /// The element a ref stands for.
    Element(Ref),
    /// The element at a point.
    Point(PagePoint),
    /// The element with the focus, for Enter or Space.
    Focus,
    /// The element a ref stands for, focused, for Enter.
    Field(Ref),
}

/// Where typing would go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecretAt {
    /// The element with the focus (through open shadow roots and
    /// frames of the page's own origin; another origin's frame counts as
    /// a secret, since it cannot be seen into).
    Focus,
    /// The element a ref stands for.
    Element(Ref),
}

impl Check {
    /// Nothing to ask.
    pub fn none(&self) -> bool {
        self.ask.is_none() && self.if_secret.is_none() && self.if_submits.is_none()
    }
}

/// What `call` must be checked and asked for in a tab that asks before
/// `asks`.
pub fn check(call: &Call, asks: &BTreeSet<AskBefore>) -> Check {
    if asks.is_empty() {
        return Check::default();
    }
    let on = |a: AskBefore| asks.contains(&a).then_some(a);
    let step = if acts(call) {
        on(AskBefore::Step)
    } else {
        None
    };
    let surely = |ask| Check {
        ask: Some(ask),
        ..Check::default()
    };
    if let Some(files) = on(AskBefore::Files).filter(|_| puts_files(call)) {
        return surely(files);
    }
    if let Some(password) = on(AskBefore::Password).filter(|_| runs_script(call)) {
        return surely(password);
    }
    if let Some(submit) = on(AskBefore::Submit) {
        // A frame's own session: what is there cannot be read from the
        // page.
        let unread = matches!(call, Call::CdpSend(p) if p.session_id.is_some())
            && submits_at(call).is_some();
        if runs_script(call) || touches(call) || unread {
            return surely(submit);
        }
    }
    Check {
        ask: step,
        if_secret: on(AskBefore::Password).and_then(|_| types_at(call)),
        if_submits: on(AskBefore::Submit).and_then(|_| submits_at(call)),
    }
}

/// Whether `call` begins a touch: a tap lands where it lands, unread.
fn touches(call: &Call) -> bool {
    match call {
        Call::GestureBegin(_) => true,
        Call::CdpSend(p) => {
            p.method == "Input.dispatchTouchEvent"
                && p.params
                    .as_ref()
                    .and_then(|v| v.get("type"))
                    .and_then(Value::as_str)
                    == Some("touchStart")
        }
        _ => false,
    }
}

/// The key names that submit a form from its field or its button.
fn submit_key(key: &str) -> bool {
    matches!(key, "Enter" | "NumpadEnter" | " " | "Space")
}

/// What `call` would press that may submit a form, if anything.
fn submits_at(call: &Call) -> Option<SubmitAt> {
    match call {
        Call::Click(p) => match (&p.element, p.x, p.y) {
            (Some(r), _, _) => Some(SubmitAt::Element(r.clone())),
            (None, Some(x), Some(y)) => Some(SubmitAt::Point(PagePoint {
                x,
                y,
                frame: p.frame_id.clone(),
                captured: true,
            })),
            _ => None,
        },
        Call::MouseDown(p) => Some(SubmitAt::Point(PagePoint {
            x: p.x,
            y: p.y,
            frame: p.frame_id.clone(),
            captured: true,
        })),
        Call::Press(p) if submit_key(&p.key) => Some(SubmitAt::Focus),
        Call::KeyDown(p) if submit_key(&p.key) => Some(SubmitAt::Focus),
        Call::Type(p) if p.submit => Some(match &p.element {
            Some(r) => SubmitAt::Field(r.clone()),
            None => SubmitAt::Focus,
        }),
        Call::CdpSend(p) => {
            let params = p.params.as_ref();
            let field = |k: &str| params.and_then(|v| v.get(k));
            let text = |k: &str| field(k).and_then(Value::as_str).unwrap_or("");
            match (p.method.as_str(), text("type")) {
                ("Input.dispatchMouseEvent", "mousePressed") => Some(SubmitAt::Point(PagePoint {
                    x: field("x").and_then(Value::as_f64).unwrap_or(0.0),
                    y: field("y").and_then(Value::as_f64).unwrap_or(0.0),
                    frame: None,
                    captured: false,
                })),
                ("Input.dispatchKeyEvent", "keyDown" | "rawKeyDown" | "char")
                    if submit_key(text("key"))
                        || matches!(text("code"), "Enter" | "NumpadEnter" | "Space")
                        || matches!(text("text"), "\r" | "\n" | " ") =>
                {
                    Some(SubmitAt::Focus)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether `call` acts on the page or the tab (not a read, not a release
/// of held input, not the session's own business).
fn acts(call: &Call) -> bool {
    match call {
        Call::Navigate(_)
        | Call::Click(_)
        | Call::Type(_)
        | Call::Press(_)
        | Call::KeyDown(_)
        | Call::MouseDown(_)
        | Call::MouseMove(_)
        | Call::GestureBegin(_)
        | Call::GestureUpdate(_)
        | Call::Evaluate(_)
        | Call::Hover(_)
        | Call::SelectOption(_)
        | Call::Check(_)
        | Call::Drag(_)
        | Call::Scroll(_)
        | Call::SetFiles(_)
        | Call::Dialog(_)
        | Call::TabsCreate(_)
        | Call::TabsClose(_)
        | Call::Resize(_)
        | Call::EmulateMedia(_)
        | Call::DropOn(_) => true,
        Call::CdpSend(p) => !raw_read(&p.method) && !raw_release(&p.method, p.params.as_ref()),
        _ => false,
    }
}

/// A raw command that only reads or sets up what is reported (by the
/// verb of its name).
fn raw_read(method: &str) -> bool {
    let verb = method.split_once('.').map_or("", |(_, v)| v);
    ["get", "describe", "query", "capture", "search", "resolve"]
        .iter()
        .any(|p| verb.starts_with(p))
        || matches!(
            verb,
            "enable" | "disable" | "releaseObject" | "releaseObjectGroup" | "printToPDF"
        )
}

/// A raw input event that ends held input: never held back.
fn raw_release(method: &str, params: Option<&Value>) -> bool {
    let kind = params
        .and_then(|p| p.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("");
    matches!(
        (method, kind),
        ("Input.dispatchKeyEvent", "keyUp")
            | ("Input.dispatchMouseEvent", "mouseReleased")
            | ("Input.dispatchTouchEvent", "touchEnd" | "touchCancel")
    )
}

/// Whether `call` puts the person's files in the page.
fn puts_files(call: &Call) -> bool {
    match call {
        Call::SetFiles(_) => true,
        Call::DropOn(p) => !p.paths.is_empty(),
        Call::CdpSend(p) => match p.method.as_str() {
            "DOM.setFileInputFiles" | "Page.handleFileChooser" => true,
            "Input.dispatchDragEvent" => p
                .params
                .as_ref()
                .and_then(|v| v.pointer("/data/files"))
                .and_then(Value::as_array)
                .is_some_and(|f| !f.is_empty()),
            _ => false,
        },
        _ => false,
    }
}

/// Whether `call` runs a script of the agent's in the page.
fn runs_script(call: &Call) -> bool {
    match call {
        Call::Evaluate(_) => true,
        Call::CdpSend(p) => matches!(
            p.method.as_str(),
            "Runtime.evaluate"
                | "Runtime.callFunctionOn"
                | "Runtime.compileScript"
                | "Runtime.runScript"
                | "Page.addScriptToEvaluateOnNewDocument"
                | "Debugger.setScriptSource"
                | "Debugger.evaluateOnCallFrame"
        ),
        _ => false,
    }
}

/// What a request aims at, marked on the picture of its tab the person
/// is shown while it waits ([`aims_at`]).
#[derive(Debug, Clone, PartialEq)]
pub enum AimAt {
    /// The element a ref stands for.
    Element(Ref),
    /// A point.
    Point(PagePoint),
}

/// What `call` aims at in its tab, if it names an element or a point:
/// input by ref or at a point, and a raw mouse press.
pub fn aims_at(call: &Call) -> Option<AimAt> {
    let point = |x: f64, y: f64, frame: &Option<cotab_shared::controller::FrameId>| {
        AimAt::Point(PagePoint {
            x,
            y,
            frame: frame.clone(),
            captured: true,
        })
    };
    let either =
        |element: &Option<Ref>, x: Option<f64>, y: Option<f64>, frame| match (element, x, y) {
            (Some(r), _, _) => Some(AimAt::Element(r.clone())),
            (None, Some(x), Some(y)) => Some(point(x, y, frame)),
            _ => None,
        };
    match call {
        Call::Click(p) => either(&p.element, p.x, p.y, &p.frame_id),
        Call::Hover(p) => either(&p.element, p.x, p.y, &p.frame_id),
        Call::Scroll(p) => either(&p.element, p.x, p.y, &p.frame_id),
        Call::Type(p) => p.element.clone().map(AimAt::Element),
        Call::SetFiles(p) => p.element.clone().map(AimAt::Element),
        Call::SelectOption(p) => Some(AimAt::Element(p.element.clone())),
        Call::Check(p) => Some(AimAt::Element(p.element.clone())),
        Call::DropOn(p) => Some(AimAt::Element(p.element.clone())),
        Call::Drag(p) => Some(AimAt::Element(p.from.clone())),
        Call::MouseDown(p) | Call::MouseMove(p) | Call::GestureBegin(p) => {
            Some(point(p.x, p.y, &p.frame_id))
        }
        Call::CdpSend(p) if p.session_id.is_none() => match submits_at(call) {
            Some(SubmitAt::Point(point)) => Some(AimAt::Point(point)),
            _ => None,
        },
        _ => None,
    }
}

/// Where `call` would type text, if it types.
fn types_at(call: &Call) -> Option<SecretAt> {
    match call {
        Call::Type(p) => Some(match &p.element {
            Some(r) => SecretAt::Element(r.clone()),
            None => SecretAt::Focus,
        }),
        Call::Press(_) | Call::KeyDown(_) => Some(SecretAt::Focus),
        Call::CdpSend(p) => match p.method.as_str() {
            "Input.insertText" | "Input.imeSetComposition" => Some(SecretAt::Focus),
            "Input.dispatchKeyEvent" if !raw_release(&p.method, p.params.as_ref()) => {
                Some(SecretAt::Focus)
            }
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(method: &str, params: Value) -> Call {
        let raw = serde_json::value::to_raw_value(&params).expect("json");
        Call::parse(method, Some(&raw)).expect("a call")
    }

    fn asks(a: &[AskBefore]) -> BTreeSet<AskBefore> {
        a.iter().copied().collect()
    }

    #[test]
    fn what_a_request_aims_at_is_its_ref_or_its_point() {
        let r = |s: &str| Ref(s.to_owned());
        assert_eq!(
            aims_at(&call("input.click", json!({"ref": "e4"}))),
            Some(AimAt::Element(r("e4")))
        );
        assert_eq!(
            aims_at(&call("input.click", json!({"x": 10, "y": 20.5}))),
            Some(AimAt::Point(PagePoint {
                x: 10.0,
                y: 20.5,
                frame: None,
                captured: true
            }))
        );
        assert_eq!(
            aims_at(&call("input.type", json!({"ref": "e2", "text": "x"}))),
            Some(AimAt::Element(r("e2")))
        );
        assert_eq!(
            aims_at(&call("input.drag", json!({"from": "e1", "to": "e9"}))),
            Some(AimAt::Element(r("e1")))
        );
        // A raw press is in the page's own CSS pixels; one in a frame's
        // session is not placed.
        let press = json!({"type": "mousePressed", "x": 5, "y": 6, "button": "left"});
        assert_eq!(
            aims_at(&call(
                "cdp.send",
                json!({"method": "Input.dispatchMouseEvent", "params": press})
            )),
            Some(AimAt::Point(PagePoint {
                x: 5.0,
                y: 6.0,
                frame: None,
                captured: false
            }))
        );
        assert_eq!(
            aims_at(&call(
                "cdp.send",
                json!({"method": "Input.dispatchMouseEvent", "params": press, "sessionId": "S"})
            )),
            None
        );
        // Typing into the focus, a key, a navigation: nothing to place.
        assert_eq!(aims_at(&call("input.type", json!({"text": "x"}))), None);
        assert_eq!(aims_at(&call("input.press", json!({"key": "Enter"}))), None);
        assert_eq!(
            aims_at(&call("page.navigate", json!({"url": "https://a.test/"}))),
            None
        );
    }

    #[test]
    fn a_tab_that_asks_nothing_checks_nothing() {
        let click = call("input.click", json!({"x": 1, "y": 2}));
        assert!(check(&click, &asks(&[])).none());
    }

    #[test]
    fn step_mode_asks_before_actions_but_not_reads_or_releases() {
        let step = asks(&[AskBefore::Step]);
        for (method, params) in [
            ("input.click", json!({"x": 1, "y": 2})),
            ("page.navigate", json!({"url": "https://example.com/"})),
            ("input.type", json!({"text": "hi"})),
            ("page.dialog", json!({"accept": true})),
            ("tabs.close", json!({})),
            ("page.evaluate", json!({"expression": "1"})),
            (
                "cdp.send",
                json!({"method": "Input.dispatchKeyEvent", "params": {"type": "keyDown"}}),
            ),
            (
                "cdp.send",
                json!({"method": "DOM.setAttributeValue", "params": {}}),
            ),
        ] {
            let c = check(&call(method, params.clone()), &step);
            assert_eq!(c.ask, Some(AskBefore::Step), "{method} {params}");
        }
        for (method, params) in [
            ("page.snapshot", json!({})),
            ("page.capture", json!({})),
            ("input.keyUp", json!({"key": "a"})),
            ("input.mouseUp", json!({})),
            ("tabs.list", json!({})),
            ("control.acquire", json!({})),
            ("cdp.send", json!({"method": "DOM.getDocument"})),
            ("cdp.send", json!({"method": "Accessibility.queryAXTree"})),
            ("cdp.send", json!({"method": "Page.enable"})),
            (
                "cdp.send",
                json!({"method": "Input.dispatchKeyEvent", "params": {"type": "keyUp"}}),
            ),
            (
                "cdp.send",
                json!({"method": "Input.dispatchMouseEvent", "params": {"type": "mouseReleased"}}),
            ),
        ] {
            let c = check(&call(method, params.clone()), &step);
            assert!(c.none(), "{method} {params}: {c:?}");
        }
    }

    #[test]
    fn files_are_asked_for_by_every_way_in() {
        let files = asks(&[AskBefore::Files]);
        for (method, params) in [
            ("input.setFiles", json!({"paths": ["/tmp/a"]})),
            ("input.drop", json!({"ref": "e1", "paths": ["/tmp/a"]})),
            (
                "cdp.send",
                json!({"method": "DOM.setFileInputFiles", "params": {"files": ["/tmp/a"]}}),
            ),
            (
                "cdp.send",
                json!({"method": "Input.dispatchDragEvent",
                                "params": {"type": "drop", "data": {"files": ["/tmp/a"]}}}),
            ),
        ] {
            let c = check(&call(method, params.clone()), &files);
            assert_eq!(c.ask, Some(AskBefore::Files), "{method} {params}");
        }
        // Text dropped, and a click, are not files.
        for (method, params) in [
            (
                "input.drop",
                json!({"ref": "e1", "data": {"text/plain": "hi"}}),
            ),
            ("input.click", json!({"x": 1, "y": 2})),
            (
                "cdp.send",
                json!({"method": "Input.dispatchDragEvent",
                                "params": {"type": "drop", "data": {"items": []}}}),
            ),
        ] {
            assert!(
                check(&call(method, params.clone()), &files).none(),
                "{method} {params}"
            );
        }
        // With step on too, files are the reason shown.
        let both = asks(&[AskBefore::Step, AskBefore::Files]);
        let set = call("input.setFiles", json!({"paths": ["/tmp/a"]}));
        assert_eq!(check(&set, &both).ask, Some(AskBefore::Files));
    }

    #[test]
    fn what_may_submit_a_form_is_read_first_and_what_cannot_be_read_is_asked_for() {
        let submit = asks(&[AskBefore::Submit]);
        let at = |method: &str, params: Value| check(&call(method, params), &submit);
        assert!(matches!(
            at("input.click", json!({"ref": "e3"})).if_submits,
            Some(SubmitAt::Element(_))
        ));
        assert!(matches!(
            at("input.click", json!({"x": 5, "y": 6})).if_submits,
            Some(SubmitAt::Point(PagePoint { captured: true, .. }))
        ));
        assert!(matches!(
            at("input.mouseDown", json!({"x": 5, "y": 6})).if_submits,
            Some(SubmitAt::Point(PagePoint { captured: true, .. }))
        ));
        for (method, params) in [
            ("input.press", json!({"key": "Enter"})),
            ("input.keyDown", json!({"key": " "})),
            ("input.type", json!({"text": "x", "submit": true})),
            (
                "cdp.send",
                json!({"method": "Input.dispatchKeyEvent",
                                "params": {"type": "keyDown", "key": "Enter"}}),
            ),
            (
                "cdp.send",
                json!({"method": "Input.dispatchKeyEvent",
                                "params": {"type": "char", "text": "\r"}}),
            ),
        ] {
            let c = at(method, params.clone());
            assert_eq!(c.if_submits, Some(SubmitAt::Focus), "{method} {params}");
        }
        let raw = at(
            "cdp.send",
            json!({"method": "Input.dispatchMouseEvent", "params": {"type": "mousePressed", "x": 3, "y": 4}}),
        );
        assert_eq!(
            raw.if_submits,
            Some(SubmitAt::Point(PagePoint {
                x: 3.0,
                y: 4.0,
                frame: None,
                captured: false
            }))
        );
        // Asked for without reading: a touch, a script, a frame's session.
        for (method, params) in [
            ("input.gesture.begin", json!({"x": 1, "y": 1})),
            ("page.evaluate", json!({"expression": "1"})),
            (
                "cdp.send",
                json!({"method": "Input.dispatchTouchEvent",
                                "params": {"type": "touchStart", "touchPoints": []}}),
            ),
            (
                "cdp.send",
                json!({"method": "Input.dispatchMouseEvent", "sessionId": "F1",
                                "params": {"type": "mousePressed", "x": 3, "y": 4}}),
            ),
        ] {
            assert_eq!(
                at(method, params.clone()).ask,
                Some(AskBefore::Submit),
                "{method} {params}"
            );
        }
        // Typing, other keys, a hover: nothing to ask.
        for (method, params) in [
            ("input.type", json!({"text": "x"})),
            ("input.press", json!({"key": "a"})),
            ("input.hover", json!({"ref": "e3"})),
            (
                "cdp.send",
                json!({"method": "Input.dispatchMouseEvent",
                                "params": {"type": "mouseMoved", "x": 3, "y": 4}}),
            ),
        ] {
            assert!(at(method, params.clone()).none(), "{method} {params}");
        }
    }

    #[test]
    fn typing_is_checked_for_a_secret_and_scripts_are_asked_for() {
        let password = asks(&[AskBefore::Password]);
        let typed = check(
            &call("input.type", json!({"text": "x", "ref": "e4"})),
            &password,
        );
        assert_eq!(typed.ask, None);
        assert!(matches!(typed.if_secret, Some(SecretAt::Element(_))));
        for (method, params) in [
            ("input.type", json!({"text": "x"})),
            ("input.press", json!({"key": "a"})),
            ("input.keyDown", json!({"key": "a"})),
            (
                "cdp.send",
                json!({"method": "Input.insertText", "params": {"text": "x"}}),
            ),
            (
                "cdp.send",
                json!({"method": "Input.dispatchKeyEvent", "params": {"type": "char"}}),
            ),
        ] {
            let c = check(&call(method, params.clone()), &password);
            assert_eq!(c.if_secret, Some(SecretAt::Focus), "{method} {params}");
        }
        for (method, params) in [
            ("page.evaluate", json!({"expression": "1"})),
            (
                "cdp.send",
                json!({"method": "Runtime.evaluate", "params": {"expression": "1"}}),
            ),
            (
                "cdp.send",
                json!({"method": "Runtime.callFunctionOn", "params": {}}),
            ),
        ] {
            let c = check(&call(method, params.clone()), &password);
            assert_eq!(c.ask, Some(AskBefore::Password), "{method} {params}");
        }
        // A click types nothing; a key up releases.
        assert!(check(&call("input.click", json!({"x": 1, "y": 2})), &password).none());
        assert!(check(&call("input.keyUp", json!({"key": "a"})), &password).none());
        // With step on, typing that is not into a secret is asked as a step.
        let both = asks(&[AskBefore::Step, AskBefore::Password]);
        let c = check(&call("input.type", json!({"text": "x"})), &both);
        assert_eq!(
            (c.ask, c.if_secret),
            (Some(AskBefore::Step), Some(SecretAt::Focus))
        );
    }
}
