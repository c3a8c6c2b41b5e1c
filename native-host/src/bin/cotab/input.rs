//! `cotab` subcommands: input to the selected tab, and its dialogs.

use crate::ctx::{print, then_dialog, Ctx, Failure};
use anyhow::Context as _;
use cotab_host::cli::{DialogAnswer, InputCmd};
use cotab_host::keys;
use cotab_shared::controller::{
    Check, CheckParams, Click, ClickParams, Dialog, DialogParams, Drag, DragParams, DropOn,
    DropParams, Hover, HoverParams, KeyDown, KeyParams, KeyUp, KeyUpParams, MouseButton, MouseDown,
    MouseMove, MouseUp, MouseUpParams, PointerParams, Press, PressParams, Ref, ReleaseResult,
    Scroll, ScrollParams, SelectOption, SelectOptionParams, SetFiles, SetFilesParams, Type,
    TypeParams,
};
use std::path::PathBuf;

/// Runs `cmd`.
pub(crate) async fn run(cx: &mut Ctx, cmd: InputCmd) -> Result<(), Failure> {
    match cmd {
        InputCmd::KeyDown { key } => key_down(cx, key).await,
        InputCmd::KeyUp { key } => key_up(cx, key).await,
        InputCmd::MouseDown { x, y, button } => mouse_down(cx, x, y, button).await,
        InputCmd::MouseMove { x, y } => mouse_move(cx, x, y).await,
        InputCmd::MouseUp { button } => mouse_up(cx, button).await,
        InputCmd::Click {
            target,
            button,
            double,
            modifiers,
        } => click(cx, target, button, double, modifiers).await,
        InputCmd::Type {
            text,
            element,
            clear,
            submit,
        } => type_text(cx, text, element, clear, submit).await,
        InputCmd::Press { key } => press(cx, key).await,
        InputCmd::Hover { target } => hover(cx, target).await,
        InputCmd::SelectOption { element, values } => select_option(cx, element, values).await,
        InputCmd::Check { element } => check(cx, element, true).await,
        InputCmd::Uncheck { element } => check(cx, element, false).await,
        InputCmd::Drag { from, to } => drag(cx, from, to).await,
        InputCmd::Scroll {
            element,
            dx,
            dy,
            at,
        } => scroll(cx, element, dx, dy, at).await,
        InputCmd::Dialog { answer, text } => dialog(cx, answer, text).await,
        InputCmd::Upload {
            element,
            paths,
            chooser,
        } => upload(cx, element, paths, chooser).await,
        InputCmd::Drop {
            element,
            paths,
            data,
        } => drop_files(cx, element, paths, data).await,
    }
}

/// `key-down KEY`: holds a key (a combo's modifiers with it).
async fn key_down(cx: &mut Ctx, key: String) -> Result<(), Failure> {
    let (modifiers, name) = keys::parse_combo(&key).map_err(anyhow::Error::msg)?;
    let r = cx
        .act::<KeyDown>(&KeyParams {
            key: name,
            modifiers,
            expect: None,
        })
        .await?;
    print(cx.json, &r, |r| then_dialog(r, format!("holding {key}")))
}

/// `key-up KEY`: releases a key held by `key-down`.
async fn key_up(cx: &mut Ctx, key: String) -> Result<(), Failure> {
    let r = cx
        .client
        .call::<KeyUp>(&KeyUpParams { key: key.clone() })
        .await?;
    print(cx.json, &r, |r| released(r, &key))
}

/// `mouse-down X Y`: holds a mouse button there.
async fn mouse_down(cx: &mut Ctx, x: f64, y: f64, button: MouseButton) -> Result<(), Failure> {
    let r = cx.act::<MouseDown>(&pointer(x, y, Some(button))).await?;
    print(cx.json, &r, |r| {
        then_dialog(r, format!("holding the mouse button at ({x}, {y})"))
    })
}

/// `mouse-move X Y`.
async fn mouse_move(cx: &mut Ctx, x: f64, y: f64) -> Result<(), Failure> {
    let r = cx.act::<MouseMove>(&pointer(x, y, None)).await?;
    print(cx.json, &r, |r| {
        then_dialog(r, format!("moved to ({x}, {y})"))
    })
}

/// `mouse-up`: releases a button held by `mouse-down`.
async fn mouse_up(cx: &mut Ctx, button: MouseButton) -> Result<(), Failure> {
    let r = cx
        .client
        .call::<MouseUp>(&MouseUpParams {
            button: Some(button),
        })
        .await?;
    print(cx.json, &r, |r| released(r, "the mouse button"))
}

/// `click REF` or `click X Y`.
async fn click(
    cx: &mut Ctx,
    t: Vec<String>,
    button: MouseButton,
    double: bool,
    modifiers: Vec<String>,
) -> Result<(), Failure> {
    let (element, x, y) = target(&t).map_err(Failure::Usage)?;
    let modifiers = modifiers
        .iter()
        .map(|m| keys::parse_modifier(m).map_err(anyhow::Error::msg))
        .collect::<Result<Vec<_>, _>>()?;
    let r = cx
        .act::<Click>(&ClickParams {
            element,
            x,
            y,
            button: Some(button),
            click_count: double.then_some(2),
            modifiers,
            ..ClickParams::default()
        })
        .await?;
    let what = if double { "double-clicked" } else { "clicked" };
    print(cx.json, &r, |r| {
        then_dialog(r, format!("{what} {}", t.join(" ")))
    })
}

/// `type TEXT`, into an element or what has the focus.
async fn type_text(
    cx: &mut Ctx,
    text: String,
    element: Option<String>,
    clear: bool,
    submit: bool,
) -> Result<(), Failure> {
    let chars = text.chars().count();
    let r = cx
        .act::<Type>(&TypeParams {
            text,
            element: element.map(Ref),
            clear,
            submit,
            expect: None,
        })
        .await?;
    print(cx.json, &r, |r| {
        then_dialog(r, format!("typed {chars} character(s)"))
    })
}

/// `press KEY`: a key or a combo, down and up.
async fn press(cx: &mut Ctx, key: String) -> Result<(), Failure> {
    let (modifiers, name) = keys::parse_combo(&key).map_err(anyhow::Error::msg)?;
    let r = cx
        .act::<Press>(&PressParams {
            key: name,
            modifiers,
            expect: None,
        })
        .await?;
    print(cx.json, &r, |r| then_dialog(r, format!("pressed {key}")))
}

/// `hover REF` or `hover X Y`.
async fn hover(cx: &mut Ctx, t: Vec<String>) -> Result<(), Failure> {
    let (element, x, y) = target(&t).map_err(Failure::Usage)?;
    let r = cx
        .act::<Hover>(&HoverParams {
            element,
            x,
            y,
            frame_id: None,
        })
        .await?;
    print(cx.json, &r, |r| {
        then_dialog(r, format!("hovering {}", t.join(" ")))
    })
}

/// `select-option REF VALUE...`.
async fn select_option(cx: &mut Ctx, element: String, values: Vec<String>) -> Result<(), Failure> {
    let r = cx
        .act::<SelectOption>(&SelectOptionParams {
            element: Ref(element),
            values,
        })
        .await?;
    print(cx.json, &r, |r| {
        format!("selected {}", r.selected.join(", "))
    })
}

/// `drag FROM TO`, from one element onto another.
async fn drag(cx: &mut Ctx, from: String, to: String) -> Result<(), Failure> {
    let r = cx
        .act::<Drag>(&DragParams {
            from: Ref(from.clone()),
            to: Ref(to.clone()),
        })
        .await?;
    print(cx.json, &r, |r| {
        then_dialog(r, format!("dragged {from} onto {to}"))
    })
}

/// `scroll`: an element into view, or a wheel by `dx`, `dy` (at a point).
async fn scroll(
    cx: &mut Ctx,
    element: Option<String>,
    dx: Option<f64>,
    dy: Option<f64>,
    at: Option<Vec<f64>>,
) -> Result<(), Failure> {
    let (x, y) = match at.as_deref() {
        Some([x, y]) => (Some(*x), Some(*y)),
        _ => (None, None),
    };
    let what = element.clone().map_or_else(
        || "scrolled".to_string(),
        |e| format!("scrolled {e} into view"),
    );
    let r = cx
        .act::<Scroll>(&ScrollParams {
            element: element.map(Ref),
            x,
            y,
            frame_id: None,
            delta_x: dx,
            delta_y: dy,
        })
        .await?;
    print(cx.json, &r, |r| then_dialog(r, what))
}

/// `dialog accept|dismiss`, with a prompt's text.
async fn dialog(cx: &mut Ctx, answer: DialogAnswer, text: Option<String>) -> Result<(), Failure> {
    let accept = matches!(answer, DialogAnswer::Accept);
    let r = cx
        .act::<Dialog>(&DialogParams {
            accept,
            prompt_text: text,
        })
        .await?;
    let how = if accept { "accepted" } else { "dismissed" };
    print(cx.json, &r, |r| then_dialog(r, format!("{how} the dialog")))
}

/// The daemon wants absolute paths; relative ones are the caller's
/// working directory's.
fn absolute(paths: &[PathBuf]) -> Result<Vec<String>, Failure> {
    let paths = paths
        .iter()
        .map(|p| std::path::absolute(p).map(|p| p.display().to_string()))
        .collect::<Result<Vec<_>, _>>()
        .context("resolving the paths")?;
    Ok(paths)
}

/// `upload`: files into a file input, or into the chooser a page opened.
async fn upload(
    cx: &mut Ctx,
    element: Option<String>,
    paths: Vec<PathBuf>,
    chooser: Option<Vec<PathBuf>>,
) -> Result<(), Failure> {
    let chosen = chooser.is_some();
    let paths = absolute(&chooser.unwrap_or(paths))?;
    let n = paths.len();
    let r = cx
        .act::<SetFiles>(&SetFilesParams {
            element: element.map(Ref),
            paths,
        })
        .await?;
    let done = match (chosen, n) {
        (true, 0) => "cancelled the file chooser".to_owned(),
        _ => format!("set {n} file(s)"),
    };
    print(cx.json, &r, |r| then_dialog(r, done))
}

/// `drop REF`: files or data dropped onto an element.
async fn drop_files(
    cx: &mut Ctx,
    element: String,
    paths: Vec<PathBuf>,
    data: Vec<(String, String)>,
) -> Result<(), Failure> {
    let paths = absolute(&paths)?;
    let r = cx
        .act::<DropOn>(&DropParams {
            element: Ref(element),
            paths,
            data: data.into_iter().collect(),
        })
        .await?;
    print(cx.json, &r, |r| then_dialog(r, "dropped".into()))
}

fn released(r: &ReleaseResult, what: &str) -> String {
    if r.already_released {
        format!("{what} was already released by the daemon")
    } else {
        format!("released {what}")
    }
}

fn pointer(x: f64, y: f64, button: Option<MouseButton>) -> PointerParams {
    PointerParams {
        x,
        y,
        frame_id: None,
        button,
        expect: None,
    }
}

/// An element ref, or a point: the `ref`, `x` and `y` of a pointer call.
type Target = (Option<Ref>, Option<f64>, Option<f64>);

/// `REF` or `X Y` from the command line.
fn target(args: &[String]) -> Result<Target, String> {
    match args {
        [r] => Ok((Some(Ref(r.clone())), None, None)),
        [x, y] => {
            let num = |s: &str| {
                s.parse::<f64>()
                    .map_err(|_| format!("`{s}` is not a number: give REF or X Y"))
            };
            Ok((None, Some(num(x)?), Some(num(y)?)))
        }
        _ => Err("give REF or X Y".to_owned()),
    }
}

/// The usage errors of `cmd`, found before the daemon is asked anything.
pub(crate) fn usage_errors(cmd: &InputCmd) -> Result<(), String> {
    match cmd {
        InputCmd::Click { target: t, .. } | InputCmd::Hover { target: t, .. } => {
            target(t).map(drop)
        }
        _ => Ok(()),
    }
}

/// `check` or `uncheck`.
async fn check(cx: &mut Ctx, element: String, checked: bool) -> Result<(), Failure> {
    let r = cx
        .act::<Check>(&CheckParams {
            element: Ref(element.clone()),
            checked,
        })
        .await?;
    let state = if checked { "checked" } else { "unchecked" };
    print(cx.json, &r, |r| {
        then_dialog(r, format!("{element} is {state}"))
    })
}
