//! `Input`: mouse, touch and drag events, text, and drag interception.

use super::{CdpCommand, CdpEvent, Done};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `Input.dispatchMouseEvent`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MouseEvent<'a> {
    /// `mouseMoved`, `mousePressed`, `mouseReleased` or `mouseWheel`.
    #[serde(rename = "type")]
    pub kind: &'a str,
    /// Viewport x, CSS pixels.
    pub x: f64,
    /// Viewport y, CSS pixels.
    pub y: f64,
    /// The button pressed or released (or held, for a move).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub button: Option<&'a str>,
    /// The mask of the buttons held after the event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buttons: Option<u32>,
    /// Which click of a series this is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub click_count: Option<u32>,
    /// The modifier keys held (Alt 1, Control 2, Meta 4, Shift 8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modifiers: Option<u32>,
    /// A wheel's horizontal scroll, CSS pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_x: Option<f64>,
    /// A wheel's vertical scroll, CSS pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_y: Option<f64>,
}
command!(MouseEvent<'a>, "Input.dispatchMouseEvent", Done);

/// `Input.dispatchTouchEvent` of one touch point.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TouchEvent {
    /// `touchStart`, `touchMove`, `touchEnd` or `touchCancel`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The touch points (none to end a touch).
    pub touch_points: Vec<TouchPoint>,
}
command!(TouchEvent, "Input.dispatchTouchEvent", Done);

/// A point of a [`TouchEvent`], viewport CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TouchPoint {
    /// Viewport x, CSS pixels.
    pub x: f64,
    /// Viewport y, CSS pixels.
    pub y: f64,
}

impl crate::input::InputEvent {
    /// The input command `command` as an event of an `input` command.
    pub fn of<C: CdpCommand>(command: &C) -> crate::input::InputEvent {
        crate::input::InputEvent::new(C::METHOD, command.params())
    }
}

/// `Input.insertText`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InsertText<'a> {
    /// The text, inserted as one input event (no key events).
    pub text: &'a str,
}
command!(InsertText<'a>, "Input.insertText", Done);

/// `Input.setInterceptDrags`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SetInterceptDrags {
    /// On or off.
    pub enabled: bool,
}
command!(SetInterceptDrags, "Input.setInterceptDrags", Done);

/// `Input.dispatchDragEvent`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DispatchDragEvent {
    /// `dragEnter`, `dragOver`, `drop` or `dragCancel`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Viewport x, CSS pixels.
    pub x: f64,
    /// Viewport y, CSS pixels.
    pub y: f64,
    /// The drag's data, as the browser reported it.
    pub data: Value,
    /// The modifier keys held.
    pub modifiers: u32,
}
command!(DispatchDragEvent, "Input.dispatchDragEvent", Done);

/// `Input.dragIntercepted`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct DragIntercepted {
    /// The drag's data.
    pub data: Value,
}
event!(DragIntercepted, "Input.dragIntercepted");
