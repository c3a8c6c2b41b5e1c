//! `browser_network_requests` and `browser_network_request` through the
//! server: the calls they make and the lines the model reads.

use super::*;
use cotab_shared::controller::{NetworkRequest, NetworkRequestDetail, NetworkResult};

fn request(index: u64, kind: &str, status: u16) -> NetworkRequest {
    NetworkRequest {
        index,
        method: "GET".into(),
        url: format!("http://127.0.0.1/{kind}"),
        resource_type: kind.into(),
        status: Some(status),
        status_text: Some("OK".into()),
        mime_type: None,
        failure: None,
    }
}

fn logging() -> Arc<Responder> {
    let base = one_tab();
    Arc::new(move |call| match call {
        Call::Network(_) => ok(NetworkResult {
            requests: vec![request(2, "fetch", 200), request(5, "fetch", 500)],
            hidden_static: 3,
            dropped: 0,
        }),
        Call::NetworkDetail(p) if p.index == 2 => ok(NetworkRequestDetail {
            request: request(2, "fetch", 200),
            request_headers: json!({"Accept": "*/*", "Cookie": "[redacted]"}),
            request_body: None,
            response_headers: Some(json!({"Content-Type": "application/json"})),
            response_body: Some("{\"ok\":true}".into()),
            response_body_base64: false,
        }),
        Call::NetworkDetail(_) => refused(
            ErrorKind::InvalidRequest,
            "request #9 is not in this tab's log",
        ),
        other => base(other),
    })
}

#[tokio::test]
async fn requests_are_listed_as_playwright_lists_them_and_read_in_parts() {
    let daemon = FakeDaemon::start(logging());
    let mut mcp = Mcp::start(&daemon).await;
    let (text, is_error, _) = mcp
        .call(
            "browser_network_requests",
            json!({"filter": "/fetch", "static": false}),
        )
        .await;
    assert!(!is_error, "{text}");
    assert_eq!(
        text,
        "### Network\n2. [GET] http://127.0.0.1/fetch => [200] OK\n\
         5. [GET] http://127.0.0.1/fetch => [500] OK\n\n\
         Note: 3 static requests not shown, run with \"static\" option to see them.\n"
    );
    assert_eq!(
        daemon.calls().last().expect("a call"),
        &("page.network".to_string(), json!({"filter": "/fetch"}))
    );
    let (text, is_error, _) = mcp
        .call("browser_network_request", json!({"index": 2}))
        .await;
    assert!(!is_error, "{text}");
    assert!(text.contains("    Cookie: [redacted]"), "{text}");
    assert!(
        text.contains("  Response body\n    {\"ok\":true}"),
        "{text}"
    );
    let (text, _, _) = mcp
        .call(
            "browser_network_request",
            json!({"index": 2, "part": "response-headers"}),
        )
        .await;
    assert_eq!(text, "### Request\nContent-Type: application/json");
    let (text, is_error, _) = mcp
        .call("browser_network_request", json!({"index": 9}))
        .await;
    assert!(is_error && text.starts_with("INVALID_REQUEST"), "{text}");
    // Saved instead of returned.
    let (text, _, _) = mcp
        .call("browser_network_requests", json!({"filename": "net.log"}))
        .await;
    assert_eq!(text, "### Network\n- [Network](net.log)");
    let saved = std::fs::read_to_string(mcp.workspace.path().join("net.log")).expect("saved");
    assert!(saved.starts_with("2. [GET]"), "{saved}");
    mcp.close().await;
}
