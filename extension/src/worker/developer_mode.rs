//! The developer-mode switch as the worker sees it (DESIGN §2, "Developer
//! mode"). The person flips it in the popup, which asks the worker
//! ([`set_by_person`]); the worker changes the switch in memory, reacts,
//! and writes `developerMode` to `chrome.storage.local`, where it survives
//! restarts. This module reads it once when the worker starts, then
//! follows every `chrome.storage.onChanged` of it: a change to off is
//! honoured whoever wrote it, a change to on that the worker did not write
//! (an extension page other than the popup: any page of cotab's origin may
//! write its storage) is written back to off
//! ([`crate::control::switch_notice`]). It answers every privileged
//! command from the state in memory, and tells the host. A privileged
//! command admitted before a change to off is aborted by it (below).
//!
//! Turning it off, in order: fails every privileged command in flight with
//! `DEVELOPER_MODE_OFF`, re-attaches the debugger on every shared tab
//! (detach, attach, enable) so nothing raw CDP left behind survives —
//! scripts to evaluate on new documents, fetch interception, bindings —
//! then sends [`Event::DeveloperMode`]. Commands that arrive during the
//! re-attach wait for it ([`reattach_done`]); the tabs stay shared (the
//! detach notice of our own detach, if any, is ignored by
//! [`crate::state::SharedSet`]). Turning it on only sends the event. The
//! same re-attach runs for one tab when the person takes control of a tab
//! on which raw CDP ran ([`reattach_taken`]).

use super::cells::Worker;
use super::listen::listen;
use super::{announce, port, session, share};
use crate::chrome::{error_message, from_js, storage};
use crate::control::{
    developer_mode_change, developer_mode_enabled, SwitchNotice, DEVELOPER_MODE_KEY,
};
use crate::log;
use crate::state::ReattachEnd;
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
                // ask storage, and judge what it holds like any notice
                // (on is still only the person's, through the popup).
                log::warn("an unreadable storage change; reading developer mode again");
                let worker = worker.clone();
                spawn_local(async move {
                    // Unreadable storage counts as off, as at any read.
                    let stored = read_storage().await.unwrap_or(false);
                    noticed(&worker, stored);
                });
                return;
            };
            if let Some(stored) = developer_mode_change(&area, &changes) {
                noticed(&worker, stored);
            }
        }),
    );
}

/// Storage says the switch holds `stored`: follow it, or (on, written by
/// something other than the worker) turn it off and write that back.
fn noticed(worker: &Rc<Worker>, stored: bool) {
    let notice = worker.state.borrow().developer.notice(stored);
    match notice {
        SwitchNotice::Ignore => {}
        SwitchNotice::TurnOff => changed(worker, false),
        SwitchNotice::Revert => {
            log::warn("developer mode was turned on outside the popup; turning it off again");
            changed(worker, false);
            let worker = worker.clone();
            spawn_local(async move {
                if let Err(e) = write(&worker, false).await {
                    log::warn(&e);
                }
            });
        }
    }
}

/// The person flipped the popup's switch to `enabled`: the state in memory
/// and what follows from it first, then storage.
pub(super) async fn set_by_person(worker: &Rc<Worker>, enabled: bool) -> Result<(), String> {
    changed(worker, enabled);
    write(worker, enabled).await
}

/// Writes the switch to `chrome.storage.local`, counted as the worker's
/// own while on its way.
async fn write(worker: &Worker, enabled: bool) -> Result<(), String> {
    worker.state.borrow_mut().developer.write_started();
    let result = match storage::local() {
        Ok(area) => area.set_key(DEVELOPER_MODE_KEY, &enabled).await,
        Err(e) => Err(e),
    };
    worker.state.borrow_mut().developer.write_ended();
    result.map_err(|e| format!("could not save developer mode: {}", error_message(&e)))
}

/// The switch is now `enabled`: the copy in memory first, then what
/// follows from a change (nothing when it already was;
/// [`crate::machine::Machine::developer_mode_set`]).
fn changed(worker: &Rc<Worker>, enabled: bool) {
    let (effects, reattach) = worker.state.borrow_mut().developer_mode_set(enabled);
    announce::apply(worker, effects);
    if reattach {
        run_reattach(worker, None);
    }
}

/// Whether developer mode is on now: the state in memory, after the first
/// read of `chrome.storage.local` since the worker started. A failed read
/// counts as off and is not kept (the next call reads again).
pub(super) async fn enabled(worker: &Worker) -> bool {
    if let Some(enabled) = worker.state.borrow().developer.known() {
        return enabled;
    }
    let read = read_storage().await;
    // A change that arrived during the read is newer than what it read.
    worker.state.borrow_mut().developer.first_read(read)
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
        let gate = worker.state.borrow().developer.reattach_gate();
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
    port::send(
        worker,
        &ExtensionToHost::Event {
            event: Event::DeveloperMode { enabled },
        },
    );
}

/// The person took control of `tab`, on which raw CDP ran since its
/// debugger attached: it is re-attached, so nothing raw CDP set up there
/// (overrides, request interception, an inspect overlay, a paused script)
/// outlives the agent's control. Commands wait for it, as for developer
/// mode's re-attach.
pub(super) fn reattach_taken(worker: &Rc<Worker>, tab: TabId) {
    log::info(&format!(
        "re-attaching tab {tab}, taken over after raw CDP ran on it"
    ));
    run_reattach(worker, Some(tab));
}

/// Re-attaches `first` (every shared tab when `None`) under the re-attach
/// gate, then every shared tab as long as developer mode was turned off
/// again meanwhile; one runs at a time (a request while one runs makes it
/// go over every tab once more).
fn run_reattach(worker: &Rc<Worker>, mut first: Option<TabId>) {
    let begun = worker.state.borrow_mut().developer.begin_reattach();
    if begun.is_none() {
        return;
    }
    let worker = worker.clone();
    spawn_local(async move {
        loop {
            worker.state.borrow_mut().developer.round_started();
            match first.take() {
                Some(tab) => reattach(&worker, tab).await,
                None => reattach_all(&worker).await,
            }
            let again = worker.state.borrow_mut().developer.round_ended();
            if !again {
                break;
            }
        }
        send_current(&worker).await;
    });
}

/// Re-attaches every shared tab, one after the other (a few milliseconds
/// each).
async fn reattach_all(worker: &Rc<Worker>) {
    // A restore re-attaches by adopting the sessions that survived the
    // worker restart; wait for it so those sessions are the ones replaced.
    worker.restored.wait().await;
    let tabs = worker.state.borrow().shared.ids().to_vec();
    for tab in tabs {
        reattach(worker, tab).await;
    }
}

/// Detaches and attaches `tab` again; drops it from the set when it cannot
/// be attached again.
async fn reattach(worker: &Rc<Worker>, tab: TabId) {
    if !worker.state.borrow_mut().shared.begin_reattach(tab) {
        return;
    }
    session::detach(tab).await;
    // Our own session is gone; should the browser still report one, it is
    // ours.
    let attached = match session::attach(tab, true).await {
        Ok(()) => {
            if let Err(e) = share::enable(worker, tab).await {
                log::warn(&e);
            }
            true
        }
        Err(e) => {
            log::warn(&format!("re-attaching tab {tab} failed: {e}"));
            false
        }
    };
    let end = worker.state.borrow_mut().shared.end_reattach(tab, attached);
    match end {
        ReattachEnd::Keep => {}
        ReattachEnd::DetachAgain => session::detach(tab).await,
        ReattachEnd::Dropped(effects) => announce::apply(worker, effects),
    }
}
