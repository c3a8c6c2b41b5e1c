//! Sessions and tickets: `session.hello` (with how long a session keeps
//! its leases once unbound), `session.resume`, `session.bye`, and the
//! clock's part — what an unbound session loses, and when ([`Core::tick`]).

use super::{no_session, page, Core, Effect, Frame};
use crate::session::{constant_time_eq, ConnId, SessionId};
use cotab_shared::controller::{AgentEvent, RevokeReason};
use cotab_shared::held::State;
use cotab_shared::{TabId, Ticket, WireError};
use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

/// A session's agent connection: the one it is bound to, or since when
/// it has had none (it keeps its held input for the resume grace, its
/// leases for its `keep_control`, and is resumable until its TTL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Connection {
    /// Bound to this connection.
    Bound(ConnId),
    /// Unbound since; what of its authority has lapsed so far.
    Unbound { since: Instant, lapsed: Lapsed },
}

/// What an unbound session has lost so far, in the order it loses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Lapsed {
    /// Nothing yet: it is within its resume grace.
    Nothing,
    /// Its held input was released (the grace ran out); it keeps its
    /// leases for its `keep_control`.
    Input,
    /// Its held input and its leases.
    Control,
}

#[derive(Debug)]
pub(super) struct Session {
    pub(super) ticket: Ticket,
    pub(super) agent: String,
    /// The agent's word that its sessions are one program
    /// (`session.hello`'s `group`).
    pub(super) group: Option<String>,
    pub(super) connection: Connection,
    /// How long its leases outlive its connection (at least the resume
    /// grace).
    pub(super) keep_control: Duration,
    pub(super) selected: Option<TabId>,
    pub(super) revision: u64,
    pub(super) frames: VecDeque<Frame>,
    /// The number of the next element ref (`e1`, `e2`, …): unique over
    /// the session's life.
    pub(super) next_ref: u64,
    /// The latest snapshot of each tab; only its refs are valid.
    pub(super) snapshots: BTreeMap<TabId, page::Snapshot>,
    /// The tab whose CDP events it asked for (`cdp.events`), with the
    /// developer-mode epoch of then ([`Core::cdp_event_conns`]).
    pub(super) events: Option<(TabId, u64)>,
}

impl Core {
    /// `session.hello`: a new session bound to `conn`, whose leases
    /// outlive its connection for the resume grace.
    pub fn hello(&mut self, conn: ConnId, agent: String, ticket: Ticket) -> SessionId {
        self.hello_keeping(conn, agent, ticket, Duration::ZERO, None)
    }

    /// [`Core::hello`] of a session whose leases outlive its connection for
    /// `keep_control` (the resume grace if that is longer).
    /// `group`: sessions of one agent with the same group are named once
    /// to the person ([`Core::connected_agents`]).
    pub fn hello_keeping(
        &mut self,
        conn: ConnId,
        agent: String,
        ticket: Ticket,
        keep_control: Duration,
        group: Option<String>,
    ) -> SessionId {
        let id = SessionId(self.next_session);
        self.next_session += 1;
        self.sessions.insert(
            id,
            Session {
                ticket,
                agent,
                group,
                connection: Connection::Bound(conn),
                keep_control,
                selected: None,
                revision: 0,
                frames: VecDeque::new(),
                next_ref: 1,
                snapshots: BTreeMap::new(),
                events: None,
            },
        );
        self.publish_agents(false);
        id
    }

    /// `session.resume`: binds the session holding `ticket` to `conn`,
    /// taking it from any connection that held it. Every ticket is compared
    /// in constant time.
    pub fn resume(&mut self, conn: ConnId, ticket: &Ticket, now: Instant) -> Option<SessionId> {
        self.tick(now);
        let mut found = None;
        for (id, s) in &self.sessions {
            if constant_time_eq(s.ticket.0.as_bytes(), ticket.0.as_bytes()) {
                found = Some(*id);
            }
        }
        let id = found?;
        if let Some(s) = self.sessions.get_mut(&id) {
            s.connection = Connection::Bound(conn);
        }
        self.publish_agents(false);
        Some(id)
    }

    pub(super) fn bound(&self, sid: SessionId, conn: ConnId) -> Result<&Session, WireError> {
        match self.sessions.get(&sid) {
            Some(s) if s.connection == Connection::Bound(conn) => Ok(s),
            _ => Err(no_session()),
        }
    }

    pub(super) fn bound_mut(
        &mut self,
        sid: SessionId,
        conn: ConnId,
    ) -> Result<&mut Session, WireError> {
        match self.sessions.get_mut(&sid) {
            Some(s) if s.connection == Connection::Bound(conn) => Ok(s),
            _ => Err(no_session()),
        }
    }

    /// Whether `sid` is bound to `conn` (a session resumed elsewhere is no
    /// longer the old connection's).
    pub fn is_bound(&self, sid: SessionId, conn: ConnId) -> bool {
        self.bound(sid, conn).is_ok()
    }

    /// The selected tab and revision of a bound session.
    pub fn selection(
        &self,
        sid: SessionId,
        conn: ConnId,
    ) -> Result<(Option<TabId>, u64), WireError> {
        self.bound(sid, conn).map(|s| (s.selected, s.revision))
    }

    /// Every session, resumable ones too.
    pub fn session_ids(&self) -> Vec<SessionId> {
        self.sessions.keys().copied().collect()
    }

    /// The agent name session `sid` said hello with.
    pub fn agent_of(&self, sid: SessionId) -> Option<&str> {
        self.sessions.get(&sid).map(|s| s.agent.as_str())
    }

    /// `conn` closed: the session stays resumable; it keeps its held input
    /// for the resume grace and its leases for the longer of that and its
    /// `keep_control`.
    pub fn unbind(&mut self, sid: SessionId, conn: ConnId, now: Instant) {
        if let Some(s) = self.sessions.get_mut(&sid) {
            if s.connection == Connection::Bound(conn) {
                s.connection = Connection::Unbound {
                    since: now,
                    lapsed: Lapsed::Nothing,
                };
            }
        }
        self.tick(now);
    }

    /// `session.bye`: revokes the ticket at once.
    pub fn bye(&mut self, sid: SessionId, conn: ConnId) -> bool {
        if self.bound(sid, conn).is_err() {
            return false;
        }
        self.remove_session(sid, RevokeReason::SessionEnded);
        self.publish_agents(false);
        true
    }

    /// Removes a session: credentials first, then cleanup.
    pub(super) fn remove_session(&mut self, sid: SessionId, reason: RevokeReason) {
        self.sessions.remove(&sid);
        self.revoke_session_control(sid, reason);
        // Tombstones of a removed session can never be acknowledged.
        self.held
            .retain(|p| p.owner.session != sid || p.state != State::Released);
    }

    /// Expires resume graces (input released), kept control (leases
    /// revoked) and unbound TTLs (session removed), then the oldest unbound
    /// sessions past the cap.
    pub fn tick(&mut self, now: Instant) {
        let grace = self.config.resume_grace;
        let ttl = self.config.ticket_ttl;
        let mut lapsing = Vec::new();
        let mut expired = Vec::new();
        for (id, s) in &mut self.sessions {
            if let Connection::Unbound { since, lapsed } = &mut s.connection {
                let age = now.saturating_duration_since(*since);
                let due = if age >= ttl {
                    expired.push(*id);
                    continue;
                } else if age >= grace.max(s.keep_control) {
                    Lapsed::Control
                } else if age >= grace {
                    Lapsed::Input
                } else {
                    Lapsed::Nothing
                };
                if due > *lapsed {
                    *lapsed = due;
                    lapsing.push((*id, due));
                }
            }
        }
        for (id, due) in lapsing {
            match due {
                Lapsed::Control => self.revoke_session_control(id, RevokeReason::Disconnected),
                Lapsed::Input => self.release_where(|p| p.session == id, false),
                Lapsed::Nothing => {}
            }
        }
        for id in expired {
            self.remove_session(id, RevokeReason::Disconnected);
        }
        let mut unbound: Vec<(Instant, SessionId)> = self
            .sessions
            .iter()
            .filter_map(|(id, s)| match s.connection {
                Connection::Unbound { since, .. } => Some((since, *id)),
                Connection::Bound(_) => None,
            })
            .collect();
        if unbound.len() > self.config.max_unbound {
            unbound.sort();
            let excess = unbound.len() - self.config.max_unbound;
            for (_, id) in unbound.into_iter().take(excess) {
                self.remove_session(id, RevokeReason::Disconnected);
            }
        }
        // An unbound session is no longer a connected agent.
        self.publish_agents(false);
    }

    /// The names of the agents connected now (sessions bound to a
    /// connection), sorted, one per session, but one for the sessions of
    /// an agent that share a group.
    pub fn connected_agents(&self) -> Vec<String> {
        let mut seen: Vec<(&str, &str)> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for s in self.sessions.values() {
            if !matches!(s.connection, Connection::Bound(_)) {
                continue;
            }
            if let Some(group) = &s.group {
                if seen.contains(&(s.agent.as_str(), group.as_str())) {
                    continue;
                }
                seen.push((&s.agent, group));
            }
            names.push(s.agent.clone());
        }
        names.sort();
        names
    }

    /// Number of sessions (bound and unbound).
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }

    /// Tells `event` to every session that has `tab` selected.
    pub(super) fn notify_selecting(&mut self, tab: TabId, event: AgentEvent) {
        let watchers: Vec<SessionId> = self
            .sessions
            .iter()
            .filter(|(_, s)| s.selected == Some(tab))
            .map(|(id, _)| *id)
            .collect();
        for sid in watchers {
            self.effects.push(Effect::Notify(sid, event.clone()));
        }
    }
}
