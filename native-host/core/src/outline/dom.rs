//! The page's documents as `DOMSnapshot.captureSnapshot` gives them (one
//! call for the main frame and every frame in its process, each document's
//! nodes in flat arrays indexing a shared string table), read into one
//! tree per document that the outline walks: each node's children in
//! order, its attributes, whether the browser lays it out and shows it,
//! and the state of form controls as the person left it.
//!
//! It does not own: what a node means to assistive technology
//! ([`super::aria`]), or how the outline shows it.

use serde::Deserialize;
use std::collections::HashMap;

/// The computed styles the capture asks for, in this order.
pub const STYLES: [&str; 2] = ["display", "visibility"];

/// The raw capture: documents of flat arrays, and the strings they index.
#[derive(Debug, Default, Deserialize)]
pub struct Captured {
    #[serde(default)]
    documents: Vec<RawDocument>,
    #[serde(default)]
    strings: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct RawDocument {
    #[serde(rename = "baseURL")]
    base_url: i64,
    #[serde(rename = "documentURL", default = "absent")]
    document_url: i64,
    frame_id: i64,
    nodes: RawNodes,
    layout: RawLayout,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct RawNodes {
    parent_index: Vec<i64>,
    node_type: Vec<i64>,
    shadow_root_type: Rare,
    node_name: Vec<i64>,
    node_value: Vec<i64>,
    backend_node_id: Vec<i64>,
    attributes: Vec<Vec<i64>>,
    input_value: Rare,
    input_checked: Rare,
    option_selected: Rare,
    content_document_index: Rare,
    pseudo_type: Rare,
}

/// The string index of a column the capture left out: none.
fn absent() -> i64 {
    -1
}

/// A sparse column: the nodes that have it, and its value for each.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Rare {
    index: Vec<i64>,
    value: Vec<i64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct RawLayout {
    node_index: Vec<i64>,
    styles: Vec<Vec<i64>>,
    text: Vec<i64>,
}

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An element.
    Element,
    /// A text node.
    Text,
    /// A shadow root; `true` for the browser's own (a control's insides).
    Shadow(bool),
    /// The text CSS generates `::before` (`false`) or `::after` (`true`)
    /// an element's content.
    Generated(bool),
    /// A document, doctype, comment, pseudo-element …
    Other,
}

/// How the browser lays a node out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Its computed `display`.
    pub display: String,
    /// Its computed `visibility` is `visible`.
    pub visible: bool,
}

/// One node of a document.
#[derive(Debug, Clone)]
pub struct Node {
    /// What it is.
    pub kind: Kind,
    /// An element's tag, lower case.
    pub tag: String,
    /// A text node's text, or what CSS generates.
    pub text: String,
    /// Its `backendNodeId`.
    pub backend_id: i64,
    /// Attributes, names lower case, in the page's order.
    pub attrs: Vec<(String, String)>,
    /// A field's value as it is now (not its `value` attribute).
    pub value: Option<String>,
    /// A checkbox or radio button checked now.
    pub checked: bool,
    /// An option selected now.
    pub selected: bool,
    /// The document an `<iframe>` shows, when it is in this capture.
    pub content: Option<usize>,
    /// None when the browser does not lay the node out.
    pub layout: Option<Layout>,
    /// The node it is in (a shadow root's is its host).
    pub parent: Option<usize>,
    /// Its nodes, in the page's order (a host's shadow root among them).
    pub children: Vec<usize>,
}

impl Node {
    /// The value of attribute `name` (lower case).
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The element has attribute `name`.
    pub fn has(&self, name: &str) -> bool {
        self.attr(name).is_some()
    }

    /// The node is a `tag` element.
    pub fn is(&self, tag: &str) -> bool {
        self.kind == Kind::Element && self.tag == tag
    }
}

/// One document: a frame's.
#[derive(Debug, Clone)]
pub struct Document {
    /// The CDP frame id.
    pub frame_id: String,
    /// The url its relative links resolve against.
    pub base_url: String,
    /// Its own url, whose origin is the document's (empty when the
    /// capture left it out).
    pub url: String,
    /// Its nodes, parents before their children, the document node first.
    pub nodes: Vec<Node>,
    /// The first element of each `id`.
    ids: HashMap<String, usize>,
    /// The `<label for=…>` elements of each `id`, in order.
    labels_for: HashMap<String, Vec<usize>>,
}

impl Document {
    /// The element whose `id` is `id`.
    pub fn by_id(&self, id: &str) -> Option<usize> {
        self.ids.get(id).copied()
    }

    /// The `<label for=…>` elements naming `id`.
    pub fn labels_for(&self, id: &str) -> &[usize] {
        self.labels_for.get(id).map_or(&[], Vec::as_slice)
    }

    /// The root: the document node.
    pub fn root(&self) -> Option<usize> {
        (!self.nodes.is_empty()).then_some(0)
    }
}

/// Every document of a capture, the main frame's first.
#[derive(Debug, Clone, Default)]
pub struct Dom {
    /// The documents; a frame's `Node::content` indexes them.
    pub documents: Vec<Document>,
}

/// The string at `i` (none for -1 or out of range).
fn string(strings: &[String], i: i64) -> &str {
    usize::try_from(i)
        .ok()
        .and_then(|i| strings.get(i))
        .map_or("", String::as_str)
}

impl Rare {
    /// Node index → value index into the strings.
    fn values(&self) -> HashMap<usize, i64> {
        self.index
            .iter()
            .zip(&self.value)
            .filter_map(|(&i, &v)| Some((usize::try_from(i).ok()?, v)))
            .collect()
    }

    fn has(&self) -> std::collections::HashSet<usize> {
        self.index
            .iter()
            .filter_map(|&i| usize::try_from(i).ok())
            .collect()
    }
}

impl Dom {
    /// The capture read into trees. Arrays of unequal length (a browser
    /// that left a column out) give nodes without what is missing.
    pub fn read(c: Captured) -> Dom {
        let strings = &c.strings;
        let documents = c
            .documents
            .into_iter()
            .map(|d| document(d, strings))
            .collect();
        Dom { documents }
    }
}

fn document(d: RawDocument, strings: &[String]) -> Document {
    let n = &d.nodes;
    let count = n.node_type.len();
    let shadow = n.shadow_root_type.values();
    let input = n.input_value.values();
    let checked = n.input_checked.has();
    let selected = n.option_selected.has();
    let content = n.content_document_index.values();
    let pseudo = n.pseudo_type.values();
    let mut layouts: HashMap<usize, Layout> = HashMap::new();
    let mut generated: HashMap<usize, &str> = HashMap::new();
    for (i, &node) in d.layout.node_index.iter().enumerate() {
        let Ok(node) = usize::try_from(node) else {
            continue;
        };
        let styles = d.layout.styles.get(i).map_or(&[][..], Vec::as_slice);
        let style = |k: usize| styles.get(k).map_or("", |&s| string(strings, s));
        if let Some(&t) = d.layout.text.get(i) {
            generated.insert(node, string(strings, t));
        }
        layouts.insert(
            node,
            Layout {
                display: style(0).to_string(),
                visible: !matches!(style(1), "hidden" | "collapse"),
            },
        );
    }
    let mut nodes: Vec<Node> = (0..count)
        .map(|i| {
            let name = n.node_name.get(i).map_or("", |&s| string(strings, s));
            let kind = match n.node_type[i] {
                _ if pseudo.contains_key(&i) => match string(strings, pseudo[&i]) {
                    "before" => Kind::Generated(false),
                    "after" => Kind::Generated(true),
                    _ => Kind::Other,
                },
                1 => Kind::Element,
                3 => Kind::Text,
                11 if shadow.contains_key(&i) => {
                    Kind::Shadow(string(strings, shadow[&i]) == "user-agent")
                }
                _ => Kind::Other,
            };
            let attrs = n.attributes.get(i).map_or(Vec::new(), |a| {
                a.chunks(2)
                    .map(|kv| {
                        let k = string(strings, kv[0]).to_ascii_lowercase();
                        let v = kv.get(1).map_or("", |&v| string(strings, v));
                        (k, v.to_string())
                    })
                    .collect()
            });
            Node {
                kind,
                tag: if kind == Kind::Element {
                    name.to_ascii_lowercase()
                } else {
                    String::new()
                },
                text: match kind {
                    Kind::Text => n
                        .node_value
                        .get(i)
                        .map_or("", |&s| string(strings, s))
                        .to_string(),
                    Kind::Generated(_) => generated.get(&i).copied().unwrap_or("").to_string(),
                    _ => String::new(),
                },
                backend_id: n.backend_node_id.get(i).copied().unwrap_or(0),
                attrs,
                value: input.get(&i).map(|&v| string(strings, v).to_string()),
                checked: checked.contains(&i),
                selected: selected.contains(&i),
                content: content.get(&i).and_then(|&v| usize::try_from(v).ok()),
                layout: layouts.remove(&i),
                parent: None,
                children: Vec::new(),
            }
        })
        .collect();
    // Parents come before their children: one pass links them in order.
    for i in 0..count {
        let Some(p) = n.parent_index.get(i).and_then(|&p| usize::try_from(p).ok()) else {
            continue;
        };
        if p < i {
            nodes[i].parent = Some(p);
            nodes[p].children.push(i);
        }
    }
    let mut document = Document::new(
        string(strings, d.frame_id).to_string(),
        string(strings, d.base_url).to_string(),
        nodes,
    );
    document.url = string(strings, d.document_url).to_string();
    document
}

impl Document {
    /// A document of `nodes`, its ids and labels indexed.
    pub fn new(frame_id: String, base_url: String, nodes: Vec<Node>) -> Document {
        let mut ids = HashMap::new();
        let mut labels_for: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, node) in nodes.iter().enumerate() {
            if node.kind != Kind::Element {
                continue;
            }
            if let Some(id) = node.attr("id").filter(|id| !id.is_empty()) {
                ids.entry(id.to_string()).or_insert(i);
            }
            if node.tag == "label" {
                if let Some(f) = node.attr("for").filter(|f| !f.is_empty()) {
                    labels_for.entry(f.to_string()).or_default().push(i);
                }
            }
        }
        Document {
            frame_id,
            base_url,
            url: String::new(),
            nodes,
            ids,
            labels_for,
        }
    }
}
