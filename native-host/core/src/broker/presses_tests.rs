//! The rules of presses sent as raw CDP (`cdp.send`, the CDP endpoint):
//! recorded before they are sent, released once by every revocation as
//! the input methods' presses are (issue 36).

use super::tests::{kind, releases, setup, tab, A, B};
use super::*;
use cotab_shared::controller::RevokeReason as R;
use cotab_shared::held::Sent;
use cotab_shared::input::{KEY_EVENT, MOUSE_EVENT, TOUCH_EVENT};
use cotab_shared::Ticket;
use serde_json::{json, Value};
use std::time::Instant;

fn q_down() -> Value {
    json!({"type": "keyDown", "key": "q", "code": "KeyQ", "text": "q",
           "windowsVirtualKeyCode": 81, "modifiers": 0})
}

fn q_up() -> Value {
    json!({"type": "keyUp", "key": "q", "code": "KeyQ", "windowsVirtualKeyCode": 81})
}

/// A raw press of `method` with `params` by session `s`, sent and held.
fn raw_held(c: &mut Core, s: SessionId, method: &str, params: &Value) -> PressId {
    let f = c.fence(s, A, Need::Privileged).expect("fence");
    let id = c
        .begin_raw_press(&f, method, params)
        .expect("recorded")
        .expect("a new press");
    c.press_settled(id, true);
    id
}

fn dev_setup() -> (Core, SessionId) {
    let (mut c, s) = setup();
    c.on_developer_mode(true);
    c.take_effects();
    (c, s)
}

#[test]
fn a_raw_key_is_released_with_its_own_key_up_when_the_person_takes_over() {
    let (mut c, s) = dev_setup();
    let k = raw_held(&mut c, s, KEY_EVENT, &q_down());
    c.on_shared(&[tab(1, true), tab(2, false)]);
    let fx = c.take_effects();
    let rel = releases(&fx);
    assert_eq!(rel.len(), 1, "{fx:?}");
    assert_eq!((rel[0].press, rel[0].tab), (k, TabId(1)));
    assert_eq!((rel[0].method, &rel[0].params), (KEY_EVENT, &q_up()));
    // Released once: a second revocation sends nothing more.
    c.on_shared(&[tab(2, false)]);
    assert!(releases(&c.take_effects()).is_empty());
}

#[test]
fn a_raw_button_is_released_where_the_pointer_went() {
    let (mut c, s) = dev_setup();
    let down = json!({"type": "mousePressed", "x": 10, "y": 20, "button": "left",
                      "clickCount": 1});
    raw_held(&mut c, s, MOUSE_EVENT, &down);
    let f = c.fence(s, A, Need::Privileged).expect("fence");
    c.pointer_moved(&f, 300.0, 40.5);
    assert!(c.bye(s, A));
    let rel = releases(&c.take_effects());
    assert_eq!(rel.len(), 1);
    assert_eq!(rel[0].method, MOUSE_EVENT);
    assert_eq!(
        rel[0].params,
        json!({"type": "mouseReleased", "x": 300.0, "y": 40.5, "button": "left",
               "clickCount": 1})
    );
}

#[test]
fn a_client_gone_past_its_grace_and_developer_mode_off_release_raw_presses() {
    let (mut c, s) = dev_setup();
    raw_held(&mut c, s, KEY_EVENT, &q_down());
    let t0 = Instant::now();
    c.unbind(s, A, t0);
    c.tick(t0 + Duration::from_millis(RESUME_GRACE_MS));
    let fx = c.take_effects();
    assert_eq!(releases(&fx).len(), 1, "{fx:?}");

    let (mut c, s) = dev_setup();
    let start = json!({"type": "touchStart", "touchPoints": [{"x": 1, "y": 1}]});
    raw_held(&mut c, s, TOUCH_EVENT, &start);
    c.on_developer_mode(false);
    let fx = c.take_effects();
    let rel = releases(&fx);
    assert_eq!(rel.len(), 1, "{fx:?}");
    assert_eq!(rel[0].method, TOUCH_EVENT);
    assert!(fx.iter().any(|e| matches!(
        e,
        Effect::Notify(
            _,
            AgentEvent::ControlRevoked {
                reason: R::DeveloperModeOff,
                ..
            }
        )
    )));
}

#[test]
fn a_repeat_adds_no_record_and_the_agents_own_release_clears_it() {
    let (mut c, s) = dev_setup();
    raw_held(&mut c, s, KEY_EVENT, &q_down());
    let f = c.fence(s, A, Need::Privileged).expect("fence");
    let mut repeat = q_down();
    repeat["autoRepeat"] = json!(true);
    assert_eq!(c.begin_raw_press(&f, KEY_EVENT, &repeat), Ok(None));
    assert_eq!(c.held_count(), 1);
    c.raw_released(&f, KEY_EVENT, &q_up());
    assert_eq!(c.held_count(), 0);
    c.on_shared(&[tab(1, true), tab(2, false)]);
    assert!(
        releases(&c.take_effects()).is_empty(),
        "released by the agent"
    );
}

#[test]
fn a_raw_release_clears_what_the_input_methods_pressed() {
    let (mut c, s) = dev_setup();
    let f = c.fence(s, A, Need::Act).expect("fence");
    let id = c
        .begin_press(&f, None, super::tests::key("q"))
        .expect("press");
    c.press_settled(id, true);
    c.raw_released(&f, KEY_EVENT, &q_up());
    assert_eq!(c.held_count(), 0);
}

#[test]
fn a_raw_press_revoked_while_it_is_sent_is_released_when_it_settles() {
    let (mut c, s) = dev_setup();
    let f = c.fence(s, A, Need::Privileged).expect("fence");
    let id = c
        .begin_raw_press(&f, KEY_EVENT, &q_down())
        .expect("recorded")
        .expect("new");
    c.on_shared(&[tab(1, true), tab(2, false)]);
    assert!(releases(&c.take_effects()).is_empty(), "not sent yet");
    c.press_settled(id, true);
    let rel = releases(&c.take_effects());
    assert_eq!(rel.len(), 1);
    assert_eq!(rel[0].params, q_up());
}

#[test]
fn a_raw_press_needs_the_lease_and_is_the_sessions_own() {
    let (mut c, s) = dev_setup();
    let f = c.fence(s, A, Need::Privileged).expect("fence");
    c.on_shared(&[tab(1, true), tab(2, false)]);
    assert_eq!(
        kind(c.begin_raw_press(&f, KEY_EVENT, &q_down())),
        ErrorKind::HumanHasControl
    );
    assert_eq!(
        kind(c.begin_raw_press(&f, KEY_EVENT, &q_up())),
        ErrorKind::HumanHasControl
    );
    // Another session's record of the same key is its own.
    let (mut c, s) = dev_setup();
    let t = c.hello(B, "beta".into(), Ticket("tb".into()));
    c.select(t, B, TabId(2)).expect("select");
    c.acquire(t, B).expect("acquire");
    raw_held(&mut c, s, KEY_EVENT, &q_down());
    let g = c.fence(t, B, Need::Privileged).expect("fence");
    let id = c
        .begin_raw_press(&g, KEY_EVENT, &q_down())
        .expect("recorded")
        .expect("its own press");
    c.press_settled(id, true);
    assert_eq!(c.held_count(), 2);
    c.raw_released(&g, KEY_EVENT, &q_up());
    assert_eq!(c.held_count(), 1, "the first session's press stays");
}

/// The record of one session holding tab 1, as `cdp.send` drives it
/// around each raw command.
struct Record {
    core: Core,
    session: SessionId,
}

impl cotab_shared::held::conformance::Driver for Record {
    fn send(&mut self, method: &str, params: &Value, sent: Sent) -> Vec<(&'static str, Value)> {
        let f = self
            .core
            .fence(self.session, A, Need::Privileged)
            .expect("fence");
        let input = self
            .core
            .raw_input_before(&f, method, params)
            .expect("noted");
        self.core.raw_input_after(&f, input, sent);
        sent_releases(&mut self.core)
    }

    fn revoke(&mut self) -> Vec<(&'static str, Value)> {
        self.core.on_shared(&[tab(1, true), tab(2, false)]);
        sent_releases(&mut self.core)
    }
}

fn sent_releases(c: &mut Core) -> Vec<(&'static str, Value)> {
    let fx = c.take_effects();
    releases(&fx)
        .into_iter()
        .map(|r| {
            assert_eq!(r.tab, TabId(1), "a release goes to the press's tab");
            (r.method, r.params)
        })
        .collect()
}

#[test]
fn the_record_of_raw_presses_passes_the_scenarios_the_extensions_ledger_passes() {
    cotab_shared::held::conformance::check(|| {
        let (core, session) = dev_setup();
        Record { core, session }
    });
}
