//! What changed between two outlines of one page: the lines of the new
//! one that differ from the old, each change under the lines that say where
//! it is, and when the whole outline says it better. Refs stay the same
//! from one snapshot of a document to the next (docs/protocol.md), so the
//! refs an agent holds stay valid and the changes name the new ones. Used by
//! `page.snapshot`'s `changes` and by `cotab mcp`'s answers.

use similar::{ChangeTag, DiffTag, TextDiff};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// How long a diff of two outlines refines before it gives what it has
/// (coarser, never wrong): what its callers hand [`compare`] as a
/// deadline.
pub const DIFF_TIME: Duration = Duration::from_millis(50);

/// What was given before of the page a new outline is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen<'a> {
    /// The whole outline of the same document.
    Same(&'a str),
    /// An outline of another document (a navigation since).
    Other,
}

/// Why the whole outline is given though what changed was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// Another document than the one seen, numbered afresh.
    Navigated,
    /// The outline (the new one, or the one seen) is cut at the snapshot
    /// limit, which no diff can be told of.
    Cut,
    /// The change is no shorter than the outline.
    Long,
}

impl Why {
    /// The reason in words, for an agent.
    pub fn says(self) -> &'static str {
        match self {
            Why::Navigated => "another page than in your last snapshot of this tab, with new refs",
            Why::Cut => "the outline is cut at the snapshot limit",
            Why::Long => "the page changed as much as its outline is long",
        }
    }
}

/// What to give of a new outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shows {
    /// The whole outline, and why not what changed when the page was seen
    /// before.
    Whole(Option<Why>),
    /// Nothing changed.
    Same,
    /// The lines that changed (see [`diff`]).
    Changes(String),
}

/// What to give of `new` (`cut` at the snapshot limit) when `seen` was
/// given of the page before (none: nothing to compare with). The changes
/// are given only when they and `preamble` (what is said before them, in
/// bytes) are shorter than `new`; the diff stops refining at `deadline`
/// ([`diff`]).
pub fn compare(
    seen: Option<Seen<'_>>,
    new: &str,
    cut: bool,
    preamble: usize,
    deadline: Option<Instant>,
) -> Shows {
    match seen {
        None => Shows::Whole(None),
        Some(Seen::Other) => Shows::Whole(Some(Why::Navigated)),
        Some(_) if cut => Shows::Whole(Some(Why::Cut)),
        Some(Seen::Same(old)) => {
            let room = new.len().saturating_sub(preamble);
            match diff_shorter(old, new, deadline, room) {
                Some(d) if d.is_empty() => Shows::Same,
                Some(d) => Shows::Changes(d),
                None => Shows::Whole(Some(Why::Long)),
            }
        }
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
/// places. Empty when nothing changed. Past `deadline` the diff stops
/// refining: coarser, never wrong.
pub fn diff(old: &str, new: &str, deadline: Option<Instant>) -> String {
    diff_shorter(old, new, deadline, usize::MAX).unwrap_or_default()
}

/// [`diff`], if it is shorter than `room` bytes: the writing stops as soon
/// as it is not.
fn diff_shorter(old: &str, new: &str, deadline: Option<Instant>, room: usize) -> Option<String> {
    // Compared line by line, so an outline's last line, which has no
    // newline, is the same line once another follows it.
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let mut config = TextDiff::configure();
    if let Some(deadline) = deadline {
        config.deadline(deadline);
    }
    let d = config.diff_slices(&old_lines, &new_lines);
    // The nearest line above each new line that is less indented: its
    // parent in the outline, found once for every change's walk up.
    let mut parent: Vec<Option<usize>> = Vec::with_capacity(new_lines.len());
    let mut open: Vec<usize> = Vec::new();
    for (i, line) in new_lines.iter().enumerate() {
        while open
            .last()
            .is_some_and(|&j| indent(new_lines[j]) >= indent(line))
        {
            open.pop();
        }
        parent.push(open.last().copied());
        open.push(i);
    }
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
        // The nearest line above the change that is less indented than
        // it, then that line's parents.
        let mut up = at.min(new_lines.len()).checked_sub(1);
        while let Some(i) = up.filter(|&i| indent(new_lines[i]) >= depth) {
            up = parent[i];
        }
        while let Some(i) = up {
            ancestors.push(i);
            up = parent[i];
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
        if out.len() >= room {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_changed_is_an_empty_diff() {
        assert_eq!(diff("- a\n  - b\n", "- a\n  - b\n", None), "");
    }

    #[test]
    fn a_removed_line_is_shown_under_its_ancestors_and_each_ancestor_once() {
        let old = "- list\n  - item \"1\"\n    - button \"x\" [ref=e1]\n  - item \"2\"\n    - button \"y\" [ref=e2]\n    - button \"z\" [ref=e3]\n";
        let new = "- list\n  - item \"1\"\n  - item \"2\"\n    - button \"y\" [ref=e2]\n";
        assert_eq!(
            diff(old, new, None),
            " - list\n   - item \"1\"\n-    - button \"x\" [ref=e1]\n@@\n   - item \"2\"\n     - button \"y\" [ref=e2]\n-    - button \"z\" [ref=e3]\n"
        );
    }

    #[test]
    fn a_line_added_at_the_end_shows_the_one_before_it_as_it_was() {
        assert_eq!(diff("- a\n", "- a\n- b\n", None), " - a\n+- b\n");
        // Outlines end without a newline: the last line is not shown
        // removed and added again.
        assert_eq!(diff("- a", "- a\n- b", None), " - a\n+- b\n");
        assert_eq!(diff("- a\n- b", "- a", None), " - a\n-- b\n");
        assert_eq!(diff("- a", "- b", None), "-- a\n+- b\n");
        assert_eq!(diff("", "- a", None), "+- a\n");
    }

    #[test]
    fn a_diff_stops_being_written_once_it_is_as_long_as_the_room_it_has() {
        let old = "- a\n".repeat(50);
        let new = "- b\n".repeat(50);
        let whole = diff(&old, &new, None);
        assert_eq!(
            diff_shorter(&old, &new, None, whole.len() + 1),
            Some(whole.clone())
        );
        assert_eq!(diff_shorter(&old, &new, None, whole.len()), None);
        assert_eq!(diff_shorter(&old, &new, None, 10), None);
    }

    #[test]
    fn a_change_deep_in_the_outline_is_shown_under_each_of_its_ancestors() {
        let old = "- a\n  - b\n    - c\n  - d\n    - e\n      - f\n";
        let new = "- a\n  - b\n    - c\n  - d\n    - e\n      - g\n";
        assert_eq!(
            diff(old, new, None),
            " - a\n   - d\n     - e\n-      - f\n+      - g\n"
        );
    }

    #[test]
    fn another_document_a_cut_outline_or_a_change_as_long_as_the_page_is_given_whole() {
        let long = "- a\n".repeat(100);
        let longer = format!("{long}- b\n");
        assert_eq!(compare(None, &long, false, 0, None), Shows::Whole(None));
        assert_eq!(
            compare(Some(Seen::Same(&long)), &long, false, 0, None),
            Shows::Same
        );
        assert!(matches!(
            compare(Some(Seen::Same(&long)), &longer, false, 0, None),
            Shows::Changes(_)
        ));
        assert_eq!(
            compare(Some(Seen::Other), &longer, false, 0, None),
            Shows::Whole(Some(Why::Navigated))
        );
        assert_eq!(
            compare(Some(Seen::Same(&long)), &longer, true, 0, None),
            Shows::Whole(Some(Why::Cut))
        );
        assert_eq!(
            compare(Some(Seen::Same(&long)), "- c\n", false, 0, None),
            Shows::Whole(Some(Why::Long))
        );
        // What the answer says before the diff counts against it.
        let one_more = format!("{long}- c\n");
        assert!(matches!(
            compare(Some(Seen::Same(&long)), &one_more, false, 0, None),
            Shows::Changes(_)
        ));
        assert_eq!(
            compare(
                Some(Seen::Same(&long)),
                &one_more,
                false,
                one_more.len(),
                None
            ),
            Shows::Whole(Some(Why::Long))
        );
    }
}
