//! `cotab`: drive shared browser tabs from a shell, through the daemon's
//! agent socket. The session's ticket is kept in `$RUNTIME/cli.ticket` so
//! successive invocations share one selection. Its options and subcommands
//! are [`args`].

use anyhow::Context as _;
use base64::Engine as _;
use clap::Parser;
use cotab_host::client::{Client, ClientError, KeptSessionError};
use cotab_host::keys;
use cotab_host::runtime::{AGENT_SOCKET, CLI_TICKET_FILE};
use cotab_shared::controller::{
    Acquire, Capture, CdpSend, Click, Evaluate, KeyDown, KeyUp, Method, MouseDown, MouseMove,
    MouseUp, Navigate, Press, Release, Status, TabsList, TabsSelect, Type,
};
use cotab_shared::controller::{
    CaptureParams, CdpSendParams, ClickParams, Empty, EvaluateParams, KeyParams, KeyUpParams,
    MouseButton, MouseUpParams, NavigateParams, PointerParams, PressParams, Ref, ReleaseResult,
    SelectParams, TypeParams,
};
// The agent toolset (snapshot refs, waits, tabs, dialogs, console, uploads).
use cotab_shared::controller::{
    Check, CheckParams, CloseTabParams, Console, ConsoleParams, CreateTabParams, Dialog,
    DialogParams, Drag, DragParams, Hover, HoverParams, NavigateAction, Scroll, ScrollParams,
    SelectOption, SelectOptionParams, SetFiles, SetFilesParams, Snapshot, SnapshotParams,
    TabsClose, TabsCreate, Wait, WaitParams, WaitUntil,
};
use cotab_shared::{ErrorKind, TabId};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod args;

use args::{Cli, Cmd, DialogAnswer};

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
fn target(args: &[String]) -> Result<Target, anyhow::Error> {
    match args {
        [r] => Ok((Some(Ref(r.clone())), None, None)),
        [x, y] => {
            let num = |s: &str| {
                s.parse::<f64>()
                    .map_err(|_| anyhow::anyhow!("`{s}` is not a number: give REF or X Y"))
            };
            Ok((None, Some(num(x)?), Some(num(y)?)))
        }
        _ => Err(anyhow::anyhow!("give REF or X Y")),
    }
}

/// The params of `cotab wait`, and what it waits for, for the progress line.
fn wait_params(
    condition: WaitUntil,
    arg: Option<String>,
    timeout: Option<u64>,
) -> Result<(WaitParams, String), anyhow::Error> {
    let need = |what: &str| {
        arg.clone()
            .ok_or_else(|| anyhow::anyhow!("this condition needs {what}"))
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
                    .map_err(|_| anyhow::anyhow!("MS must be a whole number of milliseconds"))?,
            )
        }
        WaitUntil::Load | WaitUntil::NetworkIdle => {}
    }
    Ok((p, desc))
}

enum Failure {
    NotRunning(PathBuf),
    Rpc(ClientError),
    Other(anyhow::Error),
}

impl From<ClientError> for Failure {
    fn from(e: ClientError) -> Self {
        Failure::Rpc(e)
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Other(e)
    }
}

/// Resumes the CLI's session, or opens a new one and stores its ticket
/// ([`Client::resume_or_hello`]).
async fn session(client: &mut Client, runtime_dir: &Path) -> Result<(), Failure> {
    let path = runtime_dir.join(CLI_TICKET_FILE);
    match client.resume_or_hello(&path, "cotab-cli").await {
        Ok(_) => Ok(()),
        Err(KeptSessionError::Client(e)) => Err(e.into()),
        Err(e) => Err(anyhow::Error::from(e).into()),
    }
}

/// Calls an acting method. Every CLI invocation is its own connection, so
/// the session's lease lapses after the daemon's resume grace between
/// invocations; on `NO_CONTROL` the lease is taken again once (which fails
/// if another agent or the person holds the tab) and the call retried.
async fn act<M: Method>(client: &mut Client, params: &M::Params) -> Result<M::Result, Failure> {
    match client.call::<M>(params).await {
        Err(e) if e.kind() == Some(ErrorKind::NoControl) => {
            client.call::<Acquire>(&Empty {}).await?;
            Ok(client.call::<M>(params).await?)
        }
        r => Ok(r?),
    }
}

fn print<T: Serialize>(
    json: bool,
    value: &T,
    human: impl FnOnce(&T) -> String,
) -> Result<(), Failure> {
    if json {
        let text = serde_json::to_string_pretty(value).map_err(anyhow::Error::from)?;
        println!("{text}");
    } else {
        let text = human(value);
        if !text.is_empty() {
            println!("{text}");
        }
    }
    Ok(())
}

async fn run(cli: Cli) -> Result<(), Failure> {
    let runtime_dir = cli
        .runtime_dir
        .clone()
        .unwrap_or_else(cotab_host::default_runtime_dir);
    let sock = runtime_dir.join(AGENT_SOCKET);
    // Talk only to a daemon in a directory that is ours alone: someone else
    // could have prepared a lookalike (e.g. in a shared /tmp) to collect
    // what agents send.
    match cotab_host::runtime::check_runtime_dir(&runtime_dir, nix::unistd::getuid().as_raw()) {
        Ok(()) => {}
        Err(cotab_host::runtime::RuntimeDirError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            return Err(Failure::NotRunning(sock));
        }
        Err(e) => return Err(Failure::Other(anyhow::anyhow!("refusing to connect: {e}"))),
    }
    if let Cmd::Mcp { session_file } = &cli.command {
        // The MCP server opens its own session (agent `cotab-mcp`), not the
        // CLI's.
        let session = match session_file {
            Some(path) => cotab_host::mcp::SessionMode::Kept(path.clone()),
            None => cotab_host::mcp::SessionMode::Fresh,
        };
        return match cotab_host::mcp::serve_stdio(&sock, session).await {
            Err(cotab_host::mcp::McpServeError::Daemon(ClientError::Connect { .. })) => {
                Err(Failure::NotRunning(sock))
            }
            r => r.map_err(|e| Failure::Other(e.into())),
        };
    }
    let mut client = match Client::connect(&sock).await {
        Ok(c) => c,
        Err(ClientError::Connect { .. }) => return Err(Failure::NotRunning(sock)),
        Err(e) => return Err(e.into()),
    };
    session(&mut client, &runtime_dir).await?;
    let json = cli.json;
    match cli.command {
        // Served above, before the CLI's session was opened.
        Cmd::Mcp { .. } => Ok(()),
        Cmd::Status => {
            let s = client.call::<Status>(&Empty {}).await?;
            print(json, &s, |s| {
                format!(
                    "daemon {} (pid {}), browser lane {}{}, {} shared tab(s), {} agent connection(s)",
                    s.daemon_version,
                    s.pid,
                    s.lane,
                    s.extension_version.as_deref().map(|v| format!(" (extension {v})")).unwrap_or_default(),
                    s.shared_tabs,
                    s.agents
                )
            })
        }
        Cmd::Tabs => {
            let r = client.call::<TabsList>(&Empty {}).await?;
            print(json, &r, |r| {
                if r.tabs.is_empty() {
                    return "no shared tabs: share one from the cotab extension".into();
                }
                r.tabs
                    .iter()
                    .map(|t| {
                        format!(
                            "{} {}  {}  {}",
                            if t.selected { "*" } else { " " },
                            t.id,
                            t.title,
                            t.url
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }
        Cmd::Select { id, observe } => {
            let r = client
                .call::<TabsSelect>(&SelectParams { tab_id: TabId(id) })
                .await?;
            if observe {
                return print(json, &r, |r| {
                    format!("selected tab {} (observing)", r.tab_id)
                });
            }
            let r = client.call::<Acquire>(&Empty {}).await?;
            print(json, &r, |r| {
                format!("selected tab {} and took control", r.tab_id)
            })
        }
        Cmd::Acquire => {
            let r = client.call::<Acquire>(&Empty {}).await?;
            print(json, &r, |r| format!("took control of tab {}", r.tab_id))
        }
        Cmd::Release => {
            let r = client.call::<Release>(&Empty {}).await?;
            print(json, &r, |_| "gave control back".into())
        }
        Cmd::Eval { expr } => {
            let r = act::<Evaluate>(
                &mut client,
                &EvaluateParams {
                    expression: expr,
                    await_promise: None,
                },
            )
            .await?;
            if let Some(e) = &r.exception {
                return Err(Failure::Other(anyhow::anyhow!("the expression threw: {e}")));
            }
            if json {
                print(json, &r, |_| String::new())
            } else {
                let text = serde_json::to_string(&r.value).map_err(anyhow::Error::from)?;
                println!("{text}");
                Ok(())
            }
        }
        Cmd::Cdp { method, params } => {
            let params = match params {
                Some(p) => Some(
                    serde_json::from_str::<serde_json::Value>(&p)
                        .context("PARAMS_JSON is not valid JSON")?,
                ),
                None => None,
            };
            let r = act::<CdpSend>(&mut client, &CdpSendParams { method, params }).await?;
            let text = serde_json::to_string_pretty(&r).map_err(anyhow::Error::from)?;
            println!("{text}");
            Ok(())
        }
        Cmd::KeyDown { key } => {
            let (modifiers, name) = keys::parse_combo(&key).map_err(anyhow::Error::msg)?;
            let r = act::<KeyDown>(
                &mut client,
                &KeyParams {
                    key: name,
                    modifiers,
                    expect: None,
                },
            )
            .await?;
            print(json, &r, |_| format!("holding {key}"))
        }
        Cmd::KeyUp { key } => {
            let r = client
                .call::<KeyUp>(&KeyUpParams { key: key.clone() })
                .await?;
            print(json, &r, |r| released(r, &key))
        }
        Cmd::MouseDown { x, y, button } => {
            let r = act::<MouseDown>(&mut client, &pointer(x, y, Some(button))).await?;
            print(json, &r, |_| {
                format!("holding the mouse button at ({x}, {y})")
            })
        }
        Cmd::MouseMove { x, y } => {
            let r = act::<MouseMove>(&mut client, &pointer(x, y, None)).await?;
            print(json, &r, |_| format!("moved to ({x}, {y})"))
        }
        Cmd::MouseUp { button } => {
            let r = client
                .call::<MouseUp>(&MouseUpParams {
                    button: Some(button),
                })
                .await?;
            print(json, &r, |r| released(r, "the mouse button"))
        }
        Cmd::Navigate { url } => {
            let r = act::<Navigate>(&mut client, &NavigateParams::to(url)).await?;
            print(json, &r, |r| format!("{}  {}", r.title, r.url))
        }
        Cmd::Screenshot {
            output,
            format,
            quality,
            max_width,
            clip,
        } => {
            let r = client
                .call::<Capture>(&CaptureParams {
                    format,
                    quality,
                    max_width,
                    clip: clip.map(Ref),
                    known_frame_id: None,
                })
                .await?;
            let data = r.data.as_deref().context("the daemon sent no image data")?;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(data.as_bytes())
                .context("the daemon sent invalid base64")?;
            std::fs::write(&output, bytes)
                .with_context(|| format!("writing {}", output.display()))?;
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
            print(json, &shot, |s| {
                format!("{} {}x{}", s.path.display(), s.width, s.height)
            })
        }
        Cmd::Click {
            target: t,
            button,
            double,
            modifiers,
        } => {
            let (element, x, y) = target(&t)?;
            let modifiers = modifiers
                .iter()
                .map(|m| keys::parse_modifier(m).map_err(anyhow::Error::msg))
                .collect::<Result<Vec<_>, _>>()?;
            let r = act::<Click>(
                &mut client,
                &ClickParams {
                    element,
                    x,
                    y,
                    button: Some(button),
                    click_count: double.then_some(2),
                    modifiers,
                    ..ClickParams::default()
                },
            )
            .await?;
            let what = if double { "double-clicked" } else { "clicked" };
            print(json, &r, |_| format!("{what} {}", t.join(" ")))
        }
        Cmd::Type {
            text,
            element,
            clear,
            submit,
        } => {
            let chars = text.chars().count();
            let r = act::<Type>(
                &mut client,
                &TypeParams {
                    text,
                    element: element.map(Ref),
                    clear,
                    submit,
                    expect: None,
                },
            )
            .await?;
            print(json, &r, |_| format!("typed {chars} character(s)"))
        }
        Cmd::Press { key } => {
            let (modifiers, name) = keys::parse_combo(&key).map_err(anyhow::Error::msg)?;
            let r = act::<Press>(
                &mut client,
                &PressParams {
                    key: name,
                    modifiers,
                    expect: None,
                },
            )
            .await?;
            print(json, &r, |_| format!("pressed {key}"))
        }
        // ---- the agent toolset -------------------------------------------
        Cmd::Back => history(&mut client, json, NavigateAction::Back).await,
        Cmd::Forward => history(&mut client, json, NavigateAction::Forward).await,
        Cmd::Reload => history(&mut client, json, NavigateAction::Reload).await,
        Cmd::Snapshot { max_chars } => {
            let r = client
                .call::<Snapshot>(&SnapshotParams { max_chars })
                .await?;
            print(json, &r, |r| r.text.clone())
        }
        Cmd::Hover { target: t } => {
            let (element, x, y) = target(&t)?;
            let r = act::<Hover>(
                &mut client,
                &HoverParams {
                    element,
                    x,
                    y,
                    frame_id: None,
                },
            )
            .await?;
            print(json, &r, |_| format!("hovering {}", t.join(" ")))
        }
        Cmd::SelectOption { element, values } => {
            let r = act::<SelectOption>(
                &mut client,
                &SelectOptionParams {
                    element: Ref(element),
                    values,
                },
            )
            .await?;
            print(json, &r, |r| format!("selected {}", r.selected.join(", ")))
        }
        Cmd::Check { element } => check(&mut client, json, element, true).await,
        Cmd::Uncheck { element } => check(&mut client, json, element, false).await,
        Cmd::Drag { from, to } => {
            let r = act::<Drag>(
                &mut client,
                &DragParams {
                    from: Ref(from.clone()),
                    to: Ref(to.clone()),
                },
            )
            .await?;
            print(json, &r, |_| format!("dragged {from} onto {to}"))
        }
        Cmd::Scroll {
            element,
            dx,
            dy,
            at,
        } => {
            let (x, y) = match at.as_deref() {
                Some([x, y]) => (Some(*x), Some(*y)),
                _ => (None, None),
            };
            let what = element.clone().map_or_else(
                || "scrolled".to_string(),
                |e| format!("scrolled {e} into view"),
            );
            let r = act::<Scroll>(
                &mut client,
                &ScrollParams {
                    element: element.map(Ref),
                    x,
                    y,
                    frame_id: None,
                    delta_x: dx,
                    delta_y: dy,
                },
            )
            .await?;
            print(json, &r, |_| what)
        }
        Cmd::Wait {
            condition,
            arg,
            timeout,
        } => {
            let (params, desc) = wait_params(condition, arg, timeout)?;
            let call = client.call::<Wait>(&params);
            tokio::pin!(call);
            let r = tokio::select! {
                r = &mut call => r,
                () = tokio::time::sleep(std::time::Duration::from_secs(1)) => {
                    eprintln!("waiting for {desc}…");
                    call.await
                }
            }?;
            print(json, &r, |r| format!("waited {} ms", r.waited_ms))
        }
        Cmd::NewTab { url } => {
            let r = client.call::<TabsCreate>(&CreateTabParams { url }).await?;
            print(json, &r, |r| {
                format!("opened tab {}, selected, under your control", r.tab_id)
            })
        }
        Cmd::CloseTab { id } => {
            let r = client
                .call::<TabsClose>(&CloseTabParams {
                    tab_id: id.map(TabId),
                })
                .await?;
            print(json, &r, |_| "closed the tab".into())
        }
        Cmd::Dialog { answer, text } => {
            let accept = matches!(answer, DialogAnswer::Accept);
            let r = act::<Dialog>(
                &mut client,
                &DialogParams {
                    accept,
                    prompt_text: text,
                },
            )
            .await?;
            let how = if accept { "accepted" } else { "dismissed" };
            print(json, &r, |_| format!("{how} the dialog"))
        }
        Cmd::Console { levels, since } => {
            let levels = (!levels.is_empty()).then_some(levels);
            let r = client
                .call::<Console>(&ConsoleParams { levels, since })
                .await?;
            print(json, &r, |r| {
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
        Cmd::Upload { element, paths } => {
            // The daemon wants absolute paths; relative ones are the
            // caller's working directory's.
            let paths = paths
                .iter()
                .map(|p| std::path::absolute(p).map(|p| p.display().to_string()))
                .collect::<Result<Vec<_>, _>>()
                .context("resolving the paths")?;
            let n = paths.len();
            let r = act::<SetFiles>(
                &mut client,
                &SetFilesParams {
                    element: Ref(element),
                    paths,
                },
            )
            .await?;
            print(json, &r, |_| format!("set {n} file(s)"))
        }
    }
}

async fn history(client: &mut Client, json: bool, action: NavigateAction) -> Result<(), Failure> {
    let params = NavigateParams {
        action: Some(action),
        ..NavigateParams::default()
    };
    let r = act::<Navigate>(client, &params).await?;
    print(json, &r, |r| format!("{}  {}", r.title, r.url))
}

async fn check(
    client: &mut Client,
    json: bool,
    element: String,
    checked: bool,
) -> Result<(), Failure> {
    let r = act::<Check>(
        client,
        &CheckParams {
            element: Ref(element.clone()),
            checked,
        },
    )
    .await?;
    let state = if checked { "checked" } else { "unchecked" };
    print(json, &r, |_| format!("{element} is {state}"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    match rt.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::NotRunning(sock)) => {
            eprintln!(
                "error: the cotab daemon is not running (no socket at {}); open the browser with the cotab extension and share a tab",
                sock.display()
            );
            ExitCode::from(3)
        }
        Err(Failure::Rpc(ClientError::Rpc(e))) => {
            eprintln!("error: {}: {}", e.kind(), e.message);
            ExitCode::from(1)
        }
        Err(Failure::Rpc(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
        Err(Failure::Other(e)) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}
