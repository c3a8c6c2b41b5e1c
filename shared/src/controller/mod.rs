//! The controller link: agent ↔ daemon, JSON-RPC 2.0, one JSON object per
//! line, protocol version [`crate::PROTOCOL_VERSION`].
//!
//! Decoding happens in two steps so every failure gets the right JSON-RPC
//! error: [`decode_line`] turns a line into an [`Envelope`] (parse error or
//! invalid request), then [`Call::parse`] turns method + params into a typed
//! [`Call`] (method not found or invalid params). Error messages name fields
//! but never echo submitted values.
//!
//! Each method is a type implementing [`Method`], which ties its name to its
//! params and result types; clients use it to type their responses.
//!
//! Modules: `envelope` (the JSON-RPC envelope, the error codes and
//! object, the [`Method`] trait), `methods` (the method list and
//! [`Call`]), the params and results by family (`control`: sessions,
//! status, tabs, control; `page`: navigation, captures, snapshots, waits,
//! dialogs, console, developer mode; `emulation`: viewport, media and
//! PDF; `network`: a tab's requests; `actions`: input and element actions; `video`: a tab's video), and `notifications`. Everything is re-exported here:
//! `cotab_shared::controller::X` is the one path.

mod actions;
mod control;
mod emulation;
mod envelope;
mod methods;
mod network;
mod notifications;
mod page;
#[cfg(test)]
mod tests;
mod video;

pub use self::actions::*;
pub use self::control::*;
pub use self::emulation::*;
pub use self::envelope::*;
pub use self::methods::*;
pub use self::network::*;
pub use self::notifications::*;
pub use self::page::*;
pub use self::video::*;
