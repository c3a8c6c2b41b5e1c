//! The params and results of the methods that read or move the page:
//! navigation, captures and their frames, snapshots and refs, waits,
//! dialogs, console messages, and developer mode's evaluate and raw CDP.

pub use crate::geometry::FrameGeometry;
use crate::ids::TabId;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Params of `page.navigate`: a url, or a history action.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NavigateParams {
    /// An absolute `http:` or `https:` url.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Back, forward or reload (instead of `url`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<NavigateAction>,
    /// Expected state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
}

impl NavigateParams {
    /// Navigation to `url`.
    pub fn to(url: impl Into<String>) -> Self {
        NavigateParams {
            url: Some(url.into()),
            ..NavigateParams::default()
        }
    }
}

/// A history navigation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NavigateAction {
    /// The previous history entry.
    Back,
    /// The next history entry.
    Forward,
    /// The same page again.
    Reload,
}

/// Result of `page.navigate`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigateResult {
    /// The url after navigation (after redirects).
    pub url: String,
    /// The page's title after load.
    pub title: String,
}

/// Image format of a capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    /// JPEG (the default).
    #[default]
    Jpeg,
    /// PNG: lossless, larger.
    Png,
}

impl ImageFormat {
    /// The format's name as CDP and file extensions spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            ImageFormat::Jpeg => "jpeg",
            ImageFormat::Png => "png",
        }
    }
}

/// Params of `page.capture`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CaptureParams {
    /// Image format; `jpeg` when absent.
    #[serde(default)]
    pub format: ImageFormat,
    /// JPEG quality 0–100; 80 when absent; not allowed with PNG.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<u8>,
    /// Downscale so the image is at most this many pixels wide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_width: Option<u32>,
    /// Capture only this element's box.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip: Option<Ref>,
    /// Capture the whole scrollable page, not the viewport (at most
    /// [`MAX_FULL_PAGE_CSS`] CSS pixels each way; not with `clip`; not
    /// while the person controls the tab: it resizes the page for a
    /// moment). Its frame takes coordinates of the whole page.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub full_page: bool,
    /// A frame the agent already has: when the new capture's pixels are the
    /// same, the answer is `unchanged: true` without image data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known_frame_id: Option<FrameId>,
}

/// The longest side of a full-page capture, in CSS pixels: a longer page
/// is cut there.
pub const MAX_FULL_PAGE_CSS: u32 = 16_384;

/// Default JPEG quality of a capture.
pub const DEFAULT_JPEG_QUALITY: u8 = 80;

/// Result of `page.capture`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureResult {
    /// The image format.
    pub format: ImageFormat,
    /// The image, base64 (standard alphabet, padded); absent when
    /// `unchanged`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    /// The pixels are the same as `knownFrameId`'s; `frameId` is that frame.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unchanged: bool,
    /// Width in image pixels.
    pub width: u32,
    /// Height in image pixels.
    pub height: u32,
    /// Image pixels per CSS pixel.
    pub device_pixel_ratio: f64,
    /// Id of this capture, for coordinate input.
    pub frame_id: FrameId,
    /// What the capture shows, in CSS pixels.
    pub geometry: FrameGeometry,
}

/// An opaque id of a capture; coordinates in input name the capture they
/// were read from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FrameId(pub String);

/// State an action expects; when the tab is no longer in it the action
/// fails `STATE_CHANGED` without touching the page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Expect {
    /// The url the tab must still be at (as `tabs.list` or a snapshot
    /// read it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The session's selection revision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection_revision: Option<u64>,
}

/// Params of `page.evaluate`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EvaluateParams {
    /// A JavaScript expression.
    pub expression: String,
    /// Wait for a returned promise to settle (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub await_promise: Option<bool>,
}

/// Result of `page.evaluate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateResult {
    /// The value, as JSON (`null` for `undefined` and values JSON cannot
    /// carry).
    pub value: Value,
    /// The exception's description when the expression threw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception: Option<String>,
}

/// Params of `cdp.send`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CdpSendParams {
    /// CDP method, e.g. `Page.addScriptToEvaluateOnNewDocument`.
    pub method: String,
    /// CDP params object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
    /// A child session of the tab (a frame in another process, a
    /// dedicated worker), as a `Target.attachedToTarget` event of the tab
    /// named it once `Target.setAutoAttach` asked for them; none for the
    /// tab's own page. Input goes to the page, never to a child.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

/// Params of `cdp.events`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CdpEventsParams {
    /// Whether the session gets the selected tab's CDP events from now on.
    pub enabled: bool,
}

/// An element reference from `page.snapshot`, e.g. `e12`. It belongs to
/// the snapshot that issued it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Ref(pub String);

impl std::fmt::Display for Ref {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Params of `page.snapshot`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SnapshotParams {
    /// Longest outline, in characters (default 40 000, at most 400 000);
    /// a longer one is cut with a truncation marker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_chars: Option<usize>,
    /// Only this element and what is inside it (a ref of the latest
    /// snapshot). The refs of the latest full snapshot stay valid.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub root: Option<Ref>,
    /// Only this many levels below the top (or below `ref`): at 1, the
    /// top-level elements and their children; an element at the limit is
    /// shown without what is inside it. At least 1; absent, no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Each element with a ref also shows its box, `[box=x,y,width,height]`
    /// in viewport CSS pixels, rounded (its content box; none when it
    /// has no size).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub boxes: bool,
    /// Answer with what changed since the session's last whole outline of
    /// the tab's page, when that says it in fewer characters
    /// ([`SnapshotResult::changes`]); the whole outline otherwise. Not with
    /// `ref`, `depth` or `boxes`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub changes: bool,
}

/// Result of `page.snapshot`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotResult {
    /// The tab's url when the snapshot was taken.
    pub url: String,
    /// The tab's title when the snapshot was taken.
    pub title: String,
    /// The outline: one node a line, indented by depth, e.g.
    /// `- button "Sign in" [ref=e4]`.
    pub text: String,
    /// Refs issued by this snapshot.
    pub refs: usize,
    /// The outline was cut at `maxChars`.
    pub truncated: bool,
    /// The file chooser waiting on the tab ([`FileChooserInfo`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_chooser: Option<FileChooserInfo>,
    /// With `changes`, when they say it in fewer characters than the
    /// outline: the lines that changed since the session's last whole
    /// outline of the page, `+` added, `-` removed, unmarked lines to show
    /// where, `@@` between two places (empty: nothing changed); `text` is
    /// then empty. Refs of lines still shown stay valid; those on removed
    /// lines are stale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<String>,
    /// With `changes`, when the whole outline came though the session had
    /// an outline of the tab: why (another page, an outline cut at the
    /// limit, a change as long as the page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whole_because: Option<String>,
}

/// What `page.wait` waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "camelCase")]
pub enum WaitUntil {
    /// The page's load event (at once when already loaded).
    Load,
    /// No network request for 500 ms.
    NetworkIdle,
    /// The text appears in the page's visible text (`text`).
    Text,
    /// The text is no longer in the page's visible text (`text`).
    TextGone,
    /// The element is in the page and visible (`ref`).
    Ref,
    /// The element is gone or hidden (`ref`).
    RefGone,
    /// An element matches the CSS selector (`selector`).
    Selector,
    /// No element matches the CSS selector (`selector`).
    SelectorGone,
    /// The time passes, in milliseconds (`timeMs`).
    Time,
}

/// Params of `page.wait`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WaitParams {
    /// The condition.
    pub until: WaitUntil,
    /// For `text` and `textGone`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// For `ref` and `refGone`.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element: Option<Ref>,
    /// For `selector` and `selectorGone`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// How long to wait, in milliseconds, for `time`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    /// Deadline (default 30 s, at most 5 min) → `TIMEOUT`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

impl WaitParams {
    /// A wait for `until` with no other field set.
    pub fn until(until: WaitUntil) -> Self {
        WaitParams {
            until,
            text: None,
            element: None,
            selector: None,
            time_ms: None,
            timeout_ms: None,
        }
    }
}

/// Result of `page.wait`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WaitResult {
    /// How long it waited.
    pub waited_ms: u64,
}

/// A JavaScript dialog's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DialogKind {
    /// `alert()`: OK only.
    Alert,
    /// `confirm()`: OK or Cancel.
    Confirm,
    /// `prompt()`: OK with text, or Cancel.
    Prompt,
    /// A page asking before it unloads.
    Beforeunload,
}

/// An open dialog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DialogInfo {
    /// The tab the dialog is open on.
    pub tab_id: TabId,
    /// Which of `alert`, `confirm` and `prompt` it is.
    #[serde(rename = "type")]
    pub kind: DialogKind,
    /// The message the page shows in it.
    pub message: String,
    /// A prompt's default text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_prompt: Option<String>,
}

impl DialogInfo {
    /// The longest part of a dialog's message [`DialogInfo::describe`]
    /// quotes, in characters.
    const QUOTED: usize = 200;

    /// `a confirm dialog ("Delete the draft?")`, for messages to a person:
    /// its kind and its message (shortened past 200 characters).
    pub fn describe(&self) -> String {
        let kind = match self.kind {
            DialogKind::Alert => "an alert",
            DialogKind::Confirm => "a confirm",
            DialogKind::Prompt => "a prompt",
            DialogKind::Beforeunload => "a beforeunload",
        };
        let mut quoted: String = self.message.chars().take(Self::QUOTED).collect();
        if quoted.len() < self.message.len() {
            quoted.push('…');
        }
        format!("{kind} dialog ({quoted:?})")
    }
}

/// Result of the acting methods (`input.click`, `input.type`,
/// `input.press`, `page.dialog`, …): which dialog the action opened, if
/// one did. The action stops where the dialog opened; what it had sent
/// stays sent, and its held input is released as always.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Acted {
    /// The dialog now open on the tab, because of this action (for
    /// `page.dialog`: the next dialog of a chain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<DialogInfo>,
    /// The file chooser this action opened: the browser did not show it;
    /// `input.setFiles` without `ref` answers it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_chooser: Option<FileChooserInfo>,
}

/// A file chooser a page opened for an agent's input: not shown to the
/// person, waiting for `input.setFiles` (without `ref`) until the page
/// navigates or another chooser opens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileChooserInfo {
    /// The tab it opened on.
    pub tab_id: TabId,
    /// It takes several files (`<input type=file multiple>`).
    pub multiple: bool,
}

/// Params of `page.dialog`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DialogParams {
    /// Accept (OK) or dismiss (Cancel).
    pub accept: bool,
    /// The answer to a prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
}

/// A console message's level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum ConsoleLevel {
    /// `console.debug`.
    Debug,
    /// `console.log`, `console.info` and the like.
    Info,
    /// `console.warn`.
    Warning,
    /// `console.error`, `console.assert` and uncaught exceptions.
    Error,
}

/// Params of `page.console`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ConsoleParams {
    /// Only these levels (all when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub levels: Option<Vec<ConsoleLevel>>,
    /// Only messages after this cursor (a previous answer's `next`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<u64>,
    /// Only messages of the page shown now: none from before the tab's
    /// last main-frame navigation.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub current_document: bool,
}

/// One console message or uncaught exception.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleMessage {
    /// Cursor of this message; increases per tab.
    pub seq: u64,
    /// Its level (`log`, `warning`, `error`, …).
    pub level: ConsoleLevel,
    /// The text (arguments joined with spaces; an exception's description).
    pub text: String,
    /// An uncaught exception rather than a console call.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exception: bool,
    /// Source url, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Line number (1-based), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// Result of `page.console`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleResult {
    /// Matching messages, oldest first.
    pub messages: Vec<ConsoleMessage>,
    /// Pass as `since` to get only newer messages.
    pub next: u64,
    /// Messages dropped from the tab's bounded buffer since `since`.
    pub dropped: u64,
}
