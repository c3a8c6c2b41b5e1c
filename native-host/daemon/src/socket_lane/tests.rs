//! The lane's WebSocket over real loopback TCP: what the handshake
//! refuses, and a whole switch — the offer on the native link, the
//! socket, `socketOpen`, the last native message, a request and its
//! answer on the socket, and the lane's end when the socket closes.

use super::*;
use crate::broker::CoreConfig;
use crate::browser_conn::testing::transport as native;
use cotab_shared::controller::{LaneState, LaneTransport};
use cotab_shared::native::{Command, ExtensionToHost, HostToExtension};
use cotab_shared::{EXTENSION_ID, NATIVE_PROTOCOL_VERSION};
use serde_json::json;
use std::convert::Infallible;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::WebSocketStream;

fn message(v: &ExtensionToHost) -> Result<BytesMut, Infallible> {
    Ok(BytesMut::from(
        serde_json::to_vec(v).expect("serialises").as_slice(),
    ))
}

fn hello() -> Result<BytesMut, Infallible> {
    Ok(BytesMut::from(
        json!({"type": "hello", "protocolVersion": NATIVE_PROTOCOL_VERSION, "laneId": "lane-1",
               "extensionId": EXTENSION_ID, "version": "0.1.0"})
        .to_string()
        .as_bytes(),
    ))
}

/// A daemon's shell serving the lane's WebSocket; its port.
async fn daemon(shutdown: &CancellationToken) -> (Arc<Shell>, u16) {
    let shell = Arc::new(Shell::new(Duration::from_secs(5), CoreConfig::default()));
    let (offers, listener) = bind().await.expect("binds");
    let port = offers.port();
    shell.set_socket_offers(offers);
    tokio::spawn(serve(shell.clone(), listener, shutdown.clone()));
    (shell, port)
}

fn origin() -> String {
    cotab_shared::extension_origin(EXTENSION_ID)
        .trim_end_matches('/')
        .to_owned()
}

type Client = WebSocketStream<TcpStream>;

/// Opens `ws://127.0.0.1:port{path}` with these `Host` and `Origin`.
async fn connect(
    port: u16,
    path: &str,
    host: &str,
    origin: Option<&str>,
) -> Result<Client, tokio_tungstenite::tungstenite::Error> {
    let mut request = format!("ws://127.0.0.1:{port}{path}")
        .into_client_request()
        .expect("a request");
    request
        .headers_mut()
        .insert("host", HeaderValue::from_str(host).expect("a header"));
    if let Some(origin) = origin {
        request
            .headers_mut()
            .insert("origin", HeaderValue::from_str(origin).expect("a header"));
    }
    let stream = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connects");
    tokio_tungstenite::client_async(request, stream)
        .await
        .map(|(ws, _)| ws)
}

fn refused_with(r: Result<Client, tokio_tungstenite::tungstenite::Error>, status: u16) {
    match r {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status().as_u16(), status);
        }
        Err(e) => panic!("refused otherwise: {e}"),
        Ok(_) => panic!("accepted"),
    }
}

/// The next message of the native link that is not a state update.
async fn next_native(out: &mut mpsc::UnboundedReceiver<Bytes>) -> HostToExtension {
    loop {
        let frame = out.recv().await.expect("a message");
        match serde_json::from_slice::<HostToExtension>(&frame).expect("ours") {
            HostToExtension::Controllers { .. }
            | HostToExtension::Agents { .. }
            | HostToExtension::HoldOpened { .. }
            | HostToExtension::Policy { .. } => {}
            other => return other,
        }
    }
}

/// A native connection served by `shell` that said hello and was
/// welcomed: what the test sends as the extension, what the daemon sent
/// after the welcome, and the connection's task.
async fn welcomed(
    shell: &Arc<Shell>,
    shutdown: &CancellationToken,
) -> (
    crate::browser_conn::testing::Incoming,
    crate::browser_conn::testing::Outgoing,
    tokio::task::JoinHandle<()>,
) {
    let (tx, incoming, outgoing, mut out) = native();
    let served = tokio::spawn(browser_conn::serve(
        shell.clone(),
        incoming,
        outgoing,
        shutdown.clone(),
    ));
    tx.send(hello()).expect("send");
    assert!(matches!(
        next_native(&mut out).await,
        HostToExtension::Welcome { .. }
    ));
    (tx, out, served)
}

#[tokio::test]
async fn the_lane_moves_to_the_socket_in_order_and_ends_with_it() {
    let shutdown = CancellationToken::new();
    let (shell, port) = daemon(&shutdown).await;
    let (tx, mut out, served) = welcomed(&shell, &shutdown).await;
    let HostToExtension::SocketOffer {
        port: offered,
        token,
    } = next_native(&mut out).await
    else {
        panic!("no offer");
    };
    assert_eq!(offered, port);
    let host = format!("127.0.0.1:{port}");

    // What the handshake refuses, each before the token is used.
    let path = format!("{LANE_PATH}{token}");
    refused_with(
        connect(port, &path, "evil.example:80", Some(&origin())).await,
        403,
    );
    refused_with(
        connect(port, &path, &host, Some("https://evil.example")).await,
        403,
    );
    refused_with(connect(port, &path, &host, None).await, 403);
    refused_with(
        connect(port, &format!("/other/{token}"), &host, Some(&origin())).await,
        404,
    );
    refused_with(
        connect(
            port,
            &format!("{LANE_PATH}{}", "0".repeat(64)),
            &host,
            Some(&origin()),
        )
        .await,
        403,
    );
    // The right one, with `localhost` as the host name.
    let mut ws = connect(port, &path, &format!("localhost:{port}"), Some(&origin()))
        .await
        .expect("the token opens the socket");
    // A second connection with the same token is refused.
    refused_with(connect(port, &path, &host, Some(&origin())).await, 403);

    // Nothing moves before the worker says so.
    assert_eq!(shell.lane.transport(), Some(LaneTransport::NativeMessaging));
    tx.send(message(&ExtensionToHost::SocketOpen))
        .expect("send");
    assert_eq!(
        next_native(&mut out).await,
        HostToExtension::SocketSwitched { accepted: true }
    );
    assert_eq!(shell.lane.transport(), Some(LaneTransport::WebSocket));

    // A request goes out on the socket and its answer comes back on it.
    let lane = shell.lane.clone();
    let far = Instant::now() + Duration::from_secs(5);
    let call = tokio::spawn(async move { lane.call(Command::ListShared, far).await });
    let id = loop {
        let Some(Ok(Message::Text(text))) = ws.next().await else {
            panic!("the socket closed");
        };
        match serde_json::from_str::<HostToExtension>(&text).expect("ours") {
            HostToExtension::Request { id, .. } => break id,
            HostToExtension::Controllers { .. }
            | HostToExtension::Agents { .. }
            | HostToExtension::HoldOpened { .. }
            | HostToExtension::Policy { .. } => {}
            other => panic!("unexpected: {other:?}"),
        }
    };
    ws.send(Message::text(
        json!({"type": "response", "id": id, "result": {"tabs": []}}).to_string(),
    ))
    .await
    .expect("send");
    assert_eq!(call.await.expect("task"), Ok(json!({"tabs": []})));
    assert!(out.try_recv().is_err(), "nothing more on the native link");

    // The socket closes: the lane goes offline at once, though the native
    // link is still open.
    drop(ws);
    tokio::time::timeout(Duration::from_secs(5), async {
        while shell.lane.status().0 != LaneState::Offline {
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("the lane went offline");
    drop(tx);
    served.await.expect("served");
    shutdown.cancel();
}

#[tokio::test]
async fn a_worker_that_says_its_socket_opened_when_none_waits_stays_on_native_messaging() {
    let shutdown = CancellationToken::new();
    let (shell, _port) = daemon(&shutdown).await;
    let (tx, mut out, _served) = welcomed(&shell, &shutdown).await;
    assert!(matches!(
        next_native(&mut out).await,
        HostToExtension::SocketOffer { .. }
    ));
    tx.send(message(&ExtensionToHost::SocketOpen))
        .expect("send");
    assert_eq!(
        next_native(&mut out).await,
        HostToExtension::SocketSwitched { accepted: false }
    );
    assert_eq!(shell.lane.transport(), Some(LaneTransport::NativeMessaging));
    shutdown.cancel();
}

#[tokio::test]
async fn without_a_socket_no_offer_is_made() {
    let shell = Arc::new(Shell::new(Duration::from_secs(5), CoreConfig::default()));
    let shutdown = CancellationToken::new();
    let (_tx, mut out, _served) = welcomed(&shell, &shutdown).await;
    // The next thing is a request, not an offer.
    let lane = shell.lane.clone();
    let far = Instant::now() + Duration::from_secs(5);
    let _call = tokio::spawn(async move { lane.call(Command::ListShared, far).await });
    assert!(matches!(
        next_native(&mut out).await,
        HostToExtension::Request { .. }
    ));
    shutdown.cancel();
}
