//! `chrome.action`: the toolbar icon's badge and tooltip, per tab, and
//! whether the person pinned the icon to the toolbar.

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

    /// `chrome.action.getUserSettings()`: `{isOnToolbar}`.
    #[cfg(feature = "popup")]
    #[wasm_bindgen(catch, js_namespace = ["chrome", "action"], js_name = getUserSettings)]
    async fn get_user_settings() -> Result<JsValue, JsValue>;

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

/// Whether the person pinned cotab's icon to the toolbar (else its badge
/// shows only inside the browser's extensions menu).
#[cfg(feature = "popup")]
pub(crate) async fn is_on_toolbar() -> Result<bool, JsValue> {
    let settings = get_user_settings().await?;
    Ok(
        js_sys::Reflect::get(&settings, &JsValue::from_str("isOnToolbar"))?
            .as_bool()
            .unwrap_or(false),
    )
}
