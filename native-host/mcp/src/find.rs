//! `browser_find`: the lines of the current page's snapshot that match a
//! text (case-insensitive) or a regular expression, each window of them
//! with three lines of context either side and under its path from the
//! root of the outline, windows that touch merged and gaps marked `...`,
//! as Playwright MCP's answers. Cheaper for the model than the whole
//! snapshot when it only needs an element's ref.

use super::bridge::Bridge;
use super::outcome::{ToolFailure, ToolOutput};
use cotab_shared::controller::{Snapshot, SnapshotParams};
use cotab_shared::limits::MAX_SNAPSHOT_CHARS;
use regex::{Regex, RegexBuilder};
use schemars::JsonSchema;
use serde::Deserialize;

/// Lines of context kept either side of a match.
const CONTEXT: usize = 3;

/// Arguments of `browser_find`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FindArgs {
    /// Plain text to search for in the page snapshot (case-insensitive
    /// substring match). Provide either text or regex, not both.
    pub(crate) text: Option<String>,
    /// Regular expression to search for in the page snapshot (Rust's
    /// syntax: no look-around). Matching is case-sensitive by default;
    /// wrap the pattern in slashes to add flags, e.g. "/error/i" for
    /// case-insensitive. Provide either text or regex, not both.
    pub(crate) regex: Option<String>,
}

/// What a line must contain.
enum Query {
    Text(String),
    Pattern(Regex),
}

impl Query {
    fn of(a: &FindArgs) -> Result<(Query, String), ToolFailure> {
        match (&a.text, &a.regex) {
            (Some(_), Some(_)) => Err(ToolFailure::invalid(
                "provide only one of `text` or `regex`, not both",
            )),
            (None, None) => Err(ToolFailure::invalid(
                "provide either `text` or `regex` to search for",
            )),
            (Some(t), None) => Ok((Query::Text(t.to_lowercase()), format!("\"{t}\""))),
            (None, Some(r)) => Ok((Query::Pattern(pattern(r)?), r.clone())),
        }
    }

    fn matches(&self, line: &str) -> bool {
        match self {
            Query::Text(t) => line.to_lowercase().contains(t),
            Query::Pattern(p) => p.is_match(line),
        }
    }
}

/// `source` as a regular expression: `/pattern/flags` (`i`, `m`, `s`;
/// `g`, `u` and `y` change nothing here), or a bare pattern.
fn pattern(source: &str) -> Result<Regex, ToolFailure> {
    let (body, flags) = match source.strip_prefix('/').and_then(|s| s.rsplit_once('/')) {
        Some((body, flags)) if flags.chars().all(|c| c.is_ascii_lowercase()) => (body, flags),
        _ => (source, ""),
    };
    let mut builder = RegexBuilder::new(body);
    for flag in flags.chars() {
        match flag {
            'i' => builder.case_insensitive(true),
            'm' => builder.multi_line(true),
            's' => builder.dot_matches_new_line(true),
            'g' | 'u' | 'y' => &mut builder,
            other => {
                return Err(ToolFailure::invalid(format!(
                    "unknown regular expression flag `{other}`"
                )))
            }
        };
    }
    builder
        .size_limit(1 << 20)
        .build()
        .map_err(|e| ToolFailure::invalid(format!("invalid regular expression: {e}")))
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The lines above `index` that hold it, outermost first.
fn ancestors(lines: &[&str], index: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut depth = indent(lines[index]);
    for i in (0..index).rev() {
        if depth == 0 {
            break;
        }
        if !lines[i].trim().is_empty() && indent(lines[i]) < depth {
            out.push(i);
            depth = indent(lines[i]);
        }
    }
    out.reverse();
    out
}

/// The snippets of `outline` around the lines `query` matches.
fn snippets(outline: &str, query: &Query) -> Vec<String> {
    let lines: Vec<&str> = outline.lines().collect();
    let matched: Vec<usize> = (0..lines.len())
        .filter(|&i| query.matches(lines[i]))
        .collect();
    let mut windows: Vec<(usize, usize)> = Vec::new();
    for &m in &matched {
        let (start, end) = (
            m.saturating_sub(CONTEXT),
            (m + CONTEXT).min(lines.len() - 1),
        );
        match windows.last_mut() {
            Some(last) if start <= last.1 + 1 => last.1 = last.1.max(end),
            _ => windows.push((start, end)),
        }
    }
    let mut on_path: std::collections::HashSet<usize> = matched.iter().copied().collect();
    for &m in &matched {
        on_path.extend(ancestors(&lines, m));
    }
    windows
        .into_iter()
        .map(|(start, end)| {
            let mut shown = ancestors(&lines, start);
            shown.extend(start..=end);
            let mut out: Vec<String> = Vec::with_capacity(shown.len());
            for (k, &i) in shown.iter().enumerate() {
                let gap = k > 0 && i > shown[k - 1] + 1;
                if gap && !on_path.contains(&i) && !on_path.contains(&shown[k - 1]) {
                    out.push(format!("{}...", " ".repeat(indent(lines[i]))));
                }
                out.push(lines[i].to_owned());
            }
            out.join("\n")
        })
        .collect()
}

impl Bridge {
    /// `browser_find`.
    pub(super) async fn find(&mut self, a: FindArgs) -> Result<ToolOutput, ToolFailure> {
        let (query, shown) = Query::of(&a)?;
        // The whole page, not the outline an answer shows, which is cut
        // at the default limit.
        let whole = SnapshotParams {
            max_chars: Some(MAX_SNAPSHOT_CHARS),
            ..SnapshotParams::default()
        };
        let snapshot = self.observe::<Snapshot>(&whole).await?;
        let found = snippets(&snapshot.text, &query);
        let cut = match snapshot.truncated {
            true => " The page's outline is cut at 400,000 characters: what you look for may be past it.",
            false => "",
        };
        let text = if found.is_empty() {
            format!("### Find results\nNo matches found for {shown}.{cut}")
        } else {
            let n = found.len();
            format!(
                "### Find results\nFound {n} {} for {shown}:\n\n{}",
                if n == 1 { "match" } else { "matches" },
                found.join("\n\n----\n\n")
            )
        };
        Ok(ToolOutput::text(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTLINE: &str = "- heading \"Sign up\" [level=1] [ref=e1]
- form:
  - text: Email
  - textbox \"Email\" [ref=e2]
  - text: Password
  - textbox \"Password\" [ref=e3]
  - checkbox \"Terms\" [ref=e4]
  - button \"Send\" [ref=e5]
- contentinfo:
  - link \"Help\" [ref=e6]:
    - /url: /help";

    #[test]
    fn a_match_is_shown_with_its_context_under_its_path() {
        let found = snippets(OUTLINE, &Query::Text("help".into()));
        assert_eq!(
            found,
            vec!["  - checkbox \"Terms\" [ref=e4]\n  - button \"Send\" [ref=e5]\n- contentinfo:\n  - link \"Help\" [ref=e6]:\n    - /url: /help"
                .replace("  - checkbox", "- form:\n  ...\n  - checkbox")]
        );
    }

    #[test]
    fn matches_close_together_share_a_window() {
        let found = snippets(OUTLINE, &Query::Text("textbox".into()));
        assert_eq!(found.len(), 1);
        assert!(found[0].starts_with("- heading"), "{}", found[0]);
        assert!(found[0].contains("[ref=e3]"), "{}", found[0]);
        assert!(snippets(OUTLINE, &Query::Text("nowhere".into())).is_empty());
    }

    #[test]
    fn a_regex_takes_slashes_and_flags() {
        let case = pattern("/PASSWORD/i").expect("valid");
        assert!(case.is_match("textbox \"Password\""));
        let strict = pattern("PASSWORD").expect("valid");
        assert!(!strict.is_match("textbox \"Password\""));
        assert!(pattern("/a/q").is_err());
        assert!(pattern("(unclosed").is_err());
        let found = snippets(
            OUTLINE,
            &Query::Pattern(pattern("ref=e[56]").expect("valid")),
        );
        assert_eq!(found.len(), 1);
    }

    #[test]
    fn text_and_regex_together_or_neither_are_refused() {
        let both = FindArgs {
            text: Some("a".into()),
            regex: Some("b".into()),
        };
        assert!(Query::of(&both).is_err());
        assert!(Query::of(&FindArgs::default()).is_err());
    }
}
