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

use crate::error::{ErrorKind, WireError};
use crate::ids::{RequestId, TabId, Ticket};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

/// JSON-RPC error code: the line is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC error code: JSON, but not a request object.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC error code: no such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC error code: the params do not fit the method.
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC error code for every cotab error with a kind in `data.kind`.
pub const SERVER_ERROR: i64 = -32000;

/// A method of the controller protocol.
pub trait Method {
    /// The wire name, e.g. `tabs.list`.
    const NAME: &'static str;
    /// The params object.
    type Params: Serialize + DeserializeOwned;
    /// The result object.
    type Result: Serialize + DeserializeOwned;
}

/// One decoded request line, params still raw.
#[derive(Debug, Deserialize)]
pub struct Envelope<'a> {
    /// Must be `"2.0"`.
    pub jsonrpc: String,
    /// Absent for a notification (which gets no answer); `"id": null` is
    /// a request, [`RequestId::Null`].
    #[serde(default, deserialize_with = "present_id")]
    pub id: Option<RequestId>,
    /// Method name.
    pub method: String,
    /// Params, decoded later by [`Call::parse`].
    #[serde(borrow, default)]
    pub params: Option<&'a RawValue>,
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    /// JSON-RPC code.
    pub code: i64,
    /// Message for a person; never echoes submitted values.
    pub message: String,
    /// `{"kind": "…"}`.
    pub data: ErrorData,
}

/// The `data` member of every cotab error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorData {
    /// Stable machine-readable kind.
    pub kind: ErrorKind,
}

impl RpcError {
    /// An error with an explicit JSON-RPC code.
    pub fn new(code: i64, kind: ErrorKind, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: ErrorData { kind },
        }
    }

    /// The error's kind.
    pub fn kind(&self) -> ErrorKind {
        self.data.kind
    }
}

impl From<WireError> for RpcError {
    fn from(e: WireError) -> Self {
        RpcError::new(SERVER_ERROR, e.kind, e.message)
    }
}

/// Decodes one line into an envelope. `Err` carries the error response's
/// id (when one could be read) and the error.
pub fn decode_line(line: &str) -> Result<Envelope<'_>, (Option<RequestId>, RpcError)> {
    let raw: &RawValue = serde_json::from_str(line).map_err(|_| {
        (
            None,
            RpcError::new(
                PARSE_ERROR,
                ErrorKind::InvalidRequest,
                "parse error: the line is not valid JSON",
            ),
        )
    })?;
    let invalid = |id| {
        (
            id,
            RpcError::new(
                INVALID_REQUEST,
                ErrorKind::InvalidRequest,
                "invalid request: expected an object with jsonrpc \"2.0\", method and optional id and params",
            ),
        )
    };
    match serde_json::from_str::<Envelope<'_>>(raw.get()) {
        Ok(env) if env.jsonrpc == "2.0" => Ok(env),
        Ok(env) => Err(invalid(env.id)),
        Err(_) => {
            // Salvage the id, if any, so the client can match the error.
            #[derive(Deserialize)]
            struct IdOnly {
                #[serde(default, deserialize_with = "present_id")]
                id: Option<RequestId>,
            }
            let id = serde_json::from_str::<IdOnly>(raw.get())
                .ok()
                .and_then(|i| i.id);
            Err(invalid(id))
        }
    }
}

/// An `id` member that is there, `null` included: serde's `Option` would
/// read `null` as absent, which turns a request into a notification.
fn present_id<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<RequestId>, D::Error> {
    RequestId::deserialize(d).map(Some)
}

/// A successful or failed response line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response<R = Value> {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    /// The request's id, or null when it could not be read.
    pub id: Option<RequestId>,
    /// What came of the request.
    #[serde(flatten)]
    pub outcome: RpcOutcome<R>,
}

/// `{"result": …}` or `{"error": …}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RpcOutcome<R = Value> {
    /// Success.
    Result(R),
    /// Failure.
    Error(RpcError),
}

impl Response {
    /// A success response.
    pub fn ok(id: Option<RequestId>, result: Value) -> Self {
        Response {
            jsonrpc: "2.0".into(),
            id,
            outcome: RpcOutcome::Result(result),
        }
    }

    /// An error response.
    pub fn err(id: Option<RequestId>, error: RpcError) -> Self {
        Response {
            jsonrpc: "2.0".into(),
            id,
            outcome: RpcOutcome::Error(error),
        }
    }
}

/// A request line as a client writes it.
#[derive(Debug, Clone, Serialize)]
pub struct OutgoingRequest<'a, P> {
    /// Always `"2.0"`.
    pub jsonrpc: &'static str,
    /// Correlates the response.
    pub id: RequestId,
    /// Method name.
    pub method: &'a str,
    /// Params object.
    pub params: &'a P,
}

/// A notification from the daemon to an agent (no id).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notification {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    /// What happened.
    #[serde(flatten)]
    pub event: AgentEvent,
}

/// The notifications an agent can receive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", content = "params")]
pub enum AgentEvent {
    /// A shared tab's url or title changed.
    #[serde(rename = "tab.updated")]
    TabUpdated(crate::native::TabInfo),
    /// A shared tab was closed or unshared.
    #[serde(rename = "tab.closed")]
    TabClosed {
        /// The tab.
        #[serde(rename = "tabId")]
        tab_id: TabId,
    },
    /// The agent lost the control lease of a tab; its held input there has
    /// been released.
    #[serde(rename = "control.revoked")]
    ControlRevoked {
        /// The tab.
        #[serde(rename = "tabId")]
        tab_id: TabId,
        /// Why.
        reason: RevokeReason,
    },
    /// A JavaScript dialog opened on a shared tab; actions on the tab fail
    /// `DIALOG_OPEN` until `page.dialog` answers it.
    #[serde(rename = "dialog.opened")]
    DialogOpened(DialogInfo),
    /// The person turned developer mode on or off.
    #[serde(rename = "developerMode.changed")]
    DeveloperModeChanged {
        /// Whether `page.evaluate` and `cdp.send` are allowed now.
        enabled: bool,
    },
    /// The browser lane dropped.
    #[serde(rename = "lane.offline")]
    LaneOffline {},
    /// The browser lane (re)connected.
    #[serde(rename = "lane.online")]
    LaneOnline {},
}

impl Notification {
    /// Wraps an event.
    pub fn new(event: AgentEvent) -> Self {
        Notification {
            jsonrpc: "2.0".into(),
            event,
        }
    }
}

macro_rules! methods {
    ($( $(#[$doc:meta])* $ty:ident => $name:literal, $params:ty, $result:ty, $variant:ident; )*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy)]
            pub struct $ty;
            impl Method for $ty {
                const NAME: &'static str = $name;
                type Params = $params;
                type Result = $result;
            }
        )*

        /// A decoded request: one variant per method, params typed.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Call {
            $( $(#[$doc])* $variant($params), )*
        }

        impl Call {
            /// Every method name, for help texts and tests.
            pub const METHODS: &'static [&'static str] = &[$($name),*];

            /// Decodes `params` for `method`. Absent params read as `{}`.
            pub fn parse(method: &str, params: Option<&RawValue>) -> Result<Call, RpcError> {
                match method {
                    $( $name => parse_params::<$params>(params).map(Call::$variant), )*
                    _ => Err(RpcError::new(
                        METHOD_NOT_FOUND,
                        ErrorKind::InvalidRequest,
                        "method not found",
                    )),
                }
            }

            /// The method name of this call.
            pub fn method(&self) -> &'static str {
                match self {
                    $( Call::$variant(_) => $name, )*
                }
            }
        }
    };
}

methods! {
    /// Opens a session: negotiates the protocol version and mints a ticket.
    Hello => "session.hello", HelloParams, HelloResult, Hello;
    /// Reattaches a session by its ticket after a dropped connection.
    Resume => "session.resume", ResumeParams, ResumeResult, Resume;
    /// Ends the session and revokes its ticket.
    Bye => "session.bye", Empty, Empty, Bye;
    /// The daemon's and the browser lane's state.
    Status => "host.status", Empty, StatusResult, Status;
    /// The shared tabs.
    TabsList => "tabs.list", Empty, TabsListResult, TabsList;
    /// Selects the tab the agent's actions go to.
    TabsSelect => "tabs.select", SelectParams, SelectResult, TabsSelect;
    /// Navigates the selected tab and waits for its load.
    Navigate => "page.navigate", NavigateParams, NavigateResult, Navigate;
    /// Captures the selected tab's viewport.
    Capture => "page.capture", CaptureParams, CaptureResult, Capture;
    /// Clicks at a point given in capture pixels.
    Click => "input.click", ClickParams, Empty, Click;
    /// Types text into the focused element.
    Type => "input.type", TypeParams, Empty, Type;
    /// Presses and releases one key, with modifiers.
    Press => "input.press", PressParams, Empty, Press;
    /// Takes the control lease of the selected tab.
    Acquire => "control.acquire", Empty, ControlResult, Acquire;
    /// Gives the control lease back (held input is released first).
    Release => "control.release", Empty, Empty, Release;
    /// Presses a key and holds it until `input.keyUp`.
    KeyDown => "input.keyDown", KeyParams, Empty, KeyDown;
    /// Releases a key held with `input.keyDown`.
    KeyUp => "input.keyUp", KeyUpParams, ReleaseResult, KeyUp;
    /// Presses a mouse button at a point and holds it until `input.mouseUp`.
    MouseDown => "input.mouseDown", PointerParams, Empty, MouseDown;
    /// Moves the mouse (with any held button) to a point.
    MouseMove => "input.mouseMove", PointerParams, Empty, MouseMove;
    /// Releases a button held with `input.mouseDown`.
    MouseUp => "input.mouseUp", MouseUpParams, ReleaseResult, MouseUp;
    /// Puts a finger down at a point and holds it until `input.gesture.end`.
    GestureBegin => "input.gesture.begin", PointerParams, Empty, GestureBegin;
    /// Moves the finger of the gesture in progress.
    GestureUpdate => "input.gesture.update", PointParams, Empty, GestureUpdate;
    /// Lifts the finger of the gesture in progress.
    GestureEnd => "input.gesture.end", Empty, ReleaseResult, GestureEnd;
    /// Evaluates JavaScript in the selected tab (developer mode only).
    Evaluate => "page.evaluate", EvaluateParams, EvaluateResult, Evaluate;
    /// Sends a raw CDP command to the selected tab (developer mode only).
    CdpSend => "cdp.send", CdpSendParams, Value, CdpSend;
    /// An accessibility outline of the selected tab with element refs.
    Snapshot => "page.snapshot", SnapshotParams, SnapshotResult, Snapshot;
    /// Moves the mouse over an element or a point.
    Hover => "input.hover", HoverParams, Empty, Hover;
    /// Selects options of a `<select>` by value or label.
    SelectOption => "input.selectOption", SelectOptionParams, SelectOptionResult, SelectOption;
    /// Checks or unchecks a checkbox or radio button.
    Check => "input.check", CheckParams, Empty, Check;
    /// Drags one element onto another.
    Drag => "input.drag", DragParams, Empty, Drag;
    /// Scrolls at a point, or scrolls an element into view.
    Scroll => "input.scroll", ScrollParams, Empty, Scroll;
    /// Waits for a condition on the selected tab.
    Wait => "page.wait", WaitParams, WaitResult, Wait;
    /// Opens a new tab (shared, selected, controlled by the caller).
    TabsCreate => "tabs.create", CreateTabParams, CreateTabResult, TabsCreate;
    /// Closes a shared tab.
    TabsClose => "tabs.close", CloseTabParams, Empty, TabsClose;
    /// Accepts or dismisses the open JavaScript dialog.
    Dialog => "page.dialog", DialogParams, Empty, Dialog;
    /// Console messages and uncaught exceptions of the selected tab.
    Console => "page.console", ConsoleParams, ConsoleResult, Console;
    /// Sets the files of a file input.
    SetFiles => "input.setFiles", SetFilesParams, Empty, SetFiles;
}

fn parse_params<P: DeserializeOwned>(params: Option<&RawValue>) -> Result<P, RpcError> {
    let text = params.map_or("{}", RawValue::get);
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        RpcError::new(
            INVALID_PARAMS,
            ErrorKind::InvalidRequest,
            describe_param_error(&path, &inner),
        )
    })
}

/// Describes a params error by field, without the submitted value. serde's
/// own messages quote values ("invalid type: string \"…\""), so only the
/// classification and our own field names are kept.
fn describe_param_error(path: &str, err: &serde_json::Error) -> String {
    let text = err.to_string();
    let field = |p: &str| {
        if p == "." || p.is_empty() {
            "params".to_string()
        } else {
            let mut p = p.to_string();
            p.truncate(64);
            format!("params.{p}")
        }
    };
    if let Some(rest) = text.strip_prefix("missing field `") {
        let name: String = rest.chars().take_while(|c| *c != '`').take(64).collect();
        let parent = field(path);
        return format!("invalid params: missing field `{parent}.{name}`")
            .replace("params.params", "params");
    }
    if text.starts_with("unknown field") {
        // The path's last segment is the submitted key itself: name only
        // the object that holds it.
        let parent = path.rsplit_once('.').map_or("", |(p, _)| p);
        return format!("invalid params: unknown field in `{}`", field(parent));
    }
    if text.starts_with("invalid type") {
        return format!("invalid params: `{}` has the wrong type", field(path));
    }
    format!("invalid params: `{}` has an invalid value", field(path))
}

/// Params of methods that take none. Unknown members are refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Empty {}

/// Params of `session.hello`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HelloParams {
    /// The protocol version the agent speaks; must be 1.
    pub protocol_version: u32,
    /// A short name for the agent, shown to the person.
    pub agent: String,
}

/// Result of `session.hello`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HelloResult {
    /// The daemon's protocol version.
    pub protocol_version: u32,
    /// The session's ticket, for `session.resume`.
    pub ticket: Ticket,
    /// The daemon's version.
    pub daemon_version: String,
    /// Methods this daemon serves.
    pub methods: Vec<String>,
}

/// Params of `session.resume`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResumeParams {
    /// The protocol version the agent speaks; must be 1.
    pub protocol_version: u32,
    /// The ticket `session.hello` returned.
    pub ticket: Ticket,
}

/// Result of `session.resume`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResumeResult {
    /// The daemon's protocol version.
    pub protocol_version: u32,
    /// The session's selected tab, if any.
    pub selected_tab: Option<TabId>,
    /// The session's selection revision.
    pub selection_revision: u64,
}

/// State of the browser lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LaneState {
    /// No extension has connected since the daemon started.
    Absent,
    /// The extension is connected.
    Online,
    /// The extension was connected and dropped.
    Offline,
}

impl LaneState {
    /// The wire name: `absent`, `online` or `offline`.
    pub fn as_str(self) -> &'static str {
        match self {
            LaneState::Absent => "absent",
            LaneState::Online => "online",
            LaneState::Offline => "offline",
        }
    }
}

impl std::fmt::Display for LaneState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Result of `host.status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusResult {
    /// The daemon's protocol version.
    pub protocol_version: u32,
    /// The daemon's version.
    pub daemon_version: String,
    /// The daemon's process id.
    pub pid: u32,
    /// The browser lane's state.
    pub lane: LaneState,
    /// The extension's version, once a lane has connected.
    pub extension_version: Option<String>,
    /// Number of shared tabs the daemon knows of.
    pub shared_tabs: usize,
    /// Number of agent connections.
    pub agents: usize,
    /// Whether developer mode is on (`page.evaluate`, `cdp.send`).
    #[serde(default)]
    pub developer_mode: bool,
}

/// A shared tab as listed to an agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentTab {
    /// The tab id.
    pub id: TabId,
    /// The tab's url.
    pub url: String,
    /// The tab's title.
    pub title: String,
    /// Whether this agent has selected it.
    pub selected: bool,
    /// Set while the tab shows a page agents may not use (a local file, an
    /// extension or browser page): every request on it is refused
    /// `BLOCKED_TARGET`, and its url and title are left empty, until it
    /// shows a web page again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<crate::reach::Blocked>,
}

/// Result of `tabs.list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabsListResult {
    /// The shared tabs; tabs not shared are never listed.
    pub tabs: Vec<AgentTab>,
}

/// Params of `tabs.select`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SelectParams {
    /// The shared tab to select.
    pub tab_id: TabId,
}

/// Result of `tabs.select`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectResult {
    /// The selected tab.
    pub tab_id: TabId,
    /// The agent's selection revision after the change.
    pub selection_revision: u64,
}

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
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    /// JPEG (the default).
    #[default]
    Jpeg,
    /// PNG.
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
    /// A frame the agent already has: when the new capture's pixels are the
    /// same, the answer is `unchanged: true` without image data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known_frame_id: Option<FrameId>,
}

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

/// Params of `input.click`: an element ref from the latest snapshot, or a
/// point in a capture's pixels.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClickParams {
    /// The element to click at its visible centre (instead of `x`/`y`).
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element: Option<Ref>,
    /// Horizontal position in capture pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// Vertical position in capture pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// The capture the point was read from; the session's latest capture of
    /// the tab when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<FrameId>,
    /// The button; left when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    /// 1 (default) to 3: a double click is 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub click_count: Option<u8>,
    /// Modifiers held during the click.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modifiers: Vec<Modifier>,
    /// Expected state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
}

impl ClickParams {
    /// A left click at a point of the session's latest capture.
    pub fn at(x: f64, y: f64) -> Self {
        ClickParams {
            x: Some(x),
            y: Some(y),
            ..ClickParams::default()
        }
    }

    /// A left click on an element.
    pub fn on(element: Ref) -> Self {
        ClickParams {
            element: Some(element),
            ..ClickParams::default()
        }
    }
}

/// Params of `input.type`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TypeParams {
    /// Text inserted as if typed.
    pub text: String,
    /// The element to type into (focused first); the focused element when
    /// absent.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element: Option<Ref>,
    /// Clear the element's value first.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clear: bool,
    /// Press Enter afterwards.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub submit: bool,
    /// Expected state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
}

/// A modifier key held during `input.press`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Modifier {
    /// Alt / Option.
    Alt,
    /// Control.
    Control,
    /// Meta / Command.
    Meta,
    /// Shift.
    Shift,
}

impl Modifier {
    /// The bit CDP's `Input.dispatchKeyEvent` uses for this modifier.
    pub fn cdp_bit(self) -> u32 {
        match self {
            Modifier::Alt => 1,
            Modifier::Control => 2,
            Modifier::Meta => 4,
            Modifier::Shift => 8,
        }
    }
}

/// Params of `input.press`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PressParams {
    /// A key name as in `KeyboardEvent.key`: `Enter`, `Tab`, `ArrowDown`,
    /// `a`, …
    pub key: String,
    /// Modifiers held while the key is pressed.
    #[serde(default)]
    pub modifiers: Vec<Modifier>,
    /// Expected state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
}

/// Why an agent lost control of a tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RevokeReason {
    /// The person took control.
    Human,
    /// The person unshared the tab.
    Unshared,
    /// The tab was closed.
    TabClosed,
    /// The agent selected another tab.
    TabSwitched,
    /// The session ended (`session.bye`).
    SessionEnded,
    /// The agent's connection dropped and it did not resume in time, or its
    /// ticket expired.
    Disconnected,
    /// Developer mode was turned off while the agent held input.
    DeveloperModeOff,
    /// The browser lane went away.
    LaneLost,
    /// The tab went to a page agents may not use (a local file, an
    /// extension or browser page); it may be acquired again once it shows
    /// a web page.
    BlockedTarget,
}

/// An opaque id of a capture; coordinates in input name the capture they
/// were read from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FrameId(pub String);

/// The geometry of a capture, in CSS pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameGeometry {
    /// Viewport width.
    pub viewport_width: f64,
    /// Viewport height.
    pub viewport_height: f64,
    /// Horizontal scroll offset of the viewport.
    pub scroll_x: f64,
    /// Vertical scroll offset of the viewport.
    pub scroll_y: f64,
}

impl FrameGeometry {
    /// Whether the `live` viewport is this one, within
    /// [`crate::limits::GEOMETRY_TOLERANCE`] on each figure.
    pub fn matches(&self, live: &FrameGeometry) -> bool {
        let close = |a: f64, b: f64| (a - b).abs() <= crate::limits::GEOMETRY_TOLERANCE;
        close(self.viewport_width, live.viewport_width)
            && close(self.viewport_height, live.viewport_height)
            && close(self.scroll_x, live.scroll_x)
            && close(self.scroll_y, live.scroll_y)
    }
}

/// State an action expects; when the tab is no longer in it the action
/// fails `STATE_CHANGED` without touching the page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Expect {
    /// The tab's url.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The session's selection revision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection_revision: Option<u64>,
}

/// Result of `control.acquire`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ControlResult {
    /// The tab now controlled.
    pub tab_id: TabId,
    /// The session's selection revision.
    pub selection_revision: u64,
}

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MouseButton {
    /// The primary button.
    #[default]
    Left,
    /// The wheel button.
    Middle,
    /// The secondary button.
    Right,
}

impl MouseButton {
    /// CDP's name for the button.
    pub fn as_str(self) -> &'static str {
        match self {
            MouseButton::Left => "left",
            MouseButton::Middle => "middle",
            MouseButton::Right => "right",
        }
    }

    /// CDP's `buttons` bit for the button.
    pub fn bit(self) -> u32 {
        match self {
            MouseButton::Left => 1,
            MouseButton::Right => 2,
            MouseButton::Middle => 4,
        }
    }
}

/// Params of `input.keyDown`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct KeyParams {
    /// A key name as in `input.press`.
    pub key: String,
    /// Modifiers held with it.
    #[serde(default)]
    pub modifiers: Vec<Modifier>,
    /// Expected state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
}

/// Params of `input.keyUp`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct KeyUpParams {
    /// The key held with `input.keyDown`.
    pub key: String,
}

/// Result of a paired release (`input.keyUp`, `input.mouseUp`,
/// `input.gesture.end`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseResult {
    /// The daemon had already released it (after a revocation); nothing was
    /// sent.
    pub already_released: bool,
}

/// Params of `input.mouseDown`, `input.mouseMove` and
/// `input.gesture.begin`: a point in a capture's pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PointerParams {
    /// Horizontal position in capture pixels.
    pub x: f64,
    /// Vertical position in capture pixels.
    pub y: f64,
    /// The capture the point was read from; the session's latest capture of
    /// the tab when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<FrameId>,
    /// The button (`input.mouseDown` only; left when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    /// Expected state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
}

/// Params of `input.gesture.update`: a point in the gesture's capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PointParams {
    /// Horizontal position in capture pixels.
    pub x: f64,
    /// Vertical position in capture pixels.
    pub y: f64,
}

/// Params of `input.mouseUp`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MouseUpParams {
    /// The held button; left when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
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
}

/// Result of `page.snapshot`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotResult {
    /// The tab's url.
    pub url: String,
    /// The tab's title.
    pub title: String,
    /// The outline: one node a line, indented by depth, e.g.
    /// `- button "Sign in" [ref=e4]`.
    pub text: String,
    /// Refs issued by this snapshot.
    pub refs: usize,
    /// The outline was cut at `maxChars`.
    pub truncated: bool,
}

/// Params of `input.hover`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HoverParams {
    /// The element (instead of `x`/`y`).
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element: Option<Ref>,
    /// Horizontal position in capture pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// Vertical position in capture pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// The capture the point was read from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<FrameId>,
}

/// Params of `input.selectOption`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SelectOptionParams {
    /// The `<select>` element.
    #[serde(rename = "ref")]
    pub element: Ref,
    /// Options to select, by value or visible label; several only for a
    /// multiple select.
    pub values: Vec<String>,
}

/// Result of `input.selectOption`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelectOptionResult {
    /// The values now selected.
    pub selected: Vec<String>,
}

/// Params of `input.check`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CheckParams {
    /// The checkbox or radio button.
    #[serde(rename = "ref")]
    pub element: Ref,
    /// The state wanted (default true); nothing is clicked when it already
    /// is.
    #[serde(default = "yes")]
    pub checked: bool,
}

fn yes() -> bool {
    true
}

/// Params of `input.drag`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DragParams {
    /// The element to drag.
    pub from: Ref,
    /// The element to drop it on.
    pub to: Ref,
}

/// Params of `input.scroll`: an element to bring into view, or a wheel
/// delta at a point.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScrollParams {
    /// Scroll this element into view (instead of a delta).
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element: Option<Ref>,
    /// Where the wheel turns, in capture pixels (default: the viewport's
    /// centre).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// Where the wheel turns, in capture pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// The capture the point was read from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<FrameId>,
    /// Horizontal scroll in CSS pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_x: Option<f64>,
    /// Vertical scroll in CSS pixels (positive scrolls down).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_y: Option<f64>,
}

/// What `page.wait` waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum WaitUntil {
    /// The page's load event (at once when already loaded).
    Load,
    /// No network request for 500 ms.
    NetworkIdle,
    /// `text` appears in the page's visible text.
    Text,
    /// `text` is no longer in the page's visible text.
    TextGone,
    /// The element `ref` is in the page and visible.
    Ref,
    /// The element `ref` is gone or hidden.
    RefGone,
    /// An element matches the CSS `selector`.
    Selector,
    /// No element matches the CSS `selector`.
    SelectorGone,
    /// `timeMs` passes.
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
    /// For `time`.
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

/// Params of `tabs.create`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateTabParams {
    /// An absolute `http:` or `https:` url; a blank tab when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// Result of `tabs.create`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTabResult {
    /// The new tab, now shared, selected and controlled by the caller.
    pub tab_id: TabId,
    /// The session's selection revision after the change.
    pub selection_revision: u64,
}

/// Params of `tabs.close`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CloseTabParams {
    /// The shared tab; the selected one when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
}

/// A JavaScript dialog's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DialogKind {
    /// `alert()`.
    Alert,
    /// `confirm()`.
    Confirm,
    /// `prompt()`.
    Prompt,
    /// A page asking before it unloads.
    Beforeunload,
}

/// An open dialog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DialogInfo {
    /// The tab.
    pub tab_id: TabId,
    /// Its kind.
    #[serde(rename = "type")]
    pub kind: DialogKind,
    /// The page's message.
    pub message: String,
    /// A prompt's default text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_prompt: Option<String>,
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
}

/// One console message or uncaught exception.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleMessage {
    /// Cursor of this message; increases per tab.
    pub seq: u64,
    /// Its level.
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

/// Params of `input.setFiles`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SetFilesParams {
    /// The `<input type=file>`.
    #[serde(rename = "ref")]
    pub element: Ref,
    /// Absolute paths, each under a directory the person allowed.
    pub paths: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(line: &str) -> Result<Call, RpcError> {
        let env = decode_line(line).map_err(|(_, e)| e)?;
        Call::parse(&env.method, env.params)
    }

    #[test]
    fn decodes_a_typed_call() {
        let call = parse(r#"{"jsonrpc":"2.0","id":1,"method":"tabs.select","params":{"tabId":5}}"#);
        assert_eq!(
            call,
            Ok(Call::TabsSelect(SelectParams { tab_id: TabId(5) }))
        );
        let call = parse(r#"{"jsonrpc":"2.0","id":"a","method":"host.status"}"#);
        assert_eq!(call, Ok(Call::Status(Empty {})));
        let call = parse(r#"{"jsonrpc":"2.0","id":2,"method":"page.capture","params":{}}"#);
        assert_eq!(call, Ok(Call::Capture(CaptureParams::default())));
        let call = parse(
            r#"{"jsonrpc":"2.0","id":3,"method":"input.press","params":{"key":"Enter","modifiers":["Shift"]}}"#,
        );
        assert_eq!(
            call,
            Ok(Call::Press(PressParams {
                key: "Enter".into(),
                modifiers: vec![Modifier::Shift],
                expect: None,
            }))
        );
    }

    #[test]
    fn parse_error_for_non_json() {
        let (id, err) = decode_line("{not json").expect_err("not JSON");
        assert_eq!(id, None);
        assert_eq!(err.code, PARSE_ERROR);
    }

    #[test]
    fn invalid_request_keeps_the_id() {
        let (id, err) =
            decode_line(r#"{"jsonrpc":"1.0","id":4,"method":"x"}"#).expect_err("bad version");
        assert_eq!(id, Some(RequestId::Number(4)));
        assert_eq!(err.code, INVALID_REQUEST);
        let (id, err) = decode_line(r#"{"id":"k","params":3}"#).expect_err("no method");
        assert_eq!(id, Some(RequestId::String("k".into())));
        assert_eq!(err.code, INVALID_REQUEST);
        let (_, err) = decode_line("[1,2]").expect_err("not an object");
        assert_eq!(err.code, INVALID_REQUEST);
        let (id, _) =
            decode_line(r#"{"jsonrpc":"1.0","id":null,"method":"x"}"#).expect_err("bad version");
        assert_eq!(id, Some(RequestId::Null));
    }

    /// Issue 15: `"id": null` is a request, not a notification.
    #[test]
    fn a_null_id_is_a_request_and_a_missing_one_a_notification() {
        let env =
            decode_line(r#"{"jsonrpc":"2.0","id":null,"method":"host.status"}"#).expect("null id");
        assert_eq!(env.id, Some(RequestId::Null));
        let env = decode_line(r#"{"jsonrpc":"2.0","method":"host.status"}"#).expect("no id");
        assert_eq!(env.id, None);
        let line =
            serde_json::to_string(&Response::ok(Some(RequestId::Null), json!(1))).expect("encodes");
        assert_eq!(line, r#"{"jsonrpc":"2.0","id":null,"result":1}"#);
    }

    #[test]
    fn unknown_method() {
        let err =
            parse(r#"{"jsonrpc":"2.0","id":1,"method":"tabs.explode"}"#).expect_err("unknown");
        assert_eq!(err.code, METHOD_NOT_FOUND);
        assert_eq!(err.kind(), ErrorKind::InvalidRequest);
    }

    #[test]
    fn invalid_params_name_the_field_but_not_the_value() {
        let secret = "hunter2-secret-value";
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tabs.select","params":{{"tabId":"{secret}"}}}}"#
        );
        let err = parse(&line).expect_err("wrong type");
        assert_eq!(err.code, INVALID_PARAMS);
        assert!(err.message.contains("params.tabId"), "{}", err.message);
        assert!(!err.message.contains(secret), "{}", err.message);

        let err = parse(r#"{"jsonrpc":"2.0","id":1,"method":"tabs.select","params":{}}"#)
            .expect_err("missing");
        assert_eq!(err.message, "invalid params: missing field `params.tabId`");

        let line = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"page.capture","params":{{"format":"{secret}"}}}}"#
        );
        let err = parse(&line).expect_err("bad enum");
        assert!(err.message.contains("params.format"), "{}", err.message);
        assert!(!err.message.contains(secret), "{}", err.message);

        let line = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"host.status","params":{{"{secret}":1}}}}"#
        );
        let err = parse(&line).expect_err("unknown field");
        assert!(!err.message.contains(secret), "{}", err.message);

        let err = parse(r#"{"jsonrpc":"2.0","id":1,"method":"host.status","params":[1]}"#)
            .expect_err("array");
        assert_eq!(err.code, INVALID_PARAMS);
    }

    #[test]
    fn response_golden() {
        let ok = Response::ok(Some(RequestId::Number(1)), json!({"tabs":[]}));
        assert_eq!(
            serde_json::to_value(&ok).expect("serialises"),
            json!({"jsonrpc":"2.0","id":1,"result":{"tabs":[]}})
        );
        let err = Response::err(None, RpcError::new(SERVER_ERROR, ErrorKind::Busy, "busy"));
        assert_eq!(
            serde_json::to_value(&err).expect("serialises"),
            json!({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"busy","data":{"kind":"BUSY"}}})
        );
        let back: Response = serde_json::from_value(json!({"jsonrpc":"2.0","id":null,
            "error":{"code":-32000,"message":"busy","data":{"kind":"BUSY"}}}))
        .expect("deserialises");
        assert_eq!(back, err);
    }

    #[test]
    fn notification_golden() {
        let n = Notification::new(AgentEvent::TabClosed { tab_id: TabId(3) });
        let v = serde_json::to_value(&n).expect("serialises");
        assert_eq!(
            v,
            json!({"jsonrpc":"2.0","method":"tab.closed","params":{"tabId":3}})
        );
        assert_eq!(
            serde_json::from_value::<Notification>(v).expect("deserialises"),
            n
        );
        let n = Notification::new(AgentEvent::LaneOnline {});
        let v = serde_json::to_value(&n).expect("serialises");
        assert_eq!(
            v,
            json!({"jsonrpc":"2.0","method":"lane.online","params":{}})
        );
    }

    #[test]
    fn new_rule_messages_golden() {
        let n = Notification::new(AgentEvent::ControlRevoked {
            tab_id: TabId(3),
            reason: RevokeReason::Human,
        });
        assert_eq!(
            serde_json::to_value(&n).expect("serialises"),
            json!({"jsonrpc":"2.0","method":"control.revoked","params":{"tabId":3,"reason":"human"}})
        );
        let n = Notification::new(AgentEvent::DeveloperModeChanged { enabled: true });
        assert_eq!(
            serde_json::to_value(&n).expect("serialises"),
            json!({"jsonrpc":"2.0","method":"developerMode.changed","params":{"enabled":true}})
        );
        let call = parse(
            r#"{"jsonrpc":"2.0","id":1,"method":"input.mouseDown","params":{"x":1,"y":2,"frameId":"f9","button":"right","expect":{"url":"http://a/","selectionRevision":3}}}"#,
        );
        assert_eq!(
            call,
            Ok(Call::MouseDown(PointerParams {
                x: 1.0,
                y: 2.0,
                frame_id: Some(FrameId("f9".into())),
                button: Some(MouseButton::Right),
                expect: Some(Expect {
                    url: Some("http://a/".into()),
                    selection_revision: Some(3),
                }),
            }))
        );
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":1,"method":"input.gesture.end"}"#),
            Ok(Call::GestureEnd(Empty {}))
        );
        assert_eq!(
            parse(
                r#"{"jsonrpc":"2.0","id":1,"method":"cdp.send","params":{"method":"Page.reload"}}"#
            ),
            Ok(Call::CdpSend(CdpSendParams {
                method: "Page.reload".into(),
                params: None
            }))
        );
        let r = ReleaseResult {
            already_released: true,
        };
        assert_eq!(
            serde_json::to_value(&r).expect("serialises"),
            json!({"alreadyReleased":true})
        );
    }

    #[test]
    fn toolset_messages_golden() {
        assert_eq!(
            parse(
                r#"{"jsonrpc":"2.0","id":1,"method":"input.click","params":{"ref":"e12","clickCount":2,"modifiers":["Shift"]}}"#
            ),
            Ok(Call::Click(ClickParams {
                element: Some(Ref("e12".into())),
                click_count: Some(2),
                modifiers: vec![Modifier::Shift],
                ..ClickParams::default()
            }))
        );
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":1,"method":"input.click","params":{"x":3,"y":4}}"#),
            Ok(Call::Click(ClickParams::at(3.0, 4.0)))
        );
        assert_eq!(
            parse(
                r#"{"jsonrpc":"2.0","id":1,"method":"page.navigate","params":{"action":"back"}}"#
            ),
            Ok(Call::Navigate(NavigateParams {
                action: Some(NavigateAction::Back),
                ..NavigateParams::default()
            }))
        );
        assert_eq!(
            parse(
                r#"{"jsonrpc":"2.0","id":1,"method":"page.wait","params":{"until":"textGone","text":"Loading","timeoutMs":500}}"#
            ),
            Ok(Call::Wait(WaitParams {
                text: Some("Loading".into()),
                timeout_ms: Some(500),
                ..WaitParams::until(WaitUntil::TextGone)
            }))
        );
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":1,"method":"input.check","params":{"ref":"e3"}}"#),
            Ok(Call::Check(CheckParams {
                element: Ref("e3".into()),
                checked: true
            }))
        );
        assert_eq!(
            parse(
                r#"{"jsonrpc":"2.0","id":1,"method":"page.capture","params":{"maxWidth":640,"knownFrameId":"f2"}}"#
            ),
            Ok(Call::Capture(CaptureParams {
                max_width: Some(640),
                known_frame_id: Some(FrameId("f2".into())),
                ..CaptureParams::default()
            }))
        );
        let n = Notification::new(AgentEvent::DialogOpened(DialogInfo {
            tab_id: TabId(4),
            kind: DialogKind::Prompt,
            message: "Name?".into(),
            default_prompt: Some("x".into()),
        }));
        assert_eq!(
            serde_json::to_value(&n).expect("serialises"),
            json!({"jsonrpc":"2.0","method":"dialog.opened","params":{"tabId":4,"type":"prompt","message":"Name?","defaultPrompt":"x"}})
        );
        let unchanged = CaptureResult {
            format: ImageFormat::Jpeg,
            data: None,
            unchanged: true,
            width: 10,
            height: 10,
            device_pixel_ratio: 1.0,
            frame_id: FrameId("f2".into()),
            geometry: FrameGeometry {
                viewport_width: 10.0,
                viewport_height: 10.0,
                scroll_x: 0.0,
                scroll_y: 0.0,
            },
        };
        let v = serde_json::to_value(&unchanged).expect("serialises");
        assert_eq!(v["unchanged"], true);
        assert!(v.get("data").is_none());
        let c = ConsoleResult {
            messages: vec![ConsoleMessage {
                seq: 3,
                level: ConsoleLevel::Error,
                text: "boom".into(),
                exception: true,
                url: Some("http://a/".into()),
                line: Some(7),
            }],
            next: 3,
            dropped: 0,
        };
        assert_eq!(
            serde_json::to_value(&c).expect("serialises"),
            json!({"messages":[{"seq":3,"level":"error","text":"boom","exception":true,"url":"http://a/","line":7}],"next":3,"dropped":0})
        );
    }

    #[test]
    fn results_golden() {
        let r = CaptureResult {
            format: ImageFormat::Jpeg,
            data: Some("AAAA".into()),
            unchanged: false,
            width: 800,
            height: 600,
            device_pixel_ratio: 1.0,
            frame_id: FrameId("f1".into()),
            geometry: FrameGeometry {
                viewport_width: 800.0,
                viewport_height: 600.0,
                scroll_x: 0.0,
                scroll_y: 40.0,
            },
        };
        assert_eq!(
            serde_json::to_value(&r).expect("serialises"),
            json!({"format":"jpeg","data":"AAAA","width":800,"height":600,"devicePixelRatio":1.0,
                   "frameId":"f1","geometry":{"viewportWidth":800.0,"viewportHeight":600.0,
                   "scrollX":0.0,"scrollY":40.0}})
        );
        let s = StatusResult {
            protocol_version: 1,
            daemon_version: "0.1.0".into(),
            pid: 9,
            lane: LaneState::Online,
            extension_version: Some("0.1.0".into()),
            shared_tabs: 1,
            agents: 2,
            developer_mode: false,
        };
        assert_eq!(
            serde_json::to_value(&s).expect("serialises"),
            json!({"protocolVersion":1,"daemonVersion":"0.1.0","pid":9,"lane":"online",
                   "extensionVersion":"0.1.0","sharedTabs":1,"agents":2,"developerMode":false})
        );
    }

    /// The controller link's decoders, fed anything, return a value or a
    /// typed error and never panic; errors never echo submitted values;
    /// what the response and notification decoders accept round-trips.
    mod bad_input {
        use super::*;
        use crate::arbitrary::{almost_json, json, nested, tagged, WORDS};
        use proptest::prelude::*;

        /// What submitted values are replaced with, to look for echoes.
        const MARK: &str = "ZQXJ";

        fn codes() -> [i64; 5] {
            [
                PARSE_ERROR,
                INVALID_REQUEST,
                METHOD_NOT_FOUND,
                INVALID_PARAMS,
                SERVER_ERROR,
            ]
        }

        /// Decodes a line the way the daemon does; `Err` is the error
        /// response it would send.
        fn decode(line: &str) -> Result<Option<Call>, RpcError> {
            let env = decode_line(line).map_err(|(_, e)| e)?;
            Call::parse(&env.method, env.params).map(Some)
        }

        fn survives<T>(bytes: &[u8])
        where
            T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
        {
            if let Ok(msg) = serde_json::from_slice::<T>(bytes) {
                let text = serde_json::to_string(&msg).expect("serialises");
                serde_json::from_str::<T>(&text).expect("reads back");
            }
        }

        fn round_trips<T>(v: Value) -> Result<(), TestCaseError>
        where
            T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
        {
            if let Ok(msg) = serde_json::from_value::<T>(v) {
                let again = serde_json::to_value(&msg).expect("serialises");
                let back: T = serde_json::from_value(again).expect("reads back");
                prop_assert_eq!(back, msg);
            }
            Ok(())
        }

        /// Every string value becomes [`MARK`], and so does every key that
        /// is not one of cotab's field names.
        fn mark(v: Value) -> Value {
            match v {
                Value::String(_) => Value::from(MARK),
                Value::Array(a) => Value::Array(a.into_iter().map(mark).collect()),
                Value::Object(m) => Value::Object(
                    m.into_iter()
                        .map(|(k, v)| {
                            let known = WORDS.contains(&k.as_str());
                            (if known { k } else { MARK.into() }, mark(v))
                        })
                        .collect(),
                ),
                other => other,
            }
        }

        #[test]
        fn deep_nesting_is_a_parse_error_not_a_stack_overflow() {
            // Issue 5: 100 000 `[`, bare and inside the params of a valid
            // envelope.
            let deep = nested(100_000, "");
            let err = decode(&deep).expect_err("refused");
            assert_eq!(err.code, PARSE_ERROR);
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"cdp.send","params":{{"method":"m","params":{deep}}}}}"#
            );
            let err = decode(&line).expect_err("refused");
            assert_eq!(err.code, PARSE_ERROR);
            // Just under the limit is fine as far as the envelope goes.
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"cdp.send","params":{{"method":"m","params":{{"a":{}0{}}}}}}}"#,
                "[".repeat(100),
                "]".repeat(100)
            );
            assert!(decode(&line).is_ok(), "{line}");
            // A bare array is refused at its first byte; the same depth
            // inside a member reaches the recursion limit.
            assert!(serde_json::from_str::<Response>(&deep).is_err());
            assert!(serde_json::from_str::<Notification>(&deep).is_err());
            let resp = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{deep}}}"#);
            let e = serde_json::from_str::<Response>(&resp).expect_err("refused");
            assert!(e.to_string().contains("recursion limit"), "{e}");
            let note = format!(r#"{{"jsonrpc":"2.0","method":"tab.updated","params":{deep}}}"#);
            let e = serde_json::from_str::<Notification>(&note).expect_err("refused");
            assert!(e.to_string().contains("recursion limit"), "{e}");
        }

        proptest! {
            #[test]
            fn any_line_decodes_or_gets_a_json_rpc_error(bytes in almost_json()) {
                if let Ok(line) = std::str::from_utf8(&bytes) {
                    if let Err(e) = decode(line) {
                        prop_assert!(codes().contains(&e.code), "{:?}", e);
                    }
                }
                survives::<Response>(&bytes);
                survives::<Notification>(&bytes);
            }

            #[test]
            fn request_shaped_lines_never_echo_submitted_values(
                method in proptest::sample::select(Call::METHODS),
                params in json(),
                id in prop_oneof![Just(json!(1)), Just(json!("a")), Just(json!(null)), json()],
            ) {
                let params = mark(params);
                let line = json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string();
                if let Err(e) = decode(&line) {
                    prop_assert!(codes().contains(&e.code), "{:?}", e);
                    prop_assert!(!e.message.contains(MARK), "{} echoes a value: {}", line, e.message);
                }
            }

            #[test]
            fn response_and_notification_shaped_json_round_trips(
                resp in tagged("jsonrpc"),
                note in tagged("method"),
                any in json(),
            ) {
                for v in [resp, note, any] {
                    round_trips::<Response>(v.clone())?;
                    round_trips::<Notification>(v.clone())?;
                    survives::<Response>(v.to_string().as_bytes());
                    survives::<Notification>(v.to_string().as_bytes());
                }
            }
        }
    }
}
