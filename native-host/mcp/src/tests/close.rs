//! `browser_close` and `browser_type` with `slowly`: the current tab
//! closes as `browser_tabs` `close` closes it, and nothing else; typing
//! slowly empties the field, then presses one key per character.

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

#[tokio::test]
async fn typing_slowly_presses_one_key_per_character_after_emptying_the_field() {
    let daemon = FakeDaemon::start(one_tab());
    let mut mcp = Mcp::start(&daemon).await;
    mcp.call("browser_snapshot", json!({})).await;
    daemon.clear();
    let (text, is_error, _) = mcp
        .call(
            "browser_type",
            json!({"target": "e3", "text": "a b\n", "slowly": true, "submit": true}),
        )
        .await;
    assert!(!is_error, "{text}");
    let sent = daemon.input_calls();
    let press = |key: &str| {
        (
            "input.press".to_string(),
            json!({ "key": key, "modifiers": [] }),
        )
    };
    assert_eq!(
        sent,
        vec![
            (
                "input.type".to_string(),
                json!({"text": "", "ref": "e3", "clear": true})
            ),
            press("a"),
            press(" "),
            press("b"),
            press("Enter"),
            press("Enter"),
        ]
    );
    mcp.close().await;
}
