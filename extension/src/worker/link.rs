//! The native link: opens the port to `dev.cotab.host`, says hello, answers
//! the host's messages and reconnects with capped exponential backoff when
//! the port drops.
//!
//! The first message on every port is the hello, then the shared list, then
//! the developer-mode state; the host's welcome marks the link connected and
//! resets the backoff. The host's `controllers` message is kept for the
//! popup and forgotten when the port drops. Messages
//! posted while no port is open are dropped: the next hello and shared list
//! resynchronise the host.

use super::{browser_events, commands, developer_mode, held_input, send_shared, Worker};
use crate::chrome::runtime::{self, Port};
use crate::chrome::{error_message, from_js, object, storage, to_js};
use crate::{log, trace};
use cotab_shared::native::{ExtensionToHost, HostToExtension};
use cotab_shared::{LaneId, NATIVE_HOST_NAME, NATIVE_PROTOCOL_VERSION};
use gloo_timers::future::TimeoutFuture;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;

/// `chrome.storage.local` key of the lane id.
const LANE_ID_KEY: &str = "laneId";

#[wasm_bindgen]
extern "C" {
    /// `crypto.randomUUID()`.
    #[wasm_bindgen(catch, js_namespace = crypto, js_name = randomUUID)]
    fn random_uuid() -> Result<String, JsValue>;
}

/// An open port with the listeners that belong to it. Dropping it releases
/// the listeners; the port itself is already closed by then.
pub(crate) struct PortHandle {
    port: Port,
    generation: u64,
    _on_message: Closure<dyn FnMut(JsValue)>,
    _on_disconnect: Closure<dyn FnMut(JsValue)>,
}

/// Opens the port and says hello; on failure, schedules the next attempt.
pub(crate) async fn connect(worker: Rc<Worker>) {
    let generation = worker.generation.get().wrapping_add(1);
    worker.generation.set(generation);
    if let Err(e) = open(&worker, generation).await {
        disconnected(&worker, generation, error_message(&e));
        return;
    }
    // The shared list follows the hello once the restore is done, then the
    // developer-mode state.
    worker.restored.wait().await;
    if worker.generation.get() == generation {
        send_shared(worker.clone()).await;
    }
    if worker.generation.get() == generation {
        developer_mode::send_current(&worker).await;
    }
}

async fn open(worker: &Rc<Worker>, generation: u64) -> Result<(), JsValue> {
    let hello = ExtensionToHost::Hello {
        protocol_version: NATIVE_PROTOCOL_VERSION,
        lane_id: lane_id(worker).await?,
        extension_id: runtime::id()?,
        version: runtime::manifest_version()?,
    };
    let port = runtime::connect_native(NATIVE_HOST_NAME)?;
    let on_message = Closure::<dyn FnMut(JsValue)>::new({
        let worker = worker.clone();
        move |message: JsValue| on_host_message(&worker, message)
    });
    let on_disconnect = Closure::<dyn FnMut(JsValue)>::new({
        let worker = worker.clone();
        move |_port: JsValue| {
            // lastError is only meaningful inside this listener.
            let reason = runtime::last_error_message()
                .unwrap_or_else(|| "the native host closed the port".to_owned());
            disconnected(&worker, generation, reason);
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
        _on_message: on_message,
        _on_disconnect: on_disconnect,
    });
    worker.link.borrow_mut().hello_sent();
    Ok(())
}

/// The port of attempt `generation` closed (or never opened): forget it and
/// reconnect after the backoff delay. A stale generation is ignored.
fn disconnected(worker: &Rc<Worker>, generation: u64, reason: String) {
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
    let delay = worker.link.borrow_mut().disconnected(reason.clone());
    // Nobody waits for their answers any more.
    worker
        .in_flight
        .borrow_mut()
        .abort_all("the native link dropped");
    // The daemon's word on who controls what ends with the link.
    worker.holders.borrow_mut().clear();
    log::warn(&format!(
        "native host {NATIVE_HOST_NAME} disconnected: {reason}; retrying in {delay} ms"
    ));
    let worker = worker.clone();
    spawn_local(async move {
        // The old port's listeners may be running right now (this is called
        // from its onDisconnect); they are dropped here, in a later task.
        drop(old);
        // The daemon dropped what agents held when it lost this link; the
        // pages still hold it.
        held_input::release_all(&worker).await;
        TimeoutFuture::new(delay).await;
        connect(worker).await;
    });
}

/// Posts `message` to the host if a port is open; drops it otherwise.
pub(crate) fn send(worker: &Rc<Worker>, message: &ExtensionToHost) {
    post(worker, || to_js(message));
}

/// Posts the response to request `id` whose result is `result`, a value
/// the browser gave the worker (a CDP result), as it is: it never passes
/// through wasm, where a capture's base64 image would be copied and
/// converted twice. The same JSON as [`ExtensionToHost::Response`].
pub(crate) fn send_js_result(worker: &Rc<Worker>, id: u64, result: &JsValue) {
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
    if !worker.link.borrow().can_send() {
        return;
    }
    let Some((port, generation)) = worker
        .port
        .borrow()
        .as_ref()
        .map(|h| (h.port.clone().unchecked_into::<Port>(), h.generation))
    else {
        return;
    };
    let result = message().and_then(|value| port.post_message(&value));
    if let Err(e) = result {
        disconnected(worker, generation, error_message(&e));
    }
}

fn on_host_message(worker: &Rc<Worker>, message: JsValue) {
    let received = trace::now();
    match from_js::<HostToExtension>(message) {
        Ok(HostToExtension::Welcome { protocol_version }) => {
            match worker.link.borrow_mut().welcome(protocol_version) {
                Ok(()) => log::info("native host connected"),
                Err(e) => log::warn(&e),
            }
        }
        Ok(HostToExtension::Controllers { tabs }) => {
            *worker.holders.borrow_mut() = tabs.into_iter().map(|c| (c.tab_id, c.holder)).collect();
        }
        Ok(HostToExtension::Policy { file_dirs }) => {
            let changes = worker.pages.borrow_mut().set_files(file_dirs);
            for (tab, change) in changes {
                browser_events::page_changed(worker, tab, change);
            }
        }
        Ok(HostToExtension::Request { id, command }) => {
            spawn_local(commands::handle(worker.clone(), id, command, received));
        }
        Err(e) => log::warn(&format!(
            "ignoring a malformed message from the native host: {}",
            error_message(&e)
        )),
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
