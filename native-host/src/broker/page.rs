//! The page side of the broker core: what the daemon remembers about each
//! tab's page and what agents may refer to in it.
//!
//! It owns: element refs (each session's latest snapshot per tab, and the
//! rule that only it is valid), the open JavaScript dialog of each tab, the
//! bounded console buffer of each tab, the lifecycle events of each frame's
//! current loader (for `networkIdle`), the digest of each capture (for
//! `knownFrameId`), and the selection and lease moves of `tabs.create` and
//! `tabs.close`.
//!
//! It does not own: reading any of this from the browser (the handlers and
//! [`crate::shell::Shell::on_extension_event`] do), or the outline's
//! text ([`crate::outline`]).
//!
//! Like the rest of the core it does no I/O and never awaits.

use super::{err, Core, Fence, Frame};
use crate::session::{ConnId, SessionId};
use cotab_shared::cdp::{ConsoleApiCalled, ExceptionThrown, RemoteObject, StackTrace};
use cotab_shared::controller::{
    AgentEvent, ConsoleLevel, ConsoleMessage, ConsoleResult, DialogInfo, FrameGeometry, FrameId,
    Ref,
};
use cotab_shared::native::TabInfo;
use cotab_shared::{ErrorKind, TabId, WireError};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// Console messages kept per tab; older ones are dropped (and counted).
pub const CONSOLE_CAPACITY: usize = 1000;

/// Longest console text kept, in bytes; a longer one is cut.
const MAX_CONSOLE_TEXT: usize = 8 * 1024;

/// Frames whose lifecycle is remembered per tab.
const MAX_LIFECYCLE_FRAMES: usize = 64;

/// An element a ref stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRef {
    /// The CDP frame id of the element's document.
    pub frame: String,
    /// The element's `backendNodeId`.
    pub backend_node_id: i64,
}

/// The refs of one snapshot.
#[derive(Debug)]
pub(super) struct Snapshot {
    /// Main-frame navigations of the tab when the snapshot started.
    nav: u64,
    refs: HashMap<u64, NodeRef>,
}

/// Where a tab stood when a snapshot started (see
/// [`Core::snapshot_started`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotMark {
    nav: u64,
}

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
    /// Its level.
    pub level: ConsoleLevel,
    /// Its text.
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
}

/// What the daemon knows about one tab's page.
#[derive(Debug, Default)]
pub(super) struct PageState {
    /// The open JavaScript dialog.
    pub(super) dialog: Option<DialogInfo>,
    console: VecDeque<ConsoleMessage>,
    /// The last console `seq` issued (0: none yet).
    last_seq: u64,
    lifecycle: BTreeMap<String, Lifecycle>,
}

fn stale_ref(why: &str) -> WireError {
    err(ErrorKind::StaleRef, why)
}

/// The number of a ref (`e12` → 12).
fn ref_number(r: &Ref) -> Option<u64> {
    let digits = r.0.strip_prefix('e')?;
    if digits.is_empty() || digits.len() > 18 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

impl Core {
    fn page_mut(&mut self, tab: TabId) -> &mut PageState {
        self.pages.entry(tab).or_default()
    }

    // ---- refs -------------------------------------------------------------

    /// Marks where the tab stands as a snapshot starts.
    pub fn snapshot_started(&self, fence: &Fence) -> SnapshotMark {
        SnapshotMark {
            nav: self.tabs.get(&fence.tab).map_or(0, |t| t.nav),
        }
    }

    /// Reserves `count` ref numbers for a snapshot being rendered (at most
    /// one per node of its trees) and returns the first; a snapshot of the
    /// same session rendered meanwhile takes numbers after them. Hand them
    /// back with [`Core::snapshot_finished`].
    pub fn reserve_refs(&mut self, fence: &Fence, count: u64) -> Result<u64, WireError> {
        self.check(fence)?;
        let s = self.bound_mut(fence.session, fence.conn)?;
        let first = s.next_ref;
        s.next_ref = first.saturating_add(count);
        Ok(first)
    }

    /// Stores a snapshot's refs (numbered from `first`, in order, within the
    /// `reserved` numbers from [`Core::reserve_refs`]) as the session's
    /// latest of the tab; every older ref of the tab is stale from now on.
    /// The numbers it did not use go back unless another snapshot reserved
    /// numbers after them. A navigation since `mark` makes these stale at
    /// once.
    pub fn snapshot_finished(
        &mut self,
        fence: &Fence,
        mark: SnapshotMark,
        first: u64,
        reserved: u64,
        nodes: Vec<NodeRef>,
    ) -> Result<(), WireError> {
        self.check(fence)?;
        let s = self.bound_mut(fence.session, fence.conn)?;
        let count = nodes.len() as u64;
        let refs = nodes
            .into_iter()
            .enumerate()
            .map(|(i, n)| (first + i as u64, n))
            .collect();
        s.snapshots.insert(
            fence.tab,
            Snapshot {
                nav: mark.nav,
                refs,
            },
        );
        if s.next_ref == first.saturating_add(reserved) {
            s.next_ref = first + count;
        }
        s.next_ref = s.next_ref.max(first + count);
        Ok(())
    }

    /// The element `r` stands for: only a ref of the session's latest
    /// snapshot of the fence's tab, with no main-frame navigation since.
    /// Anything else is `STALE_REF` (never another element).
    pub fn resolve_ref(&self, fence: &Fence, r: &Ref) -> Result<NodeRef, WireError> {
        self.check(fence)?;
        let n = ref_number(r).ok_or_else(|| {
            err(
                ErrorKind::InvalidRequest,
                "invalid params: `params.ref` is not an element ref like `e12`",
            )
        })?;
        let s = self.bound(fence.session, fence.conn)?;
        let snap = s
            .snapshots
            .get(&fence.tab)
            .ok_or_else(|| stale_ref("no snapshot of this tab: call page.snapshot first"))?;
        if self.tabs.get(&fence.tab).map(|t| t.nav) != Some(snap.nav) {
            return Err(stale_ref(
                "the page navigated since the snapshot: call page.snapshot again",
            ));
        }
        snap.refs.get(&n).cloned().ok_or_else(|| {
            stale_ref("the ref is not from this tab's latest snapshot: call page.snapshot again")
        })
    }

    /// Number of refs of the session's latest snapshot of `tab` (tests).
    pub fn snapshot_refs(&self, sid: SessionId, tab: TabId) -> usize {
        self.sessions
            .get(&sid)
            .and_then(|s| s.snapshots.get(&tab))
            .map_or(0, |s| s.refs.len())
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
        let messages = p
            .console
            .iter()
            .filter(|m| m.seq > since)
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
                },
            );
        }
        if let Some(l) = p.lifecycle.get_mut(frame) {
            l.names.insert(name.to_string());
        }
    }

    /// Whether `frame`'s current loader reached lifecycle event `name`
    /// (`None`: nothing is known about the frame).
    pub fn lifecycle_reached(&self, tab: TabId, frame: &str, name: &str) -> Option<bool> {
        let l = self.pages.get(&tab)?.lifecycle.get(frame)?;
        Some(l.names.contains(name))
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
    ) -> Result<u64, WireError> {
        self.bound(sid, conn)?;
        self.tabs.entry(info.id).or_default();
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
        self.on_tab_gone(tab, true);
        for s in self.sessions.values_mut() {
            if s.selected == Some(tab) {
                s.selected = None;
                s.revision += 1;
            }
            s.snapshots.remove(&tab);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broker::tests::*;
    use crate::broker::{CaptureMark, Effect, Need};
    use cotab_shared::controller::DialogKind;
    use cotab_shared::controller::RevokeReason;
    use serde_json::json;

    fn node(id: i64) -> NodeRef {
        NodeRef {
            frame: "F".into(),
            backend_node_id: id,
        }
    }

    fn snapshot(c: &mut Core, s: SessionId, ids: &[i64]) -> u64 {
        let f = c.fence(s, A, Need::Observe).expect("fence");
        let mark = c.snapshot_started(&f);
        // More numbers reserved than used, as a page's nodes outnumber its
        // refs.
        let reserved = ids.len() as u64 + 5;
        let first = c.reserve_refs(&f, reserved).expect("first");
        c.snapshot_finished(
            &f,
            mark,
            first,
            reserved,
            ids.iter().map(|i| node(*i)).collect(),
        )
        .expect("stored");
        first
    }

    fn resolve(c: &Core, s: SessionId, r: &str) -> Result<NodeRef, ErrorKind> {
        let f = c.fence(s, A, Need::Observe).expect("fence");
        c.resolve_ref(&f, &Ref(r.into())).map_err(|e| e.kind)
    }

    #[test]
    fn refs_are_numbered_across_snapshots_and_only_the_latest_is_valid() {
        let (mut c, s) = setup();
        assert_eq!(snapshot(&mut c, s, &[10, 11, 12]), 1);
        assert_eq!(resolve(&c, s, "e2"), Ok(node(11)));
        assert_eq!(snapshot(&mut c, s, &[20, 21]), 4);
        assert_eq!(resolve(&c, s, "e4"), Ok(node(20)));
        assert_eq!(resolve(&c, s, "e5"), Ok(node(21)));
        // An older snapshot's ref never reaches another element.
        assert_eq!(resolve(&c, s, "e2"), Err(ErrorKind::StaleRef));
        assert_eq!(resolve(&c, s, "e6"), Err(ErrorKind::StaleRef));
        assert_eq!(resolve(&c, s, "x1"), Err(ErrorKind::InvalidRequest));
        assert_eq!(resolve(&c, s, "e"), Err(ErrorKind::InvalidRequest));
    }

    #[test]
    fn snapshots_rendered_at_once_take_numbers_apart() {
        let (mut c, s) = setup();
        let f = c.fence(s, A, Need::Observe).expect("fence");
        let mark = c.snapshot_started(&f);
        // Two snapshots of the session render at the same time, each with
        // more numbers reserved than it will use.
        let a = c.reserve_refs(&f, 10).expect("a");
        let b = c.reserve_refs(&f, 10).expect("b");
        assert_eq!((a, b), (1, 11));
        c.snapshot_finished(&f, mark, a, 10, vec![node(10), node(11)])
            .expect("a stored");
        // `b` reserved after `a`'s numbers: they stay taken.
        assert_eq!(c.reserve_refs(&f, 0).expect("peek"), 21);
        c.snapshot_finished(&f, mark, b, 10, vec![node(20)])
            .expect("b stored");
        assert_eq!(resolve(&c, s, "e11"), Ok(node(20)));
        assert_eq!(resolve(&c, s, "e1"), Err(ErrorKind::StaleRef));
        // Nothing reserved after `b`: its unused numbers came back.
        assert_eq!(snapshot(&mut c, s, &[30]), 12);
    }

    #[test]
    fn a_navigation_makes_refs_stale_even_during_the_snapshot() {
        let (mut c, s) = setup();
        snapshot(&mut c, s, &[10]);
        c.on_main_frame_navigated(TabId(1));
        assert_eq!(resolve(&c, s, "e1"), Err(ErrorKind::StaleRef));

        // A navigation while the snapshot was being read.
        let f = c.fence(s, A, Need::Observe).expect("fence");
        let mark = c.snapshot_started(&f);
        c.on_main_frame_navigated(TabId(1));
        let first = c.reserve_refs(&f, 1).expect("first");
        c.snapshot_finished(&f, mark, first, 1, vec![node(30)])
            .expect("stored");
        assert_eq!(
            resolve(&c, s, &format!("e{first}")),
            Err(ErrorKind::StaleRef)
        );
    }

    #[test]
    fn refs_are_per_session_and_per_tab() {
        let (mut c, s) = setup();
        let other = c.hello(B, "beta".into(), cotab_shared::Ticket("tb".into()));
        c.select(other, B, TabId(1)).expect("select");
        snapshot(&mut c, s, &[10]);
        let f = c.fence(other, B, Need::Observe).expect("fence");
        assert_eq!(
            c.resolve_ref(&f, &Ref("e1".into())).map_err(|e| e.kind),
            Err(ErrorKind::StaleRef)
        );
        // The other tab's snapshot does not replace this one's.
        c.select(s, A, TabId(2)).expect("select");
        assert_eq!(snapshot(&mut c, s, &[40]), 2);
        c.select(s, A, TabId(1)).expect("select");
        assert_eq!(resolve(&c, s, "e1"), Ok(node(10)));
        assert_eq!(resolve(&c, s, "e2"), Err(ErrorKind::StaleRef));
    }

    #[test]
    fn console_buffer_is_bounded_filtered_and_counts_drops() {
        let (mut c, s) = setup();
        let entry = |level, text: &str| ConsoleEntry {
            level,
            text: text.into(),
            exception: false,
            url: None,
            line: None,
        };
        for i in 0..(CONSOLE_CAPACITY + 5) {
            let level = if i % 2 == 0 {
                ConsoleLevel::Info
            } else {
                ConsoleLevel::Error
            };
            c.on_console(TabId(1), entry(level, &format!("m{}", i + 1)));
        }
        let f = c.fence(s, A, Need::Observe).expect("fence");
        let all = c.console(&f, None, None).expect("console");
        assert_eq!(all.messages.len(), CONSOLE_CAPACITY);
        assert_eq!(all.messages[0].seq, 6);
        assert_eq!(all.dropped, 5);
        assert_eq!(all.next, (CONSOLE_CAPACITY + 5) as u64);
        let late = c.console(&f, Some(3), None).expect("console");
        assert_eq!(late.dropped, 2);
        let newer = c.console(&f, Some(all.next - 2), None).expect("console");
        assert_eq!(newer.messages.len(), 2);
        assert_eq!(newer.dropped, 0);
        let errors = c
            .console(&f, Some(all.next - 4), Some(&[ConsoleLevel::Error]))
            .expect("console");
        assert!(errors
            .messages
            .iter()
            .all(|m| m.level == ConsoleLevel::Error));
        assert_eq!(errors.messages.len(), 2);
        let none = c.console(&f, Some(all.next), None).expect("console");
        assert!(none.messages.is_empty());
        assert_eq!(none.next, all.next);
    }

    #[test]
    fn console_events_are_read_like_devtools() {
        use cotab_shared::cdp::CdpEvent as _;
        let api = |v: Value| ConsoleApiCalled::parse(ConsoleApiCalled::METHOD, &v).expect("parses");
        let e = ConsoleEntry::from_console_api(&api(json!({
            "type": "warning",
            "args": [{"type": "string", "value": "n ="}, {"type": "number", "value": 42},
                     {"type": "object", "subtype": "null", "value": null},
                     {"type": "undefined"}, {"type": "object", "description": "Object"},
                     {"type": "number", "unserializableValue": "NaN", "description": "NaN"}],
            "stackTrace": {"callFrames": [{"url": "http://a/x.js", "lineNumber": 6}]}
        })));
        assert_eq!(e.level, ConsoleLevel::Warning);
        assert_eq!(e.text, "n = 42 null undefined Object NaN");
        assert_eq!((e.url.as_deref(), e.line), (Some("http://a/x.js"), Some(7)));
        for (t, l) in [
            ("debug", ConsoleLevel::Debug),
            ("assert", ConsoleLevel::Error),
            ("log", ConsoleLevel::Info),
            ("table", ConsoleLevel::Info),
        ] {
            assert_eq!(
                ConsoleEntry::from_console_api(&api(json!({"type": t}))).level,
                l
            );
        }
        let thrown = json!({"exceptionDetails": {
            "text": "Uncaught", "lineNumber": 2, "url": "http://a/",
            "exception": {"type": "object", "description": "Error: boom\n    at x"}}});
        let x = ConsoleEntry::from_exception(
            &ExceptionThrown::parse(ExceptionThrown::METHOD, &thrown).expect("parses"),
        );
        assert_eq!(
            (x.level, x.exception, x.text.as_str(), x.line),
            (ConsoleLevel::Error, true, "Error: boom\n    at x", Some(3))
        );
        let long = ConsoleEntry::from_console_api(&api(
            json!({"type": "log", "args": [{"type": "string", "value": "é".repeat(9000)}]}),
        ));
        assert!(long.text.len() <= MAX_CONSOLE_TEXT + '…'.len_utf8());
    }

    #[test]
    fn a_dialog_is_tracked_and_announced_to_sessions_on_its_tab() {
        let (mut c, s) = setup();
        let other = c.hello(B, "beta".into(), cotab_shared::Ticket("tb".into()));
        c.select(other, B, TabId(2)).expect("select");
        c.take_effects();
        let info = DialogInfo {
            tab_id: TabId(1),
            kind: DialogKind::Confirm,
            message: "Sure?".into(),
            default_prompt: None,
        };
        c.on_dialog_opening(info.clone());
        assert_eq!(c.dialog(TabId(1)), Some(&info));
        assert_eq!(c.dialog(TabId(2)), None);
        assert_eq!(
            c.take_effects(),
            vec![Effect::Notify(s, AgentEvent::DialogOpened(info))]
        );
        c.on_dialog_closed(TabId(1));
        assert_eq!(c.dialog(TabId(1)), None);
        // A lost lane forgets dialogs; a closed tab forgets its page.
        c.on_dialog_opening(DialogInfo {
            tab_id: TabId(2),
            kind: DialogKind::Alert,
            message: String::new(),
            default_prompt: None,
        });
        c.on_lane_lost();
        assert_eq!(c.dialog(TabId(2)), None);
    }

    #[test]
    fn lifecycle_follows_the_current_loader() {
        let (mut c, _) = setup();
        let t = TabId(1);
        assert_eq!(c.lifecycle_reached(t, "M", "networkIdle"), None);
        c.on_lifecycle(t, "M", "L1", "init");
        c.on_lifecycle(t, "M", "L1", "networkIdle");
        assert_eq!(c.lifecycle_reached(t, "M", "networkIdle"), Some(true));
        c.on_lifecycle(t, "M", "L2", "init");
        assert_eq!(c.lifecycle_reached(t, "M", "networkIdle"), Some(false));
        assert_eq!(c.lifecycle_loader(t, "M"), Some("L2"));
        c.on_tab_gone(t, true);
        assert_eq!(c.lifecycle_reached(t, "M", "networkIdle"), None);
    }

    #[test]
    fn an_unchanged_capture_reuses_a_still_valid_frame() {
        let (mut c, s) = setup();
        let f = c.fence(s, A, Need::Observe).expect("fence");
        let mark: CaptureMark = c.capture_started(&f);
        let meta = CaptureMeta {
            dpr: 1.0,
            geometry: geo(),
            origin: (0.0, 0.0),
            digest: [7; 32],
        };
        let id = c.capture_finished_with(&f, mark, meta).expect("frame");
        assert!(c.unchanged_frame(&f, &id, &[7; 32], &geo()).is_some());
        assert!(c.unchanged_frame(&f, &id, &[8; 32], &geo()).is_none());
        let mut scrolled = geo();
        scrolled.scroll_y = 100.0;
        assert!(c.unchanged_frame(&f, &id, &[7; 32], &scrolled).is_none());
        c.on_main_frame_navigated(TabId(1));
        assert!(c.unchanged_frame(&f, &id, &[7; 32], &geo()).is_none());
    }

    #[test]
    fn created_tabs_are_selected_and_leased_and_closing_clears_the_selection() {
        let (mut c, s) = setup();
        let f = c.fence(s, A, Need::Act).expect("fence");
        let held = c
            .begin_press(&f, None, mouse())
            .expect("press on the old tab");
        c.press_settled(held, true);
        c.take_effects();
        let info = TabInfo {
            id: TabId(9),
            url: "about:blank".into(),
            title: String::new(),
            human_control: false,
            blocked: None,
            opener: None,
        };
        let rev = c.tab_created(s, A, &info).expect("created");
        assert_eq!(c.selection(s, A).expect("bound"), (Some(TabId(9)), rev));
        let effects = c.take_effects();
        // Leaving tab 1 released the button there and its lease.
        assert_eq!(releases(&effects).len(), 1);
        assert!(revoked(&effects).contains(&(s, TabId(1), RevokeReason::TabSwitched)));
        assert!(c.fence(s, A, Need::Act).is_ok());

        // Another agent's tab cannot be closed; the own one can.
        let other = c.hello(B, "beta".into(), cotab_shared::Ticket("tb".into()));
        c.select(other, B, TabId(2)).expect("select");
        c.acquire(other, B).expect("acquire");
        assert_eq!(
            c.close_target(s, A, Some(TabId(2))).map_err(|e| e.kind),
            Err(ErrorKind::NoControl)
        );
        assert_eq!(
            c.close_target(s, A, Some(TabId(5))).map_err(|e| e.kind),
            Err(ErrorKind::TabNotShared)
        );
        assert_eq!(c.close_target(s, A, None), Ok(TabId(9)));
        let f = c.fence(s, A, Need::Act).expect("fence");
        let key = c.begin_press(&f, None, key("a")).expect("press");
        c.press_settled(key, true);
        c.tab_closed(TabId(9));
        assert_eq!(c.selection(s, A).expect("bound"), (None, rev + 1));
        assert_eq!(c.held_count(), 0);
        let effects = c.take_effects();
        assert!(
            releases(&effects).is_empty(),
            "nothing is sent to a closed tab"
        );
        assert!(effects.contains(&Effect::Dropped(key)));
    }
}
