//! The MCP tools `cotab mcp` offers, one entry each in one table: their
//! names (Playwright MCP's), their arguments as typed structs whose doc
//! comments become the JSON schema's descriptions, the text an LLM reads
//! about each, the decoding of a `tools/call` into a [`ToolCall`], and the
//! method of the [`Bridge`] that runs it ([`ToolCall::run`]).
//!
//! This module knows nothing of the daemon: what each tool does is its
//! method's business, in the module of its kind.

use super::args::*;
use super::bridge::Bridge;
use super::drop::DropArgs;
use super::emulation::{EmulateMediaArgs, ResizeArgs};
use super::find::FindArgs;
use super::network::{NetworkRequestArgs, NetworkRequestsArgs};
use super::outcome::{ToolFailure, ToolOutput};
use super::schema::input_schema;
use super::upload::FileUploadArgs;
use super::video::{ChapterArgs, StartVideoArgs};
use super::vision::{ButtonArgs, ClickXyArgs, DragXyArgs, MoveXyArgs, WheelArgs};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The tool that runs code in the page.
pub(crate) const EVALUATE: &str = "browser_evaluate";

/// The tools that need developer mode; listed only while it is on.
pub(crate) const PRIVILEGED: &[&str] = &[EVALUATE, "browser_network_request"];

/// The coordinate tools, offered with `--caps vision` only.
pub(crate) const VISION: &[&str] = &[
    "browser_mouse_move_xy",
    "browser_mouse_click_xy",
    "browser_mouse_drag_xy",
    "browser_mouse_down",
    "browser_mouse_up",
    "browser_mouse_wheel",
];

/// The PDF tool, offered with `--caps pdf` only.
pub(crate) const PDF: &[&str] = &["browser_pdf_save"];

/// The video tools, offered with `--caps devtools` only.
pub(crate) const DEVTOOLS: &[&str] = &[
    "browser_start_video",
    "browser_video_chapter",
    "browser_stop_video",
];

/// Opt-in groups of tools, as Playwright MCP's `--caps` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Cap {
    /// The coordinate tools (`browser_mouse_click_xy`, …), which act at
    /// points of the latest screenshot.
    Vision,
    /// `browser_pdf_save`.
    Pdf,
    /// The video tools (`browser_start_video`, `browser_video_chapter`,
    /// `browser_stop_video`).
    Devtools,
}

/// Which opt-in groups are on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Caps {
    /// [`Cap::Vision`].
    pub vision: bool,
    /// [`Cap::Pdf`].
    pub pdf: bool,
    /// [`Cap::Devtools`].
    pub devtools: bool,
}

impl Caps {
    /// The groups `caps` names.
    pub fn of(caps: &[Cap]) -> Caps {
        Caps {
            vision: caps.contains(&Cap::Vision),
            pdf: caps.contains(&Cap::Pdf),
            devtools: caps.contains(&Cap::Devtools),
        }
    }

    /// Whether the tool `name` is on.
    pub(crate) fn offers(self, name: &str) -> bool {
        (self.vision || !VISION.contains(&name))
            && (self.pdf || !PDF.contains(&name))
            && (self.devtools || !DEVTOOLS.contains(&name))
    }
}

/// Why a `tools/call` could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ArgsError {
    /// No tool has that name.
    #[error("unknown tool")]
    UnknownTool,
    /// The arguments do not fit the tool's schema.
    #[error("invalid arguments for {tool}: {reason}")]
    Invalid {
        /// The tool's MCP name.
        tool: &'static str,
        /// serde's account of the mismatch.
        reason: String,
    },
}

fn parse_args<T: DeserializeOwned>(tool: &'static str, args: JsonObject) -> Result<T, ArgsError> {
    serde_json::from_value(Value::Object(args)).map_err(|e| ArgsError::Invalid {
        tool,
        reason: e.to_string(),
    })
}

fn tool<T: JsonSchema>(
    name: &'static str,
    title: &'static str,
    read_only: bool,
    description: &'static str,
) -> Tool {
    let annotations = ToolAnnotations::with_title(title)
        .read_only(read_only)
        .destructive(false)
        .open_world(true);
    Tool::new(name, description, input_schema::<T>()).with_annotations(annotations)
}

macro_rules! tools {
    ($( $variant:ident($args:ty) => $name:literal, $title:literal, read_only: $ro:expr, run: $run:ident, $desc:expr; )*) => {
        /// A decoded `tools/call`: one variant per tool, arguments typed.
        #[derive(Debug, Clone, PartialEq)]
        pub(crate) enum ToolCall {
            $( $variant($args), )*
        }

        /// Every tool name, in listing order.
        #[cfg(test)]
        pub(crate) const NAMES: &[&str] = &[$($name),*];

        impl ToolCall {
            /// Decodes the call of tool `name` with `args`.
            pub(crate) fn parse(name: &str, args: JsonObject) -> Result<ToolCall, ArgsError> {
                match name {
                    $( $name => parse_args::<$args>($name, args).map(ToolCall::$variant), )*
                    _ => Err(ArgsError::UnknownTool),
                }
            }

            /// Runs the tool: the method of the bridge its entry names.
            pub(crate) async fn run(self, bridge: &mut Bridge) -> Result<ToolOutput, ToolFailure> {
                match self {
                    $( ToolCall::$variant(a) => bridge.$run(a).await, )*
                }
            }

            /// The tool's name.
            #[cfg(test)]
            pub(crate) fn name(&self) -> &'static str {
                match self {
                    $( ToolCall::$variant(_) => $name, )*
                }
            }
        }

        fn all_tools() -> Vec<Tool> {
            vec![ $( tool::<$args>($name, $title, $ro, $desc), )* ]
        }
    };
}

tools! {
    Tabs(TabsArgs) => "browser_tabs", "Manage tabs", read_only: false, run: tabs,
        "List, create, close, or select a browser tab. Only the tabs the person shared with you \
         exist for you; a tab you open with `new` is shared with you and becomes the current tab. \
         `select` makes a tab the current one (the tab every other tool acts on) and takes \
         control of it.";
    Close(NoArgs) => "browser_close", "Close browser", read_only: false, run: close_tab,
        "Close the current tab, as browser_tabs `close` does: a shared tab the person does not \
         control. cotab never closes the browser or a tab the person did not share.";
    Resize(ResizeArgs) => "browser_resize", "Resize browser window", read_only: false, run: resize,
        "Resize the page's viewport (CSS pixels, at most 1920x1200). The person's window keeps \
         its size: the page inside the tab takes the new one until the person takes control or \
         the tab is no longer shared.";
    Navigate(NavigateArgs) => "browser_navigate", "Navigate to a URL", read_only: false, run: navigate,
        "Navigate the current tab to a URL (http or https only) and wait for it to load. \
         Answers with a snapshot of the new page.";
    NavigateBack(NoArgs) => "browser_navigate_back", "Go back", read_only: false, run: navigate_back,
        "Go back to the previous page in the current tab's history. Answers with a snapshot.";
    Snapshot(SnapshotArgs) => "browser_snapshot", "Page snapshot", read_only: true, run: snapshot,
        "Capture an accessibility snapshot of the current page; this is better than a \
         screenshot. Every element you can act on is listed with a ref such as [ref=e12]: pass \
         it as `target` to the other tools. An element keeps its ref across snapshots; a ref \
         is valid while the latest snapshot shows it, until the next navigation. `target` \
         narrows the snapshot to one element, `depth` to some levels.";
    Find(FindArgs) => "browser_find", "Find in page snapshot", read_only: true, run: find,
        "Search the accessibility snapshot of the whole current page (also past where \
         answers cut it) for text or a regular expression. Returns the matching lines with a few lines of context, each under its \
         path from the root: cheaper than the whole snapshot when you only need an element \
         and its ref.";
    Click(ClickArgs) => "browser_click", "Click", read_only: false, run: click,
        "Perform a click on a web page element (by its ref from the latest snapshot). Answers \
         with a fresh snapshot.";
    Hover(ElementArgs) => "browser_hover", "Hover mouse", read_only: false, run: hover,
        "Hover the mouse over an element on the page (by its ref from the latest snapshot).";
    Type(TypeArgs) => "browser_type", "Type text", read_only: false, run: type_text,
        "Type text into an editable element (by its ref from the latest snapshot), replacing \
         its value; `submit` presses Enter afterwards.";
    PressKey(PressKeyArgs) => "browser_press_key", "Press a key", read_only: false, run: press_key,
        "Press a key on the keyboard, at the focused element.";
    FillForm(FillFormArgs) => "browser_fill_form", "Fill form", read_only: false, run: fill_form,
        "Fill multiple form fields (by their refs from the latest snapshot): type into text \
         boxes, check or uncheck checkboxes and radios, pick a combobox's option by its text. \
         Answers with a fresh snapshot.";
    SelectOption(SelectOptionArgs) => "browser_select_option", "Select option", read_only: false, run: select_option,
        "Select an option in a dropdown (a `<select>`, by its ref from the latest snapshot).";
    Drag(DragArgs) => "browser_drag", "Drag mouse", read_only: false, run: drag,
        "Perform drag and drop between two elements (by their refs from the latest snapshot).";
    Drop(DropArgs) => "browser_drop", "Drop files or data onto an element", read_only: false, run: drop_onto,
        "Drop files or MIME-typed data onto an element (by its ref from the latest snapshot), as \
         if dragged from outside the page. At least one of \"paths\" (under the directories the \
         person allowed for uploads) or \"data\" must be provided.";
    TakeScreenshot(ScreenshotArgs) => "browser_take_screenshot", "Take a screenshot", read_only: true, run: screenshot,
        "Take a screenshot of the current tab's viewport, of the full page, or of one element. \
         You can't perform actions based on the screenshot: use browser_snapshot for refs.";
    WaitFor(WaitForArgs) => "browser_wait_for", "Wait for", read_only: true, run: wait_for,
        "Wait for text to appear or disappear or a specified time to pass. Answers with a \
         snapshot.";
    HandleDialog(HandleDialogArgs) => "browser_handle_dialog", "Handle a dialog", read_only: false, run: handle_dialog,
        "Handle a dialog (alert, confirm, prompt, beforeunload) open on the current tab: \
         actions fail with DIALOG_OPEN until it is handled.";
    NetworkRequests(NetworkRequestsArgs) => "browser_network_requests", "List network requests", read_only: true, run: network_requests,
        "Returns a numbered list of the current tab's network requests since it was shared \
         (method, url, status). Use browser_network_request with the number to get full details \
         (developer mode only).";
    NetworkRequest(NetworkRequestArgs) => "browser_network_request", "Show network request details", read_only: true, run: network_request,
        "Returns full details (headers and body, secrets redacted) of a single network request, \
         or a single part if `part` is set. Use the number from browser_network_requests. Only \
         available while the person has turned developer mode on in the cotab popup.";
    ConsoleMessages(ConsoleArgs) => "browser_console_messages", "Get console messages", read_only: true, run: console_messages,
        "Returns all console messages and uncaught exceptions of the current tab.";
    FileUpload(FileUploadArgs) => "browser_file_upload", "Upload files", read_only: false, run: file_upload,
        "Upload one or multiple files to the file chooser an action opened (its modal state), \
         or to a file input named by `target`.";
    MouseMoveXy(MoveXyArgs) => "browser_mouse_move_xy", "Move mouse", read_only: false, run: mouse_move_xy,
        "Move the mouse to a point of the latest screenshot (its pixels; take one first).";
    MouseClickXy(ClickXyArgs) => "browser_mouse_click_xy", "Click", read_only: false, run: mouse_click_xy,
        "Click at a point of the latest screenshot (its pixels). Answers with a snapshot.";
    MouseDragXy(DragXyArgs) => "browser_mouse_drag_xy", "Drag mouse", read_only: false, run: mouse_drag_xy,
        "Drag the left mouse button from one point of the latest screenshot to another.";
    MouseDown(ButtonArgs) => "browser_mouse_down", "Press mouse down", read_only: false, run: mouse_down,
        "Press a mouse button where the mouse last went, and hold it until browser_mouse_up.";
    MouseUp(ButtonArgs) => "browser_mouse_up", "Press mouse up", read_only: false, run: mouse_up,
        "Release a mouse button held with browser_mouse_down.";
    MouseWheel(WheelArgs) => "browser_mouse_wheel", "Scroll mouse wheel", read_only: false, run: mouse_wheel,
        "Turn the mouse wheel where the mouse last went (the viewport's centre at first).";
    EmulateMedia(EmulateMediaArgs) => "browser_emulate_media", "Emulate media features", read_only: false, run: emulate_media,
        "Emulate CSS media features for the page, for example switch between the light and dark \
         color scheme. Omitted parameters are left unchanged; null clears an override.";
    PdfSave(PdfArgs) => "browser_pdf_save", "Save as PDF", read_only: true, run: pdf_save,
        "Save the current page as a PDF file, printed as Chromium prints it (Letter, no \
         backgrounds).";
    StartVideo(StartVideoArgs) => "browser_start_video", "Start video", read_only: true, run: start_video,
        "Start a video (WebM) of the current tab: its page only, as the browser draws it. The \
         person sees that it records. End it with browser_stop_video.";
    VideoChapter(ChapterArgs) => "browser_video_chapter", "Video chapter", read_only: true, run: video_chapter,
        "Add a chapter marker at this moment to the videos being recorded.";
    StopVideo(NoArgs) => "browser_stop_video", "Stop video", read_only: true, run: stop_video,
        "Stop video recording and save the videos.";
    Evaluate(EvaluateArgs) => "browser_evaluate", "Evaluate JavaScript", read_only: false, run: evaluate,
        "Evaluate a JavaScript function on the current page and return its value. Only \
         available while the person has turned developer mode on in the cotab popup.";
}

/// The tools to list: those `caps` offers, without [`PRIVILEGED`] while
/// developer mode is off.
pub(crate) fn definitions(developer_mode: bool, caps: Caps) -> Vec<Tool> {
    all_tools()
        .into_iter()
        .filter(|t| {
            (developer_mode || !PRIVILEGED.contains(&t.name.as_ref())) && caps.offers(&t.name)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> JsonObject {
        match v {
            Value::Object(o) => o,
            _ => panic!("not an object"),
        }
    }

    /// Every opt-in group on.
    const ALL: Caps = Caps {
        vision: true,
        pdf: true,
        devtools: true,
    };

    #[test]
    fn the_coordinate_tools_are_listed_only_with_vision() {
        let plain: Vec<_> = definitions(true, Caps::default())
            .into_iter()
            .map(|t| t.name)
            .collect();
        let vision: Vec<_> = definitions(true, ALL).into_iter().map(|t| t.name).collect();
        for name in VISION {
            assert!(!plain.iter().any(|n| n == name), "{name} in {plain:?}");
            assert!(vision.iter().any(|n| n == name), "{name} not in {vision:?}");
        }
        assert_eq!(
            vision.len(),
            plain.len() + VISION.len() + PDF.len() + DEVTOOLS.len()
        );
        let pdf_only = Caps {
            pdf: true,
            ..Caps::default()
        };
        let with_pdf: Vec<_> = definitions(true, pdf_only)
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert!(!plain.iter().any(|n| n == "browser_pdf_save"));
        assert!(with_pdf.iter().any(|n| n == "browser_pdf_save"));
        assert_eq!(with_pdf.len(), plain.len() + PDF.len());
        let devtools = Caps {
            devtools: true,
            ..Caps::default()
        };
        let with_video: Vec<_> = definitions(true, devtools)
            .into_iter()
            .map(|t| t.name)
            .collect();
        for name in DEVTOOLS {
            assert!(!plain.iter().any(|n| n == name), "{name} in {plain:?}");
            assert!(with_video.iter().any(|n| n == name), "{name}");
        }
        assert_eq!(
            schema_of("browser_video_chapter")["required"],
            json!(["title"])
        );
        assert_eq!(
            schema_of("browser_mouse_click_xy")["required"],
            json!(["x", "y"])
        );
        assert_eq!(
            schema_of("browser_mouse_drag_xy")["required"],
            json!(["startX", "startY", "endX", "endY"])
        );
        assert_eq!(
            schema_of("browser_mouse_wheel")["required"],
            json!(["deltaX", "deltaY"])
        );
    }

    #[test]
    fn evaluate_is_listed_only_in_developer_mode() {
        let off: Vec<_> = definitions(false, Caps::default())
            .into_iter()
            .map(|t| t.name)
            .collect();
        let on: Vec<_> = definitions(true, ALL).into_iter().map(|t| t.name).collect();
        assert!(!off.iter().any(|n| n == EVALUATE), "{off:?}");
        assert!(on.iter().any(|n| n == EVALUATE), "{on:?}");
        assert_eq!(on.len(), NAMES.len());
        assert!(
            !off.iter().any(|n| n == "browser_network_request"),
            "{off:?}"
        );
        assert_eq!(
            off.len(),
            NAMES.len() - PRIVILEGED.len() - VISION.len() - PDF.len() - DEVTOOLS.len()
        );
        for name in [
            "browser_tabs",
            "browser_navigate",
            "browser_navigate_back",
            "browser_snapshot",
            "browser_click",
            "browser_hover",
            "browser_type",
            "browser_press_key",
            "browser_select_option",
            "browser_fill_form",
            "browser_drag",
            "browser_take_screenshot",
            "browser_wait_for",
            "browser_handle_dialog",
            "browser_console_messages",
            "browser_file_upload",
        ] {
            assert!(off.iter().any(|n| n == name), "{name} missing from {off:?}");
        }
    }

    #[test]
    fn every_tool_has_a_description_title_and_object_schema() {
        for t in definitions(true, ALL) {
            let description = t.description.as_deref().unwrap_or_default();
            assert!(description.len() > 30, "{}: {description}", t.name);
            let title = t.annotations.as_ref().and_then(|a| a.title.as_deref());
            assert!(title.is_some_and(|t| !t.is_empty()), "{}", t.name);
            assert_eq!(t.input_schema["type"], "object", "{}", t.name);
            assert!(t.input_schema["properties"].is_object(), "{}", t.name);
            // The schema is self-contained, so clients need not resolve refs.
            let text = serde_json::to_string(&*t.input_schema).expect("serialises");
            assert!(!text.contains("$ref"), "{}: {text}", t.name);
            assert!(!text.contains("null"), "{}: {text}", t.name);
            assert!(!text.contains("\\n"), "{}: {text}", t.name);
        }
    }

    fn schema_of(name: &str) -> Value {
        let t = definitions(true, ALL)
            .into_iter()
            .find(|t| t.name == name)
            .expect("tool exists");
        Value::Object((*t.input_schema).clone())
    }

    #[test]
    fn click_schema_golden() {
        let s = schema_of("browser_click");
        assert_eq!(s["required"], json!(["target"]));
        assert_eq!(s["properties"]["element"]["type"], "string");
        assert_eq!(s["properties"]["target"]["type"], "string");
        assert!(s["properties"]["target"]["description"]
            .as_str()
            .is_some_and(|d| d.contains("snapshot")));
        assert_eq!(s["properties"]["doubleClick"]["type"], "boolean");
        assert_eq!(s["properties"]["button"]["type"], "string");
        assert_eq!(
            s["properties"]["button"]["enum"],
            json!(["left", "right", "middle"])
        );
        assert_eq!(s["properties"]["modifiers"]["type"], "array");
        assert_eq!(
            s["properties"]["modifiers"]["items"]["enum"],
            json!(["Alt", "Control", "ControlOrMeta", "Meta", "Shift"])
        );
    }

    #[test]
    fn other_schemas_name_their_fields_as_playwright_does() {
        let required = |name: &str| schema_of(name)["required"].clone();
        assert_eq!(required("browser_tabs"), json!(["action"]));
        assert_eq!(
            schema_of("browser_tabs")["properties"]["action"]["enum"],
            json!(["list", "new", "close", "select"])
        );
        assert_eq!(required("browser_navigate"), json!(["url"]));
        assert_eq!(required("browser_hover"), json!(["target"]));
        assert_eq!(required("browser_type"), json!(["target", "text"]));
        assert_eq!(required("browser_press_key"), json!(["key"]));
        assert_eq!(
            required("browser_select_option"),
            json!(["target", "values"])
        );
        assert_eq!(
            required("browser_drag"),
            json!(["startTarget", "endTarget"])
        );
        assert_eq!(required("browser_handle_dialog"), json!(["accept"]));
        // As Playwright MCP: no paths cancel the file chooser.
        let upload = schema_of("browser_file_upload");
        assert!(
            upload.get("required").is_none_or(|r| r == &json!([])),
            "{upload}"
        );
        assert_eq!(upload["properties"]["paths"]["items"]["type"], "string");
        assert_eq!(required("browser_evaluate"), json!(["function"]));
        let shot = schema_of("browser_take_screenshot");
        assert_eq!(shot["properties"]["type"]["enum"], json!(["png", "jpeg"]));
        assert!(shot.get("required").is_none_or(|r| r == &json!([])));
        let wait = schema_of("browser_wait_for");
        assert_eq!(wait["properties"]["time"]["type"], "number");
        assert!(wait["properties"]["textGone"].is_object());
        assert_eq!(schema_of("browser_navigate_back")["properties"], json!({}));
        let snap = schema_of("browser_snapshot");
        for field in ["target", "filename", "depth"] {
            assert!(snap["properties"][field].is_object(), "{field}: {snap}");
        }
        for field in ["filename", "fullPage", "scale"] {
            assert!(shot["properties"][field].is_object(), "{field}: {shot}");
        }
        let media = schema_of("browser_emulate_media");
        assert_eq!(
            media["properties"]["colorScheme"],
            json!({"type": "string", "enum": ["light", "dark"],
                   "description": "Emulates the prefers-color-scheme media feature."})
        );
        assert_eq!(
            media["properties"]["media"]["enum"],
            json!(["screen", "print"])
        );
        assert_eq!(required("browser_resize"), json!(["width", "height"]));
        assert_eq!(
            schema_of("browser_console_messages")["properties"]["level"]["enum"],
            json!(["error", "warning", "info", "debug"])
        );
    }

    #[test]
    fn an_argument_a_tool_does_not_take_is_an_error_naming_it() {
        for (tool, extra) in [
            ("browser_take_screenshot", json!({"omitBackground": true})),
            ("browser_snapshot", json!({"selector": "body"})),
            ("browser_click", json!({"target": "e1", "force": true})),
            ("browser_console_messages", json!({"since": 3})),
        ] {
            let name = extra
                .as_object()
                .and_then(|o| o.keys().find(|k| *k != "target").cloned())
                .expect("an extra argument");
            let err = ToolCall::parse(tool, args(extra)).expect_err("refused");
            let text = err.to_string();
            assert!(
                text.starts_with(&format!("invalid arguments for {tool}"))
                    && text.contains(&format!("`{name}`")),
                "{tool}: {text}"
            );
        }
    }

    #[test]
    fn calls_decode_to_typed_arguments() {
        assert_eq!(
            ToolCall::parse(
                "browser_click",
                args(
                    json!({"element": "Submit button", "ref": "e4", "doubleClick": true, "modifiers": ["Shift"]})
                )
            ),
            Ok(ToolCall::Click(ClickArgs {
                element: Some("Submit button".into()),
                target: "e4".into(),
                double_click: true,
                button: None,
                modifiers: vec![ModifierArg::Shift],
            }))
        );
        assert_eq!(
            ToolCall::parse("browser_snapshot", JsonObject::new()),
            Ok(ToolCall::Snapshot(SnapshotArgs::default()))
        );
        assert_eq!(
            ToolCall::parse(
                "browser_tabs",
                args(json!({"action": "select", "index": 1}))
            ),
            Ok(ToolCall::Tabs(TabsArgs {
                action: TabsAction::Select,
                index: Some(1),
                tab_id: None,
                url: None,
            }))
        );
        assert_eq!(
            ToolCall::parse("browser_take_screenshot", JsonObject::new()),
            Ok(ToolCall::TakeScreenshot(ScreenshotArgs {
                kind: None,
                filename: None,
                full_page: false,
                scale: ScaleArg::Css,
                element: None,
                target: None,
            }))
        );
        assert_eq!(
            ToolCall::parse("browser_teleport", JsonObject::new()),
            Err(ArgsError::UnknownTool)
        );
        let err = ToolCall::parse("browser_click", args(json!({"element": "x"})))
            .expect_err("the target is required");
        assert!(err.to_string().contains("`target`"), "{err}");
        // Earlier Playwright MCP's names are taken too.
        assert_eq!(
            ToolCall::parse("browser_hover", args(json!({"ref": "e2"}))),
            Ok(ToolCall::Hover(ElementArgs {
                element: None,
                target: "e2".into(),
            }))
        );
        assert!(matches!(
            ToolCall::parse(
                "browser_drag",
                args(json!({"startRef": "e1", "endTarget": "e2"}))
            ),
            Ok(ToolCall::Drag(DragArgs { ref start_target, .. })) if start_target == "e1"
        ));
        assert!(err
            .to_string()
            .starts_with("invalid arguments for browser_click"));
        assert_eq!(
            ToolCall::parse("browser_console_messages", args(json!({"level": "error"}))),
            Ok(ToolCall::ConsoleMessages(ConsoleArgs {
                level: ConsoleLevelArg::Error,
                all: false,
                filename: None,
            }))
        );
        for name in NAMES {
            let call = ToolCall::parse(name, JsonObject::new());
            if let Ok(call) = call {
                assert_eq!(call.name(), *name);
            }
        }
    }
}
