//! The extension's own ledger of input it sent that a page still holds: a
//! key down without its key up, a mouse button pressed and not released, a
//! touch begun and not ended.
//!
//! The daemon pairs every press with its release (DESIGN §2, "Paired input
//! releases"), or sends both in one `input` command that the extension
//! pairs itself, but only while it can reach the page. When the native link
//! drops, the worker restarts, the extension reloads, the person unshares a
//! tab or the debugger is detached from outside, the daemon cannot send the
//! release any more; the extension then sends it itself from this ledger.
//! Detaching a debugger sends no key up, so without it the page would keep
//! the key held.
//!
//! The ledger is built from the CDP commands themselves, whichever path
//! sent them (cotab's input methods or an agent's raw `cdp.send`): a press
//! is recorded before it is sent (it may run even if its answer never
//! comes, so it counts as held until its release), a release is forgotten
//! once the browser accepted it. It is [`cotab_shared::held::Ledger`], the
//! type of the daemon's record too, owned by tabs; small and serialisable,
//! so the worker keeps it in `chrome.storage` across restarts and reloads.

pub use cotab_shared::held::Sent;
use cotab_shared::held::{Ledger, Moved, Press};
use cotab_shared::input::{input_role, InputRole};
pub use cotab_shared::input::{KEY_EVENT, MOUSE_EVENT, TOUCH_EVENT};
use cotab_shared::TabId;
use serde_json::Value;

/// One press as stored: its tab is its owner.
pub type StoredEntry = Press<TabId>;

/// Held input per tab: [`Ledger`], the type the daemon's record is too,
/// owned by tabs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeldInput {
    ledger: Ledger<TabId>,
    /// Pointer moves being sent right now, each with its tab, where it
    /// goes and where the buttons it moved were, put back if the browser
    /// refuses it. Not saved.
    moving: Vec<(TabId, (f64, f64), Moved)>,
}

fn is_move(method: &str, params: &Value) -> bool {
    method == MOUSE_EVENT && params.get("type").and_then(Value::as_str) == Some("mouseMoved")
}

fn point(params: &Value) -> (f64, f64) {
    let coord = |name: &str| params.get(name).and_then(Value::as_f64).unwrap_or(0.0);
    (coord("x"), coord("y"))
}

impl HeldInput {
    /// Notes a command about to be sent to `tab`. Returns whether the set
    /// of held input changed (so it should be saved); a pointer move only
    /// moves where the held buttons would be released (not saved for it
    /// alone), until the browser refuses it.
    pub fn before_send(&mut self, tab: TabId, method: &str, params: &Value) -> bool {
        match input_role(method, params) {
            InputRole::Press(_) => {
                matches!(self.ledger.press_input(tab, method, params), Some(Ok(_)))
            }
            InputRole::Release(id) => {
                self.ledger.release_sent(&tab, &id);
                false
            }
            InputRole::Other if is_move(method, params) => {
                let at = point(params);
                let was = self.ledger.moved(|p| p.owner == tab, at.0, at.1);
                self.moving.push((tab, at, was));
                false
            }
            InputRole::Other => false,
        }
    }

    /// Notes how a command ended. A release the browser refused leaves its
    /// press held (a later fault sends it again); one that ran, or may have,
    /// forgets it, so the page never sees a second one. A pointer move the
    /// browser refused puts the buttons it moved, those still held, back
    /// where they were. Returns whether the set of held input changed.
    pub fn after_send(&mut self, tab: TabId, method: &str, params: &Value, sent: Sent) -> bool {
        match input_role(method, params) {
            InputRole::Release(id) => self.ledger.release_answered(&tab, &id, sent).0,
            InputRole::Other if is_move(method, params) => {
                let at = point(params);
                let Some(i) = self
                    .moving
                    .iter()
                    .position(|(t, to, _)| *t == tab && *to == at)
                else {
                    return false;
                };
                let (_, _, was) = self.moving.remove(i);
                if sent == Sent::Refused {
                    self.ledger.moved_back(&was);
                }
                false
            }
            _ => false,
        }
    }

    /// The commands that release everything `tab` holds, in a safe order
    /// (touch, buttons, then keys, the first pressed last, so a modifier
    /// held before a key goes up after it), and forgets them. An entry
    /// whose release is being sent already is left to that release.
    pub fn take_releases(&mut self, tab: TabId) -> Vec<(&'static str, Value)> {
        self.ledger.take(|p| p.owner == tab)
    }

    /// Forgets what `tab` holds (its page is gone). Returns whether it held
    /// anything.
    pub fn forget(&mut self, tab: TabId) -> bool {
        let before = self.ledger.presses().len();
        self.ledger.retain(|p| p.owner != tab);
        self.ledger.presses().len() != before
    }

    /// Whether `tab` holds the input the press or release `method` with
    /// `params` names, with no release of it on its way.
    pub fn holds(&self, tab: TabId, method: &str, params: &Value) -> bool {
        match input_role(method, params) {
            InputRole::Press(id) | InputRole::Release(id) => self.ledger.holds(&tab, &id),
            InputRole::Other => false,
        }
    }

    /// The tabs holding input.
    pub fn tabs(&self) -> Vec<TabId> {
        let mut tabs: Vec<TabId> = Vec::new();
        for p in self.ledger.presses() {
            if !tabs.contains(&p.owner) {
                tabs.push(p.owner);
            }
        }
        tabs
    }

    /// Whether nothing is held anywhere.
    pub fn is_empty(&self) -> bool {
        self.ledger.presses().is_empty()
    }

    /// The ledger as stored.
    pub fn to_stored(&self) -> Vec<StoredEntry> {
        self.ledger.presses().to_vec()
    }

    /// A ledger read back from storage; repeated entries are dropped.
    pub fn from_stored(stored: Vec<StoredEntry>) -> HeldInput {
        HeldInput {
            ledger: Ledger::restore(stored),
            moving: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const T: TabId = TabId(4);

    fn key_down(key: &str, code: &str) -> Value {
        json!({"type": "rawKeyDown", "key": key, "code": code, "windowsVirtualKeyCode": 65,
               "nativeVirtualKeyCode": 65, "modifiers": 2, "text": "a"})
    }

    #[test]
    fn a_key_down_is_released_with_its_own_identity_and_no_modifiers() {
        let mut held = HeldInput::default();
        assert!(held.before_send(T, KEY_EVENT, &key_down("a", "KeyA")));
        // A repeat holds nothing more.
        assert!(!held.before_send(T, KEY_EVENT, &key_down("a", "KeyA")));
        assert_eq!(held.tabs(), vec![T]);
        assert_eq!(
            held.take_releases(T),
            vec![(
                KEY_EVENT,
                json!({"type": "keyUp", "key": "a", "code": "KeyA",
                       "windowsVirtualKeyCode": 65, "nativeVirtualKeyCode": 65})
            )]
        );
        assert!(held.is_empty());
        assert!(held.take_releases(T).is_empty());
    }

    fn key_up(key: &str, code: &str) -> Value {
        json!({"type": "keyUp", "key": key, "code": code})
    }

    #[test]
    fn a_sent_release_clears_only_its_own_press() {
        let mut held = HeldInput::default();
        held.before_send(T, KEY_EVENT, &key_down("Shift", "ShiftLeft"));
        held.before_send(T, KEY_EVENT, &key_down("a", "KeyA"));
        held.before_send(
            T,
            MOUSE_EVENT,
            &json!({"type": "mousePressed", "x": 5, "y": 6, "button": "left"}),
        );
        // A release only counts once the browser took it.
        assert!(!held.before_send(T, KEY_EVENT, &key_up("a", "KeyA")));
        assert!(held.after_send(T, KEY_EVENT, &key_up("a", "KeyA"), Sent::Accepted));
        assert!(!held.after_send(T, KEY_EVENT, &key_up("a", "KeyA"), Sent::Accepted));
        assert!(!held.after_send(
            T,
            MOUSE_EVENT,
            &json!({"type": "mouseReleased", "button": "right"}),
            Sent::Accepted
        ));
        // A move carries a held button along once it ran.
        let moved = json!({"type": "mouseMoved", "x": 50, "y": 60});
        held.before_send(T, MOUSE_EVENT, &moved);
        held.after_send(T, MOUSE_EVENT, &moved, Sent::Accepted);
        let releases = held.take_releases(T);
        assert_eq!(releases.len(), 2);
        assert_eq!(
            releases[0],
            (
                MOUSE_EVENT,
                json!({"type": "mouseReleased", "x": 50.0, "y": 60.0, "button": "left", "clickCount": 1})
            )
        );
        assert_eq!(releases[1].1["code"], "ShiftLeft");
    }

    #[test]
    fn keys_go_up_in_reverse_order_of_their_presses() {
        let mut held = HeldInput::default();
        held.before_send(T, KEY_EVENT, &key_down("Shift", "ShiftLeft"));
        held.before_send(T, KEY_EVENT, &key_down("a", "KeyA"));
        let codes: Vec<Value> = held
            .take_releases(T)
            .into_iter()
            .map(|(_, up)| up["code"].clone())
            .collect();
        assert_eq!(codes, vec![json!("KeyA"), json!("ShiftLeft")]);
    }

    #[test]
    fn a_release_on_its_way_is_not_sent_twice() {
        let mut held = HeldInput::default();
        held.before_send(T, KEY_EVENT, &key_down("a", "KeyA"));
        held.before_send(
            T,
            MOUSE_EVENT,
            &json!({"type": "mousePressed", "button": "left"}),
        );
        // The daemon's key up is in flight when a fault asks for releases:
        // only the button is released by the ledger.
        held.before_send(T, KEY_EVENT, &key_up("a", "KeyA"));
        let releases = held.take_releases(T);
        assert_eq!(releases.len(), 1);
        assert_eq!(releases[0].0, MOUSE_EVENT);
        assert!(!held.after_send(T, KEY_EVENT, &key_up("a", "KeyA"), Sent::Accepted));
        assert!(held.is_empty());
    }

    #[test]
    fn the_ledger_says_what_still_needs_its_release() {
        let mut held = HeldInput::default();
        let press = json!({"type": "mousePressed", "button": "left"});
        let release = json!({"type": "mouseReleased", "button": "left"});
        assert!(!held.holds(T, MOUSE_EVENT, &release), "nothing pressed");
        held.before_send(T, MOUSE_EVENT, &press);
        held.before_send(T, KEY_EVENT, &key_down("a", "KeyA"));
        assert!(held.holds(T, MOUSE_EVENT, &release));
        assert!(held.holds(T, KEY_EVENT, &key_up("a", "KeyA")));
        assert!(!held.holds(T, KEY_EVENT, &key_up("b", "KeyB")));
        assert!(!held.holds(TabId(9), MOUSE_EVENT, &release), "another tab");
        assert!(
            !held.holds(T, MOUSE_EVENT, &json!({"type": "mouseMoved"})),
            "not a release"
        );
        // Its release on its way: not due again; once it ran, not held.
        held.before_send(T, MOUSE_EVENT, &release);
        assert!(!held.holds(T, MOUSE_EVENT, &release));
        held.after_send(T, MOUSE_EVENT, &release, Sent::Accepted);
        assert!(!held.holds(T, MOUSE_EVENT, &release));
        assert!(held.holds(T, KEY_EVENT, &key_up("a", "KeyA")));
        held.before_send(
            T,
            TOUCH_EVENT,
            &json!({"type": "touchStart", "touchPoints": []}),
        );
        assert!(held.holds(T, TOUCH_EVENT, &json!({"type": "touchEnd"})));
    }

    #[test]
    fn a_refused_release_keeps_its_press_and_an_unanswered_one_does_not() {
        let mut held = HeldInput::default();
        held.before_send(T, KEY_EVENT, &key_down("a", "KeyA"));
        held.before_send(T, KEY_EVENT, &key_up("a", "KeyA"));
        assert!(!held.after_send(T, KEY_EVENT, &key_up("a", "KeyA"), Sent::Refused));
        assert_eq!(
            held.take_releases(T).len(),
            1,
            "sent again at the next fault"
        );
        held.before_send(T, KEY_EVENT, &key_down("a", "KeyA"));
        held.before_send(T, KEY_EVENT, &key_up("a", "KeyA"));
        assert!(held.after_send(T, KEY_EVENT, &key_up("a", "KeyA"), Sent::Unknown));
        assert!(held.is_empty(), "it may have run: never a second key up");
    }

    #[test]
    fn touches_and_other_input_and_other_tabs() {
        let mut held = HeldInput::default();
        assert!(!held.before_send(T, "Input.insertText", &json!({"text": "x"})));
        assert!(!held.before_send(T, MOUSE_EVENT, &json!({"type": "mouseWheel"})));
        assert!(!held.before_send(T, "Runtime.evaluate", &json!({"expression": "1"})));
        assert!(held.is_empty());
        assert!(held.before_send(
            T,
            TOUCH_EVENT,
            &json!({"type": "touchStart", "touchPoints": [{"x": 1, "y": 1}]})
        ));
        assert!(held.before_send(
            TabId(9),
            MOUSE_EVENT,
            &json!({"type": "mousePressed", "button": "middle"})
        ));
        assert!(held.after_send(
            TabId(9),
            MOUSE_EVENT,
            &json!({"type": "mouseReleased", "button": "middle"}),
            Sent::Accepted
        ));
        assert_eq!(held.tabs(), vec![T]);
        assert_eq!(
            held.take_releases(T),
            vec![(TOUCH_EVENT, json!({"type": "touchEnd", "touchPoints": []}))]
        );
    }

    #[test]
    fn a_key_without_identity_is_not_input_that_holds() {
        let mut held = HeldInput::default();
        assert_eq!(
            input_role(KEY_EVENT, &json!({"type": "keyDown", "text": "x"})),
            InputRole::Other
        );
        assert!(!held.before_send(T, KEY_EVENT, &json!({"type": "keyDown", "key": ""})));
        assert!(held.is_empty());
    }

    #[test]
    fn a_move_still_in_flight_has_moved_the_buttons_and_a_refusal_puts_back_only_those() {
        let mut held = HeldInput::default();
        let press = |b: &str, x: f64| json!({"type": "mousePressed", "button": b, "x": x, "y": 1.0, "clickCount": 1});
        let moved = json!({"type": "mouseMoved", "x": 50, "y": 60});
        held.before_send(T, MOUSE_EVENT, &press("left", 1.0));
        held.after_send(T, MOUSE_EVENT, &press("left", 1.0), Sent::Accepted);
        // The move goes; a press of another button goes before it answers.
        held.before_send(T, MOUSE_EVENT, &moved);
        held.before_send(T, MOUSE_EVENT, &press("right", 9.0));
        held.after_send(T, MOUSE_EVENT, &press("right", 9.0), Sent::Accepted);
        let at = |held: &HeldInput| {
            held.clone()
                .take_releases(T)
                .iter()
                .map(|(_, p)| (p["button"].clone(), p["x"].clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            at(&held),
            [(json!("left"), json!(50.0)), (json!("right"), json!(9.0))],
            "taken while the move is in flight: where it went"
        );
        held.after_send(T, MOUSE_EVENT, &moved, Sent::Refused);
        assert_eq!(
            at(&held),
            [(json!("left"), json!(1.0)), (json!("right"), json!(9.0))],
            "refused: the button it moved goes back, the later one stays"
        );
    }

    /// One tab's ledger, as the worker drives it around each command.
    struct OneTab(HeldInput);

    impl cotab_shared::held::conformance::Driver for OneTab {
        fn send(&mut self, method: &str, params: &Value, sent: Sent) -> Vec<(&'static str, Value)> {
            self.0.before_send(T, method, params);
            self.0.after_send(T, method, params, sent);
            Vec::new()
        }

        fn revoke(&mut self) -> Vec<(&'static str, Value)> {
            self.0.take_releases(T)
        }
    }

    #[test]
    fn the_ledger_passes_the_scenarios_the_daemons_record_passes() {
        cotab_shared::held::conformance::check(|| OneTab(HeldInput::default()));
    }

    #[test]
    fn the_ledger_survives_storage_and_forgetting_a_tab() {
        let mut held = HeldInput::default();
        held.before_send(T, KEY_EVENT, &key_down("a", "KeyA"));
        held.before_send(
            TabId(7),
            MOUSE_EVENT,
            &json!({"type": "mousePressed", "x": 1, "y": 2}),
        );
        let stored = serde_json::to_value(held.to_stored()).expect("json");
        let read: Vec<StoredEntry> = serde_json::from_value(stored.clone()).expect("json");
        let mut back = HeldInput::from_stored(read.clone());
        assert_eq!(
            serde_json::to_value(back.to_stored()).expect("json"),
            stored
        );
        assert_eq!(back.tabs(), held.tabs());
        assert!(back.forget(TabId(7)));
        assert!(!back.forget(TabId(7)));
        assert_eq!(back.tabs(), vec![T]);
        // A press stored twice is held once.
        let twice = HeldInput::from_stored([read.clone(), read].concat());
        assert_eq!(twice.to_stored().len(), 2);
    }
}
