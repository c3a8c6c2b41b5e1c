//! Accepting connections on the daemon's sockets without spinning and
//! without running out of room: a bounded number of connections per
//! socket, and a pause after a failed `accept()`.
//!
//! `accept()` fails with `EMFILE`/`ENFILE` when the process (or the
//! system) has no file descriptor left, and keeps failing at once for as
//! long as the pending connection waits in the backlog: retried in a loop,
//! that is a busy spin that also writes a log line per attempt. So every
//! failure pauses this socket for [`ACCEPT_PAUSE`], and one episode of
//! failures (failures less than [`EPISODE_GAP`] apart: a descriptor freed
//! now and then lets one connection in between them) is logged twice:
//! when it starts, and at the first connection accepted after it ended,
//! with how many attempts failed. The other socket and every connection
//! already open keep being served meanwhile.
//!
//! It does not read or write the connections it hands out; the daemon
//! checks their peer and serves them. Any listener will do
//! ([`Listener`]): the two Unix sockets, and the lane's loopback
//! WebSocket.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream, UnixListener, UnixStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// How long a socket waits before it tries `accept()` again after a
/// failure.
pub const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// Failures closer together than this belong to one episode.
pub const EPISODE_GAP: Duration = Duration::from_secs(1);

/// A listening socket: what [`Acceptor`] accepts on.
pub trait Listener {
    /// A connection it accepts.
    type Stream;
    /// The next connection; cancel-safe.
    fn accept_one(&self) -> impl Future<Output = std::io::Result<Self::Stream>> + Send;
}

impl Listener for UnixListener {
    type Stream = UnixStream;
    async fn accept_one(&self) -> std::io::Result<UnixStream> {
        self.accept().await.map(|(stream, _)| stream)
    }
}

impl Listener for TcpListener {
    type Stream = TcpStream;
    async fn accept_one(&self) -> std::io::Result<TcpStream> {
        self.accept().await.map(|(stream, _)| stream)
    }
}

/// What [`Acceptor::next`] hands out.
#[derive(Debug)]
pub enum Accepted<S = UnixStream> {
    /// A connection within the socket's limit; the permit holds its place
    /// until it is dropped with the connection.
    Conn(S, OwnedSemaphorePermit),
    /// A connection past the limit: the caller tells the peer why (if its
    /// protocol can) and closes it.
    Full(S),
}

/// One listening socket with its connection limit.
#[derive(Debug)]
pub struct Acceptor<L = UnixListener> {
    listener: L,
    /// The socket's name, for logs.
    name: &'static str,
    slots: Arc<Semaphore>,
    /// Set after a failed `accept()`: no new attempt before then.
    paused_until: Option<Instant>,
    /// Failed attempts in the current episode (0: none).
    failures: u64,
    /// When the last attempt failed.
    last_failure: Option<Instant>,
}

impl<L: Listener> Acceptor<L> {
    /// Accepts on `listener` (named `name` in logs), at most `limit`
    /// connections open at once.
    pub fn new(listener: L, name: &'static str, limit: usize) -> Self {
        Acceptor {
            listener,
            name,
            slots: Arc::new(Semaphore::new(limit.max(1))),
            paused_until: None,
            failures: 0,
            last_failure: None,
        }
    }

    /// The next connection. Cancel-safe (it is raced in the daemon's
    /// `select!`): a pause cut short is resumed by the next call, and
    /// the listeners' `accept` is cancel-safe itself.
    pub async fn next(&mut self) -> Accepted<L::Stream> {
        loop {
            if let Some(until) = self.paused_until {
                tokio::time::sleep_until(until).await;
                self.paused_until = None;
            }
            match self.listener.accept_one().await {
                Ok(stream) => {
                    let ended = self
                        .last_failure
                        .is_some_and(|t| t.elapsed() >= EPISODE_GAP);
                    if self.failures > 0 && ended {
                        tracing::info!(
                            socket = self.name,
                            failed = self.failures,
                            "accepting connections again"
                        );
                        self.failures = 0;
                    }
                    return match self.slots.clone().try_acquire_owned() {
                        Ok(permit) => Accepted::Conn(stream, permit),
                        Err(_) => Accepted::Full(stream),
                    };
                }
                Err(e) => {
                    let now = Instant::now();
                    if self
                        .last_failure
                        .is_some_and(|t| now.duration_since(t) >= EPISODE_GAP)
                    {
                        // Logged when the next connection is accepted
                        // otherwise; this one ended unnoticed.
                        tracing::info!(
                            socket = self.name,
                            failed = self.failures,
                            "an accept failure episode ended"
                        );
                        self.failures = 0;
                    }
                    if self.failures == 0 {
                        tracing::warn!(
                            socket = self.name,
                            error = %e,
                            "accept failed; retrying every {} ms, logged again once it works",
                            ACCEPT_PAUSE.as_millis()
                        );
                    }
                    self.failures = self.failures.saturating_add(1);
                    self.last_failure = Some(now);
                    self.paused_until = Some(now + ACCEPT_PAUSE);
                }
            }
        }
    }
}

/// How many agent connections a process allowed `nofile` open file
/// descriptors may keep: at most `max`, leaving [`FD_RESERVE`] descriptors
/// for everything else (the browser lane, logs, the blocking pool's file
/// reads), and at least one.
pub fn agent_limit(max: usize, nofile: u64) -> usize {
    let room = usize::try_from(nofile.saturating_sub(FD_RESERVE)).unwrap_or(usize::MAX);
    max.min(room).max(1)
}

/// File descriptors [`agent_limit`] keeps free for the daemon's own use.
pub const FD_RESERVE: u64 = 64;

/// The process's soft limit of open file descriptors, if it can be read.
pub fn nofile_limit() -> Option<u64> {
    nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
        .ok()
        .map(|(soft, _)| soft)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[test]
    fn the_agent_limit_leaves_room_for_the_daemon_and_is_never_zero() {
        assert_eq!(agent_limit(256, 1024), 256);
        assert_eq!(agent_limit(256, 256), 192);
        assert_eq!(agent_limit(256, 70), 6);
        assert_eq!(agent_limit(256, 10), 1);
        assert_eq!(agent_limit(256, u64::MAX), 256);
    }

    #[tokio::test]
    async fn connections_past_the_limit_are_handed_out_as_full_until_one_closes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.sock");
        let mut acceptor = Acceptor::new(UnixListener::bind(&path).expect("bind"), "test", 2);
        let mut clients = Vec::new();
        for _ in 0..3 {
            clients.push(UnixStream::connect(&path).await.expect("connect"));
        }
        let a = acceptor.next().await;
        let b = acceptor.next().await;
        let c = acceptor.next().await;
        assert!(matches!(a, Accepted::Conn(..)), "{a:?}");
        assert!(matches!(b, Accepted::Conn(..)), "{b:?}");
        let Accepted::Full(full) = c else {
            panic!("the third is past the limit: {c:?}");
        };
        drop(full);
        let mut buf = [0u8; 1];
        assert_eq!(clients[2].read(&mut buf).await.expect("eof"), 0);
        // A closed connection gives its place back.
        drop(a);
        clients.push(UnixStream::connect(&path).await.expect("connect"));
        assert!(matches!(acceptor.next().await, Accepted::Conn(..)));
    }
}
