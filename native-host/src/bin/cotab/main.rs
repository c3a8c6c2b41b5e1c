//! `cotab`: drive shared browser tabs from a shell, through the daemon's
//! agent socket. The session's ticket is kept in `$RUNTIME/cli.ticket` so
//! successive invocations share one selection and keep control
//! ([`ctx`]). Its options and subcommands are `cotab_host::cli`; they run in
//! [`tabs`], [`page`] and [`input`]; failures read and exit as [`report`]
//! says.

use cotab_host::client::{Client, ClientError};
use cotab_host::runtime::AGENT_SOCKET;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

mod activity;
mod ctx;
mod input;
mod logs;
mod network;
mod page;
mod render;
mod report;
mod tabs;

use cotab_host::cli::{Cli, Cmd};
use ctx::{Ctx, Failure};

async fn run(cli: Cli) -> Result<(), Failure> {
    if let Cmd::Completions { shell } = cli.command {
        let mut cmd = cotab_host::cli::command();
        clap_complete::generate(shell, &mut cmd, "cotab", &mut std::io::stdout());
        return Ok(());
    }
    let runtime_dir = cli
        .runtime_dir
        .clone()
        .unwrap_or_else(cotab_host::default_runtime_dir);
    if let Cmd::Logs {
        follow,
        lines,
        relay,
    } = cli.command
    {
        return logs::run(follow, lines, relay).await;
    }
    if let Cmd::Activity { cmd } = cli.command {
        return activity::run(cmd, cli.json);
    }
    if let Cmd::Doctor = &cli.command {
        // Before any check of the directory: finding what is wrong with it
        // is the doctor's job.
        return doctor(runtime_dir, cli.json).await;
    }
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
    if let Cmd::Mcp {
        session_file,
        caps,
        output_dir,
        snapshot_mode,
    } = cli.command
    {
        return mcp(sock, session_file, caps, output_dir, snapshot_mode).await;
    }
    if let Cmd::CdpEndpoint { port } = &cli.command {
        return cdp_endpoint(sock, *port, cli.json).await;
    }
    let mut cx = open(&sock, &runtime_dir, cli.json, cli.take).await?;
    let done = match cli.command {
        Cmd::Tabs(cmd) => tabs::run(&mut cx, cmd).await,
        Cmd::Page(cmd) => page::run(&mut cx, cmd).await,
        Cmd::Input(cmd) => input::run(&mut cx, cmd).await,
        // Served above, before the CLI's session was opened.
        Cmd::Mcp { .. }
        | Cmd::CdpEndpoint { .. }
        | Cmd::Doctor
        | Cmd::Logs { .. }
        | Cmd::Activity { .. }
        | Cmd::Completions { .. } => Ok(()),
    };
    done.map_err(|f| cx.why_unselected(f))
}

/// `cotab mcp`: serves MCP on stdin and stdout in a session of its own
/// (agent `cotab-mcp`), not the CLI's.
async fn mcp(
    sock: std::path::PathBuf,
    session_file: Option<std::path::PathBuf>,
    caps: Vec<cotab_host::mcp::Cap>,
    output_dir: Option<std::path::PathBuf>,
    snapshot_mode: cotab_host::mcp::SnapshotMode,
) -> Result<(), Failure> {
    let session = match session_file {
        Some(path) => cotab_host::mcp::SessionMode::Kept(path),
        None => cotab_host::mcp::SessionMode::Fresh,
    };
    let caps = cotab_host::mcp::Caps::of(&caps);
    let root = std::env::current_dir()
        .map_err(|e| Failure::Other(anyhow::anyhow!("no working directory: {e}")))?;
    let files = cotab_host::mcp::Files::new(root, output_dir);
    match cotab_host::mcp::serve_stdio(&sock, session, caps, files, snapshot_mode).await {
        Err(cotab_host::mcp::McpServeError::Daemon(ClientError::Connect { .. })) => {
            Err(Failure::NotRunning(sock))
        }
        r => r.map_err(|e| Failure::Other(e.into())),
    }
}

/// How long the CLI waits for a daemon whose socket is there but does
/// not answer: the one that made it died (a crash leaves the socket
/// behind), and the browser's native host starts a new one when the
/// extension reconnects, within a second or two.
const RESTART_WAIT: Duration = Duration::from_secs(5);

/// Connects to the daemon and opens the CLI's session. A connection that
/// fails before the session is open (nothing listens, or the daemon goes
/// away at that moment) is tried again every 100 ms for [`RESTART_WAIT`]
/// while the socket is there; then, or at once when it is not, the
/// daemon is not running (exit 3). Resuming the session again is safe,
/// and a hello whose answer was lost leaves only an unbound session that
/// expires by itself.
async fn open(sock: &Path, runtime_dir: &Path, json: bool, take: bool) -> Result<Ctx, Failure> {
    let started = Instant::now();
    loop {
        let opened = match Client::connect(sock).await {
            Ok(client) => Ctx::open(client, runtime_dir, json, take).await,
            Err(e) => Err(e.into()),
        };
        match opened {
            Err(Failure::Rpc(e)) if e.is_transport() => {
                if !sock.exists() || started.elapsed() >= RESTART_WAIT {
                    return Err(Failure::NotRunning(sock.to_owned()));
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            opened => return opened,
        }
    }
}

/// `cotab cdp-endpoint`: binds, prints how to connect (one JSON object
/// with `--json`), and serves until the process is stopped.
async fn cdp_endpoint(sock: std::path::PathBuf, port: u16, json: bool) -> Result<(), Failure> {
    use cotab_host::cdp_endpoint as cdp;
    // What it refuses and why, and each client's coming and going, go to
    // stderr (`COTAB_LOG` filters them); stdout holds what it printed.
    cotab_host::init_logging();
    let (listener, port) = cdp::bind(port)
        .await
        .map_err(|e| Failure::Other(anyhow::anyhow!("cannot listen on 127.0.0.1: {e}")))?;
    let config = cdp::Config::new(port, sock).map_err(anyhow::Error::from)?;
    if json {
        let v = serde_json::json!({
            "endpoint": config.http_url(),
            "webSocketDebuggerUrl": config.browser_ws_url(),
            "token": config.token,
            "headers": {"Authorization": format!("Bearer {}", config.token)},
        });
        println!("{v}");
    } else {
        println!(
            "CDP endpoint: {} (developer mode must be on)\n\
             Every request needs the header  Authorization: Bearer {}\n\n\
             Playwright:  chromium.connectOverCDP('{}', {{ headers: {{ Authorization: 'Bearer {}' }} }})\n\
             Puppeteer:   puppeteer.connect({{ browserWSEndpoint: '{}', headers: {{ Authorization: 'Bearer {}' }} }})",
            config.http_url(),
            config.token,
            config.http_url(),
            config.token,
            config.browser_ws_url(),
            config.token
        );
    }
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    cdp::serve(listener, std::sync::Arc::new(config)).await;
    Ok(())
}

/// `cotab doctor`: every check, a line each (or one JSON object); fails
/// (exit 1) when one does not hold.
async fn doctor(runtime_dir: std::path::PathBuf, json: bool) -> Result<(), Failure> {
    let setting = cotab_host::doctor::Setting {
        cotab: std::env::current_exe().map_err(anyhow::Error::from)?,
        path: std::env::var_os("PATH"),
        runtime_dir,
        uid: nix::unistd::getuid().as_raw(),
    };
    let checks = cotab_host::doctor::run(&setting).await;
    let ok = checks.iter().all(|c| c.ok);
    if json {
        let text = serde_json::json!({ "ok": ok, "checks": checks });
        println!("{text}");
    } else {
        for c in &checks {
            let mark = if c.ok { "ok  " } else { "FAIL" };
            println!("{mark} {}: {}", c.name, c.detail);
            if let Some(fix) = &c.fix {
                println!("     fix: {fix}");
            }
        }
    }
    if ok {
        Ok(())
    } else {
        Err(Failure::Unhealthy)
    }
}

/// The usage errors of `cli` that clap does not find, found before the
/// daemon is asked anything.
fn check(cli: &Cli) -> Result<(), String> {
    match &cli.command {
        Cmd::Page(cmd) => page::usage_errors(cmd, cli.json),
        Cmd::Input(cmd) => input::usage_errors(cmd),
        Cmd::Mcp { .. } if cli.json || cli.take => {
            Err("`cotab mcp` speaks MCP on stdout: --json and --take do not apply to it".into())
        }
        Cmd::Completions { .. } if cli.json || cli.take => Err(
            "`cotab completions` prints a shell script: --json and --take do not apply to it"
                .into(),
        ),
        _ => Ok(()),
    }
}

/// The command line, parsed; a usage error as [`report`] shows it when
/// `--json` is among the arguments, else as clap does (exit 2 both ways).
fn parse() -> Result<Cli, ExitCode> {
    match cotab_host::cli::parse() {
        Ok(cli) => Ok(cli),
        Err(e) if e.use_stderr() && std::env::args_os().any(|a| a == "--json") => {
            let text = e.to_string();
            let first = text
                .split("\n\n")
                .next()
                .unwrap_or_default()
                .trim_start_matches("error: ")
                .trim()
                .to_owned();
            Err(report::report(Failure::Usage(first), true))
        }
        Err(e) => e.exit(),
    }
}

fn main() -> ExitCode {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    if let Err(usage) = check(&cli) {
        return report::report(Failure::Usage(usage), cli.json);
    }
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let e = anyhow::anyhow!("cannot start the runtime: {e}");
            return report::report(Failure::Other(e), cli.json);
        }
    };
    let json = cli.json;
    match rt.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => report::report(failure, json),
    }
}
