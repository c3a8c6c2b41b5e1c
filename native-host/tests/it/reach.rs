//! What agents may reach, as the daemon enforces it (issue 15): a tab the
//! extension reports on a blocked page is suspended — its lease revoked,
//! every request refused `BLOCKED_TARGET` before anything is sent, its url
//! hidden — until it shows a web page again; raw CDP that reaches beyond
//! the tab is refused before it is sent.

use crate::harness::{notification, tab, Daemon, FakeExt, Script};
use cotab_host::client::Client;
use cotab_shared::controller::{
    Acquire, Capture, CaptureParams, CdpSend, CdpSendParams, Empty, Navigate, NavigateParams,
    SelectParams, TabsList, TabsSelect,
};
use cotab_shared::native::{Command, Event, SharedTabs, TabInfo};
use cotab_shared::reach::Blocked;
use cotab_shared::{ErrorKind, TabId};
use serde_json::json;

/// An agent that selected tab 1 and holds its lease.
async fn controller(d: &Daemon) -> Client {
    let mut a = d.agent().await;
    a.call::<TabsSelect>(&SelectParams { tab_id: TabId(1) })
        .await
        .expect("select");
    a.call::<Acquire>(&Empty {}).await.expect("acquire");
    a
}

fn blocked(id: i32, why: Blocked) -> TabInfo {
    TabInfo {
        url: String::new(),
        title: String::new(),
        blocked: Some(why),
        ..tab(id)
    }
}

/// The extension of one tab with developer mode on, and an agent that
/// controls the tab; what the extension was asked until then is dropped.
async fn developer_mode_on(d: &Daemon) -> (FakeExt, Client) {
    let mut ext = FakeExt::connect(
        &d.host_sock(),
        Script::one_tab(1, std::sync::Arc::new(|_, _, _| None)),
    )
    .await;
    let mut a = controller(d).await;
    ext.event(Event::DeveloperMode { enabled: true });
    notification(&mut a, "developerMode.changed").await;
    while let Ok(c) = ext.received.try_recv() {
        drop(c);
    }
    (ext, a)
}

/// The next command the extension received, skipping only the daemon's
/// own holding of the tab's navigations (`Fetch.*`, which ends with the
/// lease): the test sends a `tabs.list` after the refused requests, so a
/// request that did reach the extension would come first.
async fn next_is_list_shared(ext: &mut FakeExt, a: &mut Client) {
    a.call::<TabsList>(&Empty {}).await.expect("tabs.list");
    loop {
        match ext.next_command().await {
            Command::ListShared => return,
            c if c.call().is_some_and(|c| c.method.starts_with("Fetch.")) => {}
            other => panic!("a refused request reached the extension: {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_tab_on_a_blocked_page_is_suspended_until_it_shows_a_web_page_again() {
    let d = Daemon::start().await;
    let mut ext = FakeExt::connect(
        &d.host_sock(),
        Script {
            tabs: vec![tab(1), tab(2)],
            ..Script::default()
        },
    )
    .await;
    let mut a = controller(&d).await;
    a.call::<Capture>(&CaptureParams::default())
        .await
        .expect("a capture before");
    while let Ok(c) = ext.received.try_recv() {
        drop(c);
    }

    ext.event(Event::Shared(SharedTabs {
        tabs: vec![blocked(1, Blocked::LocalFile), tab(2)],
    }));
    let n = notification(&mut a, "control.revoked").await;
    assert_eq!(n, json!({"tabId": 1, "reason": "blockedTarget"}));

    let err = a
        .call::<Capture>(&CaptureParams::default())
        .await
        .expect_err("suspended");
    assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget), "{err}");
    assert!(err.to_string().contains("local file"), "{err}");
    let err = a
        .call::<Navigate>(&NavigateParams {
            url: Some("https://example.org/".into()),
            ..NavigateParams::default()
        })
        .await
        .expect_err("suspended");
    assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget), "{err}");
    let err = a.call::<Acquire>(&Empty {}).await.expect_err("suspended");
    assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget), "{err}");
    next_is_list_shared(&mut ext, &mut a).await;

    // tabs.list asks the extension, which says the same.
    let list = a.call::<TabsList>(&Empty {}).await.expect("tabs.list");
    let one = list.tabs.iter().find(|t| t.id == TabId(1)).expect("listed");
    assert_eq!(one.blocked, Some(Blocked::LocalFile));
    assert_eq!((one.url.as_str(), one.title.as_str()), ("", ""));

    // Back on a web page: observing works, acting after an acquire.
    ext.event(Event::Shared(SharedTabs {
        tabs: vec![tab(1), tab(2)],
    }));
    notification(&mut a, "tab.updated").await;
    a.call::<Capture>(&CaptureParams::default())
        .await
        .expect("a capture after");
    a.call::<Acquire>(&Empty {}).await.expect("acquire again");
}

#[tokio::test]
async fn raw_cdp_beyond_the_tab_and_blocked_navigations_are_refused_before_they_are_sent() {
    let d = Daemon::start().await;
    let (mut ext, mut a) = developer_mode_on(&d).await;
    for (method, params) in [
        (
            "Target.createTarget",
            json!({"url": "https://example.org/"}),
        ),
        ("Target.attachToTarget", json!({"targetId": "T"})),
        ("Browser.getVersion", json!({})),
        ("Storage.getCookies", json!({})),
        ("Page.navigate", json!({"url": "file:///etc/passwd"})),
        (
            "Page.navigate",
            json!({"url": "chrome-extension://njcapokbkdmpnkpmgflbgjlehbglmgck/popup.html"}),
        ),
        (
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": "1"}),
        ),
        (
            "DOM.setFileInputFiles",
            json!({"files": ["/etc/passwd"], "nodeId": 1}),
        ),
        ("Network.getAllCookies", json!({})),
        (
            "Page.setDownloadBehavior",
            json!({"behavior": "allow", "downloadPath": "/tmp"}),
        ),
    ] {
        let err = a
            .call::<CdpSend>(&CdpSendParams {
                session_id: None,
                method: method.into(),
                params: Some(params),
            })
            .await
            .expect_err(method);
        assert_eq!(
            err.kind(),
            Some(ErrorKind::BlockedTarget),
            "{method}: {err}"
        );
        assert!(!err.to_string().contains("passwd"), "{err}");
    }
    let err = a
        .call::<Navigate>(&NavigateParams {
            url: Some("https://chromewebstore.google.com/detail/x".into()),
            ..NavigateParams::default()
        })
        .await
        .expect_err("the web store");
    assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget), "{err}");
    next_is_list_shared(&mut ext, &mut a).await;
}

/// Raw CDP for a child session of the tab (a frame in another process, a
/// dedicated worker): its id is checked, input and the tab's exceptions
/// are refused before anything is sent, and what passes goes to the
/// extension naming the child, its redaction scan too.
#[tokio::test]
async fn raw_cdp_for_a_child_session_goes_there_under_the_tabs_rules() {
    let d = Daemon::start().await;
    let (mut ext, mut a) = developer_mode_on(&d).await;
    let send = |method: &str, params: serde_json::Value, session: Option<&str>| CdpSendParams {
        method: method.into(),
        params: Some(params),
        session_id: session.map(str::to_owned),
    };
    let child = Some("3D541C72A1AB10AD29DDE2615DC55CEF");
    let refused = [
        send(
            "Input.dispatchKeyEvent",
            json!({"type": "keyDown", "key": "a"}),
            child,
        ),
        send("Network.getAllCookies", json!({}), child),
        send("Target.attachToTarget", json!({"targetId": "T"}), child),
        // Every kind of target, paused: Playwright's own form.
        send(
            "Target.setAutoAttach",
            json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}),
            None,
        ),
        send(
            "Target.setAutoAttach",
            json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true,
                   "filter": [{"type": "service_worker"}, {"type": "worker"}]}),
            child,
        ),
    ];
    for p in refused {
        let err = a.call::<CdpSend>(&p).await.expect_err(&p.method);
        assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget), "{p:?}: {err}");
    }
    let long = "A".repeat(65);
    for bad in ["", "a/b", "x y", long.as_str()] {
        let err = a
            .call::<CdpSend>(&send("DOM.getDocument", json!({}), Some(bad)))
            .await
            .expect_err(bad);
        assert_eq!(
            err.kind(),
            Some(ErrorKind::InvalidRequest),
            "{bad:?}: {err}"
        );
    }
    next_is_list_shared(&mut ext, &mut a).await;
    // Allowed: the command and its scan go to the child.
    let frames_and_workers = json!({"autoAttach": true, "waitForDebuggerOnStart": false,
        "flatten": true, "filter": [{"type": "iframe"}, {"type": "worker"}]});
    a.call::<CdpSend>(&send("Target.setAutoAttach", frames_and_workers, None))
        .await
        .expect("auto-attach to frames and workers");
    match ext.next_command().await {
        Command::Developer { call, session, .. } => {
            assert_eq!(
                (call.method.as_str(), session),
                ("Target.setAutoAttach", None)
            )
        }
        other => panic!("{other:?}"),
    }
    let evaluate = send(
        "Runtime.evaluate",
        json!({"expression": "document.title"}),
        child,
    );
    let call = a.call::<CdpSend>(&evaluate);
    let (_, seen) = tokio::join!(call, ext.next_command());
    match seen {
        Command::Developer {
            call,
            session,
            scan,
        } => {
            assert_eq!(call.method, "Runtime.evaluate");
            assert_eq!(
                session.as_deref(),
                child,
                "the command and its scan go there"
            );
            assert!(scan.is_some(), "the redaction scan rides along");
        }
        other => panic!("{other:?}"),
    }
}
