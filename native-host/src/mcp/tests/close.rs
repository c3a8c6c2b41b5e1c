//! `browser_close`: the current tab closes, as `browser_tabs` `close`
//! closes it, and the server forgets it; nothing else is closed.

use super::*;

#[tokio::test]
async fn browser_close_closes_the_current_tab_only() {
    let daemon = FakeDaemon::start(one_tab());
    let mut mcp = Mcp::start(&daemon).await;
    mcp.call("browser_snapshot", json!({})).await;
    daemon.clear();
    let (text, is_error, _) = mcp.call("browser_close", json!({})).await;
    assert!(!is_error, "{text}");
    assert!(text.contains("Closed tab 7"), "{text}");
    let calls = daemon.calls();
    assert_eq!(calls[0], ("tabs.close".to_string(), json!({"tabId": 7})));
    assert_eq!(
        calls.iter().filter(|(m, _)| m == "tabs.close").count(),
        1,
        "{calls:?}"
    );
    mcp.close().await;
}
