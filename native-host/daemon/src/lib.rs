//! `cotab-daemon`: the daemon that brokers agents and its relay role.
//!
//! Layers, bottom up: the core's rules ([`broker`], from `cotab-core`);
//! the browser lane ([`lane`]) and the offers of its WebSocket
//! ([`socket_offers`]); the shell around the core ([`shell`]) and one
//! handler per controller method ([`handlers`]); the connections
//! ([`agent`], [`browser_conn`], [`socket_lane`]); the process
//! ([`daemon`]) and the relay the browser starts ([`relay`]); the
//! person's host config ([`config`]) and the upload check ([`uploads`]).
//!
//! **API Boundary:** agents' programs (the CLI, `cotab mcp`, the CDP
//! endpoint) never depend on this crate: they talk to the daemon through
//! `cotab-client`.

pub mod activity;
pub mod agent;
pub mod browser_conn;
pub mod config;
pub mod daemon;
pub mod documents;
pub mod handlers;
pub mod lane;
pub mod overlay;
pub mod recorder;
pub mod relay;
pub mod settings;
pub mod shell;
pub mod socket_lane;
pub mod socket_offers;
pub mod uploads;
pub mod video;

// The core's modules and the machine's ground, as the daemon's own
// modules name them (`crate::broker`, `crate::codec`).
pub use cotab_core::{broker, keys, outline, redact, scope, session, validate};
use cotab_local::{accept, codec, default_runtime_dir, logs, runtime, VERSION};
