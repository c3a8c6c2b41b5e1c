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

/// Renders `frames` (the main frame first), numbering refs with
/// `numbers`, within `max_chars` characters. Only the refs of lines shown
/// are numbered.
pub fn render(frames: &[FrameTree], numbers: &mut RefNumbers, max_chars: usize) -> Outline {
    let lines = collect(frames);
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
mod tests {
    use super::*;
    use serde_json::json;

    fn nodes(v: Value) -> Vec<AxNode> {
        serde_json::from_value(v).expect("AX nodes")
    }

    fn page() -> Vec<FrameTree> {
        let main = nodes(json!([
            {"nodeId": "1", "role": {"value": "RootWebArea"}, "name": {"value": "Sign up"},
             "childIds": ["2"], "backendDOMNodeId": 1},
            {"nodeId": "2", "parentId": "1", "role": {"value": "generic"}, "name": {"value": ""},
             "childIds": ["3", "4", "6", "8", "9", "10", "11", "12", "13"], "backendDOMNodeId": 2},
            {"nodeId": "3", "parentId": "2", "role": {"value": "heading"}, "name": {"value": "Create an  account"},
             "properties": [{"name": "level", "value": {"type": "integer", "value": 1}}],
             "childIds": ["3a"], "backendDOMNodeId": 3},
            {"nodeId": "3a", "parentId": "3", "role": {"value": "StaticText"}, "name": {"value": "Create an account"}},
            {"nodeId": "4", "parentId": "2", "role": {"value": "textbox"}, "name": {"value": "Email"},
             "value": {"type": "string", "value": "a@b.c"},
             "properties": [{"name": "focused", "value": {"type": "booleanOrUndefined", "value": true}},
                            {"name": "required", "value": {"type": "boolean", "value": true}}],
             "backendDOMNodeId": 4},
            {"nodeId": "6", "parentId": "2", "role": {"value": "checkbox"}, "name": {"value": "I accept \"the\" terms"},
             "properties": [{"name": "checked", "value": {"type": "tristate", "value": "false"}}],
             "backendDOMNodeId": 6},
            {"nodeId": "8", "parentId": "2", "ignored": true, "role": {"value": "none"},
             "childIds": ["8a"], "backendDOMNodeId": 8},
            {"nodeId": "8a", "parentId": "8", "role": {"value": "button"}, "name": {"value": "Sign up"},
             "properties": [{"name": "disabled", "value": {"type": "boolean", "value": true}}],
             "childIds": ["8b"], "backendDOMNodeId": 9},
            {"nodeId": "8b", "parentId": "8a", "role": {"value": "StaticText"}, "name": {"value": "Sign up"}},
            {"nodeId": "9", "parentId": "2", "role": {"value": "link"}, "name": {"value": "Help"},
             "properties": [{"name": "url", "value": {"type": "string", "value": "http://a/help"}}],
             "backendDOMNodeId": 10},
            {"nodeId": "10", "parentId": "2", "role": {"value": "paragraph"}, "name": {"value": ""},
             "childIds": ["10a"], "backendDOMNodeId": 11},
            {"nodeId": "10a", "parentId": "10", "role": {"value": "StaticText"}, "name": {"value": "Some text"},
             "childIds": ["10b"]},
            {"nodeId": "10b", "parentId": "10a", "role": {"value": "InlineTextBox"}, "name": {"value": "Some text"}},
            {"nodeId": "11", "parentId": "2", "role": {"value": "combobox"}, "name": {"value": "Country"},
             "value": {"type": "string", "value": "France"},
             "properties": [{"name": "expanded", "value": {"type": "booleanOrUndefined", "value": false}}],
             "backendDOMNodeId": 12},
            {"nodeId": "12", "parentId": "2", "role": {"value": "Iframe"}, "name": {"value": ""},
             "backendDOMNodeId": 13},
            {"nodeId": "13", "parentId": "2", "role": {"value": "button"}, "name": {"value": ""},
             "backendDOMNodeId": 14}
        ]));
        let child = nodes(json!([
            {"nodeId": "1", "role": {"value": "RootWebArea"}, "name": {"value": "inner"},
             "childIds": ["2"], "backendDOMNodeId": 100},
            {"nodeId": "2", "parentId": "1", "role": {"value": "radio"}, "name": {"value": "Inner choice"},
             "properties": [{"name": "checked", "value": {"type": "tristate", "value": "true"}}],
             "backendDOMNodeId": 101}
        ]));
        vec![
            FrameTree {
                frame_id: "MAIN".into(),
                owner: None,
                nodes: main,
            },
            FrameTree {
                frame_id: "CHILD".into(),
                owner: Some(13),
                nodes: child,
            },
        ]
    }

    /// As Playwright's aria snapshot writes the same page.
    const EXPECTED: &str = r#"- heading "Create an account" [level=1] [ref=e5]
- textbox "Email" [active] [required] [ref=e6]: a@b.c
- checkbox "I accept \"the\" terms" [ref=e7]
- button "Sign up" [disabled] [ref=e8]
- link "Help" [ref=e9]:
  - /url: http://a/help
- paragraph: Some text
- combobox "Country" [ref=e10]: France
- iframe:
  - radio "Inner choice" [checked] [ref=e11]
- button [ref=e12]"#;

    #[test]
    fn outline_shows_roles_names_states_values_and_refs() {
        let o = render(&page(), &mut RefNumbers::starting_at(5), 40_000);
        assert_eq!(o.text, EXPECTED);
        assert!(!o.truncated);
        let ids: Vec<(String, i64)> = o
            .refs
            .iter()
            .map(|(_, r)| (r.frame.clone(), r.backend_node_id))
            .collect();
        assert_eq!(
            ids,
            vec![
                ("MAIN".into(), 3),
                ("MAIN".into(), 4),
                ("MAIN".into(), 6),
                ("MAIN".into(), 9),
                ("MAIN".into(), 10),
                ("MAIN".into(), 12),
                ("CHILD".into(), 101),
                ("MAIN".into(), 14),
            ]
        );
    }

    #[test]
    fn chromiums_own_roles_and_repeated_text_are_left_out_as_playwright_does() {
        let main = nodes(json!([
            {"nodeId": "1", "role": {"value": "RootWebArea"}, "childIds": ["2", "5", "9", "12"], "backendDOMNodeId": 1},
            // <label>Plan <select>…</select></label>
            {"nodeId": "2", "parentId": "1", "role": {"value": "LabelText"}, "childIds": ["3", "4"], "backendDOMNodeId": 2},
            {"nodeId": "3", "parentId": "2", "role": {"value": "StaticText"}, "name": {"value": "Plan"}},
            {"nodeId": "4", "parentId": "2", "role": {"value": "combobox"}, "name": {"value": "Plan"},
             "value": {"type": "string", "value": "One"},
             "properties": [{"name": "expanded", "value": {"type": "booleanOrUndefined", "value": false}}],
             "childIds": ["4a"], "backendDOMNodeId": 4},
            {"nodeId": "4a", "parentId": "4", "role": {"value": "MenuListPopup"}, "childIds": ["4b", "4c"], "backendDOMNodeId": 40},
            {"nodeId": "4b", "parentId": "4a", "role": {"value": "option"}, "name": {"value": "One"},
             "properties": [{"name": "selected", "value": {"type": "booleanOrUndefined", "value": true}}], "backendDOMNodeId": 41},
            {"nodeId": "4c", "parentId": "4a", "role": {"value": "option"}, "name": {"value": "Two"}, "backendDOMNodeId": 42},
            // <fieldset><legend>Contact</legend>…</fieldset>
            {"nodeId": "5", "parentId": "1", "role": {"value": "group"}, "name": {"value": "Contact"}, "childIds": ["6", "8"], "backendDOMNodeId": 5},
            {"nodeId": "6", "parentId": "5", "role": {"value": "legend"}, "childIds": ["7"], "backendDOMNodeId": 6},
            {"nodeId": "7", "parentId": "6", "role": {"value": "StaticText"}, "name": {"value": "Contact"}},
            {"nodeId": "8", "parentId": "5", "role": {"value": "radio"}, "name": {"value": "Email"}, "backendDOMNodeId": 8},
            // A filled spin button repeats its value as text.
            {"nodeId": "9", "parentId": "1", "role": {"value": "spinbutton"}, "name": {"value": "Quantity"},
             "value": {"type": "string", "value": "1"}, "childIds": ["10"], "backendDOMNodeId": 9},
            {"nodeId": "10", "parentId": "9", "role": {"value": "StaticText"}, "name": {"value": "1"}},
            {"nodeId": "12", "parentId": "1", "role": {"value": "paragraph"}, "childIds": ["13", "14", "15", "16"], "backendDOMNodeId": 12},
            {"nodeId": "13", "parentId": "12", "role": {"value": "StaticText"}, "name": {"value": "clicks:"}},
            {"nodeId": "14", "parentId": "12", "role": {"value": "StaticText"}, "name": {"value": "0"}},
            {"nodeId": "15", "parentId": "12", "role": {"value": "StaticText"}, "name": {"value": ", moves:"}},
            {"nodeId": "16", "parentId": "12", "role": {"value": "StaticText"}, "name": {"value": "0"}}
        ]));
        let frames = [FrameTree {
            frame_id: "MAIN".into(),
            owner: None,
            nodes: main,
        }];
        let o = render(&frames, &mut RefNumbers::starting_at(1), 40_000);
        assert_eq!(
            o.text,
            r#"- text: Plan
- combobox "Plan" [ref=e1]:
  - option "One" [selected]
  - option "Two"
- group "Contact" [ref=e2]:
  - radio "Email" [ref=e3]
- spinbutton "Quantity" [ref=e4]: "1"
- paragraph: "clicks: 0, moves: 0""#
        );
    }

    #[test]
    fn values_are_bare_unless_yaml_would_read_them_otherwise() {
        for (value, written) in [
            ("Ada", "Ada"),
            ("ada@example.org", "ada@example.org"),
            ("https://a/b?c=d", "https://a/b?c=d"),
            ("1", "\"1\""),
            ("2.5", "\"2.5\""),
            ("true", "\"true\""),
            ("No", "\"No\""),
            ("", "\"\""),
            (" padded", "\" padded\""),
            ("key: value", "\"key: value\""),
            ("- dash", "\"- dash\""),
            ("say \"hi\"", "say \"hi\""),
            ("#tag", "\"#tag\""),
            ("a #b", "\"a #b\""),
        ] {
            assert_eq!(scalar(value), written, "{value:?}");
        }
    }

    #[test]
    fn a_long_outline_is_cut_at_a_line_with_a_marker() {
        let full = render(&page(), &mut RefNumbers::starting_at(1), 40_000);
        let max = 160;
        let o = render(&page(), &mut RefNumbers::starting_at(1), max);
        assert!(o.truncated);
        assert!(o.text.chars().count() <= max, "{}", o.text);
        let lines: Vec<&str> = o.text.lines().collect();
        let last = lines.last().expect("a marker");
        let shown = lines.len() - 1;
        let total = full.text.lines().count();
        assert_eq!(
            *last,
            format!("- … (truncated: {} more nodes)", total - shown)
        );
        // What is shown is the full outline's beginning, and only its refs
        // were issued.
        assert!(full.text.starts_with(&lines[..shown].join("\n")));
        assert_eq!(
            o.refs.len(),
            lines[..shown]
                .iter()
                .filter(|l| l.contains("[ref="))
                .count()
        );
        let tiny = render(&page(), &mut RefNumbers::starting_at(1), 5);
        assert!(tiny.truncated);
        assert!(tiny.refs.is_empty());
    }

    #[test]
    fn deep_and_cyclic_trees_do_not_overflow_or_loop() {
        let depth = 50_000;
        let mut v = Vec::new();
        for i in 0..depth {
            v.push(json!({"nodeId": i.to_string(),
                "parentId": if i == 0 { Value::Null } else { json!((i - 1).to_string()) },
                "role": {"value": "generic"},
                "childIds": [((i + 1) % depth).to_string()]}));
        }
        let frames = vec![FrameTree {
            frame_id: "M".into(),
            owner: None,
            nodes: nodes(Value::Array(v)),
        }];
        let o = render(&frames, &mut RefNumbers::starting_at(1), 1000);
        assert_eq!(o.text, "");
    }
}
