//! What the worker tells the host of its own accord, and the effects of
//! [`crate::state::SharedSet`]'s decisions: saving the set, the shared
//! list (with each tab's url, title, control flag, blocked page and
//! opener), events, and what follows when a shared tab's page becomes
//! blocked or driveable again.

use super::cells::Worker;
use super::{held_input, port};
use crate::chrome::{error_message, tabs};
use crate::log;
use crate::page_state::Change;
use crate::state::Effect;
use cotab_shared::native::{Event, ExtensionToHost, SharedTabs, TabInfo};
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
        }
    }
}

/// Whether `tab` became suspended on a blocked page, or driveable again.
/// Suspended: every command in flight on it fails `BLOCKED_TARGET` now
/// (no answer of the blocked page reaches an agent), what the agents hold
/// there is released, and the daemon hears of it. A tab not (yet) shared
/// only has its page noted: a share checks the page after attaching.
pub(super) fn page_changed(worker: &Rc<Worker>, tab: TabId, change: Change) {
    if !worker.shared.borrow().contains(tab) {
        return;
    }
    match change {
        Change::Blocked(blocked) => {
            let err = blocked.suspended(tab);
            let failed = worker.in_flight.borrow_mut().fail_all_on(tab, &err);
            log::warn(&format!(
                "tab {tab} went to a page agents may not use ({}): suspended ({failed} \
                 command(s) in flight failed)",
                blocked.reason()
            ));
            let w = worker.clone();
            spawn_local(async move {
                held_input::release_tab(&w, tab).await;
            });
        }
        Change::Driveable => log::info(&format!("tab {tab} shows a web page again")),
    }
    apply(worker, vec![Effect::SendShared]);
}

/// The shared tabs with their current urls, titles and human-control
/// flags, and whether each is suspended on a blocked page (whose url and
/// title are the person's, and are left out). A tab that vanished
/// meanwhile is left out (its close event follows).
pub(super) async fn shared_tabs(worker: &Worker) -> SharedTabs {
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
