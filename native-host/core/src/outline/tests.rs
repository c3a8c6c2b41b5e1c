//! Tests of the outline: fixture documents rendered and compared line by
//! line. The documents are built as the browser's capture gives them:
//! elements laid out unless a style hides them, options without boxes,
//! fields holding their values now.

use super::dom::{Document, Kind, Layout, Node};
use super::*;

/// A node of a fixture document.
enum N {
    E(&'static str, Vec<(&'static str, &'static str)>, Vec<N>),
    T(&'static str),
}

fn e(tag: &'static str, attrs: &[(&'static str, &'static str)], kids: Vec<N>) -> N {
    N::E(tag, attrs.to_vec(), kids)
}

fn t(s: &'static str) -> N {
    N::T(s)
}

/// Tags laid out inline.
const INLINE: &[&str] = &[
    "a", "span", "b", "em", "strong", "label", "input", "select", "button", "img", "code",
];

struct Builder {
    nodes: Vec<Node>,
    next_id: i64,
}

impl Builder {
    fn push(
        &mut self,
        kind: Kind,
        tag: &str,
        parent: Option<usize>,
        layout: Option<Layout>,
    ) -> usize {
        let i = self.nodes.len();
        self.nodes.push(Node {
            kind,
            tag: tag.to_string(),
            text: String::new(),
            backend_id: self.next_id,
            attrs: Vec::new(),
            value: None,
            checked: false,
            selected: false,
            content: None,
            layout,
            parent,
            children: Vec::new(),
        });
        self.next_id += 1;
        if let Some(p) = parent {
            self.nodes[p].children.push(i);
        }
        i
    }

    /// `n` under `parent`; `shown` whether the parent is laid out, and
    /// `visible` its visibility.
    fn add(&mut self, n: &N, parent: usize, shown: bool, visible: bool) {
        match n {
            N::T(s) => {
                let layout = shown.then(|| Layout {
                    display: "inline".into(),
                    visible,
                });
                let i = self.push(Kind::Text, "", Some(parent), layout);
                self.nodes[i].text = s.to_string();
            }
            N::E(tag, attrs, kids) => {
                if *tag == "#shadow" {
                    let i = self.push(Kind::Shadow(false), "", Some(parent), None);
                    for k in kids {
                        self.add(k, i, shown, visible);
                    }
                    return;
                }
                let style = attrs
                    .iter()
                    .find(|(k, _)| *k == "style")
                    .map_or("", |(_, v)| *v);
                let shown = shown && !style.contains("display:none") && *tag != "option";
                let visible = if style.contains("visibility:hidden") {
                    false
                } else {
                    visible || style.contains("visibility:visible")
                };
                let display = if INLINE.contains(tag) {
                    "inline"
                } else {
                    "block"
                };
                let layout = shown.then(|| Layout {
                    display: display.into(),
                    visible,
                });
                let i = self.push(Kind::Element, tag, Some(parent), layout);
                for (k, v) in attrs {
                    match *k {
                        "value" if matches!(*tag, "input" | "textarea") => {
                            self.nodes[i].value = Some(v.to_string())
                        }
                        "checked" => self.nodes[i].checked = true,
                        "selected" => self.nodes[i].selected = true,
                        "content" => self.nodes[i].content = v.parse().ok(),
                        _ => {}
                    }
                    self.nodes[i].attrs.push((k.to_string(), v.to_string()));
                }
                for k in kids {
                    self.add(k, i, shown, visible);
                }
            }
        }
    }
}

/// A document whose body holds `body`; backend ids from `first_id` on, in
/// document order (the document node, `<html>` and `<body>` first).
fn doc(frame: &str, first_id: i64, body: Vec<N>) -> Document {
    let mut b = Builder {
        nodes: Vec::new(),
        next_id: first_id,
    };
    let block = || {
        Some(Layout {
            display: "block".into(),
            visible: true,
        })
    };
    let root = b.push(Kind::Other, "", None, block());
    let html = b.push(Kind::Element, "html", Some(root), block());
    let body_at = b.push(Kind::Element, "body", Some(html), block());
    for n in &body {
        b.add(n, body_at, true, true);
    }
    Document::new(frame.into(), "http://a/dir/page".into(), b.nodes)
}

fn outline_of(dom: &Dom, focused: Option<i64>, first: u64, max: usize) -> Outline {
    render(
        Source { dom, focused },
        &mut RefNumbers::starting_at(first),
        max,
    )
}

/// The sign-up page: ids 1–3 are the document, `<html>` and `<body>`.
fn page() -> Dom {
    let main = doc(
        "MAIN",
        1,
        vec![
            e("h1", &[], vec![t("Create an  account")]), // 4, its text 5
            e("label", &[("for", "email")], vec![t("Email")]), // 6, 7
            e(
                "input",
                &[
                    ("id", "email"),
                    ("type", "email"),
                    ("required", ""),
                    ("value", "a@b.c"),
                ],
                vec![],
            ), // 8
            e(
                "label",
                &[],
                vec![
                    e("input", &[("type", "checkbox")], vec![]),
                    t(" I accept \"the\" terms"),
                ],
            ), // 9, 10, 11
            e(
                "fieldset",
                &[("disabled", "")],
                vec![e("button", &[], vec![t("Sign up")])],
            ), // 12, 13, 14
            e("a", &[("href", "../help")], vec![t("Help")]), // 15, 16
            e("p", &[], vec![t("Some "), e("b", &[], vec![t("text")])]), // 17 …
            e(
                "select",
                &[("aria-label", "Country")],
                vec![
                    e("option", &[], vec![t("Japan")]),
                    e("option", &[("selected", "")], vec![t("France")]),
                ],
            ), // 21 …
            e("iframe", &[("content", "1")], vec![]),    // 26
            e("button", &[], vec![]),                    // 27
        ],
    );
    let child = doc(
        "CHILD",
        100,
        vec![e(
            "input",
            &[
                ("type", "radio"),
                ("aria-label", "Inner choice"),
                ("checked", ""),
            ],
            vec![],
        )],
    );
    Dom {
        documents: vec![main, child],
    }
}

/// As Playwright's aria snapshot writes the same page.
const EXPECTED: &str = r#"- heading "Create an account" [level=1] [ref=e5]
- text: Email
- textbox "Email" [active] [required] [ref=e6]: a@b.c
- checkbox "I accept \"the\" terms" [ref=e7]
- text: I accept "the" terms
- group [disabled]:
  - button "Sign up" [disabled] [ref=e8]
- link "Help" [ref=e9]:
  - /url: http://a/help
- paragraph: Some text
- combobox "Country" [ref=e10]:
  - option "Japan"
  - option "France" [selected]
- iframe:
  - radio "Inner choice" [checked] [ref=e11]
- button [ref=e12]"#;

#[test]
fn outline_shows_roles_names_states_values_and_refs() {
    let o = outline_of(&page(), Some(8), 5, 40_000);
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
            ("MAIN".into(), 4),
            ("MAIN".into(), 8),
            ("MAIN".into(), 10),
            ("MAIN".into(), 13),
            ("MAIN".into(), 15),
            ("MAIN".into(), 21),
            ("CHILD".into(), 103),
            ("MAIN".into(), 27),
        ]
    );
}

#[test]
fn what_the_page_hides_is_left_out_and_what_it_shows_again_is_not() {
    let dom = Dom {
        documents: vec![doc(
            "M",
            1,
            vec![
                e(
                    "div",
                    &[("style", "display:none")],
                    vec![e("button", &[], vec![t("Gone")])],
                ),
                e(
                    "div",
                    &[("aria-hidden", "true")],
                    vec![e("button", &[], vec![t("Muted")])],
                ),
                e(
                    "div",
                    &[("style", "visibility:hidden")],
                    vec![
                        e("button", &[], vec![t("Invisible")]),
                        e(
                            "button",
                            &[("style", "visibility:visible")],
                            vec![t("Shown again")],
                        ),
                    ],
                ),
                e("script", &[], vec![t("var x = 1;")]),
                e(
                    "input",
                    &[
                        ("type", "password"),
                        ("aria-label", "Secret"),
                        ("value", "hunter2"),
                    ],
                    vec![],
                ),
                e("img", &[("alt", "")], vec![]),
                e("img", &[("alt", "Logo")], vec![]),
            ],
        )],
    };
    assert_eq!(
        outline_of(&dom, None, 1, 40_000).text,
        "- button \"Shown again\" [ref=e1]\n- textbox \"Secret\" [ref=e2]\n\
         - img \"Logo\" [ref=e3]"
    );
}

#[test]
fn labels_legends_and_repeated_text_are_left_out_as_playwright_does() {
    let dom = Dom {
        documents: vec![doc(
            "M",
            1,
            vec![
                e(
                    "label",
                    &[],
                    vec![
                        t("Plan "),
                        e(
                            "select",
                            &[],
                            vec![
                                e("option", &[("selected", "")], vec![t("One")]),
                                e("option", &[], vec![t("Two")]),
                            ],
                        ),
                    ],
                ),
                e(
                    "fieldset",
                    &[],
                    vec![
                        e("legend", &[], vec![t("Contact")]),
                        e(
                            "input",
                            &[("type", "radio"), ("aria-label", "Email")],
                            vec![],
                        ),
                    ],
                ),
                e(
                    "div",
                    &[
                        ("role", "spinbutton"),
                        ("aria-label", "Quantity"),
                        ("aria-valuenow", "1"),
                    ],
                    vec![t("1")],
                ),
                e(
                    "p",
                    &[],
                    vec![
                        t("clicks:"),
                        e("span", &[], vec![t("0")]),
                        t(", moves:"),
                        e("span", &[], vec![t("0")]),
                    ],
                ),
                e(
                    "div",
                    &[("role", "button"), ("aria-labelledby", "lbl missing")],
                    vec![t("Inner")],
                ),
                e(
                    "span",
                    &[("id", "lbl"), ("style", "display:none")],
                    vec![t("Hidden label")],
                ),
                e(
                    "table",
                    &[],
                    vec![e(
                        "tr",
                        &[],
                        vec![e("th", &[], vec![t("Plan")]), e("td", &[], vec![t("Pro")])],
                    )],
                ),
            ],
        )],
    };
    assert_eq!(
        outline_of(&dom, None, 1, 40_000).text,
        r#"- text: Plan
- combobox "Plan" [ref=e1]:
  - option "One" [selected]
  - option "Two"
- group "Contact" [ref=e2]:
  - radio "Email" [ref=e3]
- spinbutton "Quantity" [ref=e4]: "1"
- paragraph: "clicks: 0, moves: 0"
- button "Hidden label" [ref=e5]: Inner
- table:
  - row "Plan Pro" [ref=e6]:
    - rowheader "Plan" [ref=e7]
    - cell "Pro" [ref=e8]"#
    );
}

#[test]
fn a_shadow_tree_shows_in_place_of_its_hosts_children_its_slots_filled() {
    let dom = Dom {
        documents: vec![doc(
            "M",
            1,
            vec![e(
                "my-card",
                &[],
                vec![
                    e(
                        "#shadow",
                        &[],
                        vec![
                            e(
                                "h2",
                                &[],
                                vec![e("slot", &[("name", "title")], vec![t("Untitled")])],
                            ),
                            e("slot", &[], vec![]),
                            e(
                                "slot",
                                &[("name", "foot")],
                                vec![e("button", &[], vec![t("Fallback")])],
                            ),
                        ],
                    ),
                    e("span", &[("slot", "title")], vec![t("Card")]),
                    e("a", &[("href", "/x")], vec![t("Open")]),
                ],
            )],
        )],
    };
    assert_eq!(
        outline_of(&dom, None, 1, 40_000).text,
        "- heading \"Card\" [level=2] [ref=e1]\n- link \"Open\" [ref=e2]:\n  - /url: http://a/x\n\
         - button \"Fallback\" [ref=e3]"
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
    let full = outline_of(&page(), None, 1, 40_000);
    let max = 160;
    let o = outline_of(&page(), None, 1, max);
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
    assert!(is_cut(&o.text) && !is_cut(&full.text));
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
    let tiny = outline_of(&page(), None, 1, 5);
    assert!(tiny.truncated);
    assert!(tiny.refs.is_empty());
}

/// `depth` elements `tag`, each inside the one before, the innermost
/// holding `inner`.
fn nested(tag: &'static str, attrs: &[(&'static str, &'static str)], depth: usize, inner: N) -> N {
    (0..depth).fold(inner, |kid, _| e(tag, attrs, vec![kid]))
}

#[test]
fn deep_pages_and_pages_of_nested_names_render_within_bounds() {
    // 50,000 nested containers: neither the walk nor the names recurse
    // that deep.
    let mut deep = doc("M", 1, vec![]);
    for _ in 0..50_000 {
        let (parent, i) = (deep.nodes.len() - 1, deep.nodes.len());
        let mut div = deep.nodes[parent].clone();
        div.tag = "div".into();
        div.parent = Some(parent);
        div.children.clear();
        deep.nodes[parent].children.push(i);
        deep.nodes.push(div);
    }
    let mut text = deep.nodes[0].clone();
    let last = deep.nodes.len() - 1;
    text.kind = Kind::Text;
    text.text = "bottom".into();
    text.parent = Some(last);
    text.children.clear();
    deep.nodes[last].children.push(last + 1);
    deep.nodes.push(text);
    let deep = Dom {
        documents: vec![deep],
    };
    assert_eq!(outline_of(&deep, None, 1, 1000).text, "- text: bottom");
    // 500 nested buttons: each names itself from what it holds, within
    // its budget, so only the innermost ones reach the text.
    let buttons = Dom {
        documents: vec![doc("M", 1, vec![nested("button", &[], 500, t("x"))])],
    };
    let o = outline_of(&buttons, None, 1, 400_000);
    assert_eq!(o.refs.len(), 500);
    let named = o
        .text
        .lines()
        .filter(|l| l.contains("button \"x\""))
        .count();
    assert!((1..500).contains(&named), "{named} of 500 named");
    assert!(o
        .text
        .lines()
        .last()
        .is_some_and(|l| l.ends_with("- button \"x\" [ref=e500]")));
    // A frame that names a document the capture lacks shows nothing.
    let dangling = Dom {
        documents: vec![doc("M", 1, vec![e("iframe", &[("content", "7")], vec![])])],
    };
    assert_eq!(outline_of(&dangling, None, 1, 1000).text, "- iframe");
}

fn main_node(id: i64) -> NodeRef {
    NodeRef {
        frame: "MAIN".into(),
        backend_node_id: id,
    }
}

#[test]
fn a_scope_renders_one_elements_subtree_and_levels_as_playwright_counts_them() {
    let link = main_node(15);
    let scoped = |root, depth| {
        render_scoped(
            Source {
                dom: &page(),
                focused: Some(8),
            },
            &mut RefNumbers::starting_at(5),
            40_000,
            Scope { root, depth },
        )
        .map(|o| o.text)
    };
    // The link and what is inside it, the link at the top.
    assert_eq!(
        scoped(Some(&link), None),
        Ok("- link \"Help\" [ref=e5]:\n  - /url: http://a/help".to_string())
    );
    // Level 0 only: a line at the limit loses its children (and its `:`).
    let top = scoped(None, Some(0)).expect("no root");
    assert!(top.contains("- link \"Help\" [ref=e8]\n"), "{top}");
    assert!(top.contains("- iframe\n"), "{top}");
    assert!(!top.contains("/url"), "{top}");
    assert!(!top.contains("radio"), "{top}");
    // Level 1 is the whole page here.
    assert_eq!(scoped(None, Some(1)), Ok(EXPECTED.to_string()));
    // A subtree cut at its own level 0.
    assert_eq!(
        scoped(Some(&link), Some(0)),
        Ok("- link \"Help\" [ref=e5]".to_string())
    );
    // An element the page no longer has.
    assert_eq!(scoped(Some(&main_node(999)), None), Err(RootGone));
}

#[test]
fn boxes_follow_the_ref_of_their_line() {
    let boxes: HashMap<u64, [i64; 4]> = [(5, [8, 8, 100, 20]), (12, [0, 40, 1, 1])].into();
    let text =
        "- heading \"[ref=e12]\" [level=1] [ref=e5]:\n  - /url: x\n- button [ref=e12]\n- text: e5";
    assert_eq!(
        with_boxes(text, &boxes),
        "- heading \"[ref=e12]\" [level=1] [ref=e5] [box=8,8,100,20]:\n  - /url: x\n\
         - button [ref=e12] [box=0,40,1,1]\n- text: e5"
    );
}

#[test]
fn a_capture_is_read_from_the_browsers_flat_arrays() {
    // <html><body><a href="/x">Go</a><input value="v"><button>it</button>
    // as the browser writes it, with a frame of its own; CSS generates
    // "Search " before the button's text and " now" after it (the
    // browser lists the `::after` first here).
    let raw = serde_json::json!({
        "strings": ["http://a/", "F1", "#document", "HTML", "BODY", "A", "href", "/x",
                    "#text", "Go", "INPUT", "v", "block", "visible", "inline",
                    "BUTTON", "::after", "after", " now", "it", "::before", "before", "Search "],
        "documents": [{
            "baseURL": 0, "frameId": 1,
            "nodes": {
                "parentIndex": [-1, 0, 1, 2, 3, 2, 2, 6, 6, 6],
                "nodeType": [9, 1, 1, 1, 3, 1, 1, 1, 3, 1],
                "nodeName": [2, 3, 4, 5, 8, 10, 15, 16, 8, 20],
                "nodeValue": [-1, -1, -1, -1, 9, -1, -1, -1, 19, -1],
                "backendNodeId": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
                "attributes": [[], [], [], [6, 7], [], [], [], [], [], []],
                "inputValue": {"index": [5], "value": [11]},
                "pseudoType": {"index": [7, 9], "value": [17, 21]}
            },
            "layout": {
                "nodeIndex": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
                "styles": [[], [12, 13], [12, 13], [14, 13], [14, 13], [14, 13], [14, 13],
                           [14, 13], [14, 13], [14, 13]],
                "text": [-1, -1, -1, -1, 9, -1, -1, 18, 19, 22]
            }
        }]
    });
    let dom = Dom::read(serde_json::from_value(raw).expect("a capture"));
    let o = outline_of(&dom, None, 1, 1000);
    assert_eq!(
        o.text,
        "- link \"Go\" [ref=e1]:\n  - /url: http://a/x\n- textbox [ref=e2]: v\n\
         - button \"Search it now\" [ref=e3]"
    );
    assert_eq!(o.refs[1].1.frame, "F1");
}

#[test]
fn a_refs_label_is_its_role_and_name_as_the_outline_shows_them() {
    let text = "- heading \"Create an account\" [level=1]\n\
                - textbox \"Email\" [active] [ref=e2]: ada@example.org\n\
                - button [ref=e3]\n\
                - button \"Say \\\"hi\\\" [now]\" [ref=e12]\n\
                - link \"Go\" [ref=e1]:\n  - /url: http://a/x";
    assert_eq!(label_of(text, 2).as_deref(), Some("textbox \"Email\""));
    assert_eq!(label_of(text, 3).as_deref(), Some("button"));
    assert_eq!(
        label_of(text, 12).as_deref(),
        Some("button \"Say \\\"hi\\\" [now]\"")
    );
    assert_eq!(label_of(text, 1).as_deref(), Some("link \"Go\""));
    // e1 is not e12's prefix, nor a ref the outline does not show.
    assert_eq!(label_of(text, 4), None);
    let long = format!("- button \"{}\" [ref=e5]", "x".repeat(200));
    let label = label_of(&long, 5).expect("a label");
    assert_eq!(label.chars().count(), MAX_LABEL);
    assert!(label.ends_with('…'));
}

#[test]
fn a_whole_outline_is_cut_as_a_rendered_one_is() {
    let text = (0..100)
        .map(|i| format!("- button \"{i}\" [ref=e{i}]"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(cut(&text, text.len()), None);
    let shown = cut(&text, 500).expect("cut");
    assert!(shown.chars().count() <= 500, "{shown}");
    assert!(is_cut(&shown), "{shown}");
    let kept = shown.lines().count() - 1;
    assert!(shown.starts_with("- button \"0\" [ref=e0]\n"), "{shown}");
    assert!(
        shown.ends_with(&format!("(truncated: {} more nodes)", 100 - kept)),
        "{shown}"
    );
    // Cut again, it still counts the nodes the first cut left out.
    let again = cut(&shown, 200).expect("cut again");
    let kept_again = again.lines().count() - 1;
    assert!(
        again.ends_with(&format!("(truncated: {} more nodes)", 100 - kept_again)),
        "{again}"
    );
}
