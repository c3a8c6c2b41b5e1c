//! Adding the worker's listeners to chrome.* events: each is added in the
//! worker's first turn (MV3 delivers the event that woke the worker only to
//! those) and lives as long as the worker.

use crate::chrome::{error_message, ChromeEvent};
use crate::log;
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
