//! One test (or more) per rule of the broker core.

use super::*;
use crate::keys;
use cotab_shared::controller::MouseButton;
use cotab_shared::controller::RevokeReason as R;
use cotab_shared::native::Holder;
use cotab_shared::Ticket;
use std::time::Instant;

pub(crate) const A: ConnId = ConnId(1);
pub(crate) const B: ConnId = ConnId(2);

pub(crate) fn tab(id: i32, human: bool) -> TabInfo {
    TabInfo {
        id: TabId(id),
        url: format!("http://t/{id}"),
        title: String::new(),
        human_control: human,
        blocked: None,
        opener: None,
        target_id: None,
    }
}

pub(crate) fn geo() -> FrameGeometry {
    FrameGeometry {
        viewport_width: 800.0,
        viewport_height: 600.0,
        scroll_x: 0.0,
        scroll_y: 0.0,
    }
}

pub(crate) fn key(name: &str) -> PressKind {
    PressKind::Key {
        key: keys::lookup(name).expect("known key"),
        modifiers: vec![],
    }
}

pub(crate) fn mouse() -> PressKind {
    PressKind::Mouse {
        button: MouseButton::Left,
        x: 1.0,
        y: 2.0,
    }
}

/// A core with tabs 1 and 2 shared, the lane online, and one agent that
/// selected tab 1 and holds its lease.
pub(crate) fn setup() -> (Core, SessionId) {
    let mut c = Core::default();
    c.on_lane_online();
    c.on_shared(&[tab(1, false), tab(2, false)]);
    let s = c.hello(A, "alpha".into(), Ticket("ta".into()));
    c.select(s, A, TabId(1)).expect("select");
    c.acquire(s, A).expect("acquire");
    c.take_effects();
    (c, s)
}

pub(crate) fn held_key(c: &mut Core, s: SessionId, conn: ConnId, name: &str) -> PressId {
    let f = c.fence(s, conn, Need::Act).expect("fence");
    let id = c.begin_press(&f, None, key(name)).expect("press");
    c.press_settled(id, true);
    id
}

pub(crate) fn releases(effects: &[Effect]) -> Vec<ReleaseCmd> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Release(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

pub(crate) fn revoked(effects: &[Effect]) -> Vec<(SessionId, TabId, RevokeReason)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Notify(s, AgentEvent::ControlRevoked { tab_id, reason }) => {
                Some((*s, *tab_id, *reason))
            }
            _ => None,
        })
        .collect()
}

/// The effects that are not notifications.
pub(crate) fn actions(effects: Vec<Effect>) -> Vec<Effect> {
    effects
        .into_iter()
        .filter(|e| {
            !matches!(
                e,
                Effect::Notify(..) | Effect::NotifyAll(_) | Effect::Agents(_) | Effect::Scopes
            )
        })
        .collect()
}

/// `effects` without the connected agents told to the extension (the
/// popup's news), which every session's hello, resume and end produces.
pub(crate) fn but_agents(effects: Vec<Effect>) -> Vec<Effect> {
    effects
        .into_iter()
        .filter(|e| !matches!(e, Effect::Agents(_)))
        .collect()
}

/// The notifications for every session.
pub(crate) fn to_all(effects: &[Effect]) -> Vec<AgentEvent> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::NotifyAll(ev) => Some(ev.clone()),
            _ => None,
        })
        .collect()
}

pub(crate) fn kind(r: Result<impl std::fmt::Debug, WireError>) -> ErrorKind {
    r.expect_err("an error").kind
}

// ---- rule 1: tickets -----------------------------------------------------

#[test]
fn resume_moves_the_session_between_connections() {
    let (mut c, s) = setup();
    let now = Instant::now();
    c.unbind(s, A, now);
    assert_eq!(kind(c.selection(s, A)), ErrorKind::AuthenticationFailed);
    assert_eq!(c.resume(B, &Ticket("ta".into()), now), Some(s));
    assert_eq!(c.selection(s, B).expect("bound"), (Some(TabId(1)), 1));
    assert_eq!(c.resume(B, &Ticket("nope".into()), now), None);
    assert_eq!(c.resume(A, &Ticket("ta".into()), now), Some(s));
    assert!(c.selection(s, B).is_err(), "taken away from B");
}

#[test]
fn grace_keeps_lease_and_input_then_revokes_but_stays_resumable() {
    let (mut c, s) = setup();
    let k = held_key(&mut c, s, A, "a");
    let t0 = Instant::now();
    c.unbind(s, A, t0);
    c.tick(t0 + Duration::from_millis(RESUME_GRACE_MS - 1));
    assert!(
        but_agents(c.take_effects()).is_empty(),
        "nothing happens during the grace"
    );
    c.tick(t0 + Duration::from_millis(RESUME_GRACE_MS));
    let fx = c.take_effects();
    let rel = releases(&fx);
    assert_eq!(rel.len(), 1);
    assert_eq!((rel[0].press, rel[0].tab), (k, TabId(1)));
    assert_eq!(rel[0].params["type"], "keyUp");
    assert_eq!(revoked(&fx), vec![(s, TabId(1), R::Disconnected)]);
    // Resumable without the lease; the agent's keyUp is answered once.
    assert_eq!(
        c.resume(B, &Ticket("ta".into()), t0 + Duration::from_secs(60)),
        Some(s)
    );
    assert_eq!(kind(c.fence(s, B, Need::Act)), ErrorKind::NoControl);
    assert_eq!(
        c.agent_release(s, B, ReleaseTarget::Key("a".into())),
        Ok(AgentRelease::Already)
    );
    assert_eq!(
        kind(c.agent_release(s, B, ReleaseTarget::Key("a".into()))),
        ErrorKind::InvalidRequest
    );
}

#[test]
fn a_session_that_keeps_control_loses_its_input_at_the_grace_and_its_lease_later() {
    let mut c = Core::default();
    c.on_lane_online();
    c.on_shared(&[tab(1, false)]);
    let keep = Duration::from_secs(120);
    let s = c.hello_keeping(A, "cli".into(), Ticket("ta".into()), keep, None);
    c.select(s, A, TabId(1)).expect("select");
    c.acquire(s, A).expect("acquire");
    let k = held_key(&mut c, s, A, "a");
    c.take_effects();
    let t0 = Instant::now();
    c.unbind(s, A, t0);
    c.tick(t0 + Duration::from_millis(RESUME_GRACE_MS));
    let fx = c.take_effects();
    let rel = releases(&fx);
    assert_eq!(rel.len(), 1, "held input goes at the grace: {fx:?}");
    assert_eq!(rel[0].press, k);
    assert!(revoked(&fx).is_empty(), "the lease stays: {fx:?}");
    assert_eq!(
        c.controllers(),
        vec![TabControl {
            tab_id: TabId(1),
            holder: Holder::agent("cli")
        }],
        "the person still sees the agent in control"
    );
    // Resumed within the kept time: the lease is there, input works again.
    assert_eq!(
        c.resume(
            B,
            &Ticket("ta".into()),
            t0 + keep - Duration::from_millis(1)
        ),
        Some(s)
    );
    assert!(c.fence(s, B, Need::Act).is_ok());
    c.take_effects();
    // Dropped again: the kept time starts over, then the lease goes.
    let t1 = t0 + keep;
    c.unbind(s, B, t1);
    c.tick(t1 + keep - Duration::from_millis(1));
    assert!(revoked(&c.take_effects()).is_empty());
    c.tick(t1 + keep);
    assert_eq!(
        revoked(&c.take_effects()),
        vec![(s, TabId(1), R::Disconnected)]
    );
    c.tick(t1 + keep + Duration::from_secs(1));
    assert!(
        but_agents(c.take_effects()).is_empty(),
        "each lapse happens once"
    );
}

#[test]
fn keeping_control_for_less_than_the_grace_is_the_grace() {
    let mut c = Core::default();
    c.on_lane_online();
    c.on_shared(&[tab(1, false)]);
    let s = c.hello_keeping(
        A,
        "cli".into(),
        Ticket("ta".into()),
        Duration::from_secs(1),
        None,
    );
    c.select(s, A, TabId(1)).expect("select");
    c.acquire(s, A).expect("acquire");
    c.take_effects();
    let t0 = Instant::now();
    c.unbind(s, A, t0);
    c.tick(t0 + Duration::from_millis(RESUME_GRACE_MS - 1));
    assert!(but_agents(c.take_effects()).is_empty());
    c.tick(t0 + Duration::from_millis(RESUME_GRACE_MS));
    assert_eq!(
        revoked(&c.take_effects()),
        vec![(s, TabId(1), R::Disconnected)]
    );
}

#[test]
fn resume_within_the_grace_keeps_everything() {
    let (mut c, s) = setup();
    held_key(&mut c, s, A, "a");
    let t0 = Instant::now();
    c.unbind(s, A, t0);
    c.resume(B, &Ticket("ta".into()), t0 + Duration::from_millis(10));
    c.tick(t0 + Duration::from_secs(60));
    assert!(but_agents(c.take_effects()).is_empty());
    assert!(c.fence(s, B, Need::Act).is_ok());
}

#[test]
fn unbound_sessions_expire_and_are_capped() {
    let mut c = Core::new(CoreConfig {
        ticket_ttl: Duration::from_secs(10),
        max_unbound: 2,
        resume_grace: Duration::from_secs(1),
    });
    let now = Instant::now();
    let ids: Vec<SessionId> = (0..3)
        .map(|i| c.hello(A, "a".into(), Ticket(format!("t{i}"))))
        .collect();
    for (i, id) in ids.iter().enumerate() {
        c.unbind(*id, A, now + Duration::from_secs(i as u64));
    }
    assert_eq!(c.session_count(), 2, "the oldest unbound session went");
    let later = now + Duration::from_secs(3);
    assert_eq!(c.resume(B, &Ticket("t0".into()), later), None);
    assert_eq!(c.resume(B, &Ticket("t1".into()), later), Some(ids[1]));
    assert_eq!(
        c.resume(B, &Ticket("t2".into()), now + Duration::from_secs(30)),
        None,
        "expired"
    );
}

#[test]
fn bye_removes_credentials_then_releases() {
    let (mut c, s) = setup();
    held_key(&mut c, s, A, "Enter");
    let f = c.fence(s, A, Need::Act).expect("fence");
    assert!(c.bye(s, A));
    // The in-flight action finds no session at all.
    assert_eq!(kind(c.check(&f)), ErrorKind::AuthenticationFailed);
    let fx = c.take_effects();
    assert_eq!(releases(&fx).len(), 1);
    assert!(fx
        .iter()
        .any(|e| matches!(e, Effect::Controllers(t) if t[0].holder == Holder::Nobody)));
    assert_eq!(c.resume(A, &Ticket("ta".into()), Instant::now()), None);
    assert_eq!(c.held_count(), 0);
}

// ---- rule 2: lease and takeover -----------------------------------------

#[test]
fn acquire_rules() {
    let (mut c, a) = setup();
    assert!(c.acquire(a, A).is_ok(), "already ours");
    let b = c.hello(B, "beta".into(), Ticket("tb".into()));
    assert_eq!(
        kind(c.acquire(b, B)),
        ErrorKind::InvalidRequest,
        "no tab selected"
    );
    c.select(b, B, TabId(1)).expect("select");
    assert_eq!(kind(c.acquire(b, B)), ErrorKind::NoControl);
    assert_eq!(kind(c.fence(b, B, Need::Act)), ErrorKind::NoControl);
    assert!(
        c.fence(b, B, Need::Observe).is_ok(),
        "observing needs no lease"
    );
    c.on_shared(&[tab(1, true), tab(2, false)]);
    assert_eq!(kind(c.acquire(b, B)), ErrorKind::HumanHasControl);
    assert_eq!(kind(c.fence(a, A, Need::Act)), ErrorKind::HumanHasControl);
    // Hand back: nobody holds it; the agent must acquire again.
    c.on_shared(&[tab(1, false), tab(2, false)]);
    assert_eq!(kind(c.fence(a, A, Need::Act)), ErrorKind::NoControl);
    assert!(c.acquire(b, B).is_ok());
    assert_eq!(kind(c.select(b, B, TabId(9))), ErrorKind::TabNotShared);
}

#[test]
fn a_session_holds_at_most_one_lease() {
    let (mut c, a) = setup();
    c.select(a, A, TabId(2)).expect("select");
    c.acquire(a, A).expect("acquire");
    let holders: Vec<Holder> = c.controllers().into_iter().map(|t| t.holder).collect();
    assert_eq!(holders, vec![Holder::Nobody, Holder::agent("alpha")]);
}

#[test]
fn takeover_revokes_voids_releases_and_notifies() {
    let (mut c, a) = setup();
    let k = held_key(&mut c, a, A, "a");
    let f = c.fence(a, A, Need::Act).expect("fence");
    c.on_shared(&[tab(1, true), tab(2, false)]);
    assert_eq!(kind(c.check(&f)), ErrorKind::HumanHasControl);
    let fx = c.take_effects();
    assert_eq!(releases(&fx)[0].press, k);
    assert_eq!(revoked(&fx), vec![(a, TabId(1), R::Human)]);
    assert!(fx
        .iter()
        .any(|e| matches!(e, Effect::Controllers(t) if t[0].holder == Holder::Human)));
    assert_eq!(
        kind(c.begin_press(&f, None, key("b"))),
        ErrorKind::HumanHasControl
    );
}

#[test]
fn unshare_and_close_revoke_with_their_reasons() {
    let (mut c, a) = setup();
    held_key(&mut c, a, A, "a");
    c.on_shared(&[tab(2, false)]);
    let fx = c.take_effects();
    assert_eq!(revoked(&fx), vec![(a, TabId(1), R::Unshared)]);
    assert_eq!(releases(&fx).len(), 1, "the tab still exists: release sent");

    let (mut c, a) = setup();
    let k = held_key(&mut c, a, A, "a");
    c.on_tab_gone(TabId(1), Gone::Closed);
    let fx = c.take_effects();
    assert_eq!(revoked(&fx), vec![(a, TabId(1), R::TabClosed)]);
    assert!(releases(&fx).is_empty(), "nothing to send to a closed tab");
    assert!(fx.contains(&Effect::Dropped(k)));
}

#[test]
fn control_release_releases_input_first() {
    let (mut c, a) = setup();
    held_key(&mut c, a, A, "a");
    c.release_control(a, A).expect("release");
    let fx = c.take_effects();
    assert!(matches!(fx[0], Effect::Release(_)));
    assert_eq!(kind(c.fence(a, A, Need::Act)), ErrorKind::NoControl);
}

// ---- rule 3: selection revisions ----------------------------------------

#[test]
fn select_bumps_revision_voids_actions_and_leaves_the_old_tab() {
    let (mut c, a) = setup();
    held_key(&mut c, a, A, "a");
    let f = c.fence(a, A, Need::Observe).expect("fence");
    assert_eq!(c.select(a, A, TabId(2)), Ok(2));
    assert_eq!(kind(c.check(&f)), ErrorKind::TabChanged);
    let fx = c.take_effects();
    assert_eq!(releases(&fx)[0].tab, TabId(1));
    assert_eq!(revoked(&fx), vec![(a, TabId(1), R::TabSwitched)]);
    // Reselecting the same tab bumps the revision but keeps the lease.
    c.acquire(a, A).expect("acquire");
    let f = c.fence(a, A, Need::Act).expect("fence");
    c.select(a, A, TabId(2)).expect("select");
    assert_eq!(kind(c.check(&f)), ErrorKind::TabChanged);
    assert!(c.fence(a, A, Need::Act).is_ok());
}

#[test]
fn lease_epoch_voids_actions_across_release_and_reacquire() {
    let (mut c, a) = setup();
    let f = c.fence(a, A, Need::Act).expect("fence");
    c.release_control(a, A).expect("release");
    c.acquire(a, A).expect("acquire");
    assert_eq!(kind(c.check(&f)), ErrorKind::NoControl);
}

// ---- rule 4: frames and expected state ----------------------------------

fn frame(c: &mut Core, s: SessionId, conn: ConnId) -> FrameId {
    let f = c.fence(s, conn, Need::Observe).expect("fence");
    let m = c.capture_started(&f);
    c.capture_finished(&f, m, 2.0, geo()).expect("frame")
}

#[test]
fn frames_go_stale_on_navigation_foreign_input_and_tab_mismatch() {
    let (mut c, a) = setup();
    let f = c.fence(a, A, Need::Act).expect("fence");
    assert_eq!(
        kind(c.frame_for(&f, None)),
        ErrorKind::StaleFrame,
        "no frame yet"
    );
    let id = frame(&mut c, a, A);
    assert_eq!(c.frame_for(&f, None).expect("latest").id, id);
    assert_eq!(c.frame_for(&f, Some(&id)).expect("named").dpr, 2.0);
    assert_eq!(
        kind(c.frame_for(&f, Some(&FrameId("f999".into())))),
        ErrorKind::StaleFrame
    );
    // The agent's own input does not stale it.
    c.input(&f).expect("input");
    assert!(c.frame_for(&f, Some(&id)).is_ok());
    // Another session's input does.
    let b = c.hello(B, "beta".into(), Ticket("tb".into()));
    c.select(b, B, TabId(2)).expect("select");
    c.acquire(b, B).expect("acquire");
    let fb = c.fence(b, B, Need::Act).expect("fence");
    c.input(&fb).expect("input on tab 2");
    assert!(c.frame_for(&f, Some(&id)).is_ok(), "input on another tab");
    // A main-frame navigation does.
    c.on_main_frame_navigated(TabId(1));
    assert_eq!(kind(c.frame_for(&f, Some(&id))), ErrorKind::StaleFrame);
    let id = frame(&mut c, a, A);
    // The person's takeover does (even after hand back).
    c.on_shared(&[tab(1, true), tab(2, false)]);
    c.on_shared(&[tab(1, false), tab(2, false)]);
    c.acquire(a, A).expect("acquire");
    let f = c.fence(a, A, Need::Act).expect("fence");
    assert_eq!(kind(c.frame_for(&f, Some(&id))), ErrorKind::StaleFrame);
    // A frame of another tab is refused.
    let id2 = frame(&mut c, a, A);
    c.select(a, A, TabId(2)).expect("select");
    c.release_control(b, B).expect("b lets go");
    c.acquire(a, A).expect("acquire");
    let f = c.fence(a, A, Need::Act).expect("fence");
    assert_eq!(kind(c.frame_for(&f, Some(&id2))), ErrorKind::StaleFrame);
}

#[test]
fn a_navigation_during_capture_makes_the_new_frame_stale() {
    let (mut c, a) = setup();
    let f = c.fence(a, A, Need::Observe).expect("fence");
    let m = c.capture_started(&f);
    c.on_main_frame_navigated(TabId(1));
    let id = c.capture_finished(&f, m, 1.0, geo()).expect("frame");
    let f = c.fence(a, A, Need::Act).expect("fence");
    assert_eq!(kind(c.frame_for(&f, Some(&id))), ErrorKind::StaleFrame);
}

#[test]
fn only_the_last_frames_are_kept_and_ids_are_per_session() {
    let (mut c, a) = setup();
    let first = frame(&mut c, a, A);
    for _ in 0..MAX_FRAMES_PER_SESSION {
        frame(&mut c, a, A);
    }
    let f = c.fence(a, A, Need::Act).expect("fence");
    assert_eq!(kind(c.frame_for(&f, Some(&first))), ErrorKind::StaleFrame);
    let b = c.hello(B, "beta".into(), Ticket("tb".into()));
    c.select(b, B, TabId(1)).expect("select");
    let latest = c.frame_for(&f, None).expect("frame").id;
    let fb = c.fence(b, B, Need::Observe).expect("fence");
    assert_eq!(kind(c.frame_for(&fb, Some(&latest))), ErrorKind::StaleFrame);
}

#[test]
fn expected_revision_and_geometry_tolerance() {
    let (c, a) = setup();
    let f = c.fence(a, A, Need::Act).expect("fence");
    assert!(c.check_expected_revision(&f, Some(1)).is_ok());
    assert_eq!(
        kind(c.check_expected_revision(&f, Some(0))),
        ErrorKind::StateChanged
    );
    let mut live = geo();
    live.scroll_y = 0.9;
    assert!(geo().matches(&live));
    live.scroll_y = 1.5;
    assert!(!geo().matches(&live));
    live = geo();
    live.viewport_width = 790.0;
    assert!(!geo().matches(&live));
}

// ---- rule 5: paired releases ---------------------------------------------

#[test]
fn presses_are_recorded_before_sending_and_released_once() {
    let (mut c, a) = setup();
    let f = c.fence(a, A, Need::Act).expect("fence");
    let id = c.begin_press(&f, None, key("a")).expect("press");
    assert_eq!(
        kind(c.begin_press(&f, None, key("a"))),
        ErrorKind::InvalidRequest
    );
    // A release while it is still being sent is refused.
    assert_eq!(
        kind(c.agent_release(a, A, ReleaseTarget::Key("a".into()))),
        ErrorKind::InvalidRequest
    );
    c.press_settled(id, true);
    match c.agent_release(a, A, ReleaseTarget::Key("a".into())) {
        Ok(AgentRelease::Send(cmd)) => {
            assert_eq!((cmd.press, cmd.tab), (id, TabId(1)));
            assert_eq!(cmd.params["type"], "keyUp");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        kind(c.agent_release(a, A, ReleaseTarget::Mouse(MouseButton::Left))),
        ErrorKind::InvalidRequest
    );
}

#[test]
fn a_press_revoked_while_sending_is_released_when_the_send_settles() {
    let (mut c, a) = setup();
    let f = c.fence(a, A, Need::Act).expect("fence");
    let id = c.begin_press(&f, None, mouse()).expect("press");
    c.on_shared(&[tab(1, true), tab(2, false)]);
    let fx = c.take_effects();
    assert!(releases(&fx).is_empty(), "not before the press itself");
    c.press_settled(id, true);
    let rel = releases(&c.take_effects());
    assert_eq!(rel.len(), 1);
    assert_eq!(rel[0].params["type"], "mouseReleased");
    assert_eq!(rel[0].params["x"], 1.0);
    assert_eq!(
        c.release_press(id),
        None,
        "click's own release finds it gone"
    );
    assert_eq!(c.held_count(), 0);
}

#[test]
fn a_failed_press_is_released_at_once() {
    let (mut c, a) = setup();
    let f = c.fence(a, A, Need::Act).expect("fence");
    let id = c.begin_press(&f, None, key("a")).expect("press");
    c.press_settled(id, false);
    assert_eq!(releases(&c.take_effects())[0].press, id);
    assert_eq!(c.held_count(), 0);
}

#[test]
fn a_press_the_extension_pairs_is_forgotten_without_a_release() {
    let (mut c, a) = setup();
    let f = c.fence(a, A, Need::Act).expect("fence");
    let id = c.begin_press(&f, None, key("a")).expect("press");
    c.press_paired(id);
    let effects = c.take_effects();
    assert!(releases(&effects).is_empty(), "{effects:?}");
    assert!(effects
        .iter()
        .any(|e| matches!(e, Effect::Dropped(p) if *p == id)));
    assert_eq!(c.held_count(), 0);
    // Revoked while its command was on its way: still nothing for the
    // daemon to release.
    let f = c.fence(a, A, Need::Act).expect("fence");
    let id = c.begin_press(&f, None, key("b")).expect("press");
    c.release_control(a, A).expect("release");
    c.press_paired(id);
    let effects = c.take_effects();
    assert!(releases(&effects).is_empty(), "{effects:?}");
    assert_eq!(c.held_count(), 0);
    // A press that was sent on its own and settled is not forgotten.
    c.acquire(a, A).expect("acquire");
    let f = c.fence(a, A, Need::Act).expect("fence");
    let id = c.begin_press(&f, None, key("c")).expect("press");
    c.press_settled(id, true);
    c.press_paired(id);
    assert_eq!(c.held_count(), 1);
}

#[test]
fn releases_go_to_the_original_tab_and_need_no_lease() {
    let (mut c, a) = setup();
    let f = c.fence(a, A, Need::Act).expect("fence");
    let id = c
        .begin_press(
            &f,
            None,
            PressKind::Touch {
                x: 1.0,
                y: 1.0,
                dpr: 1.0,
            },
        )
        .expect("press");
    c.press_settled(id, true);
    // Reselecting the same tab: lease kept; a release without any lease on
    // the other tab still goes to tab 1.
    c.select(a, A, TabId(1)).expect("select");
    c.release_control(a, A).expect("release");
    // Released by the daemon at control.release; the agent gets it once.
    assert_eq!(releases(&c.take_effects())[0].tab, TabId(1));
    assert_eq!(
        c.agent_release(a, A, ReleaseTarget::Touch),
        Ok(AgentRelease::Already)
    );
}

#[test]
fn mouse_moves_track_held_buttons() {
    let (mut c, a) = setup();
    let f = c.fence(a, A, Need::Act).expect("fence");
    let id = c.begin_press(&f, None, mouse()).expect("press");
    c.press_settled(id, true);
    assert_eq!(c.mouse_moved(&f, 30.0, 40.0), Ok(1));
    // A move refused before it was sent puts the button back.
    let was = c.pointer_moved(&f, 90.0, 90.0);
    assert_eq!(was, vec![(id, 30.0, 40.0)]);
    c.pointer_back(&was);
    match c.agent_release(a, A, ReleaseTarget::Mouse(MouseButton::Left)) {
        Ok(AgentRelease::Send(cmd)) => {
            assert_eq!(
                (cmd.params["x"].as_f64(), cmd.params["y"].as_f64()),
                (Some(30.0), Some(40.0))
            );
            assert_eq!(cmd.params["buttons"], 0);
        }
        other => panic!("{other:?}"),
    }
}

// ---- rule 6: developer mode ----------------------------------------------

#[test]
fn developer_mode_gates_privileged_calls_live() {
    let (mut c, a) = setup();
    assert_eq!(
        kind(c.fence(a, A, Need::Privileged)),
        ErrorKind::DeveloperModeOff
    );
    c.on_developer_mode(true);
    assert_eq!(
        c.take_effects(),
        vec![Effect::NotifyAll(AgentEvent::DeveloperModeChanged {
            enabled: true
        })]
    );
    let f = c.fence(a, A, Need::Privileged).expect("fence");
    held_key(&mut c, a, A, "a");
    c.on_developer_mode(false);
    assert_eq!(kind(c.check(&f)), ErrorKind::DeveloperModeOff);
    let fx = c.take_effects();
    assert_eq!(releases(&fx).len(), 1);
    assert_eq!(revoked(&fx), vec![(a, TabId(1), R::DeveloperModeOff)]);
    assert!(
        fx.contains(&Effect::NotifyAll(AgentEvent::DeveloperModeChanged {
            enabled: false
        }))
    );
    // Off then on again: the old fence stays void.
    c.on_developer_mode(true);
    assert_eq!(kind(c.check(&f)), ErrorKind::DeveloperModeOff);
}

#[test]
fn privileged_needs_the_lease_too() {
    let (mut c, a) = setup();
    c.on_developer_mode(true);
    c.release_control(a, A).expect("release");
    assert_eq!(kind(c.fence(a, A, Need::Privileged)), ErrorKind::NoControl);
}

// ---- rule 7: several agents ----------------------------------------------

#[test]
fn agents_have_their_own_bindings() {
    let (mut c, a) = setup();
    let b = c.hello(B, "beta".into(), Ticket("tb".into()));
    c.select(b, B, TabId(1)).expect("select");
    assert_eq!(kind(c.fence(b, B, Need::Act)), ErrorKind::NoControl);
    frame(&mut c, a, A);
    frame(&mut c, b, B);
    assert_eq!(c.selection(a, A).expect("a").1, 1);
    c.select(b, B, TabId(2)).expect("select");
    assert_eq!(c.selection(a, A).expect("a").1, 1, "b's select is b's");
    assert!(c.fence(a, A, Need::Act).is_ok());
}

// ---- review findings -----------------------------------------------------

/// Review finding: a tab shared again after an unshare started over with
/// fresh navigation and input counters, so a frame captured before the
/// unshare (the person may have navigated meanwhile, unseen) passed as
/// fresh.
#[test]
fn a_frame_from_before_an_unshare_is_stale_once_the_tab_is_shared_again() {
    let (mut c, s) = setup();
    let id = frame(&mut c, s, A);
    c.on_shared(&[tab(2, false)]);
    c.on_shared(&[tab(1, false), tab(2, false)]);
    c.acquire(s, A).expect("acquire again");
    let f = c.fence(s, A, Need::Act).expect("fence");
    assert_eq!(kind(c.frame_for(&f, Some(&id))), ErrorKind::StaleFrame);
    assert_eq!(kind(c.frame_for(&f, None)), ErrorKind::StaleFrame);
}

/// Review finding: no navigation is seen while no browser is connected, so
/// a frame from before a lane loss must not pass as fresh after it.
#[test]
fn a_frame_from_before_a_lane_loss_is_stale_once_the_browser_is_back() {
    let (mut c, s) = setup();
    let id = frame(&mut c, s, A);
    c.on_lane_lost();
    c.on_lane_online();
    c.on_shared(&[tab(1, false), tab(2, false)]);
    c.acquire(s, A).expect("acquire again");
    let f = c.fence(s, A, Need::Act).expect("fence");
    assert_eq!(kind(c.frame_for(&f, Some(&id))), ErrorKind::StaleFrame);
}

#[test]
fn a_crash_drops_the_tabs_presses_and_keeps_the_lease() {
    let (mut c, a) = setup();
    let f = c.fence(a, A, Need::Act).expect("fence");
    let id = c.begin_press(&f, None, key("a")).expect("press");
    c.press_settled(id, true);
    c.take_effects();
    let nav = c.nav_count(TabId(1));
    c.on_page_crashed(TabId(2));
    assert_eq!(c.held_count(), 1, "another tab's crash changes nothing");
    c.on_page_crashed(TabId(1));
    let effects = c.take_effects();
    assert!(
        releases(&effects).is_empty(),
        "nothing is sent to a dead page"
    );
    assert!(effects
        .iter()
        .any(|e| matches!(e, Effect::Dropped(d) if *d == id)));
    assert_eq!(c.held_count(), 0);
    assert_ne!(
        c.nav_count(TabId(1)),
        nav,
        "frames of the crashed page are stale"
    );
    // The lease stays: the agent may press again after a reload.
    let f = c.fence(a, A, Need::Act).expect("still in control");
    c.begin_press(&f, None, key("a")).expect("press again");
}
