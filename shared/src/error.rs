//! Error kinds shared by both links (DESIGN §3).

use serde::{Deserialize, Serialize};
use std::fmt;

/// The stable, machine-readable kind of an error, carried in
/// `error.data.kind` on the controller link and in `error.kind` on the
/// native link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The request is malformed, names an unknown method or has bad params.
    InvalidRequest,
    /// No session, or the ticket is unknown, expired or revoked.
    AuthenticationFailed,
    /// The tab is not shared with agents (or does not exist).
    TabNotShared,
    /// The agent's tab selection moved while the action ran.
    TabChanged,
    /// The frame the coordinates refer to is no longer what the page shows.
    StaleFrame,
    /// The page is not in the state the action said it expected.
    StateChanged,
    /// The person holds control of the tab.
    HumanHasControl,
    /// The agent does not hold the control lease this action needs.
    NoControl,
    /// The call needs developer mode, which is off.
    DeveloperModeOff,
    /// The url or page is one agents may never reach.
    BlockedTarget,
    /// Too many requests in flight; retry later.
    Busy,
    /// The command's deadline passed.
    Timeout,
    /// The transport dropped after the command was sent: it may or may not
    /// have run.
    UnknownOutcome,
    /// The browser lane went away and did not come back before the deadline.
    RuntimeLost,
    /// No browser lane has ever connected.
    LaneAbsent,
    /// The peer speaks another protocol version.
    ProtocolVersion,
    /// The browser refused or failed the command it was given.
    CommandFailed,
    /// The element ref is not from the tab's latest snapshot (a newer
    /// snapshot or a navigation replaced it, or the element is gone).
    StaleRef,
    /// The element cannot be acted on: hidden, zero-size, or covered by
    /// another element at its visible centre.
    NotInteractable,
    /// A JavaScript dialog (alert, confirm, prompt, beforeunload) is open on
    /// the tab; answer it with `page.dialog` first.
    DialogOpen,
    /// The file is not under a directory the person allowed for uploads.
    PathNotAllowed,
    /// The page or url is on a site outside those the tab is shared for
    /// (the person chooses them per share).
    SiteNotAllowed,
    /// The person was asked to approve the request and said no, or did
    /// not answer in time: nothing of it reached the page.
    DeniedByPerson,
}

impl ErrorKind {
    /// The wire name, e.g. `TAB_NOT_SHARED`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidRequest => "INVALID_REQUEST",
            ErrorKind::AuthenticationFailed => "AUTHENTICATION_FAILED",
            ErrorKind::TabNotShared => "TAB_NOT_SHARED",
            ErrorKind::TabChanged => "TAB_CHANGED",
            ErrorKind::StaleFrame => "STALE_FRAME",
            ErrorKind::StateChanged => "STATE_CHANGED",
            ErrorKind::HumanHasControl => "HUMAN_HAS_CONTROL",
            ErrorKind::NoControl => "NO_CONTROL",
            ErrorKind::DeveloperModeOff => "DEVELOPER_MODE_OFF",
            ErrorKind::BlockedTarget => "BLOCKED_TARGET",
            ErrorKind::Busy => "BUSY",
            ErrorKind::Timeout => "TIMEOUT",
            ErrorKind::UnknownOutcome => "UNKNOWN_OUTCOME",
            ErrorKind::RuntimeLost => "RUNTIME_LOST",
            ErrorKind::LaneAbsent => "LANE_ABSENT",
            ErrorKind::ProtocolVersion => "PROTOCOL_VERSION",
            ErrorKind::CommandFailed => "COMMAND_FAILED",
            ErrorKind::StaleRef => "STALE_REF",
            ErrorKind::NotInteractable => "NOT_INTERACTABLE",
            ErrorKind::DialogOpen => "DIALOG_OPEN",
            ErrorKind::PathNotAllowed => "PATH_NOT_ALLOWED",
            ErrorKind::SiteNotAllowed => "SITE_NOT_ALLOWED",
            ErrorKind::DeniedByPerson => "DENIED_BY_PERSON",
        }
    }
}

/// Written as its wire name ([`ErrorKind::as_str`]): one table of names
/// for writing, where the derived code would spell each out again.
impl Serialize for ErrorKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A typed error as it crosses either link: a kind and a human-readable
/// message that never echoes submitted values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct WireError {
    /// The machine-readable kind.
    pub kind: ErrorKind,
    /// What went wrong, for a person.
    pub message: String,
}

impl WireError {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        WireError {
            kind,
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_match_serde() {
        for kind in [
            ErrorKind::InvalidRequest,
            ErrorKind::AuthenticationFailed,
            ErrorKind::TabNotShared,
            ErrorKind::TabChanged,
            ErrorKind::StaleFrame,
            ErrorKind::StateChanged,
            ErrorKind::HumanHasControl,
            ErrorKind::NoControl,
            ErrorKind::DeveloperModeOff,
            ErrorKind::BlockedTarget,
            ErrorKind::Busy,
            ErrorKind::Timeout,
            ErrorKind::UnknownOutcome,
            ErrorKind::RuntimeLost,
            ErrorKind::LaneAbsent,
            ErrorKind::ProtocolVersion,
            ErrorKind::CommandFailed,
            ErrorKind::StaleRef,
            ErrorKind::NotInteractable,
            ErrorKind::DialogOpen,
            ErrorKind::PathNotAllowed,
            ErrorKind::SiteNotAllowed,
            ErrorKind::DeniedByPerson,
        ] {
            let json = serde_json::to_value(kind).expect("serialises");
            assert_eq!(json, serde_json::Value::String(kind.as_str().into()));
            // The derived reading takes the names the hand-written writing gives.
            let back: ErrorKind = serde_json::from_value(json).expect("reads back");
            assert_eq!(back, kind);
        }
    }
}
