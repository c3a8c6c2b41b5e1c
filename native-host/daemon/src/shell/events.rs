//! What the extension tells the daemon besides answers: the person's
//! changes to what is shared and to developer mode, tabs that go, and the
//! page's CDP events, each applied to the core and, for CDP events,
//! passed on to the agents that listen and to the lane's subscribers.

use super::{intercept, Shell};
use crate::broker::{ConsoleEntry, Gone};
use crate::lane::CdpEvent;
use cotab_shared::cdp::{
    CdpEvent as _, ConsoleApiCalled, ExceptionThrown, FileChooserOpened, FrameNavigated,
    FrameRequestedNavigation, JavascriptDialogClosed, JavascriptDialogOpening, LifecycleEvent,
    LoadingFailed, RequestPaused, RequestWillBeSent, ResponseReceived, ScreencastFrame,
};
use cotab_shared::controller::{AgentEvent, DialogInfo, DialogKind};
use cotab_shared::native::{Event, SharedTabs};
use cotab_shared::TabId;
use serde_json::Value;
use std::sync::Arc;

impl Shell {
    /// A frame from the extension other than a response, on the
    /// connection of `generation`. A connection that is no longer the
    /// lane's (another replaced it while this frame was read) changes
    /// nothing.
    pub fn on_extension_event(self: &Arc<Self>, generation: u64, event: Event) {
        if !self.lane.is_current(generation) {
            tracing::debug!("ignored an event from a replaced browser connection");
            return;
        }
        match event {
            Event::Shared(list) => self.on_shared(&list),
            Event::TabClosed {
                tab_id,
                with_window,
            } => {
                let gone = if with_window {
                    Gone::ClosedWithWindow
                } else {
                    Gone::Closed
                };
                self.with_core(|c| c.on_tab_gone(tab_id, gone));
                if self.videos.end(tab_id, Some("its tab was closed")) {
                    self.on_videos_changed();
                }
                self.activity.forget_picture(tab_id);
                self.forget_navs(tab_id);
                self.blockers.send_modify(|n| *n += 1);
            }
            Event::Detached { tab_id, reason } => self.on_detached(tab_id, &reason),
            Event::OpenedRefused { tab_id, url, .. } => self.on_opened_refused(tab_id, &url),
            Event::DeveloperMode { enabled } => {
                let live = self.with_core(|c| {
                    c.on_developer_mode(enabled);
                    c.session_ids()
                });
                self.activity.developer_mode(live, enabled);
            }
            Event::Cdp {
                tab_id,
                method,
                params,
                session,
            } => {
                // A child session's events (frames in other processes,
                // workers) only go to the agents that asked for every
                // event.
                if session.is_none() {
                    self.on_page_event(tab_id, &method, &params);
                    // The daemon's own holding: no agent sees or answers
                    // it.
                    if method == RequestPaused::METHOD {
                        return;
                    }
                    // A video's frames, or the keep-alive screencast's:
                    // the daemon's own.
                    if method == ScreencastFrame::METHOD {
                        self.on_screencast_frame(tab_id, &params);
                        return;
                    }
                }
                self.pass_on(tab_id, method, params, session);
            }
        }
    }

    /// The person shared or unshared tabs: the core learns the new list,
    /// every live session's record what the person did.
    fn on_shared(&self, list: &SharedTabs) {
        let (changes, live) = self.with_core(|c| {
            let changes = crate::activity::person_changes(c.shared(), &list.tabs);
            c.on_shared(&list.tabs);
            (changes, c.session_ids())
        });
        let shared: Vec<TabId> = list.tabs.iter().map(|t| t.id).collect();
        if !self
            .videos
            .keep_tabs(&shared, "its tab was unshared")
            .is_empty()
        {
            self.on_videos_changed();
        }
        for (method, tab, what) in changes {
            if method == "unshare" {
                self.activity.forget_picture(tab);
            }
            self.activity.person(live.clone(), Some(tab), method, what);
        }
        self.blockers.send_modify(|n| *n += 1);
    }

    /// The debugger left `tab`: its tab closed (`target_closed`), or the
    /// person (or another program) detached it, which unshares it.
    fn on_detached(&self, tab: TabId, reason: &str) {
        let gone = if reason == "target_closed" {
            Gone::Closed
        } else {
            Gone::Unshared
        };
        let (was, live) = self.with_core(|c| {
            let was = c.is_shared(tab);
            c.on_tab_gone(tab, gone);
            (was, c.session_ids())
        });
        let why = match gone {
            Gone::Closed => "its tab was closed",
            _ => "its tab was unshared",
        };
        if self.videos.end(tab, Some(why)) {
            self.on_videos_changed();
        }
        self.activity.forget_picture(tab);
        self.forget_navs(tab);
        if was && gone == Gone::Unshared {
            let what = format!("stop sharing tab {}", tab.0);
            self.activity.person(live, Some(tab), "unshare", what);
        }
        self.blockers.send_modify(|n| *n += 1);
    }

    /// A frame of `tab`'s screencast: to its video, if it is recorded,
    /// and acknowledged when the video's frame rate allows.
    fn on_screencast_frame(self: &Arc<Self>, tab: TabId, params: &Value) {
        let Some(frame) = ScreencastFrame::parse(ScreencastFrame::METHOD, params) else {
            return;
        };
        let (visible, blocked) = self.with_core(|c| (c.agent_may_see(tab), !c.driveable(tab)));
        let Some((due, ack)) = self.videos.frame(tab, frame, visible, blocked) else {
            return;
        };
        let shell = self.clone();
        drop(tokio::spawn(async move {
            tokio::time::sleep_until(due).await;
            if shell.videos.records(tab) {
                shell.videos.flush(tab);
                shell.send_detached(tab, &ack);
            }
        }));
    }

    /// A CDP event of `tab`'s own page: what the core keeps of it
    /// (crashes, navigations, dialogs, file choosers, console, network,
    /// lifecycle).
    fn on_page_event(self: &Arc<Self>, tab: TabId, method: &str, params: &Value) {
        match method {
            "Inspector.targetCrashed" => self.with_core(|c| c.on_page_crashed(tab)),
            FrameNavigated::METHOD => {
                let main =
                    FrameNavigated::parse(method, params).filter(|n| n.frame.parent_id.is_none());
                if let Some(n) = main {
                    self.with_core(|c| {
                        c.on_main_frame_navigated(tab);
                        c.on_main_frame_committed(tab, &n.frame.url);
                    });
                }
            }
            JavascriptDialogOpening::METHOD => {
                let opening = JavascriptDialogOpening::parse(method, params).unwrap_or_default();
                let kind = opening
                    .kind
                    .and_then(|t| serde_json::from_value(Value::String(t)).ok())
                    .unwrap_or(DialogKind::Alert);
                let info = DialogInfo {
                    tab_id: tab,
                    kind,
                    message: opening.message,
                    default_prompt: (kind == DialogKind::Prompt).then_some(opening.default_prompt),
                };
                self.with_core(|c| c.on_dialog_opening(info));
                self.blockers.send_modify(|n| *n += 1);
            }
            FileChooserOpened::METHOD => {
                if let Some(e) = FileChooserOpened::parse(method, params) {
                    let _one = self.choosers.lock().unwrap_or_else(|e| e.into_inner());
                    if !self.with_core(|c| c.on_file_chooser(tab, &e)) {
                        tracing::warn!(%tab, "a file chooser opened with nobody to answer it");
                        self.lane.send_unanswered(&intercept(tab, false));
                    }
                }
            }
            JavascriptDialogClosed::METHOD => self.with_core(|c| c.on_dialog_closed(tab)),
            FrameRequestedNavigation::METHOD => {
                if let Some(e) = FrameRequestedNavigation::parse(method, params) {
                    self.on_navigation_asked(tab, &e);
                }
            }
            RequestPaused::METHOD => {
                if let Some(e) = RequestPaused::parse(method, params) {
                    self.on_request_paused(tab, &e);
                }
            }
            ConsoleApiCalled::METHOD => {
                if let Some(e) = ConsoleApiCalled::parse(method, params) {
                    let entry = ConsoleEntry::from_console_api(&e);
                    self.with_core(|c| c.on_console(tab, entry));
                }
            }
            ExceptionThrown::METHOD => {
                if let Some(e) = ExceptionThrown::parse(method, params) {
                    let entry = ConsoleEntry::from_exception(&e);
                    self.with_core(|c| c.on_console(tab, entry));
                }
            }
            RequestWillBeSent::METHOD => {
                if let Some(e) = RequestWillBeSent::parse(method, params) {
                    self.with_core(|c| c.on_request(tab, e));
                }
            }
            ResponseReceived::METHOD => {
                if let Some(e) = ResponseReceived::parse(method, params) {
                    self.with_core(|c| c.on_response(tab, e));
                }
            }
            LoadingFailed::METHOD => {
                if let Some(e) = LoadingFailed::parse(method, params) {
                    self.with_core(|c| c.on_request_failed(tab, e));
                }
            }
            LifecycleEvent::METHOD => {
                if let Some(e) = LifecycleEvent::parse(method, params) {
                    self.with_core(|c| c.on_lifecycle(tab, &e.frame_id, &e.loader_id, &e.name));
                }
            }
            _ => {}
        }
    }

    /// Passes a CDP event of `tab` on: to the agents that asked for every
    /// event (redacted), and, for the page's own session, to the lane's
    /// subscribers (the calls waiting on events).
    fn pass_on(&self, tab_id: TabId, method: String, params: Value, session: Option<String>) {
        let conns = self.with_core(|c| c.cdp_event_conns(tab_id));
        if !conns.is_empty() {
            // As developer-mode results are, by their keys and shapes
            // (the page's own secrets would need a scan per event).
            let mut redacted = params.clone();
            crate::redact::redact(&mut redacted, &crate::redact::Known::default());
            // The id of a child session of the tab, which the agent
            // names in its commands there: the browser's, no web
            // session's.
            if matches!(
                method.as_str(),
                "Target.attachedToTarget" | "Target.detachedFromTarget"
            ) {
                if let (Some(id), Some(slot)) =
                    (params.get("sessionId"), redacted.get_mut("sessionId"))
                {
                    slot.clone_from(id);
                }
            }
            self.notify(
                &conns,
                AgentEvent::CdpEvent {
                    tab_id,
                    method: method.clone(),
                    params: redacted,
                    session_id: session.clone(),
                },
            );
        }
        if session.is_some() {
            return;
        }
        self.lane.publish_cdp(CdpEvent {
            tab_id,
            method,
            params,
        });
    }
}
