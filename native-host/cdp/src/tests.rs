//! The CDP endpoint's checks of every request, alone and over real TCP.

use super::*;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

fn config(port: u16) -> Config {
    Config {
        port,
        token: "ab".repeat(32),
        browser_id: "cd".repeat(16),
        agent_socket: PathBuf::from("/nonexistent/cotab/agent.sock"),
    }
}

fn head(extra: &str) -> Head {
    let text = format!("GET /json/version HTTP/1.1\r\n{extra}\r\n");
    parse_head(text.as_bytes())
        .expect("http")
        .expect("complete")
        .0
}

#[test]
fn a_request_needs_this_loopback_port_no_origin_and_the_token() {
    let c = config(9222);
    let token = format!("Authorization: Bearer {}\r\n", c.token);
    let good = head(&format!("Host: 127.0.0.1:9222\r\n{token}"));
    assert_eq!(check_head(&good, &c), Ok(()));
    assert_eq!(
        check_head(&head(&format!("Host: LOCALHOST:9222\r\n{token}")), &c),
        Ok(())
    );
    let refused = [
        format!("Host: 127.0.0.1:9223\r\n{token}"),
        format!("Host: evil.example:9222\r\n{token}"),
        format!("Host: 127.0.0.1.evil.example:9222\r\n{token}"),
        token.clone(),
        format!("Host: 127.0.0.1:9222\r\nOrigin: https://evil.example\r\n{token}"),
        format!("Host: 127.0.0.1:9222\r\nOrigin: null\r\n{token}"),
        "Host: 127.0.0.1:9222\r\n".to_string(),
        "Host: 127.0.0.1:9222\r\nAuthorization: Bearer \r\n".to_string(),
        format!(
            "Host: 127.0.0.1:9222\r\nAuthorization: Bearer {}\r\n",
            "ab".repeat(31)
        ),
        format!(
            "Host: 127.0.0.1:9222\r\nAuthorization: Bearer {}x\r\n",
            "ab".repeat(32)
        ),
        format!("Host: 127.0.0.1:9222\r\nAuthorization: {}\r\n", c.token),
    ];
    for extra in refused {
        let status = check_head(&head(&extra), &c).map_err(|(s, _)| s);
        assert!(matches!(status, Err(401 | 403)), "{extra:?}: {status:?}");
    }
}

#[test]
fn a_header_given_twice_or_a_broken_head_is_refused() {
    let twice = b"GET / HTTP/1.1\r\nHost: 127.0.0.1:1\r\nHost: evil:1\r\n\r\n";
    assert_eq!(parse_head(twice), Err(()));
    assert_eq!(parse_head(b"\x00\x01 nonsense\r\n\r\n"), Err(()));
    assert_eq!(parse_head(b"GET / HTTP/1.1\r\nHost: a"), Ok(None));
}

#[test]
fn tungstenite_reads_a_handshake_as_the_endpoint_does() {
    let c = config(9222);
    let text = format!(
        "GET /devtools/browser/{} HTTP/1.1\r\nHost: 127.0.0.1:9222\r\n\
         Authorization: Bearer {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\
         User-Agent: Playwright/1.65\r\n\r\n",
        c.browser_id, c.token
    );
    let ours = parse_head(text.as_bytes())
        .expect("http")
        .expect("complete")
        .0;
    let mut request = Request::builder()
        .method("GET")
        .uri(ours.path.as_str())
        .body(())
        .expect("request");
    for line in text.split("\r\n").skip(1).filter(|l| !l.is_empty()) {
        let (name, value) = line.split_once(": ").expect("header");
        request.headers_mut().append(
            tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(name.as_bytes())
                .expect("name"),
            value.parse().expect("value"),
        );
    }
    assert_eq!(head_of(&request), Ok(ours.clone()));
    assert_eq!(route(&ours, &c), Ok(Route::Browser));
    // A header that came twice is refused by both readings.
    request
        .headers_mut()
        .append("host", "evil.example:9222".parse().expect("value"));
    assert_eq!(head_of(&request), Err(()));
}

#[test]
fn routes_are_the_json_pages_and_this_browsers_socket() {
    let c = config(1);
    let route_of = |method: &str, path: &str, upgrade: bool| {
        let h = Head {
            method: method.into(),
            path: path.into(),
            upgrade: upgrade.then(|| "websocket".into()),
            ..Head::default()
        };
        route(&h, &c).map_err(|(s, _)| s)
    };
    assert_eq!(route_of("GET", "/json/version", false), Ok(Route::Version));
    assert_eq!(route_of("GET", "/json/version/", false), Ok(Route::Version));
    assert_eq!(route_of("GET", "/json/list?x", false), Ok(Route::List));
    assert_eq!(route_of("GET", "/json", false), Ok(Route::List));
    let browser = format!("/devtools/browser/{}", c.browser_id);
    assert_eq!(route_of("GET", &browser, true), Ok(Route::Browser));
    assert_eq!(route_of("GET", &browser, false), Err(404));
    assert_eq!(route_of("GET", "/devtools/browser/other", true), Err(404));
    assert_eq!(route_of("GET", "/devtools/page/X", true), Err(404));
    assert_eq!(route_of("POST", "/json/version", false), Err(405));
    assert_eq!(route_of("PUT", "/json/new?about:blank", false), Err(405));
    assert_eq!(route_of("GET", "/json/new", false), Err(404));
}

/// Serves a config on a random port; sends `request` and returns the
/// answer's status line and body.
async fn exchange(request: impl Fn(u16, &str) -> String) -> (String, String) {
    let (listener, port) = bind(0).await.expect("bind");
    let c = Arc::new(config(port));
    let token = c.token.clone();
    let server = tokio::spawn(serve(listener, c));
    let mut s = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    s.write_all(request(port, &token).as_bytes())
        .await
        .expect("write");
    let mut answer = String::new();
    s.read_to_string(&mut answer).await.expect("read");
    server.abort();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    (
        head.lines().next().unwrap_or_default().to_owned(),
        body.to_owned(),
    )
}

#[tokio::test]
async fn the_version_page_names_the_browsers_socket_to_a_client_with_the_token() {
    let (status, body) = exchange(|port, token| {
        format!("GET /json/version HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\r\n")
    })
    .await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    let v: serde_json::Value = serde_json::from_str(&body).expect("json");
    let ws = v["webSocketDebuggerUrl"].as_str().expect("a socket url");
    assert!(ws.starts_with("ws://127.0.0.1:"), "{ws}");
    assert!(
        !ws.contains(&"ab".repeat(32)),
        "the token is never in a url"
    );
    assert_eq!(v["Protocol-Version"], "1.3");
}

#[tokio::test]
async fn requests_without_the_token_from_a_page_or_with_trailing_bytes_are_refused() {
    let (status, _) =
        exchange(|port, _| format!("GET /json/version HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"))
            .await;
    assert_eq!(status, "HTTP/1.1 401 Unauthorized");
    // A page's fetch or WebSocket always says where it comes from.
    let (status, _) = exchange(|port, token| {
        format!(
            "GET /devtools/browser/{} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\n\
             Authorization: Bearer {token}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
            "cd".repeat(16)
        )
    })
    .await;
    assert_eq!(status, "HTTP/1.1 403 Forbidden");
    // DNS rebinding: the page's name in Host.
    let (status, _) = exchange(|_, token| {
        format!("GET /json/list HTTP/1.1\r\nHost: rebound.example\r\nAuthorization: Bearer {token}\r\n\r\n")
    })
    .await;
    assert_eq!(status, "HTTP/1.1 403 Forbidden");
    let (status, _) = exchange(|port, token| {
        format!("GET /json/version HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\r\nGET / HTTP/1.1\r\n\r\n")
    })
    .await;
    assert_eq!(status, "HTTP/1.1 400 Bad Request");
}

#[tokio::test]
async fn a_socket_with_the_token_but_no_daemon_is_refused_saying_why() {
    let (status, body) = exchange(|port, token| {
        format!(
            "GET /devtools/browser/{} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\
             Authorization: Bearer {token}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
            "cd".repeat(16)
        )
    })
    .await;
    assert_eq!(status, "HTTP/1.1 403 Forbidden");
    assert!(body.contains("daemon is not running"), "{body}");
}
