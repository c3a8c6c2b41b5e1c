//! One CDP command on a tab through `chrome.debugger`, with its own
//! deadline: a renderer crash leaves `sendCommand` unsettled forever, so
//! every command races a timer.
//!
//! While a tab commits a navigation the browser swaps the page the debugger
//! talks to, and a command sent in that instant fails "Not attached to an
//! active page" without reaching any page. Such a command is sent again
//! after a short pause, within its deadline: it never ran, so a retry cannot
//! run it twice.
//!
//! Every press handed to the browser is followed to its answer, whoever
//! stopped waiting for it, so that a release (a key up, a mouse up, a
//! touch end) can wait for the presses of its input ([`presses_answered`]):
//! a press whose handler opens a JavaScript dialog is answered when the
//! dialog closes, and the browser drops input dispatched while a dialog is
//! showing. A release sent meanwhile (the person took control, the daemon
//! gave up on the press) would never reach the page, which would keep the
//! key or button held.

use crate::chrome::{debugger, error_message, to_js};
use crate::state::{cdp_error_message, holds, PendingPresses};
use cotab_shared::input::{input_role, InputRole};
use cotab_shared::{ErrorKind, TabId, WireError};
use futures_util::future::{select, Either};
use gloo_timers::future::TimeoutFuture;
use serde_json::Value;
use std::cell::RefCell;
use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::{spawn_local, JsFuture};

thread_local! {
    /// Presses handed to the browser and not yet answered.
    static PRESSES: RefCell<PendingPresses> = RefCell::new(PendingPresses::default());
    /// The tab of each capture handed to the browser and not yet answered
    /// ([`captures_done`]).
    static CAPTURES: RefCell<Vec<TabId>> = const { RefCell::new(Vec::new()) };
}

/// The capture whose answers a detach waits for.
const CAPTURE: &str = "Page.captureScreenshot";

/// How long a detach waits at most for the captures of its tab, and how
/// often it looks, in milliseconds.
const CAPTURE_WAIT_MS: f64 = 5_000.0;
const CAPTURE_LOOK_MS: u32 = 10;

/// Completes once the browser answered every capture of `tab` handed to
/// it (whether or not a request still waits for it), or after
/// [`CAPTURE_WAIT_MS`]. For a capture of a region the browser resizes the
/// page and gives its size back once the picture is taken, which it never
/// does if the debugger left meanwhile: the page would stay the size of
/// the region.
pub(super) async fn captures_done(tab: TabId) {
    let start = js_sys::Date::now();
    while CAPTURES.with(|c| c.borrow().contains(&tab))
        && js_sys::Date::now() - start < CAPTURE_WAIT_MS
    {
        TimeoutFuture::new(CAPTURE_LOOK_MS).await;
    }
}

/// How a release's wait for the presses of its input went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PressWait {
    /// Not a release, or no press of its input was waiting.
    None,
    /// Presses were waiting, and all were answered.
    Answered,
    /// A press was still waiting at the deadline.
    Late,
}

/// If `method` with `params` releases an input (a key up, a mouse up, a
/// touch end): waits, at most `deadline_ms`, until no press of that input
/// on `tab` waits for the browser's answer.
pub(crate) async fn presses_answered(
    tab: TabId,
    method: &str,
    params: &Value,
    deadline_ms: u64,
) -> PressWait {
    let InputRole::Release(input) = input_role(method, params) else {
        return PressWait::None;
    };
    let pending = PRESSES.with(|p| p.borrow().waiting(tab, &input));
    if pending.is_empty() {
        return PressWait::None;
    }
    let answered = pin!(async {
        for gate in &pending {
            gate.wait().await;
        }
    });
    let timer = pin!(TimeoutFuture::new(
        u32::try_from(deadline_ms).unwrap_or(u32::MAX)
    ));
    match select(answered, timer).await {
        Either::Left(_) => PressWait::Answered,
        Either::Right(_) => PressWait::Late,
    }
}

/// `tab`'s page is gone (closed, crashed, detached): its presses will get
/// no answer that matters, and releases waiting for them may go.
pub(crate) fn presses_gone(tab: TabId) {
    PRESSES.with(|p| p.borrow_mut().gone(tab));
}

/// The browser's message for a command that reached no page because the
/// tab's page was being swapped.
const NOT_ATTACHED: &str = "Not attached to an active page";

/// Pauses before each resend of a command that reached no page.
const RETRY_PAUSES_MS: [u32; 6] = [10, 25, 50, 100, 200, 400];

/// Sends `method` with `params` to `tab`; fails `COMMAND_FAILED` with the
/// browser's message, or `TIMEOUT` after `deadline_ms`. The result is the
/// browser's value as it came (`null` for none), not read into Rust: most
/// results go to the host unopened.
///
/// The command is handed to `chrome.debugger` before this returns, so
/// commands sent one after another reach the tab in that order, however
/// their answers are awaited.
pub(crate) fn send(
    tab: TabId,
    method: &str,
    params: &Value,
    deadline_ms: u64,
) -> impl Future<Output = Result<JsValue, WireError>> {
    send_to(tab, None, method, params, deadline_ms)
}

/// [`send`] to a child session of `tab`'s (a frame in another process, a
/// worker), or to the tab's own for none.
pub(crate) fn send_to(
    tab: TabId,
    session: Option<&str>,
    method: &str,
    params: &Value,
    deadline_ms: u64,
) -> impl Future<Output = Result<JsValue, WireError>> {
    let session = session.map(str::to_owned);
    let start = js_sys::Date::now();
    let press = match input_role(method, params) {
        InputRole::Press(input) => Some(input),
        _ => None,
    };
    let method = method.to_owned();
    // `null` params (none given) become `{}`, which every CDP method accepts.
    let params = if params.is_null() {
        Ok(js_sys::Object::new().into())
    } else {
        to_js(params).map_err(failed)
    };
    let first = params.clone().and_then(|p| {
        send_once(
            tab,
            session.as_deref(),
            &method,
            &p,
            press.clone(),
            deadline_ms,
        )
    });
    async move {
        let mut attempt = first;
        let mut pauses = RETRY_PAUSES_MS.iter();
        loop {
            let result = match attempt {
                Ok(answer) => answer.await,
                Err(e) => Err(e),
            };
            let left = || deadline_ms.saturating_sub((js_sys::Date::now() - start).max(0.0) as u64);
            match result {
                Err(e) if e.kind == ErrorKind::CommandFailed && holds(&e.message, NOT_ATTACHED) => {
                    match pauses.next() {
                        Some(pause) if u64::from(*pause) < left() => {
                            TimeoutFuture::new(*pause).await
                        }
                        _ => return Err(e),
                    }
                }
                other => return other,
            }
            attempt = params.clone().and_then(|p| {
                send_once(tab, session.as_deref(), &method, &p, press.clone(), left())
            });
        }
    }
}

/// A browser refusal as `COMMAND_FAILED`.
fn failed(e: JsValue) -> WireError {
    WireError::new(
        ErrorKind::CommandFailed,
        cdp_error_message(&error_message(&e)),
    )
}

/// One attempt of [`send`]: hands the command to `chrome.debugger` now,
/// and returns the wait for its answer. `press` names the input it
/// presses, if it is a press.
fn send_once(
    tab: TabId,
    session: Option<&str>,
    method: &str,
    params: &JsValue,
    press: Option<String>,
    deadline_ms: u64,
) -> Result<impl Future<Output = Result<JsValue, WireError>>, WireError> {
    let target = debugger::child(tab, session).map_err(failed)?;
    let promise = debugger::send_command(&target, method, params).map_err(failed)?;
    if method == CAPTURE {
        // Followed to its answer in a task of its own, which goes on if
        // nothing waits for it any more.
        CAPTURES.with(|c| c.borrow_mut().push(tab));
        let answered = JsFuture::from(promise.clone());
        spawn_local(async move {
            let _ = answered.await;
            CAPTURES.with(|c| {
                let mut c = c.borrow_mut();
                if let Some(at) = c.iter().position(|t| *t == tab) {
                    c.swap_remove(at);
                }
            });
        });
    }
    let call = JsFuture::from(promise);
    let call = match press {
        None => Either::Left(async { call.await.map_err(failed) }),
        Some(input) => {
            // Followed to its answer in a task of its own, which goes on
            // if this attempt stops waiting.
            let answered = PRESSES.with(|p| p.borrow_mut().sent(tab, input));
            let answer = Rc::new(RefCell::new(None));
            let (gate, slot) = (answered.clone(), answer.clone());
            spawn_local(async move {
                let result = call.await;
                *slot.borrow_mut() = Some(result);
                PRESSES.with(|p| p.borrow_mut().answered(&gate));
            });
            Either::Right(async move {
                answered.wait().await;
                // The task put the answer there before it opened the gate;
                // a gate opened because the page went away has none, and
                // the press may have run.
                let answer = answer.borrow_mut().take();
                match answer {
                    Some(answer) => answer.map_err(failed),
                    None => Err(WireError::new(
                        ErrorKind::UnknownOutcome,
                        "the page went away before it answered",
                    )),
                }
            })
        }
    };
    Ok(async move {
        let call = pin!(call);
        // Deadlines are capped far below u32::MAX milliseconds (about 49 days).
        let timer = pin!(TimeoutFuture::new(
            u32::try_from(deadline_ms).unwrap_or(u32::MAX)
        ));
        match select(call, timer).await {
            // JSON has no `undefined`: a command that returns nothing answers
            // `null`, as the host expects of every result.
            Either::Left((Ok(result), _)) if result.is_undefined() => Ok(JsValue::NULL),
            Either::Left((Ok(result), _)) => Ok(result),
            Either::Left((Err(e), _)) => Err(e),
            Either::Right(_) => Err(WireError::new(
                ErrorKind::Timeout,
                format!("the CDP command did not answer within {deadline_ms} ms"),
            )),
        }
    })
}
