//! Test harness: an in-process daemon in a temporary runtime directory and
//! a scripted fake extension.

use cotab_host::agent::AgentConfig;
use cotab_host::client::Client;
use cotab_host::codec::NativeCodec;
use cotab_host::daemon::{self, DaemonConfig};
use cotab_host::runtime::{AGENT_SOCKET, HOST_SOCKET};
use cotab_shared::limits::{MAX_AGENT_CONNECTIONS, MAX_EXTENSION_TO_HOST, MAX_HOST_TO_EXTENSION};
use cotab_shared::native::{
    check_input_events, CdpCall, Command, CommandClass, Event, ExtensionToHost, HostToExtension,
    OpenedHold, Outcome, Scanned, SharedTabs, TabControl, TabInfo, SETTLE_EXPRESSION,
};
use cotab_shared::{ErrorKind, LaneId, TabId, WireError, NATIVE_PROTOCOL_VERSION};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::UnixStream;
use tokio::sync::{mpsc, Notify, Semaphore};
use tokio_util::codec::Framed;
use tokio_util::sync::CancellationToken;

mod answers;

use answers::{aim_answer, cdp_answer, input_answer, layout_read, viewport_check};

/// Deadline for anything a test waits for.
pub(crate) const WAIT: Duration = Duration::from_secs(10);

/// How long a request waits for the person's yes in these daemons.
pub(crate) const APPROVAL_WAIT: Duration = Duration::from_secs(3);

/// The params of the next notification named `method` (others are
/// skipped), within [`WAIT`].
pub(crate) async fn notification(c: &mut Client, method: &str) -> Value {
    loop {
        let msg = tokio::time::timeout(WAIT, c.next_message())
            .await
            .expect("in time")
            .expect("message");
        if msg["method"] == method {
            return msg["params"].clone();
        }
    }
}

/// Retries `f` until it succeeds or [`WAIT`] passes.
pub(crate) async fn eventually<T, E: std::fmt::Debug, F, Fut>(mut f: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, E>>,
{
    let give_up = tokio::time::Instant::now() + WAIT;
    loop {
        match f().await {
            Ok(v) => return v,
            Err(e) if tokio::time::Instant::now() > give_up => panic!("gave up waiting: {e:?}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
}

/// The `cotab-host daemon` binary in the foreground, on runtime
/// directory `rt`, logging and keeping its state in `state`, with host
/// config `config` (for what the in-process [`Daemon`] cannot have: its
/// own environment, a kill); killed on drop.
pub(crate) fn daemon_binary(rt: &Path, state: &Path, config: &Path) -> tokio::process::Child {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_cotab-host"))
        .args(["daemon", "--foreground"])
        .env("COTAB_RUNTIME_DIR", rt)
        .env("COTAB_LOG_DIR", state)
        .env("COTAB_CONFIG", config)
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn daemon")
}

/// An in-process daemon; stopped on drop.
pub(crate) struct Daemon {
    pub(crate) dir: tempfile::TempDir,
    token: CancellationToken,
}

impl Daemon {
    pub(crate) async fn start() -> Daemon {
        Daemon::start_with_deadline(Duration::from_secs(10)).await
    }

    pub(crate) async fn start_with_deadline(default_deadline: Duration) -> Daemon {
        Daemon::start_with(default_deadline, Duration::from_secs(10)).await
    }

    pub(crate) async fn start_with(default_deadline: Duration, resume_grace: Duration) -> Daemon {
        Daemon::start_config(default_deadline, resume_grace, AgentConfig::default()).await
    }

    /// A daemon whose agent connections use `agent` (short idle deadlines,
    /// small outgoing queues).
    pub(crate) async fn start_with_agent(agent: AgentConfig) -> Daemon {
        Daemon::start_config(Duration::from_secs(10), Duration::from_secs(10), agent).await
    }

    /// A daemon that keeps at most `max_agents` agent connections.
    pub(crate) async fn start_max_agents(max_agents: usize) -> Daemon {
        let ten = Duration::from_secs(10);
        Daemon::start_full(ten, ten, AgentConfig::default(), max_agents).await
    }

    async fn start_config(
        default_deadline: Duration,
        resume_grace: Duration,
        agent: AgentConfig,
    ) -> Daemon {
        Daemon::start_full(default_deadline, resume_grace, agent, MAX_AGENT_CONNECTIONS).await
    }

    async fn start_full(
        default_deadline: Duration,
        resume_grace: Duration,
        agent: AgentConfig,
        max_agents: usize,
    ) -> Daemon {
        let dir = tempfile::tempdir().expect("tempdir");
        let runtime_dir = dir.path().join("rt");
        let token = CancellationToken::new();
        let config = DaemonConfig {
            runtime_dir: runtime_dir.clone(),
            idle_exit: Duration::from_secs(600),
            default_deadline,
            resume_grace,
            approval_wait: APPROVAL_WAIT,
            agent,
            max_agents,
            state_dir: Some(dir.path().join("state")),
        };
        tokio::spawn(daemon::run(config, token.clone()));
        let d = Daemon { dir, token };
        let sock = d.agent_sock();
        eventually(|| UnixStream::connect(sock.clone())).await;
        d
    }

    pub(crate) fn runtime_dir(&self) -> PathBuf {
        self.dir.path().join("rt")
    }

    pub(crate) fn agent_sock(&self) -> PathBuf {
        self.runtime_dir().join(AGENT_SOCKET)
    }

    pub(crate) fn host_sock(&self) -> PathBuf {
        self.runtime_dir().join(HOST_SOCKET)
    }

    /// A connected client without a session.
    pub(crate) async fn client(&self) -> Client {
        Client::connect(self.agent_sock()).await.expect("connect")
    }

    /// A connected client with a session.
    pub(crate) async fn agent(&self) -> Client {
        let mut c = self.client().await;
        c.hello("test-agent").await.expect("hello");
        c
    }

    /// A browser connection sharing tab 7 alone, and an agent that
    /// selected it and holds its lease.
    pub(crate) async fn controlling_tab_7(&self) -> (FakeExt, Client) {
        let ext = FakeExt::connect(
            &self.host_sock(),
            Script {
                tabs: vec![tab(7)],
                ..Script::default()
            },
        )
        .await;
        let mut agent = self.agent().await;
        agent
            .call::<cotab_shared::controller::TabsSelect>(&cotab_shared::controller::SelectParams {
                tab_id: TabId(7),
            })
            .await
            .expect("select");
        agent
            .call::<cotab_shared::controller::Acquire>(&cotab_shared::controller::Empty {})
            .await
            .expect("acquire");
        (ext, agent)
    }

    /// A client with a session, once the daemon has room for one (a
    /// connection closed just now gives its place back a moment later).
    pub(crate) async fn agent_eventually(&self) -> Client {
        let sock = self.agent_sock();
        eventually(|| {
            let sock = sock.clone();
            async move {
                let mut c = Client::connect(sock).await?;
                c.hello("test-agent").await?;
                Ok::<_, cotab_host::client::ClientError>(c)
            }
        })
        .await
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.token.cancel();
    }
}

/// What a [`Responder`] answers to one CDP command: a result (with events
/// sent after it) or an error.
pub(crate) enum Reply {
    /// A result, then these events.
    Ok(Value, Vec<Event>),
    /// These events, then a result (as the browser reports state it
    /// replays while handling a command).
    EventsFirst(Vec<Event>, Value),
    /// An error of this kind.
    Err(ErrorKind, &'static str),
}

impl Reply {
    pub(crate) fn ok(v: Value) -> Option<Reply> {
        Some(Reply::Ok(v, Vec::new()))
    }

    pub(crate) fn failed(message: &'static str) -> Option<Reply> {
        Some(Reply::Err(ErrorKind::CommandFailed, message))
    }
}

/// Answers CDP commands the script scripts: `(tab, method, params)` →
/// `Some(reply)`, or `None` for the default answer.
pub(crate) type Responder = Arc<dyn Fn(TabId, &str, &Value) -> Option<Reply> + Send + Sync>;

/// How the fake extension behaves.
#[derive(Clone, Default)]
pub(crate) struct Script {
    /// Scripted CDP answers, asked first.
    pub(crate) responder: Option<Responder>,
    /// Tabs it reports as shared.
    pub(crate) tabs: Vec<TabInfo>,
    /// CDP methods it records but never answers.
    pub(crate) silent: HashSet<String>,
    /// When set, the load event after `Page.navigate` waits for this.
    pub(crate) hold_load: Option<Arc<Notify>>,
    /// CDP methods whose answer waits for their gate (other commands are
    /// answered meanwhile).
    pub(crate) gates: HashMap<String, Arc<Notify>>,
    /// CDP methods whose every answer waits for a permit of its semaphore
    /// (the permit is used up): `add_permits(n)` releases `n` answers,
    /// whether or not they arrived yet.
    pub(crate) held: HashMap<String, Arc<Semaphore>>,
    /// Ignores a command's follow-up and answers the command alone, as an
    /// extension that does not know follow-ups would.
    pub(crate) no_follow_ups: bool,
}

impl Script {
    /// One shared tab, `id`, with CDP answers scripted by `responder`.
    pub(crate) fn one_tab(id: i32, responder: Responder) -> Script {
        Script {
            tabs: vec![tab(id)],
            responder: Some(responder),
            ..Script::default()
        }
    }
}

pub(crate) fn tab(id: i32) -> TabInfo {
    TabInfo {
        id: TabId(id),
        url: format!("http://example.test/{id}"),
        title: format!("Tab {id}"),
        human_control: false,
        blocked: None,
        opener: None,
        target_id: None,
    }
}

/// A 100×50 PNG header (enough for the size reader).
pub(crate) fn png_100x50() -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    b.extend_from_slice(&100u32.to_be_bytes());
    b.extend_from_slice(&50u32.to_be_bytes());
    b.extend_from_slice(&[8, 2, 0, 0, 0]);
    b
}

/// A fake extension connected to the daemon; disconnects on drop.
pub(crate) struct FakeExt {
    /// Every command it received, in order.
    pub(crate) received: mpsc::UnboundedReceiver<Command>,
    /// Every `controllers` message it received, in order.
    pub(crate) controllers: mpsc::UnboundedReceiver<Vec<TabControl>>,
    /// Every `holdOpened` message it received, in order.
    pub(crate) opened: mpsc::UnboundedReceiver<Vec<OpenedHold>>,
    events: mpsc::UnboundedSender<ExtensionToHost>,
    raw: mpsc::UnboundedSender<Vec<u8>>,
    /// The shared tabs as `listShared` answers them: the script's, then
    /// the last `shared` event's, as a real extension's list follows it.
    shared: Arc<std::sync::Mutex<Vec<TabInfo>>>,
    task: tokio::task::JoinHandle<()>,
    writer: tokio::task::JoinHandle<()>,
}

impl FakeExt {
    /// Connects, says hello, checks the welcome, then serves `script`.
    pub(crate) async fn connect(host_sock: &Path, script: Script) -> FakeExt {
        FakeExt::connect_as(host_sock, script, "lane-test", "0.0.1").await
    }

    /// [`FakeExt::connect`] as the browser profile `lane` running
    /// extension version `version`.
    pub(crate) async fn connect_as(
        host_sock: &Path,
        script: Script,
        lane: &str,
        version: &str,
    ) -> FakeExt {
        let stream = UnixStream::connect(host_sock)
            .await
            .expect("connect host.sock");
        let mut framed = Framed::new(
            stream,
            NativeCodec::new(MAX_HOST_TO_EXTENSION, MAX_EXTENSION_TO_HOST),
        );
        let hello = ExtensionToHost::Hello {
            protocol_version: NATIVE_PROTOCOL_VERSION,
            lane_id: LaneId(lane.into()),
            extension_id: cotab_shared::EXTENSION_ID.into(),
            version: version.into(),
        };
        framed
            .send(serde_json::to_vec(&hello).expect("json"))
            .await
            .expect("send hello");
        let welcome = tokio::time::timeout(WAIT, framed.next())
            .await
            .expect("welcome in time")
            .expect("a frame")
            .expect("valid frame");
        assert_eq!(
            serde_json::from_slice::<HostToExtension>(&welcome).expect("json"),
            HostToExtension::Welcome {
                protocol_version: NATIVE_PROTOCOL_VERSION
            }
        );
        let (tx, received) = mpsc::unbounded_channel();
        let (ctx, controllers) = mpsc::unbounded_channel();
        let (otx, opened) = mpsc::unbounded_channel();
        let (events, events_rx) = mpsc::unbounded_channel();
        let (raw, mut raw_rx) = mpsc::unbounded_channel::<Vec<u8>>();
        let (mut sink, frames) = framed.split();
        let mut out_rx = events_rx;
        let writer = tokio::spawn(async move {
            loop {
                let payload = tokio::select! {
                    Some(msg) = out_rx.recv() => serde_json::to_vec(&msg).expect("json"),
                    Some(bytes) = raw_rx.recv() => bytes,
                    else => break,
                };
                if sink.send(payload).await.is_err() {
                    break;
                }
            }
        });
        let shared = Arc::new(std::sync::Mutex::new(script.tabs.clone()));
        let task = tokio::spawn(serve(
            frames,
            script,
            shared.clone(),
            tx,
            (ctx, otx),
            events.clone(),
        ));
        FakeExt {
            received,
            controllers,
            opened,
            events,
            raw,
            shared,
            task,
            writer,
        }
    }

    /// Sends `payload` as one native-messaging frame, whatever it holds
    /// (for tests of bad input from the browser side).
    pub(crate) fn send_raw(&self, payload: Vec<u8>) {
        self.raw.send(payload).expect("fake still running");
    }

    /// Sends an event to the daemon, as the extension would.
    pub(crate) fn event(&self, event: Event) {
        if let Event::Shared(list) = &event {
            *self.shared.lock().unwrap_or_else(|e| e.into_inner()) = list.tabs.clone();
        }
        self.events
            .send(ExtensionToHost::Event { event })
            .expect("fake still running");
    }

    /// Waits for a CDP command of `method` (any class) and returns its
    /// params and class.
    pub(crate) async fn next_cdp_class(&mut self, method: &str) -> (Value, CommandClass) {
        loop {
            let command = self.next_command().await;
            if let (Some(call), Some(class)) = (command.call(), command.class()) {
                if call.method == method {
                    return (call.params.clone(), class);
                }
            }
        }
    }

    /// Waits for a `controllers` message satisfying `f`.
    pub(crate) async fn controllers_until(&mut self, f: impl Fn(&[TabControl]) -> bool) {
        loop {
            let c = tokio::time::timeout(WAIT, self.controllers.recv())
                .await
                .expect("controllers in time")
                .expect("fake still running");
            if f(&c) {
                return;
            }
        }
    }

    /// Waits for a `holdOpened` message satisfying `f`.
    pub(crate) async fn opened_until(&mut self, f: impl Fn(&[OpenedHold]) -> bool) {
        loop {
            let o = tokio::time::timeout(WAIT, self.opened.recv())
                .await
                .expect("holdOpened in time")
                .expect("fake still running");
            if f(&o) {
                return;
            }
        }
    }

    /// Waits for the next command it received.
    pub(crate) async fn next_command(&mut self) -> Command {
        tokio::time::timeout(WAIT, self.received.recv())
            .await
            .expect("a command in time")
            .expect("fake still running")
    }

    /// Waits for the next CDP command other than `Runtime.evaluate`.
    pub(crate) async fn next_cdp(&mut self, method: &str) -> Value {
        loop {
            if let Some(call) = self.next_command().await.call() {
                if call.method == method {
                    return call.params.clone();
                }
            }
        }
    }

    /// Waits until the daemon closes the connection (the fake then stops
    /// serving).
    pub(crate) async fn closed_by_the_daemon(&mut self) {
        tokio::time::timeout(WAIT, &mut self.task)
            .await
            .expect("the daemon closed the connection in time")
            .expect("the fake ended cleanly");
    }

    /// Drops the connection.
    pub(crate) fn disconnect(self) {
        drop(self);
    }
}

impl Drop for FakeExt {
    fn drop(&mut self) {
        self.task.abort();
        self.writer.abort();
    }
}

async fn serve(
    mut frames: futures_util::stream::SplitStream<Framed<UnixStream, NativeCodec>>,
    script: Script,
    shared: Arc<std::sync::Mutex<Vec<TabInfo>>>,
    tx: mpsc::UnboundedSender<Command>,
    (controllers, opened): (
        mpsc::UnboundedSender<Vec<TabControl>>,
        mpsc::UnboundedSender<Vec<OpenedHold>>,
    ),
    out: mpsc::UnboundedSender<ExtensionToHost>,
) {
    while let Some(Ok(frame)) = frames.next().await {
        let (id, command) = match serde_json::from_slice(&frame).expect("a daemon message") {
            HostToExtension::Request { id, command } => (id, command),
            HostToExtension::Controllers { tabs, .. } => {
                // The test may have stopped listening.
                let _ = controllers.send(tabs);
                continue;
            }
            HostToExtension::HoldOpened { tabs } => {
                let _ = opened.send(tabs);
                continue;
            }
            HostToExtension::Welcome { .. } => panic!("a second welcome"),
            // What the host config allows: nothing the fake checks.
            HostToExtension::Policy { .. } => continue,
            // The fake stays on native messaging: it never opens the
            // offered WebSocket, so it never hears of a switch.
            HostToExtension::SocketOffer { .. } => continue,
            // Which agents are connected: for the popup only.
            HostToExtension::Agents { .. } => continue,
            HostToExtension::SocketSwitched { .. } => panic!("a switch never asked for"),
        };
        // The test may have stopped listening; recording is best effort.
        if let Command::ActInFrame {
            call: CdpCall { tab_id, .. },
            ..
        }
        | Command::Input {
            tab_id,
            frame: Some(_),
            ..
        } = &command
        {
            // The extension's viewport check comes first, a command of its
            // own to the tests that watch what the extension is asked.
            let _ = tx.send(layout_read(*tab_id));
        }
        let _ = tx.send(command.clone());
        let mut before = Vec::new();
        let (result, after): (Result<Value, WireError>, Vec<Event>) = match &command {
            Command::ListShared => (
                Ok(json!(SharedTabs {
                    tabs: shared.lock().unwrap_or_else(|e| e.into_inner()).clone()
                })),
                Vec::new(),
            ),
            Command::CreateTab { url } => {
                let info = TabInfo {
                    id: TabId(100),
                    url: url.clone().unwrap_or_else(|| "about:blank".into()),
                    title: String::new(),
                    human_control: false,
                    blocked: None,
                    opener: None,
                    target_id: None,
                };
                (Ok(json!(info)), Vec::new())
            }
            Command::CloseTab { tab_id } => (
                Ok(json!({})),
                vec![Event::TabClosed {
                    tab_id: *tab_id,
                    with_window: false,
                }],
            ),
            Command::ForwardEvents { .. } => (Ok(json!({})), Vec::new()),
            Command::Aim(aim) => {
                let Some(answer) = aim_answer(&script, &tx, &mut before, aim) else {
                    continue;
                };
                (answer, Vec::new())
            }
            Command::Input {
                tab_id,
                events,
                frame,
            } => {
                // As the extension runs it: the events checked, then the
                // viewport, then the plan, then the trip through the page.
                if let Err(e) = check_input_events(events) {
                    (Err(e), Vec::new())
                } else {
                    let Some(checked) =
                        viewport_check(&script, &mut before, *tab_id, frame.as_ref())
                    else {
                        continue;
                    };
                    let Some(answer) = checked.map_or_else(
                        |e| Some((Err(e), Vec::new())),
                        |()| input_answer(&script, &tx, &mut before, *tab_id, events, frame),
                    ) else {
                        continue;
                    };
                    match answer {
                        (Ok(v), mut events) => {
                            // The trip is a command of its own to the
                            // tests that watch what the extension is asked.
                            let probe = json!({"expression": SETTLE_EXPRESSION,
                                               "returnByValue": true});
                            let _ = tx.send(Command::Observe(CdpCall::new(
                                *tab_id,
                                "Runtime.evaluate",
                                probe.clone(),
                            )));
                            let Some((r, more)) = cdp_answer(
                                &script,
                                &mut before,
                                *tab_id,
                                "Runtime.evaluate",
                                &probe,
                                CommandClass::Observe,
                            ) else {
                                continue;
                            };
                            events.extend(more);
                            match r {
                                Err(e) if e.kind == ErrorKind::TabNotShared => (Err(e), events),
                                _ => (Ok(v), events),
                            }
                        }
                        answer => answer,
                    }
                }
            }
            Command::Observe(call)
            | Command::Act(call)
            | Command::ActInFrame { call, .. }
            | Command::Release(call)
            | Command::Developer { call, .. } => {
                let CdpCall {
                    tab_id,
                    method,
                    params,
                } = call;
                let class = command.class().expect("a CDP operation has a class");
                let frame = match &command {
                    Command::ActInFrame { frame, .. } => Some(frame),
                    _ => None,
                };
                let Some(checked) = viewport_check(&script, &mut before, *tab_id, frame) else {
                    continue;
                };
                let answer = match checked {
                    Ok(()) => cdp_answer(&script, &mut before, *tab_id, method, params, class),
                    Err(e) => Some((Err(e), Vec::new())),
                };
                let Some((result, events)) = answer else {
                    continue;
                };
                let scan = match &command {
                    Command::Developer {
                        scan: Some(scan), ..
                    } if !script.no_follow_ups => Some(scan),
                    _ => None,
                };
                match (result, scan) {
                    (Ok(first), Some(scan)) => {
                        // The scan is a command of its own to the tests
                        // that watch what the extension is asked.
                        let probe = json!({"expression": scan, "returnByValue": true});
                        let _ = tx.send(Command::Observe(CdpCall::new(
                            *tab_id,
                            "Runtime.evaluate",
                            probe.clone(),
                        )));
                        let second = cdp_answer(
                            &script,
                            &mut before,
                            *tab_id,
                            "Runtime.evaluate",
                            &probe,
                            CommandClass::Observe,
                        );
                        let scan = match second {
                            Some((Ok(v), _)) => Outcome::Result(v),
                            Some((Err(e), _)) => Outcome::Error(e),
                            None => continue,
                        };
                        (
                            Ok(json!(Scanned {
                                result: first,
                                scan
                            })),
                            events,
                        )
                    }
                    (result, _) => (result, events),
                }
            }
        };
        let response = ExtensionToHost::Response {
            id,
            outcome: match result {
                Ok(v) => Outcome::Result(v),
                Err(e) => Outcome::Error(e),
            },
        };
        let method = match &command {
            Command::Input { events, .. } => events.first().map(|e| &e.method),
            command => command.call().map(|c| &c.method),
        };
        let (gate, held) = match method {
            Some(method) => (
                script.gates.get(method).cloned(),
                script.held.get(method).cloned(),
            ),
            _ => (None, None),
        };
        let hold_load = script.hold_load.clone();
        let out = out.clone();
        let answer = async move {
            if let Some(gate) = gate {
                gate.notified().await;
            }
            if let Some(held) = held {
                // Closed only if the test drops it, which ends the answer.
                let Ok(permit) = held.acquire().await else {
                    return;
                };
                permit.forget();
            }
            for event in before {
                let _ = out.send(ExtensionToHost::Event { event });
            }
            // The writer outlives every answer unless the fake is dropped.
            let _ = out.send(response);
            for event in after {
                if let Some(gate) = &hold_load {
                    gate.notified().await;
                }
                let _ = out.send(ExtensionToHost::Event { event });
            }
        };
        if script.gates.is_empty() && script.held.is_empty() && script.hold_load.is_none() {
            answer.await;
        } else {
            tokio::spawn(answer);
        }
    }
}
