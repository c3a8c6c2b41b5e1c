//! `chrome.notifications`: the system notification the worker shows when
//! an agent's request waits for the person's yes and no side panel is
//! open.

use super::to_js;
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "notifications"], js_name = create)]
    async fn create_raw(id: &str, options: &JsValue) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "notifications"], js_name = clear)]
    async fn clear_raw(id: &str) -> Result<JsValue, JsValue>;
}

/// Shows notification `id` (replacing one of that id) with `title` and
/// `message` and cotab's icon, until it is cleared or the person closes
/// it.
pub(crate) async fn show(id: &str, title: &str, message: &str) -> Result<(), JsValue> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Options<'a> {
        r#type: &'a str,
        icon_url: &'a str,
        title: &'a str,
        message: &'a str,
        require_interaction: bool,
        priority: i32,
    }
    let options = Options {
        r#type: "basic",
        icon_url: "icons/cotab-128.png",
        title,
        message,
        require_interaction: true,
        priority: 2,
    };
    create_raw(id, &to_js(&options)?).await.map(drop)
}

/// Takes notification `id` away; one not shown is no error.
pub(crate) async fn clear(id: &str) -> Result<(), JsValue> {
    clear_raw(id).await.map(drop)
}

/// `chrome.notifications.onClicked(id)`.
pub(crate) fn on_clicked() -> Result<super::ChromeEvent, JsValue> {
    super::event(&["notifications", "onClicked"])
}
