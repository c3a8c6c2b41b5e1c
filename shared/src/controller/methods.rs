//! Every controller method: a unit type per method implementing
//! [`Method`](super::Method), and [`Call`], the decoded request with typed
//! params, built by one macro from one list so names, types and the
//! decoder cannot disagree.

use super::{
    Acted, CaptureParams, CaptureResult, CdpEventsParams, CdpSendParams, CheckParams, ClickParams,
    CloseTabParams, ConsoleParams, ConsoleResult, ControlResult, CreateTabParams, CreateTabResult,
    DialogParams, DragParams, DropParams, Empty, EmulateMediaParams, EvaluateParams,
    EvaluateResult, HelloParams, HelloResult, HoverParams, KeyParams, KeyUpParams, MediaEmulation,
    Method, MouseUpParams, NavigateParams, NavigateResult, NetworkParams, NetworkRequestDetail,
    NetworkRequestParams, NetworkResult, PdfParams, PdfResult, PointParams, PointerParams,
    PressParams, ReleaseResult, ResizeParams, ResizeResult, ResumeParams, ResumeResult, RpcError,
    ScrollParams, SelectOptionParams, SelectOptionResult, SelectParams, SelectResult,
    SetFilesParams, SnapshotParams, SnapshotResult, StatusResult, TabsListResult, TypeParams,
    VideoChapterParams, VideoChapterResult, VideoStartParams, VideoStartResult, VideoStopResult,
    WaitParams, WaitResult, INVALID_PARAMS, METHOD_NOT_FOUND,
};
use crate::error::ErrorKind;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::Value;

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
    Click => "input.click", ClickParams, Acted, Click;
    /// Types text into the focused element.
    Type => "input.type", TypeParams, Acted, Type;
    /// Presses and releases one key, with modifiers.
    Press => "input.press", PressParams, Acted, Press;
    /// Takes the control lease of the selected tab.
    Acquire => "control.acquire", Empty, ControlResult, Acquire;
    /// Gives the control lease back (held input is released first).
    Release => "control.release", Empty, Empty, Release;
    /// Presses a key and holds it until `input.keyUp`.
    KeyDown => "input.keyDown", KeyParams, Acted, KeyDown;
    /// Releases a key held with `input.keyDown`.
    KeyUp => "input.keyUp", KeyUpParams, ReleaseResult, KeyUp;
    /// Presses a mouse button at a point and holds it until `input.mouseUp`.
    MouseDown => "input.mouseDown", PointerParams, Acted, MouseDown;
    /// Moves the mouse (with any held button) to a point.
    MouseMove => "input.mouseMove", PointerParams, Acted, MouseMove;
    /// Releases a button held with `input.mouseDown`.
    MouseUp => "input.mouseUp", MouseUpParams, ReleaseResult, MouseUp;
    /// Puts a finger down at a point and holds it until `input.gesture.end`.
    GestureBegin => "input.gesture.begin", PointerParams, Acted, GestureBegin;
    /// Moves the finger of the gesture in progress.
    GestureUpdate => "input.gesture.update", PointParams, Acted, GestureUpdate;
    /// Lifts the finger of the gesture in progress.
    GestureEnd => "input.gesture.end", Empty, ReleaseResult, GestureEnd;
    /// Evaluates JavaScript in the selected tab (developer mode only).
    Evaluate => "page.evaluate", EvaluateParams, EvaluateResult, Evaluate;
    /// Sends a raw CDP command to the selected tab (developer mode only).
    CdpSend => "cdp.send", CdpSendParams, Value, CdpSend;
    /// Starts or stops `cdp.event` notifications of every CDP event of
    /// the selected tab (developer mode only).
    CdpEvents => "cdp.events", CdpEventsParams, Empty, CdpEvents;
    /// An accessibility outline of the selected tab with element refs.
    Snapshot => "page.snapshot", SnapshotParams, SnapshotResult, Snapshot;
    /// Moves the mouse over an element or a point.
    Hover => "input.hover", HoverParams, Acted, Hover;
    /// Selects options of a `<select>` by value or label.
    SelectOption => "input.selectOption", SelectOptionParams, SelectOptionResult, SelectOption;
    /// Checks or unchecks a checkbox or radio button.
    Check => "input.check", CheckParams, Acted, Check;
    /// Drags one element onto another.
    Drag => "input.drag", DragParams, Acted, Drag;
    /// Scrolls at a point, or scrolls an element into view.
    Scroll => "input.scroll", ScrollParams, Acted, Scroll;
    /// Waits for a condition on the selected tab.
    Wait => "page.wait", WaitParams, WaitResult, Wait;
    /// Opens a new tab (shared, selected, controlled by the caller).
    TabsCreate => "tabs.create", CreateTabParams, CreateTabResult, TabsCreate;
    /// Closes a shared tab.
    TabsClose => "tabs.close", CloseTabParams, Empty, TabsClose;
    /// Accepts or dismisses the open JavaScript dialog.
    Dialog => "page.dialog", DialogParams, Acted, Dialog;
    /// Console messages and uncaught exceptions of the selected tab.
    Console => "page.console", ConsoleParams, ConsoleResult, Console;
    /// Sets the files of a file input.
    SetFiles => "input.setFiles", SetFilesParams, Acted, SetFiles;
    /// Sets or clears the selected tab's viewport size (bounded for agents).
    Resize => "page.resize", ResizeParams, ResizeResult, Resize;
    /// Emulates CSS media features on the selected tab.
    EmulateMedia => "page.emulateMedia", EmulateMediaParams, MediaEmulation, EmulateMedia;
    /// Prints the selected tab's page to PDF.
    Pdf => "page.pdf", PdfParams, PdfResult, Pdf;
    /// Drops files or data onto an element, as if dragged from outside.
    DropOn => "input.drop", DropParams, Acted, DropOn;
    /// The selected tab's requests since it was shared.
    Network => "page.network", NetworkParams, NetworkResult, Network;
    /// One request's headers and bodies (developer mode only).
    NetworkDetail => "page.networkRequest", NetworkRequestParams, NetworkRequestDetail, NetworkDetail;
    /// Starts a video of the selected tab.
    VideoStart => "video.start", VideoStartParams, VideoStartResult, VideoStart;
    /// Marks the present moment in the session's videos.
    VideoChapter => "video.chapter", VideoChapterParams, VideoChapterResult, VideoChapter;
    /// Ends the session's videos.
    VideoStop => "video.stop", Empty, VideoStopResult, VideoStop;
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
