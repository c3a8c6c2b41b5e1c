//! The native port to `dev.cotab.host`: opening it with the hello,
//! posting to it, and noticing it drop (the capped exponential backoff is
//! [`crate::link_state`]'s). What the host's messages mean, and what follows a hello or a
//! drop, is [`super::link`]'s ([`Inbox`]). Messages posted while no port
//! is open are dropped: the next hello and shared list resynchronise the
//! host.

use super::cells::{Inbox, PortHandle, Worker};
use crate::chrome::runtime::{self, Port};
use crate::chrome::{error_message, object, storage, to_js};
use crate::log;
use cotab_shared::native::ExtensionToHost;
use cotab_shared::{LaneId, NATIVE_HOST_NAME, NATIVE_PROTOCOL_VERSION};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// `chrome.storage.local` key of the lane id.
const LANE_ID_KEY: &str = "laneId";

#[wasm_bindgen]
extern "C" {
    /// `crypto.randomUUID()`.
    #[wasm_bindgen(catch, js_namespace = crypto, js_name = randomUUID)]
    fn random_uuid() -> Result<String, JsValue>;
}

/// Opens the port and says hello; returns the attempt's generation. On
/// failure, hands the drop to `inbox` and returns `None`.
pub(super) async fn connect(worker: &Rc<Worker>, inbox: &'static Inbox) -> Option<u64> {
    let generation = worker.generation.get().wrapping_add(1);
    worker.generation.set(generation);
    match open(worker, generation, inbox).await {
        Ok(()) => Some(generation),
        Err(e) => {
            disconnected(worker, generation, inbox, error_message(&e));
            None
        }
    }
}

async fn open(worker: &Rc<Worker>, generation: u64, inbox: &'static Inbox) -> Result<(), JsValue> {
    let hello = ExtensionToHost::Hello {
        protocol_version: NATIVE_PROTOCOL_VERSION,
        lane_id: lane_id(worker).await?,
        extension_id: runtime::id()?,
        version: runtime::manifest_version()?,
    };
    let port = runtime::connect_native(NATIVE_HOST_NAME)?;
    let on_message = Closure::<dyn FnMut(JsValue)>::new({
        let worker = worker.clone();
        move |message: JsValue| (inbox.message)(&worker, message)
    });
    let on_disconnect = Closure::<dyn FnMut(JsValue)>::new({
        let worker = worker.clone();
        move |_port: JsValue| {
            // lastError is only meaningful inside this listener.
            let reason = runtime::last_error_message()
                .unwrap_or_else(|| "the native host closed the port".to_owned());
            disconnected(&worker, generation, inbox, reason);
        }
    });
    port.on_message()
        .add_listener(on_message.as_ref().unchecked_ref())?;
    port.on_disconnect()
        .add_listener(on_disconnect.as_ref().unchecked_ref())?;
    port.post_message(&to_js(&hello)?)?;
    log::mark("firstNativeMessageMs");
    *worker.port.borrow_mut() = Some(PortHandle {
        port,
        generation,
        inbox,
        _on_message: on_message,
        _on_disconnect: on_disconnect,
    });
    worker.state.borrow_mut().link.hello_sent();
    Ok(())
}

/// The port of attempt `generation` closed (or never opened) for
/// `reason`: forget it, and hand `inbox` the drop. A stale generation is
/// ignored.
fn disconnected(worker: &Rc<Worker>, generation: u64, inbox: &'static Inbox, reason: String) {
    if worker.generation.get() != generation {
        return;
    }
    let old = {
        let mut port = worker.port.borrow_mut();
        match port.as_ref() {
            Some(handle) if handle.generation != generation => return,
            _ => port.take(),
        }
    };
    (inbox.dropped)(worker.clone(), reason, old);
}

/// Posts `message` to the host if a port is open; drops it otherwise.
pub(super) fn send(worker: &Rc<Worker>, message: &ExtensionToHost) {
    post(worker, || to_js(message));
}

/// Posts the response to request `id` whose result is `result`, a value
/// the browser gave the worker (a CDP result), as it is: it never passes
/// through wasm, where a capture's base64 image would be copied and
/// converted twice. The same JSON as [`ExtensionToHost::Response`].
pub(super) fn send_js_result(worker: &Rc<Worker>, id: u64, result: &JsValue) {
    post(worker, || {
        object(&[
            ("type", &"response".into()),
            ("id", &to_js(&id)?),
            ("result", result),
        ])
    });
}

/// Posts what `message` builds if a port is open.
fn post(worker: &Rc<Worker>, message: impl FnOnce() -> Result<JsValue, JsValue>) {
    if !worker.state.borrow().link.can_send() {
        return;
    }
    let Some((port, generation, inbox)) = worker.port.borrow().as_ref().map(|h| {
        (
            h.port.clone().unchecked_into::<Port>(),
            h.generation,
            h.inbox,
        )
    }) else {
        return;
    };
    let result = message().and_then(|value| port.post_message(&value));
    if let Err(e) = result {
        disconnected(worker, generation, inbox, error_message(&e));
    }
}

/// This profile's lane id from `chrome.storage.local`, created on first use.
async fn lane_id(worker: &Worker) -> Result<LaneId, JsValue> {
    if let Some(lane) = worker.lane.borrow().clone() {
        return Ok(lane);
    }
    let area = storage::local()?;
    let id = match area.get_key(LANE_ID_KEY).await?.as_string() {
        Some(id) if !id.is_empty() => id,
        _ => {
            let id = random_uuid()?;
            area.set_key(LANE_ID_KEY, &id).await?;
            id
        }
    };
    let lane = LaneId(id);
    *worker.lane.borrow_mut() = Some(lane.clone());
    Ok(lane)
}
