//! `cotab-local`: what every program of cotab's on the person's machine
//! shares — where the runtime directory is and why it is trusted
//! ([`runtime`]), the framing of both sockets' bytes ([`codec`]), accepting
//! connections without spinning ([`accept`]) and the loopback check of a
//! request's head ([`loopback`]), where the daemon and the relays log
//! ([`logs`]), the activity record the daemon keeps and `cotab activity`
//! reads ([`record`]), and the version they all report.

pub mod accept;
pub mod codec;
pub mod logs;
pub mod loopback;
pub mod record;
pub mod runtime;

pub use runtime::default_runtime_dir;

/// Version of cotab's programs, reported as the daemon's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Sets up `tracing` to stderr with the filter from `COTAB_LOG` (default
/// `info`). stdout is never used: in the relay role it is the browser's
/// channel. Colours only on a terminal: the daemon's stderr is its log
/// file, which must read as plain text.
pub fn init_logging() {
    use std::io::IsTerminal as _;
    let filter = tracing_subscriber::EnvFilter::try_from_env("COTAB_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // A second call (tests) finds a subscriber already set; that is fine.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .try_init();
}
