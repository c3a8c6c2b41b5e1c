//! The toolbar icon's badge on each tab: whether the tab is shared and who
//! controls it, so the person sees at a glance that an agent is acting
//! there. Decided from what the worker knows (the shared set, the person's
//! control, the daemon's word on the lease); the worker sets it with
//! `chrome.action` and changes only the tabs whose badge changed.

use crate::machine::Machine;
use cotab_shared::native::Holder;
use cotab_shared::TabId;

/// What one tab's badge shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Badge {
    /// Not shared: no badge.
    Off,
    /// Shared, nobody holds the control lease.
    Shared,
    /// Shared, an agent holds the lease: it may act on the tab now.
    Agent,
    /// Shared, an agent holds the lease and a request of its waits for
    /// the person's yes (in the side panel).
    Asks,
    /// Shared, the person has taken control: agents may only read it.
    Person,
    /// Shared and a video of it is being recorded (the person's or an
    /// agent's); only a request waiting for the person shows over it.
    Rec,
}

impl Badge {
    /// The badge's text (empty: none).
    pub fn text(self) -> &'static str {
        match self {
            Badge::Off => "",
            Badge::Shared => "ON",
            Badge::Agent => "AI",
            Badge::Asks => "ASK",
            Badge::Person => "YOU",
            Badge::Rec => "REC",
        }
    }

    /// The badge's background colour (CSS).
    pub fn color(self) -> &'static str {
        match self {
            // Attention: something else acts on the person's page.
            Badge::Agent => "#c5221f",
            // The person's answer is wanted.
            Badge::Asks => "#b06000",
            Badge::Person => "#137333",
            Badge::Rec => "#a50e0e",
            Badge::Shared | Badge::Off => "#5f6368",
        }
    }

    /// The icon's tooltip on the tab.
    pub fn title(self, holder: Option<&Holder>) -> String {
        match (self, holder) {
            // The manifest's `default_title`.
            (Badge::Off, _) => "cotab".to_owned(),
            (Badge::Shared, _) => "cotab: shared, no agent has control".to_owned(),
            (Badge::Agent, Some(Holder::Agent { name, .. })) => {
                format!("cotab: agent {name} has control of this tab")
            }
            (Badge::Asks, _) => {
                "cotab: an agent's request waits for your yes in the side panel".to_owned()
            }
            (Badge::Agent, _) => "cotab: an agent has control of this tab".to_owned(),
            (Badge::Person, _) => "cotab: you have control of this tab".to_owned(),
            (Badge::Rec, _) => "cotab: a video of this tab is being recorded".to_owned(),
        }
    }
}

/// The title of a `cotab` tab group that holds the shared tabs for which
/// `member` holds: who works in it (`ada working · cotab`, the agent of
/// its first tab in share order named; `ada waiting for you · cotab`
/// while a request waits for the person's yes in one of them, as its
/// badge says `ASK`), else the person's control (`you have control ·
/// cotab`), else `cotab`.
pub fn group_title(machine: &Machine, member: impl Fn(TabId) -> bool) -> String {
    let mut first: Option<&str> = None;
    let mut others = false;
    let mut person = false;
    let mut asks = false;
    for &tab in machine.shared.ids() {
        if !member(tab) {
            continue;
        }
        let holder = machine.holders.get(&tab);
        let badge = badge_of(machine, tab);
        asks |= badge == Badge::Asks;
        let name = match (badge, holder) {
            (Badge::Agent | Badge::Asks, Some(Holder::Agent { name, .. })) => name.as_str(),
            (Badge::Agent | Badge::Asks, _) => "an agent",
            (Badge::Person, _) => {
                person = true;
                continue;
            }
            _ => continue,
        };
        match first {
            None => first = Some(name),
            Some(f) if f != name => others = true,
            Some(_) => {}
        }
    }
    let mut title = String::new();
    match first {
        Some(name) => {
            title.push_str(name);
            if others {
                title.push_str(" and others");
            }
            title.push_str(if asks { " waiting for you" } else { " working" });
        }
        None if person => title.push_str("you have control"),
        None => {}
    }
    if !title.is_empty() {
        title.push_str(cotab_shared::TAB_GROUP_SEPARATOR);
    }
    title.push_str(cotab_shared::TAB_GROUP_TITLE);
    title
}

/// The badge of every shared tab, in share order. The person's control
/// (the extension's own flag) wins over the daemon's word, which may lag.
pub fn badges(machine: &Machine) -> Vec<(TabId, Badge)> {
    machine
        .shared
        .ids()
        .iter()
        .map(|&tab| match badge_of(machine, tab) {
            Badge::Asks => (tab, Badge::Asks),
            _ if machine.recorded.contains(&tab) => (tab, Badge::Rec),
            badge => (tab, badge),
        })
        .collect()
}

/// The badge of shared tab `tab`.
fn badge_of(machine: &Machine, tab: TabId) -> Badge {
    if machine.shared.is_human(tab) {
        Badge::Person
    } else if let Some(Holder::Agent { waiting, .. }) = machine.holders.get(&tab) {
        if *waiting {
            Badge::Asks
        } else {
            Badge::Agent
        }
    } else {
        Badge::Shared
    }
}

/// What to set to go from the badges `shown` to `now`: every tab whose
/// badge changed, and `Off` for each tab that is no longer listed.
pub fn changes(shown: &[(TabId, Badge)], now: &[(TabId, Badge)]) -> Vec<(TabId, Badge)> {
    let mut out: Vec<(TabId, Badge)> = now
        .iter()
        .filter(|entry| !shown.contains(entry))
        .copied()
        .collect();
    out.extend(
        shown
            .iter()
            .filter(|(tab, badge)| *badge != Badge::Off && !now.iter().any(|(t, _)| t == tab))
            .map(|&(tab, _)| (tab, Badge::Off)),
    );
    out
}

/// The start of the id of the notification that a request waits in a
/// tab ([`ask_notice`]); the tab's id follows.
const ASK_NOTICE: &str = "cotab-ask-";

/// The system notification shown while a request waits for the
/// person's yes in `tab` ([`Badge::Asks`]) and no side panel is open:
/// its id, title and message. `holder` says whose request it is;
/// `tab_title` is the tab's title as the person knows it. What the
/// request would do is shown in the side panel, never here: a system
/// notification may be kept by the desktop after cotab clears it.
pub fn ask_notice(
    tab: TabId,
    holder: Option<&Holder>,
    tab_title: &str,
) -> (String, String, String) {
    let who = match holder {
        Some(Holder::Agent { name, .. }) => format!("Agent {name}"),
        _ => "An agent".to_owned(),
    };
    let title = format!("{who} waits for your yes");
    let place = if tab_title.is_empty() {
        "In a shared tab".to_owned()
    } else {
        format!("In \u{201c}{tab_title}\u{201d}")
    };
    let message = format!(
        "{place}. Click to open cotab's side panel and approve or deny; unanswered, it is refused."
    );
    (format!("{ASK_NOTICE}{}", tab.0), title, message)
}

/// The tab of notification `id`, if it is an [`ask_notice`].
pub fn ask_notice_tab(id: &str) -> Option<TabId> {
    id.strip_prefix(ASK_NOTICE)?.parse().ok().map(TabId)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cotab_shared::native::TabControl;

    #[test]
    fn a_groups_title_says_who_works_in_it_else_that_the_person_has_control() {
        let agent = |tab: i32, name: &str| TabControl {
            tab_id: TabId(tab),
            holder: Holder::agent(name),
        };
        let mut m = Machine::default();
        m.shared
            .finish_restore(vec![TabId(1), TabId(2), TabId(3), TabId(4)], &[]);
        let all = |_: TabId| true;
        assert_eq!(group_title(&m, all), "cotab");
        m.take_control(TabId(2)).expect("shared");
        assert_eq!(group_title(&m, all), "you have control · cotab");
        m.controllers(vec![agent(3, "bob")], vec![]);
        // An agent at work in another tab of the group is what is news.
        assert_eq!(group_title(&m, all), "bob working · cotab");
        m.controllers(
            vec![agent(3, "bob"), agent(1, "ada"), agent(4, "bob")],
            vec![],
        );
        assert_eq!(group_title(&m, all), "ada and others working · cotab");
        // Only the group's own tabs count.
        assert_eq!(
            group_title(&m, |t| t == TabId(3) || t == TabId(4)),
            "bob working · cotab"
        );
        assert_eq!(
            group_title(&m, |t| t == TabId(2)),
            "you have control · cotab"
        );
        assert_eq!(group_title(&m, |_| false), "cotab");
        for title in ["cotab", "ada working · cotab", "you have control · cotab"] {
            assert!(cotab_shared::is_tab_group_title(title), "{title}");
        }
        for title in [
            "cotabs",
            "Cotab",
            "work",
            "",
            "x·cotab",
            "my cotab",
            "cotab · ada",
        ] {
            assert!(!cotab_shared::is_tab_group_title(title), "{title}");
        }
    }

    #[test]
    fn each_tab_shows_who_controls_it_and_the_person_wins() {
        let mut m = Machine::default();
        assert!(badges(&m).is_empty());
        m.shared
            .finish_restore(vec![TabId(1), TabId(2), TabId(3)], &[]);
        m.controllers(
            vec![
                TabControl {
                    tab_id: TabId(2),
                    holder: Holder::agent("ada"),
                },
                TabControl {
                    tab_id: TabId(3),
                    holder: Holder::agent("ada"),
                },
            ],
            vec![],
        );
        m.take_control(TabId(3)).expect("shared");
        assert_eq!(
            badges(&m),
            vec![
                (TabId(1), Badge::Shared),
                (TabId(2), Badge::Agent),
                (TabId(3), Badge::Person)
            ]
        );
        let holder = m.holders.get(&TabId(2));
        assert_eq!(
            Badge::Agent.title(holder),
            "cotab: agent ada has control of this tab"
        );
        // A request of the agent waits for the person's yes: the badge
        // asks for it, so a person with no side panel open sees it.
        let waiting = vec![TabControl {
            tab_id: TabId(2),
            holder: Holder::Agent {
                name: "ada".into(),
                waiting: true,
            },
        }];
        m.controllers(waiting.clone(), vec![]);
        assert_eq!(badges(&m)[1], (TabId(2), Badge::Asks));
        assert_eq!(Badge::Asks.text(), "ASK");
        // A video of a tab: `REC` over who controls it, but not over a
        // request waiting for the person.
        m.controllers(waiting, vec![TabId(1), TabId(2), TabId(3)]);
        assert_eq!(
            badges(&m),
            vec![
                (TabId(1), Badge::Rec),
                (TabId(2), Badge::Asks),
                (TabId(3), Badge::Rec)
            ]
        );
        assert_eq!(Badge::Rec.text(), "REC");
        assert_eq!(
            Badge::Asks.title(m.holders.get(&TabId(2))),
            "cotab: an agent's request waits for your yes in the side panel"
        );
        let (id, title, message) = ask_notice(TabId(2), m.holders.get(&TabId(2)), "Inbox");
        assert_eq!(ask_notice_tab(&id), Some(TabId(2)));
        assert_eq!(title, "Agent ada waits for your yes");
        assert!(
            message.starts_with("In \u{201c}Inbox\u{201d}. Click"),
            "{message}"
        );
        assert_eq!(ask_notice_tab("cotab-ask-x"), None);
        assert_eq!(ask_notice_tab("other-2"), None);
        assert_eq!(group_title(&m, |_| true), "ada waiting for you · cotab");
        m.controllers(
            vec![TabControl {
                tab_id: TabId(2),
                holder: Holder::agent("ada"),
            }],
            vec![],
        );
        assert_eq!(group_title(&m, |_| true), "ada working · cotab");
        // The link drops: the daemon's word is gone, the person's stays.
        let _ = m.link_dropped("gone".into());
        assert_eq!(
            badges(&m),
            vec![
                (TabId(1), Badge::Shared),
                (TabId(2), Badge::Shared),
                (TabId(3), Badge::Person)
            ]
        );
    }

    #[test]
    fn only_changed_badges_are_set_and_unshared_tabs_lose_theirs() {
        let shown = [(TabId(1), Badge::Shared), (TabId(2), Badge::Agent)];
        assert!(changes(&shown, &shown).is_empty());
        assert_eq!(
            changes(&shown, &[(TabId(2), Badge::Person)]),
            vec![(TabId(2), Badge::Person), (TabId(1), Badge::Off)]
        );
        assert_eq!(
            changes(&[], &[(TabId(4), Badge::Shared)]),
            vec![(TabId(4), Badge::Shared)]
        );
        assert_eq!(changes(&[(TabId(4), Badge::Off)], &[]), vec![]);
        for b in [
            Badge::Off,
            Badge::Shared,
            Badge::Agent,
            Badge::Asks,
            Badge::Person,
        ] {
            assert!(b.text().len() <= 4, "a badge holds about four characters");
            assert!(b.color().starts_with('#'));
        }
    }
}
