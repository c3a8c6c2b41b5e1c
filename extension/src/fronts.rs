//! Which tab is in front in each window, and which was before it, from
//! `chrome.tabs.onActivated`, without browser APIs: so a tab a shared
//! page opens from behind the person's tab (a link with a target, which
//! the browser brings to the front) can give the front back to the tab the
//! person was on.

use cotab_shared::TabId;

/// The front tab of each window and the one before it. A handful of
/// windows at most, so a plain vector.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fronts {
    windows: Vec<(i32, TabId, Option<TabId>)>,
}

impl Fronts {
    /// `tab` came to the front of `window`.
    pub fn activated(&mut self, window: i32, tab: TabId) {
        match self.windows.iter_mut().find(|(w, _, _)| *w == window) {
            Some((_, front, before)) if *front != tab => {
                *before = Some(*front);
                *front = tab;
            }
            Some(_) => {}
            None => self.windows.push((window, tab, None)),
        }
    }

    /// `tab` closed: it is no tab to go back to.
    pub fn closed(&mut self, tab: TabId) {
        for (_, _, before) in &mut self.windows {
            if *before == Some(tab) {
                *before = None;
            }
        }
    }

    /// The tab to bring back to the front of `window` now that `opened`,
    /// which the page of `opener` opened, is there: the one the person was
    /// on, unless that was `opener` itself (the person opened it from
    /// there, and went with it).
    pub fn give_back(&self, window: i32, opened: TabId, opener: TabId) -> Option<TabId> {
        let (_, front, before) = self.windows.iter().find(|(w, _, _)| *w == window)?;
        (*front == opened)
            .then_some(*before)
            .flatten()
            .filter(|b| *b != opener)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tab_opened_from_behind_gives_the_front_back() {
        let (person, shared, opened) = (TabId(1), TabId(2), TabId(3));
        let mut f = Fronts::default();
        f.activated(10, shared);
        f.activated(10, person);
        f.activated(10, opened);
        assert_eq!(f.give_back(10, opened, shared), Some(person));
        // Another window, or a tab not in front, gives nothing back.
        assert_eq!(f.give_back(11, opened, shared), None);
        assert_eq!(f.give_back(10, TabId(9), shared), None);
        // The person went back already, or closed their tab.
        f.activated(10, person);
        assert_eq!(f.give_back(10, opened, shared), None);
        f.activated(10, opened);
        f.closed(person);
        assert_eq!(f.give_back(10, opened, shared), None);
    }

    #[test]
    fn a_tab_opened_from_the_front_keeps_it() {
        let (shared, opened) = (TabId(2), TabId(3));
        let mut f = Fronts::default();
        f.activated(10, TabId(1));
        f.activated(10, shared);
        f.activated(10, opened);
        assert_eq!(f.give_back(10, opened, shared), None);
        f.activated(10, opened);
        assert_eq!(
            f.give_back(10, opened, shared),
            None,
            "activating again changes nothing"
        );
    }
}
