//! The side panel's watch of agent requests (issue 38): a connection on
//! `host.sock` that says `watch` is told each request as the person reads
//! it, never takes the lane, and hears nothing of what was typed.

use crate::harness::{Daemon, FakeExt, WAIT};
use cotab_local::codec::NativeCodec;
use cotab_shared::controller::LaneState;
use cotab_shared::controller::{
    Capture, CaptureParams, Click, ClickParams, Empty, Navigate, NavigateParams, Press,
    PressParams, Status, Type, TypeParams,
};
use cotab_shared::limits::{MAX_EXTENSION_TO_HOST, MAX_HOST_TO_EXTENSION};
use cotab_shared::watch::{ActivityEntry, WatchEvent, WatchHello, WatchSetting};
use cotab_shared::{TabId, NATIVE_PROTOCOL_VERSION};
use futures_util::{SinkExt as _, StreamExt as _};
use tokio::net::UnixStream;
use tokio_util::codec::Framed;

pub(crate) type Watch = Framed<UnixStream, NativeCodec>;

pub(crate) async fn watch(d: &Daemon) -> Watch {
    watch_at(&d.host_sock()).await
}

/// A watch on the daemon whose `host.sock` is `host`.
pub(crate) async fn watch_at(host: &std::path::Path) -> Watch {
    let stream = UnixStream::connect(host).await.expect("connect");
    let mut framed = Framed::new(
        stream,
        NativeCodec::new(MAX_HOST_TO_EXTENSION, MAX_EXTENSION_TO_HOST),
    );
    let hello = WatchHello::Watch {
        protocol_version: NATIVE_PROTOCOL_VERSION,
    };
    framed
        .send(serde_json::to_vec(&hello).expect("json"))
        .await
        .expect("send");
    framed
}

pub(crate) async fn next(w: &mut Watch) -> WatchEvent {
    let frame = tokio::time::timeout(WAIT, w.next())
        .await
        .expect("in time")
        .expect("a frame")
        .expect("readable");
    serde_json::from_slice(&frame).expect("a watch event")
}

/// The next entry that ended.
async fn ended(w: &mut Watch) -> ActivityEntry {
    loop {
        let event = next(w).await;
        if let (false, Some(entry)) = (event.recent, event.entries.into_iter().next()) {
            if entry.outcome.is_some() {
                return entry;
            }
        }
    }
}

#[tokio::test]
async fn a_watch_is_told_each_request_in_the_persons_terms() {
    let d = Daemon::start().await;
    let (_ext, mut agent) = d.controlling_tab_7().await;
    agent
        .call::<Press>(&PressParams {
            key: "Enter".into(),
            modifiers: vec![],
            expect: None,
        })
        .await
        .expect("press");
    let mut w = watch(&d).await;
    // First the recent requests: the press, ended.
    let first = next(&mut w).await;
    assert!(first.recent, "the recent requests first");
    let entries = first.entries;
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0].what, "press Enter");
    assert_eq!(entries[0].agent, "test-agent");
    assert_eq!(entries[0].tab, Some(TabId(7)));
    assert_eq!(entries[0].outcome.as_deref(), Some("ok"));
    // Then each as it begins and ends; typed text never shows.
    agent
        .call::<Type>(&TypeParams {
            text: "s3cret-password".into(),
            element: None,
            clear: false,
            submit: false,
            expect: None,
        })
        .await
        .expect("type");
    let typed = ended(&mut w).await;
    assert_eq!(typed.what, "type 15 characters");
    let frame = serde_json::to_string(&typed).expect("json");
    assert!(!frame.contains("s3cret"), "{frame}");
    // A refused request ends with its kind; a url shows without its query.
    let _ = agent
        .call::<Navigate>(&NavigateParams::to("file:///etc/passwd?x=1"))
        .await;
    let refused = ended(&mut w).await;
    assert_eq!(refused.outcome.as_deref(), Some("BLOCKED_TARGET"));
    assert_eq!(refused.what, "go to file:///etc/passwd");
    // The watch never took the lane.
    let status = agent.call::<Status>(&Empty {}).await.expect("status");
    assert_eq!(status.lane, LaneState::Online);
}

/// Issue 38: the person turns the drawing of what agents aim at off from
/// the side panel: no more drawings, every watch is told, and the choice
/// is kept for the next daemon.
#[tokio::test]
async fn the_person_turns_the_drawings_off_and_the_choice_is_kept() {
    let d = Daemon::start().await;
    let (mut ext, mut agent) = d.controlling_tab_7().await;
    let click = ClickParams::at(5.0, 5.0);
    capture(&mut agent).await;
    agent.call::<Click>(&click).await.expect("click");
    drawn(&mut ext, true).await;
    let mut panel = watch(&d).await;
    let first = next(&mut panel).await;
    assert_eq!(first.agent_pointer, Some(true));
    let mut other = watch(&d).await;
    next(&mut other).await;
    let off = serde_json::to_vec(&WatchSetting {
        agent_pointer: false,
    })
    .expect("json");
    panel.send(off).await.expect("send");
    // Every watch hears of it.
    loop {
        if next(&mut other).await.agent_pointer == Some(false) {
            break;
        }
    }
    capture(&mut agent).await;
    agent.call::<Click>(&click).await.expect("click");
    drawn(&mut ext, false).await;
    // Kept: the file in the daemon's state directory says so.
    let kept =
        std::fs::read_to_string(d.dir.path().join("state").join("settings.json")).expect("kept");
    assert_eq!(kept, r#"{"agentPointer":false}"#);
}

/// A capture, for clicks at a point.
pub(crate) async fn capture(agent: &mut cotab_host::client::Client) {
    agent
        .call::<Capture>(&CaptureParams::default())
        .await
        .expect("capture");
}

/// Whether the click just made was drawn: the next commands up to the
/// click's settle probe hold an `Overlay.highlightQuad` or not.
async fn drawn(ext: &mut FakeExt, want: bool) {
    let mut seen = false;
    loop {
        let cmd =
            tokio::time::timeout(std::time::Duration::from_millis(500), ext.received.recv()).await;
        match cmd {
            Ok(Some(command)) => {
                seen |= command.name() == "Overlay.highlightQuad";
            }
            Ok(None) | Err(_) => break,
        }
    }
    assert_eq!(seen, want);
}
