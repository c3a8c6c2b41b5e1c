//! `video.start`, `video.chapter`, `video.stop`: a WebM video of the
//! selected tab ([`crate::video`]), kept under the daemon's state
//! directory. Starting one reads the tab as a capture does (no lease); it
//! runs until the session stops it or ends, or the tab goes.

use super::{invalid_params, wire, Cx};
use crate::broker::Need;
use crate::video::{Owner, StartError};
use cotab_shared::cdp::StopScreencast;
use cotab_shared::controller::{
    RpcError, VideoChapterParams, VideoChapterResult, VideoStartParams, VideoStartResult,
    VideoStopResult, DEFAULT_VIDEO_FPS, DEFAULT_VIDEO_SIZE, MAX_CHAPTER_TITLE, MAX_VIDEO_FPS,
    MAX_VIDEO_SIDE, MIN_VIDEO_SIDE,
};
use cotab_shared::native::CommandClass;
use cotab_shared::ErrorKind;

/// `video.start`.
pub(super) async fn start(cx: &Cx<'_>, p: VideoStartParams) -> Result<VideoStartResult, RpcError> {
    let size = p.size.unwrap_or(DEFAULT_VIDEO_SIZE);
    let sides = MIN_VIDEO_SIDE..=MAX_VIDEO_SIDE;
    if !sides.contains(&size.width) || !sides.contains(&size.height) {
        return Err(invalid_params(format!(
            "invalid params: `params.size` sides must be {MIN_VIDEO_SIDE} to {MAX_VIDEO_SIDE}"
        )));
    }
    let fps = p.fps.unwrap_or(DEFAULT_VIDEO_FPS);
    if !(1..=MAX_VIDEO_FPS).contains(&fps) {
        return Err(invalid_params(format!(
            "invalid params: `params.fps` must be 1 to {MAX_VIDEO_FPS}"
        )));
    }
    let fence = cx.fence(Need::Observe)?;
    let owner = Owner::Agent(fence.session);
    let path = cx
        .shell
        .videos
        .start(fence.tab, owner, size, fps)
        .map_err(|e| match e {
            StartError::Busy => wire(
                ErrorKind::Busy,
                format!("tab {} is being recorded already", fence.tab),
            ),
            StartError::NoDirectory => wire(
                ErrorKind::CommandFailed,
                "the daemon has no state directory to keep a video in",
            ),
            StartError::File(why) => wire(
                ErrorKind::CommandFailed,
                format!("the video's file could not be made: {why}"),
            ),
        })?;
    // The browser runs one screencast a tab: the keep-alive one stops.
    let started = match cx
        .send(&fence, &StopScreencast {}, CommandClass::Observe)
        .await
    {
        Ok(_) => {
            cx.send(
                &fence,
                &crate::video::screencast(size),
                CommandClass::Observe,
            )
            .await
        }
        Err(e) => Err(e),
    };
    if let Err(e) = started {
        cx.shell
            .end_video(fence.tab, Some("its screencast did not start"));
        drop(cx.shell.videos.ended(owner).await);
        return Err(e);
    }
    cx.shell.on_videos_changed();
    Ok(VideoStartResult {
        tab_id: fence.tab,
        path: path.display().to_string(),
    })
}

/// `video.chapter`.
pub(super) fn chapter(cx: &Cx<'_>, p: VideoChapterParams) -> Result<VideoChapterResult, RpcError> {
    let title = one_line(&p.title);
    if title.is_empty() || title.chars().count() > MAX_CHAPTER_TITLE {
        return Err(invalid_params(format!(
            "invalid params: `params.title` must be 1 to {MAX_CHAPTER_TITLE} characters"
        )));
    }
    let title = match p.description.as_deref().map(one_line) {
        Some(d) if !d.is_empty() => format!("{title} — {}", crate::activity::short(&d, 400)),
        _ => title,
    };
    let owner = Owner::Agent(cx.sid()?);
    let videos = cx.shell.videos.chapter(owner, &title);
    if videos == 0 {
        return Err(wire(
            ErrorKind::InvalidRequest,
            "no video of this session is being recorded: start one with video.start",
        ));
    }
    Ok(VideoChapterResult { videos })
}

/// `video.stop`.
pub(super) async fn stop(cx: &Cx<'_>) -> Result<VideoStopResult, RpcError> {
    let owner = Owner::Agent(cx.sid()?);
    let tabs = cx.shell.videos.tabs_of(owner);
    for &tab in &tabs {
        cx.shell.end_video(tab, None);
    }
    if !tabs.is_empty() {
        cx.shell.on_videos_changed();
    }
    Ok(VideoStopResult {
        videos: cx.shell.videos.ended(owner).await,
    })
}

/// `s` on one line: what would move or hide the text around it
/// ([`crate::validate::unshowable`]) made spaces, trimmed.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| {
            if crate::validate::unshowable(c) {
                ' '
            } else {
                c
            }
        })
        .collect::<String>()
        .trim()
        .to_owned()
}
