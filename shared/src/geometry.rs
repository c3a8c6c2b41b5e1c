//! What a capture shows: its viewport and scroll offset in CSS pixels,
//! and the check that input aimed at it still lands where the agent saw
//! it; and where on an element's boxes input aims.

use crate::error::{ErrorKind, WireError};
use serde::{Deserialize, Serialize};

/// The geometry of a capture, in CSS pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameGeometry {
    /// Viewport width, CSS pixels.
    pub viewport_width: f64,
    /// Viewport height, CSS pixels.
    pub viewport_height: f64,
    /// Horizontal scroll offset of the viewport.
    pub scroll_x: f64,
    /// Vertical scroll offset of the viewport.
    pub scroll_y: f64,
}

impl FrameGeometry {
    /// Whether the `live` viewport is this one, within
    /// [`crate::limits::GEOMETRY_TOLERANCE`] on each figure.
    pub fn matches(&self, live: &FrameGeometry) -> bool {
        let close = |a: f64, b: f64| (a - b).abs() <= crate::limits::GEOMETRY_TOLERANCE;
        close(self.viewport_width, live.viewport_width)
            && close(self.viewport_height, live.viewport_height)
            && close(self.scroll_x, live.scroll_x)
            && close(self.scroll_y, live.scroll_y)
    }
}

/// The check of a frame's viewport against the live one (`None`: the
/// browser sent none): `STALE_FRAME` unless it
/// [matches](FrameGeometry::matches). The extension makes it for an
/// operation's `frame`, the daemon before a press.
pub fn check_viewport(frame: &FrameGeometry, live: Option<FrameGeometry>) -> Result<(), WireError> {
    let live = live.ok_or_else(|| {
        WireError::new(
            ErrorKind::CommandFailed,
            "the browser sent no layout metrics",
        )
    })?;
    if frame.matches(&live) {
        Ok(())
    } else {
        Err(WireError::new(
            ErrorKind::StaleFrame,
            "the viewport moved since the frame: capture the page again",
        ))
    }
}

/// One of an element's boxes as `DOM.getContentQuads` gives it: four
/// corners, in viewport CSS pixels.
pub type Quad = [(f64, f64); 4];

/// The quads of a `DOM.getContentQuads` result's `quads` (eight numbers
/// each); others are skipped.
pub fn quads_of(flat: &[Vec<f64>]) -> Vec<Quad> {
    flat.iter()
        .filter(|n| n.len() == 8)
        .map(|n| [(n[0], n[1]), (n[2], n[3]), (n[4], n[5]), (n[6], n[7])])
        .collect()
}

/// The area of a quad (shoelace).
pub fn area(q: &Quad) -> f64 {
    let mut a = 0.0;
    for i in 0..4 {
        let (x1, y1) = q[i];
        let (x2, y2) = q[(i + 1) % 4];
        a += x1 * y2 - x2 * y1;
    }
    (a / 2.0).abs()
}

/// The visible centre of the first quad with an area, clipped to a
/// `width`×`height` viewport. `Err` says why there is none.
pub fn visible_centre(quads: &[Quad], width: f64, height: f64) -> Result<(f64, f64), &'static str> {
    let mut sized = quads.iter().filter(|q| area(q) >= 1.0).peekable();
    if sized.peek().is_none() {
        return Err("the element has no size");
    }
    for q in sized {
        // `max` then `min`, not `clamp`, whose panic for a bad range
        // would carry float formatting into the extension's wasm.
        let clipped = q.map(|(x, y)| (x.max(0.0).min(width), y.max(0.0).min(height)));
        if area(&clipped) >= 1.0 {
            let x = clipped.iter().map(|p| p.0).sum::<f64>() / 4.0;
            let y = clipped.iter().map(|p| p.1).sum::<f64>() / 4.0;
            return Ok((x, y));
        }
    }
    Err("the element is outside the viewport")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cdp::LayoutMetrics;
    use serde_json::json;

    #[test]
    fn layout_metrics_give_the_visual_viewport_and_match_within_a_pixel() {
        let metrics: LayoutMetrics = serde_json::from_value(json!({
            "cssLayoutViewport": {"clientWidth": 800, "clientHeight": 600, "pageX": 0, "pageY": 0},
            "cssVisualViewport": {"clientWidth": 800, "clientHeight": 600, "pageX": 0,
                                  "pageY": 240.5, "zoom": 1, "scale": 1}
        }))
        .expect("deserialises");
        let live = metrics.geometry().expect("a viewport");
        let frame = FrameGeometry {
            viewport_width: 800.0,
            viewport_height: 600.0,
            scroll_x: 0.0,
            scroll_y: 240.0,
        };
        assert_eq!(live.scroll_y, 240.5);
        assert!(frame.matches(&live));
        for moved in [
            FrameGeometry {
                scroll_y: 241.5,
                ..live.clone()
            },
            FrameGeometry {
                viewport_width: 802.0,
                ..live.clone()
            },
            FrameGeometry {
                scroll_x: -1.5,
                ..live.clone()
            },
        ] {
            assert!(!frame.matches(&moved), "{moved:?}");
        }
        assert_eq!(check_viewport(&frame, Some(live.clone())), Ok(()));
        let moved = FrameGeometry {
            scroll_y: 300.0,
            ..live.clone()
        };
        assert_eq!(
            check_viewport(&frame, Some(moved)).map_err(|e| e.kind),
            Err(ErrorKind::StaleFrame)
        );
        assert_eq!(
            check_viewport(&frame, None).map_err(|e| e.kind),
            Err(ErrorKind::CommandFailed)
        );
        // No visual viewport: no geometry; a malformed one: an error.
        let none: LayoutMetrics = serde_json::from_value(json!({})).expect("deserialises");
        assert_eq!(none.geometry(), None);
        assert!(serde_json::from_value::<LayoutMetrics>(
            json!({"cssVisualViewport": {"clientWidth": "wide"}})
        )
        .is_err());
    }

    #[test]
    fn the_visible_centre_is_clipped_to_the_viewport() {
        let q = |x0: f64, y0: f64, x1: f64, y1: f64| [(x0, y0), (x1, y0), (x1, y1), (x0, y1)];
        assert_eq!(
            visible_centre(&[q(10., 10., 30., 20.)], 100., 100.),
            Ok((20., 15.))
        );
        // Half outside: the centre of the part inside.
        assert_eq!(
            visible_centre(&[q(80., 0., 120., 10.)], 100., 100.),
            Ok((90., 5.))
        );
        assert_eq!(
            visible_centre(&[q(10., 10., 10., 20.)], 100., 100.),
            Err("the element has no size")
        );
        assert_eq!(
            visible_centre(&[], 100., 100.),
            Err("the element has no size")
        );
        assert_eq!(
            visible_centre(&[q(0., 200., 10., 220.)], 100., 100.),
            Err("the element is outside the viewport")
        );
        // A zero-size first box (e.g. an empty line) gives way to the next.
        assert_eq!(
            visible_centre(&[q(5., 5., 5., 5.), q(0., 0., 10., 10.)], 100., 100.),
            Ok((5., 5.))
        );
    }
}
