//! `cotab-host`: the relay (started by the browser with the caller origin
//! as argv\[1\]), the daemon (`cotab-host daemon`) and the manifest
//! installer (`cotab-host install`, `uninstall`, `verify`).

use clap::{Parser, Subcommand};
use cotab_host::daemon::{self, DaemonConfig, DaemonExit};
use cotab_host::install;
use std::process::ExitCode;

/// The daemon allocates and frees small buffers for every request (lines,
/// frames, JSON values); mimalloc serves them faster than glibc's malloc.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "cotab-host",
    version,
    about = "cotab's native-messaging host and daemon"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the daemon (the broker between agents and the browser).
    Daemon {
        /// Stay in the caller's session (do not call setsid) and log to
        /// stderr, not to the log directory.
        #[arg(long)]
        foreground: bool,
    },
    /// Register the native-messaging host with browsers (writes their host
    /// manifest).
    Install {
        #[command(flatten)]
        which: install::Which,
    },
    /// Remove cotab's host manifest from browsers.
    Uninstall {
        #[command(flatten)]
        which: install::Which,
    },
    /// Check that browsers' host manifests name exactly cotab's extension
    /// and point at this executable; say how to fix any that does not.
    Verify {
        #[command(flatten)]
        which: install::Which,
    },
}

/// The daemon's runtime: one thread. A request is a few microseconds of
/// work between socket reads and writes, and a second worker thread only
/// adds hand-offs between threads to each (measured: 39,000 requests/s at
/// 25 µs of CPU each with two, 60,000 at 16 µs with one). The few heavy
/// steps (parsing a browser frame of several MiB, decoding and hashing a
/// large capture, reading a large accessibility tree, redacting a large
/// result, reading files for an upload) run on the blocking pool.
fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

fn relay(origin: &str) -> ExitCode {
    // The origin check comes before anything else, stdin included.
    if !cotab_host::relay::origin_allowed(origin) {
        eprintln!("cotab-host: refusing caller origin (not the cotab extension)");
        return ExitCode::from(1);
    }
    cotab_host::logs::init(cotab_host::logs::RELAY_LOG);
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            tracing::error!(error = %e, "cannot find our own executable");
            return ExitCode::from(1);
        }
    };
    // One thread: the relay only copies frames, and a second worker
    // thread only adds hand-offs between them to every frame's path.
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!(error = %e, "cannot start the runtime");
            eprintln!("cotab-host: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let result = rt.block_on(cotab_host::relay::run(
        &cotab_host::default_runtime_dir(),
        &exe,
    ));
    let code = match result {
        Ok(()) => 0,
        Err(e) => {
            tracing::error!(error = %e, "relay failed");
            // The log may be a file: why the relay gave up goes to the
            // browser's log too.
            eprintln!("cotab-host: relay failed: {e}");
            1
        }
    };
    // A blocking stdin read may still be parked in the runtime's thread
    // pool; exiting now avoids waiting for a browser that will never write.
    std::process::exit(code);
}

/// Runs a manifest command, printing its lines on stdout: 0 when all went
/// well, 1 otherwise (what failed is on its line, or on stderr).
fn manifests(
    what: &str,
    run: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<bool>,
) -> ExitCode {
    match run(&mut std::io::stdout()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("cotab-host: {what} failed: {e}");
            ExitCode::from(1)
        }
    }
}

fn main() -> ExitCode {
    let first = std::env::args().nth(1).unwrap_or_default();
    if first.starts_with("chrome-extension://") {
        return relay(&first);
    }
    let cli = Cli::parse();
    match cli.command {
        Cmd::Daemon { foreground } => {
            if !foreground {
                // Our own session, so the browser (or a shell) ending the
                // relay's process group leaves the daemon alone. Failing
                // means we already lead a group: nothing to do.
                let _ = nix::unistd::setsid();
                // In the background, the log directory's `daemon.log`; in
                // the foreground, the terminal's stderr.
                cotab_host::logs::init(cotab_host::logs::DAEMON_LOG);
            } else {
                cotab_host::init_logging();
            }
            let rt = match runtime() {
                Ok(rt) => rt,
                Err(e) => {
                    eprintln!("cotab-host: cannot start the runtime: {e}");
                    return ExitCode::from(1);
                }
            };
            match rt.block_on(daemon::run_with_signals(DaemonConfig::from_env())) {
                Ok(DaemonExit::AlreadyRunning) => {
                    eprintln!("cotab-host: a daemon is already running");
                    ExitCode::SUCCESS
                }
                Ok(_) => ExitCode::SUCCESS,
                Err(e) => {
                    tracing::error!(error = %e, "daemon failed");
                    eprintln!("cotab-host: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Cmd::Install { which } => manifests("install", |out| {
            install::install_all(&which, &install::this_executable()?, out)
        }),
        Cmd::Uninstall { which } => {
            manifests("uninstall", |out| install::uninstall_all(&which, out))
        }
        Cmd::Verify { which } => manifests("verify", |out| {
            install::verify_all(&which, &install::this_executable()?, out)
        }),
    }
}
