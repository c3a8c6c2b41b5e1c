//! The broker core: every safety rule of the daemon as plain state, with no
//! I/O. Inputs are method calls (agent requests, browser events, the clock
//! passed in as an [`Instant`](std::time::Instant)); outputs are return values plus a list of
//! [`Effect`]s the caller performs afterwards ([`Core::take_effects`]).
//!
//! It owns: sessions and tickets (bound, in their resume grace, unbound
//! until their TTL), each session's binding (selected tab, selection
//! revision, frames), the control lease of every shared tab (nobody, the
//! person, or one agent session), the record of every press an agent sent
//! (key, mouse button, touch) until its paired release, and developer mode.
//!
//! It does not own: sockets, the lane's pending calls, CDP translation of
//! agent methods (that is the daemon's `handlers`), or timers (the daemon calls
//! [`Core::tick`]).
//!
//! **Architecture Invariant:** the core does no I/O and never awaits.
//! Handlers consult it before and after every awaited step: an action takes
//! a [`Fence`] when it starts and calls [`Core::check`] after each await; a
//! failed check means the result is not published.
//!
//! **Architecture Invariant:** revocation removes credentials first (lease,
//! fence epochs, ticket), then emits the cleanup (paired releases,
//! notifications), all inside one call, so no awaited step observes a
//! half-revoked session.
//!
//! **Architecture Invariant:** every recorded press is released exactly once:
//! by the agent ([`Core::agent_release`], [`Core::release_press`]) or by the
//! daemon ([`Effect::Release`], or [`Effect::Dropped`] when the browser side
//! is gone or the press never reached it).

use crate::session::{ConnId, SessionId};
use cotab_shared::controller::{AgentEvent, FrameGeometry, FrameId, RevokeReason};
use cotab_shared::held::Ledger;
use cotab_shared::limits::{
    MAX_FRAMES_PER_SESSION, MAX_UNBOUND_TICKETS, RESUME_GRACE_MS, UNBOUND_TICKET_TTL_MS,
};
use cotab_shared::native::{TabControl, TabInfo};
use cotab_shared::reach::Blocked;
use cotab_shared::{ErrorKind, TabId, WireError};
use sessions::{Connection, Session};
use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

mod asks;
mod browser;
#[cfg(test)]
mod browser_tests;
mod chooser;
#[cfg(test)]
mod chooser_tests;
mod events;
mod kept;
mod network;
mod page;
mod presses;
#[cfg(test)]
mod presses_tests;
#[cfg(test)]
mod proptests;
mod scopes;
#[cfg(test)]
mod scopes_tests;
mod sessions;
#[cfg(test)]
mod tests;

pub use browser::Gone;
pub use chooser::{ChooserMark, WaitingChooser, INTERCEPT_GRACE};
pub use kept::KeptShare;
pub use network::NetworkEntry;
pub use page::{
    CaptureMeta, ConsoleEntry, Given, NodeRef, RefNumbers, SnapshotMark, Viewport,
    CONSOLE_CAPACITY, MAX_ISSUED_REFS,
};
pub use presses::{AgentRelease, Owner, PressId, PressKind, RawInput, ReleaseCmd, ReleaseTarget};

/// Settings of the core.
#[derive(Debug, Clone, Copy)]
pub struct CoreConfig {
    /// How long an unbound session stays resumable.
    pub ticket_ttl: Duration,
    /// How many unbound sessions are kept.
    pub max_unbound: usize,
    /// How long an unbound session keeps its lease and held input.
    pub resume_grace: Duration,
}

impl Default for CoreConfig {
    fn default() -> Self {
        CoreConfig {
            ticket_ttl: Duration::from_millis(UNBOUND_TICKET_TTL_MS),
            max_unbound: MAX_UNBOUND_TICKETS,
            resume_grace: Duration::from_millis(RESUME_GRACE_MS),
        }
    }
}

/// Who acted on a tab, for frame staleness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Actor {
    Human,
    Agent(SessionId),
}

/// What an action needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Reads the tab: no lease.
    Observe,
    /// Changes the tab: the session's lease on it.
    Act,
    /// Agent-supplied code or raw CDP: developer mode and the lease.
    Privileged,
}

/// What an action captured when it started; [`Core::check`] compares it
/// with the present after every awaited step.
#[derive(Debug, Clone, PartialEq)]
pub struct Fence {
    /// The session that started the action.
    pub session: SessionId,
    /// The connection the request came on.
    pub conn: ConnId,
    /// The selected tab the action goes to.
    pub tab: TabId,
    /// The selection revision at the start.
    pub revision: u64,
    /// The lease epoch at the start (acting calls).
    pub lease: Option<u64>,
    /// The developer-mode epoch at the start (privileged calls).
    pub dev: Option<u64>,
}

/// A capture remembered for coordinate input.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// The id the capture answered with.
    pub id: FrameId,
    /// The tab captured.
    pub tab: TabId,
    /// Image pixels per CSS pixel.
    pub dpr: f64,
    /// Viewport and scroll, in CSS pixels.
    pub geometry: FrameGeometry,
    /// Where the image's top left corner is in the viewport, in CSS
    /// pixels (not zero for a capture clipped to an element).
    pub origin: (f64, f64),
    /// Digest of the image bytes, for `knownFrameId`.
    pub digest: [u8; 32],
    nav: u64,
    seq: u64,
}

/// Where a tab stood when a capture started (see [`Core::capture_started`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaptureMark {
    nav: u64,
    seq: u64,
}

/// Something the caller must do after a core call.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send a paired release (class `Release`); a failure is logged, never
    /// retried.
    Release(ReleaseCmd),
    /// A press whose browser side is gone (lane lost, tab closed), or whose
    /// command never reached the page: it counts as released; nothing is
    /// sent.
    Dropped(PressId),
    /// A notification to one session (dropped if it has no connection).
    Notify(SessionId, AgentEvent),
    /// A notification to every session.
    NotifyAll(AgentEvent),
    /// Tell the extension who controls each shared tab.
    Controllers(Vec<TabControl>),
    /// A shared tab's scope changed, or a tab joined the list with one:
    /// tell the person's watches ([`Core::scopes`]).
    Scopes,
    /// Tell the extension which agents are connected (their names,
    /// sorted), for the popup.
    Agents(Vec<String>),
    /// Undo what agents set on a tab's page (class `Release`, so it runs
    /// while the person controls it); a failure is logged.
    Undo(UndoCmd),
}

/// A CDP command that undoes what agents set on a tab's page (the
/// viewport, emulated media) once the person took control of it.
#[derive(Debug, Clone, PartialEq)]
pub struct UndoCmd {
    /// The tab (and only it).
    pub tab: TabId,
    /// CDP method.
    pub method: &'static str,
    /// CDP params.
    pub params: serde_json::Value,
}

#[derive(Debug, Default)]
struct Tab {
    human: bool,
    /// The tab shows a page agents may not use: nothing is admitted on it.
    blocked: Option<Blocked>,
    /// The agent holding the lease, and the lease's epoch.
    lease: Option<(SessionId, u64)>,
    /// Navigation mark: a fresh value of the core's clock at every
    /// main-frame navigation, whenever the tab is (re)shared and whenever
    /// the browser lane drops (navigations are not seen while it is gone),
    /// so a frame's mark matches only if none of those happened since.
    nav: u64,
    /// Input counter; `last_input` says who acted at which count.
    seq: u64,
    last_input: HashMap<Actor, u64>,
    /// Where agents may take it ([`crate::scope`]).
    scope: crate::scope::Scope,
    /// What an agent's request in it waits for the person's yes before
    /// ([`crate::approvals`]).
    ask_before: std::collections::BTreeSet<cotab_shared::watch::AskBefore>,
    /// The url of the document its main frame last committed, as its
    /// page told it, until the shared list tells a url anew.
    committed: Option<String>,
    /// Its page's CDP target id as the list last gave it (the list leaves
    /// it out while the tab is blocked).
    target: Option<String>,
    /// While its kept share waits for its target id ([`kept`]): the asks
    /// that share added, taken back if the target is another page's.
    pending_asks: std::collections::BTreeSet<cotab_shared::watch::AskBefore>,
}

fn err(kind: ErrorKind, message: &str) -> WireError {
    WireError::new(kind, message)
}

fn no_session() -> WireError {
    err(
        ErrorKind::AuthenticationFailed,
        "no session: call session.hello or session.resume first",
    )
}

fn stale() -> WireError {
    err(
        ErrorKind::StaleFrame,
        "the frame is stale: capture the page again",
    )
}

/// The broker core. See the module docs.
#[derive(Debug)]
pub struct Core {
    config: CoreConfig,
    sessions: BTreeMap<SessionId, Session>,
    tabs: BTreeMap<TabId, Tab>,
    /// What the page reported (dialog, console, lifecycle) per tab; kept
    /// apart from `tabs` because events can arrive before the tab is in a
    /// shared list.
    pages: BTreeMap<TabId, page::PageState>,
    /// What agents hold down (keys, buttons, touches), by session and
    /// tab: the [`Ledger`] the extension's ledger is too.
    held: Ledger<Owner>,
    /// The DPR of each gesture's frame, for its updates.
    gestures: BTreeMap<PressId, f64>,
    developer_mode: bool,
    dev_epoch: u64,
    lane_online: bool,
    /// The shared tabs as the extension last reported them, in the order
    /// the person shared them: the daemon's one copy of the list.
    shared: Vec<TabInfo>,
    /// The sites agents may work on in every share (the host config's
    /// `sites`), besides each tab's own.
    lasting: std::collections::BTreeSet<String>,
    /// The shares kept before the daemon last stopped, not yet settled
    /// ([`kept`]).
    kept: BTreeMap<TabId, KeptShare>,
    /// Why the tabs that left the shared list lately left, newest last
    /// (at most [`browser::DEPARTED`]): an agent whose tab went is told
    /// the cause.
    departed: std::collections::VecDeque<(TabId, Gone)>,
    next_session: u64,
    next_epoch: u64,
    next_frame: u64,
    nav_clock: u64,
    last_controllers: Option<Vec<TabControl>>,
    /// The connected agents as last told to the extension.
    last_agents: Option<Vec<String>>,
    effects: Vec<Effect>,
}

impl Default for Core {
    fn default() -> Self {
        Core::new(CoreConfig::default())
    }
}

impl Core {
    /// An empty core.
    pub fn new(config: CoreConfig) -> Self {
        Core {
            config,
            sessions: BTreeMap::new(),
            tabs: BTreeMap::new(),
            pages: BTreeMap::new(),
            held: Ledger::default(),
            gestures: BTreeMap::new(),
            developer_mode: false,
            dev_epoch: 0,
            lane_online: false,
            shared: Vec::new(),
            lasting: std::collections::BTreeSet::new(),
            kept: BTreeMap::new(),
            departed: std::collections::VecDeque::new(),
            next_session: 1,
            next_epoch: 1,
            next_frame: 1,
            nav_clock: 0,
            last_controllers: None,
            last_agents: None,
            effects: Vec::new(),
        }
    }

    /// The effects produced since the last call, in order.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    /// The connections a notification reaches: the one `to` is bound to,
    /// or (`None`) every connection holding a session. A session without a
    /// connection gets nothing; it learns what changed at its next call.
    pub fn audience(&self, to: Option<SessionId>) -> Vec<ConnId> {
        let bound = |s: &Session| match s.connection {
            Connection::Bound(conn) => Some(conn),
            Connection::Unbound { .. } => None,
        };
        match to {
            Some(sid) => self
                .sessions
                .get(&sid)
                .and_then(bound)
                .into_iter()
                .collect(),
            None => self.sessions.values().filter_map(bound).collect(),
        }
    }

    /// The shared tabs, as the extension last reported them.
    pub fn shared(&self) -> &[TabInfo] {
        &self.shared
    }

    // ---- selection and control -----------------------------------------

    fn leased_by(&self, sid: SessionId) -> Vec<TabId> {
        self.tabs
            .iter()
            .filter(|(_, t)| t.lease.map(|(s, _)| s) == Some(sid))
            .map(|(id, _)| *id)
            .collect()
    }

    /// Revokes every lease of `sid` and releases all its held input.
    pub(super) fn revoke_session_control(&mut self, sid: SessionId, reason: RevokeReason) {
        let leased = self.leased_by(sid);
        for t in &leased {
            if let Some(tab) = self.tabs.get_mut(t) {
                tab.lease = None;
            }
            self.undo_auto_attach(*t);
        }
        self.release_where(|p| p.session == sid, false);
        for t in leased {
            self.effects.push(Effect::Notify(
                sid,
                AgentEvent::ControlRevoked { tab_id: t, reason },
            ));
        }
        self.publish_controllers(false);
    }

    /// Revokes the lease on `tab` (whoever holds it) and releases the input
    /// of that session there.
    fn revoke_tab(&mut self, tab_id: TabId, reason: RevokeReason, drop: bool, notify: bool) {
        let holder = self
            .tabs
            .get_mut(&tab_id)
            .and_then(|t| t.lease.take())
            .map(|(s, _)| s);
        self.undo_auto_attach(tab_id);
        // Input of every session on the tab is released, not only the
        // holder's: no other session can hold input there, but a record
        // left by an earlier lease must not outlive the tab.
        self.release_where(|p| p.tab == tab_id, drop);
        if let (Some(sid), true) = (holder, notify) {
            self.effects.push(Effect::Notify(
                sid,
                AgentEvent::ControlRevoked { tab_id, reason },
            ));
        }
    }

    /// `tabs.select`: `shared` says whether the live list has the tab.
    /// Bumps the revision; leaving a tab releases input and the lease
    /// there (`tabSwitched`).
    pub fn select(&mut self, sid: SessionId, conn: ConnId, tab: TabId) -> Result<u64, WireError> {
        self.bound(sid, conn)?;
        if !self.tabs.contains_key(&tab) {
            return Err(err(
                ErrorKind::TabNotShared,
                "that tab is not shared with agents",
            ));
        }
        let s = self.bound_mut(sid, conn)?;
        let old = s.selected.replace(tab);
        s.revision += 1;
        let revision = s.revision;
        if let Some(old) = old.filter(|o| *o != tab) {
            let held = self.tabs.get(&old).and_then(|t| t.lease).map(|(s, _)| s) == Some(sid);
            if held {
                if let Some(t) = self.tabs.get_mut(&old) {
                    t.lease = None;
                }
            }
            self.release_where(|p| p.session == sid && p.tab == old, false);
            if held {
                self.effects.push(Effect::Notify(
                    sid,
                    AgentEvent::ControlRevoked {
                        tab_id: old,
                        reason: RevokeReason::TabSwitched,
                    },
                ));
                self.publish_controllers(false);
            }
        }
        Ok(revision)
    }

    fn selected(&self, sid: SessionId, conn: ConnId) -> Result<(TabId, u64), WireError> {
        let s = self.bound(sid, conn)?;
        let tab = s.selected.ok_or_else(|| {
            err(
                ErrorKind::InvalidRequest,
                "no tab selected: call tabs.select first",
            )
        })?;
        Ok((tab, s.revision))
    }

    /// Whether the person controls `tab`.
    pub fn person_controls(&self, tab: TabId) -> bool {
        self.tabs.get(&tab).is_some_and(|t| t.human)
    }

    /// Whether an agent may see `tab` now: shared, not on a blocked page,
    /// and not under the person's control.
    pub fn agent_may_see(&self, tab: TabId) -> bool {
        self.tabs
            .get(&tab)
            .is_some_and(|t| t.blocked.is_none() && !t.human)
    }

    /// Whether `tab` is shared and not on a blocked page.
    pub fn driveable(&self, tab: TabId) -> bool {
        self.tabs.get(&tab).is_some_and(|t| t.blocked.is_none())
    }

    fn control_error(&self, tab: TabId) -> WireError {
        match self.tabs.get(&tab) {
            None => self.gone_error(tab),
            Some(Tab {
                blocked: Some(b), ..
            }) => b.suspended(tab),
            Some(t) if t.human => err(
                ErrorKind::HumanHasControl,
                "the person has control of this tab",
            ),
            Some(_) => err(
                ErrorKind::NoControl,
                "this session does not hold control of the tab: call control.acquire",
            ),
        }
    }

    /// `control.acquire` on the selected tab.
    pub fn acquire(&mut self, sid: SessionId, conn: ConnId) -> Result<(TabId, u64), WireError> {
        let (tab_id, revision) = self.selected(sid, conn)?;
        let epoch = self.next_epoch;
        let tab = self.tabs.get_mut(&tab_id).ok_or_else(|| {
            err(
                ErrorKind::TabNotShared,
                "the selected tab is no longer shared",
            )
        })?;
        if tab.human || tab.blocked.is_some() {
            return Err(self.control_error(tab_id));
        }
        match tab.lease {
            Some((s, _)) if s == sid => return Ok((tab_id, revision)),
            Some(_) => return Err(err(ErrorKind::NoControl, "another agent controls this tab")),
            None => tab.lease = Some((sid, epoch)),
        }
        self.next_epoch += 1;
        self.publish_controllers(false);
        Ok((tab_id, revision))
    }

    /// `control.release`: releases held input on the tab, then the lease.
    pub fn release_control(&mut self, sid: SessionId, conn: ConnId) -> Result<(), WireError> {
        let (tab_id, _) = self.selected(sid, conn)?;
        self.release_where(|p| p.session == sid && p.tab == tab_id, false);
        if let Some(t) = self.tabs.get_mut(&tab_id) {
            if t.lease.map(|(s, _)| s) == Some(sid) {
                t.lease = None;
                self.publish_controllers(false);
            }
        }
        Ok(())
    }

    // ---- fences ---------------------------------------------------------

    /// Starts an action: checks what it needs and captures its fence.
    pub fn fence(&self, sid: SessionId, conn: ConnId, need: Need) -> Result<Fence, WireError> {
        let fence = self.lease_fence(sid, conn, need)?;
        self.page_in_scope(fence.tab)?;
        Ok(fence)
    }

    /// [`Core::fence`] for taking the tab to `to` (`page.navigate`): the
    /// url must be in the tab's scope, and the page it shows now need not
    /// be, so an agent can leave a page of another site that the person
    /// (or the history) took it to. With no `to` (a history entry not yet
    /// looked up) the caller checks where it goes
    /// ([`Core::url_in_scope`]).
    pub fn fence_to(
        &self,
        sid: SessionId,
        conn: ConnId,
        need: Need,
        to: Option<&str>,
    ) -> Result<Fence, WireError> {
        let fence = self.lease_fence(sid, conn, need)?;
        if let Some(to) = to {
            self.url_in_scope(fence.tab, to)?;
        }
        Ok(fence)
    }

    fn lease_fence(&self, sid: SessionId, conn: ConnId, need: Need) -> Result<Fence, WireError> {
        let (tab, revision) = self.selected(sid, conn)?;
        let mut fence = Fence {
            session: sid,
            conn,
            tab,
            revision,
            lease: None,
            dev: None,
        };
        if need == Need::Privileged {
            if !self.developer_mode {
                return Err(err(
                    ErrorKind::DeveloperModeOff,
                    "developer mode is off: the person can turn it on in the cotab popup",
                ));
            }
            fence.dev = Some(self.dev_epoch);
        }
        if need != Need::Observe {
            match self.tabs.get(&tab) {
                Some(t)
                    if !t.human && t.blocked.is_none() && t.lease.map(|(s, _)| s) == Some(sid) =>
                {
                    fence.lease = t.lease.map(|(_, e)| e);
                }
                _ => return Err(self.control_error(tab)),
            }
        } else if !self.driveable(tab) {
            return Err(self.control_error(tab));
        }
        Ok(fence)
    }

    /// Whether an action that started with `fence` may go on (or publish
    /// its result).
    pub fn check(&self, fence: &Fence) -> Result<(), WireError> {
        let s = self.bound(fence.session, fence.conn)?;
        if s.revision != fence.revision {
            return Err(err(
                ErrorKind::TabChanged,
                "the selected tab changed while the action ran; its result is void",
            ));
        }
        if let Some(dev) = fence.dev {
            if !self.developer_mode || self.dev_epoch != dev {
                return Err(err(
                    ErrorKind::DeveloperModeOff,
                    "developer mode was turned off; the call is void",
                ));
            }
        }
        if let Some(epoch) = fence.lease {
            match self.tabs.get(&fence.tab) {
                Some(t) if !t.human && t.lease == Some((fence.session, epoch)) => {}
                _ => return Err(self.control_error(fence.tab)),
            }
        } else if !self.driveable(fence.tab) {
            return Err(self.control_error(fence.tab));
        }
        Ok(())
    }

    /// Checks `expect.selectionRevision` against the session's revision.
    pub fn check_expected_revision(
        &self,
        fence: &Fence,
        expected: Option<u64>,
    ) -> Result<(), WireError> {
        self.check(fence)?;
        match expected {
            Some(r) if r != fence.revision => Err(err(
                ErrorKind::StateChanged,
                "the selection revision is not the expected one",
            )),
            _ => Ok(()),
        }
    }

    // ---- frames ---------------------------------------------------------

    /// Marks where the tab stands as a capture starts.
    pub fn capture_started(&self, fence: &Fence) -> CaptureMark {
        let t = self.tabs.get(&fence.tab);
        CaptureMark {
            nav: t.map_or(0, |t| t.nav),
            seq: t.map_or(0, |t| t.seq),
        }
    }

    /// Remembers a finished capture and names it.
    pub fn capture_finished(
        &mut self,
        fence: &Fence,
        mark: CaptureMark,
        dpr: f64,
        geometry: FrameGeometry,
    ) -> Result<FrameId, WireError> {
        self.capture_finished_with(
            fence,
            mark,
            CaptureMeta {
                dpr,
                geometry,
                origin: (0.0, 0.0),
                digest: [0; 32],
            },
        )
    }

    /// Remembers a finished capture with its origin and digest, and names
    /// it.
    pub fn capture_finished_with(
        &mut self,
        fence: &Fence,
        mark: CaptureMark,
        meta: CaptureMeta,
    ) -> Result<FrameId, WireError> {
        let CaptureMeta {
            dpr,
            geometry,
            origin,
            digest,
        } = meta;
        self.check(fence)?;
        let id = FrameId(format!("f{}", self.next_frame));
        self.next_frame += 1;
        let s = self.bound_mut(fence.session, fence.conn)?;
        s.frames.push_back(Frame {
            id: id.clone(),
            tab: fence.tab,
            dpr,
            geometry,
            origin,
            digest,
            nav: mark.nav,
            seq: mark.seq,
        });
        while s.frames.len() > MAX_FRAMES_PER_SESSION {
            s.frames.pop_front();
        }
        Ok(id)
    }

    /// The frame coordinate input aims at: `id`, or the session's latest
    /// frame of the selected tab. `STALE_FRAME` when there is none, it is
    /// of another tab, the tab navigated since, or someone else acted on it
    /// since. The live viewport is the caller's to compare
    /// ([`FrameGeometry::matches`]: the daemon before a press, the
    /// extension with other input).
    pub fn frame_for(&self, fence: &Fence, id: Option<&FrameId>) -> Result<Frame, WireError> {
        self.check(fence)?;
        let s = self.bound(fence.session, fence.conn)?;
        let frame = match id {
            Some(id) => s.frames.iter().rev().find(|f| &f.id == id),
            None => s.frames.iter().rev().find(|f| f.tab == fence.tab),
        }
        .ok_or_else(stale)?;
        if frame.tab != fence.tab {
            return Err(stale());
        }
        let tab = self.tabs.get(&fence.tab).ok_or_else(stale)?;
        if tab.nav != frame.nav {
            return Err(stale());
        }
        let me = Actor::Agent(fence.session);
        if tab
            .last_input
            .iter()
            .any(|(who, at)| *who != me && *at > frame.seq)
        {
            return Err(stale());
        }
        Ok(frame.clone())
    }

    // ---- input ----------------------------------------------------------

    /// A navigation mark never used before (see [`Tab`]'s `nav`).
    fn fresh_nav(&mut self) -> u64 {
        self.nav_clock += 1;
        self.nav_clock
    }

    fn mark_input(&mut self, tab: TabId, who: Actor) {
        if let Some(t) = self.tabs.get_mut(&tab) {
            t.seq += 1;
            let at = t.seq;
            t.last_input.insert(who, at);
        }
    }

    /// Input that holds nothing (text, a move): checks the fence and marks
    /// the tab as acted on by this session.
    pub fn input(&mut self, fence: &Fence) -> Result<(), WireError> {
        self.check(fence)?;
        self.mark_input(fence.tab, Actor::Agent(fence.session));
        Ok(())
    }
}
