//! The cotab protocol crate: every wire type of both links, the error kinds,
//! the limits and the protocol version.
//!
//! Two links carry cotab's messages:
//!
//! - [`controller`]: agent ↔ daemon, JSON-RPC 2.0, one object per line.
//! - [`native`]: daemon ↔ extension, the browser's native-messaging framing
//!   (4-byte native-endian length + UTF-8 JSON), relayed by `cotab-host`.
//!
//! This crate does no I/O and builds for native targets and `wasm32`. It is
//! the only crate that knows the JSON shapes: the host and the extension
//! exchange typed values from here and never build JSON by hand.

#[cfg(test)]
mod arbitrary;
pub mod cdp;
pub mod controller;
pub mod error;
pub mod geometry;
pub mod held;
pub mod ids;
pub mod input;
pub mod limits;
pub mod native;
pub mod reach;
pub mod tab;
pub mod tagged;
pub mod watch;

pub use error::{ErrorKind, WireError};
pub use ids::{LaneId, RequestId, TabId, Ticket};

/// Version of the controller protocol (agent ↔ daemon). An agent that
/// speaks another version is refused with [`ErrorKind::ProtocolVersion`].
pub const PROTOCOL_VERSION: u32 = 1;

/// Version of the native link (daemon ↔ extension, [`native`]), said in
/// the extension's hello and the daemon's welcome; each side closes a link
/// that speaks another. 2: a `cdp` command may carry a follow-up
/// (a redaction scan), which an extension of version 1 would ignore.
/// 3: a `cdp` command may carry the viewport it expects (`ifViewport`),
/// which an extension of version 2 would ignore. 4: the `input` command
/// (`native::Command::Input`), a click in one trip. 5: a shared tab may
/// be reported suspended on a blocked target (`native::TabInfo::blocked`),
/// which the daemon must enforce and an extension of version 4 never
/// reports. 6: a settled `input` command goes through the page after its
/// events (`settle`), so the daemon makes no trip
/// of its own; an extension of version 5 would skip it. 7: the
/// `forwardEvents` command and tabs' `targetId`. 8: the
/// operations are named by what they do (`observe`, `act`, `actInFrame`,
/// `release`, `developer`, `input`) instead of one `cdp` command with a
/// class and modifiers.
pub const NATIVE_PROTOCOL_VERSION: u32 = 8;

/// Name under which the native host is registered with the browser.
pub const NATIVE_HOST_NAME: &str = "dev.cotab.host";

/// The extension id fixed by the `key` in `manifest.json`.
pub const EXTENSION_ID: &str = "njcapokbkdmpnkpmgflbgjlehbglmgck";

/// Title of the tab group that holds the shared tabs, while nobody
/// controls them; while someone does, who it is comes first, then
/// [`TAB_GROUP_SEPARATOR`] and this (`ada working · cotab`): the browser
/// cuts a long group title short, and who is what the person looks for.
pub const TAB_GROUP_TITLE: &str = "cotab";

/// What separates who controls a group's tabs from its title.
pub const TAB_GROUP_SEPARATOR: &str = " · ";

/// Whether `title` is a `cotab` group's: [`TAB_GROUP_TITLE`], alone or
/// after who controls its tabs.
pub fn is_tab_group_title(title: &str) -> bool {
    match title.strip_suffix(TAB_GROUP_TITLE) {
        Some(rest) => rest.is_empty() || rest.ends_with(TAB_GROUP_SEPARATOR),
        None => false,
    }
}

/// The origin the browser passes to the native host, for an extension id.
pub fn extension_origin(extension_id: &str) -> String {
    format!("chrome-extension://{extension_id}/")
}
