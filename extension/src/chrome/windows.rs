//! `chrome.windows`: the window a new tab opens in when no tab is shared,
//! and whether a window shows a tab strip.

use super::{from_js, to_js};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `chrome.windows.getLastFocused(queryOptions)`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "windows"], js_name = getLastFocused)]
    async fn get_last_focused_raw(query_options: &JsValue) -> Result<JsValue, JsValue>;

    /// `chrome.windows.get(windowId)`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "windows"], js_name = get)]
    async fn get_raw(window_id: i32) -> Result<JsValue, JsValue>;
}

/// Whether `window_id` is a normal browser window: the only kind whose tab
/// strip shows tab groups (a popup window has none).
pub(crate) async fn is_normal(window_id: i32) -> Result<bool, JsValue> {
    #[derive(Deserialize)]
    struct Window {
        #[serde(rename = "type", default)]
        kind: String,
    }
    let window: Window = from_js(get_raw(window_id).await?)?;
    Ok(window.kind == "normal")
}

/// The id of the normal browser window focused last (popups and DevTools
/// windows are left out); `Err` when there is none.
pub(crate) async fn last_focused_normal() -> Result<i32, JsValue> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Query {
        window_types: [&'static str; 1],
    }
    #[derive(Deserialize)]
    struct Window {
        id: i32,
    }
    let window: Window = from_js(
        get_last_focused_raw(&to_js(&Query {
            window_types: ["normal"],
        })?)
        .await?,
    )?;
    Ok(window.id)
}
