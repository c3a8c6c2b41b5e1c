//! `chrome.action`: the toolbar icon's badge and tooltip, per tab.

use super::object;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `chrome.action.setBadgeText({tabId, text})`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "action"], js_name = setBadgeText)]
    async fn set_badge_text(details: &JsValue) -> Result<JsValue, JsValue>;

    /// `chrome.action.setBadgeBackgroundColor({tabId, color})`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "action"], js_name = setBadgeBackgroundColor)]
    async fn set_badge_background_color(details: &JsValue) -> Result<JsValue, JsValue>;

    /// `chrome.action.setTitle({tabId, title})`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "action"], js_name = setTitle)]
    async fn set_title(details: &JsValue) -> Result<JsValue, JsValue>;
}

/// Sets the badge of tab `tab_id`: its `text` (empty: none), background
/// `color` and the icon's tooltip `title`.
pub(crate) async fn set_badge(
    tab_id: i32,
    text: &str,
    color: &str,
    title: &str,
) -> Result<(), JsValue> {
    let tab = JsValue::from(tab_id);
    set_badge_text(&object(&[("tabId", &tab), ("text", &text.into())])?).await?;
    set_badge_background_color(&object(&[("tabId", &tab), ("color", &color.into())])?).await?;
    set_title(&object(&[("tabId", &tab), ("title", &title.into())])?).await?;
    Ok(())
}
