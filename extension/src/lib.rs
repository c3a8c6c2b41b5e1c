//! cotab's browser extension, compiled to WebAssembly: a Manifest V3 service
//! worker that shares tabs with the native host through `chrome.debugger`,
//! and the popup where the person chooses what to share.
//!
//! The JavaScript is a loader of a few lines (`extension/static/*.js`): it
//! instantiates a module synchronously from embedded bytes and calls
//! `worker_main` or `popup_main`. The crate is built twice, as two
//! modules: with feature `worker` for the service worker and with
//! `popup` for the popup page, so the worker, which starts often, compiles
//! none of the popup's code (both features are the default, for checks).
//! `cargo xtask build-extension` assembles `dist/extension/`.
//!
//! # Code map
//!
//! - [`machine`] (the worker's state machine: events in, [`effect`]s out)
//!   over [`state`], [`link_state`], [`control`], [`held`], [`page_state`],
//!   [`developer_switch`], [`tab_facts`], [`fronts`]; and [`messages`],
//!   [`badge`] (the toolbar badge of each tab),
//!   [`popup_model`]: target-independent logic (shared-set and
//!   human-control bookkeeping, backoff, event decisions, command-class
//!   rules, the in-flight registry, the held-input ledger, each tab's page
//!   — blocked or not — and its contexts, the developer-mode switch, each
//!   tab's crash, dialogs and opener, the front tabs, popup messages and
//!   rows), tested with plain `cargo test`; they name no browser API (a
//!   tidy test keeps it so). Which urls and raw CDP commands agents may
//!   reach is `cotab_shared::reach`.
//! - `chrome` (wasm32 only): thin `chrome.*` bindings, one module per
//!   namespace.
//! - `worker` (wasm32 only): the service worker, in layers — what it
//!   keeps, the native port and debugger sessions, held-input releases and
//!   what it announces, share/unshare/restore, then the listeners and the
//!   host's requests (native link, host commands with `createTab` and
//!   `closeTab`, tabs dragged into or out of the `cotab` group, human
//!   takeover and the keyboard command, developer mode, browser events,
//!   popup requests).
//! - `popup` (wasm32 only): the popup's DOM.
//!
//! **API Boundary:** the native host sees only `cotab_shared::native`
//! messages; the popup messages in [`messages`] never leave the extension.
//!
//! # Popup contract (used by the end-to-end tests)
//!
//! - `<p id="host-status" data-connected="true|false">` reads "Host
//!   connected" or "Host not connected"; while not connected after an
//!   error, `<p id="host-detail">` shows it and points at `cotab doctor`
//!   (else it is `hidden`); `<p id="error" role="alert">` shows
//!   the popup's last action error until the tab is where the action
//!   wanted it (shared, unshared, taken, handed back; the switch as
//!   asked), else the worker's `shareError` (why a tab dragged into the
//!   `cotab` group was refused and moved back out). `<p
//!   id="developer-warning" role="alert">` says developer mode is on while
//!   it is (else it is `hidden`). While the host is connected, `<p
//!   id="agents">` names the agents connected to the daemon ("Agents
//!   connected: ada ×2, cotab-mcp", or "No agent connected"). `<p
//!   id="pin-hint">` asks the person to pin cotab's icon while it is not
//!   on the toolbar (`chrome.action.getUserSettings`), else is `hidden`.
//! - One `<li data-tab-id="N" data-url="URL">` per tab of the popup's window,
//!   holding `<button data-tab-id="N" data-action="share">Share</button>`,
//!   or `data-action="unshare"` (Unshare) for a shared tab, or a disabled
//!   button without `data-action` and a `<span class="reason">` for a tab
//!   that cannot be shared.
//! - A shared tab's `<li>` also holds `<span class="url" data-tab-id="N">`
//!   with its url, and `<span class="controller"
//!   data-tab-id="N" data-controller="nobody|human|agent">` reading "No one
//!   has control", "You have control" or "Agent NAME has control", and
//!   `<button data-tab-id="N" data-action="take-control">Take
//!   control</button>` while the person does not control the tab, or
//!   `data-action="hand-back"` (Hand back) while they do.
//! - A shared tab whose page agents may not use also holds `<span
//!   class="suspended" data-tab-id="N">` reading "Agents paused: local
//!   file" (or extension page, browser page …).
//! - A tab cotab stopped sharing by itself (the browser took its debugger
//!   away: a browser page, the debugging bar cancelled) holds `<span
//!   class="unshared" data-tab-id="N">` reading "Unshared by cotab: …"
//!   until it is shared again or closed.
//! - `<input type="checkbox" id="developer-mode"
//!   data-action="developer-mode">`, labelled "Developer mode (lets agents
//!   run JavaScript and raw CDP)": checked when `developerMode` is `true` in
//!   `chrome.storage.local`; clicking it asks the worker, which writes that
//!   key. The worker refuses every request from a popup page in a shared
//!   tab with `{"ok": false, "error": …}`.

pub mod badge;
pub mod control;
pub mod developer_switch;
pub mod effect;
pub mod fronts;
pub mod held;
pub mod link_state;
pub mod machine;
pub mod messages;
pub mod opened;
pub mod page_state;
pub mod panel_model;
pub mod popup_model;
pub mod state;
pub mod tab_facts;

// The popup's module uses only some of the bindings and log helpers.
#[cfg(all(target_arch = "wasm32", any(feature = "worker", feature = "popup")))]
#[cfg_attr(not(feature = "worker"), allow(dead_code))]
mod chrome;
#[cfg(all(target_arch = "wasm32", any(feature = "worker", feature = "popup")))]
#[cfg_attr(not(feature = "worker"), allow(dead_code))]
mod log;
#[cfg(all(target_arch = "wasm32", feature = "popup"))]
mod popup;
#[cfg(all(target_arch = "wasm32", feature = "worker"))]
mod trace;
#[cfg(all(target_arch = "wasm32", feature = "worker"))]
mod worker;

/// Entry point of the service worker. Called synchronously by
/// `background.js` in the worker's first turn; registers every listener
/// before it returns.
#[cfg(all(target_arch = "wasm32", feature = "worker"))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn worker_main() {
    log::mark("rustStartMs");
    log::install_panic_hook();
    worker::start();
}

/// Entry point of the popup page, called by `popup.js`.
#[cfg(all(target_arch = "wasm32", feature = "popup"))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn popup_main() {
    log::install_panic_hook();
    if let Err(e) = popup::start() {
        log::error(&format!(
            "the popup could not start: {}",
            chrome::error_message(&e)
        ));
    }
}
