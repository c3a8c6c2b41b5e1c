//! What each node of a captured page is to assistive technology, as
//! WAI-ARIA 1.2, HTML-AAM and the accessible name computation define it
//! and as Playwright's aria snapshots show it: an element's role, its
//! name, its states and value, whether it is hidden, and its children in
//! the order the page shows them (a shadow tree's, with its slots filled).
//!
//! It does not own: reading the capture ([`super::dom`]), or the lines of
//! the outline.

use super::dom::{Document, Dom, Kind, Node};

/// Roles WAI-ARIA 1.2 defines (and `none`), the ones an explicit `role`
/// may give.
const ROLES: &[&str] = &[
    "alert",
    "alertdialog",
    "application",
    "article",
    "banner",
    "blockquote",
    "button",
    "caption",
    "cell",
    "checkbox",
    "code",
    "columnheader",
    "combobox",
    "complementary",
    "contentinfo",
    "definition",
    "deletion",
    "dialog",
    "directory",
    "document",
    "emphasis",
    "feed",
    "figure",
    "form",
    "generic",
    "grid",
    "gridcell",
    "group",
    "heading",
    "img",
    "image",
    "insertion",
    "link",
    "list",
    "listbox",
    "listitem",
    "log",
    "main",
    "mark",
    "marquee",
    "math",
    "meter",
    "menu",
    "menubar",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "navigation",
    "none",
    "note",
    "option",
    "paragraph",
    "presentation",
    "progressbar",
    "radio",
    "radiogroup",
    "region",
    "row",
    "rowgroup",
    "rowheader",
    "scrollbar",
    "search",
    "searchbox",
    "separator",
    "slider",
    "spinbutton",
    "status",
    "strong",
    "subscript",
    "superscript",
    "switch",
    "tab",
    "table",
    "tablist",
    "tabpanel",
    "term",
    "textbox",
    "time",
    "timer",
    "toolbar",
    "tooltip",
    "tree",
    "treegrid",
    "treeitem",
];

/// Roles named by their content when nothing else names them.
const NAMED_BY_CONTENT: &[&str] = &[
    "button",
    "cell",
    "checkbox",
    "columnheader",
    "gridcell",
    "heading",
    "link",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "radio",
    "row",
    "rowheader",
    "switch",
    "tab",
    "tooltip",
    "treeitem",
    "disclosuretriangle",
];

/// Elements never shown, whatever their style.
const NEVER_SHOWN: &[&str] = &[
    "head", "script", "style", "template", "noscript", "title", "meta", "link", "base",
];

/// Sectioning elements: a `<header>` or `<footer>` inside one is no
/// landmark.
const SECTIONING: &[&str] = &["article", "aside", "main", "nav", "section"];

/// Bytes of text a name is read from at most (the outline shows far
/// fewer characters).
const NAME_TEXT: usize = 4_096;

/// How much of the page one name may read: elements visited and how deep,
/// so that a page of nested buttons costs neither the stack nor quadratic
/// time.
struct Budget {
    visits: usize,
    depth: usize,
}

impl Budget {
    fn new() -> Budget {
        Budget {
            visits: 2_000,
            depth: 0,
        }
    }

    /// Goes one level down; false when the budget is spent.
    fn enter(&mut self) -> bool {
        if self.visits == 0 || self.depth >= 64 {
            return false;
        }
        self.visits -= 1;
        self.depth += 1;
        true
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }
}

/// A captured page and what is shown of each document's nodes.
pub struct Page<'a> {
    /// The captured documents.
    pub dom: &'a Dom,
    /// Per document, per node: it or a node under it is laid out.
    laid_out: Vec<Vec<bool>>,
}

/// Collapsed whitespace, trimmed.
pub fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl<'a> Page<'a> {
    /// The page of `dom`, what is laid out worked out once.
    pub fn new(dom: &'a Dom) -> Page<'a> {
        let laid_out = dom
            .documents
            .iter()
            .map(|d| {
                let mut out: Vec<bool> = d.nodes.iter().map(|n| n.layout.is_some()).collect();
                // Children come after their parents: from the end, each
                // node's mark reaches its parent.
                for i in (0..d.nodes.len()).rev() {
                    if let (true, Some(p)) = (out[i], d.nodes[i].parent) {
                        out[p] = true;
                    }
                }
                out
            })
            .collect();
        Page { dom, laid_out }
    }

    fn doc(&self, d: usize) -> &'a Document {
        &self.dom.documents[d]
    }

    fn node(&self, d: usize, i: usize) -> &'a Node {
        &self.dom.documents[d].nodes[i]
    }

    /// The nearest ancestor element that is `tag`.
    fn ancestor(&self, d: usize, i: usize, tag: &str) -> Option<usize> {
        self.ancestor_where(d, i, |n| n.is(tag))
    }

    /// The nearest ancestor that `f` accepts.
    fn ancestor_where(&self, d: usize, i: usize, f: impl Fn(&Node) -> bool) -> Option<usize> {
        let mut at = self.node(d, i).parent;
        while let Some(p) = at {
            if f(self.node(d, p)) {
                return Some(p);
            }
            at = self.node(d, p).parent;
        }
        None
    }

    /// Children in the order the page shows them: a host's shadow tree in
    /// place of its own children (which fill its slots), a slot's assigned
    /// nodes in place of its fallback, never the browser's own insides of
    /// a control.
    pub fn children(&self, d: usize, i: usize) -> Vec<usize> {
        let n = self.node(d, i);
        let shown = |c: &usize| matches!(self.node(d, *c).kind, Kind::Element | Kind::Text);
        let shadow = n
            .children
            .iter()
            .copied()
            .find(|&c| self.node(d, c).kind == Kind::Shadow(false));
        if let Some(root) = shadow {
            return self
                .node(d, root)
                .children
                .iter()
                .copied()
                .filter(shown)
                .collect();
        }
        if n.is("slot") {
            if let Some(host) = self.host_of(d, i) {
                let name = n.attr("name").unwrap_or("");
                let assigned: Vec<usize> = self
                    .node(d, host)
                    .children
                    .iter()
                    .copied()
                    .filter(|&c| {
                        let c = self.node(d, c);
                        match c.kind {
                            Kind::Element => c.attr("slot").unwrap_or("") == name,
                            Kind::Text => name.is_empty(),
                            _ => false,
                        }
                    })
                    .collect();
                if !assigned.is_empty() {
                    return assigned;
                }
            }
        }
        let mut out: Vec<usize> = n.children.iter().copied().filter(shown).collect();
        // What CSS generates goes before and after the content.
        let generated = |after: bool| {
            n.children
                .iter()
                .copied()
                .find(move |&c| self.node(d, c).kind == Kind::Generated(after))
        };
        if let Some(b) = generated(false) {
            out.insert(0, b);
        }
        out.extend(generated(true));
        out
    }

    /// The host of the shadow tree `i` is in.
    fn host_of(&self, d: usize, i: usize) -> Option<usize> {
        let root = self.ancestor_where(d, i, |n| matches!(n.kind, Kind::Shadow(_)))?;
        self.node(d, root).parent
    }

    /// The element and all under it are hidden: not laid out (and no
    /// `display: contents` with content laid out), `aria-hidden`, or
    /// never shown.
    pub fn hidden(&self, d: usize, i: usize) -> bool {
        let n = self.node(d, i);
        if matches!(n.kind, Kind::Generated(_)) {
            return !n.layout.as_ref().is_some_and(|l| l.visible);
        }
        if n.kind == Kind::Text {
            // An option's text has no box of its own either.
            if let Some(o) = n.parent.filter(|&p| self.node(d, p).is("option")) {
                return self.hidden(d, o);
            }
            return !n.layout.as_ref().is_some_and(|l| l.visible);
        }
        if NEVER_SHOWN.contains(&n.tag.as_str()) || n.attr("aria-hidden") == Some("true") {
            return true;
        }
        // A select's options have no boxes of their own.
        if matches!(n.tag.as_str(), "option" | "optgroup") {
            if let Some(s) = self.ancestor(d, i, "select") {
                return self.hidden(d, s);
            }
        }
        !self.laid_out[d][i]
    }

    /// The element's own box is invisible (`visibility: hidden`), though
    /// what is under it may show.
    pub fn invisible(&self, d: usize, i: usize) -> bool {
        self.node(d, i).layout.as_ref().is_some_and(|l| !l.visible)
    }

    /// The element's role: its first valid `role` token, else its tag's.
    pub fn role(&self, d: usize, i: usize) -> String {
        let n = self.node(d, i);
        if let Some(explicit) = n.attr("role") {
            if let Some(r) = explicit
                .split_ascii_whitespace()
                .map(str::to_ascii_lowercase)
                .find(|r| ROLES.contains(&r.as_str()))
            {
                return match r.as_str() {
                    "image" => "img".into(),
                    _ => r,
                };
            }
        }
        self.implicit_role(d, i).into()
    }

    fn implicit_role(&self, d: usize, i: usize) -> &'static str {
        let n = self.node(d, i);
        let has_name = || n.has("aria-label") || n.has("aria-labelledby") || n.has("title");
        match n.tag.as_str() {
            "a" | "area" if n.has("href") => "link",
            "article" => "article",
            "aside" => "complementary",
            "blockquote" => "blockquote",
            "button" => "button",
            "caption" => "caption",
            "code" => "code",
            "datalist" => "listbox",
            "del" => "deletion",
            "details" => "group",
            "dfn" | "dt" => "term",
            "dd" => "definition",
            "dialog" => "dialog",
            "em" => "emphasis",
            "fieldset" | "optgroup" => "group",
            "figure" => "figure",
            "footer" if !self.in_sectioning(d, i) => "contentinfo",
            "header" if !self.in_sectioning(d, i) => "banner",
            "form" => "form",
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => "heading",
            "hr" => "separator",
            "iframe" => "iframe",
            "img" if n.attr("alt") == Some("") && !has_name() => "presentation",
            "img" => "img",
            "input" => self.input_role(n),
            "ins" => "insertion",
            "label" => "labeltext",
            "legend" => "legend",
            "li" => "listitem",
            "main" => "main",
            "mark" => "mark",
            "math" => "math",
            "menu" | "ol" | "ul" => "list",
            "meter" => "meter",
            "nav" => "navigation",
            "option" => "option",
            "output" => "status",
            "p" => "paragraph",
            "progress" => "progressbar",
            "search" => "search",
            "section" if has_name() => "region",
            "select" => {
                let size = n.attr("size").and_then(|s| s.parse::<u32>().ok());
                if n.has("multiple") || size.is_some_and(|s| s > 1) {
                    "listbox"
                } else {
                    "combobox"
                }
            }
            "strong" => "strong",
            "sub" => "subscript",
            "summary" => "disclosuretriangle",
            "sup" => "superscript",
            "svg" => "img",
            "table" => "table",
            "tbody" | "thead" | "tfoot" => "rowgroup",
            "td" => {
                let grid = self.ancestor(d, i, "table").is_some_and(|t| {
                    matches!(self.node(d, t).attr("role"), Some("grid" | "treegrid"))
                });
                if grid {
                    "gridcell"
                } else {
                    "cell"
                }
            }
            "textarea" => "textbox",
            "th" => match n.attr("scope") {
                Some("col" | "colgroup") => "columnheader",
                Some("row" | "rowgroup") => "rowheader",
                // A header among a row's data cells heads that row.
                _ if self.beside_data_cells(d, i) => "rowheader",
                _ => "columnheader",
            },
            "time" => "time",
            "tr" => "row",
            _ if n.attr("contenteditable").is_some_and(|v| v != "false") => "textbox",
            _ => "generic",
        }
    }

    /// A `<th>` whose row holds `<td>`s too.
    fn beside_data_cells(&self, d: usize, i: usize) -> bool {
        self.node(d, i).parent.is_some_and(|row| {
            let row = self.node(d, row);
            row.is("tr") && row.children.iter().any(|&c| self.node(d, c).is("td"))
        })
    }

    fn input_role(&self, n: &Node) -> &'static str {
        let kind = n.attr("type").unwrap_or("text").to_ascii_lowercase();
        let list = n.has("list");
        match kind.as_str() {
            "button" | "image" | "reset" | "submit" | "file" => "button",
            "checkbox" => "checkbox",
            "radio" => "radio",
            "range" => "slider",
            "number" => "spinbutton",
            "search" if !list => "searchbox",
            "email" | "tel" | "text" | "url" | "search" | "" if list => "combobox",
            "hidden" => "none",
            _ => "textbox",
        }
    }

    fn in_sectioning(&self, d: usize, i: usize) -> bool {
        self.ancestor_where(d, i, |n| {
            n.kind == Kind::Element && SECTIONING.contains(&n.tag.as_str())
        })
        .is_some()
    }

    /// The element's accessible name, whitespace collapsed.
    pub fn name(&self, d: usize, i: usize, role: &str) -> String {
        let n = self.node(d, i);
        if let Some(ids) = n.attr("aria-labelledby") {
            let by: Vec<String> = ids
                .split_ascii_whitespace()
                .filter_map(|id| self.doc(d).by_id(id))
                .map(|t| squash(&self.text_alternative(d, t, true)))
                .filter(|t| !t.is_empty())
                .collect();
            if !by.is_empty() {
                return by.join(" ");
            }
        }
        if let Some(label) = n.attr("aria-label").map(squash).filter(|l| !l.is_empty()) {
            return label;
        }
        let native = squash(&self.native_name(d, i));
        if !native.is_empty() {
            return native;
        }
        if NAMED_BY_CONTENT.contains(&role) {
            let content = squash(&self.content(d, i, None, false));
            if !content.is_empty() {
                return content;
            }
        }
        let last = n.attr("title").or_else(|| {
            let text_field = matches!(role, "textbox" | "searchbox" | "combobox");
            n.attr("placeholder").filter(|_| text_field)
        });
        last.map(squash).unwrap_or_default()
    }

    /// The name the element's own markup gives: its labels, `alt`, a
    /// button's value, a caption or legend.
    fn native_name(&self, d: usize, i: usize) -> String {
        let n = self.node(d, i);
        let kind = n.attr("type").unwrap_or("").to_ascii_lowercase();
        match n.tag.as_str() {
            "input" if matches!(kind.as_str(), "button" | "submit" | "reset") => {
                match n.attr("value") {
                    Some(v) => v.to_string(),
                    None if kind == "submit" => "Submit".into(),
                    None if kind == "reset" => "Reset".into(),
                    None => String::new(),
                }
            }
            "input" if kind == "image" => n
                .attr("alt")
                .or(n.attr("value"))
                .unwrap_or("Submit")
                .to_string(),
            "input" | "textarea" | "select" | "button" | "meter" | "output" | "progress" => {
                self.labels(d, i)
            }
            "img" | "area" => n.attr("alt").unwrap_or("").to_string(),
            "fieldset" => self.first_child_text(d, i, "legend"),
            "figure" => self.first_child_text(d, i, "figcaption"),
            "table" => self.first_child_text(d, i, "caption"),
            "svg" => self.first_child_text(d, i, "title"),
            _ => String::new(),
        }
    }

    fn first_child_text(&self, d: usize, i: usize, tag: &str) -> String {
        self.node(d, i)
            .children
            .iter()
            .find(|&&c| self.node(d, c).is(tag))
            .map(|&c| self.content(d, c, None, tag == "title"))
            .unwrap_or_default()
    }

    /// The text of the `<label>`s of a control: `for` its id, and the one
    /// it is in.
    fn labels(&self, d: usize, i: usize) -> String {
        let n = self.node(d, i);
        let mut labels: Vec<usize> = n
            .attr("id")
            .map(|id| self.doc(d).labels_for(id).to_vec())
            .unwrap_or_default();
        if let Some(l) = self.ancestor(d, i, "label") {
            if !labels.contains(&l) {
                labels.push(l);
            }
        }
        labels
            .into_iter()
            .map(|l| squash(&self.content(d, l, Some(i), false)))
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The text alternative of `i` met inside another's name: its own
    /// label or alt, else its content.
    fn text_alternative(&self, d: usize, i: usize, hidden_ok: bool) -> String {
        self.alternative_in(d, i, hidden_ok, &mut Budget::new())
    }

    fn alternative_in(&self, d: usize, i: usize, hidden_ok: bool, b: &mut Budget) -> String {
        let n = self.node(d, i);
        if matches!(n.kind, Kind::Text | Kind::Generated(_)) {
            return n.text.clone();
        }
        if let Some(label) = n.attr("aria-label").filter(|l| !l.trim().is_empty()) {
            return label.to_string();
        }
        if matches!(n.tag.as_str(), "img" | "area") {
            if let Some(alt) = n.attr("alt") {
                return alt.to_string();
            }
        }
        self.content_in(d, i, None, hidden_ok, b)
    }

    /// The text under `i` as it reads: texts, the value of fields met on
    /// the way, block elements set apart by spaces; `skip` left out.
    fn content(&self, d: usize, i: usize, skip: Option<usize>, hidden_ok: bool) -> String {
        self.content_in(d, i, skip, hidden_ok, &mut Budget::new())
    }

    fn content_in(
        &self,
        d: usize,
        i: usize,
        skip: Option<usize>,
        hidden_ok: bool,
        b: &mut Budget,
    ) -> String {
        let mut out = String::new();
        if !b.enter() {
            return out;
        }
        for c in self.children(d, i) {
            if out.len() > NAME_TEXT {
                break;
            }
            if Some(c) == skip || (!hidden_ok && self.hidden(d, c)) {
                continue;
            }
            let n = self.node(d, c);
            if matches!(n.kind, Kind::Text | Kind::Generated(_)) {
                out.push_str(&n.text);
                continue;
            }
            let role = self.role(d, c);
            let part = match role.as_str() {
                "textbox" | "searchbox" | "spinbutton" | "slider" | "combobox"
                    if n.tag != "select" || role == "combobox" =>
                {
                    self.value(d, c, &role)
                }
                _ => self.alternative_in(d, c, hidden_ok, b),
            };
            let block = n.tag == "br"
                || n.layout
                    .as_ref()
                    .is_some_and(|l| !l.display.is_empty() && !l.display.starts_with("inline"));
            if block {
                out.push(' ');
            }
            out.push_str(&part);
            if block {
                out.push(' ');
            }
        }
        b.leave();
        out
    }

    /// The value shown after a field's line: its text now (none of a
    /// password's), a select's chosen option, a range's value.
    pub fn value(&self, d: usize, i: usize, role: &str) -> String {
        let n = self.node(d, i);
        match n.tag.as_str() {
            "select" => self
                .options(d, i)
                .into_iter()
                .find(|&o| self.node(d, o).selected)
                .map(|o| squash(&self.content(d, o, None, true)))
                .unwrap_or_default(),
            "input" | "textarea" => {
                // A password shows nothing of itself, not even its length.
                let password = n
                    .attr("type")
                    .is_some_and(|t| t.eq_ignore_ascii_case("password"));
                if password {
                    String::new()
                } else {
                    n.value.clone().unwrap_or_default()
                }
            }
            _ => match role {
                "slider" | "spinbutton" => n
                    .attr("aria-valuetext")
                    .or(n.attr("aria-valuenow"))
                    .unwrap_or("")
                    .to_string(),
                "textbox" | "searchbox" => squash(&self.content(d, i, None, false)),
                _ => String::new(),
            },
        }
    }

    /// The `<option>`s of a select, its groups' included.
    fn options(&self, d: usize, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        for &c in &self.node(d, i).children {
            let n = self.node(d, c);
            if n.is("option") {
                out.push(c);
            } else if n.is("optgroup") {
                out.extend(
                    n.children
                        .iter()
                        .copied()
                        .filter(|&o| self.node(d, o).is("option")),
                );
            }
        }
        out
    }

    /// The states shown in brackets, in the outline's order.
    pub fn states(&self, d: usize, i: usize, role: &str, focused: bool) -> Vec<String> {
        let n = self.node(d, i);
        let yes = |attr: &str| n.attr(attr) == Some("true");
        let mut out = Vec::new();
        let native_check = n.is("input")
            && n.attr("type").is_some_and(|t| {
                t.eq_ignore_ascii_case("checkbox") || t.eq_ignore_ascii_case("radio")
            });
        if native_check {
            if n.checked {
                out.push("checked".to_string());
            }
        } else if matches!(
            role,
            "checkbox" | "radio" | "switch" | "menuitemcheckbox" | "menuitemradio" | "treeitem"
        ) {
            match n.attr("aria-checked") {
                Some("mixed") => out.push("mixed".into()),
                Some("true") => out.push("checked".into()),
                _ => {}
            }
        }
        if yes("aria-pressed") {
            out.push("pressed".into());
        }
        if self.disabled(d, i) {
            out.push("disabled".into());
        }
        if yes("aria-expanded") {
            out.push("expanded".into());
        }
        if focused {
            out.push("active".into());
        }
        let selected = if n.is("option") {
            n.selected
        } else {
            yes("aria-selected")
        };
        if selected {
            out.push("selected".into());
        }
        let native_required = matches!(n.tag.as_str(), "input" | "select" | "textarea");
        if (native_required && n.has("required")) || yes("aria-required") {
            out.push("required".into());
        }
        if role == "heading" {
            let level = n
                .attr("aria-level")
                .and_then(|l| l.parse::<u32>().ok())
                .or_else(|| n.tag.strip_prefix('h').and_then(|l| l.parse().ok()))
                .unwrap_or(2);
            out.push(format!("level={level}"));
        }
        out
    }

    /// Disabled by its own attribute, a disabled fieldset (outside its
    /// first legend), a disabled group or select, or `aria-disabled` on it
    /// or above it.
    fn disabled(&self, d: usize, i: usize) -> bool {
        let n = self.node(d, i);
        let control = matches!(
            n.tag.as_str(),
            "button" | "input" | "select" | "textarea" | "option" | "optgroup" | "fieldset"
        );
        if control && n.has("disabled") {
            return true;
        }
        let mut child = i;
        let mut at = n.parent;
        while let Some(p) = at {
            let a = self.node(d, p);
            if a.attr("aria-disabled") == Some("true") {
                return true;
            }
            if control && a.has("disabled") {
                let first_legend = a.is("fieldset")
                    && a.children.iter().find(|&&c| self.node(d, c).is("legend")) == Some(&child);
                if matches!(a.tag.as_str(), "fieldset" | "optgroup" | "select") && !first_legend {
                    return true;
                }
            }
            child = p;
            at = a.parent;
        }
        n.attr("aria-disabled") == Some("true")
    }

    /// A link's target, resolved against the document's base url.
    pub fn url(&self, d: usize, i: usize, role: &str) -> Option<String> {
        let n = self.node(d, i);
        let href = n.attr("href").filter(|_| role == "link")?;
        let doc = self.doc(d);
        let resolved = url::Url::parse(&doc.base_url)
            .and_then(|base| base.join(href))
            .map(|u| u.to_string())
            .unwrap_or_else(|_| href.to_string());
        (!resolved.is_empty()).then_some(resolved)
    }
}
