//! What the worker knows of each tab's debugger session besides its page
//! ([`crate::page_state`]) and its held input ([`crate::held`]), and the
//! rules that follow from it, without browser APIs:
//!
//! - a page whose renderer crashed refuses every command but a reload or a
//!   navigation, until one of those is sent or the browser reports it
//!   loaded again;
//! - how many JavaScript dialogs the tab opened, so an `input` command
//!   stops acting once one opens during it;
//! - whether raw CDP (a privileged command) went to the tab's current
//!   session, so a takeover re-attaches it;
//! - whether a short-lived session holds the tab only to release its input
//!   after someone else detached the debugger, so a share waits for it;
//! - which shared tab's page opened it (a link with a target,
//!   `window.open`), which the browser's own `openerTabId` does not say
//!   reliably.
//!
//! A new session forgets what the old one had (but the opener); a closed
//! tab forgets all.

use cotab_shared::{ErrorKind, TabId, WireError};

/// The commands that may go to a crashed page: they load it again.
const RECOVERS_FROM_CRASH: [&str; 2] = ["Page.reload", "Page.navigate"];

/// What is known of one tab.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Facts {
    crashed: bool,
    dialogs: u64,
    raw_cdp: bool,
    releasing: bool,
    opener: Option<TabId>,
}

impl Facts {
    fn is_empty(&self) -> bool {
        *self == Facts::default()
    }
}

/// Which fact [`TabFacts::set`] changes.
#[derive(Debug, Clone, Copy)]
enum Fact {
    Crashed,
    RawCdp,
    Releasing,
    /// One more dialog (its value is ignored).
    Dialog,
}

/// Every tab's facts. A handful of tabs at most, so a plain vector (a map
/// would cost the worker's wasm more than it saves).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TabFacts {
    tabs: Vec<(TabId, Facts)>,
}

impl TabFacts {
    fn get(&self, tab: TabId) -> Facts {
        self.tabs
            .iter()
            .find(|(t, _)| *t == tab)
            .map(|(_, f)| *f)
            .unwrap_or_default()
    }

    /// Sets what `set` names of `tab`'s facts to `on`; a tab left with
    /// nothing to remember leaves the list.
    fn set(&mut self, tab: TabId, set: Fact, on: bool) {
        let at = match self.tabs.iter().position(|(t, _)| *t == tab) {
            Some(at) => at,
            None if !on => return,
            None => {
                self.tabs.push((tab, Facts::default()));
                self.tabs.len() - 1
            }
        };
        let facts = &mut self.tabs[at].1;
        match set {
            Fact::Crashed => facts.crashed = on,
            Fact::RawCdp => facts.raw_cdp = on,
            Fact::Releasing => facts.releasing = on,
            Fact::Dialog => facts.dialogs = facts.dialogs.wrapping_add(1),
        }
        if facts.is_empty() {
            self.tabs.swap_remove(at);
        }
    }

    /// The page in `tab` crashed.
    pub fn crashed(&mut self, tab: TabId) {
        self.set(tab, Fact::Crashed, true);
    }

    /// The browser reports the crashed page in `tab` loaded again.
    pub fn reloaded(&mut self, tab: TabId) {
        self.set(tab, Fact::Crashed, false);
    }

    /// Whether the page in `tab` crashed and was not loaded again.
    pub fn is_crashed(&self, tab: TabId) -> bool {
        self.get(tab).crashed
    }

    /// The check of a command `method` about to go to `tab`: a crashed page
    /// takes only a reload or a navigation, which lifts the crash (it
    /// loads the page again); anything else fails `COMMAND_FAILED`.
    pub fn admit(&mut self, tab: TabId, method: &str) -> Result<(), WireError> {
        if !self.is_crashed(tab) {
            return Ok(());
        }
        if !RECOVERS_FROM_CRASH.contains(&method) {
            return Err(WireError::new(
                ErrorKind::CommandFailed,
                format!("the page in tab {tab} crashed; reload it or navigate away first"),
            ));
        }
        self.reloaded(tab);
        Ok(())
    }

    /// A JavaScript dialog opened in `tab`.
    pub fn dialog_opened(&mut self, tab: TabId) {
        self.set(tab, Fact::Dialog, true);
    }

    /// How many dialogs `tab` opened so far: compare two reads to tell
    /// whether one opened in between.
    pub fn dialogs(&self, tab: TabId) -> u64 {
        self.get(tab).dialogs
    }

    /// A privileged command (raw CDP) goes to `tab`'s session.
    pub fn raw_cdp_sent(&mut self, tab: TabId) {
        self.set(tab, Fact::RawCdp, true);
    }

    /// Whether raw CDP went to `tab`'s current session.
    pub fn raw_cdp_ran(&self, tab: TabId) -> bool {
        self.get(tab).raw_cdp
    }

    /// A new debugger session on `tab` is being set up: nothing raw CDP set
    /// up in the old one is left.
    pub fn new_session(&mut self, tab: TabId) {
        self.set(tab, Fact::RawCdp, false);
    }

    /// `tab`'s session ended (unshared, or the debugger detached): a
    /// crash is not carried into a later share.
    pub fn session_ended(&mut self, tab: TabId) {
        self.set(tab, Fact::Crashed, false);
    }

    /// A session on `tab` only to release its held input starts (`true`)
    /// or ends (`false`).
    pub fn releasing(&mut self, tab: TabId, releasing: bool) {
        self.set(tab, Fact::Releasing, releasing);
    }

    /// Whether a release-only session holds `tab`.
    pub fn is_releasing(&self, tab: TabId) -> bool {
        self.get(tab).releasing
    }

    /// The page of the shared tab `opener` opened `tab`.
    pub fn opened_by(&mut self, tab: TabId, opener: TabId) {
        match self.tabs.iter_mut().find(|(t, _)| *t == tab) {
            Some((_, facts)) => facts.opener = Some(opener),
            None => self.tabs.push((
                tab,
                Facts {
                    opener: Some(opener),
                    ..Facts::default()
                },
            )),
        }
    }

    /// The shared tab whose page opened `tab`, if one did.
    pub fn opener(&self, tab: TabId) -> Option<TabId> {
        self.get(tab).opener
    }

    /// `tab` closed: everything known of it goes.
    pub fn forget(&mut self, tab: TabId) {
        self.tabs.retain(|(t, _)| *t != tab);
    }

    /// How many tabs have a fact recorded.
    pub fn len(&self) -> usize {
        self.tabs.len()
    }

    /// Whether no tab has a fact recorded.
    pub fn is_empty(&self) -> bool {
        self.tabs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: TabId = TabId(3);
    const U: TabId = TabId(4);

    #[test]
    fn a_crashed_page_takes_only_what_loads_it_again() {
        let mut facts = TabFacts::default();
        facts.crashed(T);
        assert_eq!(
            facts.admit(T, "Runtime.evaluate").map_err(|e| e.kind),
            Err(ErrorKind::CommandFailed)
        );
        assert!(facts.is_crashed(T), "a refused command lifts nothing");
        assert_eq!(facts.admit(U, "Runtime.evaluate"), Ok(()), "only that tab");
        assert_eq!(facts.admit(T, "Page.reload"), Ok(()));
        assert!(!facts.is_crashed(T), "a reload loads it again");
        assert_eq!(facts.admit(T, "Runtime.evaluate"), Ok(()));
        facts.crashed(T);
        assert_eq!(facts.admit(T, "Page.navigate"), Ok(()));
        facts.crashed(T);
        facts.reloaded(T);
        assert_eq!(facts.admit(T, "Input.dispatchKeyEvent"), Ok(()));
        assert!(facts.is_empty(), "nothing left to remember");
    }

    #[test]
    fn a_new_session_forgets_raw_cdp_and_an_ended_one_the_crash() {
        let mut facts = TabFacts::default();
        facts.raw_cdp_sent(T);
        facts.crashed(T);
        facts.dialog_opened(T);
        assert!(facts.raw_cdp_ran(T));
        assert!(!facts.raw_cdp_ran(U));
        facts.session_ended(T);
        assert!(!facts.is_crashed(T));
        assert!(facts.raw_cdp_ran(T), "until a new session replaces it");
        facts.new_session(T);
        assert!(!facts.raw_cdp_ran(T));
        assert_eq!(facts.dialogs(T), 1, "dialogs are counted across sessions");
    }

    #[test]
    fn dialogs_are_counted_per_tab_and_a_closed_tab_forgets_everything() {
        let mut facts = TabFacts::default();
        let before = facts.dialogs(T);
        facts.dialog_opened(T);
        facts.dialog_opened(T);
        facts.dialog_opened(U);
        assert_eq!(facts.dialogs(T) - before, 2);
        assert_eq!(facts.dialogs(U), 1);
        facts.releasing(T, true);
        facts.raw_cdp_sent(T);
        facts.crashed(T);
        assert!(facts.is_releasing(T));
        facts.forget(T);
        assert_eq!(
            (
                facts.dialogs(T),
                facts.is_releasing(T),
                facts.raw_cdp_ran(T)
            ),
            (0, false, false)
        );
        assert!(!facts.is_crashed(T));
        assert_eq!(facts.len(), 1, "the other tab's facts stay");
        facts.releasing(U, true);
        facts.releasing(U, false);
        assert!(!facts.is_releasing(U));
    }

    #[test]
    fn the_opener_outlives_sessions_until_the_tab_closes() {
        let mut f = TabFacts::default();
        f.opened_by(TabId(2), TabId(1));
        f.crashed(TabId(2));
        f.new_session(TabId(2));
        f.session_ended(TabId(2));
        assert_eq!(f.opener(TabId(2)), Some(TabId(1)));
        assert_eq!(f.opener(TabId(1)), None);
        f.forget(TabId(2));
        assert_eq!(f.opener(TabId(2)), None);
        assert!(f.is_empty());
    }
}
