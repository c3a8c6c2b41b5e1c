//! `DOM` and `DOMSnapshot`: nodes by their backend id, where they are,
//! and the documents of a page at once.

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

/// `DOMSnapshot.captureSnapshot`: every document of the page's process
/// (the main frame and the frames it runs), nodes in flat arrays. Its
/// result is left as the browser's JSON: a large page's is read off the
/// daemon's thread.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureSnapshot {
    /// The computed styles each laid-out node carries, in this order.
    pub computed_styles: Vec<String>,
}
command!(CaptureSnapshot, "DOMSnapshot.captureSnapshot", Value);

/// `DOM.describeNode` of a node's object in the page.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeNode {
    /// The node's object.
    pub object_id: String,
}
command!(DescribeNode, "DOM.describeNode", Described);

/// `DOM.describeNode` of a node by its backend id: its name and
/// attributes as the document holds them (what a page's script says of
/// the element cannot change them).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeBackendNode {
    /// The node's backend id.
    pub backend_node_id: i64,
}
command!(DescribeBackendNode, "DOM.describeNode", DescribedAttributes);

/// The result of [`DescribeBackendNode`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct DescribedAttributes {
    /// The node.
    #[serde(default)]
    pub node: NodeAttributes,
}

/// A node's name and attributes ([`DescribedAttributes`]).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeAttributes {
    /// `INPUT`, `BUTTON`, …
    #[serde(default)]
    pub node_name: String,
    /// Names and values, one after the other.
    #[serde(default)]
    pub attributes: Vec<String>,
}

impl NodeAttributes {
    /// The value of attribute `name` (names are matched without case).
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .chunks(2)
            .find(|pair| pair[0].eq_ignore_ascii_case(name))
            .and_then(|pair| pair.get(1))
            .map(String::as_str)
    }
}

/// The result of [`DescribeNode`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Described {
    /// The node, its backend id.
    #[serde(default)]
    pub node: NodeAt,
}
