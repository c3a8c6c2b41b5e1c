//! `Page`: the viewport, captures, navigation and history, frames,
//! lifecycle events and JavaScript dialogs; the emulated viewport and
//! media (`Emulation`) and printing.

use super::{CdpCommand, CdpEvent, Done};
use crate::geometry::FrameGeometry;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `Page.getLayoutMetrics`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct GetLayoutMetrics {}
command!(GetLayoutMetrics, "Page.getLayoutMetrics", LayoutMetrics);

/// The part of a CDP `Page.getLayoutMetrics` result that cotab reads.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutMetrics {
    /// The layout viewport, in CSS pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub css_layout_viewport: Option<CssLayoutViewport>,
    /// The visual viewport, in CSS pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub css_visual_viewport: Option<CssViewport>,
}

/// A viewport of [`LayoutMetrics`]: its size and scroll offset.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CssViewport {
    /// Viewport width, CSS pixels.
    pub client_width: f64,
    /// Viewport height, CSS pixels.
    pub client_height: f64,
    /// Horizontal scroll offset.
    pub page_x: f64,
    /// Vertical scroll offset.
    pub page_y: f64,
}

/// The layout viewport of [`LayoutMetrics`]: its size and scroll offset
/// (the browser names its offset `pageX`/`pageY` here too).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CssLayoutViewport {
    /// Viewport width, CSS pixels.
    pub client_width: f64,
    /// Viewport height, CSS pixels.
    pub client_height: f64,
    /// Horizontal scroll offset.
    #[serde(default)]
    pub page_x: f64,
    /// Vertical scroll offset.
    #[serde(default)]
    pub page_y: f64,
}

impl LayoutMetrics {
    /// The live viewport in a `Page.getLayoutMetrics` result; `None` if
    /// it has none or is malformed.
    pub fn viewport_in(result: Value) -> Option<FrameGeometry> {
        serde_json::from_value::<LayoutMetrics>(result)
            .ok()
            .and_then(|m| m.geometry())
    }

    /// The live viewport as a frame's geometry; `None` if the browser
    /// sent none.
    pub fn geometry(&self) -> Option<FrameGeometry> {
        self.css_visual_viewport.map(|v| FrameGeometry {
            viewport_width: v.client_width,
            viewport_height: v.client_height,
            scroll_x: v.page_x,
            scroll_y: v.page_y,
        })
    }
}

/// `Page.captureScreenshot`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureScreenshot {
    /// `png` or `jpeg`.
    pub format: &'static str,
    /// JPEG quality, 0 to 100.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quality: Option<u8>,
    /// The region, in CSS pixels of the document, and its scale.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clip: Option<Viewport>,
    /// Capture the clip beyond the viewport (a whole page).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub capture_beyond_viewport: bool,
}
command!(CaptureScreenshot, "Page.captureScreenshot", Screenshot);

/// A region of a capture.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Viewport {
    /// Left, in document CSS pixels.
    pub x: f64,
    /// Top, in document CSS pixels.
    pub y: f64,
    /// Width, in CSS pixels.
    pub width: f64,
    /// Height, in CSS pixels.
    pub height: f64,
    /// Device pixels per CSS pixel in the image.
    pub scale: f64,
}

/// The result of [`CaptureScreenshot`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct Screenshot {
    /// The image, base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
}

/// `Page.navigate`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Navigate<'a> {
    /// Where to.
    pub url: &'a str,
}
command!(Navigate<'a>, "Page.navigate", Navigated);

/// The result of [`Navigate`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Navigated {
    /// The loader of the new document; none for a same-document
    /// navigation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loader_id: Option<String>,
    /// Why the navigation failed, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_text: Option<String>,
}

/// `Page.reload`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Reload {}
command!(Reload, "Page.reload", Done);

/// `Page.getNavigationHistory`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct GetNavigationHistory {}
command!(GetNavigationHistory, "Page.getNavigationHistory", History);

/// The result of [`GetNavigationHistory`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct History {
    /// The index of the current entry.
    #[serde(default)]
    pub current_index: i64,
    /// The entries, oldest first.
    #[serde(default)]
    pub entries: Vec<HistoryEntry>,
}

/// An entry of [`History`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct HistoryEntry {
    /// Its id, for [`NavigateToHistoryEntry`].
    #[serde(default)]
    pub id: Option<i64>,
    /// The url the entry shows.
    #[serde(default)]
    pub url: String,
}

/// `Page.navigateToHistoryEntry`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigateToHistoryEntry {
    /// The entry's id.
    pub entry_id: Option<i64>,
}
command!(NavigateToHistoryEntry, "Page.navigateToHistoryEntry", Done);

/// `Page.getFrameTree`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct GetFrameTree {}
command!(GetFrameTree, "Page.getFrameTree", FrameTreeResult);

/// The result of [`GetFrameTree`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameTreeResult {
    /// The tree, from the main frame.
    #[serde(default)]
    pub frame_tree: FrameNode,
}

/// A frame and the frames below it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameNode {
    /// This node's frame.
    #[serde(default)]
    pub frame: Frame,
    /// The frames inside it (iframes), none when empty.
    #[serde(default)]
    pub child_frames: Vec<FrameNode>,
}

impl FrameNode {
    /// The ids of the frames below this one, depth first.
    pub fn descendants(&self, out: &mut Vec<String>) {
        for child in &self.child_frames {
            out.push(child.frame.id.clone());
            child.descendants(out);
        }
    }
}

/// A frame of the tab.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Frame {
    /// CDP frame id.
    #[serde(default)]
    pub id: String,
    /// Its parent; none for the main frame.
    #[serde(default)]
    pub parent_id: Option<String>,
    /// The loader of its current document.
    #[serde(default)]
    pub loader_id: String,
    /// The url of its document (without the fragment).
    #[serde(default)]
    pub url: String,
}

/// `Page.setLifecycleEventsEnabled`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SetLifecycleEventsEnabled {
    /// On or off.
    pub enabled: bool,
}
command!(
    SetLifecycleEventsEnabled,
    "Page.setLifecycleEventsEnabled",
    Done
);

/// `Page.handleJavaScriptDialog`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HandleJavaScriptDialog {
    /// Accept (OK) or dismiss (Cancel).
    pub accept: bool,
    /// The text a prompt answers with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
}
command!(HandleJavaScriptDialog, "Page.handleJavaScriptDialog", Done);

/// `Page.frameNavigated`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct FrameNavigated {
    /// The frame and its new document.
    pub frame: Frame,
    /// `Navigation` or `BackForwardCacheRestore`.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
}
event!(FrameNavigated, "Page.frameNavigated");

/// `Page.frameRequestedNavigation`: the page asked for a navigation (a
/// link, a script, a form); it may still be cancelled.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameRequestedNavigation {
    /// The frame to navigate.
    #[serde(default)]
    pub frame_id: String,
    /// `currentTab`, `newTab`, `newWindow` or `download`.
    #[serde(default)]
    pub disposition: String,
    /// Where it goes.
    #[serde(default)]
    pub url: String,
}
event!(FrameRequestedNavigation, "Page.frameRequestedNavigation");

/// `Page.frameStartedNavigating`: the browser starts a navigation.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameStartedNavigating {
    /// The frame navigating.
    #[serde(default)]
    pub frame_id: String,
    /// `differentDocument`, `sameDocument`, `reload`,
    /// `historySameDocument`, …
    #[serde(default)]
    pub navigation_type: String,
}
event!(FrameStartedNavigating, "Page.frameStartedNavigating");

/// `Page.frameStoppedLoading`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameStoppedLoading {
    /// CDP frame id of the frame that stopped loading.
    #[serde(default)]
    pub frame_id: String,
}
event!(FrameStoppedLoading, "Page.frameStoppedLoading");

/// `Page.javascriptDialogOpening`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JavascriptDialogOpening {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// The dialog's message.
    #[serde(default)]
    pub message: String,
    /// A prompt's default answer.
    #[serde(default)]
    pub default_prompt: String,
}
event!(JavascriptDialogOpening, "Page.javascriptDialogOpening");

/// `Page.javascriptDialogClosed`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JavascriptDialogClosed {
    /// Whether it was accepted.
    #[serde(default)]
    pub result: bool,
}
event!(JavascriptDialogClosed, "Page.javascriptDialogClosed");

/// `Page.loadEventFired`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct LoadEventFired {}
event!(LoadEventFired, "Page.loadEventFired");

/// `Page.navigatedWithinDocument`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigatedWithinDocument {
    /// CDP frame id of the frame whose url changed within its document.
    #[serde(default)]
    pub frame_id: String,
}
event!(NavigatedWithinDocument, "Page.navigatedWithinDocument");

/// `Page.lifecycleEvent`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LifecycleEvent {
    /// CDP frame id of the frame the event is about.
    pub frame_id: String,
    /// The loader whose document reached it.
    #[serde(default)]
    pub loader_id: String,
    /// `init`, `load`, `networkIdle`, ….
    pub name: String,
}
event!(LifecycleEvent, "Page.lifecycleEvent");

/// `Emulation.setDeviceMetricsOverride`: the page's viewport, in CSS
/// pixels, without touching the window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetDeviceMetricsOverride {
    /// Width, CSS pixels.
    pub width: u32,
    /// Height, CSS pixels.
    pub height: u32,
    /// 0: the device's own ratio.
    pub device_scale_factor: f64,
    /// Not a phone.
    pub mobile: bool,
}
command!(
    SetDeviceMetricsOverride,
    "Emulation.setDeviceMetricsOverride",
    Done
);

/// `Emulation.clearDeviceMetricsOverride`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ClearDeviceMetricsOverride {}
command!(
    ClearDeviceMetricsOverride,
    "Emulation.clearDeviceMetricsOverride",
    Done
);

/// One CSS media feature of [`SetEmulatedMedia`]; an empty value clears
/// it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MediaFeature {
    /// The feature, e.g. `prefers-color-scheme`.
    pub name: &'static str,
    /// Its value, e.g. `dark`.
    pub value: &'static str,
}

/// `Emulation.setEmulatedMedia`: the media type (empty: not emulated)
/// and features.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetEmulatedMedia {
    /// `screen`, `print` or empty.
    pub media: &'static str,
    /// Every feature cotab emulates, cleared ones with an empty value.
    pub features: Vec<MediaFeature>,
}
command!(SetEmulatedMedia, "Emulation.setEmulatedMedia", Done);

/// The media features cotab emulates, in the order
/// [`SetEmulatedMedia::with`] takes their values.
pub const MEDIA_FEATURES: [&str; 4] = [
    "prefers-color-scheme",
    "prefers-reduced-motion",
    "forced-colors",
    "prefers-contrast",
];

impl SetEmulatedMedia {
    /// The media type (empty: not emulated) and a value for each of
    /// [`MEDIA_FEATURES`] (`None`: not emulated).
    pub fn with(media: &'static str, values: [Option<&'static str>; 4]) -> SetEmulatedMedia {
        SetEmulatedMedia {
            media,
            features: MEDIA_FEATURES
                .iter()
                .zip(values)
                .map(|(name, value)| MediaFeature {
                    name,
                    value: value.unwrap_or(""),
                })
                .collect(),
        }
    }

    /// Nothing emulated.
    pub fn none() -> SetEmulatedMedia {
        SetEmulatedMedia::with("", [None; 4])
    }
}

/// `Page.printToPDF`, with the browser's defaults.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PrintToPdf {}
command!(PrintToPdf, "Page.printToPDF", Printed);

/// The part of a `Page.printToPDF` result cotab reads.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Printed {
    /// The PDF, base64.
    pub data: String,
}

/// `Page.setInterceptFileChooserDialog`: while enabled, a file chooser the
/// page opens is not shown; `Page.fileChooserOpened` says it opened.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SetInterceptFileChooserDialog {
    /// Intercept (true) or show choosers again (false).
    pub enabled: bool,
}
command!(
    SetInterceptFileChooserDialog,
    "Page.setInterceptFileChooserDialog",
    Done
);

/// `Page.fileChooserOpened`: a file chooser was intercepted.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileChooserOpened {
    /// CDP frame id of the frame whose `<input type=file>` opened it.
    #[serde(default)]
    pub frame_id: String,
    /// `selectSingle` or `selectMultiple`.
    #[serde(default)]
    pub mode: String,
    /// The input's `backendNodeId` (absent when no input opened it).
    #[serde(default)]
    pub backend_node_id: Option<i64>,
}
event!(FileChooserOpened, "Page.fileChooserOpened");
