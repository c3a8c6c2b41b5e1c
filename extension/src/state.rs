//! The service worker's bookkeeping, without any browser API: the shared-tab
//! set with the tabs the person took control of, what to send for each
//! browser event, what a move into
//! or out of the `cotab` tab group means, how each way of sharing a tab
//! judges its url, the CDP commands sent on attach, and the gate that holds
//! requests until the shared set is restored.
//!
//! Everything here is plain data so `cargo test` on the host covers it; the
//! `worker` module performs the effects these types decide on.

pub use crate::effect::Effect;
use cotab_shared::limits::MAX_SHARED_TABS;
use cotab_shared::native::{Event, ENABLED_CDP_DOMAINS, FORWARDED_CDP_EVENTS};
use cotab_shared::reach::{check_created, check_shareable, Blocked, LocalFiles};
use cotab_shared::{ErrorKind, TabId, WireError};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// Why a share request was refused before touching the tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShareRefusal {
    /// Another share or unshare of this tab is running.
    Busy,
    /// [`MAX_SHARED_TABS`] tabs are shared (or being shared) already.
    Full,
}

impl fmt::Display for ShareRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShareRefusal::Busy => f.write_str("this tab is already being shared or unshared"),
            ShareRefusal::Full => write!(f, "at most {MAX_SHARED_TABS} tabs can be shared at once"),
        }
    }
}

/// Who asked for a tab to be shared, which decides how its url is judged
/// and whether the worker puts it in the `cotab` group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShareOrigin {
    /// The person, with the popup's Share button.
    Popup,
    /// The person, by dragging the tab into the `cotab` group (it is there
    /// already).
    GroupDrag,
    /// An agent's `createTab`: the extension opened the tab itself.
    Created,
    /// The page of a shared tab opened it (a link with a target,
    /// `window.open`): it starts out blank, or on its way to its url.
    Opened,
}

impl ShareOrigin {
    /// Judges the tab's url: only `http:`/`https:` pages and the local
    /// files `files` allows, except that a tab the extension or a shared
    /// page opened may also be the blank page (or, opened by a page, have
    /// no url yet).
    pub fn check_url(self, url: &str, files: &LocalFiles) -> Result<(), Blocked> {
        match self {
            ShareOrigin::Popup | ShareOrigin::GroupDrag => check_shareable(url, files),
            ShareOrigin::Created => check_created(url, files),
            // Not navigating yet: its first page is judged once attached.
            ShareOrigin::Opened if url.is_empty() => Ok(()),
            ShareOrigin::Opened => check_created(url, files),
        }
    }

    /// Whether the worker must put the tab in the `cotab` group.
    pub fn needs_grouping(self) -> bool {
        self != ShareOrigin::GroupDrag
    }

    /// Whether the share fails when the tab cannot join the group: a tab
    /// a page opened is shared by nobody's request, so only the group
    /// tells the person (a tab of a popup window cannot be grouped).
    pub fn must_be_grouped(self) -> bool {
        self == ShareOrigin::Opened
    }
}

/// Why a tab was not shared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShareFailure {
    /// The shared set refused it before the tab was touched.
    Refused(ShareRefusal),
    /// Its url may not be shared.
    Blocked(Blocked),
    /// The browser failed a step (the tab is gone, another debugger is
    /// attached, a domain could not be enabled …); the message says which.
    Browser(String),
}

impl fmt::Display for ShareFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShareFailure::Refused(refusal) => refusal.fmt(f),
            ShareFailure::Blocked(blocked) => blocked.fmt(f),
            ShareFailure::Browser(message) => f.write_str(message),
        }
    }
}

impl ShareFailure {
    /// The error an agent's `createTab` answers with: `BLOCKED_TARGET` for a
    /// url that may not be shared, `BUSY` for a tab being shared already,
    /// `COMMAND_FAILED` otherwise (the shared-tab limit included).
    pub fn to_wire(&self) -> WireError {
        let kind = match self {
            ShareFailure::Blocked(_) => ErrorKind::BlockedTarget,
            ShareFailure::Refused(ShareRefusal::Busy) => ErrorKind::Busy,
            ShareFailure::Refused(ShareRefusal::Full) | ShareFailure::Browser(_) => {
                ErrorKind::CommandFailed
            }
        };
        WireError::new(kind, self.to_string())
    }
}

/// What a tab's move into or out of a tab group means for sharing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupMove {
    /// An unshared tab entered the `cotab` group: share it.
    Share,
    /// A shared tab left the `cotab` group: unshare it (and leave it where
    /// the person put it).
    Unshare,
    /// Nothing to do: the group agrees with the set, or a share or unshare
    /// of the tab is running (the worker's own grouping included).
    Nothing,
}

/// The CDP commands sent on every attach and re-attach
/// ([`ENABLED_CDP_DOMAINS`]), with their params parsed.
pub fn enable_commands() -> Result<Vec<(&'static str, Value)>, String> {
    ENABLED_CDP_DOMAINS
        .iter()
        .map(|(method, params)| {
            serde_json::from_str(params)
                .map(|params| (*method, params))
                .map_err(|e| format!("the params of {method} are not JSON: {e}"))
        })
        .collect()
}

/// How a share request starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShareStart {
    /// The tab is shared already; nothing to do.
    AlreadyShared,
    /// The tab is reserved; attach, then call [`SharedSet::finish_share`].
    Proceed,
}

/// Why the person could not take control of a tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotShared(pub TabId);

impl fmt::Display for NotShared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tab {} is not shared", self.0)
    }
}

/// What `chrome.storage.session` keeps, written in one `set` so the two
/// keys never disagree: `{"sharedTabs":[1,2],"humanControl":[2]}`. Absent
/// keys read as empty (a set saved before human control existed).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Persisted {
    /// The shared tab ids, in share order.
    #[serde(default)]
    pub shared_tabs: Vec<i32>,
    /// The shared tabs the person took control of.
    #[serde(default)]
    pub human_control: Vec<i32>,
}

impl Persisted {
    /// The storage keys this struct reads and writes.
    pub const KEYS: [&'static str; 2] = ["sharedTabs", "humanControl"];
}

/// How a re-attach of a shared tab ends (see [`SharedSet::end_reattach`]).
#[derive(Debug, Clone, PartialEq)]
pub enum ReattachEnd {
    /// The tab is attached again and still shared.
    Keep,
    /// The tab was unshared meanwhile: detach the session just opened.
    DetachAgain,
    /// The tab could not be attached again and is no longer shared: perform
    /// these effects (the same as a detach by the browser).
    Dropped(Vec<Effect>),
}

/// The tabs shared with agents, in the order they were shared, plus the
/// tabs whose share is in progress, the shared tabs the person took control
/// of, and the tabs whose debugger the worker is re-attaching.
#[derive(Debug, Clone, Default)]
pub struct SharedSet {
    tabs: Vec<TabId>,
    pending: BTreeSet<TabId>,
    /// Shared tabs the person controls; always a subset of `tabs`.
    human: BTreeSet<TabId>,
    /// Shared tabs whose debugger the worker detached on purpose and is
    /// attaching again: a detach notice for them is not an unshare.
    reattaching: BTreeSet<TabId>,
    restored: bool,
    /// Tabs that detached or closed before the restore finished: the restore
    /// must not keep them.
    gone_early: BTreeSet<TabId>,
}

impl SharedSet {
    /// The shared tabs, in share order.
    pub fn ids(&self) -> &[TabId] {
        &self.tabs
    }

    /// Whether `tab` is shared.
    pub fn contains(&self, tab: TabId) -> bool {
        self.tabs.contains(&tab)
    }

    /// Whether the persisted set has been restored.
    pub fn is_restored(&self) -> bool {
        self.restored
    }

    /// Whether the person controls `tab` (only a shared tab can be).
    pub fn is_human(&self, tab: TabId) -> bool {
        self.human.contains(&tab)
    }

    /// The shared tabs the person controls, in share order.
    pub fn human_ids(&self) -> Vec<TabId> {
        self.tabs
            .iter()
            .copied()
            .filter(|t| self.human.contains(t))
            .collect()
    }

    /// What `chrome.storage.session` keeps.
    pub fn persisted(&self) -> Persisted {
        Persisted {
            shared_tabs: self.tabs.iter().map(|t| t.0).collect(),
            human_control: self.human_ids().iter().map(|t| t.0).collect(),
        }
    }

    /// The person takes control of `tab`: from now on actions and
    /// privileged commands on it are refused. Taking a tab the person
    /// already controls changes nothing.
    pub fn take_control(&mut self, tab: TabId) -> Result<Vec<Effect>, NotShared> {
        if !self.contains(tab) {
            return Err(NotShared(tab));
        }
        if self.human.insert(tab) {
            Ok(vec![Effect::Persist, Effect::SendShared])
        } else {
            Ok(Vec::new())
        }
    }

    /// The person hands `tab` back to agents. Nothing changes when they did
    /// not control it.
    pub fn hand_back(&mut self, tab: TabId) -> Vec<Effect> {
        if self.human.remove(&tab) {
            vec![Effect::Persist, Effect::SendShared]
        } else {
            Vec::new()
        }
    }

    /// Marks `tab` as being re-attached by the worker (its detach notice, if
    /// the browser sends one, is ignored). `false` when it is not shared.
    pub fn begin_reattach(&mut self, tab: TabId) -> bool {
        self.contains(tab) && self.reattaching.insert(tab)
    }

    /// Whether `tab` is being re-attached.
    pub fn is_reattaching(&self, tab: TabId) -> bool {
        self.reattaching.contains(&tab)
    }

    /// Ends a re-attach begun with [`SharedSet::begin_reattach`]; `attached`
    /// says whether the new session is open.
    pub fn end_reattach(&mut self, tab: TabId, attached: bool) -> ReattachEnd {
        self.reattaching.remove(&tab);
        match (self.contains(tab), attached) {
            (true, true) => ReattachEnd::Keep,
            (false, true) => ReattachEnd::DetachAgain,
            (false, false) => ReattachEnd::Dropped(Vec::new()),
            (true, false) => ReattachEnd::Dropped(self.on_detach(tab, "reattach_failed")),
        }
    }

    /// Whether the restore should still try `tab` (it did not detach or close
    /// while the worker was restoring).
    pub fn restore_wanted(&self, tab: TabId) -> bool {
        !self.gone_early.contains(&tab)
    }

    /// Ends the restore with the tabs that re-attached and the saved
    /// human-control flags (kept for the tabs that stay shared). Returns the
    /// tabs that went away meanwhile: the caller detaches them again.
    pub fn finish_restore(&mut self, kept: Vec<TabId>, human: &[TabId]) -> Vec<TabId> {
        let mut tabs = Vec::new();
        let mut dropped = Vec::new();
        for tab in kept {
            if self.gone_early.contains(&tab) {
                dropped.push(tab);
            } else if !tabs.contains(&tab) && tabs.len() < MAX_SHARED_TABS {
                tabs.push(tab);
            }
        }
        self.human = human.iter().copied().filter(|t| tabs.contains(t)).collect();
        self.tabs = tabs;
        self.gone_early.clear();
        self.restored = true;
        dropped
    }

    /// Whether a share or unshare of `tab` is running.
    pub fn is_pending(&self, tab: TabId) -> bool {
        self.pending.contains(&tab)
    }

    /// Whether one more tab could be shared now (checked before opening a
    /// tab for an agent, so no tab is opened only to be refused).
    pub fn has_room(&self) -> Result<(), ShareRefusal> {
        if self.tabs.len() + self.pending.len() >= MAX_SHARED_TABS {
            Err(ShareRefusal::Full)
        } else {
            Ok(())
        }
    }

    /// What it means that `tab` is now in the `cotab` group
    /// (`in_cotab_group`) or not. The worker's own share groups the tab
    /// while the share is pending, so its group change is never read as
    /// the person's; its unshare takes the tab out of the set before
    /// ungrouping it.
    pub fn group_move(&self, tab: TabId, in_cotab_group: bool) -> GroupMove {
        if !self.restored || self.pending.contains(&tab) {
            return GroupMove::Nothing;
        }
        match (in_cotab_group, self.contains(tab)) {
            (true, false) => GroupMove::Share,
            (false, true) => GroupMove::Unshare,
            _ => GroupMove::Nothing,
        }
    }

    /// Reserves `tab` for sharing, or says why not.
    pub fn begin_share(&mut self, tab: TabId) -> Result<ShareStart, ShareRefusal> {
        if self.pending.contains(&tab) {
            return Err(ShareRefusal::Busy);
        }
        if self.contains(tab) {
            return Ok(ShareStart::AlreadyShared);
        }
        self.has_room()?;
        self.pending.insert(tab);
        Ok(ShareStart::Proceed)
    }

    /// Ends a share begun with [`SharedSet::begin_share`]: adds the tab when
    /// `attached`. Returns the effects of the change.
    pub fn finish_share(&mut self, tab: TabId, attached: bool) -> Vec<Effect> {
        self.pending.remove(&tab);
        if attached && !self.contains(tab) {
            self.tabs.push(tab);
            vec![Effect::Persist, Effect::SendShared]
        } else {
            Vec::new()
        }
    }

    /// Removes `tab` at the person's request (which also ends their control
    /// of it). `Err` while a share of it is in progress; `Ok(false)` when it
    /// was not shared.
    pub fn unshare(&mut self, tab: TabId) -> Result<bool, ShareRefusal> {
        if self.pending.contains(&tab) {
            return Err(ShareRefusal::Busy);
        }
        Ok(self.remove(tab))
    }

    fn remove(&mut self, tab: TabId) -> bool {
        self.human.remove(&tab);
        let before = self.tabs.len();
        self.tabs.retain(|t| *t != tab);
        self.tabs.len() != before
    }

    /// `chrome.debugger.onDetach` for `tab`. A tab being re-attached by the
    /// worker stays shared: the detach was ours.
    pub fn on_detach(&mut self, tab: TabId, reason: &str) -> Vec<Effect> {
        if self.reattaching.contains(&tab) {
            return Vec::new();
        }
        if !self.restored {
            self.gone_early.insert(tab);
            return Vec::new();
        }
        if !self.remove(tab) {
            return Vec::new();
        }
        vec![
            Effect::Persist,
            Effect::Send(Event::Detached {
                tab_id: tab,
                reason: reason.to_owned(),
            }),
            Effect::SendShared,
            Effect::Ungroup(tab),
        ]
    }

    /// `chrome.tabs.onRemoved` for `tab` (`with_window`: it closed with
    /// its window).
    pub fn on_removed(&mut self, tab: TabId, with_window: bool) -> Vec<Effect> {
        if !self.restored {
            self.gone_early.insert(tab);
            return Vec::new();
        }
        if !self.remove(tab) {
            return Vec::new();
        }
        vec![
            Effect::Persist,
            Effect::Send(Event::TabClosed {
                tab_id: tab,
                with_window,
            }),
            Effect::SendShared,
        ]
    }

    /// `chrome.tabs.onUpdated` for `tab`: only a url or title change of a
    /// shared tab matters.
    pub fn on_updated(&self, tab: TabId, url_changed: bool, title_changed: bool) -> Vec<Effect> {
        if self.contains(tab) && (url_changed || title_changed) {
            vec![Effect::SendShared]
        } else {
            Vec::new()
        }
    }

    /// Whether a CDP event from `tab` goes to the host.
    pub fn forwards_cdp_event(&self, tab: TabId, method: &str) -> bool {
        self.contains(tab) && FORWARDED_CDP_EVENTS.contains(&method)
    }
}

/// The message of a `chrome.debugger.sendCommand` failure. The browser puts
/// the CDP error object's JSON in the `Error`'s message; this keeps its
/// `message` field and passes anything else through.
pub fn cdp_error_message(raw: &str) -> String {
    serde_json::from_str::<serde_json::Value>(raw)
        .ok()
        .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(str::to_owned))
        .unwrap_or_else(|| raw.to_owned())
}

/// Whether an attach failure means a debugger session already exists.
pub fn is_already_attached(message: &str) -> bool {
    holds(message, "Another debugger is already attached")
}

/// Whether `text` holds `part`: `str::contains` by plain comparison at
/// each place, which spares the worker's wasm the two-way searcher
/// (kilobytes) for the short messages it looks into.
pub fn holds(text: &str, part: &str) -> bool {
    part.is_empty()
        || text
            .as_bytes()
            .windows(part.len())
            .any(|w| w == part.as_bytes())
}

/// A one-way gate: futures from [`Gate::wait`] complete once [`Gate::open`]
/// was called. Requests wait on it until the shared set is restored.
#[derive(Debug, Clone, Default)]
pub struct Gate {
    inner: Rc<RefCell<GateInner>>,
}

#[derive(Debug, Default)]
struct GateInner {
    open: bool,
    waiters: Vec<Waker>,
}

impl Gate {
    /// Opens the gate and wakes every waiter.
    pub fn open(&self) {
        let waiters = {
            let mut inner = self.inner.borrow_mut();
            inner.open = true;
            std::mem::take(&mut inner.waiters)
        };
        for waker in waiters {
            waker.wake();
        }
    }

    /// Whether `other` is this gate (a clone of it), not another one.
    pub fn same(&self, other: &Gate) -> bool {
        Rc::ptr_eq(&self.inner, &other.inner)
    }

    /// Whether the gate is open.
    pub fn is_open(&self) -> bool {
        self.inner.borrow().open
    }

    /// Completes once the gate is open.
    pub fn wait(&self) -> GateWait {
        GateWait { gate: self.clone() }
    }
}

/// The future of [`Gate::wait`].
#[derive(Debug)]
pub struct GateWait {
    gate: Gate,
}

impl Future for GateWait {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut inner = self.gate.inner.borrow_mut();
        if inner.open {
            Poll::Ready(())
        } else {
            inner.waiters.push(cx.waker().clone());
            Poll::Pending
        }
    }
}

/// Presses handed to the browser and not yet answered, by tab and by the
/// input they hold ([`cotab_shared::input::InputRole`]'s name), each with
/// the gate its answer opens: a release of the same input waits for them
/// (`worker::cdp`).
#[derive(Debug, Default)]
pub struct PendingPresses {
    presses: Vec<(TabId, String, Gate)>,
}

impl PendingPresses {
    /// A press of `input` on `tab` was handed to the browser: the gate its
    /// answer opens.
    pub fn sent(&mut self, tab: TabId, input: String) -> Gate {
        let gate = Gate::default();
        self.presses.push((tab, input, gate.clone()));
        gate
    }

    /// The press of `gate` was answered: opens it.
    pub fn answered(&mut self, gate: &Gate) {
        self.presses.retain(|(_, _, g)| !g.same(gate));
        gate.open();
    }

    /// The gates of the presses of `input` on `tab` still waiting.
    pub fn waiting(&self, tab: TabId, input: &str) -> Vec<Gate> {
        self.presses
            .iter()
            .filter(|(t, i, _)| *t == tab && i == input)
            .map(|(_, _, g)| g.clone())
            .collect()
    }

    /// `tab`'s page is gone (closed, crashed, detached): no answer of its
    /// presses matters any more; opens their gates.
    pub fn gone(&mut self, tab: TabId) {
        self.presses.retain(|(t, _, g)| {
            if *t == tab {
                g.open();
            }
            *t != tab
        });
    }
}

#[cfg(test)]
mod tests;
