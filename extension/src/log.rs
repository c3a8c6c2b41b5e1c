//! Console logging for the worker and the popup, prefixed `cotab:`. The
//! native host never sees these; they are for the person's DevTools.

use wasm_bindgen::JsValue;

/// `console.info`.
pub(crate) fn info(message: &str) {
    web_sys::console::info_1(&JsValue::from_str(&format!("cotab: {message}")));
}

/// `console.warn`.
pub(crate) fn warn(message: &str) {
    web_sys::console::warn_1(&JsValue::from_str(&format!("cotab: {message}")));
}

/// `console.error`.
pub(crate) fn error(message: &str) {
    web_sys::console::error_1(&JsValue::from_str(&format!("cotab: {message}")));
}

/// Logs panics to the console before the module aborts (the release build
/// uses `panic = "abort"`, which would otherwise leave only `unreachable`).
pub(crate) fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| error(&format!("panic: {info}"))));
}
