//! Newtype identifiers used on the wire.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A browser tab id as `chrome.tabs` reports it. It is not a CDP target id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TabId(pub i32);

impl fmt::Display for TabId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Identity of one browser profile's extension instance (a lane). The
/// extension keeps it in `chrome.storage.local`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LaneId(pub String);

/// An agent's session credential: at least 128 random bits, base64url.
///
/// `Debug` never prints the value so a ticket cannot leak into logs.
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Ticket(pub String);

impl fmt::Debug for Ticket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Ticket(…)")
    }
}

/// A JSON-RPC request id: a number or a string, echoed back unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// A numeric id.
    Number(i64),
    /// A string id.
    String(String),
    /// `"id": null`: JSON-RPC 2.0 discourages it but still makes it a
    /// request (a notification has no `id` member at all), answered with
    /// `"id": null`.
    Null,
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}
