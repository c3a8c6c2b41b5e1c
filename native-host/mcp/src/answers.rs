//! What the model reads back from the tools: the page's state as
//! Playwright MCP shows it (url, title, outline, a dialog's "Modal
//! state"), the tab list, console lines and action lines.

use super::args::{ButtonArg, ClickArgs};
use super::changes::{Shows, CHANGES_PREAMBLE};
use cotab_shared::controller::{
    ConsoleResult, DialogInfo, DialogKind, FileChooserInfo, SnapshotResult, TabsListResult,
};
use cotab_shared::native::TabInfo;
use cotab_shared::TabId;
use std::fmt::Write as _;

pub(super) fn click_line(a: &ClickArgs) -> String {
    let what = if a.double_click {
        "Double-clicked"
    } else {
        "Clicked"
    };
    let button = match a.button {
        Some(ButtonArg::Right) => " with the right button",
        Some(ButtonArg::Middle) => " with the middle button",
        _ => "",
    };
    format!("{what} {}{button}", named(a.element.as_deref(), &a.target))
}

/// How an answer names an element: by the description the model gave, else
/// by its ref.
pub(super) fn named(element: Option<&str>, target: &str) -> String {
    match element {
        Some(e) if !e.trim().is_empty() => e.to_owned(),
        _ => format!("element {target}"),
    }
}

pub(super) fn dialog_kind(k: DialogKind) -> &'static str {
    match k {
        DialogKind::Alert => "alert",
        DialogKind::Confirm => "confirm",
        DialogKind::Prompt => "prompt",
        DialogKind::Beforeunload => "beforeunload",
    }
}

/// How an MCP client answers a dialog.
pub(super) const ANSWER_A_DIALOG: &str = "answer it with the browser_handle_dialog tool";

/// The `### Modal state` section as Playwright MCP writes it: what waits
/// for the model and the tool that handles it — a dialog, a file chooser.
pub(super) fn modal_states(
    dialog: Option<&DialogInfo>,
    chooser: Option<&FileChooserInfo>,
) -> String {
    if dialog.is_none() && chooser.is_none() {
        return String::new();
    }
    let mut text = String::from("### Modal state\n");
    if let Some(d) = dialog {
        let _ = writeln!(
            text,
            "- [\"{}\" dialog with message \"{}\"]: can be handled by browser_handle_dialog",
            dialog_kind(d.kind),
            d.message
        );
    }
    if chooser.is_some() {
        text.push_str("- [File chooser]: can be handled by browser_file_upload\n");
    }
    text
}

/// The page's url, title and outline, as Playwright MCP shows them
/// (`### Page`, the modal state if any, then `### Snapshot`).
pub(crate) fn page_state(s: &SnapshotResult, dialog: Option<&DialogInfo>) -> String {
    page_changes(s, dialog, &Shows::Whole(None))
}

/// The page's url, title and what [`Shows`] says of its outline: the
/// whole (`### Snapshot`), or what changed since the model last saw it
/// (`### Snapshot changes`, a diff in a `diff` block).
pub(crate) fn page_changes(
    s: &SnapshotResult,
    dialog: Option<&DialogInfo>,
    shows: &Shows,
) -> String {
    let mut text = format!(
        "### Page\n- Page URL: {}\n- Page Title: {}\n",
        s.url, s.title
    );
    text.push_str(&modal_states(dialog, s.file_chooser.as_ref()));
    let why = match shows {
        Shows::Whole(why) => why,
        Shows::Same => {
            text.push_str("### Snapshot changes\nNone since your last snapshot of this page.\n");
            return text;
        }
        Shows::Changes(d) => {
            let _ = write!(
                text,
                "### Snapshot changes\n{CHANGES_PREAMBLE}\n```diff\n{d}```\n"
            );
            return text;
        }
    };
    text.push_str("### Snapshot\n");
    if let Some(why) = why {
        let _ = writeln!(text, "The whole page: {}.", why.says());
    }
    let _ = write!(text, "```yaml\n{}\n```\n", s.text.trim_end());
    if s.truncated {
        text.push_str("(the outline was cut: it is longer than the snapshot limit)\n");
    }
    text
}

pub(super) fn tabs_text(list: &TabsListResult, current: Option<TabId>) -> String {
    if list.tabs.is_empty() {
        return "No tabs are shared: ask the person to share one from the cotab extension.".into();
    }
    let mut text = String::new();
    for (i, t) in list.tabs.iter().enumerate() {
        let mark = if Some(t.id) == current {
            " (current)"
        } else {
            ""
        };
        let _ = writeln!(
            text,
            "- {i}:{mark} [{}] ({}) tabId={}",
            t.title, t.url, t.id
        );
    }
    text
}

pub(super) fn console_text(r: &ConsoleResult) -> String {
    if r.messages.is_empty() {
        return "No console messages.".into();
    }
    let mut text = String::new();
    if r.dropped > 0 {
        let _ = writeln!(text, "({} older message(s) dropped)", r.dropped);
    }
    for m in &r.messages {
        let level = serde_json::to_value(m.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let exception = if m.exception { " (uncaught)" } else { "" };
        let at = match (&m.url, m.line) {
            (Some(u), Some(l)) => format!(" @ {u}:{l}"),
            (Some(u), None) => format!(" @ {u}"),
            _ => String::new(),
        };
        let _ = writeln!(text, "[{}]{exception} {}{at}", level.to_uppercase(), m.text);
    }
    text
}

pub(super) fn quoted_list(values: &[String]) -> String {
    values
        .iter()
        .map(|v| format!("\"{v}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The tabs the current page opened (they are shared too), for the next
/// answer; nothing when there are none.
pub(super) fn opened_tabs(tabs: &[TabInfo]) -> String {
    if tabs.is_empty() {
        return String::new();
    }
    let mut text = "### New tabs\n".to_string();
    for t in tabs {
        let _ = writeln!(
            text,
            "- tabId={} ({}): opened by the current page; switch to it with the \
             \"browser_tabs\" tool (action \"select\")",
            t.id, t.url
        );
    }
    text.push('\n');
    text
}

/// The current tab's navigations refused since the last answer (the page
/// or the action tried to leave the sites the tab is shared for), for the
/// next answer; nothing when there are none.
pub(super) fn refused_navigations(messages: &[String]) -> String {
    listed("Navigation refused", messages)
}

/// A section `title` listing `lines`; nothing when there are none.
fn listed(title: &str, lines: &[String]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut text = format!("### {title}\n");
    for l in lines {
        let _ = writeln!(text, "- {l}");
    }
    text.push('\n');
    text
}

/// The current tab's downloads that waited for the person since the last
/// answer, a line each; nothing when there are none.
pub(super) fn downloads(lines: &[String]) -> String {
    listed("Downloads", lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cotab_shared::controller::{ConsoleLevel, ConsoleMessage};

    #[test]
    fn page_state_shows_url_title_outline_and_dialog() {
        let s = SnapshotResult {
            url: "http://a/".into(),
            title: "A".into(),
            text: "- button \"Go\" [ref=e1]\n".into(),
            refs: 1,
            truncated: false,
            file_chooser: None,
            changes: None,
            whole_because: None,
        };
        let d = DialogInfo {
            tab_id: TabId(1),
            kind: DialogKind::Confirm,
            message: "Sure?".into(),
            default_prompt: None,
        };
        let text = page_state(&s, Some(&d));
        assert!(
            text.contains("- Page URL: http://a/\n- Page Title: A\n"),
            "{text}"
        );
        assert!(
            text.contains("```yaml\n- button \"Go\" [ref=e1]\n```"),
            "{text}"
        );
        assert!(
            text.contains("\"confirm\" dialog with message \"Sure?\""),
            "{text}"
        );
    }

    #[test]
    fn console_lines() {
        let r = ConsoleResult {
            messages: vec![ConsoleMessage {
                seq: 1,
                level: ConsoleLevel::Error,
                text: "boom".into(),
                exception: true,
                url: Some("http://a/x.js".into()),
                line: Some(3),
            }],
            next: 1,
            dropped: 0,
        };
        assert_eq!(
            console_text(&r),
            "[ERROR] (uncaught) boom @ http://a/x.js:3\n"
        );
    }

    #[test]
    fn refused_navigations_are_told_once_each() {
        assert_eq!(refused_navigations(&[]), "");
        assert_eq!(
            refused_navigations(&["a.example is outside the sites tab 3 is shared for (b.example)".into()]),
            "### Navigation refused\n- a.example is outside the sites tab 3 is shared for (b.example)\n\n"
        );
    }

    #[test]
    fn downloads_are_told_a_line_each() {
        assert_eq!(downloads(&[]), "");
        assert_eq!(
            downloads(&["“r.csv” from a.example: not saved, the person did not approve it".into()]),
            "### Downloads\n- “r.csv” from a.example: not saved, the person did not approve it\n\n"
        );
    }

    #[test]
    fn opened_tabs_say_how_to_switch() {
        assert_eq!(opened_tabs(&[]), "");
        let t = TabInfo {
            id: TabId(9),
            url: "http://a/terms".into(),
            title: "Terms".into(),
            human_control: false,
            blocked: None,
            opener: Some(TabId(7)),
            target_id: None,
        };
        assert_eq!(
            opened_tabs(&[t]),
            "### New tabs\n- tabId=9 (http://a/terms): opened by the current page; switch to it \
             with the \"browser_tabs\" tool (action \"select\")\n\n"
        );
    }
}
