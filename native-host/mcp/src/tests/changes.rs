//! What an action's answer shows of the page in each snapshot mode: by
//! default the lines that changed since the outline the model last saw
//! of that tab; the whole outline after a navigation or in `full` mode;
//! none in `none` mode.

use super::{ok, one_tab, FakeDaemon, Mcp, Responder};
use crate::{Caps, SessionMode, SnapshotMode};
use cotab_shared::controller::{Call, SnapshotResult};
use serde_json::json;
use std::sync::{Arc, Mutex};

const FORM: &str = "- banner\n  - navigation \"Site\"\n    - link \"Home\" [ref=e10]\n    - link \"Pricing\" [ref=e11]\n    - link \"Blog\" [ref=e12]\n    - link \"Sign in\" [ref=e13]\n- main\n  - heading \"Sign up\" [level=1]\n  - form \"Sign up\" [ref=e2]\n    - textbox \"Name\" [ref=e3]\n    - textbox \"Email\" [ref=e4]\n    - checkbox \"Terms\" [ref=e5]\n    - button \"Send\" [ref=e6]\n- contentinfo\n  - link \"Help\" [ref=e7]\n  - link \"Privacy\" [ref=e8]\n";

/// After the send: an alert under the form, the button disabled.
const SENT: &str = "- banner\n  - navigation \"Site\"\n    - link \"Home\" [ref=e10]\n    - link \"Pricing\" [ref=e11]\n    - link \"Blog\" [ref=e12]\n    - link \"Sign in\" [ref=e13]\n- main\n  - heading \"Sign up\" [level=1]\n  - form \"Sign up\" [ref=e2]\n    - textbox \"Name\" [ref=e3]\n    - textbox \"Email\" [ref=e4]\n    - alert: Enter a valid email\n    - checkbox \"Terms\" [ref=e5]\n    - button \"Send\" [disabled] [ref=e6]\n- contentinfo\n  - link \"Help\" [ref=e7]\n  - link \"Privacy\" [ref=e8]\n";

/// A tab whose snapshots are `pages` in turn (the last one repeats), each
/// a url and an outline.
fn pages(pages: Vec<(&'static str, &'static str)>) -> Arc<Responder> {
    let next = Mutex::new(0usize);
    let page = one_tab();
    Arc::new(move |call| match call {
        Call::Snapshot(_) => {
            let mut n = next.lock().expect("lock");
            let (url, text) = pages[(*n).min(pages.len() - 1)];
            *n += 1;
            ok(SnapshotResult {
                url: url.into(),
                title: "Sign up".into(),
                text: text.into(),
                refs: 8,
                truncated: false,
                file_chooser: None,
                changes: None,
                whole_because: None,
            })
        }
        other => page(other),
    })
}

async fn click(mcp: &mut Mcp) -> String {
    let (text, is_error, _) = mcp
        .call("browser_click", json!({"element":"Send","ref":"e6"}))
        .await;
    assert!(!is_error, "{text}");
    text
}

#[tokio::test]
async fn an_action_answers_with_the_lines_that_changed_and_where_they_are() {
    let daemon = FakeDaemon::start(pages(vec![
        ("http://127.0.0.1/form", FORM),
        ("http://127.0.0.1/form#sent", SENT),
        ("http://127.0.0.1/done", FORM),
    ]));
    let mut mcp = Mcp::start(&daemon).await;
    let (whole, _, _) = mcp.call("browser_snapshot", json!({})).await;
    assert!(whole.contains(FORM.trim_end()), "{whole}");

    // The same document (a fragment is no navigation): the added alert and
    // the changed button, under the lines that say where they are.
    let text = click(&mut mcp).await;
    let diff = "```diff\n - main\n   - form \"Sign up\" [ref=e2]\n     - textbox \"Email\" [ref=e4]\n+    - alert: Enter a valid email\n@@\n     - checkbox \"Terms\" [ref=e5]\n-    - button \"Send\" [ref=e6]\n+    - button \"Send\" [disabled] [ref=e6]\n```\n";
    assert!(
        text.ends_with(&format!(
            "### Page\n- Page URL: http://127.0.0.1/form#sent\n- Page Title: Sign up\n\
             ### Snapshot changes\n{}\n{diff}",
            crate::changes::CHANGES_PREAMBLE
        )),
        "{text}"
    );
    assert!(text.len() < whole.len(), "{text}");
    assert!(!text.contains("Privacy"), "{text}");

    // Another document: its outline whole, even where lines are alike,
    // and why.
    let text = click(&mut mcp).await;
    assert!(
        text.contains(&format!(
            "### Snapshot\nThe whole page: {}.\n```yaml\n",
            cotab_core::outline::changes::Why::Navigated.says()
        )),
        "{text}"
    );
    assert!(text.contains(FORM.trim_end()), "{text}");
    // And then nothing changed.
    assert!(click(&mut mcp)
        .await
        .ends_with("None since your last snapshot of this page.\n"));
}

#[tokio::test]
async fn the_first_answer_on_a_tab_and_a_change_as_long_as_the_page_are_whole() {
    let daemon = FakeDaemon::start(pages(vec![
        ("http://127.0.0.1/", "- button \"A\" [ref=e2]\n"),
        ("http://127.0.0.1/", "- button \"B\" [ref=e3]\n"),
    ]));
    let mut mcp = Mcp::start(&daemon).await;
    // No outline seen yet: whole.
    let text = click(&mut mcp).await;
    assert!(
        text.contains("### Snapshot\n```yaml\n- button \"A\" [ref=e2]\n```"),
        "{text}"
    );
    // A diff longer than the outline: whole, and why.
    let text = click(&mut mcp).await;
    assert!(
        text.contains(&format!(
            "### Snapshot\nThe whole page: {}.\n```yaml\n- button \"B\" [ref=e3]\n```",
            cotab_core::outline::changes::Why::Long.says()
        )),
        "{text}"
    );
}

#[tokio::test]
async fn full_mode_answers_with_the_whole_outline_and_none_mode_with_none() {
    let twice = || {
        pages(vec![
            ("http://127.0.0.1/form", FORM),
            ("http://127.0.0.1/form", SENT),
        ])
    };
    let daemon = FakeDaemon::start(twice());
    let mut mcp = Mcp::start_in(
        &daemon,
        SessionMode::Fresh,
        Caps::default(),
        SnapshotMode::Full,
    )
    .await;
    mcp.call("browser_snapshot", json!({})).await;
    let text = click(&mut mcp).await;
    assert!(text.contains(SENT.trim_end()), "{text}");
    assert!(!text.contains("### Snapshot changes"), "{text}");

    let daemon = FakeDaemon::start(twice());
    let mut mcp = Mcp::start_in(
        &daemon,
        SessionMode::Fresh,
        Caps::default(),
        SnapshotMode::None,
    )
    .await;
    mcp.call("browser_snapshot", json!({})).await;
    daemon.clear();
    let text = click(&mut mcp).await;
    assert_eq!(text, "### Result\nClicked Send\n\n");
    assert_eq!(daemon.methods(), vec!["input.click"], "no snapshot taken");
}

#[tokio::test]
async fn back_from_another_tab_the_page_is_shown_whole_once() {
    let daemon = FakeDaemon::start(pages(vec![("http://127.0.0.1/form", FORM)]));
    let mut mcp = Mcp::start(&daemon).await;
    mcp.call("browser_snapshot", json!({})).await;
    assert!(click(&mut mcp)
        .await
        .ends_with("None since your last snapshot of this page.\n"));
    for index in [1, 0] {
        let (text, is_error, _) = mcp
            .call("browser_tabs", json!({"action": "select", "index": index}))
            .await;
        assert!(!is_error, "{text}");
        assert!(text.contains("### Snapshot\n```yaml\n"), "{text}");
    }
    assert!(click(&mut mcp)
        .await
        .ends_with("None since your last snapshot of this page.\n"));
}

/// An outline of 2,000 rows (longer than the snapshot limit) that ends
/// with `last`.
fn rows(last: &str) -> &'static str {
    let mut s = String::new();
    for i in 0..2000 {
        s.push_str(&format!("- row \"Product {i}\" [ref=e{}]\n", i + 10));
    }
    s.push_str(last);
    s.leak()
}

#[tokio::test]
async fn a_page_longer_than_the_limit_is_shown_cut_and_a_change_past_the_cut_is_a_change() {
    let daemon = FakeDaemon::start(pages(vec![
        ("http://127.0.0.1/big", rows("- status: The cart is empty.")),
        (
            "http://127.0.0.1/big",
            rows("- status: The cart holds Product 1999."),
        ),
    ]));
    let mut mcp = Mcp::start(&daemon).await;
    let (whole, _, _) = mcp.call("browser_snapshot", json!({})).await;
    assert!(whole.contains("(truncated: "), "cut as shown");
    assert!(
        whole.len() < 41_000 && !whole.contains("The cart"),
        "cut as shown"
    );
    let answer = click(&mut mcp).await;
    assert!(
        answer.contains("+- status: The cart holds Product 1999."),
        "{answer}"
    );
    assert!(answer.len() < 1_000, "the change, not the page: {answer}");
}

#[tokio::test]
async fn a_fill_answers_with_what_the_page_did_not_with_the_values_given() {
    const FILLED: &str = "- banner\n  - navigation \"Site\"\n    - link \"Home\" [ref=e10]\n    - link \"Pricing\" [ref=e11]\n    - link \"Blog\" [ref=e12]\n    - link \"Sign in\" [ref=e13]\n- main\n  - heading \"Sign up\" [level=1]\n  - form \"Sign up\" [ref=e2]\n    - textbox \"Name\" [ref=e3]: Ada\n    - textbox \"Email\" [ref=e4]: ada@\n    - alert: Enter a valid email\n    - checkbox \"Terms\" [checked] [ref=e5]\n    - button \"Send\" [ref=e6]\n- contentinfo\n  - link \"Help\" [ref=e7]\n  - link \"Privacy\" [ref=e8]\n";
    let daemon = FakeDaemon::start(pages(vec![
        ("http://127.0.0.1/form", FORM),
        ("http://127.0.0.1/form", FILLED),
    ]));
    let mut mcp = Mcp::start(&daemon).await;
    mcp.call("browser_snapshot", json!({})).await;
    let field = |target: &str, kind: &str, value: &str| json!({"target": target, "name": target, "type": kind, "value": value});
    let (text, is_error, _) = mcp
        .call(
            "browser_fill_form",
            json!({"fields": [
                field("e3", "textbox", "Ada"),
                field("e4", "textbox", "ada@example.com"),
                field("e5", "checkbox", "true"),
            ]}),
        )
        .await;
    assert!(!is_error, "{text}");
    // The page's alert and the email it cut short are news; the name and
    // the checked box are what the model gave.
    assert!(text.contains("+    - alert: Enter a valid email"), "{text}");
    assert!(
        text.contains("+    - textbox \"Email\" [ref=e4]: ada@"),
        "{text}"
    );
    let diff = text.split("```diff").nth(1).expect("a diff");
    let told: Vec<&str> = diff
        .lines()
        .filter(|l| l.starts_with('+') || l.starts_with('-'))
        .collect();
    assert_eq!(told.len(), 3, "{text}");
    assert!(!text.contains("[checked]"), "{text}");
}
