//! What agents may reach (DESIGN §2, "Blocked targets"): which urls a
//! person may share, which an agent may navigate to, which a shared tab
//! may show and stay driveable, and which raw CDP commands developer mode
//! lets through. The extension enforces these on every path (sharing,
//! navigation events, each command); the daemon applies the same checks
//! first, so a refusal says why before anything is sent.
//!
//! The browser's own debugger refuses some blocked targets (`chrome://`,
//! other extensions' pages) but allows others (`file:`, `data:`,
//! `about:blank` and cotab's own pages), so cotab decides itself. This
//! module only classifies; it looks at no tab.

use crate::error::{ErrorKind, WireError};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// Why a url is out of agents' reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Blocked {
    /// A browser page: `chrome:`, `devtools:`, `about:` (but the blank
    /// page), `view-source:` …
    BrowserPage,
    /// An extension page, including cotab's own popup.
    ExtensionPage,
    /// A `file:` url outside the directories the host config allows.
    LocalFile,
    /// A `data:` url (a tab may show one, but not be shared or sent there).
    DataUrl,
    /// The Chrome Web Store, which extensions must never script.
    WebStore,
    /// No url yet, or a scheme other than `http:`/`https:`.
    NotWebPage,
}

impl Blocked {
    /// A few words for the popup and error messages.
    pub fn reason(self) -> &'static str {
        match self {
            Blocked::BrowserPage => "browser page",
            Blocked::ExtensionPage => "extension page",
            Blocked::LocalFile => "local file",
            Blocked::DataUrl => "data url",
            Blocked::WebStore => "web store",
            Blocked::NotWebPage => "not a web page",
        }
    }

    /// `BLOCKED_TARGET` for a shared tab whose page is this.
    pub fn suspended(self, tab: crate::TabId) -> WireError {
        WireError::new(
            ErrorKind::BlockedTarget,
            format!(
                "tab {tab} shows a page agents may not use ({}); nothing is sent to it until \
                 the person goes back to a web page",
                self.reason()
            ),
        )
    }
}

impl fmt::Display for Blocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "this tab cannot be shared ({}): only http and https pages can",
            self.reason()
        )
    }
}

/// The local directories whose files agents may reach: `fileDirs` in the
/// person's host config, absolute and with symlinks resolved by the
/// daemon. Empty (the default): no local file at all.
///
/// A `file:` url is allowed when its path, percent-decoded, is one of
/// these directories or lies below one, with no `.` or `..` segment and
/// no host (`file:///…` or `file://localhost/…`). The check is on the url:
/// a symlink inside an allowed directory is followed by the browser, so
/// the person allows only directories whose contents they trust.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LocalFiles(pub Vec<String>);

impl LocalFiles {
    /// No local file.
    pub const NONE: LocalFiles = LocalFiles(Vec::new());

    /// Whether the `file:` url `url` names a file agents may reach.
    pub fn allows(&self, url: &str) -> bool {
        if self.0.is_empty() {
            return false;
        }
        let Some(rest) = url
            .get(..7)
            .filter(|s| s.eq_ignore_ascii_case("file://"))
            .map(|_| &url[7..])
        else {
            return false;
        };
        let path = match rest.get(..9) {
            Some(h) if h.eq_ignore_ascii_case("localhost") => &rest[9..],
            _ => rest,
        };
        let path = path.split(['?', '#']).next().unwrap_or_default();
        let Some(path) = percent_decode(path).filter(|p| p.starts_with('/')) else {
            return false;
        };
        let clean = path
            .split('/')
            .skip(1)
            .all(|seg| !seg.is_empty() && seg != "." && seg != "..");
        clean
            && self.0.iter().any(|dir| {
                let dir = dir.trim_end_matches('/');
                !dir.is_empty()
                    && path
                        .strip_prefix(dir)
                        .is_some_and(|after| after.is_empty() || after.starts_with('/'))
            })
    }
}

/// `s` with `%XX` escapes decoded; `None` when one is malformed, the
/// result is not UTF-8, or it holds a NUL.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok().filter(|p| !p.contains('\0'))
}

/// Url prefixes of the web store, compared case-insensitively.
const WEB_STORE: &[&str] = &[
    "https://chromewebstore.google.com/",
    "https://chrome.google.com/webstore",
];

/// The blank page a tab opened for an agent without a url shows.
pub const BLANK_PAGE: &str = "about:blank";

/// The lower-case scheme of `url` (before the first `:`), or `""`.
fn scheme(lower: &str) -> &str {
    lower.split_once(':').map(|(s, _)| s).unwrap_or("")
}

/// Checks that `url` is an `http:`/`https:` page other than the web store,
/// or a local file `files` allows: what a person may share and an agent
/// may navigate to.
pub fn check_shareable(url: &str, files: &LocalFiles) -> Result<(), Blocked> {
    let lower = url.trim().to_ascii_lowercase();
    match scheme(&lower) {
        "http" | "https" => {
            if WEB_STORE.iter().any(|p| lower.starts_with(p)) {
                Err(Blocked::WebStore)
            } else {
                Ok(())
            }
        }
        "chrome" | "devtools" | "about" | "view-source" | "edge" | "brave" | "chrome-untrusted"
        | "chrome-search" | "chrome-error" => Err(Blocked::BrowserPage),
        "chrome-extension" | "moz-extension" | "extension" => Err(Blocked::ExtensionPage),
        "file" if files.allows(url.trim()) => Ok(()),
        "file" => Err(Blocked::LocalFile),
        "data" => Err(Blocked::DataUrl),
        _ => Err(Blocked::NotWebPage),
    }
}

/// Checks the url of a tab cotab opened itself (`tabs.create` for an
/// agent): [`check_shareable`], except that the blank page is allowed, since
/// nothing of the person's can be in it.
pub fn check_created(url: &str, files: &LocalFiles) -> Result<(), Blocked> {
    if url.trim().eq_ignore_ascii_case(BLANK_PAGE) {
        return Ok(());
    }
    check_shareable(url, files)
}

/// Checks the page a shared tab shows now (its main frame's url): agents
/// may drive it if it is a web page, the blank page or `about:srcdoc`, a
/// `data:` page (no origin, nothing of the person's), or a `blob:` or
/// `filesystem:` url of a web origin. Anything else suspends the tab for
/// agents until it shows such a page again.
///
/// `unreachable` is the url a failed navigation was going to (the browser
/// then shows its error page, `chrome-error://chromewebdata/`): the tab is
/// judged by where it was going, so an agent whose navigation failed can
/// go on from there.
pub fn check_driveable(
    url: &str,
    unreachable: Option<&str>,
    files: &LocalFiles,
) -> Result<(), Blocked> {
    if let Some(target) = unreachable.filter(|u| !u.is_empty()) {
        return check_driveable(target, None, files);
    }
    let lower = url.trim().to_ascii_lowercase();
    match scheme(&lower) {
        "about" if lower == BLANK_PAGE || lower == "about:srcdoc" => Ok(()),
        "data" => Ok(()),
        // Of a web origin only: a `file:` origin's blob is no file.
        "blob" | "filesystem" => {
            let inner = &lower[lower.find(':').map_or(0, |i| i + 1)..];
            check_shareable(inner, &LocalFiles::NONE).map_err(|b| match b {
                Blocked::NotWebPage => Blocked::BrowserPage,
                other => other,
            })
        }
        _ => check_shareable(url, files),
    }
}

/// `BLOCKED_TARGET` for raw CDP that developer mode does not let through.
fn refused(why: impl Into<String>) -> WireError {
    WireError::new(ErrorKind::BlockedTarget, why)
}

/// What the extension must still do before it sends a raw CDP command
/// that [`check_raw_cdp`] let through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawCdp {
    /// Send it as it is.
    Send,
    /// `Page.navigateToHistoryEntry`: look the entry up
    /// (`Page.getNavigationHistory`) and send it only if its url passes
    /// [`check_driveable`].
    HistoryEntry(i64),
    /// A command that runs script in an execution context: the extension
    /// names the context it means by its unique id, so the command cannot
    /// run in a document that replaced it meanwhile (context ids are
    /// reused across documents).
    InContext,
}

/// Domains whose commands act on the shared tab's own documents only, and
/// so may be sent raw in developer mode (with the exceptions in
/// [`check_raw_cdp`]). Everything else — `Target`, `Browser`, `Storage`,
/// `SystemInfo`, `Tracing`, `ServiceWorker`, `IndexedDB`, `CacheStorage`,
/// `DOMStorage`, `FileSystem`, `Extensions`, `PWA`, `Autofill`, `Security`,
/// `Tethering`, `Cast` … — reaches other tabs, other origins, the browser or
/// the machine, and is refused.
pub const RAW_CDP_DOMAINS: &[&str] = &[
    "Accessibility",
    "Animation",
    "Audits",
    "CSS",
    "Console",
    "DOM",
    "DOMDebugger",
    "DOMSnapshot",
    "Debugger",
    "Emulation",
    "EventBreakpoints",
    "Fetch",
    "HeapProfiler",
    "IO",
    "Input",
    "Inspector",
    "LayerTree",
    "Log",
    "Media",
    "Network",
    "Overlay",
    "Page",
    "Performance",
    "PerformanceTimeline",
    "Profiler",
    "Runtime",
    "Schema",
    "WebAudio",
];

/// Checks a raw CDP command (`cdp.send`, `page.evaluate`) against what
/// developer mode may reach: the shared tab's own documents, and nothing
/// that outlives them into a page agents may not use.
///
/// Refused (`BLOCKED_TARGET`), besides domains outside
/// [`RAW_CDP_DOMAINS`]:
/// - navigation to a url [`check_shareable`] refuses (`Page.navigate`), and
///   a reload that runs a script in the next document;
/// - scripts that run by themselves in later documents, one of which may
///   be cotab's own page (`Page.addScriptToEvaluateOnNewDocument`, but
///   for a script of blank lines and line comments, which only names an
///   isolated world;
///   `Page.addScriptToEvaluateOnLoad`, a breakpoint with a `condition`);
/// - files of the machine: `DOM.setFileInputFiles` (uploads go through
///   `input.setFiles` and the person's upload directories), files in
///   `Input.dispatchDragEvent`, downloads (`Page.setDownloadBehavior`),
///   `Network.loadNetworkResource`;
/// - other origins' cookies and the browser's caches
///   (`Network.getAllCookies`, `Network.getCookies` with `urls`,
///   `Network.setCookie(s)`, `Network.deleteCookies`,
///   `Network.clearBrowserCookies`, `Network.clearBrowserCache`,
///   `Network.setCookieControls`, `Page.deleteCookie`);
/// - input the person would no longer get through:
///   `Input.setIgnoreInputEvents`;
/// - a press no release of cotab's pairs:
///   `Input.emulateTouchFromMouseEvent`.
pub fn check_raw_cdp(
    method: &str,
    params: &Value,
    files: &LocalFiles,
) -> Result<RawCdp, WireError> {
    let Some((domain, name)) = method.split_once('.') else {
        return Err(refused("not a CDP method"));
    };
    if method == "Target.setAutoAttach" {
        return if only_frames_and_workers(params) {
            Ok(RawCdp::Send)
        } else {
            Err(refused(
                "Target.setAutoAttach goes only as {autoAttach: true, waitForDebuggerOnStart, \
                 flatten: true, filter: [{type: \"iframe\"}, {type: \"worker\"}]}, or off \
                 without the filter",
            ))
        };
    }
    if !RAW_CDP_DOMAINS.contains(&domain) {
        return Err(refused(format!(
            "the {domain} domain reaches beyond the shared tab; developer mode sends only \
             commands that act on the tab's own page"
        )));
    }
    let has = |k: &str| params.get(k).is_some_and(|v| !v.is_null());
    let deny = |why: &str| Err(refused(format!("{method} is not allowed: {why}")));
    match (domain, name) {
        ("Page", "navigate") => {
            let url = params.get("url").and_then(Value::as_str).unwrap_or("");
            match check_shareable(url, files) {
                Ok(()) => Ok(RawCdp::Send),
                Err(b) => Err(refused(format!(
                    "agents may not navigate to that url ({}); only http and https pages",
                    b.reason()
                ))),
            }
        }
        ("Page", "navigateToHistoryEntry") => {
            match params.get("entryId").and_then(Value::as_i64) {
                Some(id) => Ok(RawCdp::HistoryEntry(id)),
                // The browser refuses it with its own error.
                None => Ok(RawCdp::Send),
            }
        }
        ("Page", "reload") if has("scriptToEvaluateOnLoad") => {
            deny("a script run by itself in the next document")
        }
        // A script of nothing but blank lines and line comments runs
        // nothing: it only gives each later document an isolated world of
        // that name, as Playwright and Puppeteer ask at attach.
        ("Page", "addScriptToEvaluateOnNewDocument")
            if params
                .get("source")
                .and_then(Value::as_str)
                .is_some_and(runs_nothing) =>
        {
            Ok(RawCdp::Send)
        }
        ("Page", "addScriptToEvaluateOnNewDocument" | "addScriptToEvaluateOnLoad") => deny(
            "a script run by itself in every later document of the tab, which may be a page \
             agents may not use; evaluate after each navigation instead",
        ),
        ("Page" | "Runtime" | "Inspector", "disable") => {
            deny("cotab follows the tab's navigations and dialogs through this domain's events")
        }
        ("Page", "setLifecycleEventsEnabled")
            if params.get("enabled").and_then(Value::as_bool) != Some(true) =>
        {
            deny("cotab waits for loads through the lifecycle events")
        }
        ("Page", "setDownloadBehavior") => deny("it writes files on the machine"),
        ("Page", "deleteCookie") => deny("it reaches other origins' cookies"),
        ("Debugger", "setBreakpointByUrl" | "setBreakpoint" | "setBreakpointOnFunctionCall")
            if params
                .get("condition")
                .and_then(Value::as_str)
                .is_some_and(|c| !c.trim().is_empty()) =>
        {
            deny("a breakpoint condition runs by itself in later documents")
        }
        ("DOM", "setFileInputFiles") => deny(
            "it reads files of the machine; use input.setFiles, limited to the directories the \
             person allowed",
        ),
        ("Input", "dispatchDragEvent")
            if params
                .get("data")
                .and_then(|d| d.get("files"))
                .and_then(Value::as_array)
                .is_some_and(|f| !f.is_empty()) =>
        {
            deny("dropped files are read from the machine")
        }
        ("Input", "setIgnoreInputEvents") => {
            deny("the person's own input to the tab would be ignored")
        }
        // Its press holds a touch no release of cotab's pairs: a
        // takeover would leave the page touched.
        ("Input", "emulateTouchFromMouseEvent") => {
            deny("use Input.dispatchTouchEvent, whose touches cotab releases")
        }
        ("Network", "getCookies") if has("urls") => deny("it reads other origins' cookies"),
        (
            "Network",
            "getAllCookies"
            | "setCookie"
            | "setCookies"
            | "deleteCookies"
            | "clearBrowserCookies"
            | "clearBrowserCache"
            | "setCookieControls",
        ) => deny("it reaches other origins' cookies or the browser's caches"),
        ("Network", "loadNetworkResource") => deny("it loads urls outside the page, files too"),
        ("Runtime", "evaluate" | "callFunctionOn") => Ok(RawCdp::InContext),
        // They name their context by an id the next document may reuse,
        // and have no unique form: `Runtime.evaluate` does what they do.
        ("Runtime", "compileScript" | "runScript") => {
            deny("use Runtime.evaluate, which names its context by a unique id")
        }
        _ => Ok(RawCdp::Send),
    }
}

/// Checks a raw CDP command for a child session of the tab (a frame in
/// another process, a dedicated worker: the only children
/// `Target.setAutoAttach` may ask for) as [`check_raw_cdp`] does, and
/// refuses input there: input goes to the tab's page, which routes it to
/// the frame, and is released there when the person takes control. A
/// child's execution contexts are its own: an evaluation names one by
/// the id the child gave it.
pub fn check_child_cdp(
    method: &str,
    params: &Value,
    files: &LocalFiles,
) -> Result<RawCdp, WireError> {
    if method.starts_with("Input.") {
        return Err(refused(
            "input goes to the tab's own session, which sends it on to the frame under the point",
        ));
    }
    check_raw_cdp(method, params, files).map(|r| match r {
        RawCdp::InContext => RawCdp::Send,
        r => r,
    })
}

/// Whether `Target.setAutoAttach`'s params are the one form raw CDP may
/// send: flat sessions of the tab's frames in other processes and of its
/// dedicated workers, no worker other tabs share. New ones may wait for
/// the debugger (as `Debugger.pause` may stop the page): the daemon turns
/// auto-attach off, which lets them run, when the lease on the tab ends.
fn only_frames_and_workers(params: &Value) -> bool {
    let Some(p) = params.as_object() else {
        return false;
    };
    let filter = p.get("filter").and_then(Value::as_array).is_some_and(|f| {
        f.len() == 2
            && f.iter()
                .zip(["iframe", "worker"])
                .all(|(e, kind)| e.as_object().is_some_and(|e| e.len() == 1) && e["type"] == kind)
    });
    // Turning it off takes no filter (the browser refuses one).
    let on = p.get("autoAttach") == Some(&Value::Bool(true));
    p.len() == 3 + usize::from(on)
        && (filter || !on)
        && p.get("autoAttach").is_some_and(Value::is_boolean)
        && p.get("waitForDebuggerOnStart")
            .is_some_and(Value::is_boolean)
        && p.get("flatten") == Some(&Value::Bool(true))
}

/// Whether a script is only blank lines and `//` comments (split at
/// every line terminator JavaScript has), so running it does nothing.
fn runs_nothing(source: &str) -> bool {
    source
        .split(['\n', '\r', '\u{2028}', '\u{2029}'])
        .map(str::trim)
        .all(|line| line.is_empty() || line.starts_with("//"))
}

#[cfg(test)]
mod tests;
