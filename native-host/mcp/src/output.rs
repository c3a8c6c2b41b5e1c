//! The tools whose answer may be a file: `browser_take_screenshot`,
//! `browser_snapshot` and `browser_pdf_save` (`--caps pdf`). Where the
//! files go, and which names are refused, is [`super::files`]'s.
//!
//! As Playwright MCP's: a screenshot is saved (to `filename`, else to the
//! output directory) and, without a `filename`, also returned as an image;
//! a snapshot with a `filename` is saved instead of returned; a PDF is
//! always saved. Each answer links the file it wrote.

use super::answers::page_state;
use super::args::{ImageType, PdfArgs, ScaleArg, ScreenshotArgs, SnapshotArgs};
use super::bridge::Bridge;
use super::files::generated_name;
use super::outcome::{ToolFailure, ToolOutput};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use cotab_core::outline;
use cotab_shared::controller::{
    Capture, CaptureParams, CaptureResult, ImageFormat, Pdf, PdfParams, Ref, Snapshot,
    SnapshotParams,
};
use cotab_shared::limits::DEFAULT_SNAPSHOT_CHARS;
use cotab_shared::ErrorKind;

impl Bridge {
    pub(super) async fn screenshot(
        &mut self,
        a: ScreenshotArgs,
    ) -> Result<ToolOutput, ToolFailure> {
        let kind = a
            .kind
            .or_else(|| a.filename.as_deref().and_then(type_of_name))
            .unwrap_or(ImageType::Png);
        let (format, ext) = match kind {
            ImageType::Png => (ImageFormat::Png, "png"),
            ImageType::Jpeg => (ImageFormat::Jpeg, "jpeg"),
        };
        if a.full_page && a.target.is_some() {
            return Err(ToolFailure::invalid(
                "fullPage cannot be used with element screenshots",
            ));
        }
        let what = match (&a.element, &a.target) {
            (Some(e), Some(_)) => e.clone(),
            (None, Some(_)) => "element".into(),
            (Some(_), None) => {
                return Err(ToolFailure::invalid(
                    "`element` needs the element's `target` ref from browser_snapshot",
                ))
            }
            (None, None) if a.full_page => "full page".into(),
            (None, None) => "viewport".into(),
        };
        let params = CaptureParams {
            format,
            quality: (format == ImageFormat::Jpeg).then_some(90),
            clip: a.target.map(Ref),
            full_page: a.full_page,
            ..CaptureParams::default()
        };
        let mut r = self.observe::<Capture>(&params).await?;
        // CSS pixels: a high-density screen's capture is taken again, as
        // wide as the page's CSS pixels.
        if a.scale == ScaleArg::Css && r.device_pixel_ratio > 1.0 {
            let css_width = (f64::from(r.width) / r.device_pixel_ratio).round().max(1.0);
            r = self
                .observe::<Capture>(&CaptureParams {
                    max_width: Some(css_width as u32),
                    ..params
                })
                .await?;
        }
        let data = image_data(&r)?;
        let bytes = STANDARD.decode(data.as_bytes()).map_err(|_| {
            ToolFailure::new(ErrorKind::CommandFailed, "the capture is not valid base64")
        })?;
        let prefix = if a.filename.is_none() && what == "element" {
            "element"
        } else {
            "page"
        };
        let generated = generated_name(ext).replacen("page", prefix, 1);
        let saved = self
            .files
            .save(a.filename.as_deref(), generated, bytes)
            .await;
        let size = format!("({}x{} {})", r.width, r.height, r.format.as_str());
        let text = match saved {
            Ok(shown) => format!("### Result\n- [Screenshot of {what}]({shown}) {size}"),
            // A named file must be written; without a name, the image is
            // the answer and the file a copy.
            Err(e) if a.filename.is_some() => return Err(e),
            Err(e) => format!("### Result\nScreenshot of {what} {size} (not saved: {e})"),
        };
        let mime = match r.format {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
        };
        Ok(ToolOutput {
            text,
            image: a.filename.is_none().then(|| (data.to_string(), mime)),
        })
    }

    pub(super) async fn snapshot(&mut self, a: SnapshotArgs) -> Result<ToolOutput, ToolFailure> {
        let params = SnapshotParams {
            root: a.target.map(Ref),
            // Playwright reads a depth of 0 as no limit.
            depth: a.depth.filter(|d| *d > 0),
            boxes: a.boxes,
            ..SnapshotParams::default()
        };
        let whole = params.root.is_none() && params.depth.is_none() && !params.boxes;
        let Some(name) = a.filename else {
            if !whole {
                let s = self.observe::<Snapshot>(&params).await?;
                return Ok(ToolOutput::text(page_state(&s, self.dialog.as_ref())));
            }
            // All of it is what the next answer's changes are of; the
            // model is shown it cut at the snapshot limit.
            let mut s = self.observe::<Snapshot>(&self.whole_outline()).await?;
            self.shown_whole(&s);
            if let Some(cut) = outline::cut(&s.text, DEFAULT_SNAPSHOT_CHARS) {
                (s.text, s.truncated) = (cut, true);
            }
            return Ok(ToolOutput::text(page_state(&s, self.dialog.as_ref())));
        };
        let s = self.observe::<Snapshot>(&params).await?;
        let mut yaml = s.text.trim_end().to_string();
        yaml.push('\n');
        let shown = self
            .files
            .save(Some(&name), String::new(), yaml.into_bytes())
            .await?;
        Ok(ToolOutput::text(format!(
            "### Page\n- Page URL: {}\n- Page Title: {}\n### Snapshot\n- [Snapshot]({shown})\n",
            s.url, s.title
        )))
    }

    pub(super) async fn pdf_save(&mut self, a: PdfArgs) -> Result<ToolOutput, ToolFailure> {
        let r = self.observe::<Pdf>(&PdfParams {}).await?;
        let bytes = STANDARD.decode(r.data.as_bytes()).map_err(|_| {
            ToolFailure::new(ErrorKind::CommandFailed, "the PDF is not valid base64")
        })?;
        let size = bytes.len();
        let shown = self
            .files
            .save(a.filename.as_deref(), generated_name("pdf"), bytes)
            .await?;
        Ok(ToolOutput::text(format!(
            "### Result\n- [Page as pdf]({shown}) ({size} bytes)"
        )))
    }
}

impl Bridge {
    /// `body` as the answer (under `### {heading}`), or saved to
    /// `filename` in the workspace and linked.
    pub(super) async fn saved_or_text(
        &mut self,
        filename: Option<String>,
        heading: Option<&str>,
        body: String,
    ) -> Result<ToolOutput, ToolFailure> {
        let Some(name) = filename else {
            return Ok(ToolOutput::text(match heading {
                Some(h) => format!("### {h}\n{body}"),
                None => body,
            }));
        };
        let mut bytes = body.into_bytes();
        bytes.push(b'\n');
        let shown = self.files.save(Some(&name), String::new(), bytes).await?;
        Ok(ToolOutput::text(format!("### Result\n- [Saved]({shown})")))
    }
}

fn image_data(r: &CaptureResult) -> Result<&str, ToolFailure> {
    r.data.as_deref().ok_or_else(|| {
        ToolFailure::new(
            ErrorKind::CommandFailed,
            "the capture came back without image data",
        )
    })
}

/// The image type a file name's extension names.
fn type_of_name(name: &str) -> Option<ImageType> {
    let ext = std::path::Path::new(name).extension()?.to_str()?;
    match ext.to_ascii_lowercase().as_str() {
        "png" => Some(ImageType::Png),
        "jpg" | "jpeg" => Some(ImageType::Jpeg),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_names_extension_names_the_image_type() {
        assert_eq!(type_of_name("a.png"), Some(ImageType::Png));
        assert_eq!(type_of_name("shots/a.JPG"), Some(ImageType::Jpeg));
        assert_eq!(type_of_name("a.jpeg"), Some(ImageType::Jpeg));
        assert_eq!(type_of_name("a.webp"), None);
        assert_eq!(type_of_name("a"), None);
    }
}
