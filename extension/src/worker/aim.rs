//! [`Command::Aim`](cotab_shared::native::Command::Aim), run as
//! [`cotab_shared::native::aim`] says: its first calls handed to the
//! browser at once (it runs them in turn), then, for a point that must hit
//! the element, the hit test and what follows it. Each call is admitted
//! as any ([`dispatch`]).

use super::cells::Worker;
use super::developer_mode;
use super::handover::{dispatch, reattached_since, Call, Handover};
use crate::chrome::{error_message, from_js};
use crate::trace::Marks;
use cotab_shared::native::aim::{contains, inside};
use cotab_shared::native::{Aim, Aimed, CommandClass};
use cotab_shared::{ErrorKind, WireError};
use serde_json::Value;

/// `call`, handed over now; its answer read as JSON.
fn handed<'w>(
    worker: &'w Worker,
    generation: u64,
    call: &'w Call<'w>,
    marks: &mut Marks,
) -> Result<impl std::future::Future<Output = Result<Value, WireError>> + 'w, WireError> {
    let handover = Handover {
        call,
        developer: None,
        paired: false,
    };
    let dispatched = dispatch(worker, generation, handover, marks)?;
    Ok(async move {
        let answer = dispatched.answer().await?;
        from_js(answer).map_err(|e| WireError::new(ErrorKind::CommandFailed, error_message(&e)))
    })
}

/// One observing call of the aim on its tab, handed over and answered.
async fn observe(
    worker: &Worker,
    generation: u64,
    aim: &Aim,
    method: &str,
    params: &Value,
    marks: &mut Marks,
) -> Result<Value, WireError> {
    let call = Call {
        tab: aim.tab_id,
        method,
        params,
        class: CommandClass::Observe,
        session: None,
    };
    let answer = handed(worker, generation, &call, marks)?;
    answer.await
}

/// Runs `aim`: what it found. An aim that only reads (a capture's) and
/// failed while a re-attach of the worker's own replaced the tab's
/// session runs once more, on the new session, as a read does
/// ([`super::handover::cdp_command`]); an action's does not: its scroll
/// may have run.
pub(super) async fn aim(
    worker: &Worker,
    generation: u64,
    aim: &Aim,
    marks: &mut Marks,
) -> Result<Aimed, WireError> {
    let rounds = worker.state.borrow().developer.reattach_rounds();
    match aim_once(worker, generation, aim, marks).await {
        Err(_) if aim.class == CommandClass::Observe && reattached_since(worker, rounds) => {
            aim_once(worker, generation, aim, marks).await
        }
        r => r,
    }
}

/// [`aim`], run once.
async fn aim_once(
    worker: &Worker,
    generation: u64,
    aim: &Aim,
    marks: &mut Marks,
) -> Result<Aimed, WireError> {
    developer_mode::reattach_done(worker).await;
    let first = aim.calls();
    let calls: Vec<Call<'_>> = first
        .iter()
        .map(|(method, params, class)| Call {
            tab: aim.tab_id,
            method,
            params,
            class: *class,
            session: None,
        })
        .collect();
    let mut answers = Vec::new();
    for call in &calls {
        answers.push(handed(worker, generation, call, marks)?);
    }
    let mut got = Vec::new();
    for answer in answers {
        got.push(answer.await);
    }
    let got: [Result<Value, WireError>; 4] = got
        .try_into()
        .map_err(|_| WireError::new(ErrorKind::CommandFailed, "an aim's calls went missing"))?;
    let sighted = aim.read(got)?;
    if let Some(location) = &sighted.hit_test {
        let hit = observe(
            worker,
            generation,
            aim,
            "DOM.getNodeForLocation",
            location,
            marks,
        )
        .await;
        if let Some(resolve) = aim.hit(hit)? {
            let other = observe(worker, generation, aim, "DOM.resolveNode", &resolve, marks).await;
            let ask = contains(&sighted.aimed.object_id, other)?;
            let answer = observe(
                worker,
                generation,
                aim,
                "Runtime.callFunctionOn",
                &ask,
                marks,
            )
            .await;
            inside(answer)?;
        }
    }
    Ok(sighted.aimed)
}
