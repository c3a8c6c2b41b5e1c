//! What a shared tab asks the person's yes before (issue 40): a request
//! of that kind waits, with nothing of it sent to the browser, until the
//! person approves it on the side panel's watch; a no, no answer, a
//! takeover or the agent's going refuses it.

use crate::harness::{tab, Daemon, FakeExt, Reply, Script, APPROVAL_WAIT};
use crate::watch::{capture, next, watch, Watch};
use cotab_host::client::{Client, ClientError};
use cotab_shared::controller::{
    Acquire, Click, ClickParams, Console, ConsoleParams, DropOn, DropParams, Empty, Ref,
    SelectParams, TabsSelect, Type, TypeParams,
};
use cotab_shared::native::{Command, CommandClass, Event, Holder, SharedTabs, TabControl, TabInfo};
use cotab_shared::watch::{AskBefore, Mark, PendingApproval};
use cotab_shared::{ErrorKind, TabId};
use futures_util::SinkExt as _;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const T: i32 = 7;

async fn send(w: &mut Watch, message: Value) {
    w.send(serde_json::to_vec(&message).expect("json"))
        .await
        .expect("send");
}

/// The person answers request `id`.
async fn answer(w: &mut Watch, id: u64, approve: bool) {
    send(w, json!({"approval": {"id": id, "approve": approve}})).await;
}

/// The requests waiting once the watch says they changed to satisfy `f`.
async fn approvals_until(
    w: &mut Watch,
    f: impl Fn(&[PendingApproval]) -> bool,
) -> Vec<PendingApproval> {
    loop {
        if let Some(a) = next(w).await.approvals {
            if f(&a) {
                return a;
            }
        }
    }
}

/// Turns asking before `what` in tab 7 on, and waits for the watch to
/// say so.
async fn ask_before(w: &mut Watch, what: &str) {
    send(
        w,
        json!({"tabAskBefore": {"tab": T, "what": what, "on": true}}),
    )
    .await;
    loop {
        if let Some(scopes) = next(w).await.scopes {
            let asks = &scopes
                .iter()
                .find(|s| s.tab == TabId(T))
                .expect("tab 7")
                .ask_before;
            if asks.iter().any(|a| a.as_str() == what) {
                return;
            }
        }
    }
}

/// Whether anything that acts on the page reached the browser so far.
fn acted(ext: &mut FakeExt) -> bool {
    let mut acted = false;
    while let Ok(cmd) = ext.received.try_recv() {
        let method = cmd.call().map(|c| c.method.clone()).unwrap_or_default();
        if matches!(cmd, Command::Input { .. })
            || (cmd.class() == Some(CommandClass::Act) && !method.starts_with("Overlay."))
        {
            acted = true;
        }
    }
    acted
}

/// Runs method `$m` with `$p` on agent `$a` in a task of its own,
/// handing the agent back with the result.
macro_rules! spawn_call {
    ($a:expr, $m:ty, $p:expr) => {{
        let mut a = $a;
        let p = $p;
        tokio::spawn(async move {
            let r = a.call::<$m>(&p).await;
            (a, r)
        })
    }};
}

fn kind<T: std::fmt::Debug>(r: &Result<T, ClientError>) -> ErrorKind {
    match r {
        Err(ClientError::Rpc(e)) => e.kind(),
        other => panic!("an error answer, not {other:?}"),
    }
}

/// The daemon, the extension sharing tab 7, an agent holding it and the
/// person's watch past its first event.
async fn start(script: Script) -> (Daemon, FakeExt, Client, Watch) {
    let d = Daemon::start().await;
    let ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut a = d.agent().await;
    a.call::<TabsSelect>(&SelectParams { tab_id: TabId(T) })
        .await
        .expect("select");
    a.call::<Acquire>(&Empty {}).await.expect("acquire");
    let mut w = watch(&d).await;
    assert!(next(&mut w).await.recent);
    (d, ext, a, w)
}

#[tokio::test]
async fn every_action_waits_for_the_persons_yes_and_a_no_sends_nothing() {
    let (_d, mut ext, mut a, mut w) = start(Script {
        tabs: vec![tab(T)],
        ..Script::default()
    })
    .await;
    ask_before(&mut w, "step").await;
    // A read goes without asking.
    a.call::<Console>(&ConsoleParams::default())
        .await
        .expect("console");
    capture(&mut a).await;
    acted(&mut ext);
    let mut told = a.forward_notifications();

    let task = spawn_call!(a, Click, ClickParams::at(10.0, 10.0));
    let waiting = approvals_until(&mut w, |a| !a.is_empty()).await;
    let p = &waiting[0];
    assert_eq!((p.tab, p.ask), (Some(TabId(T)), AskBefore::Step));
    assert_eq!(p.agent, "test-agent");
    assert!(p.what.starts_with("click"), "{}", p.what);
    assert!(p.left_ms > 0 && p.left_ms <= APPROVAL_WAIT.as_millis() as u64);
    // Then with a picture of the tab, the point marked in its CSS pixels
    // (image pixels of a capture at 2 device pixels per CSS pixel).
    let waiting = approvals_until(&mut w, |a| a.iter().any(|p| p.frame.is_some())).await;
    let frame = waiting[0].frame.as_ref().expect("a picture");
    assert_eq!((frame.width, frame.height), (50, 25));
    let point = Mark {
        x: 5,
        y: 5,
        width: 0,
        height: 0,
    };
    assert_eq!(frame.mark, Some(point));
    assert!(!frame.jpeg.is_empty());
    assert!(!acted(&mut ext), "nothing reaches the page before the yes");
    // The extension is told, for its badge.
    let waits = |on: bool| {
        move |c: &[TabControl]| {
            c.iter().any(|c| {
                c.tab_id == TabId(T)
                    && matches!(&c.holder, Holder::Agent { waiting, .. } if *waiting == on)
            })
        }
    };
    ext.controllers_until(waits(true)).await;
    send(&mut w, json!({"approval": {"id": p.id, "approve": true}})).await;
    let (mut a, r) = task.await.expect("task");
    r.expect("approved, the click runs");
    assert!(acted(&mut ext), "the click reached the page");
    ext.controllers_until(waits(false)).await;
    let pending = loop {
        let msg = told.recv().await.expect("a notification");
        if msg["method"] == "approval.pending" {
            break msg["params"].clone();
        }
    };
    assert_eq!(pending["tabId"], T);
    assert_eq!(pending["ask"], "step");
    assert!(pending["what"]
        .as_str()
        .is_some_and(|w| w.starts_with("click")));
    approvals_until(&mut w, <[_]>::is_empty).await;

    // A no: refused, and nothing sent.
    capture(&mut a).await;
    acted(&mut ext);
    let task = spawn_call!(a, Click, ClickParams::at(10.0, 10.0));
    let waiting = approvals_until(&mut w, |a| !a.is_empty()).await;
    answer(&mut w, waiting[0].id, false).await;
    let (mut a, r) = task.await.expect("task");
    assert_eq!(kind(&r), ErrorKind::DeniedByPerson);
    assert!(!acted(&mut ext), "a no sends nothing");
    // An answer to a request no longer waiting changes nothing: the watch
    // is told the requests as they are.
    answer(&mut w, waiting[0].id, true).await;
    assert!(approvals_until(&mut w, |_| true).await.is_empty());
    // The person turns it off: actions go again without asking.
    send(
        &mut w,
        json!({"tabAskBefore": {"tab": T, "what": "step", "on": false}}),
    )
    .await;
    loop {
        if let Some(scopes) = next(&mut w).await.scopes {
            if scopes[0].ask_before.is_empty() {
                break;
            }
        }
    }
    capture(&mut a).await;
    a.call::<Click>(&ClickParams::at(10.0, 10.0))
        .await
        .expect("not asked");
}

#[tokio::test]
async fn an_approval_never_outlives_its_lease_its_wait_or_its_agent() {
    let (_d, mut ext, a, mut w) = start(Script {
        tabs: vec![tab(T)],
        ..Script::default()
    })
    .await;
    ask_before(&mut w, "step").await;
    // The person takes the tab: the request is refused as any request is.
    let task = spawn_call!(a, Click, ClickParams::at(10.0, 10.0));
    let waiting = approvals_until(&mut w, |a| !a.is_empty()).await;
    let human = |on: bool| TabInfo {
        human_control: on,
        ..tab(T)
    };
    ext.event(Event::Shared(SharedTabs {
        tabs: vec![human(true)],
    }));
    let (mut a, r) = task.await.expect("task");
    assert_eq!(kind(&r), ErrorKind::HumanHasControl);
    approvals_until(&mut w, <[_]>::is_empty).await;
    // A late yes to it changes nothing.
    answer(&mut w, waiting[0].id, true).await;
    assert!(approvals_until(&mut w, |_| true).await.is_empty());
    assert!(!acted(&mut ext));

    // Nobody answers: refused when its wait runs out.
    ext.event(Event::Shared(SharedTabs {
        tabs: vec![human(false)],
    }));
    ext.controllers_until(|c| {
        c.iter().all(|c| {
            c.tab_id != TabId(T) || !matches!(c.holder, cotab_shared::native::Holder::Human)
        })
    })
    .await;
    a.call::<Acquire>(&Empty {}).await.expect("acquire again");
    let started = std::time::Instant::now();
    let r = a.call::<Click>(&ClickParams::at(10.0, 10.0)).await;
    assert_eq!(kind(&r), ErrorKind::DeniedByPerson);
    assert!(started.elapsed() >= APPROVAL_WAIT - Duration::from_millis(100));
    if let Err(ClientError::Rpc(e)) = &r {
        assert!(e.message.contains("did not answer"), "{}", e.message);
    }
    assert!(!acted(&mut ext));

    // The agent goes while it waits: the person is no longer asked.
    let task = spawn_call!(a, Click, ClickParams::at(10.0, 10.0));
    approvals_until(&mut w, |a| !a.is_empty()).await;
    task.abort();
    approvals_until(&mut w, <[_]>::is_empty).await;
}

#[tokio::test]
async fn a_browser_that_goes_while_a_request_waits_refuses_it_at_once() {
    let (_d, ext, a, mut w) = start(Script {
        tabs: vec![tab(T)],
        ..Script::default()
    })
    .await;
    ask_before(&mut w, "step").await;
    let started = std::time::Instant::now();
    let task = spawn_call!(a, Click, ClickParams::at(10.0, 10.0));
    approvals_until(&mut w, |a| !a.is_empty()).await;
    ext.disconnect();
    let (_a, r) = task.await.expect("task");
    assert_ne!(kind(&r), ErrorKind::DeniedByPerson, "not left to its wait");
    assert!(started.elapsed() < APPROVAL_WAIT, "{:?}", started.elapsed());
    approvals_until(&mut w, <[_]>::is_empty).await;
}

#[tokio::test]
async fn files_and_passwords_are_asked_for_only_where_they_go() {
    // The focus is in a password field while this is set.
    let secret = Arc::new(AtomicBool::new(true));
    let responder = {
        let secret = secret.clone();
        Arc::new(move |_tab: TabId, method: &str, params: &Value| {
            let reads_focus = method == "Runtime.evaluate"
                && params["expression"]
                    .as_str()
                    .is_some_and(|e| e.contains("activeElement"));
            reads_focus.then(|| {
                let value = secret.load(Ordering::SeqCst);
                Reply::Ok(
                    json!({"result": {"type": "boolean", "value": value}}),
                    Vec::new(),
                )
            })
        })
    };
    let (_d, mut ext, a, mut w) = start(Script::one_tab(T, responder)).await;
    ask_before(&mut w, "password").await;
    ask_before(&mut w, "files").await;
    let task = spawn_call!(
        a,
        Type,
        TypeParams {
            text: "hunter2".into(),
            ..TypeParams::default()
        }
    );
    let waiting = approvals_until(&mut w, |a| !a.is_empty()).await;
    assert_eq!(waiting[0].ask, AskBefore::Password);
    assert_eq!(waiting[0].text.as_deref(), Some("•••••••"), "masked");
    answer(&mut w, waiting[0].id, false).await;
    let (mut a, r) = task.await.expect("task");
    assert_eq!(kind(&r), ErrorKind::DeniedByPerson);
    assert!(!acted(&mut ext));
    // Not a password field: typed without asking.
    secret.store(false, Ordering::SeqCst);
    a.call::<Type>(&TypeParams {
        text: "ada".into(),
        ..TypeParams::default()
    })
    .await
    .expect("typed");
    assert!(acted(&mut ext));
    // Files dropped wait; text dropped does not.
    let task = spawn_call!(
        a,
        DropOn,
        DropParams {
            element: Ref("e1".into()),
            paths: vec!["/tmp/secret.pdf".into()],
            data: Default::default(),
        }
    );
    let waiting = approvals_until(&mut w, |a| !a.is_empty()).await;
    assert_eq!(waiting[0].ask, AskBefore::Files);
    answer(&mut w, waiting[0].id, false).await;
    let (mut a, r) = task.await.expect("task");
    assert_eq!(kind(&r), ErrorKind::DeniedByPerson);
    let r = a
        .call::<DropOn>(&DropParams {
            element: Ref("e1".into()),
            paths: Vec::new(),
            data: [("text/plain".to_string(), "hi".to_string())].into(),
        })
        .await;
    assert_ne!(kind(&r), ErrorKind::DeniedByPerson, "text is no file");
    // Without the lease, a request the tab asks for is refused at once:
    // never let on unasked in case the lease comes meanwhile.
    a.call::<cotab_shared::controller::Release>(&Empty {})
        .await
        .expect("release");
    let r = a
        .call::<DropOn>(&DropParams {
            element: Ref("e1".into()),
            paths: vec!["/tmp/secret.pdf".into()],
            data: Default::default(),
        })
        .await;
    assert_eq!(kind(&r), ErrorKind::NoControl);
    assert!(!acted(&mut ext));
    a.call::<Acquire>(&Empty {}).await.expect("acquire");
    // A bad change changes nothing and is told the tabs as they are.
    for bad in [
        json!({"tabAskBefore": {"tab": 99, "what": "step", "on": true}}),
        json!({"tabAskBefore": {"tab": T, "what": "everything", "on": true}}),
    ] {
        send(&mut w, bad).await;
    }
    a.call::<Console>(&ConsoleParams::default())
        .await
        .expect("still served");
}
