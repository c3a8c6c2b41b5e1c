//! Bad input over the real sockets (issue 5): deeply nested JSON on both
//! links, invalid UTF-8 from the browser, a client that stops in the middle
//! of a line, and a client that never reads its responses. Each costs at
//! most its own connection; the daemon and every other peer carry on.

use crate::harness::{tab, Daemon, FakeExt, Script, WAIT};
use cotab_host::agent::AgentConfig;
use cotab_host::client::Client;
use cotab_host::codec::LineCodec;
use cotab_shared::controller::{Empty, Status, TabsList, METHOD_NOT_FOUND, PARSE_ERROR};
use cotab_shared::native::Command;
use futures_util::StreamExt;
use serde_json::Value;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;
use tokio_util::codec::FramedRead;

/// More nesting than any recursive parser survives on a test thread's
/// stack; serde_json's recursion limit (128) must refuse it first.
const DEEP: usize = 100_000;

fn deep_array() -> String {
    "[".repeat(DEEP)
}

/// Reads and discards until the daemon closes the connection (EOF or a
/// reset), failing the test after [`WAIT`].
async fn closed_by_the_daemon(s: &mut UnixStream) {
    let mut buf = vec![0u8; 64 * 1024];
    tokio::time::timeout(WAIT, async {
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await
    .expect("the daemon closed the connection in time");
}

#[tokio::test]
async fn deeply_nested_json_on_an_agent_line_is_a_parse_error() {
    let d = Daemon::start().await;
    let mut c = d.agent().await;

    let r = c.call_raw(&deep_array()).await.expect("an answer");
    assert_eq!(r["error"]["code"], PARSE_ERROR, "{r}");
    assert!(r["id"].is_null());

    // The same depth inside the params of a well-formed envelope.
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":5,"method":"cdp.send","params":{{"method":"Page.reload","params":{}}}}}"#,
        deep_array()
    );
    let r = c.call_raw(&line).await.expect("an answer");
    assert!(r["error"]["code"].is_i64(), "{r}");

    c.call::<Status>(&Empty {})
        .await
        .expect("the connection is still usable");
}

#[tokio::test]
async fn deeply_nested_and_non_utf8_frames_from_the_browser_are_dropped_and_the_lane_lives_on() {
    let d = Daemon::start().await;
    let mut ext = FakeExt::connect(
        &d.host_sock(),
        Script {
            tabs: vec![tab(1)],
            ..Script::default()
        },
    )
    .await;
    ext.send_raw(deep_array().into_bytes());
    ext.send_raw(
        format!(
            r#"{{"type":"event","event":{{"kind":"cdp","tabId":1,"method":"Page.loadEventFired","params":{}}}}}"#,
            deep_array()
        )
        .into_bytes(),
    );
    ext.send_raw(b"{\"type\":\"event\",\"event\":\"\xff\xfe\"}".to_vec());

    // The frames above were sent before this call existed, so the daemon
    // has read them all by the time it answers it over the same lane.
    let mut c = d.agent().await;
    let tabs = c.call::<TabsList>(&Empty {}).await.expect("lane still up");
    assert_eq!(tabs.tabs.len(), 1);
    assert!(matches!(ext.next_command().await, Command::ListShared));
}

/// A daemon whose connections give a partial line `idle` to finish.
fn idle_after(idle: Duration) -> AgentConfig {
    AgentConfig {
        line_idle: idle,
        ..AgentConfig::default()
    }
}

#[tokio::test]
async fn a_partial_line_past_the_idle_deadline_closes_only_that_connection() {
    let d = Daemon::start_with_agent(idle_after(Duration::from_millis(300))).await;
    // Connected first and silent throughout: idle without a partial line.
    let mut quiet = d.agent().await;

    let mut slow = UnixStream::connect(d.agent_sock()).await.expect("connect");
    slow.write_all(br#"{"jsonrpc":"2.0","id":1,"meth"#)
        .await
        .expect("half a line");
    closed_by_the_daemon(&mut slow).await;

    // `quiet` has been idle longer than `slow` was given, and lives on.
    agents_become(&mut quiet, 1).await;
}

#[tokio::test]
async fn a_line_written_one_byte_at_a_time_is_answered() {
    let d = Daemon::start_with_agent(idle_after(Duration::from_secs(60))).await;
    let mut s = UnixStream::connect(d.agent_sock()).await.expect("connect");
    for b in b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"nope\"}\n" {
        s.write_all(&[*b]).await.expect("sent");
    }
    let mut lines = FramedRead::new(s, LineCodec::new(64 * 1024));
    let r = tokio::time::timeout(WAIT, lines.next())
        .await
        .expect("an answer in time")
        .expect("a line")
        .expect("a valid line");
    let r: Value = serde_json::from_slice(&r).expect("json");
    assert_eq!(r["id"], 1, "{r}");
    assert_eq!(r["error"]["code"], METHOD_NOT_FOUND, "{r}");
}

/// Asks `host.status` on `c` (which must keep working) until the daemon
/// counts `n` agent connections, failing after [`WAIT`].
async fn agents_become(c: &mut Client, n: usize) {
    let give_up = tokio::time::Instant::now() + WAIT;
    loop {
        let status = c
            .call::<Status>(&Empty {})
            .await
            .expect("this connection is unaffected");
        if status.agents == n {
            return;
        }
        assert!(
            tokio::time::Instant::now() < give_up,
            "still {} agents connected",
            status.agents
        );
        tokio::task::yield_now().await;
    }
}

/// Writes requests and never reads, until the daemon drops the
/// connection (the write fails) or [`WAIT`] passes.
async fn flood_without_reading(d: &Daemon) {
    let mut s = UnixStream::connect(d.agent_sock()).await.expect("connect");
    tokio::time::timeout(WAIT, async {
        for id in 0u64.. {
            // Unknown methods are answered by the reader itself, the
            // status calls (refused before hello) by request tasks.
            let line = if id % 2 == 0 {
                format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"nope\"}}\n")
            } else {
                format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"host.status\"}}\n")
            };
            if s.write_all(line.as_bytes()).await.is_err() {
                return;
            }
        }
    })
    .await
    .expect("the daemon dropped the non-reading connection in time");
}

async fn a_non_reading_agent_is_dropped(config: AgentConfig) {
    let d = Daemon::start_with_agent(config).await;
    let mut other = d.agent().await;
    flood_without_reading(&d).await;
    agents_become(&mut other, 1).await;
}

#[tokio::test]
async fn an_agent_that_never_reads_is_dropped_when_its_queue_is_full() {
    // The write deadline is far beyond the test's: only the queue acts.
    a_non_reading_agent_is_dropped(AgentConfig {
        line_idle: Duration::from_secs(600),
        out_queue: 4,
    })
    .await;
}

#[tokio::test]
async fn an_agent_that_never_reads_is_dropped_after_the_write_deadline() {
    // The default queue, a short write deadline.
    a_non_reading_agent_is_dropped(idle_after(Duration::from_millis(300))).await;
}

/// A browser whose extension speaks another native-link version (an
/// older release, which would ignore the follow-ups the daemon sends) is
/// closed at its hello, with no welcome, and never becomes the lane.
#[tokio::test]
async fn a_browser_speaking_another_native_version_is_closed_at_hello() {
    let d = Daemon::start().await;
    let mut s = UnixStream::connect(d.host_sock()).await.expect("connect");
    let hello = serde_json::to_vec(&cotab_shared::native::ExtensionToHost::Hello {
        protocol_version: cotab_shared::NATIVE_PROTOCOL_VERSION - 1,
        lane_id: cotab_shared::LaneId("lane-old".into()),
        extension_id: cotab_shared::EXTENSION_ID.into(),
        version: "0.0.1".into(),
    })
    .expect("json");
    let mut frame = (hello.len() as u32).to_ne_bytes().to_vec();
    frame.extend_from_slice(&hello);
    s.write_all(&frame).await.expect("write");
    let mut got = Vec::new();
    tokio::time::timeout(WAIT, s.read_to_end(&mut got))
        .await
        .expect("closed in time")
        .ok();
    assert!(
        got.is_empty(),
        "no welcome: {}",
        String::from_utf8_lossy(&got)
    );
    let status = d
        .agent()
        .await
        .call::<Status>(&Empty {})
        .await
        .expect("status");
    assert_eq!(status.lane, cotab_shared::controller::LaneState::Absent);
}

/// Issue 15: `"id": null` makes a request (JSON-RPC 2.0), answered with
/// `"id": null`; only a request without an `id` member is a notification.
#[tokio::test]
async fn a_request_with_a_null_id_is_answered_and_a_notification_is_not() {
    let d = Daemon::start().await;
    let mut c = d.agent().await;
    // The notification comes first: had it been answered, its answer
    // would be the first line read.
    let lines = r#"{"jsonrpc":"2.0","method":"session.hello","params":{"agent":"a","protocolVersion":1}}
{"jsonrpc":"2.0","id":null,"method":"session.hello","params":{"agent":"b","protocolVersion":1}}"#;
    let r = tokio::time::timeout(WAIT, c.call_raw(lines))
        .await
        .expect("the null-id request is answered")
        .expect("an answer");
    assert!(r["id"].is_null(), "{r}");
    assert!(r["result"]["ticket"].is_string(), "{r}");
    c.call::<Status>(&Empty {})
        .await
        .expect("the connection is still usable");
}

#[tokio::test]
async fn a_group_longer_than_an_agent_name_is_refused_and_opens_no_session() {
    let d = Daemon::start().await;
    let mut c = d.client().await;
    let long = "g".repeat(cotab_shared::limits::MAX_AGENT_NAME + 1);
    for group in [format!("\"{long}\""), "7".into(), "[\"g\"]".into()] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"session.hello","params":{{"agent":"a","protocolVersion":1,"group":{group}}}}}"#
        );
        let r = c.call_raw(&line).await.expect("an answer");
        assert_eq!(r["error"]["code"], -32602, "{r}");
        assert_eq!(r["error"]["data"]["kind"], "INVALID_REQUEST", "{r}");
        let message = r["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("group"), "{r}");
        assert!(!message.contains(&long), "the value is not echoed: {r}");
    }
    let r = c.call::<Status>(&Empty {}).await;
    assert_eq!(
        r.map(drop).map_err(|e| e.kind()),
        Err(Some(cotab_shared::ErrorKind::AuthenticationFailed)),
        "no session was opened"
    );
    let at_limit = "g".repeat(cotab_shared::limits::MAX_AGENT_NAME);
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"session.hello","params":{{"agent":"a","protocolVersion":1,"group":"{at_limit}"}}}}"#
    );
    let r = c.call_raw(&line).await.expect("an answer");
    assert!(
        r["result"]["ticket"].is_string(),
        "the limit itself is allowed: {r}"
    );
}

#[tokio::test]
async fn keeping_control_longer_than_the_limit_is_refused_and_opens_no_session() {
    let d = Daemon::start().await;
    let mut c = d.client().await;
    for keep in [
        format!("{}", cotab_shared::limits::MAX_KEEP_CONTROL_MS + 1),
        "-1".into(),
        "\"60000\"".into(),
    ] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"session.hello","params":{{"agent":"a","protocolVersion":1,"keepControlMs":{keep}}}}}"#
        );
        let r = c.call_raw(&line).await.expect("an answer");
        assert_eq!(r["error"]["code"], -32602, "{keep}: {r}");
        assert_eq!(r["error"]["data"]["kind"], "INVALID_REQUEST", "{keep}: {r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("keepControlMs")),
            "{keep}: {r}"
        );
    }
    let r = c.call::<Status>(&Empty {}).await;
    assert_eq!(
        r.map(drop).map_err(|e| e.kind()),
        Err(Some(cotab_shared::ErrorKind::AuthenticationFailed)),
        "no session was opened"
    );
    let line = r#"{"jsonrpc":"2.0","id":2,"method":"session.hello","params":{"agent":"a","protocolVersion":1,"keepControlMs":300000}}"#;
    let r = c.call_raw(line).await.expect("an answer");
    assert!(
        r["result"]["ticket"].is_string(),
        "the limit itself is allowed: {r}"
    );
}
