//! Sends the releases of [`crate::held`]'s ledger when the daemon cannot:
//! the native link dropped (the daemon forgot what agents held when it lost
//! the lane), the worker restarted or the extension reloaded (the ledger
//! comes back from `chrome.storage`), the person unshared the tab (before
//! the debugger detaches), or the debugger was detached from outside cotab
//! (attach, release, detach again). A closed or crashed tab's entries are
//! forgotten: its page is gone.

use super::cells::Worker;
use super::{cdp, session};
use crate::held::Sent;
use crate::log;
use cotab_shared::{ErrorKind, TabId, WireError};
use serde_json::Value;

/// Deadline of each release command, in milliseconds: short, as nothing
/// waits on it but the page's sake.
const RELEASE_DEADLINE_MS: u64 = 2_000;

/// Notes a command about to be sent to `tab`: a press is recorded before
/// it is sent, and saved then unless it is `paired` (its release goes in
/// the same `input` command, which saves what is left held: see
/// `commands::input`).
pub(super) fn before_send(worker: &Worker, tab: TabId, method: &str, params: &Value, paired: bool) {
    if worker
        .state
        .borrow_mut()
        .held
        .before_send(tab, method, params)
        && !paired
    {
        worker.persist();
    }
}

/// Notes how a command ended: a release that ran, or may have, forgets
/// its press (saved at once unless `paired`, as for [`before_send`]).
pub(super) fn after_send<T>(
    worker: &Worker,
    tab: TabId,
    method: &str,
    params: &Value,
    result: &Result<T, WireError>,
    paired: bool,
) {
    let sent = match result {
        Ok(_) => Sent::Accepted,
        Err(e) if e.kind == ErrorKind::CommandFailed => Sent::Refused,
        Err(_) => Sent::Unknown,
    };
    if worker
        .state
        .borrow_mut()
        .held
        .after_send(tab, method, params, sent)
        && !paired
    {
        worker.persist();
    }
}

/// Sends the releases of everything `tab` holds through its debugger
/// session, and forgets them. Returns how many were sent.
pub(super) async fn release_tab(worker: &Worker, tab: TabId) -> usize {
    let releases = worker.state.borrow_mut().held.take_releases(tab);
    if releases.is_empty() {
        return 0;
    }
    worker.persist();
    let mut sent = 0;
    for (method, params) in &releases {
        // After its press's answer (see `cdp`), if it comes in time: the
        // page cannot wait for a dialog that nobody may answer.
        cdp::presses_answered(tab, method, params, RELEASE_DEADLINE_MS).await;
        match cdp::send(tab, method, params, RELEASE_DEADLINE_MS).await {
            Ok(_) => sent += 1,
            Err(e) => log::warn(&format!(
                "could not release held input on tab {tab}: {}",
                e.message
            )),
        }
    }
    log::info(&format!(
        "released {sent} of {} held input(s) on tab {tab}",
        releases.len()
    ));
    sent
}

/// Fails the requests the browser paused in `tab` for the daemon and the
/// daemon did not answer ([`Worker::paused`]), as `Aborted`: once the
/// pausing ends (the daemon gone, the tab unshared) nobody judges them,
/// and the browser would let them go on. The commands are handed to the
/// browser before this returns, so they reach the tab before any command
/// sent after (`Fetch.disable`, the detach); their answers are not
/// awaited: one answered meanwhile, or the tab gone, is no news.
pub(super) fn refuse_paused(worker: &Worker, tab: TabId) {
    worker.forget_paused(|(t, request_id)| {
        if *t == tab {
            let fail = serde_json::json!({"requestId": request_id, "errorReason": "Aborted"});
            drop(cdp::send(
                tab,
                "Fetch.failRequest",
                &fail,
                RELEASE_DEADLINE_MS,
            ));
        }
        *t != tab
    });
}

/// Lets `tab` go from the daemon's pausing of its document requests
/// (`Fetch.disable`), failing first those it did not answer
/// ([`refuse_paused`]): once the tab is suspended or the daemon gone,
/// nobody is left to answer them. A tab never paused takes it as a
/// no-op.
pub(super) async fn let_navigations_go(worker: &Worker, tab: TabId) {
    refuse_paused(worker, tab);
    // A detached tab has nothing paused: its failure is no news.
    let _ = cdp::send(tab, "Fetch.disable", &Value::Null, RELEASE_DEADLINE_MS).await;
}

/// Lets every shared tab's paused navigations go, releases what every
/// shared tab holds, and forgets what other tabs hold (no debugger session
/// to send through). Waits for the restore, whose shared set says which
/// tabs are shared.
pub(super) async fn release_all(worker: &Worker) {
    worker.restored.wait().await;
    let shared = worker.state.borrow().shared.ids().to_vec();
    for tab in shared {
        let_navigations_go(worker, tab).await;
    }
    let tabs = worker.state.borrow().held.tabs();
    for tab in tabs {
        if worker.state.borrow().shared.contains(tab) {
            release_tab(worker, tab).await;
        } else if worker.state.borrow_mut().held.forget(tab) {
            worker.persist();
        }
    }
}

/// The debugger of `tab` was detached by someone else: attach once more
/// just to release what the page holds, then detach.
pub(super) async fn release_detached(worker: &Worker, tab: TabId) {
    if !worker.state.borrow().held.tabs().contains(&tab) {
        return;
    }
    // A share of the tab waits for this session to end.
    worker.state.borrow_mut().facts.releasing(tab, true);
    match session::attach(tab, false).await {
        Ok(()) => {
            release_tab(worker, tab).await;
            session::detach(tab).await;
        }
        Err(e) => {
            log::warn(&format!(
                "tab {tab} keeps input held: cannot attach to release it: {e}"
            ));
            if worker.state.borrow_mut().held.forget(tab) {
                worker.persist();
            }
        }
    }
    worker.state.borrow_mut().facts.releasing(tab, false);
}

/// `tab`'s page is gone (closed, crashed): nothing to release any more.
pub(super) fn forget(worker: &Worker, tab: TabId) {
    if worker.state.borrow_mut().held.forget(tab) {
        worker.persist();
    }
}
