//! Each agent request as the person reads it, for the side panel: what it
//! does in the person's terms (`click · button "Send"`), by which agent,
//! on which tab, running or how it ended ([`Feed`]). The requests that act
//! on a page, go somewhere or wait are told; reading the page (a
//! snapshot, a capture) is not.
//!
//! What is told never holds typed text, a key an agent holds, a file's
//! path, a script or raw CDP params: a count, a name or a method at most
//! (`docs/security.md`). Elements are named by the session's latest
//! outline of the tab ([`crate::broker::Core::ref_label`]).
//!
//! Each request that ended, and what the person did meanwhile
//! ([`Feed::person`], [`person_changes`]), also goes to the activity record
//! once the daemon keeps one ([`Feed::keep`], [`crate::recorder`]).

use crate::broker::Core;
use crate::recorder::Recorder;
use crate::session::SessionId;
use cotab_shared::controller::{Call, DialogKind, NavigateAction, Ref, RpcError, WaitUntil};
use cotab_shared::tab::TabInfo;
use cotab_shared::watch::{ActivityEntry, TabPicture, PERSON};
use cotab_shared::TabId;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Mutex, OnceLock};
use tokio::sync::broadcast;

/// Finished entries kept for a watcher that arrives later.
pub const KEPT: usize = 200;

/// Entries queued for a watcher that reads slowly; past it, it misses
/// some and is told the recent ones again.
const QUEUE: usize = 256;

/// Pictures queued for a watcher that reads slowly; past it, it misses
/// some (the next one replaces them).
const PICTURES: usize = 8;

/// Tabs whose latest picture is kept for a watch that arrives later.
const LATEST: usize = 16;

/// What `call` of session `sid` does, in the person's terms, and its
/// tab; `None` for a call the person is not told of.
pub fn describe(core: &Core, sid: SessionId, tab: Option<TabId>, call: &Call) -> Option<String> {
    let el = |r: &Ref| {
        tab.and_then(|t| core.ref_label(sid, t, r))
            .unwrap_or_else(|| format!("element {}", r.0))
    };
    let at = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) => format!("the point ({x:.0}, {y:.0})"),
        _ => "the page".to_owned(),
    };
    let on = |verb: &str, r: Option<&Ref>, x: Option<f64>, y: Option<f64>| match r {
        Some(r) => format!("{verb} · {}", el(r)),
        None => format!("{verb} · {}", at(x, y)),
    };
    let chars = |n: usize| {
        if n == 1 {
            "1 character".to_owned()
        } else {
            format!("{n} characters")
        }
    };
    Some(match call {
        Call::Navigate(p) => match (&p.action, &p.url) {
            (Some(NavigateAction::Back), _) => "go back".into(),
            (Some(NavigateAction::Forward), _) => "go forward".into(),
            (Some(NavigateAction::Reload), _) => "reload".into(),
            (_, Some(url)) => format!("go to {}", short_url(url)),
            _ => "navigate".into(),
        },
        Call::Click(p) => {
            let verb = match p.click_count {
                Some(2) => "double-click",
                Some(3) => "triple-click",
                _ => "click",
            };
            on(verb, p.element.as_ref(), p.x, p.y)
        }
        Call::Hover(p) => on("hover", p.element.as_ref(), p.x, p.y),
        Call::Type(p) => {
            let what = format!("type {}", chars(p.text.chars().count()));
            let what = match &p.element {
                Some(r) => format!("{what} · {}", el(r)),
                None => what,
            };
            if p.submit {
                format!("{what}, then Enter")
            } else {
                what
            }
        }
        Call::Press(p) => format!("press {}", p.key),
        Call::KeyDown(_) => "hold a key".into(),
        Call::KeyUp(_) => "release a key".into(),
        Call::MouseDown(p) => on("press the mouse", None, Some(p.x), Some(p.y)),
        Call::MouseMove(p) => on("move the mouse", None, Some(p.x), Some(p.y)),
        Call::MouseUp(_) => "release the mouse".into(),
        Call::GestureBegin(p) => on("touch", None, Some(p.x), Some(p.y)),
        Call::GestureUpdate(p) => on("move the finger", None, Some(p.x), Some(p.y)),
        Call::GestureEnd(_) => "lift the finger".into(),
        Call::SelectOption(p) => format!("select an option · {}", el(&p.element)),
        Call::Check(p) => {
            let verb = if p.checked { "check" } else { "uncheck" };
            format!("{verb} · {}", el(&p.element))
        }
        Call::Drag(p) => format!("drag · {} → {}", el(&p.from), el(&p.to)),
        Call::Scroll(p) => match &p.element {
            Some(r) => format!("scroll to · {}", el(r)),
            None => on("scroll", None, p.x, p.y),
        },
        Call::SetFiles(p) => {
            let n = p.paths.len();
            let what = if n == 1 {
                "upload 1 file".to_owned()
            } else {
                format!("upload {n} files")
            };
            match &p.element {
                Some(r) => format!("{what} · {}", el(r)),
                None => what,
            }
        }
        Call::DropOn(p) => format!("drop · {}", el(&p.element)),
        Call::Dialog(p) => {
            let verb = if p.accept { "accept" } else { "dismiss" };
            // The person may not see the dialog (its tab is behind
            // theirs): what it asks, as the page wrote it, on one line.
            let what = match tab.and_then(|t| core.dialog(t)) {
                Some(d) => {
                    let kind = match d.kind {
                        DialogKind::Alert => "alert",
                        DialogKind::Confirm => "confirm",
                        DialogKind::Prompt => "prompt",
                        DialogKind::Beforeunload => "leave-page dialog",
                    };
                    let message: String = d
                        .message
                        .chars()
                        .map(|c| if c.is_control() { ' ' } else { c })
                        .collect();
                    format!("{verb} the {kind} \"{}\"", short(message.trim(), 80))
                }
                None => format!("{verb} the dialog"),
            };
            match (&p.prompt_text, p.accept) {
                (Some(text), true) => {
                    format!("{what} with {}", chars(text.chars().count()))
                }
                _ => what,
            }
        }
        Call::Wait(p) => match p.until {
            WaitUntil::Load => "wait for the page to load".into(),
            WaitUntil::NetworkIdle => "wait for the network to be idle".into(),
            WaitUntil::Time => "wait".into(),
            _ => "wait for the page".into(),
        },
        Call::TabsCreate(p) => match &p.url {
            Some(url) => format!("open a tab at {}", short_url(url)),
            None => "open a tab".into(),
        },
        Call::TabsClose(_) => "close a tab".into(),
        Call::Resize(_) => "resize the page".into(),
        Call::EmulateMedia(_) => "emulate media features".into(),
        Call::Evaluate(p) => format!("run a script ({} bytes)", p.expression.len()),
        Call::VideoStart(_) => "start a video of the tab".into(),
        Call::VideoChapter(_) => "mark a chapter in its video".into(),
        Call::VideoStop(_) => "stop its video".into(),
        // Its method and the size of its params, never what they hold.
        Call::CdpSend(p) => {
            let size = p.params.as_ref().map_or(0, json_size);
            format!("raw CDP {} ({size} bytes)", short(&p.method, 64))
        }
        _ => return None,
    })
}

/// How many bytes `v` takes as JSON, counted as it is written, without
/// keeping them: raw CDP's params are told on every call.
fn json_size(v: &serde_json::Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, v) {
        Ok(()) => count.0,
        Err(_) => 0,
    }
}

/// `s`, at most `max` characters.
pub(crate) fn short(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    s.chars().take(max - 1).collect::<String>() + "…"
}

/// A url as the person reads it: scheme, host and path, without its query
/// or fragment (which may hold tokens), at most 80 characters.
fn short_url(url: &str) -> String {
    let cut = url.find(['?', '#']).unwrap_or(url.len());
    short(&url[..cut], 80)
}

/// Agent requests as the person reads them: those running, the latest
/// that ended, and everyone watching.
#[derive(Debug)]
pub struct Feed {
    inner: Mutex<Inner>,
    tx: broadcast::Sender<ActivityEntry>,
    /// Where ended requests are kept, once the daemon keeps a record.
    record: OnceLock<Recorder>,
    /// Per tab, how many agent requests ended on it: a picture waits for
    /// its number to stay put ([`crate::handlers`]' frames).
    quiet: Mutex<std::collections::HashMap<TabId, u64>>,
    /// The latest picture of each tab, for a watch that arrives later.
    latest: Mutex<BTreeMap<TabId, TabPicture>>,
    /// Each picture as it is taken, to the watches.
    pictures: broadcast::Sender<TabPicture>,
    /// Developer mode as a browser connection last reported it
    /// ([`switched`]).
    developer_mode: Mutex<Option<bool>>,
}

#[derive(Debug, Default)]
struct Inner {
    next: u64,
    /// Running requests, with their session.
    running: BTreeMap<u64, (SessionId, ActivityEntry)>,
    ended: VecDeque<ActivityEntry>,
}

impl Default for Feed {
    fn default() -> Self {
        Feed {
            inner: Mutex::default(),
            tx: broadcast::channel(QUEUE).0,
            record: OnceLock::new(),
            quiet: Mutex::default(),
            latest: Mutex::default(),
            pictures: broadcast::channel(PICTURES).0,
            developer_mode: Mutex::default(),
        }
    }
}

/// Whether a browser connection's report of developer mode, `now`, is the
/// person's switch: it differs from the report before it, `last`, which
/// it replaces. The core counts developer mode off while no connection
/// is there, so a connection that comes back with it on is no switch;
/// neither is the first report since the daemon started.
pub fn switched(last: &mut Option<bool>, now: bool) -> bool {
    last.replace(now).is_some_and(|was| was != now)
}

/// What the person did to the shared tabs, from the list `before` to
/// `after`: each as a method ([`PERSON`] and `share`, `unshare`,
/// `takeover`, `handBack`), its tab and what it reads as.
pub fn person_changes(before: &[TabInfo], after: &[TabInfo]) -> Vec<(&'static str, TabId, String)> {
    let name = |t: &TabInfo| {
        if t.title.trim().is_empty() {
            format!("tab {}", t.id.0)
        } else {
            format!("tab {} · {}", t.id.0, short(t.title.trim(), 60))
        }
    };
    let mut out = Vec::new();
    for t in after {
        match before.iter().find(|b| b.id == t.id) {
            None => out.push(("share", t.id, format!("share {}", name(t)))),
            Some(b) if !b.human_control && t.human_control => {
                out.push(("takeover", t.id, format!("take control of {}", name(t))));
            }
            Some(b) if b.human_control && !t.human_control => {
                out.push(("handBack", t.id, format!("hand back {}", name(t))));
            }
            Some(_) => {}
        }
    }
    for b in before {
        if !after.iter().any(|t| t.id == b.id) {
            out.push(("unshare", b.id, format!("stop sharing {}", name(b))));
        }
    }
    out
}

impl Feed {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps every request that ends, and what the person does, in the
    /// record `recorder` writes from now on. Set once.
    pub fn keep(&self, recorder: Recorder) {
        let _ = self.record.set(recorder);
    }

    /// The activity record, when one is kept.
    pub fn record(&self) -> Option<&cotab_local::record::Record> {
        self.record.get().map(Recorder::record)
    }

    /// The record's id of session `sid`, when a record is kept.
    pub fn record_id(&self, sid: SessionId) -> Option<String> {
        self.record.get().map(|r| r.id_of(sid))
    }

    /// A request `method` of session `sid` (agent `agent`) on `tab` began
    /// doing `what`; its number.
    pub fn begin(
        &self,
        sid: SessionId,
        agent: &str,
        tab: Option<TabId>,
        method: &str,
        what: String,
    ) -> u64 {
        let entry = {
            let mut g = self.lock();
            g.next += 1;
            let entry = ActivityEntry {
                seq: g.next,
                at_ms: cotab_local::record::now_ms(),
                agent: short(agent, 64),
                tab,
                method: method.to_owned(),
                what,
                outcome: None,
                ms: None,
                typed: None,
                site: None,
            };
            g.running.insert(entry.seq, (sid, entry.clone()));
            entry
        };
        // Nobody watching: nothing to tell.
        let _ = self.tx.send(entry.clone());
        entry.seq
    }

    /// Request `seq`, running, goes to `site`.
    pub fn set_site(&self, seq: u64, site: String) {
        if let Some((_, entry)) = self.lock().running.get_mut(&seq) {
            entry.site = Some(site);
        }
    }

    /// Request `seq` ended (`Ok` or with its error) after `ms`; `typed`
    /// (as the record keeps it) goes to the record only, never a watch.
    pub fn end<T>(&self, seq: u64, outcome: &Result<T, RpcError>, ms: u64, typed: Option<String>) {
        let entry = {
            let mut g = self.lock();
            let Some((sid, mut entry)) = g.running.remove(&seq) else {
                return;
            };
            entry.outcome = Some(match outcome {
                Ok(_) => "ok".to_owned(),
                Err(e) => e.kind().as_str().to_owned(),
            });
            entry.ms = Some(ms);
            if g.ended.len() >= KEPT {
                g.ended.pop_front();
            }
            g.ended.push_back(entry.clone());
            (sid, entry)
        };
        let (sid, entry) = entry;
        if let Some(r) = self.record.get() {
            let kept = ActivityEntry {
                typed,
                ..entry.clone()
            };
            r.entry(sid, &entry.agent, kept);
        }
        let _ = self.tx.send(entry);
    }

    /// A navigation of `tab` to `site`, started while session `sid`
    /// (agent `agent`) held it, was held and refused (`error`): kept as
    /// an entry of that session's that ended as it began, with the site
    /// the person may allow.
    pub fn refused(
        &self,
        sid: SessionId,
        agent: &str,
        tab: TabId,
        what: String,
        site: String,
        error: cotab_shared::WireError,
    ) {
        let seq = self.begin(sid, agent, Some(tab), "navigation.refused", what);
        self.set_site(seq, site);
        let outcome: Result<(), RpcError> = Err(error.into());
        self.end(seq, &outcome, 0, None);
    }

    /// A request ended on `tab`: the number that a picture of the tab
    /// waits on, or `None` when no record is kept.
    pub fn quiet_from(&self, tab: TabId) -> Option<u64> {
        self.record.get()?;
        let mut q = self.quiet.lock().unwrap_or_else(|e| e.into_inner());
        let n = q.entry(tab).or_default();
        *n += 1;
        Some(*n)
    }

    /// Whether no agent request ended on `tab` since [`Feed::quiet_from`]
    /// gave `generation`, and none runs there now.
    pub fn still_quiet(&self, tab: TabId, generation: u64) -> bool {
        let latest = {
            let q = self.quiet.lock().unwrap_or_else(|e| e.into_inner());
            q.get(&tab).copied()
        };
        latest == Some(generation)
            && !self
                .lock()
                .running
                .values()
                .any(|(_, e)| e.tab == Some(tab))
    }

    /// `jpeg` (base64), `tab` after request `seq` of session `sid`, to the
    /// record and the watches.
    pub fn frame(&self, sid: SessionId, seq: u64, tab: TabId, jpeg: String) {
        let picture = TabPicture {
            tab,
            seq,
            jpeg: jpeg.clone(),
        };
        {
            let mut latest = self.latest.lock().unwrap_or_else(|e| e.into_inner());
            latest.insert(tab, picture.clone());
            while latest.len() > LATEST {
                let oldest = latest.iter().min_by_key(|(_, p)| p.seq).map(|(t, _)| *t);
                if let Some(t) = oldest {
                    latest.remove(&t);
                }
            }
        }
        let _ = self.pictures.send(picture);
        if let Some(r) = self.record.get() {
            r.frame(sid, seq, jpeg);
        }
    }

    /// The latest picture of each tab, oldest first.
    pub fn pictures(&self) -> Vec<TabPicture> {
        let latest = self.latest.lock().unwrap_or_else(|e| e.into_inner());
        let mut all: Vec<TabPicture> = latest.values().cloned().collect();
        all.sort_by_key(|p| p.seq);
        all
    }

    /// Forgets the picture of `tab` (it is no longer shared).
    pub fn forget_picture(&self, tab: TabId) {
        self.latest
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&tab);
    }

    /// Every picture from now on.
    pub fn subscribe_pictures(&self) -> broadcast::Receiver<TabPicture> {
        self.pictures.subscribe()
    }

    /// The person did `what` (`method` after [`PERSON`]) on `tab`, while
    /// sessions `live` were there: kept in their records (the watch shows
    /// the tabs themselves).
    pub fn person(&self, live: Vec<SessionId>, tab: Option<TabId>, method: &str, what: String) {
        let Some(r) = self.record.get() else {
            return;
        };
        let entry = ActivityEntry {
            seq: 0,
            at_ms: cotab_local::record::now_ms(),
            agent: String::new(),
            tab,
            method: format!("{PERSON}{method}"),
            what,
            outcome: Some("ok".to_owned()),
            ms: None,
            typed: None,
            site: None,
        };
        r.person(live, entry);
    }

    /// A browser connection reported developer mode `enabled`: kept in
    /// the records of sessions `live` when the person switched it
    /// ([`switched`]).
    pub fn developer_mode(&self, live: Vec<SessionId>, enabled: bool) {
        let mut last = self
            .developer_mode
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if !switched(&mut last, enabled) {
            return;
        }
        drop(last);
        let what = if enabled {
            "turn developer mode on"
        } else {
            "turn developer mode off"
        };
        self.person(live, None, "developerMode", what.to_owned());
    }

    /// The latest entries that ended, then those running, oldest first.
    pub fn recent(&self) -> Vec<ActivityEntry> {
        let g = self.lock();
        g.ended
            .iter()
            .chain(g.running.values().map(|(_, e)| e))
            .cloned()
            .collect()
    }

    /// Every entry from now on, as it begins and as it ends.
    pub fn subscribe(&self) -> broadcast::Receiver<ActivityEntry> {
        self.tx.subscribe()
    }
}

#[cfg(test)]
mod tests;
