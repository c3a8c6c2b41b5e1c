//! An element aim ([`super::Command::Aim`]): the element an action or a
//! capture by ref names, brought into view and aimed at in one trip over
//! the lane. The one statement of it, which the extension follows (and
//! the daemon's tests' fake extension too): the extension hands over
//! [`Aim::calls`] at once (the browser runs them in turn: the element
//! resolved, scrolled into view as the aim's class, its content quads and
//! the viewport read after the scroll); [`Aim::read`] makes their answers
//! an [`Aimed`], with, when a point is wanted, the visible centre of the
//! element's first quad with an area
//! ([`crate::geometry::visible_centre`]). For a point that must hit the
//! element, the browser is then asked what is there
//! ([`Sighted::hit_test`], [`Aim::hit`]) and, if something else, whether that
//! is inside the element ([`contains`], [`inside`]). Errors, in that
//! order: `STALE_REF` (the element is gone), `NOT_INTERACTABLE` (not
//! rendered, no size, outside the viewport, covered).

use super::CommandClass;
use crate::error::{ErrorKind, WireError};
use crate::geometry::{quads_of, visible_centre, Quad};
use crate::ids::TabId;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A viewport as an aim reads it: `(width, height, scroll x, scroll y)`,
/// CSS pixels.
pub type Viewport = (f64, f64, f64, f64);

/// What point an aim finds on its element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AimPoint {
    /// None: its quads and the viewport only (a capture of its box).
    None,
    /// Its visible centre (typing: the focus needs no hit).
    Centre,
    /// Its visible centre, which must hit it or something inside it
    /// (pointer input).
    Hit,
}

impl AimPoint {
    /// Every point, in the order of their names (`none`, `centre`, `hit`).
    pub const ALL: [AimPoint; 3] = [AimPoint::None, AimPoint::Centre, AimPoint::Hit];
}

/// The element an aim is for, and what it finds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Aim {
    /// The shared tab.
    pub tab_id: TabId,
    /// The element's `backendNodeId`.
    pub backend_node_id: i64,
    /// The class of the scroll: [`CommandClass::Act`] for an action,
    /// [`CommandClass::Observe`] for a capture (the rest only reads).
    pub class: CommandClass,
    /// The point wanted.
    pub point: AimPoint,
}

/// What an aim found (its result).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Aimed {
    /// The element's JavaScript object in the page.
    pub object_id: String,
    /// The `DOM.getContentQuads` result, read after the scroll.
    pub quads: Value,
    /// The `Page.getLayoutMetrics` result, read after the scroll.
    pub metrics: Value,
    /// The point found, in viewport CSS pixels, when one was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<(f64, f64)>,
}

impl Aimed {
    /// The element's quads and the viewport, as the browser answered
    /// after the scroll: where its
    /// point is found, and its box clipped.
    pub fn in_view(&self) -> Result<(Vec<Quad>, Viewport), WireError> {
        let quads = quads_in(&self.quads).ok_or_else(|| malformed("DOM.getContentQuads"))?;
        let viewport = viewport(&self.metrics).ok_or_else(|| {
            WireError::new(
                ErrorKind::CommandFailed,
                "the browser sent no layout metrics",
            )
        })?;
        Ok((quads_of(&quads), viewport))
    }

    /// The aim's answer as JSON, built by hand: the extension's wasm
    /// carries no serializer into JSON values for it.
    pub fn into_value(self) -> Value {
        let mut answer = Map::new();
        answer.insert("objectId".into(), Value::String(self.object_id));
        answer.insert("quads".into(), self.quads);
        answer.insert("metrics".into(), self.metrics);
        if let Some((x, y)) = self.point {
            answer.insert("point".into(), Value::Array(vec![x.into(), y.into()]));
        }
        Value::Object(answer)
    }
}

/// A JSON object of `fields`, inserted one by one (collecting them would
/// sort them, which costs the extension's wasm more).
fn object(fields: Vec<(&str, Value)>) -> Value {
    let mut object = Map::new();
    for (k, v) in fields {
        object.insert(k.to_owned(), v);
    }
    Value::Object(object)
}

/// The params naming one node.
fn node(id: i64) -> Value {
    object(vec![("backendNodeId", id.into())])
}

/// The quads of a `DOM.getContentQuads` answer, read by hand (as
/// [`Aimed::into_value`] is written).
fn quads_in(answer: &Value) -> Option<Vec<Vec<f64>>> {
    let quads = answer.get("quads")?.as_array()?;
    quads
        .iter()
        .map(|q| q.as_array()?.iter().map(Value::as_f64).collect())
        .collect()
}

/// The layout viewport of a `Page.getLayoutMetrics` answer (else the
/// visual one, for a browser that sends only that), as `(width, height,
/// scroll x, scroll y)`; read by hand, as [`quads_in`].
fn viewport(metrics: &Value) -> Option<Viewport> {
    let v = metrics
        .get("cssLayoutViewport")
        .or_else(|| metrics.get("cssVisualViewport"))?;
    let n = |k: &str| v.get(k).and_then(Value::as_f64);
    Some((
        n("clientWidth")?,
        n("clientHeight")?,
        n("pageX").unwrap_or(0.0),
        n("pageY").unwrap_or(0.0),
    ))
}

/// What [`Aim::read`] made of the first calls' answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Sighted {
    /// The aim's result, if the hit test (if any) passes.
    pub aimed: Aimed,
    /// The params of the `DOM.getNodeForLocation` to send for a point
    /// that must hit the element (document coordinates).
    pub hit_test: Option<Value>,
}

/// Whether the node `hit` (its object the argument) is the element the
/// function is called on, or inside it (through shadow roots too).
pub const CONTAINS_FN: &str = "function(hit) { for (let n = hit; n; n = n.parentNode || n.host) { \
    if (n === this) return true; } return false; }";

const GONE: &str = "the element is gone from the page: call page.snapshot again";
const COVERED: &str = "the element is covered by another element";

fn not_interactable(why: &str) -> WireError {
    WireError::new(ErrorKind::NotInteractable, why)
}

/// The browser's refusal of a step (`COMMAND_FAILED`) said as `kind` and
/// `why`; any other failure as it came.
fn refused(e: WireError, kind: ErrorKind, why: &str) -> WireError {
    match e.kind {
        ErrorKind::CommandFailed => WireError::new(kind, why),
        _ => e,
    }
}

fn malformed(method: &str) -> WireError {
    WireError::new(
        ErrorKind::CommandFailed,
        format!("the browser's answer to {method} was malformed"),
    )
}

/// The `object.objectId` of a `DOM.resolveNode` answer.
fn object_id(resolved: &Value) -> Option<String> {
    resolved
        .get("object")?
        .get("objectId")?
        .as_str()
        .map(str::to_owned)
}

impl Aim {
    /// The calls handed over at once, in order: each its method, params
    /// and class.
    pub fn calls(&self) -> [(&'static str, Value, CommandClass); 4] {
        let node = node(self.backend_node_id);
        [
            ("DOM.resolveNode", node.clone(), CommandClass::Observe),
            ("DOM.scrollIntoViewIfNeeded", node.clone(), self.class),
            ("DOM.getContentQuads", node, CommandClass::Observe),
            ("Page.getLayoutMetrics", Value::Null, CommandClass::Observe),
        ]
    }

    /// What the answers of [`Aim::calls`], in order, say.
    pub fn read(&self, answers: [Result<Value, WireError>; 4]) -> Result<Sighted, WireError> {
        let [resolved, scrolled, quads, metrics] = answers;
        let resolved = resolved.map_err(|e| refused(e, ErrorKind::StaleRef, GONE))?;
        let object_id =
            object_id(&resolved).ok_or_else(|| WireError::new(ErrorKind::StaleRef, GONE))?;
        scrolled
            .map_err(|e| refused(e, ErrorKind::NotInteractable, "the element is not rendered"))?;
        let quads =
            quads.map_err(|e| refused(e, ErrorKind::NotInteractable, "the element has no size"))?;
        let metrics = metrics?;
        let mut sighted = Sighted {
            aimed: Aimed {
                object_id,
                quads,
                metrics,
                point: None,
            },
            hit_test: None,
        };
        if self.point == AimPoint::None {
            return Ok(sighted);
        }
        let (quads, (width, height, scroll_x, scroll_y)) = sighted.aimed.in_view()?;
        let (x, y) = visible_centre(&quads, width, height).map_err(not_interactable)?;
        sighted.aimed.point = Some((x, y));
        if self.point == AimPoint::Hit {
            sighted.hit_test = Some(object(vec![
                ("x", (x + scroll_x).floor().into()),
                ("y", (y + scroll_y).floor().into()),
                ("includeUserAgentShadowDOM", false.into()),
                ("ignorePointerEventsNone", true.into()),
            ]));
        }
        Ok(sighted)
    }

    /// The answer of the hit test ([`Sighted::hit_test`]): `Ok(None)`
    /// when it hit the element; `Ok(Some(params))` of the
    /// `DOM.resolveNode` of what it hit instead, to ask [`contains`].
    pub fn hit(&self, answer: Result<Value, WireError>) -> Result<Option<Value>, WireError> {
        let hit = match answer {
            Ok(v) => v.get("backendNodeId").and_then(Value::as_i64),
            Err(e) if e.kind == ErrorKind::CommandFailed => None,
            Err(e) => return Err(e),
        }
        .ok_or_else(|| not_interactable(COVERED))?;
        Ok((hit != self.backend_node_id).then(|| node(hit)))
    }
}

/// The params of the `Runtime.callFunctionOn` that asks whether what the
/// hit test hit (its `DOM.resolveNode` answer) is inside the element (its
/// object `element`).
pub fn contains(element: &str, hit: Result<Value, WireError>) -> Result<Value, WireError> {
    let hit = hit.map_err(|e| refused(e, ErrorKind::NotInteractable, COVERED))?;
    let hit = object_id(&hit).ok_or_else(|| not_interactable(COVERED))?;
    Ok(object(vec![
        ("objectId", element.into()),
        ("functionDeclaration", CONTAINS_FN.into()),
        (
            "arguments",
            Value::Array(vec![object(vec![("objectId", hit.into())])]),
        ),
        ("returnByValue", true.into()),
        ("awaitPromise", false.into()),
    ]))
}

/// The answer of [`contains`]'s call: `NOT_INTERACTABLE` unless what was
/// hit is inside the element. An answer from another frame's world
/// cannot be compared: that is something else on top.
pub fn inside(answer: Result<Value, WireError>) -> Result<(), WireError> {
    let inside = match answer {
        Ok(v) => v.get("result").and_then(|r| r.get("value")) == Some(&Value::Bool(true)),
        Err(e) if e.kind == ErrorKind::CommandFailed => false,
        Err(e) => return Err(e),
    };
    if inside {
        Ok(())
    } else {
        Err(not_interactable(COVERED))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn aim(point: AimPoint) -> Aim {
        Aim {
            tab_id: TabId(1),
            backend_node_id: 7,
            class: CommandClass::Act,
            point,
        }
    }

    fn failed() -> WireError {
        WireError::new(ErrorKind::CommandFailed, "No node with given id found")
    }

    fn answers(quads: Value) -> [Result<Value, WireError>; 4] {
        [
            Ok(json!({"object": {"objectId": "el"}})),
            Ok(json!({})),
            Ok(json!({"quads": quads})),
            Ok(
                json!({"cssLayoutViewport": {"clientWidth": 100, "clientHeight": 100,
                                            "pageX": 0, "pageY": 50}}),
            ),
        ]
    }

    #[test]
    fn the_calls_name_the_node_and_only_the_scroll_takes_the_aims_class() {
        let calls = aim(AimPoint::Hit).calls();
        let asked: Vec<_> = calls.iter().map(|(m, p, c)| (*m, p.clone(), *c)).collect();
        assert_eq!(
            asked,
            [
                (
                    "DOM.resolveNode",
                    json!({"backendNodeId": 7}),
                    CommandClass::Observe
                ),
                (
                    "DOM.scrollIntoViewIfNeeded",
                    json!({"backendNodeId": 7}),
                    CommandClass::Act
                ),
                (
                    "DOM.getContentQuads",
                    json!({"backendNodeId": 7}),
                    CommandClass::Observe
                ),
                ("Page.getLayoutMetrics", Value::Null, CommandClass::Observe),
            ]
        );
    }

    #[test]
    fn a_point_that_must_hit_is_tested_in_document_coordinates() {
        let sighted = aim(AimPoint::Hit)
            .read(answers(json!([[10, 10, 30, 10, 30, 20, 10, 20]])))
            .expect("sighted");
        assert_eq!(sighted.aimed.object_id, "el");
        assert_eq!(sighted.aimed.point, Some((20.0, 15.0)));
        let test = sighted.hit_test.expect("a hit test");
        assert_eq!(
            (test["x"].clone(), test["y"].clone()),
            (json!(20.0), json!(65.0))
        );
        let centre = aim(AimPoint::Centre)
            .read(answers(json!([[10, 10, 30, 10, 30, 20, 10, 20]])))
            .expect("sighted");
        assert_eq!(
            (centre.aimed.point, centre.hit_test),
            (Some((20.0, 15.0)), None)
        );
        let boxed = aim(AimPoint::None)
            .read(answers(json!("not read")))
            .expect("no point, nothing read");
        assert_eq!(boxed.aimed.point, None);
    }

    #[test]
    fn errors_come_in_the_order_of_the_steps() {
        let kind = |answers: [Result<Value, WireError>; 4]| {
            aim(AimPoint::Hit)
                .read(answers)
                .map(drop)
                .map_err(|e| (e.kind, e.message))
        };
        let mut gone = answers(json!([]));
        gone[0] = Err(failed());
        gone[1] = Err(failed());
        assert_eq!(kind(gone).map_err(|e| e.0), Err(ErrorKind::StaleRef));
        let mut hidden = answers(json!([]));
        hidden[1] = Err(failed());
        assert_eq!(
            kind(hidden),
            Err((
                ErrorKind::NotInteractable,
                "the element is not rendered".into()
            ))
        );
        assert_eq!(
            kind(answers(json!([]))),
            Err((ErrorKind::NotInteractable, "the element has no size".into()))
        );
        assert_eq!(
            kind(answers(json!([[0, 200, 10, 200, 10, 220, 0, 220]]))),
            Err((
                ErrorKind::NotInteractable,
                "the element is outside the viewport".into()
            ))
        );
        let mut lost = answers(json!([]));
        lost[2] = Err(WireError::new(ErrorKind::UnknownOutcome, "gone"));
        assert_eq!(kind(lost).map_err(|e| e.0), Err(ErrorKind::UnknownOutcome));
    }

    #[test]
    fn what_the_point_hits_must_be_the_element_or_inside_it() {
        let a = aim(AimPoint::Hit);
        assert_eq!(a.hit(Ok(json!({"backendNodeId": 7}))), Ok(None));
        assert_eq!(
            a.hit(Ok(json!({"backendNodeId": 9}))),
            Ok(Some(json!({"backendNodeId": 9})))
        );
        assert_eq!(
            a.hit(Err(failed())).map_err(|e| e.kind),
            Err(ErrorKind::NotInteractable)
        );
        let call = contains("el", Ok(json!({"object": {"objectId": "other"}}))).expect("call");
        assert_eq!(call["objectId"], "el");
        assert_eq!(call["arguments"], json!([{"objectId": "other"}]));
        assert!(contains("el", Err(failed())).is_err());
        assert_eq!(inside(Ok(json!({"result": {"value": true}}))), Ok(()));
        assert!(inside(Ok(json!({"result": {"value": false}}))).is_err());
        assert!(inside(Err(failed())).is_err(), "another frame's world");
    }
}
