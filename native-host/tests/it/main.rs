//! Integration tests of `cotab-host`: the daemon in-process with a fake
//! extension peer on `host.sock` speaking the real framing, and the built
//! binaries for the relay, daemon and CLI roles.

mod agent;
mod approvals;
mod bad_input;
mod binaries;
mod cli;
mod connections;
mod control;
mod dialogs;
mod doctor;
mod harness;
mod install;
mod lasting;
mod limits;
mod raw_events;
mod reach;
mod record;
mod scope;
mod secrets;
mod security;
mod toolset;
mod watch;
