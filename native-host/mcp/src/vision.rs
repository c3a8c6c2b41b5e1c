//! The opt-in coordinate tools (`cotab mcp --caps vision`, as Playwright
//! MCP's `--caps vision`): the mouse moved, clicked, dragged, pressed,
//! released and its wheel turned at points of the latest
//! `browser_take_screenshot`. The points are that image's pixels; with no
//! screenshot of the tab, or once the page moved under it (a navigation, a
//! scroll, someone else's input), the daemon refuses them `STALE_FRAME`
//! before anything is sent: take a screenshot again.

use super::args::ButtonArg;
use super::bridge::Bridge;
use super::outcome::{ToolFailure, ToolOutput};
use cotab_shared::controller::{
    Click, ClickParams, MouseButton, MouseDown, MouseMove, MouseUp, MouseUpParams, PointerParams,
    Scroll, ScrollParams,
};
use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `browser_mouse_move_xy`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MoveXyArgs {
    /// X coordinate, in pixels of the latest screenshot.
    pub(crate) x: f64,
    /// Y coordinate, in pixels of the latest screenshot.
    pub(crate) y: f64,
}

/// Arguments of `browser_mouse_click_xy`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct ClickXyArgs {
    /// X coordinate, in pixels of the latest screenshot.
    pub(crate) x: f64,
    /// Y coordinate, in pixels of the latest screenshot.
    pub(crate) y: f64,
    /// Button to click, defaults to left.
    pub(crate) button: Option<ButtonArg>,
    /// Number of clicks (1 to 3), defaults to 1.
    pub(crate) click_count: Option<u8>,
    /// Time to wait between mouse down and mouse up in milliseconds; only
    /// 0 (the default) is supported.
    pub(crate) delay: Option<u64>,
}

/// Arguments of `browser_mouse_drag_xy`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct DragXyArgs {
    /// Start X coordinate, in pixels of the latest screenshot.
    pub(crate) start_x: f64,
    /// Start Y coordinate.
    pub(crate) start_y: f64,
    /// End X coordinate.
    pub(crate) end_x: f64,
    /// End Y coordinate.
    pub(crate) end_y: f64,
}

/// Arguments of `browser_mouse_down` and `browser_mouse_up`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ButtonArgs {
    /// Button to press or release, defaults to left.
    pub(crate) button: Option<ButtonArg>,
}

/// Arguments of `browser_mouse_wheel`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct WheelArgs {
    /// X delta, in CSS pixels.
    pub(crate) delta_x: f64,
    /// Y delta, in CSS pixels.
    pub(crate) delta_y: f64,
}

fn button(b: Option<ButtonArg>) -> Option<MouseButton> {
    b.map(|b| match b {
        ButtonArg::Left => MouseButton::Left,
        ButtonArg::Right => MouseButton::Right,
        ButtonArg::Middle => MouseButton::Middle,
    })
}

fn at(x: f64, y: f64) -> PointerParams {
    PointerParams {
        x,
        y,
        frame_id: None,
        button: None,
        expect: None,
    }
}

impl Bridge {
    /// `browser_mouse_move_xy`.
    pub(super) async fn mouse_move_xy(&mut self, a: MoveXyArgs) -> Result<ToolOutput, ToolFailure> {
        self.acted::<MouseMove>(&at(a.x, a.y)).await?;
        self.pointer = Some((a.x, a.y));
        Ok(self
            .with_snapshot(format!("Moved the mouse to ({}, {})", a.x, a.y))
            .await)
    }

    /// `browser_mouse_click_xy`.
    pub(super) async fn mouse_click_xy(
        &mut self,
        a: ClickXyArgs,
    ) -> Result<ToolOutput, ToolFailure> {
        if a.delay.is_some_and(|d| d > 0) {
            return Err(ToolFailure::invalid(
                "`delay` is not supported: a click's press and release go together",
            ));
        }
        self.acted::<Click>(&ClickParams {
            x: Some(a.x),
            y: Some(a.y),
            button: button(a.button),
            click_count: a.click_count,
            ..ClickParams::default()
        })
        .await?;
        self.pointer = Some((a.x, a.y));
        Ok(self
            .with_snapshot(format!("Clicked at ({}, {})", a.x, a.y))
            .await)
    }

    /// `browser_mouse_drag_xy`: the left button pressed at the start,
    /// moved to the end and released there.
    pub(super) async fn mouse_drag_xy(&mut self, a: DragXyArgs) -> Result<ToolOutput, ToolFailure> {
        self.acted::<MouseDown>(&at(a.start_x, a.start_y)).await?;
        self.pointer = Some((a.start_x, a.start_y));
        let moved = self.acted::<MouseMove>(&at(a.end_x, a.end_y)).await;
        // The button is released whether or not the move went through.
        let released = self.act::<MouseUp>(&MouseUpParams { button: None }).await;
        moved?;
        released?;
        self.pointer = Some((a.end_x, a.end_y));
        Ok(self
            .with_snapshot(format!(
                "Dragged from ({}, {}) to ({}, {})",
                a.start_x, a.start_y, a.end_x, a.end_y
            ))
            .await)
    }

    /// `browser_mouse_down`, where the mouse last went.
    pub(super) async fn mouse_down(&mut self, a: ButtonArgs) -> Result<ToolOutput, ToolFailure> {
        let Some((x, y)) = self.pointer else {
            return Err(ToolFailure::invalid(
                "the mouse has not been moved yet: call browser_mouse_move_xy first",
            ));
        };
        self.acted::<MouseDown>(&PointerParams {
            button: button(a.button),
            ..at(x, y)
        })
        .await?;
        Ok(self.with_snapshot("Pressed the mouse button".into()).await)
    }

    /// `browser_mouse_up`.
    pub(super) async fn mouse_up(&mut self, a: ButtonArgs) -> Result<ToolOutput, ToolFailure> {
        self.act::<MouseUp>(&MouseUpParams {
            button: button(a.button),
        })
        .await?;
        Ok(self.with_snapshot("Released the mouse button".into()).await)
    }

    /// `browser_mouse_wheel`, where the mouse last went (the viewport's
    /// centre before it went anywhere).
    pub(super) async fn mouse_wheel(&mut self, a: WheelArgs) -> Result<ToolOutput, ToolFailure> {
        let (x, y) = self.pointer.unzip();
        self.acted::<Scroll>(&ScrollParams {
            x,
            y,
            delta_x: Some(a.delta_x),
            delta_y: Some(a.delta_y),
            ..ScrollParams::default()
        })
        .await?;
        Ok(self
            .with_snapshot(format!("Scrolled by ({}, {})", a.delta_x, a.delta_y))
            .await)
    }
}
