//! One CDP call of a lane operation, from what it must learn first to its
//! hand-over to `chrome.debugger`: a release waits for its press, a
//! privileged call reads developer mode live, raw CDP looks up the history
//! entry it goes to, input aimed at a frame reads the live viewport; then
//! [`dispatch`] admits the call, once, with no await between that and the
//! hand-over, and registers it in the in-flight registry and the ledger of
//! held input until it answers.

use super::cdp::{self, PressWait};
use super::cells::Worker;
use super::{developer_mode, held_input};
use crate::chrome::{error_message, from_js};
use crate::control::{developer_mode_off, Admission};
use crate::trace::{self, Marks};
use cotab_shared::controller::FrameGeometry;
use cotab_shared::limits::DEFAULT_DEADLINE_MS;
use cotab_shared::native::{check_viewport, CdpCall, CommandClass};
use cotab_shared::reach::{check_child_cdp, check_driveable, check_raw_cdp, RawCdp};
use cotab_shared::{ErrorKind, TabId, WireError};
use futures_util::future::{select, Either};
use serde_json::Value;
use std::future::Future;
use std::pin::{pin, Pin};
use wasm_bindgen::JsValue;

/// One CDP call on a shared tab, if its class allows it; other tabs are
/// never touched. A read that failed while a re-attach of the
/// worker's own (developer mode off, a takeover after raw CDP) replaced
/// its session is sent once more, on the new session: it changed nothing,
/// and the person's switch must not fail the agent's reads. Nothing else
/// is sent again (it may have run).
pub(super) async fn cdp_command(
    worker: &Worker,
    generation: u64,
    call: &Call<'_>,
    marks: &mut Marks,
) -> Result<JsValue, WireError> {
    let rounds = worker.state.borrow().developer.reattach_rounds();
    let first = cdp_command_once(worker, generation, call, marks).await;
    match first {
        Err(_) if call.class == CommandClass::Observe && reattached_since(worker, rounds) => {
            cdp_command_once(worker, generation, call, marks).await
        }
        r => r,
    }
}

/// Whether a re-attach of the worker's own ran, or runs, since the
/// re-attach count was `rounds`.
pub(super) fn reattached_since(worker: &Worker, rounds: u64) -> bool {
    let developer = &worker.state.borrow().developer;
    developer.reattach_rounds() != rounds || developer.reattach_gate().is_some()
}

/// [`cdp_command`], sent once.
async fn cdp_command_once(
    worker: &Worker,
    generation: u64,
    call: &Call<'_>,
    marks: &mut Marks,
) -> Result<JsValue, WireError> {
    let &Call {
        tab,
        method,
        params,
        class,
        ..
    } = call;
    // A release waits, before anything else, for the presses of its input
    // still waiting for the browser (see `cdp`): registered or noted in the
    // ledger while it waits, an abort would count it as sent.
    if !release_due(worker, tab, method, params).await? {
        return Ok(JsValue::NULL);
    }
    // Developer mode's re-attach replaces the debugger sessions; a command
    // sent meanwhile would fail "not attached".
    developer_mode::reattach_done(worker).await;
    // What the hand-over needs to know that takes an await: developer
    // mode, read live for a privileged call, and where a history entry
    // that raw CDP goes to leads (looked up before it is gone to).
    let developer = match class {
        CommandClass::Privileged => developer_mode_read_on(worker).await,
        _ => None,
    };
    // Only once developer mode was read on: with it off, the call will be
    // refused, and nothing about the tab's history is to be learnt.
    if let (Some(_), Ok(Some(RawCdp::HistoryEntry(entry)))) = (developer, raw_rule(worker, call)) {
        history_entry_allowed(worker, generation, tab, entry, marks).await?;
    }
    let handover = Handover {
        call,
        developer,
        paired: false,
    };
    let dispatched = dispatch(worker, generation, handover, marks)?;
    let result = dispatched.answer().await;
    marks.answered = trace::now();
    result
}

/// The developer-mode epoch ([`crate::developer_switch`]) at which the
/// switch was read on, live; `None` if it is off.
async fn developer_mode_read_on(worker: &Worker) -> Option<u64> {
    let epoch = worker.state.borrow().developer.off_epoch();
    developer_mode::enabled(worker).await.then_some(epoch)
}

/// The raw-CDP rule `call` passes, if it is raw CDP (developer mode) or on
/// a child session: raw CDP reaches the tab's own page only; a child
/// session's commands (developer mode's, and the scans that follow them)
/// are checked whatever their class.
fn raw_rule(worker: &Worker, call: &Call<'_>) -> Result<Option<RawCdp>, WireError> {
    let state = worker.state.borrow();
    let files = state.pages.files();
    Ok(match (call.session, call.class) {
        (Some(_), _) => Some(check_child_cdp(call.method, call.params, files)?),
        (None, CommandClass::Privileged) => Some(check_raw_cdp(call.method, call.params, files)?),
        _ => None,
    })
}

/// A call as it is handed to `chrome.debugger` ([`dispatch`]).
pub(super) struct Handover<'c, 'a> {
    pub(super) call: &'c Call<'a>,
    /// For a privileged call, the developer-mode epoch at which the switch
    /// was read on ([`developer_mode_read_on`]).
    pub(super) developer: Option<u64>,
    /// An event of an `input` command, whose presses that command
    /// releases itself.
    pub(super) paired: bool,
}

/// The admission of a call, the one place that decides whether it runs
/// ([`crate::control::admit`], the raw-CDP rules, the tab's facts, the
/// link), made with no await between it and the call's hand-over to
/// `chrome.debugger`, which happens before this returns: a takeover, a
/// developer-mode change or a link drop either came before (and fails
/// the call here) or comes after and aborts it. What takes an await (the
/// developer-mode read, a history entry's url) was learnt before.
pub(super) fn dispatch<'a>(
    worker: &'a Worker,
    generation: u64,
    handover: Handover<'_, 'a>,
    marks: &mut Marks,
) -> Result<Dispatched<'a>, WireError> {
    let Handover {
        call,
        developer,
        paired,
    } = handover;
    let &Call {
        tab,
        method,
        params,
        class,
        session,
    } = call;
    let admission = worker.state.borrow().admit(tab, class)?;
    // Developer mode was read on, and has not gone off since.
    if admission == Admission::NeedsDeveloperMode
        && developer != Some(worker.state.borrow().developer.off_epoch())
    {
        return Err(developer_mode_off());
    }
    let rule = raw_rule(worker, call)?;
    let pinned;
    let sent_params = match rule {
        Some(RawCdp::InContext) => {
            let mut p = params.clone();
            worker
                .state
                .borrow()
                .pages
                .pin_context(tab, method, &mut p)?;
            pinned = p;
            &pinned
        }
        _ => params,
    };
    worker.state.borrow_mut().facts.admit(tab, method)?;
    if worker.generation.get() != generation {
        return Err(WireError::new(
            ErrorKind::RuntimeLost,
            "the native link dropped before the command was sent; it did not run",
        ));
    }
    let (key, abort) = worker.state.borrow_mut().in_flight.register(tab, class);
    if class == CommandClass::Privileged {
        worker.state.borrow_mut().facts.raw_cdp_sent(tab);
    }
    // Leaves the registry however this ends, dropped half-way included.
    let registered = Registered { worker, key };
    held_input::before_send(worker, tab, method, params, paired);
    if let (true, Some(id)) = (method.starts_with("Fetch."), params["requestId"].as_str()) {
        // A paused request answered (`Fetch.continueRequest`, …).
        worker.forget_paused(|(_, p)| p != id);
    }
    if marks.sends == 0 {
        marks.sent = trace::now();
    }
    marks.sends += 1;
    if class == CommandClass::Privileged && method == "Runtime.enable" && session.is_none() {
        // Runtime is on since the attach, and the browser answers another
        // enable without reporting the live contexts again; a raw client
        // (Playwright on the CDP endpoint) needs them, so Runtime goes off
        // first: `chrome.debugger` runs the two in order.
        drop(cdp::send(
            tab,
            "Runtime.disable",
            &Value::Null,
            DEFAULT_DEADLINE_MS,
        ));
    }
    let sent = cdp::send_to(tab, session, method, sent_params, DEFAULT_DEADLINE_MS);
    Ok(Dispatched {
        tab,
        method,
        params,
        paired,
        answer: Box::pin(async move {
            let sent = pin!(sent);
            let aborted = pin!(abort.wait());
            match select(sent, aborted).await {
                Either::Left((result, _)) => result,
                Either::Right((reason, _)) => Err(reason),
            }
        }),
        registered,
    })
}

/// A command in `chrome.debugger`'s hands, registered in the in-flight
/// registry until it answers or is dropped.
pub(super) struct Dispatched<'a> {
    tab: TabId,
    method: &'a str,
    params: &'a Value,
    paired: bool,
    answer: Pin<Box<dyn Future<Output = Result<JsValue, WireError>> + 'a>>,
    registered: Registered<'a>,
}

impl Dispatched<'_> {
    /// Its answer, or the abort that ended the wait for it, noted in the
    /// ledger of held input.
    pub(super) async fn answer(self) -> Result<JsValue, WireError> {
        let result = self.answer.await;
        held_input::after_send(
            self.registered.worker,
            self.tab,
            self.method,
            self.params,
            &result,
            self.paired,
        );
        result
    }
}

/// Fails `BLOCKED_TARGET` unless the history entry `entry` of `tab` is a
/// page agents may drive (raw `Page.navigateToHistoryEntry`). An entry the
/// tab does not have is left to the browser to refuse. The read is a call
/// of its own (class observe), admitted as any.
async fn history_entry_allowed(
    worker: &Worker,
    generation: u64,
    tab: TabId,
    entry: i64,
    marks: &mut Marks,
) -> Result<(), WireError> {
    let read = Call {
        tab,
        method: "Page.getNavigationHistory",
        params: &Value::Null,
        class: CommandClass::Observe,
        session: None,
    };
    let handover = Handover {
        call: &read,
        developer: None,
        paired: false,
    };
    let history = dispatch(worker, generation, handover, marks)?
        .answer()
        .await?;
    let history: Value = from_js(history)
        .map_err(|e| WireError::new(ErrorKind::CommandFailed, error_message(&e)))?;
    let url = history
        .get("entries")
        .and_then(Value::as_array)
        .and_then(|entries| {
            entries
                .iter()
                .find(|e| e.get("id").and_then(Value::as_i64) == Some(entry))
        })
        .and_then(|e| e.get("url"))
        .and_then(Value::as_str);
    match url.map(|u| check_driveable(u, None, worker.state.borrow().pages.files())) {
        Some(Err(blocked)) => Err(WireError::new(
            ErrorKind::BlockedTarget,
            format!(
                "that history entry is a page agents may not use ({})",
                blocked.reason()
            ),
        )),
        _ => Ok(()),
    }
}

/// The frame check of [`cotab_shared::native::Command::ActInFrame`] and
/// [`cotab_shared::native::Command::Input`]:
/// reads `tab`'s live viewport (class observe) and fails `STALE_FRAME`
/// unless it is `frame`'s, so input aimed at a capture lands where the
/// agent saw it. The command is sent as soon as the answer is read; the
/// page may still scroll in the time the command takes to reach it, as
/// after any check made before acting. The command itself is admitted
/// when it is handed over ([`dispatch`]).
pub(super) async fn viewport_check(
    worker: &Worker,
    generation: u64,
    tab: TabId,
    frame: &FrameGeometry,
    marks: &mut Marks,
) -> Result<(), WireError> {
    let read = Call {
        tab,
        method: "Page.getLayoutMetrics",
        params: &Value::Null,
        class: CommandClass::Observe,
        session: None,
    };
    let metrics = cdp_command(worker, generation, &read, marks).await?;
    check_viewport(frame, live_viewport(&metrics))
}

/// The `cssVisualViewport` of a `Page.getLayoutMetrics` result, read
/// where it lies (as [`cotab_shared::cdp::LayoutMetrics::geometry`]
/// reads it from JSON).
fn live_viewport(metrics: &JsValue) -> Option<FrameGeometry> {
    let get = |o: &JsValue, k: &str| js_sys::Reflect::get(o, &JsValue::from_str(k)).ok();
    let v = get(metrics, "cssVisualViewport")?;
    let num = |k: &str| get(&v, k).and_then(|n| n.as_f64());
    Some(FrameGeometry {
        viewport_width: num("clientWidth")?,
        viewport_height: num("clientHeight")?,
        scroll_x: num("pageX")?,
        scroll_y: num("pageY")?,
    })
}

/// Whether the release `method` with `params` is still due once every
/// press of its input on `tab` was answered by the browser (at most
/// [`DEFAULT_DEADLINE_MS`]): not when the ledger released it meanwhile (the
/// native link dropped while this waited), so the page gets no second
/// release; `TIMEOUT` when a press still waits (a dialog it opened is
/// showing). Anything else than a release is due at once.
pub(super) async fn release_due(
    worker: &Worker,
    tab: TabId,
    method: &str,
    params: &Value,
) -> Result<bool, WireError> {
    match cdp::presses_answered(tab, method, params, DEFAULT_DEADLINE_MS).await {
        PressWait::None => Ok(true),
        PressWait::Late => Err(WireError::new(
            ErrorKind::Timeout,
            "the press this releases is still waiting for the browser (a dialog it opened \
             is showing); the release was not sent",
        )),
        PressWait::Answered => Ok(worker.state.borrow().held.holds(tab, method, params)),
    }
}

/// A command's entry in the in-flight registry, removed when this drops.
struct Registered<'a> {
    worker: &'a Worker,
    key: u64,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        self.worker.state.borrow_mut().in_flight.finish(self.key);
    }
}

/// One CDP command of a request.
pub(super) struct Call<'a> {
    pub(super) tab: TabId,
    pub(super) method: &'a str,
    pub(super) params: &'a Value,
    pub(super) class: CommandClass,
    /// A child session of the tab's, for raw CDP there.
    pub(super) session: Option<&'a str>,
}

impl<'a> Call<'a> {
    /// `call` sent as `class`, in the tab's child `session` if any.
    pub(super) fn of(call: &'a CdpCall, class: CommandClass, session: Option<&'a str>) -> Call<'a> {
        Call {
            tab: call.tab_id,
            method: &call.method,
            params: &call.params,
            class,
            session,
        }
    }
}
