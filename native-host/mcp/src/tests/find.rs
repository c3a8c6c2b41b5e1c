//! `browser_find` through the server: one snapshot read, the matching
//! lines answered, nothing acted on.

use super::*;

#[tokio::test]
async fn browser_find_answers_the_matching_lines_of_a_snapshot() {
    let daemon = FakeDaemon::start(one_tab());
    let mut mcp = Mcp::start(&daemon).await;
    mcp.call("browser_snapshot", json!({})).await;
    daemon.clear();
    let (text, is_error, _) = mcp.call("browser_find", json!({"text": "CLICK"})).await;
    assert!(!is_error, "{text}");
    assert!(
        text.starts_with(
            "### Find results\nFound 1 match for \"CLICK\":\n\n- button \"Click me\" [ref=e2]"
        ),
        "{text}"
    );
    assert_eq!(daemon.methods(), vec!["page.snapshot"]);
    // The whole page is searched, not the outline cut at the default
    // limit that answers show.
    let calls = daemon.calls();
    assert_eq!(calls[0].1["maxChars"], json!(400_000), "{calls:?}");
    daemon.clear();
    let (text, is_error, _) = mcp
        .call("browser_find", json!({"regex": "/^- link/"}))
        .await;
    assert!(
        !is_error && text.contains("No matches found for /^- link/."),
        "{text}"
    );
    let (text, is_error, _) = mcp.call("browser_find", json!({})).await;
    assert!(
        is_error && text.contains("either `text` or `regex`"),
        "{text}"
    );
    mcp.close().await;
}
