//! What a capture shows: its viewport and scroll offset in CSS pixels,
//! and the check that input aimed at it still lands where the agent saw
//! it.

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
}
