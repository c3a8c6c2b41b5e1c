//! The tabs that a held tab's pages open.
//!
//! While an agent holds a tab shared for some sites, the daemon holds the
//! tab's own navigations to other sites (it pauses them in the tab's
//! debugger). A tab the page opens (`window.open`, a link or form with a
//! target) sends its first request before any debugger could attach to
//! it, with the person's cookies, and the page that opened it may send it
//! on later (`w.location = …`). So the browser itself blocks those: a
//! `declarativeNetRequest` session rule per held tab blocks every
//! main-frame request that a page of the tab's sites starts towards
//! another site, except in the tabs the rule leaves free — every tab
//! known to the worker (there when it started, or that showed a page
//! since) but those a held tab's page opened, or a tab those opened, for
//! as long as the held tab is held. A tab not known yet is not free: what
//! a page just opened.
//!
//! This module keeps what the rules are written from and decides what a
//! blocked tab means; the worker's `opened` listens to the browser and
//! writes the rules.

use cotab_shared::native::OpenedHold;
use cotab_shared::TabId;
use serde::Serialize;

/// How many blocked tabs whose opener is not known yet are remembered.
const UNPLACED: usize = 8;

/// How far up the tabs that opened one another a tab's held opener is
/// looked for; a tab further down is not free.
const GENERATIONS: usize = 64;

/// What the rules are written from.
#[derive(Debug, Default)]
pub struct OpenedHolds {
    /// The tabs the daemon named, with their sites.
    held: Vec<OpenedHold>,
    /// Whether the tabs there when the worker started are known: until
    /// then no rule is written (it would leave no tab free).
    started: bool,
    /// Tabs that showed a page or were there when the worker started, or
    /// whose opener is known. Sorted.
    known: Vec<TabId>,
    /// Which tab's page opened each tab (the new tab first).
    parents: Vec<(TabId, TabId)>,
    /// What an earlier worker kept of `parents`, until the tabs there at
    /// the start are known.
    kept: Vec<(TabId, TabId)>,
    /// Tabs the browser blocked before the worker knew who opened them,
    /// with where they went.
    unplaced: Vec<(TabId, String)>,
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
    #[serde(skip_serializing_if = "Vec::is_empty")]
    excluded_tab_ids: Vec<TabId>,
}

/// Where the tabs that opened one another lead from a tab.
enum Line {
    /// To this held tab.
    Held(TabId),
    /// To no held tab.
    Free,
    /// Further up than is looked: not free, as a held tab may be there.
    Deep,
}

/// What a tab's blocked main-frame request means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blocked {
    /// A held tab's page opened it (or a tab that one opened): refused,
    /// and the daemon is told.
    Refused {
        /// The held tab.
        opener: TabId,
        /// Where the request went.
        url: String,
    },
    /// The person's: a tab no held tab's page opened was blocked before
    /// the rules freed it. It is taken to its url again, which the
    /// browser starts (no page does), so the rules let it go.
    Again {
        /// Where the request went.
        url: String,
    },
    /// Not known yet, or not a request the rules were meant for
    /// (another extension's block, say): left as it is.
    Left,
}

impl OpenedHolds {
    /// The tabs there when the worker started are known. Of the openers
    /// an earlier worker kept ([`OpenedHolds::restore`]), those of these
    /// tabs stay, up their line, behind what was seen since.
    pub fn started(&mut self, tabs: impl IntoIterator<Item = TabId>) {
        let kept = std::mem::take(&mut self.kept);
        let mut line = Vec::new();
        for tab in tabs {
            self.know(tab);
            let mut at = tab;
            for _ in 0..GENERATIONS {
                let Some(&(child, parent)) = kept.iter().find(|(t, _)| *t == at) else {
                    break;
                };
                if line.contains(&(child, parent)) {
                    break;
                }
                line.push((child, parent));
                at = parent;
            }
        }
        line.retain(|(c, _)| !self.parents.iter().any(|(t, _)| t == c));
        line.append(&mut self.parents);
        self.parents = line;
        self.started = true;
    }

    /// Which tab opened which, as an earlier worker kept it
    /// ([`OpenedHolds::parents`]), read before the tabs there at the start
    /// are known: a tab a held tab's page opened stays held with it after
    /// the worker starts again.
    pub fn restore(&mut self, parents: Vec<(TabId, TabId)>) {
        self.kept = parents;
    }

    /// Which tab's page opened each tab (the new tab first), to keep
    /// across a restart of the worker.
    pub fn parents(&self) -> &[(TabId, TabId)] {
        &self.parents
    }

    /// Whether the tabs there when the worker started are known.
    pub fn is_started(&self) -> bool {
        self.started
    }

    /// Knows `tab`. Returns whether it was not known.
    fn know(&mut self, tab: TabId) -> bool {
        match self.known.binary_search(&tab) {
            Ok(_) => false,
            Err(at) => {
                self.known.insert(at, tab);
                true
            }
        }
    }

    /// The daemon named the held tabs. A site the browser takes for no
    /// domain (an IPv6 address) is left out of its tab's rule, which
    /// would be refused, and with it the whole write; a tab left with no
    /// site gets none. Returns whether the rules change.
    pub fn set(&mut self, mut held: Vec<OpenedHold>) -> bool {
        for h in &mut held {
            h.sites.retain(|s| domain(s));
        }
        held.retain(|h| !h.sites.is_empty());
        let changed = held != self.held;
        self.held = held;
        changed
    }

    /// Whether any tab is held.
    pub fn holding(&self) -> bool {
        !self.held.is_empty()
    }

    /// The page of `source` opened `tab`. Returns whether the rules
    /// change, and what a block of it that came first means.
    pub fn opened(&mut self, tab: TabId, source: TabId) -> (bool, Option<Blocked>) {
        self.parents.retain(|(t, _)| *t != tab);
        self.parents.push((tab, source));
        let free = self.know(tab) && self.free_line(tab);
        let blocked = match self.unplaced.iter().position(|(t, _)| *t == tab) {
            Some(at) => {
                let (_, url) = self.unplaced.swap_remove(at);
                Some(self.judge(tab, url))
            }
            None => None,
        };
        (free && self.holding(), blocked)
    }

    /// `tab` showed `url` (its main frame committed). Returns whether the
    /// rules change. The blank page a tab opened without a url shows
    /// first changes nothing: the page that opened it may send it on.
    pub fn committed(&mut self, tab: TabId, url: &str) -> bool {
        if url.starts_with("about:") {
            return false;
        }
        self.know(tab) && self.holding() && self.free_line(tab)
    }

    /// `tab` closed. Its place among the tabs that opened one another
    /// stays if it opened one (which keeps its held opener through it).
    /// Returns whether that place went. (So the places kept are about as
    /// many as the tabs open: none is dropped for room, which could free
    /// a tab a held tab's page opened.)
    pub fn removed(&mut self, tab: TabId) -> bool {
        self.known.retain(|t| *t != tab);
        self.unplaced.retain(|(t, _)| *t != tab);
        let before = self.parents.len();
        if !self.parents.iter().any(|(_, p)| *p == tab) {
            self.parents.retain(|(t, _)| *t != tab);
        }
        self.parents.len() != before
    }

    /// The browser blocked `tab`'s main-frame request to `url`
    /// (`net::ERR_BLOCKED_BY_CLIENT`).
    pub fn blocked(&mut self, tab: TabId, url: String) -> Blocked {
        if !self.parents.iter().any(|(t, _)| *t == tab) && !self.known.contains(&tab) {
            // Who opened it is told later (or never: another
            // extension's block of a tab the person made).
            if self.unplaced.len() == UNPLACED {
                self.unplaced.remove(0);
            }
            self.unplaced.push((tab, url));
            return Blocked::Left;
        }
        self.judge(tab, url)
    }

    /// What a block of `tab`, whose opener is known, means.
    fn judge(&mut self, tab: TabId, url: String) -> Blocked {
        match self.line(tab) {
            Line::Held(opener) => Blocked::Refused { opener, url },
            Line::Free if self.holding() && self.parents.iter().any(|(t, _)| *t == tab) => {
                self.know(tab);
                Blocked::Again { url }
            }
            Line::Free | Line::Deep => Blocked::Left,
        }
    }

    /// Whether a held tab's page opened `tab`, or opened a tab that
    /// opened it, and so on: which one, or none, or too far up to tell.
    fn line(&self, tab: TabId) -> Line {
        let mut at = tab;
        for _ in 0..GENERATIONS {
            let Some(&(_, parent)) = self.parents.iter().find(|(t, _)| *t == at) else {
                return Line::Free;
            };
            if self.held.iter().any(|h| h.tab_id == parent) {
                return Line::Held(parent);
            }
            at = parent;
        }
        Line::Deep
    }

    /// Whether no held tab's page opened `tab`, as far up as is looked.
    fn free_line(&self, tab: TabId) -> bool {
        matches!(self.line(tab), Line::Free)
    }

    /// The session rules, one per held tab (ids from 1); none until the
    /// tabs there at the start are known.
    pub fn rules(&self) -> Vec<Rule<'_>> {
        if !self.started {
            return Vec::new();
        }
        let free: Vec<TabId> = self
            .known
            .iter()
            .copied()
            .filter(|t| self.free_line(*t))
            .collect();
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
                    excluded_tab_ids: free.clone(),
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

    fn free(o: &OpenedHolds) -> Value {
        rules(o)[0]["condition"]["excludedTabIds"].clone()
    }

    fn held(tab: i32, sites: &[&str]) -> OpenedHold {
        OpenedHold {
            tab_id: TabId(tab),
            sites: sites.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    fn url() -> String {
        "https://bank.test/pay".to_owned()
    }

    #[test]
    fn a_rule_per_held_tab_blocks_other_sites_from_its_sites_in_tabs_not_free() {
        let mut o = OpenedHolds::default();
        assert!(o.set(vec![held(1, &["example.org"])]));
        assert!(rules(&o).is_empty(), "none before the tabs are known");
        o.started([TabId(1), TabId(2)]);
        assert!(o.set(vec![
            held(1, &["example.com", "[::1]"]),
            held(2, &[]),
            held(3, &["[::1]"]),
            held(4, &["Example.com"]),
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
    fn what_a_held_tab_opens_stays_held_with_what_it_opens_and_the_persons_goes_again() {
        let mut o = OpenedHolds::default();
        o.started([TabId(1), TabId(2)]);
        o.set(vec![held(1, &["example.com"])]);
        // The held tab's page opens tab 3: blocked and refused, and not
        // freed by a page it shows, nor is a tab it opens.
        assert_eq!(o.opened(TabId(3), TabId(1)), (false, None));
        assert_eq!(
            o.blocked(TabId(3), url()),
            Blocked::Refused {
                opener: TabId(1),
                url: url()
            }
        );
        assert!(!o.committed(TabId(3), "https://www.example.com/"));
        o.opened(TabId(4), TabId(3));
        assert!(matches!(
            o.blocked(TabId(4), url()),
            Blocked::Refused {
                opener: TabId(1),
                ..
            }
        ));
        assert_eq!(free(&o), json!([1, 2]));
        // Another tab's page opens tab 5: freed, and if the rules came
        // too late, taken there again.
        assert_eq!(o.opened(TabId(5), TabId(2)), (true, None));
        assert_eq!(o.blocked(TabId(5), url()), Blocked::Again { url: url() });
        // A tab that shows a page is freed, but not by the blank page it
        // shows first.
        assert!(!o.committed(TabId(6), "about:blank"));
        assert!(o.committed(TabId(6), "https://example.com/"));
        assert!(!o.committed(TabId(6), "https://example.com/"), "already");
        assert_eq!(free(&o), json!([1, 2, 5, 6]));
        // Once tab 1 is held no more, what it opened is free.
        o.set(vec![held(2, &["example.com"])]);
        assert_eq!(free(&o), json!([1, 2, 3, 4, 6]), "5 is tab 2's now");
        o.removed(TabId(3));
        assert_eq!(free(&o), json!([1, 2, 4, 6]));
    }

    #[test]
    fn who_opened_what_outlives_the_worker_for_the_tabs_still_there() {
        let mut o = OpenedHolds::default();
        o.started([TabId(1), TabId(2)]);
        o.set(vec![held(1, &["example.com"])]);
        o.opened(TabId(3), TabId(1));
        o.opened(TabId(4), TabId(3));
        o.opened(TabId(5), TabId(2));
        o.opened(TabId(6), TabId(2));
        assert!(o.removed(TabId(6)), "a closed tab that opened none goes");
        assert!(!o.removed(TabId(3)), "one that opened tab 4 stays");
        let kept = o.parents().to_vec();
        assert_eq!(kept.len(), 3);

        // A new worker: tab 4, opened by what tab 1's page opened, is
        // still not free; tab 5's opener is kept, tab 7's (gone) not.
        let mut again = OpenedHolds::default();
        let mut restored = kept;
        restored.push((TabId(7), TabId(1)));
        again.restore(restored);
        // One opened while the worker was starting is kept too.
        again.opened(TabId(8), TabId(4));
        again.started([TabId(1), TabId(2), TabId(4), TabId(5)]);
        again.set(vec![held(1, &["example.com"])]);
        assert_eq!(free(&again), json!([1, 2, 5]));
        assert_eq!(
            again.parents(),
            [
                (TabId(4), TabId(3)),
                (TabId(3), TabId(1)),
                (TabId(5), TabId(2)),
                (TabId(8), TabId(4))
            ]
        );
        assert!(matches!(
            again.blocked(TabId(8), url()),
            Blocked::Refused {
                opener: TabId(1),
                ..
            }
        ));
        assert!(matches!(
            again.blocked(TabId(4), url()),
            Blocked::Refused {
                opener: TabId(1),
                ..
            }
        ));
    }

    #[test]
    fn a_line_too_long_to_follow_is_not_free_and_none_goes_for_room() {
        let mut o = OpenedHolds::default();
        o.started([TabId(1)]);
        o.set(vec![held(1, &["example.com"])]);
        // Each tab opened by the one before, and shown a page.
        for t in 2..(GENERATIONS as i32 + 10) {
            o.opened(TabId(t), TabId(t - 1));
            o.committed(TabId(t), "https://example.com/");
        }
        // Many more tabs the person's tab 900 opened, none dropping a
        // place.
        o.started([TabId(900)]);
        for t in 1000..1600 {
            o.opened(TabId(t), TabId(900));
        }
        let free = free(&o);
        let free = free.as_array().expect("a list");
        assert!(
            (2..GENERATIONS as i64 + 10).all(|t| !free.contains(&json!(t))),
            "no tab the held page's line reaches is free: {free:?}"
        );
        assert!(free.contains(&json!(1599)), "the person's are");
        assert_eq!(
            o.blocked(TabId(GENERATIONS as i32 + 5), url()),
            Blocked::Left
        );
        assert!(matches!(
            o.blocked(TabId(3), url()),
            Blocked::Refused { .. }
        ));
    }

    #[test]
    fn a_block_told_before_its_opener_is_judged_once_the_opener_is_known() {
        let mut o = OpenedHolds::default();
        o.started([TabId(1), TabId(2)]);
        o.set(vec![held(1, &["example.com"])]);
        assert_eq!(o.blocked(TabId(3), url()), Blocked::Left);
        assert_eq!(
            o.opened(TabId(3), TabId(1)),
            (
                false,
                Some(Blocked::Refused {
                    opener: TabId(1),
                    url: url()
                })
            )
        );
        assert_eq!(o.blocked(TabId(4), url()), Blocked::Left);
        assert_eq!(
            o.opened(TabId(4), TabId(2)),
            (true, Some(Blocked::Again { url: url() }))
        );
    }

    #[test]
    fn with_nothing_held_a_blocked_tab_is_left_and_no_rule_changes() {
        let mut o = OpenedHolds::default();
        o.started([TabId(1)]);
        assert_eq!(o.opened(TabId(3), TabId(1)), (false, None));
        assert!(!o.committed(TabId(4), "https://example.com/"));
        assert_eq!(o.blocked(TabId(3), url()), Blocked::Left);
    }
}
