//! `chrome.windows`: the window a new tab opens in when no tab is shared.

use super::{from_js, to_js};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `chrome.windows.getLastFocused(queryOptions)`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "windows"], js_name = getLastFocused)]
    async fn get_last_focused_raw(query_options: &JsValue) -> Result<JsValue, JsValue>;
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
