//! Browser events about shared tabs: CDP events to forward, debugger
//! detaches, tab closes, renderer crashes, url/title updates, navigations
//! to and from blocked pages, and moves between tab groups (handed to
//! [`super::group_moves`]). What each changes and causes is
//! [`crate::machine::Machine`]'s; this module wires the listeners, reads
//! what the browser reports and performs the effects.

use super::cells::Worker;
use super::listen::listen;
use super::{announce, group_moves};
use crate::chrome::{debugger, error_message, from_js, tabs};
use crate::effect::Effect;
use crate::log;
use cotab_shared::native::Event;
use cotab_shared::TabId;
use serde_json::Value;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

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
        Closure::<dyn FnMut(i32, JsValue)>::new(move |tab_id: i32, info: JsValue| {
            // With its window: the person closed the window, or the
            // browser is quitting (the daemon tells the two apart by
            // whether the lane goes too).
            let with_window = js_sys::Reflect::get(&info, &JsValue::from_str("isWindowClosing"))
                .is_ok_and(|v| v.is_truthy());
            super::opened::closed(&w, TabId(tab_id));
            let effects = w.state.borrow_mut().tab_removed(TabId(tab_id), with_window);
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
                w.state.borrow_mut().fronts.activated(a.window_id, a.tab_id);
            }
        }),
    );
    let w = worker.clone();
    listen(
        "chrome.webNavigation.onCreatedNavigationTarget",
        tabs::on_created_navigation_target(),
        Closure::<dyn FnMut(JsValue)>::new(move |details: JsValue| {
            match from_js::<tabs::NavigationTarget>(details) {
                Ok(t) => {
                    super::opened::opened(&w, t.tab_id, t.source_tab_id);
                    group_moves::opened(&w, t.tab_id, t.source_tab_id);
                }
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
                let url = has("url").then(|| {
                    js_sys::Reflect::get(&change, &JsValue::from_str("url"))
                        .ok()
                        .and_then(|u| u.as_string())
                        .unwrap_or_default()
                });
                let effects = w
                    .state
                    .borrow_mut()
                    .tab_updated(tab, url.as_deref(), has("title"));
                announce::apply(&w, effects);
                if has("groupId") {
                    group_moves::group_changed(&w, tab);
                }
            },
        ),
    );
}

/// [`crate::machine::Machine::detached`], performed.
pub(super) fn on_detach(worker: &Rc<Worker>, tab: TabId, reason: &str) {
    let effects = worker.state.borrow_mut().detached(tab, reason);
    announce::apply(worker, effects);
}

/// [`crate::machine::Machine::cdp_event`], performed; the params are read
/// into Rust only when the event is wanted.
fn on_cdp_event(worker: &Rc<Worker>, source: &JsValue, method: String, params: JsValue) {
    let Some(tab) = debugger::source_tab(source) else {
        return;
    };
    let session = debugger::source_session(source);
    let wanted = match session {
        Some(_) => worker.state.borrow().forwards_child_events(tab),
        None => worker.state.borrow().wants_cdp_event(tab, &method),
    };
    if !wanted {
        return;
    }
    let params = match from_js::<Value>(params) {
        Ok(params) => Some(params),
        Err(e) => {
            log::warn(&format!(
                "dropping {method} from tab {tab}: {}",
                error_message(&e)
            ));
            None
        }
    };
    let effects = match (session, params) {
        (None, params) => {
            if method == "Fetch.requestPaused" {
                if let Some(id) = params.as_ref().and_then(|p| p["requestId"].as_str()) {
                    worker.note_paused(tab, id);
                }
            }
            worker.state.borrow_mut().cdp_event(tab, method, params)
        }
        (Some(session), Some(params)) => vec![Effect::Send(Event::Cdp {
            tab_id: tab,
            method,
            params,
            session: Some(session),
        })],
        (Some(_), None) => return,
    };
    announce::apply(worker, effects);
}
