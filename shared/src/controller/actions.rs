//! The params and results of input: clicks, typing, keys, the pointer,
//! held presses and their releases, and the element actions by ref
//! (hover, select, check, drag, scroll, file upload).

use super::{Expect, FrameId, Ref};
use serde::{Deserialize, Serialize};

/// Params of `input.click`: an element ref from the latest snapshot, or a
/// point in a capture's pixels.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClickParams {
    /// The element to click at its visible centre (instead of `x`/`y`).
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element: Option<Ref>,
    /// Horizontal position in capture pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// Vertical position in capture pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// The capture the point was read from; the session's latest capture of
    /// the tab when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<FrameId>,
    /// The button; left when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    /// 1 (default) to 3: a double click is 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub click_count: Option<u8>,
    /// Modifiers held during the click.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modifiers: Vec<Modifier>,
    /// Expected state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
}

impl ClickParams {
    /// A left click at a point of the session's latest capture.
    pub fn at(x: f64, y: f64) -> Self {
        ClickParams {
            x: Some(x),
            y: Some(y),
            ..ClickParams::default()
        }
    }

    /// A left click on an element.
    pub fn on(element: Ref) -> Self {
        ClickParams {
            element: Some(element),
            ..ClickParams::default()
        }
    }
}

/// Params of `input.type`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TypeParams {
    /// Text inserted as if typed.
    pub text: String,
    /// The element to type into (focused first); the focused element when
    /// absent.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element: Option<Ref>,
    /// Clear the element's value first.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clear: bool,
    /// Press Enter afterwards.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub submit: bool,
    /// Expected state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
}

/// A modifier key held during `input.press`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Modifier {
    /// Alt / Option.
    Alt,
    /// Control (Ctrl).
    Control,
    /// Meta / Command.
    Meta,
    /// Shift.
    Shift,
}

impl Modifier {
    /// The bit CDP's `Input.dispatchKeyEvent` uses for this modifier.
    pub fn cdp_bit(self) -> u32 {
        match self {
            Modifier::Alt => 1,
            Modifier::Control => 2,
            Modifier::Meta => 4,
            Modifier::Shift => 8,
        }
    }
}

/// Params of `input.press`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PressParams {
    /// A key name as in `KeyboardEvent.key`: `Enter`, `Tab`, `ArrowDown`,
    /// `a`, …
    pub key: String,
    /// Modifiers held while the key is pressed.
    #[serde(default)]
    pub modifiers: Vec<Modifier>,
    /// Expected state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
}

/// A mouse button, as `MouseEvent.button` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum MouseButton {
    /// The primary button.
    #[default]
    Left,
    /// The wheel button.
    Middle,
    /// The secondary button.
    Right,
}

impl MouseButton {
    /// CDP's name for the button.
    pub fn as_str(self) -> &'static str {
        match self {
            MouseButton::Left => "left",
            MouseButton::Middle => "middle",
            MouseButton::Right => "right",
        }
    }

    /// CDP's `buttons` bit for the button.
    pub fn bit(self) -> u32 {
        match self {
            MouseButton::Left => 1,
            MouseButton::Right => 2,
            MouseButton::Middle => 4,
        }
    }
}

/// Params of `input.keyDown`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct KeyParams {
    /// A key name as in `input.press`.
    pub key: String,
    /// Modifiers held with it.
    #[serde(default)]
    pub modifiers: Vec<Modifier>,
    /// Expected state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
}

/// Params of `input.keyUp`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct KeyUpParams {
    /// The key held with `input.keyDown`.
    pub key: String,
}

/// Result of a paired release (`input.keyUp`, `input.mouseUp`,
/// `input.gesture.end`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseResult {
    /// The daemon had already released it (after a revocation); nothing was
    /// sent.
    pub already_released: bool,
}

/// Params of `input.mouseDown`, `input.mouseMove` and
/// `input.gesture.begin`: a point in a capture's pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PointerParams {
    /// Horizontal position in capture pixels.
    pub x: f64,
    /// Vertical position in capture pixels.
    pub y: f64,
    /// The capture the point was read from; the session's latest capture of
    /// the tab when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<FrameId>,
    /// The button (`input.mouseDown` only; left when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    /// Expected state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
}

/// Params of `input.gesture.update`: a point in the gesture's capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PointParams {
    /// Horizontal position in capture pixels.
    pub x: f64,
    /// Vertical position in capture pixels.
    pub y: f64,
}

/// Params of `input.mouseUp`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MouseUpParams {
    /// The held button; left when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
}

/// Params of `input.hover`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HoverParams {
    /// The element (instead of `x`/`y`).
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element: Option<Ref>,
    /// Horizontal position in capture pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// Vertical position in capture pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// The capture the point was read from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<FrameId>,
}

/// Params of `input.selectOption`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SelectOptionParams {
    /// The `<select>` element.
    #[serde(rename = "ref")]
    pub element: Ref,
    /// Options to select, by value or visible label; several only for a
    /// multiple select.
    pub values: Vec<String>,
}

/// Result of `input.selectOption`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelectOptionResult {
    /// The values now selected.
    pub selected: Vec<String>,
}

/// Params of `input.check`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CheckParams {
    /// The checkbox or radio button.
    #[serde(rename = "ref")]
    pub element: Ref,
    /// The state wanted (default true); nothing is clicked when it already
    /// is.
    #[serde(default = "yes")]
    pub checked: bool,
}

fn yes() -> bool {
    true
}

/// Params of `input.drag`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DragParams {
    /// The element to drag.
    pub from: Ref,
    /// The element to drop it on.
    pub to: Ref,
}

/// Params of `input.scroll`: an element to bring into view, or a wheel
/// delta at a point.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScrollParams {
    /// Scroll this element into view (instead of a delta).
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element: Option<Ref>,
    /// Where the wheel turns, in capture pixels (default: the viewport's
    /// centre).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// Where the wheel turns, in capture pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// The capture the point was read from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<FrameId>,
    /// Horizontal scroll in CSS pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_x: Option<f64>,
    /// Vertical scroll in CSS pixels (positive scrolls down).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_y: Option<f64>,
}

/// Params of `input.setFiles`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SetFilesParams {
    /// The `<input type=file>`; absent: the input of the file chooser
    /// waiting on the tab ([`super::FileChooserInfo`]).
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub element: Option<Ref>,
    /// Absolute paths, each under a directory the person allowed; none
    /// (only without `ref`) dismisses the waiting file chooser.
    pub paths: Vec<String>,
}

/// Most MIME types one `input.drop` carries.
pub const MAX_DROP_ITEMS: usize = 16;

/// Params of `input.drop`: files and MIME-typed data dropped onto an
/// element as if dragged from outside the page. At least one of `paths`
/// and `data`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DropParams {
    /// The element to drop onto.
    #[serde(rename = "ref")]
    pub element: Ref,
    /// Absolute paths of files, each under a directory the person allowed
    /// for uploads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// Data by MIME type, e.g. `{"text/plain": "hello"}` (at most
    /// [`MAX_DROP_ITEMS`]).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub data: std::collections::BTreeMap<String, String>,
}
