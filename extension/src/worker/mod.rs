//! The service worker: owns the shared-tab set, the native port and the
//! listeners, and turns the decisions of [`crate::state`] into chrome.* calls
//! and messages to the host.
//!
//! Submodules: [`link`] (native port, hello, reconnect), [`commands`] (one
//! handler per host command), [`share`] (share, unshare, restore after a
//! restart), [`browser_events`] (debugger and tab events) and [`popup_api`]
//! (requests from the popup). Nothing here is shared with the popup page,
//! which talks to the worker through `chrome.runtime.sendMessage` only.

mod browser_events;
mod cdp;
mod commands;
mod link;
mod popup_api;
mod share;

use crate::chrome::{error_message, storage, tabs};
use crate::log;
use crate::state::{Effect, Gate, Link, SharedSet};
use cotab_shared::native::{Event, ExtensionToHost, SharedTabs, TabInfo};
use cotab_shared::LaneId;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;

/// `chrome.storage.session` key of the shared tab ids.
const SHARED_TABS_KEY: &str = "sharedTabs";

/// Everything the worker keeps between events. One per worker lifetime;
/// a worker restart starts from `chrome.storage` again.
pub(crate) struct Worker {
    /// The shared tabs. Never borrowed across an `.await`.
    shared: RefCell<SharedSet>,
    /// The native link's phase, backoff and last error.
    link: RefCell<Link>,
    /// The open native port and its listeners, if any.
    port: RefCell<Option<link::PortHandle>>,
    /// Counts connection attempts, so a stale port's events are ignored.
    generation: Cell<u64>,
    /// The lane id, once read from `chrome.storage.local`.
    lane: RefCell<Option<LaneId>>,
    /// Opens once the shared set is restored; requests wait for it.
    restored: Gate,
    /// Counts shared-list sends, so only the newest list is sent.
    shared_seq: Cell<u64>,
}

/// Starts the worker. Every listener is registered before this returns:
/// MV3 delivers the event that woke the worker only to listeners added in
/// the script's first turn.
pub(crate) fn start() {
    let worker = Rc::new(Worker {
        shared: RefCell::new(SharedSet::default()),
        link: RefCell::new(Link::default()),
        port: RefCell::new(None),
        generation: Cell::new(0),
        lane: RefCell::new(None),
        restored: Gate::default(),
        shared_seq: Cell::new(0),
    });
    browser_events::register(&worker);
    popup_api::register(&worker);
    spawn_local(share::restore(worker.clone()));
    spawn_local(link::connect(worker));
    log::info("worker started");
}

impl Worker {
    /// Performs `effects` in order.
    fn apply(self: &Rc<Self>, effects: Vec<Effect>) {
        for effect in effects {
            match effect {
                Effect::Persist => self.persist(),
                Effect::Send(event) => link::send(self, &ExtensionToHost::Event { event }),
                Effect::SendShared => spawn_local(send_shared(self.clone())),
                Effect::Ungroup(tab) => spawn_local(async move {
                    // Cosmetic: the tab may be closing or already ungrouped.
                    let _ = tabs::ungroup(tab).await;
                }),
            }
        }
    }

    /// Writes the shared set to `chrome.storage.session`. The snapshot is
    /// taken now and written in call order, so a later write always holds
    /// the later set.
    fn persist(&self) {
        let ids = self.shared.borrow().persisted();
        spawn_local(async move {
            let result = match storage::session() {
                Ok(area) => area.set_key(SHARED_TABS_KEY, &ids).await,
                Err(e) => Err(e),
            };
            if let Err(e) = result {
                log::warn(&format!(
                    "could not save the shared tabs: {}",
                    error_message(&e)
                ));
            }
        });
    }
}

/// The shared tabs with their current urls and titles. A tab that vanished
/// meanwhile is left out (its close event follows).
async fn shared_tabs(worker: &Worker) -> SharedTabs {
    let ids = worker.shared.borrow().ids().to_vec();
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        match tabs::get(id).await {
            Ok(tab) => out.push(TabInfo {
                id,
                url: tab.effective_url().to_owned(),
                title: tab.title.unwrap_or_default(),
            }),
            Err(e) => log::info(&format!("shared tab {id} is gone: {}", error_message(&e))),
        }
    }
    SharedTabs { tabs: out }
}

/// Sends [`Event::Shared`] with the current list, unless a newer send
/// started while this one read the tabs.
async fn send_shared(worker: Rc<Worker>) {
    let seq = worker.shared_seq.get().wrapping_add(1);
    worker.shared_seq.set(seq);
    let tabs = shared_tabs(&worker).await;
    if worker.shared_seq.get() == seq {
        link::send(
            &worker,
            &ExtensionToHost::Event {
                event: Event::Shared(tabs),
            },
        );
    }
}
