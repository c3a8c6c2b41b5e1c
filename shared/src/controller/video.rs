//! Params and results of the video methods (`video.start`, `video.chapter`,
//! `video.stop`): a WebM video of the selected tab's pixels, which the
//! daemon writes under its private state directory while the tab is
//! shared. Only the tab's page is in it, never another tab or the
//! browser's own UI; while the person controls the tab, or it shows a
//! blocked page, an agent's video keeps its last frame.

use crate::ids::TabId;
use serde::{Deserialize, Serialize};

/// The frames per second of a video when none is asked for.
pub const DEFAULT_VIDEO_FPS: u32 = 25;
/// The most frames per second a video takes.
pub const MAX_VIDEO_FPS: u32 = 30;
/// The box a video's frames are scaled into when no size is asked for
/// (the page's aspect kept).
pub const DEFAULT_VIDEO_SIZE: VideoSize = VideoSize {
    width: 1280,
    height: 800,
};
/// The largest box a video's frames may be scaled into.
pub const MAX_VIDEO_SIDE: u32 = 1920;
/// The smallest.
pub const MIN_VIDEO_SIDE: u32 = 64;
/// The longest chapter title, in characters.
pub const MAX_CHAPTER_TITLE: usize = 200;

/// A width and a height in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VideoSize {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

/// Params of `video.start`: records the selected tab.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct VideoStartParams {
    /// The box frames are scaled into, each side [`MIN_VIDEO_SIDE`] to
    /// [`MAX_VIDEO_SIDE`] ([`DEFAULT_VIDEO_SIZE`] when absent); a frame
    /// is never scaled up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<VideoSize>,
    /// The most frames per second, 1 to [`MAX_VIDEO_FPS`]
    /// ([`DEFAULT_VIDEO_FPS`] when absent). A page that does not change
    /// sends no frames: its last one lasts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fps: Option<u32>,
}

/// Result of `video.start`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VideoStartResult {
    /// The tab recorded.
    pub tab_id: TabId,
    /// The file it is written to.
    pub path: String,
}

/// Params of `video.chapter`: marks the present moment in every video
/// the session records.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct VideoChapterParams {
    /// The chapter's title, 1 to [`MAX_CHAPTER_TITLE`] characters.
    pub title: String,
    /// More about it (kept after the title).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Result of `video.chapter`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VideoChapterResult {
    /// The videos marked.
    pub videos: u32,
}

/// Result of `video.stop`: every video the session recorded, ended.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VideoStopResult {
    /// The videos, one per tab.
    pub videos: Vec<Video>,
}

/// One finished video.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Video {
    /// The tab recorded.
    pub tab_id: TabId,
    /// The WebM file; none when no frame came (nothing was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Its length, milliseconds.
    pub duration_ms: u64,
    /// Frames in it.
    pub frames: u64,
    /// Its size in bytes.
    pub bytes: u64,
    /// Why it ended before it was stopped, or why nothing was kept (the
    /// disk full, the tab unshared or closed, the browser gone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
}
