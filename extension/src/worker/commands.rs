//! The host's commands, one handler each, dispatched from
//! [`cotab_shared::native::Command`]. Every request is answered with a
//! response carrying its id; requests run concurrently.
//!
//! A `cdp` command passes the class rules of [`crate::control::admit`]
//! (on top of the daemon's): on a tab the person controls only `observe`
//! and `release` run, and `privileged` needs developer mode as the worker
//! knows it at dispatch ([`developer_mode::enabled`]). Every command is
//! registered in the worker's in-flight registry while it runs, so it fails
//! at once when its authority ends.
//!
//! `createTab` and `closeTab` are handled in [`super::agent_tabs`].

use super::cdp::PressWait;
use super::cells::Worker;
use super::{agent_tabs, announce, cdp, developer_mode, held_input, port};
use crate::chrome::{error_message, from_js, object, to_js};
use crate::control::{developer_mode_off, Admission};
use crate::trace::{self, Marks};
use cotab_shared::controller::FrameGeometry;
use cotab_shared::input::{InputPlan, InputRole};
use cotab_shared::limits::DEFAULT_DEADLINE_MS;
use cotab_shared::native::{
    check_viewport, Command, CommandClass, ExtensionToHost, FollowUp, InputEvent, Outcome,
    SETTLE_EXPRESSION,
};
use cotab_shared::reach::{check_child_cdp, check_driveable, check_raw_cdp, RawCdp};
use cotab_shared::{ErrorKind, TabId, WireError};
use futures_util::future::{maybe_done, poll_fn, select, Either, MaybeDone};
use futures_util::FutureExt as _;
use gloo_timers::future::TimeoutFuture;
use serde_json::Value;
use std::future::Future;
use std::pin::{pin, Pin};
use std::rc::Rc;
use wasm_bindgen::JsValue;

/// How long an `input` command runs before the ledger's entries for its
/// presses are saved (see [`input`]).
const PAIRED_SAVE_MS: u32 = 20;

/// Runs one request (after the shared set is restored) and sends its
/// response. `received` is when it came off the port ([`trace`]).
pub(crate) async fn handle(worker: Rc<Worker>, id: u64, command: Command, received: f64) {
    // The generation of the native link this request came on; a command
    // still waiting when that link drops is not sent (the daemon already
    // forgot it).
    let generation = worker.generation.get();
    worker.restored.wait().await;
    let mut marks = Marks::new(command.name().to_owned(), received);
    let answer = match command {
        Command::ListShared => Answer::Outcome(list_shared(&worker).await),
        Command::Cdp {
            tab_id,
            method,
            params,
            class,
            then,
            if_viewport,
            session,
        } => {
            let call = Call {
                tab: tab_id,
                method: &method,
                params: &params,
                class,
                session: session.as_deref(),
            };
            let checked = match &if_viewport {
                Some(frame) => viewport_check(&worker, generation, &call, frame, &mut marks).await,
                None => Ok(()),
            };
            Answer::Cdp(match (checked, then) {
                (Err(e), _) => Err(e),
                (Ok(()), None) => cdp_command(&worker, generation, &call, &mut marks).await,
                (Ok(()), Some(then)) => {
                    with_follow_up(&worker, generation, call, &then, &mut marks).await
                }
            })
        }
        Command::Input {
            tab_id,
            events,
            if_viewport,
            settle,
        } => {
            let answer = input(
                &worker,
                generation,
                tab_id,
                &events,
                if_viewport.as_ref(),
                &mut marks,
            )
            .await;
            Answer::Cdp(match answer {
                Ok(v) if settle => settled(&worker, generation, tab_id, &mut marks)
                    .await
                    .map(|()| v),
                answer => answer,
            })
        }
        Command::CreateTab { url } => {
            Answer::Outcome(outcome(agent_tabs::create_tab(&worker, url).await))
        }
        Command::CloseTab { tab_id } => {
            Answer::Outcome(outcome(agent_tabs::close_tab(&worker, tab_id).await))
        }
        Command::ForwardEvents { tab_id, all } => {
            Answer::Outcome(forward_events(&worker, tab_id, all))
        }
    };
    let outcome = match answer {
        // The browser's value goes out as it came.
        Answer::Cdp(Ok(value)) => {
            port::send_js_result(&worker, id, &value);
            marks.posted();
            return;
        }
        Answer::Cdp(Err(e)) => Outcome::Error(e),
        Answer::Outcome(outcome) => outcome,
    };
    port::send(&worker, &ExtensionToHost::Response { id, outcome });
    marks.posted();
}

/// What a request comes to: a CDP result (the browser's value), or
/// anything else.
enum Answer {
    Cdp(Result<JsValue, WireError>),
    Outcome(Outcome),
}

fn outcome(result: Result<Value, WireError>) -> Outcome {
    match result {
        Ok(value) => Outcome::Result(value),
        Err(e) => Outcome::Error(e),
    }
}

/// `forwardEvents`: every CDP event of a shared tab goes to the host from
/// now on (`all`), or only the usual ones again.
fn forward_events(worker: &Worker, tab: TabId, all: bool) -> Outcome {
    let mut state = worker.state.borrow_mut();
    if !state.shared.contains(tab) {
        return Outcome::Error(WireError::new(
            ErrorKind::TabNotShared,
            format!("tab {tab} is not shared"),
        ));
    }
    state.pages.set_all_events(tab, all);
    Outcome::Result(Value::Object(Default::default()))
}

/// `listShared`: the shared tabs with urls, titles and human-control flags.
async fn list_shared(worker: &Worker) -> Outcome {
    match serde_json::to_value(announce::shared_tabs(worker).await) {
        Ok(value) => Outcome::Result(value),
        Err(e) => Outcome::Error(WireError::new(ErrorKind::CommandFailed, e.to_string())),
    }
}

/// `cdp`: one CDP command on a shared tab, if its class allows it; other
/// tabs are never touched. A read that failed while a re-attach of the
/// worker's own (developer mode off, a takeover after raw CDP) replaced
/// its session is sent once more, on the new session: it changed nothing,
/// and the person's switch must not fail the agent's reads. Nothing else
/// is sent again (it may have run).
async fn cdp_command(
    worker: &Worker,
    generation: u64,
    call: &Call<'_>,
    marks: &mut Marks,
) -> Result<JsValue, WireError> {
    let rounds = worker.state.borrow().developer.reattach_rounds();
    let first = cdp_command_once(worker, generation, call, marks).await;
    let reattached = worker.state.borrow().developer.reattach_rounds() != rounds
        || worker.state.borrow().developer.reattach_gate().is_some();
    match first {
        Err(_) if call.class == CommandClass::Observe && reattached => {
            cdp_command_once(worker, generation, call, marks).await
        }
        r => r,
    }
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
        session,
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
    if worker.state.borrow().admit(tab, class)? == Admission::NeedsDeveloperMode {
        let epoch = worker.state.borrow().developer.off_epoch();
        if !developer_mode::enabled(worker).await
            || worker.state.borrow().developer.off_epoch() != epoch
        {
            return Err(developer_mode_off());
        }
        // The person may have taken control during the read.
        worker.state.borrow().admit(tab, class)?;
    }
    // Raw CDP (developer mode) reaches the tab's own page only; a history
    // entry is looked up before it is gone to. A child session's commands
    // (developer mode's, and the follow-ups that scan them) are checked
    // whatever their class.
    let rule = {
        let state = worker.state.borrow();
        let files = state.pages.files();
        match (session, class) {
            (Some(_), _) => Some(check_child_cdp(method, params, files)?),
            (None, CommandClass::Privileged) => Some(check_raw_cdp(method, params, files)?),
            _ => None,
        }
    };
    if let Some(RawCdp::HistoryEntry(entry)) = rule {
        history_entry_allowed(worker, tab, entry).await?;
    }
    let handover = Handover {
        call,
        rule,
        paired: false,
    };
    let dispatched = dispatch(worker, generation, handover, marks)?;
    let result = dispatched.answer().await;
    marks.answered = trace::now();
    result
}

/// A call as it is handed to `chrome.debugger` ([`dispatch`]).
struct Handover<'c, 'a> {
    call: &'c Call<'a>,
    /// The raw-CDP rule it passed, if it is raw CDP or on a child session.
    rule: Option<RawCdp>,
    /// An event of an `input` command, whose presses that command
    /// releases itself.
    paired: bool,
}

/// The last checks of a call, made with no await between them and its
/// hand-over to `chrome.debugger`, which happens before this returns: a
/// takeover, a developer-mode change or a link drop either came before
/// (and fails the call here) or comes after and aborts it.
fn dispatch<'a>(
    worker: &'a Worker,
    generation: u64,
    handover: Handover<'_, 'a>,
    marks: &mut Marks,
) -> Result<Dispatched<'a>, WireError> {
    let Handover { call, rule, paired } = handover;
    let &Call {
        tab,
        method,
        params,
        class,
        session,
    } = call;
    // Awaited since the first check: the tab may have gone to a blocked
    // page, or the person taken control, meanwhile.
    worker.state.borrow().admit(tab, class)?;
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
struct Dispatched<'a> {
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
    async fn answer(self) -> Result<JsValue, WireError> {
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
/// tab does not have is left to the browser to refuse.
async fn history_entry_allowed(worker: &Worker, tab: TabId, entry: i64) -> Result<(), WireError> {
    let history = cdp::send(
        tab,
        "Page.getNavigationHistory",
        &Value::Null,
        DEFAULT_DEADLINE_MS,
    )
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

/// `ifViewport`: reads the tab's live viewport (class observe) and fails
/// `STALE_FRAME` unless it is `frame`'s, so input aimed at a capture lands
/// where the agent saw it. The command is sent as soon as the answer is
/// read; the page may still scroll in the time the command takes to reach
/// it, as after any check made before acting. A command its class would
/// refuse (the person took control) is refused before the read.
async fn viewport_check(
    worker: &Worker,
    generation: u64,
    command: &Call<'_>,
    frame: &FrameGeometry,
    marks: &mut Marks,
) -> Result<(), WireError> {
    worker.state.borrow().admit(command.tab, command.class)?;
    let read = Call {
        tab: command.tab,
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

/// `input`: the events to `tab` by [`InputPlan`], after the check of
/// `if_viewport` (see [`Command::Input`]): group by group, what comes
/// before a group's release handed to `chrome.debugger` in one turn, in
/// order (a click's move and press wait for the page's frame together),
/// each release once its press is answered, and then the group's answers
/// awaited. A press of an earlier command still waiting for the browser
/// (a dialog it opened is showing) is waited for first, as the browser
/// would drop what this command sends meanwhile.
async fn input(
    worker: &Worker,
    generation: u64,
    tab: TabId,
    events: &[InputEvent],
    if_viewport: Option<&FrameGeometry>,
    marks: &mut Marks,
) -> Result<JsValue, WireError> {
    let mut plan = InputPlan::new(events)?;
    if let (Some(frame), Some(first)) = (if_viewport, events.first()) {
        viewport_check(worker, generation, &input_call(tab, first), frame, marks).await?;
    }
    for event in events {
        if cdp::presses_answered(tab, &event.method, &event.params, DEFAULT_DEADLINE_MS).await
            == PressWait::Late
        {
            return Err(WireError::new(
                ErrorKind::Timeout,
                "an earlier press of this input is still waiting for the browser (a dialog it \
                 opened is showing); nothing was sent",
            ));
        }
    }
    // A dialog that opens while a group runs ends the command before the
    // next (the daemon has answered `DIALOG_OPEN`).
    let dialogs = || worker.state.borrow().facts.dialogs(tab);
    let dialogs_before = dialogs();
    let dialog_opened = || {
        (dialogs() != dialogs_before).then(|| {
            WireError::new(
                ErrorKind::DialogOpen,
                "a dialog opened during the input: the rest of it was not sent",
            )
        })
    };
    // The ledger's entries for this command's presses are saved only if
    // it is still running after PAIRED_SAVE_MS (a dialog a press opened
    // is showing), and what is left held once it ends: a click's press
    // and release take a few milliseconds, and writing both storage areas
    // before the press and again after the release cost the browser more
    // than the click.
    let answers = {
        let run = pin!(send_groups(
            worker,
            generation,
            tab,
            &mut plan,
            dialog_opened,
            marks
        ));
        match select(run, pin!(TimeoutFuture::new(PAIRED_SAVE_MS))).await {
            Either::Left((answers, _)) => answers,
            Either::Right((_, run)) => {
                worker.persist_changes();
                run.await
            }
        }
    };
    worker.persist_changes();
    marks.answered = trace::now();
    plan.finish(answers)
        .map(|last| last.unwrap_or(JsValue::UNDEFINED))
}

/// [`input`]'s groups, one after the other: what comes before a group's
/// first release handed to `chrome.debugger` in one turn, the release
/// once its press is answered, then the group's answers awaited.
async fn send_groups<'a>(
    worker: &'a Worker,
    generation: u64,
    tab: TabId,
    plan: &mut InputPlan<'a>,
    dialog_opened: impl Fn() -> Option<WireError>,
    marks: &mut Marks,
) -> Vec<Result<JsValue, WireError>> {
    let mut answers = Vec::new();
    while plan.begin_group(&dialog_opened) {
        developer_mode::reattach_done(worker).await;
        // No await from here until the group's first release: what comes
        // before it goes to the browser in one turn.
        let mut group = Vec::new();
        while let Some(event) = plan.next_event() {
            if let InputRole::Release(_) = event.role() {
                // Once its press is answered: a press whose handler opens
                // a dialog is answered when the dialog closes, and the
                // browser drops input that reaches it while one shows.
                match release_due(worker, tab, &event.method, &event.params).await {
                    Err(e) => {
                        plan.handed(event, Err(e));
                        continue;
                    }
                    Ok(false) => {
                        plan.handed(event, Ok(()));
                        continue;
                    }
                    Ok(true) => developer_mode::reattach_done(worker).await,
                }
            }
            let call = input_call(tab, event);
            let handover = Handover {
                call: &call,
                rule: None,
                paired: true,
            };
            match dispatch(worker, generation, handover, marks) {
                Ok(d) => {
                    plan.handed(event, Ok(()));
                    group.push(d);
                }
                Err(e) => plan.handed(event, Err(e)),
            }
        }
        answers.extend(all_of(group.into_iter().map(Dispatched::answer)).await);
    }
    answers
}

/// Whether the release `method` with `params` is still due once every
/// press of its input on `tab` was answered by the browser (at most
/// [`DEFAULT_DEADLINE_MS`]): not when the ledger released it meanwhile (the
/// native link dropped while this waited), so the page gets no second
/// release; `TIMEOUT` when a press still waits (a dialog it opened is
/// showing). Anything else than a release is due at once.
async fn release_due(
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

/// Waits for every one of `futures`, polled together, and returns their
/// outputs in order (`join_all` carries a second, unordered strategy for
/// long lists that the worker's wasm need not).
async fn all_of<F: Future>(futures: impl Iterator<Item = F>) -> Vec<F::Output> {
    let mut futures: Vec<Pin<Box<MaybeDone<F>>>> =
        futures.map(|f| Box::pin(maybe_done(f))).collect();
    poll_fn(|cx| {
        let mut done = true;
        for f in &mut futures {
            done &= f.as_mut().poll(cx).is_ready();
        }
        if done {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    futures
        .iter_mut()
        .filter_map(|f| f.as_mut().take_output())
        .collect()
}

/// An event of an `input` command as one CDP command, with its class.
fn input_call(tab: TabId, event: &InputEvent) -> Call<'_> {
    Call {
        tab,
        method: &event.method,
        params: &event.params,
        class: event.class(),
        session: None,
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
struct Call<'a> {
    tab: TabId,
    method: &'a str,
    params: &'a Value,
    class: CommandClass,
    /// A child session of the tab's, for raw CDP there.
    session: Option<&'a str>,
}

/// The trip through `tab`'s page after a settled input
/// ([`Command::Input`]'s `settle`): its outcome is dropped, but for a tab
/// no longer shared.
async fn settled(
    worker: &Worker,
    generation: u64,
    tab: TabId,
    marks: &mut Marks,
) -> Result<(), WireError> {
    let params = serde_json::json!({"expression": SETTLE_EXPRESSION, "returnByValue": true});
    let probe = Call {
        tab,
        method: "Runtime.evaluate",
        params: &params,
        class: CommandClass::Observe,
        session: None,
    };
    let mut scratch = Marks::new(String::new(), marks.received);
    let r = cdp_command(worker, generation, &probe, &mut scratch).await;
    marks.answered = marks.answered.max(scratch.answered);
    marks.sends += scratch.sends;
    match r {
        Err(e) if e.kind == ErrorKind::TabNotShared => Err(e),
        _ => Ok(()),
    }
}

/// Whether a `Runtime.evaluate` or `Runtime.callFunctionOn` answer holds
/// no text: no exception, and a result that is a number, a boolean, a
/// bigint, undefined or null ([`FollowUp::unless_scalar`]), whose
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

/// Runs `first`, then `then` (class observe, on the same tab), and wraps
/// both in a [`cotab_shared::native::ThenResult`]; a failure of `first` is the answer at once and
/// the follow-up's outcome is dropped. The follow-up passes the same checks
/// as any command; its failure is reported inside the result, since the
/// first command has already run.
///
/// With [`FollowUp::overlap`], both are sent at once. The browser answers a
/// tab's commands over one channel in the order it settles them, and each
/// answer wakes this task in its own turn of the event loop; so if the
/// first command's answer is seen while the follow-up's is not yet there,
/// the follow-up was answered, and (on the page's main thread) run, after
/// the first was settled, and its answer stands. If the follow-up answered
/// first, or both are seen at once, it is sent again. A follow-up not
/// needed ([`FollowUp::unless_scalar`]) is neither waited for nor sent
/// again.
async fn with_follow_up(
    worker: &Worker,
    generation: u64,
    first: Call<'_>,
    then: &FollowUp,
    marks: &mut Marks,
) -> Result<JsValue, WireError> {
    let mut scratch = Marks::new(String::new(), marks.received);
    let follow = Call {
        tab: first.tab,
        method: &then.method,
        params: &then.params,
        class: CommandClass::Observe,
        session: first.session,
    };
    let unneeded = |r: &JsValue| then.unless_scalar && holds_no_text(r);
    let (result, early) = if then.overlap {
        let a = pin!(cdp_command(worker, generation, &first, marks));
        let b = pin!(cdp_command(worker, generation, &follow, &mut scratch));
        match select(a, b).await {
            // A failed first command is answered at once; the follow-up,
            // if already sent, is dropped and its answer ignored (so is
            // one not needed).
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
        None => cdp_command(worker, generation, &follow, &mut scratch).await,
    };
    marks.answered = marks.answered.max(scratch.answered);
    marks.sends += scratch.sends;
    // A `ThenResult`, built of the browser's values as they came.
    let then = match second {
        Ok(value) => object(&[("result", &value)]),
        Err(e) => to_js(&e).and_then(|e| object(&[("error", &e)])),
    };
    then.and_then(|then| object(&[("result", &result), ("then", &then)]))
        .map_err(|e| WireError::new(ErrorKind::CommandFailed, error_message(&e)))
}
