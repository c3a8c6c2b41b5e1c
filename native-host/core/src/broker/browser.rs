//! The browser side of the broker core: what the extension reports —
//! the shared list, a tab gone, a main-frame navigation, a crash, the
//! developer-mode switch, the lane up and down — and what each means for
//! leases, held input, frames and the agents (the notifications of the
//! shared list and of the lane). Also who controls each tab, as the
//! extension is told.
//!
//! Like the rest of the core it does no I/O and never awaits.

use super::{Actor, Core, Effect, RevokeReason, Tab};
use crate::session::SessionId;
use cotab_shared::controller::AgentEvent;
use cotab_shared::held::State;
use cotab_shared::native::{Holder, TabControl, TabInfo};
use cotab_shared::TabId;

/// How many departures [`Core::gone`] remembers.
pub(super) const DEPARTED: usize = 64;

/// Why a tab left the shared list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gone {
    /// The tab was closed.
    Closed,
    /// The tab was closed with its window: the person closed the window,
    /// or the browser is quitting (then the lane goes too).
    ClosedWithWindow,
    /// The person unshared it (the popup, a drag out of the group, the
    /// debugging bar cancelled).
    Unshared,
}

impl Core {
    /// The shared tabs as the extension reports them (event or live list).
    /// A tab now under human control revokes the agent lease there
    /// (`human`); a tab gone from the list revokes with `unshared`.
    pub fn on_shared(&mut self, tabs: &[TabInfo]) {
        if self.shared != tabs {
            // The watches list each shared tab with its title and sites.
            self.effects.push(Effect::Scopes);
        }
        for t in tabs {
            if !self.shared.contains(t) {
                self.effects
                    .push(Effect::NotifyAll(AgentEvent::TabUpdated(t.clone())));
            }
        }
        for t in &self.shared {
            if !tabs.iter().any(|n| n.id == t.id) {
                self.effects
                    .push(Effect::NotifyAll(AgentEvent::TabClosed { tab_id: t.id }));
            }
        }
        // A url the list tells anew is newer than the document the tab
        // last said it committed.
        for t in tabs {
            let moved = self
                .shared
                .iter()
                .find(|o| o.id == t.id)
                .is_none_or(|o| o.url != t.url);
            if let (true, Some(tab)) = (moved, self.tabs.get_mut(&t.id)) {
                tab.committed = None;
            }
        }
        self.shared = tabs.to_vec();
        let gone: Vec<TabId> = self
            .tabs
            .keys()
            .filter(|id| !tabs.iter().any(|t| t.id == **id))
            .copied()
            .collect();
        for id in gone {
            self.revoke_tab(id, RevokeReason::Unshared, false, true);
            self.tabs.remove(&id);
            self.departed(id, Gone::Unshared);
        }
        self.pages.retain(|id, _| tabs.iter().any(|t| t.id == *id));
        self.forget_kept(None);
        for info in tabs {
            let joined = !self.tabs.contains_key(&info.id);
            if joined {
                if let Some(opener) = info.opener {
                    self.notify_selecting(opener, AgentEvent::TabOpened(info.clone()));
                }
                // A tab shared (again): no frame from before may match.
                let nav = self.fresh_nav();
                let scope = self.scope_of_new(info);
                let ask_before = self.asks_of_new(info);
                self.tabs.insert(
                    info.id,
                    Tab {
                        nav,
                        scope,
                        ask_before,
                        ..Tab::default()
                    },
                );
            }
            self.settle_kept(info, joined);
            let Some(tab) = self.tabs.get_mut(&info.id) else {
                continue;
            };
            let newly_blocked = info.blocked.is_some() && tab.blocked.is_none();
            tab.blocked = info.blocked;
            if info.human_control && !tab.human {
                tab.human = true;
                self.revoke_tab(info.id, RevokeReason::Human, false, true);
                self.mark_input(info.id, Actor::Human);
                self.undo_emulation(info.id);
                self.undo_choosers(info.id);
            } else if !info.human_control && tab.human {
                tab.human = false;
            }
            if newly_blocked {
                // The extension releases what agents held there itself
                // (it sends nothing else to a blocked page), and the page
                // the agents saw is gone.
                self.revoke_tab(info.id, RevokeReason::BlockedTarget, true, true);
                self.on_main_frame_navigated(info.id);
            }
        }
        self.publish_controllers(false);
    }

    /// The tab closed or its debugger detached (`gone` says which): its
    /// lease is revoked and its held input dropped (no debugger to send
    /// through).
    pub fn on_tab_gone(&mut self, tab: TabId, gone: Gone) {
        self.pages.remove(&tab);
        self.shared.retain(|t| t.id != tab);
        self.departed(tab, gone);
        if self.tabs.contains_key(&tab) {
            self.tab_gone(tab, gone);
        }
        self.effects
            .push(Effect::NotifyAll(AgentEvent::TabClosed { tab_id: tab }));
        self.effects.push(Effect::Scopes);
    }

    /// Notes why `tab` left the shared list.
    fn departed(&mut self, tab: TabId, gone: Gone) {
        self.departed.retain(|(t, _)| *t != tab);
        if self.departed.len() >= DEPARTED {
            self.departed.pop_front();
        }
        self.departed.push_back((tab, gone));
    }

    /// Why `tab` left the shared list, if it did lately.
    pub fn gone(&self, tab: TabId) -> Option<Gone> {
        if self.tabs.contains_key(&tab) {
            return None;
        }
        self.departed
            .iter()
            .rev()
            .find(|(t, _)| *t == tab)
            .map(|(_, g)| *g)
    }

    /// `TAB_NOT_SHARED` for the selected tab `tab`, which left the shared
    /// list: the message says why, as far as the daemon heard.
    pub fn gone_error(&self, tab: TabId) -> cotab_shared::WireError {
        let why = match self.gone(tab) {
            Some(Gone::Closed) => "the selected tab was closed",
            Some(Gone::ClosedWithWindow) => {
                "the selected tab was closed with its window (the person closed the window, or \
                 the browser quit)"
            }
            Some(Gone::Unshared) => "the selected tab is no longer shared: the person unshared it",
            None => "the selected tab is no longer shared",
        };
        cotab_shared::WireError::new(cotab_shared::ErrorKind::TabNotShared, why)
    }

    fn tab_gone(&mut self, tab: TabId, gone: Gone) {
        let reason = match gone {
            Gone::Closed | Gone::ClosedWithWindow => RevokeReason::TabClosed,
            Gone::Unshared => RevokeReason::Unshared,
        };
        self.revoke_tab(tab, reason, true, true);
        self.tabs.remove(&tab);
        self.publish_controllers(false);
    }

    /// Whether `tab` is shared (agents may reach it) as far as the core
    /// knows.
    pub fn is_shared(&self, tab: TabId) -> bool {
        self.tabs.contains_key(&tab)
    }

    /// A main-frame navigation on `tab`: every frame of it goes stale.
    pub fn on_main_frame_navigated(&mut self, tab: TabId) {
        let nav = self.fresh_nav();
        if let Some(t) = self.tabs.get_mut(&tab) {
            t.nav = nav;
        }
        if let Some(p) = self.pages.get_mut(&tab) {
            p.document_seq = p.last_seq;
        }
        self.forget_chooser(tab);
    }

    /// `tab`'s main frame committed a document at `url` (the page's own
    /// word, which may come before the shared list's): until the list
    /// tells a url anew, an agent's request there must be in scope for
    /// both ([`Core::fence`]).
    pub fn on_main_frame_committed(&mut self, tab: TabId, url: &str) {
        if let (false, Some(t)) = (url.is_empty(), self.tabs.get_mut(&tab)) {
            t.committed = Some(url.to_owned());
        }
    }

    /// `tab`'s renderer crashed: what it held is gone with it (dropped,
    /// nothing to send: a late paired release is answered
    /// `alreadyReleased`), every frame of it is stale and its dialog gone.
    /// The lease stays: the agent may reload the page and go on.
    pub fn on_page_crashed(&mut self, tab: TabId) {
        self.release_where(|p| p.tab == tab, true);
        self.on_main_frame_navigated(tab);
        if let Some(p) = self.pages.get_mut(&tab) {
            p.dialog = None;
        }
    }

    /// How many main-frame navigations `tab` has seen (refs and frames
    /// compare it).
    pub fn nav_count(&self, tab: TabId) -> Option<u64> {
        self.tabs.get(&tab).map(|t| t.nav)
    }

    /// The extension reports developer mode. Off: in-flight privileged calls
    /// are void, every held input is released and the leases of the
    /// sessions that held input are revoked (`developerModeOff`).
    pub fn on_developer_mode(&mut self, enabled: bool) {
        if enabled == self.developer_mode {
            return;
        }
        self.developer_mode = enabled;
        self.dev_epoch += 1;
        if !enabled {
            self.drop_all_input(RevokeReason::DeveloperModeOff, false);
        }
        self.effects
            .push(Effect::NotifyAll(AgentEvent::DeveloperModeChanged {
                enabled,
            }));
    }

    /// Revokes the lease of every session holding input, and releases it.
    pub(super) fn drop_all_input(&mut self, reason: RevokeReason, drop: bool) {
        let holders: Vec<SessionId> = {
            let mut v: Vec<SessionId> = self
                .held
                .presses()
                .iter()
                .filter(|p| p.state != State::Released)
                .map(|p| p.owner.session)
                .collect();
            v.sort();
            v.dedup();
            v
        };
        self.release_where(|_| true, drop);
        for sid in holders {
            for t in self.leased_by(sid) {
                if let Some(tab) = self.tabs.get_mut(&t) {
                    tab.lease = None;
                }
                self.effects.push(Effect::Notify(
                    sid,
                    AgentEvent::ControlRevoked { tab_id: t, reason },
                ));
            }
        }
        self.publish_controllers(false);
    }

    /// A browser connection said hello.
    ///
    /// It replaces any connection before it, whose leases, held input and
    /// frames end as if it had dropped; agents are told the lane is online.
    pub fn on_lane_online(&mut self) {
        self.lane_online = false;
        self.on_lane_lost();
        self.lane_online = true;
        self.publish_controllers(true);
        self.publish_agents(true);
        self.effects
            .push(Effect::NotifyAll(AgentEvent::LaneOnline {}));
    }

    /// The browser connection dropped (or was replaced): held input records
    /// are dropped, every lease revoked (`laneLost`), developer mode is off,
    /// and every frame goes stale (what happens meanwhile is not seen).
    /// Agents are told the lane is offline if it was online.
    pub fn on_lane_lost(&mut self) {
        let was_online = std::mem::replace(&mut self.lane_online, false);
        let tabs: Vec<TabId> = self.tabs.keys().copied().collect();
        for t in tabs {
            self.revoke_tab(t, RevokeReason::LaneLost, true, true);
            let nav = self.fresh_nav();
            if let Some(tab) = self.tabs.get_mut(&t) {
                tab.nav = nav;
            }
        }
        self.release_where(|_| true, true);
        // Open dialogs are reported again by the next connection's
        // events; what we knew may be stale now.
        for p in self.pages.values_mut() {
            p.dialog = None;
        }
        if self.developer_mode {
            self.developer_mode = false;
            self.dev_epoch += 1;
            self.effects
                .push(Effect::NotifyAll(AgentEvent::DeveloperModeChanged {
                    enabled: false,
                }));
        }
        self.last_controllers = None;
        self.last_agents = None;
        if was_online {
            self.effects
                .push(Effect::NotifyAll(AgentEvent::LaneOffline {}));
        }
    }

    /// Whether developer mode is on.
    pub fn developer_mode(&self) -> bool {
        self.developer_mode
    }

    /// Who controls each shared tab.
    pub fn controllers(&self) -> Vec<TabControl> {
        self.tabs
            .iter()
            .map(|(id, t)| TabControl {
                tab_id: *id,
                holder: if t.human {
                    Holder::Human
                } else if let Some((sid, _)) = t.lease {
                    Holder::agent(
                        self.sessions
                            .get(&sid)
                            .map(|s| s.agent.clone())
                            .unwrap_or_default(),
                    )
                } else {
                    Holder::Nobody
                },
            })
            .collect()
    }

    /// Tells the extension which agents are connected, when that changed
    /// (or always, with `force`), while the lane is online.
    pub(super) fn publish_agents(&mut self, force: bool) {
        if !self.lane_online {
            return;
        }
        let now = self.connected_agents();
        if force || self.last_agents.as_ref() != Some(&now) {
            self.last_agents = Some(now.clone());
            self.effects.push(Effect::Agents(now));
        }
    }

    pub(super) fn publish_controllers(&mut self, force: bool) {
        if !self.lane_online {
            return;
        }
        let now = self.controllers();
        if force || self.last_controllers.as_ref() != Some(&now) {
            self.last_controllers = Some(now.clone());
            self.effects.push(Effect::Controllers(now));
        }
    }
}
