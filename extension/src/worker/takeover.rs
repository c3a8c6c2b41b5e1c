//! The person takes control of a shared tab back from agents (DESIGN §2,
//! "Control lease"), from the popup or with the keyboard command, and hands
//! it back from the popup.
//!
//! Taking control marks the tab human-controlled in the shared set at once
//! (from then on `act` and `privileged` commands on it are refused, and
//! those in flight fail `HUMAN_HAS_CONTROL`), persists it with the set and
//! sends [`cotab_shared::native::Event::Shared`]. The daemon revokes the
//! agent's lease and releases its held input when it sees the flag. A tab
//! on which raw CDP ran since its debugger attached is re-attached, so
//! nothing it set up (overrides, interception, an inspect overlay, ignored
//! input) stays in the person's way.

use super::cells::Worker;
use super::listen::listen;
use super::{announce, developer_mode};
use crate::chrome::{commands, error_message, tabs};
use crate::log;
use cotab_shared::TabId;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

/// The manifest's name of the keyboard command.
const TAKE_CONTROL_COMMAND: &str = "take-control";

/// Takes control of the shared tab `tab`.
pub(crate) async fn take_control(worker: &Rc<Worker>, tab: TabId) -> Result<(), String> {
    worker.restored.wait().await;
    let (effects, reattach) = worker
        .state
        .borrow_mut()
        .take_control(tab)
        .map_err(|e| e.to_string())?;
    announce::apply(worker, effects);
    // What raw CDP set up in the tab must not stay in the person's way.
    if reattach {
        developer_mode::reattach_taken(worker, tab);
    }
    Ok(())
}

/// Hands `tab` back to agents.
pub(crate) async fn hand_back(worker: &Rc<Worker>, tab: TabId) -> Result<(), String> {
    worker.restored.wait().await;
    let effects = worker.state.borrow_mut().shared.hand_back(tab);
    if !effects.is_empty() {
        log::info(&format!("the person handed tab {tab} back"));
    }
    announce::apply(worker, effects);
    Ok(())
}

/// Registers the `chrome.commands.onCommand` listener: the keyboard command
/// takes control of the active tab of the current window when it is shared
/// (no toggle: handing back is explicit, in the popup).
pub(super) fn register(worker: &Rc<Worker>) {
    let worker = worker.clone();
    listen(
        "chrome.commands.onCommand",
        commands::on_command(),
        Closure::<dyn FnMut(String, JsValue)>::new(move |command: String, tab: JsValue| {
            if command != TAKE_CONTROL_COMMAND {
                return;
            }
            let worker = worker.clone();
            spawn_local(async move {
                let Some(tab) = active_tab(&tab).await else {
                    return;
                };
                worker.restored.wait().await;
                if !worker.state.borrow().shared.contains(tab) {
                    log::info(&format!("take-control: tab {tab} is not shared"));
                    return;
                }
                if let Err(e) = take_control(&worker, tab).await {
                    log::warn(&format!("take-control: {e}"));
                }
            });
        }),
    );
}

/// The tab the command names (the active tab when it was pressed), else
/// the active tab of the current window.
async fn active_tab(tab: &JsValue) -> Option<TabId> {
    let given = js_sys::Reflect::get(tab, &JsValue::from_str("id"))
        .ok()
        .and_then(|id| id.as_f64())
        // Tab ids are small positive integers; the cast keeps them exact.
        .map(|id| TabId(id as i32));
    if given.is_some() {
        return given;
    }
    match tabs::active_in_current_window().await {
        Ok(tab) => tab.and_then(|t| t.id),
        Err(e) => {
            log::warn(&format!(
                "take-control: no active tab: {}",
                error_message(&e)
            ));
            None
        }
    }
}
