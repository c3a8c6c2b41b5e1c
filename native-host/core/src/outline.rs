//! The text of `page.snapshot`: the page's documents as
//! `DOMSnapshot.captureSnapshot` gives them (the main frame and every frame
//! in its process, [`dom`]) → a compact outline, one node a line, with
//! element refs. Pure: no I/O, no core state.
//!
//! A line reads `- role "name" [state…] [ref=eN]: "value"`, indented two
//! spaces per depth; roles, names and states are WAI-ARIA's ([`aria`]), as
//! Playwright's aria snapshots show them. Hidden nodes and unnamed generic
//! containers are left out (their children move up); text that only
//! repeats its parent's name is dropped. A frame's document hangs under
//! its `<iframe>`'s line. Refs go to actionable nodes (buttons, links,
//! fields, options, …) and to named ones (headings, images, landmarks …),
//! numbered as the core's [`RefNumbers`] says (an element keeps the number
//! it had in the document's earlier snapshots); the [`NodeRef`]s are
//! returned with their numbers for the core to store.
//!
//! It does not own: reading the capture from the browser, or ref validity
//! ([`crate::broker`]).

pub mod aria;
pub mod changes;
pub mod dom;

use crate::broker::{NodeRef, RefNumbers};
use aria::Page;
use dom::Kind;
pub use dom::{Captured, Dom};
use std::collections::{HashMap, HashSet};

/// Longest name or value shown, in characters.
const MAX_NAME: usize = 300;

/// Frames shown at most, the main frame's included.
pub const MAX_FRAMES: usize = 32;

/// Roles that get a ref even without a name.
const ACTIONABLE: &[&str] = &[
    "button",
    "link",
    "textbox",
    "searchbox",
    "combobox",
    "listbox",
    "option",
    "checkbox",
    "radio",
    "switch",
    "slider",
    "spinbutton",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "treeitem",
    "gridcell",
    "columnheader",
    "rowheader",
    "scrollbar",
    "disclosuretriangle",
];

/// Roles whose value is shown after the line.
const WITH_VALUE: &[&str] = &["textbox", "searchbox", "combobox", "spinbutton", "slider"];

/// Containers left out when unnamed: an unnamed form or section is no
/// landmark, as ARIA maps them.
const COLLAPSED: &[&str] = &["generic", "none", "presentation", "form", "section"];

/// Elements always left out, their children moving up: the document's
/// own, a `<label>` (its text names its control), a `<fieldset>`'s legend
/// (its group is named by it).
const TRANSPARENT: &[&str] = &["html", "body", "labeltext", "legend"];

/// What the outline is made of: the page's documents, and the element
/// that has the focus.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    /// The page's documents.
    pub dom: &'a Dom,
    /// The `backendNodeId` of the focused element, if any.
    pub focused: Option<i64>,
}

/// A rendered outline.
#[derive(Debug, Clone, PartialEq)]
pub struct Outline {
    /// The text, lines joined with `\n`.
    pub text: String,
    /// The number and element of each ref shown, in outline order.
    pub refs: Vec<(u64, NodeRef)>,
    /// Cut at the character limit.
    pub truncated: bool,
}

struct Line {
    depth: usize,
    /// The role, name and states (`text` and `/url` for text and a link's
    /// target).
    head: String,
    /// What follows `: ` when the line has no children: a field's value,
    /// the text, the url.
    value: Option<String>,
    node: Option<NodeRef>,
    /// An element's name (empty for text and urls).
    name: String,
}

/// Whitespace collapsed, trimmed, cut at [`MAX_NAME`] characters.
fn tidy(s: &str) -> String {
    let mut out = String::new();
    for (i, word) in s.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
    }
    if out.chars().count() > MAX_NAME {
        out = out.chars().take(MAX_NAME).collect();
        out.push('…');
    }
    out
}

fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `s` as a YAML scalar, as Playwright's aria snapshots write values:
/// bare when YAML reads it back as that same string, else double-quoted.
fn scalar(s: &str) -> String {
    let lower = s.to_ascii_lowercase();
    let plain = !s.is_empty()
        && s.trim() == s
        && !s.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@`".contains(c))
        && !s.contains(": ")
        && !s.contains(" #")
        && !s.ends_with(':')
        && !s.chars().any(char::is_control)
        && !matches!(
            lower.as_str(),
            "true" | "false" | "null" | "~" | "yes" | "no" | "on" | "off"
        )
        && s.parse::<f64>().is_err();
    if plain {
        s.to_owned()
    } else {
        serde_json::to_string(s).unwrap_or_else(|_| quoted(s))
    }
}

struct Item {
    doc: usize,
    node: usize,
    depth: usize,
    /// The name of the nearest ancestor shown.
    parent_name: String,
    /// The value of the nearest ancestor shown (a field's text repeats
    /// it).
    parent_value: String,
    /// Inside a `<select>`'s popup: its options take no refs (the select
    /// does).
    in_select: bool,
}

/// Which part of the outline to render: Playwright's `ariaSnapshot`
/// `depth`, and the subtree of one element.
#[derive(Debug, Clone, Copy, Default)]
pub struct Scope<'a> {
    /// Only this element's line and the lines inside it, the element at
    /// the top.
    pub root: Option<&'a NodeRef>,
    /// Only lines this many levels below the top or fewer (the top is
    /// level 0); a line at the limit is shown without its children.
    pub depth: Option<usize>,
}

/// The element a [`Scope`]'s root names is not in the outline (it left
/// the document, or is hidden now).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RootGone;

/// Renders `source`, numbering refs with `numbers`, within `max_chars`
/// characters. Only the refs of lines shown are numbered.
pub fn render(source: Source<'_>, numbers: &mut RefNumbers, max_chars: usize) -> Outline {
    render_lines(collect(source), numbers, max_chars)
}

/// [`render`], of the part of the outline `scope` names.
pub fn render_scoped(
    source: Source<'_>,
    numbers: &mut RefNumbers,
    max_chars: usize,
    scope: Scope<'_>,
) -> Result<Outline, RootGone> {
    let lines = scoped(collect(source), scope)?;
    Ok(render_lines(lines, numbers, max_chars))
}

fn scoped(lines: Vec<Line>, scope: Scope<'_>) -> Result<Vec<Line>, RootGone> {
    let lines = match scope.root {
        None => lines,
        Some(root) => {
            let start = lines
                .iter()
                .position(|l| l.node.as_ref() == Some(root))
                .ok_or(RootGone)?;
            let top = lines[start].depth;
            let mut lines: Vec<Line> = lines.into_iter().skip(start).collect();
            let end = lines
                .iter()
                .skip(1)
                .position(|l| l.depth <= top)
                .map_or(lines.len(), |i| i + 1);
            lines.truncate(end);
            for l in &mut lines {
                l.depth -= top;
            }
            lines
        }
    };
    Ok(match scope.depth {
        None => lines,
        Some(max) => lines.into_iter().filter(|l| l.depth <= max).collect(),
    })
}

fn render_lines(lines: Vec<Line>, numbers: &mut RefNumbers, max_chars: usize) -> Outline {
    let mut text = String::new();
    let mut used = 0usize;
    let mut refs = Vec::new();
    let total = lines.len();
    let mut shown = 0usize;
    let mut truncated = false;
    let depths: Vec<usize> = lines.iter().map(|l| l.depth).collect();
    for (i, line) in lines.into_iter().enumerate() {
        let mut s = "  ".repeat(line.depth);
        s.push_str("- ");
        s.push_str(&line.head);
        // Numbered once the line is known to fit: a peek until then.
        let number = line.node.as_ref().map(|n| numbers.peek(n));
        if let Some(n) = number {
            s.push_str(&format!(" [ref=e{n}]"));
        }
        // A line with children ends in `:`, as YAML's does.
        if depths.get(i + 1).is_some_and(|d| *d > line.depth) {
            s.push(':');
        } else if let Some(v) = &line.value {
            s.push_str(": ");
            s.push_str(&scalar(v));
        }
        let len = s.chars().count() + usize::from(i > 0);
        // Room for this line and, when more lines follow, for the marker
        // that would end the outline right after it.
        let rest = total - i - 1;
        let reserve = if rest > 0 {
            marker(rest).chars().count() + 1
        } else {
            0
        };
        if used + len + reserve > max_chars {
            truncated = true;
            break;
        }
        if i > 0 {
            text.push('\n');
        }
        text.push_str(&s);
        used += len;
        shown += 1;
        if let Some(node) = line.node {
            refs.push((numbers.number(&node), node));
        }
    }
    if truncated {
        let m = marker(total - shown);
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&m);
    }
    Outline {
        text,
        refs,
        truncated,
    }
}

/// Longest label [`label_of`] gives, in characters.
pub const MAX_LABEL: usize = 80;

/// What the element of ref `e{n}` is, as `text`, an outline, shows it to
/// the person: its role and quoted name (`button "Delete draft"`), its
/// role alone when it has no name; `None` when the outline shows no such
/// ref. At most [`MAX_LABEL`] characters.
pub fn label_of(text: &str, n: u64) -> Option<String> {
    let marker = format!("[ref=e{n}]");
    let at = text.find(&marker)?;
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[start..at].trim_start();
    let line = line.strip_prefix("- ").unwrap_or(line);
    let (role, rest) = line.split_once(' ').unwrap_or((line, ""));
    let mut label = role.trim_end_matches(':').to_owned();
    if let Some(quoted) = rest.strip_prefix('"') {
        // The name, as the outline writes it, runs to the first quote not
        // escaped.
        let mut name = String::new();
        let mut escaped = false;
        for c in quoted.chars() {
            if c == '"' && !escaped {
                break;
            }
            escaped = c == '\\' && !escaped;
            name.push(c);
        }
        label.push_str(&format!(" \"{name}\""));
    }
    if label.chars().count() > MAX_LABEL {
        label = label.chars().take(MAX_LABEL - 1).collect::<String>() + "…";
    }
    Some(label)
}

/// Where an outline line's own ref stands: the span of `e12` in
/// `[ref=e12]`. It is the last one on the line: a name that holds
/// `[ref=…]` comes before it, quoted.
pub fn own_ref(line: &str) -> Option<std::ops::Range<usize>> {
    let start = line.rfind("[ref=e")? + "[ref=".len();
    let end = start + line[start..].find(']')?;
    Some(start..end)
}

/// `text` with ` [box=x,y,width,height]` after the `[ref=eN]` of each line
/// whose ref `boxes` has a box for, as Playwright's `boxes` option shows
/// them.
pub fn with_boxes(text: &str, boxes: &HashMap<u64, [i64; 4]>) -> String {
    let mut out = String::with_capacity(text.len() + boxes.len() * 24);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let at = own_ref(line).and_then(|r| {
            let n: u64 = line[r.start + 1..r.end].parse().ok()?;
            Some((r.end + 1, boxes.get(&n)?))
        });
        match at {
            Some((end, [x, y, w, h])) => {
                out.push_str(&line[..end]);
                out.push_str(&format!(" [box={x},{y},{w},{h}]"));
                out.push_str(&line[end..]);
            }
            None => out.push_str(line),
        }
    }
    out
}

fn marker(n: usize) -> String {
    format!("{MARKER_START}{n} more nodes)")
}

/// `text`, a whole outline, cut as [`render`] cuts one at `max_chars`
/// characters: whole lines, then the line that says how many more there
/// were. `None` when it fits.
pub fn cut(text: &str, max_chars: usize) -> Option<String> {
    if text.chars().count() <= max_chars {
        return None;
    }
    let mut lines: Vec<&str> = text.lines().collect();
    // An outline the renderer cut already: the nodes its last line says
    // were left out are left out still.
    let before = match lines.last().and_then(|l| l.strip_prefix(MARKER_START)) {
        Some(said) => {
            let n = said.split(' ').next().and_then(|n| n.parse().ok());
            lines.pop();
            n.unwrap_or(0)
        }
        None => 0,
    };
    let mut out = String::new();
    let mut used = 0;
    let mut shown = 0;
    for (i, line) in lines.iter().enumerate() {
        let len = line.chars().count() + usize::from(i > 0);
        let reserve = marker(lines.len() - i - 1 + before).chars().count() + 1;
        if used + len + reserve > max_chars {
            break;
        }
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line);
        used += len;
        shown += 1;
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(&marker(lines.len() - shown + before));
    Some(out)
}

/// How the line that says an outline was cut begins.
const MARKER_START: &str = "- … (truncated: ";

/// Whether `text`, an outline, was cut at its limit (it ends with the
/// line that says so).
pub fn is_cut(text: &str) -> bool {
    text.lines()
        .last()
        .is_some_and(|l| l.starts_with(MARKER_START))
}

fn collect(source: Source<'_>) -> Vec<Line> {
    let page = Page::new(source.dom);
    let docs = &source.dom.documents;
    let mut lines = Vec::new();
    let mut docs_used: HashSet<usize> = HashSet::new();
    let mut stack: Vec<Item> = Vec::new();
    if let Some(r) = docs.first().and_then(|d| d.root()) {
        docs_used.insert(0);
        stack.push(Item {
            doc: 0,
            node: r,
            depth: 0,
            parent_name: String::new(),
            parent_value: String::new(),
            in_select: false,
        });
    }
    // Iterative, so a deeply nested page cannot exhaust the stack.
    while let Some(item) = stack.pop() {
        let (d, i) = (item.doc, item.node);
        let doc = &docs[d];
        let n = &doc.nodes[i];
        let mut value = String::new();
        let mut name = String::new();
        let shown = match n.kind {
            Kind::Text | Kind::Generated(_) => {
                let text = tidy(&n.text);
                let repeats = text == item.parent_name || text == item.parent_value;
                if !text.is_empty() && !repeats && !page.hidden(d, i) {
                    lines.push(Line {
                        depth: item.depth,
                        head: "text".into(),
                        value: Some(text),
                        node: None,
                        name: String::new(),
                    });
                }
                continue;
            }
            Kind::Element if page.hidden(d, i) => continue,
            Kind::Element => {
                let role = page.role(d, i);
                name = tidy(&page.name(d, i, &role));
                let left_out = page.invisible(d, i)
                    || TRANSPARENT.contains(&n.tag.as_str())
                    || TRANSPARENT.contains(&role.as_str())
                    || (name.is_empty() && COLLAPSED.contains(&role.as_str()));
                if left_out {
                    name.clear();
                    false
                } else {
                    let focused = source.focused == Some(n.backend_id);
                    let mut head = role.clone();
                    if !name.is_empty() {
                        head.push(' ');
                        head.push_str(&quoted(&name));
                    }
                    for s in page.states(d, i, &role, focused) {
                        head.push_str(&format!(" [{s}]"));
                    }
                    if WITH_VALUE.contains(&role.as_str()) {
                        value = tidy(&page.value(d, i, &role));
                    }
                    let wants_ref = !(item.in_select && role == "option")
                        && (ACTIONABLE.contains(&role.as_str()) || !name.is_empty());
                    lines.push(Line {
                        depth: item.depth,
                        head,
                        value: (!value.is_empty()).then(|| value.clone()),
                        node: wants_ref.then(|| NodeRef {
                            frame: doc.frame_id.clone(),
                            backend_node_id: n.backend_id,
                        }),
                        name: name.clone(),
                    });
                    if let Some(url) = page.url(d, i, &role) {
                        lines.push(Line {
                            depth: item.depth + 1,
                            head: "/url".into(),
                            value: Some(tidy(&url)),
                            node: None,
                            name: String::new(),
                        });
                    }
                    true
                }
            }
            Kind::Shadow(_) | Kind::Other => false,
        };
        let (depth, parent_name, parent_value) = if shown {
            (item.depth + 1, name, value)
        } else {
            (item.depth, item.parent_name, item.parent_value)
        };
        let in_select = item.in_select || n.is("select");
        let at = |doc, node| Item {
            doc,
            node,
            depth,
            parent_name: parent_name.clone(),
            parent_value: parent_value.clone(),
            in_select,
        };
        // A frame's document in place of its <iframe>'s children (what
        // shows when frames do not).
        if let Some(c) = n.content {
            if c < docs.len() && docs_used.len() < MAX_FRAMES && docs_used.insert(c) {
                if let Some(r) = docs[c].root() {
                    stack.push(at(c, r));
                }
            }
            continue;
        }
        for c in page.children(d, i).into_iter().rev() {
            stack.push(at(d, c));
        }
    }
    inline_text(merge_text(lines))
}

/// An element whose only child is a text shows it as its value, as
/// Playwright writes `- paragraph: Not pressed yet`, unless the text is
/// the element's name (split by the page's markup, so no one piece of it
/// matched the name).
fn inline_text(lines: Vec<Line>) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::with_capacity(lines.len());
    let mut lines = lines.into_iter().peekable();
    while let Some(line) = lines.next() {
        let only_text_child = out.last().is_some_and(|parent| {
            parent.value.is_none()
                && parent.head != "text"
                && line.head == "text"
                && line.node.is_none()
                && line.depth == parent.depth + 1
                && lines.peek().is_none_or(|next| next.depth <= parent.depth)
        });
        if only_text_child {
            // Text that only says the element's name again is left out.
            if let Some(parent) = out.last_mut() {
                if line.value.as_deref() != Some(parent.name.as_str()) {
                    parent.value = line.value;
                }
            }
            continue;
        }
        out.push(line);
    }
    out
}

/// Consecutive text lines of one parent as one, as the page's inline text
/// reads (`clicks:`, `0`, `, moves:` → `clicks: 0, moves:`): the
/// accessibility tree splits text at every element boundary.
fn merge_text(lines: Vec<Line>) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::with_capacity(lines.len());
    for line in lines {
        let is_text = line.head == "text" && line.node.is_none();
        if let (true, Some(last)) = (is_text, out.last_mut()) {
            if last.head == "text" && last.node.is_none() && last.depth == line.depth {
                if let (Some(joined), Some(more)) = (last.value.as_mut(), line.value) {
                    let tight = more.starts_with([',', '.', ';', ':', '!', '?', ')'])
                        || joined.ends_with('(');
                    if !tight {
                        joined.push(' ');
                    }
                    joined.push_str(&more);
                }
                continue;
            }
        }
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests;
