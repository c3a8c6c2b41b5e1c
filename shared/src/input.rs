//! Input events as CDP carries them, what each does to what a page holds
//! (a key down, a mouse button pressed or a touch begun, until its
//! release), and the check of the events of an `input` command
//! (`Command::Input` of the native link).
//!
//! The extension keeps its ledger of held input by [`input_role`]; the
//! `input` command's rule that a page holds nothing more after it than
//! before is [`check_input_events`], which the daemon applies before
//! sending one and the extension before running one. How one runs is
//! [`InputPlan`], followed by the extension and the daemon's fakes; the
//! release of each kind of press ([`key_up`], [`mouse_up`],
//! [`touch_end`]) is built here for the daemon and the extension alike.

use crate::error::{ErrorKind, WireError};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `Input.dispatchKeyEvent`.
pub const KEY_EVENT: &str = "Input.dispatchKeyEvent";
/// `Input.dispatchMouseEvent`.
pub const MOUSE_EVENT: &str = "Input.dispatchMouseEvent";
/// `Input.dispatchTouchEvent`.
pub const TOUCH_EVENT: &str = "Input.dispatchTouchEvent";

/// The most events one `input` command carries (a triple click is seven).
pub const MAX_INPUT_EVENTS: usize = 16;

/// One CDP input event of an `input` command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputEvent {
    /// One of [`KEY_EVENT`], [`MOUSE_EVENT`], [`TOUCH_EVENT`].
    pub method: String,
    /// Its CDP params.
    #[serde(default)]
    pub params: Value,
}

impl InputEvent {
    /// An event of `method` with `params`.
    pub fn new(method: &str, params: Value) -> InputEvent {
        InputEvent {
            method: method.to_owned(),
            params,
        }
    }

    /// What the event does to what the page holds.
    pub fn role(&self) -> InputRole {
        input_role(&self.method, &self.params)
    }
}

/// What a CDP command does to the input a page holds. Presses and
/// releases name what they hold: `key:<code>` (else `key:<key>`),
/// `button:<name>` (`left` when absent) or `touch`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputRole {
    /// Not input, or input that holds nothing (a move, a wheel, text, a
    /// key event without a key).
    Other,
    /// A press of the named input.
    Press(String),
    /// A release of the named input.
    Release(String),
}

/// The identity of a key in `Input.dispatchKeyEvent` params: its `code`,
/// else its `key`.
pub fn key_id(params: &Value) -> Option<&str> {
    let field = |name: &str| {
        params
            .get(name)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    field("code").or_else(|| field("key"))
}

/// The button a mouse event names (`left` when absent).
pub fn mouse_button(params: &Value) -> &str {
    params
        .get("button")
        .and_then(Value::as_str)
        .unwrap_or("left")
}

/// Whether `method` is a CDP input event.
fn is_input_method(method: &str) -> bool {
    [KEY_EVENT, MOUSE_EVENT, TOUCH_EVENT].contains(&method)
}

/// What the CDP command `method` with `params` does to held input.
pub fn input_role(method: &str, params: &Value) -> InputRole {
    if !is_input_method(method) {
        return InputRole::Other;
    }
    let kind = params.get("type").and_then(Value::as_str).unwrap_or("");
    let key = || key_id(params).map(|id| format!("key:{id}"));
    let button = || format!("button:{}", mouse_button(params));
    let role = match (method, kind) {
        (KEY_EVENT, "keyDown" | "rawKeyDown") => key().map(InputRole::Press),
        (KEY_EVENT, "keyUp") => key().map(InputRole::Release),
        (MOUSE_EVENT, "mousePressed") => Some(InputRole::Press(button())),
        (MOUSE_EVENT, "mouseReleased") => Some(InputRole::Release(button())),
        (TOUCH_EVENT, "touchStart") => Some(InputRole::Press("touch".to_owned())),
        (TOUCH_EVENT, "touchEnd" | "touchCancel") => Some(InputRole::Release("touch".to_owned())),
        _ => None,
    };
    role.unwrap_or(InputRole::Other)
}

/// Checks the events of an `input` command before any is sent: 1 to
/// [`MAX_INPUT_EVENTS`] of them, each a CDP input event, and paired: each
/// press released by a later event of the list before the same input is
/// pressed again, each release of a press earlier in the list. So a page
/// holds nothing more after the command than before it, whichever event
/// fails. `INVALID_REQUEST` otherwise.
pub fn check_input_events(events: &[InputEvent]) -> Result<(), WireError> {
    let invalid = |message: &str| Err(WireError::new(ErrorKind::InvalidRequest, message));
    if events.is_empty() || events.len() > MAX_INPUT_EVENTS {
        return invalid("an input command carries 1 to 16 events");
    }
    let mut held: Vec<String> = Vec::new();
    for event in events {
        if !is_input_method(&event.method) {
            return invalid("an input command carries CDP input events only");
        }
        match event.role() {
            InputRole::Other => {}
            InputRole::Press(id) if held.contains(&id) => {
                return invalid("an input command presses what it already holds");
            }
            InputRole::Press(id) => held.push(id),
            InputRole::Release(id) => {
                let Some(at) = held.iter().position(|h| *h == id) else {
                    return invalid("an input command releases what it did not press");
                };
                held.remove(at);
            }
        }
    }
    if held.is_empty() {
        Ok(())
    } else {
        invalid("an input command leaves a press without its release")
    }
}

/// The fields of a key down its key up repeats: the key's identity.
const KEY_UP_FIELDS: [&str; 5] = [
    "key",
    "code",
    "windowsVirtualKeyCode",
    "nativeVirtualKeyCode",
    "location",
];

/// The params of the key up that releases the key down `down` (a
/// [`KEY_EVENT`]'s params): the same key, with the `modifiers` in force
/// when the sender knows them (a release sent after a fault does not, and
/// sends none).
pub fn key_up(down: &Value, modifiers: Option<u32>) -> Value {
    let mut up = serde_json::Map::new();
    up.insert("type".into(), Value::from("keyUp"));
    for field in KEY_UP_FIELDS {
        if let Some(v) = down.get(field) {
            up.insert(field.into(), v.clone());
        }
    }
    if let Some(mask) = modifiers {
        up.insert("modifiers".into(), Value::from(mask));
    }
    Value::Object(up)
}

/// The params of the [`MOUSE_EVENT`] that releases `button` at (`x`,
/// `y`), with the mask of the buttons still held after it when known.
pub fn mouse_up(x: f64, y: f64, button: &str, buttons: Option<u32>) -> Value {
    let mut up = serde_json::json!({"type": "mouseReleased", "x": x, "y": y, "button": button,
                                   "clickCount": 1});
    if let (Some(mask), Some(obj)) = (buttons, up.as_object_mut()) {
        obj.insert("buttons".into(), Value::from(mask));
    }
    up
}

/// The params of the [`TOUCH_EVENT`] that ends a touch.
pub fn touch_end() -> Value {
    serde_json::json!({"type": "touchEnd", "touchPoints": []})
}

/// How an `input` command's events are run, the one statement of it that
/// the extension and the fakes of the daemon's tests follow.
///
/// The events go in order, each once the one before answered. The first
/// failure is the command's answer; after it, only the releases still due
/// go: those of presses this command handed to the browser, which no other
/// release has released meanwhile. So the page keeps no press and never
/// gets a second release. A failure before the first event (the check of
/// the viewport the command is aimed at, made first) sends nothing. The
/// answer is the last event's result.
#[derive(Debug)]
pub struct InputPlan<'a, T> {
    events: &'a [InputEvent],
    next: usize,
    pressed: Vec<String>,
    failed: Option<WireError>,
    last: Option<T>,
}

impl<'a, T> InputPlan<'a, T> {
    /// The plan of `events`, once they pass [`check_input_events`].
    pub fn new(events: &'a [InputEvent]) -> Result<InputPlan<'a, T>, WireError> {
        check_input_events(events)?;
        Ok(InputPlan {
            events,
            next: 0,
            pressed: Vec::new(),
            failed: None,
            last: None,
        })
    }

    /// Ends the command with `error` unless it failed already; only the
    /// releases still due go from now on.
    pub fn fail(&mut self, error: WireError) {
        self.failed.get_or_insert(error);
    }

    /// The next event to send, or `None` when the command is done.
    ///
    /// Before each event that is not a release, while nothing failed,
    /// `interrupted` is asked whether something ended the command
    /// meanwhile (a dialog opened): its error is then the answer. After a
    /// failure a release is sent only if it is due and `still_held` (the
    /// caller's own record of held input) says nothing else released it.
    pub fn next(
        &mut self,
        mut interrupted: impl FnMut() -> Option<WireError>,
        still_held: impl Fn(&InputEvent) -> bool,
    ) -> Option<&'a InputEvent> {
        while let Some(event) = self.events.get(self.next) {
            self.next += 1;
            let role = event.role();
            let release = match &role {
                InputRole::Release(id) => Some(id),
                _ => None,
            };
            if self.failed.is_none() && release.is_none() {
                if let Some(error) = interrupted() {
                    self.failed = Some(error);
                }
            }
            if self.failed.is_none() {
                return Some(event);
            }
            if release.is_some_and(|id| self.pressed.contains(id)) && still_held(event) {
                return Some(event);
            }
        }
        None
    }

    /// Records what came of `event`, the one [`InputPlan::next`] gave:
    /// whether it was handed to the browser (a press refused before that
    /// holds nothing) and its result.
    pub fn sent(&mut self, event: &InputEvent, handed: bool, result: Result<T, WireError>) {
        match event.role() {
            InputRole::Press(id) if handed => self.pressed.push(id),
            InputRole::Release(id) => self.pressed.retain(|p| *p != id),
            _ => {}
        }
        match result {
            Ok(value) => self.last = Some(value),
            Err(e) => self.fail(e),
        }
    }

    /// The command's answer: its first failure, else the last event's
    /// result.
    pub fn finish(self) -> Result<Option<T>, WireError> {
        match self.failed {
            Some(e) => Err(e),
            None => Ok(self.last),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::CommandClass;
    use serde_json::json;

    fn mouse(kind: &str) -> InputEvent {
        InputEvent::new(MOUSE_EVENT, json!({"type": kind, "x": 1, "y": 2}))
    }

    #[test]
    fn roles_name_what_is_held() {
        let role = |m: &str, p: Value| input_role(m, &p);
        assert_eq!(
            role(
                KEY_EVENT,
                json!({"type": "keyDown", "key": "a", "code": "KeyA"})
            ),
            InputRole::Press("key:KeyA".into())
        );
        assert_eq!(
            role(KEY_EVENT, json!({"type": "rawKeyDown", "key": "Enter"})),
            InputRole::Press("key:Enter".into())
        );
        assert_eq!(
            role(KEY_EVENT, json!({"type": "keyUp", "key": "a", "code": ""})),
            InputRole::Release("key:a".into())
        );
        // Text without a key holds nothing.
        assert_eq!(
            role(KEY_EVENT, json!({"type": "keyDown", "text": "x"})),
            InputRole::Other
        );
        assert_eq!(
            role(
                MOUSE_EVENT,
                json!({"type": "mousePressed", "button": "right"})
            ),
            InputRole::Press("button:right".into())
        );
        assert_eq!(
            mouse("mouseReleased").role(),
            InputRole::Release("button:left".into())
        );
        assert_eq!(mouse("mouseMoved").role(), InputRole::Other);
        assert_eq!(
            role(TOUCH_EVENT, json!({"type": "touchCancel"})),
            InputRole::Release("touch".into())
        );
        assert_eq!(
            role("Runtime.evaluate", json!({"type": "mousePressed"})),
            InputRole::Other
        );
        assert_eq!(mouse("mouseReleased").class(), CommandClass::Release);
        assert_eq!(mouse("mousePressed").class(), CommandClass::Act);
        assert_eq!(mouse("mouseMoved").class(), CommandClass::Act);
    }

    #[test]
    fn an_input_command_leaves_nothing_held() {
        let click = [
            mouse("mouseMoved"),
            mouse("mousePressed"),
            mouse("mouseReleased"),
            mouse("mousePressed"),
            mouse("mouseReleased"),
        ];
        assert_eq!(check_input_events(&click), Ok(()));
        let kinds = |events: &[InputEvent]| check_input_events(events).map_err(|e| e.kind);
        let invalid = Err(ErrorKind::InvalidRequest);
        assert_eq!(kinds(&[]), invalid, "empty");
        assert_eq!(kinds(&vec![mouse("mouseMoved"); 17]), invalid, "too many");
        assert_eq!(kinds(&vec![mouse("mouseMoved"); 16]), Ok(()));
        assert_eq!(
            kinds(&[mouse("mouseMoved"), mouse("mousePressed")]),
            invalid,
            "a press left held"
        );
        assert_eq!(
            kinds(&[mouse("mouseReleased"), mouse("mousePressed")]),
            invalid,
            "released before pressed"
        );
        assert_eq!(
            kinds(&[
                mouse("mousePressed"),
                mouse("mousePressed"),
                mouse("mouseReleased"),
                mouse("mouseReleased")
            ]),
            invalid,
            "pressed twice"
        );
        assert_eq!(
            kinds(&[InputEvent::new("Runtime.evaluate", json!({}))]),
            invalid,
            "not input"
        );
        let key = |kind: &str| InputEvent::new(KEY_EVENT, json!({"type": kind, "key": "Shift"}));
        assert_eq!(
            kinds(&[
                key("keyDown"),
                mouse("mousePressed"),
                mouse("mouseReleased"),
                key("keyUp")
            ]),
            Ok(()),
            "nested presses"
        );
    }

    /// Runs `events` by the plan: each event's outcome from `outcome`, a
    /// dialog "opening" before the event at `interrupt_at`; the methods and
    /// types sent, and the answer.
    fn run(
        events: &[InputEvent],
        outcome: impl Fn(usize, &InputEvent) -> Result<usize, WireError>,
        interrupt_at: Option<usize>,
    ) -> (Vec<String>, Result<Option<usize>, ErrorKind>) {
        let mut plan = InputPlan::new(events).expect("valid");
        let mut sent = Vec::new();
        let mut asked = 0;
        while let Some(event) = plan.next(
            || {
                asked += 1;
                (interrupt_at == Some(asked - 1))
                    .then(|| WireError::new(ErrorKind::DialogOpen, "a dialog opened"))
            },
            |_| true,
        ) {
            let i = events
                .iter()
                .position(|e| std::ptr::eq(e, event))
                .expect("ours");
            sent.push(event.params["type"].as_str().unwrap_or("").to_owned());
            plan.sent(event, true, outcome(i, event));
        }
        (sent, plan.finish().map_err(|e| e.kind))
    }

    #[test]
    fn a_plan_sends_in_order_and_after_a_failure_only_the_releases_due() {
        let drag = [
            mouse("mouseMoved"),
            mouse("mousePressed"),
            mouse("mouseMoved"),
            mouse("mouseReleased"),
        ];
        let (sent, answer) = run(&drag, |i, _| Ok(i), None);
        assert_eq!(
            sent,
            ["mouseMoved", "mousePressed", "mouseMoved", "mouseReleased"]
        );
        assert_eq!(answer, Ok(Some(3)));
        // The move after the press fails: the release still goes, and the
        // failure is the answer.
        let fail_at = |n: usize| {
            move |i: usize, _: &InputEvent| {
                if i == n {
                    Err(WireError::new(ErrorKind::CommandFailed, "no"))
                } else {
                    Ok(i)
                }
            }
        };
        let (sent, answer) = run(&drag, fail_at(2), None);
        assert_eq!(
            sent,
            ["mouseMoved", "mousePressed", "mouseMoved", "mouseReleased"]
        );
        assert_eq!(answer, Err(ErrorKind::CommandFailed));
        // The first move fails: nothing was pressed, nothing more goes.
        let (sent, answer) = run(&drag, fail_at(0), None);
        assert_eq!(sent, ["mouseMoved"]);
        assert_eq!(answer, Err(ErrorKind::CommandFailed));
        // A dialog opens before the second move: only the release goes.
        let (sent, answer) = run(&drag, |i, _| Ok(i), Some(2));
        assert_eq!(sent, ["mouseMoved", "mousePressed", "mouseReleased"]);
        assert_eq!(answer, Err(ErrorKind::DialogOpen));
    }

    #[test]
    fn a_plan_releases_only_what_was_handed_over_and_is_still_held() {
        let click = [mouse("mousePressed"), mouse("mouseReleased")];
        // A press refused before it reached the browser holds nothing.
        let mut plan: InputPlan<'_, ()> = InputPlan::new(&click).expect("valid");
        let press = plan.next(|| None, |_| true).expect("the press");
        plan.sent(
            press,
            false,
            Err(WireError::new(ErrorKind::HumanHasControl, "no")),
        );
        assert!(plan.next(|| None, |_| true).is_none());
        assert_eq!(
            plan.finish().map_err(|e| e.kind),
            Err(ErrorKind::HumanHasControl)
        );
        // A press another release already released is not released again.
        let mut plan: InputPlan<'_, ()> = InputPlan::new(&click).expect("valid");
        let press = plan.next(|| None, |_| true).expect("the press");
        plan.sent(press, true, Ok(()));
        plan.fail(WireError::new(ErrorKind::DialogOpen, "a dialog"));
        assert!(plan.next(|| None, |_| false).is_none());
        // A failure before the first event sends nothing.
        let mut plan: InputPlan<'_, ()> = InputPlan::new(&click).expect("valid");
        plan.fail(WireError::new(ErrorKind::StaleFrame, "moved"));
        assert!(plan.next(|| None, |_| true).is_none());
        assert_eq!(
            plan.finish().map_err(|e| e.kind),
            Err(ErrorKind::StaleFrame)
        );
        // Invalid events are refused before any plan.
        assert!(InputPlan::<()>::new(&click[..1]).is_err());
    }

    #[test]
    fn releases_repeat_the_press() {
        let down = json!({"type": "rawKeyDown", "key": "Shift", "code": "ShiftLeft",
                          "windowsVirtualKeyCode": 16, "location": 1, "modifiers": 8,
                          "text": "x"});
        assert_eq!(
            key_up(&down, None),
            json!({"type": "keyUp", "key": "Shift", "code": "ShiftLeft",
                   "windowsVirtualKeyCode": 16, "location": 1})
        );
        assert_eq!(key_up(&down, Some(0))["modifiers"], 0);
        assert_eq!(
            input_role(KEY_EVENT, &key_up(&down, None)),
            InputRole::Release("key:ShiftLeft".into())
        );
        assert_eq!(
            mouse_up(1.0, 2.0, "right", Some(1)),
            json!({"type": "mouseReleased", "x": 1.0, "y": 2.0, "button": "right",
                   "clickCount": 1, "buttons": 1})
        );
        assert!(mouse_up(1.0, 2.0, "left", None).get("buttons").is_none());
        assert_eq!(
            input_role(TOUCH_EVENT, &touch_end()),
            InputRole::Release("touch".into())
        );
    }
}
