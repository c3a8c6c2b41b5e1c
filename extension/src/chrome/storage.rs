//! `chrome.storage`: the `local` area (kept across browser restarts) and the
//! `session` area (kept across worker restarts, cleared with the browser),
//! and the change notices of both.

use super::{event, from_js, lookup, to_js, ChromeEvent};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    /// A `chrome.storage.StorageArea`.
    pub(crate) type StorageArea;

    /// `area.get(keys)`: resolves with an object of the found keys.
    #[wasm_bindgen(method, catch, js_name = get)]
    async fn get_raw(this: &StorageArea, keys: &JsValue) -> Result<JsValue, JsValue>;

    /// `area.set(items)`.
    #[wasm_bindgen(method, catch, js_name = set)]
    async fn set_raw(this: &StorageArea, items: &JsValue) -> Result<JsValue, JsValue>;
}

/// `chrome.storage.local`.
pub(crate) fn local() -> Result<StorageArea, JsValue> {
    lookup(&["storage", "local"]).map(JsCast::unchecked_into)
}

/// `chrome.storage.session`.
pub(crate) fn session() -> Result<StorageArea, JsValue> {
    lookup(&["storage", "session"]).map(JsCast::unchecked_into)
}

/// `chrome.storage.onChanged`: `(changes, areaName)`, where `changes` maps
/// each changed key to `{oldValue?, newValue?}`.
pub(crate) fn on_changed() -> Result<ChromeEvent, JsValue> {
    event(&["storage", "onChanged"])
}

impl StorageArea {
    /// The values stored under `keys`, read into `T` (a struct whose
    /// fields are the keys, defaulted when absent).
    pub(crate) async fn get_items<T: DeserializeOwned>(&self, keys: &[&str]) -> Result<T, JsValue> {
        from_js(self.get_raw(&to_js(keys)?).await?)
    }

    /// Stores every field of `items` under its name, in one write.
    pub(crate) async fn set_items<T: Serialize + ?Sized>(&self, items: &T) -> Result<(), JsValue> {
        self.set_raw(&to_js(items)?).await.map(drop)
    }

    /// The value stored under `key`; `undefined` when absent.
    pub(crate) async fn get_key(&self, key: &str) -> Result<JsValue, JsValue> {
        let items = self.get_raw(&JsValue::from_str(key)).await?;
        js_sys::Reflect::get(&items, &JsValue::from_str(key))
    }

    /// Stores `value` under `key`.
    pub(crate) async fn set_key<T: serde::Serialize + ?Sized>(
        &self,
        key: &str,
        value: &T,
    ) -> Result<(), JsValue> {
        let items = js_sys::Object::new();
        js_sys::Reflect::set(&items, &JsValue::from_str(key), &to_js(value)?)?;
        self.set_raw(&items).await.map(drop)
    }
}
