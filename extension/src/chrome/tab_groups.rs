//! `chrome.tabGroups`: find, read and name tab groups.

use super::{from_js, to_js};
use crate::messages::ChromeTabGroup;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// The colour of the `cotab` group.
pub(crate) const COTAB_COLOR: &str = "blue";

#[wasm_bindgen]
extern "C" {
    /// `chrome.tabGroups.query(queryInfo)`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabGroups"], js_name = query)]
    async fn query_raw(query_info: &JsValue) -> Result<JsValue, JsValue>;

    /// `chrome.tabGroups.get(groupId)`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabGroups"], js_name = get)]
    async fn get_raw(group_id: i32) -> Result<JsValue, JsValue>;

    /// `chrome.tabGroups.update(groupId, updateProperties)`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabGroups"], js_name = update)]
    async fn update_raw(group_id: i32, update_properties: &JsValue) -> Result<JsValue, JsValue>;
}

/// The groups in `window_id`; [`ChromeTabGroup::is_cotab`] tells
/// cotab's.
pub(crate) async fn in_window(window_id: i32) -> Result<Vec<ChromeTabGroup>, JsValue> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Query {
        window_id: i32,
    }
    from_js(query_raw(&to_js(&Query { window_id })?).await?)
}

/// The group `group_id`; `Err` when it is gone.
pub(crate) async fn get(group_id: i32) -> Result<ChromeTabGroup, JsValue> {
    from_js(get_raw(group_id).await?)
}

/// Sets a group's title and colour (`"blue"`, `"grey"` …).
pub(crate) async fn update(group_id: i32, title: &str, color: &str) -> Result<(), JsValue> {
    #[derive(Serialize)]
    struct Update<'a> {
        title: &'a str,
        color: &'a str,
    }
    update_raw(group_id, &to_js(&Update { title, color })?)
        .await
        .map(drop)
}
