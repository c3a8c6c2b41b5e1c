//! What an action's answer shows of the page ([`SnapshotMode`]): by
//! default what changed in the outline since the one the model was last
//! shown of that tab, as a diff of its lines; the whole outline when there
//! is none to compare with, the page navigated, or the change is no
//! shorter than the outline itself. Refs stay the same from one snapshot
//! of a document to the next (docs/protocol.md), so the refs the model
//! holds stay valid and the diff names the new ones.

use cotab_shared::controller::SnapshotResult;
use cotab_shared::TabId;
use similar::{ChangeTag, DiffTag, TextDiff};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::Duration;

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

/// Why the whole outline comes after an action on a page the model saw:
/// another document, numbered afresh.
pub(crate) const WHY_NAVIGATED: &str =
    "another page than in your last snapshot of this tab, with new refs";
/// … an outline cut at the snapshot limit, which no diff can be told of.
pub(crate) const WHY_CUT: &str = "the outline is cut at the snapshot limit";
/// … a change no shorter than the page.
pub(crate) const WHY_LONG: &str = "the page changed as much as its outline is long";

/// How long a diff may take before the answer gives the whole outline.
const DIFF_TIMEOUT: Duration = Duration::from_millis(50);

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

/// What to show of a new outline.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Shows {
    /// The whole outline, and why not what changed when the model saw the
    /// tab's page before.
    Whole(Option<&'static str>),
    /// Nothing changed.
    Same,
    /// The lines that changed (see [`diff`]).
    Changes(String),
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

    /// What to show of `s`, the outline of `tab` after an action, and
    /// notes that the model has seen it.
    pub(crate) fn show(&mut self, tab: TabId, s: &SnapshotResult) -> Shows {
        let shows = match self.by_tab.get(&tab) {
            None => Shows::Whole(None),
            Some(_) if s.truncated => Shows::Whole(Some(WHY_CUT)),
            Some(old) if old.page != page_of(&s.url) => Shows::Whole(Some(WHY_NAVIGATED)),
            Some(old) => {
                let d = diff(&old.text, &s.text);
                if d.is_empty() {
                    Shows::Same
                } else if d.len() + CHANGES_PREAMBLE.len() < s.text.len() {
                    Shows::Changes(d)
                } else {
                    Shows::Whole(Some(WHY_LONG))
                }
            }
        };
        self.shown(tab, s);
        shows
    }
}

/// The number of leading spaces of `line`: its depth in the outline.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The lines of `new` that changed from `old`, as a unified diff without
/// line numbers: `+` added, `-` removed, a space before the lines shown
/// only to say where the change is (the ancestors of its first line and
/// the line before it, those not shown already), `@@` between two
/// places. Empty when nothing changed. A diff that runs out of time ([`DIFF_TIMEOUT`]) is coarser,
/// never wrong.
pub(crate) fn diff(old: &str, new: &str) -> String {
    // Compared line by line, so an outline's last line, which has no
    // newline, is the same line once another follows it.
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let d = TextDiff::configure()
        .timeout(DIFF_TIMEOUT)
        .diff_slices(&old_lines, &new_lines);
    let mut out = String::new();
    // New lines already written, as context or added: not written again.
    let mut written = vec![false; new_lines.len()];
    for group in d.grouped_ops(0) {
        // Grouped without context, a group may still open with an empty
        // run of equal lines.
        let Some(first) = group.iter().find(|op| op.tag() != DiffTag::Equal) else {
            continue;
        };
        let at = first.new_range().start;
        let depth = d
            .iter_changes(first)
            .next()
            .map_or(0, |c| indent(c.value()));
        // The ancestors of the change's first line, nearest last, and the
        // line just before it, so an added line's place among its
        // siblings is plain.
        let mut ancestors = Vec::new();
        if let Some(before) = at.checked_sub(1).filter(|i| *i < new_lines.len()) {
            if indent(new_lines[before]) >= depth {
                ancestors.push(before);
            }
        }
        let mut below = depth;
        for (i, line) in new_lines[..at.min(new_lines.len())]
            .iter()
            .enumerate()
            .rev()
        {
            if below == 0 {
                break;
            }
            if indent(line) < below {
                below = indent(line);
                ancestors.push(i);
            }
        }
        if !out.is_empty() {
            out.push_str("@@\n");
        }
        for i in ancestors.into_iter().rev() {
            if !written[i] {
                written[i] = true;
                let _ = writeln!(out, " {}", new_lines[i]);
            }
        }
        for op in &group {
            for change in d.iter_changes(op) {
                let line = change.value();
                let sign = match change.tag() {
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                    ChangeTag::Equal => ' ',
                };
                if let Some(i) = change.new_index() {
                    written[i] = true;
                }
                let _ = writeln!(out, "{sign}{line}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_changed_is_an_empty_diff() {
        assert_eq!(diff("- a\n  - b\n", "- a\n  - b\n"), "");
    }

    #[test]
    fn a_removed_line_is_shown_under_its_ancestors_and_each_ancestor_once() {
        let old = "- list\n  - item \"1\"\n    - button \"x\" [ref=e1]\n  - item \"2\"\n    - button \"y\" [ref=e2]\n    - button \"z\" [ref=e3]\n";
        let new = "- list\n  - item \"1\"\n  - item \"2\"\n    - button \"y\" [ref=e2]\n";
        assert_eq!(
            diff(old, new),
            " - list\n   - item \"1\"\n-    - button \"x\" [ref=e1]\n@@\n   - item \"2\"\n     - button \"y\" [ref=e2]\n-    - button \"z\" [ref=e3]\n"
        );
    }

    #[test]
    fn a_line_added_at_the_end_shows_the_one_before_it_as_it_was() {
        assert_eq!(diff("- a\n", "- a\n- b\n"), " - a\n+- b\n");
        // Outlines end without a newline: the last line is not shown
        // removed and added again.
        assert_eq!(diff("- a", "- a\n- b"), " - a\n+- b\n");
        assert_eq!(diff("- a\n- b", "- a"), " - a\n-- b\n");
        assert_eq!(diff("- a", "- b"), "-- a\n+- b\n");
        assert_eq!(diff("", "- a"), "+- a\n");
    }

    #[test]
    fn another_document_or_a_cut_outline_is_shown_whole() {
        let s = |url: &str, text: &str, truncated| SnapshotResult {
            url: url.into(),
            title: String::new(),
            text: text.into(),
            refs: 0,
            truncated,
            file_chooser: None,
        };
        let long = "- a\n".repeat(100);
        let longer = format!("{long}- b\n");
        let mut seen = Seen::default();
        let t = TabId(1);
        assert_eq!(
            seen.show(t, &s("http://x/", &long, false)),
            Shows::Whole(None)
        );
        assert_eq!(seen.show(t, &s("http://x/#f", &long, false)), Shows::Same);
        assert!(matches!(
            seen.show(t, &s("http://x/", &longer, false)),
            Shows::Changes(_)
        ));
        assert_eq!(
            seen.show(t, &s("http://y/", &longer, false)),
            Shows::Whole(Some(WHY_NAVIGATED))
        );
        assert_eq!(
            seen.show(t, &s("http://y/", &long, true)),
            Shows::Whole(Some(WHY_CUT))
        );
        // A cut outline is not one to compare with.
        assert_eq!(
            seen.show(t, &s("http://y/", &long, false)),
            Shows::Whole(None)
        );
        assert_eq!(
            seen.show(t, &s("http://y/", "- c\n", false)),
            Shows::Whole(Some(WHY_LONG))
        );
        seen.forget(t);
        assert_eq!(
            seen.show(t, &s("http://y/", &long, false)),
            Shows::Whole(None)
        );
        assert_eq!(
            seen.show(TabId(2), &s("http://y/", &long, false)),
            Shows::Whole(None)
        );
    }
}
