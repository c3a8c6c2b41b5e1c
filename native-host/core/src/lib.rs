//! `cotab-core`: the rules of cotab that do no I/O, as a crate of their
//! own so that "the core does no I/O" is a fact of its dependencies (no
//! tokio, no sockets, no files): state plus an input in, effects out.
//!
//! - [`approvals`]: which agent requests wait for the person's yes.
//! - [`broker`]: sessions and tickets, leases and the person's control,
//!   frames, held input, developer mode, refs, dialogs, the shared list —
//!   every rule the daemon applies to agents, as a state machine.
//! - [`outline`]: the page's documents as the browser captured them → the
//!   snapshot's text with refs.
//! - [`redact`]: secrets out of developer-mode results.
//! - [`keys`]: key names → the browser's key events.
//! - [`scope`]: a share's sites, where agents may take a shared tab.
//! - [`session`]: session and connection ids, tickets, the constant-time
//!   compare.
//! - [`validate`]: checks of urls agents submit and of images the browser
//!   returns, and the browser's refusals in agents' terms.
//!
//! **Architecture Invariant:** nothing here awaits, sleeps, reads a clock
//! (times are handed in), opens a file or a socket, or logs.

pub mod approvals;
pub mod broker;
pub mod keys;
pub mod outline;
pub mod redact;
pub mod scope;
pub mod session;
pub mod validate;
