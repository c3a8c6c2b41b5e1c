//! Per-request timestamps for `cargo xtask bench`: where a host request's
//! time goes inside the worker. Each request the worker answers leaves one
//! record of `performance.now()` marks: received from the port, handed to
//! `chrome.debugger` (after the admission checks), answered by it, and its
//! answer posted to the port. The last [`CAPACITY`] records are kept in
//! memory only (a few dozen bytes each) and read, then cleared, through
//! `self.cotabTrace()` in the worker's global scope. They hold no content:
//! the CDP method name and the times.

use crate::chrome::object;
use std::cell::RefCell;
use std::collections::VecDeque;
use wasm_bindgen::prelude::*;

/// Records kept; older ones are dropped.
const CAPACITY: usize = 4096;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = performance, js_name = now)]
    fn performance_now() -> Result<f64, JsValue>;
}

/// `performance.now()`, or NaN where it is missing.
pub(crate) fn now() -> f64 {
    performance_now().unwrap_or(f64::NAN)
}

/// The marks of one host request, in milliseconds of `performance.now()`;
/// NaN for a step the request did not take.
pub(crate) struct Marks {
    /// What ran: the CDP method, or the command's name.
    pub(crate) what: String,
    pub(crate) received: f64,
    /// When its first CDP command was handed to `chrome.debugger` (for a
    /// command aimed at a frame, the viewport read).
    pub(crate) sent: f64,
    /// When its last CDP command answered.
    pub(crate) answered: f64,
    /// CDP commands sent for the request (a scan sent again counts twice, a
    /// viewport read once).
    pub(crate) sends: u32,
}

impl Marks {
    /// Marks of a request received at `received`.
    pub(crate) fn new(what: String, received: f64) -> Marks {
        Marks {
            what,
            received,
            sent: f64::NAN,
            answered: f64::NAN,
            sends: 0,
        }
    }

    /// Stores the record, its answer posted now.
    pub(crate) fn posted(self) {
        let posted = now();
        RECORDS.with(|r| {
            let mut r = r.borrow_mut();
            if r.len() == CAPACITY {
                r.pop_front();
            }
            r.push_back((self, posted));
        });
    }
}

thread_local! {
    static RECORDS: RefCell<VecDeque<(Marks, f64)>> = const { RefCell::new(VecDeque::new()) };
}

/// Defines `self.cotabTrace()`: returns the records as
/// `[{what, received, sent, answered, posted, sends}]` and clears them.
pub(crate) fn expose() {
    let read = Closure::<dyn Fn() -> JsValue>::new(|| {
        let out = js_sys::Array::new();
        RECORDS.with(|r| {
            for (m, posted) in r.borrow_mut().drain(..) {
                let record = object(&[
                    ("what", &JsValue::from_str(&m.what)),
                    ("received", &m.received.into()),
                    ("sent", &m.sent.into()),
                    ("answered", &m.answered.into()),
                    ("posted", &posted.into()),
                    ("sends", &m.sends.into()),
                ]);
                // Diagnostic only; a record that cannot be built is left out.
                if let Ok(record) = record {
                    out.push(&record);
                }
            }
        });
        out.into()
    });
    let _ = js_sys::Reflect::set(
        &js_sys::global(),
        &JsValue::from_str("cotabTrace"),
        read.as_ref(),
    );
    // Lives as long as the worker.
    read.forget();
}
