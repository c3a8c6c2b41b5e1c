//! A connection to the daemon's agent socket that carries many calls at
//! once: a CDP client sends its commands without waiting for the answers,
//! and one of them may wait long (a promise the page resolves later)
//! while the others go on. Answers are matched to calls by id;
//! notifications go to one channel.

use cotab_local::codec::LineCodec;
use cotab_shared::controller::{
    ErrorData, HelloParams, HelloResult, Method, OutgoingRequest, Response, RpcError, RpcOutcome,
};
use cotab_shared::{ErrorKind, RequestId};
use futures_util::StreamExt;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::AsyncWriteExt;
use tokio::net::UnixStream;
use tokio::sync::{mpsc, oneshot};
use tokio_util::codec::FramedRead;

type Waiting = Arc<Mutex<Option<HashMap<i64, oneshot::Sender<Result<Value, RpcError>>>>>>;

/// One agent connection, shared by the tasks that call through it.
#[derive(Debug, Clone)]
pub struct Mux {
    lines: mpsc::UnboundedSender<Vec<u8>>,
    waiting: Waiting,
    next_id: Arc<AtomicI64>,
}

/// The error of a call whose connection closed before its answer.
fn closed() -> RpcError {
    RpcError {
        code: -32000,
        message: "the connection to cotab's daemon closed".into(),
        data: ErrorData {
            kind: ErrorKind::RuntimeLost,
            dialog: None,
        },
    }
}

impl Mux {
    /// Connects to the agent socket at `path`; the daemon's notifications
    /// go to the returned receiver, which ends when the connection does.
    pub async fn connect(path: &Path) -> std::io::Result<(Mux, mpsc::UnboundedReceiver<Value>)> {
        let stream = UnixStream::connect(path).await?;
        let (r, mut w) = stream.into_split();
        let (lines, mut out) = mpsc::unbounded_channel::<Vec<u8>>();
        let waiting: Waiting = Arc::new(Mutex::new(Some(HashMap::new())));
        let (notes, notes_rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Some(line) = out.recv().await {
                if w.write_all(&line).await.is_err() {
                    return;
                }
            }
        });
        let pending = waiting.clone();
        tokio::spawn(async move {
            let mut reader = FramedRead::new(r, LineCodec::new(cotab_client::MAX_RESPONSE_LINE));
            while let Some(line) = reader.next().await {
                let line = match line {
                    Ok(l) => l,
                    // Too long, the stream failed, or worse: the daemon's
                    // connection is done.
                    Err(_) => break,
                };
                let Ok(msg) = serde_json::from_slice::<Value>(&line) else {
                    break;
                };
                if msg.get("id").is_none() {
                    let _ = notes.send(msg);
                    continue;
                }
                let Ok(resp) = serde_json::from_value::<Response<Value>>(msg) else {
                    break;
                };
                let Some(RequestId::Number(id)) = resp.id else {
                    continue;
                };
                let tx = pending
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .as_mut()
                    .and_then(|w| w.remove(&id));
                if let Some(tx) = tx {
                    let _ = tx.send(match resp.outcome {
                        RpcOutcome::Result(v) => Ok(v),
                        RpcOutcome::Error(e) => Err(e),
                    });
                }
            }
            // Every call still waiting fails; later ones fail at once.
            pending.lock().unwrap_or_else(|e| e.into_inner()).take();
        });
        let mux = Mux {
            lines,
            waiting,
            next_id: Arc::new(AtomicI64::new(1)),
        };
        Ok((mux, notes_rx))
    }

    /// Calls `method` with `params` and waits for its answer.
    pub async fn call_raw(&self, method: &str, params: &impl Serialize) -> Result<Value, RpcError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        match self
            .waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_mut()
        {
            Some(w) => w.insert(id, tx),
            None => return Err(closed()),
        };
        let req = OutgoingRequest {
            jsonrpc: "2.0",
            id: RequestId::Number(id),
            method,
            params,
        };
        let mut line = serde_json::to_vec(&req).map_err(|_| closed())?;
        line.push(b'\n');
        if self.lines.send(line).is_err() {
            return Err(closed());
        }
        rx.await.unwrap_or_else(|_| Err(closed()))
    }

    /// [`Mux::call_raw`] of method `M`, typed.
    pub async fn call<M: Method>(&self, params: &M::Params) -> Result<M::Result, RpcError> {
        let v = self.call_raw(M::NAME, params).await?;
        serde_json::from_value(v).map_err(|_| RpcError {
            code: -32000,
            message: format!("the daemon answered {} with an unexpected shape", M::NAME),
            data: ErrorData {
                kind: ErrorKind::CommandFailed,
                dialog: None,
            },
        })
    }

    /// `session.hello` as `agent`, one of the sessions of `group`
    /// (`None`: a session of its own).
    pub async fn hello(&self, agent: &str, group: Option<&str>) -> Result<HelloResult, RpcError> {
        self.call::<cotab_shared::controller::Hello>(&HelloParams {
            group: group.map(str::to_owned),
            ..HelloParams::new(agent)
        })
        .await
    }
}
