//! Thin bindings to the `chrome.*` extension APIs, one module per namespace
//! (and `socket`, the `WebSocket` the lane may move to), plus the helpers
//! they share: looking up a namespace member at call time,
//! the `chrome.events.Event` type, and JS ↔ Rust value conversion.
//!
//! Every binding is `catch`: a namespace that is missing (no permission,
//! wrong context) is an `Err`, never a trap. Promise-returning APIs are
//! bound as `async fn` (MV3 returns promises when no callback is given).
//! These modules hold no state and no cotab logic.

pub(crate) mod action;
pub(crate) mod alarms;
pub(crate) mod commands;
pub(crate) mod debugger;
pub(crate) mod net_rules;
pub(crate) mod notifications;
pub(crate) mod runtime;
pub(crate) mod side_panel;
pub(crate) mod socket;
pub(crate) mod storage;
pub(crate) mod tab_groups;
pub(crate) mod tabs;
pub(crate) mod windows;

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    /// A `chrome.events.Event`, such as `chrome.tabs.onRemoved`.
    pub(crate) type ChromeEvent;

    /// `event.addListener(listener)`.
    #[wasm_bindgen(method, catch, js_name = addListener)]
    pub(crate) fn add_listener(
        this: &ChromeEvent,
        listener: &js_sys::Function,
    ) -> Result<(), JsValue>;
}

/// Reads `chrome.<path…>` now (not once at start-up, so values such as
/// `runtime.lastError` are current). A missing member is an `Err`.
pub(crate) fn lookup(path: &[&str]) -> Result<JsValue, JsValue> {
    let mut value = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("chrome"))?;
    let mut name = String::from("chrome");
    for part in path {
        if value.is_undefined() || value.is_null() {
            break;
        }
        value = js_sys::Reflect::get(&value, &JsValue::from_str(part))?;
        name.push('.');
        name.push_str(part);
    }
    if value.is_undefined() || value.is_null() {
        return Err(js_sys::Error::new(&format!("{name} is not available")).into());
    }
    Ok(value)
}

/// The event at `chrome.<path…>`.
pub(crate) fn event(path: &[&str]) -> Result<ChromeEvent, JsValue> {
    lookup(path).map(JsCast::unchecked_into)
}

/// Serialises `value` to a plain JS value. `json_compatible` makes objects
/// plain objects: the default makes `Map`s, which chrome.* and CDP read as
/// `{}` without an error.
pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(Into::into)
}

/// Deserialises a JS value.
pub(crate) fn from_js<T: DeserializeOwned>(value: JsValue) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(value).map_err(Into::into)
}

/// A plain JS object with `fields`, in order.
pub(crate) fn object(fields: &[(&str, &JsValue)]) -> Result<JsValue, JsValue> {
    let o = js_sys::Object::new();
    for (key, value) in fields {
        js_sys::Reflect::set(&o, &JsValue::from_str(key), value)?;
    }
    Ok(o.into())
}

/// The message of a thrown value or rejected promise's reason.
pub(crate) fn error_message(err: &JsValue) -> String {
    if let Some(e) = err.dyn_ref::<js_sys::Error>() {
        return String::from(e.message());
    }
    if let Some(s) = err.as_string() {
        return s;
    }
    js_sys::Reflect::get(err, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| format!("{err:?}"))
}
