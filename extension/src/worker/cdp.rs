//! One CDP command on a tab through `chrome.debugger`, with its own
//! deadline: a renderer crash leaves `sendCommand` unsettled forever, so
//! every command races a timer.
//!
//! While a tab commits a navigation the browser swaps the page the debugger
//! talks to, and a command sent in that instant fails "Not attached to an
//! active page" without reaching any page. Such a command is sent again
//! after a short pause, within its deadline: it never ran, so a retry cannot
//! run it twice.

use crate::chrome::{debugger, error_message, to_js};
use crate::state::cdp_error_message;
use cotab_shared::{ErrorKind, TabId, WireError};
use futures_util::future::{select, Either};
use gloo_timers::future::TimeoutFuture;
use serde_json::Value;
use std::pin::pin;
use wasm_bindgen::JsValue;

/// The browser's message for a command that reached no page because the
/// tab's page was being swapped.
const NOT_ATTACHED: &str = "Not attached to an active page";

/// Pauses before each resend of a command that reached no page.
const RETRY_PAUSES_MS: [u32; 6] = [10, 25, 50, 100, 200, 400];

/// Sends `method` with `params` to `tab`; fails `COMMAND_FAILED` with the
/// browser's message, or `TIMEOUT` after `deadline_ms`. The result is the
/// browser's value as it came (`null` for none), not read into Rust: most
/// results go to the host unopened.
pub(crate) async fn send(
    tab: TabId,
    method: &str,
    params: &Value,
    deadline_ms: u64,
) -> Result<JsValue, WireError> {
    let start = js_sys::Date::now();
    let mut pauses = RETRY_PAUSES_MS.iter();
    loop {
        let spent = (js_sys::Date::now() - start).max(0.0) as u64;
        let left = deadline_ms.saturating_sub(spent);
        match send_once(tab, method, params, left).await {
            Err(e) if e.kind == ErrorKind::CommandFailed && e.message.contains(NOT_ATTACHED) => {
                match pauses.next() {
                    Some(pause) if u64::from(*pause) < left => TimeoutFuture::new(*pause).await,
                    _ => return Err(e),
                }
            }
            other => return other,
        }
    }
}

/// One attempt of [`send`].
async fn send_once(
    tab: TabId,
    method: &str,
    params: &Value,
    deadline_ms: u64,
) -> Result<JsValue, WireError> {
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
        // JSON has no `undefined`: a command that returns nothing answers
        // `null`, as the host expects of every result.
        Either::Left((Ok(result), _)) if result.is_undefined() => Ok(JsValue::NULL),
        Either::Left((Ok(result), _)) => Ok(result),
        Either::Left((Err(e), _)) => Err(failed(e)),
        Either::Right(_) => Err(WireError::new(
            ErrorKind::Timeout,
            format!("the CDP command did not answer within {deadline_ms} ms"),
        )),
    }
}
