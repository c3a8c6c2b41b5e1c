//! `chrome.runtime`: the native port, messages between extension pages, the
//! extension's id, manifest and `lastError`.

use super::{error_message, event, lookup, ChromeEvent};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// A `chrome.runtime.Port`.
    pub(crate) type Port;

    /// `chrome.runtime.connectNative(application)`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = connectNative)]
    pub(crate) fn connect_native(application: &str) -> Result<Port, JsValue>;

    /// `port.postMessage(message)`; throws once the port is disconnected.
    #[wasm_bindgen(method, catch, js_name = postMessage)]
    pub(crate) fn post_message(this: &Port, message: &JsValue) -> Result<(), JsValue>;

    /// `port.disconnect()`: the port's own `onDisconnect` does not fire.
    #[wasm_bindgen(method)]
    pub(crate) fn disconnect(this: &Port);

    /// `port.onMessage`.
    #[wasm_bindgen(method, getter, js_name = onMessage)]
    pub(crate) fn on_message(this: &Port) -> ChromeEvent;

    /// `port.onDisconnect`.
    #[wasm_bindgen(method, getter, js_name = onDisconnect)]
    pub(crate) fn on_disconnect(this: &Port) -> ChromeEvent;

    /// `chrome.runtime.getManifest()`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = getManifest)]
    fn get_manifest() -> Result<JsValue, JsValue>;

    /// `chrome.runtime.getURL(path)`: the extension's url for `path`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = getURL)]
    fn get_url_js(path: &str) -> Result<String, JsValue>;

    /// `chrome.runtime.getContexts(filter)`: the extension's open pages
    /// that `filter` matches.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = getContexts)]
    async fn get_contexts(filter: &JsValue) -> Result<JsValue, JsValue>;

    /// `chrome.runtime.sendMessage(message)`: resolves with the answer.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = sendMessage)]
    pub(crate) async fn send_message(message: &JsValue) -> Result<JsValue, JsValue>;
}

/// `chrome.runtime.onMessage`.
pub(crate) fn on_message() -> Result<ChromeEvent, JsValue> {
    event(&["runtime", "onMessage"])
}

/// `chrome.runtime.onInstalled`: `(details)`, `details.reason` one of
/// `install`, `update` (also an unpacked extension's reload),
/// `chrome_update`, `shared_module_update`.
pub(crate) fn on_installed() -> Result<ChromeEvent, JsValue> {
    event(&["runtime", "onInstalled"])
}

/// `chrome.runtime.onStartup`: the browser profile started.
pub(crate) fn on_startup() -> Result<ChromeEvent, JsValue> {
    event(&["runtime", "onStartup"])
}

/// `chrome.runtime.id`.
pub(crate) fn id() -> Result<String, JsValue> {
    lookup(&["runtime", "id"])?
        .as_string()
        .ok_or_else(|| JsValue::from_str("chrome.runtime.id is not a string"))
}

/// `chrome.runtime.getURL(path)`.
pub(crate) fn get_url(path: &str) -> Result<String, JsValue> {
    get_url_js(path)
}

/// Whether a page of the extension at `url` is open: in a tab, a side
/// panel or a popup.
pub(crate) async fn page_open(url: &str) -> Result<bool, JsValue> {
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Filter<'a> {
        document_urls: [&'a str; 1],
    }
    let found = get_contexts(&super::to_js(&Filter {
        document_urls: [url],
    })?)
    .await?;
    Ok(js_sys::Array::from(&found).length() > 0)
}

/// The `version` field of the manifest.
pub(crate) fn manifest_version() -> Result<String, JsValue> {
    js_sys::Reflect::get(&get_manifest()?, &JsValue::from_str("version"))?
        .as_string()
        .ok_or_else(|| JsValue::from_str("the manifest has no version"))
}

/// `chrome.runtime.lastError.message`, read now; `None` when there is no
/// error.
pub(crate) fn last_error_message() -> Option<String> {
    lookup(&["runtime", "lastError"])
        .ok()
        .map(|err| error_message(&err))
}
