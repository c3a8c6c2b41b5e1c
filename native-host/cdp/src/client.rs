//! One CDP client of the endpoint: the browser-level domains emulated
//! over the shared tabs, and one agent session per attached tab.
//!
//! - The client's own agent session (its "browser" connection) lists,
//!   opens and closes shared tabs, and hears developer mode turn off,
//!   which closes the client.
//! - Attaching a tab opens an agent session for it: it selects the tab,
//!   takes control of it and asks for its CDP events. Its flat CDP
//!   session id names that agent session; commands on it go to the tab as
//!   `cdp.send`, its `cdp.event`s come back with the session id.
//! - The tab's frames in other processes and its dedicated workers are
//!   child sessions of its own (`Target.setAutoAttach` on it), named as
//!   the browser names them; their commands are `cdp.send` with their
//!   `sessionId` through the tab's agent session, under its rules.
//! - When the person takes control, the tab's next command fails with an
//!   error that says so, and the session is detached
//!   (`Target.detachedFromTarget`); a closed or unshared tab detaches at
//!   once.

mod domain;
mod page;
mod targets;

use super::{Config, Mux};
use cotab_shared::controller::{AgentTab, Bye, Empty, ErrorData, RpcError, Status, TabsList};
use cotab_shared::{ErrorKind, TabId};
use futures_util::{SinkExt as _, StreamExt as _};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, Semaphore};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;
use tokio_util::sync::CancellationToken;

/// What `Browser.getVersion` and `/json/version` name the browser.
const PRODUCT: &str = concat!("Chrome/cotab-", env!("CARGO_PKG_VERSION"));

/// Messages queued to a client that does not read them, past which it is
/// dropped: its events must not pile up without bound.
const OUT_QUEUE: usize = 8192;

/// A client's commands in flight at once; past them its socket is not
/// read until one answers.
const IN_FLIGHT: usize = 64;

/// How long the close frame may take to reach a client.
const CLOSE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// The one browser context a client sees: the person's own.
const CONTEXT: &str = "cotab-person";

/// `/json/version`, as Chrome serves it.
pub(super) fn version_json(config: &Config) -> Value {
    let page = domain::VersionPage {
        browser: PRODUCT,
        protocol_version: "1.3",
        user_agent: PRODUCT,
        v8_version: "",
        webkit_version: "",
        web_socket_debugger_url: config.browser_ws_url(),
    };
    serde_json::to_value(page).unwrap_or(Value::Null)
}

/// The name a client's agent sessions go by: the first word of its
/// `User-Agent` (`Playwright/1.64.0 …` gives `Playwright`), printable and
/// short, with " (CDP)".
pub(super) fn agent_name(user_agent: Option<&str>) -> String {
    let word: String = user_agent
        .unwrap_or("")
        .split(['/', ' '])
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(32)
        .collect();
    let word = if word.is_empty() { "CDP client" } else { &word };
    format!("{word} (CDP)")
}

fn failure(kind: ErrorKind, message: impl Into<String>) -> RpcError {
    RpcError {
        code: -32000,
        message: message.into(),
        data: ErrorData { kind, dialog: None },
    }
}

/// An agent session on the daemon, bound to a new connection, one of
/// `group`'s (a client's sessions are one agent to the person).
async fn session(
    config: &Config,
    agent: &str,
    group: Option<&str>,
) -> Result<(Mux, mpsc::UnboundedReceiver<Value>), RpcError> {
    let (mux, notes) = Mux::connect(&config.agent_socket).await.map_err(|e| {
        failure(
            ErrorKind::RuntimeLost,
            format!("cotab's daemon is not running ({e}): open the browser and share a tab"),
        )
    })?;
    mux.hello(agent, group).await?;
    Ok((mux, notes))
}

/// `/json/list`: the shared tabs' pages.
pub(super) async fn list_json(config: &Config) -> Result<Value, RpcError> {
    let (mux, _notes) = session(config, "CDP endpoint", None).await?;
    let tabs = mux.call::<TabsList>(&Empty {}).await;
    let _ = mux.call::<Bye>(&Empty {}).await;
    let list: Vec<domain::ListedPage> = tabs?
        .tabs
        .iter()
        .filter_map(|t| {
            Some(domain::ListedPage {
                description: "",
                devtools_frontend_url: "",
                id: target_id(t)?.to_owned(),
                title: t.title.clone(),
                kind: "page",
                url: t.url.clone(),
            })
        })
        .collect();
    domain::result(&list)
}

/// The target id of a tab a client may see: shared, not blocked, its
/// page reported.
fn target_id(t: &AgentTab) -> Option<&str> {
    if t.blocked.is_some() {
        return None;
    }
    t.target_id.as_deref()
}

/// The client's own session, opened before its WebSocket is, so that a
/// refusal (no daemon, developer mode off) is the handshake's answer.
pub(super) struct Opened {
    mux: Mux,
    notes: mpsc::UnboundedReceiver<Value>,
    /// The group of all its sessions: unique to the client.
    group: String,
}

/// Opens the client's own session, if developer mode is on.
pub(super) async fn open(config: &Config, agent: &str) -> Result<Opened, RpcError> {
    static CLIENTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = CLIENTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let group = format!("cdp-endpoint {} {n}", std::process::id());
    let (mux, notes) = session(config, agent, Some(&group)).await?;
    let status = mux.call::<Status>(&Empty {}).await?;
    if !status.developer_mode {
        let _ = mux.call::<Bye>(&Empty {}).await;
        return Err(failure(
            ErrorKind::DeveloperModeOff,
            "developer mode is off: the CDP endpoint is raw CDP, which the person allows by \
             turning developer mode on in cotab's popup",
        ));
    }
    Ok(Opened { mux, notes, group })
}

enum Out {
    Text(String),
    /// The close frame, with its code and reason; the writer ends after.
    Close(CloseCode, String),
}

/// An attached tab: one agent session, and the client's CDP sessions on
/// it (the first from auto-attach; each `Target.attachToTarget` adds one,
/// as the browser would), which all get its events.
struct Page {
    tab: TabId,
    /// Its CDP session ids, each with the browser session it was
    /// announced on (none: the client's root), where its detach goes too.
    ids: Mutex<Vec<(String, Option<String>)>>,
    target: domain::TargetInfo,
    mux: Mux,
    /// Why the session may no longer act (the person took control): its
    /// next command fails with it, and the session is detached.
    revoked: Mutex<Option<String>>,
    /// A `Page.close` of the client's in flight, and whether the tab went
    /// meanwhile: the detach then waits for the close's answer, which
    /// comes first, as the browser's does ([`Client::after_answer`]).
    closing: Mutex<page::Closing>,
    /// Its commands in the order the client sent them: `Runtime.enable`
    /// waits for those before it, so the contexts it reports again come
    /// after every answer sent before it (the frame tree first)
    /// ([`page::in_turn`]).
    order: Arc<page::Order>,
    /// The daemon's limit of requests in flight on one connection: the
    /// commands of the tab and its children past it wait their turn, in
    /// order, instead of failing.
    slots: Semaphore,
}

/// A child session of an attached tab: its tab, and its own commands in
/// the order the client sent them (its `Runtime.enable` and
/// `Runtime.runIfWaitingForDebugger` wait for those only: a frame's
/// contexts come after its frame tree, it runs only once its domains are
/// on, and neither waits for the page's own long waits).
struct Child {
    page: Arc<Page>,
    order: Arc<page::Order>,
}

#[derive(Default)]
struct State {
    auto_attach: bool,
    discover: bool,
    /// Each CDP session id's tab.
    pages: HashMap<String, Arc<Page>>,
    /// The child sessions of the attached tabs (frames in other
    /// processes, dedicated workers), as the browser named them in
    /// `Target.attachedToTarget`, each with its tab.
    children: HashMap<String, Child>,
    /// Sessions on the browser itself (`Target.attachToBrowserTarget`).
    browser_sessions: Vec<String>,
    next_session: u64,
}

struct Client {
    config: Arc<Config>,
    agent: String,
    /// [`Opened`]'s group, which each tab's session joins.
    group: String,
    out: mpsc::Sender<Out>,
    browser: Mux,
    state: Mutex<State>,
    /// Held while a tab is attached, so one tab gets one session.
    attaching: tokio::sync::Mutex<()>,
    /// Cancelled when the client is to go: closed by the endpoint, or too
    /// slow to read what it is sent.
    gone: CancellationToken,
}

/// Serves one client until its socket closes or developer mode turns off.
pub(super) async fn run(
    ws: WebSocketStream<crate::Socket>,
    config: Arc<Config>,
    agent: String,
    opened: Opened,
) {
    let (mut sink, mut stream) = ws.split();
    let (out, mut out_rx) = mpsc::channel::<Out>(OUT_QUEUE);
    let writer = tokio::spawn(async move {
        while let Some(o) = out_rx.recv().await {
            let sent = match o {
                Out::Text(t) => sink.send(Message::text(t)).await,
                Out::Close(code, why) => {
                    let frame = CloseFrame {
                        code,
                        reason: why.into(),
                    };
                    let _ = sink.send(Message::Close(Some(frame))).await;
                    return;
                }
            };
            if sent.is_err() {
                return;
            }
        }
    });
    let client = Arc::new(Client {
        config,
        agent,
        group: opened.group,
        out,
        browser: opened.mux,
        state: Mutex::new(State::default()),
        attaching: tokio::sync::Mutex::new(()),
        gone: CancellationToken::new(),
    });
    let watcher = tokio::spawn(watch_browser(client.clone(), opened.notes));
    let in_flight = Arc::new(Semaphore::new(IN_FLIGHT));
    loop {
        let msg = tokio::select! {
            _ = client.gone.cancelled() => break,
            m = stream.next() => m,
        };
        let Some(msg) = msg else { break };
        let text = match msg {
            Ok(Message::Text(t)) => t.to_string(),
            Ok(Message::Binary(b)) => String::from_utf8_lossy(&b).into_owned(),
            Ok(Message::Close(_)) | Err(_) => break,
            Ok(_) => continue,
        };
        let Ok(Value::Object(m)) = serde_json::from_str::<Value>(&text) else {
            client.send(
                json!({"error": {"code": -32700, "message": "Message must be a valid JSON"}}),
            );
            continue;
        };
        let id = m.get("id").cloned().filter(Value::is_number);
        let method = m.get("method").and_then(Value::as_str).map(str::to_owned);
        let (Some(id), Some(method)) = (id, method) else {
            client.send(json!({"error": {"code": -32600, "message": "Message must have integer 'id' and string 'method' properties"}}));
            continue;
        };
        let params = m.get("params").cloned().unwrap_or_else(|| json!({}));
        let session = m
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let client = client.clone();
        let Ok(permit) = in_flight.clone().acquire_owned().await else {
            break;
        };
        // Its place among its session's commands, taken as it is read.
        let turn = session
            .as_deref()
            .and_then(|s| client.order(s))
            .map(|o| o.enter());
        tokio::spawn(async move {
            let _permit = permit;
            let r = client
                .command(&method, params, session.as_deref(), turn)
                .await;
            if let Err(e) = &r {
                tracing::debug!(method, kind = %e.data.kind, "a CDP client's command failed");
            }
            let mut answer = match r {
                Ok(result) => json!({"id": id, "result": result}),
                Err(e) => json!({"id": id, "error": {"code": e.code, "message": e.message}}),
            };
            if let Some(s) = &session {
                answer["sessionId"] = json!(s);
            }
            client.send(answer);
            if let Some(s) = &session {
                client.after_answer(s).await;
            }
        });
    }
    watcher.abort();
    // The close handshake ends here, whoever began it; the tabs' tasks
    // still hold the client.
    let _ = client
        .out
        .try_send(Out::Close(CloseCode::Normal, String::new()));
    // A client that reads nothing does not hold its sessions up.
    let stop = writer.abort_handle();
    if tokio::time::timeout(CLOSE_TIMEOUT, writer).await.is_err() {
        tracing::info!("a CDP client did not take its close frame in time");
        stop.abort();
    }
    client.end().await;
}

/// The client's own session's notifications: developer mode turning off
/// ends the client.
async fn watch_browser(client: Arc<Client>, mut notes: mpsc::UnboundedReceiver<Value>) {
    while let Some(n) = notes.recv().await {
        if n.get("method").and_then(Value::as_str) == Some("developerMode.changed")
            && n.pointer("/params/enabled") == Some(&Value::Bool(false))
        {
            client.close("developer mode was turned off");
            return;
        }
    }
    client.close("the connection to cotab's daemon closed");
}

impl Client {
    /// Sends one of the endpoint's own events, on browser session `on`.
    fn emit(&self, event: &domain::Event<'_>, on: Option<&str>) {
        self.send(event.message(on));
    }

    fn send(&self, v: Value) {
        // Closed: the close frame went, and nothing more goes.
        let full = matches!(
            self.out.try_send(Out::Text(v.to_string())),
            Err(mpsc::error::TrySendError::Full(_))
        );
        if full && !self.gone.is_cancelled() {
            tracing::warn!("a CDP client does not read what it is sent; dropping it");
            self.gone.cancel();
        }
    }

    /// Sends the close frame, and stops reading the client: its sessions
    /// end once the close went.
    fn close(&self, why: &str) {
        tracing::info!(why, "closing a CDP client");
        let _ = self
            .out
            .try_send(Out::Close(CloseCode::Policy, why.to_owned()));
        self.gone.cancel();
    }

    fn page(&self, session: &str) -> Option<Arc<Page>> {
        self.lock().pages.get(session).cloned()
    }

    /// The tab of a child session the client heard of.
    fn child_page(&self, session: &str) -> Option<Arc<Page>> {
        self.lock().children.get(session).map(|c| c.page.clone())
    }

    /// The order of a session's commands: its tab's, or the child's own.
    fn order(&self, session: &str) -> Option<Arc<page::Order>> {
        let s = self.lock();
        match s.pages.get(session) {
            Some(page) => Some(page.order.clone()),
            None => s.children.get(session).map(|c| c.order.clone()),
        }
    }

    fn new_session_id(&self) -> String {
        let mut s = self.lock();
        s.next_session += 1;
        format!(
            "{}{:08X}",
            self.config.browser_id[..16].to_ascii_uppercase(),
            s.next_session
        )
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every session's agent session ends, so its lease goes at once.
    async fn end(&self) {
        let mut pages: Vec<Arc<Page>> = Vec::new();
        for (_, p) in self.lock().pages.drain() {
            if !pages.iter().any(|q| Arc::ptr_eq(q, &p)) {
                pages.push(p);
            }
        }
        for p in pages {
            let _ = p.mux.call::<Bye>(&Empty {}).await;
        }
        let _ = self.browser.call::<Bye>(&Empty {}).await;
    }

    async fn command(
        self: &Arc<Self>,
        method: &str,
        params: Value,
        session: Option<&str>,
        turn: Option<page::Turn>,
    ) -> Result<Value, RpcError> {
        let browser = session.is_none_or(|s| self.lock().browser_sessions.iter().any(|b| b == s));
        match session {
            _ if browser => self.browser_command(method, params, session).await,
            None => unreachable!("no session is the browser's"),
            Some(s) => {
                let (page, child) = match self.page(s) {
                    Some(page) => (Some(page), None),
                    None => (self.child_page(s), Some(s)),
                };
                let Some(page) = page else {
                    return Err(RpcError {
                        code: -32001,
                        message: "Session with given id not found.".into(),
                        data: ErrorData {
                            kind: ErrorKind::InvalidRequest,
                            dialog: None,
                        },
                    });
                };
                self.page_command(&page, child, method, params, turn).await
            }
        }
    }

    async fn tabs(&self) -> Result<Vec<AgentTab>, RpcError> {
        Ok(self.browser.call::<TabsList>(&Empty {}).await?.tabs)
    }

    fn info(&self, t: &AgentTab, attached: bool) -> Option<domain::TargetInfo> {
        Some(domain::TargetInfo {
            target_id: target_id(t)?.to_owned(),
            kind: "page",
            title: t.title.clone(),
            url: t.url.clone(),
            attached,
            opener_id: None,
            can_access_opener: false,
            browser_context_id: Some(CONTEXT),
        })
    }

    fn attached_tab(&self, tab: TabId) -> Option<Arc<Page>> {
        self.lock().pages.values().find(|p| p.tab == tab).cloned()
    }
}
