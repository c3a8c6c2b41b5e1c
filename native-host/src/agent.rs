//! One agent connection on `agent.sock`: NDJSON lines in, JSON-RPC
//! responses and notifications out.
//!
//! The reader decodes lines ([`LineCodec`]) into calls
//! (`cotab_shared::controller`), runs each call in its own task under the
//! in-flight limits, and hands every outgoing line to one writer task
//! through a channel, so responses never interleave. A line over the limit
//! gets one error response and closes this connection only. Captures also
//! take a media permit (per connection and daemon-wide); past any limit a
//! request gets `BUSY` at once. Notifications the broker core addresses to
//! a session go only to the connection holding it (not to one it was
//! resumed away from).

use crate::codec::{LineCodec, LineCodecError};
use crate::handlers::{dispatch, Broker, ConnState};
use cotab_shared::controller::{
    decode_line, Call, Notification, Response, RpcError, INVALID_REQUEST, PARSE_ERROR, SERVER_ERROR,
};
use cotab_shared::limits::{
    MAX_CONTROLLER_LINE, MAX_IN_FLIGHT_PER_CONNECTION, MAX_MEDIA_IN_FLIGHT_PER_CONNECTION,
};
use cotab_shared::{ErrorKind, RequestId};
use futures_util::{SinkExt, StreamExt};
use serde::Serialize;
use std::sync::Arc;
use tokio::net::UnixStream;
use tokio::sync::{broadcast, mpsc, Semaphore};
use tokio::task::JoinSet;
use tokio_util::bytes::Bytes;
use tokio_util::codec::{FramedRead, FramedWrite};
use tokio_util::sync::CancellationToken;

/// How the reader loop ended.
enum End {
    /// The agent closed its side: finish the calls in flight, then close.
    Eof,
    /// Close now (line too long, I/O error, shutdown).
    Abort,
}

fn line<T: Serialize>(msg: &T) -> Option<Bytes> {
    // Our own response types always serialise; a failure would be a bug,
    // and dropping that one line is the least harmful outcome.
    serde_json::to_vec(msg).ok().map(Bytes::from)
}

/// Serves one agent connection until it closes or `shutdown` fires.
pub async fn serve(broker: Arc<Broker>, stream: UnixStream, shutdown: CancellationToken) {
    let conn = Arc::new(ConnState::new(broker.next_conn_id()));
    broker.update_counts(|c| c.agents += 1);
    tracing::debug!(conn = conn.id.0, "agent connected");

    let (read, write) = stream.into_split();
    let mut lines = FramedRead::new(read, LineCodec::new(MAX_CONTROLLER_LINE));
    let (out, mut out_rx) = mpsc::channel::<Bytes>(64);
    let writer = tokio::spawn(async move {
        let mut sink = FramedWrite::new(write, LineCodec::new(usize::MAX));
        while let Some(l) = out_rx.recv().await {
            if sink.send(l).await.is_err() {
                break;
            }
        }
    });

    let per_conn = Arc::new(Semaphore::new(MAX_IN_FLIGHT_PER_CONNECTION));
    let mut events = broker.subscribe_agent_events();
    let mut events_open = true;
    let mut notes = broker.subscribe_notes();
    let mut notes_open = true;
    let media = Arc::new(Semaphore::new(MAX_MEDIA_IN_FLIGHT_PER_CONNECTION));
    let mut tasks = JoinSet::new();
    let end = loop {
        tokio::select! {
            _ = shutdown.cancelled() => break End::Abort,
            ev = events.recv(), if events_open => match ev {
                Ok(ev) if conn.bound_session(&broker).is_some() => {
                    if let Some(l) = line(&Notification::new(ev)) {
                        // A full channel means a slow reader: notifications
                        // are best effort and never block the daemon.
                        let _ = out.try_send(l);
                    }
                }
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => events_open = false,
            },
            note = notes.recv(), if notes_open => match note {
                Ok((to, ev)) => {
                    let mine = conn.bound_session(&broker);
                    let wanted = mine.is_some() && (to.is_none() || to == mine);
                    if let (true, Some(l)) = (wanted, line(&Notification::new(ev))) {
                        // Best effort, as above.
                        let _ = out.try_send(l);
                    }
                }
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!(conn = conn.id.0, n, "a slow agent missed notifications");
                }
                Err(broadcast::error::RecvError::Closed) => notes_open = false,
            },
            // Reap finished request tasks so the set does not grow.
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            next = lines.next() => match next {
                None => break End::Eof,
                Some(Err(LineCodecError::TooLong)) => {
                    tracing::warn!(conn = conn.id.0, "line too long; closing the connection");
                    let err = RpcError::new(INVALID_REQUEST, ErrorKind::InvalidRequest, "line too long");
                    if let Some(l) = line(&Response::err(None, err)) {
                        // The writer is alive until `out` is dropped below.
                        let _ = out.send(l).await;
                    }
                    break End::Abort;
                }
                Some(Err(LineCodecError::Io(_))) => break End::Abort,
                Some(Ok(bytes)) => {
                    handle_line(&broker, &conn, [&per_conn, &media], &out, &mut tasks, &bytes).await;
                }
            },
        }
    };
    match end {
        End::Eof => while tasks.join_next().await.is_some() {},
        End::Abort => tasks.shutdown().await,
    }
    drop(out);
    // The writer ends once every sender is gone; a panic there only loses
    // output for a connection that is closing anyway.
    let _ = writer.await;
    conn.close(&broker);
    broker.update_counts(|c| c.agents -= 1);
    tracing::debug!(conn = conn.id.0, "agent disconnected");
}

async fn respond(
    out: &mpsc::Sender<Bytes>,
    id: Option<RequestId>,
    outcome: Result<serde_json::Value, RpcError>,
) {
    let resp = match outcome {
        Ok(v) => Response::ok(id, v),
        Err(e) => Response::err(id, e),
    };
    if let Some(l) = line(&resp) {
        // The writer only goes away when the connection is closing.
        let _ = out.send(l).await;
    }
}

async fn handle_line(
    broker: &Arc<Broker>,
    conn: &Arc<ConnState>,
    [per_conn, media]: [&Arc<Semaphore>; 2],
    out: &mpsc::Sender<Bytes>,
    tasks: &mut JoinSet<()>,
    bytes: &[u8],
) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        let err = RpcError::new(
            PARSE_ERROR,
            ErrorKind::InvalidRequest,
            "parse error: the line is not UTF-8",
        );
        return respond(out, None, Err(err)).await;
    };
    if text.trim().is_empty() {
        return;
    }
    let env = match decode_line(text) {
        Ok(env) => env,
        Err((id, err)) => return respond(out, id, Err(err)).await,
    };
    let id = env.id.clone();
    let call = match Call::parse(&env.method, env.params) {
        Ok(call) => call,
        Err(err) => {
            if id.is_some() {
                respond(out, id, Err(err)).await;
            }
            return;
        }
    };
    let permits = per_conn
        .clone()
        .try_acquire_owned()
        .ok()
        .zip(broker.in_flight.clone().try_acquire_owned().ok());
    // Captures also take the media budget, inside the limits above.
    let media_permits = if matches!(call, Call::Capture(_)) {
        media
            .clone()
            .try_acquire_owned()
            .ok()
            .zip(broker.media_in_flight.clone().try_acquire_owned().ok())
            .map(Some)
    } else {
        Some(None)
    };
    let Some(permits) = permits.zip(media_permits) else {
        if id.is_some() {
            let err = RpcError::new(
                SERVER_ERROR,
                ErrorKind::Busy,
                "too many requests in flight; retry later",
            );
            respond(out, id, Err(err)).await;
        }
        return;
    };
    tracing::debug!(conn = conn.id.0, method = call.method(), "request");
    let (broker, conn, out) = (broker.clone(), conn.clone(), out.clone());
    tasks.spawn(async move {
        let result = dispatch(&broker, &conn, call).await;
        drop(permits);
        if id.is_some() {
            respond(&out, id, result).await;
        }
    });
}
