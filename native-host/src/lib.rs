//! `cotab-host`: the binaries `cotab-host` (the relay the browser starts,
//! and the daemon) and `cotab` (the CLI, `cotab mcp`, `cotab
//! cdp-endpoint`), and one library that names every crate of
//! `native-host/` as a module, for the binaries, the end-to-end tests and
//! `cargo xtask`:
//!
//! - `cotab-core`: [`broker`], [`outline`], [`redact`], [`keys`],
//!   [`session`], [`validate`] — the rules that do no I/O;
//! - `cotab-local`: [`runtime`], [`codec`], [`accept`], [`logs`] — what
//!   the programs on the machine share;
//! - `cotab-daemon`: [`daemon`], [`relay`], [`shell`], [`handlers`],
//!   [`lane`], … — the daemon;
//! - `cotab-client`: [`client`] — the one way agents' programs talk to the
//!   daemon;
//! - the agents' programs: [`cli`] (`cotab-cli`), [`mcp`] (`cotab-mcp`),
//!   [`cdp_endpoint`] (`cotab-cdp`);
//! - `cotab-install`: [`install`], [`doctor`];
//! - `cotab-video`: [`video_file`] — a tab's video as WebM.
//!
//! **API Boundary:** the binaries in `src/bin/` only parse arguments and call
//! into these crates.

pub use cotab_cdp as cdp_endpoint;
pub use cotab_cli as cli;
pub use cotab_client as client;
pub use cotab_core::{broker, keys, outline, redact, session, validate};
pub use cotab_daemon::{
    agent, browser_conn, config, daemon, handlers, lane, relay, shell, socket_lane, socket_offers,
    uploads,
};
pub use cotab_install::{doctor, install};
pub use cotab_local::{
    accept, codec, default_runtime_dir, init_logging, logs, record, runtime, VERSION,
};
pub use cotab_mcp as mcp;
pub use cotab_video as video_file;
