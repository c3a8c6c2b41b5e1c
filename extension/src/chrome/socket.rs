//! `WebSocket`, the one web API the worker uses besides `chrome.*`: the
//! loopback socket the lane may move to. Bound the same way (every call
//! that can throw is `catch`), with the JSON text functions it needs to
//! send and read values without copying them into wasm.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// A `WebSocket`.
    pub(crate) type Socket;

    /// `new WebSocket(url)`; throws on a malformed url.
    #[wasm_bindgen(constructor, catch, js_class = "WebSocket")]
    pub(crate) fn new(url: &str) -> Result<Socket, JsValue>;

    /// `socket.send(data)`; throws while the socket is still connecting.
    #[wasm_bindgen(method, catch)]
    pub(crate) fn send(this: &Socket, data: &JsValue) -> Result<(), JsValue>;

    /// `socket.close()`.
    #[wasm_bindgen(method)]
    pub(crate) fn close(this: &Socket);

    /// `socket.onopen = listener`.
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_onopen(this: &Socket, listener: Option<&js_sys::Function>);

    /// `socket.onmessage = listener` (`listener(event)`, `event.data`).
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_onmessage(this: &Socket, listener: Option<&js_sys::Function>);

    /// `socket.onclose = listener`: after a failed connect too (an
    /// `error` event always comes before it).
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_onclose(this: &Socket, listener: Option<&js_sys::Function>);

    /// `JSON.stringify(value)`, as a JS string.
    #[wasm_bindgen(catch, js_namespace = JSON, js_name = stringify)]
    pub(crate) fn stringify(value: &JsValue) -> Result<JsValue, JsValue>;

    /// `JSON.parse(text)` of a JS string.
    #[wasm_bindgen(catch, js_namespace = JSON, js_name = parse)]
    pub(crate) fn parse(text: &JsValue) -> Result<JsValue, JsValue>;
}

/// `event.data` of a message event.
pub(crate) fn data(event: &JsValue) -> JsValue {
    js_sys::Reflect::get(event, &JsValue::from_str("data")).unwrap_or(JsValue::UNDEFINED)
}
