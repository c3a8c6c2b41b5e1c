//! `chrome.sidePanel`: opening cotab's side panel in a window.

use super::to_js;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `chrome.sidePanel.open({windowId})`; needs the person's gesture.
    #[cfg(feature = "popup")]
    #[wasm_bindgen(catch, js_namespace = ["chrome", "sidePanel"], js_name = open)]
    async fn open_raw(options: &JsValue) -> Result<JsValue, JsValue>;

    #[cfg(feature = "worker")]
    /// `chrome.sidePanel.open(options)`, called at once: a listener
    /// keeps the person's gesture only while it runs.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "sidePanel"], js_name = open)]
    fn open_now(options: &JsValue) -> Result<js_sys::Promise, JsValue>;
}

/// Opens the side panel in window `window_id`.
#[cfg(feature = "popup")]
pub(crate) async fn open(window_id: i32) -> Result<(), JsValue> {
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Options {
        window_id: i32,
    }
    open_raw(&to_js(&Options { window_id })?).await.map(drop)
}

#[cfg(feature = "worker")]
/// Opens the side panel in `tab`'s window now, within the gesture of
/// the listener that calls it; the promise settles with the outcome.
pub(crate) fn open_at_tab(tab: cotab_shared::TabId) -> Result<js_sys::Promise, JsValue> {
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Options {
        tab_id: cotab_shared::TabId,
    }
    open_now(&to_js(&Options { tab_id: tab })?)
}
