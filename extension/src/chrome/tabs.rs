//! `chrome.tabs`: read, list, open, close and group tabs; tab close and
//! update events, and the tabs pages open (`chrome.webNavigation`).

use super::{event, from_js, to_js, ChromeEvent};
use crate::messages::ChromeTab;
use cotab_shared::TabId;
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `chrome.tabs.get(tabId)`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = get)]
    async fn get_raw(tab_id: i32) -> Result<JsValue, JsValue>;

    /// `chrome.tabs.query(queryInfo)`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = query)]
    async fn query_raw(query_info: &JsValue) -> Result<JsValue, JsValue>;

    /// `chrome.tabs.group(options)`: resolves with the group id.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = group)]
    async fn group_raw(options: &JsValue) -> Result<JsValue, JsValue>;

    /// `chrome.tabs.ungroup(tabIds)`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = ungroup)]
    async fn ungroup_raw(tab_ids: &JsValue) -> Result<JsValue, JsValue>;

    /// `chrome.tabs.create(createProperties)`: resolves with the new tab.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = create)]
    async fn create_raw(create_properties: &JsValue) -> Result<JsValue, JsValue>;

    /// `chrome.tabs.update(tabId, updateProperties)`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = update)]
    async fn update_raw(tab_id: i32, update_properties: &JsValue) -> Result<JsValue, JsValue>;

    /// `chrome.tabs.remove(tabIds)`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = remove)]
    async fn remove_raw(tab_ids: &JsValue) -> Result<JsValue, JsValue>;

    #[cfg(feature = "popup")]
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = getCurrent)]
    async fn get_current_raw() -> Result<JsValue, JsValue>;
}

/// The tab `tab`; `Err` when it is gone.
pub(crate) async fn get(tab: TabId) -> Result<ChromeTab, JsValue> {
    from_js(get_raw(tab.0).await?)
}

/// Every tab of every window.
#[cfg(feature = "worker")]
pub(crate) async fn query_all() -> Result<Vec<ChromeTab>, JsValue> {
    from_js(query_raw(&js_sys::Object::new().into()).await?)
}

/// Takes `tab` to `url`, as the browser's own navigation (no page
/// starts it).
#[cfg(feature = "worker")]
pub(crate) async fn navigate(tab: TabId, url: &str) -> Result<(), JsValue> {
    #[derive(Serialize)]
    struct Update<'a> {
        url: &'a str,
    }
    update_raw(tab.0, &to_js(&Update { url })?).await.map(drop)
}

/// The tabs of the window the caller runs in.
#[cfg(feature = "popup")]
pub(crate) async fn query_current_window() -> Result<Vec<ChromeTab>, JsValue> {
    #[derive(Serialize)]
    struct Query {
        #[serde(rename = "currentWindow")]
        current_window: bool,
    }
    from_js(
        query_raw(&to_js(&Query {
            current_window: true,
        })?)
        .await?,
    )
}

/// The active tab of the current window (for the worker: the window
/// focused last), if any.
pub(crate) async fn active_in_current_window() -> Result<Option<ChromeTab>, JsValue> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Query {
        active: bool,
        current_window: bool,
    }
    let tabs: Vec<ChromeTab> = from_js(
        query_raw(&to_js(&Query {
            active: true,
            current_window: true,
        })?)
        .await?,
    )?;
    Ok(tabs.into_iter().next())
}

/// Options of `chrome.tabs.group`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GroupOptions {
    tab_ids: Vec<TabId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    group_id: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    create_properties: Option<CreateProperties>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CreateProperties {
    window_id: i32,
}

/// Adds `tab` to the group `group_id`.
pub(crate) async fn add_to_group(tab: TabId, group_id: i32) -> Result<(), JsValue> {
    let options = GroupOptions {
        tab_ids: vec![tab],
        group_id: Some(group_id),
        create_properties: None,
    };
    group_raw(&to_js(&options)?).await.map(drop)
}

/// Puts `tab` in a new group in `window_id`; returns the group id.
pub(crate) async fn group_in_new(tab: TabId, window_id: i32) -> Result<i32, JsValue> {
    let options = GroupOptions {
        tab_ids: vec![tab],
        group_id: None,
        create_properties: Some(CreateProperties { window_id }),
    };
    from_js(group_raw(&to_js(&options)?).await?)
}

/// Takes `tab` out of its group.
pub(crate) async fn ungroup(tab: TabId) -> Result<(), JsValue> {
    ungroup_raw(&to_js(&[tab])?).await.map(drop)
}

/// Opens `url` in a new active tab of `window_id` (the current window when
/// `None`); resolves with the tab as the browser first reports it (its url
/// may still be empty).
pub(crate) async fn create(url: &str, window_id: Option<i32>) -> Result<ChromeTab, JsValue> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Create<'a> {
        url: &'a str,
        active: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        window_id: Option<i32>,
    }
    from_js(
        create_raw(&to_js(&Create {
            url,
            active: true,
            window_id,
        })?)
        .await?,
    )
}

/// Brings `tab` to the front of its window.
pub(crate) async fn activate(tab: TabId) -> Result<(), JsValue> {
    #[derive(Serialize)]
    struct Update {
        active: bool,
    }
    update_raw(tab.0, &to_js(&Update { active: true })?)
        .await
        .map(drop)
}

/// The tab the calling extension page is in; `Err` when it is in none
/// (the popup, the side panel).
#[cfg(feature = "popup")]
pub(crate) async fn current() -> Result<ChromeTab, JsValue> {
    from_js(get_current_raw().await?)
}

/// Closes `tab`.
pub(crate) async fn remove(tab: TabId) -> Result<(), JsValue> {
    remove_raw(&to_js(&[tab])?).await.map(drop)
}

/// `chrome.tabs.onRemoved`: `(tabId, removeInfo)`.
pub(crate) fn on_removed() -> Result<ChromeEvent, JsValue> {
    event(&["tabs", "onRemoved"])
}

/// `chrome.webNavigation.onCreatedNavigationTarget`: `(details)`, for a
/// tab or window a page opened to navigate in (a link with a target,
/// `window.open`).
pub(crate) fn on_created_navigation_target() -> Result<ChromeEvent, JsValue> {
    event(&["webNavigation", "onCreatedNavigationTarget"])
}

/// The parts of `onCreatedNavigationTarget`'s details the worker uses.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NavigationTarget {
    /// The tab whose page opened it.
    pub(crate) source_tab_id: TabId,
    /// The new tab.
    pub(crate) tab_id: TabId,
}

/// `chrome.webNavigation.onCommitted`: `(details)`, a frame showed a
/// document.
pub(crate) fn on_committed() -> Result<ChromeEvent, JsValue> {
    event(&["webNavigation", "onCommitted"])
}

/// `chrome.webNavigation.onErrorOccurred`: `(details)`, a frame's
/// navigation failed.
pub(crate) fn on_error_occurred() -> Result<ChromeEvent, JsValue> {
    event(&["webNavigation", "onErrorOccurred"])
}

/// The parts of `onCommitted`'s and `onErrorOccurred`'s details the
/// worker uses, of a tab's main frame.
#[derive(Debug, Clone)]
pub(crate) struct MainFrameNavigation {
    /// The tab.
    pub(crate) tab_id: TabId,
    /// Where it went.
    pub(crate) url: String,
    /// Why it failed (`onErrorOccurred`), or empty.
    pub(crate) error: String,
}

impl MainFrameNavigation {
    /// Reads `details` (read by name: it is read for every navigation of
    /// every tab); `None` for a frame's, or what is not a navigation.
    pub(crate) fn read(details: &JsValue) -> Option<MainFrameNavigation> {
        let get = |key: &str| js_sys::Reflect::get(details, &JsValue::from_str(key)).ok();
        if get("frameId")?.as_f64()? != 0.0 {
            return None;
        }
        // Tab ids are small positive integers; the cast keeps them exact.
        let tab_id = TabId(get("tabId")?.as_f64()? as i32);
        let text = |key: &str| get(key).and_then(|v| v.as_string()).unwrap_or_default();
        Some(MainFrameNavigation {
            tab_id,
            url: text("url"),
            error: text("error"),
        })
    }
}

/// `chrome.tabs.onActivated`: `(activeInfo)`.
pub(crate) fn on_activated() -> Result<ChromeEvent, JsValue> {
    event(&["tabs", "onActivated"])
}

/// The parts of `onActivated`'s `activeInfo` the worker uses.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Activated {
    /// The tab now in front.
    pub(crate) tab_id: TabId,
    /// The window it is in.
    pub(crate) window_id: i32,
}

/// `chrome.tabs.onCreated`: `(tab)`.
pub(crate) fn on_created() -> Result<ChromeEvent, JsValue> {
    event(&["tabs", "onCreated"])
}

/// `chrome.tabs.onUpdated`: `(tabId, changeInfo, tab)`.
pub(crate) fn on_updated() -> Result<ChromeEvent, JsValue> {
    event(&["tabs", "onUpdated"])
}
