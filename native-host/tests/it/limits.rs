//! Admission limits over the sockets: requests past the per-connection or
//! the daemon-wide in-flight limit get `BUSY` at once, the others run to
//! completion and are answered exactly once, and every permit comes back.
//!
//! The fake extension holds every `Input.insertText` answer until the test
//! releases it, so the requests stay in flight as long as the test wants.

use crate::harness::{tab, Daemon, FakeExt, Script, WAIT};
use cotab_host::client::Client;
use cotab_shared::controller::{Acquire, Empty, SelectParams, TabsSelect};
use cotab_shared::limits::{MAX_IN_FLIGHT_PER_CONNECTION, MAX_IN_FLIGHT_TOTAL};
use cotab_shared::TabId;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::sync::Semaphore;

/// The CDP method the fake extension holds (what `input.type` sends).
const HELD: &str = "Input.insertText";

/// A fake extension sharing tabs `1..=tabs` whose `Input.insertText`
/// answers wait for the returned semaphore's permits.
fn holding(tabs: i32) -> (Script, Arc<Semaphore>) {
    let gate = Arc::new(Semaphore::new(0));
    let script = Script {
        tabs: (1..=tabs).map(tab).collect(),
        held: [(HELD.to_string(), gate.clone())].into(),
        ..Script::default()
    };
    (script, gate)
}

/// A session on its own connection that selected `tab_id` and holds its
/// lease.
pub(crate) async fn controller(d: &Daemon, tab_id: i32) -> Client {
    let mut c = d.agent().await;
    c.call::<TabsSelect>(&SelectParams {
        tab_id: TabId(tab_id),
    })
    .await
    .expect("select");
    c.call::<Acquire>(&Empty {}).await.expect("acquire");
    c
}

/// Sends one `input.type` per id, without waiting.
async fn send_types(c: &mut Client, ids: impl IntoIterator<Item = i64>) {
    for id in ids {
        c.send_raw(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"input.type","params":{{"text":"x"}}}}"#
        ))
        .await
        .expect("sent");
    }
}

/// Waits until the fake extension has received `n` more held commands.
async fn held_arrive(ext: &mut FakeExt, n: usize) {
    for _ in 0..n {
        ext.next_cdp(HELD).await;
    }
}

/// Reads until a response for each of `ids` arrived; a second response for
/// an id, or a response for any other id, fails the test.
async fn responses(c: &mut Client, ids: impl IntoIterator<Item = i64>) -> BTreeMap<i64, Value> {
    let want: Vec<i64> = ids.into_iter().collect();
    let mut got = BTreeMap::new();
    while got.len() < want.len() {
        let msg = tokio::time::timeout(WAIT, c.next_message())
            .await
            .expect("a response in time")
            .expect("a message");
        let Some(id) = msg.get("id").and_then(Value::as_i64) else {
            continue;
        };
        assert!(want.contains(&id), "unexpected response {msg}");
        assert!(
            got.insert(id, msg.clone()).is_none(),
            "answered twice: {msg}"
        );
    }
    got
}

fn assert_all_ok(answers: &BTreeMap<i64, Value>) {
    for (id, r) in answers {
        assert_eq!(r["result"], json!({}), "request {id}: {r}");
    }
}

fn assert_all_busy(answers: &BTreeMap<i64, Value>) {
    for (id, r) in answers {
        assert_eq!(r["error"]["data"]["kind"], "BUSY", "request {id}: {r}");
    }
}

#[tokio::test]
async fn the_request_past_the_connection_limit_is_busy_and_the_others_complete() {
    let d = Daemon::start().await;
    let (script, gate) = holding(1);
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut a = controller(&d, 1).await;
    let n = MAX_IN_FLIGHT_PER_CONNECTION;
    let last = n as i64 + 1;
    send_types(&mut a, 1..=last).await;
    held_arrive(&mut ext, n).await;
    // The one past the limit is answered while all the others are held;
    // `responses` fails on any other answer meanwhile.
    assert_all_busy(&responses(&mut a, [last]).await);

    gate.add_permits(n);
    assert_all_ok(&responses(&mut a, 1..last).await);

    // Every permit came back: a whole window runs at once again.
    send_types(&mut a, 101..=100 + n as i64).await;
    held_arrive(&mut ext, n).await;
    gate.add_permits(n);
    assert_all_ok(&responses(&mut a, 101..=100 + n as i64).await);
}

#[tokio::test]
async fn requests_past_the_daemon_limit_are_busy_across_connections() {
    let d = Daemon::start().await;
    // Enough connections, each under its own limit, to pass the daemon's.
    let conns = MAX_IN_FLIGHT_TOTAL / MAX_IN_FLIGHT_PER_CONNECTION + 1;
    let per = MAX_IN_FLIGHT_TOTAL / conns + 2;
    assert!(per <= MAX_IN_FLIGHT_PER_CONNECTION && conns * per > MAX_IN_FLIGHT_TOTAL);
    let (script, gate) = holding(conns as i32);
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut agents = Vec::new();
    for t in 1..=conns {
        agents.push(controller(&d, t as i32).await);
    }

    // One connection at a time, each batch in flight before the next, so
    // exactly the requests past the limit (in sending order) are refused.
    let mut admitted: Vec<Vec<i64>> = Vec::new();
    let mut busy: Vec<Vec<i64>> = Vec::new();
    let mut in_flight = 0;
    for (c, agent) in agents.iter_mut().enumerate() {
        let ids: Vec<i64> = (0..per).map(|k| (c * 100 + k) as i64).collect();
        let room = (MAX_IN_FLIGHT_TOTAL - in_flight).min(per);
        send_types(agent, ids.iter().copied()).await;
        held_arrive(&mut ext, room).await;
        in_flight += room;
        admitted.push(ids[..room].to_vec());
        busy.push(ids[room..].to_vec());
    }
    assert_eq!(in_flight, MAX_IN_FLIGHT_TOTAL);
    let refused: usize = busy.iter().map(Vec::len).sum();
    assert_eq!(refused, conns * per - MAX_IN_FLIGHT_TOTAL);
    for (agent, ids) in agents.iter_mut().zip(&busy) {
        assert_all_busy(&responses(agent, ids.iter().copied()).await);
    }

    gate.add_permits(MAX_IN_FLIGHT_TOTAL);
    for (agent, ids) in agents.iter_mut().zip(&admitted) {
        assert_all_ok(&responses(agent, ids.iter().copied()).await);
    }

    // No permit leaked: the whole daemon-wide window fills again, and the
    // next request past it is refused.
    let full = MAX_IN_FLIGHT_TOTAL / MAX_IN_FLIGHT_PER_CONNECTION;
    for (c, agent) in agents.iter_mut().take(full).enumerate() {
        let ids = (0..MAX_IN_FLIGHT_PER_CONNECTION).map(|k| (1000 + c * 100 + k) as i64);
        send_types(agent, ids).await;
        held_arrive(&mut ext, MAX_IN_FLIGHT_PER_CONNECTION).await;
    }
    let extra = &mut agents[full];
    send_types(extra, [9999]).await;
    assert_all_busy(&responses(extra, [9999]).await);
    gate.add_permits(MAX_IN_FLIGHT_TOTAL);
    for (c, agent) in agents.iter_mut().take(full).enumerate() {
        let ids = (0..MAX_IN_FLIGHT_PER_CONNECTION).map(|k| (1000 + c * 100 + k) as i64);
        assert_all_ok(&responses(agent, ids).await);
    }
}
