//! The agent side of the controller link: connect to `agent.sock`, send
//! typed calls, read their typed results.
//!
//! Used by the `cotab` CLI, `cotab mcp` and the end-to-end tests. Calls are
//! made one at a time; notifications that arrive meanwhile are skipped, or
//! handed to a channel after [`Client::forward_notifications`] (see
//! [`Client::next_message`] to read them directly).

use cotab_local::codec::{LineCodec, LineCodecError};
use cotab_shared::controller::{
    HelloParams, HelloResult, Method, OutgoingRequest, Response, Resume, ResumeParams,
    ResumeResult, RpcError, RpcOutcome,
};
use cotab_shared::limits::MAX_EXTENSION_TO_HOST;
use cotab_shared::{ErrorKind, RequestId, Ticket, PROTOCOL_VERSION};
use futures_util::StreamExt;
use serde_json::Value;
use std::io;
use std::path::{Path, PathBuf};
use tokio::io::AsyncWriteExt;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::UnixStream;
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;

/// Longest line the client accepts from the daemon. A capture result
/// carries a base64 image the extension sent, which may be as large as the
/// extension → host limit, plus the envelope.
pub const MAX_RESPONSE_LINE: usize = MAX_EXTENSION_TO_HOST + 64 * 1024;

/// What can go wrong for a client.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// Nothing listens at the socket path (absent or refused).
    #[error("cannot connect to {path}: {source}")]
    Connect {
        /// The socket path.
        path: PathBuf,
        /// The failure.
        source: io::Error,
    },
    /// The daemon answered with an error.
    #[error("{}: {}", .0.kind(), .0.message)]
    Rpc(RpcError),
    /// The connection failed.
    #[error("connection error: {0}")]
    Io(#[from] io::Error),
    /// The daemon closed the connection.
    #[error("the daemon closed the connection")]
    Closed,
    /// The daemon sent something that is not the expected response.
    #[error("unexpected response from the daemon")]
    Protocol,
}

/// Why [`Client::resume_or_hello`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeptSessionError {
    /// The daemon refused or the connection failed.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// The ticket file could not be written.
    #[error("cannot write the session file {path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

/// Writes `ticket` to `path`, created or emptied first, readable and
/// writable by its owner only (also when the file was there before).
fn write_ticket(path: &Path, ticket: &Ticket) -> io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    f.write_all(ticket.0.as_bytes())
}

impl ClientError {
    /// The error kind, when the daemon sent one.
    pub fn kind(&self) -> Option<ErrorKind> {
        match self {
            ClientError::Rpc(e) => Some(e.kind()),
            _ => None,
        }
    }

    /// Whether the connection itself failed (nothing listens, or the
    /// daemon went away), rather than the daemon answering.
    pub fn is_transport(&self) -> bool {
        matches!(
            self,
            ClientError::Connect { .. } | ClientError::Io(_) | ClientError::Closed
        )
    }

    /// The JSON-RPC error, when the daemon sent one.
    pub fn rpc(&self) -> Option<&RpcError> {
        match self {
            ClientError::Rpc(e) => Some(e),
            _ => None,
        }
    }
}

/// A connection to the daemon's agent socket.
#[derive(Debug)]
pub struct Client {
    reader: FramedRead<OwnedReadHalf, LineCodec>,
    writer: OwnedWriteHalf,
    next_id: i64,
    /// Where notifications read while waiting for a response go; dropped
    /// when `None`.
    notifications: Option<mpsc::UnboundedSender<Value>>,
}

impl Client {
    /// Connects to the agent socket at `path`.
    pub async fn connect(path: impl AsRef<Path>) -> Result<Client, ClientError> {
        let path = path.as_ref();
        let stream = UnixStream::connect(path)
            .await
            .map_err(|source| ClientError::Connect {
                path: path.to_path_buf(),
                source,
            })?;
        let (r, w) = stream.into_split();
        Ok(Client {
            reader: FramedRead::new(r, LineCodec::new(MAX_RESPONSE_LINE)),
            writer: w,
            next_id: 1,
            notifications: None,
        })
    }

    /// Calls method `M` and returns its typed result.
    pub async fn call<M: Method>(&mut self, params: &M::Params) -> Result<M::Result, ClientError> {
        let id = RequestId::Number(self.next_id);
        self.next_id += 1;
        let req = OutgoingRequest {
            jsonrpc: "2.0",
            id: id.clone(),
            method: M::NAME,
            params,
        };
        let mut line = serde_json::to_vec(&req).map_err(|_| ClientError::Protocol)?;
        line.push(b'\n');
        self.writer.write_all(&line).await?;
        loop {
            let msg = self.next_message().await?;
            if msg.get("id").is_none() {
                self.forward_or_drop(msg);
                continue;
            }
            let resp: Response<Value> =
                serde_json::from_value(msg).map_err(|_| ClientError::Protocol)?;
            if resp.id.as_ref() != Some(&id) {
                // An error about an unreadable line (id null) or another
                // request: not ours.
                if resp.id.is_none() {
                    if let RpcOutcome::Error(e) = resp.outcome {
                        return Err(ClientError::Rpc(e));
                    }
                }
                continue;
            }
            return match resp.outcome {
                RpcOutcome::Result(v) => {
                    serde_json::from_value(v).map_err(|_| ClientError::Protocol)
                }
                RpcOutcome::Error(e) => Err(ClientError::Rpc(e)),
            };
        }
    }

    /// Resumes the session whose ticket the file `path` holds, or (no
    /// file, or a ticket the daemon no longer knows: `AUTHENTICATION_FAILED`)
    /// opens one as `agent` and stores its ticket there, readable by its
    /// owner only. Returns what the resume gave back (`None`: a new
    /// session, which keeps its leases for `keep_control_ms` once its
    /// connection drops: [`Client::hello_keeping`]). Any other failure of
    /// the resume is returned, and the file
    /// is left as it was. The CLI keeps its session this way between
    /// invocations, and `cotab mcp --session-file` between servers.
    pub async fn resume_or_hello(
        &mut self,
        path: &Path,
        agent: &str,
        keep_control_ms: Option<u64>,
    ) -> Result<Option<ResumeResult>, KeptSessionError> {
        if let Ok(text) = std::fs::read_to_string(path) {
            let params = ResumeParams {
                protocol_version: PROTOCOL_VERSION,
                ticket: Ticket(text.trim().to_string()),
            };
            match self.call::<Resume>(&params).await {
                Ok(r) => return Ok(Some(r)),
                Err(e) if e.kind() == Some(ErrorKind::AuthenticationFailed) => {}
                Err(e) => return Err(e.into()),
            }
        }
        let hello = self.hello_keeping(agent, keep_control_ms).await?;
        write_ticket(path, &hello.ticket).map_err(|source| KeptSessionError::File {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(None)
    }

    /// `session.hello` with protocol version 1 and `agent` as the name.
    pub async fn hello(&mut self, agent: &str) -> Result<HelloResult, ClientError> {
        self.hello_keeping(agent, None).await
    }

    /// [`Client::hello`] of a session that keeps its control leases for
    /// `keep_control_ms` once its connection drops (`keepControlMs`).
    pub async fn hello_keeping(
        &mut self,
        agent: &str,
        keep_control_ms: Option<u64>,
    ) -> Result<HelloResult, ClientError> {
        self.call::<cotab_shared::controller::Hello>(&HelloParams {
            keep_control_ms,
            ..HelloParams::new(agent)
        })
        .await
    }

    /// Sends `line` as is (a newline is added) and returns the next message
    /// that is not a notification. For tests of bad input. A failed write
    /// (the daemon closed on us) still reads what the daemon said first.
    pub async fn call_raw(&mut self, line: &str) -> Result<Value, ClientError> {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        let written = self.writer.write_all(&bytes).await;
        loop {
            let msg = match self.next_message().await {
                Ok(m) => m,
                Err(e) => return Err(written.err().map(ClientError::Io).unwrap_or(e)),
            };
            if msg.get("id").is_some() {
                return Ok(msg);
            }
            self.forward_or_drop(msg);
        }
    }

    /// From now on, notifications that [`Client::call`] and
    /// [`Client::call_raw`] read while waiting for their response are sent
    /// to the returned channel instead of being dropped. Messages read with
    /// [`Client::next_message`] are returned to its caller as before.
    pub fn forward_notifications(&mut self) -> mpsc::UnboundedReceiver<Value> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.notifications = Some(tx);
        rx
    }

    fn forward_or_drop(&mut self, msg: Value) {
        if let Some(tx) = &self.notifications {
            if tx.send(msg).is_err() {
                // The receiver is gone: nobody wants them any more.
                self.notifications = None;
            }
        }
    }

    /// Sends `line` without waiting for anything (for notifications).
    pub async fn send_raw(&mut self, line: &str) -> Result<(), ClientError> {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.writer.write_all(&bytes).await?;
        Ok(())
    }

    /// The next message from the daemon, response or notification.
    pub async fn next_message(&mut self) -> Result<Value, ClientError> {
        match self.reader.next().await {
            None => Err(ClientError::Closed),
            Some(Err(LineCodecError::TooLong)) => Err(ClientError::Protocol),
            Some(Err(LineCodecError::Io(e))) => Err(ClientError::Io(e)),
            // A kind of failure the codec learns later is the daemon's
            // stream gone wrong.
            Some(Err(_)) => Err(ClientError::Protocol),
            Some(Ok(line)) => serde_json::from_slice(&line).map_err(|_| ClientError::Protocol),
        }
    }
}
