//! One CDP command on a tab through `chrome.debugger`, with its own
//! deadline: a renderer crash leaves `sendCommand` unsettled forever, so
//! every command races a timer.

use crate::chrome::{debugger, error_message, from_js, to_js};
use crate::state::cdp_error_message;
use cotab_shared::{ErrorKind, TabId, WireError};
use futures_util::future::{select, Either};
use gloo_timers::future::TimeoutFuture;
use serde_json::Value;
use std::pin::pin;

/// Sends `method` with `params` to `tab`; fails `COMMAND_FAILED` with the
/// browser's message, or `TIMEOUT` after `deadline_ms`.
pub(crate) async fn send(
    tab: TabId,
    method: &str,
    params: &Value,
    deadline_ms: u64,
) -> Result<Value, WireError> {
    let failed = |e: wasm_bindgen::JsValue| {
        WireError::new(
            ErrorKind::CommandFailed,
            cdp_error_message(&error_message(&e)),
        )
    };
    let target = debugger::debuggee(tab).map_err(failed)?;
    // `null` params (none given) become `{}`, which every CDP method accepts.
    let params = if params.is_null() {
        js_sys::Object::new().into()
    } else {
        to_js(params).map_err(failed)?
    };
    let call = pin!(debugger::send_command(&target, method, &params));
    // Deadlines are capped far below u32::MAX milliseconds (about 49 days).
    let timer = pin!(TimeoutFuture::new(
        u32::try_from(deadline_ms).unwrap_or(u32::MAX)
    ));
    match select(call, timer).await {
        Either::Left((Ok(result), _)) => from_js(result).map_err(failed),
        Either::Left((Err(e), _)) => Err(failed(e)),
        Either::Right(_) => Err(WireError::new(
            ErrorKind::Timeout,
            format!("the CDP command did not answer within {deadline_ms} ms"),
        )),
    }
}
