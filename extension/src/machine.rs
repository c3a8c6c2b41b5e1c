//! The worker's state machine: everything the worker knows and decides,
//! with the browser's and the host's events in and [`Effect`]s out, as the
//! daemon's `broker::Core` is. It holds the policy modules' states side by
//! side and owns the rules that cross them: what a closed tab, a debugger
//! detach, a crash, a page that became blocked, a CDP event, a dropped
//! native link or the person taking control change, and what follows.
//! Plain Rust, tested on the host; the worker's glue reads the browser,
//! calls in and performs the effects.

use crate::control::{admit, effective_holder, Admission, InFlight};
use crate::developer_switch::{DeveloperSwitch, Turned};
use crate::effect::Effect;
use crate::fronts::Fronts;
use crate::held::HeldInput;
use crate::link_state::Link;
use crate::messages::{PopupState, Suspended, Unshared};
use crate::page_state::{Change, Pages, TRACKED_EVENTS};
use crate::state::{NotShared, SharedSet};
use crate::tab_facts::TabFacts;
use cotab_shared::native::{CommandClass, Event, Holder, TabControl, TabInfo};
use cotab_shared::reach::LocalFiles;
use cotab_shared::{TabId, WireError, NATIVE_HOST_NAME};
use serde_json::Value;
use std::collections::BTreeMap;

/// `chrome.debugger.onDetach`'s reason when the tab closed (or navigated to
/// a page the debugger may not attach to).
pub const TARGET_CLOSED: &str = "target_closed";

/// CDP event: the page's renderer crashed (needs `Inspector.enable`).
const TARGET_CRASHED: &str = "Inspector.targetCrashed";

/// CDP event: a crashed page was loaded again.
const TARGET_RELOADED_AFTER_CRASH: &str = "Inspector.targetReloadedAfterCrash";

/// CDP event: the page opened a JavaScript dialog.
const DIALOG_OPENING: &str = "Page.javascriptDialogOpening";

/// The CDP events noted in [`TabFacts`], from any attached tab.
const NOTED_EVENTS: [&str; 3] = [TARGET_CRASHED, TARGET_RELOADED_AFTER_CRASH, DIALOG_OPENING];

/// How many tabs' unshare notes the worker keeps.
pub const MAX_UNSHARED_NOTES: usize = 16;

/// What the popup says about a tab the browser's detach (`reason`)
/// unshared.
fn unshared_why(reason: &str) -> String {
    match reason {
        "canceled_by_user" => "the browser's debugging bar was cancelled".to_owned(),
        // A tab that closed has no row; one that is still there went to a
        // page the browser lets no extension debug.
        TARGET_CLOSED => "the tab went to a page the browser keeps from extensions".to_owned(),
        other => format!("the browser detached it ({other})"),
    }
}

/// Everything the worker keeps that is not a handle on the browser.
#[derive(Debug, Default)]
pub struct Machine {
    /// The shared tabs and the person's control of them.
    pub shared: SharedSet,
    /// The native link's phase, backoff and last error.
    pub link: Link,
    /// Who the daemon last said controls each shared tab (its
    /// `controllers` message); cleared when the native link drops. Shown in
    /// the popup only: the extension's own rules use the human-control
    /// flags of `shared`.
    pub holders: BTreeMap<TabId, Holder>,
    /// The shared tabs the daemon last said a video is recorded of;
    /// cleared with `holders`.
    pub recorded: Vec<TabId>,
    /// The agents the daemon last said are connected, by name; cleared
    /// when the native link drops. Shown in the popup.
    pub agents: Vec<String>,
    /// Tabs unshared because the browser detached cotab's debugger, and
    /// why (the newest last, at most [`MAX_UNSHARED_NOTES`]); a tab's note
    /// goes when it closes or is shared again. Shown in the popup.
    pub unshared: Vec<(TabId, String)>,
    /// CDP commands in flight, so they can fail at once when their
    /// authority ends.
    pub in_flight: InFlight,
    /// The developer-mode switch and its re-attach.
    pub developer: DeveloperSwitch,
    /// Why the last tab dragged into the `cotab` group was not shared;
    /// cleared when a tab is shared. Shown in the popup.
    pub share_error: Option<String>,
    /// Input sent to pages and not yet released.
    pub held: HeldInput,
    /// Each tab's crash, dialog count, raw CDP, release-only session and
    /// opener.
    pub facts: TabFacts,
    /// Each attached tab's page: blocked or not, its contexts.
    pub pages: Pages,
    /// The front tab of each window and the one before it.
    pub fronts: Fronts,
}

impl Machine {
    /// `chrome.tabs.onRemoved` (`with_window`: it closed with its
    /// window): the tab's commands fail, what its page held is gone with
    /// it, and a shared tab's share ends.
    pub fn tab_removed(&mut self, tab: TabId, with_window: bool) -> Vec<Effect> {
        self.unshared.retain(|(t, _)| *t != tab);
        self.fronts.closed(tab);
        let shared = self.shared.on_removed(tab, with_window);
        self.pages.forget(tab);
        let mut out = Vec::new();
        self.page_gone(tab, "the tab closed", &mut out);
        self.facts.forget(tab);
        self.forget_held(tab, &mut out);
        out.extend(shared);
        out
    }

    /// `chrome.debugger.onDetach` by the browser (`reason`
    /// [`TARGET_CLOSED`]) or by someone else (`canceled_by_user`: the
    /// person, or DevTools): the tab is no longer shared, its commands in
    /// flight fail, and what the page holds is released through a
    /// short-lived session of its own unless the page is gone. A detach of
    /// the worker's own re-attach changes nothing.
    pub fn detached(&mut self, tab: TabId, reason: &str) -> Vec<Effect> {
        let shared = self.shared.on_detach(tab, reason);
        if shared.is_empty() {
            return shared;
        }
        self.unshared.retain(|(t, _)| *t != tab);
        if self.unshared.len() >= MAX_UNSHARED_NOTES {
            self.unshared.remove(0);
        }
        self.unshared.push((tab, unshared_why(reason)));
        let mut out = Vec::new();
        self.page_gone(tab, "the debugger was detached", &mut out);
        self.pages.forget(tab);
        self.facts.session_ended(tab);
        out.extend(shared);
        if reason == TARGET_CLOSED {
            self.forget_held(tab, &mut out);
        } else {
            out.push(Effect::ReleaseDetached(tab));
        }
        out
    }

    /// Whether the CDP event `method` from `tab` matters: forwarded to the
    /// host, tracked for the tab's page, or noted in its facts. Only then
    /// are its params read.
    pub fn wants_cdp_event(&self, tab: TabId, method: &str) -> bool {
        self.forwards(tab, method)
            || TRACKED_EVENTS.contains(&method)
            || NOTED_EVENTS.contains(&method)
    }

    /// A CDP event from `tab`, with its params (`None` when they could not
    /// be read): the page's state follows it, a crash or a dialog is
    /// noted, and a forwarded event goes to the host unless the page is
    /// blocked (its console and dialogs would reach agents: the page's
    /// change is reported in the shared list instead).
    pub fn cdp_event(&mut self, tab: TabId, method: String, params: Option<Value>) -> Vec<Effect> {
        let mut out = Vec::new();
        if let (true, Some(params)) = (TRACKED_EVENTS.contains(&method.as_str()), &params) {
            if let Some(change) = self.pages.on_event(tab, &method, params) {
                out.extend(self.page_changed(tab, change));
            }
        }
        match method.as_str() {
            TARGET_CRASHED => out.extend(self.crashed(tab)),
            TARGET_RELOADED_AFTER_CRASH => self.facts.reloaded(tab),
            DIALOG_OPENING => self.facts.dialog_opened(tab),
            _ => {}
        }
        let forwarded = self.forwards(tab, &method);
        let blocked = self.pages.blocked(tab).is_some();
        if let (true, false, Some(params)) = (forwarded, blocked, params) {
            out.push(Effect::Send(Event::Cdp {
                session: None,
                tab_id: tab,
                method,
                params,
            }));
        }
        out
    }

    /// Whether the events of `tab`'s child sessions (frames in other
    /// processes, workers) go to the host: only while the daemon asked for
    /// every event of the tab, and not from a blocked page. The tab's page
    /// state follows its own session's events alone.
    pub fn forwards_child_events(&self, tab: TabId) -> bool {
        self.shared.contains(tab) && self.pages.all_events(tab) && self.pages.blocked(tab).is_none()
    }

    /// Whether the CDP event `method` from `tab` goes to the host: one of
    /// those always forwarded, or any while the daemon asked for every
    /// event of the tab.
    fn forwards(&self, tab: TabId, method: &str) -> bool {
        self.shared.forwards_cdp_event(tab, method)
            || (self.shared.contains(tab) && self.pages.all_events(tab))
    }

    /// The page's renderer crashed: commands in flight on it never settle
    /// by themselves, so they fail now; what it held is gone with it;
    /// commands fail at once until the tab is reloaded or navigated.
    fn crashed(&mut self, tab: TabId) -> Vec<Effect> {
        let mut out = Vec::new();
        if !self.shared.contains(tab) {
            return out;
        }
        self.facts.crashed(tab);
        let aborted = self.page_gone(tab, "the page crashed", &mut out);
        self.forget_held(tab, &mut out);
        out.push(Effect::warn(format!(
            "the page in tab {tab} crashed ({aborted} command(s) in flight failed)"
        )));
        out
    }

    /// `chrome.tabs.onUpdated` for `tab`: its url (if it changed) and
    /// whether its title did.
    pub fn tab_updated(&mut self, tab: TabId, url: Option<&str>, title: bool) -> Vec<Effect> {
        let mut out = Vec::new();
        if let Some(change) = url.and_then(|url| self.pages.url_changed(tab, url)) {
            out.extend(self.page_changed(tab, change));
        }
        out.extend(self.shared.on_updated(tab, url.is_some(), title));
        out
    }

    /// Whether `tab` became suspended on a blocked page, or driveable
    /// again. Suspended: every command in flight on it fails
    /// `BLOCKED_TARGET` now (no answer of the blocked page reaches an
    /// agent), what the agents hold there is released, and the daemon
    /// hears of it. A tab not (yet) shared only has its page noted: a
    /// share checks the page after attaching.
    pub fn page_changed(&mut self, tab: TabId, change: Change) -> Vec<Effect> {
        if !self.shared.contains(tab) {
            return Vec::new();
        }
        let mut out = Vec::new();
        match change {
            Change::Blocked(blocked) => {
                let failed = self.in_flight.fail_all_on(tab, &blocked.suspended(tab));
                out.push(Effect::warn(format!(
                    "tab {tab} went to a page agents may not use ({}): suspended ({failed} \
                     command(s) in flight failed)",
                    blocked.reason()
                )));
                out.push(Effect::ReleaseHeld(tab));
            }
            Change::Driveable => {
                out.push(Effect::info(format!("tab {tab} shows a web page again")))
            }
        }
        out.push(Effect::SendShared);
        out
    }

    /// The host's policy: the directories whose local files agents may
    /// reach. Tabs on such pages become blocked or driveable.
    pub fn policy(&mut self, files: LocalFiles) -> Vec<Effect> {
        let mut out = Vec::new();
        for (tab, change) in self.pages.set_files(files) {
            out.extend(self.page_changed(tab, change));
        }
        out
    }

    /// The host's word on who controls each shared tab, and which are
    /// recorded.
    pub fn controllers(&mut self, tabs: Vec<TabControl>, recorded: Vec<TabId>) {
        self.holders = tabs.into_iter().map(|c| (c.tab_id, c.holder)).collect();
        self.recorded = recorded;
    }

    /// The host's welcome to a link that speaks `protocol_version`.
    pub fn welcome(&mut self, protocol_version: u32) -> Effect {
        match self.link.welcome(protocol_version) {
            Ok(()) => Effect::info("native host connected".to_owned()),
            Err(e) => Effect::warn(e),
        }
    }

    /// The native link dropped (`reason`): nobody waits for the answers of
    /// the commands in flight any more, and the daemon's word on who
    /// controls what ends with it. Says after how many milliseconds to
    /// reconnect.
    pub fn link_dropped(&mut self, reason: String) -> (u32, Effect) {
        let delay = self.link.disconnected(reason.clone());
        self.in_flight.abort_all("the native link dropped");
        self.holders.clear();
        self.recorded.clear();
        self.agents.clear();
        let line = format!(
            "native host {NATIVE_HOST_NAME} disconnected: {reason}; retrying in {delay} ms"
        );
        (delay, Effect::warn(line))
    }

    /// The person takes control of the shared tab `tab`: its agent actions
    /// in flight fail. Also says whether raw CDP ran on it since its
    /// debugger attached: then it must be re-attached, so nothing raw CDP
    /// set up there stays in the person's way.
    pub fn take_control(&mut self, tab: TabId) -> Result<(Vec<Effect>, bool), NotShared> {
        let mut out = self.shared.take_control(tab)?;
        let aborted = self.in_flight.abort_actions_on(tab);
        if !out.is_empty() {
            out.push(Effect::info(format!(
                "the person took control of tab {tab} ({aborted} agent action(s) failed)"
            )));
        }
        Ok((out, self.facts.raw_cdp_ran(tab)))
    }

    /// The person turned developer mode on or off (or storage says it
    /// changed): what follows, and whether every shared tab must now be
    /// re-attached (turned off: nothing raw CDP set up may outlive it).
    /// Every privileged command in flight fails at once when it goes off.
    pub fn developer_mode_set(&mut self, enabled: bool) -> (Vec<Effect>, bool) {
        match self.developer.set(enabled) {
            None => (Vec::new(), false),
            Some(Turned::On { tell }) => {
                let mut out = vec![Effect::info("developer mode on".to_owned())];
                // A running re-attach sends the state it finds when it ends.
                if tell {
                    out.push(Effect::Send(Event::DeveloperMode { enabled: true }));
                }
                (out, false)
            }
            Some(Turned::Off) => {
                let aborted = self.in_flight.abort_privileged();
                let line = format!(
                    "developer mode off: {aborted} privileged command(s) failed, re-attaching \
                     shared tabs"
                );
                (vec![Effect::info(line)], true)
            }
        }
    }

    /// Whether a command of `class` may run on `tab` now.
    pub fn admit(&self, tab: TabId, class: CommandClass) -> Result<Admission, WireError> {
        admit(
            tab,
            class,
            self.shared.contains(tab),
            self.shared.is_human(tab),
            self.pages.blocked(tab),
        )
    }

    /// The shared tab `tab` as the host sees it, from the `url` and
    /// `title` the browser reports: with its control flag, and its opener
    /// when that is shared too. A tab suspended on a blocked page says so,
    /// and its url and title (the person's) are left out.
    pub fn tab_info(&self, tab: TabId, url: &str, title: Option<&str>) -> TabInfo {
        let blocked = self.pages.blocked(tab);
        let (url, title) = match blocked {
            Some(_) => (String::new(), String::new()),
            None => (url.to_owned(), title.unwrap_or_default().to_owned()),
        };
        TabInfo {
            id: tab,
            url,
            title,
            human_control: self.shared.is_human(tab),
            blocked,
            opener: self.facts.opener(tab).filter(|o| self.shared.contains(*o)),
            target_id: match blocked {
                Some(_) => None,
                None => self.pages.main_frame(tab).map(str::to_owned),
            },
        }
    }

    /// Whether a request from a cotab page in `tab` is refused: an agent
    /// may be driving a shared tab (or one being shared).
    pub fn refuses_popup_in(&self, tab: TabId) -> bool {
        self.shared.contains(tab) || self.shared.is_pending(tab)
    }

    /// What the popup shows, with the switch as stored.
    pub fn popup_state(&self, developer_mode: bool) -> PopupState {
        let ids = self.shared.ids();
        PopupState {
            connected: self.link.connected(),
            shared: ids.to_vec(),
            human_control: self.shared.human_ids(),
            controllers: ids
                .iter()
                .map(|&tab_id| TabControl {
                    tab_id,
                    holder: effective_holder(
                        self.shared.is_human(tab_id),
                        self.holders.get(&tab_id),
                    ),
                })
                .collect(),
            suspended: ids
                .iter()
                .filter_map(|&tab_id| {
                    let blocked = self.pages.blocked(tab_id)?;
                    Some(Suspended { tab_id, blocked })
                })
                .collect(),
            file_dirs: self.pages.files().clone(),
            developer_mode,
            last_error: self.link.last_error().map(str::to_owned),
            share_error: self.share_error.clone(),
            agents: self.agents.clone(),
            unshared: self
                .unshared
                .iter()
                .filter(|(tab, _)| !self.shared.contains(*tab))
                .map(|(tab_id, why)| Unshared {
                    tab_id: *tab_id,
                    why: why.clone(),
                })
                .collect(),
        }
    }

    /// `tab`'s page went away (`why`): its commands in flight fail, and its
    /// presses' answers no longer matter. Returns how many commands failed.
    fn page_gone(&mut self, tab: TabId, why: &str, out: &mut Vec<Effect>) -> usize {
        out.push(Effect::PressesGone(tab));
        self.in_flight.abort_all_on(tab, why)
    }

    /// `tab`'s page is gone: nothing to release any more.
    fn forget_held(&mut self, tab: TabId, out: &mut Vec<Effect>) {
        if self.held.forget(tab) {
            out.push(Effect::Persist);
        }
    }
}

#[cfg(test)]
mod tests;
