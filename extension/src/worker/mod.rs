//! The service worker: owns the shared-tab set, the native port and the
//! listeners, and turns the decisions of [`crate::state`] into chrome.* calls
//! and messages to the host.
//!
//! Submodules: [`link`] (native port, hello, reconnect), [`commands`] (one
//! handler per host command, with the command-class rules), [`agent_tabs`]
//! (`createTab`, `closeTab`), [`share`] (share, unshare, restore after a
//! restart), [`group_moves`] (tabs dragged into or out of the `cotab`
//! group), [`takeover`] (the person
//! takes control back, from the popup or the keyboard), [`developer_mode`]
//! (the switch read live, and what turning it off undoes),
//! [`browser_events`] (debugger and tab events) and [`popup_api`] (requests
//! from the popup). Nothing here is shared with the popup page, which talks
//! to the worker through `chrome.runtime.sendMessage` and
//! `chrome.storage.local` only.

mod agent_tabs;
mod browser_events;
mod cdp;
mod commands;
mod developer_mode;
mod group_moves;
mod link;
mod popup_api;
mod share;
mod takeover;

use crate::chrome::{error_message, storage, tabs};
use crate::control::InFlight;
use crate::log;
use crate::state::{Effect, Gate, Link, SharedSet};
use cotab_shared::native::{Event, ExtensionToHost, Holder, SharedTabs, TabInfo};
use cotab_shared::{LaneId, TabId};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;

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
    /// Who the daemon last said controls each shared tab (its
    /// `controllers` message); cleared when the native link drops. Shown in
    /// the popup only: the extension's own rules use the human-control
    /// flags of `shared`.
    holders: RefCell<BTreeMap<TabId, Holder>>,
    /// CDP commands in flight, so they can fail at once when the person
    /// takes control or turns developer mode off.
    in_flight: RefCell<InFlight>,
    /// While developer mode's re-attach runs: the gate commands wait on.
    reattach: RefCell<Option<Gate>>,
    /// Developer mode turned off again while a re-attach ran: run it again.
    reattach_again: Cell<bool>,
    /// Counts "developer mode off" notices, so a privileged command whose
    /// live read raced one is refused.
    developer_off_epoch: Cell<u64>,
    /// Why the last tab dragged into the `cotab` group was not shared;
    /// cleared when a tab is shared. Shown in the popup.
    share_error: RefCell<Option<String>>,
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
        holders: RefCell::new(BTreeMap::new()),
        in_flight: RefCell::new(InFlight::default()),
        reattach: RefCell::new(None),
        reattach_again: Cell::new(false),
        developer_off_epoch: Cell::new(0),
        share_error: RefCell::new(None),
    });
    browser_events::register(&worker);
    popup_api::register(&worker);
    takeover::register(&worker);
    developer_mode::register(&worker);
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

    /// Writes the shared set and its human-control flags to
    /// `chrome.storage.session` ([`crate::state::Persisted`]). The snapshot
    /// is taken now and written in call order, so a later write always holds
    /// the later set.
    fn persist(&self) {
        let saved = self.shared.borrow().persisted();
        spawn_local(async move {
            let result = match storage::session() {
                Ok(area) => area.set_items(&saved).await,
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

/// The shared tabs with their current urls, titles and human-control
/// flags. A tab that vanished meanwhile is left out (its close event
/// follows).
async fn shared_tabs(worker: &Worker) -> SharedTabs {
    let ids: Vec<(TabId, bool)> = {
        let set = worker.shared.borrow();
        set.ids().iter().map(|t| (*t, set.is_human(*t))).collect()
    };
    let mut out = Vec::with_capacity(ids.len());
    for (id, human_control) in ids {
        match tabs::get(id).await {
            Ok(tab) => out.push(TabInfo {
                id,
                url: tab.effective_url().to_owned(),
                title: tab.title.unwrap_or_default(),
                human_control,
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
