//! `cotab`: drive shared browser tabs from a shell, through the daemon's
//! agent socket. The session's ticket is kept in `$RUNTIME/cli.ticket` so
//! successive invocations share one selection and keep control
//! ([`ctx`]). Its options and subcommands are [`args`]; they run in
//! [`tabs`], [`page`] and [`input`].

use clap::Parser;
use cotab_host::client::{Client, ClientError};
use cotab_host::runtime::AGENT_SOCKET;
use std::process::ExitCode;

mod args;
mod ctx;
mod input;
mod page;
mod tabs;

use args::{Cli, Cmd};
use ctx::{Ctx, Failure};

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
    let client = match Client::connect(&sock).await {
        Ok(c) => c,
        Err(ClientError::Connect { .. }) => return Err(Failure::NotRunning(sock)),
        Err(e) => return Err(e.into()),
    };
    let mut cx = Ctx::open(client, &runtime_dir, cli.json, cli.take).await?;
    match cli.command {
        Cmd::Tabs(cmd) => tabs::run(&mut cx, cmd).await,
        Cmd::Page(cmd) => page::run(&mut cx, cmd).await,
        Cmd::Input(cmd) => input::run(&mut cx, cmd).await,
        // Served above, before the CLI's session was opened.
        Cmd::Mcp { .. } => Ok(()),
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
            eprintln!("error: {}: {}", e.kind(), ctx::explain(&e));
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
