//! The relay role: the process the browser starts for `connectNative`.
//!
//! It checks the caller's origin, connects to the daemon's `host.sock`
//! (starting the daemon when nothing listens) and copies native-messaging
//! frames both ways. It understands nothing of their content.
//!
//! The framing is done by [`NativeCodec`] on both sides rather than by the
//! `native_messaging` crate: that crate's reader is synchronous (a thread
//! per stdin) and yields `String`s with its own fixed limits, while the
//! relay needs the same async codec on the socket side, our own limits per
//! direction, and to drop an oversize frame from the daemon without dying.
//!
//! **Architecture Invariant:** nothing but whole frames is ever written to
//! stdout; logs go to stderr.

use crate::codec::{NativeCodec, NativeCodecError};
use crate::runtime::{prepare_runtime_dir, RuntimeDirError, HOST_SOCKET, LOG_FILE};
use cotab_shared::limits::{MAX_EXTENSION_TO_HOST, MAX_HOST_TO_EXTENSION};
use futures_util::StreamExt;
use std::io;
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::unix::pipe;
use tokio::net::UnixStream;
use tokio_util::codec::{FramedRead, FramedWrite};

/// How long the relay tries to reach a daemon it started.
pub const CONNECT_PATIENCE: Duration = Duration::from_secs(5);

/// Whether `origin` (argv\[1\]) is the one extension allowed to use us.
pub fn origin_allowed(origin: &str) -> bool {
    origin == cotab_shared::extension_origin(cotab_shared::EXTENSION_ID)
}

/// Why the relay stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RelayError {
    /// The runtime directory is unsafe.
    #[error(transparent)]
    RuntimeDir(#[from] RuntimeDirError),
    /// The daemon could not be started.
    #[error("could not start the daemon: {0}")]
    Spawn(io::Error),
    /// No daemon answered in time.
    #[error("no daemon listening at {0} after {CONNECT_PATIENCE:?}")]
    Unreachable(PathBuf),
    /// A side failed (oversize frame from the browser, I/O error).
    #[error(transparent)]
    Frame(#[from] NativeCodecError),
}

/// Connects to the daemon in `runtime_dir`, starting `exe daemon` when
/// nothing listens, and retrying with backoff for [`CONNECT_PATIENCE`].
///
/// The runtime directory is checked (ours, 0700, not a symlink) before the
/// first connection attempt: the default `/tmp/cotab-<uid>` is a name
/// anyone can create first, and a socket there could be another user's
/// daemon, waiting for the page data the browser sends.
pub async fn connect_or_start(runtime_dir: &Path, exe: &Path) -> Result<UnixStream, RelayError> {
    prepare_runtime_dir(runtime_dir)?;
    let sock = runtime_dir.join(HOST_SOCKET);
    if let Ok(s) = UnixStream::connect(&sock).await {
        return Ok(s);
    }
    start_daemon(runtime_dir, exe).map_err(RelayError::Spawn)?;
    let give_up = tokio::time::Instant::now() + CONNECT_PATIENCE;
    let mut wait = Duration::from_millis(10);
    loop {
        if let Ok(s) = UnixStream::connect(&sock).await {
            return Ok(s);
        }
        if tokio::time::Instant::now() + wait > give_up {
            return Err(RelayError::Unreachable(sock));
        }
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(Duration::from_millis(250));
    }
}

/// Starts `exe daemon` detached: no stdin/stdout, stderr to
/// `daemon.stderr` in the log directory (the runtime directory's
/// `daemon.log` when there is none), not waited on. The daemon puts itself in its own session (`setsid`) at
/// start, so the browser reaping our process group does not take it along.
fn start_daemon(runtime_dir: &Path, exe: &Path) -> io::Result<()> {
    let stderr = match crate::logs::log_dir().filter(|d| crate::logs::prepare_log_dir(d).is_ok()) {
        Some(dir) => dir.join(crate::logs::DAEMON_STDERR),
        None => runtime_dir.join(LOG_FILE),
    };
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(stderr)?;
    tracing::info!("starting the cotab daemon");
    // Dropping the child handle does not kill or wait for it: the daemon
    // outlives this relay by design.
    std::process::Command::new(exe)
        .arg("daemon")
        .env("COTAB_RUNTIME_DIR", runtime_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(log))
        .spawn()?;
    Ok(())
}

/// Copies frames between the browser (`input`/`output`) and the daemon
/// (`socket`) until either side closes.
pub async fn pump<I, O>(input: I, output: O, socket: UnixStream) -> Result<(), RelayError>
where
    I: AsyncRead + Unpin,
    O: AsyncWrite + Unpin,
{
    let (sock_read, sock_write) = socket.into_split();
    let from_browser = FramedRead::new(
        input,
        NativeCodec::new(MAX_EXTENSION_TO_HOST, MAX_EXTENSION_TO_HOST),
    );
    let to_daemon = FramedWrite::new(
        sock_write,
        NativeCodec::new(MAX_EXTENSION_TO_HOST, MAX_EXTENSION_TO_HOST),
    );
    let from_daemon = FramedRead::new(
        sock_read,
        NativeCodec::new(MAX_HOST_TO_EXTENSION, MAX_HOST_TO_EXTENSION).skip_oversize(),
    );
    let to_browser = FramedWrite::new(
        output,
        NativeCodec::new(MAX_HOST_TO_EXTENSION, MAX_HOST_TO_EXTENSION),
    );
    tokio::select! {
        r = from_browser.forward(to_daemon) => { tracing::info!("browser side closed"); r? }
        r = from_daemon.forward(to_browser) => { tracing::info!("daemon side closed"); r? }
    }
    Ok(())
}

/// The whole relay role after the origin check: connect (or start) and
/// pump stdio.
///
/// The browser hands the relay pipes; they are read and written
/// non-blocking on the runtime's reactor. `tokio::io::stdin`/`stdout`
/// instead run every read and write on the blocking thread pool, a thread
/// hand-off each way for every frame; they remain the fallback when stdin
/// or stdout is not a pipe.
pub async fn run(runtime_dir: &Path, exe: &Path) -> Result<(), RelayError> {
    let socket = connect_or_start(runtime_dir, exe).await?;
    match stdio_pipes() {
        Some((input, output)) => pump(input, output, socket).await,
        None => pump(tokio::io::stdin(), tokio::io::stdout(), socket).await,
    }
}

/// Our stdin and stdout as non-blocking pipe ends, if both are pipes.
/// Duplicates of fds 0 and 1 (they share the open file description, so
/// fds 0 and 1 become non-blocking too; nothing else uses them).
fn stdio_pipes() -> Option<(pipe::Receiver, pipe::Sender)> {
    let input = io::stdin().as_fd().try_clone_to_owned().ok()?;
    let output = io::stdout().as_fd().try_clone_to_owned().ok()?;
    let input = pipe::Receiver::from_owned_fd(input).ok()?;
    let output = pipe::Sender::from_owned_fd(output).ok()?;
    Some((input, output))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_origin_is_allowed() {
        let id = cotab_shared::EXTENSION_ID;
        assert!(origin_allowed(&format!("chrome-extension://{id}/")));
        for bad in [
            format!("chrome-extension://{id}"),
            format!("chrome-extension://{id}/x"),
            "chrome-extension://*/".to_string(),
            "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/".to_string(),
            String::new(),
        ] {
            assert!(!origin_allowed(&bad), "{bad}");
        }
    }
}
