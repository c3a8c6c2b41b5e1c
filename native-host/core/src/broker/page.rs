//! The page side of the broker core: what the daemon remembers about each
//! tab's page and what agents may refer to in it.
//!
//! It owns: element refs (each session's latest snapshot per tab, and the
//! rule that only it is valid; in `refs`), the open JavaScript dialog of each tab, the
//! bounded console buffer of each tab, the lifecycle events of each frame's
//! current loader (for `networkIdle`), the digest of each capture (for
//! `knownFrameId`), and the selection and lease moves of `tabs.create` and
//! `tabs.close`.
//!
//! It does not own: reading any of this from the browser (the handlers and
//! the daemon's `Shell::on_extension_event` do), or the outline's
//! text ([`crate::outline`]).
//!
//! Like the rest of the core it does no I/O and never awaits.

use super::{err, Core, Fence, Frame};
use super::{Effect, Gone, UndoCmd};
use crate::session::{ConnId, SessionId};
use cotab_shared::cdp::{
    CdpCommand as _, ClearDeviceMetricsOverride, ConsoleApiCalled, ExceptionThrown, RemoteObject,
    SetEmulatedMedia, StackTrace,
};
use cotab_shared::controller::{
    AgentEvent, ConsoleLevel, ConsoleMessage, ConsoleResult, DialogInfo, FrameGeometry, FrameId,
    MediaEmulation,
};
use cotab_shared::native::TabInfo;
use cotab_shared::{ErrorKind, TabId, WireError};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Console messages kept per tab; older ones are dropped (and counted).
pub const CONSOLE_CAPACITY: usize = 1000;

/// Longest console text kept, in bytes; a longer one is cut.
const MAX_CONSOLE_TEXT: usize = 8 * 1024;

/// Frames whose lifecycle is remembered per tab.
const MAX_LIFECYCLE_FRAMES: usize = 64;

/// What a finished capture is remembered with.
#[derive(Debug, Clone, PartialEq)]
pub struct CaptureMeta {
    /// Image pixels per CSS pixel.
    pub dpr: f64,
    /// The live viewport at the capture.
    pub geometry: FrameGeometry,
    /// The image's top left corner in the viewport, in CSS pixels.
    pub origin: (f64, f64),
    /// SHA-256 of the image bytes.
    pub digest: [u8; 32],
}

/// A console message or uncaught exception as read from a CDP event.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsoleEntry {
    /// Its level (`log`, `warning`, `error`, …).
    pub level: ConsoleLevel,
    /// The text the page logged, its arguments joined.
    pub text: String,
    /// An uncaught exception.
    pub exception: bool,
    /// Source url.
    pub url: Option<String>,
    /// 1-based line.
    pub line: Option<u32>,
}

impl ConsoleEntry {
    /// From a `Runtime.consoleAPICalled` event.
    pub fn from_console_api(e: &ConsoleApiCalled) -> ConsoleEntry {
        let level = match e.kind.as_str() {
            "debug" => ConsoleLevel::Debug,
            "warning" => ConsoleLevel::Warning,
            "error" | "assert" => ConsoleLevel::Error,
            _ => ConsoleLevel::Info,
        };
        let text = e.args.iter().map(remote_text).collect::<Vec<_>>().join(" ");
        let (url, line) = first_frame(e.stack_trace.as_ref());
        ConsoleEntry {
            level,
            text: cut(text),
            exception: false,
            url,
            line,
        }
    }

    /// From a `Runtime.exceptionThrown` event.
    pub fn from_exception(e: &ExceptionThrown) -> ConsoleEntry {
        let d = &e.exception_details;
        let text = d
            .exception
            .as_ref()
            .and_then(|x| x.description.clone())
            .or_else(|| d.text.clone())
            .unwrap_or_else(|| "uncaught exception".to_string());
        let (mut url, mut line) = first_frame(d.stack_trace.as_ref());
        if url.is_none() {
            url = d.url.clone().filter(|u| !u.is_empty());
            line = one_based(d.line_number);
        }
        ConsoleEntry {
            level: ConsoleLevel::Error,
            text: cut(text),
            exception: true,
            url,
            line,
        }
    }
}

/// The text of a CDP `RemoteObject`: a string as is, other values as JSON,
/// objects by their description.
fn remote_text(o: &RemoteObject) -> String {
    if let Some(u) = &o.unserializable_value {
        return u.clone();
    }
    match &o.value {
        Some(Value::String(s)) => return s.clone(),
        Some(v) if !v.is_object() && !v.is_array() => return v.to_string(),
        _ => {}
    }
    if let Some(d) = &o.description {
        return d.clone();
    }
    if o.subtype.as_deref() == Some("null") {
        return "null".into();
    }
    match &o.value {
        Some(v) => v.to_string(),
        None if o.kind.is_empty() => "undefined".into(),
        None => o.kind.clone(),
    }
}

/// A 0-based line as the 1-based line people read.
fn one_based(line: Option<u64>) -> Option<u32> {
    line.and_then(|l| u32::try_from(l + 1).ok())
}

fn first_frame(stack: Option<&StackTrace>) -> (Option<String>, Option<u32>) {
    let Some(f) = stack.and_then(|s| s.call_frames.first()) else {
        return (None, None);
    };
    let url = Some(f.url.clone()).filter(|u| !u.is_empty());
    (url, one_based(f.line_number))
}

fn cut(mut s: String) -> String {
    if s.len() > MAX_CONSOLE_TEXT {
        let mut end = MAX_CONSOLE_TEXT;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.push('…');
    }
    s
}

#[derive(Debug)]
struct Lifecycle {
    loader: String,
    names: BTreeSet<String>,
    /// Whether the daemon heard the loader from its `init`: only then does
    /// an event missing from `names` mean the page has not reached it. A
    /// tab shared after it loaded reports its later events first (a tab
    /// loaded behind the person's paints only when it is shown: its
    /// `firstPaint` comes long after its `networkIdle`).
    from_start: bool,
}

/// A viewport `page.resize` set on a tab, in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Viewport {
    /// The size it set.
    pub set: (u32, u32),
    /// The page's own size when the first of these was set: the size a
    /// cleared override gives back, unless the window changed since.
    pub own: (u32, u32),
}

/// What the daemon knows about one tab's page.
#[derive(Debug, Default)]
pub(super) struct PageState {
    /// The open JavaScript dialog.
    pub(super) dialog: Option<DialogInfo>,
    console: VecDeque<ConsoleMessage>,
    /// The last console `seq` issued (0: none yet).
    pub(super) last_seq: u64,
    /// `last_seq` when the page shown now began (its main frame's last
    /// navigation).
    pub(super) document_seq: u64,
    lifecycle: BTreeMap<String, Lifecycle>,
    /// The media features `page.emulateMedia` set.
    media: MediaEmulation,
    /// The viewport `page.resize` set.
    viewport: Option<Viewport>,
    /// Raw CDP asked the browser to hold the tab's new frames in other
    /// processes and workers until a debugger runs them
    /// (`Target.setAutoAttach` with `waitForDebuggerOnStart`).
    children_wait: bool,
    /// The requests since the tab was shared.
    pub(super) network: super::network::NetworkLog,
    /// Its file choosers.
    pub(super) choosers: super::chooser::Choosers,
}

impl Core {
    pub(super) fn page_mut(&mut self, tab: TabId) -> &mut PageState {
        self.pages.entry(tab).or_default()
    }

    // ---- emulation --------------------------------------------------------

    /// The media `tab`'s page emulates as far as cotab set it.
    pub fn media(&self, tab: TabId) -> MediaEmulation {
        self.pages.get(&tab).map(|p| p.media).unwrap_or_default()
    }

    /// The viewport `page.resize` set on `tab`, if it set one.
    pub fn viewport(&self, tab: TabId) -> Option<Viewport> {
        self.pages.get(&tab).and_then(|p| p.viewport)
    }

    /// `page.resize` set `viewport` on the fence's tab (`None`: cleared
    /// it).
    pub fn viewport_set(
        &mut self,
        fence: &Fence,
        viewport: Option<Viewport>,
    ) -> Result<(), WireError> {
        self.check(fence)?;
        self.page_mut(fence.tab).viewport = viewport;
        Ok(())
    }

    /// The person took control of `tab`: the page gets its own viewport
    /// and media back, so they see it as they left it.
    pub(super) fn undo_emulation(&mut self, tab: TabId) {
        let Some(page) = self.pages.get_mut(&tab) else {
            return;
        };
        let mut undo = Vec::new();
        if page.viewport.take().is_some() {
            let clear = ClearDeviceMetricsOverride {};
            undo.push((ClearDeviceMetricsOverride::METHOD, clear.params()));
        }
        if std::mem::take(&mut page.media) != MediaEmulation::default() {
            let none = SetEmulatedMedia::none();
            undo.push((SetEmulatedMedia::METHOD, none.params()));
        }
        for (method, params) in undo {
            self.effects.push(Effect::Undo(UndoCmd {
                tab,
                method,
                params,
            }));
        }
    }

    /// Raw CDP set the fence's tab's auto-attach: `waits` when new
    /// children are held for a debugger. Once held, it stays so until the
    /// lease ends: a later auto-attach that does not hold new children
    /// does not run those already held.
    pub fn auto_attach_set(&mut self, fence: &Fence, waits: bool) -> Result<(), WireError> {
        self.check(fence)?;
        self.page_mut(fence.tab).children_wait |= waits;
        Ok(())
    }

    /// The lease on `tab` ended: children held for a debugger (an agent's
    /// raw CDP asked for it) would hang the page with nobody left to run
    /// them, so auto-attach goes off, which lets them run.
    pub(super) fn undo_auto_attach(&mut self, tab: TabId) {
        let Some(page) = self.pages.get_mut(&tab) else {
            return;
        };
        if std::mem::take(&mut page.children_wait) {
            self.effects.push(Effect::Undo(UndoCmd {
                tab,
                method: "Target.setAutoAttach",
                params: serde_json::json!({
                    "autoAttach": false,
                    "waitForDebuggerOnStart": false,
                    "flatten": true,
                }),
            }));
        }
    }

    /// `page.emulateMedia` set `media` on the fence's tab.
    pub fn media_set(&mut self, fence: &Fence, media: MediaEmulation) -> Result<(), WireError> {
        self.check(fence)?;
        self.page_mut(fence.tab).media = media;
        Ok(())
    }

    // ---- dialogs ----------------------------------------------------------

    /// `Page.javascriptDialogOpening`: remembers the dialog and tells every
    /// session that has the tab selected.
    pub fn on_dialog_opening(&mut self, info: DialogInfo) {
        let tab = info.tab_id;
        self.page_mut(tab).dialog = Some(info.clone());
        self.notify_selecting(tab, AgentEvent::DialogOpened(info));
    }

    /// `Page.javascriptDialogClosed`, or `page.dialog` answered it.
    pub fn on_dialog_closed(&mut self, tab: TabId) {
        if let Some(p) = self.pages.get_mut(&tab) {
            p.dialog = None;
        }
    }

    /// The dialog open on `tab`, if any.
    pub fn dialog(&self, tab: TabId) -> Option<&DialogInfo> {
        self.pages.get(&tab).and_then(|p| p.dialog.as_ref())
    }

    // ---- console ----------------------------------------------------------

    /// A console message or uncaught exception on `tab`.
    pub fn on_console(&mut self, tab: TabId, entry: ConsoleEntry) {
        let p = self.page_mut(tab);
        p.last_seq += 1;
        p.console.push_back(ConsoleMessage {
            seq: p.last_seq,
            level: entry.level,
            text: entry.text,
            exception: entry.exception,
            url: entry.url,
            line: entry.line,
        });
        while p.console.len() > CONSOLE_CAPACITY {
            p.console.pop_front();
        }
    }

    /// `page.console` on the fence's tab: messages after `since` of the
    /// given levels, the cursor for the next call, and how many messages
    /// after `since` the bounded buffer dropped.
    pub fn console(
        &self,
        fence: &Fence,
        since: Option<u64>,
        levels: Option<&[ConsoleLevel]>,
        current_document: bool,
    ) -> Result<ConsoleResult, WireError> {
        self.check(fence)?;
        let since = since.unwrap_or(0);
        let Some(p) = self.pages.get(&fence.tab) else {
            return Ok(ConsoleResult {
                messages: Vec::new(),
                next: since,
                dropped: 0,
            });
        };
        let oldest = p.console.front().map_or(p.last_seq + 1, |m| m.seq);
        // Messages `since+1 ..= oldest-1` were issued and are gone.
        let dropped = oldest.saturating_sub(since.saturating_add(1));
        let document = if current_document { p.document_seq } else { 0 };
        let messages = p
            .console
            .iter()
            .filter(|m| m.seq > since && m.seq > document)
            .filter(|m| levels.is_none_or(|l| l.contains(&m.level)))
            .cloned()
            .collect();
        Ok(ConsoleResult {
            messages,
            next: p.last_seq.max(since),
            dropped,
        })
    }

    // ---- lifecycle --------------------------------------------------------

    /// `Page.lifecycleEvent`: `init` (or a new loader) starts a frame's
    /// list over.
    pub fn on_lifecycle(&mut self, tab: TabId, frame: &str, loader: &str, name: &str) {
        let p = self.page_mut(tab);
        let fresh = p
            .lifecycle
            .get(frame)
            .is_none_or(|l| l.loader != loader || name == "init");
        if fresh {
            if !p.lifecycle.contains_key(frame) && p.lifecycle.len() >= MAX_LIFECYCLE_FRAMES {
                p.lifecycle.pop_first();
            }
            p.lifecycle.insert(
                frame.to_string(),
                Lifecycle {
                    loader: loader.to_string(),
                    names: BTreeSet::new(),
                    from_start: name == "init",
                },
            );
        }
        if let Some(l) = p.lifecycle.get_mut(frame) {
            l.names.insert(name.to_string());
        }
    }

    /// Whether `frame`'s current loader reached lifecycle event `name`:
    /// `Some(true)` once it was heard, `Some(false)` when the loader was
    /// followed from its start and it was not, `None` when that cannot be
    /// told (nothing is known of the frame, or only what came after the
    /// daemon began to listen).
    pub fn lifecycle_reached(&self, tab: TabId, frame: &str, name: &str) -> Option<bool> {
        let l = self.pages.get(&tab)?.lifecycle.get(frame)?;
        match l.names.contains(name) {
            true => Some(true),
            false if l.from_start => Some(false),
            false => None,
        }
    }

    /// The loader the daemon last saw for `frame`.
    pub fn lifecycle_loader(&self, tab: TabId, frame: &str) -> Option<&str> {
        self.pages
            .get(&tab)?
            .lifecycle
            .get(frame)
            .map(|l| l.loader.as_str())
    }

    // ---- known frames -----------------------------------------------------

    /// For `knownFrameId`: the frame `id` if it is still valid for the
    /// fence (same tab, no navigation or other actor's input since, the
    /// same live viewport) and its image had `digest`.
    pub fn unchanged_frame(
        &self,
        fence: &Fence,
        id: &FrameId,
        digest: &[u8; 32],
        live: &FrameGeometry,
    ) -> Option<Frame> {
        let f = self.frame_for(fence, Some(id)).ok()?;
        (f.digest == *digest && f.geometry.matches(live)).then_some(f)
    }

    // ---- tabs.create / tabs.close -----------------------------------------

    /// `tabs.create` finished: the new tab is shared, selected (the
    /// revision bumps; leaving the old tab releases the lease and input
    /// there as `tabs.select` does) and its lease is the session's.
    pub fn tab_created(
        &mut self,
        sid: SessionId,
        conn: ConnId,
        info: &TabInfo,
        scope: crate::scope::Scope,
    ) -> Result<u64, WireError> {
        self.bound(sid, conn)?;
        // What the shared tabs were shared for together when the agent
        // asked (the daemon checked its url against it), even if the
        // list told of the tab first.
        let ask_before = self.asks_for_agent_tab();
        let tab = self.tabs.entry(info.id).or_default();
        tab.scope = scope;
        tab.ask_before = ask_before;
        self.effects.push(Effect::Scopes);
        let revision = self.select(sid, conn, info.id)?;
        self.acquire(sid, conn)?;
        Ok(revision)
    }

    /// Which tab `tabs.close` may close: `tab` or the selected one; it must
    /// be shared, not under the person's control, and not leased by another
    /// agent.
    pub fn close_target(
        &self,
        sid: SessionId,
        conn: ConnId,
        tab: Option<TabId>,
    ) -> Result<TabId, WireError> {
        let s = self.bound(sid, conn)?;
        let tab = match tab.or(s.selected) {
            Some(t) => t,
            None => {
                return Err(err(
                    ErrorKind::InvalidRequest,
                    "no tab selected: name the tab with `tabId`",
                ))
            }
        };
        match self.tabs.get(&tab) {
            None => Err(err(
                ErrorKind::TabNotShared,
                "that tab is not shared with agents",
            )),
            Some(t) if t.human => Err(err(
                ErrorKind::HumanHasControl,
                "the person has control of this tab",
            )),
            Some(t) if t.lease.is_some_and(|(holder, _)| holder != sid) => {
                Err(err(ErrorKind::NoControl, "another agent controls this tab"))
            }
            Some(_) => Ok(tab),
        }
    }

    /// The browser closed `tab` for `tabs.close`: its held input is dropped
    /// (no debugger left to release it through), its lease ends, and a
    /// session that had it selected has no selection any more (its
    /// revision bumps).
    pub fn tab_closed(&mut self, tab: TabId) {
        self.on_tab_gone(tab, Gone::Closed);
        for s in self.sessions.values_mut() {
            if s.selected == Some(tab) {
                s.selected = None;
                s.revision += 1;
            }
            s.snapshots.remove(&tab);
        }
    }
}

mod refs;
pub(super) use refs::Snapshot;
pub use refs::{Given, NodeRef, RefNumbers, SnapshotMark, MAX_ISSUED_REFS};

#[cfg(test)]
mod tests;
