//! `cotab`: drive shared browser tabs from a shell, through the daemon's
//! agent socket. The session's ticket is kept in `$RUNTIME/cli.ticket` so
//! successive invocations share one selection.

use anyhow::Context as _;
use base64::Engine as _;
use clap::{Parser, Subcommand};
use cotab_host::client::{Client, ClientError};
use cotab_host::runtime::{AGENT_SOCKET, CLI_TICKET_FILE};
use cotab_shared::controller::{
    Capture, Click, Navigate, Press, Resume, Status, TabsList, TabsSelect, Type,
};
use cotab_shared::controller::{
    CaptureParams, ClickParams, Empty, ImageFormat, Modifier, NavigateParams, PressParams,
    ResumeParams, SelectParams, TypeParams,
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
    /// Select the tab later commands act on.
    Select {
        /// Tab id from `cotab tabs`.
        id: i32,
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
        Cmd::Select { id } => {
            let r = client
                .call::<TabsSelect>(&SelectParams { tab_id: TabId(id) })
                .await?;
            print(json, &r, |r| format!("selected tab {}", r.tab_id))
        }
        Cmd::Navigate { url } => {
            let r = client.call::<Navigate>(&NavigateParams { url }).await?;
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
            struct Shot {
                path: PathBuf,
                width: u32,
                height: u32,
                #[serde(rename = "devicePixelRatio")]
                device_pixel_ratio: f64,
            }
            let shot = Shot {
                path: output,
                width: r.width,
                height: r.height,
                device_pixel_ratio: r.device_pixel_ratio,
            };
            print(json, &shot, |s| {
                format!("{} {}x{}", s.path.display(), s.width, s.height)
            })
        }
        Cmd::Click { x, y } => {
            let r = client.call::<Click>(&ClickParams { x, y }).await?;
            print(json, &r, |_| format!("clicked at ({x}, {y})"))
        }
        Cmd::Type { text } => {
            let chars = text.chars().count();
            let r = client.call::<Type>(&TypeParams { text }).await?;
            print(json, &r, |_| format!("typed {chars} character(s)"))
        }
        Cmd::Press { key } => {
            let (modifiers, name) = parse_combo(&key).map_err(anyhow::Error::msg)?;
            let r = client
                .call::<Press>(&PressParams {
                    key: name,
                    modifiers,
                })
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
