//! Agent sessions: tickets and bindings, with no I/O and time passed in.
//!
//! A session is created by `session.hello`, which mints its ticket. It is
//! *bound* while a connection holds it and *unbound* once that connection
//! closes; an unbound session can be resumed with its ticket until
//! [`UNBOUND_TICKET_TTL_MS`] passes, and at most [`MAX_UNBOUND_TICKETS`]
//! unbound sessions are kept (the oldest go first). `session.bye` revokes a
//! ticket at once.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use cotab_shared::limits::{MAX_UNBOUND_TICKETS, UNBOUND_TICKET_TTL_MS};
use cotab_shared::{TabId, Ticket};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Identity of one agent connection inside the daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ConnId(pub u64);

/// Identity of one session inside the daemon (never sent to agents).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SessionId(u64);

/// What the daemon remembers for one agent.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    /// The agent's name from `session.hello`.
    pub agent: String,
    /// The tab actions go to.
    pub selected: Option<TabId>,
    /// Bumped at every selection change.
    pub selection_revision: u64,
    /// Device pixel ratio seen by the last capture, for click coordinates.
    pub device_pixel_ratio: Option<f64>,
}

#[derive(Debug)]
struct Entry {
    ticket: Ticket,
    binding: Binding,
    /// The connection holding the session, or when it was let go.
    holder: Holder,
}

#[derive(Debug, Clone, Copy)]
enum Holder {
    Bound(ConnId),
    Unbound(Instant),
}

/// Mints a ticket: 16 random bytes, base64url without padding.
pub fn mint_ticket() -> Result<Ticket, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(Ticket(URL_SAFE_NO_PAD.encode(bytes)))
}

/// Compares two byte strings in time that depends only on their lengths.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Every session of the daemon.
#[derive(Debug)]
pub struct Sessions {
    entries: HashMap<SessionId, Entry>,
    next: u64,
    ttl: Duration,
    max_unbound: usize,
}

impl Default for Sessions {
    fn default() -> Self {
        Sessions::new(
            Duration::from_millis(UNBOUND_TICKET_TTL_MS),
            MAX_UNBOUND_TICKETS,
        )
    }
}

impl Sessions {
    /// A registry with the given unbound TTL and cap.
    pub fn new(ttl: Duration, max_unbound: usize) -> Self {
        Sessions {
            entries: HashMap::new(),
            next: 1,
            ttl,
            max_unbound,
        }
    }

    /// Creates a session for `agent`, bound to `conn`, with `ticket`.
    pub fn create(&mut self, agent: String, ticket: Ticket, conn: ConnId) -> SessionId {
        let id = SessionId(self.next);
        self.next += 1;
        self.entries.insert(
            id,
            Entry {
                ticket,
                binding: Binding {
                    agent,
                    selected: None,
                    selection_revision: 0,
                    device_pixel_ratio: None,
                },
                holder: Holder::Bound(conn),
            },
        );
        id
    }

    /// Binds the session holding `ticket` to `conn`, taking it from any
    /// connection that held it. Every ticket is compared, in constant time,
    /// so the time taken says nothing about which one matched.
    pub fn resume(&mut self, ticket: &Ticket, conn: ConnId, now: Instant) -> Option<SessionId> {
        self.expire(now);
        let mut found = None;
        for (id, e) in &self.entries {
            if constant_time_eq(e.ticket.0.as_bytes(), ticket.0.as_bytes()) {
                found = Some(*id);
            }
        }
        let id = found?;
        if let Some(e) = self.entries.get_mut(&id) {
            e.holder = Holder::Bound(conn);
        }
        Some(id)
    }

    /// The binding of `id` if `conn` holds it.
    pub fn binding_mut(&mut self, id: SessionId, conn: ConnId) -> Option<&mut Binding> {
        match self.entries.get_mut(&id) {
            Some(e) if matches!(e.holder, Holder::Bound(c) if c == conn) => Some(&mut e.binding),
            _ => None,
        }
    }

    /// Lets `conn` go of `id` (its connection closed); the session stays
    /// resumable until its TTL.
    pub fn unbind(&mut self, id: SessionId, conn: ConnId, now: Instant) {
        if let Some(e) = self.entries.get_mut(&id) {
            if matches!(e.holder, Holder::Bound(c) if c == conn) {
                e.holder = Holder::Unbound(now);
            }
        }
        self.expire(now);
    }

    /// Revokes `id` if `conn` holds it.
    pub fn revoke(&mut self, id: SessionId, conn: ConnId) -> bool {
        if self.binding_mut(id, conn).is_some() {
            self.entries.remove(&id);
            true
        } else {
            false
        }
    }

    /// Drops unbound sessions past their TTL, then the oldest unbound ones
    /// past the cap.
    pub fn expire(&mut self, now: Instant) {
        let ttl = self.ttl;
        self.entries.retain(|_, e| match e.holder {
            Holder::Unbound(since) => now.saturating_duration_since(since) < ttl,
            Holder::Bound(_) => true,
        });
        let mut unbound: Vec<(Instant, SessionId)> = self
            .entries
            .iter()
            .filter_map(|(id, e)| match e.holder {
                Holder::Unbound(since) => Some((since, *id)),
                Holder::Bound(_) => None,
            })
            .collect();
        if unbound.len() > self.max_unbound {
            unbound.sort_by_key(|(since, id)| (*since, id.0));
            let excess = unbound.len() - self.max_unbound;
            for (_, id) in unbound.into_iter().take(excess) {
                self.entries.remove(&id);
            }
        }
    }

    /// Number of sessions (bound and unbound).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there is no session.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: ConnId = ConnId(1);
    const B: ConnId = ConnId(2);

    #[test]
    fn tickets_are_128_bit_base64url() {
        let t = mint_ticket().expect("random");
        assert_eq!(t.0.len(), 22);
        assert!(t
            .0
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
        assert_ne!(t, mint_ticket().expect("random"));
        assert_eq!(format!("{t:?}"), "Ticket(…)");
    }

    #[test]
    fn constant_time_compare() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
        assert!(constant_time_eq(b"", b""));
    }

    #[test]
    fn resume_moves_the_session_between_connections() {
        let now = Instant::now();
        let mut s = Sessions::default();
        let t = Ticket("t1".into());
        let id = s.create("agent".into(), t.clone(), A);
        s.binding_mut(id, A).expect("bound").selected = Some(TabId(5));
        s.unbind(id, A, now);
        assert!(s.binding_mut(id, A).is_none());
        assert_eq!(s.resume(&t, B, now), Some(id));
        assert_eq!(
            s.binding_mut(id, B).expect("bound").selected,
            Some(TabId(5))
        );
        assert_eq!(s.resume(&Ticket("t2".into()), B, now), None);
        // Resuming elsewhere takes it away from B.
        assert_eq!(s.resume(&t, A, now), Some(id));
        assert!(s.binding_mut(id, B).is_none());
    }

    #[test]
    fn unbound_sessions_expire_and_are_capped() {
        let now = Instant::now();
        let mut s = Sessions::new(Duration::from_secs(10), 2);
        let t: Vec<Ticket> = (0..3).map(|i| Ticket(format!("t{i}"))).collect();
        let ids: Vec<SessionId> = t
            .iter()
            .map(|t| s.create("a".into(), t.clone(), A))
            .collect();
        for (i, id) in ids.iter().enumerate() {
            s.unbind(*id, A, now + Duration::from_secs(i as u64));
        }
        assert_eq!(s.len(), 2, "the oldest unbound session was evicted");
        let later = now + Duration::from_secs(3);
        assert_eq!(s.resume(&t[0], B, later), None);
        assert_eq!(s.resume(&t[1], B, later), Some(ids[1]));
        let much_later = now + Duration::from_secs(30);
        assert_eq!(s.resume(&t[2], B, much_later), None, "expired");
        assert!(
            s.binding_mut(ids[1], B).is_some(),
            "bound sessions never expire"
        );
    }

    #[test]
    fn revoke_needs_the_holder() {
        let mut s = Sessions::default();
        let t = Ticket("t".into());
        let id = s.create("a".into(), t.clone(), A);
        assert!(!s.revoke(id, B));
        assert!(s.revoke(id, A));
        assert_eq!(s.resume(&t, A, Instant::now()), None);
        assert!(s.is_empty());
    }
}
