//! `chrome.declarativeNetRequest`: the session rules by which the browser
//! blocks requests itself ([`crate::opened`]).

use super::{from_js, object, to_js};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `chrome.declarativeNetRequest.getSessionRules()`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "declarativeNetRequest"], js_name = getSessionRules)]
    async fn get_session_rules_raw() -> Result<JsValue, JsValue>;

    /// `chrome.declarativeNetRequest.updateSessionRules(options)`.
    #[wasm_bindgen(catch, js_namespace = ["chrome", "declarativeNetRequest"], js_name = updateSessionRules)]
    async fn update_session_rules_raw(options: &JsValue) -> Result<JsValue, JsValue>;
}

/// Puts `rules` (as [`super::to_js`] made them, before any wait: what
/// they are written from may change meanwhile) in place of every session
/// rule, in one update.
pub(crate) async fn replace_session_rules(rules: JsValue) -> Result<(), JsValue> {
    #[derive(serde::Deserialize)]
    struct Rule {
        id: i32,
    }
    let old: Vec<Rule> = from_js(get_session_rules_raw().await?)?;
    let old: Vec<i32> = old.into_iter().map(|r| r.id).collect();
    let options = object(&[("removeRuleIds", &to_js(&old)?), ("addRules", &rules)])?;
    update_session_rules_raw(&options).await.map(drop)
}
