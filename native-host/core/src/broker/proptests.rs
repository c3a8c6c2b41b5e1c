//! A state-machine property test of the broker core: random sequences of
//! agent actions and person actions, with the design's invariants checked
//! after every step.
//!
//! - No input is admitted for a session after it was told its control was
//!   revoked (or it released it) and before it acquires again; none while
//!   the person controls the tab.
//! - Every recorded press is released exactly once (by the agent or the
//!   daemon), never twice, and all are released at the end.
//! - No in-flight action publishes across a revision change or a takeover
//!   of its tab (actions are begin/end pairs; the end is the fence check).
//! - Privileged calls never start while developer mode is off, and never
//!   publish across a switch-off.
//! - An acting call publishes, and admits input with the fence it took,
//!   only while its session kept the lease it had when it started (no
//!   revocation and re-acquire in between).
//! - After every step, a press still held or being sent belongs to a
//!   session that holds the lease of its tab; every other press was
//!   released exactly once.
//!
//! Purely random sequences rarely line up a race, so the generator also
//! draws *races*: a session takes control, starts an action (or a press),
//! something happens (a `select` of any tab, the same one included, a
//! takeover, a release and re-acquire, developer mode off and on, a lane
//! loss, an unshare …), then the action goes on (input with its old fence)
//! and ends.

use super::*;
use crate::keys;
use cotab_shared::controller::MouseButton;
use cotab_shared::held::State;
use cotab_shared::Ticket;
use proptest::prelude::*;
use std::time::Instant;

const AGENTS: usize = 2;
const TABS: [i32; 2] = [1, 2];

#[derive(Debug, Clone)]
enum Op {
    Hello(usize),
    Select(usize, usize),
    Acquire(usize),
    Release(usize),
    BeginPress(usize, u8),
    SettlePress(usize, bool),
    AgentRelease(usize, u8),
    Click(usize),
    Capture(usize),
    BeginAction(usize, Need),
    /// Input with the fence of the n-th most recent action in flight
    /// (kind: 0..3 a press, 3 plain input, 4 a mouse move).
    ActionInput(usize, u8),
    /// Ends the n-th most recent action in flight.
    EndAction(usize),
    Bye(usize),
    Disconnect(usize),
    Resume(usize),
    Advance(u64),
    Human(usize, bool),
    Unshare(usize),
    Reshare(usize),
    Close(usize),
    Developer(bool),
    Navigate(usize),
    /// The tab's page becomes (`true`) or stops being a blocked target.
    Blocked(usize, bool),
    LaneLost,
    LaneOnline,
}

fn need() -> impl Strategy<Value = Need> {
    prop_oneof![Just(Need::Observe), Just(Need::Act), Just(Need::Privileged)]
}

fn op() -> impl Strategy<Value = Op> {
    let a = 0..AGENTS;
    let t = 0..TABS.len();
    prop_oneof![
        3 => a.clone().prop_map(Op::Hello),
        3 => (a.clone(), t.clone()).prop_map(|(a, t)| Op::Select(a, t)),
        4 => a.clone().prop_map(Op::Acquire),
        1 => a.clone().prop_map(Op::Release),
        3 => (a.clone(), 0u8..3).prop_map(|(a, k)| Op::BeginPress(a, k)),
        3 => (0usize..8, any::<bool>()).prop_map(|(i, ok)| Op::SettlePress(i, ok)),
        2 => (a.clone(), 0u8..3).prop_map(|(a, k)| Op::AgentRelease(a, k)),
        2 => a.clone().prop_map(Op::Click),
        1 => a.clone().prop_map(Op::Capture),
        4 => (a.clone(), need()).prop_map(|(a, n)| Op::BeginAction(a, n)),
        2 => (0usize..4, 0u8..5).prop_map(|(n, k)| Op::ActionInput(n, k)),
        4 => (0usize..8).prop_map(Op::EndAction),
        1 => a.clone().prop_map(Op::Bye),
        1 => a.clone().prop_map(Op::Disconnect),
        1 => a.clone().prop_map(Op::Resume),
        1 => (0u64..3000).prop_map(Op::Advance),
        2 => (t.clone(), any::<bool>()).prop_map(|(t, h)| Op::Human(t, h)),
        1 => t.clone().prop_map(Op::Unshare),
        1 => t.clone().prop_map(Op::Reshare),
        1 => t.clone().prop_map(Op::Close),
        2 => any::<bool>().prop_map(Op::Developer),
        1 => t.clone().prop_map(Op::Navigate),
        2 => (t, any::<bool>()).prop_map(|(t, b)| Op::Blocked(t, b)),
        1 => Just(Op::LaneLost),
        1 => Just(Op::LaneOnline),
    ]
}

/// What happens to agent `a` (on tab `t`; `u` is any tab) while its action
/// or press is in flight.
fn interference(a: usize, t: usize) -> impl Strategy<Value = Vec<Op>> {
    let b = (a + 1) % AGENTS;
    let u = 0..TABS.len();
    prop_oneof![
        1 => Just(vec![]),
        // The same tab included: only the revision tells.
        4 => u.clone().prop_map(move |u| vec![Op::Select(a, u)]),
        1 => u.clone().prop_map(move |u| vec![Op::Select(a, u), Op::Acquire(a)]),
        2 => Just(vec![Op::Human(t, true)]),
        2 => Just(vec![Op::Human(t, true), Op::Human(t, false), Op::Acquire(a)]),
        2 => Just(vec![Op::Release(a), Op::Acquire(a)]),
        1 => Just(vec![Op::Release(a), Op::Acquire(b)]),
        2 => Just(vec![Op::Developer(false)]),
        2 => Just(vec![Op::Developer(false), Op::Developer(true)]),
        1 => Just(vec![Op::LaneLost, Op::LaneOnline, Op::Acquire(a)]),
        1 => Just(vec![Op::Unshare(t), Op::Reshare(t), Op::Acquire(a)]),
        1 => Just(vec![Op::Disconnect(a), Op::Advance(2500), Op::Resume(a), Op::Acquire(a)]),
        1 => Just(vec![Op::Disconnect(a), Op::Resume(a)]),
        1 => Just(vec![Op::Bye(a), Op::Hello(a)]),
        1 => Just(vec![Op::Navigate(t)]),
        1 => Just(vec![Op::Blocked(t, true), Op::Blocked(t, false), Op::Acquire(a)]),
        1 => u.prop_map(Op::Close).prop_map(|o| vec![o]),
    ]
}

/// A race: agent `a` takes control of tab `t` and starts an action or a
/// press, something interferes, then the action goes on and ends (or the
/// press settles and the agent releases it).
fn race() -> impl Strategy<Value = Vec<Op>> {
    (0..AGENTS, 0..TABS.len())
        .prop_flat_map(|(a, t)| {
            (
                Just((a, t)),
                need(),
                interference(a, t),
                proptest::option::of(0u8..5),
                0u8..3,
                any::<bool>(),
                any::<bool>(),
            )
        })
        .prop_map(|((a, t), need, mid, input, k, press, ok)| {
            let mut v = vec![
                Op::Hello(a),
                Op::Developer(true),
                Op::Select(a, t),
                Op::Acquire(a),
            ];
            if press {
                // The interference comes while the press is being sent, or
                // once it is held (`ok` picks, and whether the send worked).
                v.push(Op::BeginPress(a, k));
                if ok {
                    v.push(Op::SettlePress(0, true));
                    v.extend(mid);
                } else {
                    v.extend(mid);
                    v.push(Op::SettlePress(0, k != 0));
                }
                v.push(Op::AgentRelease(a, k));
            } else {
                v.push(Op::BeginAction(a, need));
                v.extend(mid);
                v.extend(input.map(|k| Op::ActionInput(0, k)));
                v.push(Op::EndAction(0));
            }
            v
        })
}

/// Random steps with races mixed in.
fn ops() -> impl Strategy<Value = Vec<Op>> {
    proptest::collection::vec(
        prop_oneof![
            3 => op().prop_map(|o| vec![o]),
            1 => race(),
        ],
        1..40,
    )
    .prop_map(|chunks| chunks.into_iter().flatten().collect())
}

fn kind_of(k: u8) -> PressKind {
    match k {
        0 => PressKind::Key {
            key: keys::lookup("a").expect("known"),
            modifiers: vec![],
        },
        1 => PressKind::Mouse {
            button: MouseButton::Left,
            x: 1.0,
            y: 1.0,
        },
        _ => PressKind::Touch {
            x: 1.0,
            y: 1.0,
            dpr: 1.0,
        },
    }
}

fn target_of_k(k: u8) -> ReleaseTarget {
    match k {
        0 => ReleaseTarget::Key("a".into()),
        1 => ReleaseTarget::Mouse(MouseButton::Left),
        _ => ReleaseTarget::Touch,
    }
}

#[derive(Debug, Clone)]
struct InFlight {
    fence: Fence,
    /// The session's lease grant at the start (acting calls).
    grant: u64,
    revision: u64,
    takeovers: u64,
    dev_offs: u64,
}

struct Agent {
    sid: Option<SessionId>,
    conn: Option<ConnId>,
    ticket: Ticket,
    /// The tab the model believes this agent controls.
    authorized: Option<TabId>,
    /// Counts the leases granted to this agent; a fence must not outlive
    /// its grant.
    grants: u64,
    revision: u64,
}

struct World {
    core: Core,
    now: Instant,
    next_conn: u64,
    agents: Vec<Agent>,
    shared: Vec<(TabId, bool)>,
    /// Shared tabs whose page is a blocked target.
    blocked: Vec<TabId>,
    closed: Vec<TabId>,
    takeovers: BTreeMap<TabId, u64>,
    dev: bool,
    dev_offs: u64,
    /// Release count of every recorded press.
    releases: BTreeMap<PressId, u32>,
    sending: Vec<PressId>,
    inflight: Vec<InFlight>,
}

impl World {
    fn new() -> Self {
        let mut core = Core::new(CoreConfig {
            ticket_ttl: Duration::from_secs(20),
            max_unbound: 2,
            resume_grace: Duration::from_secs(2),
        });
        core.on_lane_online();
        let shared: Vec<(TabId, bool)> = TABS.iter().map(|t| (TabId(*t), false)).collect();
        let mut w = World {
            core,
            now: Instant::now(),
            next_conn: 1,
            agents: (0..AGENTS)
                .map(|i| Agent {
                    sid: None,
                    conn: None,
                    ticket: Ticket(format!("ticket-{i}")),
                    authorized: None,
                    grants: 0,
                    revision: 0,
                })
                .collect(),
            shared,
            blocked: Vec::new(),
            closed: Vec::new(),
            takeovers: BTreeMap::new(),
            dev: false,
            dev_offs: 0,
            releases: BTreeMap::new(),
            sending: Vec::new(),
            inflight: Vec::new(),
        };
        w.push_shared();
        w
    }

    fn push_shared(&mut self) {
        let list: Vec<TabInfo> = self
            .shared
            .iter()
            .map(|(id, human)| TabInfo {
                id: *id,
                url: String::new(),
                title: String::new(),
                human_control: *human,
                blocked: self
                    .blocked
                    .contains(id)
                    .then_some(cotab_shared::reach::Blocked::LocalFile),
                opener: None,
                target_id: None,
            })
            .collect();
        self.core.on_shared(&list);
    }

    /// Index of the n-th most recent of `len` entries.
    fn recent(len: usize, n: usize) -> usize {
        len - 1 - n % len
    }

    fn agent_of(&self, sid: SessionId) -> Option<usize> {
        self.agents.iter().position(|a| a.sid == Some(sid))
    }

    /// Input was admitted with an acting `fence` that agent `i` took under
    /// its lease grant `grant`: it still holds that very lease.
    fn admitted_with(&self, i: usize, fence: &Fence, grant: u64) {
        self.admitted(i, fence.tab);
        assert_eq!(
            self.agents[i].grants, grant,
            "input admitted with a fence from an earlier lease"
        );
    }

    /// After every step: a press still held or being sent belongs to a
    /// session holding the lease of its tab; a press being sent is one the
    /// model is sending; every other press was released exactly once.
    fn check_presses(&self) {
        for n in 1..self.core.held.next_seq() {
            let id = PressId(n);
            let released = self.releases.get(&id).copied().unwrap_or(0);
            match self.core.held.get(n) {
                Some(p) if matches!(p.state, State::Held | State::Sending) => {
                    assert_eq!(released, 0, "press {n} released but still recorded as held");
                    let i = self
                        .agent_of(p.owner.session)
                        .expect("a press of a live session");
                    assert_eq!(
                        self.agents[i].authorized,
                        Some(p.owner.tab),
                        "press {n} still held after its session lost control"
                    );
                    let lease = self.core.tabs.get(&p.owner.tab).and_then(|t| t.lease);
                    assert_eq!(
                        lease.map(|(s, _)| s),
                        Some(p.owner.session),
                        "press {n} held without the lease"
                    );
                    if p.state == State::Sending {
                        assert!(self.sending.contains(&id), "press {n} sending twice");
                    }
                }
                Some(p) if matches!(p.state, State::Revoked { .. }) => {
                    assert_eq!(released, 0, "press {n} released while still being sent");
                    assert!(self.sending.contains(&id), "press {n} never settles");
                }
                _ => assert_eq!(released, 1, "press {n} not released exactly once"),
            }
        }
    }

    fn count(&mut self, press: PressId) {
        let n = self.releases.entry(press).or_insert(0);
        *n += 1;
        assert_eq!(*n, 1, "press {press:?} released twice");
    }

    fn drain(&mut self) {
        for e in self.core.take_effects() {
            match e {
                Effect::Release(cmd) => self.count(cmd.press),
                Effect::Dropped(id) => self.count(id),
                Effect::Notify(sid, AgentEvent::ControlRevoked { tab_id, .. }) => {
                    for a in &mut self.agents {
                        if a.sid == Some(sid) && a.authorized == Some(tab_id) {
                            a.authorized = None;
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn bound(&self, i: usize) -> Option<(SessionId, ConnId)> {
        let a = &self.agents[i];
        Some((a.sid?, a.conn?))
    }

    fn human(&self, tab: TabId) -> bool {
        self.shared.iter().any(|(t, h)| *t == tab && *h)
    }

    /// Input was admitted for agent `i` on `tab`: the model must agree.
    fn admitted(&self, i: usize, tab: TabId) {
        assert_eq!(
            self.agents[i].authorized,
            Some(tab),
            "input admitted without authority"
        );
        assert!(
            !self.human(tab),
            "input admitted while the person controls the tab"
        );
        assert!(
            !self.blocked.contains(&tab),
            "input admitted on a blocked page"
        );
    }

    fn step(&mut self, op: Op) {
        match op {
            Op::Hello(i) => {
                if self.agents[i].sid.is_none() {
                    let conn = ConnId(self.next_conn);
                    self.next_conn += 1;
                    let t = self.agents[i].ticket.clone();
                    let sid = self.core.hello(conn, format!("agent{i}"), t);
                    let a = &mut self.agents[i];
                    (a.sid, a.conn, a.authorized, a.revision) = (Some(sid), Some(conn), None, 0);
                }
            }
            Op::Select(i, t) => {
                if let Some((sid, conn)) = self.bound(i) {
                    let tab = TabId(TABS[t]);
                    let before = self.core.selection(sid, conn).ok().and_then(|s| s.0);
                    if let Ok(r) = self.core.select(sid, conn, tab) {
                        self.agents[i].revision = r;
                        if before != Some(tab) && self.agents[i].authorized.is_some() {
                            self.drain();
                            assert_eq!(self.agents[i].authorized, None, "switch revokes");
                        }
                    }
                }
            }
            Op::Acquire(i) => {
                if let Some((sid, conn)) = self.bound(i) {
                    if let Ok((tab, _)) = self.core.acquire(sid, conn) {
                        assert!(!self.human(tab));
                        for (j, other) in self.agents.iter().enumerate() {
                            if j != i {
                                assert_ne!(other.authorized, Some(tab), "two controllers");
                            }
                        }
                        if self.agents[i].authorized != Some(tab) {
                            self.agents[i].grants += 1;
                        }
                        self.agents[i].authorized = Some(tab);
                    }
                }
            }
            Op::Release(i) => {
                if let Some((sid, conn)) = self.bound(i) {
                    if self.core.release_control(sid, conn).is_ok() {
                        let tab = self.core.selection(sid, conn).ok().and_then(|s| s.0);
                        if self.agents[i].authorized == tab {
                            self.agents[i].authorized = None;
                        }
                    }
                }
            }
            Op::BeginPress(i, k) => {
                if let Some((sid, conn)) = self.bound(i) {
                    if let Ok(f) = self.core.fence(sid, conn, Need::Act) {
                        if let Ok(id) = self.core.begin_press(&f, None, kind_of(k)) {
                            self.admitted(i, f.tab);
                            self.sending.push(id);
                        }
                    }
                }
            }
            Op::SettlePress(n, ok) => {
                if !self.sending.is_empty() {
                    let id = self.sending.remove(Self::recent(self.sending.len(), n));
                    self.core.press_settled(id, ok);
                }
            }
            Op::AgentRelease(i, k) => {
                if let Some((sid, conn)) = self.bound(i) {
                    if let Ok(AgentRelease::Send(cmd)) =
                        self.core.agent_release(sid, conn, target_of_k(k))
                    {
                        self.count(cmd.press);
                    }
                }
            }
            Op::Click(i) => {
                if let Some((sid, conn)) = self.bound(i) {
                    if let Ok(f) = self.core.fence(sid, conn, Need::Act) {
                        let kind = PressKind::Mouse {
                            button: MouseButton::Middle,
                            x: 0.0,
                            y: 0.0,
                        };
                        if let Ok(id) = self.core.begin_press(&f, None, kind) {
                            self.admitted(i, f.tab);
                            self.core.press_settled(id, true);
                            if let Some(cmd) = self.core.release_press(id) {
                                self.count(cmd.press);
                            }
                        }
                    }
                }
            }
            Op::Capture(i) => {
                if let Some((sid, conn)) = self.bound(i) {
                    if let Ok(f) = self.core.fence(sid, conn, Need::Observe) {
                        let m = self.core.capture_started(&f);
                        let g = FrameGeometry {
                            viewport_width: 1.0,
                            viewport_height: 1.0,
                            scroll_x: 0.0,
                            scroll_y: 0.0,
                        };
                        let _ = self.core.capture_finished(&f, m, 1.0, g);
                    }
                }
            }
            Op::BeginAction(i, need) => {
                if let Some((sid, conn)) = self.bound(i) {
                    if let Ok(fence) = self.core.fence(sid, conn, need) {
                        if need == Need::Privileged {
                            assert!(
                                self.dev,
                                "a privileged call started with developer mode off"
                            );
                        }
                        if need != Need::Observe {
                            self.admitted(i, fence.tab);
                        }
                        assert!(
                            !self.blocked.contains(&fence.tab),
                            "an action started on a blocked page"
                        );
                        self.inflight.push(InFlight {
                            grant: self.agents[i].grants,
                            takeovers: self.takeovers.get(&fence.tab).copied().unwrap_or(0),
                            revision: self.agents[i].revision,
                            dev_offs: self.dev_offs,
                            fence,
                        });
                    }
                }
            }
            Op::ActionInput(n, k) => {
                if !self.inflight.is_empty() {
                    let a = self.inflight[Self::recent(self.inflight.len(), n)].clone();
                    let i = self.agent_of(a.fence.session);
                    // Handlers send input only under an acting fence.
                    let admitted = a.fence.lease.is_some()
                        && match k {
                            0..=2 => match self.core.begin_press(&a.fence, None, kind_of(k)) {
                                Ok(id) => {
                                    self.sending.push(id);
                                    true
                                }
                                Err(_) => false,
                            },
                            3 => self.core.input(&a.fence).is_ok(),
                            _ => self.core.mouse_moved(&a.fence, 2.0, 2.0).is_ok(),
                        };
                    if admitted {
                        let i = i.expect("input admitted for a live session");
                        self.admitted_with(i, &a.fence, a.grant);
                        assert_eq!(
                            self.agents[i].revision, a.revision,
                            "input admitted across a revision change"
                        );
                    }
                }
            }
            Op::EndAction(n) => {
                if !self.inflight.is_empty() {
                    let a = self.inflight.remove(Self::recent(self.inflight.len(), n));
                    if self.core.check(&a.fence).is_ok() {
                        assert!(
                            !self.blocked.contains(&a.fence.tab),
                            "published on a blocked page"
                        );
                        let i = self.agent_of(a.fence.session).expect("a live session");
                        assert_eq!(
                            self.agents[i].revision, a.revision,
                            "published across a revision change"
                        );
                        if a.fence.lease.is_some() {
                            assert_eq!(
                                self.takeovers.get(&a.fence.tab).copied().unwrap_or(0),
                                a.takeovers,
                                "published across a takeover"
                            );
                            assert_eq!(
                                (self.agents[i].authorized, self.agents[i].grants),
                                (Some(a.fence.tab), a.grant),
                                "published without holding the lease throughout"
                            );
                        }
                        if a.fence.dev.is_some() {
                            assert!(
                                self.dev && self.dev_offs == a.dev_offs,
                                "privileged across dev off"
                            );
                        }
                    }
                }
            }
            Op::Bye(i) => {
                if let Some((sid, conn)) = self.bound(i) {
                    assert!(self.core.bye(sid, conn));
                    let a = &mut self.agents[i];
                    (a.sid, a.conn, a.authorized) = (None, None, None);
                }
            }
            Op::Disconnect(i) => {
                if let Some((sid, conn)) = self.bound(i) {
                    self.core.unbind(sid, conn, self.now);
                    self.agents[i].conn = None;
                }
            }
            Op::Resume(i) => {
                let conn = ConnId(self.next_conn);
                self.next_conn += 1;
                let t = self.agents[i].ticket.clone();
                match self.core.resume(conn, &t, self.now) {
                    Some(sid) => {
                        assert_eq!(Some(sid), self.agents[i].sid);
                        self.agents[i].conn = Some(conn);
                    }
                    None => {
                        self.drain();
                        let a = &mut self.agents[i];
                        (a.sid, a.conn, a.authorized) = (None, None, None);
                    }
                }
            }
            Op::Advance(ms) => {
                self.now += Duration::from_millis(ms);
                self.core.tick(self.now);
            }
            Op::Human(t, h) => {
                let tab = TabId(TABS[t]);
                if let Some(e) = self.shared.iter_mut().find(|(id, _)| *id == tab) {
                    if h && !e.1 {
                        *self.takeovers.entry(tab).or_insert(0) += 1;
                    }
                    e.1 = h;
                    self.push_shared();
                }
            }
            Op::Unshare(t) => {
                let tab = TabId(TABS[t]);
                self.shared.retain(|(id, _)| *id != tab);
                self.blocked.retain(|id| *id != tab);
                self.push_shared();
            }
            Op::Blocked(t, b) => {
                let tab = TabId(TABS[t]);
                if self.shared.iter().any(|(id, _)| *id == tab) {
                    self.blocked.retain(|id| *id != tab);
                    if b {
                        self.blocked.push(tab);
                    }
                    self.push_shared();
                    self.drain();
                    if b {
                        for a in &self.agents {
                            assert_ne!(a.authorized, Some(tab), "a lease survived the block");
                        }
                    }
                }
            }
            Op::Reshare(t) => {
                let tab = TabId(TABS[t]);
                if !self.shared.iter().any(|(id, _)| *id == tab) && !self.closed.contains(&tab) {
                    self.shared.push((tab, false));
                    self.push_shared();
                }
            }
            Op::Close(t) => {
                let tab = TabId(TABS[t]);
                self.shared.retain(|(id, _)| *id != tab);
                self.blocked.retain(|id| *id != tab);
                self.closed.push(tab);
                self.core.on_tab_gone(tab, Gone::Closed);
            }
            Op::Developer(on) => {
                if self.dev && !on {
                    self.dev_offs += 1;
                }
                self.dev = on;
                self.core.on_developer_mode(on);
            }
            Op::Navigate(t) => self.core.on_main_frame_navigated(TabId(TABS[t])),
            Op::LaneLost => {
                self.core.on_lane_lost();
                if self.dev {
                    self.dev_offs += 1;
                }
                self.dev = false;
            }
            Op::LaneOnline => {
                self.core.on_lane_online();
                self.push_shared();
            }
        }
        self.drain();
        self.check_presses();
    }

    /// Ends every send, then loses the lane: every press must be released
    /// exactly once by then.
    fn finish(&mut self) {
        for id in std::mem::take(&mut self.sending) {
            self.core.press_settled(id, true);
        }
        self.core.on_lane_lost();
        self.drain();
        assert_eq!(self.core.held_count(), 0);
        let recorded = self.core.held.next_seq() - 1;
        for n in 1..=recorded {
            assert_eq!(
                self.releases.get(&PressId(n)),
                Some(&1),
                "press {n} not released exactly once"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn broker_invariants_hold(ops in ops()) {
        let mut w = World::new();
        for o in ops {
            w.step(o);
        }
        w.finish();
    }
}

#[test]
fn the_model_sees_a_publication_across_a_reselect() {
    let mut w = World::new();
    for o in [
        Op::Hello(0),
        Op::Select(0, 0),
        Op::Acquire(0),
        Op::BeginAction(0, Need::Act),
        Op::Select(0, 0),
        Op::EndAction(0),
        Op::BeginPress(0, 0),
        Op::Human(0, true),
        Op::SettlePress(0, true),
    ] {
        w.step(o);
    }
    w.finish();
}
