//! One agent connection on `agent.sock`: NDJSON lines in, JSON-RPC
//! responses and notifications out.
//!
//! The reader decodes lines ([`LineCodec`]) into calls
//! (`cotab_shared::controller`), runs each call in its own task under the
//! in-flight limits, and hands every outgoing line to one writer task
//! through a bounded queue, so responses never interleave. A line over the
//! limit gets one error response and closes this connection only. Captures
//! also take a media permit (per connection and daemon-wide); past any
//! limit a request gets `BUSY` at once. Notifications the broker core
//! addresses to a session go only to the connection holding it (not to one
//! it was resumed away from).
//!
//! Slow peers cost one connection, never the daemon: a partial line that
//! waits longer than [`AgentConfig::line_idle`] for its newline closes the
//! connection, and so does an agent that stops reading (a response finding
//! the outgoing queue full, or an outgoing write the agent does not take
//! within the same deadline). Nothing here ever awaits the agent while
//! holding the reader.

use crate::codec::{LineCodec, LineCodecError};
use crate::handlers::{dispatch, response_line};
use crate::session::ConnId;
use crate::shell::{ConnState, Shell, Sink};
use cotab_shared::controller::{
    decode_line, Call, RpcError, INVALID_REQUEST, PARSE_ERROR, SERVER_ERROR,
};
use cotab_shared::limits::{
    LINE_IDLE_MS, MAX_CONTROLLER_LINE, MAX_IN_FLIGHT_PER_CONNECTION,
    MAX_MEDIA_IN_FLIGHT_PER_CONNECTION, MAX_QUEUED_LINES_PER_CONNECTION,
};
use cotab_shared::{ErrorKind, RequestId};
use futures_util::{FutureExt, Stream};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::UnixStream;
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, Semaphore};
use tokio::task::JoinSet;
use tokio::time::{Instant, Sleep};
use tokio_util::bytes::{BufMut, Bytes, BytesMut};
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

/// Settings of every agent connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentConfig {
    /// How long a partial line may wait for its newline, and an outgoing
    /// write (the lines queued when it started, up to 64 KiB more than
    /// one) for the agent to take it, before the connection is closed.
    pub line_idle: Duration,
    /// Outgoing lines queued per connection (see
    /// [`MAX_QUEUED_LINES_PER_CONNECTION`]); at least 2.
    pub out_queue: usize,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            line_idle: Duration::from_millis(LINE_IDLE_MS),
            out_queue: MAX_QUEUED_LINES_PER_CONNECTION,
        }
    }
}

impl AgentConfig {
    /// Settings from the environment: `COTAB_LINE_IDLE_MS` (default
    /// [`LINE_IDLE_MS`]).
    pub fn from_env() -> Self {
        let line_idle = std::env::var("COTAB_LINE_IDLE_MS")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map_or(Duration::from_millis(LINE_IDLE_MS), Duration::from_millis);
        AgentConfig {
            line_idle,
            ..AgentConfig::default()
        }
    }
}

/// How the reader loop ended.
enum End {
    /// The agent closed its side: finish the calls in flight, then close.
    Eof,
    /// Close now (line too long, I/O error, stalled peer, shutdown).
    Abort,
}

/// The sending side of a connection's outgoing queue. Sending never
/// waits: a response that finds the queue full closes the connection (the
/// agent stopped reading), a notification that finds it half full is
/// dropped (best effort).
#[derive(Clone)]
struct Outbox {
    tx: mpsc::Sender<Bytes>,
    /// Cancelled to close this connection at once.
    closing: CancellationToken,
    /// Free slots a notification leaves for responses.
    reserve: usize,
    conn: u64,
}

impl Outbox {
    fn respond(&self, l: Bytes) {
        match self.tx.try_send(l) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                tracing::warn!(
                    conn = self.conn,
                    "the agent does not read its responses; closing the connection"
                );
                self.closing.cancel();
            }
            // The writer is gone: the connection is closing anyway.
            Err(TrySendError::Closed(_)) => {}
        }
    }

    fn notify(&self, l: Bytes) {
        if self.tx.capacity() > self.reserve {
            // The check above leaves room, and a concurrent response taking
            // it only costs this best-effort notification.
            let _ = self.tx.try_send(l);
        }
    }
}

/// What the line reader produced.
enum Read {
    /// A complete line, or why the stream broke.
    Line(Result<BytesMut, LineCodecError>),
    /// The agent closed its side.
    Eof,
    /// A partial line waited longer than the idle deadline.
    Stalled,
}

/// Lines from the agent, with the partial-line deadline: the clock starts
/// when bytes of a line are buffered without their newline and stops with
/// each complete line. An empty buffer is never timed.
struct LineReader {
    lines: FramedRead<OwnedReadHalf, LineCodec>,
    idle: Duration,
    /// When the current partial line was first seen.
    since: Option<Instant>,
    timer: Pin<Box<Sleep>>,
}

impl LineReader {
    fn new(read: OwnedReadHalf, idle: Duration) -> Self {
        LineReader {
            lines: FramedRead::new(read, LineCodec::new(MAX_CONTROLLER_LINE)),
            idle,
            since: None,
            timer: Box::pin(tokio::time::sleep(idle)),
        }
    }

    /// Cancel-safe: all state lives in `self`.
    fn next(&mut self) -> impl Future<Output = Read> + '_ {
        std::future::poll_fn(|cx| self.poll_read(cx))
    }

    fn poll_read(&mut self, cx: &mut Context<'_>) -> Poll<Read> {
        match Pin::new(&mut self.lines).poll_next(cx) {
            Poll::Ready(Some(r)) => {
                self.since = None;
                return Poll::Ready(Read::Line(r));
            }
            Poll::Ready(None) => return Poll::Ready(Read::Eof),
            Poll::Pending => {}
        }
        if self.lines.read_buffer().is_empty() {
            self.since = None;
            return Poll::Pending;
        }
        if self.since.is_none() {
            let now = Instant::now();
            self.since = Some(now);
            self.timer.as_mut().reset(now + self.idle);
        }
        self.timer.as_mut().poll(cx).map(|()| Read::Stalled)
    }
}

/// Most bytes one write of [`write_lines`] gathers from the queue.
const WRITE_BATCH: usize = 64 << 10;

/// Writes queued lines until the queue closes or `closing` fires. The
/// lines already queued go out in one write. A write the agent does not
/// take within `stall` (it stopped reading) or a failed one closes the
/// connection; the stall clock starts only for a write that cannot finish
/// at once.
async fn write_lines(
    mut write: OwnedWriteHalf,
    mut rx: mpsc::Receiver<Bytes>,
    stall: Duration,
    closing: CancellationToken,
) {
    let mut buf = BytesMut::new();
    loop {
        let l = tokio::select! {
            _ = closing.cancelled() => return,
            l = rx.recv() => match l {
                Some(l) => l,
                None => return,
            },
        };
        push_line(&mut buf, &l);
        while buf.len() < WRITE_BATCH {
            match rx.try_recv() {
                Ok(l) => push_line(&mut buf, &l),
                Err(_) => break,
            }
        }
        let sent = match write.write_all_buf(&mut buf).now_or_never() {
            Some(r) => Ok(r),
            // What was written stays written: `buf` keeps only the rest.
            None => tokio::select! {
                _ = closing.cancelled() => return,
                r = tokio::time::timeout(stall, write.write_all_buf(&mut buf)) => r,
            },
        };
        if !matches!(sent, Ok(Ok(()))) {
            if sent.is_err() {
                tracing::warn!("the agent stopped reading; closing the connection");
            }
            closing.cancel();
            return;
        }
    }
}

fn push_line(buf: &mut BytesMut, l: &[u8]) {
    buf.reserve(l.len() + 1);
    buf.put_slice(l);
    buf.put_u8(b'\n');
}

/// Serves one agent connection until it closes or `shutdown` fires.
pub async fn serve(
    shell: Arc<Shell>,
    stream: UnixStream,
    config: AgentConfig,
    shutdown: CancellationToken,
) {
    let conn = Arc::new(ConnState::new(shell.next_conn_id()));
    shell.update_counts(|c| c.agents += 1);
    tracing::debug!(conn = conn.id.0, "agent connected");

    let (read, write) = stream.into_split();
    let mut lines = LineReader::new(read, config.line_idle);
    let closing = shutdown.child_token();
    let capacity = config.out_queue.max(2);
    let (tx, out_rx) = mpsc::channel::<Bytes>(capacity);
    let out = Outbox {
        tx,
        closing: closing.clone(),
        reserve: capacity / 2,
        conn: conn.id.0,
    };
    let writer = tokio::spawn(write_lines(
        write,
        out_rx,
        config.line_idle,
        closing.clone(),
    ));

    let per_conn = Arc::new(Semaphore::new(MAX_IN_FLIGHT_PER_CONNECTION));
    // Registered before any line is read, so nothing addressed to this
    // connection is missed; removed when this ends, however it ends: it
    // holds a sender of the outgoing queue, which must close for the
    // writer to finish.
    let sink = out.clone();
    shell.add_sink(conn.id, Sink::new(move |l| sink.notify(l)));
    let _sink = RemoveSink(&shell, conn.id);
    let media = Arc::new(Semaphore::new(MAX_MEDIA_IN_FLIGHT_PER_CONNECTION));
    let mut tasks = JoinSet::new();
    let cancelled = closing.cancelled();
    tokio::pin!(cancelled);
    let end = loop {
        tokio::select! {
            biased;
            // Shutdown, or the writer or a response gave up on the agent.
            _ = &mut cancelled => break End::Abort,
            // Reap finished request tasks so the set does not grow.
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            next = lines.next() => match next {
                Read::Eof => break End::Eof,
                Read::Stalled => {
                    tracing::warn!(conn = conn.id.0, "a partial line stalled; closing the connection");
                    break End::Abort;
                }
                Read::Line(Err(LineCodecError::TooLong)) => {
                    tracing::warn!(conn = conn.id.0, "line too long; closing the connection");
                    let err = RpcError::new(INVALID_REQUEST, ErrorKind::InvalidRequest, "line too long");
                    // The writer flushes it before it ends (below).
                    respond(&out, None, Err(err));
                    break End::Abort;
                }
                // The stream failed (or failed in a way the codec learns
                // later): the connection ends.
                Read::Line(Err(_)) => break End::Abort,
                Read::Line(Ok(bytes)) => {
                    handle_line(&shell, &conn, [&per_conn, &media], &out, &mut tasks, &bytes);
                }
            },
        }
    };
    match end {
        End::Eof => while tasks.join_next().await.is_some() {},
        End::Abort => tasks.shutdown().await,
    }
    drop(_sink);
    drop(out);
    // The writer ends once every sender is gone (after flushing, within its
    // stall deadline) or at once when `closing` fired; a panic there only
    // loses output for a connection that is closing anyway.
    let _ = writer.await;
    conn.close(&shell);
    shell.update_counts(|c| c.agents -= 1);
    tracing::debug!(conn = conn.id.0, "agent disconnected");
}

/// Removes a connection's notification sink when dropped.
struct RemoveSink<'a>(&'a Shell, ConnId);

impl Drop for RemoveSink<'_> {
    fn drop(&mut self) {
        self.0.remove_sink(self.1);
    }
}

fn respond(out: &Outbox, id: Option<RequestId>, outcome: Result<(), RpcError>) {
    out.respond(response_line(id, outcome));
}

fn handle_line(
    shell: &Arc<Shell>,
    conn: &Arc<ConnState>,
    [per_conn, media]: [&Arc<Semaphore>; 2],
    out: &Outbox,
    tasks: &mut JoinSet<()>,
    bytes: &[u8],
) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        let err = RpcError::new(
            PARSE_ERROR,
            ErrorKind::InvalidRequest,
            "parse error: the line is not UTF-8",
        );
        return respond(out, None, Err(err));
    };
    if text.trim().is_empty() {
        return;
    }
    let env = match decode_line(text) {
        Ok(env) => env,
        Err((id, err)) => return respond(out, id, Err(err)),
    };
    let id = env.id.clone();
    let call = match Call::parse(&env.method, env.params) {
        Ok(call) => call,
        Err(err) => {
            if id.is_some() {
                respond(out, id, Err(err));
            }
            return;
        }
    };
    let permits = per_conn
        .clone()
        .try_acquire_owned()
        .ok()
        .zip(shell.in_flight.clone().try_acquire_owned().ok());
    // Captures also take the media budget, inside the limits above.
    let media_permits = if matches!(call, Call::Capture(_)) {
        media
            .clone()
            .try_acquire_owned()
            .ok()
            .zip(shell.media_in_flight.clone().try_acquire_owned().ok())
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
            respond(out, id, Err(err));
        }
        return;
    };
    tracing::debug!(conn = conn.id.0, method = call.method(), "request");
    let (shell, conn, out) = (shell.clone(), conn.clone(), out.clone());
    tasks.spawn(async move {
        let answered = id.is_some();
        let line = dispatch(&shell, &conn, call, id).await;
        drop(permits);
        if answered {
            out.respond(line);
        }
    });
}
