//! The redaction scan that rides with a
//! [`cotab_shared::native::Command::Developer`] call: the
//! daemon's expression, evaluated in the same place as soon as the call
//! answers, both answered at once as a
//! [`cotab_shared::native::Scanned`].

use super::cells::Worker;
use super::handover::{cdp_command, Call};
use crate::chrome::{error_message, object, to_js};
use crate::trace::Marks;
use cotab_shared::native::{runs_in_order_with_scan, CommandClass};
use cotab_shared::{ErrorKind, WireError};
use futures_util::future::{select, Either};
use futures_util::FutureExt as _;
use std::pin::pin;
use wasm_bindgen::JsValue;

/// Whether a `Runtime.evaluate` or `Runtime.callFunctionOn` answer holds
/// no text: no exception, and a result that is a number, a boolean, a
/// bigint, undefined or null (see
/// [`cotab_shared::native::Command::Developer`]'s `scan`), whose
/// description, if any, is its own value written out.
fn holds_no_text(answer: &JsValue) -> bool {
    let get = |o: &JsValue, k: &str| {
        js_sys::Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
    };
    let result = get(answer, "result");
    let text = |k: &str| get(&result, k).as_string().unwrap_or_default();
    get(answer, "exceptionDetails").is_undefined()
        && match text("type").as_str() {
            "number" | "boolean" | "bigint" | "undefined" => true,
            "object" => text("subtype") == "null",
            _ => false,
        }
}

/// Runs `first`, then the redaction scan `scan` (class observe, in the
/// same place), and wraps both in a [`cotab_shared::native::Scanned`]; a
/// failure of `first` is the answer at once and the scan's outcome is
/// dropped. The scan passes the same checks as any command; its failure
/// is reported inside the result, since the first command has already
/// run.
///
/// When the page's main thread runs `first` in order with the scan
/// ([`runs_in_order_with_scan`]), both are sent at once. The browser
/// answers a tab's commands over one channel in the order it settles
/// them, and each answer wakes this task in its own turn of the event
/// loop; so if the first command's answer is seen while the scan's is not
/// yet there, the scan was answered, and (on the page's main thread) run,
/// after the first was settled, and its answer stands. If the scan
/// answered first, or both are seen at once, it is sent again. Such a
/// command's result that holds no text needs no scan: it is neither
/// waited for nor sent again.
pub(super) async fn scanned(
    worker: &Worker,
    generation: u64,
    first: Call<'_>,
    scan: &str,
    marks: &mut Marks,
) -> Result<JsValue, WireError> {
    let mut scratch = Marks::new(String::new(), marks.received);
    let params = serde_json::json!({"expression": scan, "returnByValue": true});
    let scan_call = Call {
        tab: first.tab,
        method: "Runtime.evaluate",
        params: &params,
        class: CommandClass::Observe,
        session: first.session,
    };
    let in_order = runs_in_order_with_scan(first.method);
    let unneeded = |r: &JsValue| in_order && holds_no_text(r);
    let (result, early) = if in_order {
        let a = pin!(cdp_command(worker, generation, &first, marks));
        let b = pin!(cdp_command(worker, generation, &scan_call, &mut scratch));
        match select(a, b).await {
            // A failed first command is answered at once; the scan, if
            // already sent, is dropped and its answer ignored (so is one
            // not needed).
            Either::Left((Err(e), _)) => return Err(e),
            Either::Left((Ok(r), _)) if unneeded(&r) => (Ok(r), None),
            Either::Left((result, mut b)) => match b.as_mut().now_or_never() {
                Some(_) => (result, None),
                None => (result, Some(b.await)),
            },
            Either::Right((_, a)) => (a.await, None),
        }
    } else {
        (cdp_command(worker, generation, &first, marks).await, None)
    };
    let result = result?;
    let second = match early {
        Some(second) => second,
        None if unneeded(&result) => Err(WireError::new(
            ErrorKind::CommandFailed,
            "not sent: the value holds no text",
        )),
        None => cdp_command(worker, generation, &scan_call, &mut scratch).await,
    };
    marks.answered = marks.answered.max(scratch.answered);
    marks.sends += scratch.sends;
    // A `Scanned`, built of the browser's values as they came.
    let scan = match second {
        Ok(value) => object(&[("result", &value)]),
        Err(e) => to_js(&e).and_then(|e| object(&[("error", &e)])),
    };
    scan.and_then(|scan| object(&[("result", &result), ("scan", &scan)]))
        .map_err(|e| WireError::new(ErrorKind::CommandFailed, error_message(&e)))
}
