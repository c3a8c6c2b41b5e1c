//! The loopback WebSocket the extension's lane moves to: native messaging
//! costs the browser's IO thread a few hundred microseconds per message
//! and has a tail of several milliseconds; a WebSocket from the worker
//! skips the browser process (`docs/benchmarks.md`).
//!
//! How a connection moves, in order:
//!
//! 1. After a hello on the native link, the daemon sends a
//!    [`cotab_shared::native::HostToExtension::SocketOffer`]: this listener's port and a fresh
//!    token, bound to that connection's generation
//!    ([`SocketOffers::offer`]).
//! 2. The worker connects to `ws://127.0.0.1:PORT/lane/TOKEN`. The
//!    handshake is refused unless `Host` names this loopback port, `Origin`
//!    is cotab's extension and the token matches, unused and unexpired
//!    (compared in constant time; used once, whether or not the rest of
//!    the switch happens). The socket then waits, unread.
//! 3. The worker says [`cotab_shared::native::ExtensionToHost::SocketOpen`] on the native link
//!    and stops sending there. The daemon's native connection, having read
//!    everything before it, hands the socket the lane
//!    ([`SocketOffers::switch`], [`crate::lane::Lane::adopt`]): the last
//!    message queued to the native link is `socketSwitched`, and what
//!    follows goes to the socket. The worker holds what it receives on
//!    the socket until that message arrives, so each direction keeps its
//!    order.
//!
//! The lane is then one connection carried by two transports: when either
//! closes, the lane goes offline (its requests fail `UNKNOWN_OUTCOME`) and
//! the worker says hello again on a new native port. Without a socket (the
//! bind failed, `COTAB_SOCKET_LANE=off`, the worker could not connect) the
//! lane stays on native messaging.

use crate::accept::{Accepted, Acceptor};
use crate::browser_conn;
use crate::shell::Shell;
use crate::socket_offers::SocketOffers;
use cotab_local::loopback::is_loopback_host;
use cotab_shared::limits::MAX_EXTENSION_TO_HOST;
use futures_util::{SinkExt, StreamExt};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::StatusCode;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_util::bytes::{Bytes, BytesMut};
use tokio_util::sync::CancellationToken;

/// Environment variable that turns the WebSocket off (`off`): the lane
/// stays on native messaging.
pub const SOCKET_LANE_ENV: &str = "COTAB_SOCKET_LANE";

/// The path prefix of the lane's WebSocket; the token follows it.
pub const LANE_PATH: &str = "/lane/";

/// How long a connection may take to finish its WebSocket handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);

/// WebSocket connections open at once: the lane's and a few handshakes;
/// one more is closed unanswered.
pub const CONNECTIONS: usize = 4;

/// Binds a random port on 127.0.0.1: the listener, and the offers of
/// its port.
pub async fn bind() -> std::io::Result<(SocketOffers, TcpListener)> {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
    let port = listener.local_addr()?.port();
    Ok((SocketOffers::new(port), listener))
}

/// Whether the environment leaves the WebSocket on.
pub fn enabled_by_env() -> bool {
    std::env::var(SOCKET_LANE_ENV).map_or(true, |v| !v.trim().eq_ignore_ascii_case("off"))
}

/// Accepts WebSocket connections until `shutdown` fires: at most
/// [`CONNECTIONS`] open at once (the lane's socket and handshakes), with
/// [`crate::accept`]'s pause after a failed `accept()`.
pub async fn serve(shell: Arc<Shell>, listener: TcpListener, shutdown: CancellationToken) {
    let mut acceptor = Acceptor::new(listener, "lane WebSocket", CONNECTIONS);
    loop {
        let accepted = tokio::select! {
            _ = shutdown.cancelled() => return,
            a = acceptor.next() => a,
        };
        match accepted {
            Accepted::Conn(stream, slot) => {
                let (shell, shutdown) = (shell.clone(), shutdown.clone());
                tokio::spawn(async move {
                    serve_socket(shell, stream, shutdown).await;
                    drop(slot);
                });
            }
            Accepted::Full(_) => {
                tracing::warn!(
                    limit = CONNECTIONS,
                    "too many WebSocket connections; closed one"
                );
            }
        }
    }
}

/// What the handshake's request must carry, checked before the token.
fn check_request(request: &Request, port: u16) -> Result<&str, (StatusCode, &'static str)> {
    let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok());
    let host_ok = header("host").is_some_and(|host| is_loopback_host(host, port));
    if !host_ok {
        return Err((
            StatusCode::FORBIDDEN,
            "the Host header is not this loopback port",
        ));
    }
    let origin = cotab_shared::extension_origin(cotab_shared::EXTENSION_ID);
    let origin = origin.trim_end_matches('/');
    if header("origin") != Some(origin) {
        return Err((StatusCode::FORBIDDEN, "the Origin is not cotab's extension"));
    }
    if request.uri().query().is_some() {
        return Err((StatusCode::NOT_FOUND, "no such path"));
    }
    request
        .uri()
        .path()
        .strip_prefix(LANE_PATH)
        .ok_or((StatusCode::NOT_FOUND, "no such path"))
}

fn refusal(status: StatusCode, why: &'static str) -> ErrorResponse {
    let mut response = ErrorResponse::new(Some(why.to_owned()));
    *response.status_mut() = status;
    response
}

/// One WebSocket connection: the handshake's checks, the wait for its
/// native connection to switch, then the lane's messages.
async fn serve_socket(shell: Arc<Shell>, stream: TcpStream, shutdown: CancellationToken) {
    let Some(socket) = shell.socket_offers() else {
        return;
    };
    // The lane's frames are small and each is waited for: none waits for
    // the one before it to be acknowledged.
    let _ = stream.set_nodelay(true);
    let mut generation = None;
    // The callback's error type is tungstenite's (an HTTP response).
    #[allow(clippy::result_large_err)]
    let callback = |request: &Request, response: Response| {
        let token = check_request(request, socket.port()).map_err(|(s, why)| refusal(s, why))?;
        match socket.redeem(token) {
            Some(g) => {
                generation = Some(g);
                Ok(response)
            }
            None => Err(refusal(
                StatusCode::FORBIDDEN,
                "no such token, or it was used or expired",
            )),
        }
    };
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_EXTENSION_TO_HOST))
        .max_frame_size(Some(MAX_EXTENSION_TO_HOST));
    let handshake = tokio::time::timeout(
        HANDSHAKE_TIMEOUT,
        tokio_tungstenite::accept_hdr_async_with_config(stream, callback, Some(config)),
    )
    .await;
    let ws = match handshake {
        Ok(Ok(ws)) => ws,
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "refused a WebSocket connection");
            return;
        }
        Err(_) => {
            tracing::warn!("a WebSocket connection did not finish its handshake in time");
            return;
        }
    };
    let Some(generation) = generation else {
        return;
    };
    let (sink, stream) = ws.split();
    let (tx, rx) = mpsc::channel::<Bytes>(browser_conn::OUT_QUEUE);
    let adopted = socket.wait(generation, tx);
    let ended = tokio::select! {
        _ = shutdown.cancelled() => return,
        a = tokio::time::timeout(browser_conn::HELLO_TIMEOUT, adopted) => match a {
            Ok(Ok(ended)) => ended,
            _ => {
                tracing::info!("a WebSocket was not switched to; closing it");
                return;
            }
        },
    };
    tracing::info!("browser lane switched to the WebSocket");
    let outgoing = sink.with(|frame: Bytes| async move {
        Utf8Bytes::try_from(frame).map(Message::Text).map_err(|_| {
            tokio_tungstenite::tungstenite::Error::Utf8("a frame to the browser".into())
        })
    });
    let writer = tokio::spawn(browser_conn::write_all(rx, Box::pin(outgoing)));
    let incoming = stream.filter_map(|m| async move {
        match m {
            Ok(Message::Text(text)) => Some(Ok(BytesMut::from(text.as_bytes()))),
            Ok(Message::Binary(bytes)) => Some(Ok(BytesMut::from(&bytes[..]))),
            // Pings are answered by the library; a close ends the stream
            // after it; pongs and raw frames carry nothing.
            Ok(_) => None,
            Err(e) => Some(Err(e)),
        }
    });
    browser_conn::pump(&shell, generation, Box::pin(incoming), &ended, &shutdown).await;
    if shell.lane.detach(generation) {
        shell.lane_lost();
    }
    writer.abort();
    tracing::info!("the browser lane's WebSocket closed");
}

#[cfg(test)]
mod tests;
