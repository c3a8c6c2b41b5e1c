//! What each shared tab asks before ([`AskBefore`]): the person's
//! choice from the side panel, inherited by a tab the page opens (a page
//! cannot shed the person's approvals by opening a tab) and, together,
//! by a tab an agent opens.
//!
//! Like the rest of the core it does no I/O and never awaits.

use super::{Core, Effect};
use cotab_shared::native::TabInfo;
use cotab_shared::watch::AskBefore;
use cotab_shared::{ErrorKind, TabId, WireError};
use std::collections::BTreeSet;

impl Core {
    /// What an agent's request in `tab` waits for the person's yes
    /// before; nothing for a tab not shared.
    pub fn ask_before(&self, tab: TabId) -> BTreeSet<AskBefore> {
        self.tabs
            .get(&tab)
            .map(|t| t.ask_before.clone())
            .unwrap_or_default()
    }

    /// The person turned asking before `what` in `tab` on or off (from
    /// the side panel). A tab not shared is a clear error that changes
    /// nothing.
    pub fn set_ask_before(
        &mut self,
        tab: TabId,
        what: AskBefore,
        on: bool,
    ) -> Result<(), WireError> {
        let Some(t) = self.tabs.get_mut(&tab) else {
            return Err(WireError::new(
                ErrorKind::TabNotShared,
                format!("tab {tab} is not shared"),
            ));
        };
        let changed = if on {
            t.ask_before.insert(what)
        } else {
            t.ask_before.remove(&what)
        };
        if changed {
            self.effects.push(Effect::Scopes);
        }
        self.forget_kept(Some(tab));
        Ok(())
    }

    /// What a tab that joins the list asks before: its opener's.
    pub(super) fn asks_of_new(&self, info: &TabInfo) -> BTreeSet<AskBefore> {
        info.opener
            .and_then(|o| self.tabs.get(&o))
            .map(|o| o.ask_before.clone())
            .unwrap_or_default()
    }

    /// What a tab an agent opens asks before: whatever any shared tab
    /// asks before.
    pub fn asks_for_agent_tab(&self) -> BTreeSet<AskBefore> {
        self.tabs
            .values()
            .flat_map(|t| t.ask_before.iter().copied())
            .collect()
    }
}
