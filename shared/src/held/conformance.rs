//! The scenarios every ledger of held input passes: raw CDP input
//! sent to one tab (as an agent's `cdp.send` or the CDP endpoint
//! sends it) and how each command ended, then the person taking the
//! tab back; what the page must have been sent to release what it
//! held. The daemon's core and the extension's ledger each run them
//! (`cargo test`), each driving its [`super::Ledger`] as it does (a
//! [`Driver`]).

use super::Sent;
use crate::input::{KEY_EVENT, MOUSE_EVENT, TOUCH_EVENT};
use serde_json::{json, Value};

/// A release as a ledger sends it: its CDP method and params.
pub type Release = (&'static str, Value);

/// A ledger of held input under test, for one tab, driven as its side
/// drives it.
pub trait Driver {
    /// `method` with `params` went to the tab and ended as `sent`.
    /// Returns the releases the ledger sends because of it (a press
    /// whose send failed may be released at once).
    fn send(&mut self, method: &str, params: &Value, sent: Sent) -> Vec<Release>;
    /// The person took the tab back: the releases sent, in order.
    fn revoke(&mut self) -> Vec<Release>;
}

/// One scenario.
#[derive(Debug)]
pub struct Case {
    /// What it checks, in a sentence.
    pub name: &'static str,
    /// The commands sent, in order, and how each ended.
    pub steps: Vec<(&'static str, Value, Sent)>,
    /// Every release the page gets, during the steps and at the
    /// revocation, in order.
    pub releases: Vec<Release>,
}

fn key_down(key: &str, code: &str, vk: u32) -> Value {
    json!({"type": "rawKeyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk,
           "nativeVirtualKeyCode": vk, "modifiers": 8, "text": key})
}

fn key_up(key: &str, code: &str, vk: u32) -> Value {
    json!({"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk,
           "nativeVirtualKeyCode": vk})
}

fn button(kind: &str, name: &str, x: f64, y: f64) -> Value {
    json!({"type": kind, "x": x, "y": y, "button": name, "clickCount": 1})
}

fn released(name: &str, x: f64, y: f64) -> Release {
    (MOUSE_EVENT, button("mouseReleased", name, x, y))
}

/// The scenarios.
pub fn cases() -> Vec<Case> {
    use Sent::{Accepted, Refused, Unknown};
    let a = || key_down("a", "KeyA", 65);
    let a_up = || key_up("a", "KeyA", 65);
    let shift = || key_down("Shift", "ShiftLeft", 16);
    let shift_up = || key_up("Shift", "ShiftLeft", 16);
    let touch = || json!({"type": "touchStart", "touchPoints": [{"x": 3, "y": 4}]});
    let touch_end = || (TOUCH_EVENT, json!({"type": "touchEnd", "touchPoints": []}));
    // The left button pressed at (10, 20), then a move to (300, 40.5)
    // that ended as `sent`.
    let press_then_move = |sent| {
        vec![
            (
                MOUSE_EVENT,
                button("mousePressed", "left", 10.0, 20.0),
                Accepted,
            ),
            (
                MOUSE_EVENT,
                json!({"type": "mouseMoved", "x": 300, "y": 40.5, "buttons": 1}),
                sent,
            ),
        ]
    };
    vec![
        Case {
            name: "a key held is released by its own identity, without its modifiers or text",
            steps: vec![(KEY_EVENT, a(), Accepted)],
            releases: vec![(KEY_EVENT, a_up())],
        },
        Case {
            name: "keys go up the last pressed first",
            steps: vec![(KEY_EVENT, shift(), Accepted), (KEY_EVENT, a(), Accepted)],
            releases: vec![(KEY_EVENT, a_up()), (KEY_EVENT, shift_up())],
        },
        Case {
            name: "a key's auto-repeat holds it once",
            steps: vec![(KEY_EVENT, a(), Accepted), (KEY_EVENT, a(), Accepted)],
            releases: vec![(KEY_EVENT, a_up())],
        },
        Case {
            name: "a key the agent released itself is not released again",
            steps: vec![(KEY_EVENT, a(), Accepted), (KEY_EVENT, a_up(), Accepted)],
            releases: vec![],
        },
        Case {
            name: "a release the browser refused leaves its press to the revocation",
            steps: vec![(KEY_EVENT, a(), Accepted), (KEY_EVENT, a_up(), Refused)],
            releases: vec![(KEY_EVENT, a_up())],
        },
        Case {
            name: "a release that may have run is never sent a second time",
            steps: vec![(KEY_EVENT, a(), Accepted), (KEY_EVENT, a_up(), Unknown)],
            releases: vec![],
        },
        Case {
            name: "a press that may have run is released",
            steps: vec![(KEY_EVENT, a(), Unknown)],
            releases: vec![(KEY_EVENT, a_up())],
        },
        Case {
            name: "a button is released where the pointer went",
            steps: press_then_move(Accepted),
            releases: vec![released("left", 300.0, 40.5)],
        },
        Case {
            name: "a move refused before the page saw it leaves the button where it was",
            steps: press_then_move(Refused),
            releases: vec![released("left", 10.0, 20.0)],
        },
        Case {
            name: "a move that may have run takes the button along",
            steps: press_then_move(Unknown),
            releases: vec![released("left", 300.0, 40.5)],
        },
        Case {
            name: "the touch goes first, then the buttons as pressed, then the keys",
            steps: vec![
                (KEY_EVENT, shift(), Accepted),
                (
                    MOUSE_EVENT,
                    button("mousePressed", "right", 1.0, 2.0),
                    Accepted,
                ),
                (TOUCH_EVENT, touch(), Accepted),
                (
                    MOUSE_EVENT,
                    button("mousePressed", "middle", 1.0, 2.0),
                    Accepted,
                ),
                (KEY_EVENT, a(), Accepted),
            ],
            releases: vec![
                touch_end(),
                released("right", 1.0, 2.0),
                released("middle", 1.0, 2.0),
                (KEY_EVENT, a_up()),
                (KEY_EVENT, shift_up()),
            ],
        },
        Case {
            name: "a release frees only what it names",
            steps: vec![
                (
                    MOUSE_EVENT,
                    button("mousePressed", "left", 5.0, 6.0),
                    Accepted,
                ),
                (KEY_EVENT, a(), Accepted),
                (
                    MOUSE_EVENT,
                    button("mouseReleased", "right", 5.0, 6.0),
                    Accepted,
                ),
                (KEY_EVENT, key_up("b", "KeyB", 66), Accepted),
            ],
            releases: vec![released("left", 5.0, 6.0), (KEY_EVENT, a_up())],
        },
        Case {
            name: "input that holds nothing is not recorded",
            steps: vec![
                ("Input.insertText", json!({"text": "x"}), Accepted),
                (
                    MOUSE_EVENT,
                    json!({"type": "mouseWheel", "x": 1, "y": 1,
                                     "deltaX": 0, "deltaY": 5}),
                    Accepted,
                ),
                (
                    MOUSE_EVENT,
                    json!({"type": "mouseMoved", "x": 1, "y": 1}),
                    Accepted,
                ),
                (KEY_EVENT, json!({"type": "char", "text": "x"}), Accepted),
                (
                    KEY_EVENT,
                    json!({"type": "keyDown", "key": "", "text": "x"}),
                    Accepted,
                ),
                ("Runtime.evaluate", json!({"expression": "1"}), Accepted),
            ],
            releases: vec![],
        },
        Case {
            name: "a touch is ended once",
            steps: vec![
                (TOUCH_EVENT, touch(), Accepted),
                (
                    TOUCH_EVENT,
                    json!({"type": "touchMove", "touchPoints": [{"x": 9, "y": 9}]}),
                    Accepted,
                ),
            ],
            releases: vec![touch_end()],
        },
    ]
}

/// Runs every scenario on a fresh ledger from `new`; panics with the
/// scenario's name and what the ledger sent where it differs.
pub fn check<L: Driver>(new: impl Fn() -> L) {
    for case in cases() {
        let mut ledger = new();
        let mut sent = Vec::new();
        for (method, params, outcome) in &case.steps {
            sent.extend(ledger.send(method, params, *outcome));
        }
        sent.extend(ledger.revoke());
        assert_eq!(sent, case.releases, "{}", case.name);
        assert!(
            ledger.revoke().is_empty(),
            "{}: a second revocation sends nothing",
            case.name
        );
    }
}
