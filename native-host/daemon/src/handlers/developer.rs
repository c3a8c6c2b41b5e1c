//! Developer mode: `page.evaluate` and `cdp.send`, each followed by the
//! page scan, and the redaction of their results ([`crate::redact`]).

use super::cx::PressGuard;
use super::{invalid_params, off_thread_if, wire, Cx};
use crate::broker::{Fence, Need};
use crate::overlay::Aimed;
use crate::redact;
use cotab_shared::cdp::{CdpCommand as _, Evaluate};
use cotab_shared::controller::{
    CdpEventsParams, CdpSendParams, Empty, EvaluateParams, EvaluateResult, RpcError,
};
use cotab_shared::held::Sent;
use cotab_shared::input::MOUSE_EVENT;
use cotab_shared::limits::MAX_EXPRESSION;
use cotab_shared::native::{CdpCall, Command, Outcome, Scanned};
use cotab_shared::reach::{check_child_cdp, check_raw_cdp};
use cotab_shared::watch::AskBefore;
use cotab_shared::ErrorKind;
use serde_json::{json, Value};

pub(super) async fn evaluate(cx: &Cx<'_>, p: EvaluateParams) -> Result<EvaluateResult, RpcError> {
    if p.expression.len() > MAX_EXPRESSION {
        return Err(invalid_params(format!(
            "invalid params: `params.expression` is longer than {MAX_EXPRESSION} bytes"
        )));
    }
    let fence = cx.fence(Need::Privileged)?;
    cx.core(|c| c.input(&fence))?;
    let evaluate = Evaluate {
        expression: &p.expression,
        return_by_value: true,
        await_promise: p.await_promise.unwrap_or(true),
        object_group: None,
    };
    let (mut r, known) =
        scanned(cx, &fence, Evaluate::METHOD, evaluate.params(), false, None).await?;
    let exception = r.get("exceptionDetails").map(|d| {
        let text = d
            .pointer("/exception/description")
            .or_else(|| d.get("text"))
            .and_then(Value::as_str)
            .unwrap_or("the expression threw");
        redact::redact_str(text, &known)
    });
    let value = r
        .pointer_mut("/result/value")
        .map(Value::take)
        .unwrap_or(Value::Null);
    let value = redacted(value, known).await?;
    Ok(EvaluateResult { value, exception })
}

/// Text in a result (in bytes) above which it is redacted on the blocking
/// pool: redaction looks for every known secret in every string, which on
/// a result of several MiB would hold the daemon's one thread up.
pub(super) const LARGE_RESULT: usize = 256 << 10;

/// `value` redacted by [`redact::redact`], off the daemon's thread when it
/// holds more than [`LARGE_RESULT`] of text.
pub(super) async fn redacted(mut value: Value, known: redact::Known) -> Result<Value, RpcError> {
    let heavy = text_len_over(&value, LARGE_RESULT);
    off_thread_if(heavy, "redacting the result", move || {
        redact::redact(&mut value, &known);
        Ok(value)
    })
    .await
}

/// Whether the strings (keys included) of `value` hold more than `limit`
/// bytes (other scalars count 8); stops counting once they do.
pub(super) fn text_len_over(value: &Value, limit: usize) -> bool {
    fn spend(left: &mut usize, n: usize) -> bool {
        match left.checked_sub(n) {
            Some(l) => {
                *left = l;
                false
            }
            None => true,
        }
    }
    fn walk(v: &Value, left: &mut usize) -> bool {
        match v {
            Value::String(s) => spend(left, s.len()),
            Value::Array(a) => a.iter().any(|v| walk(v, left)),
            Value::Object(m) => m.iter().any(|(k, v)| spend(left, k.len()) || walk(v, left)),
            _ => spend(left, 8),
        }
    }
    let mut left = limit;
    walk(value, &mut left)
}

/// A developer-mode (class privileged) call, with the page's secrets read
/// right after it for [`redact`] (password field values, cookie values
/// scripts can read): the extension evaluates the scan (class observe) as
/// soon as the call answers, in the same trip over the native link
/// ([`Command::Developer`]'s `scan`), so the scan sees what the person
/// typed even if the call waited for it. A scan that fails (the page navigated away or
/// closed, a dialog opened) yields nothing and the result still goes
/// through the key and shape rules: the call has already acted, and
/// failing it now would hide that outcome. An evaluation whose result
/// holds no text (a number, a boolean, null) goes without the scan (the
/// extension sees that): no page text can be in it, and its
/// answer does not wait for the page a second time. With
/// `through_dialogs` (raw CDP) a dialog does not cut the call short
/// ([`super::cx::Step::through_dialogs`]).
pub(super) async fn scanned(
    cx: &Cx<'_>,
    fence: &Fence,
    method: &str,
    params: Value,
    through_dialogs: bool,
    session: Option<String>,
) -> Result<(Value, redact::Known), RpcError> {
    let holds_page_text = !redact::answer_holds_no_page_text(method);
    let command = Command::Developer {
        call: CdpCall::new(fence.tab, method, params),
        session,
        scan: holds_page_text.then(|| redact::PAGE_SECRETS_EXPRESSION.to_owned()),
    };
    let step = cx.step_of(fence, command);
    let step = if through_dialogs {
        step.through_dialogs()
    } else {
        step
    };
    let r = step.await?;
    if !holds_page_text {
        return Ok((r, redact::Known::default()));
    }
    let r: Scanned = serde_json::from_value(r).map_err(|_| {
        wire(
            ErrorKind::CommandFailed,
            "the extension answered a developer-mode call without its redaction scan; \
             the result is withheld",
        )
    })?;
    let known = match r.scan {
        Outcome::Result(v) if v.get("exceptionDetails").is_none() => {
            redact::Known::from_scan(v.pointer("/result/value"))
        }
        _ => redact::Known::default(),
    };
    Ok((r.result, known))
}

pub(super) fn valid_cdp_method(m: &str) -> bool {
    let mut parts = m.split('.');
    let ok = |p: Option<&str>| {
        p.is_some_and(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric()))
    };
    m.len() <= 128 && ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

/// Whether `s` may be a child session id: the browser's are 32 hex
/// digits.
fn valid_session_id(s: &str) -> bool {
    (1..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

pub(super) async fn cdp_send(cx: &Cx<'_>, p: CdpSendParams) -> Result<Value, RpcError> {
    if !valid_cdp_method(&p.method) {
        return Err(invalid_params(
            "invalid params: `params.method` must look like `Domain.method`",
        ));
    }
    let params = p.params.unwrap_or_else(|| json!({}));
    if !params.is_object() {
        return Err(invalid_params(
            "invalid params: `params.params` must be an object",
        ));
    }
    let fence = cx.fence(Need::Privileged)?;
    // The extension enforces this on every command; refused here too, so
    // the answer comes before anything is sent.
    let files = cx.shell.local_files();
    match &p.session_id {
        None => check_raw_cdp(&p.method, &params, &files)?,
        Some(s) if valid_session_id(s) => check_child_cdp(&p.method, &params, &files)?,
        Some(_) => {
            return Err(invalid_params(
                "invalid params: `params.sessionId` must be a child session id of the tab \
                 (1 to 64 letters and digits, as `Target.attachedToTarget` gives it)",
            ))
        }
    };
    // The tab's sites hold raw CDP too: `Fetch` is the daemon's, which
    // holds navigations with it, and downloads where the person asks
    // before them (a raw `Fetch.continueRequest` would let one go
    // unasked); a navigation the agent sends is checked now and what it
    // starts is judged as the agent's.
    let (scope, downloads) = cx.core(|c| {
        let asks = c.ask_before(fence.tab);
        (c.scope(fence.tab), asks.contains(&AskBefore::Download))
    });
    if p.method.starts_with("Fetch.") && (scope.holds() || downloads) {
        let holds = if scope.holds() {
            format!(
                "navigations outside the sites the tab is shared for ({})",
                scope.describe()
            )
        } else {
            "downloads for the person's yes".to_owned()
        };
        return Err(wire(
            ErrorKind::BlockedTarget,
            format!(
                "`Fetch` is cotab's own on tab {}: it holds {holds}",
                fence.tab
            ),
        ));
    }
    let _going = match p.method.as_str() {
        "Page.navigate" | "Page.reload" | "Page.navigateToHistoryEntry"
            if p.session_id.is_none() =>
        {
            if let Some(url) = params.get("url").and_then(Value::as_str) {
                cx.core(|c| c.url_in_scope(fence.tab, url))?;
            }
            Some(cx.shell.agent_going(fence.tab))
        }
        _ => None,
    };
    cx.core(|c| c.input(&fence))?;
    // Set before it is sent: a lease that ends meanwhile still undoes it.
    let waits = p.method == "Target.setAutoAttach"
        && params.get("autoAttach") == Some(&Value::Bool(true))
        && params.get("waitForDebuggerOnStart") == Some(&Value::Bool(true));
    if waits {
        cx.core(|c| c.auto_attach_set(&fence, waits))?;
    }
    // A press is recorded before it is sent, so every revocation releases
    // it as it does the input methods' (the CDP endpoint's keyboard and
    // mouse come this way); a release clears the record once the browser
    // took it; a move carries a held button's release along. Input goes
    // to the tab's own session only (`check_child_cdp`).
    // No capture of raw CDP holds what the person is shown of an agent at
    // work ([`crate::overlay`]).
    if matches!(
        p.method.as_str(),
        "Page.captureScreenshot" | "Page.startScreencast"
    ) {
        cx.shell.overlays.hide(&cx.shell.lane, fence.tab);
    }
    let input = cx.core(|c| c.raw_input_before(&fence, &p.method, &params))?;
    let press = input.press.map(|id| PressGuard {
        shell: cx.shell,
        id,
        armed: true,
    });
    let at = |k: &str| params.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    let kind = (p.method == MOUSE_EVENT)
        .then(|| params.get("type").and_then(Value::as_str))
        .flatten();
    let dragging = params.get("buttons").and_then(Value::as_u64).unwrap_or(0) != 0;
    // The person sees a raw press, wheel or drag where it lands, as an
    // input method's ([`crate::overlay`]); a bare move is not drawn.
    if matches!(kind, Some("mousePressed" | "mouseWheel"))
        || (kind == Some("mouseMoved") && dragging)
    {
        cx.aimed(&fence, Aimed::Point(at("x"), at("y")));
    }
    let sent = scanned(cx, &fence, &p.method, params, true, p.session_id).await;
    if let Some(press) = press {
        press.disarm();
    }
    let outcome = sent_as(sent.as_ref().err().map(|e| e.kind()));
    cx.core(|c| c.raw_input_after(&fence, input, outcome));
    let (r, known) = sent?;
    redacted(r, known).await
}

/// What a raw command's answer (`None`, or the kind it failed with) says
/// to the record of held input: only a command whose outcome is unknown
/// may have reached the page; every other failure is a refusal before it
/// did (the person's control, developer mode off, a blocked page, the
/// browser's own refusal), so a release refused that way leaves its press
/// to be released again.
fn sent_as(failure: Option<ErrorKind>) -> Sent {
    match failure {
        None => Sent::Accepted,
        Some(ErrorKind::UnknownOutcome) => Sent::Unknown,
        Some(_) => Sent::Refused,
    }
}

/// `cdp.events`: the session gets (or stops getting) every CDP event of
/// its selected tab as `cdp.event` notifications. The extension is asked
/// to forward them all first; it goes on doing so until the debugger
/// session ends (a re-attach, as when developer mode turns off), which
/// costs the lane some traffic and reaches nobody else.
pub(super) async fn cdp_events(cx: &Cx<'_>, p: CdpEventsParams) -> Result<Empty, RpcError> {
    let fence = cx.fence(if p.enabled {
        Need::Privileged
    } else {
        Need::Observe
    })?;
    if p.enabled {
        cx.extension(Command::ForwardEvents {
            tab_id: fence.tab,
            all: true,
        })
        .await?;
    }
    cx.core(|c| c.cdp_events(&fence, p.enabled))?;
    Ok(Empty {})
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_raw_command_refused_on_its_way_did_not_reach_the_page() {
        assert_eq!(sent_as(None), Sent::Accepted);
        assert_eq!(sent_as(Some(ErrorKind::UnknownOutcome)), Sent::Unknown);
        for refused in [
            ErrorKind::CommandFailed,
            ErrorKind::DeveloperModeOff,
            ErrorKind::HumanHasControl,
            ErrorKind::BlockedTarget,
            ErrorKind::Timeout,
            ErrorKind::RuntimeLost,
        ] {
            assert_eq!(sent_as(Some(refused)), Sent::Refused, "{refused:?}");
        }
    }

    use super::{sent_as, text_len_over, ErrorKind, Sent};
    use serde_json::json;

    #[test]
    fn text_length_counts_strings_keys_and_scalars_and_stops_early() {
        let v = json!({"ab": ["cdef", 1, null]});
        // 2 (key) + 4 + 8 + 8 = 22
        assert!(!text_len_over(&v, 22));
        assert!(text_len_over(&v, 21));
        assert!(!text_len_over(&json!("x".repeat(10)), 10));
        assert!(text_len_over(&json!(["x".repeat(300_000)]), 256 << 10));
    }
}
