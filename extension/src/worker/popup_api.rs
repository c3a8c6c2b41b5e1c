//! Requests from the popup over `chrome.runtime.onMessage`: `getState`,
//! `share`, `unshare`, `takeControl`, `handBack` and `setDeveloperMode`
//! ([`crate::messages`]). Answers are sent asynchronously with
//! `sendResponse`.
//!
//! They change who controls what, so they are taken only from cotab's
//! popup page, opened by the person: the action popup, or the page in a
//! tab that is not shared. A page in a shared tab may be driven by an
//! agent (cotab's own pages are blocked targets, but a request sent before
//! the tab was suspended must not count either), so its requests are
//! answered with a refusal and change nothing.

use super::cells::Worker;
use super::listen::listen;
use super::{developer_mode, share, takeover};
use crate::chrome::{error_message, from_js, runtime, to_js};
use crate::log;
use crate::messages::{ActionReply, PopupRequest};
use cotab_shared::TabId;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

/// Registers the `chrome.runtime.onMessage` listener.
pub(super) fn register(worker: &Rc<Worker>) {
    let worker = worker.clone();
    listen(
        "chrome.runtime.onMessage",
        runtime::on_message(),
        Closure::<dyn FnMut(JsValue, JsValue, js_sys::Function) -> bool>::new(
            move |message: JsValue, sender: JsValue, send_response: js_sys::Function| {
                if !from_this_extension(&sender) {
                    return false;
                }
                let Ok(request) = from_js::<PopupRequest>(message) else {
                    return false;
                };
                let refusal = refuse(&worker, &sender);
                let worker = worker.clone();
                spawn_local(async move {
                    let reply = match refusal {
                        Some(why) => {
                            log::warn(why);
                            to_js(&ActionReply::from_result(Err(why.to_owned())))
                                .unwrap_or(JsValue::UNDEFINED)
                        }
                        None => answer(&worker, request).await,
                    };
                    if let Err(e) = send_response.call1(&JsValue::NULL, &reply) {
                        log::warn(&format!(
                            "could not answer the popup: {}",
                            error_message(&e)
                        ));
                    }
                });
                // `true` keeps the message channel open for the answer above.
                true
            },
        ),
    );
}

/// Whether `sender.id` is this extension.
fn from_this_extension(sender: &JsValue) -> bool {
    let sender_id = js_sys::Reflect::get(sender, &JsValue::from_str("id"))
        .ok()
        .and_then(|id| id.as_string());
    matches!((sender_id, runtime::id()), (Some(a), Ok(b)) if a == b)
}

/// The file of the popup page.
const POPUP_PAGE: &str = "popup.html";

/// Why a request from `sender` is refused, if it is: it does not come from
/// the popup page, or comes from a tab that is shared (or being shared).
fn refuse(worker: &Worker, sender: &JsValue) -> Option<&'static str> {
    let get = |o: &JsValue, k: &str| js_sys::Reflect::get(o, &JsValue::from_str(k)).ok();
    let url = get(sender, "url")
        .and_then(|u| u.as_string())
        .unwrap_or_default();
    let popup = runtime::get_url(POPUP_PAGE).unwrap_or_default();
    let page = url.split(['?', '#']).next().unwrap_or_default();
    if popup.is_empty() || page != popup {
        return Some("refused a request that did not come from the cotab popup");
    }
    let tab = get(sender, "tab")
        .filter(|t| t.is_object())
        .and_then(|t| get(&t, "id"))
        .and_then(|id| id.as_f64())
        .map(|id| TabId(id as i32));
    if let Some(tab) = tab {
        if worker.state.borrow().refuses_popup_in(tab) {
            return Some("refused a request from a cotab page in a shared tab, which an agent may be driving");
        }
    }
    None
}

async fn answer(worker: &Rc<Worker>, request: PopupRequest) -> JsValue {
    let reply = match request {
        PopupRequest::GetState => {
            worker.restored.wait().await;
            let developer_mode = developer_mode::read_storage().await.unwrap_or(false);
            to_js(&worker.state.borrow().popup_state(developer_mode))
        }
        PopupRequest::Share { tab_id } => to_js(&ActionReply::from_result(
            share::share(worker, tab_id).await,
        )),
        PopupRequest::Unshare { tab_id } => to_js(&ActionReply::from_result(
            share::unshare(worker, tab_id).await,
        )),
        PopupRequest::TakeControl { tab_id } => to_js(&ActionReply::from_result(
            takeover::take_control(worker, tab_id).await,
        )),
        PopupRequest::HandBack { tab_id } => to_js(&ActionReply::from_result(
            takeover::hand_back(worker, tab_id).await,
        )),
        PopupRequest::SetDeveloperMode { enabled } => to_js(&ActionReply::from_result(
            developer_mode::set_by_person(worker, enabled).await,
        )),
    };
    reply.unwrap_or_else(|e| {
        log::error(&format!(
            "could not encode a popup reply: {}",
            error_message(&e)
        ));
        JsValue::UNDEFINED
    })
}
