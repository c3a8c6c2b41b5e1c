//! Browser events about shared tabs: CDP events to forward, debugger
//! detaches, tab closes, url/title updates and moves between tab groups
//! (handed to [`super::group_moves`]). The decisions are
//! [`crate::state::SharedSet`]'s; this module only wires the listeners.

use super::{group_moves, link, Worker};
use crate::chrome::{debugger, error_message, from_js, tabs, ChromeEvent};
use crate::log;
use cotab_shared::native::{Event, ExtensionToHost};
use cotab_shared::TabId;
use serde_json::Value;
use std::rc::Rc;
use wasm_bindgen::closure::WasmClosure;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Adds `listener` to `event` and leaks it on purpose.
pub(super) fn listen<T: ?Sized + WasmClosure>(
    name: &str,
    event: Result<ChromeEvent, JsValue>,
    listener: Closure<T>,
) {
    if let Err(e) = event.and_then(|ev| ev.add_listener(listener.as_ref().unchecked_ref())) {
        log::error(&format!("cannot listen to {name}: {}", error_message(&e)));
    }
    // Worker-lifetime listener: never removed, and MV3 needs it registered
    // in the first turn, so it is owned by the JS side from here on.
    listener.forget();
}

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
                let effects = w.shared.borrow_mut().on_detach(tab, &reason);
                w.apply(effects);
            }
        }),
    );
    let w = worker.clone();
    listen(
        "chrome.tabs.onRemoved",
        tabs::on_removed(),
        Closure::<dyn FnMut(i32, JsValue)>::new(move |tab_id: i32, _info: JsValue| {
            let effects = w.shared.borrow_mut().on_removed(TabId(tab_id));
            w.apply(effects);
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
                let effects = w.shared.borrow().on_updated(tab, has("url"), has("title"));
                w.apply(effects);
                if has("groupId") {
                    group_moves::group_changed(&w, tab);
                }
            },
        ),
    );
}

fn on_cdp_event(worker: &Rc<Worker>, source: &JsValue, method: String, params: JsValue) {
    let Some(tab) = debugger::source_tab(source) else {
        return;
    };
    if !worker.shared.borrow().forwards_cdp_event(tab, &method) {
        return;
    }
    let params = match from_js::<Value>(params) {
        Ok(params) => params,
        Err(e) => {
            log::warn(&format!(
                "dropping {method} from tab {tab}: {}",
                error_message(&e)
            ));
            return;
        }
    };
    link::send(
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
