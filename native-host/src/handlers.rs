//! The controller methods: one handler per [`Call`] variant, dispatched
//! from [`dispatch`], over the daemon's shared state ([`Broker`]).
//!
//! Handlers see typed params and return typed results; they never touch
//! sockets or JSON-RPC framing (that is [`crate::agent`]). What they ask of
//! the browser goes through [`Lane::call`], so every deadline and lane rule
//! applies to them alike. Every rule about sessions, control, frames, held
//! input and developer mode is decided by the sans-IO [`Core`]: a handler
//! takes a [`Fence`] when it starts, re-checks it after every awaited step,
//! and performs the [`Effect`]s the core returns ([`Broker::with_core`]).
//!
//! Every CDP command goes through `Cx::cdp`, which refuses it at once
//! while a JavaScript dialog is open on its tab and fails it
//! `DIALOG_OPEN` the moment one opens while it is pending (a page blocked
//! by a dialog answers nothing else). Submodules: `element` (refs →
//! elements → points, and the input methods by ref), `page` (snapshot,
//! waits, console, dialogs), `tabs` (`tabs.create`, `tabs.close`).

mod element;
mod page;
mod tabs;

use crate::broker::{
    AgentRelease, CaptureMeta, ConsoleEntry, Core, CoreConfig, Effect, Fence, Frame, Need, PressId,
    PressKind, ReleaseCmd, ReleaseTarget,
};
use crate::config;
use crate::keys;
use crate::lane::{CdpEvent, Lane};
use crate::redact;
use crate::session::{mint_ticket, ConnId, SessionId};
use crate::validate::{check_navigate_url, image_size};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use cotab_shared::controller::{
    AgentEvent, AgentTab, Call, CaptureParams, CaptureResult, CdpSendParams, ClickParams,
    ControlResult, DialogInfo, DialogKind, Empty, EvaluateParams, EvaluateResult, Expect,
    FrameGeometry, FrameId, HelloParams, HelloResult, ImageFormat, KeyParams, KeyUpParams,
    Modifier, MouseButton, MouseUpParams, NavigateAction, NavigateParams, NavigateResult,
    PointParams, PointerParams, PressParams, Ref, ReleaseResult, ResumeParams, ResumeResult,
    RpcError, SelectParams, SelectResult, StatusResult, TabsListResult, TypeParams,
    DEFAULT_JPEG_QUALITY, INVALID_PARAMS,
};
use cotab_shared::input::{check_input_events, InputEvent, KEY_EVENT, MOUSE_EVENT};
use cotab_shared::limits::{
    MAX_AGENT_NAME, MAX_EXPRESSION, MAX_IN_FLIGHT_TOTAL, MAX_MEDIA_IN_FLIGHT_TOTAL, MAX_TYPE_TEXT,
};
use cotab_shared::native::{
    Command, CommandClass, Event, FollowUp, HostToExtension, Outcome, SharedTabs, ThenResult,
};
use cotab_shared::reach::{check_driveable, check_raw_cdp, LocalFiles};
use cotab_shared::{ErrorKind, TabId, WireError, PROTOCOL_VERSION};
use serde::Serialize;
use serde_json::{json, Value};
use sha2::{Digest as _, Sha256};
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::{broadcast, watch, Semaphore};
use tokio::time::Instant;

/// How many lanes and agents are connected; the daemon exits when both
/// stay zero for its idle period.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Browser connections.
    pub lanes: usize,
    /// Agent connections.
    pub agents: usize,
}

/// A notification for one session (`Some`) or every session (`None`).
pub type Note = (Option<SessionId>, AgentEvent);

/// The daemon's shared state.
#[derive(Debug)]
pub struct Broker {
    /// The browser lane.
    pub lane: Arc<Lane>,
    core: Mutex<Core>,
    /// Deadline of every request.
    pub default_deadline: Duration,
    /// Requests in flight in the whole daemon.
    pub in_flight: Arc<Semaphore>,
    /// Captures in flight in the whole daemon.
    pub media_in_flight: Arc<Semaphore>,
    counts: watch::Sender<Counts>,
    notes: broadcast::Sender<Note>,
    /// Bumped whenever a dialog opens, so pending calls look again.
    dialogs: watch::Sender<u64>,
    next_conn: AtomicU64,
    /// The local files the host config lets agents reach, as last read,
    /// and the watch that says when to read it again.
    files: Mutex<(LocalFiles, config::Watch)>,
}

impl Broker {
    /// A broker with an absent lane and no session.
    pub fn new(default_deadline: Duration, core: CoreConfig) -> Self {
        Broker {
            lane: Arc::new(Lane::default()),
            core: Mutex::new(Core::new(core)),
            default_deadline,
            in_flight: Arc::new(Semaphore::new(MAX_IN_FLIGHT_TOTAL)),
            media_in_flight: Arc::new(Semaphore::new(MAX_MEDIA_IN_FLIGHT_TOTAL)),
            counts: watch::Sender::new(Counts::default()),
            notes: broadcast::Sender::new(256),
            dialogs: watch::Sender::new(0),
            next_conn: AtomicU64::new(1),
            files: Mutex::new((LocalFiles::NONE, config::Watch::default())),
        }
    }

    /// The local files agents may reach (`fileDirs` of the host config).
    pub fn local_files(&self) -> LocalFiles {
        self.files
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .0
            .clone()
    }

    /// Reads the host config again if it changed; when the local files it
    /// allows changed, tells the extension. Called on the daemon's tick,
    /// so a change applies within a second.
    pub fn refresh_config(&self) {
        let path = config::config_path();
        let changed = {
            let mut g = self.files.lock().unwrap_or_else(|e| e.into_inner());
            let Some(read) = g.1.changed(path.as_deref()) else {
                return;
            };
            let files = read.local_files();
            (files != g.0).then(|| {
                g.0 = files.clone();
                files
            })
        };
        if let Some(file_dirs) = changed {
            tracing::info!(
                dirs = file_dirs.0.len(),
                "the local files agents may reach changed"
            );
            self.lane
                .send_oneway(&HostToExtension::Policy { file_dirs });
        }
    }

    /// Runs `f` on the core, then performs the effects it produced (after
    /// the lock is released, in order).
    pub fn with_core<R>(&self, f: impl FnOnce(&mut Core) -> R) -> R {
        let (r, effects) = {
            // Plain data: a panic elsewhere does not make it unusable.
            let mut core = self.core.lock().unwrap_or_else(|e| e.into_inner());
            let r = f(&mut core);
            (r, core.take_effects())
        };
        self.perform(effects);
        r
    }

    fn perform(&self, effects: Vec<Effect>) {
        for e in effects {
            match e {
                Effect::Release(cmd) => {
                    // Detached on purpose: the release must happen even if
                    // nobody waits for it.
                    drop(self.send_release(cmd));
                }
                Effect::Dropped(press) => {
                    tracing::debug!(press = press.0, "held input dropped with its tab or lane");
                }
                Effect::Notify(sid, event) => {
                    // No agent listening is fine.
                    let _ = self.notes.send((Some(sid), event));
                }
                Effect::NotifyAll(event) => {
                    // No agent listening is fine.
                    let _ = self.notes.send((None, event));
                }
                Effect::Controllers(tabs) => {
                    self.lane
                        .send_oneway(&HostToExtension::Controllers { tabs });
                }
            }
        }
    }

    /// Sends a paired release (class `Release`) in its own task, so it
    /// happens even if the caller goes away. A failure is logged, never
    /// retried.
    fn send_release(&self, cmd: ReleaseCmd) -> tokio::task::JoinHandle<Result<Value, WireError>> {
        let lane = self.lane.clone();
        let deadline = Instant::now() + self.default_deadline;
        tokio::spawn(async move {
            let r = lane
                .call(
                    Command::Cdp {
                        tab_id: cmd.tab,
                        method: cmd.method.into(),
                        params: cmd.params,
                        class: CommandClass::Release,
                        then: None,
                        if_viewport: None,
                    },
                    deadline,
                )
                .await;
            if let Err(e) = &r {
                tracing::warn!(tab = %cmd.tab, method = cmd.method, kind = %e.kind, "a paired release failed");
            }
            r
        })
    }

    /// Sends a CDP command that undoes state the daemon set (class
    /// `Release`, so it runs whoever controls the tab) in its own task; a
    /// failure is logged.
    fn send_detached(&self, tab: TabId, method: &'static str, params: Value) {
        let lane = self.lane.clone();
        let deadline = Instant::now() + self.default_deadline;
        // Detached on purpose: it must run even if the request is gone.
        drop(tokio::spawn(async move {
            let r = lane
                .call(
                    Command::Cdp {
                        tab_id: tab,
                        method: method.into(),
                        params,
                        class: CommandClass::Release,
                        then: None,
                        if_viewport: None,
                    },
                    deadline,
                )
                .await;
            if let Err(e) = r {
                tracing::warn!(%tab, method, kind = %e.kind, "an undo command failed");
            }
        }));
    }

    /// A frame from the extension other than a response, on the
    /// connection of `generation`. A connection that is no longer the
    /// lane's (another replaced it while this frame was read) changes
    /// nothing.
    pub fn on_extension_event(&self, generation: u64, event: Event) {
        if !self.lane.is_current(generation) {
            tracing::debug!("ignored an event from a replaced browser connection");
            return;
        }
        match &event {
            Event::Shared(list) => self.with_core(|c| c.on_shared(&list.tabs)),
            Event::TabClosed { tab_id } => self.with_core(|c| c.on_tab_gone(*tab_id, true)),
            Event::Detached { tab_id, reason } => {
                let closed = reason == "target_closed";
                self.with_core(|c| c.on_tab_gone(*tab_id, closed));
            }
            Event::DeveloperMode { enabled } => {
                self.with_core(|c| c.on_developer_mode(*enabled));
            }
            Event::Cdp {
                tab_id,
                method,
                params,
            } => {
                let tab = *tab_id;
                let text = |k: &str| params.get(k).and_then(Value::as_str).unwrap_or_default();
                match method.as_str() {
                    "Inspector.targetCrashed" => self.with_core(|c| c.on_page_crashed(tab)),
                    "Page.frameNavigated" => {
                        let main_frame = params
                            .get("frame")
                            .is_some_and(|f| f.get("parentId").is_none());
                        if main_frame {
                            self.with_core(|c| c.on_main_frame_navigated(tab));
                        }
                    }
                    "Page.javascriptDialogOpening" => {
                        let kind = params
                            .get("type")
                            .cloned()
                            .and_then(|t| serde_json::from_value(t).ok())
                            .unwrap_or(DialogKind::Alert);
                        let info = DialogInfo {
                            tab_id: tab,
                            kind,
                            message: text("message").to_string(),
                            default_prompt: (kind == DialogKind::Prompt)
                                .then(|| text("defaultPrompt").to_string()),
                        };
                        self.with_core(|c| c.on_dialog_opening(info));
                        self.dialogs.send_modify(|n| *n += 1);
                    }
                    "Page.javascriptDialogClosed" => {
                        self.with_core(|c| c.on_dialog_closed(tab));
                    }
                    "Runtime.consoleAPICalled" => {
                        let entry = ConsoleEntry::from_console_api(params);
                        self.with_core(|c| c.on_console(tab, entry));
                    }
                    "Runtime.exceptionThrown" => {
                        let entry = ConsoleEntry::from_exception(params);
                        self.with_core(|c| c.on_console(tab, entry));
                    }
                    "Page.lifecycleEvent" => {
                        let (frame, loader, name) =
                            (text("frameId"), text("loaderId"), text("name"));
                        self.with_core(|c| c.on_lifecycle(tab, frame, loader, name));
                    }
                    _ => {}
                }
            }
        }
        self.lane.on_event(event);
    }

    /// A browser connection said hello and became the lane's connection.
    /// Whatever the previous one left (held input, leases) is gone.
    pub fn lane_attached(&self) {
        self.with_core(|c| {
            c.on_lane_lost();
            c.on_lane_online();
        });
        self.lane.send_oneway(&HostToExtension::Policy {
            file_dirs: self.local_files(),
        });
    }

    /// The lane's connection closed.
    pub fn lane_lost(&self) {
        self.with_core(Core::on_lane_lost);
    }

    /// Expires resume graces and tickets.
    pub fn tick(&self) {
        self.with_core(|c| c.tick(std::time::Instant::now()));
    }

    /// A fresh connection id.
    pub fn next_conn_id(&self) -> ConnId {
        ConnId(self.next_conn.fetch_add(1, Ordering::Relaxed))
    }

    /// Changes the connection counts.
    pub fn update_counts(&self, f: impl FnOnce(&mut Counts)) {
        self.counts.send_modify(f);
    }

    /// Watches the connection counts.
    pub fn watch_counts(&self) -> watch::Receiver<Counts> {
        self.counts.subscribe()
    }

    /// Lane notifications for every agent.
    pub fn subscribe_agent_events(&self) -> broadcast::Receiver<AgentEvent> {
        self.lane.subscribe_agent_events()
    }

    /// Notifications the core addressed to sessions.
    pub fn subscribe_notes(&self) -> broadcast::Receiver<Note> {
        self.notes.subscribe()
    }
}

/// One agent connection as handlers see it.
#[derive(Debug)]
pub struct ConnState {
    /// The connection's id.
    pub id: ConnId,
    session: Mutex<Option<SessionId>>,
}

impl ConnState {
    /// A connection without a session.
    pub fn new(id: ConnId) -> Self {
        ConnState {
            id,
            session: Mutex::new(None),
        }
    }

    fn session(&self) -> MutexGuard<'_, Option<SessionId>> {
        self.session.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The attached session, if any (notifications go only there).
    pub fn session_id(&self) -> Option<SessionId> {
        *self.session()
    }

    /// The attached session if it is still bound to this connection: once
    /// another connection resumed it, this one has no session (no calls,
    /// no notifications).
    pub fn bound_session(&self, broker: &Broker) -> Option<SessionId> {
        let sid = self.session_id()?;
        broker
            .with_core(|c| c.is_bound(sid, self.id))
            .then_some(sid)
    }

    /// Lets the connection's session go: it stays resumable, keeping its
    /// lease and held input for the resume grace.
    pub fn close(&self, broker: &Broker) {
        let sid = self.session().take();
        if let Some(sid) = sid {
            broker.with_core(|c| c.unbind(sid, self.id, std::time::Instant::now()));
        }
    }
}

/// Runs one call for `conn` and returns its result as JSON.
pub async fn dispatch(broker: &Broker, conn: &ConnState, call: Call) -> Result<Value, RpcError> {
    let cx = Cx {
        broker,
        conn,
        deadline: Instant::now() + broker.default_deadline,
    };
    match call {
        Call::Hello(p) => to_json(hello(&cx, p)),
        Call::Resume(p) => to_json(resume(&cx, p)),
        other => {
            cx.sid()?;
            match other {
                Call::Bye(_) => to_json(bye(&cx)),
                Call::Status(_) => to_json(Ok(status(&cx))),
                Call::TabsList(_) => to_json(tabs_list(&cx).await),
                Call::TabsSelect(p) => to_json(tabs_select(&cx, p).await),
                Call::Navigate(p) => to_json(navigate(&cx, p).await),
                Call::Capture(p) => to_json(capture(&cx, p).await),
                Call::Click(p) => to_json(click(&cx, p).await),
                Call::Type(p) => to_json(type_text(&cx, p).await),
                Call::Press(p) => to_json(press(&cx, p).await),
                Call::Acquire(_) => to_json(acquire(&cx)),
                Call::Release(_) => to_json(release(&cx)),
                Call::KeyDown(p) => to_json(key_down(&cx, p).await),
                Call::KeyUp(p) => to_json(key_up(&cx, p).await),
                Call::MouseDown(p) => to_json(mouse_down(&cx, p).await),
                Call::MouseMove(p) => to_json(mouse_move(&cx, p).await),
                Call::MouseUp(p) => to_json(mouse_up(&cx, p).await),
                Call::GestureBegin(p) => to_json(gesture_begin(&cx, p).await),
                Call::GestureUpdate(p) => to_json(gesture_update(&cx, p).await),
                Call::GestureEnd(_) => to_json(gesture_end(&cx).await),
                Call::Evaluate(p) => to_json(evaluate(&cx, p).await),
                Call::CdpSend(p) => to_json(cdp_send(&cx, p).await),
                Call::Snapshot(p) => to_json(page::snapshot(&cx, p).await),
                Call::Hover(p) => to_json(element::hover(&cx, p).await),
                Call::SelectOption(p) => to_json(element::select_option(&cx, p).await),
                Call::Check(p) => to_json(element::check(&cx, p).await),
                Call::Drag(p) => to_json(element::drag(&cx, p).await),
                Call::Scroll(p) => to_json(element::scroll(&cx, p).await),
                Call::SetFiles(p) => to_json(element::set_files(&cx, p).await),
                Call::Wait(p) => to_json(page::wait(&cx, p).await),
                Call::Console(p) => to_json(page::console(&cx, p)),
                Call::Dialog(p) => to_json(page::dialog(&cx, p).await),
                Call::TabsCreate(p) => to_json(tabs::create(&cx, p).await),
                Call::TabsClose(p) => to_json(tabs::close(&cx, p).await),
                Call::Hello(_) | Call::Resume(_) => Err(RpcError::from(WireError::new(
                    ErrorKind::InvalidRequest,
                    "unreachable: handled above",
                ))),
            }
        }
    }
}

fn to_json<T: Serialize>(r: Result<T, RpcError>) -> Result<Value, RpcError> {
    let v = r?;
    serde_json::to_value(v).map_err(|_| {
        RpcError::from(WireError::new(
            ErrorKind::CommandFailed,
            "the result could not be encoded",
        ))
    })
}

fn invalid_params(message: impl Into<String>) -> RpcError {
    RpcError::new(INVALID_PARAMS, ErrorKind::InvalidRequest, message)
}

fn wire(kind: ErrorKind, message: impl Into<String>) -> RpcError {
    RpcError::from(WireError::new(kind, message))
}

/// Settles a recorded press when the handler is done with it, or — if the
/// handler is dropped midway (its connection aborted) — as failed, which
/// makes the core release it.
struct PressGuard<'a> {
    broker: &'a Broker,
    id: PressId,
    armed: bool,
}

impl PressGuard<'_> {
    fn settle(mut self, sent: bool) {
        self.armed = false;
        let id = self.id;
        self.broker.with_core(|c| c.press_settled(id, sent));
    }
}

impl Drop for PressGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            let id = self.id;
            self.broker.with_core(|c| c.press_settled(id, false));
        }
    }
}

/// The record of a press that goes to the extension with its release
/// ([`Cx::input_events`]): the extension releases it whatever happens, so
/// the record is dropped with nothing for the daemon to send — when the
/// handler is done, or dropped midway.
struct PairedPress<'a> {
    broker: &'a Broker,
    id: PressId,
}

impl Drop for PairedPress<'_> {
    fn drop(&mut self) {
        let id = self.id;
        self.broker.with_core(|c| c.press_paired(id));
    }
}

/// A press that was sent and is held across several awaited steps (a
/// drag): released by [`HeldPress::release`], or — if the handler is
/// dropped midway — by its drop, in a task of its own.
struct HeldPress<'a> {
    broker: &'a Broker,
    id: PressId,
    armed: bool,
}

impl<'a> HeldPress<'a> {
    fn new(broker: &'a Broker, id: PressId) -> Self {
        HeldPress {
            broker,
            id,
            armed: true,
        }
    }

    /// Sends the release now (nothing when the core released it already).
    async fn release(mut self, cx: &Cx<'_>) -> Result<(), RpcError> {
        self.armed = false;
        let id = self.id;
        match cx.core(|c| c.release_press(id)) {
            Some(cmd) => cx.release_now(cmd).await,
            None => Ok(()),
        }
    }
}

impl Drop for HeldPress<'_> {
    fn drop(&mut self) {
        if self.armed {
            let id = self.id;
            if let Some(cmd) = self.broker.with_core(|c| c.release_press(id)) {
                // Detached on purpose: the release must happen even though
                // nobody waits for it.
                drop(self.broker.send_release(cmd));
            }
        }
    }
}

/// The context of one request.
struct Cx<'a> {
    broker: &'a Broker,
    conn: &'a ConnState,
    deadline: Instant,
}

impl Cx<'_> {
    fn sid(&self) -> Result<SessionId, RpcError> {
        self.conn.bound_session(self.broker).ok_or_else(|| {
            wire(
                ErrorKind::AuthenticationFailed,
                "no session: call session.hello or session.resume first",
            )
        })
    }

    fn core<R>(&self, f: impl FnOnce(&mut Core) -> R) -> R {
        self.broker.with_core(f)
    }

    fn fence(&self, need: Need) -> Result<Fence, RpcError> {
        let sid = self.sid()?;
        let conn = self.conn.id;
        Ok(self.core(|c| c.fence(sid, conn, need))?)
    }

    fn check(&self, fence: &Fence) -> Result<(), RpcError> {
        Ok(self.core(|c| c.check(fence))?)
    }

    /// Makes `sid` this connection's session, letting any previous one go.
    fn attach(&self, sid: SessionId) {
        let old = self.conn.session().replace(sid);
        if let Some(old) = old.filter(|o| *o != sid) {
            let conn = self.conn.id;
            self.core(|c| c.unbind(old, conn, std::time::Instant::now()));
        }
    }

    async fn extension(&self, command: Command) -> Result<Value, RpcError> {
        self.broker
            .lane
            .call(command, self.deadline)
            .await
            .map_err(RpcError::from)
    }

    /// One CDP command on `tab_id`, unless a dialog is open there, with an
    /// optional follow-up the extension sends in the same trip once the
    /// command succeeds (the result is then a [`ThenResult`]), and an
    /// optional viewport (`ifViewport`) the extension checks before
    /// sending it.
    async fn cdp(
        &self,
        tab_id: TabId,
        method: &str,
        params: Value,
        class: CommandClass,
        (then, if_viewport): (Option<FollowUp>, Option<&FrameGeometry>),
    ) -> Result<Value, RpcError> {
        tracing::debug!(tab = %tab_id, method, ?class, "cdp");
        let call = self.extension(Command::Cdp {
            tab_id,
            method: method.into(),
            params,
            class,
            then,
            if_viewport: if_viewport.cloned(),
        });
        if method == "Page.handleJavaScriptDialog" {
            return call.await;
        }
        self.unless_dialog(tab_id, call).await
    }

    /// `DIALOG_OPEN` if a dialog is open on `tab`.
    fn no_dialog(&self, tab: TabId) -> Result<(), RpcError> {
        match self.core(|c| c.dialog(tab).map(|d| d.kind)) {
            None => Ok(()),
            Some(kind) => Err(dialog_open(kind)),
        }
    }

    /// Runs `fut` unless a dialog is open on `tab`, or opens before it
    /// finishes: then `DIALOG_OPEN` at once (what `fut` was waiting for is
    /// dropped; a late answer is ignored).
    async fn unless_dialog<T>(
        &self,
        tab: TabId,
        fut: impl Future<Output = Result<T, RpcError>>,
    ) -> Result<T, RpcError> {
        let mut opened = self.broker.dialogs.subscribe();
        self.no_dialog(tab)?;
        tokio::pin!(fut);
        loop {
            tokio::select! {
                r = &mut fut => return r,
                changed = opened.changed() => {
                    if changed.is_err() {
                        return fut.await;
                    }
                    self.no_dialog(tab)?;
                }
            }
        }
    }

    /// Waits for the first CDP event of the fence's tab that `wanted`
    /// accepts, until the request's deadline (`TIMEOUT`) or a dialog
    /// (`DIALOG_OPEN`). Subscribe (`events`) before sending what causes it.
    async fn event(
        &self,
        fence: &Fence,
        events: &mut broadcast::Receiver<Arc<CdpEvent>>,
        timeout_message: &str,
        wanted: impl Fn(&CdpEvent) -> bool,
    ) -> Result<Arc<CdpEvent>, RpcError> {
        let wait = async {
            loop {
                match tokio::time::timeout_at(self.deadline, events.recv()).await {
                    Err(_) => return Err(wire(ErrorKind::Timeout, timeout_message)),
                    Ok(Ok(ev)) if ev.tab_id == fence.tab && wanted(&ev) => return Ok(ev),
                    Ok(Ok(_)) | Ok(Err(broadcast::error::RecvError::Lagged(_))) => continue,
                    Ok(Err(broadcast::error::RecvError::Closed)) => {
                        return Err(wire(ErrorKind::RuntimeLost, "the browser lane went away"));
                    }
                }
            }
        };
        let ev = self.unless_dialog(fence.tab, wait).await?;
        self.check(fence)?;
        Ok(ev)
    }

    /// One awaited CDP step of a fenced action: the fence is checked after
    /// it, before its result is looked at.
    async fn step(
        &self,
        fence: &Fence,
        method: &str,
        params: Value,
        class: CommandClass,
    ) -> Result<Value, RpcError> {
        self.step_with(fence, method, params, class, (None, None))
            .await
    }

    /// [`Cx::step`] with a follow-up ([`Cx::cdp`]).
    async fn step_then(
        &self,
        fence: &Fence,
        method: &str,
        params: Value,
        class: CommandClass,
        then: FollowUp,
    ) -> Result<Value, RpcError> {
        self.step_with(fence, method, params, class, (Some(then), None))
            .await
    }

    /// [`Cx::step`] for input aimed at a capture's frame (if any): the
    /// extension reads the live viewport right before sending it and
    /// answers `STALE_FRAME` instead if it is not the frame's, all in one
    /// trip over the native link.
    async fn step_in(
        &self,
        fence: &Fence,
        method: &str,
        params: Value,
        frame: Option<&Frame>,
    ) -> Result<Value, RpcError> {
        let viewport = frame.map(|f| &f.geometry);
        self.step_with(fence, method, params, CommandClass::Act, (None, viewport))
            .await
    }

    /// [`Cx::step`] with a follow-up or a frame's viewport ([`Cx::cdp`]).
    async fn step_with(
        &self,
        fence: &Fence,
        method: &str,
        params: Value,
        class: CommandClass,
        extra: (Option<FollowUp>, Option<&FrameGeometry>),
    ) -> Result<Value, RpcError> {
        let r = self.cdp(fence.tab, method, params, class, extra).await;
        self.checked(fence, r)
    }

    /// `r`, the outcome of an awaited step, once the fence is checked.
    fn checked(&self, fence: &Fence, r: Result<Value, RpcError>) -> Result<Value, RpcError> {
        // A lost transport says more than the revocation it caused (the
        // lane's loss revokes every lease): report it as such. A stale
        // frame says that nothing was sent, which a press's settling needs
        // to know whatever happened meanwhile.
        if let Err(e) = &r {
            if matches!(
                e.kind(),
                ErrorKind::UnknownOutcome
                    | ErrorKind::RuntimeLost
                    | ErrorKind::Timeout
                    | ErrorKind::LaneAbsent
                    | ErrorKind::StaleFrame
            ) {
                return r;
            }
        }
        self.check(fence)?;
        r
    }

    /// Input events in one trip ([`Command::Input`]): the extension sends
    /// them in order, each once the one before answered, the first
    /// checked against the frame's viewport (if any), and pairs their
    /// presses itself (a press that may have run is released whatever
    /// fails after it). Unless a dialog is open or opens meanwhile
    /// (`DIALOG_OPEN` at once); the fence is checked after it.
    async fn input_events(
        &self,
        fence: &Fence,
        events: Vec<InputEvent>,
        frame: Option<&Frame>,
    ) -> Result<Value, RpcError> {
        tracing::debug!(tab = %fence.tab, events = events.len(), "input");
        check_input_events(&events).map_err(|e| {
            wire(
                ErrorKind::CommandFailed,
                format!("the daemon built an invalid input command: {}", e.message),
            )
        })?;
        let call = self.extension(Command::Input {
            tab_id: fence.tab,
            events,
            if_viewport: frame.map(|f| f.geometry.clone()),
        });
        let r = self.unless_dialog(fence.tab, call).await;
        self.checked(fence, r)
    }

    /// `Runtime.evaluate` (class Observe) with `returnByValue`, returning
    /// the value.
    async fn read(&self, fence: &Fence, expression: &str) -> Result<Value, RpcError> {
        let r = self
            .step(
                fence,
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true}),
                CommandClass::Observe,
            )
            .await?;
        if r.get("exceptionDetails").is_some() {
            return Err(wire(
                ErrorKind::CommandFailed,
                "the page threw while reading its state",
            ));
        }
        Ok(r.pointer("/result/value").cloned().unwrap_or(Value::Null))
    }

    /// The live viewport (`Page.getLayoutMetrics`, class Observe).
    async fn geometry(&self, fence: &Fence) -> Result<FrameGeometry, RpcError> {
        let r = self
            .step(
                fence,
                "Page.getLayoutMetrics",
                json!({}),
                CommandClass::Observe,
            )
            .await?;
        cotab_shared::native::LayoutMetrics::viewport_in(r).ok_or_else(|| {
            wire(
                ErrorKind::CommandFailed,
                "the browser sent no layout metrics",
            )
        })
    }

    /// Checks `expect` before anything is sent: the revision, then the
    /// live url.
    async fn expect(&self, fence: &Fence, expect: Option<&Expect>) -> Result<(), RpcError> {
        let Some(expect) = expect else {
            return Ok(());
        };
        self.core(|c| c.check_expected_revision(fence, expect.selection_revision))?;
        if let Some(url) = &expect.url {
            let live = self.read(fence, "location.href").await?;
            if live.as_str() != Some(url.as_str()) {
                return Err(wire(
                    ErrorKind::StateChanged,
                    "the tab's url is not the expected one",
                ));
            }
        }
        Ok(())
    }

    /// The frame coordinate input aims at; `STALE_FRAME` if the page has
    /// moved on since (a navigation, someone else's input). The viewport
    /// is checked with the input's first command ([`Cx::step_in`]).
    fn frame(&self, fence: &Fence, id: Option<&FrameId>) -> Result<Frame, RpcError> {
        Ok(self.core(|c| c.frame_for(fence, id))?)
    }

    /// [`Cx::frame`], its viewport checked against the live one here, for
    /// a press: a press sent with its check ([`Cx::step_in`]) would wait
    /// in the extension for the viewport, where a release the daemon sends
    /// meanwhile (the request timed out, a dialog opened) could overtake
    /// it and leave the button held.
    async fn frame_live(&self, fence: &Fence, id: Option<&FrameId>) -> Result<Frame, RpcError> {
        let frame = self.frame(fence, id)?;
        let live = self.geometry(fence).await?;
        cotab_shared::native::check_viewport(&frame.geometry, Some(live))?;
        Ok(frame)
    }

    /// A `mouseMoved` to the CSS point `(x, y)`, with the buttons the
    /// session holds on the tab, which move with it (and go back where
    /// they were if the frame check refused the event).
    async fn move_mouse(
        &self,
        fence: &Fence,
        (x, y): (f64, f64),
        frame: Option<&Frame>,
    ) -> Result<(), RpcError> {
        let (buttons, was) = self.core(|c| {
            c.input(fence)?;
            let was = c.pointer_moved(fence, x, y);
            Ok::<_, WireError>((c.buttons_held(fence.session, fence.tab, None), was))
        })?;
        let r = self
            .step_in(
                fence,
                "Input.dispatchMouseEvent",
                json!({"type": "mouseMoved", "x": x, "y": y, "button": first_button(buttons),
                       "buttons": buttons}),
                frame,
            )
            .await;
        if matches!(&r, Err(e) if e.kind() == ErrorKind::StaleFrame) {
            self.core(|c| c.pointer_back(&was));
        }
        r.map(drop)
    }

    fn begin_press(
        &self,
        fence: &Fence,
        frame: Option<&cotab_shared::controller::FrameId>,
        kind: PressKind,
    ) -> Result<PressGuard<'_>, RpcError> {
        let id = self.core(|c| c.begin_press(fence, frame, kind))?;
        Ok(PressGuard {
            broker: self.broker,
            id,
            armed: true,
        })
    }

    /// [`Cx::begin_press`] for a press the extension pairs with its
    /// release ([`Cx::input_events`]).
    fn begin_paired_press(
        &self,
        fence: &Fence,
        frame: Option<&cotab_shared::controller::FrameId>,
        kind: PressKind,
    ) -> Result<PairedPress<'_>, RpcError> {
        let id = self.core(|c| c.begin_press(fence, frame, kind))?;
        Ok(PairedPress {
            broker: self.broker,
            id,
        })
    }

    /// Sends an agent's release and reports it.
    async fn agent_release(&self, target: ReleaseTarget) -> Result<ReleaseResult, RpcError> {
        let sid = self.sid()?;
        let conn = self.conn.id;
        match self.core(|c| c.agent_release(sid, conn, target))? {
            AgentRelease::Already => Ok(ReleaseResult {
                already_released: true,
            }),
            AgentRelease::Send(cmd) => {
                self.release_now(cmd).await?;
                Ok(ReleaseResult {
                    already_released: false,
                })
            }
        }
    }

    /// Sends a release in its own task (it happens even if this request
    /// is dropped) and waits for it.
    ///
    /// A dialog that opens meanwhile ends the wait (`DIALOG_OPEN`); the
    /// release still goes out, in its task.
    async fn release_now(&self, cmd: ReleaseCmd) -> Result<(), RpcError> {
        let tab = cmd.tab;
        let task = self.broker.send_release(cmd);
        let wait = async {
            match task.await {
                Ok(r) => r.map(drop).map_err(RpcError::from),
                Err(_) => Err(wire(ErrorKind::CommandFailed, "the release task failed")),
            }
        };
        let mut opened = self.broker.dialogs.subscribe();
        self.no_dialog(tab)?;
        tokio::pin!(wait);
        loop {
            tokio::select! {
                r = &mut wait => return r,
                changed = opened.changed() => {
                    if changed.is_err() {
                        return wait.await;
                    }
                    self.no_dialog(tab)?;
                }
            }
        }
    }

    async fn live_shared(&self) -> Result<SharedTabs, RpcError> {
        let v = self.extension(Command::ListShared).await?;
        let list: SharedTabs = serde_json::from_value(v).map_err(|_| {
            wire(
                ErrorKind::CommandFailed,
                "the extension sent a malformed tab list",
            )
        })?;
        self.broker.with_core(|c| c.on_shared(&list.tabs));
        self.broker.lane.set_shared(list.tabs.clone());
        Ok(list)
    }
}

fn dialog_open(kind: DialogKind) -> RpcError {
    let name = match kind {
        DialogKind::Alert => "an alert",
        DialogKind::Confirm => "a confirm",
        DialogKind::Prompt => "a prompt",
        DialogKind::Beforeunload => "a beforeunload",
    };
    wire(
        ErrorKind::DialogOpen,
        format!("{name} dialog is open on this tab: answer it with page.dialog"),
    )
}

fn check_version(v: u32) -> Result<(), RpcError> {
    if v == PROTOCOL_VERSION {
        Ok(())
    } else {
        Err(wire(
            ErrorKind::ProtocolVersion,
            format!("this daemon speaks protocol version {PROTOCOL_VERSION}"),
        ))
    }
}

fn check_point(x: f64, y: f64) -> Result<(), RpcError> {
    for (name, v) in [("x", x), ("y", y)] {
        if !v.is_finite() || v < 0.0 {
            return Err(invalid_params(format!(
                "invalid params: `params.{name}` must be a finite number ≥ 0"
            )));
        }
    }
    Ok(())
}

fn hello(cx: &Cx<'_>, p: HelloParams) -> Result<HelloResult, RpcError> {
    check_version(p.protocol_version)?;
    if p.agent.is_empty() || p.agent.len() > MAX_AGENT_NAME {
        return Err(invalid_params(format!(
            "invalid params: `params.agent` must be 1 to {MAX_AGENT_NAME} bytes"
        )));
    }
    let ticket =
        mint_ticket().map_err(|_| wire(ErrorKind::CommandFailed, "no randomness available"))?;
    let conn = cx.conn.id;
    let t = ticket.clone();
    let sid = cx.core(|c| c.hello(conn, p.agent, t));
    cx.attach(sid);
    tracing::info!(conn = conn.0, "session opened");
    Ok(HelloResult {
        protocol_version: PROTOCOL_VERSION,
        ticket,
        daemon_version: crate::VERSION.into(),
        methods: Call::METHODS.iter().map(|m| m.to_string()).collect(),
    })
}

fn resume(cx: &Cx<'_>, p: ResumeParams) -> Result<ResumeResult, RpcError> {
    check_version(p.protocol_version)?;
    let conn = cx.conn.id;
    let sid = cx
        .core(|c| c.resume(conn, &p.ticket, std::time::Instant::now()))
        .ok_or_else(|| {
            wire(
                ErrorKind::AuthenticationFailed,
                "unknown, expired or revoked ticket",
            )
        })?;
    cx.attach(sid);
    let (selected_tab, selection_revision) = cx.core(|c| c.selection(sid, conn))?;
    tracing::info!(conn = conn.0, "session resumed");
    Ok(ResumeResult {
        protocol_version: PROTOCOL_VERSION,
        selected_tab,
        selection_revision,
    })
}

fn bye(cx: &Cx<'_>) -> Result<Empty, RpcError> {
    let sid = cx.sid()?;
    let conn = cx.conn.id;
    cx.conn.session().take();
    cx.core(|c| c.bye(sid, conn));
    Ok(Empty {})
}

fn status(cx: &Cx<'_>) -> StatusResult {
    let (lane, extension_version, shared_tabs) = cx.broker.lane.status();
    StatusResult {
        protocol_version: PROTOCOL_VERSION,
        daemon_version: crate::VERSION.into(),
        pid: std::process::id(),
        lane,
        extension_version,
        shared_tabs,
        agents: cx.broker.counts.borrow().agents,
        developer_mode: cx.core(|c| c.developer_mode()),
    }
}

async fn tabs_list(cx: &Cx<'_>) -> Result<TabsListResult, RpcError> {
    let list = cx.live_shared().await?;
    let sid = cx.sid()?;
    let conn = cx.conn.id;
    let (selected, _) = cx.core(|c| c.selection(sid, conn))?;
    Ok(TabsListResult {
        tabs: list
            .tabs
            .into_iter()
            .map(|t| AgentTab {
                selected: Some(t.id) == selected,
                id: t.id,
                url: t.url,
                title: t.title,
                blocked: t.blocked,
            })
            .collect(),
    })
}

async fn tabs_select(cx: &Cx<'_>, p: SelectParams) -> Result<SelectResult, RpcError> {
    cx.live_shared().await?;
    let sid = cx.sid()?;
    let conn = cx.conn.id;
    let selection_revision = cx.core(|c| c.select(sid, conn, p.tab_id))?;
    Ok(SelectResult {
        tab_id: p.tab_id,
        selection_revision,
    })
}

fn acquire(cx: &Cx<'_>) -> Result<ControlResult, RpcError> {
    let sid = cx.sid()?;
    let conn = cx.conn.id;
    let (tab_id, selection_revision) = cx.core(|c| c.acquire(sid, conn))?;
    Ok(ControlResult {
        tab_id,
        selection_revision,
    })
}

fn release(cx: &Cx<'_>) -> Result<Empty, RpcError> {
    let sid = cx.sid()?;
    let conn = cx.conn.id;
    cx.core(|c| c.release_control(sid, conn))?;
    Ok(Empty {})
}

async fn navigate(cx: &Cx<'_>, p: NavigateParams) -> Result<NavigateResult, RpcError> {
    match (&p.url, p.action) {
        (Some(_), Some(_)) => {
            return Err(invalid_params(
                "invalid params: `params.url` and `params.action` exclude each other",
            ))
        }
        (None, None) => {
            return Err(invalid_params(
                "invalid params: missing field `params.url` (or `params.action`)",
            ))
        }
        (Some(url), None) => check_url_param(url, &cx.broker.local_files())?,
        (None, Some(_)) => {}
    }
    let fence = cx.fence(Need::Act)?;
    cx.expect(&fence, p.expect.as_ref()).await?;
    cx.core(|c| c.input(&fence))?;
    // Subscribe before navigating so the load event cannot slip past.
    let mut events = cx.broker.lane.subscribe_cdp();
    let not_loaded = "the page did not finish loading before the deadline";
    match (p.url, p.action) {
        (Some(url), _) => {
            let r = cx
                .step(
                    &fence,
                    "Page.navigate",
                    json!({"url": url}),
                    CommandClass::Act,
                )
                .await?;
            if let Some(err) = r
                .get("errorText")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
            {
                return Err(wire(
                    ErrorKind::CommandFailed,
                    format!("navigation failed: {err}"),
                ));
            }
            let new_document = r
                .get("loaderId")
                .and_then(Value::as_str)
                .is_some_and(|s| !s.is_empty());
            if new_document {
                cx.event(&fence, &mut events, not_loaded, |e| {
                    e.method == "Page.loadEventFired"
                })
                .await?;
            }
        }
        (None, Some(NavigateAction::Reload)) => {
            cx.step(&fence, "Page.reload", json!({}), CommandClass::Act)
                .await?;
            cx.event(&fence, &mut events, not_loaded, |e| {
                e.method == "Page.loadEventFired"
            })
            .await?;
        }
        (None, None) => {
            return Err(invalid_params(
                "invalid params: missing field `params.url` (or `params.action`)",
            ))
        }
        (None, Some(action)) => {
            let h = cx
                .step(
                    &fence,
                    "Page.getNavigationHistory",
                    json!({}),
                    CommandClass::Observe,
                )
                .await?;
            let current = h.get("currentIndex").and_then(Value::as_i64).unwrap_or(0);
            let (target, none) = if action == NavigateAction::Back {
                (
                    current - 1,
                    "there is no previous page in this tab's history",
                )
            } else {
                (current + 1, "there is no next page in this tab's history")
            };
            let entry = usize::try_from(target)
                .ok()
                .and_then(|i| h.get("entries")?.as_array()?.get(i).cloned())
                .ok_or_else(|| wire(ErrorKind::InvalidRequest, none))?;
            let url = entry.get("url").and_then(Value::as_str).unwrap_or_default();
            // A blank page (a new tab's first entry) is fine to return to,
            // as is any page a shared tab may show.
            check_driveable(url, None, &cx.broker.local_files()).map_err(|b| {
                wire(
                    ErrorKind::BlockedTarget,
                    format!(
                        "that history entry is a page agents may not use ({})",
                        b.reason()
                    ),
                )
            })?;
            let id = entry.get("id").cloned().unwrap_or(Value::Null);
            cx.step(
                &fence,
                "Page.navigateToHistoryEntry",
                json!({"entryId": id}),
                CommandClass::Act,
            )
            .await?;
            // A document load, a same-document entry, or a page restored
            // from the back/forward cache (which fires no load event).
            cx.event(&fence, &mut events, not_loaded, |e| {
                match e.method.as_str() {
                    "Page.loadEventFired" | "Page.navigatedWithinDocument" => true,
                    "Page.frameNavigated" => {
                        e.params.pointer("/frame/parentId").is_none()
                            && e.params.get("type").and_then(Value::as_str)
                                == Some("BackForwardCacheRestore")
                    }
                    _ => false,
                }
            })
            .await?;
        }
    }
    let v = cx
        .read(&fence, "({url: location.href, title: document.title})")
        .await?;
    let text = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    Ok(NavigateResult {
        url: text("url"),
        title: text("title"),
    })
}

/// A url an agent submitted, checked as `page.navigate` does.
fn check_url_param(url: &str, files: &LocalFiles) -> Result<(), RpcError> {
    check_navigate_url(url, files).map_err(|e| match e.kind {
        ErrorKind::InvalidRequest => {
            invalid_params(format!("invalid params: `params.url`: {}", e.message))
        }
        _ => RpcError::from(e),
    })
}

fn dpr_of(v: &Value) -> f64 {
    v.as_f64()
        .filter(|d| d.is_finite() && *d > 0.0)
        .unwrap_or(1.0)
}

/// A capture's base64 text (in characters) above which it is decoded and
/// hashed on the blocking pool, so the daemon's one thread keeps serving
/// other requests meanwhile.
const LARGE_IMAGE: usize = 1 << 20;

/// A capture's image from its base64 text: the text back, the SHA-256 of
/// its bytes and its size in pixels.
type Image = (String, [u8; 32], u32, u32);

/// Reads a capture's base64 text as an [`Image`].
fn read_image(data: String) -> Result<Image, RpcError> {
    let bytes = STANDARD
        .decode(data.as_bytes())
        .map_err(|_| wire(ErrorKind::CommandFailed, "the capture is not valid base64"))?;
    let (width, height) = image_size(&bytes).ok_or_else(|| {
        wire(
            ErrorKind::CommandFailed,
            "the capture is not a readable image",
        )
    })?;
    Ok((data, Sha256::digest(&bytes).into(), width, height))
}

/// Runs `f` on the blocking pool when `heavy` (else here), so long work
/// or file access does not hold up the daemon's one thread; `what` says
/// what failed if the pool lost it.
pub(super) async fn off_thread_if<T: Send + 'static>(
    heavy: bool,
    what: &'static str,
    f: impl FnOnce() -> Result<T, RpcError> + Send + 'static,
) -> Result<T, RpcError> {
    if !heavy {
        return f();
    }
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| wire(ErrorKind::CommandFailed, format!("{what} failed")))?
}

/// A rectangle in viewport CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Rect {
    x: f64,
    y: f64,
    width: f64,
    height: f64,
}

async fn capture(cx: &Cx<'_>, p: CaptureParams) -> Result<CaptureResult, RpcError> {
    let quality = match (p.format, p.quality) {
        (ImageFormat::Png, Some(_)) => {
            return Err(invalid_params(
                "invalid params: `params.quality` is only allowed with jpeg",
            ));
        }
        (ImageFormat::Jpeg, Some(q)) if q > 100 => {
            return Err(invalid_params(
                "invalid params: `params.quality` must be 0 to 100",
            ));
        }
        (ImageFormat::Jpeg, q) => Some(q.unwrap_or(DEFAULT_JPEG_QUALITY)),
        (ImageFormat::Png, None) => None,
    };
    if p.max_width == Some(0) {
        return Err(invalid_params(
            "invalid params: `params.maxWidth` must be at least 1",
        ));
    }
    let fence = cx.fence(Need::Observe)?;
    let mark = cx.core(|c| c.capture_started(&fence));
    let mut params = json!({"format": p.format.as_str()});
    if let (Some(q), Some(obj)) = (quality, params.as_object_mut()) {
        obj.insert("quality".into(), json!(q));
    }
    let shoot = |params: Value| {
        let fence = &fence;
        async move {
            let shot = cx
                .step(
                    fence,
                    "Page.captureScreenshot",
                    params,
                    CommandClass::Observe,
                )
                .await?;
            let data = match shot {
                Value::Object(mut m) => match m.remove("data") {
                    Some(Value::String(data)) => Some(data),
                    _ => None,
                },
                _ => None,
            }
            .ok_or_else(|| wire(ErrorKind::CommandFailed, "the capture returned no image"))?;
            off_thread_if(data.len() > LARGE_IMAGE, "reading the capture", move || {
                read_image(data)
            })
            .await
        }
    };
    let (data, digest, width, height, dpr, geometry, origin) =
        if p.clip.is_none() && p.max_width.is_none() {
            let (shot, dpr, geometry) = tokio::join!(
                shoot(params),
                cx.read(&fence, "window.devicePixelRatio"),
                cx.geometry(&fence),
            );
            let (data, digest, width, height) = shot?;
            (
                data,
                digest,
                width,
                height,
                dpr_of(&dpr?),
                geometry?,
                (0.0, 0.0),
            )
        } else {
            // The element's box first: bringing it into view scrolls.
            let region = match &p.clip {
                Some(r) => Some(cx.element_box(&fence, r).await?),
                None => None,
            };
            let (dpr, geometry) = tokio::join!(
                cx.read(&fence, "window.devicePixelRatio"),
                cx.geometry(&fence),
            );
            let (dpr, geometry) = (dpr_of(&dpr?), geometry?);
            let region = region.unwrap_or(Rect {
                x: 0.0,
                y: 0.0,
                width: geometry.viewport_width,
                height: geometry.viewport_height,
            });
            let natural = region.width * dpr;
            let mut scale = match p.max_width {
                Some(m) if natural > f64::from(m) => f64::from(m) / natural,
                _ => 1.0,
            };
            let mut attempt = 0;
            loop {
                let mut params = params.clone();
                if let Some(obj) = params.as_object_mut() {
                    // `Page.captureScreenshot` reads a clip in document
                    // coordinates: the viewport's scroll offset plus the box.
                    obj.insert(
                        "clip".into(),
                        json!({"x": region.x + geometry.scroll_x, "y": region.y + geometry.scroll_y,
                           "width": region.width, "height": region.height, "scale": scale}),
                    );
                }
                let (data, digest, width, height) = shoot(params).await?;
                match p.max_width {
                    Some(m) if width > m => {
                        if attempt > 0 {
                            return Err(wire(
                                ErrorKind::CommandFailed,
                                "the browser did not downscale the capture to maxWidth",
                            ));
                        }
                        attempt += 1;
                        // Rounding made it too wide: shrink by what it missed.
                        scale *= (f64::from(m) - 0.5) / f64::from(width);
                    }
                    _ => {
                        break (
                            data,
                            digest,
                            width,
                            height,
                            dpr * scale,
                            geometry,
                            (region.x, region.y),
                        )
                    }
                }
            }
        };
    if let Some(known) = &p.known_frame_id {
        let same = cx.core(|c| c.unchanged_frame(&fence, known, &digest, &geometry));
        if let Some(f) = same {
            return Ok(CaptureResult {
                format: p.format,
                data: None,
                unchanged: true,
                width,
                height,
                device_pixel_ratio: f.dpr,
                frame_id: f.id,
                geometry: f.geometry,
            });
        }
    }
    let g = geometry.clone();
    let frame_id = cx.core(|c| {
        c.capture_finished_with(
            &fence,
            mark,
            CaptureMeta {
                dpr,
                geometry: g,
                origin,
                digest,
            },
        )
    })?;
    Ok(CaptureResult {
        format: p.format,
        data: Some(data),
        unchanged: false,
        width,
        height,
        device_pixel_ratio: dpr,
        frame_id,
        geometry,
    })
}

/// Where pointer input aims: an element ref, or a point in a capture.
enum Aim {
    Element(Ref),
    Point {
        x: f64,
        y: f64,
        frame: Option<FrameId>,
    },
}

/// Exactly one of `ref` or `x`+`y`; `frameId` only with a point.
fn aim_of(
    element: Option<Ref>,
    x: Option<f64>,
    y: Option<f64>,
    frame: Option<FrameId>,
) -> Result<Aim, RpcError> {
    match (element, x, y) {
        (Some(r), None, None) => {
            if frame.is_some() {
                return Err(invalid_params(
                    "invalid params: `params.frameId` is only allowed with `params.x` and `params.y`",
                ));
            }
            Ok(Aim::Element(r))
        }
        (Some(_), _, _) => Err(invalid_params(
            "invalid params: `params.ref` and `params.x`/`params.y` exclude each other",
        )),
        (None, Some(x), Some(y)) => {
            check_point(x, y)?;
            Ok(Aim::Point { x, y, frame })
        }
        (None, Some(_), None) => Err(invalid_params("invalid params: missing field `params.y`")),
        (None, None, Some(_)) => Err(invalid_params("invalid params: missing field `params.x`")),
        (None, None, None) => Err(invalid_params(
            "invalid params: missing field `params.ref` (or `params.x` and `params.y`)",
        )),
    }
}

fn modifier_bits(modifiers: &[Modifier]) -> u32 {
    modifiers.iter().fold(0, |a, m| a | m.cdp_bit())
}

async fn click(cx: &Cx<'_>, p: ClickParams) -> Result<Empty, RpcError> {
    let count = p.click_count.unwrap_or(1);
    if !(1..=3).contains(&count) {
        return Err(invalid_params(
            "invalid params: `params.clickCount` must be 1 to 3",
        ));
    }
    let aim = aim_of(p.element, p.x, p.y, p.frame_id)?;
    let fence = cx.fence(Need::Act)?;
    cx.expect(&fence, p.expect.as_ref()).await?;
    let (x, y, frame) = cx.aim(&fence, &aim).await?;
    cx.mouse_click(
        &fence,
        (x, y),
        frame.as_ref(),
        p.button.unwrap_or_default(),
        count,
        modifier_bits(&p.modifiers),
    )
    .await?;
    Ok(Empty {})
}

async fn type_text(cx: &Cx<'_>, p: TypeParams) -> Result<Empty, RpcError> {
    if p.text.len() > MAX_TYPE_TEXT {
        return Err(invalid_params(format!(
            "invalid params: `params.text` is longer than {MAX_TYPE_TEXT} bytes"
        )));
    }
    if p.clear && p.element.is_none() {
        return Err(invalid_params(
            "invalid params: `params.clear` needs `params.ref`",
        ));
    }
    let fence = cx.fence(Need::Act)?;
    cx.expect(&fence, p.expect.as_ref()).await?;
    if let Some(r) = &p.element {
        cx.focus_for_typing(&fence, r, p.clear).await?;
    }
    cx.core(|c| c.input(&fence))?;
    if !p.text.is_empty() {
        cx.step(
            &fence,
            "Input.insertText",
            json!({"text": p.text}),
            CommandClass::Act,
        )
        .await?;
    }
    if p.submit {
        cx.press_key(&fence, key_of("Enter")?, Vec::new()).await?;
    }
    Ok(Empty {})
}

fn key_of(name: &str) -> Result<keys::KeyInfo, RpcError> {
    keys::lookup(name)
        .ok_or_else(|| invalid_params("invalid params: unknown key name in `params.key`"))
}

async fn press(cx: &Cx<'_>, p: PressParams) -> Result<Empty, RpcError> {
    let key = key_of(&p.key)?;
    let fence = cx.fence(Need::Act)?;
    cx.expect(&fence, p.expect.as_ref()).await?;
    cx.press_key(&fence, key, p.modifiers).await?;
    Ok(Empty {})
}

impl Cx<'_> {
    /// Presses and releases a key in one trip ([`Cx::input_events`]):
    /// the extension pairs them. The press is recorded meanwhile (a key the
    /// session holds cannot be pressed again).
    async fn press_key(
        &self,
        fence: &Fence,
        key: keys::KeyInfo,
        modifiers: Vec<Modifier>,
    ) -> Result<(), RpcError> {
        let [down, up] = keys::key_events(&key, &modifiers);
        let press = self.begin_paired_press(fence, None, PressKind::Key { key, modifiers })?;
        let events = vec![
            InputEvent::new(KEY_EVENT, down),
            InputEvent::new(KEY_EVENT, up),
        ];
        let r = self.input_events(fence, events, None).await;
        drop(press);
        r.map(drop)
    }

    /// The CSS point an aim stands for: an element's visible, uncovered
    /// centre, or a capture point in its frame (returned: the press record
    /// names it, and the input's first command carries its viewport).
    async fn aim(&self, fence: &Fence, aim: &Aim) -> Result<(f64, f64, Option<Frame>), RpcError> {
        match aim {
            Aim::Element(r) => {
                let (el, in_view) = self.element_in_view(fence, r, CommandClass::Act).await?;
                let (x, y) = self.point_on(fence, &el, &in_view, true).await?;
                Ok((x, y, None))
            }
            Aim::Point { x, y, frame } => {
                let f = self.frame(fence, frame.as_ref())?;
                Ok((f.origin.0 + x / f.dpr, f.origin.1 + y / f.dpr, Some(f)))
            }
        }
    }

    /// A click at a CSS point: a move, then `count` press/release pairs
    /// (`clickCount` 1, 2, 3), all in one trip ([`Cx::input_events`]):
    /// with a frame, the move is checked against it; the extension pairs
    /// the presses. The press is recorded for the click's duration (a
    /// button the session holds cannot be clicked), with nothing for the
    /// daemon to release after it.
    async fn mouse_click(
        &self,
        fence: &Fence,
        (x, y): (f64, f64),
        frame: Option<&Frame>,
        button: MouseButton,
        count: u8,
        modifiers: u32,
    ) -> Result<(), RpcError> {
        let press = self.begin_paired_press(
            fence,
            frame.map(|f| &f.id),
            PressKind::Mouse { button, x, y },
        )?;
        let others = self.core(|c| c.buttons_held(fence.session, fence.tab, Some(press.id)));
        let mouse = |params| InputEvent::new(MOUSE_EVENT, params);
        let mut events = vec![mouse(json!({"type": "mouseMoved", "x": x, "y": y,
                                           "buttons": others, "modifiers": modifiers}))];
        for i in 1..=count {
            for (kind, buttons) in [
                ("mousePressed", others | button.bit()),
                ("mouseReleased", others),
            ] {
                events.push(mouse(json!({"type": kind, "x": x, "y": y,
                                         "button": button.as_str(), "buttons": buttons,
                                         "clickCount": i, "modifiers": modifiers})));
            }
        }
        let r = self.input_events(fence, events, frame).await;
        drop(press);
        r.map(drop)
    }
}

async fn key_down(cx: &Cx<'_>, p: KeyParams) -> Result<Empty, RpcError> {
    let key = key_of(&p.key)?;
    let fence = cx.fence(Need::Act)?;
    cx.expect(&fence, p.expect.as_ref()).await?;
    let [down, _] = keys::key_events(&key, &p.modifiers);
    let guard = cx.begin_press(
        &fence,
        None,
        PressKind::Key {
            key,
            modifiers: p.modifiers,
        },
    )?;
    let r = cx
        .step(&fence, "Input.dispatchKeyEvent", down, CommandClass::Act)
        .await;
    guard.settle(r.is_ok());
    r?;
    Ok(Empty {})
}

async fn key_up(cx: &Cx<'_>, p: KeyUpParams) -> Result<ReleaseResult, RpcError> {
    let key = key_of(&p.key)?;
    cx.agent_release(ReleaseTarget::Key(key.key)).await
}

async fn mouse_down(cx: &Cx<'_>, p: PointerParams) -> Result<Empty, RpcError> {
    check_point(p.x, p.y)?;
    let button = p.button.unwrap_or_default();
    let fence = cx.fence(Need::Act)?;
    cx.expect(&fence, p.expect.as_ref()).await?;
    let frame = cx.frame_live(&fence, p.frame_id.as_ref()).await?;
    let (x, y) = (
        frame.origin.0 + p.x / frame.dpr,
        frame.origin.1 + p.y / frame.dpr,
    );
    let guard = cx.begin_press(&fence, Some(&frame.id), PressKind::Mouse { button, x, y })?;
    let buttons = cx.core(|c| c.buttons_held(fence.session, fence.tab, None));
    let r = cx
        .step(
            &fence,
            "Input.dispatchMouseEvent",
            json!({"type": "mousePressed", "x": x, "y": y, "button": button.as_str(),
                   "buttons": buttons, "clickCount": 1}),
            CommandClass::Act,
        )
        .await;
    guard.settle(r.is_ok());
    r?;
    Ok(Empty {})
}

fn first_button(mask: u32) -> &'static str {
    [MouseButton::Left, MouseButton::Right, MouseButton::Middle]
        .into_iter()
        .find(|b| mask & b.bit() != 0)
        .map_or("none", MouseButton::as_str)
}

async fn mouse_move(cx: &Cx<'_>, p: PointerParams) -> Result<Empty, RpcError> {
    check_point(p.x, p.y)?;
    if p.button.is_some() {
        return Err(invalid_params(
            "invalid params: `params.button` is only allowed with input.mouseDown",
        ));
    }
    let fence = cx.fence(Need::Act)?;
    cx.expect(&fence, p.expect.as_ref()).await?;
    let frame = cx.frame(&fence, p.frame_id.as_ref())?;
    let (x, y) = (
        frame.origin.0 + p.x / frame.dpr,
        frame.origin.1 + p.y / frame.dpr,
    );
    cx.move_mouse(&fence, (x, y), Some(&frame)).await?;
    Ok(Empty {})
}

async fn mouse_up(cx: &Cx<'_>, p: MouseUpParams) -> Result<ReleaseResult, RpcError> {
    cx.agent_release(ReleaseTarget::Mouse(p.button.unwrap_or_default()))
        .await
}

async fn gesture_begin(cx: &Cx<'_>, p: PointerParams) -> Result<Empty, RpcError> {
    check_point(p.x, p.y)?;
    if p.button.is_some() {
        return Err(invalid_params(
            "invalid params: `params.button` is only allowed with input.mouseDown",
        ));
    }
    let fence = cx.fence(Need::Act)?;
    cx.expect(&fence, p.expect.as_ref()).await?;
    let frame = cx.frame_live(&fence, p.frame_id.as_ref()).await?;
    if frame.origin != (0.0, 0.0) {
        return Err(invalid_params(
            "invalid params: a gesture needs a capture of the whole viewport, not of an element",
        ));
    }
    let (x, y) = (p.x / frame.dpr, p.y / frame.dpr);
    let guard = cx.begin_press(
        &fence,
        Some(&frame.id),
        PressKind::Touch {
            x,
            y,
            dpr: frame.dpr,
        },
    )?;
    let r = cx
        .step(
            &fence,
            "Input.dispatchTouchEvent",
            json!({"type": "touchStart", "touchPoints": [{"x": x, "y": y}]}),
            CommandClass::Act,
        )
        .await;
    guard.settle(r.is_ok());
    r?;
    Ok(Empty {})
}

async fn gesture_update(cx: &Cx<'_>, p: PointParams) -> Result<Empty, RpcError> {
    check_point(p.x, p.y)?;
    let fence = cx.fence(Need::Act)?;
    let (x, y) = cx.core(|c| c.gesture_moved(&fence, p.x, p.y))?;
    cx.step(
        &fence,
        "Input.dispatchTouchEvent",
        json!({"type": "touchMove", "touchPoints": [{"x": x, "y": y}]}),
        CommandClass::Act,
    )
    .await?;
    Ok(Empty {})
}

async fn gesture_end(cx: &Cx<'_>) -> Result<ReleaseResult, RpcError> {
    cx.agent_release(ReleaseTarget::Touch).await
}

async fn evaluate(cx: &Cx<'_>, p: EvaluateParams) -> Result<EvaluateResult, RpcError> {
    if p.expression.len() > MAX_EXPRESSION {
        return Err(invalid_params(format!(
            "invalid params: `params.expression` is longer than {MAX_EXPRESSION} bytes"
        )));
    }
    let fence = cx.fence(Need::Privileged)?;
    cx.core(|c| c.input(&fence))?;
    let (mut r, known) = scanned(
        cx,
        &fence,
        "Runtime.evaluate",
        json!({"expression": p.expression, "returnByValue": true,
               "awaitPromise": p.await_promise.unwrap_or(true)}),
    )
    .await?;
    let exception = r.get("exceptionDetails").map(|d| {
        let text = d
            .pointer("/exception/description")
            .or_else(|| d.get("text"))
            .and_then(Value::as_str)
            .unwrap_or("the expression threw");
        redact::redact_str(text, &known)
    });
    let value = r
        .pointer_mut("/result/value")
        .map(Value::take)
        .unwrap_or(Value::Null);
    let value = redacted(value, known).await?;
    Ok(EvaluateResult { value, exception })
}

/// Text in a result (in bytes) above which it is redacted on the blocking
/// pool: redaction looks for every known secret in every string, which on
/// a result of several MiB would hold the daemon's one thread up.
const LARGE_RESULT: usize = 256 << 10;

/// `value` redacted by [`redact::redact`], off the daemon's thread when it
/// holds more than [`LARGE_RESULT`] of text.
async fn redacted(mut value: Value, known: redact::Known) -> Result<Value, RpcError> {
    let heavy = text_len_over(&value, LARGE_RESULT);
    off_thread_if(heavy, "redacting the result", move || {
        redact::redact(&mut value, &known);
        Ok(value)
    })
    .await
}

/// Whether the strings (keys included) of `value` hold more than `limit`
/// bytes (other scalars count 8); stops counting once they do.
fn text_len_over(value: &Value, limit: usize) -> bool {
    fn spend(left: &mut usize, n: usize) -> bool {
        match left.checked_sub(n) {
            Some(l) => {
                *left = l;
                false
            }
            None => true,
        }
    }
    fn walk(v: &Value, left: &mut usize) -> bool {
        match v {
            Value::String(s) => spend(left, s.len()),
            Value::Array(a) => a.iter().any(|v| walk(v, left)),
            Value::Object(m) => m.iter().any(|(k, v)| spend(left, k.len()) || walk(v, left)),
            _ => spend(left, 8),
        }
    }
    let mut left = limit;
    walk(value, &mut left)
}

/// A developer-mode (class privileged) call, with the page's secrets read
/// right after it for [`redact`] (password field values, cookie values
/// scripts can read): the extension sends the scan as the call's
/// follow-up, class observe, as soon as the call answers, in the same trip
/// over the native link, so the scan sees what the person typed even if
/// the call waited for it. A scan that fails (the page navigated away or
/// closed, a dialog opened) yields nothing and the result still goes
/// through the key and shape rules: the call has already acted, and
/// failing it now would hide that outcome.
async fn scanned(
    cx: &Cx<'_>,
    fence: &Fence,
    method: &str,
    params: Value,
) -> Result<(Value, redact::Known), RpcError> {
    let scan = FollowUp {
        method: "Runtime.evaluate".into(),
        params: json!({"expression": redact::PAGE_SECRETS_EXPRESSION, "returnByValue": true}),
        // An evaluation runs on the page's main thread in order with the
        // scan, so the scan may ride right behind it.
        overlap: method == "Runtime.evaluate",
    };
    let r = cx
        .step_then(fence, method, params, CommandClass::Privileged, scan)
        .await?;
    let r: ThenResult = serde_json::from_value(r).map_err(|_| {
        wire(
            ErrorKind::CommandFailed,
            "the extension answered a developer-mode call without its redaction scan; \
             the result is withheld",
        )
    })?;
    let known = match r.then {
        Outcome::Result(v) if v.get("exceptionDetails").is_none() => {
            redact::Known::from_scan(v.pointer("/result/value"))
        }
        _ => redact::Known::default(),
    };
    Ok((r.result, known))
}

fn valid_cdp_method(m: &str) -> bool {
    let mut parts = m.split('.');
    let ok = |p: Option<&str>| {
        p.is_some_and(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric()))
    };
    m.len() <= 128 && ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

async fn cdp_send(cx: &Cx<'_>, p: CdpSendParams) -> Result<Value, RpcError> {
    if !valid_cdp_method(&p.method) {
        return Err(invalid_params(
            "invalid params: `params.method` must look like `Domain.method`",
        ));
    }
    let params = p.params.unwrap_or_else(|| json!({}));
    if !params.is_object() {
        return Err(invalid_params(
            "invalid params: `params.params` must be an object",
        ));
    }
    let fence = cx.fence(Need::Privileged)?;
    // The extension enforces this on every command; refused here too, so
    // the answer comes before anything is sent.
    check_raw_cdp(&p.method, &params, &cx.broker.local_files())?;
    cx.core(|c| c.input(&fence))?;
    let (r, known) = scanned(cx, &fence, &p.method, params).await?;
    redacted(r, known).await
}

#[cfg(test)]
mod tests {
    use super::text_len_over;
    use serde_json::json;

    #[test]
    fn text_length_counts_strings_keys_and_scalars_and_stops_early() {
        let v = json!({"ab": ["cdef", 1, null]});
        // 2 (key) + 4 + 8 + 8 = 22
        assert!(!text_len_over(&v, 22));
        assert!(text_len_over(&v, 21));
        assert!(!text_len_over(&json!("x".repeat(10)), 10));
        assert!(text_len_over(&json!(["x".repeat(300_000)]), 256 << 10));
    }
}
