//! The controller methods: one handler per [`Call`] variant, dispatched
//! from [`dispatch`], over the daemon's shared state ([`Broker`]).
//!
//! Handlers see typed params and return typed results; they never touch
//! sockets or JSON-RPC framing (that is [`crate::agent`]). What they ask of
//! the browser goes through [`Lane::call`], so every deadline and lane rule
//! applies to them alike.

use crate::keys;
use crate::lane::Lane;
use crate::session::{mint_ticket, Binding, ConnId, SessionId, Sessions};
use crate::validate::{check_navigate_url, image_size};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use cotab_shared::controller::{
    AgentTab, Call, CaptureParams, CaptureResult, ClickParams, Empty, HelloParams, HelloResult,
    ImageFormat, NavigateParams, NavigateResult, PressParams, ResumeParams, ResumeResult, RpcError,
    SelectParams, SelectResult, StatusResult, TabsListResult, TypeParams, DEFAULT_JPEG_QUALITY,
    INVALID_PARAMS,
};
use cotab_shared::limits::{MAX_AGENT_NAME, MAX_IN_FLIGHT_TOTAL, MAX_TYPE_TEXT};
use cotab_shared::native::{Command, SharedTabs};
use cotab_shared::{ErrorKind, TabId, WireError, PROTOCOL_VERSION};
use serde::Serialize;
use serde_json::{json, Value};
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

/// The daemon's shared state.
#[derive(Debug)]
pub struct Broker {
    /// The browser lane.
    pub lane: Lane,
    sessions: Mutex<Sessions>,
    /// Deadline of every request.
    pub default_deadline: Duration,
    /// Requests in flight in the whole daemon.
    pub in_flight: Arc<Semaphore>,
    counts: watch::Sender<Counts>,
    next_conn: AtomicU64,
}

impl Broker {
    /// A broker with an absent lane and no session.
    pub fn new(default_deadline: Duration) -> Self {
        Broker {
            lane: Lane::default(),
            sessions: Mutex::new(Sessions::default()),
            default_deadline,
            in_flight: Arc::new(Semaphore::new(MAX_IN_FLIGHT_TOTAL)),
            counts: watch::Sender::new(Counts::default()),
            next_conn: AtomicU64::new(1),
        }
    }

    fn sessions(&self) -> MutexGuard<'_, Sessions> {
        // Plain data: a panic elsewhere does not make it unusable.
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
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

    /// Notifications for agents.
    pub fn subscribe_agent_events(
        &self,
    ) -> broadcast::Receiver<cotab_shared::controller::AgentEvent> {
        self.lane.subscribe_agent_events()
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

    /// Whether a session is attached (notifications go only there).
    pub fn has_session(&self) -> bool {
        self.session().is_some()
    }

    /// Lets the connection's session go: it stays resumable.
    pub fn close(&self, broker: &Broker) {
        if let Some(sid) = self.session().take() {
            broker
                .sessions()
                .unbind(sid, self.id, std::time::Instant::now());
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
            cx.require_session()?;
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

/// The context of one request.
struct Cx<'a> {
    broker: &'a Broker,
    conn: &'a ConnState,
    deadline: Instant,
}

impl Cx<'_> {
    fn no_session() -> RpcError {
        wire(
            ErrorKind::AuthenticationFailed,
            "no session: call session.hello or session.resume first",
        )
    }

    fn require_session(&self) -> Result<SessionId, RpcError> {
        self.conn.session().ok_or_else(Self::no_session)
    }

    /// Runs `f` on this connection's binding.
    fn with_binding<R>(&self, f: impl FnOnce(&mut Binding) -> R) -> Result<R, RpcError> {
        let sid = self.require_session()?;
        let mut sessions = self.broker.sessions();
        // The session may have been resumed by another connection meanwhile.
        let binding = sessions
            .binding_mut(sid, self.conn.id)
            .ok_or_else(Self::no_session)?;
        Ok(f(binding))
    }

    fn selected(&self) -> Result<TabId, RpcError> {
        self.with_binding(|b| b.selected)?.ok_or_else(|| {
            wire(
                ErrorKind::InvalidRequest,
                "no tab selected: call tabs.select first",
            )
        })
    }

    /// Makes `sid` this connection's session, letting any previous one go.
    fn attach(&self, sid: SessionId) {
        let old = self.conn.session().replace(sid);
        if let Some(old) = old.filter(|o| *o != sid) {
            self.broker
                .sessions()
                .unbind(old, self.conn.id, std::time::Instant::now());
        }
    }

    async fn extension(&self, command: Command) -> Result<Value, RpcError> {
        self.broker
            .lane
            .call(command, self.deadline)
            .await
            .map_err(RpcError::from)
    }

    async fn cdp(&self, tab_id: TabId, method: &str, params: Value) -> Result<Value, RpcError> {
        tracing::debug!(tab = %tab_id, method, "cdp");
        self.extension(Command::Cdp {
            tab_id,
            method: method.into(),
            params,
        })
        .await
    }

    /// `Runtime.evaluate` with `returnByValue`, returning the value.
    async fn evaluate(&self, tab_id: TabId, expression: &str) -> Result<Value, RpcError> {
        let r = self
            .cdp(
                tab_id,
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true}),
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

    async fn live_shared(&self) -> Result<SharedTabs, RpcError> {
        let v = self.extension(Command::ListShared).await?;
        let list: SharedTabs = serde_json::from_value(v).map_err(|_| {
            wire(
                ErrorKind::CommandFailed,
                "the extension sent a malformed tab list",
            )
        })?;
        self.broker.lane.set_shared(list.tabs.clone());
        Ok(list)
    }
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

fn hello(cx: &Cx<'_>, p: HelloParams) -> Result<HelloResult, RpcError> {
    check_version(p.protocol_version)?;
    if p.agent.is_empty() || p.agent.len() > MAX_AGENT_NAME {
        return Err(invalid_params(format!(
            "invalid params: `params.agent` must be 1 to {MAX_AGENT_NAME} bytes"
        )));
    }
    let ticket =
        mint_ticket().map_err(|_| wire(ErrorKind::CommandFailed, "no randomness available"))?;
    let sid = cx
        .broker
        .sessions()
        .create(p.agent, ticket.clone(), cx.conn.id);
    cx.attach(sid);
    tracing::info!(conn = cx.conn.id.0, "session opened");
    Ok(HelloResult {
        protocol_version: PROTOCOL_VERSION,
        ticket,
        daemon_version: crate::VERSION.into(),
        methods: Call::METHODS.iter().map(|m| m.to_string()).collect(),
    })
}

fn resume(cx: &Cx<'_>, p: ResumeParams) -> Result<ResumeResult, RpcError> {
    check_version(p.protocol_version)?;
    let sid = cx
        .broker
        .sessions()
        .resume(&p.ticket, cx.conn.id, std::time::Instant::now())
        .ok_or_else(|| {
            wire(
                ErrorKind::AuthenticationFailed,
                "unknown, expired or revoked ticket",
            )
        })?;
    cx.attach(sid);
    let (selected_tab, selection_revision) =
        cx.with_binding(|b| (b.selected, b.selection_revision))?;
    tracing::info!(conn = cx.conn.id.0, "session resumed");
    Ok(ResumeResult {
        protocol_version: PROTOCOL_VERSION,
        selected_tab,
        selection_revision,
    })
}

fn bye(cx: &Cx<'_>) -> Result<Empty, RpcError> {
    let sid = cx.require_session()?;
    cx.broker.sessions().revoke(sid, cx.conn.id);
    cx.conn.session().take();
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
    }
}

async fn tabs_list(cx: &Cx<'_>) -> Result<TabsListResult, RpcError> {
    let list = cx.live_shared().await?;
    let selected = cx.with_binding(|b| b.selected)?;
    Ok(TabsListResult {
        tabs: list
            .tabs
            .into_iter()
            .map(|t| AgentTab {
                selected: Some(t.id) == selected,
                id: t.id,
                url: t.url,
                title: t.title,
            })
            .collect(),
    })
}

async fn tabs_select(cx: &Cx<'_>, p: SelectParams) -> Result<SelectResult, RpcError> {
    let list = cx.live_shared().await?;
    if !list.tabs.iter().any(|t| t.id == p.tab_id) {
        return Err(wire(
            ErrorKind::TabNotShared,
            "that tab is not shared with agents",
        ));
    }
    cx.with_binding(|b| {
        b.selected = Some(p.tab_id);
        b.selection_revision += 1;
        // A capture of another tab says nothing about this one.
        b.device_pixel_ratio = None;
        SelectResult {
            tab_id: p.tab_id,
            selection_revision: b.selection_revision,
        }
    })
}

async fn navigate(cx: &Cx<'_>, p: NavigateParams) -> Result<NavigateResult, RpcError> {
    check_navigate_url(&p.url).map_err(|e| match e.kind {
        ErrorKind::InvalidRequest => {
            invalid_params(format!("invalid params: `params.url`: {}", e.message))
        }
        _ => RpcError::from(e),
    })?;
    let tab = cx.selected()?;
    // Subscribe before navigating so the load event cannot slip past.
    let mut events = cx.broker.lane.subscribe_cdp();
    let r = cx.cdp(tab, "Page.navigate", json!({"url": p.url})).await?;
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
        loop {
            match tokio::time::timeout_at(cx.deadline, events.recv()).await {
                Err(_) => {
                    return Err(wire(
                        ErrorKind::Timeout,
                        "the page did not finish loading before the deadline",
                    ));
                }
                Ok(Ok(ev)) if ev.tab_id == tab && ev.method == "Page.loadEventFired" => break,
                Ok(Ok(_)) | Ok(Err(broadcast::error::RecvError::Lagged(_))) => continue,
                Ok(Err(broadcast::error::RecvError::Closed)) => {
                    return Err(wire(ErrorKind::RuntimeLost, "the browser lane went away"));
                }
            }
        }
    }
    let v = cx
        .evaluate(tab, "({url: location.href, title: document.title})")
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

fn dpr_of(v: &Value) -> f64 {
    v.as_f64()
        .filter(|d| d.is_finite() && *d > 0.0)
        .unwrap_or(1.0)
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
    let tab = cx.selected()?;
    let mut params = json!({"format": p.format.as_str()});
    if let (Some(q), Some(obj)) = (quality, params.as_object_mut()) {
        obj.insert("quality".into(), json!(q));
    }
    let (shot, dpr) = tokio::join!(
        cx.cdp(tab, "Page.captureScreenshot", params),
        cx.evaluate(tab, "window.devicePixelRatio")
    );
    let data = shot?
        .get("data")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| wire(ErrorKind::CommandFailed, "the capture returned no image"))?;
    let dpr = dpr_of(&dpr?);
    let bytes = STANDARD
        .decode(data.as_bytes())
        .map_err(|_| wire(ErrorKind::CommandFailed, "the capture is not valid base64"))?;
    let (width, height) = image_size(&bytes).ok_or_else(|| {
        wire(
            ErrorKind::CommandFailed,
            "the capture is not a readable image",
        )
    })?;
    cx.with_binding(|b| b.device_pixel_ratio = Some(dpr))?;
    Ok(CaptureResult {
        format: p.format,
        data,
        width,
        height,
        device_pixel_ratio: dpr,
    })
}

async fn click(cx: &Cx<'_>, p: ClickParams) -> Result<Empty, RpcError> {
    for (name, v) in [("x", p.x), ("y", p.y)] {
        if !v.is_finite() || v < 0.0 {
            return Err(invalid_params(format!(
                "invalid params: `params.{name}` must be a finite number ≥ 0"
            )));
        }
    }
    let tab = cx.selected()?;
    let dpr = match cx.with_binding(|b| b.device_pixel_ratio)? {
        Some(d) => d,
        None => {
            let d = dpr_of(&cx.evaluate(tab, "window.devicePixelRatio").await?);
            cx.with_binding(|b| b.device_pixel_ratio = Some(d))?;
            d
        }
    };
    let (x, y) = (p.x / dpr, p.y / dpr);
    let events = [
        json!({"type": "mouseMoved", "x": x, "y": y}),
        json!({"type": "mousePressed", "x": x, "y": y, "button": "left", "buttons": 1, "clickCount": 1}),
        json!({"type": "mouseReleased", "x": x, "y": y, "button": "left", "buttons": 0, "clickCount": 1}),
    ];
    for e in events {
        cx.cdp(tab, "Input.dispatchMouseEvent", e).await?;
    }
    Ok(Empty {})
}

async fn type_text(cx: &Cx<'_>, p: TypeParams) -> Result<Empty, RpcError> {
    if p.text.len() > MAX_TYPE_TEXT {
        return Err(invalid_params(format!(
            "invalid params: `params.text` is longer than {MAX_TYPE_TEXT} bytes"
        )));
    }
    let tab = cx.selected()?;
    cx.cdp(tab, "Input.insertText", json!({"text": p.text}))
        .await?;
    Ok(Empty {})
}

async fn press(cx: &Cx<'_>, p: PressParams) -> Result<Empty, RpcError> {
    let key = keys::lookup(&p.key)
        .ok_or_else(|| invalid_params("invalid params: unknown key name in `params.key`"))?;
    let tab = cx.selected()?;
    let [down, up] = keys::key_events(&key, &p.modifiers);
    cx.cdp(tab, "Input.dispatchKeyEvent", down).await?;
    cx.cdp(tab, "Input.dispatchKeyEvent", up).await?;
    Ok(Empty {})
}
