//! The arguments of the MCP tools, as typed structs: their field names and
//! types are Playwright MCP's, their doc comments become the JSON schema's
//! descriptions, and every struct refuses an argument it does not take.
//! Tools with a module of their own (`find`, `vision`, …) keep their
//! arguments there.

use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of tools that take none.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoArgs {}

/// What `browser_tabs` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TabsAction {
    List,
    New,
    Close,
    Select,
}

/// Arguments of `browser_tabs`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct TabsArgs {
    /// Operation to perform: `list` the shared tabs, open a `new` one,
    /// `close` one, or `select` the tab the other tools act on.
    pub(crate) action: TabsAction,
    /// Tab index (0-based, as `list` shows it), for `close` and `select`.
    /// `close` without index or tabId closes the current tab.
    pub(crate) index: Option<usize>,
    /// Tab id (as `list` shows it), instead of `index`.
    pub(crate) tab_id: Option<i32>,
    /// For `new`: the http(s) URL to open; a blank tab when absent.
    pub(crate) url: Option<String>,
}

impl TabsArgs {
    /// `close` of the current tab (`browser_close`).
    pub(crate) fn close_current() -> TabsArgs {
        TabsArgs {
            action: TabsAction::Close,
            index: None,
            tab_id: None,
            url: None,
        }
    }
}

/// Arguments of `browser_navigate`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NavigateArgs {
    /// The URL to navigate to (http or https).
    pub(crate) url: String,
}

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ButtonArg {
    Left,
    Right,
    Middle,
}

/// A modifier key, as Playwright names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum ModifierArg {
    Alt,
    Control,
    ControlOrMeta,
    Meta,
    Shift,
}

/// Arguments of `browser_click`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct ClickArgs {
    /// Human-readable element description used to obtain permission to
    /// interact with the element.
    pub(crate) element: Option<String>,
    /// Exact target element reference from the page snapshot (`ref` is
    /// taken too, as earlier Playwright MCP named it).
    #[serde(rename = "target", alias = "ref")]
    pub(crate) target: String,
    /// Whether to perform a double click instead of a single click.
    #[serde(default)]
    pub(crate) double_click: bool,
    /// Button to click, defaults to left.
    pub(crate) button: Option<ButtonArg>,
    /// Modifier keys to press during the click.
    #[serde(default)]
    pub(crate) modifiers: Vec<ModifierArg>,
}

/// Arguments of `browser_hover`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ElementArgs {
    /// Human-readable element description used to obtain permission to
    /// interact with the element.
    pub(crate) element: Option<String>,
    /// Exact target element reference from the page snapshot (`ref` is
    /// taken too, as earlier Playwright MCP named it).
    #[serde(rename = "target", alias = "ref")]
    pub(crate) target: String,
}

/// Arguments of `browser_type`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TypeArgs {
    /// Human-readable element description used to obtain permission to
    /// interact with the element.
    pub(crate) element: Option<String>,
    /// Exact target element reference from the page snapshot (`ref` is
    /// taken too, as earlier Playwright MCP named it).
    #[serde(rename = "target", alias = "ref")]
    pub(crate) target: String,
    /// Text to type into the element; it replaces the element's value.
    pub(crate) text: String,
    /// Whether to submit entered text (press Enter after).
    #[serde(default)]
    pub(crate) submit: bool,
    /// Whether to type one character at a time. Useful for triggering key
    /// handlers in the page. By default entire text is filled in at once.
    #[serde(default)]
    pub(crate) slowly: bool,
}

/// Arguments of `browser_press_key`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PressKeyArgs {
    /// Name of the key to press or a character to generate, such as
    /// `ArrowLeft` or `a`; modifiers first for a combination, such as
    /// `Control+a` or `Shift+Tab`.
    pub(crate) key: String,
}

/// Arguments of `browser_select_option`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SelectOptionArgs {
    /// Human-readable element description used to obtain permission to
    /// interact with the element.
    pub(crate) element: Option<String>,
    /// Exact target element reference from the page snapshot (`ref` is
    /// taken too, as earlier Playwright MCP named it).
    #[serde(rename = "target", alias = "ref")]
    pub(crate) target: String,
    /// Array of values to select in the dropdown, by value or visible
    /// label. This can be a single value or multiple values.
    pub(crate) values: Vec<String>,
}

/// What kind of form field a `browser_fill_form` field is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum FieldKind {
    Textbox,
    Checkbox,
    Radio,
    Combobox,
    Slider,
}

/// One field of `browser_fill_form`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FormField {
    /// Human-readable element description used to obtain permission to
    /// interact with the element.
    pub(crate) element: Option<String>,
    /// Exact target element reference from the page snapshot (`ref` is
    /// taken too).
    #[serde(rename = "target", alias = "ref")]
    pub(crate) target: String,
    /// Human-readable field name.
    pub(crate) name: String,
    /// Type of the field.
    #[serde(rename = "type")]
    pub(crate) kind: FieldKind,
    /// Value to fill in the field. If the field is a checkbox, the value
    /// should be `true` or `false`. If the field is a combobox, the value
    /// should be the text of the option.
    pub(crate) value: String,
}

/// Arguments of `browser_fill_form`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FillFormArgs {
    /// Fields to fill in.
    pub(crate) fields: Vec<FormField>,
}

/// Arguments of `browser_drag`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct DragArgs {
    /// Human-readable source element description used to obtain the
    /// permission to interact with the element.
    pub(crate) start_element: Option<String>,
    /// Exact source element reference from the page snapshot
    /// (`startRef` is taken too).
    #[serde(alias = "startRef")]
    pub(crate) start_target: String,
    /// Human-readable target element description used to obtain the
    /// permission to interact with the element.
    pub(crate) end_element: Option<String>,
    /// Exact target element reference from the page snapshot (`endRef` is
    /// taken too).
    #[serde(alias = "endRef")]
    pub(crate) end_target: String,
}

/// An image format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ImageType {
    Png,
    Jpeg,
}

/// The resolution of a screenshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ScaleArg {
    /// One image pixel per CSS pixel.
    #[default]
    Css,
    /// The device's pixels (more on a high-density screen).
    Device,
}

/// Arguments of `browser_take_screenshot`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct ScreenshotArgs {
    /// Image format for the screenshot. If unset, inferred from the
    /// filename extension, otherwise png.
    #[serde(default, rename = "type")]
    pub(crate) kind: Option<ImageType>,
    /// File name to save the screenshot to, inside the workspace root (the
    /// directory cotab mcp started in). If not specified, the screenshot
    /// is saved into the output directory as `page-{timestamp}.{png|jpeg}`
    /// and returned as an image.
    pub(crate) filename: Option<String>,
    /// When true, takes a screenshot of the full scrollable page, instead
    /// of the currently visible viewport. Cannot be used with element
    /// screenshots.
    #[serde(default)]
    pub(crate) full_page: bool,
    /// Image resolution scale: "css" (the default) sizes the image in CSS
    /// pixels, "device" in the device's pixels.
    #[serde(default)]
    pub(crate) scale: ScaleArg,
    /// Human-readable element description used to obtain permission to
    /// screenshot the element. If not provided, the screenshot is taken of
    /// the viewport. If element is provided, ref must be provided too.
    pub(crate) element: Option<String>,
    /// Exact target element reference from the page snapshot (`ref` is
    /// taken too). If not provided, the screenshot is taken of the
    /// viewport.
    #[serde(rename = "target", alias = "ref")]
    pub(crate) target: Option<String>,
}

/// Arguments of `browser_snapshot`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SnapshotArgs {
    /// Exact target element reference from the page snapshot: only that
    /// element and what is inside it. The other refs stay valid.
    #[serde(rename = "target", alias = "ref")]
    pub(crate) target: Option<String>,
    /// Save snapshot to a file instead of returning it in the response,
    /// inside the workspace root.
    pub(crate) filename: Option<String>,
    /// Limit the depth of the snapshot tree (levels below the top).
    pub(crate) depth: Option<u32>,
    /// Include each element's bounding box as [box=x,y,width,height] in
    /// the snapshot: viewport-relative CSS pixels, its content box.
    #[serde(default)]
    pub(crate) boxes: bool,
}

/// Arguments of `browser_pdf_save`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PdfArgs {
    /// File name to save the pdf to, inside the workspace root. If not
    /// specified, the pdf is saved into the output directory as
    /// `page-{timestamp}.pdf`.
    pub(crate) filename: Option<String>,
}

/// Arguments of `browser_wait_for`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct WaitForArgs {
    /// The time to wait in seconds.
    pub(crate) time: Option<f64>,
    /// The text to wait for.
    pub(crate) text: Option<String>,
    /// The text to wait for to disappear.
    pub(crate) text_gone: Option<String>,
}

/// The least severe console level `browser_console_messages` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ConsoleLevelArg {
    Error,
    Warning,
    #[default]
    Info,
    Debug,
}

/// Arguments of `browser_console_messages`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConsoleArgs {
    /// Level of the console messages to return. Each level includes the
    /// messages of more severe levels. Defaults to "info".
    #[serde(default)]
    pub(crate) level: ConsoleLevelArg,
    /// Return all console messages since the tab was shared, not just
    /// since the last navigation. Defaults to false.
    #[serde(default)]
    pub(crate) all: bool,
    /// File name to save the console messages to, inside the workspace
    /// root. If not provided, messages are returned as text.
    pub(crate) filename: Option<String>,
}

/// Arguments of `browser_handle_dialog`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct HandleDialogArgs {
    /// Whether to accept the dialog.
    pub(crate) accept: bool,
    /// The text of the prompt in case of a prompt dialog.
    pub(crate) prompt_text: Option<String>,
}

/// Arguments of `browser_evaluate`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EvaluateArgs {
    /// `() => { /* code */ }` or `async () => { … }`: a JavaScript function
    /// run in the page; its return value (JSON) is the result.
    pub(crate) function: String,
    /// Human-readable element description (not supported: find the element
    /// in the function, e.g. with `document.querySelector`).
    pub(crate) element: Option<String>,
    /// Element reference (not supported, see `element`; `ref` is taken
    /// too).
    #[serde(rename = "target", alias = "ref")]
    pub(crate) target: Option<String>,
    /// File name to save the result to, inside the workspace root. If not
    /// provided, the result is returned as text.
    pub(crate) filename: Option<String>,
}
