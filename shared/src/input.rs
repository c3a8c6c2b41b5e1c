//! Input events as CDP carries them, what each does to what a page holds
//! (a key down, a mouse button pressed or a touch begun, until its
//! release), and the check of the events of an `input` command
//! ([`crate::native::Command::Input`]).
//!
//! The extension keeps its ledger of held input by [`input_role`]; the
//! `input` command's rule that a page holds nothing more after it than
//! before is [`check_input_events`], which the daemon applies before
//! sending one and the extension before running one.

use crate::error::{ErrorKind, WireError};
use crate::native::CommandClass;
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

    /// The class it is sent with: a release is [`CommandClass::Release`]
    /// (it runs whoever controls the tab), anything else
    /// [`CommandClass::Act`].
    pub fn class(&self) -> CommandClass {
        match self.role() {
            InputRole::Release(_) => CommandClass::Release,
            _ => CommandClass::Act,
        }
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

#[cfg(test)]
mod tests {
    use super::*;
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
}
