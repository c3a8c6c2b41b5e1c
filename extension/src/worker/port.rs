//! The native port to `dev.cotab.host` and the WebSocket that may take
//! its place: opening the port with the hello, moving the lane to the
//! daemon's loopback WebSocket when it offers one, posting to whichever
//! carries the lane, and noticing either drop (the capped exponential
//! backoff is [`crate::link_state`]'s). What the host's messages mean, and
//! what follows a hello or a drop, is [`super::link`]'s ([`Inbox`]).
//! Messages posted while no port is open are dropped: the next hello and
//! shared list resynchronise the host.
//!
//! The move keeps each direction's order: once the socket is open the
//! worker says `socketOpen` on the port and holds what it sends, and what
//! arrives on the socket, until the daemon's `socketSwitched` (its last
//! message on the port). The lane is then carried by both: when either
//! drops, the other is closed and the link is down, as for a port alone.

use super::cells::{Inbox, PortHandle, SocketHandle, SocketPhase, Worker};
use crate::chrome::runtime::{self, Port};
use crate::chrome::socket::{self, Socket};
use crate::chrome::{error_message, object, storage, to_js};
use crate::{log, trace};
use cotab_shared::native::ExtensionToHost;
use cotab_shared::{LaneId, NATIVE_HOST_NAME, NATIVE_PROTOCOL_VERSION};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;

/// How long offers of a WebSocket are declined after one could not open
/// or was refused, in milliseconds.
const SOCKET_DECLINE_MS: f64 = 60_000.0;

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
/// `reason`: forget it and its WebSocket, and hand `inbox` the drop. A
/// stale generation is ignored.
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
    close_socket(worker);
    (inbox.dropped)(worker.clone(), reason, old);
}

/// The lane is down for `reason` though the port may be open (its
/// WebSocket dropped, or could not take a message): close the port too
/// and hand the drop on.
fn link_lost(worker: &Rc<Worker>, reason: String) {
    let current = worker.port.borrow().as_ref().map(|h| {
        (
            h.port.clone().unchecked_into::<Port>(),
            h.generation,
            h.inbox,
        )
    });
    match current {
        Some((port, generation, inbox)) => {
            port.disconnect();
            disconnected(worker, generation, inbox, reason);
        }
        None => close_socket(worker),
    }
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

/// Posts what `message` builds on the WebSocket when it carries the
/// lane (held while it takes over), else on the port if one is open.
fn post(worker: &Rc<Worker>, message: impl FnOnce() -> Result<JsValue, JsValue>) {
    if !worker.state.borrow().link.can_send() {
        return;
    }
    let phase = worker.socket.borrow().as_ref().map(|h| h.phase);
    if let Some(phase @ (SocketPhase::Switching | SocketPhase::Live)) = phase {
        let sent = message()
            .and_then(|value| socket::stringify(&value))
            .and_then(|text| {
                let mut handle = worker.socket.borrow_mut();
                let Some(handle) = handle.as_mut() else {
                    return Ok(());
                };
                match phase {
                    SocketPhase::Live => handle.socket.send(&text),
                    _ => {
                        handle.outbox.push(text);
                        Ok(())
                    }
                }
            });
        if let Err(e) = sent {
            link_lost(worker, error_message(&e));
        }
        return;
    }
    post_native(worker, message);
}

/// Posts what `message` builds on the port if one is open.
fn post_native(worker: &Rc<Worker>, message: impl FnOnce() -> Result<JsValue, JsValue>) {
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

/// The daemon offers its WebSocket (`port`, `token`) for the open port:
/// open it, unless one is open already or offers are declined for now.
pub(super) fn socket_offered(worker: &Rc<Worker>, port: u16, token: &str) {
    if worker.port.borrow().is_none() || worker.socket.borrow().is_some() {
        return;
    }
    if trace::now() < worker.socket_declined_until.get() {
        log::info("the lane stays on native messaging for now: the WebSocket failed a moment ago");
        return;
    }
    // The token goes into the url as it is: only hex digits may.
    if port == 0 || token.is_empty() || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        log::warn("ignored a malformed WebSocket offer");
        return;
    }
    let socket = match Socket::new(&format!("ws://127.0.0.1:{port}/lane/{token}")) {
        Ok(socket) => socket,
        Err(e) => return decline(worker, &error_message(&e)),
    };
    let id = worker.socket_ids.get().wrapping_add(1);
    worker.socket_ids.set(id);
    let listener = |f: fn(&Rc<Worker>, u64, JsValue)| {
        let worker = worker.clone();
        Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| f(&worker, id, event))
    };
    let listeners = [
        listener(socket_opened),
        listener(socket_message),
        listener(socket_closed),
    ];
    socket.set_onopen(Some(listeners[0].as_ref().unchecked_ref()));
    socket.set_onmessage(Some(listeners[1].as_ref().unchecked_ref()));
    socket.set_onclose(Some(listeners[2].as_ref().unchecked_ref()));
    *worker.socket.borrow_mut() = Some(SocketHandle {
        socket,
        id,
        phase: SocketPhase::Opening,
        outbox: Vec::new(),
        held: Vec::new(),
        _listeners: listeners,
    });
}

/// Whether `id` is the WebSocket the worker keeps, in `phase`.
fn socket_is(worker: &Worker, id: u64, phase: SocketPhase) -> bool {
    worker
        .socket
        .borrow()
        .as_ref()
        .is_some_and(|h| h.id == id && h.phase == phase)
}

fn socket_opened(worker: &Rc<Worker>, id: u64, _event: JsValue) {
    if !socket_is(worker, id, SocketPhase::Opening) {
        return;
    }
    if let Some(h) = worker.socket.borrow_mut().as_mut() {
        h.phase = SocketPhase::Switching;
    }
    post_native(worker, || to_js(&ExtensionToHost::SocketOpen));
}

fn socket_message(worker: &Rc<Worker>, id: u64, event: JsValue) {
    let data = socket::data(&event);
    if socket_is(worker, id, SocketPhase::Switching) {
        if let Some(h) = worker.socket.borrow_mut().as_mut() {
            h.held.push(data);
        }
    } else if socket_is(worker, id, SocketPhase::Live) {
        deliver(worker, &data);
    }
}

/// Hands one message that came on the WebSocket (JSON text) to the inbox.
fn deliver(worker: &Rc<Worker>, text: &JsValue) {
    let inbox = worker.port.borrow().as_ref().map(|h| h.inbox);
    match (socket::parse(text), inbox) {
        (Ok(message), Some(inbox)) => (inbox.message)(worker, message),
        (Ok(_), None) => {}
        (Err(e), _) => log::warn(&format!(
            "ignoring a malformed message on the WebSocket: {}",
            error_message(&e)
        )),
    }
}

fn socket_closed(worker: &Rc<Worker>, id: u64, _event: JsValue) {
    let phase = match worker.socket.borrow().as_ref() {
        Some(h) if h.id == id => h.phase,
        _ => return,
    };
    if phase == SocketPhase::Opening {
        decline(worker, "the WebSocket could not open");
    } else {
        link_lost(worker, "the WebSocket lane closed".to_owned());
    }
}

/// The daemon's `socketSwitched`: the WebSocket carries the lane from now
/// on (what was held goes out, then what arrived is read), or, refused,
/// is closed and what was held goes on the port.
pub(super) fn socket_switched(worker: &Rc<Worker>, accepted: bool) {
    let Some(id) = worker.socket.borrow().as_ref().map(|h| h.id) else {
        return;
    };
    if !socket_is(worker, id, SocketPhase::Switching) {
        return;
    }
    if !accepted {
        let outbox = worker
            .socket
            .borrow_mut()
            .as_mut()
            .map(|h| std::mem::take(&mut h.outbox))
            .unwrap_or_default();
        decline(worker, "the daemon did not take the WebSocket");
        for text in outbox {
            post_native(worker, || socket::parse(&text));
        }
        return;
    }
    let (outbox, held) = {
        let mut handle = worker.socket.borrow_mut();
        let Some(h) = handle.as_mut() else {
            return;
        };
        h.phase = SocketPhase::Live;
        (std::mem::take(&mut h.outbox), std::mem::take(&mut h.held))
    };
    log::info("the lane moved to the WebSocket");
    for text in outbox {
        let sent = worker
            .socket
            .borrow()
            .as_ref()
            .map_or(Ok(()), |h| h.socket.send(&text));
        if let Err(e) = sent {
            return link_lost(worker, error_message(&e));
        }
    }
    for text in held {
        deliver(worker, &text);
    }
}

/// Closes the WebSocket because it failed (`why`), and declines offers
/// for [`SOCKET_DECLINE_MS`]; the port carries the lane meanwhile.
fn decline(worker: &Rc<Worker>, why: &str) {
    log::warn(&format!("the lane stays on native messaging: {why}"));
    worker
        .socket_declined_until
        .set(trace::now() + SOCKET_DECLINE_MS);
    close_socket(worker);
}

/// Closes the WebSocket, if any, without a word to its listeners (its
/// handle goes in a later task: one of them may be running now).
fn close_socket(worker: &Rc<Worker>) {
    let Some(handle) = worker.socket.borrow_mut().take() else {
        return;
    };
    handle.socket.set_onopen(None);
    handle.socket.set_onmessage(None);
    handle.socket.set_onclose(None);
    handle.socket.close();
    spawn_local(async move { drop(handle) });
}

/// Test-only (`cotabSimulateSocketDrop()` on the worker's global): closes
/// the WebSocket that carries the lane as a network failure would, so the
/// link goes down and comes back. Whether one carried it.
pub(super) fn simulate_socket_drop(worker: &Rc<Worker>) -> bool {
    let live = worker
        .socket
        .borrow()
        .as_ref()
        .filter(|h| h.phase == SocketPhase::Live)
        .map(|h| h.id);
    match live {
        Some(id) => {
            socket_closed(worker, id, JsValue::UNDEFINED);
            true
        }
        None => false,
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
