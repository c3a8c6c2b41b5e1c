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

/// Records the first time `name` is reached in this context as
/// `self.cotabTiming[name]` (`performance.now()`: milliseconds since this
/// context's time origin, for the worker the moment its global was
/// created, before its script ran), for `cargo xtask bench`
/// (the worker's start-up: script start to Rust start to the first native
/// message). Later calls keep the first value; a failure records nothing.
#[cfg(feature = "worker")]
pub(crate) fn mark(name: &str) {
    let now = crate::trace::now();
    if now.is_nan() {
        return;
    }
    let global = js_sys::global();
    let key = JsValue::from_str("cotabTiming");
    let timing = match js_sys::Reflect::get(&global, &key) {
        Ok(t) if t.is_object() => t,
        _ => {
            let t: JsValue = js_sys::Object::new().into();
            if js_sys::Reflect::set(&global, &key, &t).is_err() {
                return;
            }
            t
        }
    };
    let name = JsValue::from_str(name);
    if matches!(js_sys::Reflect::has(&timing, &name), Ok(false)) {
        // Best effort: the figure is diagnostic only.
        let _ = js_sys::Reflect::set(&timing, &name, &JsValue::from_f64(now));
    }
}
