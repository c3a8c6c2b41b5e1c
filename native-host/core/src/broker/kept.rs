//! What the person chose for each share — its sites and what it asks
//! their yes before — kept across a restart of the daemon: the shell
//! saves [`Core::shares_to_keep`] whenever it changes and hands it back
//! with [`Core::restore_shares`] when the daemon starts again, so an agent
//! does not find the person's approvals gone.
//!
//! A kept share is a tab's again only when the browser names the same
//! page target: tab ids start again with the browser, target ids do not
//! repeat. A tab that joins under a kept id before its target id is known
//! (a blocked page has none) asks before what the kept share asked (more
//! than it would: never less) and is limited to the kept sites, or to the
//! site it shows when the kept share allowed any; once its target id is
//! known, the share is restored or, for another page target, forgotten,
//! and what it added taken back. A share the person changes meanwhile, or
//! whose tab the list no longer has, is forgotten: what the person chose
//! since wins.
//!
//! Like the rest of the core it does no I/O and never awaits.

use super::{Core, Effect};
use crate::scope::Scope;
use cotab_shared::native::TabInfo;
use cotab_shared::watch::AskBefore;
use cotab_shared::TabId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// One shared tab's settings, as kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeptShare {
    /// The tab.
    pub tab: TabId,
    /// Its page's CDP target id when it was kept.
    pub target: String,
    /// Where agents may take it; `None` when the kept one was unreadable
    /// (the tab then keeps the site it shows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// What an agent's request in it waits for the person's yes before.
    #[serde(default)]
    pub ask_before: BTreeSet<AskBefore>,
}

impl Core {
    /// The shares kept before the daemon last stopped: each applies to
    /// its tab as the shared list shows the tab (see the module docs).
    pub fn restore_shares(&mut self, kept: Vec<KeptShare>) {
        self.kept = kept.into_iter().map(|k| (k.tab, k)).collect();
    }

    /// What to keep now: each shared tab whose page target is known (or
    /// was, before its page was blocked), and the kept shares still
    /// waiting for theirs, by tab.
    pub fn shares_to_keep(&self) -> Vec<KeptShare> {
        let mut keep: Vec<KeptShare> = self
            .shared
            .iter()
            .filter(|info| !self.kept.contains_key(&info.id))
            .filter_map(|info| {
                let tab = self.tabs.get(&info.id)?;
                Some(KeptShare {
                    tab: info.id,
                    target: tab.target.clone()?,
                    scope: Some(tab.scope.clone()),
                    ask_before: tab.ask_before.clone(),
                })
            })
            .collect();
        for (id, k) in &self.kept {
            if !keep.iter().any(|s| s.tab == *id) {
                keep.push(k.clone());
            }
        }
        keep.sort_by_key(|k| k.tab.0);
        keep
    }

    /// Applies the kept share of `info`'s tab, if any, as the list shows
    /// it now; `joined` when the tab has just joined the list. Notes the
    /// tab's target id.
    pub(super) fn settle_kept(&mut self, info: &TabInfo, joined: bool) {
        let Some(tab) = self.tabs.get_mut(&info.id) else {
            return;
        };
        if info.target_id.is_some() {
            tab.target.clone_from(&info.target_id);
        }
        let Some(kept) = self.kept.get(&info.id) else {
            return;
        };
        match info.target_id.as_deref() {
            Some(target) if target == kept.target => {
                if let Some(scope) = &kept.scope {
                    tab.scope = scope.clone();
                }
                tab.ask_before = kept.ask_before.clone();
                tab.pending_asks.clear();
                self.kept.remove(&info.id);
                self.effects.push(Effect::Scopes);
            }
            Some(_) => {
                // Another page: what the kept share added goes again.
                for what in std::mem::take(&mut tab.pending_asks) {
                    tab.ask_before.remove(&what);
                }
                if !joined {
                    tab.scope = Scope::shared_at(&info.url);
                }
                self.kept.remove(&info.id);
                self.effects.push(Effect::Scopes);
            }
            None if joined => {
                for what in &kept.ask_before {
                    if tab.ask_before.insert(*what) {
                        tab.pending_asks.insert(*what);
                    }
                }
                if let Some(Scope::Sites(sites)) = &kept.scope {
                    tab.scope = Scope::Sites(sites.clone());
                }
            }
            None => {}
        }
    }

    /// Forgets the kept shares of tabs the list no longer has, and of
    /// `changed`, which the person just changed.
    pub(super) fn forget_kept(&mut self, changed: Option<TabId>) {
        if let Some(tab) = changed.and_then(|t| self.tabs.get_mut(&t)) {
            tab.pending_asks.clear();
        }
        let before = self.kept.len();
        let shared = &self.shared;
        self.kept
            .retain(|id, _| Some(*id) != changed && shared.iter().any(|t| t.id == *id));
        if self.kept.len() != before {
            self.effects.push(Effect::Scopes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broker::Core;
    use cotab_shared::native::TabInfo;

    fn info(id: i32, url: &str, target: Option<&str>) -> TabInfo {
        TabInfo {
            id: TabId(id),
            url: url.into(),
            title: String::new(),
            human_control: false,
            blocked: None,
            opener: None,
            target_id: target.map(str::to_owned),
        }
    }

    fn kept(tab: i32, target: &str) -> KeptShare {
        KeptShare {
            tab: TabId(tab),
            target: target.into(),
            scope: Some(Scope::Any),
            ask_before: BTreeSet::from([AskBefore::Submit, AskBefore::Password]),
        }
    }

    fn asks(c: &Core, tab: i32) -> BTreeSet<AskBefore> {
        c.ask_before(TabId(tab))
    }

    #[test]
    fn a_share_is_kept_by_its_page_target_and_restored_for_the_same_one_only() {
        let mut c = Core::default();
        c.on_shared(&[info(3, "https://mail.example.com/", Some("A"))]);
        c.set_ask_before(TabId(3), AskBefore::Step, true)
            .expect("shared");
        c.set_scope(TabId(3), Scope::Any).expect("shared");
        let keep = c.shares_to_keep();
        assert_eq!(keep.len(), 1);
        assert_eq!(keep[0].target, "A");

        // The daemon again, the same page: its choices are back.
        let mut again = Core::default();
        again.restore_shares(keep.clone());
        again.on_shared(&[info(3, "https://mail.example.com/", Some("A"))]);
        assert_eq!(asks(&again, 3), BTreeSet::from([AskBefore::Step]));
        assert_eq!(again.own_scope(TabId(3)), Scope::Any);
        assert_eq!(again.shares_to_keep(), keep);
        assert!(again.tabs[&TabId(3)].pending_asks.is_empty());

        // Another browser, the tab id used again by another page: not its.
        let mut other = Core::default();
        other.restore_shares(keep);
        other.on_shared(&[info(3, "https://mail.example.com/", Some("B"))]);
        assert!(asks(&other, 3).is_empty());
        assert_eq!(
            other.own_scope(TabId(3)),
            Scope::shared_at("https://mail.example.com/")
        );
        assert_eq!(other.shares_to_keep()[0].target, "B");
    }

    #[test]
    fn a_blocked_tab_keeps_its_share_and_a_pending_one_its_kept_sites() {
        let mut c = Core::default();
        c.on_shared(&[info(3, "https://mail.example.com/", Some("A"))]);
        c.set_ask_before(TabId(3), AskBefore::Files, true)
            .expect("shared");
        // Blocked: the list gives no url and no target; the share stays.
        c.on_shared(&[info(3, "", None)]);
        let keep = c.shares_to_keep();
        assert_eq!(keep.len(), 1, "{keep:?}");
        assert_eq!(keep[0].target, "A");

        // The daemon again while the page is still blocked: the kept
        // sites, not any site, and its asks.
        let mut again = Core::default();
        again.restore_shares(keep);
        again.on_shared(&[info(3, "", None)]);
        assert_eq!(
            again.own_scope(TabId(3)),
            Scope::shared_at("https://mail.example.com/")
        );
        assert_eq!(asks(&again, 3), BTreeSet::from([AskBefore::Files]));
        // Another page after all: what the kept share added goes.
        again.on_shared(&[info(3, "https://example.org/", Some("B"))]);
        assert!(asks(&again, 3).is_empty());
        assert_eq!(
            again.own_scope(TabId(3)),
            Scope::shared_at("https://example.org/")
        );
    }

    #[test]
    fn before_its_target_is_known_a_tab_asks_more_never_less_and_no_wider_scope() {
        let mut c = Core::default();
        c.restore_shares(vec![kept(3, "A")]);
        c.on_shared(&[info(3, "https://mail.example.com/", None)]);
        assert_eq!(
            asks(&c, 3),
            BTreeSet::from([AskBefore::Submit, AskBefore::Password])
        );
        assert_eq!(
            c.own_scope(TabId(3)),
            Scope::shared_at("https://mail.example.com/"),
            "the kept 'any site' waits for the target"
        );
        // Still kept while it waits.
        assert_eq!(c.shares_to_keep(), vec![kept(3, "A")]);
        assert_eq!(c.tabs[&TabId(3)].pending_asks.len(), 2);
        c.on_shared(&[info(3, "https://mail.example.com/", Some("A"))]);
        assert_eq!(c.own_scope(TabId(3)), Scope::Any);
        assert!(c.kept.is_empty());
    }

    #[test]
    fn what_the_person_changes_meanwhile_and_tabs_gone_forget_the_kept_share() {
        let mut c = Core::default();
        c.restore_shares(vec![kept(3, "A"), kept(4, "B")]);
        c.on_shared(&[
            info(3, "https://mail.example.com/", None),
            info(4, "https://example.org/", None),
        ]);
        c.set_ask_before(TabId(3), AskBefore::Submit, false)
            .expect("shared");
        // Tab 4 unshared: its share goes.
        c.on_shared(&[info(3, "https://mail.example.com/", None)]);
        assert!(c.kept.is_empty());
        c.on_shared(&[info(3, "https://mail.example.com/", Some("A"))]);
        assert_eq!(asks(&c, 3), BTreeSet::from([AskBefore::Password]));
        assert_eq!(
            c.own_scope(TabId(3)),
            Scope::shared_at("https://mail.example.com/")
        );
    }
}
