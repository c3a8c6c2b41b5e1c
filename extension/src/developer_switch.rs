//! The developer-mode switch as the worker holds it, and its rules,
//! without browser APIs: what the worker knows of the switch (nothing
//! before its first read of `chrome.storage.local`), what a change means,
//! how a storage notice is judged while the worker's own writes are on
//! their way ([`crate::control::switch_notice`]), the epoch a privileged
//! command compares to tell that developer mode went off while it waited,
//! and the re-attach that turning it off runs: one at a time, once more
//! over every tab when asked again meanwhile, with a gate commands wait on
//! until it ends.

use crate::control::{switch_notice, SwitchNotice};
use crate::state::Gate;

/// What a change of the switch asks of the worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turned {
    /// On. `tell`: tell the host now; when a re-attach runs, it tells the
    /// host what it finds once it ends instead.
    On {
        /// Whether to tell the host now.
        tell: bool,
    },
    /// Off: fail the privileged commands in flight and re-attach every
    /// shared tab ([`DeveloperSwitch::begin_reattach`]).
    Off,
}

/// The switch and its re-attach.
#[derive(Debug, Default)]
pub struct DeveloperSwitch {
    /// The switch as the worker knows it; `None` before the first read.
    known: Option<bool>,
    /// Bumped at every change to off.
    off_epoch: u64,
    /// The worker's own writes of the switch still on their way.
    writes: u32,
    /// The running re-attach's gate, opened when it ends.
    reattach: Option<Gate>,
    /// How many re-attach rounds have started.
    rounds: u64,
    /// Asked again while it ran: it goes over every tab once more.
    again: bool,
}

impl DeveloperSwitch {
    /// The switch as known, `None` before the first read.
    pub fn known(&self) -> Option<bool> {
        self.known
    }

    /// The first read of storage gave `read` (`None`: it failed). Returns
    /// the switch: what a change that arrived during the read said, else
    /// what was read (and is kept), else off (not kept: the next call reads
    /// again).
    pub fn first_read(&mut self, read: Option<bool>) -> bool {
        match (self.known, read) {
            (Some(known), _) => known,
            (None, Some(enabled)) => {
                self.known = Some(enabled);
                enabled
            }
            (None, None) => false,
        }
    }

    /// The switch is now `enabled`; `None` when it already was.
    pub fn set(&mut self, enabled: bool) -> Option<Turned> {
        if self.known == Some(enabled) {
            return None;
        }
        self.known = Some(enabled);
        if enabled {
            Some(Turned::On {
                tell: self.reattach.is_none(),
            })
        } else {
            self.off_epoch = self.off_epoch.wrapping_add(1);
            Some(Turned::Off)
        }
    }

    /// How to take a storage notice that the switch now holds `stored`.
    pub fn notice(&self, stored: bool) -> SwitchNotice {
        switch_notice(self.known, stored, self.writes > 0)
    }

    /// A write of the worker's own starts.
    pub fn write_started(&mut self) {
        self.writes = self.writes.saturating_add(1);
    }

    /// A write of the worker's own ended, however it ended.
    pub fn write_ended(&mut self) {
        self.writes = self.writes.saturating_sub(1);
    }

    /// Changes with every turn to off: a privileged command that read the
    /// switch across one sees another epoch.
    pub fn off_epoch(&self) -> u64 {
        self.off_epoch
    }

    /// A re-attach is asked for. `Some(gate)`: none runs, run one now,
    /// each round begun with [`DeveloperSwitch::round_started`]. `None`:
    /// one runs, and goes over every tab once more.
    pub fn begin_reattach(&mut self) -> Option<Gate> {
        if self.reattach.is_some() {
            self.again = true;
            return None;
        }
        let gate = Gate::default();
        self.reattach = Some(gate.clone());
        Some(gate)
    }

    /// A round of the re-attach starts.
    pub fn round_started(&mut self) {
        self.again = false;
        self.rounds += 1;
    }

    /// How many re-attach rounds have started: a command that sees it
    /// change while it ran may have lost its session to one.
    pub fn reattach_rounds(&self) -> u64 {
        self.rounds
    }

    /// A round ended: `true` to run another over every tab (asked again
    /// meanwhile); `false` when the re-attach is over, its gate opened.
    pub fn round_ended(&mut self) -> bool {
        if self.again {
            return true;
        }
        if let Some(gate) = self.reattach.take() {
            gate.open();
        }
        false
    }

    /// The running re-attach's gate, if one runs.
    pub fn reattach_gate(&self) -> Option<Gate> {
        self.reattach.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_read_is_kept_unless_a_change_came_first_or_it_failed() {
        let mut s = DeveloperSwitch::default();
        assert!(!s.first_read(None));
        assert_eq!(s.known(), None, "a failed read is not kept");
        assert!(s.first_read(Some(true)));
        assert_eq!(s.known(), Some(true));
        let mut s = DeveloperSwitch::default();
        assert_eq!(s.set(false), Some(Turned::Off));
        assert!(!s.first_read(Some(true)), "the change is newer");
    }

    #[test]
    fn a_change_says_what_to_do_and_off_moves_the_epoch() {
        let mut s = DeveloperSwitch::default();
        let epoch = s.off_epoch();
        assert_eq!(s.set(true), Some(Turned::On { tell: true }));
        assert_eq!(s.set(true), None, "no change");
        assert_eq!(s.off_epoch(), epoch);
        assert_eq!(s.set(false), Some(Turned::Off));
        assert_ne!(s.off_epoch(), epoch);
        // On while the re-attach of the off runs: the re-attach tells.
        let gate = s.begin_reattach().expect("none ran");
        assert_eq!(s.set(true), Some(Turned::On { tell: false }));
        s.round_started();
        assert!(!s.round_ended());
        assert!(gate.is_open());
        assert_eq!(s.set(false), Some(Turned::Off));
        assert_eq!(s.set(true), Some(Turned::On { tell: true }));
    }

    #[test]
    fn a_notice_of_on_is_reverted_unless_the_worker_is_writing() {
        let mut s = DeveloperSwitch::default();
        s.set(false);
        assert_eq!(s.notice(true), SwitchNotice::Revert);
        s.write_started();
        assert_eq!(
            s.notice(true),
            SwitchNotice::Ignore,
            "its own earlier write"
        );
        s.write_ended();
        s.write_ended();
        assert_eq!(s.notice(true), SwitchNotice::Revert, "never below zero");
        s.set(true);
        assert_eq!(s.notice(false), SwitchNotice::TurnOff);
        assert_eq!(s.notice(true), SwitchNotice::Ignore);
    }

    #[test]
    fn one_reattach_runs_at_a_time_and_goes_again_when_asked_meanwhile() {
        let mut s = DeveloperSwitch::default();
        let gate = s.begin_reattach().expect("the first");
        assert!(s.reattach_gate().is_some_and(|g| g.same(&gate)));
        s.round_started();
        assert!(s.begin_reattach().is_none(), "one runs");
        assert!(s.round_ended(), "asked meanwhile: once more");
        assert!(!gate.is_open());
        s.round_started();
        assert!(!s.round_ended());
        assert!(gate.is_open());
        assert!(s.reattach_gate().is_none());
        let next = s.begin_reattach().expect("a new one");
        assert!(!next.same(&gate));
        assert_eq!(s.reattach_rounds(), 2, "every round counts");
    }
}
