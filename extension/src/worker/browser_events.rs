//! Browser events about shared tabs: CDP events to forward, debugger
//! detaches, tab closes, renderer crashes, url/title updates, navigations
//! to and from blocked pages, and moves between tab groups (handed to
//! [`super::group_moves`]). The share decisions are
//! [`crate::state::SharedSet`]'s and the page decisions
//! [`crate::page_state::Pages`]'; this module wires the listeners, fails
//! commands in flight on a page that went away or became blocked, and
//! hands held input to [`super::held_input`].

use super::cells::Worker;
use super::listen::listen;
use super::{announce, cdp, group_moves, held_input, port};
use crate::chrome::{debugger, error_message, from_js, tabs};
use crate::log;
use crate::page_state::TRACKED_EVENTS;
use cotab_shared::native::{Event, ExtensionToHost};
use cotab_shared::TabId;
use serde_json::Value;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

/// `chrome.debugger.onDetach`'s reason when the tab closed (or navigated to
/// a page the debugger may not attach to).
const TARGET_CLOSED: &str = "target_closed";

/// CDP event: the page's renderer crashed (needs `Inspector.enable`).
const TARGET_CRASHED: &str = "Inspector.targetCrashed";

/// CDP event: a crashed page was loaded again.
const TARGET_RELOADED_AFTER_CRASH: &str = "Inspector.targetReloadedAfterCrash";

/// CDP event: the page opened a JavaScript dialog.
const DIALOG_OPENING: &str = "Page.javascriptDialogOpening";

/// Registers the debugger and tab listeners.
pub(super) fn register(worker: &Rc<Worker>) {
    let w = worker.clone();
    listen(
        "chrome.debugger.onEvent",
        debugger::on_event(),
        Closure::<dyn FnMut(JsValue, String, JsValue)>::new(
            move |source: JsValue, method: String, params: JsValue| {
                on_cdp_event(&w, &source, method, params);
            },
        ),
    );
    let w = worker.clone();
    listen(
        "chrome.debugger.onDetach",
        debugger::on_detach(),
        Closure::<dyn FnMut(JsValue, String)>::new(move |source: JsValue, reason: String| {
            if let Some(tab) = debugger::source_tab(&source) {
                on_detach(&w, tab, &reason);
            }
        }),
    );
    let w = worker.clone();
    listen(
        "chrome.tabs.onRemoved",
        tabs::on_removed(),
        Closure::<dyn FnMut(i32, JsValue)>::new(move |tab_id: i32, _info: JsValue| {
            let tab = TabId(tab_id);
            w.fronts.borrow_mut().closed(tab);
            let effects = w.shared.borrow_mut().on_removed(tab);
            w.pages.borrow_mut().forget(tab);
            page_gone(&w, tab, "the tab closed");
            w.facts.borrow_mut().forget(tab);
            held_input::forget(&w, tab);
            announce::apply(&w, effects);
        }),
    );
    let w = worker.clone();
    listen(
        "chrome.tabs.onCreated",
        tabs::on_created(),
        Closure::<dyn FnMut(JsValue)>::new(move |tab: JsValue| {
            match from_js::<crate::messages::ChromeTab>(tab) {
                Ok(tab) => group_moves::created(&w, tab),
                Err(e) => log::warn(&format!(
                    "a created tab could not be read: {}",
                    error_message(&e)
                )),
            }
        }),
    );
    let w = worker.clone();
    listen(
        "chrome.tabs.onActivated",
        tabs::on_activated(),
        Closure::<dyn FnMut(JsValue)>::new(move |info: JsValue| {
            if let Ok(a) = from_js::<tabs::Activated>(info) {
                w.fronts.borrow_mut().activated(a.window_id, a.tab_id);
            }
        }),
    );
    let w = worker.clone();
    listen(
        "chrome.webNavigation.onCreatedNavigationTarget",
        tabs::on_created_navigation_target(),
        Closure::<dyn FnMut(JsValue)>::new(move |details: JsValue| {
            match from_js::<tabs::NavigationTarget>(details) {
                Ok(t) => group_moves::opened(&w, t.tab_id, t.source_tab_id),
                Err(e) => log::warn(&format!(
                    "a tab a page opened could not be read: {}",
                    error_message(&e)
                )),
            }
        }),
    );
    let w = worker.clone();
    listen(
        "chrome.tabs.onUpdated",
        tabs::on_updated(),
        Closure::<dyn FnMut(i32, JsValue, JsValue)>::new(
            move |tab_id: i32, change: JsValue, _tab: JsValue| {
                let has = |key: &str| {
                    js_sys::Reflect::has(&change, &JsValue::from_str(key)).unwrap_or(false)
                };
                let tab = TabId(tab_id);
                if has("url") {
                    let url = js_sys::Reflect::get(&change, &JsValue::from_str("url"))
                        .ok()
                        .and_then(|u| u.as_string())
                        .unwrap_or_default();
                    let change = w.pages.borrow_mut().url_changed(tab, &url);
                    if let Some(change) = change {
                        announce::page_changed(&w, tab, change);
                    }
                }
                let effects = w.shared.borrow().on_updated(tab, has("url"), has("title"));
                announce::apply(&w, effects);
                if has("groupId") {
                    group_moves::group_changed(&w, tab);
                }
            },
        ),
    );
}

/// `tab`'s page went away (`why`): its commands in flight fail, and its
/// presses' answers no longer matter (releases waiting for them may go).
/// Returns how many commands failed.
fn page_gone(worker: &Worker, tab: TabId, why: &str) -> usize {
    let aborted = worker.in_flight.borrow_mut().abort_all_on(tab, why);
    cdp::presses_gone(tab);
    aborted
}

/// The debugger of `tab` was detached by the browser (`reason`
/// `target_closed`) or by someone else (`canceled_by_user`: the person, or
/// DevTools): the tab is no longer shared, its commands in flight fail, and
/// what the page holds is released through a short-lived session of its
/// own unless the page is gone.
pub(super) fn on_detach(worker: &Rc<Worker>, tab: TabId, reason: &str) {
    let effects = worker.shared.borrow_mut().on_detach(tab, reason);
    if effects.is_empty() {
        return;
    }
    page_gone(worker, tab, "the debugger was detached");
    worker.pages.borrow_mut().forget(tab);
    worker.facts.borrow_mut().session_ended(tab);
    announce::apply(worker, effects);
    if reason == TARGET_CLOSED {
        held_input::forget(worker, tab);
    } else {
        let worker = worker.clone();
        spawn_local(async move { held_input::release_detached(&worker, tab).await });
    }
}

/// The page's renderer crashed: commands in flight on it never settle by
/// themselves, so they fail now; what it held is gone with it; commands
/// fail at once until the tab is reloaded or navigated.
fn on_crash(worker: &Rc<Worker>, tab: TabId) {
    if !worker.shared.borrow().contains(tab) {
        return;
    }
    worker.facts.borrow_mut().crashed(tab);
    let aborted = page_gone(worker, tab, "the page crashed");
    held_input::forget(worker, tab);
    log::warn(&format!(
        "the page in tab {tab} crashed ({aborted} command(s) in flight failed)"
    ));
}

fn on_cdp_event(worker: &Rc<Worker>, source: &JsValue, method: String, params: JsValue) {
    let Some(tab) = debugger::source_tab(source) else {
        return;
    };
    let forwarded = worker.shared.borrow().forwards_cdp_event(tab, &method);
    let tracked = TRACKED_EVENTS.contains(&method.as_str());
    // Read once for both uses.
    let value = if forwarded || tracked {
        match from_js::<Value>(params) {
            Ok(params) => Some(params),
            Err(e) => {
                log::warn(&format!(
                    "dropping {method} from tab {tab}: {}",
                    error_message(&e)
                ));
                None
            }
        }
    } else {
        None
    };
    if let (true, Some(params)) = (tracked, &value) {
        let change = worker.pages.borrow_mut().on_event(tab, &method, params);
        if let Some(change) = change {
            announce::page_changed(worker, tab, change);
        }
    }
    match method.as_str() {
        TARGET_CRASHED => on_crash(worker, tab),
        TARGET_RELOADED_AFTER_CRASH => worker.facts.borrow_mut().reloaded(tab),
        DIALOG_OPENING => worker.facts.borrow_mut().dialog_opened(tab),
        _ => {}
    }
    // Nothing of a blocked page reaches the daemon (its console and
    // dialogs would reach agents): the page's change is reported in the
    // shared list instead.
    let blocked = worker.pages.borrow().blocked(tab).is_some();
    let (true, false, Some(params)) = (forwarded, blocked, value) else {
        return;
    };
    port::send(
        worker,
        &ExtensionToHost::Event {
            event: Event::Cdp {
                tab_id: tab,
                method,
                params,
            },
        },
    );
}
