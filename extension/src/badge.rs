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
    /// Shared, the person has taken control: agents may only read it.
    Person,
}

impl Badge {
    /// The badge's text (empty: none).
    pub fn text(self) -> &'static str {
        match self {
            Badge::Off => "",
            Badge::Shared => "ON",
            Badge::Agent => "AI",
            Badge::Person => "YOU",
        }
    }

    /// The badge's background colour (CSS).
    pub fn color(self) -> &'static str {
        match self {
            // Attention: something else acts on the person's page.
            Badge::Agent => "#c5221f",
            Badge::Person => "#137333",
            Badge::Shared | Badge::Off => "#5f6368",
        }
    }

    /// The icon's tooltip on the tab.
    pub fn title(self, holder: Option<&Holder>) -> String {
        match (self, holder) {
            // The manifest's `default_title`.
            (Badge::Off, _) => "cotab".to_owned(),
            (Badge::Shared, _) => "cotab: shared, no agent has control".to_owned(),
            (Badge::Agent, Some(Holder::Agent { name })) => {
                format!("cotab: agent {name} has control of this tab")
            }
            (Badge::Agent, _) => "cotab: an agent has control of this tab".to_owned(),
            (Badge::Person, _) => "cotab: you have control of this tab".to_owned(),
        }
    }
}

/// The badge of every shared tab, in share order. The person's control
/// (the extension's own flag) wins over the daemon's word, which may lag.
pub fn badges(machine: &Machine) -> Vec<(TabId, Badge)> {
    machine
        .shared
        .ids()
        .iter()
        .map(|&tab| {
            let badge = if machine.shared.is_human(tab) {
                Badge::Person
            } else if matches!(machine.holders.get(&tab), Some(Holder::Agent { .. })) {
                Badge::Agent
            } else {
                Badge::Shared
            };
            (tab, badge)
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use cotab_shared::native::TabControl;

    #[test]
    fn each_tab_shows_who_controls_it_and_the_person_wins() {
        let mut m = Machine::default();
        assert!(badges(&m).is_empty());
        m.shared
            .finish_restore(vec![TabId(1), TabId(2), TabId(3)], &[]);
        m.controllers(vec![
            TabControl {
                tab_id: TabId(2),
                holder: Holder::Agent { name: "ada".into() },
            },
            TabControl {
                tab_id: TabId(3),
                holder: Holder::Agent { name: "ada".into() },
            },
        ]);
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
        for b in [Badge::Off, Badge::Shared, Badge::Agent, Badge::Person] {
            assert!(b.text().len() <= 4, "a badge holds about four characters");
            assert!(b.color().starts_with('#'));
        }
    }
}
