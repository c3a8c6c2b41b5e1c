//! The browser lane: the daemon's side of the link to one extension
//! instance (one browser profile).
//!
//! It owns the lane's state machine (absent → online ⇄ offline), the
//! registry of requests sent to the extension and not yet answered, and
//! the fan-out of CDP events to the requests waiting for one. What the
//! extension reports about tabs, and every agent notification, is the
//! broker core's ([`crate::broker::Core`]). It does no socket I/O: the connection task in
//! [`crate::daemon`] hands it frames and takes the bytes it must send from a
//! channel.
//!
//! **Architecture Invariant:** every pending request is settled exactly
//! once: by its response, by its own deadline (`TIMEOUT`), or by the loss of
//! the connection it was sent on (`UNKNOWN_OUTCOME`).

use cotab_shared::controller::{LaneState, LaneTransport};
use cotab_shared::limits::{LANE_RETURN_GRACE_MS, MAX_HOST_TO_EXTENSION};
use cotab_shared::native::{Command, CommandClass, HostToExtension, Outcome};
use cotab_shared::{ErrorKind, LaneId, TabId, WireError};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::time::Instant;
use tokio_util::bytes::Bytes;
use tokio_util::sync::CancellationToken;

/// What a request to the extension resolves to.
pub type CallResult = Result<Value, WireError>;

/// A CDP event from a shared tab.
#[derive(Debug, Clone, PartialEq)]
pub struct CdpEvent {
    /// The tab it came from.
    pub tab_id: TabId,
    /// CDP event name.
    pub method: String,
    /// CDP event params.
    pub params: Value,
}

/// Requests sent to the extension and not yet answered.
#[derive(Debug, Default)]
pub struct Pending {
    map: HashMap<u64, oneshot::Sender<CallResult>>,
}

impl Pending {
    /// Registers request `id`; its result arrives on the returned receiver.
    pub fn insert(&mut self, id: u64) -> oneshot::Receiver<CallResult> {
        let (tx, rx) = oneshot::channel();
        self.map.insert(id, tx);
        rx
    }

    /// Settles `id`. `false` when nothing waited for it (late or unknown).
    pub fn complete(&mut self, id: u64, result: CallResult) -> bool {
        match self.map.remove(&id) {
            // The caller may have given up (deadline) just now; its result
            // then has no one to go to, which is fine.
            Some(tx) => tx.send(result).is_ok(),
            None => false,
        }
    }

    /// Forgets `id` (its caller gave up).
    pub fn remove(&mut self, id: u64) {
        self.map.remove(&id);
    }

    /// Settles every request with `err`.
    pub fn fail_all(&mut self, err: &WireError) {
        for (_, tx) in self.map.drain() {
            // A caller that already gave up does not need the error.
            let _ = tx.send(Err(err.clone()));
        }
    }

    /// Number of unanswered requests.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[derive(Debug)]
struct Conn {
    generation: u64,
    tx: mpsc::Sender<Bytes>,
    /// Cancelled when another connection replaces this one, or when it is
    /// detached: the tasks of its transports close them at once.
    replaced: CancellationToken,
    /// What carries the daemon's messages to it.
    transport: LaneTransport,
}

/// What [`Lane::attach`] gives the connection that became the lane's.
#[derive(Debug)]
pub struct Attached {
    /// The connection's generation: what it hands back with every frame.
    pub generation: u64,
    /// Cancelled once another connection replaces this one, or it is
    /// detached; its task must close the connection then (nothing it
    /// sends counts any more).
    pub replaced: CancellationToken,
}

#[derive(Debug)]
struct Inner {
    state: LaneState,
    conn: Option<Conn>,
    lane_id: Option<LaneId>,
    version: Option<String>,
    pending: Pending,
    next_request: u64,
    generation: u64,
    /// When the lane last went offline; `None` while it is not.
    offline_since: Option<Instant>,
}

/// The browser lane. Shared by every task of the daemon.
#[derive(Debug)]
pub struct Lane {
    inner: Mutex<Inner>,
    /// Bumped at every attach and detach, so offline callers wake up.
    changes: watch::Sender<u64>,
    cdp: broadcast::Sender<Arc<CdpEvent>>,
    max_frame: usize,
}

impl Default for Lane {
    fn default() -> Self {
        Lane::new(MAX_HOST_TO_EXTENSION)
    }
}

fn lane_lost() -> WireError {
    WireError::new(
        ErrorKind::UnknownOutcome,
        "the browser connection dropped after the command was sent; it may or may not have run",
    )
}

impl Lane {
    /// An absent lane refusing frames over `max_frame` bytes.
    pub fn new(max_frame: usize) -> Self {
        Lane {
            inner: Mutex::new(Inner {
                state: LaneState::Absent,
                conn: None,
                lane_id: None,
                version: None,
                pending: Pending::default(),
                next_request: 1,
                generation: 0,
                offline_since: None,
            }),
            changes: watch::Sender::new(0),
            cdp: broadcast::Sender::new(256),
            max_frame,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves plain data behind, still
        // consistent enough to keep serving (and to fail calls).
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A connection said hello: it becomes the lane's connection, replacing
    /// any previous one (whose pending requests fail `UNKNOWN_OUTCOME`, and
    /// whose `replaced` token is cancelled so its task closes it).
    /// Returns the connection's generation, for [`Lane::detach`] and
    /// [`Lane::is_current`].
    pub fn attach(&self, lane_id: LaneId, version: String, tx: mpsc::Sender<Bytes>) -> Attached {
        let replaced = CancellationToken::new();
        let generation = {
            let mut g = self.lock();
            if let Some(old) = g.conn.take() {
                tracing::info!("a new browser connection replaces the previous one");
                old.replaced.cancel();
                g.pending.fail_all(&lane_lost());
            }
            g.generation += 1;
            let generation = g.generation;
            g.conn = Some(Conn {
                generation,
                tx,
                replaced: replaced.clone(),
                transport: LaneTransport::NativeMessaging,
            });
            g.state = LaneState::Online;
            g.offline_since = None;
            g.lane_id = Some(lane_id);
            g.version = Some(version);
            generation
        };
        self.changes.send_modify(|n| *n += 1);
        Attached {
            generation,
            replaced,
        }
    }

    /// Whether the connection of `generation` is still the lane's: what a
    /// replaced connection sent after its replacement must change nothing.
    pub fn is_current(&self, generation: u64) -> bool {
        self.lock().conn.as_ref().map(|c| c.generation) == Some(generation)
    }

    /// The connection of `generation` closed. A stale generation (already
    /// replaced) changes nothing; returns whether the lane went offline.
    pub fn detach(&self, generation: u64) -> bool {
        {
            let mut g = self.lock();
            match g.conn.take() {
                Some(c) if c.generation == generation => c.replaced.cancel(),
                other => {
                    g.conn = other;
                    return false;
                }
            }
            g.state = LaneState::Offline;
            g.offline_since = Some(Instant::now());
            g.pending.fail_all(&lane_lost());
        }
        self.changes.send_modify(|n| *n += 1);
        true
    }

    /// The connection of `generation` moves to a WebSocket whose writer
    /// takes `tx`: `last_on_old` is queued on the native link as its last
    /// message, and every message sent from now on goes to `tx` (in the
    /// same lock, so none is sent between the two). Its pending requests
    /// stay pending: the worker answers them on the WebSocket. Returns the
    /// connection's `replaced` token for the WebSocket's task, or `None`
    /// (nothing changed) when that connection is no longer the lane's or
    /// its native queue is full.
    pub fn adopt(
        &self,
        generation: u64,
        tx: mpsc::Sender<Bytes>,
        last_on_old: Bytes,
    ) -> Option<CancellationToken> {
        let mut g = self.lock();
        let conn = g.conn.as_mut().filter(|c| c.generation == generation)?;
        conn.tx.try_send(last_on_old).ok()?;
        conn.tx = tx;
        conn.transport = LaneTransport::WebSocket;
        Some(conn.replaced.clone())
    }

    /// What carries the lane's messages while it is online.
    pub fn transport(&self) -> Option<LaneTransport> {
        self.lock().conn.as_ref().map(|c| c.transport)
    }

    /// Sends a message that needs no answer (e.g. `controllers`) on the
    /// current connection, if any, without waiting. A full or closed
    /// channel drops it: every such message carries the whole state, so the
    /// next one repairs a lost one.
    pub fn send_oneway(&self, msg: &HostToExtension) {
        let g = self.lock();
        let Some(conn) = &g.conn else {
            return;
        };
        let bytes = match serde_json::to_vec(msg) {
            Ok(b) if b.len() <= self.max_frame => Bytes::from(b),
            _ => {
                tracing::warn!("a message to the browser was too large or not encodable");
                return;
            }
        };
        if conn.tx.try_send(bytes).is_err() {
            tracing::warn!("the browser connection is congested; dropped a state update");
        }
    }

    /// Sends `command` on the current connection now, in order with what
    /// is sent after it, and does not wait for its answer (which is
    /// ignored when it comes). `false` when there is no connection, the
    /// frame is too large, or the channel is full: nothing was sent.
    pub fn send_unanswered(&self, command: &Command) -> bool {
        self.send_now(command).is_some()
    }

    /// [`Lane::send_unanswered`], with the receiver of the answer for a
    /// caller that waits for it later (dropping it ignores the answer).
    pub fn send_now(&self, command: &Command) -> Option<oneshot::Receiver<CallResult>> {
        let mut g = self.lock();
        let tx = g.conn.as_ref().map(|c| c.tx.clone())?;
        let id = g.next_request;
        g.next_request += 1;
        let frame = encode_request(id, command, self.max_frame).ok()?;
        let rx = g.pending.insert(id);
        if tx.try_send(frame).is_err() {
            g.pending.remove(id);
            return None;
        }
        Some(rx)
    }

    /// A response arrived on the connection of `generation`.
    pub fn complete(&self, generation: u64, id: u64, outcome: Outcome) {
        let mut g = self.lock();
        if g.conn.as_ref().map(|c| c.generation) != Some(generation) {
            return;
        }
        let result = match outcome {
            Outcome::Result(v) => Ok(v),
            Outcome::Error(e) => Err(e),
        };
        if !g.pending.complete(id, result) {
            tracing::debug!(id, "response for a request nobody waits for");
        }
    }

    /// A CDP event of a shared tab, for the requests waiting for one.
    pub fn publish_cdp(&self, event: CdpEvent) {
        // No subscriber is the normal case outside navigation.
        let _ = self.cdp.send(Arc::new(event));
    }

    /// State and extension version.
    pub fn status(&self) -> (LaneState, Option<String>) {
        let g = self.lock();
        (g.state, g.version.clone())
    }

    /// CDP events of every tab of the lane, from now on.
    pub fn subscribe_cdp(&self) -> broadcast::Receiver<Arc<CdpEvent>> {
        self.cdp.subscribe()
    }

    /// Sends `command` to the extension and waits for its result until
    /// `deadline`.
    ///
    /// Absent lane: `LANE_ABSENT` at once. Offline lane: waits for the same
    /// lane to come back, else `RUNTIME_LOST` at the deadline or
    /// [`LANE_RETURN_GRACE_MS`] after the lane went offline, whichever is
    /// first (at once, when that is past). A frame over the limit is
    /// refused before anything is sent.
    ///
    /// While the lane is offline, reads and paired releases wait for the
    /// same browser to come back (as above); commands that act or
    /// run privileged code fail at once: losing the lane revoked every
    /// lease, so sending them later would act without authority (a key
    /// pressed after its record was dropped would stay down).
    pub async fn call(&self, command: Command, deadline: Instant) -> CallResult {
        let mut expected: Option<LaneId> = None;
        let grace = Duration::from_millis(LANE_RETURN_GRACE_MS);
        loop {
            let mut changes = self.changes.subscribe();
            // While offline: how long to wait for the lane.
            let mut until = deadline;
            let sent =
                {
                    let mut g = self.lock();
                    match g.state {
                        LaneState::Absent => return Err(WireError::new(
                            ErrorKind::LaneAbsent,
                            "no browser is connected: open the browser with the cotab extension",
                        )),
                        LaneState::Offline if !waits_for_lane(&command) => {
                            return Err(lost_authority());
                        }
                        LaneState::Offline => {
                            if expected.is_none() {
                                expected = g.lane_id.clone();
                            }
                            if let Some(since) = g.offline_since {
                                until = until.min(since + grace);
                            }
                            None
                        }
                        LaneState::Online => {
                            if expected.is_some() && expected != g.lane_id {
                                return Err(WireError::new(
                                ErrorKind::RuntimeLost,
                                "the browser lane went away and another browser connected instead",
                            ));
                            }
                            let id = g.next_request;
                            g.next_request += 1;
                            let frame = encode_request(id, &command, self.max_frame)?;
                            let tx = g.conn.as_ref().map(|c| c.tx.clone());
                            let rx = g.pending.insert(id);
                            Some((id, frame, tx, rx))
                        }
                    }
                };
            let Some((id, frame, tx, rx)) = sent else {
                if tokio::time::timeout_at(until, changes.changed())
                    .await
                    .is_err()
                {
                    return Err(WireError::new(
                        ErrorKind::RuntimeLost,
                        "the browser went away (it quit, or the extension stopped) and did not \
                         come back",
                    ));
                }
                continue;
            };
            // Read only for the per-hop trace below.
            let handed =
                tracing::enabled!(target: HOPS_TARGET, tracing::Level::DEBUG).then(Instant::now);
            let delivered = match tx {
                Some(tx) => tx.send(frame).await.is_ok(),
                None => false,
            };
            if !delivered {
                // The connection is closing and never got the frame: wait
                // for the lane to change and try again.
                self.lock().pending.remove(id);
                if !waits_for_lane(&command) {
                    return Err(lost_authority());
                }
                if tokio::time::timeout_at(deadline, changes.changed())
                    .await
                    .is_err()
                {
                    return Err(WireError::new(
                        ErrorKind::RuntimeLost,
                        "the browser lane went away",
                    ));
                }
                continue;
            }
            // A caller that gives up early (its request raced against a
            // dialog, or its connection closed) drops this future: the
            // guard forgets the request, so its late answer is ignored and
            // the registry does not keep it.
            let mut forget = ForgetOnDrop {
                lane: self,
                id: Some(id),
            };
            let r = match tokio::time::timeout_at(deadline, rx).await {
                Ok(Ok(result)) => result,
                // The registry dropped the sender without a result: only
                // when the lane itself went away.
                Ok(Err(_)) => Err(lane_lost()),
                Err(_) => {
                    return Err(WireError::new(
                        ErrorKind::Timeout,
                        "the browser did not answer before the deadline",
                    ))
                }
            };
            forget.id = None;
            // The daemon's half of the per-hop trace (`cargo xtask bench`
            // reads it; `docs/benchmarks.md`): from handing the frame to
            // the writer to the answer, so the browser's share of a
            // request can be told from the daemon's. Names only, no data.
            tracing::debug!(
                target: HOPS_TARGET,
                request = id,
                what = command.name(),
                micros = handed.map_or(0, |h| u64::try_from(h.elapsed().as_micros()).unwrap_or(u64::MAX)),
                "browser answered"
            );
            return r;
        }
    }

    /// Whether the browser went away for good: the lane is offline (or
    /// goes offline within `within`, as it does right after a browser
    /// that quits closed its windows) and does not come back before
    /// `deadline` or [`LANE_RETURN_GRACE_MS`] after it went, whichever
    /// is first. `false` as soon as it is (back) online after `within`,
    /// or was never connected.
    pub async fn gone_for_good(&self, within: Duration, deadline: Instant) -> bool {
        let grace = Duration::from_millis(LANE_RETURN_GRACE_MS);
        let watch_until = Instant::now() + within;
        let mut went = false;
        loop {
            // Subscribed before the look, so a change in between wakes it.
            let mut changes = self.changes.subscribe();
            let (state, since) = {
                let g = self.lock();
                (g.state, g.offline_since)
            };
            let until = match state {
                LaneState::Absent => return false,
                LaneState::Online if went || Instant::now() >= watch_until => return false,
                LaneState::Online => watch_until.min(deadline),
                LaneState::Offline => {
                    went = true;
                    since.map_or(deadline, |s| deadline.min(s + grace))
                }
            };
            if tokio::time::timeout_at(until, changes.changed())
                .await
                .is_err()
            {
                return state == LaneState::Offline;
            }
        }
    }

    /// Number of requests waiting for the extension (for tests).
    pub fn pending_len(&self) -> usize {
        self.lock().pending.len()
    }
}

/// The `tracing` target of the per-hop trace: one debug line per answered
/// browser request, with how long the browser took.
pub const HOPS_TARGET: &str = "cotab_host::hops";

/// Removes a pending request whose caller stopped waiting.
struct ForgetOnDrop<'a> {
    lane: &'a Lane,
    id: Option<u64>,
}

impl Drop for ForgetOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            self.lane.lock().pending.remove(id);
        }
    }
}

/// Serialises a request frame's payload, refusing one over `max` bytes.
fn encode_request(id: u64, command: &Command, max: usize) -> Result<Bytes, WireError> {
    let msg = HostToExtension::Request {
        id,
        command: command.clone(),
    };
    let bytes = serde_json::to_vec(&msg).map_err(|_| {
        WireError::new(
            ErrorKind::InvalidRequest,
            "the command could not be encoded",
        )
    })?;
    if bytes.len() > max {
        return Err(WireError::new(
            ErrorKind::InvalidRequest,
            format!("the message to the browser would exceed the limit of {max} bytes"),
        ));
    }
    Ok(Bytes::from(bytes))
}

/// Whether `command` may wait for an offline lane to come back.
fn waits_for_lane(command: &Command) -> bool {
    match command {
        Command::Observe(_) | Command::Release(_) => true,
        // An aim for a capture only reads; one for an action acts.
        Command::Aim(aim) => aim.class == CommandClass::Observe,
        // Actions: they need the control that the lane's loss revoked.
        Command::Act(_)
        | Command::ActInFrame { .. }
        | Command::Developer { .. }
        | Command::Input { .. } => false,
        Command::ListShared
        | Command::CreateTab { .. }
        | Command::CloseTab { .. }
        | Command::ForwardEvents { .. } => true,
    }
}

fn lost_authority() -> WireError {
    WireError::new(
        ErrorKind::RuntimeLost,
        "the browser lane went away, and control with it: acquire again once it is back",
    )
}

#[cfg(test)]
mod tests;
