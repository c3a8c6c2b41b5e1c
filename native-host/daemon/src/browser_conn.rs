//! One browser connection, whatever carries it: the extension's hello and
//! the daemon's welcome, the lane's attach and detach, a writer that puts
//! every frame queued meanwhile into one write, and a reader that hands
//! responses to the lane and events to the shell. A connection that says
//! `watch` instead of hello (the extension's side panel) is never the
//! lane: it is told agent requests as the person reads them.
//!
//! The transport carries whole messages both ways — a stream of incoming
//! JSON messages, a sink for outgoing ones — and nothing else is asked of
//! it: the relay's native-messaging frames on `host.sock`
//! ([`crate::daemon`]) are one such transport; a loopback WebSocket the
//! worker connects to is another.
//!
//! **Architecture Invariant:** nothing a connection sends counts before its
//! hello was accepted or after another connection replaced it.

use crate::lane::Attached;
use crate::shell::Shell;
use cotab_shared::native::{ExtensionToHost, HostToExtension};
use cotab_shared::watch::{
    ApprovalAnswer, AskBeforeChange, LastingChange, RecordAnswer, RecordAsk, ScopeChange,
    VideoChange, WatchEvent, WatchHello, WatchSetting,
};
use cotab_shared::NATIVE_PROTOCOL_VERSION;
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use std::fmt::Display;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::bytes::{Bytes, BytesMut};
use tokio_util::sync::CancellationToken;

/// How long a new connection may take to say hello.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// Frames queued towards the browser before a sender waits.
pub(crate) const OUT_QUEUE: usize = 256;

/// A browser message (in bytes) above which it is parsed on the blocking
/// pool: the daemon runs on one thread, and a capture or an accessibility
/// tree of several MiB would hold every other request up while parsed.
/// Messages are still parsed in the order they came.
const LARGE_FRAME: usize = 256 << 10;

/// Serves one browser connection until it closes, another replaces it, or
/// `shutdown` fires. `incoming` yields the extension's messages, `outgoing`
/// takes the daemon's; both are whole JSON messages.
pub async fn serve<R, W, RE, WE>(
    shell: Arc<Shell>,
    mut incoming: R,
    mut outgoing: W,
    shutdown: CancellationToken,
) where
    R: Stream<Item = Result<BytesMut, RE>> + Unpin,
    W: Sink<Bytes, Error = WE> + Unpin + Send + 'static,
    RE: Display,
    WE: Display + Send + 'static,
{
    let first = match tokio::time::timeout(HELLO_TIMEOUT, incoming.next()).await {
        Ok(Some(Ok(frame))) => frame,
        _ => {
            tracing::warn!("browser connection closed or timed out before hello");
            return;
        }
    };
    // The side panel's own port: a watch of agent requests, never a lane.
    if let Ok(WatchHello::Watch { protocol_version }) = serde_json::from_slice(&first) {
        if protocol_version == NATIVE_PROTOCOL_VERSION {
            watch(&shell, incoming, outgoing, &shutdown).await;
        } else {
            tracing::warn!(
                protocol_version,
                "a watch speaks another protocol version; closing"
            );
        }
        return;
    }
    let (lane_id, version) = match serde_json::from_slice::<ExtensionToHost>(&first) {
        Ok(ExtensionToHost::Hello {
            protocol_version,
            lane_id,
            version,
            ..
        }) if protocol_version == NATIVE_PROTOCOL_VERSION => (lane_id, version),
        Ok(ExtensionToHost::Hello {
            protocol_version, ..
        }) => {
            tracing::warn!(
                protocol_version,
                "browser speaks another protocol version; closing"
            );
            return;
        }
        _ => {
            tracing::warn!("browser connection did not start with hello; closing");
            return;
        }
    };
    let welcome = HostToExtension::Welcome {
        protocol_version: NATIVE_PROTOCOL_VERSION,
    };
    let Ok(welcome) = serde_json::to_vec(&welcome) else {
        return;
    };
    if outgoing.send(Bytes::from(welcome)).await.is_err() {
        return;
    }
    let (tx, rx) = mpsc::channel::<Bytes>(OUT_QUEUE);
    let Attached {
        generation,
        replaced,
    } = shell.lane.attach(lane_id, version.clone(), tx);
    shell.lane_attached();
    if let Some(offer) = shell.socket_offers().and_then(|s| s.offer(generation)) {
        shell.lane.send_oneway(&offer);
    }
    shell.update_counts(|c| c.lanes += 1);
    tracing::info!(version, "browser lane online");
    let writer = tokio::spawn(write_all(rx, outgoing));
    pump(&shell, generation, incoming, &replaced, &shutdown).await;
    if shell.lane.detach(generation) {
        shell.lane_lost();
    }
    writer.abort();
    shell.update_counts(|c| c.lanes -= 1);
    tracing::info!("browser lane offline");
}

/// Serves a watch of agent requests ([`crate::activity`]): the recent
/// ones with the person's settings, then each as it begins and ends, and
/// the settings when they change, until the page goes or `shutdown`
/// fires. What the page sends is read for the person's choices only: a
/// setting ([`WatchSetting`]), a tab's sites ([`ScopeChange`]), what a
/// tab asks before ([`AskBeforeChange`]), an answer to a request waiting
/// for them ([`ApprovalAnswer`]), the start or stop of a tab's video
/// ([`VideoChange`]), and asks of the activity record. A watch that falls behind is told the recent ones
/// again.
async fn watch<R, W, RE, WE>(
    shell: &Shell,
    mut incoming: R,
    mut outgoing: W,
    shutdown: &CancellationToken,
) where
    R: Stream<Item = Result<BytesMut, RE>> + Unpin,
    W: Sink<Bytes, Error = WE> + Unpin,
{
    let mut entries = shell.activity.subscribe();
    let mut settings = shell.settings_changed.subscribe();
    let mut pictures = shell.activity.subscribe_pictures();
    let mut scopes = shell.scopes_changed.subscribe();
    let mut approvals = shell.approvals_changed.subscribe();
    let mut videos = shell.videos_changed.subscribe();
    let recent = || WatchEvent {
        recent: true,
        entries: shell.activity.recent(),
        agent_pointer: Some(shell.settings().agent_pointer),
        record: None,
        pictures: shell.activity.pictures(),
        scopes: Some(shell.tab_scopes()),
        approvals: Some(shell.pending_approvals()),
        lasting: Some(shell.lasting_sites()),
        videos: Some(shell.tab_videos()),
    };
    let mut next = Some(recent());
    tracing::info!("a watch of agent requests began");
    loop {
        if let Some(event) = next.take() {
            let Ok(bytes) = serde_json::to_vec(&event) else {
                return;
            };
            if outgoing.send(Bytes::from(bytes)).await.is_err() {
                break;
            }
        }
        tokio::select! {
            _ = shutdown.cancelled() => break,
            read = incoming.next() => match read {
                // The person's change of a setting; anything else is
                // not read.
                Some(Ok(frame)) => {
                    if let Ok(ask) = serde_json::from_slice::<RecordAsk>(&frame) {
                        next = Some(WatchEvent {
                            record: Some(ask_record(shell, ask).await),
                            ..WatchEvent::default()
                        });
                    } else if let Ok(change) = serde_json::from_slice::<ScopeChange>(&frame) {
                        if let Err(e) = shell.change_scope(&change.tab_scope) {
                            tracing::warn!(tab = %change.tab_scope.tab, error = %e, "a change of a tab's sites was refused");
                            // The page shows the sites as they still are.
                            next = Some(WatchEvent {
                                scopes: Some(shell.tab_scopes()),
                                ..WatchEvent::default()
                            });
                        }
                    } else if let Ok(change) = serde_json::from_slice::<AskBeforeChange>(&frame) {
                        if let Err(e) = shell.change_ask_before(&change.tab_ask_before) {
                            tracing::warn!(tab = %change.tab_ask_before.tab, error = %e, "a change of what a tab asks before was refused");
                            next = Some(WatchEvent {
                                scopes: Some(shell.tab_scopes()),
                                ..WatchEvent::default()
                            });
                        }
                    } else if let Ok(answer) = serde_json::from_slice::<ApprovalAnswer>(&frame) {
                        let a = answer.approval;
                        if let Err(e) = shell.answer_approval(a.id, a.approve) {
                            tracing::warn!(id = a.id, error = %e, "an answer to an agent's request was refused");
                            next = Some(WatchEvent {
                                approvals: Some(shell.pending_approvals()),
                                ..WatchEvent::default()
                            });
                        }
                    } else if let Ok(change) = serde_json::from_slice::<LastingChange>(&frame) {
                        let c = change.lasting_site;
                        if let Err(e) = shell.change_lasting_site(&c.site, c.allow) {
                            tracing::warn!(error = %e, "a change of the sites of every share was refused");
                            next = Some(WatchEvent {
                                lasting: Some(shell.lasting_sites()),
                                ..WatchEvent::default()
                            });
                        }
                    } else if let Ok(change) = serde_json::from_slice::<VideoChange>(&frame) {
                        let c = change.tab_video;
                        if let Err(e) = shell.person_video(c.tab, c.record).await {
                            tracing::warn!(tab = %c.tab, error = %e, "the person's video did not start");
                            next = Some(WatchEvent {
                                videos: Some(shell.tab_videos()),
                                ..WatchEvent::default()
                            });
                        }
                    } else if let Ok(setting) = serde_json::from_slice::<WatchSetting>(&frame) {
                        shell.set_agent_pointer(setting.agent_pointer);
                    }
                }
                Some(Err(_)) | None => break,
            },
            changed = settings.changed() => {
                if changed.is_err() {
                    break;
                }
                next = Some(WatchEvent {
                    agent_pointer: Some(shell.settings().agent_pointer),
                    lasting: Some(shell.lasting_sites()),
                    ..WatchEvent::default()
                });
            }
            changed = videos.changed() => {
                if changed.is_err() {
                    break;
                }
                next = Some(WatchEvent {
                    videos: Some(shell.tab_videos()),
                    ..WatchEvent::default()
                });
            }
            changed = approvals.changed() => {
                if changed.is_err() {
                    break;
                }
                next = Some(WatchEvent {
                    approvals: Some(shell.pending_approvals()),
                    ..WatchEvent::default()
                });
            }
            changed = scopes.changed() => {
                if changed.is_err() {
                    break;
                }
                next = Some(WatchEvent {
                    scopes: Some(shell.tab_scopes()),
                    ..WatchEvent::default()
                });
            }
            picture = pictures.recv() => match picture {
                Ok(picture) => {
                    next = Some(WatchEvent {
                        pictures: vec![picture],
                        ..WatchEvent::default()
                    })
                }
                // A picture missed is replaced by the next.
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            },
            entry = entries.recv() => match entry {
                Ok(entry) => {
                    next = Some(WatchEvent {
                        recent: false,
                        entries: vec![entry],
                        ..WatchEvent::default()
                    })
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => next = Some(recent()),
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            },
        }
    }
    tracing::info!("a watch of agent requests ended");
}

/// The answer to a watching page's ask of the activity record, read off
/// the daemon's thread.
async fn ask_record(shell: &Shell, ask: RecordAsk) -> RecordAnswer {
    let Some(record) = shell.activity.record().cloned() else {
        return RecordAnswer {
            ask: ask.ask,
            error: Some(
                "no activity record is kept (no state directory, or maxMegabytes 0)".into(),
            ),
            ..RecordAnswer::default()
        };
    };
    let n = ask.ask;
    tokio::task::spawn_blocking(move || crate::recorder::answer(&record, &ask))
        .await
        .unwrap_or_else(|_| RecordAnswer {
            ask: n,
            error: Some("the record could not be read".into()),
            ..RecordAnswer::default()
        })
}

/// Writes what is queued in `rx` to `outgoing` until either closes.
/// Every frame queued by the time the first is taken goes out in one
/// write: with many agents, requests queue while the daemon's one thread
/// serves others.
pub(crate) async fn write_all<W, WE>(mut rx: mpsc::Receiver<Bytes>, mut outgoing: W)
where
    W: Sink<Bytes, Error = WE> + Unpin,
    WE: Display,
{
    while let Some(frame) = rx.recv().await {
        let mut result = outgoing.feed(frame).await;
        while result.is_ok() {
            match rx.try_recv() {
                Ok(frame) => result = outgoing.feed(frame).await,
                Err(_) => break,
            }
        }
        if result.is_ok() {
            result = outgoing.flush().await;
        }
        if let Err(e) = result {
            tracing::warn!(error = %e, "writing to the browser failed");
            break;
        }
    }
}

/// Reads the browser's messages of the connection of `generation` until
/// the transport closes, `ended` fires (another connection replaced it,
/// or the lane's other transport closed) or `shutdown` does: responses to
/// the lane, events to the shell, `socketOpen` to the lane's WebSocket.
pub(crate) async fn pump<R, RE>(
    shell: &Arc<Shell>,
    generation: u64,
    mut incoming: R,
    ended: &CancellationToken,
    shutdown: &CancellationToken,
) where
    R: Stream<Item = Result<BytesMut, RE>> + Unpin,
    RE: Display,
{
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => break,
            // Nothing this connection sends counts any more, so it is
            // closed at once.
            _ = ended.cancelled() => {
                tracing::info!("closing a browser connection that is no longer the lane's");
                break;
            }
            next = incoming.next() => match next {
                None => break,
                Some(Err(e)) => {
                    tracing::warn!(error = %e, "browser connection failed");
                    break;
                }
                Some(Ok(frame)) => match parse_browser_frame(frame).await {
                    Ok(ExtensionToHost::Response { id, outcome }) => shell.lane.complete(generation, id, outcome),
                    Ok(ExtensionToHost::Event { event }) => shell.on_extension_event(generation, event),
                    Ok(ExtensionToHost::SocketOpen) => {
                        let accepted = shell.socket_offers().is_some_and(|s| s.switch(&shell.lane, generation));
                        if !accepted && shell.lane.is_current(generation) {
                            tracing::info!("the worker opened a WebSocket no connection waits on; the lane stays on native messaging");
                            shell.lane.send_oneway(&HostToExtension::SocketSwitched { accepted: false });
                        }
                    }
                    Ok(ExtensionToHost::Hello { .. }) => tracing::warn!("ignored a second hello"),
                    // Never log the frame: it may carry page data.
                    Err((len, _)) => tracing::warn!(len, "ignored a malformed message from the browser"),
                },
            },
        }
    }
}

/// Parses one message from the browser; a failure comes with the message's
/// length.
async fn parse_browser_frame(
    frame: BytesMut,
) -> Result<ExtensionToHost, (usize, serde_json::Error)> {
    let len = frame.len();
    let parsed = if len <= LARGE_FRAME {
        serde_json::from_slice(&frame)
    } else {
        tokio::task::spawn_blocking(move || serde_json::from_slice(&frame))
            .await
            .unwrap_or_else(|e| Err(serde::de::Error::custom(e)))
    };
    parsed.map_err(|e| (len, e))
}

/// An in-memory browser connection for tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use std::convert::Infallible;
    use std::pin::Pin;

    /// What the test sends as the extension.
    pub(crate) type Incoming = mpsc::UnboundedSender<Result<BytesMut, Infallible>>;
    /// What the connection sent.
    pub(crate) type Outgoing = mpsc::UnboundedReceiver<Bytes>;

    /// An in-memory transport: what the test sends is the extension's;
    /// what the connection sends arrives in the receiver.
    pub(crate) fn transport() -> (
        Incoming,
        impl Stream<Item = Result<BytesMut, Infallible>> + Unpin,
        impl Sink<Bytes, Error = Infallible> + Unpin + Send + 'static,
        Outgoing,
    ) {
        let (in_tx, in_rx) = mpsc::unbounded_channel();
        let incoming = Box::pin(futures_util::stream::unfold(in_rx, |mut rx| async move {
            rx.recv().await.map(|m| (m, rx))
        }));
        let (out_tx, out_rx) = mpsc::unbounded_channel::<Bytes>();
        let outgoing: Pin<Box<_>> = Box::pin(futures_util::sink::unfold(
            out_tx,
            |tx, frame: Bytes| async move {
                let _ = tx.send(frame);
                Ok::<_, Infallible>(tx)
            },
        ));
        (in_tx, incoming, outgoing, out_rx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broker::CoreConfig;
    use cotab_shared::controller::LaneState;
    use cotab_shared::native::Command;
    use cotab_shared::EXTENSION_ID;
    use serde_json::json;
    use std::convert::Infallible;
    use tokio::time::Instant;

    use testing::transport;

    fn message(v: serde_json::Value) -> Result<BytesMut, Infallible> {
        Ok(BytesMut::from(v.to_string().as_bytes()))
    }

    fn hello(version: u32) -> Result<BytesMut, Infallible> {
        message(
            json!({"type": "hello", "protocolVersion": version, "laneId": "lane-1",
                       "extensionId": EXTENSION_ID, "version": "0.1.0"}),
        )
    }

    fn shell() -> Arc<Shell> {
        Arc::new(Shell::new(Duration::from_secs(5), CoreConfig::default()))
    }

    #[tokio::test]
    async fn a_hello_is_welcomed_and_the_lane_follows_the_connection() {
        let shell = shell();
        let (tx, incoming, outgoing, mut out) = transport();
        let served = tokio::spawn(serve(
            shell.clone(),
            incoming,
            outgoing,
            CancellationToken::new(),
        ));
        tx.send(hello(NATIVE_PROTOCOL_VERSION)).expect("send");
        let welcome: serde_json::Value =
            serde_json::from_slice(&out.recv().await.expect("welcome")).expect("json");
        assert_eq!(welcome["type"], "welcome");
        assert_eq!(shell.lane.status().0, LaneState::Online);
        // A call goes out on this connection and its response comes back.
        let lane = shell.lane.clone();
        let far = Instant::now() + Duration::from_secs(5);
        let call = tokio::spawn(async move { lane.call(Command::ListShared, far).await });
        // Who controls the tabs and the local-file policy come first.
        let id = loop {
            let frame = out.recv().await.expect("a message");
            match serde_json::from_slice::<HostToExtension>(&frame).expect("ours") {
                HostToExtension::Request { id, .. } => break id,
                HostToExtension::Controllers { .. }
                | HostToExtension::Agents { .. }
                | HostToExtension::HoldOpened { .. }
                | HostToExtension::Policy { .. } => {}
                other => panic!("unexpected: {other:?}"),
            }
        };
        // A malformed message is ignored; the connection lives on.
        tx.send(Ok(BytesMut::from(&b"{not json"[..])))
            .expect("send");
        tx.send(message(
            json!({"type": "response", "id": id, "result": {"tabs": []}}),
        ))
        .expect("send");
        assert_eq!(call.await.expect("task"), Ok(json!({"tabs": []})));
        // The transport closes: the lane goes offline.
        drop(tx);
        served.await.expect("served");
        assert_eq!(shell.lane.status().0, LaneState::Offline);
        assert_eq!(shell.watch_counts().borrow().lanes, 0);
    }

    #[tokio::test]
    async fn a_connection_without_a_good_hello_gets_nothing() {
        for first in [
            hello(NATIVE_PROTOCOL_VERSION + 1),
            message(json!({"type": "event", "event": {"type": "developerMode", "enabled": true}})),
        ] {
            let shell = shell();
            let (tx, incoming, outgoing, mut out) = transport();
            tx.send(first).expect("send");
            serve(shell.clone(), incoming, outgoing, CancellationToken::new()).await;
            assert!(out.try_recv().is_err(), "no welcome");
            assert_eq!(shell.lane.status().0, LaneState::Absent);
            assert!(!shell.with_core(|c| c.developer_mode()));
        }
    }

    #[tokio::test]
    async fn a_replaced_connection_is_closed_and_what_it_sends_counts_no_more() {
        let shell = shell();
        let (first_tx, incoming, outgoing, mut first_out) = transport();
        let first = tokio::spawn(serve(
            shell.clone(),
            incoming,
            outgoing,
            CancellationToken::new(),
        ));
        first_tx.send(hello(NATIVE_PROTOCOL_VERSION)).expect("send");
        first_out.recv().await.expect("welcome");
        let (second_tx, incoming, outgoing, mut second_out) = transport();
        let second = tokio::spawn(serve(
            shell.clone(),
            incoming,
            outgoing,
            CancellationToken::new(),
        ));
        second_tx
            .send(hello(NATIVE_PROTOCOL_VERSION))
            .expect("send");
        second_out.recv().await.expect("welcome");
        tokio::time::timeout(Duration::from_secs(5), first)
            .await
            .expect("the first connection ends at once")
            .expect("task");
        // Its word no longer counts, whatever it says (it is closed).
        let _ = first_tx.send(message(
            json!({"type": "event", "event": {"type": "developerMode", "enabled": true}}),
        ));
        tokio::task::yield_now().await;
        assert!(!shell.with_core(|c| c.developer_mode()));
        assert_eq!(
            shell.lane.status().0,
            LaneState::Online,
            "the second is the lane"
        );
        assert_eq!(shell.watch_counts().borrow().lanes, 1);
        drop(second_tx);
        second.await.expect("served");
        assert_eq!(shell.lane.status().0, LaneState::Offline);
    }
}
