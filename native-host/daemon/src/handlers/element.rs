//! Elements named by snapshot refs: how a ref becomes an element and a
//! point to aim at. The input methods that take refs are
//! [`super::by_ref`]'s.
//!
//! A ref becomes an element in three steps: the
//! core maps it to a `backendNodeId` (only the session's latest snapshot,
//! no navigation since: else `STALE_REF`), `DOM.resolveNode` makes it a
//! JavaScript object (a node that is gone is `STALE_REF` too), and for
//! pointer input `DOM.scrollIntoViewIfNeeded` + `DOM.getContentQuads` give
//! its visible centre, clipped to the viewport (no size: `NOT_INTERACTABLE`),
//! which `DOM.getNodeForLocation` must hit on the element or inside it
//! (else covered: `NOT_INTERACTABLE`). The extension does all of it in
//! one trip, an element aim ([`Command::Aim`], [`Cx::element_in_view`]).
//! A click on a ref is then coordinate
//! input that needs no frame; presses are recorded before they are sent
//! and always released, as for every other input.

use super::{wire, Cx, Rect};
use crate::broker::{Fence, NodeRef};
use crate::overlay::Aimed;
use cotab_shared::cdp::{
    CallArgument, CallFunctionOn, DescribeBackendNode, Focus, GetContentQuads, Node,
    NodeAttributes, ResolveNode,
};
use cotab_shared::controller::{Ref, RpcError};
use cotab_shared::geometry::{area, quads_of, Quad};
use cotab_shared::native::{Aim, AimPoint, Aimed as AimedAt, Command, CommandClass};
use cotab_shared::ErrorKind;
use serde_json::{json, Value};

/// An element of the page, resolved from a ref.
pub(super) struct Element {
    /// What the ref stands for.
    pub(super) node: NodeRef,
    /// Its JavaScript object in the page.
    pub(super) object_id: String,
}

/// An element's content quads and the layout viewport, read right after
/// it was scrolled into view.
pub(super) struct InView {
    quads: Vec<Quad>,
    layout: Layout,
}

/// Checks that the focused element takes text; with `clear`, empties it
/// the way a person would (select all, delete), falling back to the value
/// setter, with an `input` event either way.
const PREPARE_TYPING_FN: &str = "function(clear) { \
    const el = this; \
    const field = el instanceof HTMLTextAreaElement || (el instanceof HTMLInputElement && \
        !['checkbox','radio','file','submit','button','reset','image','range','color','hidden'].includes(el.type)); \
    if (!field && !el.isContentEditable) return 'not-editable'; \
    if (field && (el.disabled || el.readOnly)) return 'read-only'; \
    const root = el.getRootNode(); \
    if (!root || root.activeElement !== el) return 'not-focused'; \
    const secret = (el instanceof HTMLInputElement && el.type === 'password') || \
        /password|one-time-code|cc-/.test(el.autocomplete || '') ? '-secret' : ''; \
    if (!clear) return ((field ? el.value === '' : el.textContent === '') ? 'empty' : 'ok') + secret; \
    if (field) { \
        if (el.value === '') return 'ok' + secret; \
        try { el.select(); } catch (e) {} \
        if (!document.execCommand('delete') || el.value !== '') { \
            const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype; \
            Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, ''); \
            el.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'deleteContentBackward'})); } \
    } else { \
        const r = document.createRange(); r.selectNodeContents(el); \
        const s = getSelection(); s.removeAllRanges(); s.addRange(r); \
        if (!document.execCommand('delete') || el.textContent !== '') { \
            el.textContent = ''; \
            el.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'deleteContentBackward'})); } \
    } \
    return 'ok' + secret; }";

pub(super) fn not_interactable(why: &str) -> RpcError {
    wire(ErrorKind::NotInteractable, why)
}

fn gone(e: RpcError) -> RpcError {
    if e.kind() == ErrorKind::CommandFailed {
        wire(
            ErrorKind::StaleRef,
            "the element is gone from the page: call page.snapshot again",
        )
    } else {
        e
    }
}

/// The box around every quad, clipped to the viewport.
fn visible_box(quads: &[Quad], width: f64, height: f64) -> Option<Rect> {
    let points: Vec<(f64, f64)> = quads
        .iter()
        .filter(|q| area(q) >= 1.0)
        .flat_map(|q| q.iter().copied())
        .collect();
    if points.is_empty() {
        return None;
    }
    let x0 = points.iter().map(|p| p.0).fold(f64::MAX, f64::min).max(0.0);
    let y0 = points.iter().map(|p| p.1).fold(f64::MAX, f64::min).max(0.0);
    let x1 = points
        .iter()
        .map(|p| p.0)
        .fold(f64::MIN, f64::max)
        .min(width);
    let y1 = points
        .iter()
        .map(|p| p.1)
        .fold(f64::MIN, f64::max)
        .min(height);
    (x1 - x0 >= 1.0 && y1 - y0 >= 1.0).then_some(Rect {
        x: x0,
        y: y0,
        width: x1 - x0,
        height: y1 - y0,
    })
}

/// The box around every quad with an area, unclipped; none when no quad
/// has one.
pub(super) fn bounds(quads: &[Quad]) -> Option<Rect> {
    let points: Vec<(f64, f64)> = quads
        .iter()
        .filter(|q| area(q) >= 1.0)
        .flat_map(|q| q.iter().copied())
        .collect();
    let first = points.first()?;
    let (mut x0, mut y0, mut x1, mut y1) = (first.0, first.1, first.0, first.1);
    for &(x, y) in &points {
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
    }
    Some(Rect {
        x: x0,
        y: y0,
        width: x1 - x0,
        height: y1 - y0,
    })
}

/// The layout viewport's size, CSS pixels.
struct Layout {
    width: f64,
    height: f64,
}

impl Cx<'_> {
    /// The element `r` stands for (`STALE_REF` when it does not stand for
    /// one any more).
    pub(super) async fn element(&self, fence: &Fence, r: &Ref) -> Result<Element, RpcError> {
        let node = self.core(|c| c.resolve_ref(fence, r))?;
        // Every caller acts on it: the person sees which element.
        self.aimed(fence, Aimed::Element(node.backend_node_id));
        self.element_of(fence, node).await
    }

    /// Notes what an action of the request aims at, for the person to see
    /// in the tab once the request acted ([`Cx::show_aimed`]).
    pub(super) fn aimed(&self, fence: &Fence, aimed: Aimed) {
        *self
            .cut
            .aimed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some((fence.tab, aimed));
    }

    /// Shows the person what the request's action aimed at, in the tab
    /// ([`crate::overlay`]), if it acted: after its input, which would
    /// wipe a drawing made before it (the browser clears its highlight
    /// when the pointer moves). Never waited for.
    pub(super) fn show_aimed<T>(&self, outcome: &Result<T, RpcError>) {
        let aimed = self
            .cut
            .aimed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let (Ok(_), Some((tab, aimed))) = (outcome, aimed) {
            self.shell.overlays.show(&self.shell.lane, tab, aimed);
        }
    }

    /// [`Cx::element`], scrolled into view (`DOM.scrollIntoViewIfNeeded`,
    /// of `class`), with its quads and the viewport read after the scroll,
    /// and the `point` wanted on it, in one element aim
    /// ([`Command::Aim`]). A node the page no longer has is `STALE_REF`;
    /// one it does not render, that has no size or (for a point) lies
    /// outside the viewport or under something else is
    /// `NOT_INTERACTABLE`.
    pub(super) async fn element_in_view(
        &self,
        fence: &Fence,
        r: &Ref,
        class: CommandClass,
        point: AimPoint,
    ) -> Result<(Element, InView, Option<(f64, f64)>), RpcError> {
        let node = self.core(|c| c.resolve_ref(fence, r))?;
        if class == CommandClass::Act {
            self.aimed(fence, Aimed::Element(node.backend_node_id));
        }
        self.aim_at(fence, node, class, point).await
    }

    /// The element aim of `node` ([`Command::Aim`]).
    async fn aim_at(
        &self,
        fence: &Fence,
        node: NodeRef,
        class: CommandClass,
        point: AimPoint,
    ) -> Result<(Element, InView, Option<(f64, f64)>), RpcError> {
        let aim = Aim {
            tab_id: fence.tab,
            backend_node_id: node.backend_node_id,
            class,
            point,
        };
        let v = self.step_of(fence, Command::Aim(aim)).await?;
        let malformed = || {
            wire(
                ErrorKind::CommandFailed,
                "the extension's aim was malformed",
            )
        };
        let found: AimedAt = serde_json::from_value(v).map_err(|_| malformed())?;
        let (quads, (width, height, _, _)) = found.in_view()?;
        let in_view = InView {
            quads,
            layout: Layout { width, height },
        };
        let el = Element {
            node,
            object_id: found.object_id,
        };
        Ok((el, in_view, found.point))
    }

    /// The name and attributes of the element `r` stands for, read
    /// without touching the page.
    pub(super) async fn describe_ref(
        &self,
        fence: &Fence,
        r: &Ref,
    ) -> Result<NodeAttributes, RpcError> {
        let node = self.core(|c| c.resolve_ref(fence, r))?;
        let described = self
            .send(
                fence,
                &DescribeBackendNode {
                    backend_node_id: node.backend_node_id,
                },
                CommandClass::Observe,
            )
            .await?;
        Ok(described.node)
    }

    /// The box of the element `r` stands for where it is now, in viewport
    /// CSS pixels, inside the viewport or not: nothing is scrolled. None
    /// when it has no size.
    pub(super) async fn element_bounds(
        &self,
        fence: &Fence,
        r: &Ref,
    ) -> Result<Option<Rect>, RpcError> {
        let node = self.core(|c| c.resolve_ref(fence, r))?;
        let quads = self.content_quads(fence, node.backend_node_id).await?;
        Ok(bounds(&quads))
    }

    /// The page's object for `node`.
    pub(super) async fn element_of(
        &self,
        fence: &Fence,
        node: NodeRef,
    ) -> Result<Element, RpcError> {
        let resolve = ResolveNode(Node {
            backend_node_id: node.backend_node_id,
        });
        let v = self
            .send(fence, &resolve, CommandClass::Observe)
            .await
            .map_err(gone)?;
        let object_id = v
            .object
            .object_id
            .ok_or_else(|| gone(wire(ErrorKind::CommandFailed, "no object")))?;
        Ok(Element { node, object_id })
    }

    /// Calls `function` on the element (`Runtime.callFunctionOn`,
    /// `returnByValue`) and returns its value.
    pub(super) async fn call_on(
        &self,
        fence: &Fence,
        el: &Element,
        function: &str,
        args: Vec<Value>,
        class: CommandClass,
    ) -> Result<Value, RpcError> {
        let call = CallFunctionOn {
            object_id: &el.object_id,
            function_declaration: function,
            arguments: args.into_iter().map(CallArgument::Value).collect(),
            return_by_value: true,
            await_promise: true,
        };
        let r = self.send(fence, &call, class).await.map_err(gone)?;
        if r.threw() {
            return Err(wire(
                ErrorKind::CommandFailed,
                "the page threw while handling the element",
            ));
        }
        Ok(r.result.value.unwrap_or(Value::Null))
    }

    /// The content quads of the node `id`, in viewport CSS pixels.
    async fn content_quads(&self, fence: &Fence, id: i64) -> Result<Vec<Quad>, RpcError> {
        let q = self
            .send(
                fence,
                &GetContentQuads(Node {
                    backend_node_id: id,
                }),
                CommandClass::Observe,
            )
            .await
            .map_err(|e| match e.kind() {
                ErrorKind::CommandFailed => not_interactable("the element has no size"),
                _ => e,
            })?;
        Ok(quads_of(&q.quads))
    }

    /// The element's visible centre in viewport CSS pixels, after scrolling
    /// it into view; with `hit_test`, the point must hit the element (or
    /// something inside it). One element aim ([`Command::Aim`]).
    pub(super) async fn visible_point(
        &self,
        fence: &Fence,
        el: &Element,
        class: CommandClass,
        hit_test: bool,
    ) -> Result<(f64, f64), RpcError> {
        let point = if hit_test {
            AimPoint::Hit
        } else {
            AimPoint::Centre
        };
        let (_, _, at) = self.aim_at(fence, el.node.clone(), class, point).await?;
        at.ok_or_else(|| {
            wire(
                ErrorKind::CommandFailed,
                "the extension's aim found no point",
            )
        })
    }

    /// The element's box in viewport CSS pixels (for a clipped capture),
    /// after scrolling it into view.
    pub(super) async fn element_box(&self, fence: &Fence, r: &Ref) -> Result<Rect, RpcError> {
        // Observe: a capture needs no lease; bringing the element into view
        // only scrolls (which makes earlier frames stale by geometry).
        let (_, InView { quads, layout }, _) = self
            .element_in_view(fence, r, CommandClass::Observe, AimPoint::None)
            .await?;
        if quads.iter().all(|q| area(q) < 1.0) {
            return Err(not_interactable("the element has no size"));
        }
        visible_box(&quads, layout.width, layout.height)
            .ok_or_else(|| not_interactable("the element is outside the viewport"))
    }

    /// `input.type` with a ref: the element is brought into view, focused
    /// and checked to take text (and emptied with `clear`).
    pub(super) async fn focus_for_typing(
        &self,
        fence: &Fence,
        r: &Ref,
        clear: bool,
    ) -> Result<(), RpcError> {
        let (el, _, _) = self
            .element_in_view(fence, r, CommandClass::Act, AimPoint::Centre)
            .await?;
        // The focus and the check go in one trip: the page runs the check
        // after the focus. The check only reads: a focus handler may open a
        // dialog, and the check then runs when the dialog closes, after
        // this request ended. Emptying the element is a step of its own.
        let focus = Focus(Node {
            backend_node_id: el.node.backend_node_id,
        });
        let (focused, checked) = tokio::join!(
            biased;
            self.send(fence, &focus, CommandClass::Act),
            self.call_on(
                fence,
                &el,
                PREPARE_TYPING_FN,
                vec![json!(false)],
                CommandClass::Act,
            ),
        );
        let focused = match focused {
            Ok(_) => true,
            Err(e) if e.kind() == ErrorKind::CommandFailed => false,
            Err(e) => return Err(e),
        };
        let checked = checked?;
        // Why it takes no text says more than the focus it could not take.
        if !focused && !matches!(checked.as_str(), Some("not-editable" | "read-only")) {
            return Err(not_interactable("the element cannot take the focus"));
        }
        let state = typing_state(&checked)?;
        // What is typed here is kept in the person's record only if the
        // field is known not to take a secret.
        let secret = checked.as_str().is_some_and(|s| s.ends_with("-secret"));
        self.cut.typed_in_plain_field(!secret);
        if clear && state == "ok" {
            let cleared = self
                .call_on(
                    fence,
                    &el,
                    PREPARE_TYPING_FN,
                    vec![json!(true)],
                    CommandClass::Act,
                )
                .await?;
            typing_state(&cleared)?;
        }
        Ok(())
    }
}

/// What [`PREPARE_TYPING_FN`] answered: `ok` or `empty` (the element takes
/// text and has the focus; `-secret` after it for a password field or one
/// whose `autocomplete` names a secret), or why the text cannot go in.
fn typing_state(answer: &Value) -> Result<&str, RpcError> {
    match answer.as_str() {
        Some("ok" | "ok-secret") => Ok("ok"),
        Some("empty" | "empty-secret") => Ok("empty"),
        Some("not-editable") => Err(wire(
            ErrorKind::InvalidRequest,
            "the element does not take text",
        )),
        Some("read-only") => Err(not_interactable("the element is disabled or read-only")),
        Some("not-focused") => Err(not_interactable(
            "the page moved the focus away from the element",
        )),
        _ => Err(wire(
            ErrorKind::CommandFailed,
            "the page answered the typing check with something else",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_is_clipped_to_the_viewport_and_the_bounds_are_not() {
        let q = |x0: f64, y0: f64, x1: f64, y1: f64| [(x0, y0), (x1, y0), (x1, y1), (x0, y1)];
        assert_eq!(
            visible_box(&[q(-10., 10., 30., 20.), q(20., 15., 50., 40.)], 100., 100.),
            Some(Rect {
                x: 0.,
                y: 10.,
                width: 50.,
                height: 30.
            })
        );
        // Unclipped, as the person is shown where it is.
        assert_eq!(
            bounds(&[
                q(-10., 10., 30., 20.),
                q(20., 15., 50., 140.),
                q(7., 7., 7., 9.)
            ]),
            Some(Rect {
                x: -10.,
                y: 10.,
                width: 60.,
                height: 130.
            })
        );
        assert_eq!(bounds(&[q(5., 5., 5., 5.)]), None);
    }
}
