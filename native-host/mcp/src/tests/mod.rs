//! The MCP server end to end without a browser: MCP JSON-RPC lines on one
//! side, a fake daemon speaking the controller protocol on a real Unix
//! socket on the other. Each test checks which protocol calls a tool makes
//! and what the model reads back. The fake reads each request as the
//! daemon does (`decode_line`, `Call::parse`: a call the daemon would
//! refuse is refused) and answers with the protocol's own result types.

use super::{serve_on, Caps, Files, SessionMode, SnapshotMode};
use cotab_shared::controller::{
    decode_line, Acted, AgentTab, Call, CaptureResult, Empty, EvaluateResult, FrameGeometry,
    FrameId, HelloResult, ImageFormat, LaneState, ReleaseResult, Response, ResumeResult, RpcError,
    SelectOptionResult, SelectResult, SnapshotResult, StatusResult, TabsListResult, WaitResult,
    SERVER_ERROR,
};
use cotab_shared::{ErrorKind, TabId, Ticket, PROTOCOL_VERSION};
use serde::Serialize;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{split, WriteHalf};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf};
use tokio::net::UnixListener;
use tokio::sync::mpsc;

const DEADLINE: Duration = Duration::from_secs(10);

type Responder = dyn Fn(&Call) -> Result<Value, RpcError> + Send + Sync;

/// A result as the daemon sends it.
fn ok<T: Serialize>(result: T) -> Result<Value, RpcError> {
    Ok(serde_json::to_value(result).expect("a protocol type serialises"))
}

fn refused(kind: ErrorKind, message: &str) -> Result<Value, RpcError> {
    Err(RpcError::new(SERVER_ERROR, kind, message))
}

/// A daemon that answers each method with `respond` and records every
/// call; `push` sends it a notification to forward to the client.
struct FakeDaemon {
    calls: Arc<Mutex<Vec<(String, Value)>>>,
    push: mpsc::UnboundedSender<Value>,
    developer_mode: Arc<AtomicBool>,
    socket: PathBuf,
    _dir: tempfile::TempDir,
}

impl FakeDaemon {
    fn start(respond: Arc<Responder>) -> FakeDaemon {
        let dir = tempfile::tempdir().expect("tempdir");
        let socket = dir.path().join("agent.sock");
        let listener = UnixListener::bind(&socket).expect("bind");
        let calls: Arc<Mutex<Vec<(String, Value)>>> = Arc::default();
        let developer_mode = Arc::new(AtomicBool::new(false));
        let (push, mut pushed) = mpsc::unbounded_channel::<Value>();
        let (recorded, dev) = (calls.clone(), developer_mode.clone());
        tokio::spawn(async move {
            let (stream, _) = listener.accept().await.expect("accept");
            let (r, mut w) = stream.into_split();
            let mut lines = BufReader::new(r).lines();
            loop {
                tokio::select! {
                    line = lines.next_line() => {
                        let Ok(Some(line)) = line else { break };
                        let env = decode_line(&line).expect("the server sends JSON-RPC");
                        let params: Value = env
                            .params
                            .map(|p| serde_json::from_str(p.get()).expect("params are JSON"))
                            .unwrap_or(json!({}));
                        recorded.lock().expect("lock").push((env.method.clone(), params));
                        let outcome = match Call::parse(&env.method, env.params) {
                            Err(e) => Err(e),
                            Ok(Call::Hello(_)) => ok(HelloResult {
                                protocol_version: PROTOCOL_VERSION,
                                ticket: Ticket("t".into()),
                                daemon_version: "0.1.0".into(),
                                methods: Vec::new(),
                            }),
                            Ok(Call::Status(_)) => ok(StatusResult {
                                protocol_version: PROTOCOL_VERSION,
                                daemon_version: "0.1.0".into(),
                                pid: 1,
                                lane: LaneState::Online,
                                extension_version: Some("0.1.0".into()),
                                lane_transport: None,
                                shared_tabs: 1,
                                agents: 1,
                                developer_mode: dev.load(Ordering::SeqCst),
                                uptime_secs: 1,
                                sites: Vec::new(),
                                sites_refused: Vec::new(),
                            }),
                            Ok(Call::Bye(_)) => ok(Empty {}),
                            Ok(Call::Resume(p)) if p.ticket.0 == "t" => ok(ResumeResult {
                                protocol_version: PROTOCOL_VERSION,
                                selected_tab: Some(TabId(8)),
                                selection_revision: 2,
                            }),
                            Ok(Call::Resume(_)) => {
                                refused(ErrorKind::AuthenticationFailed, "unknown ticket")
                            }
                            Ok(call) => respond(&call),
                        };
                        let resp = match outcome {
                            Ok(result) => Response::ok(env.id.clone(), result),
                            Err(e) => Response::err(env.id.clone(), e),
                        };
                        let resp = serde_json::to_value(resp).expect("a response serialises");
                        let mut bytes = resp.to_string().into_bytes();
                        bytes.push(b'\n');
                        if w.write_all(&bytes).await.is_err() { break; }
                    }
                    Some(n) = pushed.recv() => {
                        let mut bytes = n.to_string().into_bytes();
                        bytes.push(b'\n');
                        if w.write_all(&bytes).await.is_err() { break; }
                    }
                }
            }
        });
        FakeDaemon {
            calls,
            push,
            developer_mode,
            socket,
            _dir: dir,
        }
    }

    /// The calls so far, `session.hello` and `host.status` left out.
    fn calls(&self) -> Vec<(String, Value)> {
        self.calls
            .lock()
            .expect("lock")
            .iter()
            .filter(|(m, _)| m != "session.hello" && m != "host.status")
            .cloned()
            .collect()
    }

    fn methods(&self) -> Vec<String> {
        self.calls().into_iter().map(|(m, _)| m).collect()
    }

    /// The `input.*` calls so far: what reached the page.
    fn input_calls(&self) -> Vec<(String, Value)> {
        self.calls()
            .into_iter()
            .filter(|(m, _)| m.starts_with("input."))
            .collect()
    }

    fn clear(&self) {
        self.calls.lock().expect("lock").clear();
    }
}

/// A shared tab 7 whose snapshot has a button `e2`; `e9` is stale.
fn one_tab() -> Arc<Responder> {
    let tab = |id: i32, url: &str, title: &str| AgentTab {
        id: TabId(id),
        url: url.into(),
        title: title.into(),
        selected: false,
        blocked: None,
        target_id: None,
    };
    Arc::new(move |call| match call {
        Call::TabsList(_) => ok(TabsListResult {
            tabs: vec![
                tab(7, "http://127.0.0.1/", "Fixture"),
                tab(8, "http://127.0.0.1/second", "Second"),
            ],
        }),
        Call::TabsSelect(p) => ok(SelectResult {
            tab_id: p.tab_id,
            selection_revision: 1,
        }),
        Call::Acquire(_) => ok(SelectResult {
            tab_id: TabId(7),
            selection_revision: 1,
        }),
        Call::Snapshot(_) => ok(SnapshotResult {
            url: "http://127.0.0.1/".into(),
            title: "Fixture".into(),
            text: "- button \"Click me\" [ref=e2]\n- textbox [ref=e3]\n".into(),
            refs: 2,
            truncated: false,
            file_chooser: None,
            changes: None,
            whole_because: None,
        }),
        Call::Click(p) if p.element.as_ref().is_some_and(|r| r.0 == "e9") => refused(
            ErrorKind::StaleRef,
            "ref e9 is not from the latest snapshot: take a new one",
        ),
        Call::Click(_) | Call::Type(_) | Call::Press(_) | Call::Check(_) => ok(Empty {}),
        Call::SelectOption(p) => ok(SelectOptionResult {
            selected: p.values.clone(),
        }),
        Call::MouseMove(_) | Call::MouseDown(_) | Call::Scroll(_) => ok(Acted::default()),
        Call::TabsClose(_) => ok(Empty {}),
        Call::MouseUp(_) => ok(ReleaseResult {
            already_released: false,
        }),
        Call::Capture(_) => ok(CaptureResult {
            format: ImageFormat::Png,
            data: Some("iVBORw0KGgo=".into()),
            unchanged: false,
            width: 10,
            height: 8,
            device_pixel_ratio: 1.0,
            frame_id: FrameId("f1".into()),
            geometry: FrameGeometry {
                viewport_width: 10.0,
                viewport_height: 8.0,
                scroll_x: 0.0,
                scroll_y: 0.0,
            },
        }),
        Call::Evaluate(_) => ok(EvaluateResult {
            value: json!({"answer": 42}),
            exception: None,
        }),
        Call::Wait(_) => ok(WaitResult { waited_ms: 5 }),
        _ => Err(RpcError::new(
            -32601,
            ErrorKind::InvalidRequest,
            "method not found",
        )),
    })
}

/// The MCP client side: JSON-RPC lines over an in-memory pipe.
struct Mcp {
    writer: WriteHalf<DuplexStream>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    notifications: Vec<String>,
    next_id: i64,
    server: tokio::task::JoinHandle<Result<(), super::McpServeError>>,
    /// The workspace root files are written to.
    workspace: tempfile::TempDir,
}

impl Mcp {
    async fn start(daemon: &FakeDaemon) -> Mcp {
        Mcp::start_with(daemon, SessionMode::Fresh).await
    }

    async fn start_with(daemon: &FakeDaemon, session: SessionMode) -> Mcp {
        Mcp::start_serving(daemon, session, Caps::default()).await
    }

    async fn start_serving(daemon: &FakeDaemon, session: SessionMode, caps: Caps) -> Mcp {
        Mcp::start_in(daemon, session, caps, SnapshotMode::default()).await
    }

    async fn start_in(
        daemon: &FakeDaemon,
        session: SessionMode,
        caps: Caps,
        mode: SnapshotMode,
    ) -> Mcp {
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let socket = daemon.socket.clone();
        let workspace = tempfile::tempdir().expect("tempdir");
        let files = Files::new(workspace.path().to_path_buf(), None);
        let server = tokio::spawn(async move {
            serve_on(&socket, session, caps, files, mode, split(theirs)).await
        });
        let (r, writer) = split(ours);
        let mut mcp = Mcp {
            writer,
            lines: BufReader::new(r).lines(),
            notifications: Vec::new(),
            next_id: 1,
            server,
            workspace,
        };
        let init = mcp
            .request(
                "initialize",
                json!({"protocolVersion":"2025-06-18","capabilities":{},
                       "clientInfo":{"name":"test","version":"0"}}),
            )
            .await;
        assert_eq!(init["serverInfo"]["name"], "cotab", "{init}");
        assert_eq!(init["capabilities"]["tools"]["listChanged"], true, "{init}");
        assert!(init["instructions"]
            .as_str()
            .is_some_and(|i| i.contains("browser_snapshot")));
        mcp.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
            .await;
        mcp
    }

    async fn send(&mut self, msg: Value) {
        let mut bytes = msg.to_string().into_bytes();
        bytes.push(b'\n');
        self.writer.write_all(&bytes).await.expect("write");
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(DEADLINE, self.lines.next_line())
            .await
            .expect("the server answers in time")
            .expect("read")
            .expect("the server is still there");
        serde_json::from_str(&line).expect("the server writes JSON lines")
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}))
            .await;
        loop {
            let msg = self.next().await;
            if msg["id"] == id {
                assert!(msg.get("error").is_none(), "{method}: {msg}");
                return msg["result"].clone();
            }
            if let Some(m) = msg["method"].as_str() {
                self.notifications.push(m.to_string());
            }
        }
    }

    async fn tool_names(&mut self) -> Vec<String> {
        let list = self.request("tools/list", json!({})).await;
        list["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    /// Calls a tool; returns its text and whether it is an error.
    async fn call(&mut self, name: &str, args: Value) -> (String, bool, Value) {
        let r = self
            .request("tools/call", json!({"name":name,"arguments":args}))
            .await;
        let text = r["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        (text, r["isError"] == true, r)
    }

    /// Closes the MCP side and waits for the server to stop.
    async fn close(self) {
        drop(self.writer);
        drop(self.lines);
        let outcome = tokio::time::timeout(DEADLINE, self.server)
            .await
            .expect("the server stops when its client goes")
            .expect("the server task does not panic");
        assert!(outcome.is_ok(), "{outcome:?}");
    }
}

#[tokio::test]
async fn snapshot_then_click_by_ref() {
    let daemon = FakeDaemon::start(one_tab());
    let mut mcp = Mcp::start(&daemon).await;
    let hello = daemon.calls.lock().expect("lock")[0].clone();
    assert_eq!(
        hello,
        (
            "session.hello".to_string(),
            json!({"protocolVersion":1,"agent":"cotab-mcp"})
        )
    );

    let names = mcp.tool_names().await;
    assert!(names.contains(&"browser_click".to_string()), "{names:?}");
    assert!(
        !names.contains(&"browser_evaluate".to_string()),
        "{names:?}"
    );

    // The first call selects the first shared tab and takes control.
    let (text, is_error, _) = mcp.call("browser_snapshot", json!({})).await;
    assert!(!is_error, "{text}");
    assert!(text.contains("- button \"Click me\" [ref=e2]"), "{text}");
    assert!(
        text.starts_with("### Page\n- Page URL: http://127.0.0.1/\n- Page Title: Fixture\n### Snapshot\n```yaml\n"),
        "{text}"
    );
    assert_eq!(
        daemon.calls(),
        vec![
            ("tabs.list".to_string(), json!({})),
            ("tabs.select".to_string(), json!({"tabId":7})),
            ("control.acquire".to_string(), json!({})),
            // All of the page: what the next answer's changes are of.
            ("page.snapshot".to_string(), json!({"maxChars": 400_000})),
        ]
    );
    daemon.clear();

    // An action answers with its result and what changed in the page
    // since the snapshot the model saw: nothing here.
    let (text, is_error, _) = mcp
        .call(
            "browser_click",
            json!({"element":"Click me button","ref":"e2"}),
        )
        .await;
    assert!(!is_error, "{text}");
    assert!(
        text.starts_with("### Result\nClicked Click me button\n"),
        "{text}"
    );
    assert!(
        text.ends_with("### Snapshot changes\nNone since your last snapshot of this page.\n"),
        "{text}"
    );
    assert_eq!(
        daemon.calls(),
        vec![
            ("input.click".to_string(), json!({"ref":"e2"})),
            ("page.snapshot".to_string(), json!({"maxChars": 400_000})),
        ]
    );
    daemon.clear();

    // A broker error is a tool error that starts with its kind.
    let (text, is_error, _) = mcp
        .call("browser_click", json!({"element":"old button","ref":"e9"}))
        .await;
    assert!(is_error);
    assert!(text.starts_with("STALE_REF: "), "{text}");
    assert_eq!(daemon.methods(), vec!["input.click"]);
    daemon.clear();

    mcp.close().await;
    let bye = daemon.calls.lock().expect("lock").last().cloned();
    assert_eq!(bye, Some(("session.bye".to_string(), json!({}))));
}

#[tokio::test]
async fn developer_mode_changes_the_tool_list() {
    let daemon = FakeDaemon::start(one_tab());
    let mut mcp = Mcp::start(&daemon).await;

    let (text, is_error, _) = mcp
        .call("browser_evaluate", json!({"function":"() => 1"}))
        .await;
    assert!(is_error);
    assert!(text.starts_with("DEVELOPER_MODE_OFF: "), "{text}");
    assert!(!daemon.methods().contains(&"page.evaluate".to_string()));

    daemon.developer_mode.store(true, Ordering::SeqCst);
    daemon
        .push
        .send(json!({"jsonrpc":"2.0","method":"developerMode.changed","params":{"enabled":true}}))
        .expect("daemon runs");
    // The client hears of it without asking.
    tokio::time::timeout(DEADLINE, async {
        while !mcp
            .notifications
            .iter()
            .any(|m| m == "notifications/tools/list_changed")
        {
            let msg = mcp.next().await;
            if let Some(m) = msg["method"].as_str() {
                mcp.notifications.push(m.to_string());
            }
        }
    })
    .await
    .expect("tools/list_changed arrives");
    assert!(mcp
        .tool_names()
        .await
        .contains(&"browser_evaluate".to_string()));

    daemon.clear();
    let (text, is_error, _) = mcp
        .call(
            "browser_evaluate",
            json!({"function":"() => ({answer: 42})"}),
        )
        .await;
    assert!(!is_error, "{text}");
    assert!(text.contains("\"answer\": 42"), "{text}");
    let evaluate = daemon
        .calls()
        .into_iter()
        .find(|(m, _)| m == "page.evaluate")
        .expect("page.evaluate sent");
    assert_eq!(
        evaluate.1,
        json!({"expression":"(() => ({answer: 42}))()","awaitPromise":true})
    );
    mcp.close().await;
}

#[tokio::test]
async fn other_tools_map_to_their_methods() {
    let daemon = FakeDaemon::start(one_tab());
    let mut mcp = Mcp::start(&daemon).await;
    mcp.call("browser_snapshot", json!({})).await;
    daemon.clear();

    let (text, is_error, _) = mcp
        .call(
            "browser_type",
            json!({"element":"name field","ref":"e3","text":"Ada","submit":true}),
        )
        .await;
    assert!(!is_error, "{text}");
    assert_eq!(
        daemon.calls()[0],
        (
            "input.type".to_string(),
            json!({"text":"Ada","ref":"e3","clear":true,"submit":true})
        )
    );
    daemon.clear();

    mcp.call("browser_press_key", json!({"key":"Control+a"}))
        .await;
    assert_eq!(
        daemon.calls()[0],
        (
            "input.press".to_string(),
            json!({"key":"a","modifiers":["Control"]})
        )
    );
    daemon.clear();

    for (level, levels) in [
        ("error", json!(["error"])),
        ("warning", json!(["warning", "error"])),
        ("info", json!(["info", "warning", "error"])),
    ] {
        mcp.call("browser_console_messages", json!({"level": level}))
            .await;
        assert_eq!(
            daemon.calls()[0],
            (
                "page.console".to_string(),
                json!({"levels": levels, "currentDocument": true})
            ),
            "{level}"
        );
        daemon.clear();
    }
    // Every level, and with `all` the pages before the last navigation.
    mcp.call(
        "browser_console_messages",
        json!({"level": "debug", "all": true}),
    )
    .await;
    assert_eq!(daemon.calls()[0], ("page.console".to_string(), json!({})));
    daemon.clear();
    // An argument the tool does not take is an error that names it, and
    // nothing reaches the daemon.
    let (text, is_error, _) = mcp
        .call("browser_take_screenshot", json!({"omitBackground": true}))
        .await;
    assert!(is_error && text.contains("`omitBackground`"), "{text}");
    assert!(daemon.calls().is_empty(), "{:?}", daemon.calls());

    let (text, is_error, _) = mcp
        .call(
            "browser_fill_form",
            json!({"fields": [
                {"name": "Name", "type": "textbox", "target": "e3", "value": "Ada"},
                {"name": "Terms", "type": "checkbox", "ref": "e4", "value": "true"},
                {"name": "Country", "type": "combobox", "target": "e5", "value": "Germany"},
            ]}),
        )
        .await;
    assert!(!is_error, "{text}");
    assert!(
        text.contains("Filled 3 field(s)") && text.contains("- checked Terms"),
        "{text}"
    );
    assert_eq!(
        daemon.calls()[..3],
        [
            (
                "input.type".to_string(),
                json!({"text":"Ada","ref":"e3","clear":true})
            ),
            (
                "input.check".to_string(),
                json!({"ref":"e4","checked":true})
            ),
            (
                "input.selectOption".to_string(),
                json!({"ref":"e5","values":["Germany"]})
            ),
        ]
    );
    daemon.clear();
    // A checkbox value that is not `true` or `false` touches nothing.
    let (text, is_error, _) = mcp
        .call(
            "browser_fill_form",
            json!({"fields": [
                {"name": "Name", "type": "textbox", "target": "e3", "value": "Ada"},
                {"name": "Terms", "type": "checkbox", "target": "e4", "value": "yes"},
            ]}),
        )
        .await;
    assert!(
        is_error && text.contains("must be `true` or `false`"),
        "{text}"
    );
    assert!(daemon.calls().is_empty(), "{:?}", daemon.calls());

    mcp.call("browser_wait_for", json!({"text":"Done"})).await;
    assert_eq!(
        daemon.calls()[0],
        (
            "page.wait".to_string(),
            json!({"until":"text","text":"Done"})
        )
    );
    daemon.clear();

    let (text, is_error, _) = mcp
        .call("browser_tabs", json!({"action":"select","index":1}))
        .await;
    assert!(!is_error, "{text}");
    assert_eq!(
        daemon.methods(),
        vec![
            "tabs.list",
            "tabs.select",
            "control.acquire",
            "page.snapshot"
        ]
    );
    assert_eq!(daemon.calls()[1].1, json!({"tabId":8}));
    daemon.clear();

    let (text, _, _) = mcp.call("browser_tabs", json!({"action":"list"})).await;
    assert!(text.contains("- 1: (current) [Second]"), "{text}");

    // Arguments that do not fit the schema are the model's to fix.
    let (text, is_error, _) = mcp.call("browser_click", json!({"element":"x"})).await;
    assert!(is_error);
    assert!(text.starts_with("INVALID_REQUEST: "), "{text}");
    mcp.close().await;
}

#[tokio::test]
async fn no_shared_tab_is_a_tool_error() {
    let daemon = FakeDaemon::start(Arc::new(|call| match call {
        Call::TabsList(_) => ok(TabsListResult { tabs: Vec::new() }),
        _ => Err(RpcError::new(
            SERVER_ERROR,
            ErrorKind::InvalidRequest,
            "unexpected",
        )),
    }));
    let mut mcp = Mcp::start(&daemon).await;
    let (text, is_error, _) = mcp.call("browser_snapshot", json!({})).await;
    assert!(is_error);
    assert!(text.starts_with("TAB_NOT_SHARED: "), "{text}");
    mcp.close().await;
}

#[tokio::test]
async fn a_kept_session_is_resumed_and_left_resumable() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("mcp.ticket");

    // First run: no usable ticket yet (a file anyone may read, left from
    // something else), so a new session whose ticket is stored, readable
    // by its owner only.
    std::fs::write(&file, "").expect("an old file");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let daemon = FakeDaemon::start(one_tab());
    let mcp = Mcp::start_with(&daemon, SessionMode::Kept(file.clone())).await;
    mcp.close().await;
    assert_eq!(std::fs::read_to_string(&file).expect("ticket stored"), "t");
    let mode = std::fs::metadata(&file)
        .expect("metadata")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let methods: Vec<String> = daemon
        .calls
        .lock()
        .expect("lock")
        .iter()
        .map(|(m, _)| m.clone())
        .collect();
    assert!(
        methods.contains(&"session.hello".to_string()),
        "{methods:?}"
    );
    assert!(!methods.contains(&"session.bye".to_string()), "{methods:?}");

    // Next run: resumed, its selected tab is the current one at once.
    let daemon = FakeDaemon::start(one_tab());
    let mut mcp = Mcp::start_with(&daemon, SessionMode::Kept(file.clone())).await;
    let (text, is_error, _) = mcp.call("browser_snapshot", json!({})).await;
    assert!(!is_error, "{text}");
    assert_eq!(daemon.methods(), vec!["session.resume", "page.snapshot"]);
    mcp.close().await;
    assert!(!daemon.methods().contains(&"session.bye".to_string()));
}

mod changes;
mod close;
mod dialogs;
mod drop;
mod emulation;
mod find;
mod network;
mod output;
mod tabs;
mod upload;
mod video;
mod vision;
