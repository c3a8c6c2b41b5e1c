//! `chrome.commands`: the extension's keyboard shortcuts (declared under
//! `commands` in `manifest.json`).

use super::{event, ChromeEvent};
use wasm_bindgen::prelude::*;

/// `chrome.commands.onCommand`: `(command, tab)`; `tab` is the active tab
/// when the shortcut was pressed, and may be absent.
pub(crate) fn on_command() -> Result<ChromeEvent, JsValue> {
    event(&["commands", "onCommand"])
}
