//! Tests of the outline: fixture trees rendered and compared line by line.

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

fn main_node(id: i64) -> NodeRef {
    NodeRef {
        frame: "MAIN".into(),
        backend_node_id: id,
    }
}

#[test]
fn a_scope_renders_one_elements_subtree_and_levels_as_playwright_counts_them() {
    let link = main_node(10);
    let scoped = |root, depth| {
        render_scoped(
            &page(),
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
    assert!(top.contains("- link \"Help\" [ref=e9]\n"), "{top}");
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
    // An element the tree no longer has.
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
