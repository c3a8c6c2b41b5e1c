//! The page methods that observe or answer the page rather than give it
//! input: `page.snapshot`, `page.wait`, `page.console`, `page.dialog`.
//!
//! Snapshot, wait and console need no lease (observe); the dialog answer
//! changes the page and needs the lease.

use super::{invalid_params, off_thread_if, wire, Cx};
use crate::broker::{Fence, Given, Need};
use crate::documents::LARGE_CAPTURE;
use crate::outline::changes::{self, Seen, Shows};
use crate::outline::dom::STYLES;
use crate::outline::{self, RootGone, Scope, Source};
use cotab_shared::cdp::{
    CaptureSnapshot, CdpEvent as _, DescribeNode, Evaluate, Frame, GetContentQuads, GetFrameTree,
    HandleJavaScriptDialog, JavascriptDialogClosed, LifecycleEvent, Node, ReleaseObjectGroup,
    SetLifecycleEventsEnabled,
};
use cotab_shared::controller::{
    Acted, ConsoleParams, ConsoleResult, DialogParams, RpcError, SnapshotParams, SnapshotResult,
    WaitParams, WaitResult, WaitUntil,
};
use cotab_shared::geometry::quads_of;
use cotab_shared::limits::{DEFAULT_SNAPSHOT_CHARS, MAX_DEADLINE_MS, MAX_SNAPSHOT_CHARS};
use cotab_shared::native::CommandClass;
use cotab_shared::ErrorKind;
use futures_util::stream::{self, StreamExt as _, TryStreamExt as _};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;
use tokio::time::Instant;

/// Default `timeoutMs` of `page.wait`.
const DEFAULT_WAIT_MS: u64 = 30_000;
/// How often `page.wait` looks at text, refs and selectors.
const POLL: Duration = Duration::from_millis(100);

/// The deepest element that has the focus, through shadow roots and the
/// frames the page can reach.
const FOCUSED: &str = "(() => { let e = document.activeElement; \
    while (e) { const inner = e.shadowRoot ? e.shadowRoot.activeElement \
    : (e.contentDocument ? e.contentDocument.activeElement : null); \
    if (!inner) break; e = inner; } \
    return e && e !== document.body ? e : null; })()";

/// The backend id of the element that has the focus; none when the page
/// has none, or it cannot be read (the snapshot shows no `[active]` then).
/// The handle it took is released, so the element can be freed.
async fn focused(cx: &Cx<'_>, fence: &Fence) -> Result<Option<i64>, RpcError> {
    static GROUPS: AtomicU64 = AtomicU64::new(0);
    // A group of its own: another snapshot of the tab releases only its.
    let group = format!("cotab-focus-{}", GROUPS.fetch_add(1, Ordering::Relaxed));
    let found = cx
        .send(
            fence,
            &Evaluate {
                expression: FOCUSED,
                return_by_value: false,
                await_promise: false,
                object_group: Some(&group),
            },
            CommandClass::Observe,
        )
        .await?;
    let threw = found.threw();
    let Some(object_id) = found.result.object_id.filter(|_| !threw) else {
        return Ok(None);
    };
    let release = ReleaseObjectGroup {
        object_group: group,
    };
    // The release goes right behind the description, which the page
    // answers first: no trip is added. A release that fails leaves the
    // handle to the page's next navigation; it fails no snapshot.
    let describe = DescribeNode { object_id };
    let (described, _) = tokio::join!(
        cx.send(fence, &describe, CommandClass::Observe),
        cx.send(fence, &release, CommandClass::Observe),
    );
    match described {
        Ok(d) => Ok(d.node.backend_node_id),
        Err(e) if e.kind() == ErrorKind::CommandFailed => Ok(None),
        Err(e) => Err(e),
    }
}

pub(super) async fn snapshot(cx: &Cx<'_>, p: SnapshotParams) -> Result<SnapshotResult, RpcError> {
    let max = p.max_chars.unwrap_or(DEFAULT_SNAPSHOT_CHARS);
    if max == 0 || max > MAX_SNAPSHOT_CHARS {
        return Err(invalid_params(format!(
            "invalid params: `params.maxChars` must be 1 to {MAX_SNAPSHOT_CHARS}"
        )));
    }
    let depth = match p.depth {
        Some(0) => {
            return Err(invalid_params(
                "invalid params: `params.depth` must be at least 1",
            ))
        }
        d => d.map(|d| d as usize),
    };
    if p.changes && (p.root.is_some() || p.depth.is_some() || p.boxes) {
        return Err(invalid_params(
            "invalid params: `params.changes` are of the whole outline: not with `ref`, \
             `depth` or `boxes`",
        ));
    }
    let fence = cx.fence(Need::Observe)?;
    // The root's element, while its ref is still good.
    let root = match &p.root {
        Some(r) => Some(cx.core(|c| c.resolve_ref(&fence, r))?),
        None => None,
    };
    let mark = cx.core(|c| c.snapshot_started(&fence));
    let fence = &fence;
    let capture = CaptureSnapshot {
        computed_styles: STYLES.iter().map(|s| s.to_string()).collect(),
    };
    // The documents, the focus and the page's url and title do not depend
    // on each other: the three are asked for at once, and the first
    // failure ends the snapshot.
    let (captured, focused, page) = tokio::try_join!(
        cx.send(fence, &capture, CommandClass::Observe),
        focused(cx, fence),
        cx.read(fence, "({url: location.href, title: document.title})"),
    )?;
    let text = |k: &str| {
        page.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    // The page may have gone to another site since the fence was taken
    // (the person's navigation, told after it committed): what it read
    // there is not the agent's.
    cx.core(|c| c.url_in_scope(fence.tab, &text("url")))?;
    let dom = crate::documents::read(captured).await?;
    // Numbers for every node, the most the outline can show, reserved
    // first: another snapshot of the session rendered meanwhile cannot
    // take the same ones. A large outline renders on the blocking pool.
    let nodes: usize = dom.documents.iter().map(|d| d.nodes.len()).sum();
    let reserved = nodes as u64;
    let mut numbers = cx.core(|c| c.reserve_refs(fence, reserved))?;
    let partial = root.is_some() || depth.is_some();
    let (out, numbers) =
        off_thread_if(nodes > LARGE_CAPTURE, "rendering the snapshot", move || {
            let scope = Scope {
                root: root.as_ref(),
                depth,
            };
            let source = Source { dom: &dom, focused };
            let out = outline::render_scoped(source, &mut numbers, max, scope);
            Ok((out, numbers))
        })
        .await?;
    let used = (numbers.first(), numbers.fresh());
    let out = match out {
        Ok(out) => out,
        Err(RootGone) => {
            // Its numbers go back; the latest snapshot's refs stay.
            cx.core(|c| c.snapshot_finished(fence, mark, used, reserved, Vec::new(), None))?;
            return Err(wire(
                ErrorKind::StaleRef,
                "the element of `ref` is no longer on the page: call page.snapshot again",
            ));
        }
    };
    let refs = out.refs.len();
    // What the session saw of the tab, kept for what its next actions
    // name ([`crate::broker::Core::ref_label`]).
    let whole = (!partial).then(|| Arc::<str>::from(out.text.as_str()));
    let text_out = if p.boxes {
        let boxes = boxes_of(cx, fence, &out.refs).await?;
        outline::with_boxes(&out.text, &boxes)
    } else {
        out.text
    };
    // What the changes are of: the session's outline of the tab that this
    // one replaces.
    let given =
        cx.core(|c| c.snapshot_finished(fence, mark, used, reserved, out.refs, whole.clone()))?;
    let shows = match (p.changes, whole) {
        (true, Some(new)) => Some(changes_of(given, new, out.truncated).await?),
        _ => None,
    };
    let (text_out, changes, whole_because) = match shows {
        None | Some(Shows::Whole(None)) => (text_out, None, None),
        Some(Shows::Whole(Some(why))) => (text_out, None, Some(why.says().to_owned())),
        Some(Shows::Same) => (String::new(), Some(String::new()), None),
        Some(Shows::Changes(d)) => (String::new(), Some(d), None),
    };
    Ok(SnapshotResult {
        url: text("url"),
        title: text("title"),
        refs,
        text: text_out,
        truncated: out.truncated,
        file_chooser: cx.core(|c| c.file_chooser(fence.tab)),
        changes,
        whole_because,
    })
}

/// What `page.snapshot`'s `changes` give of `new` (`cut` at its limit),
/// the outline that replaced the one the session was `given`: on the
/// blocking pool for large outlines, as their rendering.
async fn changes_of(given: Option<Given>, new: Arc<str>, cut: bool) -> Result<Shows, RpcError> {
    let lines = |t: &str| t.bytes().filter(|b| *b == b'\n').count();
    let large = lines(&new) + given.as_ref().map_or(0, |g| lines(&g.outline)) > LARGE_CAPTURE;
    off_thread_if(large, "comparing the outlines", move || {
        let seen = given.as_ref().map(|g| match g.same {
            true => Seen::Same(&g.outline),
            false => Seen::Other,
        });
        let old_cut = given
            .as_ref()
            .is_some_and(|g| g.same && outline::is_cut(&g.outline));
        let deadline = std::time::Instant::now().checked_add(changes::DIFF_TIME);
        Ok(changes::compare(seen, &new, cut || old_cut, 0, deadline))
    })
    .await
}

/// Boxes asked for at once, at most.
const BOXES_AT_ONCE: usize = 8;

/// The box of each ref's element, in viewport CSS pixels: the bounds of
/// its content quads (`DOM.getContentQuads`, class `observe`). An element
/// without one (no size, not rendered, gone) has none; other failures
/// fail the snapshot.
async fn boxes_of(
    cx: &Cx<'_>,
    fence: &Fence,
    refs: &[(u64, crate::broker::NodeRef)],
) -> Result<HashMap<u64, [i64; 4]>, RpcError> {
    let one = |(n, node): &(u64, crate::broker::NodeRef)| {
        let (n, id) = (*n, node.backend_node_id);
        async move {
            let q = GetContentQuads(Node {
                backend_node_id: id,
            });
            match cx.send(fence, &q, CommandClass::Observe).await {
                Ok(q) => Ok(bounds(&quads_of(&q.quads)).map(|b| (n, b))),
                Err(e) if e.kind() == ErrorKind::CommandFailed => Ok(None),
                Err(e) => Err(e),
            }
        }
    };
    let found: Vec<Option<(u64, [i64; 4])>> = stream::iter(refs)
        .map(one)
        .buffered(BOXES_AT_ONCE)
        .try_collect()
        .await?;
    cx.check(fence)?;
    Ok(found.into_iter().flatten().collect())
}

/// The rounded bounds `[x, y, width, height]` of `quads`, if any has an
/// area.
fn bounds(quads: &[[(f64, f64); 4]]) -> Option<[i64; 4]> {
    let points: Vec<(f64, f64)> = quads.iter().flatten().copied().collect();
    let (mut x0, mut y0) = (f64::INFINITY, f64::INFINITY);
    let (mut x1, mut y1) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for (x, y) in points {
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
    }
    let sized = x1 - x0 >= 1.0 && y1 - y0 >= 1.0 && x0.is_finite() && y0.is_finite();
    sized.then(|| {
        [
            x0.round() as i64,
            y0.round() as i64,
            (x1 - x0).round() as i64,
            (y1 - y0).round() as i64,
        ]
    })
}

fn missing(field: &str) -> RpcError {
    invalid_params(format!("invalid params: missing field `params.{field}`"))
}

/// A string as a JavaScript literal (JSON is one).
fn js_string(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// Whether an element is connected and rendered visibly.
const VISIBLE_FN: &str = "function() { \
    const el = this.nodeType === 1 ? this : this.parentElement; \
    if (!el || !el.isConnected) return false; \
    if (el.checkVisibility && !el.checkVisibility({visibilityProperty: true})) return false; \
    const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; }";

pub(super) async fn wait(cx: &Cx<'_>, p: WaitParams) -> Result<WaitResult, RpcError> {
    let timeout = p.timeout_ms.unwrap_or(DEFAULT_WAIT_MS);
    if timeout > MAX_DEADLINE_MS {
        return Err(invalid_params(format!(
            "invalid params: `params.timeoutMs` must be at most {MAX_DEADLINE_MS}"
        )));
    }
    match p.until {
        WaitUntil::Text | WaitUntil::TextGone if p.text.is_none() => return Err(missing("text")),
        WaitUntil::Ref | WaitUntil::RefGone if p.element.is_none() => return Err(missing("ref")),
        WaitUntil::Selector | WaitUntil::SelectorGone if p.selector.is_none() => {
            return Err(missing("selector"))
        }
        WaitUntil::Time if p.time_ms.is_none() => return Err(missing("timeMs")),
        WaitUntil::Time if p.time_ms > Some(MAX_DEADLINE_MS) => {
            return Err(invalid_params(format!(
                "invalid params: `params.timeMs` must be at most {MAX_DEADLINE_MS}"
            )))
        }
        _ => {}
    }
    let start = Instant::now();
    let until = start + Duration::from_millis(timeout);
    // This request's own deadline: the wait's, with room for the last
    // look to be answered.
    let cx = Cx {
        deadline: until + Duration::from_secs(1),
        ..*cx
    };
    let fence = cx.fence(Need::Observe)?;
    let timed_out = || {
        wire(
            ErrorKind::Timeout,
            format!("the condition did not hold within {timeout} ms"),
        )
    };
    let done = |_: ()| WaitResult {
        waited_ms: u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    match p.until {
        WaitUntil::Time => {
            let t = Duration::from_millis(p.time_ms.unwrap_or(0));
            tokio::time::sleep_until((start + t).min(until)).await;
            cx.check(&fence)?;
            if start + t > until {
                return Err(timed_out());
            }
            Ok(done(()))
        }
        WaitUntil::Load => {
            let mut events = cx.shell.lane.subscribe_cdp();
            let state = cx.read(&fence, "document.readyState").await?;
            if state.as_str() != Some("complete") {
                let cx = Cx {
                    deadline: until,
                    ..cx
                };
                cx.event(&fence, &mut events, "", |e| {
                    e.method == "Page.loadEventFired"
                })
                .await
                .map_err(|e| {
                    if e.kind() == ErrorKind::Timeout {
                        timed_out()
                    } else {
                        e
                    }
                })?;
            }
            Ok(done(()))
        }
        WaitUntil::NetworkIdle => {
            network_idle(&cx, &fence, until).await.map_err(|e| {
                if e.kind() == ErrorKind::Timeout {
                    timed_out()
                } else {
                    e
                }
            })?;
            Ok(done(()))
        }
        _ => loop {
            if condition(&cx, &fence, &p).await? {
                return Ok(done(()));
            }
            let now = Instant::now();
            if now >= until {
                return Err(timed_out());
            }
            tokio::time::sleep_until((now + POLL).min(until)).await;
        },
    }
}

/// Waits for `networkIdle` of the main frame's current loader (at once if
/// it already went idle).
async fn network_idle(cx: &Cx<'_>, fence: &Fence, until: Instant) -> Result<(), RpcError> {
    let mut events = cx.shell.lane.subscribe_cdp();
    let tree = cx
        .send(fence, &GetFrameTree {}, CommandClass::Observe)
        .await?;
    let Frame {
        id: frame,
        loader_id: loader,
        ..
    } = tree.frame_tree.frame;
    let tab = fence.tab;
    let known = |cx: &Cx<'_>| {
        cx.core(|c| {
            let current = c.lifecycle_loader(tab, &frame) == Some(loader.as_str());
            c.lifecycle_reached(tab, &frame, "networkIdle")
                .filter(|_| current)
        })
    };
    let reached = match known(cx) {
        Some(r) => r,
        None => {
            // Not known of this loader (the tab was shared, or the daemon
            // started, after the page loaded): enabling lifecycle events
            // again makes the browser report the ones already reached,
            // before it answers.
            cx.send(
                fence,
                &SetLifecycleEventsEnabled { enabled: true },
                CommandClass::Observe,
            )
            .await?;
            known(cx) == Some(true)
        }
    };
    if reached {
        return Ok(());
    }
    let cx = Cx {
        deadline: until,
        ..*cx
    };
    cx.event(fence, &mut events, "", |e| {
        LifecycleEvent::parse(&e.method, &e.params)
            .is_some_and(|l| l.name == "networkIdle" && l.frame_id == frame)
    })
    .await?;
    Ok(())
}

/// One look at a polled condition.
async fn condition(cx: &Cx<'_>, fence: &Fence, p: &WaitParams) -> Result<bool, RpcError> {
    let gone = matches!(
        p.until,
        WaitUntil::TextGone | WaitUntil::RefGone | WaitUntil::SelectorGone
    );
    let present = match p.until {
        WaitUntil::Text | WaitUntil::TextGone => {
            let text = js_string(p.text.as_deref().unwrap_or_default());
            let v = cx
                .read(
                    fence,
                    &format!(
                        "(() => {{ const b = document.body; return b ? b.innerText.includes({text}) : false; }})()"
                    ),
                )
                .await?;
            v == Value::Bool(true)
        }
        WaitUntil::Selector | WaitUntil::SelectorGone => {
            let sel = js_string(p.selector.as_deref().unwrap_or_default());
            let v = cx
                .read(
                    fence,
                    &format!(
                        "(() => {{ try {{ return document.querySelector({sel}) !== null; }} catch (e) {{ return 'invalid'; }} }})()"
                    ),
                )
                .await?;
            if v.as_str() == Some("invalid") {
                return Err(invalid_params(
                    "invalid params: `params.selector` is not a valid CSS selector",
                ));
            }
            v == Value::Bool(true)
        }
        WaitUntil::Ref | WaitUntil::RefGone => {
            let Some(r) = &p.element else {
                return Err(missing("ref"));
            };
            // A ref that went stale by a navigation is gone from the page;
            // waiting for it to appear is an error.
            match cx.element(fence, r).await {
                Ok(el) => {
                    cx.call_on(fence, &el, VISIBLE_FN, vec![], CommandClass::Observe)
                        .await?
                        == Value::Bool(true)
                }
                Err(e) if e.kind() == ErrorKind::StaleRef && gone => false,
                Err(e) => return Err(e),
            }
        }
        _ => false,
    };
    Ok(present != gone)
}

pub(super) fn console(cx: &Cx<'_>, p: ConsoleParams) -> Result<ConsoleResult, RpcError> {
    let fence = cx.fence(Need::Observe)?;
    Ok(cx.core(|c| c.console(&fence, p.since, p.levels.as_deref(), p.current_document))?)
}

/// `page.dialog`: answers the dialog open now, waits for the browser to
/// say it closed, then reports the next dialog of a chain — one the page
/// opens as it goes on from the answer, before it next becomes idle — or
/// follows the navigation the answer led to.
pub(super) async fn dialog(cx: &Cx<'_>, p: DialogParams) -> Result<Acted, RpcError> {
    let fence = cx.fence(Need::Act)?;
    if cx.core(|c| c.dialog(fence.tab).is_none()) {
        return Err(wire(
            ErrorKind::InvalidRequest,
            "no dialog is open on this tab",
        ));
    }
    let answer = HandleJavaScriptDialog {
        accept: p.accept,
        prompt_text: p.prompt_text,
    };
    cx.core(|c| c.input(&fence))?;
    let mut events = cx.shell.lane.subscribe_cdp();
    cx.send(&fence, &answer, CommandClass::Act).await?;
    // The browser reports the close after the answer; only then is the
    // dialog the core knows the next one, if any.
    let closed = async {
        loop {
            match events.recv().await {
                Ok(ev) if ev.tab_id == fence.tab && ev.method == JavascriptDialogClosed::METHOD => {
                    return Ok(());
                }
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => {
                    return Err(wire(ErrorKind::RuntimeLost, "the browser lane went away"));
                }
            }
        }
    };
    tokio::time::timeout_at(cx.deadline, closed)
        .await
        .map_err(|_| {
            wire(
                ErrorKind::Timeout,
                "the browser did not report the dialog closed",
            )
        })??;
    cx.check(&fence)?;
    // A round trip on the page's main thread: it runs once the script that
    // opened the answered dialog has gone on to its end — or to the next
    // dialog, which then cuts it short.
    let next = match cx.read(&fence, "0").await {
        Err(e) if e.kind() == ErrorKind::DialogOpen => e.data.dialog,
        // The answer may have left the page (a beforeunload): whatever the
        // probe met, the answer was given.
        Err(e) if e.kind() == ErrorKind::CommandFailed => None,
        Err(e) => return Err(e),
        Ok(_) => None,
    };
    if next.is_some() {
        return Ok(Acted {
            dialog: next,
            file_chooser: None,
        });
    }
    // The answer may lead to another page (a beforeunload let go, a
    // confirm whose script navigates): answer once it loaded.
    match cx.follow_navigation(&mut events).await {
        Err(e) if e.kind() == ErrorKind::DialogOpen => Ok(Acted {
            dialog: e.data.dialog,
            file_chooser: None,
        }),
        Err(e) => Err(e),
        Ok(()) => Ok(Acted::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::bounds;

    #[test]
    fn a_box_bounds_every_quad_and_needs_an_area() {
        let a = [(10.2, 5.0), (60.0, 5.0), (60.0, 25.0), (10.2, 25.0)];
        let b = [(0.0, 30.0), (20.0, 30.0), (20.0, 40.4), (0.0, 40.4)];
        assert_eq!(bounds(&[a, b]), Some([0, 5, 60, 35]));
        let flat = [(1.0, 1.0), (50.0, 1.0), (50.0, 1.5), (1.0, 1.5)];
        assert_eq!(bounds(&[flat]), None);
        assert_eq!(bounds(&[]), None);
    }
}
