//! `browser_start_video`, `browser_video_chapter`, `browser_stop_video`
//! (`--caps devtools`), with Playwright MCP's names and arguments: the
//! daemon records the current tab (`video.start`), marks chapters in the
//! file, and on stop this server copies each finished WebM file to
//! `filename` in the workspace (or the output directory), as the other
//! tools that write files do ([`crate::files`]).

use super::bridge::Bridge;
use super::files::generated_name;
use super::outcome::{ToolFailure, ToolOutput};
use cotab_shared::controller::{
    Empty, VideoChapter, VideoChapterParams, VideoSize, VideoStart, VideoStartParams, VideoStop,
};
use cotab_shared::ErrorKind;
use schemars::JsonSchema;
use serde::Deserialize;

/// A video's size.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct VideoSizeArg {
    /// Video width
    width: u32,
    /// Video height
    height: u32,
}

/// Arguments of `browser_start_video`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct StartVideoArgs {
    /// File name to save the video to, inside the workspace root. If not
    /// specified, the video is saved into the output directory as
    /// `page-{timestamp}.webm`.
    filename: Option<String>,
    /// Video size: the box the tab's frames are scaled into, each side 64
    /// to 1920 (1280x800 by default).
    size: Option<VideoSizeArg>,
    /// Video frame rate in frames per second, 1 to 30, defaults to 25.
    fps: Option<u32>,
    /// Accepted for Playwright MCP's callers: what the agent aims at is
    /// drawn in the tab as the person chose in cotab's side panel, and the
    /// video shows it as they see it.
    cursor: Option<bool>,
}

/// Arguments of `browser_video_chapter`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ChapterArgs {
    /// Chapter title
    title: String,
    /// Chapter description
    description: Option<String>,
    /// Accepted for Playwright MCP's callers: the chapter is a marker in
    /// the file, no card is drawn over the page.
    duration: Option<f64>,
}

impl Bridge {
    pub(super) async fn start_video(
        &mut self,
        a: StartVideoArgs,
    ) -> Result<ToolOutput, ToolFailure> {
        let params = VideoStartParams {
            size: a.size.map(|s| VideoSize {
                width: s.width,
                height: s.height,
            }),
            fps: a.fps,
        };
        let r = self.observe::<VideoStart>(&params).await?;
        self.video_names.push((r.tab_id, a.filename));
        Ok(ToolOutput::text(format!(
            "### Result\nVideo recording of tab {} started: end it with browser_stop_video.",
            r.tab_id
        )))
    }

    pub(super) async fn video_chapter(
        &mut self,
        a: ChapterArgs,
    ) -> Result<ToolOutput, ToolFailure> {
        let params = VideoChapterParams {
            title: a.title,
            description: a.description,
        };
        self.observe::<VideoChapter>(&params).await?;
        Ok(ToolOutput::text(format!(
            "### Result\nChapter '{}' added.",
            params.title
        )))
    }

    pub(super) async fn stop_video(
        &mut self,
        _: super::args::NoArgs,
    ) -> Result<ToolOutput, ToolFailure> {
        let r = self.observe::<VideoStop>(&Empty {}).await?;
        let names = std::mem::take(&mut self.video_names);
        if r.videos.is_empty() {
            return Ok(ToolOutput::text(
                "### Result\nNo videos were recorded.".to_owned(),
            ));
        }
        let mut lines = vec!["### Result".to_owned()];
        for video in r.videos {
            let name = names
                .iter()
                .find(|(tab, _)| *tab == video.tab_id)
                .and_then(|(_, name)| name.clone());
            let ended = video
                .ended
                .as_deref()
                .map(|why| format!(" (ended early: {why})"))
                .unwrap_or_default();
            let Some(path) = video.path else {
                lines.push(format!("- Tab {}: no video{ended}", video.tab_id));
                continue;
            };
            let bytes = tokio::fs::read(&path).await.map_err(|e| {
                ToolFailure::new(
                    ErrorKind::CommandFailed,
                    format!("the video could not be read: {e}"),
                )
            })?;
            let shown = self
                .files
                .save(name.as_deref(), generated_name("webm"), bytes)
                .await?;
            lines.push(format!(
                "- [Video of tab {}]({shown}) ({:.1} s, {} frames){ended}",
                video.tab_id,
                video.duration_ms as f64 / 1000.0,
                video.frames
            ));
        }
        Ok(ToolOutput::text(lines.join("\n")))
    }
}
