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
//! comes), a release is forgotten once the browser accepted it. It is small
//! and serialisable, so the worker keeps it in `chrome.storage` across
//! restarts and reloads.

pub use cotab_shared::held::Sent;
use cotab_shared::input::{
    input_role, key_id, key_up, mouse_button, mouse_up, touch_end, InputRole,
};
pub use cotab_shared::input::{KEY_EVENT, MOUSE_EVENT, TOUCH_EVENT};
use cotab_shared::TabId;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What one tab holds. A handful of entries at most, so plain vectors (a
/// map type per entry kind would cost the worker's wasm more than it saves).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TabHeld {
    /// Held keys by `code` (else `key`), each with its key-up params.
    #[serde(default)]
    pub keys: Vec<(String, Value)>,
    /// Held mouse buttons by name, each with the pointer's last position.
    #[serde(default)]
    pub buttons: Buttons,
    /// Whether a touch is in progress.
    #[serde(default)]
    pub touch: bool,
    /// Entries whose release is being sent right now ([`entry_id`]): not
    /// sent again by [`HeldInput::take_releases`]. Not saved.
    #[serde(skip)]
    releasing: Vec<String>,
    /// Pointer moves being sent right now, each with where it goes and
    /// where the held buttons were before it, put back if the browser
    /// refuses it. Not saved.
    #[serde(skip)]
    moving: Vec<((f64, f64), Buttons)>,
}

/// Held mouse buttons by name, each with where it would be released.
type Buttons = Vec<(String, (f64, f64))>;

impl TabHeld {
    fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.buttons.is_empty() && !self.touch
    }
}

/// The ledger entry a press or release names: `key:<code>`, `button:<name>`
/// or `touch` ([`InputRole`]).
fn entry_id(method: &str, params: &Value) -> Option<String> {
    match input_role(method, params) {
        InputRole::Press(id) | InputRole::Release(id) => Some(id),
        InputRole::Other => None,
    }
}

/// Sets `key` to `value`; returns whether `key` is new.
fn put<V>(entries: &mut Vec<(String, V)>, key: String, value: V) -> bool {
    match entries.iter_mut().find(|(k, _)| *k == key) {
        Some(entry) => {
            entry.1 = value;
            false
        }
        None => {
            entries.push((key, value));
            true
        }
    }
}

/// Removes `key`; returns whether it was there.
fn take<V>(entries: &mut Vec<(String, V)>, key: &str) -> bool {
    let before = entries.len();
    entries.retain(|(k, _)| k != key);
    entries.len() != before
}

/// One tab's entry as stored: `[tabId, held]`.
pub type StoredEntry = (i32, TabHeld);

/// Held input per tab, in the order tabs first held something.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeldInput {
    tabs: Vec<(TabId, TabHeld)>,
}

/// What a command does to the ledger.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// Not input, or input that holds nothing (a move, a wheel, text).
    Other,
    /// A press: recorded before it is sent.
    Press,
    /// A release: forgotten once sent.
    Release,
}

fn is_move(method: &str, params: &Value) -> bool {
    method == MOUSE_EVENT && params.get("type").and_then(Value::as_str) == Some("mouseMoved")
}

fn point(params: &Value) -> (f64, f64) {
    let coord = |name: &str| params.get(name).and_then(Value::as_f64).unwrap_or(0.0);
    (coord("x"), coord("y"))
}

fn button(params: &Value) -> String {
    mouse_button(params).to_owned()
}

/// Classifies a CDP command.
pub fn classify(method: &str, params: &Value) -> Input {
    match input_role(method, params) {
        InputRole::Press(_) => Input::Press,
        InputRole::Release(_) => Input::Release,
        InputRole::Other => Input::Other,
    }
}

impl HeldInput {
    /// Notes a command about to be sent to `tab`. Returns whether the set
    /// of held input changed (so it should be saved); a pointer move only
    /// moves where the held buttons would be released (not saved for it
    /// alone), until the browser refuses it.
    pub fn before_send(&mut self, tab: TabId, method: &str, params: &Value) -> bool {
        let role = input_role(method, params);
        if let InputRole::Release(id) = role {
            if let Some(held) = self.get_mut(tab) {
                held.releasing.push(id);
            }
            return false;
        }
        if role == InputRole::Other {
            if let (true, Some(held)) = (is_move(method, params), self.get_mut(tab)) {
                let at = point(params);
                let was = held.buttons.clone();
                for (_, pos) in &mut held.buttons {
                    *pos = at;
                }
                held.moving.push((at, was));
            }
            return false;
        }
        if self.get_mut(tab).is_none() {
            self.tabs.push((tab, TabHeld::default()));
        }
        let Some(held) = self.get_mut(tab) else {
            return false;
        };
        match method {
            KEY_EVENT => {
                let Some(id) = key_id(params).map(str::to_owned) else {
                    return false;
                };
                put(&mut held.keys, id, key_up(params, None))
            }
            MOUSE_EVENT => put(&mut held.buttons, button(params), point(params)),
            _ => !std::mem::replace(&mut held.touch, true),
        }
    }

    /// Notes how a command ended. A release the browser refused leaves its
    /// press held (a later fault sends it again); one that ran, or may have,
    /// forgets it, so the page never sees a second one. A pointer move the
    /// browser refused puts the buttons it moved, those still held, back
    /// where they were. Returns whether the set of held input changed.
    pub fn after_send(&mut self, tab: TabId, method: &str, params: &Value, sent: Sent) -> bool {
        match classify(method, params) {
            Input::Release => {}
            Input::Other if is_move(method, params) => {
                let at = point(params);
                let Some(held) = self.get_mut(tab) else {
                    return false;
                };
                let Some(i) = held.moving.iter().position(|(to, _)| *to == at) else {
                    return false;
                };
                let (_, was) = held.moving.remove(i);
                if sent == Sent::Refused {
                    for (name, pos) in was {
                        if let Some(button) = held.buttons.iter_mut().find(|(n, _)| *n == name) {
                            button.1 = pos;
                        }
                    }
                }
                return false;
            }
            _ => return false,
        }
        let Some(held) = self.get_mut(tab) else {
            return false;
        };
        if let Some(id) = entry_id(method, params) {
            if let Some(at) = held.releasing.iter().position(|r| *r == id) {
                held.releasing.remove(at);
            }
        }
        if sent == Sent::Refused {
            return false;
        }
        let changed = match method {
            KEY_EVENT => key_id(params).is_some_and(|id| take(&mut held.keys, id)),
            MOUSE_EVENT => take(&mut held.buttons, &button(params)),
            _ => std::mem::replace(&mut held.touch, false),
        };
        if held.is_empty() {
            self.forget(tab);
        }
        changed
    }

    /// The commands that release everything `tab` holds, in a safe order
    /// (touch, buttons, then keys, the first pressed last, so a modifier
    /// held before a key goes up after it), and forgets them. An entry
    /// whose release is being sent already is left to that release.
    pub fn take_releases(&mut self, tab: TabId) -> Vec<(&'static str, Value)> {
        let Some(at) = self.tabs.iter().position(|(t, _)| *t == tab) else {
            return Vec::new();
        };
        let (_, held) = self.tabs.remove(at);
        let pending = |id: String| held.releasing.contains(&id);
        let mut out = Vec::new();
        if held.touch && !pending("touch".to_owned()) {
            out.push((TOUCH_EVENT, touch_end()));
        }
        for (button, (x, y)) in &held.buttons {
            if !pending(format!("button:{button}")) {
                out.push((MOUSE_EVENT, mouse_up(*x, *y, button, None)));
            }
        }
        for (id, up) in held.keys.iter().rev() {
            if !pending(format!("key:{id}")) {
                out.push((KEY_EVENT, up.clone()));
            }
        }
        out
    }

    /// Forgets what `tab` holds (its page is gone). Returns whether it held
    /// anything.
    pub fn forget(&mut self, tab: TabId) -> bool {
        let before = self.tabs.len();
        self.tabs.retain(|(t, _)| *t != tab);
        self.tabs.len() != before
    }

    /// Whether `tab` holds the input the press or release `method` with
    /// `params` names, with no release of it on its way.
    pub fn holds(&self, tab: TabId, method: &str, params: &Value) -> bool {
        let (Some((_, held)), Some(id)) = (
            self.tabs.iter().find(|(t, _)| *t == tab),
            entry_id(method, params),
        ) else {
            return false;
        };
        if held.releasing.contains(&id) {
            return false;
        }
        match id.split_once(':') {
            Some(("key", key)) => held.keys.iter().any(|(k, _)| k == key),
            Some(("button", name)) => held.buttons.iter().any(|(b, _)| b == name),
            _ => held.touch,
        }
    }

    /// The tabs holding input.
    pub fn tabs(&self) -> Vec<TabId> {
        self.tabs.iter().map(|(t, _)| *t).collect()
    }

    /// Whether nothing is held anywhere.
    pub fn is_empty(&self) -> bool {
        self.tabs.is_empty()
    }

    /// The ledger as stored.
    pub fn to_stored(&self) -> Vec<StoredEntry> {
        self.tabs.iter().map(|(t, h)| (t.0, h.clone())).collect()
    }

    /// A ledger read back from storage; empty and repeated entries are
    /// dropped.
    pub fn from_stored(stored: Vec<StoredEntry>) -> HeldInput {
        let mut held = HeldInput::default();
        for (tab, entry) in stored {
            if !entry.is_empty() && held.get_mut(TabId(tab)).is_none() {
                held.tabs.push((TabId(tab), entry));
            }
        }
        held
    }

    fn get_mut(&mut self, tab: TabId) -> Option<&mut TabHeld> {
        self.tabs
            .iter_mut()
            .find(|(t, _)| *t == tab)
            .map(|(_, held)| held)
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
            classify(KEY_EVENT, &json!({"type": "keyDown", "text": "x"})),
            Input::Other
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

    impl cotab_shared::held::conformance::Ledger for OneTab {
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
        let back: Vec<StoredEntry> = serde_json::from_value(stored).expect("json");
        let mut back = HeldInput::from_stored(back);
        assert_eq!(back, held);
        assert!(back.forget(TabId(7)));
        assert!(!back.forget(TabId(7)));
        assert_eq!(back.tabs(), vec![T]);
        assert!(HeldInput::from_stored(vec![(3, TabHeld::default())]).is_empty());
    }
}
