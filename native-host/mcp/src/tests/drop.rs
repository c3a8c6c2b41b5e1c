//! `browser_drop` through the server.

use super::*;

#[tokio::test]
async fn a_drop_sends_its_files_and_data_and_answers_with_a_snapshot() {
    let base = one_tab();
    let daemon = FakeDaemon::start(Arc::new(move |call| match call {
        Call::DropOn(_) => ok(Acted::default()),
        other => base(other),
    }));
    let mut mcp = Mcp::start(&daemon).await;
    let (text, is_error, _) = mcp
        .call(
            "browser_drop",
            json!({"element": "the zone", "target": "e2", "paths": ["/up/a.txt"],
                   "data": {"text/plain": "hi"}}),
        )
        .await;
    assert!(!is_error, "{text}");
    assert!(
        text.starts_with("### Result\nDropped 1 file(s) and 1 data item(s) onto the zone"),
        "{text}"
    );
    let sent = daemon
        .calls()
        .into_iter()
        .find(|(m, _)| m == "input.drop")
        .expect("input.drop sent");
    assert_eq!(
        sent.1,
        json!({"ref": "e2", "paths": ["/up/a.txt"], "data": {"text/plain": "hi"}})
    );
    daemon.clear();
    let (text, is_error, _) = mcp.call("browser_drop", json!({"target": "e2"})).await;
    assert!(is_error && text.contains("\"paths\" or \"data\""), "{text}");
    assert!(daemon.calls().is_empty(), "{:?}", daemon.calls());
    mcp.close().await;
}
