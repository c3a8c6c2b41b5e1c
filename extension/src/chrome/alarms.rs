//! `chrome.alarms`: a periodic alarm wakes a stopped service worker.

use super::{event, lookup, to_js, ChromeEvent};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AlarmInfo {
    period_in_minutes: f64,
}

/// `chrome.alarms.create(name, {periodInMinutes})`; an alarm of the same
/// name is replaced.
pub(crate) fn create(name: &str, period_in_minutes: f64) -> Result<(), JsValue> {
    let create: js_sys::Function = lookup(&["alarms", "create"])?.unchecked_into();
    let alarms = lookup(&["alarms"])?;
    let info = to_js(&AlarmInfo { period_in_minutes })?;
    create
        .call2(&alarms, &JsValue::from_str(name), &info)
        .map(drop)
}

/// `chrome.alarms.onAlarm`: `(alarm)`.
pub(crate) fn on_alarm() -> Result<ChromeEvent, JsValue> {
    event(&["alarms", "onAlarm"])
}
