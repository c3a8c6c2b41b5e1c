//! `Page.startScreencast` and its frames: the keep-alive screencast every
//! session runs ([`StartScreencast::KEEP_ALIVE`]) and the one a video of
//! the tab runs in its place.

use super::{CdpCommand, CdpEvent, Done};
use serde::{Deserialize, Serialize};

/// `Page.startScreencast`: frames of the tab as the browser draws them,
/// each sent once the one before it was acknowledged.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StartScreencast {
    /// `jpeg` or `png`.
    pub format: &'static str,
    /// JPEG quality, 0 to 100.
    pub quality: u8,
    /// The largest width of a frame, in pixels.
    pub max_width: u32,
    /// The largest height of a frame, in pixels.
    pub max_height: u32,
    /// Every how many of the browser's frames one is sent.
    pub every_nth_frame: u32,
}
command!(StartScreencast, "Page.startScreencast", Done);

impl StartScreencast {
    /// What every session of cotab's runs from its attach
    /// ([`super::ENABLED_CDP_DOMAINS`]): one 8-pixel frame, never
    /// acknowledged, which keeps a tab behind the person's drawing.
    pub const KEEP_ALIVE: StartScreencast = StartScreencast {
        format: "jpeg",
        quality: 1,
        max_width: 8,
        max_height: 8,
        every_nth_frame: 1000,
    };
}

/// `Page.stopScreencast`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StopScreencast {}
command!(StopScreencast, "Page.stopScreencast", Done);

/// `Page.screencastFrameAck`: the frame `session_id` was taken, send the
/// next.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScreencastFrameAck {
    /// The frame's number, as its event gave it.
    pub session_id: i64,
}
command!(ScreencastFrameAck, "Page.screencastFrameAck", Done);

/// `Page.screencastFrame`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScreencastFrame {
    /// The frame, base64.
    #[serde(default)]
    pub data: String,
    /// Its number, to acknowledge it.
    #[serde(default)]
    pub session_id: i64,
}
event!(ScreencastFrame, "Page.screencastFrame");
