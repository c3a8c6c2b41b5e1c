//! The service worker: owns the native port and the listeners, feeds what
//! the browser and the host report to [`crate::machine::Machine`] (and
//! the policy modules it holds), and turns its decisions into chrome.*
//! calls and messages to the host.
//!
//! Its modules form layers; each uses only those below it (a tidy test
//! keeps it so):
//!
//! 1. [`cells`] (what the worker keeps), [`listen`] (adding listeners),
//!    [`cdp`] (sending a command to a tab).
//! 2. [`port`] (the native port: open, post, reopen) and [`session`] (a
//!    tab's debugger session: attach, enable, detach).
//! 3. [`held_input`] (releases of held input the daemon cannot send),
//!    [`toolbar`] (each shared tab's badge), then [`announce`] (performs
//!    the machine's effects, and brings the badges up to date; the shared
//!    list).
//! 4. [`share`] (share, unshare, restore after a restart), then
//!    [`agent_tabs`] (`createTab`, `closeTab`), [`group_moves`] (tabs moved
//!    into or out of the `cotab` group, or opened by a shared page) and
//!    [`developer_mode`] (the switch, and what turning it off undoes).
//! 5. The listeners and the host's requests: [`takeover`] (the person
//!    takes control back, from the popup or the keyboard),
//!    [`browser_events`] (debugger and tab events, renderer crashes),
//!    [`commands`] (one handler per host command; an element aim is
//!    [`aim`]'s), [`popup_api`] (requests
//!    from the popup), [`lifecycle`] (why the worker started, the wake-up
//!    alarm, the test-only detach hook) and [`link`] (what the host's
//!    messages do, and what follows a hello or a drop).
//!
//! Nothing here is shared with the popup page, which talks to the worker
//! through `chrome.runtime.sendMessage` and `chrome.storage.local` only.

mod agent_tabs;
mod aim;
mod announce;
mod browser_events;
mod cdp;
mod cells;
mod commands;
mod developer_mode;
mod group_moves;
mod handover;
mod held_input;
mod lifecycle;
mod link;
mod listen;
mod opened;
mod popup_api;
mod port;
mod scan;
mod session;
mod share;
mod takeover;
mod toolbar;

use crate::log;
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;

/// Starts the worker. Every listener is registered before this returns:
/// MV3 delivers the event that woke the worker only to listeners added in
/// the script's first turn.
pub(crate) fn start() {
    let worker = Rc::new(cells::Worker::new());
    lifecycle::register(&worker);
    browser_events::register(&worker);
    opened::register(&worker);
    popup_api::register(&worker);
    takeover::register(&worker);
    developer_mode::register(&worker);
    toolbar::register();
    crate::trace::expose();
    spawn_local(share::restore(worker.clone()));
    spawn_local(link::connect(worker));
    log::info("worker started");
}
