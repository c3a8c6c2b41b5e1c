//! The text of `page.snapshot`: CDP accessibility trees (`AXNode`s from
//! `Accessibility.getFullAXTree`, one tree per frame) → a compact outline,
//! one node a line, with element refs. Pure: no I/O, no core state.
//!
//! A line reads `- role "name" [state…] [ref=eN]: "value"`, indented two
//! spaces per depth. Ignored nodes and unnamed generic containers are left
//! out (their children move up); static text that only repeats its
//! parent's name is dropped. Each child frame's tree hangs under the node of
//! its `<iframe>` element. Refs go to actionable nodes (buttons, links,
//! fields, options, …) and to named ones (headings, images, landmarks …),
//! numbered as the core's [`RefNumbers`] says (an element keeps the number
//! it had in the document's earlier snapshots); the [`NodeRef`]s are
//! returned with their numbers for the core to store.
//!
//! It does not own: reading the trees from the browser, or ref validity
//! ([`crate::broker`]).

use crate::broker::{NodeRef, RefNumbers};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// Longest name or value shown, in characters.
const MAX_NAME: usize = 300;

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
    "menulistpopup",
    "popupbutton",
    "togglebutton",
    "textfield",
    "disclosuretriangle",
];

/// Roles whose value is shown after the line.
const WITH_VALUE: &[&str] = &["textbox", "searchbox", "combobox", "spinbutton", "slider"];

/// Containers left out when unnamed (documents are always left out): an
/// unnamed form or section is no landmark, as ARIA maps them.
const COLLAPSED: &[&str] = &["generic", "none", "presentation", "form", "section"];

/// Roles of Chromium's own that ARIA (and Playwright's snapshots) do not
/// have, always left out (their children move up): a `<label>`'s text
/// holder, a `<select>`'s popup, a `<fieldset>`'s legend (its group is
/// named by it), a list item's bullet.
const CHROMIUM_ONLY: &[&str] = &["labeltext", "menulistpopup", "legend", "listmarker"];

/// One CDP `AXNode`, the fields the outline reads.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AxNode {
    /// Id within its tree.
    pub node_id: String,
    /// Ignored for accessibility (hidden, presentational …).
    #[serde(default)]
    pub ignored: bool,
    /// Its ARIA role as the browser computed it.
    #[serde(default)]
    pub role: Option<AxValue>,
    /// Its accessible name.
    #[serde(default)]
    pub name: Option<AxValue>,
    /// Its value (text fields, sliders …).
    #[serde(default)]
    pub value: Option<AxValue>,
    /// Its states and other properties.
    #[serde(default)]
    pub properties: Vec<AxProperty>,
    /// Children, in order.
    #[serde(default)]
    pub child_ids: Vec<String>,
    /// The id of the node it hangs under; none for the root.
    #[serde(default)]
    pub parent_id: Option<String>,
    /// The DOM node behind it.
    #[serde(default, rename = "backendDOMNodeId")]
    pub backend_dom_node_id: Option<i64>,
}

/// A CDP `AXValue`.
#[derive(Debug, Clone, Deserialize)]
pub struct AxValue {
    /// The value itself: a string, number or boolean.
    #[serde(default)]
    pub value: Option<Value>,
}

/// A CDP `AXProperty`.
#[derive(Debug, Clone, Deserialize)]
pub struct AxProperty {
    /// Its name, e.g. `checked`.
    pub name: String,
    /// What the property holds.
    pub value: AxValue,
}

/// The accessibility tree of one frame.
#[derive(Debug, Clone)]
pub struct FrameTree {
    /// The CDP frame id.
    pub frame_id: String,
    /// `backendNodeId` of the `<iframe>` element that holds it (none for
    /// the main frame).
    pub owner: Option<i64>,
    /// Its nodes, as `Accessibility.getFullAXTree` returns them.
    pub nodes: Vec<AxNode>,
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
}

fn text_of(v: Option<&AxValue>) -> String {
    match v.and_then(|v| v.value.as_ref()) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(v) => v.to_string(),
    }
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

fn prop<'a>(n: &'a AxNode, name: &str) -> Option<&'a Value> {
    n.properties
        .iter()
        .find(|p| p.name == name)
        .and_then(|p| p.value.value.as_ref())
}

fn truthy(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::Bool(true))) || v.and_then(Value::as_str) == Some("true")
}

fn states(n: &AxNode, role: &str) -> Vec<String> {
    let mut out = Vec::new();
    match prop(n, "checked") {
        Some(v) if v.as_str() == Some("mixed") => out.push("mixed".to_string()),
        Some(v) if truthy(Some(v)) => out.push("checked".to_string()),
        _ => {}
    }
    if truthy(prop(n, "pressed")) {
        out.push("pressed".into());
    }
    if truthy(prop(n, "disabled")) {
        out.push("disabled".into());
    }
    if truthy(prop(n, "expanded")) {
        out.push("expanded".into());
    }
    if truthy(prop(n, "focused")) {
        out.push("active".into());
    }
    if truthy(prop(n, "selected")) {
        out.push("selected".into());
    }
    if truthy(prop(n, "required")) {
        out.push("required".into());
    }
    if role == "heading" {
        if let Some(level) = prop(n, "level").and_then(Value::as_f64) {
            out.push(format!("level={level}"));
        }
    }
    out
}

/// A link's target, for its `/url:` child.
fn url_of(n: &AxNode, role: &str) -> Option<String> {
    let url = prop(n, "url").and_then(Value::as_str)?;
    (role == "link" && !url.is_empty()).then(|| tidy(url))
}

struct Item {
    frame: usize,
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

/// Renders `frames` (the main frame first), numbering refs with
/// `numbers`, within `max_chars` characters. Only the refs of lines shown
/// are numbered.
pub fn render(frames: &[FrameTree], numbers: &mut RefNumbers, max_chars: usize) -> Outline {
    render_lines(collect(frames), numbers, max_chars)
}

/// [`render`], of the part of the outline `scope` names.
pub fn render_scoped(
    frames: &[FrameTree],
    numbers: &mut RefNumbers,
    max_chars: usize,
    scope: Scope<'_>,
) -> Result<Outline, RootGone> {
    let lines = scoped(collect(frames), scope)?;
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

/// `text` with ` [box=x,y,width,height]` after the `[ref=eN]` of each line
/// whose ref `boxes` has a box for, as Playwright's `boxes` option shows
/// them.
pub fn with_boxes(text: &str, boxes: &HashMap<u64, [i64; 4]>) -> String {
    let mut out = String::with_capacity(text.len() + boxes.len() * 24);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        // The line's own ref is the last one on it: a name that holds
        // `[ref=…]` comes before it, quoted.
        let at = line.rfind("[ref=e").and_then(|start| {
            let end = start + line[start..].find(']')?;
            let n: u64 = line[start + 6..end].parse().ok()?;
            Some((end + 1, boxes.get(&n)?))
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
    format!("- … (truncated: {n} more nodes)")
}

fn collect(frames: &[FrameTree]) -> Vec<Line> {
    let index: Vec<HashMap<&str, usize>> = frames
        .iter()
        .map(|f| {
            f.nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.node_id.as_str(), i))
                .collect()
        })
        .collect();
    let owners: HashMap<i64, usize> = frames
        .iter()
        .enumerate()
        .skip(1)
        .filter_map(|(i, f)| f.owner.map(|o| (o, i)))
        .collect();
    let root = |f: usize| -> Option<usize> {
        let nodes = &frames.get(f)?.nodes;
        nodes
            .iter()
            .position(|n| n.parent_id.is_none())
            .or(if nodes.is_empty() { None } else { Some(0) })
    };
    let mut lines = Vec::new();
    let mut seen: HashSet<(usize, usize)> = HashSet::new();
    let mut frames_used: HashSet<usize> = HashSet::new();
    let mut stack: Vec<Item> = Vec::new();
    if let Some(r) = root(0) {
        frames_used.insert(0);
        stack.push(Item {
            frame: 0,
            node: r,
            depth: 0,
            parent_name: String::new(),
            parent_value: String::new(),
            in_select: false,
        });
    }
    // Iterative, so a deeply nested page cannot exhaust the stack.
    while let Some(item) = stack.pop() {
        if !seen.insert((item.frame, item.node)) {
            continue;
        }
        let frame = &frames[item.frame];
        let n = &frame.nodes[item.node];
        let role = text_of(n.role.as_ref()).to_ascii_lowercase();
        let name = tidy(&text_of(n.name.as_ref()));
        if matches!(role.as_str(), "inlinetextbox" | "linebreak") {
            continue;
        }
        let document = matches!(role.as_str(), "rootwebarea" | "webarea");
        let in_select = item.in_select || role == "menulistpopup";
        let mut value = String::new();
        let shown = if n.ignored
            || document
            || CHROMIUM_ONLY.contains(&role.as_str())
            || (name.is_empty() && COLLAPSED.contains(&role.as_str()))
        {
            false
        } else if role == "statictext" {
            if !name.is_empty() && name != item.parent_name && name != item.parent_value {
                lines.push(Line {
                    depth: item.depth,
                    head: "text".into(),
                    value: Some(name),
                    node: None,
                });
            }
            continue;
        } else {
            let mut head = if role.is_empty() {
                "node".to_string()
            } else {
                role.clone()
            };
            if !name.is_empty() {
                head.push(' ');
                head.push_str(&quoted(&name));
            }
            for s in states(n, &role) {
                head.push_str(&format!(" [{s}]"));
            }
            if WITH_VALUE.contains(&role.as_str()) {
                value = tidy(&text_of(n.value.as_ref()));
            }
            let wants_ref = !(in_select && role == "option")
                && (ACTIONABLE.contains(&role.as_str()) || !name.is_empty());
            let node = n
                .backend_dom_node_id
                .filter(|_| wants_ref)
                .map(|id| NodeRef {
                    frame: frame.frame_id.clone(),
                    backend_node_id: id,
                });
            lines.push(Line {
                depth: item.depth,
                head,
                value: (!value.is_empty()).then(|| value.clone()),
                node,
            });
            if let Some(url) = url_of(n, &role) {
                lines.push(Line {
                    depth: item.depth + 1,
                    head: "/url".into(),
                    value: Some(url),
                    node: None,
                });
            }
            true
        };
        let (depth, parent_name, parent_value) = if shown {
            (item.depth + 1, name, value)
        } else {
            (item.depth, item.parent_name, item.parent_value)
        };
        // The frame's content goes after the element's own children: push
        // it first.
        if let Some(&child) = n.backend_dom_node_id.and_then(|b| owners.get(&b)) {
            if frames_used.insert(child) {
                if let Some(r) = root(child) {
                    stack.push(Item {
                        frame: child,
                        node: r,
                        depth,
                        parent_name: parent_name.clone(),
                        parent_value: parent_value.clone(),
                        in_select,
                    });
                }
            }
        }
        for id in n.child_ids.iter().rev() {
            if let Some(&c) = index[item.frame].get(id.as_str()) {
                stack.push(Item {
                    frame: item.frame,
                    node: c,
                    depth,
                    parent_name: parent_name.clone(),
                    parent_value: parent_value.clone(),
                    in_select,
                });
            }
        }
    }
    inline_text(merge_text(lines))
}

/// An element whose only child is a text shows it as its value, as
/// Playwright writes `- paragraph: Not pressed yet`.
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
            if let Some(parent) = out.last_mut() {
                parent.value = line.value;
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
