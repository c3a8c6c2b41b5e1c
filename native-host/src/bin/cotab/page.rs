//! `cotab` subcommands: what the selected tab shows, and where it goes.

use crate::ctx::{print, Ctx, Failure};
use crate::render;
use anyhow::Context as _;
use base64::Engine as _;
use clap::ValueEnum as _;
use cotab_host::cli::PageCmd;
use cotab_shared::controller::{
    Capture, CaptureParams, CdpSend, CdpSendParams, Console, ConsoleLevel, ConsoleParams, Evaluate,
    EvaluateParams, ImageFormat, Navigate, NavigateAction, NavigateParams, Ref, Snapshot,
    SnapshotParams, SnapshotResult, Wait, WaitParams, WaitUntil,
};
use serde::Serialize;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Runs `cmd`.
pub(crate) async fn run(cx: &mut Ctx, cmd: PageCmd) -> Result<(), Failure> {
    match cmd {
        PageCmd::Pdf { output } => render::pdf(cx, output).await,
        PageCmd::Network {
            index,
            include_static,
            filter,
        } => crate::network::run(cx, index, include_static, filter).await,
        PageCmd::Resize { width, height, .. } => render::resize(cx, width, height).await,
        PageCmd::Emulate {
            color_scheme,
            reduced_motion,
            forced_colors,
            contrast,
            media,
        } => {
            let features = render::Features {
                color_scheme,
                reduced_motion,
                forced_colors,
                contrast,
                media,
            };
            render::emulate(cx, features).await
        }
        PageCmd::Eval { expr } => eval(cx, expr).await,
        PageCmd::Cdp { method, params } => cdp(cx, method, params).await,
        PageCmd::Navigate { url } => {
            let r = cx.act::<Navigate>(&NavigateParams::to(url)).await?;
            print(cx.json, &r, |r| format!("{}  {}", r.title, r.url))
        }
        PageCmd::Screenshot {
            output,
            format,
            quality,
            max_width,
            clip,
            full_page,
        } => {
            let format = image_format(&output, format, cx.json).map_err(Failure::Usage)?;
            let params = CaptureParams {
                format,
                quality,
                max_width,
                clip: clip.map(Ref),
                full_page,
                known_frame_id: None,
            };
            screenshot(cx, params, output).await
        }
        PageCmd::Back => history(cx, NavigateAction::Back).await,
        PageCmd::Forward => history(cx, NavigateAction::Forward).await,
        PageCmd::Reload => history(cx, NavigateAction::Reload).await,
        PageCmd::Snapshot {
            max_chars,
            root,
            depth,
            boxes,
            changes,
        } => {
            let params = SnapshotParams {
                max_chars,
                root: root.map(Ref),
                depth,
                boxes,
                changes,
            };
            let r = cx.client.call::<Snapshot>(&params).await?;
            print(cx.json, &r, snapshot_text)
        }
        PageCmd::Wait {
            condition,
            arg,
            timeout,
        } => wait(cx, condition, arg, timeout).await,
        PageCmd::Console { levels, since } => console(cx, levels, since).await,
    }
}

/// A snapshot as text: the outline, or with `--changes` the lines that
/// changed (the whole outline first says why when it comes instead).
fn snapshot_text(r: &SnapshotResult) -> String {
    match (&r.changes, &r.whole_because) {
        (Some(d), _) if d.is_empty() => "no change since your last snapshot of this page".into(),
        (Some(d), _) => d.trim_end().to_owned(),
        (None, Some(why)) => format!("# the whole page: {why}\n{}", r.text),
        (None, None) => r.text.clone(),
    }
}

/// `eval EXPR`: the value as JSON, or what it threw.
async fn eval(cx: &mut Ctx, expr: String) -> Result<(), Failure> {
    let r = cx
        .act::<Evaluate>(&EvaluateParams {
            expression: expr,
            await_promise: None,
        })
        .await?;
    if let Some(e) = &r.exception {
        return Err(Failure::Other(anyhow::anyhow!("the expression threw: {e}")));
    }
    if cx.json {
        print(cx.json, &r, |_| String::new())
    } else {
        let text = serde_json::to_string(&r.value).map_err(anyhow::Error::from)?;
        println!("{text}");
        Ok(())
    }
}

/// `cdp METHOD [PARAMS_JSON]`: the browser's answer, as JSON.
async fn cdp(cx: &mut Ctx, method: String, params: Option<String>) -> Result<(), Failure> {
    let params = match params {
        Some(p) => Some(
            serde_json::from_str::<serde_json::Value>(&p)
                .context("PARAMS_JSON is not valid JSON")?,
        ),
        None => None,
    };
    let r = cx
        .act::<CdpSend>(&CdpSendParams {
            method,
            params,
            session_id: None,
        })
        .await?;
    let text = serde_json::to_string_pretty(&r).map_err(anyhow::Error::from)?;
    println!("{text}");
    Ok(())
}

/// `screenshot -o OUTPUT`: the image to a file, or to stdout for `-`.
async fn screenshot(cx: &mut Ctx, params: CaptureParams, output: PathBuf) -> Result<(), Failure> {
    let r = cx.client.call::<Capture>(&params).await?;
    let data = r.data.as_deref().context("the daemon sent no image data")?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.as_bytes())
        .context("the daemon sent invalid base64")?;
    if output == Path::new("-") {
        // The image is the output; nothing else goes to stdout.
        std::io::stdout()
            .write_all(&bytes)
            .and_then(|()| std::io::stdout().flush())
            .context("writing the image to stdout")?;
        return Ok(());
    }
    std::fs::write(&output, bytes).with_context(|| format!("writing {}", output.display()))?;
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Shot {
        path: PathBuf,
        width: u32,
        height: u32,
        device_pixel_ratio: f64,
        frame_id: cotab_shared::controller::FrameId,
    }
    let shot = Shot {
        path: output,
        width: r.width,
        height: r.height,
        device_pixel_ratio: r.device_pixel_ratio,
        frame_id: r.frame_id,
    };
    print(cx.json, &shot, |s| {
        format!("{} {}x{}", s.path.display(), s.width, s.height)
    })
}

/// `wait CONDITION [ARG]`, saying what it waits for after a second.
async fn wait(
    cx: &mut Ctx,
    condition: WaitUntil,
    arg: Option<String>,
    timeout: Option<u64>,
) -> Result<(), Failure> {
    let (params, desc) = wait_params(condition, arg, timeout).map_err(Failure::Usage)?;
    let call = cx.client.call::<Wait>(&params);
    tokio::pin!(call);
    let r = tokio::select! {
        r = &mut call => r,
        () = tokio::time::sleep(std::time::Duration::from_secs(1)) => {
            eprintln!("waiting for {desc}…");
            call.await
        }
    }?;
    print(cx.json, &r, |r| format!("waited {} ms", r.waited_ms))
}

/// `console`: the messages since `since`, of `levels` (all when empty).
async fn console(
    cx: &mut Ctx,
    levels: Vec<ConsoleLevel>,
    since: Option<u64>,
) -> Result<(), Failure> {
    let levels = (!levels.is_empty()).then_some(levels);
    let r = cx
        .client
        .call::<Console>(&ConsoleParams {
            levels,
            since,
            current_document: false,
        })
        .await?;
    print(cx.json, &r, |r| {
        let mut lines: Vec<String> = r
            .messages
            .iter()
            .map(|m| {
                let level = serde_json::to_value(m.level)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                let place = match (&m.url, m.line) {
                    (Some(u), Some(l)) => format!("  ({u}:{l})"),
                    (Some(u), None) => format!("  ({u})"),
                    _ => String::new(),
                };
                let kind = if m.exception { " uncaught" } else { "" };
                format!("[{}] {level}{kind}: {}{place}", m.seq, m.text)
            })
            .collect();
        if r.dropped > 0 {
            lines.insert(0, format!("({} older message(s) dropped)", r.dropped));
        }
        lines.push(format!("next: {}", r.next));
        lines.join("\n")
    })
}

/// The usage errors of `cmd`, found before the daemon is asked anything.
pub(crate) fn usage_errors(cmd: &PageCmd, json: bool) -> Result<(), String> {
    match cmd {
        PageCmd::Wait {
            condition,
            arg,
            timeout,
        } => wait_params(*condition, arg.clone(), *timeout).map(drop),
        PageCmd::Screenshot { output, format, .. } => image_format(output, *format, json).map(drop),
        _ => Ok(()),
    }
}

/// The format of a screenshot written to `output`: `--format` when given,
/// else what the file's extension names (`.png`, `.jpg`, `.jpeg`); JPEG
/// for stdout (`-`). A format the extension contradicts, an extension
/// that names none, and `--json` with the image on stdout are refused.
fn image_format(
    output: &Path,
    format: Option<ImageFormat>,
    json: bool,
) -> Result<ImageFormat, String> {
    if output == Path::new("-") {
        if json {
            return Err("`-o -` writes the image to stdout, where --json would write too".into());
        }
        return Ok(format.unwrap_or(ImageFormat::Jpeg));
    }
    let named = output
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let by_name = match named.as_deref() {
        Some("png") => Some(ImageFormat::Png),
        Some("jpg" | "jpeg") => Some(ImageFormat::Jpeg),
        _ => None,
    };
    match (format, by_name) {
        (Some(f), Some(n)) if f != n => Err(format!(
            "`{}` names a {} file, but --format is {}",
            output.display(),
            n.as_str().to_uppercase(),
            f.as_str()
        )),
        (Some(f), _) | (None, Some(f)) => Ok(f),
        (None, None) => Err(format!(
            "cannot tell the image format from `{}`: end it in .png, .jpg or .jpeg, or give \
             --format",
            output.display()
        )),
    }
}

/// The name `cotab wait` gives `condition`.
fn cli_name(condition: WaitUntil) -> String {
    condition
        .to_possible_value()
        .map(|v| v.get_name().to_owned())
        .unwrap_or_default()
}

/// The params of `cotab wait`, and what it waits for, for the progress line.
fn wait_params(
    condition: WaitUntil,
    arg: Option<String>,
    timeout: Option<u64>,
) -> Result<(WaitParams, String), String> {
    let need = |what: &str| {
        arg.clone()
            .ok_or_else(|| format!("`cotab wait {}` needs {what}", cli_name(condition)))
    };
    let desc = match condition {
        WaitUntil::Load => "the page to load".to_string(),
        WaitUntil::NetworkIdle => "the network to be idle".into(),
        WaitUntil::Text => format!("text {:?}", need("a TEXT")?),
        WaitUntil::TextGone => format!("text {:?} to go", need("a TEXT")?),
        WaitUntil::Ref => format!("element {}", need("a REF")?),
        WaitUntil::RefGone => format!("element {} to go", need("a REF")?),
        WaitUntil::Selector => format!("selector {:?}", need("a SELECTOR")?),
        WaitUntil::SelectorGone => format!("selector {:?} to match nothing", need("a SELECTOR")?),
        WaitUntil::Time => format!("{} ms", need("MS")?),
    };
    let mut p = WaitParams::until(condition);
    p.timeout_ms = timeout;
    match condition {
        WaitUntil::Text | WaitUntil::TextGone => p.text = arg,
        WaitUntil::Ref | WaitUntil::RefGone => p.element = arg.map(Ref),
        WaitUntil::Selector | WaitUntil::SelectorGone => p.selector = arg,
        WaitUntil::Time => {
            p.time_ms = Some(
                need("MS")?
                    .parse()
                    .map_err(|_| "MS must be a whole number of milliseconds".to_owned())?,
            )
        }
        WaitUntil::Load | WaitUntil::NetworkIdle => {}
    }
    Ok((p, desc))
}

/// `back`, `forward` or `reload`.
async fn history(cx: &mut Ctx, action: NavigateAction) -> Result<(), Failure> {
    let params = NavigateParams {
        action: Some(action),
        ..NavigateParams::default()
    };
    let r = cx.act::<Navigate>(&params).await?;
    print(cx.json, &r, |r| format!("{}  {}", r.title, r.url))
}
