//! The developer-mode switch as the worker sees it (DESIGN §2, "Developer
//! mode"). The popup writes `developerMode` to `chrome.storage.local`; this
//! module reads it once when the worker starts, then follows every
//! `chrome.storage.onChanged` of it (the switch's state in memory changes
//! first, before anything reacts to the change), answers every privileged
//! command from that state, and tells the host. A change the browser has
//! committed reaches the worker as that event; a privileged command
//! admitted before it arrives is aborted by it (below), exactly as one
//! admitted by a read of storage an instant before the change would be.
//!
//! Turning it off, in order: fails every privileged command in flight with
//! `DEVELOPER_MODE_OFF`, re-attaches the debugger on every shared tab
//! (detach, attach, enable) so nothing raw CDP left behind survives —
//! scripts to evaluate on new documents, fetch interception, bindings —
//! then sends [`Event::DeveloperMode`]. Commands that arrive during the
//! re-attach wait for it ([`reattach_done`]); the tabs stay shared (the
//! detach notice of our own detach, if any, is ignored by
//! [`crate::state::SharedSet`]). Turning it on only sends the event.

use super::{browser_events::listen, link, share, Worker};
use crate::chrome::{error_message, from_js, storage};
use crate::control::{developer_mode_change, developer_mode_enabled, DEVELOPER_MODE_KEY};
use crate::log;
use crate::state::{Gate, ReattachEnd};
use cotab_shared::native::{Event, ExtensionToHost};
use cotab_shared::TabId;
use serde_json::Value;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

/// Registers the `chrome.storage.onChanged` listener.
pub(super) fn register(worker: &Rc<Worker>) {
    let worker = worker.clone();
    listen(
        "chrome.storage.onChanged",
        storage::on_changed(),
        Closure::<dyn FnMut(JsValue, String)>::new(move |changes: JsValue, area: String| {
            if area != "local" {
                return;
            }
            let Ok(changes) = from_js::<Value>(changes) else {
                // A notice that cannot be read may have been the switch:
                // ask storage, and act on it if it differs.
                log::warn("an unreadable storage change; reading developer mode again");
                let worker = worker.clone();
                spawn_local(async move {
                    // Unreadable storage counts as off, as at any read.
                    let enabled = read_storage().await.unwrap_or(false);
                    if worker.developer_mode.get() != Some(enabled) {
                        changed(&worker, enabled);
                    }
                });
                return;
            };
            if let Some(enabled) = developer_mode_change(&area, &changes) {
                changed(&worker, enabled);
            }
        }),
    );
}

/// The switch changed to `enabled`: the copy in memory first, then what
/// follows from it.
fn changed(worker: &Rc<Worker>, enabled: bool) {
    worker.developer_mode.set(Some(enabled));
    if enabled {
        turned_on(worker);
    } else {
        turned_off(worker);
    }
}

/// Whether developer mode is on now: the state in memory, after the first
/// read of `chrome.storage.local` since the worker started. A failed read
/// counts as off and is not kept (the next call reads again).
pub(super) async fn enabled(worker: &Worker) -> bool {
    if let Some(enabled) = worker.developer_mode.get() {
        return enabled;
    }
    let read = read_storage().await;
    // A change that arrived during the read is newer than what it read.
    match (worker.developer_mode.get(), read) {
        (Some(changed), _) => changed,
        (None, Some(enabled)) => {
            worker.developer_mode.set(Some(enabled));
            enabled
        }
        (None, None) => false,
    }
}

/// The switch as stored in `chrome.storage.local`; `None` if it cannot be
/// read.
pub(super) async fn read_storage() -> Option<bool> {
    let read = match storage::local() {
        Ok(area) => area.get_key(DEVELOPER_MODE_KEY).await,
        Err(e) => Err(e),
    };
    match read {
        Ok(value) => Some(developer_mode_enabled(
            &from_js::<Value>(value).unwrap_or(Value::Null),
        )),
        Err(e) => {
            log::warn(&format!(
                "could not read developer mode, treating it as off: {}",
                error_message(&e)
            ));
            None
        }
    }
}

/// Completes when no re-attach is running (at once, usually).
pub(super) async fn reattach_done(worker: &Worker) {
    loop {
        let gate = worker.reattach.borrow().clone();
        match gate {
            Some(gate) => gate.wait().await,
            None => return,
        }
    }
}

/// Sends the switch's current state; used after every hello.
pub(super) async fn send_current(worker: &Rc<Worker>) {
    let enabled = enabled(worker).await;
    send(worker, enabled);
}

fn send(worker: &Rc<Worker>, enabled: bool) {
    link::send(
        worker,
        &ExtensionToHost::Event {
            event: Event::DeveloperMode { enabled },
        },
    );
}

fn turned_on(worker: &Rc<Worker>) {
    log::info("developer mode on");
    // A running re-attach sends the state it finds when it ends.
    if worker.reattach.borrow().is_none() {
        send(worker, true);
    }
}

fn turned_off(worker: &Rc<Worker>) {
    worker
        .developer_off_epoch
        .set(worker.developer_off_epoch.get().wrapping_add(1));
    let aborted = worker.in_flight.borrow_mut().abort_privileged();
    log::info(&format!(
        "developer mode off: {aborted} privileged command(s) failed, re-attaching shared tabs"
    ));
    if worker.reattach.borrow().is_some() {
        worker.reattach_again.set(true);
        return;
    }
    let gate = Gate::default();
    *worker.reattach.borrow_mut() = Some(gate.clone());
    let worker = worker.clone();
    spawn_local(async move {
        loop {
            worker.reattach_again.set(false);
            reattach_all(&worker).await;
            if !worker.reattach_again.get() {
                break;
            }
        }
        *worker.reattach.borrow_mut() = None;
        gate.open();
        send_current(&worker).await;
    });
}

/// Re-attaches every shared tab, one after the other (a few milliseconds
/// each).
async fn reattach_all(worker: &Rc<Worker>) {
    // A restore re-attaches by adopting the sessions that survived the
    // worker restart; wait for it so those sessions are the ones replaced.
    worker.restored.wait().await;
    let tabs = worker.shared.borrow().ids().to_vec();
    for tab in tabs {
        reattach(worker, tab).await;
    }
}

/// Detaches and attaches `tab` again; drops it from the set when it cannot
/// be attached again.
async fn reattach(worker: &Rc<Worker>, tab: TabId) {
    if !worker.shared.borrow_mut().begin_reattach(tab) {
        return;
    }
    share::detach(tab).await;
    // Our own session is gone; should the browser still report one, it is
    // ours.
    let attached = match share::attach(tab, true).await {
        Ok(()) => {
            if let Err(e) = share::enable(tab).await {
                log::warn(&e);
            }
            true
        }
        Err(e) => {
            log::warn(&format!("re-attaching tab {tab} failed: {e}"));
            false
        }
    };
    let end = worker.shared.borrow_mut().end_reattach(tab, attached);
    match end {
        ReattachEnd::Keep => {}
        ReattachEnd::DetachAgain => share::detach(tab).await,
        ReattachEnd::Dropped(effects) => worker.apply(effects),
    }
}
