//! Input events as CDP carries them, what each does to what a page holds
//! (a key down, a mouse button pressed or a touch begun, until its
//! release), and the check of the events of an `input` command
//! (`Command::Input` of the native link).
//!
//! The extension keeps its ledger of held input by [`input_role`]; the
//! `input` command's rule that a page holds nothing more after it than
//! before is [`check_input_events`], which the daemon applies before
//! sending one and the extension before running one. How one runs is
//! [`InputPlan`], which the extension follows; the
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

/// The release that pairs the press `method` with `params` (a press by
/// [`input_role`]): the same key up with no modifiers, the button up where
/// it went down, the touch's end. `None` for anything but a press. The
/// one statement of what releases a raw press, for the daemon's record of
/// it and the extension's ledger alike.
pub fn release_of(method: &str, params: &Value) -> Option<(&'static str, Value)> {
    match (method, input_role(method, params)) {
        (KEY_EVENT, InputRole::Press(_)) => Some((KEY_EVENT, key_up(params, None))),
        (MOUSE_EVENT, InputRole::Press(_)) => {
            let at = |k: &str| params.get(k).and_then(Value::as_f64).unwrap_or(0.0);
            let up = mouse_up(at("x"), at("y"), mouse_button(params), None);
            Some((MOUSE_EVENT, up))
        }
        (TOUCH_EVENT, InputRole::Press(_)) => Some((TOUCH_EVENT, touch_end())),
        _ => None,
    }
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
/// the extension follows and its tests check.
///
/// They are handed to the browser in groups, in order. Within a group,
/// the events before a release go at once, without waiting for the answer
/// of the event before, as Playwright's client sends a click's events:
/// the browser runs them in order, so a click's move and press wait for
/// the page's next frame together. Each release goes once its press is
/// answered: a press whose handler opens a JavaScript dialog is answered
/// when the dialog closes, and the browser drops input that reaches it
/// while a dialog shows, so the release must not be on its way then. A
/// group ends at a release after which the page holds nothing more: a
/// click's move, press and release are one group, the second click of a
/// double click the next. The next group goes once every event of the one
/// before answered, unless something ended the command meanwhile (a
/// dialog opened): as a person's double click stops at a dialog its first
/// press opens, so does the agent's.
///
/// An event the extension refuses before handing it over (its class, the
/// tab's state) ends the command: only the releases still due are handed
/// over after it, those of the presses already handed over, so the page
/// keeps no press. A failure before the first group (the check of the
/// viewport the command is aimed at, made first) hands over nothing. The
/// answer is that refusal or what ended the command, else the first event
/// in the list's order that failed, else the last event's result.
#[derive(Debug)]
pub struct InputPlan<'a> {
    events: &'a [InputEvent],
    next: usize,
    group_end: usize,
    pressed: Vec<String>,
    ended: Option<WireError>,
}

impl<'a> InputPlan<'a> {
    /// The plan of `events`, once they pass [`check_input_events`].
    pub fn new(events: &'a [InputEvent]) -> Result<InputPlan<'a>, WireError> {
        check_input_events(events)?;
        Ok(InputPlan {
            events,
            next: 0,
            group_end: 0,
            pressed: Vec::new(),
            ended: None,
        })
    }

    /// Starts the next group; `false` when the command is done. Before
    /// every group but the first, `interrupted` says whether something
    /// ended the command while the group before ran.
    pub fn begin_group(&mut self, interrupted: impl FnOnce() -> Option<WireError>) -> bool {
        if self.ended.is_some() || self.next >= self.events.len() {
            return false;
        }
        if self.next > 0 {
            if let Some(error) = interrupted() {
                self.ended = Some(error);
                return false;
            }
        }
        let mut held = 0usize;
        self.group_end = self.events.len();
        for (i, event) in self.events.iter().enumerate().skip(self.next) {
            match event.role() {
                InputRole::Press(_) => held += 1,
                InputRole::Release(_) => {
                    held -= 1;
                    if held == 0 {
                        self.group_end = i + 1;
                        break;
                    }
                }
                InputRole::Other => {}
            }
        }
        true
    }

    /// The next event of the group to hand over, or `None` at its end:
    /// each in turn, and after a refusal only the releases of presses
    /// handed over.
    pub fn next_event(&mut self) -> Option<&'a InputEvent> {
        while self.next < self.group_end {
            let event = &self.events[self.next];
            self.next += 1;
            match event.role() {
                _ if self.ended.is_none() => return Some(event),
                InputRole::Release(id) if self.pressed.contains(&id) => return Some(event),
                _ => {}
            }
        }
        None
    }

    /// Records what came of handing over `event`, the one
    /// [`InputPlan::next_event`] gave: `Ok` once the browser has it, or the
    /// refusal that kept it back (which ends the command).
    pub fn handed(&mut self, event: &InputEvent, result: Result<(), WireError>) {
        match (event.role(), result) {
            (InputRole::Press(id), Ok(())) => self.pressed.push(id),
            (InputRole::Release(id), Ok(())) => self.pressed.retain(|p| *p != id),
            (_, Ok(())) => {}
            (_, Err(e)) => {
                self.ended.get_or_insert(e);
            }
        }
    }

    /// The command's answer from the answers of the events handed over, in
    /// the order they were handed over.
    pub fn finish<T>(
        self,
        answers: impl IntoIterator<Item = Result<T, WireError>>,
    ) -> Result<Option<T>, WireError> {
        let mut last = None;
        let mut failed = None;
        for answer in answers {
            match answer {
                Ok(value) => last = Some(value),
                Err(e) => {
                    failed.get_or_insert(e);
                }
            }
        }
        match self.ended.or(failed) {
            Some(e) => Err(e),
            None => Ok(last),
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
    fn each_press_has_the_one_release_that_pairs_it() {
        let down = json!({"type": "keyDown", "key": "q", "code": "KeyQ", "text": "q",
                          "windowsVirtualKeyCode": 81, "modifiers": 8});
        let (method, up) = release_of(KEY_EVENT, &down).expect("a press");
        assert_eq!(method, KEY_EVENT);
        assert_eq!(
            up,
            json!({"type": "keyUp", "key": "q", "code": "KeyQ", "windowsVirtualKeyCode": 81})
        );
        assert_eq!(
            input_role(method, &up),
            InputRole::Release("key:KeyQ".into())
        );
        let pressed = json!({"type": "mousePressed", "x": 10.5, "y": 20, "button": "middle"});
        let (method, up) = release_of(MOUSE_EVENT, &pressed).expect("a press");
        assert_eq!(up, mouse_up(10.5, 20.0, "middle", None));
        assert_eq!(
            input_role(method, &up),
            InputRole::Release("button:middle".into())
        );
        let start = json!({"type": "touchStart", "touchPoints": [{"x": 1, "y": 1}]});
        assert_eq!(
            release_of(TOUCH_EVENT, &start),
            Some((TOUCH_EVENT, touch_end()))
        );
        for not_a_press in [
            (KEY_EVENT, json!({"type": "keyUp", "key": "q"})),
            (KEY_EVENT, json!({"type": "char", "text": "q"})),
            (MOUSE_EVENT, json!({"type": "mouseMoved", "x": 1, "y": 1})),
            ("Runtime.evaluate", json!({"type": "mousePressed"})),
        ] {
            assert_eq!(release_of(not_a_press.0, &not_a_press.1), None);
        }
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

    /// Hands `events` over by the plan, the one at `refuse_at` refused,
    /// the command ended before the group that starts at `interrupt_at`;
    /// the types handed over, group by group, and the answer when each
    /// event answers `answer`.
    fn run_groups(
        events: &[InputEvent],
        refuse_at: Option<usize>,
        interrupt_at: Option<usize>,
        answer: impl Fn(usize) -> Result<usize, WireError>,
    ) -> (Vec<Vec<String>>, Result<Option<usize>, ErrorKind>) {
        let mut plan = InputPlan::new(events).expect("valid");
        let mut groups = Vec::new();
        let mut answers = Vec::new();
        let mut at = 0;
        while plan.begin_group(|| {
            (interrupt_at == Some(at))
                .then(|| WireError::new(ErrorKind::DialogOpen, "a dialog opened"))
        }) {
            let mut handed = Vec::new();
            while let Some(event) = plan.next_event() {
                let i = events
                    .iter()
                    .position(|e| std::ptr::eq(e, event))
                    .expect("ours");
                at = i + 1;
                if refuse_at == Some(i) {
                    plan.handed(event, Err(WireError::new(ErrorKind::HumanHasControl, "no")));
                    continue;
                }
                plan.handed(event, Ok(()));
                handed.push(event.params["type"].as_str().unwrap_or("").to_owned());
                answers.push(answer(i));
            }
            groups.push(handed);
        }
        (groups, plan.finish(answers).map_err(|e| e.kind))
    }

    /// [`run_groups`], all groups as one list.
    fn run(
        events: &[InputEvent],
        refuse_at: Option<usize>,
        answer: impl Fn(usize) -> Result<usize, WireError>,
    ) -> (Vec<String>, Result<Option<usize>, ErrorKind>) {
        let (groups, answer) = run_groups(events, refuse_at, None, answer);
        (groups.concat(), answer)
    }

    fn fail_at(n: usize) -> impl Fn(usize) -> Result<usize, WireError> {
        move |i| {
            if i == n {
                Err(WireError::new(ErrorKind::CommandFailed, "no"))
            } else {
                Ok(i)
            }
        }
    }

    #[test]
    fn a_plan_hands_everything_over_and_answers_the_first_failure() {
        let drag = [
            mouse("mouseMoved"),
            mouse("mousePressed"),
            mouse("mouseMoved"),
            mouse("mouseReleased"),
        ];
        let all = ["mouseMoved", "mousePressed", "mouseMoved", "mouseReleased"];
        let (handed, answer) = run(&drag, None, Ok);
        assert_eq!(handed, all);
        assert_eq!(answer, Ok(Some(3)));
        // An event the browser fails: the others were handed over with it,
        // and the first failure in the list's order is the answer.
        let (handed, answer) = run(&drag, None, fail_at(2));
        assert_eq!(handed, all);
        assert_eq!(answer, Err(ErrorKind::CommandFailed));
        let (_, answer) = run(&drag, None, |i| match i {
            1 => Err(WireError::new(ErrorKind::Timeout, "late")),
            3 => Err(WireError::new(ErrorKind::CommandFailed, "no")),
            _ => Ok(i),
        });
        assert_eq!(
            answer,
            Err(ErrorKind::Timeout),
            "the press's failure comes first"
        );
    }

    #[test]
    fn a_group_ends_where_the_page_holds_nothing_and_a_dialog_ends_the_rest() {
        let double = [
            mouse("mouseMoved"),
            mouse("mousePressed"),
            mouse("mouseReleased"),
            mouse("mousePressed"),
            mouse("mouseReleased"),
        ];
        let (groups, answer) = run_groups(&double, None, None, Ok);
        assert_eq!(
            groups,
            [
                vec!["mouseMoved", "mousePressed", "mouseReleased"],
                vec!["mousePressed", "mouseReleased"]
            ]
        );
        assert_eq!(answer, Ok(Some(4)));
        // A dialog opened while the first click ran: the second is not
        // handed over, and the dialog is the answer.
        let (groups, answer) = run_groups(&double, None, Some(3), Ok);
        assert_eq!(
            groups,
            [vec!["mouseMoved", "mousePressed", "mouseReleased"]]
        );
        assert_eq!(answer, Err(ErrorKind::DialogOpen));
        // A drag and a chord are one group each; a hover is a group alone.
        let key = |kind: &str| InputEvent::new(KEY_EVENT, json!({"type": kind, "key": "Shift"}));
        let chord = [
            key("keyDown"),
            mouse("mousePressed"),
            mouse("mouseReleased"),
            key("keyUp"),
        ];
        assert_eq!(run_groups(&chord, None, None, Ok).0.len(), 1);
        assert_eq!(
            run_groups(&[mouse("mouseMoved")], None, None, Ok).0,
            [vec!["mouseMoved"]]
        );
    }

    #[test]
    fn a_refusal_hands_over_only_the_releases_due() {
        let drag = [
            mouse("mouseMoved"),
            mouse("mousePressed"),
            mouse("mouseMoved"),
            mouse("mouseReleased"),
        ];
        // The move after the press is refused: the release still goes,
        // and the refusal is the answer.
        let (handed, answer) = run(&drag, Some(2), Ok);
        assert_eq!(handed, ["mouseMoved", "mousePressed", "mouseReleased"]);
        assert_eq!(answer, Err(ErrorKind::HumanHasControl));
        // The press is refused: it holds nothing, and nothing more goes.
        let (handed, answer) = run(&drag, Some(1), Ok);
        assert_eq!(handed, ["mouseMoved"]);
        assert_eq!(answer, Err(ErrorKind::HumanHasControl));
        // The first event is refused: nothing is handed over.
        let (handed, answer) = run(&drag, Some(0), Ok);
        assert!(handed.is_empty());
        assert_eq!(answer, Err(ErrorKind::HumanHasControl));
        // Nested presses: a refusal between them releases both, in order.
        let key = |kind: &str| InputEvent::new(KEY_EVENT, json!({"type": kind, "key": "Shift"}));
        let chord = [
            key("keyDown"),
            mouse("mousePressed"),
            mouse("mouseMoved"),
            mouse("mouseReleased"),
            key("keyUp"),
        ];
        let (handed, _) = run(&chord, Some(2), Ok);
        assert_eq!(
            handed,
            ["keyDown", "mousePressed", "mouseReleased", "keyUp"]
        );
        // Invalid events are refused before any plan.
        assert!(InputPlan::new(&drag[..2]).is_err());
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
