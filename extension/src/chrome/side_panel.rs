//! `chrome.sidePanel`: opening cotab's side panel in a window.

use super::to_js;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `chrome.sidePanel.open({windowId})`; needs the person's gesture.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "sidePanel"], js_name = open)]
    async fn open_raw(options: &JsValue) -> Result<JsValue, JsValue>;
}

/// Opens the side panel in window `window_id`.
pub(crate) async fn open(window_id: i32) -> Result<(), JsValue> {
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Options {
        window_id: i32,
    }
    open_raw(&to_js(&Options { window_id })?).await.map(drop)
}
