//! The effects of [`crate::machine::Machine`]'s decisions, performed:
//! saving the set, events and the shared list (with each tab's url, title,
//! control flag, blocked page and opener) for the host, releases of held
//! input, log lines.

use super::cells::Worker;
use super::{cdp, held_input, port, toolbar};
use crate::chrome::{error_message, tabs};
use crate::log;
use crate::page_state::Change;
use crate::state::Effect;
use cotab_shared::native::{Event, ExtensionToHost, SharedTabs};
use cotab_shared::TabId;
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;

/// Performs `effects` in order.
pub(super) fn apply(worker: &Rc<Worker>, effects: Vec<Effect>) {
    for effect in effects {
        match effect {
            Effect::Persist => worker.persist(),
            Effect::Send(event) => port::send(worker, &ExtensionToHost::Event { event }),
            Effect::SendShared => spawn_local(send_shared(worker.clone())),
            Effect::Ungroup(tab) => spawn_local(async move {
                // Cosmetic: the tab may be closing or already ungrouped.
                let _ = tabs::ungroup(tab).await;
            }),
            Effect::PressesGone(tab) => cdp::presses_gone(tab),
            Effect::ReleaseHeld(tab) => {
                let worker = worker.clone();
                spawn_local(async move {
                    held_input::let_navigations_go(&worker, tab).await;
                    held_input::release_tab(&worker, tab).await;
                });
            }
            Effect::ReleaseDetached(tab) => {
                let worker = worker.clone();
                spawn_local(async move { held_input::release_detached(&worker, tab).await });
            }
            Effect::Log { warn: true, line } => log::warn(&line),
            Effect::Log { warn: false, line } => log::info(&line),
        }
    }
    toolbar::refresh(worker);
}

/// [`crate::machine::Machine::page_changed`], performed.
pub(super) fn page_changed(worker: &Rc<Worker>, tab: TabId, change: Change) {
    let effects = worker.state.borrow_mut().page_changed(tab, change);
    apply(worker, effects);
}

/// The shared tabs with their current urls, titles and human-control
/// flags, and whether each is suspended on a blocked page (whose url and
/// title are the person's, and are left out). A tab that vanished
/// meanwhile is left out (its close event follows).
pub(super) async fn shared_tabs(worker: &Worker) -> SharedTabs {
    let ids = worker.state.borrow().shared.ids().to_vec();
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        match tabs::get(id).await {
            Ok(tab) => out.push(worker.state.borrow().tab_info(
                id,
                tab.effective_url(),
                tab.title.as_deref(),
            )),
            Err(e) => log::info(&format!("shared tab {id} is gone: {}", error_message(&e))),
        }
    }
    SharedTabs { tabs: out }
}

/// Sends [`Event::Shared`] with the current list, unless a newer send
/// started while this one read the tabs.
pub(super) async fn send_shared(worker: Rc<Worker>) {
    let seq = worker.shared_seq.get().wrapping_add(1);
    worker.shared_seq.set(seq);
    let tabs = shared_tabs(&worker).await;
    if worker.shared_seq.get() == seq {
        port::send(
            &worker,
            &ExtensionToHost::Event {
                event: Event::Shared(tabs),
            },
        );
    }
}
