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
//! (the switch, and what turning it off undoes),
//! [`browser_events`] (debugger and tab events, renderer crashes, a tab
//! suspended on a blocked page),
//! [`held_input`] (releases of held input the daemon cannot send),
//! [`lifecycle`] (why the worker started, the wake-up alarm, the test-only
//! detach hook) and [`popup_api`] (requests from the popup). Nothing here is shared with the popup page, which talks
//! to the worker through `chrome.runtime.sendMessage` and
//! `chrome.storage.local` only.

mod agent_tabs;
mod browser_events;
mod cdp;
mod commands;
mod developer_mode;
mod group_moves;
mod held_input;
mod lifecycle;
mod link;
mod popup_api;
mod share;
mod takeover;

use crate::chrome::{error_message, storage, tabs};
use crate::control::InFlight;
use crate::developer_switch::DeveloperSwitch;
use crate::fronts::Fronts;
use crate::held::{HeldInput, StoredEntry};
use crate::link_state::Link;
use crate::log;
use crate::page_state::Pages;
use crate::state::{Effect, Gate, Persisted, SharedSet};
use crate::tab_facts::TabFacts;
use cotab_shared::native::{Event, ExtensionToHost, Holder, SharedTabs, TabInfo};
use cotab_shared::{LaneId, TabId};
use serde::{Deserialize, Serialize};
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
    /// The developer-mode switch once read, kept current by
    /// `chrome.storage.onChanged`, and its re-attach
    /// ([`crate::developer_switch`], [`developer_mode`]).
    developer: RefCell<DeveloperSwitch>,
    /// Why the last tab dragged into the `cotab` group was not shared;
    /// cleared when a tab is shared. Shown in the popup.
    share_error: RefCell<Option<String>>,
    /// Input sent to pages and not yet released ([`crate::held`]).
    held: RefCell<HeldInput>,
    /// Each tab's crash, dialog count, raw CDP and release-only session
    /// ([`crate::tab_facts`]).
    facts: RefCell<TabFacts>,
    /// Why the worker started, once the browser said.
    start: lifecycle::Start,
    /// Each attached tab's page: blocked or not, its contexts
    /// ([`crate::page_state`]).
    pages: RefCell<Pages>,
    /// The front tab of each window and the one before it
    /// ([`crate::fronts`]).
    fronts: RefCell<Fronts>,
}

/// What the worker saves, in one write per storage area: the shared set
/// and human-control flags ([`Persisted`]) and the held-input ledger.
/// `chrome.storage.session` survives worker restarts;
/// `chrome.storage.local` also survives a reload of the extension.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Saved {
    /// [`Persisted::shared_tabs`].
    #[serde(default)]
    shared_tabs: Vec<i32>,
    /// [`Persisted::human_control`].
    #[serde(default)]
    human_control: Vec<i32>,
    #[serde(default)]
    held_input: Vec<StoredEntry>,
}

impl Saved {
    /// The storage keys [`Saved`] reads and writes.
    const KEYS: [&'static str; 3] = ["sharedTabs", "humanControl", "heldInput"];

    fn is_empty(&self) -> bool {
        self.shared_tabs.is_empty() && self.held_input.is_empty()
    }
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
        developer: RefCell::new(DeveloperSwitch::default()),
        share_error: RefCell::new(None),
        held: RefCell::new(HeldInput::default()),
        facts: RefCell::new(TabFacts::default()),
        start: lifecycle::Start::default(),
        pages: RefCell::new(Pages::default()),
        fronts: RefCell::new(Fronts::default()),
    });
    lifecycle::register(&worker);
    browser_events::register(&worker);
    popup_api::register(&worker);
    takeover::register(&worker);
    developer_mode::register(&worker);
    crate::trace::expose();
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

    /// The shared set, its human-control flags and the held-input ledger
    /// as saved.
    fn saved(&self) -> Saved {
        let Persisted {
            shared_tabs,
            human_control,
        } = self.shared.borrow().persisted();
        Saved {
            shared_tabs,
            human_control,
            held_input: self.held.borrow().to_stored(),
        }
    }

    /// Writes [`Worker::saved`] to `chrome.storage.session` and
    /// `chrome.storage.local`. The snapshot is taken now and written in call
    /// order, so a later write always holds the later state.
    fn persist(&self) {
        let saved = self.saved();
        spawn_local(async move {
            let write = |area: Result<storage::StorageArea, wasm_bindgen::JsValue>| {
                let saved = &saved;
                async move {
                    match area {
                        Ok(area) => area.set_items(saved).await,
                        Err(e) => Err(e),
                    }
                }
            };
            // Both writes are issued in this first poll, so each area sees
            // the writes in call order.
            let (session, local) =
                futures_util::future::join(write(storage::session()), write(storage::local()))
                    .await;
            for (name, result) in [("session", session), ("local", local)] {
                if let Err(e) = result {
                    log::warn(&format!(
                        "could not save the shared tabs ({name}): {}",
                        error_message(&e)
                    ));
                }
            }
        });
    }
}

/// The shared tabs with their current urls, titles and human-control
/// flags, and whether each is suspended on a blocked page (whose url and
/// title are the person's, and are left out). A tab that vanished
/// meanwhile is left out (its close event follows).
async fn shared_tabs(worker: &Worker) -> SharedTabs {
    let ids: Vec<(TabId, bool)> = {
        let set = worker.shared.borrow();
        set.ids().iter().map(|t| (*t, set.is_human(*t))).collect()
    };
    let mut out = Vec::with_capacity(ids.len());
    for (id, human_control) in ids {
        match tabs::get(id).await {
            Ok(tab) => {
                // Only an opener agents know of is named.
                let opener = worker
                    .facts
                    .borrow()
                    .opener(id)
                    .filter(|o| worker.shared.borrow().contains(*o));
                out.push(match worker.pages.borrow().blocked(id) {
                    Some(blocked) => TabInfo {
                        id,
                        url: String::new(),
                        title: String::new(),
                        human_control,
                        blocked: Some(blocked),
                        opener,
                    },
                    None => TabInfo {
                        id,
                        url: tab.effective_url().to_owned(),
                        title: tab.title.unwrap_or_default(),
                        human_control,
                        blocked: None,
                        opener,
                    },
                })
            }
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
