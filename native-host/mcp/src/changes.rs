//! What an action's answer shows of the page ([`SnapshotMode`]): by
//! default what changed in the outline since the one the model was last
//! shown of that tab, as a diff of its lines; the whole outline when there
//! is none to compare with, the page navigated, or the change is no
//! shorter than the outline itself. Refs stay the same from one snapshot
//! of a document to the next (docs/protocol.md), so the refs the model
//! holds stay valid and the diff names the new ones.

pub(crate) use cotab_core::outline::changes::Shows;
use cotab_core::outline::changes::{compare, Seen as Given, DIFF_TIME};
use cotab_core::outline::own_ref;
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

/// A value an action just gave an element: the model knows it, so a line
/// that shows the element with it is not a change to tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Set {
    /// Typed into a text box, its value replaced.
    Text(String),
    /// A checkbox or radio checked or not.
    Checked(bool),
    /// A combobox's option picked by its text.
    Chosen(String),
}

impl Set {
    /// Whether `line`, an element's outline line, shows it with this value.
    fn shown_in(&self, line: &str) -> bool {
        let ends =
            |v: &str| line.ends_with(&format!(": {v}")) || line.ends_with(&format!(": \"{v}\""));
        match self {
            Set::Text(v) | Set::Chosen(v) => ends(v),
            Set::Checked(c) => line.contains("[checked]") == *c,
        }
    }

    /// `line` without what this value and the focus show on it: the part
    /// that must stay the same for the line to be no news.
    fn rest_of(&self, line: &str) -> String {
        let line = match self {
            // The value follows the ref.
            Set::Text(_) | Set::Chosen(_) => ref_end(line).map_or(line, |end| &line[..end]),
            Set::Checked(_) => line,
        };
        line.replace(" [checked]", "").replace(" [active]", "")
    }
}

/// Where an outline line's own ref ends (after its `]`).
fn ref_end(line: &str) -> Option<usize> {
    own_ref(line).map(|r| r.end + 1)
}

/// The ref on an outline line (`[ref=e12]` → `e12`).
fn ref_on(line: &str) -> Option<&str> {
    own_ref(line).map(|r| &line[r])
}

/// `old` as the model knows the page after the action that gave the
/// elements of `set` their values: each of their lines as `new` shows it,
/// where it shows the value given and differs from the old one in nothing
/// else but the focus (a value the page changed or refused, a field it
/// disabled or renamed, stays a change).
fn known(old: &str, new: &str, set: &[(String, Set)]) -> Option<String> {
    if set.is_empty() {
        return None;
    }
    let now: HashMap<&str, &str> = new
        .lines()
        .filter_map(|l| {
            let r = ref_on(l)?;
            set.iter().any(|(t, _)| t == r).then_some((r, l))
        })
        .collect();
    let mut out = String::with_capacity(old.len());
    for (i, line) in old.lines().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let given = ref_on(line).and_then(|r| {
            let (_, value) = set.iter().rev().find(|(t, _)| t == r)?;
            let shown = now.get(r)?;
            let same = value.rest_of(line) == value.rest_of(shown);
            (same && value.shown_in(shown)).then_some(*shown)
        });
        out.push_str(given.unwrap_or(line));
    }
    Some(out)
}

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
    pub(crate) fn show(
        &mut self,
        tab: TabId,
        s: &SnapshotResult,
        shown: usize,
        set: &[(String, Set)],
    ) -> Shows {
        let old = self.by_tab.get(&tab);
        let same = old.filter(|old| old.page == page_of(&s.url));
        let patched = same.and_then(|old| known(&old.text, &s.text, set));
        let given = match (old, same) {
            (None, _) => None,
            (Some(_), None) => Some(Given::Other),
            (Some(_), Some(old)) => Some(Given::Same(patched.as_deref().unwrap_or(&old.text))),
        };
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

    #[test]
    fn a_value_the_action_gave_is_known_and_one_the_page_changed_is_not() {
        let old = "- form\n  - textbox \"Name\" [ref=e3]\n  - textbox \"Zip\" [ref=e4]\n  - checkbox \"Terms\" [ref=e5]";
        let new = "- form\n  - textbox \"Name\" [ref=e3]: Ada\n  - textbox \"Zip\" [ref=e4]: \"123\"\n  - checkbox \"Terms\" [checked] [ref=e5]";
        let set = [
            ("e3".to_owned(), Set::Text("Ada".into())),
            ("e4".to_owned(), Set::Text("12345".into())),
            ("e5".to_owned(), Set::Checked(true)),
        ];
        let known = known(old, new, &set).expect("patched");
        // A field the page also disabled or renamed is news.
        let disabled = new.replace("[ref=e3]: Ada", "[disabled] [ref=e3]: Ada");
        let kept = super::known(old, &disabled, &set).expect("patched");
        assert!(kept.contains("  - textbox \"Name\" [ref=e3]\n"), "{kept}");
        let renamed = new.replace("\"Terms\" [checked]", "\"Terms!\" [checked]");
        let kept = super::known(old, &renamed, &set).expect("patched");
        assert!(kept.ends_with("- checkbox \"Terms\" [ref=e5]"), "{kept}");
        // Name and Terms as given; the page cut Zip short: still a change.
        assert_eq!(
            known,
            "- form\n  - textbox \"Name\" [ref=e3]: Ada\n  - textbox \"Zip\" [ref=e4]\n  - checkbox \"Terms\" [checked] [ref=e5]"
        );
        assert_eq!(
            compare(Some(Given::Same(&known)), new, false, 0, None),
            Shows::Changes(
                " - form\n   - textbox \"Name\" [ref=e3]: Ada\n-  - textbox \"Zip\" [ref=e4]\n+  - textbox \"Zip\" [ref=e4]: \"123\"\n"
                    .into()
            )
        );
    }

    impl Seen {
        /// [`Seen::show`] of an outline shown whole.
        fn show_all(&mut self, tab: TabId, s: &SnapshotResult) -> Shows {
            self.show(tab, s, s.text.len(), &[])
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
