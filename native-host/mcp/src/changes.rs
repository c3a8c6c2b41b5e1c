//! What an action's answer shows of the page ([`SnapshotMode`]): by
//! default what changed in the outline since the one the model was last
//! shown of that tab, as a diff of its lines; the whole outline when there
//! is none to compare with, the page navigated, or the change is no
//! shorter than the outline itself. Refs stay the same from one snapshot
//! of a document to the next (docs/protocol.md), so the refs the model
//! holds stay valid and the diff names the new ones.

pub(crate) use cotab_core::outline::changes::Shows;
use cotab_core::outline::changes::{compare, Seen as Given, DIFF_TIME};
use cotab_shared::controller::SnapshotResult;
use cotab_shared::TabId;
use std::collections::HashMap;
use std::time::Instant;

/// What an action's answer shows of the page, as Playwright MCP's
/// `--snapshot-mode` names it, and cotab's `diff`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum SnapshotMode {
    /// What changed since the outline the model was last shown of the
    /// tab; the whole outline when that cannot be said more briefly.
    #[default]
    Diff,
    /// The whole outline after every action.
    Full,
    /// No outline: the model calls `browser_snapshot` when it needs one.
    None,
}

/// What the model reads in a diff answer before the diff itself.
pub(crate) const CHANGES_PREAMBLE: &str = "Changed since your last snapshot of this page \
    (+ added, - removed; unmarked lines show where; your refs stay valid):";

/// The outline the model was last shown of each tab.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    by_tab: HashMap<TabId, Shown>,
}

#[derive(Debug)]
struct Shown {
    /// The page's url without its fragment: another url is another
    /// document.
    page: String,
    text: String,
}

/// The page's url without its fragment.
fn page_of(url: &str) -> &str {
    url.split_once('#').map_or(url, |(page, _)| page)
}

impl Seen {
    /// The model is shown `s` of `tab` whole.
    pub(crate) fn shown(&mut self, tab: TabId, s: &SnapshotResult) {
        if s.truncated {
            self.by_tab.remove(&tab);
            return;
        }
        let shown = Shown {
            page: page_of(&s.url).to_owned(),
            text: s.text.clone(),
        };
        self.by_tab.insert(tab, shown);
    }

    /// The tab is gone, or what the model saw of it no longer counts.
    pub(crate) fn forget(&mut self, tab: TabId) {
        self.by_tab.remove(&tab);
    }

    /// What to show of `s`, the whole outline of `tab` after an action,
    /// which the model would be shown in `shown` bytes (cut at the
    /// snapshot limit), and notes that the model has seen it. Changes are
    /// given only when they are shorter than that.
    pub(crate) fn show(&mut self, tab: TabId, s: &SnapshotResult, shown: usize) -> Shows {
        let given = self.by_tab.get(&tab).map(|old| {
            if old.page == page_of(&s.url) {
                Given::Same(&old.text)
            } else {
                Given::Other
            }
        });
        let deadline = Instant::now().checked_add(DIFF_TIME);
        // What the answer says before the changes, and what of the
        // outline would not be shown whole, both count against them.
        let preamble = CHANGES_PREAMBLE.len() + s.text.len().saturating_sub(shown);
        let shows = compare(given, &s.text, s.truncated, preamble, deadline);
        self.shown(tab, s);
        shows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Seen {
        /// [`Seen::show`] of an outline shown whole.
        fn show_all(&mut self, tab: TabId, s: &SnapshotResult) -> Shows {
            self.show(tab, s, s.text.len())
        }
    }
    use cotab_core::outline::changes::Why;

    #[test]
    fn another_document_or_a_cut_outline_is_shown_whole() {
        let s = |url: &str, text: &str, truncated| SnapshotResult {
            url: url.into(),
            title: String::new(),
            text: text.into(),
            refs: 0,
            truncated,
            file_chooser: None,
            changes: None,
            whole_because: None,
        };
        let long = "- a\n".repeat(100);
        let longer = format!("{long}- b\n");
        let mut seen = Seen::default();
        let t = TabId(1);
        assert_eq!(
            seen.show_all(t, &s("http://x/", &long, false)),
            Shows::Whole(None)
        );
        assert_eq!(
            seen.show_all(t, &s("http://x/#f", &long, false)),
            Shows::Same
        );
        assert!(matches!(
            seen.show_all(t, &s("http://x/", &longer, false)),
            Shows::Changes(_)
        ));
        assert_eq!(
            seen.show_all(t, &s("http://y/", &longer, false)),
            Shows::Whole(Some(Why::Navigated))
        );
        assert_eq!(
            seen.show_all(t, &s("http://y/", &long, true)),
            Shows::Whole(Some(Why::Cut))
        );
        // A cut outline is not one to compare with.
        assert_eq!(
            seen.show_all(t, &s("http://y/", &long, false)),
            Shows::Whole(None)
        );
        assert_eq!(
            seen.show_all(t, &s("http://y/", "- c\n", false)),
            Shows::Whole(Some(Why::Long))
        );
        seen.forget(t);
        assert_eq!(
            seen.show_all(t, &s("http://y/", &long, false)),
            Shows::Whole(None)
        );
        assert_eq!(
            seen.show_all(TabId(2), &s("http://y/", &long, false)),
            Shows::Whole(None)
        );
    }
}
