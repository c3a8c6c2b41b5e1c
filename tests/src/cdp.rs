//! A small Chrome DevTools Protocol client over the browser's WebSocket,
//! used by the harness to open tabs, drive the real popup page and read the
//! page as an independent oracle. It is test tooling: the product never
//! talks CDP this way (the extension uses `chrome.debugger`).
//!
//! Flat sessions (`Target.attachToTarget {flatten: true}`) let one socket
//! carry commands for every target.

use anyhow::{anyhow, bail, Context, Result};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value>>>>>;
type Listeners = Arc<Mutex<Vec<mpsc::UnboundedSender<Value>>>>;

/// A connection to the browser endpoint.
pub struct Cdp {
    next_id: AtomicU64,
    pending: Pending,
    listeners: Listeners,
    out: mpsc::UnboundedSender<String>,
}

/// Deadline of one harness CDP command.
const COMMAND_DEADLINE: Duration = Duration::from_secs(30);

impl Cdp {
    /// Connects to a `ws://` browser endpoint.
    pub async fn connect(url: &str) -> Result<Cdp> {
        let (ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .with_context(|| format!("connecting to the browser's CDP endpoint {url}"))?;
        let (mut sink, mut stream) = ws.split();
        let pending: Pending = Arc::default();
        let (out, mut out_rx) = mpsc::unbounded_channel::<String>();
        tokio::spawn(async move {
            while let Some(text) = out_rx.recv().await {
                if sink.send(Message::text(text)).await.is_err() {
                    break;
                }
            }
        });
        let reader_pending = pending.clone();
        let listeners: Listeners = Arc::default();
        let reader_listeners = listeners.clone();
        tokio::spawn(async move {
            while let Some(Ok(msg)) = stream.next().await {
                let Message::Text(text) = msg else { continue };
                let Ok(v) = serde_json::from_str::<Value>(text.as_str()) else {
                    continue;
                };
                let Some(id) = v.get("id").and_then(Value::as_u64) else {
                    // An event: to whoever listens (most of the harness
                    // polls state instead).
                    reader_listeners
                        .lock()
                        .expect("lock poisoned")
                        .retain(|l| l.send(v.clone()).is_ok());
                    continue;
                };
                let sender = reader_pending.lock().expect("lock poisoned").remove(&id);
                if let Some(sender) = sender {
                    let outcome = match v.get("error") {
                        Some(e) => Err(anyhow!("CDP error: {e}")),
                        None => Ok(v.get("result").cloned().unwrap_or(Value::Null)),
                    };
                    // The caller may have timed out and gone; nothing to do then.
                    let _ = sender.send(outcome);
                }
            }
            // The socket closed: fail everything still waiting.
            for (_, sender) in reader_pending.lock().expect("lock poisoned").drain() {
                let _ = sender.send(Err(anyhow!("CDP connection closed")));
            }
        });
        Ok(Cdp {
            next_id: AtomicU64::new(1),
            pending,
            listeners,
            out,
        })
    }

    /// Every event the browser sends from now on, in order, until the
    /// receiver is dropped.
    pub fn events(&self) -> mpsc::UnboundedReceiver<Value> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.listeners.lock().expect("lock poisoned").push(tx);
        rx
    }

    /// Sends a browser-level command.
    pub async fn send(&self, method: &str, params: Value) -> Result<Value> {
        self.send_to(None, method, params).await
    }

    /// Sends a command, to a flat session when `session` is given.
    pub async fn send_to(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let (tx, rx) = oneshot::channel();
        self.pending.lock().expect("lock poisoned").insert(id, tx);
        self.out
            .send(msg.to_string())
            .map_err(|_| anyhow!("CDP connection closed"))?;
        match tokio::time::timeout(COMMAND_DEADLINE, rx).await {
            Ok(Ok(outcome)) => outcome.with_context(|| format!("CDP {method}")),
            Ok(Err(_)) => bail!("CDP connection closed during {method}"),
            Err(_) => {
                self.pending.lock().expect("lock poisoned").remove(&id);
                bail!("CDP {method} timed out")
            }
        }
    }

    /// Attaches to a target and returns its flat session id.
    pub async fn attach(&self, target_id: &str) -> Result<String> {
        let r = self
            .send(
                "Target.attachToTarget",
                json!({"targetId": target_id, "flatten": true}),
            )
            .await?;
        r["sessionId"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| anyhow!("attachToTarget returned no sessionId"))
    }

    /// Evaluates `expression` in a session and returns its value (awaiting
    /// promises).
    pub async fn eval(&self, session: &str, expression: &str) -> Result<Value> {
        let r = self
            .send_to(
                Some(session),
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
            )
            .await?;
        if let Some(ex) = r.get("exceptionDetails") {
            bail!("page threw: {ex}");
        }
        Ok(r["result"]["value"].clone())
    }
}
