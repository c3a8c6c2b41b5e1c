//! The host's commands, one handler each, dispatched from
//! [`cotab_shared::native::Command`]. Every request is answered with a
//! response carrying its id; requests run concurrently.
//!
//! Each operation that sends CDP calls is interpreted in one arm of
//! [`handle`]; every call it sends is admitted once, where it is handed to
//! `chrome.debugger` ([`super::handover::dispatch`]), by the class rules of
//! [`crate::control::admit`] (on top of the daemon's): on a tab the person
//! controls only `observe` and `release` run, and `privileged` needs
//! developer mode, read live before the hand-over and not turned off
//! since. Every call is registered in the worker's in-flight registry
//! while it runs, so it fails at once when its authority ends.
//!
//! `createTab` and `closeTab` are handled in [`super::agent_tabs`].

use super::cdp::PressWait;
use super::cells::Worker;
use super::handover::{
    cdp_command, dispatch, release_due, viewport_check, Call, Dispatched, Handover,
};
use super::{agent_tabs, aim, announce, cdp, developer_mode, port, scan};
use crate::trace::{self, Marks};
use cotab_shared::controller::FrameGeometry;
use cotab_shared::input::{InputPlan, InputRole};
use cotab_shared::limits::DEFAULT_DEADLINE_MS;
use cotab_shared::native::{
    Aimed, Command, CommandClass, ExtensionToHost, InputEvent, Outcome, SETTLE_EXPRESSION,
};
use cotab_shared::{ErrorKind, TabId, WireError};
use futures_util::future::{maybe_done, poll_fn, select, Either, MaybeDone};
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
    // The rules of the tabs held tabs' pages open, as the daemon last
    // named them before this request, are in place before it runs.
    let written = worker.opened_written.borrow().clone();
    written.wait().await;
    let mut marks = Marks::new(command.name().to_owned(), received);
    let answer = match command {
        Command::ListShared => Answer::Outcome(list_shared(&worker).await),
        Command::Observe(c) => {
            let call = Call::of(&c, CommandClass::Observe, None);
            Answer::Cdp(cdp_command(&worker, generation, &call, &mut marks).await)
        }
        Command::Act(c) => {
            let call = Call::of(&c, CommandClass::Act, None);
            Answer::Cdp(cdp_command(&worker, generation, &call, &mut marks).await)
        }
        Command::Release(c) => {
            let call = Call::of(&c, CommandClass::Release, None);
            Answer::Cdp(cdp_command(&worker, generation, &call, &mut marks).await)
        }
        Command::ActInFrame { call: c, frame } => {
            let call = Call::of(&c, CommandClass::Act, None);
            Answer::Cdp(
                match viewport_check(&worker, generation, c.tab_id, &frame, &mut marks).await {
                    Ok(()) => cdp_command(&worker, generation, &call, &mut marks).await,
                    Err(e) => Err(e),
                },
            )
        }
        Command::Developer {
            call: c,
            session,
            scan,
        } => {
            let call = Call::of(&c, CommandClass::Privileged, session.as_deref());
            Answer::Cdp(match scan {
                None => cdp_command(&worker, generation, &call, &mut marks).await,
                Some(scan) => scan::scanned(&worker, generation, call, &scan, &mut marks).await,
            })
        }
        Command::Input {
            tab_id,
            events,
            frame,
        } => {
            let answer = input(
                &worker,
                generation,
                tab_id,
                &events,
                frame.as_ref(),
                &mut marks,
            )
            .await;
            Answer::Cdp(match answer {
                Ok(v) => settled(&worker, generation, tab_id, &mut marks)
                    .await
                    .map(|()| v),
                answer => answer,
            })
        }
        Command::Aim(a) => {
            let aimed = aim::aim(&worker, generation, &a, &mut marks).await;
            Answer::Outcome(outcome(aimed.map(Aimed::into_value)))
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

/// `input`: the events to `tab` by [`InputPlan`], after the check of
/// `frame` (see [`Command::Input`]): group by group, what comes
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
    frame: Option<&FrameGeometry>,
    marks: &mut Marks,
) -> Result<JsValue, WireError> {
    let mut plan = InputPlan::new(events)?;
    if let (Some(frame), false) = (frame, events.is_empty()) {
        viewport_check(worker, generation, tab, frame, marks).await?;
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
                developer: None,
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

/// The trip through `tab`'s page after an input ([`Command::Input`]):
/// its outcome is dropped, but for a tab no longer shared.
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
