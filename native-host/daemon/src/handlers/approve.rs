//! Holding an agent's request for the person's yes before any of it
//! reaches the page ([`cotab_core::approvals`] says which): the person
//! is shown it on the side panel's watch, the agent is told it waits
//! (`approval.pending`), and it goes on only when the person approves.
//! A no, no answer in [`Shell::approval_wait`], a takeover or an unshare
//! refuses it, so it fails closed.
//!
//! Whether typing would go into a field that takes a secret is read
//! first, from the page, by reads that change nothing there (the
//! element's or the focus's type and `autocomplete`).

use super::{frames, wire, Cx, Rect};
use crate::broker::{Fence, Need};
use cotab_core::approvals::{aims_at, check, AimAt, PagePoint, SecretAt, SubmitAt};
use cotab_shared::cdp::NodeAttributes;
use cotab_shared::controller::{Call, RpcError};
use cotab_shared::native::CommandClass;
use cotab_shared::watch::{ApprovalFrame, AskBefore, Mark, PendingApproval};
use cotab_shared::ErrorKind;
use serde_json::Value;

/// Whether a field of these attributes takes a secret: a password
/// field, or one whose `autocomplete` names a password, a one-time code
/// or a card. Read from the document's attributes, which a page's script
/// cannot make say otherwise than what the field is.
fn takes_a_secret(node: &NodeAttributes) -> bool {
    let password = node.node_name.eq_ignore_ascii_case("input")
        && node
            .attribute("type")
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("password"));
    let autocomplete = node
        .attribute("autocomplete")
        .unwrap_or_default()
        .to_ascii_lowercase();
    password
        || ["password", "one-time-code", "cc-"]
            .iter()
            .any(|s| autocomplete.contains(s))
}

/// Whether the element with the focus takes a secret (`true`), through
/// open shadow roots and frames of the page's own origin; a frame of
/// another origin cannot be seen into, so it counts as one.
const SECRET_FOCUS: &str = "(() => { let doc = document; \
    for (let i = 0; i < 32; i++) { let el = doc.activeElement; \
        while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement; \
        if (!el) return false; \
        if (el instanceof HTMLIFrameElement || el instanceof HTMLFrameElement) { \
            let inner = null; try { inner = el.contentDocument; } catch (e) {} \
            if (!inner) return true; doc = inner; continue; } \
        return (el instanceof HTMLInputElement && el.type === 'password') || \
            /password|one-time-code|cc-/.test(el.autocomplete || ''); } \
    return true; })()";

/// Whether the element (`this`), the button it is in or the control of
/// the label it is in, submits a form when pressed: a submit button or
/// image input with a form.
const SUBMITS_FN: &str = "function() { \
    const label = this.closest ? this.closest('label') : null; \
    const el = label && label.control ? label.control : this; \
    const c = el.closest ? el.closest('button, input') : null; \
    if (!c || !c.form) return false; \
    return c instanceof HTMLButtonElement ? c.type === 'submit' : (c.type === 'submit' || c.type === 'image'); }";

/// Whether what is at the point (`x`, `y` in CSS pixels) submits a form
/// when pressed, through open shadow roots; a frame there cannot be seen
/// into and counts as one.
fn submits_at_point(x: f64, y: f64) -> String {
    format!(
        "((x, y) => {{ let el = document.elementFromPoint(x, y); \
            while (el && el.shadowRoot) {{ const inner = el.shadowRoot.elementFromPoint(x, y); \
                if (!inner || inner === el) break; el = inner; }} \
            if (!el) return false; \
            if (el instanceof HTMLIFrameElement || el instanceof HTMLFrameElement \
                || el instanceof HTMLObjectElement || el instanceof HTMLEmbedElement) return true; \
            return ({SUBMITS_FN}).call(el); }})({x}, {y})"
    )
}

/// Whether Enter or Space in the element (`this`) submits a form: a
/// field or button with a form (a text area takes Enter as a line), or
/// a frame that cannot be seen into.
const SUBMITS_FROM_FN: &str = "function() { const el = this; \
    if (el instanceof HTMLIFrameElement || el instanceof HTMLFrameElement) return true; \
    return !!el.form && !(el instanceof HTMLTextAreaElement); }";

/// [`SUBMITS_FROM_FN`] of the element with the focus, through open
/// shadow roots.
fn submits_from_focus() -> String {
    format!(
        "(() => {{ let el = document.activeElement; \
            while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement; \
            return !!el && ({SUBMITS_FROM_FN}).call(el); }})()"
    )
}

/// Holds `call` until the person approves it, if its tab asks before
/// such a request; `Ok` at once otherwise. A request its tab asks for
/// but whose lease the agent does not hold is refused here, as its
/// handler would refuse it: it is never let on unasked in the hope that
/// the lease comes meanwhile.
pub(super) async fn gate(cx: &Cx<'_>, call: &Call) -> Result<(), RpcError> {
    let Ok(sid) = cx.sid() else {
        return Ok(());
    };
    // The tab it acts on. Opening a tab asks what any shared tab asks;
    // closing one needs no lease.
    let selected = cx.core(|c| c.selection(sid, cx.conn.id).ok().and_then(|(t, _)| t));
    let (on, asks) = match call {
        Call::TabsCreate(_) => (None, cx.core(|c| c.asks_for_agent_tab())),
        Call::TabsClose(p) => {
            let tab = p.tab_id.or(selected);
            (
                tab,
                tab.map(|t| cx.core(|c| c.ask_before(t)))
                    .unwrap_or_default(),
            )
        }
        _ => (
            selected,
            selected
                .map(|t| cx.core(|c| c.ask_before(t)))
                .unwrap_or_default(),
        ),
    };
    let check = check(call, &asks);
    if check.none() {
        return Ok(());
    }
    // Woken from here on, before anything is awaited: a takeover while
    // the page is read below is not missed.
    let mut leases = cx.shell.leases_changed.subscribe();
    let mut scopes = cx.shell.scopes_changed.subscribe();
    // The lease it needs, which the wait must not outlive: the least any
    // acting handler asks (a navigation may leave a page of another
    // site).
    let fence = match call {
        Call::TabsCreate(_) | Call::TabsClose(_) => None,
        _ => Some(cx.fence_to(Need::Act, None)?),
    };
    let secret = match (&check.if_secret, &fence) {
        (Some(at), Some(fence)) => takes_secret(cx, fence, at).await?,
        _ => false,
    };
    let submits = match (&check.if_submits, &fence) {
        (Some(at), Some(fence)) if !secret => submits(cx, fence, at).await?,
        _ => false,
    };
    let ask = if secret {
        AskBefore::Password
    } else if submits {
        AskBefore::Submit
    } else {
        match check.ask {
            Some(ask) => ask,
            None => return Ok(()),
        }
    };
    let (agent, what) = cx.core(|c| {
        let what =
            crate::activity::describe(c, sid, on, call).unwrap_or_else(|| call.method().to_owned());
        (c.agent_of(sid).unwrap_or_default().to_owned(), what)
    });
    let text = match call {
        Call::Type(p) if secret => Some("•".repeat(p.text.chars().count())),
        Call::Type(p) => Some(crate::redact::redact_str(
            &p.text,
            &crate::redact::Known::default(),
        )),
        _ => None,
    };
    tracing::info!(tab = ?on, ask = ask.as_str(), "an agent's request waits for the person's yes");
    let mut asking = cx.shell.ask_for(
        sid,
        PendingApproval {
            id: 0,
            agent,
            tab: on,
            ask,
            what,
            text,
            left_ms: 0,
            frame: None,
        },
    );
    let approval = asking.id();
    // The tab as it is, shown with the request once taken: what the
    // person answers is in front of them even while the tab is not.
    let framing = async {
        match &fence {
            Some(fence) => frame_of(cx, fence, aims_at(call)).await.ok(),
            None => None,
        }
    };
    tokio::pin!(framing);
    let mut framed = false;
    loop {
        tokio::select! {
            frame = &mut framing, if !framed => {
                framed = true;
                if let Some(frame) = frame {
                    cx.shell.frame_approval(approval, frame);
                }
            }
            answer = &mut asking.answer => {
                return match answer {
                    Ok(true) => match &fence {
                        Some(fence) => cx.check(fence),
                        None => Ok(()),
                    },
                    _ => Err(denied("the person said no")),
                };
            }
            _ = leases.changed() => {}
            _ = scopes.changed() => {}
            () = tokio::time::sleep_until(asking.until) => {
                return Err(denied(&format!(
                    "the person did not answer within {} s",
                    cx.shell.approval_wait.as_secs()
                )));
            }
        }
        // A takeover, an unshare, a lease ended: the approval goes with it.
        if let Some(fence) = &fence {
            cx.check(fence)?;
        }
        if on.is_some_and(|t| !cx.core(|c| c.shared().iter().any(|i| i.id == t))) {
            return Err(wire(ErrorKind::TabNotShared, "the tab is no longer shared"));
        }
        if cx.sid().is_err() {
            return Err(denied("the session ended"));
        }
    }
}

/// The JPEG quality of the picture shown with a request: enough to tell
/// a button's label.
const FRAME_QUALITY: u8 = 50;

/// The tab `fence` names as it is, with what `aim` aims at marked, for
/// the person deciding. Reads only: nothing is scrolled, and a drawing of
/// an earlier action is put away first, as for any capture. A mark that
/// cannot be placed (a ref gone stale, an element without a size) leaves
/// the picture unmarked.
async fn frame_of(
    cx: &Cx<'_>,
    fence: &Fence,
    aim: Option<AimAt>,
) -> Result<ApprovalFrame, RpcError> {
    cx.shell.overlays.hide(&cx.shell.lane, fence.tab);
    let mark = async {
        match aim {
            None => Ok(None),
            Some(AimAt::Element(r)) => cx.element_bounds(fence, &r).await,
            Some(AimAt::Point(at)) => css_point(cx, fence, &at).map(|(x, y)| {
                Some(Rect {
                    x,
                    y,
                    width: 0.0,
                    height: 0.0,
                })
            }),
        }
    };
    let (jpeg, geometry, mark) = tokio::join!(
        frames::picture(cx.shell, fence.tab, FRAME_QUALITY),
        cx.geometry(fence),
        mark,
    );
    let (jpeg, geometry) = (jpeg?, geometry?);
    Ok(ApprovalFrame {
        jpeg,
        width: css(geometry.viewport_width).max(0) as u32,
        height: css(geometry.viewport_height).max(0) as u32,
        mark: mark.ok().flatten().and_then(mark_of),
    })
}

/// A CSS length as a whole number of pixels (saturating; not a number
/// is 0).
fn css(v: f64) -> i32 {
    v.round() as i32
}

/// `r` as a [`Mark`]; none when it is not finite.
fn mark_of(r: Rect) -> Option<Mark> {
    [r.x, r.y, r.width, r.height]
        .iter()
        .all(|v| v.is_finite())
        .then(|| Mark {
            x: css(r.x),
            y: css(r.y),
            width: css(r.width).max(0) as u32,
            height: css(r.height).max(0) as u32,
        })
}

/// A point of a request in the viewport's CSS pixels: from image pixels
/// of a frame's capture (`captured`), as the input would place it
/// ([`Cx::aim`]), or as it is.
fn css_point(cx: &Cx<'_>, fence: &Fence, at: &PagePoint) -> Result<(f64, f64), RpcError> {
    if !at.captured {
        return Ok((at.x, at.y));
    }
    let f = cx.frame(fence, at.frame.as_ref())?;
    Ok((f.origin.0 + at.x / f.dpr, f.origin.1 + at.y / f.dpr))
}

fn denied(why: &str) -> RpcError {
    wire(
        ErrorKind::DeniedByPerson,
        format!("not approved: {why}; nothing of the request reached the page"),
    )
}

/// Whether typing at `at` would go into a field that takes a secret.
async fn takes_secret(cx: &Cx<'_>, fence: &Fence, at: &SecretAt) -> Result<bool, RpcError> {
    let v = match at {
        SecretAt::Focus => cx.read(fence, SECRET_FOCUS).await?,
        SecretAt::Element(r) => return Ok(takes_a_secret(&cx.describe_ref(fence, r).await?)),
    };
    // Anything but a plain `false` counts as a secret: fails closed.
    Ok(v != Value::Bool(false))
}

/// Whether pressing at `at` would submit a form.
async fn submits(cx: &Cx<'_>, fence: &Fence, at: &SubmitAt) -> Result<bool, RpcError> {
    let v = match at {
        SubmitAt::Focus => cx.read(fence, &submits_from_focus()).await?,
        SubmitAt::Element(r) | SubmitAt::Field(r) => {
            let function = match at {
                SubmitAt::Field(_) => SUBMITS_FROM_FN,
                _ => SUBMITS_FN,
            };
            let node = cx.core(|c| c.resolve_ref(fence, r))?;
            let el = cx.element_of(fence, node).await?;
            cx.call_on(fence, &el, function, Vec::new(), CommandClass::Observe)
                .await?
        }
        SubmitAt::Point(at) => {
            let (x, y) = css_point(cx, fence, at)?;
            if !(x.is_finite() && y.is_finite()) {
                return Ok(true);
            }
            cx.read(fence, &submits_at_point(x, y)).await?
        }
    };
    Ok(v != Value::Bool(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, attributes: &[&str]) -> NodeAttributes {
        NodeAttributes {
            node_name: name.into(),
            attributes: attributes.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn a_secret_field_is_told_by_its_attributes() {
        assert!(takes_a_secret(&node(
            "INPUT",
            &["id", "p", "type", "Password"]
        )));
        assert!(takes_a_secret(&node(
            "INPUT",
            &["autocomplete", "current-password"]
        )));
        assert!(takes_a_secret(&node(
            "INPUT",
            &["AUTOCOMPLETE", "one-time-code"]
        )));
        assert!(takes_a_secret(&node(
            "INPUT",
            &["autocomplete", "cc-number"]
        )));
        assert!(!takes_a_secret(&node("INPUT", &["type", "email"])));
        assert!(!takes_a_secret(&node("INPUT", &[])));
        assert!(!takes_a_secret(&node("DIV", &["type", "password"])));
        // An odd count of entries reads what pairs there are.
        assert!(!takes_a_secret(&node("INPUT", &["type"])));
    }
}
