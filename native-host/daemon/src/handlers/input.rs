//! Input by coordinates and keys: `input.click`, `input.type`,
//! `input.press`, and the held input of `input.keyDown`/`keyUp`,
//! `input.mouseDown`/`mouseMove`/`mouseUp` and `input.gesture.*`.

use super::{check_point, invalid_params, wire, Cx};
use crate::broker::{Fence, Frame, Need, PressKind, ReleaseTarget};
use crate::keys;
use crate::overlay::Aimed;
use cotab_shared::cdp::{InsertText, MouseEvent, TouchEvent, TouchPoint};
use cotab_shared::controller::{
    ClickParams, Empty, FrameId, KeyParams, KeyUpParams, Modifier, MouseButton, MouseUpParams,
    PointParams, PointerParams, PressParams, Ref, ReleaseResult, RpcError, TypeParams,
};
use cotab_shared::input::{InputEvent, KEY_EVENT};
use cotab_shared::limits::MAX_TYPE_TEXT;
use cotab_shared::native::{AimPoint, CommandClass};
use cotab_shared::ErrorKind;

/// Where pointer input aims: an element ref, or a point in a capture.
pub(super) enum Aim {
    Element(Ref),
    Point {
        x: f64,
        y: f64,
        frame: Option<FrameId>,
    },
}

/// Exactly one of `ref` or `x`+`y`; `frameId` only with a point.
pub(super) fn aim_of(
    element: Option<Ref>,
    x: Option<f64>,
    y: Option<f64>,
    frame: Option<FrameId>,
) -> Result<Aim, RpcError> {
    match (element, x, y) {
        (Some(r), None, None) => {
            if frame.is_some() {
                return Err(invalid_params(
                    "invalid params: `params.frameId` is only allowed with `params.x` and `params.y`",
                ));
            }
            Ok(Aim::Element(r))
        }
        (Some(_), _, _) => Err(invalid_params(
            "invalid params: `params.ref` and `params.x`/`params.y` exclude each other",
        )),
        (None, Some(x), Some(y)) => {
            check_point(x, y)?;
            Ok(Aim::Point { x, y, frame })
        }
        (None, Some(_), None) => Err(invalid_params("invalid params: missing field `params.y`")),
        (None, None, Some(_)) => Err(invalid_params("invalid params: missing field `params.x`")),
        (None, None, None) => Err(invalid_params(
            "invalid params: missing field `params.ref` (or `params.x` and `params.y`)",
        )),
    }
}

pub(super) fn modifier_bits(modifiers: &[Modifier]) -> u32 {
    modifiers.iter().fold(0, |a, m| a | m.cdp_bit())
}

pub(super) async fn click(cx: &Cx<'_>, p: ClickParams) -> Result<Empty, RpcError> {
    let count = p.click_count.unwrap_or(1);
    if !(1..=3).contains(&count) {
        return Err(invalid_params(
            "invalid params: `params.clickCount` must be 1 to 3",
        ));
    }
    let aim = aim_of(p.element, p.x, p.y, p.frame_id)?;
    let fence = cx.fence(Need::Act)?;
    cx.expect(&fence, p.expect.as_ref()).await?;
    let (x, y, frame) = match &aim {
        // A link that opens a tab is read beside the aim's own reads.
        Aim::Element(r) => {
            let (refused, aimed) = tokio::join!(
                super::navigate::refuse_tab_off_scope(cx, &fence, r),
                cx.aim(&fence, &aim)
            );
            refused?;
            aimed?
        }
        Aim::Point { .. } => cx.aim(&fence, &aim).await?,
    };
    cx.mouse_click(
        &fence,
        (x, y),
        frame.as_ref(),
        p.button.unwrap_or_default(),
        count,
        modifier_bits(&p.modifiers),
    )
    .await?;
    Ok(Empty {})
}

pub(super) async fn type_text(cx: &Cx<'_>, p: TypeParams) -> Result<Empty, RpcError> {
    if p.text.len() > MAX_TYPE_TEXT {
        return Err(invalid_params(format!(
            "invalid params: `params.text` is longer than {MAX_TYPE_TEXT} bytes"
        )));
    }
    if p.clear && p.element.is_none() {
        return Err(invalid_params(
            "invalid params: `params.clear` needs `params.ref`",
        ));
    }
    let fence = cx.fence(Need::Act)?;
    cx.expect(&fence, p.expect.as_ref()).await?;
    if let Some(r) = &p.element {
        cx.focus_for_typing(&fence, r, p.clear).await?;
    }
    cx.core(|c| c.input(&fence))?;
    if !p.text.is_empty() {
        cx.send(&fence, &InsertText { text: &p.text }, CommandClass::Act)
            .await?;
    }
    if p.submit {
        cx.press_key(&fence, key_of("Enter")?, Vec::new()).await?;
    }
    Ok(Empty {})
}

pub(super) fn key_of(name: &str) -> Result<keys::KeyInfo, RpcError> {
    keys::lookup(name)
        .ok_or_else(|| invalid_params("invalid params: unknown key name in `params.key`"))
}

pub(super) async fn press(cx: &Cx<'_>, p: PressParams) -> Result<Empty, RpcError> {
    let key = key_of(&p.key)?;
    let fence = cx.fence(Need::Act)?;
    cx.expect(&fence, p.expect.as_ref()).await?;
    cx.press_key(&fence, key, p.modifiers).await?;
    Ok(Empty {})
}

impl Cx<'_> {
    /// Presses and releases a key in one trip ([`Cx::input_events`]):
    /// the extension pairs them. The press is recorded meanwhile (a key the
    /// session holds cannot be pressed again).
    pub(super) async fn press_key(
        &self,
        fence: &Fence,
        key: keys::KeyInfo,
        modifiers: Vec<Modifier>,
    ) -> Result<(), RpcError> {
        let [down, up] = keys::key_events(&key, &modifiers);
        let press = self
            .begin_paired_press(fence, None, PressKind::Key { key, modifiers })
            .await?;
        let events = vec![
            InputEvent::new(KEY_EVENT, down),
            InputEvent::new(KEY_EVENT, up),
        ];
        let r = self.input_events(fence, events, None).await;
        drop(press);
        r.map(drop)
    }

    /// The CSS point an aim stands for: an element's visible, uncovered
    /// centre, or a capture point in its frame (returned: the press record
    /// names it, and the input's first command carries its viewport).
    pub(super) async fn aim(
        &self,
        fence: &Fence,
        aim: &Aim,
    ) -> Result<(f64, f64, Option<Frame>), RpcError> {
        match aim {
            Aim::Element(r) => {
                let (_, _, point) = self
                    .element_in_view(fence, r, CommandClass::Act, AimPoint::Hit)
                    .await?;
                let (x, y) = point.ok_or_else(|| {
                    wire(
                        ErrorKind::CommandFailed,
                        "the extension's aim found no point",
                    )
                })?;
                Ok((x, y, None))
            }
            Aim::Point { x, y, frame } => {
                let f = self.frame(fence, frame.as_ref())?;
                let (x, y) = (f.origin.0 + x / f.dpr, f.origin.1 + y / f.dpr);
                self.aimed(fence, Aimed::Point(x, y));
                Ok((x, y, Some(f)))
            }
        }
    }

    /// A click at a CSS point: a move, then `count` press/release pairs
    /// (`clickCount` 1, 2, 3), all in one trip ([`Cx::input_events`]):
    /// with a frame, the move is checked against it; the extension pairs
    /// the presses. The press is recorded for the click's duration (a
    /// button the session holds cannot be clicked), with nothing for the
    /// daemon to release after it.
    pub(super) async fn mouse_click(
        &self,
        fence: &Fence,
        (x, y): (f64, f64),
        frame: Option<&Frame>,
        button: MouseButton,
        count: u8,
        modifiers: u32,
    ) -> Result<(), RpcError> {
        let press = self
            .begin_paired_press(
                fence,
                frame.map(|f| &f.id),
                PressKind::Mouse { button, x, y },
            )
            .await?;
        let others = self.core(|c| c.buttons_held(fence.session, fence.tab, Some(press.id)));
        let moved = MouseEvent {
            kind: "mouseMoved",
            x,
            y,
            buttons: Some(others),
            modifiers: Some(modifiers),
            ..MouseEvent::default()
        };
        let mut events = vec![InputEvent::of(&moved)];
        for i in 1..=count {
            for (kind, buttons) in [
                ("mousePressed", others | button.bit()),
                ("mouseReleased", others),
            ] {
                events.push(InputEvent::of(&MouseEvent {
                    kind,
                    button: Some(button.as_str()),
                    buttons: Some(buttons),
                    click_count: Some(u32::from(i)),
                    ..moved
                }));
            }
        }
        let r = self.input_events(fence, events, frame).await;
        drop(press);
        r.map(drop)
    }
}

pub(super) async fn key_down(cx: &Cx<'_>, p: KeyParams) -> Result<Empty, RpcError> {
    let key = key_of(&p.key)?;
    let fence = cx.fence(Need::Act)?;
    cx.expect(&fence, p.expect.as_ref()).await?;
    let [down, _] = keys::key_events(&key, &p.modifiers);
    let guard = cx
        .begin_press(
            &fence,
            None,
            PressKind::Key {
                key,
                modifiers: p.modifiers,
            },
        )
        .await?;
    let r = cx.step(&fence, KEY_EVENT, down, CommandClass::Act).await;
    guard.settle(r.is_ok());
    r?;
    Ok(Empty {})
}

pub(super) async fn key_up(cx: &Cx<'_>, p: KeyUpParams) -> Result<ReleaseResult, RpcError> {
    let key = key_of(&p.key)?;
    cx.agent_release(ReleaseTarget::Key(key.key)).await
}

pub(super) async fn mouse_down(cx: &Cx<'_>, p: PointerParams) -> Result<Empty, RpcError> {
    check_point(p.x, p.y)?;
    let button = p.button.unwrap_or_default();
    let fence = cx.fence(Need::Act)?;
    cx.expect(&fence, p.expect.as_ref()).await?;
    let frame = cx.frame_live(&fence, p.frame_id.as_ref()).await?;
    let (x, y) = (
        frame.origin.0 + p.x / frame.dpr,
        frame.origin.1 + p.y / frame.dpr,
    );
    cx.aimed(&fence, Aimed::Point(x, y));
    let guard = cx
        .begin_press(&fence, Some(&frame.id), PressKind::Mouse { button, x, y })
        .await?;
    let buttons = cx.core(|c| c.buttons_held(fence.session, fence.tab, None));
    let pressed = MouseEvent {
        kind: "mousePressed",
        x,
        y,
        button: Some(button.as_str()),
        buttons: Some(buttons),
        click_count: Some(1),
        ..MouseEvent::default()
    };
    let r = cx.send(&fence, &pressed, CommandClass::Act).await;
    guard.settle(r.is_ok());
    r?;
    Ok(Empty {})
}

pub(super) fn first_button(mask: u32) -> &'static str {
    [MouseButton::Left, MouseButton::Right, MouseButton::Middle]
        .into_iter()
        .find(|b| mask & b.bit() != 0)
        .map_or("none", MouseButton::as_str)
}

pub(super) async fn mouse_move(cx: &Cx<'_>, p: PointerParams) -> Result<Empty, RpcError> {
    check_point(p.x, p.y)?;
    if p.button.is_some() {
        return Err(invalid_params(
            "invalid params: `params.button` is only allowed with input.mouseDown",
        ));
    }
    let fence = cx.fence(Need::Act)?;
    cx.expect(&fence, p.expect.as_ref()).await?;
    let frame = cx.frame(&fence, p.frame_id.as_ref())?;
    let (x, y) = (
        frame.origin.0 + p.x / frame.dpr,
        frame.origin.1 + p.y / frame.dpr,
    );
    cx.aimed(&fence, Aimed::Point(x, y));
    cx.move_mouse(&fence, (x, y), Some(&frame)).await?;
    Ok(Empty {})
}

pub(super) async fn mouse_up(cx: &Cx<'_>, p: MouseUpParams) -> Result<ReleaseResult, RpcError> {
    cx.agent_release(ReleaseTarget::Mouse(p.button.unwrap_or_default()))
        .await
}

pub(super) async fn gesture_begin(cx: &Cx<'_>, p: PointerParams) -> Result<Empty, RpcError> {
    check_point(p.x, p.y)?;
    if p.button.is_some() {
        return Err(invalid_params(
            "invalid params: `params.button` is only allowed with input.mouseDown",
        ));
    }
    let fence = cx.fence(Need::Act)?;
    cx.expect(&fence, p.expect.as_ref()).await?;
    let frame = cx.frame_live(&fence, p.frame_id.as_ref()).await?;
    if frame.origin != (0.0, 0.0) {
        return Err(invalid_params(
            "invalid params: a gesture needs a capture of the whole viewport, not of an element",
        ));
    }
    let (x, y) = (p.x / frame.dpr, p.y / frame.dpr);
    cx.aimed(&fence, Aimed::Point(x, y));
    let guard = cx
        .begin_press(
            &fence,
            Some(&frame.id),
            PressKind::Touch {
                x,
                y,
                dpr: frame.dpr,
            },
        )
        .await?;
    let start = TouchEvent {
        kind: "touchStart",
        touch_points: vec![TouchPoint { x, y }],
    };
    let r = cx.send(&fence, &start, CommandClass::Act).await;
    guard.settle(r.is_ok());
    r?;
    Ok(Empty {})
}

pub(super) async fn gesture_update(cx: &Cx<'_>, p: PointParams) -> Result<Empty, RpcError> {
    check_point(p.x, p.y)?;
    let fence = cx.fence(Need::Act)?;
    let (x, y) = cx.core(|c| c.gesture_moved(&fence, p.x, p.y))?;
    cx.aimed(&fence, Aimed::Point(x, y));
    let moved = TouchEvent {
        kind: "touchMove",
        touch_points: vec![TouchPoint { x, y }],
    };
    cx.send(&fence, &moved, CommandClass::Act).await?;
    Ok(Empty {})
}

pub(super) async fn gesture_end(cx: &Cx<'_>) -> Result<ReleaseResult, RpcError> {
    cx.agent_release(ReleaseTarget::Touch).await
}
