//! The tools that write files, through the server: what they ask of the
//! daemon, what they write in the workspace, and the names they refuse.

use super::*;
use base64::Engine as _;
use cotab_shared::controller::PdfResult;

/// [`one_tab`], printing to PDF too.
fn printing() -> Arc<Responder> {
    let base = one_tab();
    Arc::new(move |call| match call {
        Call::Pdf(_) => ok(PdfResult {
            data: base64::engine::general_purpose::STANDARD.encode(b"%PDF-1.4 fake"),
        }),
        other => base(other),
    })
}

#[tokio::test]
async fn screenshot_is_image_content() {
    let daemon = FakeDaemon::start(one_tab());
    let mut mcp = Mcp::start(&daemon).await;
    let (text, is_error, r) = mcp
        .call(
            "browser_take_screenshot",
            json!({"type":"png","element":"the button","ref":"e2"}),
        )
        .await;
    assert!(!is_error, "{text}");
    assert_eq!(r["content"][1]["type"], "image", "{r}");
    assert_eq!(r["content"][1]["mimeType"], "image/png", "{r}");
    assert_eq!(r["content"][1]["data"], "iVBORw0KGgo=", "{r}");
    let capture = daemon
        .calls()
        .into_iter()
        .find(|(m, _)| m == "page.capture")
        .expect("page.capture sent");
    assert_eq!(capture.1, json!({"format":"png","clip":"e2"}));
    mcp.close().await;
}

#[tokio::test]
async fn a_screenshot_is_saved_where_named_or_in_the_output_directory() {
    let daemon = FakeDaemon::start(one_tab());
    let mut mcp = Mcp::start(&daemon).await;
    let root = mcp.workspace.path().to_path_buf();
    // Named: written there, in the type its extension names, no image.
    let (text, is_error, r) = mcp
        .call(
            "browser_take_screenshot",
            json!({"filename": "shots/view.jpg", "fullPage": true}),
        )
        .await;
    assert!(!is_error, "{text}");
    assert!(
        text.contains("- [Screenshot of full page](shots/view.jpg)"),
        "{text}"
    );
    assert!(r["content"].get(1).is_none(), "{r}");
    assert!(root.join("shots/view.jpg").is_file());
    assert_eq!(
        daemon.calls().last().expect("a capture").1,
        json!({"format": "jpeg", "quality": 90, "fullPage": true})
    );
    // Unnamed: an image, and a file in the output directory.
    let (text, _, r) = mcp.call("browser_take_screenshot", json!({})).await;
    assert_eq!(r["content"][1]["type"], "image", "{r}");
    let shown = text
        .split("](")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .expect("a link");
    assert!(
        shown.starts_with(".cotab-mcp/page-") && shown.ends_with(".png"),
        "{text}"
    );
    assert!(root.join(shown).is_file());
    // Out of the workspace, and an element with the full page: refused,
    // nothing captured.
    daemon.clear();
    for args in [
        json!({"filename": "../escape.png"}),
        json!({"filename": "/etc/cotab.png"}),
    ] {
        let (text, is_error, _) = mcp.call("browser_take_screenshot", args.clone()).await;
        assert!(
            is_error && text.starts_with("PATH_NOT_ALLOWED"),
            "{args}: {text}"
        );
    }
    assert!(!root.parent().expect("parent").join("escape.png").exists());
    daemon.clear();
    let (text, is_error, _) = mcp
        .call(
            "browser_take_screenshot",
            json!({"target": "e2", "fullPage": true}),
        )
        .await;
    assert!(is_error && text.contains("fullPage"), "{text}");
    assert!(daemon.calls().is_empty(), "{:?}", daemon.calls());
    mcp.close().await;
}

#[tokio::test]
async fn a_snapshot_narrows_to_an_element_and_levels_or_goes_to_a_file() {
    let daemon = FakeDaemon::start(one_tab());
    let mut mcp = Mcp::start(&daemon).await;
    let root = mcp.workspace.path().to_path_buf();
    let (text, is_error, _) = mcp
        .call("browser_snapshot", json!({"target": "e2", "depth": 2}))
        .await;
    assert!(!is_error && text.contains("```yaml"), "{text}");
    assert_eq!(
        daemon.calls().last().expect("a snapshot"),
        &(
            "page.snapshot".to_string(),
            json!({"ref": "e2", "depth": 2})
        )
    );
    // Playwright's depth 0 is no limit: the whole page, read all of it
    // for the changes of the next answer.
    mcp.call("browser_snapshot", json!({"depth": 0})).await;
    assert_eq!(
        daemon.calls().last().expect("a snapshot").1,
        json!({"maxChars": 400_000})
    );
    let (text, is_error, _) = mcp
        .call("browser_snapshot", json!({"filename": "page.yml"}))
        .await;
    assert!(!is_error, "{text}");
    assert!(text.contains("- [Snapshot](page.yml)"), "{text}");
    assert!(!text.contains("```yaml"), "{text}");
    let saved = std::fs::read_to_string(root.join("page.yml")).expect("saved");
    assert_eq!(
        saved,
        "- button \"Click me\" [ref=e2]\n- textbox [ref=e3]\n"
    );
    mcp.close().await;
}

#[tokio::test]
async fn the_pdf_tool_comes_with_its_cap_and_saves_the_print() {
    let daemon = FakeDaemon::start(printing());
    let mut plain = Mcp::start(&daemon).await;
    assert!(!plain
        .tool_names()
        .await
        .iter()
        .any(|n| n == "browser_pdf_save"));
    plain.close().await;

    let daemon = FakeDaemon::start(printing());
    let caps = Caps::of(&[crate::Cap::Pdf]);
    let mut mcp = Mcp::start_serving(&daemon, SessionMode::Fresh, caps).await;
    assert!(mcp
        .tool_names()
        .await
        .iter()
        .any(|n| n == "browser_pdf_save"));
    let (text, is_error, _) = mcp
        .call("browser_pdf_save", json!({"filename": "out/page.pdf"}))
        .await;
    assert!(!is_error, "{text}");
    assert!(
        text.contains("- [Page as pdf](out/page.pdf) (13 bytes)"),
        "{text}"
    );
    let root = mcp.workspace.path().to_path_buf();
    assert_eq!(
        std::fs::read(root.join("out/page.pdf")).expect("saved"),
        b"%PDF-1.4 fake"
    );
    let (text, _, _) = mcp.call("browser_pdf_save", json!({})).await;
    assert!(
        text.contains("](.cotab-mcp/page-") && text.contains(".pdf)"),
        "{text}"
    );
    mcp.close().await;
}
