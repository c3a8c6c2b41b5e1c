//! The first request of a tab that a held tab's page opens.
//!
//! While an agent holds a tab shared for some sites, the daemon holds the
//! tab's own navigations to other sites (it pauses them in the tab's
//! debugger). A tab the page opens (`window.open`, a link or form with a
//! target) sends its first request before any debugger could attach to
//! it, with the person's cookies. So the browser itself blocks it: a
//! `declarativeNetRequest` session rule per held tab blocks every
//! main-frame request that a page of the tab's sites starts towards
//! another site, except in the tabs the rule leaves free — every tab
//! that showed a page since it was made, and those another tab opened.
//! What is left is a tab that was just made and has shown nothing yet:
//! what a page opens.
//!
//! This module keeps what the rules are written from and decides what a
//! blocked tab means; the worker's `opened` listens to the browser and
//! writes the rules.

use cotab_shared::native::OpenedHold;
use cotab_shared::TabId;
use serde::Serialize;

/// What the rules are written from.
#[derive(Debug, Default)]
pub struct OpenedHolds {
    /// The tabs the daemon named, with their sites.
    held: Vec<OpenedHold>,
    /// Tabs that showed a page (or were there when the worker started),
    /// or that a tab not held opened: the rules leave them alone. Sorted.
    free: Vec<TabId>,
    /// Which tab opened each tab a page opened (the new tab first), until
    /// its first request ended.
    sources: Vec<(TabId, TabId)>,
}

/// A `declarativeNetRequest` rule, as [`OpenedHolds::rules`] writes them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rule<'a> {
    id: u32,
    priority: u32,
    action: Action,
    condition: Condition<'a>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct Action {
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct Condition<'a> {
    resource_types: [&'static str; 1],
    initiator_domains: &'a [String],
    excluded_request_domains: &'a [String],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    excluded_tab_ids: &'a [TabId],
}

/// What a tab's blocked first request means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blocked {
    /// A held tab's page opened it: refused, and the daemon is told.
    Refused {
        /// The held tab.
        opener: TabId,
    },
    /// The person's: a tab another page opened was blocked before the
    /// rules freed it. It is taken to its url again, which the browser
    /// starts (no page does), so the rules let it go.
    Again,
    /// Not a request the rules were meant for (another extension's
    /// block, say): left as it is.
    Left,
}

impl OpenedHolds {
    /// The tabs there when the worker started are free.
    pub fn started(&mut self, tabs: impl IntoIterator<Item = TabId>) {
        for tab in tabs {
            self.free_tab(tab);
        }
    }

    /// Frees `tab`. Returns whether it was not free.
    fn free_tab(&mut self, tab: TabId) -> bool {
        match self.free.binary_search(&tab) {
            Ok(_) => false,
            Err(at) => {
                self.free.insert(at, tab);
                true
            }
        }
    }

    /// Forgets which tab opened `tab`, and returns it.
    fn take_source(&mut self, tab: TabId) -> Option<TabId> {
        let at = self.sources.iter().position(|(t, _)| *t == tab)?;
        Some(self.sources.swap_remove(at).1)
    }

    /// The daemon named the held tabs. A tab with no sites, or with a
    /// site the browser takes for no domain (an IPv6 address), is left
    /// out: its rule would be refused, and with it the whole write.
    /// Returns whether the rules change.
    pub fn set(&mut self, mut held: Vec<OpenedHold>) -> bool {
        held.retain(|h| !h.sites.is_empty() && h.sites.iter().all(|s| domain(s)));
        let changed = held != self.held;
        self.held = held;
        changed
    }

    /// Whether any tab is held.
    pub fn holding(&self) -> bool {
        !self.held.is_empty()
    }

    /// The page of `source` opened `tab`. Returns whether the rules
    /// change: a tab a tab not held opened is freed.
    pub fn opened(&mut self, tab: TabId, source: TabId) -> bool {
        self.take_source(tab);
        self.sources.push((tab, source));
        !self.held_tab(source) && self.free_tab(tab) && self.holding()
    }

    /// `tab` showed `url` (its main frame committed). Returns whether the
    /// rules change. The blank page a tab opened without a url shows
    /// first frees nothing: the page that opened it may send it on.
    pub fn committed(&mut self, tab: TabId, url: &str) -> bool {
        if url.starts_with("about:") {
            return false;
        }
        self.take_source(tab);
        self.free_tab(tab) && self.holding()
    }

    /// `tab` closed.
    pub fn removed(&mut self, tab: TabId) {
        self.free.retain(|t| *t != tab);
        self.take_source(tab);
    }

    /// The browser blocked `tab`'s main-frame request
    /// (`net::ERR_BLOCKED_BY_CLIENT`). The tab is free from now on: its
    /// first request is over.
    pub fn blocked(&mut self, tab: TabId) -> Blocked {
        let source = self.take_source(tab);
        self.free_tab(tab);
        match source {
            Some(opener) if self.held_tab(opener) => Blocked::Refused { opener },
            Some(_) if self.holding() => Blocked::Again,
            _ => Blocked::Left,
        }
    }

    fn held_tab(&self, tab: TabId) -> bool {
        self.held.iter().any(|h| h.tab_id == tab)
    }

    /// The session rules, one per held tab (ids from 1).
    pub fn rules(&self) -> Vec<Rule<'_>> {
        self.held
            .iter()
            .zip(1..)
            .map(|(h, id)| Rule {
                id,
                priority: 1,
                action: Action { kind: "block" },
                condition: Condition {
                    resource_types: ["main_frame"],
                    initiator_domains: &h.sites,
                    excluded_request_domains: &h.sites,
                    excluded_tab_ids: &self.free,
                },
            })
            .collect()
    }
}

/// Whether `site` is a name a rule's domains take: lower-case letters,
/// digits, dots and dashes (the daemon's sites are already punycode).
fn domain(site: &str) -> bool {
    !site.is_empty()
        && site
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn rules(o: &OpenedHolds) -> Vec<Value> {
        o.rules()
            .iter()
            .map(|r| serde_json::to_value(r).expect("json"))
            .collect()
    }

    fn held(tab: i32, sites: &[&str]) -> OpenedHold {
        OpenedHold {
            tab_id: TabId(tab),
            sites: sites.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    #[test]
    fn a_rule_per_held_tab_blocks_other_sites_from_its_sites_in_tabs_not_yet_free() {
        let mut o = OpenedHolds::default();
        o.started([TabId(1), TabId(2)]);
        assert!(rules(&o).is_empty(), "nothing held, no rule");
        assert!(o.set(vec![
            held(1, &["example.com"]),
            held(2, &[]),
            held(3, &["[::1]"]),
            held(4, &["xn--bcher-kva.example", "Example.com"]),
        ]));
        assert!(!o.set(vec![held(1, &["example.com"])]), "the same");
        assert_eq!(
            rules(&o),
            vec![json!({
                "id": 1,
                "priority": 1,
                "action": {"type": "block"},
                "condition": {
                    "resourceTypes": ["main_frame"],
                    "initiatorDomains": ["example.com"],
                    "excludedRequestDomains": ["example.com"],
                    "excludedTabIds": [1, 2],
                },
            })]
        );
        assert!(o.set(Vec::new()));
        assert!(rules(&o).is_empty());
    }

    #[test]
    fn what_a_held_tab_opens_stays_blocked_and_is_refused_what_the_person_opens_goes_again() {
        let mut o = OpenedHolds::default();
        o.started([TabId(1), TabId(2)]);
        o.set(vec![held(1, &["example.com"])]);
        // The held tab's page opens tab 3: not freed.
        assert!(!o.opened(TabId(3), TabId(1)));
        assert_eq!(o.blocked(TabId(3)), Blocked::Refused { opener: TabId(1) });
        // Another tab's page opens tab 4: freed, and if the rules came
        // too late, taken there again.
        assert!(o.opened(TabId(4), TabId(2)));
        assert_eq!(o.blocked(TabId(4)), Blocked::Again);
        // A tab nobody knows opened it: left.
        assert_eq!(o.blocked(TabId(5)), Blocked::Left);
        // Each is free now; a tab that shows a page is freed, but not by
        // the blank page it shows first.
        assert!(!o.committed(TabId(6), "about:blank"));
        assert!(o.committed(TabId(6), "https://example.com/"));
        assert!(
            !o.committed(TabId(6), "https://example.com/"),
            "already free"
        );
        let free = &rules(&o)[0]["condition"]["excludedTabIds"];
        assert_eq!(free, &json!([1, 2, 3, 4, 5, 6]));
        o.removed(TabId(3));
        assert_eq!(
            rules(&o)[0]["condition"]["excludedTabIds"],
            json!([1, 2, 4, 5, 6])
        );
    }

    #[test]
    fn with_nothing_held_a_blocked_tab_is_left_and_no_rule_changes() {
        let mut o = OpenedHolds::default();
        assert!(!o.opened(TabId(3), TabId(1)));
        assert!(!o.committed(TabId(4), "https://example.com/"));
        assert_eq!(o.blocked(TabId(3)), Blocked::Left);
    }
}
