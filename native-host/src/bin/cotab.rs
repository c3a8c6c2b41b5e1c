//! `cotab`: drive shared browser tabs from a shell, through the daemon's
//! agent socket. The session's ticket is kept in `$RUNTIME/cli.ticket` so
//! successive invocations share one selection.

use anyhow::Context as _;
use base64::Engine as _;
use clap::{Parser, Subcommand};
use cotab_host::client::{Client, ClientError};
use cotab_host::runtime::{AGENT_SOCKET, CLI_TICKET_FILE};
use cotab_shared::controller::{
    Acquire, Capture, CdpSend, Click, Evaluate, KeyDown, KeyUp, Method, MouseDown, MouseMove,
    MouseUp, Navigate, Press, Release, Resume, Status, TabsList, TabsSelect, Type,
};
use cotab_shared::controller::{
    CaptureParams, CdpSendParams, ClickParams, Empty, EvaluateParams, ImageFormat, KeyParams,
    KeyUpParams, Modifier, MouseButton, MouseUpParams, NavigateParams, PointerParams, PressParams,
    ReleaseResult, ResumeParams, SelectParams, TypeParams,
};
use cotab_shared::{ErrorKind, TabId, Ticket, PROTOCOL_VERSION};
use serde::Serialize;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "cotab",
    version,
    about = "Drive browser tabs shared with cotab"
)]
struct Cli {
    /// Print results as JSON.
    #[arg(long, global = true)]
    json: bool,
    /// The daemon's runtime directory (default: $COTAB_RUNTIME_DIR,
    /// `$XDG_RUNTIME_DIR/cotab` or `/tmp/cotab-UID`).
    #[arg(long, global = true)]
    runtime_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// The daemon's and the browser's state.
    Status,
    /// List the shared tabs (`*` marks the selected one).
    Tabs,
    /// Select the tab later commands act on, and take control of it.
    Select {
        /// Tab id from `cotab tabs`.
        id: i32,
        /// Only select (observe); do not take control.
        #[arg(long)]
        observe: bool,
    },
    /// Take control of the selected tab.
    Acquire,
    /// Give control of the selected tab back (held input is released).
    Release,
    /// Evaluate JavaScript in the selected tab (developer mode only); prints
    /// the value as JSON.
    Eval {
        /// The expression.
        expr: String,
    },
    /// Send a raw CDP command to the selected tab (developer mode only).
    Cdp {
        /// CDP method, e.g. `Page.reload`.
        method: String,
        /// CDP params as a JSON object.
        params: Option<String>,
    },
    /// Press and hold a key until `key-up`.
    KeyDown {
        /// Key name, optionally with `+`-joined modifiers first.
        key: String,
    },
    /// Release a key held with `key-down`.
    KeyUp {
        /// Key name.
        key: String,
    },
    /// Press and hold a mouse button at a point in screenshot pixels.
    MouseDown {
        /// Horizontal position.
        x: f64,
        /// Vertical position.
        y: f64,
        /// The button.
        #[arg(long, value_enum, default_value = "left")]
        button: Button,
    },
    /// Move the mouse (with any held button) to a point in screenshot pixels.
    MouseMove {
        /// Horizontal position.
        x: f64,
        /// Vertical position.
        y: f64,
    },
    /// Release a mouse button held with `mouse-down`.
    MouseUp {
        /// The button.
        #[arg(long, value_enum, default_value = "left")]
        button: Button,
    },
    /// Navigate the selected tab and wait for it to load.
    Navigate {
        /// An http: or https: url.
        url: String,
    },
    /// Capture the selected tab to a file.
    Screenshot {
        /// Output file.
        #[arg(short, long)]
        output: PathBuf,
        /// Image format.
        #[arg(long, value_enum, default_value = "jpeg")]
        format: Format,
        /// JPEG quality 0–100.
        #[arg(long)]
        quality: Option<u8>,
    },
    /// Click at a point in screenshot pixels.
    Click {
        /// Horizontal position.
        x: f64,
        /// Vertical position.
        y: f64,
    },
    /// Type text into the focused element.
    Type {
        /// The text.
        text: String,
    },
    /// Press a key, e.g. `Enter`, `a`, `Control+a`, `Shift+Tab`.
    Press {
        /// Key name, optionally with `+`-joined modifiers first.
        key: String,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Button {
    Left,
    Middle,
    Right,
}

impl From<Button> for MouseButton {
    fn from(b: Button) -> Self {
        match b {
            Button::Left => MouseButton::Left,
            Button::Middle => MouseButton::Middle,
            Button::Right => MouseButton::Right,
        }
    }
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

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Jpeg,
    Png,
}

/// Splits `Control+Shift+a` into modifiers and key. A lone `+` is the key.
fn parse_combo(combo: &str) -> Result<(Vec<Modifier>, String), String> {
    if combo == "+" || !combo.contains('+') || combo.ends_with("++") && combo.len() == 2 {
        return Ok((Vec::new(), combo.to_string()));
    }
    let (mods, key) = match combo.strip_suffix("++") {
        Some(mods) => (mods, "+"),
        None => combo.rsplit_once('+').unwrap_or(("", combo)),
    };
    let mut out = Vec::new();
    for m in mods.split('+') {
        out.push(match m {
            "Control" | "Ctrl" => Modifier::Control,
            "Shift" => Modifier::Shift,
            "Alt" | "Option" => Modifier::Alt,
            "Meta" | "Cmd" | "Command" => Modifier::Meta,
            _ => {
                return Err(format!(
                    "unknown modifier `{m}` (use Control, Shift, Alt or Meta)"
                ))
            }
        });
    }
    Ok((out, key.to_string()))
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

fn write_ticket(path: &Path, ticket: &Ticket) -> anyhow::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("writing {}", path.display()))?;
    f.write_all(ticket.0.as_bytes())?;
    Ok(())
}

/// Resumes the CLI's session, or opens a new one and stores its ticket.
async fn session(client: &mut Client, runtime_dir: &Path) -> Result<(), Failure> {
    let path = runtime_dir.join(CLI_TICKET_FILE);
    if let Ok(text) = std::fs::read_to_string(&path) {
        let params = ResumeParams {
            protocol_version: PROTOCOL_VERSION,
            ticket: Ticket(text.trim().to_string()),
        };
        match client.call::<Resume>(&params).await {
            Ok(_) => return Ok(()),
            Err(e) if e.kind() == Some(ErrorKind::AuthenticationFailed) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let hello = client.hello("cotab-cli").await?;
    write_ticket(&path, &hello.ticket)?;
    Ok(())
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
    let mut client = match Client::connect(&sock).await {
        Ok(c) => c,
        Err(ClientError::Connect { .. }) => return Err(Failure::NotRunning(sock)),
        Err(e) => return Err(e.into()),
    };
    session(&mut client, &runtime_dir).await?;
    let json = cli.json;
    match cli.command {
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
            let (modifiers, name) = parse_combo(&key).map_err(anyhow::Error::msg)?;
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
            let r = act::<MouseDown>(&mut client, &pointer(x, y, Some(button.into()))).await?;
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
                    button: Some(button.into()),
                })
                .await?;
            print(json, &r, |r| released(r, "the mouse button"))
        }
        Cmd::Navigate { url } => {
            let r = act::<Navigate>(&mut client, &NavigateParams { url, expect: None }).await?;
            print(json, &r, |r| format!("{}  {}", r.title, r.url))
        }
        Cmd::Screenshot {
            output,
            format,
            quality,
        } => {
            let format = match format {
                Format::Jpeg => ImageFormat::Jpeg,
                Format::Png => ImageFormat::Png,
            };
            let r = client
                .call::<Capture>(&CaptureParams { format, quality })
                .await?;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(r.data.as_bytes())
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
        Cmd::Click { x, y } => {
            let r = act::<Click>(
                &mut client,
                &ClickParams {
                    x,
                    y,
                    frame_id: None,
                    expect: None,
                },
            )
            .await?;
            print(json, &r, |_| format!("clicked at ({x}, {y})"))
        }
        Cmd::Type { text } => {
            let chars = text.chars().count();
            let r = act::<Type>(&mut client, &TypeParams { text, expect: None }).await?;
            print(json, &r, |_| format!("typed {chars} character(s)"))
        }
        Cmd::Press { key } => {
            let (modifiers, name) = parse_combo(&key).map_err(anyhow::Error::msg)?;
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
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combos() {
        assert_eq!(parse_combo("Enter"), Ok((vec![], "Enter".into())));
        assert_eq!(parse_combo("a"), Ok((vec![], "a".into())));
        assert_eq!(parse_combo("+"), Ok((vec![], "+".into())));
        assert_eq!(
            parse_combo("Control+a"),
            Ok((vec![Modifier::Control], "a".into()))
        );
        assert_eq!(
            parse_combo("Control+Shift+Tab"),
            Ok((vec![Modifier::Control, Modifier::Shift], "Tab".into()))
        );
        assert_eq!(
            parse_combo("Shift++"),
            Ok((vec![Modifier::Shift], "+".into()))
        );
        assert!(parse_combo("Hyper+a").is_err());
    }
}
