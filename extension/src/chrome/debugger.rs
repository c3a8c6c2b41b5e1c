//! `chrome.debugger`: attach to a tab, send CDP commands, receive its events
//! and detach notices.

use super::{event, to_js, ChromeEvent};
use cotab_shared::TabId;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// The CDP protocol version cotab asks for.
pub(crate) const PROTOCOL_VERSION: &str = "1.3";

#[wasm_bindgen]
extern "C" {
    /// `chrome.debugger.attach(target, requiredVersion)`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "debugger"])]
    pub(crate) async fn attach(
        target: &JsValue,
        required_version: &str,
    ) -> Result<JsValue, JsValue>;

    /// `chrome.debugger.detach(target)`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "debugger"])]
    pub(crate) async fn detach(target: &JsValue) -> Result<JsValue, JsValue>;

    /// `chrome.debugger.sendCommand(target, method, params)`: a promise of
    /// the CDP result. It may never settle (renderer crash): callers race it
    /// against a timeout.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "debugger"], js_name = sendCommand)]
    pub(crate) fn send_command(
        target: &JsValue,
        method: &str,
        params: &JsValue,
    ) -> Result<js_sys::Promise, JsValue>;
}

/// A `chrome.debugger.DebuggerSession` naming a tab, or a child session
/// of the tab's.
#[derive(Serialize)]
struct Debuggee<'a> {
    #[serde(rename = "tabId")]
    tab_id: TabId,
    #[serde(rename = "sessionId", skip_serializing_if = "Option::is_none")]
    session_id: Option<&'a str>,
}

/// The debuggee `{tabId}` for `tab`.
pub(crate) fn debuggee(tab: TabId) -> Result<JsValue, JsValue> {
    child(tab, None)
}

/// The debuggee `{tabId, sessionId}` for a child session of `tab`
/// (`{tabId}` for none).
pub(crate) fn child(tab: TabId, session: Option<&str>) -> Result<JsValue, JsValue> {
    to_js(&Debuggee {
        tab_id: tab,
        session_id: session,
    })
}

/// The child session an event came from (`source.sessionId`), if any.
pub(crate) fn source_session(source: &JsValue) -> Option<String> {
    js_sys::Reflect::get(source, &JsValue::from_str("sessionId"))
        .ok()?
        .as_string()
}

/// The tab of a debuggee (`source.tabId`), if it names one.
pub(crate) fn source_tab(source: &JsValue) -> Option<TabId> {
    js_sys::Reflect::get(source, &JsValue::from_str("tabId"))
        .ok()?
        .as_f64()
        // Tab ids are small positive integers; the cast keeps them exact.
        .map(|id| TabId(id as i32))
}

/// `chrome.debugger.onEvent`: `(source, method, params)`.
pub(crate) fn on_event() -> Result<ChromeEvent, JsValue> {
    event(&["debugger", "onEvent"])
}

/// `chrome.debugger.onDetach`: `(source, reason)`.
pub(crate) fn on_detach() -> Result<ChromeEvent, JsValue> {
    event(&["debugger", "onDetach"])
}
