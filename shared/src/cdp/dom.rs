//! `DOM` and `Accessibility`: nodes by their backend id, where they are,
//! and the accessibility tree of a frame.

use super::{CdpCommand, Done, RemoteObject};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A node named by its backend id, the params of several DOM commands.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    /// The node's backend id.
    pub backend_node_id: i64,
}

/// `DOM.scrollIntoViewIfNeeded`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
pub struct ScrollIntoViewIfNeeded(pub Node);
command!(ScrollIntoViewIfNeeded, "DOM.scrollIntoViewIfNeeded", Done);

/// `DOM.resolveNode`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
pub struct ResolveNode(pub Node);
command!(ResolveNode, "DOM.resolveNode", Resolved);

/// The result of [`ResolveNode`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Resolved {
    /// The node's object in the page.
    #[serde(default)]
    pub object: RemoteObject,
}

/// `DOM.getContentQuads`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
pub struct GetContentQuads(pub Node);
command!(GetContentQuads, "DOM.getContentQuads", ContentQuads);

/// The result of [`GetContentQuads`]: each quad as eight numbers (four
/// corners, x then y), in viewport CSS pixels.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ContentQuads {
    /// The element's boxes, each four points as `[x1, y1, … x4, y4]` in CSS pixels.
    #[serde(default)]
    pub quads: Vec<Vec<f64>>,
}

/// `DOM.focus`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Focus(pub Node);
command!(Focus, "DOM.focus", Done);

/// `DOM.getNodeForLocation`, in document coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetNodeForLocation {
    /// Document x.
    pub x: f64,
    /// Document y.
    pub y: f64,
    /// Whether nodes of user-agent shadow trees count.
    #[serde(rename = "includeUserAgentShadowDOM")]
    pub include_user_agent_shadow_dom: bool,
    /// Whether elements with `pointer-events: none` are passed over.
    pub ignore_pointer_events_none: bool,
}
command!(GetNodeForLocation, "DOM.getNodeForLocation", NodeAt);

/// The node a location or frame names (the result of
/// [`GetNodeForLocation`] and [`GetFrameOwner`]).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeAt {
    /// The node's backend id.
    #[serde(default)]
    pub backend_node_id: Option<i64>,
}

/// `DOM.getFrameOwner`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetFrameOwner {
    /// CDP frame id of the frame the node is in.
    pub frame_id: String,
}
command!(GetFrameOwner, "DOM.getFrameOwner", NodeAt);

/// `DOM.setFileInputFiles`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetFileInputFiles {
    /// The files' paths.
    pub files: Vec<String>,
    /// The file input.
    pub backend_node_id: i64,
}
command!(SetFileInputFiles, "DOM.setFileInputFiles", Done);

/// `Accessibility.getFullAXTree`, of the main frame or of `frame_id`. Its
/// result is left as the browser's JSON: a large tree is read off the
/// daemon's thread.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetFullAxTree {
    /// The frame; the main frame when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<String>,
}
command!(GetFullAxTree, "Accessibility.getFullAXTree", Value);
