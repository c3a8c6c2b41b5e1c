//! The `cotab` command line: its global options and one subcommand per
//! thing an agent or a script asks of the shared tabs, as clap parses them
//! ([`command`], whose help lists the subcommands by group). In the
//! library so that `cargo xtask` can write its shell completions and man
//! pages.

use clap::{CommandFactory as _, Parser, Subcommand};
use cotab_shared::controller::{
    ColorScheme, ConsoleLevel, Contrast, ForcedColors, ImageFormat, MediaType, MouseButton,
    ReducedMotion, WaitUntil,
};
use std::path::PathBuf;

/// The options every subcommand takes, and the subcommand. (Doc comments
/// of clap's types are help text; `about` is set, so this one is not.)
#[derive(Parser)]
#[command(
    name = "cotab",
    version,
    about = "Drive browser tabs shared with cotab",
    long_about = None
)]
pub struct Cli {
    /// Print results as JSON, errors too (one value on stdout).
    #[arg(long, global = true, help_heading = "Global options")]
    pub json: bool,
    /// The daemon's runtime directory (default: $COTAB_RUNTIME_DIR,
    /// `$XDG_RUNTIME_DIR/cotab` or `/tmp/cotab-UID`).
    #[arg(long, global = true, help_heading = "Global options")]
    pub runtime_dir: Option<PathBuf>,
    /// Let an acting command take control of the selected tab even after
    /// `cotab release` (never from the person).
    #[arg(long, global = true, help_heading = "Global options")]
    pub take: bool,
    /// What to do.
    #[command(subcommand)]
    pub command: Cmd,
}

/// The subcommands, in the help's groups: each subcommand is in exactly
/// one.
pub const GROUPS: &[(&str, &[&str])] = &[
    ("Session", &["status", "select", "acquire", "release"]),
    ("Tabs", &["tabs", "new-tab", "close-tab"]),
    (
        "Page",
        &[
            "navigate",
            "back",
            "forward",
            "reload",
            "snapshot",
            "screenshot",
            "pdf",
            "resize",
            "emulate",
            "wait",
            "console",
            "network",
            "dialog",
        ],
    ),
    (
        "Input",
        &[
            "click",
            "type",
            "press",
            "hover",
            "select-option",
            "check",
            "uncheck",
            "drag",
            "scroll",
            "upload",
            "drop",
            "key-down",
            "key-up",
            "mouse-down",
            "mouse-move",
            "mouse-up",
        ],
    ),
    ("Developer mode", &["eval", "cdp"]),
    ("Serve", &["mcp", "cdp-endpoint"]),
    ("Record", &["activity"]),
    ("Diagnose", &["doctor", "logs"]),
    ("Set up", &["completions"]),
];

/// The top-level help: usage, the subcommands by group, the options.
const HELP_TEMPLATE: &str =
    "{about-with-newline}\n{usage-heading} {usage}\n\n{before-help}Options:\n{options}{after-help}";

/// A media feature as `cotab emulate` takes it: a value, or `clear` (no
/// emulation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting<T>(pub Option<T>);

/// Reads a [`Setting`]: `clear`, or one of the feature's values as the
/// protocol spells them.
fn change<T: serde::de::DeserializeOwned>(s: &str) -> Result<Setting<T>, String> {
    if s == "clear" {
        return Ok(Setting(None));
    }
    serde_json::from_value(serde_json::Value::String(s.into()))
        .map(|v| Setting(Some(v)))
        .map_err(|_| "not one of the values this feature takes (see --help)".to_string())
}

/// Reads `MIME=VALUE` for `cotab drop --data`.
fn mime_value(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(m, v)| (m.to_string(), v.to_string()))
        .ok_or_else(|| "expected MIME=VALUE, e.g. text/plain=hello".to_string())
}

/// `cotab`'s command line, its help's subcommands listed by [`GROUPS`].
pub fn command() -> clap::Command {
    let cmd = Cli::command();
    let width = GROUPS
        .iter()
        .flat_map(|(_, names)| names.iter())
        .map(|n| n.len())
        .max()
        .unwrap_or(0);
    let mut list = String::new();
    for (group, names) in GROUPS {
        list.push_str(&format!("{group}:\n"));
        for name in *names {
            let about = cmd
                .find_subcommand(name)
                .and_then(|c| c.get_about())
                .map(|a| a.to_string())
                .unwrap_or_default();
            list.push_str(&format!("  {name:width$}  {about}\n"));
        }
        list.push('\n');
    }
    cmd.help_template(HELP_TEMPLATE)
        .before_help(list.trim_end().to_owned())
        .disable_help_subcommand(true)
        .subcommand_help_heading(None::<&str>)
        .hide_possible_values(false)
}

/// What `cotab` was asked, parsed with [`command`].
pub fn parse() -> Result<Cli, clap::Error> {
    use clap::FromArgMatches as _;
    Cli::from_arg_matches(&command().try_get_matches()?)
}

/// The subcommands.
#[derive(Subcommand)]
pub enum Cmd {
    /// `status`, `tabs`, `select`, `acquire`, `release`, `new-tab`,
    /// `close-tab`.
    #[command(flatten)]
    Tabs(TabsCmd),
    /// `navigate`, `back`, `forward`, `reload`, `snapshot`, `screenshot`,
    /// `wait`, `console`, `eval`, `cdp`.
    #[command(flatten)]
    Page(PageCmd),
    /// `click`, `type`, `press`, `hover`, `select-option`, `check`,
    /// `uncheck`, `drag`, `scroll`, `upload`, `dialog`, and held keys and
    /// buttons.
    #[command(flatten)]
    Input(InputCmd),
    /// Check what cotab needs (binaries, PATH, host manifests, the daemon,
    /// the browser lane, versions) and print the command that fixes each
    /// failure.
    Doctor,
    /// Print the daemon's log (or the relay's), and with `-f` follow it.
    Logs {
        /// Keep printing lines as they are written.
        #[arg(short, long)]
        follow: bool,
        /// How many of the last lines to print first.
        #[arg(short = 'n', long, value_name = "N", default_value_t = 50)]
        lines: usize,
        /// The relays' log instead of the daemon's.
        #[arg(long)]
        relay: bool,
    },
    /// The activity record: what each agent session did, kept by the
    /// daemon in its state directory. Lists the sessions without a
    /// subcommand.
    Activity {
        /// What to do with it.
        #[command(subcommand)]
        cmd: Option<ActivityCmd>,
    },
    /// Print the shell completions of `cotab` for SHELL, e.g.
    /// `cotab completions bash > ~/.local/share/bash-completion/completions/cotab`.
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Serve a CDP endpoint on 127.0.0.1 for Playwright's
    /// `connectOverCDP` and Puppeteer's `connect`: the shared tabs only,
    /// developer mode only. Prints its url and token, then serves until
    /// stopped.
    CdpEndpoint {
        /// The port (default: a random free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
    /// Serve MCP on stdin/stdout: browser tools (browser_snapshot,
    /// browser_click, …) for LLM clients, in a session of their own.
    Mcp {
        /// Keep the session's ticket in this file: resume the session at
        /// start, leave it resumable at exit (for one-shot MCP clients that
        /// start a server per call).
        #[arg(long)]
        session_file: Option<PathBuf>,
        /// Opt-in tools, comma-separated, as Playwright MCP's `--caps`:
        /// `vision` adds the coordinate tools (browser_mouse_click_xy, …).
        #[arg(long, value_enum, value_delimiter = ',', value_name = "CAPS")]
        caps: Vec<cotab_mcp::Cap>,
        /// Where files the tools name themselves go (a screenshot or PDF
        /// saved without a `filename`), relative to the directory cotab mcp
        /// starts in, which is also where every `filename` a tool is given
        /// must lie. Default: `.cotab-mcp` there, or in the temporary
        /// directory when that is `/` or not writable.
        #[arg(long, value_name = "DIR")]
        output_dir: Option<PathBuf>,
        /// What an action's answer shows of the page: `diff`, what changed
        /// in its outline since the one last shown of that tab (the whole
        /// outline when the page navigated or that is shorter); `full`,
        /// the whole outline; `none`, no outline (call browser_snapshot).
        #[arg(long, value_enum, default_value_t = cotab_mcp::SnapshotMode::Diff, value_name = "MODE")]
        snapshot_mode: cotab_mcp::SnapshotMode,
    },
}

/// `cotab activity …`.
#[derive(Subcommand, Debug, PartialEq, Eq)]
pub enum ActivityCmd {
    /// Each session kept, the latest first: its id, agent, start, length,
    /// requests and tabs.
    List,
    /// Every entry of session ID, in order.
    Show {
        /// The session, as `cotab activity list` shows it.
        id: String,
    },
    /// Session ID as one self-contained HTML page, which any browser
    /// opens without a network.
    Export {
        /// The session, as `cotab activity list` shows it.
        id: String,
        /// Where to write it (`-`: stdout). Made readable by you only.
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
    },
    /// Remove session ID, or with `--all` every session.
    Clear {
        /// The session, as `cotab activity list` shows it.
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        id: Option<String>,
        /// Every session.
        #[arg(long)]
        all: bool,
    },
}

/// The daemon, the shared tabs and who controls them.
#[derive(Subcommand)]
pub enum TabsCmd {
    /// The daemon's and the browser's state.
    Status,
    /// List the shared tabs (`*` marks the selected one).
    Tabs,
    /// Select the tab later commands act on, and take control of it.
    Select {
        /// Tab id from `cotab tabs`.
        id: i32,
        /// Only select (observe); do not take control.
        #[arg(long)]
        observe: bool,
    },
    /// Take control of the selected tab.
    Acquire,
    /// Give control of the selected tab back (held input is released).
    Release,
    /// Open a new tab (shared, selected, under your control).
    NewTab {
        /// An http: or https: url; a blank tab when absent.
        url: Option<String>,
    },
    /// Close a shared tab (default: the selected one).
    CloseTab {
        /// Tab id from `cotab tabs`.
        id: Option<i32>,
    },
}

/// What the selected tab shows, and where it goes.
#[derive(Subcommand)]
pub enum PageCmd {
    /// Navigate the selected tab and wait for it to load.
    Navigate {
        /// An http: or https: url.
        url: String,
    },
    /// Go back in the selected tab's history and wait for the page.
    Back,
    /// Go forward in the selected tab's history and wait for the page.
    Forward,
    /// Reload the selected tab and wait for it to load.
    Reload,
    /// Print the selected tab's accessibility outline with element refs.
    Snapshot {
        /// Longest outline, in characters.
        #[arg(long, value_name = "N")]
        max_chars: Option<usize>,
        /// Only this element (a ref of the latest snapshot) and what is
        /// inside it.
        #[arg(long = "ref", value_name = "REF")]
        root: Option<String>,
        /// Only this many levels below the top (at least 1).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        depth: Option<u32>,
        /// Show each element's box, `[box=x,y,width,height]` in viewport CSS
        /// pixels.
        #[arg(long)]
        boxes: bool,
        /// Print what changed since this session's last snapshot of the
        /// page (`+` added, `-` removed, unmarked lines show where), when
        /// that is shorter than the outline; refs of lines still shown
        /// stay valid.
        #[arg(long, conflicts_with_all = ["root", "depth", "boxes"])]
        changes: bool,
    },
    /// Capture the selected tab to a file.
    Screenshot {
        /// Output file: its extension names the format (.png, .jpg,
        /// .jpeg); `-` writes the image to stdout.
        #[arg(short, long)]
        output: PathBuf,
        /// Image format (default: the one `--output` names; JPEG for `-`).
        #[arg(long, value_enum)]
        format: Option<ImageFormat>,
        /// JPEG quality 0–100.
        #[arg(long)]
        quality: Option<u8>,
        /// Downscale so the image is at most this many pixels wide.
        #[arg(long, value_name = "N")]
        max_width: Option<u32>,
        /// Capture only this element (a ref from `cotab snapshot`).
        #[arg(long, value_name = "REF", conflicts_with = "full_page")]
        clip: Option<String>,
        /// Capture the whole scrollable page, not only the viewport.
        #[arg(long)]
        full_page: bool,
    },
    /// Print the selected tab's page to a PDF file.
    Pdf {
        /// Output file; `-` writes the PDF to stdout.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Render the selected tab's page at another size.
    ///
    /// The page's viewport takes the size (CSS pixels, at most 1920x1200)
    /// until `--clear`, the person takes control or the tab is no longer
    /// shared; the window keeps
    /// its own.
    Resize {
        /// Width of the page's viewport.
        #[arg(required_unless_present = "clear")]
        width: Option<u32>,
        /// Height of the page's viewport.
        #[arg(required_unless_present = "clear")]
        height: Option<u32>,
        /// Give the page the tab's own size again.
        #[arg(long, conflicts_with_all = ["width", "height"])]
        clear: bool,
    },
    /// Emulate CSS media features on the selected tab.
    ///
    /// Each feature given is set, or with `clear` no longer emulated; the
    /// others stay as they are.
    #[command(group = clap::ArgGroup::new("feature").multiple(true).required(true))]
    Emulate {
        /// prefers-color-scheme: light, dark or clear.
        #[arg(long, value_name = "V", group = "feature", value_parser = change::<ColorScheme>)]
        color_scheme: Option<Setting<ColorScheme>>,
        /// prefers-reduced-motion: reduce, no-preference or clear.
        #[arg(long, value_name = "V", group = "feature", value_parser = change::<ReducedMotion>)]
        reduced_motion: Option<Setting<ReducedMotion>>,
        /// forced-colors: active, none or clear.
        #[arg(long, value_name = "V", group = "feature", value_parser = change::<ForcedColors>)]
        forced_colors: Option<Setting<ForcedColors>>,
        /// prefers-contrast: more, no-preference or clear.
        #[arg(long, value_name = "V", group = "feature", value_parser = change::<Contrast>)]
        contrast: Option<Setting<Contrast>>,
        /// The CSS media type: screen, print or clear.
        #[arg(long, value_name = "V", group = "feature", value_parser = change::<MediaType>)]
        media: Option<Setting<MediaType>>,
    },
    /// Wait for a condition on the selected tab.
    Wait {
        /// What to wait for.
        #[arg(value_enum)]
        condition: WaitUntil,
        /// The text, ref, selector or milliseconds the condition needs.
        arg: Option<String>,
        /// Give up after this many milliseconds (default 30000).
        #[arg(long, value_name = "MS")]
        timeout: Option<u64>,
    },
    /// Print the selected tab's console messages and uncaught errors.
    Console {
        /// Only these levels (repeatable).
        #[arg(long = "level", value_enum, value_name = "L")]
        levels: Vec<ConsoleLevel>,
        /// Only messages after this cursor (a previous `next`).
        #[arg(long, value_name = "N")]
        since: Option<u64>,
    },
    /// List the selected tab's requests since it was shared, or show one.
    ///
    /// Without INDEX: `N. [METHOD] url => [status] text`, successful static
    /// resources (documents, scripts, images …) left out unless
    /// `--static`. With INDEX: that request's headers and bodies, secrets
    /// redacted (developer mode only).
    Network {
        /// The request to show, by its number in the list.
        index: Option<u64>,
        /// Also list successful static resources.
        #[arg(long = "static", conflicts_with = "index")]
        include_static: bool,
        /// Only requests whose url this regular expression matches.
        #[arg(long, value_name = "RE", conflicts_with = "index")]
        filter: Option<String>,
    },
    /// Evaluate JavaScript in the selected tab (developer mode only); prints
    /// the value as JSON.
    Eval {
        /// The expression.
        expr: String,
    },
    /// Send a raw CDP command to the selected tab (developer mode only).
    Cdp {
        /// CDP method, e.g. `Page.reload`.
        method: String,
        /// CDP params as a JSON object.
        params: Option<String>,
    },
}

/// Input to the selected tab, and its dialogs.
#[derive(Subcommand)]
pub enum InputCmd {
    /// Click an element (a ref from `cotab snapshot`) or a point in
    /// screenshot pixels (`X Y`).
    Click {
        /// `REF`, or `X Y`.
        #[arg(num_args = 1..=2, value_name = "REF | X Y", required = true)]
        target: Vec<String>,
        /// The mouse button to click with.
        #[arg(long, value_enum, default_value = "left")]
        button: MouseButton,
        /// Double click.
        #[arg(long)]
        double: bool,
        /// Modifiers held during the click, e.g. `Control,Shift`.
        #[arg(long, value_delimiter = ',', value_name = "M,…")]
        modifiers: Vec<String>,
    },
    /// Type text into an element (`--ref`) or the focused element.
    Type {
        /// The text to type.
        text: String,
        /// The element to type into (focused first).
        #[arg(long = "ref", value_name = "REF")]
        element: Option<String>,
        /// Empty the element first.
        #[arg(long)]
        clear: bool,
        /// Press Enter afterwards.
        #[arg(long)]
        submit: bool,
    },
    /// Press a key, e.g. `Enter`, `a`, `Control+a`, `ControlOrMeta+c`, `Shift+Tab`.
    Press {
        /// Key name, optionally with `+`-joined modifiers first.
        key: String,
    },
    /// Move the mouse over an element (`REF`) or a point (`X Y`).
    Hover {
        /// `REF`, or `X Y`.
        #[arg(num_args = 1..=2, value_name = "REF | X Y", required = true)]
        target: Vec<String>,
    },
    /// Select options of a `<select>` by value or label.
    SelectOption {
        /// The select element.
        element: String,
        /// Values or labels.
        #[arg(required = true)]
        values: Vec<String>,
    },
    /// Check a checkbox or radio button (nothing happens if it is checked).
    Check {
        /// The checkbox or radio button: a ref from `cotab snapshot` (e.g. e5).
        element: String,
    },
    /// Uncheck a checkbox.
    Uncheck {
        /// The checkbox: a ref from `cotab snapshot` (e.g. e5).
        element: String,
    },
    /// Drag one element onto another.
    Drag {
        /// The element to drag.
        from: String,
        /// The element to drop it on.
        to: String,
    },
    /// Scroll an element into view, or turn the wheel (`--dx`/`--dy`).
    Scroll {
        /// The element to bring into view.
        element: Option<String>,
        /// Horizontal scroll in CSS pixels.
        #[arg(long, allow_negative_numbers = true, value_name = "N")]
        dx: Option<f64>,
        /// Vertical scroll in CSS pixels (positive scrolls down).
        #[arg(long, allow_negative_numbers = true, value_name = "N")]
        dy: Option<f64>,
        /// Where the wheel turns, in screenshot pixels (default: the
        /// viewport's centre).
        #[arg(long, num_args = 2, value_names = ["X", "Y"])]
        at: Option<Vec<f64>>,
    },
    /// Set the files of a file input, or of the file chooser an action
    /// opened (paths under the allowed directories).
    #[command(group = clap::ArgGroup::new("input").required(true))]
    Upload {
        /// The file input.
        #[arg(group = "input", requires = "paths")]
        element: Option<String>,
        /// Files to upload.
        paths: Vec<PathBuf>,
        /// Answer the file chooser an action opened with these files
        /// (none: cancel it) instead of naming the input.
        #[arg(long, group = "input", num_args = 0.., value_name = "FILE")]
        chooser: Option<Vec<PathBuf>>,
    },
    /// Drop files or data onto an element, as if dragged from outside the
    /// page (files under the allowed directories).
    #[command(group = clap::ArgGroup::new("dropped").multiple(true).required(true))]
    Drop {
        /// The element to drop onto.
        element: String,
        /// A file to drop (repeatable).
        #[arg(long = "file", value_name = "PATH", group = "dropped")]
        paths: Vec<PathBuf>,
        /// Data to drop, `MIME=VALUE`, e.g. `text/plain=hello` (repeatable).
        #[arg(long, value_name = "MIME=VALUE", group = "dropped", value_parser = mime_value)]
        data: Vec<(String, String)>,
    },
    /// Answer the JavaScript dialog open on the selected tab.
    Dialog {
        /// Accept (OK) or dismiss (Cancel).
        #[arg(value_enum)]
        answer: DialogAnswer,
        /// The answer to a prompt.
        #[arg(long)]
        text: Option<String>,
    },
    /// Press and hold a key until `key-up`.
    KeyDown {
        /// Key name, optionally with `+`-joined modifiers first.
        key: String,
    },
    /// Release a key held with `key-down`.
    KeyUp {
        /// Key name.
        key: String,
    },
    /// Press and hold a mouse button at a point in screenshot pixels.
    MouseDown {
        /// Horizontal position.
        x: f64,
        /// Vertical position.
        y: f64,
        /// The mouse button to hold.
        #[arg(long, value_enum, default_value = "left")]
        button: MouseButton,
    },
    /// Move the mouse (with any held button) to a point in screenshot pixels.
    MouseMove {
        /// Horizontal position.
        x: f64,
        /// Vertical position.
        y: f64,
    },
    /// Release a mouse button held with `mouse-down`.
    MouseUp {
        /// The mouse button to release.
        #[arg(long, value_enum, default_value = "left")]
        button: MouseButton,
    },
}

/// An answer to a JavaScript dialog.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum DialogAnswer {
    /// OK (with `--text` for a prompt).
    Accept,
    /// Cancel.
    Dismiss,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_lists_every_subcommand_in_exactly_one_group() {
        let cmd = Cli::command();
        let names: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).collect();
        let grouped: Vec<&str> = GROUPS.iter().flat_map(|(_, n)| n.iter().copied()).collect();
        for name in &names {
            let times = grouped.iter().filter(|g| *g == name).count();
            assert_eq!(times, 1, "`{name}` is in {times} groups");
        }
        for name in &grouped {
            assert!(names.contains(name), "`{name}` is no subcommand");
        }
        let help = command().render_help().to_string();
        for (group, _) in GROUPS {
            assert!(help.contains(&format!("\n{group}:\n")), "{help}");
        }
        assert!(!help.contains("Commands:"), "{help}");
    }

    #[test]
    fn the_global_options_parse_before_and_after_the_subcommand() {
        use clap::FromArgMatches as _;
        for args in [
            &["cotab", "--json", "tabs"][..],
            &["cotab", "tabs", "--json"],
        ] {
            let m = command().try_get_matches_from(args).expect("parses");
            assert!(Cli::from_arg_matches(&m).expect("a Cli").json, "{args:?}");
        }
        assert!(command()
            .try_get_matches_from(["cotab", "no-such-command"])
            .is_err());
    }
}
