//! `Overlay`: what the browser draws over a page for a debugger — the
//! layer where the person sees where an agent acts. Page scripts cannot
//! see, find or touch it; the browser's screenshots do contain it, so it
//! is hidden before a capture an agent asks for.

use super::{CdpCommand, Done};
use serde::Serialize;

/// A colour with its opacity (`a`, 0 to 1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rgba {
    /// Red, 0 to 255.
    pub r: u8,
    /// Green.
    pub g: u8,
    /// Blue.
    pub b: u8,
    /// Opacity.
    pub a: f32,
}

/// How an element is highlighted.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HighlightConfig {
    /// The tooltip with the element's tag and size.
    pub show_info: bool,
    /// Its role and accessible name in the tooltip: the element as the
    /// person reads it.
    pub show_accessibility_info: bool,
    /// The content box's fill.
    pub content_color: Rgba,
    /// The padding's fill.
    pub padding_color: Rgba,
    /// The border's fill.
    pub border_color: Rgba,
}

/// `Overlay.highlightNode`: the element of `backendNodeId`, drawn over
/// the page until the next highlight or `Overlay.hideHighlight`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HighlightNode {
    /// How.
    pub highlight_config: HighlightConfig,
    /// The element.
    pub backend_node_id: i64,
}
command!(HighlightNode, "Overlay.highlightNode", Done);

/// `Overlay.highlightQuad`: a quadrilateral in the viewport's CSS pixels
/// (four corners, x then y, clockwise).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HighlightQuad {
    /// The corners.
    pub quad: [f64; 8],
    /// Its fill.
    pub color: Rgba,
    /// Its outline.
    pub outline_color: Rgba,
}
command!(HighlightQuad, "Overlay.highlightQuad", Done);

/// `Overlay.hideHighlight`: whatever is highlighted goes.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HideHighlight {}
command!(HideHighlight, "Overlay.hideHighlight", Done);
