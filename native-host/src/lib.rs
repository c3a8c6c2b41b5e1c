//! `cotab-host`: the daemon (broker), the native-messaging relay and the
//! agent client, as a library so the binaries and the end-to-end tests share
//! one implementation.
//!
//! Layers, bottom up:
//!
//! - [`codec`]: bytes ↔ frames (native-messaging length prefix, NDJSON lines).
//! - `cotab_shared`: frames ↔ typed messages (the only place that knows the
//!   JSON shapes).
//! - [`broker`]: the sans-IO broker core (sessions, leases, frames, held
//!   input, developer mode): state plus an input in, effects out.
//! - [`session`], [`lane`], [`keys`], [`validate`], [`outline`],
//!   [`config`], [`uploads`]: ids and tickets, the browser lane, the key
//!   table, url and image checks, the snapshot's text, the person's host
//!   config, the upload check.
//! - [`handlers`]: one function per controller method; [`redact`]: the
//!   secrets taken out of developer-mode results before agents see them.
//! - [`accept`], [`agent`], [`daemon`], [`relay`]: the socket and process
//!   edges.
//! - [`client`]: the agent side of the controller link (used by `cotab`).
//! - [`mcp`]: `cotab mcp`, an MCP server (stdio) whose browser tools drive
//!   the shared tabs through [`client`].
//!
//! **API Boundary:** the binaries in `src/bin/` only parse arguments and call
//! into this library.

pub mod accept;
pub mod agent;
pub mod browser_conn;
pub mod cdp_endpoint;
pub mod cli;
pub mod client;
pub mod codec;
pub mod config;
pub mod daemon;
pub mod doctor;
pub mod handlers;
pub mod install;
pub mod lane;
pub mod logs;
pub mod mcp;
pub mod relay;
pub mod runtime;
pub mod shell;
pub mod socket_lane;
pub mod socket_offers;
pub mod uploads;

// The sans-IO core, as the daemon's own modules name it.
pub use cotab_core::{broker, keys, outline, redact, session, validate};
pub use runtime::default_runtime_dir;

/// Version of this crate, reported as the daemon's version.
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
