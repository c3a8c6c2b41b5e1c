//! `cdp.events`: a session gets every CDP event of its selected tab while
//! developer mode is on, and nothing of other tabs, of another session's
//! tab, after it selects another tab, or once developer mode turns off.

use crate::harness::{notification, tab, Daemon, FakeExt, Script, WAIT};
use crate::limits::controller;
use cotab_host::client::Client;
use cotab_shared::controller::{CdpEvents, CdpEventsParams, SelectParams, TabsSelect};
use cotab_shared::native::{Command, Event};
use cotab_shared::{ErrorKind, TabId};
use serde_json::{json, Value};

fn page_event(tab: i32, method: &str, n: i64) -> Event {
    Event::Cdp {
        session: None,
        tab_id: TabId(tab),
        method: method.into(),
        params: json!({"n": n}),
    }
}

/// The next `cdp.event`, or `None` if none comes within a short while.
async fn next_event(c: &mut Client) -> Option<Value> {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_millis(300);
    loop {
        let msg = tokio::time::timeout_at(deadline, c.next_message())
            .await
            .ok()?;
        let msg = msg.expect("message");
        if msg["method"] == "cdp.event" {
            return Some(msg["params"].clone());
        }
    }
}

#[tokio::test]
async fn a_session_gets_its_tabs_events_while_developer_mode_holds() {
    let d = Daemon::start().await;
    let script = Script {
        tabs: vec![tab(7), tab(8)],
        ..Script::default()
    };
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut a = controller(&d, 7).await;
    let mut b = controller(&d, 8).await;
    let on = CdpEventsParams { enabled: true };

    // Raw CDP: refused with developer mode off, nothing asked of the
    // extension.
    let refused = a
        .call::<CdpEvents>(&on)
        .await
        .expect_err("developer mode is off");
    assert_eq!(refused.kind(), Some(ErrorKind::DeveloperModeOff));

    ext.event(Event::DeveloperMode { enabled: true });
    notification(&mut a, "developerMode.changed").await;
    a.call::<CdpEvents>(&on).await.expect("cdp.events");
    loop {
        if let Command::ForwardEvents { tab_id, all } = ext.next_command().await {
            assert_eq!((tab_id, all), (TabId(7), true));
            break;
        }
    }

    // Its tab's events, any method, as the browser sent them; not the
    // other tab's, and not to the session that did not ask.
    ext.event(page_event(8, "Page.frameAttached", 1));
    ext.event(page_event(7, "Network.dataReceived", 2));
    let got = tokio::time::timeout(WAIT, next_event(&mut a))
        .await
        .expect("in time")
        .expect("an event");
    assert_eq!(
        got,
        json!({"tabId": 7, "method": "Network.dataReceived", "params": {"n": 2}})
    );
    assert_eq!(next_event(&mut b).await, None, "b did not ask");
    // Redacted as a developer-mode result is.
    ext.event(Event::Cdp {
        session: None,
        tab_id: TabId(7),
        method: "Network.requestWillBeSent".into(),
        params: json!({"request": {"headers": {"Cookie": "sid=CanaryCookie1234", "Accept": "*/*"}}}),
    });
    let got = next_event(&mut a).await.expect("an event");
    assert_eq!(
        got["params"],
        json!({"request": {"headers": {"Cookie": cotab_host::redact::REDACTED, "Accept": "*/*"}}})
    );

    // Developer mode off ends it, and on again does not bring it back.
    ext.event(Event::DeveloperMode { enabled: false });
    notification(&mut a, "developerMode.changed").await;
    ext.event(Event::DeveloperMode { enabled: true });
    notification(&mut a, "developerMode.changed").await;
    ext.event(page_event(7, "Page.frameAttached", 3));
    assert_eq!(next_event(&mut a).await, None, "ended with developer mode");

    // Asked again, it holds until the session selects another tab.
    a.call::<CdpEvents>(&on).await.expect("cdp.events");
    ext.event(page_event(7, "Page.frameAttached", 4));
    assert_eq!(
        next_event(&mut a).await.map(|e| e["params"]["n"].clone()),
        Some(json!(4))
    );
    a.call::<TabsSelect>(&SelectParams { tab_id: TabId(8) })
        .await
        .expect("select");
    ext.event(page_event(7, "Page.frameAttached", 5));
    ext.event(page_event(8, "Page.frameAttached", 6));
    assert_eq!(next_event(&mut a).await, None, "ended with the selection");

    // Turned off by the session itself.
    b.call::<CdpEvents>(&on).await.expect("cdp.events");
    b.call::<CdpEvents>(&CdpEventsParams { enabled: false })
        .await
        .expect("off");
    ext.event(page_event(8, "Page.frameAttached", 7));
    assert_eq!(next_event(&mut b).await, None, "turned off");
}
