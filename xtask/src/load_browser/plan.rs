//! Who does what in a `load-browser` run ([`plan`]), the operations
//! each session cycles through, and the ledger of requests outstanding
//! on a connection.

use super::{AGENTS, CONTROLLED_PER_AGENT, CONTROLLER_DEPTH, OBSERVER_DEPTH, TABS_PER_AGENT};
use cotab_shared::controller::{
    Acquire, Capture, Click, Hello, Method, MouseMove, Press, Snapshot, TabsSelect,
};
use std::collections::{HashMap, HashSet};

/// What a session does on its tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// Holds the tab's lease; captures, snapshots and acts.
    Controller,
    /// Captures and snapshots only.
    Observer,
}

impl Role {
    /// The requests of the load, in the order the session repeats them.
    pub(super) fn cycle(self) -> &'static [Op] {
        match self {
            Role::Controller => &[
                Op::Capture,
                Op::Click,
                Op::Snapshot,
                Op::MouseMove,
                Op::Capture,
                Op::Press,
                Op::Snapshot,
            ],
            Role::Observer => &[Op::Capture, Op::Snapshot],
        }
    }

    pub(super) fn depth(self) -> usize {
        match self {
            Role::Controller => CONTROLLER_DEPTH,
            Role::Observer => OBSERVER_DEPTH,
        }
    }
}

/// One (agent, tab) pair: a connection with its own session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Slot {
    pub(super) agent: usize,
    /// Index into the shared tabs.
    pub(super) tab: usize,
    pub(super) role: Role,
}

/// Who works on what: agent `a` controls tabs `2a` and `2a + 1` and
/// observes the two tabs agent `a + 1` (mod 8) controls.
pub(super) fn plan() -> Vec<Slot> {
    let mut slots = Vec::with_capacity(AGENTS * TABS_PER_AGENT);
    for agent in 0..AGENTS {
        let next = (agent + 1) % AGENTS;
        for k in 0..CONTROLLED_PER_AGENT {
            slots.push(Slot {
                agent,
                tab: agent * CONTROLLED_PER_AGENT + k,
                role: Role::Controller,
            });
            slots.push(Slot {
                agent,
                tab: next * CONTROLLED_PER_AGENT + k,
                role: Role::Observer,
            });
        }
    }
    slots
}

/// The methods the run sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Op {
    Hello,
    Select,
    Acquire,
    Capture,
    Snapshot,
    Click,
    MouseMove,
    Press,
}

impl Op {
    pub(super) fn method(self) -> &'static str {
        match self {
            Op::Hello => Hello::NAME,
            Op::Select => TabsSelect::NAME,
            Op::Acquire => Acquire::NAME,
            Op::Capture => Capture::NAME,
            Op::Snapshot => Snapshot::NAME,
            Op::Click => Click::NAME,
            Op::MouseMove => MouseMove::NAME,
            Op::Press => Press::NAME,
        }
    }

    pub(super) fn is_input(self) -> bool {
        matches!(self, Op::Click | Op::MouseMove | Op::Press)
    }

    /// Input the fixture page records (a click: mousedown and mouseup; a
    /// press: keydown and keyup; a move records nothing).
    pub(super) fn recorded_events(self) -> usize {
        match self {
            Op::Click | Op::Press => 2,
            _ => 0,
        }
    }
}

/// Why an answer does not fit the requests sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum LedgerError {
    /// A second answer for a request already answered.
    Duplicate(i64),
    /// An answer for an id never sent.
    Unknown(i64),
    /// An id sent twice (a bug of the run itself).
    Reused(i64),
}

impl std::fmt::Display for LedgerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LedgerError::Duplicate(id) => write!(f, "a second answer for id {id}"),
            LedgerError::Unknown(id) => write!(f, "an answer for id {id}, which was never sent"),
            LedgerError::Reused(id) => write!(f, "id {id} sent twice"),
        }
    }
}

/// The exactly-once bookkeeping of one connection: what is outstanding,
/// and every id already answered.
#[derive(Debug)]
pub(super) struct Ledger<T> {
    outstanding: HashMap<i64, T>,
    answered: HashSet<i64>,
}

impl<T> Default for Ledger<T> {
    fn default() -> Self {
        Ledger {
            outstanding: HashMap::new(),
            answered: HashSet::new(),
        }
    }
}

impl<T> Ledger<T> {
    /// Records request `id` as sent.
    pub(super) fn sent(&mut self, id: i64, entry: T) -> Result<(), LedgerError> {
        if self.answered.contains(&id) || self.outstanding.contains_key(&id) {
            return Err(LedgerError::Reused(id));
        }
        self.outstanding.insert(id, entry);
        Ok(())
    }

    /// Takes the request an answer for `id` belongs to.
    pub(super) fn answered(&mut self, id: i64) -> Result<T, LedgerError> {
        match self.outstanding.remove(&id) {
            Some(entry) => {
                self.answered.insert(id);
                Ok(entry)
            }
            None if self.answered.contains(&id) => Err(LedgerError::Duplicate(id)),
            None => Err(LedgerError::Unknown(id)),
        }
    }

    /// Requests still waiting for their answer.
    pub(super) fn outstanding(&self) -> usize {
        self.outstanding.len()
    }
}
