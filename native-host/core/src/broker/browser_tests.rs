//! Tests of the browser side of the broker core ([`super::browser`]): the
//! shared list and the lane as agents are told of them, who controls each
//! tab and which agents are connected as the extension is told, the connections
//! notifications reach, the lane's loss, and blocked targets.

use super::tests::*;
use super::*;
use cotab_shared::controller::RevokeReason as R;
use cotab_shared::native::Holder;
use cotab_shared::Ticket;
use std::time::{Duration, Instant};

#[test]
fn the_shared_list_and_the_lane_are_announced_to_every_session() {
    let t = |id, title: &str| TabInfo {
        id: TabId(id),
        url: "http://a/".into(),
        title: title.into(),
        human_control: false,
        blocked: None,
        opener: None,
        target_id: None,
    };
    let mut c = Core::default();
    c.on_lane_online();
    assert_eq!(to_all(&c.take_effects()), vec![AgentEvent::LaneOnline {}]);
    c.on_shared(&[t(1, "a"), t(2, "b")]);
    c.take_effects();
    // Only what changed is told: a new title, a new tab, a tab gone.
    c.on_shared(&[t(1, "a2"), t(3, "c")]);
    assert_eq!(
        to_all(&c.take_effects()),
        vec![
            AgentEvent::TabUpdated(t(1, "a2")),
            AgentEvent::TabUpdated(t(3, "c")),
            AgentEvent::TabClosed { tab_id: TabId(2) },
        ]
    );
    assert_eq!(c.shared(), [t(1, "a2"), t(3, "c")]);
    c.on_shared(&[t(1, "a2"), t(3, "c")]);
    assert!(to_all(&c.take_effects()).is_empty(), "nothing changed");
    c.on_tab_gone(TabId(3), Gone::Closed);
    assert_eq!(
        to_all(&c.take_effects()),
        vec![AgentEvent::TabClosed { tab_id: TabId(3) }]
    );
    assert_eq!(c.shared(), [t(1, "a2")]);
    // Offline once, however often the loss is reported; online again.
    c.on_lane_lost();
    c.on_lane_lost();
    assert_eq!(to_all(&c.take_effects()), vec![AgentEvent::LaneOffline {}]);
    c.on_lane_online();
    assert_eq!(to_all(&c.take_effects()), vec![AgentEvent::LaneOnline {}]);
    // A replacing connection: online, never offline in between.
    c.on_lane_online();
    assert_eq!(to_all(&c.take_effects()), vec![AgentEvent::LaneOnline {}]);
}

#[test]
fn notifications_reach_the_connection_a_session_is_bound_to() {
    let (mut c, a) = setup();
    let b = c.hello(B, "beta".into(), Ticket("tb".into()));
    assert_eq!(c.audience(Some(a)), vec![A]);
    assert_eq!(c.audience(None), vec![A, B]);
    c.unbind(b, B, Instant::now());
    assert_eq!(
        c.audience(Some(b)),
        vec![],
        "a resumable session has no connection"
    );
    assert_eq!(c.audience(None), vec![A]);
    let b2 = c.resume(ConnId(3), &Ticket("tb".into()), Instant::now());
    assert_eq!(b2, Some(b));
    assert_eq!(c.audience(Some(b)), vec![ConnId(3)]);
    assert!(c.bye(a, A));
    assert_eq!(c.audience(Some(a)), vec![]);
    assert_eq!(c.audience(None), vec![ConnId(3)]);
}

// ---- lane loss -----------------------------------------------------------

#[test]
fn lane_loss_drops_input_and_revokes_leases() {
    let (mut c, a) = setup();
    c.on_developer_mode(true);
    let k = held_key(&mut c, a, A, "a");
    c.take_effects();
    c.on_lane_lost();
    let fx = c.take_effects();
    assert!(fx.contains(&Effect::Dropped(k)));
    assert!(releases(&fx).is_empty());
    assert_eq!(revoked(&fx), vec![(a, TabId(1), R::LaneLost)]);
    assert!(!c.developer_mode());
    assert_eq!(kind(c.fence(a, A, Need::Act)), ErrorKind::NoControl);
}

// ---- blocked targets (issue 15) ---------------------------------------------

#[test]
fn a_tab_on_a_blocked_page_admits_nothing_until_it_shows_a_web_page_again() {
    let (mut c, s) = setup();
    let k = held_key(&mut c, s, A, "a");
    let frame_before = c.fence(s, A, Need::Observe).expect("observe");
    c.take_effects();
    let blocked = TabInfo {
        blocked: Some(Blocked::LocalFile),
        url: String::new(),
        ..tab(1, false)
    };
    c.on_shared(&[blocked.clone(), tab(2, false)]);
    let fx = c.take_effects();
    // The extension releases what the page held; the daemon sends nothing.
    assert!(releases(&fx).is_empty(), "{fx:?}");
    assert_eq!(revoked(&fx), vec![(s, TabId(1), R::BlockedTarget)]);
    for need in [Need::Observe, Need::Act, Need::Privileged] {
        let e = c.fence(s, A, need);
        if need == Need::Privileged {
            // Developer mode is off in this core: that answer comes first.
            assert_eq!(kind(e), ErrorKind::DeveloperModeOff);
        } else {
            assert_eq!(kind(e), ErrorKind::BlockedTarget, "{need:?}");
        }
    }
    assert_eq!(kind(c.check(&frame_before)), ErrorKind::BlockedTarget);
    assert_eq!(kind(c.acquire(s, A)), ErrorKind::BlockedTarget);
    assert_eq!(
        c.agent_release(s, A, ReleaseTarget::Key("a".into())),
        Ok(AgentRelease::Already),
        "press {k:?} was dropped, not released twice"
    );
    // Reported again while still blocked: nothing more happens.
    c.on_shared(&[blocked, tab(2, false)]);
    assert!(revoked(&c.take_effects()).is_empty());
    // Back on a web page: observing works, acting needs the lease again.
    c.on_shared(&[tab(1, false), tab(2, false)]);
    c.fence(s, A, Need::Observe).expect("observe again");
    assert_eq!(kind(c.fence(s, A, Need::Act)), ErrorKind::NoControl);
    c.acquire(s, A).expect("acquire again");
    c.fence(s, A, Need::Act).expect("act again");
}

#[test]
fn a_tab_a_shared_page_opened_is_told_to_the_sessions_on_its_opener() {
    let (mut c, a) = setup();
    let b = c.hello(B, "beta".into(), Ticket("tb".into()));
    c.select(b, B, TabId(2)).expect("select");
    c.take_effects();
    let opened = TabInfo {
        opener: Some(TabId(1)),
        ..tab(3, false)
    };
    c.on_shared(&[tab(1, false), tab(2, false), opened.clone()]);
    let fx = c.take_effects();
    let told: Vec<_> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::Notify(sid, ev @ AgentEvent::TabOpened(_)) => Some((*sid, ev.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        told,
        vec![(a, AgentEvent::TabOpened(opened.clone()))],
        "only the session on the opener: {fx:?}"
    );
    assert_eq!(to_all(&fx), vec![AgentEvent::TabUpdated(opened.clone())]);
    // Told once: the next list names it again, nothing is new.
    c.on_shared(&[tab(1, false), tab(2, false), opened]);
    assert!(c
        .take_effects()
        .iter()
        .all(|e| !matches!(e, Effect::Notify(_, AgentEvent::TabOpened(_)))));
}

/// The `Agents` effects in `effects`.
fn agents_told(effects: &[Effect]) -> Vec<Vec<String>> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Agents(names) => Some(names.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_connected_agents_are_told_when_they_change_and_on_hello() {
    let mut c = Core::default();
    let a = c.hello(A, "alpha".into(), Ticket("ta".into()));
    assert!(agents_told(&c.take_effects()).is_empty(), "no lane");
    c.on_lane_online();
    assert_eq!(
        agents_told(&c.take_effects()),
        vec![vec!["alpha".to_owned()]]
    );
    let _b = c.hello(B, "beta".into(), Ticket("tb".into()));
    assert_eq!(
        agents_told(&c.take_effects()),
        vec![vec!["alpha".to_owned(), "beta".to_owned()]]
    );
    // Nothing changed: nothing said.
    c.tick(Instant::now());
    assert!(agents_told(&c.take_effects()).is_empty());
    // A session whose connection dropped is no longer connected; its
    // resume brings it back; `bye` ends it.
    let now = Instant::now();
    c.unbind(a, A, now);
    assert_eq!(
        agents_told(&c.take_effects()),
        vec![vec!["beta".to_owned()]]
    );
    let resumed = c
        .resume(ConnId(3), &Ticket("ta".into()), now)
        .expect("resumes");
    assert_eq!(
        agents_told(&c.take_effects()),
        vec![vec!["alpha".to_owned(), "beta".to_owned()]]
    );
    assert!(c.bye(resumed, ConnId(3)));
    assert_eq!(
        agents_told(&c.take_effects()),
        vec![vec!["beta".to_owned()]]
    );
    // A new lane hears the list at once.
    c.on_lane_lost();
    c.take_effects();
    c.on_lane_online();
    assert_eq!(
        agents_told(&c.take_effects()),
        vec![vec!["beta".to_owned()]]
    );
}

#[test]
fn the_sessions_of_one_group_are_one_agent_to_the_person() {
    let mut c = Core::default();
    c.on_lane_online();
    let pw = "Playwright (CDP)";
    let group = |g: &str| Some(g.to_owned());
    let own = c.hello_keeping(
        A,
        pw.into(),
        Ticket("t1".into()),
        Duration::ZERO,
        group("c1"),
    );
    let _tab = c.hello_keeping(
        B,
        pw.into(),
        Ticket("t2".into()),
        Duration::ZERO,
        group("c1"),
    );
    // A second client is a second agent; so is a session without a group,
    // and another agent's session of the same group.
    let _other = c.hello_keeping(
        ConnId(3),
        pw.into(),
        Ticket("t3".into()),
        Duration::ZERO,
        group("c2"),
    );
    let _alone = c.hello(ConnId(4), pw.into(), Ticket("t4".into()));
    let _cli = c.hello_keeping(
        ConnId(5),
        "cli".into(),
        Ticket("t5".into()),
        Duration::ZERO,
        group("c1"),
    );
    let mut want = vec![pw.to_owned(); 3];
    want.push("cli".to_owned());
    assert_eq!(c.connected_agents(), want);
    // The group's first session gone, its other one still names it.
    assert!(c.bye(own, A));
    assert_eq!(c.connected_agents(), want);
}

#[test]
fn controllers_are_published_on_every_change_and_on_hello() {
    let mut c = Core::default();
    c.on_shared(&[tab(1, false)]);
    assert!(
        actions(c.take_effects()).is_empty(),
        "no lane, nothing to tell"
    );
    c.on_lane_online();
    assert_eq!(
        actions(c.take_effects()),
        vec![Effect::Controllers(vec![TabControl {
            tab_id: TabId(1),
            holder: Holder::Nobody
        }])]
    );
    let s = c.hello(A, "alpha".into(), Ticket("t".into()));
    c.select(s, A, TabId(1)).expect("select");
    c.acquire(s, A).expect("acquire");
    assert!(matches!(
        &actions(c.take_effects())[..],
        [Effect::Controllers(_)]
    ));
    c.release_control(s, A).expect("release");
    assert!(matches!(&c.take_effects()[..], [Effect::Controllers(_)]));
}

/// Issue 36: an agent whose tab went is told why, as far as the daemon
/// heard: closed, closed with its window, or unshared.
#[test]
fn a_tab_that_went_says_why() {
    let (mut c, s) = setup();
    let why = |c: &Core| {
        c.fence(s, A, Need::Observe)
            .expect_err("gone")
            .message
            .clone()
    };
    c.on_tab_gone(TabId(1), Gone::ClosedWithWindow);
    assert_eq!(c.gone(TabId(1)), Some(Gone::ClosedWithWindow));
    assert!(why(&c).contains("closed with its window"), "{}", why(&c));
    assert_eq!(kind(c.fence(s, A, Need::Observe)), ErrorKind::TabNotShared);
    // Shared again, then gone from the list: unshared.
    c.on_shared(&[tab(1, false), tab(2, false)]);
    assert_eq!(c.gone(TabId(1)), None);
    c.on_shared(&[tab(2, false)]);
    assert_eq!(c.gone(TabId(1)), Some(Gone::Unshared));
    assert!(why(&c).contains("unshared"), "{}", why(&c));
    // The close that follows a list without the tab is what happened.
    c.on_tab_gone(TabId(1), Gone::Closed);
    assert_eq!(c.gone(TabId(1)), Some(Gone::Closed));
    assert!(why(&c).contains("was closed"), "{}", why(&c));
    // Only the latest departures are kept.
    for t in 100..100 + super::browser::DEPARTED as i32 {
        c.on_tab_gone(TabId(t), Gone::Closed);
    }
    assert_eq!(c.gone(TabId(1)), None);
    assert!(why(&c).contains("no longer shared"), "{}", why(&c));
}
