//! [`Ledger`]: the presses one side of cotab recorded, each with the
//! release that pairs it, and the state of each between its press and
//! its release.

use super::{release_rank, Sent};
use crate::input::{input_role, release_of, InputRole, KEY_EVENT, MOUSE_EVENT, TOUCH_EVENT};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where a press is between being recorded and being released.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum State {
    /// Recorded before it was sent; its answer has not come. The page may
    /// hold it.
    Sending,
    /// The browser ran it; held until released.
    #[default]
    Held,
    /// Its owner's release of it is on its way.
    Releasing,
    /// A revocation came while its press or its release was on its way:
    /// released (or, with `drop`, dropped: the browser side is gone) when
    /// that answers, unless its release ran.
    Revoked {
        /// Nothing is sent for it: the browser side is gone.
        drop: bool,
    },
    /// Released (or dropped) by a revocation. Kept until its owner's own
    /// release of it, which has nothing left to do, or until forgotten.
    Released,
}

/// One press a ledger recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Press<O> {
    /// Its number, in the order presses were recorded.
    pub seq: u64,
    /// Whose it is.
    pub owner: O,
    /// What it holds, as [`input_role`] names it: `key:<code>`,
    /// `button:<name>` or `touch`.
    pub id: String,
    /// The params of the release that pairs it (its method follows from
    /// `id`). A button's `x` and `y` follow the pointer; a button's
    /// `buttons`, when it has one, is set to the other buttons its owner
    /// holds as the release goes.
    pub release: Value,
    /// Where it is. Not saved: a ledger read back holds every press it
    /// kept, since the answers of what was on its way never come.
    #[serde(skip)]
    pub state: State,
}

impl<O> Press<O> {
    /// The CDP method of its release.
    pub fn method(&self) -> &'static str {
        method_of(&self.id)
    }

    fn is_button(&self) -> bool {
        self.id.starts_with("button:")
    }

    /// Whether the page holds it with no release of it on its way.
    fn is_held(&self) -> bool {
        matches!(self.state, State::Sending | State::Held)
    }
}

/// The CDP method that presses and releases what `id` names.
fn method_of(id: &str) -> &'static str {
    match id.split_once(':') {
        Some(("key", _)) => KEY_EVENT,
        Some(("button", _)) => MOUSE_EVENT,
        _ => TOUCH_EVENT,
    }
}

/// CDP's `buttons` bit of the button a `button:<name>` id names.
fn button_bit(id: &str) -> u32 {
    match id {
        "button:left" => 1,
        "button:right" => 2,
        "button:middle" => 4,
        "button:back" => 8,
        "button:forward" => 16,
        _ => 0,
    }
}

/// Where each button a pointer move took along was (its press's number
/// and position), to put back if the move was refused.
pub type Moved = Vec<(u64, f64, f64)>;

/// A press a ledger let go of: the release to send for it, or none
/// when it was dropped.
#[derive(Debug, Clone, PartialEq)]
pub struct Freed<O> {
    /// The press's number.
    pub seq: u64,
    /// Whose it was.
    pub owner: O,
    /// Its release's method and params, or `None`: dropped.
    pub release: Option<(&'static str, Value)>,
}

/// Presses recorded and not yet released, in the order recorded, with
/// whose each is. A handful at most, so a plain vector.
#[derive(Debug, Clone, PartialEq)]
pub struct Ledger<O> {
    presses: Vec<Press<O>>,
    next: u64,
}

impl<O> Default for Ledger<O> {
    fn default() -> Self {
        Ledger {
            presses: Vec::new(),
            next: 1,
        }
    }
}

impl<O: Clone + PartialEq> Ledger<O> {
    /// A ledger of presses read back (from storage), each held; a second
    /// press of the same thing by the same owner is dropped.
    pub fn restore(presses: Vec<Press<O>>) -> Ledger<O> {
        let mut ledger = Ledger::default();
        for mut press in presses {
            if ledger
                .find(|p| p.owner == press.owner && p.id == press.id)
                .is_none()
            {
                press.state = State::Held;
                ledger.next = ledger.next.max(press.seq + 1);
                ledger.presses.push(press);
            }
        }
        ledger
    }

    /// The presses, in the order recorded.
    pub fn presses(&self) -> &[Press<O>] {
        &self.presses
    }

    /// The number the next press gets.
    pub fn next_seq(&self) -> u64 {
        self.next
    }

    /// Press `seq`.
    pub fn get(&self, seq: u64) -> Option<&Press<O>> {
        self.presses.iter().find(|p| p.seq == seq)
    }

    /// The first press that `pred` matches.
    pub fn find(&self, pred: impl Fn(&Press<O>) -> bool) -> Option<&Press<O>> {
        self.presses.iter().find(|p| pred(p))
    }

    /// Takes press `seq` out.
    pub fn remove(&mut self, seq: u64) -> Option<Press<O>> {
        let at = self.presses.iter().position(|p| p.seq == seq)?;
        Some(self.presses.remove(at))
    }

    /// Keeps only the presses `keep` matches.
    pub fn retain(&mut self, keep: impl Fn(&Press<O>) -> bool) {
        self.presses.retain(|p| keep(p));
    }

    /// Sets the state of press `seq`.
    pub fn set_state(&mut self, seq: u64, state: State) {
        if let Some(p) = self.presses.iter_mut().find(|p| p.seq == seq) {
            p.state = state;
        }
    }

    /// Records a press of `id` by `owner` before it is sent, with the
    /// params of its `release`: its number. When the owner holds `id`
    /// already (in any state but released), nothing is recorded and that
    /// press's number is the error; one released by a revocation gives
    /// way.
    pub fn press(&mut self, owner: O, id: String, release: Value) -> Result<u64, u64> {
        if let Some(p) = self.find(|p| p.owner == owner && p.id == id) {
            if p.state != State::Released {
                return Err(p.seq);
            }
        }
        self.presses
            .retain(|p| !(p.owner == owner && p.id == id && p.state == State::Released));
        let seq = self.next;
        self.next += 1;
        self.presses.push(Press {
            seq,
            owner,
            id,
            release,
            state: State::Sending,
        });
        Ok(seq)
    }

    /// [`Ledger::press`] for the CDP command `method` with `params`, its
    /// release the one [`release_of`] pairs with it; `None` when it is
    /// no press.
    pub fn press_input(
        &mut self,
        owner: O,
        method: &str,
        params: &Value,
    ) -> Option<Result<u64, u64>> {
        let (InputRole::Press(id), Some((_, release))) =
            (input_role(method, params), release_of(method, params))
        else {
            return None;
        };
        Some(self.press(owner, id, release))
    }

    /// Press `seq`'s own send ended as `sent`. Accepted, it is held; else
    /// (it may have reached the page) it is taken out and released now.
    /// One revoked meanwhile is taken out and released (or dropped) now.
    pub fn press_answered(&mut self, seq: u64, sent: Sent) -> Option<Freed<O>> {
        match self.get(seq)?.state {
            State::Sending if sent == Sent::Accepted => {
                self.set_state(seq, State::Held);
                None
            }
            State::Sending => self.free(seq, false),
            State::Revoked { drop } => self.free(seq, drop),
            State::Held | State::Releasing | State::Released => None,
        }
    }

    /// Press `seq` needs no release from this ledger (another pairs it,
    /// or it never reached the page): if its answer had not come, it is
    /// taken out, dropped.
    pub fn press_unsent(&mut self, seq: u64) -> Option<Freed<O>> {
        match self.get(seq)?.state {
            State::Sending | State::Revoked { .. } => self.free(seq, true),
            _ => None,
        }
    }

    /// The owner's own release of `id` goes out: the press it releases,
    /// held or being sent, is releasing. Returns whether one was.
    pub fn release_sent(&mut self, owner: &O, id: &str) -> bool {
        let found = self
            .presses
            .iter_mut()
            .find(|p| p.owner == *owner && p.id == id && p.is_held());
        match found {
            Some(p) => {
                p.state = State::Releasing;
                true
            }
            None => false,
        }
    }

    /// How the owner's own release of `id` ended. One that ran, or may
    /// have, takes its press out (the page never gets a second one); one
    /// refused leaves it held, or, revoked meanwhile, releases it now.
    /// Returns whether a press was taken out, and what to release.
    pub fn release_answered(
        &mut self,
        owner: &O,
        id: &str,
        sent: Sent,
    ) -> (bool, Option<Freed<O>>) {
        let Some(press) = self.find(|p| p.owner == *owner && p.id == id) else {
            return (false, None);
        };
        let (seq, state) = (press.seq, press.state);
        match (state, sent) {
            (State::Releasing, Sent::Refused) => {
                self.set_state(seq, State::Held);
                (false, None)
            }
            (State::Revoked { drop }, Sent::Refused) => (true, self.free(seq, drop)),
            (_, Sent::Refused) => (false, None),
            _ => (self.remove(seq).is_some(), None),
        }
    }

    /// The pointer of the presses `pred` matches went to `(x, y)`: their
    /// buttons are released there. Says where each was, for
    /// [`Ledger::moved_back`].
    pub fn moved(
        &mut self,
        pred: impl Fn(&Press<O>) -> bool,
        x: f64,
        y: f64,
    ) -> Vec<(u64, f64, f64)> {
        let mut was = Vec::new();
        for p in &mut self.presses {
            if p.is_button() && p.state != State::Released && pred(p) {
                let at = |k: &str| p.release.get(k).and_then(Value::as_f64).unwrap_or(0.0);
                was.push((p.seq, at("x"), at("y")));
                p.release["x"] = Value::from(x);
                p.release["y"] = Value::from(y);
            }
        }
        was
    }

    /// Puts the buttons a move never took to the page (it was refused)
    /// back where they were, those still recorded.
    pub fn moved_back(&mut self, was: &Moved) {
        for &(seq, x, y) in was {
            if let Some(p) = self.presses.iter_mut().find(|p| p.seq == seq) {
                p.release["x"] = Value::from(x);
                p.release["y"] = Value::from(y);
            }
        }
    }

    /// CDP's `buttons` mask of the buttons held (or being pressed) by the
    /// presses `pred` matches, besides `except`.
    pub fn buttons(&self, pred: impl Fn(&Press<O>) -> bool, except: Option<u64>) -> u32 {
        self.presses
            .iter()
            .filter(|p| Some(p.seq) != except && p.is_held() && pred(p))
            .fold(0, |mask, p| mask | button_bit(&p.id))
    }

    /// Whether `owner` holds `id` with no release of it on its way.
    pub fn holds(&self, owner: &O, id: &str) -> bool {
        self.find(|p| p.owner == *owner && p.id == id && p.is_held())
            .is_some()
    }

    /// The release of press `seq` as it goes now: a button's `buttons`
    /// says the other buttons its owner still holds.
    fn release_now(&self, seq: u64) -> Option<(&'static str, Value)> {
        let press = self.get(seq)?;
        let mut params = press.release.clone();
        if press.is_button() && params.get("buttons").is_some() {
            let owner = &press.owner;
            params["buttons"] = Value::from(self.buttons(|p| p.owner == *owner, Some(seq)));
        }
        Some((press.method(), params))
    }

    /// Takes press `seq` out; its release, or none with `drop`.
    fn free(&mut self, seq: u64, drop: bool) -> Option<Freed<O>> {
        let release = if drop { None } else { self.release_now(seq) };
        let press = self.remove(seq)?;
        Some(Freed {
            seq,
            owner: press.owner,
            release,
        })
    }

    /// Takes press `seq` out, with its release, if it is held; a press
    /// released by a revocation goes with none. `None` while it is on its
    /// way (its press or its release).
    pub fn take_release(&mut self, seq: u64) -> Option<Freed<O>> {
        match self.get(seq)?.state {
            State::Held => self.free(seq, false),
            State::Released => self.free(seq, true),
            _ => None,
        }
    }

    /// The numbers of the presses `pred` matches, in [`release_rank`]'s
    /// order.
    fn ranked(&self, pred: impl Fn(&Press<O>) -> bool) -> Vec<u64> {
        let mut hit: Vec<(u64, &str)> = self
            .presses
            .iter()
            .filter(|p| pred(p))
            .map(|p| (p.seq, p.id.as_str()))
            .collect();
        hit.sort_by_key(|(seq, id)| release_rank(id, *seq));
        hit.into_iter().map(|(seq, _)| seq).collect()
    }

    /// Revokes the presses `pred` matches, in [`release_rank`]'s order:
    /// each held one is released now (or dropped, with `drop`) and kept as
    /// released; one on its way, when that answers
    /// ([`Ledger::press_answered`], [`Ledger::release_answered`]).
    pub fn revoke(&mut self, pred: impl Fn(&Press<O>) -> bool, drop: bool) -> Vec<Freed<O>> {
        let mut freed = Vec::new();
        for seq in self.ranked(pred) {
            let Some(press) = self.get(seq) else { continue };
            let owner = press.owner.clone();
            match press.state {
                State::Held => {
                    let release = if drop { None } else { self.release_now(seq) };
                    self.set_state(seq, State::Released);
                    freed.push(Freed {
                        seq,
                        owner,
                        release,
                    });
                }
                State::Sending | State::Releasing => self.set_state(seq, State::Revoked { drop }),
                State::Revoked { .. } if drop => self.set_state(seq, State::Revoked { drop }),
                State::Revoked { .. } | State::Released => {}
            }
        }
        freed
    }

    /// Takes out every press `pred` matches, and returns their releases
    /// to send now, in [`release_rank`]'s order: nothing answers what was
    /// on its way any more, so a press being sent counts as held; one
    /// whose release is on its way is left to that release.
    pub fn take(&mut self, pred: impl Fn(&Press<O>) -> bool) -> Vec<(&'static str, Value)> {
        let mut releases = Vec::new();
        for seq in self.ranked(pred) {
            if self.get(seq).is_some_and(Press::is_held) {
                releases.extend(self.release_now(seq));
            }
            self.remove(seq);
        }
        releases
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(code: &str) -> (String, Value) {
        (
            format!("key:{code}"),
            json!({"type": "keyUp", "code": code}),
        )
    }

    fn button(name: &str, x: f64) -> (String, Value) {
        let up = crate::input::mouse_up(x, 0.0, name, Some(0));
        (format!("button:{name}"), up)
    }

    fn press(ledger: &mut Ledger<u8>, owner: u8, (id, release): (String, Value)) -> u64 {
        ledger.press(owner, id, release).expect("a new press")
    }

    #[test]
    fn a_press_is_recorded_once_per_owner_and_a_released_one_gives_way() {
        let mut ledger = Ledger::default();
        let a = press(&mut ledger, 1, key("KeyA"));
        assert_eq!(ledger.press(1, "key:KeyA".into(), json!({})), Err(a));
        let other = press(&mut ledger, 2, key("KeyA"));
        assert_ne!(a, other, "another owner's press is its own");
        assert_eq!(ledger.press_answered(a, Sent::Accepted), None);
        let revoked = ledger.revoke(|p| p.owner == 1, false);
        assert_eq!(revoked.len(), 1);
        assert_eq!(ledger.get(a).map(|p| p.state), Some(State::Released));
        let again = press(&mut ledger, 1, key("KeyA"));
        assert!(ledger.get(a).is_none(), "the released one gave way");
        assert_eq!(ledger.get(again).map(|p| p.state), Some(State::Sending));
    }

    #[test]
    fn a_press_revoked_on_its_way_is_released_or_dropped_when_it_answers() {
        let mut ledger = Ledger::default();
        let a = press(&mut ledger, 1, key("KeyA"));
        assert!(ledger.revoke(|_| true, false).is_empty(), "nothing yet");
        let freed = ledger.press_answered(a, Sent::Accepted).expect("released");
        assert_eq!(freed.release.map(|(m, _)| m), Some(KEY_EVENT));
        assert!(ledger.get(a).is_none());
        let b = press(&mut ledger, 1, key("KeyB"));
        ledger.revoke(|_| true, false);
        // The browser side went meanwhile: nothing is sent for it.
        ledger.revoke(|_| true, true);
        let freed = ledger.press_answered(b, Sent::Accepted).expect("dropped");
        assert_eq!(freed.release, None);
    }

    #[test]
    fn a_press_that_failed_is_released_at_once_and_one_paired_elsewhere_is_dropped() {
        let mut ledger = Ledger::default();
        let a = press(&mut ledger, 1, key("KeyA"));
        let freed = ledger.press_answered(a, Sent::Unknown).expect("released");
        assert!(freed.release.is_some());
        let b = press(&mut ledger, 1, key("KeyB"));
        assert_eq!(ledger.press_unsent(b).map(|f| f.release), Some(None));
        let c = press(&mut ledger, 1, key("KeyC"));
        ledger.press_answered(c, Sent::Accepted);
        assert_eq!(ledger.press_unsent(c), None, "a press that ran stays");
    }

    #[test]
    fn an_owners_release_refused_after_a_revocation_is_sent_by_the_ledger() {
        let mut ledger = Ledger::default();
        let a = press(&mut ledger, 1, key("KeyA"));
        ledger.press_answered(a, Sent::Accepted);
        assert!(ledger.release_sent(&1, "key:KeyA"));
        assert!(!ledger.holds(&1, "key:KeyA"), "its release is on its way");
        assert!(ledger.revoke(|_| true, false).is_empty(), "left to it");
        let (gone, freed) = ledger.release_answered(&1, "key:KeyA", Sent::Refused);
        assert!(gone);
        assert!(freed.and_then(|f| f.release).is_some());
        assert!(ledger.presses().is_empty());
    }

    #[test]
    fn a_buttons_release_says_the_buttons_still_held_as_it_goes() {
        let mut ledger = Ledger::default();
        let left = press(&mut ledger, 1, button("left", 1.0));
        let right = press(&mut ledger, 1, button("right", 2.0));
        press(&mut ledger, 2, button("middle", 3.0));
        for seq in [left, right] {
            ledger.press_answered(seq, Sent::Accepted);
        }
        assert_eq!(ledger.buttons(|p| p.owner == 1, None), 3);
        assert_eq!(ledger.buttons(|p| p.owner == 1, Some(left)), 2);
        let freed = ledger.revoke(|p| p.owner == 1, false);
        let masks: Vec<(u64, Value)> = freed
            .into_iter()
            .map(|f| (f.seq, f.release.expect("sent").1["buttons"].clone()))
            .collect();
        assert_eq!(masks, [(left, json!(2)), (right, json!(0))]);
    }

    #[test]
    fn moves_take_the_buttons_along_and_a_refused_one_puts_them_back() {
        let mut ledger = Ledger::default();
        let left = press(&mut ledger, 1, button("left", 1.0));
        press(&mut ledger, 1, key("KeyA"));
        let was = ledger.moved(|_| true, 50.0, 60.0);
        assert_eq!(was, [(left, 1.0, 0.0)]);
        assert_eq!(
            ledger.get(left).map(|p| p.release["x"].clone()),
            Some(json!(50.0))
        );
        ledger.moved_back(&was);
        assert_eq!(
            ledger.get(left).map(|p| p.release["x"].clone()),
            Some(json!(1.0))
        );
    }

    #[test]
    fn a_take_releases_everything_now_but_what_is_being_released() {
        let mut ledger = Ledger::default();
        press(&mut ledger, 1, key("ShiftLeft"));
        press(&mut ledger, 1, button("left", 1.0));
        press(&mut ledger, 1, key("KeyA"));
        press(&mut ledger, 1, key("KeyB"));
        press(&mut ledger, 2, key("KeyC"));
        ledger.release_sent(&1, "key:KeyB");
        let ids: Vec<Value> = ledger
            .take(|p| p.owner == 1)
            .into_iter()
            .map(|(_, up)| {
                up.get("code")
                    .or(up.get("button"))
                    .cloned()
                    .unwrap_or_default()
            })
            .collect();
        assert_eq!(ids, [json!("left"), json!("KeyA"), json!("ShiftLeft")]);
        assert_eq!(ledger.presses().len(), 1, "the other owner's stays");
    }

    #[test]
    fn a_ledger_read_back_holds_what_it_kept_once_and_numbers_on() {
        let mut ledger = Ledger::default();
        let a = press(&mut ledger, 1, key("KeyA"));
        let kept = ledger.presses().to_vec();
        let stored = serde_json::to_string(&kept).expect("json");
        let read: Vec<Press<u8>> = serde_json::from_str(&stored).expect("json");
        let mut back = Ledger::restore([read.clone(), read].concat());
        assert_eq!(back.presses().len(), 1);
        assert_eq!(back.get(a).map(|p| p.state), Some(State::Held));
        assert!(press(&mut back, 1, key("KeyB")) > a);
    }
}
