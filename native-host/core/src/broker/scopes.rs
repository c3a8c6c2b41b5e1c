//! Each shared tab's sites ([`crate::scope`]): what a tab is shared for
//! when it joins the list, the person changing it, the sites the person
//! lets agents work on in every share (the host config's `sites`), the
//! refusal of an agent's request on a page of another site, and which
//! tabs must have their navigations held (an agent holds them and their
//! scope is not any site).
//!
//! Like the rest of the core it does no I/O and never awaits.

use super::{Core, Effect, Tab};
use crate::scope::Scope;
use cotab_shared::controller::AgentEvent;
use cotab_shared::native::TabInfo;
use cotab_shared::watch::AskBefore;
use cotab_shared::{ErrorKind, TabId, WireError};
use std::collections::BTreeSet;

impl Core {
    /// The scope a tab that joins the list gets: its opener's (a page
    /// cannot widen its own by opening a tab), else the site of the page
    /// it shows.
    pub(super) fn scope_of_new(&self, info: &TabInfo) -> Scope {
        match info.opener.and_then(|o| self.tabs.get(&o)) {
            Some(opener) => opener.scope.clone(),
            None => Scope::shared_at(&info.url),
        }
    }

    /// The scope of a tab an agent opens (`tabs.create`): every site the
    /// shared tabs are shared for together, so opening a tab reaches no
    /// site the person did not share; any site when one of them is, or
    /// none is shared.
    pub fn scope_for_agent_tab(&self) -> Scope {
        self.widened(Scope::union(self.tabs.values().map(|t| &t.scope)))
    }

    /// Where agents may take `tab`: its own sites and those of every
    /// share; any site for a tab not shared.
    pub fn scope(&self, tab: TabId) -> Scope {
        self.widened(self.own_scope(tab))
    }

    /// The sites `tab` itself is shared for (without those of every
    /// share); any site for a tab not shared.
    pub fn own_scope(&self, tab: TabId) -> Scope {
        self.tabs
            .get(&tab)
            .map(|t| t.scope.clone())
            .unwrap_or_default()
    }

    /// `scope` with the sites of every share added.
    fn widened(&self, scope: Scope) -> Scope {
        match scope {
            Scope::Any => Scope::Any,
            Scope::Sites(mut sites) => {
                sites.extend(self.lasting.iter().cloned());
                Scope::Sites(sites)
            }
        }
    }

    /// The person's sites for every share (the host config's `sites`)
    /// are now `sites`.
    pub fn set_lasting_sites(&mut self, sites: BTreeSet<String>) {
        if self.lasting != sites {
            self.lasting = sites;
            self.effects.push(Effect::Scopes);
        }
    }

    /// The sites of every share.
    pub fn lasting_sites(&self) -> &BTreeSet<String> {
        &self.lasting
    }

    /// The person set where agents may take `tab` (from the extension's
    /// side panel). A tab not shared is a clear error that changes
    /// nothing.
    pub fn set_scope(&mut self, tab: TabId, scope: Scope) -> Result<(), WireError> {
        let Some(t) = self.tabs.get_mut(&tab) else {
            return Err(WireError::new(
                ErrorKind::TabNotShared,
                format!("tab {tab} is not shared"),
            ));
        };
        if t.scope != scope {
            t.scope = scope;
            self.effects.push(Effect::Scopes);
        }
        self.forget_kept(Some(tab));
        Ok(())
    }

    /// The scope of `tab` narrowed to the site of the page it shows (any
    /// site when that page has none).
    pub fn scope_of_page(&self, tab: TabId) -> Scope {
        self.shared
            .iter()
            .find(|i| i.id == tab)
            .map_or(Scope::Any, |i| Scope::shared_at(&i.url))
    }

    /// Every shared tab with where agents may take it, in the list's
    /// order.
    pub fn scopes(&self) -> Vec<(&TabInfo, Scope)> {
        self.shared
            .iter()
            .filter(|i| self.tabs.contains_key(&i.id))
            .map(|i| (i, self.scope(i.id)))
            .collect()
    }

    /// `SITE_NOT_ALLOWED` unless the page `tab` shows is in its scope:
    /// its url in the shared list, and the document its main frame
    /// committed since (which the page tells before the list does).
    pub(super) fn page_in_scope(&self, tab: TabId) -> Result<(), WireError> {
        let (Some(t), Some(info)) = (
            self.tabs.get(&tab),
            self.shared.iter().find(|i| i.id == tab),
        ) else {
            return Ok(());
        };
        self.url_in_scope(tab, &info.url)?;
        match &t.committed {
            Some(url) => self.url_in_scope(tab, url),
            None => Ok(()),
        }
    }

    /// `SITE_NOT_ALLOWED` unless agents may take `tab` to `url`.
    /// Checked on every agent request (through [`Core::fence`]): the set
    /// of sites is built only for a refusal.
    pub fn url_in_scope(&self, tab: TabId, url: &str) -> Result<(), WireError> {
        let allowed = self
            .tabs
            .get(&tab)
            .is_none_or(|t| t.scope.allows_also(url, &self.lasting));
        if allowed {
            Ok(())
        } else {
            Err(self.scope(tab).refusal(tab, url))
        }
    }

    /// The tabs whose document requests must be held now: an agent
    /// holds the lease, the person does not control it, and its scope is
    /// narrower than any site or it asks before downloads.
    pub fn tabs_to_hold(&self) -> Vec<TabId> {
        self.tabs
            .iter()
            .filter(|(_, t)| holds(t))
            .map(|(id, _)| *id)
            .collect()
    }

    /// Whether `tab`'s documents must be held when their response comes
    /// too, to tell a download: it is held ([`Core::tabs_to_hold`]) and
    /// asks before downloads.
    pub fn holds_downloads(&self, tab: TabId) -> bool {
        self.tabs
            .get(&tab)
            .is_some_and(|t| holds(t) && t.ask_before.contains(&AskBefore::Download))
    }

    /// Whether the extension still takes commands for `tab`: shared and
    /// not suspended on a blocked page (where the extension itself lets
    /// go of what was held, navigations included).
    pub fn reachable(&self, tab: TabId) -> bool {
        self.tabs.get(&tab).is_some_and(|t| t.blocked.is_none())
    }

    /// The agent session holding `tab`'s lease while the person does not
    /// control it and it shows no blocked page.
    pub fn lease_of(&self, tab: TabId) -> Option<crate::session::SessionId> {
        let t = self.tabs.get(&tab)?;
        t.lease
            .filter(|_| !t.human && t.blocked.is_none())
            .map(|(s, _)| s)
    }

    /// The agent session holding `tab`'s lease while its navigations are
    /// held, and its agent's name, if one does.
    pub fn holder_of(&self, tab: TabId) -> Option<(crate::session::SessionId, String)> {
        let sid = self
            .tabs
            .get(&tab)
            .filter(|t| holds(t))
            .and_then(|t| t.lease.map(|(s, _)| s))?;
        let agent = self.sessions.get(&sid).map(|s| s.agent.clone())?;
        Some((sid, agent))
    }

    /// Tells session `sid` `event` (dropped if it has no connection).
    pub fn notify(&mut self, sid: crate::session::SessionId, event: AgentEvent) {
        self.effects.push(Effect::Notify(sid, event));
    }

    /// The CDP id of `tab`'s main frame, once the extension reported it.
    pub fn main_frame(&self, tab: TabId) -> Option<&str> {
        self.shared
            .iter()
            .find(|i| i.id == tab)
            .and_then(|i| i.target_id.as_deref())
    }
}

fn holds(t: &Tab) -> bool {
    t.lease.is_some()
        && !t.human
        && t.blocked.is_none()
        && (t.scope.holds() || t.ask_before.contains(&AskBefore::Download))
}
