//! `cotab cdp-endpoint`: a CDP endpoint on 127.0.0.1 that Playwright's
//! `connectOverCDP` and Puppeteer's `connect` use as they would a
//! browser's, confined to the shared tabs and under the broker's rules.
//!
//! It is an agent of the daemon like any other: each tab a client attaches
//! to is one agent session of its own (`session.hello` with the client's
//! name, `tabs.select`, `control.acquire`, `cdp.events`), so leases, the
//! person's takeover, developer mode, blocked pages and the raw-CDP rules
//! hold for it as for `cdp.send`. Browser-level domains (`Target`,
//! `Browser`) are emulated over the shared tabs here (module `client`); every
//! other command of an attached session goes to its tab as `cdp.send`,
//! and the tab's events come back as `cdp.event` notifications; so do a
//! child session's (a frame in another process, a worker), with its
//! `sessionId`.
//!
//! What a connection must carry (checked before anything is answered):
//! `Host` a loopback name with this port, no `Origin` (a web page's
//! request always has one), and `Authorization: Bearer TOKEN` with the
//! token printed at start (32 random bytes, compared in constant time).
//! The token never goes in a url. HTTP: `GET /json/version`, `/json/list`
//! (`/json`); the browser's WebSocket is `/devtools/browser/ID`.

mod client;
mod mux;
#[cfg(test)]
mod tests;

use cotab_local::accept::{Accepted, Acceptor};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::StatusCode;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::WebSocketStream;

pub use mux::Mux;

/// Longest request head taken (request line and headers).
const MAX_HEAD: usize = 16 * 1024;

/// How long a connection may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(5);

/// Connections open at once; one more is closed unanswered.
pub const CONNECTIONS: usize = 16;

/// Longest WebSocket message taken from a client.
const MAX_CLIENT_MESSAGE: usize = 16 << 20;

/// What every connection is checked against, and where the daemon is.
#[derive(Debug)]
pub struct Config {
    /// The port the endpoint listens on (127.0.0.1).
    pub port: u16,
    /// The token clients send as `Authorization: Bearer TOKEN`.
    pub token: String,
    /// The id in the browser WebSocket's path.
    pub browser_id: String,
    /// The daemon's agent socket.
    pub agent_socket: PathBuf,
}

impl Config {
    /// A config with a fresh token and browser id.
    pub fn new(port: u16, agent_socket: PathBuf) -> std::io::Result<Config> {
        Ok(Config {
            port,
            token: random_hex(32)?,
            browser_id: random_hex(16)?,
            agent_socket,
        })
    }

    /// `http://127.0.0.1:PORT`, what `connectOverCDP` takes.
    pub fn http_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The browser's WebSocket url, what Puppeteer's `browserWSEndpoint`
    /// takes.
    pub fn browser_ws_url(&self) -> String {
        format!(
            "ws://127.0.0.1:{}/devtools/browser/{}",
            self.port, self.browser_id
        )
    }
}

fn random_hex(bytes: usize) -> std::io::Result<String> {
    let mut b = vec![0u8; bytes];
    getrandom::fill(&mut b).map_err(std::io::Error::other)?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// Binds 127.0.0.1 on `port` (a random one for 0).
pub async fn bind(port: u16) -> std::io::Result<(TcpListener, u16)> {
    let listener = TcpListener::bind(("127.0.0.1", port)).await?;
    let port = listener.local_addr()?.port();
    Ok((listener, port))
}

/// Serves connections until the process ends.
pub async fn serve(listener: TcpListener, config: Arc<Config>) {
    let mut acceptor = Acceptor::new(listener, "CDP endpoint", CONNECTIONS);
    loop {
        match acceptor.next().await {
            Accepted::Conn(stream, slot) => {
                let config = config.clone();
                tokio::spawn(async move {
                    connection(stream, config).await;
                    drop(slot);
                });
            }
            Accepted::Full(_) => {
                tracing::warn!(limit = CONNECTIONS, "too many CDP endpoint connections");
            }
        }
    }
}

/// A request head as read: method, path and the headers that matter.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Head {
    pub method: String,
    pub path: String,
    pub host: Option<String>,
    pub origin: Option<String>,
    pub authorization: Option<String>,
    pub upgrade: Option<String>,
    pub ws_key: Option<String>,
    pub ws_version: Option<String>,
    pub user_agent: Option<String>,
}

/// Reads a request head from `bytes`: `None` while it is incomplete,
/// `Err` when it is not HTTP.
pub(crate) fn parse_head(bytes: &[u8]) -> Result<Option<(Head, usize)>, ()> {
    let mut headers = [httparse::EMPTY_HEADER; 48];
    let mut req = httparse::Request::new(&mut headers);
    let len = match req.parse(bytes) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(_) => return Err(()),
    };
    let mut head = Head {
        method: req.method.unwrap_or_default().to_owned(),
        path: req.path.unwrap_or_default().to_owned(),
        ..Head::default()
    };
    for h in req.headers.iter() {
        let value = String::from_utf8_lossy(h.value).trim().to_owned();
        let slot = match h.name.to_ascii_lowercase().as_str() {
            "host" => &mut head.host,
            "origin" => &mut head.origin,
            "authorization" => &mut head.authorization,
            "upgrade" => &mut head.upgrade,
            "sec-websocket-key" => &mut head.ws_key,
            "sec-websocket-version" => &mut head.ws_version,
            "user-agent" => &mut head.user_agent,
            _ => continue,
        };
        // A header given twice is refused rather than guessed at.
        if slot.replace(value).is_some() {
            return Err(());
        }
    }
    Ok(Some((head, len)))
}

/// The head of a WebSocket handshake as tungstenite read it, in the
/// terms of [`parse_head`] (which refuses a header given twice too).
fn head_of(request: &Request) -> Result<Head, ()> {
    let one = |name: &str| {
        let mut all = request.headers().get_all(name).iter();
        match (all.next(), all.next()) {
            (None, _) => Ok(None),
            (Some(v), None) => Ok(Some(
                String::from_utf8_lossy(v.as_bytes()).trim().to_owned(),
            )),
            (Some(_), Some(_)) => Err(()),
        }
    };
    let path = request
        .uri()
        .path_and_query()
        .map_or("", |p| p.as_str())
        .to_owned();
    Ok(Head {
        method: request.method().as_str().to_owned(),
        path,
        host: one("host")?,
        origin: one("origin")?,
        authorization: one("authorization")?,
        upgrade: one("upgrade")?,
        ws_key: one("sec-websocket-key")?,
        ws_version: one("sec-websocket-version")?,
        user_agent: one("user-agent")?,
    })
}

/// Why a request is refused: its status and a line for the client.
pub(crate) type Refusal = (u16, &'static str);

/// The checks every request passes before it is answered: a loopback
/// `Host` with this port, no `Origin`, the token.
pub(crate) fn check_head(head: &Head, config: &Config) -> Result<(), Refusal> {
    let host_ok = head
        .host
        .as_deref()
        .is_some_and(|host| cotab_local::loopback::is_loopback_host(host, config.port));
    if !host_ok {
        return Err((403, "the Host header is not this loopback port"));
    }
    if head.origin.is_some() {
        return Err((403, "requests with an Origin (from a web page) are refused"));
    }
    let given = head
        .authorization
        .as_deref()
        .and_then(|a| a.strip_prefix("Bearer "))
        .unwrap_or("");
    let good = cotab_core::session::constant_time_eq(given.as_bytes(), config.token.as_bytes());
    if !good {
        return Err((
            401,
            "no token, or the wrong one: send `Authorization: Bearer TOKEN` with the token \
             `cotab cdp-endpoint` printed",
        ));
    }
    Ok(())
}

/// What a request that passed [`check_head`] asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Route {
    /// `GET /json/version`.
    Version,
    /// `GET /json/list` (or `/json`).
    List,
    /// The browser's WebSocket.
    Browser,
}

pub(crate) fn route(head: &Head, config: &Config) -> Result<Route, Refusal> {
    let path = head.path.split('?').next().unwrap_or("");
    let upgrade = head
        .upgrade
        .as_deref()
        .is_some_and(|u| u.eq_ignore_ascii_case("websocket"));
    if upgrade {
        if head.method != "GET" {
            return Err((405, "a WebSocket opens with GET"));
        }
        if path.strip_prefix("/devtools/browser/") == Some(config.browser_id.as_str()) {
            return Ok(Route::Browser);
        }
        return Err((404, "no such WebSocket: the browser's is in /json/version"));
    }
    if head.method != "GET" {
        return Err((405, "only GET is served"));
    }
    match path.trim_end_matches('/') {
        "/json/version" => Ok(Route::Version),
        "/json/list" | "/json" => Ok(Route::List),
        _ => Err((404, "no such path")),
    }
}

/// Reads a request head: what it says, and its bytes.
async fn read_head(stream: &mut TcpStream) -> Result<(Head, Vec<u8>), Refusal> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        let n = stream
            .read(&mut chunk)
            .await
            .map_err(|_| (400, "the request could not be read"))?;
        if n == 0 {
            return Err((400, "the connection closed before its request"));
        }
        buf.extend_from_slice(&chunk[..n]);
        match parse_head(&buf) {
            Ok(Some((head, len))) => {
                // A client sends nothing after a GET's head before it is
                // answered; bytes there would be lost, so they are refused.
                if len != buf.len() {
                    return Err((400, "bytes after the request head"));
                }
                return Ok((head, buf));
            }
            Ok(None) if buf.len() < MAX_HEAD => continue,
            Ok(None) => return Err((431, "the request head is too long")),
            Err(()) => return Err((400, "not an HTTP request")),
        }
    }
}

async fn respond(stream: &mut TcpStream, status: u16, content_type: &str, body: &str) {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        _ => "Service Unavailable",
    };
    let text = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(text.as_bytes()).await;
    let _ = stream.shutdown().await;
}

async fn refuse(stream: &mut TcpStream, (status, why): Refusal) {
    tracing::info!(status, why, "refused a CDP endpoint request");
    respond(
        stream,
        status,
        "text/plain; charset=utf-8",
        &format!("{why}\n"),
    )
    .await;
}

async fn connection(mut stream: TcpStream, config: Arc<Config>) {
    // Each message is a small frame answered at once: none waits for the
    // one before it to be acknowledged.
    let _ = stream.set_nodelay(true);
    let (head, raw) = match tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut stream)).await {
        Ok(Ok(read)) => read,
        Ok(Err(refusal)) => return refuse(&mut stream, refusal).await,
        Err(_) => return,
    };
    let checked = check_head(&head, &config).and_then(|()| route(&head, &config));
    let route = match checked {
        Ok(r) => r,
        Err(refusal) => return refuse(&mut stream, refusal).await,
    };
    let json = "application/json; charset=UTF-8";
    match route {
        Route::Version => {
            let body = client::version_json(&config);
            respond(&mut stream, 200, json, &body.to_string()).await;
        }
        Route::List => match client::list_json(&config).await {
            Ok(body) => respond(&mut stream, 200, json, &body.to_string()).await,
            Err(e) => {
                let why = format!("{}\n", e.message);
                respond(&mut stream, 503, "text/plain; charset=utf-8", &why).await;
            }
        },
        Route::Browser => {
            if head.ws_key.is_none() {
                return refuse(&mut stream, (400, "no Sec-WebSocket-Key")).await;
            }
            if head.ws_version.as_deref() != Some("13") {
                return refuse(&mut stream, (400, "Sec-WebSocket-Version must be 13")).await;
            }
            let agent = client::agent_name(head.user_agent.as_deref());
            // Developer mode is read before the socket opens, so a client
            // learns at connect why it may do nothing.
            let opened = match client::open(&config, &agent).await {
                Ok(o) => o,
                Err(e) => {
                    let why = format!("{}\n", e.message);
                    return respond(&mut stream, 403, "text/plain; charset=utf-8", &why).await;
                }
            };
            let Some(ws) = upgrade(stream, raw, &config).await else {
                return;
            };
            tracing::info!(%agent, "a CDP client connected");
            client::run(ws, config, agent, opened).await;
            tracing::info!("a CDP client disconnected");
        }
    }
}

/// The browser WebSocket's handshake, by tungstenite, over the request
/// `raw` already read from `stream` and checked. Its callback checks the
/// head as tungstenite read it again, so the two readings cannot differ
/// on what was let in.
async fn upgrade(
    stream: TcpStream,
    raw: Vec<u8>,
    config: &Config,
) -> Option<WebSocketStream<Socket>> {
    let (read, write) = stream.into_split();
    let socket = tokio::io::join(std::io::Cursor::new(raw).chain(read), write);
    // The callback's error type is tungstenite's (an HTTP response).
    #[allow(clippy::result_large_err)]
    let callback = |request: &Request, response: Response| {
        let checked = head_of(request)
            .map_err(|()| (400, "a header given twice"))
            .and_then(|head| {
                check_head(&head, config)?;
                route(&head, config)
            });
        match checked {
            Ok(Route::Browser) => Ok(response),
            Ok(_) => Err(refusal((400, "not the browser's WebSocket"))),
            Err(why) => Err(refusal(why)),
        }
    };
    let ws_config = WebSocketConfig::default()
        .max_message_size(Some(MAX_CLIENT_MESSAGE))
        .max_frame_size(Some(MAX_CLIENT_MESSAGE));
    let handshake = tokio::time::timeout(
        HEAD_TIMEOUT,
        tokio_tungstenite::accept_hdr_async_with_config(socket, callback, Some(ws_config)),
    )
    .await;
    match handshake {
        Ok(Ok(ws)) => Some(ws),
        Ok(Err(e)) => {
            tracing::info!(error = %e, "refused a CDP endpoint WebSocket");
            None
        }
        Err(_) => None,
    }
}

/// A connection's socket once its head was read: that head again, then
/// the rest of the connection.
pub(crate) type Socket = tokio::io::Join<
    tokio::io::Chain<std::io::Cursor<Vec<u8>>, tokio::net::tcp::OwnedReadHalf>,
    tokio::net::tcp::OwnedWriteHalf,
>;

fn refusal((status, why): Refusal) -> ErrorResponse {
    tracing::info!(status, why, "refused a CDP endpoint request");
    let mut response = ErrorResponse::new(Some(format!("{why}\n")));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    response
}
