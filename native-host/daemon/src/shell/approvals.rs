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
use crate::session::SessionId;
use cotab_shared::controller::AgentEvent;
use cotab_shared::native::{Holder, HostToExtension, TabControl};
use cotab_shared::watch::{ApprovalFrame, PendingApproval, TabAskBefore, MAX_APPROVAL_FRAMES};
use cotab_shared::{ErrorKind, TabId, WireError};
use std::time::Instant;
use tokio::sync::oneshot;

/// The requests waiting for the person.
#[derive(Debug)]
pub(crate) struct Approvals {
    next: u64,
    pending: Vec<Waiting>,
    /// The tabs the extension was last told a request waits in.
    told: Vec<TabId>,
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
            told: Vec::new(),
        }
    }
}

#[derive(Debug)]
struct Waiting {
    /// What the person is shown, without its picture.
    shown: PendingApproval,
    /// The picture, once taken.
    frame: Option<ApprovalFrame>,
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
    /// When it is refused unanswered.
    pub(crate) until: tokio::time::Instant,
}

impl Asking<'_> {
    /// Its number, as the person's answer names it.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }
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
            self.shell.on_approvals_changed();
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
                frame: shown.frame.take(),
                shown,
                until: Instant::now() + self.approval_wait,
                answer: tx,
            });
            a.next
        };
        self.on_approvals_changed();
        Asking {
            shell: self,
            id,
            answer: rx,
            until: tokio::time::Instant::now() + self.approval_wait,
        }
    }

    /// [`Shell::ask_person`] for a request of session `sid`, which is told
    /// it waits (`approval.pending`, with the time the person has).
    pub(crate) fn ask_for(&self, sid: SessionId, shown: PendingApproval) -> Asking<'_> {
        let told = AgentEvent::ApprovalPending {
            tab_id: shown.tab,
            ask: shown.ask,
            what: shown.what.clone(),
            wait_ms: u64::try_from(self.approval_wait.as_millis()).unwrap_or(u64::MAX),
        };
        let asking = self.ask_person(shown);
        self.with_core(|c| c.notify(sid, told));
        asking
    }

    /// The requests waiting changed: the watches are told, and the
    /// extension too when the tabs they wait in changed (its badge says
    /// `ASK` there: a cue while no side panel is open).
    fn on_approvals_changed(&self) {
        self.approvals_changed.send_modify(|n| *n += 1);
        let changed = {
            let mut a = self.approvals_lock();
            let mut now: Vec<TabId> = a.pending.iter().filter_map(|w| w.shown.tab).collect();
            now.sort_unstable();
            now.dedup();
            (a.told != now).then(|| a.told = now).is_some()
        };
        if changed {
            self.tell_controllers();
        }
    }

    /// Tells the extension again who controls each shared tab, which wait
    /// for the person and which are recorded (its badges).
    pub(crate) fn tell_controllers(&self) {
        let tabs = self.with_core(|c| c.controllers());
        self.send_controllers(tabs);
    }

    /// Sends `tabs`, who controls each shared tab, with the agents that
    /// wait for the person marked and the tabs recorded.
    pub(crate) fn send_controllers(&self, mut tabs: Vec<TabControl>) {
        self.mark_waiting(&mut tabs);
        self.lane.send_oneway(&HostToExtension::Controllers {
            tabs,
            recorded: self.videos.tabs(),
        });
    }

    /// Marks the agents of `tabs` that a request of theirs waits in for
    /// the person's yes, as the extension is told who controls each tab.
    pub(crate) fn mark_waiting(&self, tabs: &mut [TabControl]) {
        let a = self.approvals_lock();
        for t in tabs {
            if let Holder::Agent { waiting, .. } = &mut t.holder {
                *waiting = a.pending.iter().any(|w| w.shown.tab == Some(t.tab_id));
            }
        }
    }

    /// Every request waiting for the person, with the time each has left
    /// and its picture, the first asked first while their pictures fit in
    /// [`MAX_APPROVAL_FRAMES`].
    pub(crate) fn pending_approvals(&self) -> Vec<PendingApproval> {
        let now = Instant::now();
        let mut room = MAX_APPROVAL_FRAMES;
        self.approvals_lock()
            .pending
            .iter()
            .map(|w| {
                let frame = w.frame.as_ref().filter(|f| f.jpeg.len() <= room);
                room -= frame.map_or(0, |f| f.jpeg.len());
                PendingApproval {
                    left_ms: u64::try_from(w.until.saturating_duration_since(now).as_millis())
                        .unwrap_or(u64::MAX),
                    frame: frame.cloned(),
                    ..w.shown.clone()
                }
            })
            .collect()
    }

    /// The picture of the tab request `id` waits in, taken: shown with it
    /// if it still waits.
    pub(crate) fn frame_approval(&self, id: u64, frame: ApprovalFrame) {
        let shown = {
            let mut a = self.approvals_lock();
            let waiting = a.pending.iter_mut().find(|w| w.shown.id == id);
            waiting.map(|w| w.frame = Some(frame)).is_some()
        };
        if shown {
            self.approvals_changed.send_modify(|n| *n += 1);
        }
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
        self.on_approvals_changed();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broker::CoreConfig;
    use cotab_shared::watch::AskBefore;
    use std::time::Duration;

    fn waiting(shell: &Shell) -> Asking<'_> {
        shell.ask_person(PendingApproval {
            id: 0,
            agent: "ada".into(),
            tab: None,
            ask: AskBefore::Step,
            what: "click".into(),
            text: None,
            left_ms: 0,
            frame: None,
        })
    }

    fn frame(kib: usize) -> ApprovalFrame {
        ApprovalFrame {
            jpeg: "A".repeat(kib * 1024),
            width: 50,
            height: 25,
            mark: None,
        }
    }

    /// The size in KiB of each picture shown.
    fn shown(shell: &Shell) -> Vec<Option<usize>> {
        shell
            .pending_approvals()
            .iter()
            .map(|p| p.frame.as_ref().map(|f| f.jpeg.len() / 1024))
            .collect()
    }

    #[tokio::test]
    async fn the_pictures_of_requests_waiting_fit_one_message_the_first_asked_first() {
        let shell = Shell::new(Duration::from_secs(5), CoreConfig::default());
        let (a, b, c) = (waiting(&shell), waiting(&shell), waiting(&shell));
        shell.frame_approval(b.id(), frame(300));
        shell.frame_approval(a.id(), frame(100));
        shell.frame_approval(c.id(), frame(100));
        // 384 KiB in all: the second's does not fit beside the first's.
        assert_eq!(shown(&shell), [Some(100), None, Some(100)]);
        let gone = a.id();
        drop(a);
        assert_eq!(shown(&shell), [Some(300), None]);
        // A picture of a request no longer waiting is dropped, and the
        // watches are not told.
        let told = *shell.approvals_changed.borrow();
        shell.frame_approval(gone, frame(1));
        assert_eq!(*shell.approvals_changed.borrow(), told);
        assert_eq!(shown(&shell), [Some(300), None]);
        drop((b, c));
        assert!(shell.pending_approvals().is_empty());
    }
}
