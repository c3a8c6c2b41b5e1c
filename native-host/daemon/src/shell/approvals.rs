//! Agent requests waiting for the person's yes ([`crate::approvals`]):
//! each one pending with the way to answer it, what the person changes
//! of what a tab asks before, and their answers from the side panel's
//! watch.
//!
//! A request waits here, and nothing of it has reached the page, until
//! the person answers, the lease it needs ends (a takeover, an unshare:
//! [`Shell::leases_changed`] wakes it), its wait runs out or the agent
//! goes; each of those but a yes refuses it. So an approval never
//! outlives its request or its lease, and nothing goes through when
//! nobody answers.

use super::Shell;
use cotab_shared::watch::{PendingApproval, TabAskBefore};
use cotab_shared::{ErrorKind, WireError};
use std::time::Instant;
use tokio::sync::oneshot;

/// The requests waiting for the person.
#[derive(Debug)]
pub(crate) struct Approvals {
    next: u64,
    pending: Vec<Waiting>,
}

impl Default for Approvals {
    /// Numbers start from the clock, so an answer meant for a request of
    /// an earlier daemon (a panel that did not hear of the restart yet)
    /// names no request of this one.
    fn default() -> Self {
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(0));
        Approvals {
            next: ms.saturating_mul(1_000),
            pending: Vec::new(),
        }
    }
}

#[derive(Debug)]
struct Waiting {
    shown: PendingApproval,
    until: Instant,
    answer: oneshot::Sender<bool>,
}

/// A request's place among those waiting: while alive it is shown to the
/// person; dropped (answered, voided, or its agent gone) it is not.
pub(crate) struct Asking<'a> {
    shell: &'a Shell,
    id: u64,
    /// The person's answer.
    pub(crate) answer: oneshot::Receiver<bool>,
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        let removed = {
            let mut a = self.shell.approvals_lock();
            let before = a.pending.len();
            a.pending.retain(|w| w.shown.id != self.id);
            a.pending.len() != before
        };
        if removed {
            self.shell.approvals_changed.send_modify(|n| *n += 1);
        }
    }
}

impl Shell {
    fn approvals_lock(&self) -> std::sync::MutexGuard<'_, Approvals> {
        self.approvals.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Shows the person `shown` (its `id` is given here) until the
    /// returned place drops; the person's answer comes on it.
    pub(crate) fn ask_person(&self, mut shown: PendingApproval) -> Asking<'_> {
        let (tx, rx) = oneshot::channel();
        let id = {
            let mut a = self.approvals_lock();
            a.next += 1;
            shown.id = a.next;
            a.pending.push(Waiting {
                shown,
                until: Instant::now() + self.approval_wait,
                answer: tx,
            });
            a.next
        };
        self.approvals_changed.send_modify(|n| *n += 1);
        Asking {
            shell: self,
            id,
            answer: rx,
        }
    }

    /// Every request waiting for the person, with the time each has left.
    pub(crate) fn pending_approvals(&self) -> Vec<PendingApproval> {
        let now = Instant::now();
        self.approvals_lock()
            .pending
            .iter()
            .map(|w| PendingApproval {
                left_ms: u64::try_from(w.until.saturating_duration_since(now).as_millis())
                    .unwrap_or(u64::MAX),
                ..w.shown.clone()
            })
            .collect()
    }

    /// The person answered request `id` (from the side panel's watch).
    /// One no longer waiting (answered, voided, gone) is a clear error
    /// that changes nothing.
    pub(crate) fn answer_approval(&self, id: u64, approve: bool) -> Result<(), WireError> {
        let waiting = {
            let mut a = self.approvals_lock();
            let at = a.pending.iter().position(|w| w.shown.id == id);
            at.map(|i| a.pending.remove(i))
        };
        let Some(waiting) = waiting else {
            return Err(WireError::new(
                ErrorKind::InvalidRequest,
                format!("no request {id} is waiting for an answer"),
            ));
        };
        tracing::info!(
            id,
            tab = ?waiting.shown.tab,
            ask = waiting.shown.ask.as_str(),
            approve,
            "the person answered an agent's request"
        );
        // Its request may have ended meanwhile: then nobody reads it.
        let _ = waiting.answer.send(approve);
        self.approvals_changed.send_modify(|n| *n += 1);
        Ok(())
    }

    /// The person turned asking before something in a tab on or off.
    pub(crate) fn change_ask_before(&self, change: &TabAskBefore) -> Result<(), WireError> {
        self.with_core(|c| c.set_ask_before(change.tab, change.what, change.on))?;
        tracing::info!(
            tab = %change.tab,
            what = change.what.as_str(),
            on = change.on,
            "the person changed what a tab asks before"
        );
        Ok(())
    }
}
