//! Bad input on the agent socket against the real daemon the browser
//! started: every case gets a typed error, never echoes what was sent, and
//! costs nothing but (for an oversized line) that one connection.

use crate::shared_fixture;
use cotab_shared::controller::{Empty, SelectParams, TabsList, TabsSelect};
use cotab_shared::limits::MAX_CONTROLLER_LINE;
use cotab_shared::{ErrorKind, TabId};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::UnixStream;

const DEADLINE: Duration = Duration::from_secs(15);

struct Raw {
    reader: BufReader<OwnedReadHalf>,
    writer: OwnedWriteHalf,
}

impl Raw {
    async fn connect(path: &Path) -> anyhow::Result<Raw> {
        let (r, w) = UnixStream::connect(path).await?.into_split();
        Ok(Raw {
            reader: BufReader::new(r),
            writer: w,
        })
    }

    async fn send(&mut self, line: &str) -> anyhow::Result<()> {
        self.writer.write_all(line.as_bytes()).await?;
        self.writer.write_all(b"\n").await?;
        Ok(())
    }

    /// The next response line (notifications skipped); `None` at end of
    /// stream.
    async fn next(&mut self) -> anyhow::Result<Option<Value>> {
        loop {
            let mut line = String::new();
            let n = tokio::time::timeout(DEADLINE, self.reader.read_line(&mut line)).await??;
            if n == 0 {
                return Ok(None);
            }
            let v: Value = serde_json::from_str(&line)?;
            if v.get("id").is_some() {
                return Ok(Some(v));
            }
        }
    }

    async fn ask(&mut self, line: &str) -> anyhow::Result<Value> {
        self.send(line).await?;
        self.next()
            .await?
            .ok_or_else(|| anyhow::anyhow!("connection closed"))
    }
}

fn kind(v: &Value) -> &str {
    v["error"]["data"]["kind"].as_str().unwrap_or("")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_typed_errors() -> anyhow::Result<()> {
    let (browser, _page, tab) = shared_fixture().await?;
    let socket = browser.agent_socket();
    let mut raw = Raw::connect(&socket).await?;

    // Before a session, only session.hello/resume are served.
    let v = raw
        .ask(r#"{"jsonrpc":"2.0","id":1,"method":"tabs.list"}"#)
        .await?;
    assert_eq!(kind(&v), "AUTHENTICATION_FAILED", "{v}");

    let v = raw
        .ask(r#"{"jsonrpc":"2.0","id":2,"method":"session.hello","params":{"protocolVersion":99,"agent":"x"}}"#)
        .await?;
    assert_eq!(kind(&v), "PROTOCOL_VERSION", "{v}");
    let v = raw
        .ask(r#"{"jsonrpc":"2.0","id":3,"method":"session.hello","params":{"protocolVersion":1,"agent":"raw"}}"#)
        .await?;
    assert!(
        v["result"]["ticket"]
            .as_str()
            .is_some_and(|t| t.len() >= 22),
        "{v}"
    );

    // Malformed JSON: a parse error, and the connection stays usable.
    let v = raw.ask(r#"{"jsonrpc":"2.0","id":4,"method":"#).await?;
    assert_eq!(v["error"]["code"], -32700, "{v}");
    assert_eq!(v["id"], Value::Null);
    let v = raw
        .ask(r#"{"jsonrpc":"2.0","id":5,"method":"tabs.list"}"#)
        .await?;
    assert_eq!(v["id"], 5);
    assert_eq!(v["result"]["tabs"][0]["id"], json!(tab.0), "{v}");

    // Not a request object.
    let v = raw.ask(r#"{"jsonrpc":"2.0","id":6}"#).await?;
    assert_eq!(v["error"]["code"], -32600, "{v}");
    assert_eq!(v["id"], 6);

    // Unknown method.
    let v = raw
        .ask(r#"{"jsonrpc":"2.0","id":7,"method":"tabs.explode"}"#)
        .await?;
    assert_eq!(v["error"]["code"], -32601, "{v}");

    // Invalid params name the field and never echo the value.
    let secret = "s3cr3t-value-do-not-echo";
    let v = raw
        .ask(&format!(
            r#"{{"jsonrpc":"2.0","id":8,"method":"tabs.select","params":{{"tabId":"{secret}"}}}}"#
        ))
        .await?;
    assert_eq!(v["error"]["code"], -32602, "{v}");
    let message = v["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains("tabId"), "{v}");
    assert!(!v.to_string().contains(secret), "{v}");
    let v = raw
        .ask(&format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"page.navigate","params":{{"url":"{secret}"}}}}"#
        ))
        .await?;
    assert!(!v.to_string().contains(secret), "{v}");
    assert!(v.get("error").is_some(), "{v}");

    // A tab that is not shared (or does not exist) is a typed error.
    let v = raw
        .ask(r#"{"jsonrpc":"2.0","id":10,"method":"tabs.select","params":{"tabId":987654}}"#)
        .await?;
    assert_eq!(kind(&v), "TAB_NOT_SHARED", "{v}");

    // An action before any selection says what is missing.
    let v = raw
        .ask(r#"{"jsonrpc":"2.0","id":11,"method":"page.capture"}"#)
        .await?;
    assert_eq!(kind(&v), "INVALID_REQUEST", "{v}");

    // A line over the limit closes that connection only.
    let mut other = browser.agent("bystander").await?;
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":12,"method":"tabs.list","params":{{"pad":"{}"}}}}"#,
        "x".repeat(MAX_CONTROLLER_LINE + 16)
    );
    // The daemon may close the socket while the line is still being
    // written; that is the point, so a write error is fine.
    let _ = raw.send(&huge).await;
    let mut closed = false;
    while let Ok(Some(v)) = raw.next().await {
        assert_eq!(kind(&v), "INVALID_REQUEST", "{v}");
    }
    let mut byte = String::new();
    if matches!(raw.reader.read_line(&mut byte).await, Ok(0) | Err(_)) {
        closed = true;
    }
    assert!(closed, "the oversized line's connection stays open");
    let list = other.call::<TabsList>(&Empty {}).await?;
    assert_eq!(list.tabs.len(), 1);
    other
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    let err = other
        .call::<TabsSelect>(&SelectParams {
            tab_id: TabId(987_654),
        })
        .await
        .expect_err("unknown tab");
    assert_eq!(err.kind(), Some(ErrorKind::TabNotShared));
    Ok(())
}
