//! The controller methods: one handler per [`Call`] variant, dispatched
//! from [`dispatch`], over the daemon's shared state ([`Shell`]).
//!
//! Handlers see typed params and return typed results; they never touch
//! sockets or JSON-RPC framing (that is [`crate::agent`]). What they ask of
//! the browser goes through [`crate::lane::Lane::call`], so every deadline
//! and lane rule applies to them alike. Every rule about sessions,
//! control, frames, held input and developer mode is decided by the
//! sans-IO [`crate::broker::Core`]: a handler takes a
//! [`crate::broker::Fence`] when it starts, re-checks it after every
//! awaited step, and performs the [`crate::broker::Effect`]s the core
//! returns ([`Shell::with_core`]).
//!
//! Every CDP command goes through `Cx::step`, which refuses it at once
//! while a JavaScript dialog is open on its tab and fails it
//! `DIALOG_OPEN` the moment one opens while it is pending (a page blocked
//! by a dialog answers nothing else). An acting method a dialog cut short
//! once it had begun succeeds and names the dialog (`Cx::acted`).
//!
//! Before any of that, a request a shared tab asks the person's yes for
//! waits for it (`approve`).
//!
//! Submodules: `cx` (the context of one request: its fence, its CDP steps
//! and the guards of its presses), one per family of methods — `session`
//! (hello, resume, bye, status, tabs.list/select, acquire/release),
//! `navigate`, `capture`, `input` (clicks, typing, keys, held input by
//! coordinates), `developer` (`page.evaluate`, `cdp.send` and their
//! redaction), `element` (refs → elements → points), `by_ref` (the input
//! methods by ref), `page` (snapshot, waits, console, dialogs), `tabs`
//! (`tabs.create`, `tabs.close`), `emulation` (`page.resize`,
//! `page.emulateMedia`, `page.pdf`), `network` (`page.network`,
//! `page.networkRequest`), `drop` (`input.drop`), `video` (`video.start`,
//! `video.chapter`, `video.stop`).

mod approve;
mod by_ref;
mod capture;
mod chooser;
mod cut;
mod cx;
mod developer;
mod drop;
mod element;
mod emulation;
mod follow;
mod frames;
mod input;
mod navigate;
mod network;
mod page;
mod session;
mod tabs;
mod video;

use self::capture::Rect;
use self::cut::Cut;
use self::cx::{Cx, HeldPress};
use self::input::{aim_of, first_button};
use self::navigate::check_url_param;
use crate::shell::{ConnState, Shell};

use cotab_shared::controller::{Call, DialogInfo, Response, RpcError, RpcOutcome, INVALID_PARAMS};
use cotab_shared::{ErrorKind, RequestId, TabId, WireError, PROTOCOL_VERSION};
use serde::Serialize;
use std::sync::Arc;
use tokio::time::Instant;
use tokio_util::bytes::Bytes;

/// Runs one call for `conn` and returns its response line for `id`
/// (without the newline): the result is serialised straight from its
/// type, once, with no JSON tree in between (a capture's image is a
/// megabyte of text).
pub async fn dispatch(
    shell: &Arc<Shell>,
    conn: &ConnState,
    call: Call,
    id: Option<RequestId>,
) -> Bytes {
    let cut = Cut::default();
    let before = Cx {
        shell,
        conn,
        deadline: Instant::now() + shell.default_deadline,
        cut: &cut,
    };
    let method = call.method();
    // What the person is told of this request ([`crate::activity`]).
    let told = told(&before, &call);
    let began = Instant::now();
    // What a `input.type` typed, for the person's record.
    let mut typed = match (&call, told) {
        (Call::Type(p), Some(_)) => Some(p.text.clone()),
        _ => None,
    };
    // The person's yes, if the tab asks for it; the request's deadline
    // runs from then.
    let approved = approve::gate(&before, &call).await;
    let cx = Cx {
        deadline: Instant::now() + shell.default_deadline,
        ..before
    };
    macro_rules! answer {
        ($outcome:expr) => {{
            let outcome = cx.lane_said($outcome).await;
            cx.show_aimed(&outcome);
            if let Some((seq, sid, tab)) = told {
                let typed = typed.take().map(|t| kept_text(&t, cx.cut.plain_field()));
                shell.activity.end(seq, &outcome, millis(began), typed);
                if let Some(tab) = tab.filter(|_| pictured(method)) {
                    frames::after(shell, sid, seq, tab);
                }
            }
            response_line(id, logged(&cx, method, outcome))
        }};
    }
    // An acting method that a dialog it opened cut short ([`Cx::acted`]).
    macro_rules! acted {
        ($outcome:expr) => {{
            answer!(cx.acted($outcome))
        }};
    }
    // An action that may lead to another page, which it then waits for
    // ([`Cx::follow_navigation`]).
    macro_rules! followed {
        ($action:expr) => {{
            let mut events = shell.lane.subscribe_cdp();
            match $action.await {
                Ok(v) => cx.follow_navigation(&mut events).await.map(|()| v),
                Err(e) => Err(e),
            }
        }};
    }
    if !matches!(call, Call::Hello(_) | Call::Resume(_)) {
        if let Err(e) = cx.sid() {
            return response_line::<()>(id, logged(&cx, method, Err(e)));
        }
    }
    if let Err(e) = approved {
        return answer!(Err::<(), RpcError>(e));
    }
    match call {
        Call::Hello(p) => answer!(session::hello(&cx, p)),
        Call::Resume(p) => answer!(session::resume(&cx, p)),
        Call::Bye(_) => answer!(session::bye(&cx)),
        Call::Status(_) => answer!(Ok(session::status(&cx))),
        Call::TabsList(_) => answer!(session::tabs_list(&cx).await),
        Call::TabsSelect(p) => answer!(session::tabs_select(&cx, p).await),
        Call::Navigate(p) => answer!(navigate::navigate(&cx, p).await),
        Call::Capture(p) => answer!(capture::capture(&cx, p).await),
        Call::Click(p) => acted!(followed!(input::click(&cx, p))),
        Call::Type(p) => acted!(followed!(input::type_text(&cx, p))),
        Call::Press(p) => acted!(followed!(input::press(&cx, p))),
        Call::Acquire(_) => answer!(session::acquire(&cx)),
        Call::Release(_) => answer!(session::release(&cx)),
        Call::KeyDown(p) => acted!(input::key_down(&cx, p).await),
        Call::KeyUp(p) => answer!(followed!(input::key_up(&cx, p))),
        Call::MouseDown(p) => acted!(input::mouse_down(&cx, p).await),
        Call::MouseMove(p) => acted!(input::mouse_move(&cx, p).await),
        Call::MouseUp(p) => answer!(followed!(input::mouse_up(&cx, p))),
        Call::GestureBegin(p) => acted!(input::gesture_begin(&cx, p).await),
        Call::GestureUpdate(p) => acted!(input::gesture_update(&cx, p).await),
        Call::GestureEnd(_) => answer!(input::gesture_end(&cx).await),
        Call::Evaluate(p) => answer!(developer::evaluate(&cx, p).await),
        Call::CdpSend(p) => answer!(developer::cdp_send(&cx, p).await),
        Call::CdpEvents(p) => answer!(developer::cdp_events(&cx, p).await),
        Call::Snapshot(p) => answer!(page::snapshot(&cx, p).await),
        Call::Hover(p) => acted!(by_ref::hover(&cx, p).await),
        Call::SelectOption(p) => answer!(followed!(by_ref::select_option(&cx, p))),
        Call::Check(p) => acted!(followed!(by_ref::check(&cx, p))),
        Call::Drag(p) => acted!(by_ref::drag(&cx, p).await),
        Call::Scroll(p) => acted!(by_ref::scroll(&cx, p).await),
        Call::SetFiles(p) => acted!(by_ref::set_files(&cx, p).await),
        Call::Wait(p) => answer!(page::wait(&cx, p).await),
        Call::Console(p) => answer!(page::console(&cx, p)),
        Call::Dialog(p) => answer!(page::dialog(&cx, p).await),
        Call::TabsCreate(p) => answer!(tabs::create(&cx, p).await),
        Call::TabsClose(p) => answer!(tabs::close(&cx, p).await),
        Call::Resize(p) => answer!(emulation::resize(&cx, p).await),
        Call::EmulateMedia(p) => answer!(emulation::emulate_media(&cx, p).await),
        Call::Pdf(p) => answer!(emulation::pdf(&cx, p).await),
        Call::DropOn(p) => acted!(drop::drop_on(&cx, p).await),
        Call::Network(p) => answer!(network::network(&cx, p)),
        Call::NetworkDetail(p) => answer!(network::network_request(&cx, p).await),
        Call::VideoStart(p) => answer!(video::start(&cx, p).await),
        Call::VideoChapter(p) => answer!(video::chapter(&cx, p)),
        Call::VideoStop(_) => answer!(video::stop(&cx).await),
    }
}

/// What the person's record keeps of text an agent typed: as it is
/// (its secret shapes redacted, as results are) into a field known not to
/// take a secret, else one `•` per character.
fn kept_text(text: &str, plain_field: bool) -> String {
    if plain_field {
        crate::redact::redact_str(text, &crate::redact::Known::default())
    } else {
        "•".repeat(text.chars().count())
    }
}

/// Whether the record keeps a picture of the tab after `method`: every
/// request the person is told of but waits and closing a tab.
fn pictured(method: &str) -> bool {
    !matches!(method, "page.wait" | "tabs.close")
}

/// Tells the person's watch that `call` began, if it is a request they
/// are told of; its number in the feed, its session and tab.
fn told(cx: &Cx<'_>, call: &Call) -> Option<(u64, crate::session::SessionId, Option<TabId>)> {
    let sid = cx.sid().ok()?;
    let (agent, tab, what) = cx.core(|c| {
        let tab = c.selection(sid, cx.conn.id).ok().and_then(|(t, _)| t);
        let what = crate::activity::describe(c, sid, tab, call);
        (c.agent_of(sid).map(str::to_owned), tab, what)
    });
    let (agent, what) = (agent?, what?);
    // A video of the tab marks what the agent does there.
    if let Some(tab) = tab {
        cx.shell.videos.mark(tab, &format!("{agent}: {what}"));
    }
    let seq = cx
        .shell
        .activity
        .begin(sid, &agent, tab, call.method(), what);
    // Where it goes, so a refusal for its site offers the person to allow
    // it.
    let url = match call {
        Call::Navigate(p) => p.url.as_deref(),
        Call::TabsCreate(p) => p.url.as_deref(),
        _ => None,
    };
    if let Some(site) = url.and_then(crate::scope::site_of) {
        cx.shell.activity.set_site(seq, site);
    }
    Some((seq, sid, tab))
}

/// Milliseconds since `began`.
fn millis(began: Instant) -> u64 {
    u64::try_from(began.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// `outcome`, after one info line when it failed: the error's kind, the
/// method and the session's selected tab — never its params, its message
/// or anything of the page.
fn logged<T>(cx: &Cx<'_>, method: &str, outcome: Result<T, RpcError>) -> Result<T, RpcError> {
    if let Err(e) = &outcome {
        let tab = cx
            .sid()
            .ok()
            .and_then(|sid| cx.core(|c| c.selection(sid, cx.conn.id).ok()))
            .and_then(|(tab, _)| tab)
            .map(|t| t.0);
        tracing::info!(kind = %e.kind(), method, tab, "request failed");
    }
    outcome
}

/// The response line for `id` and `outcome`, without the newline. A
/// result that cannot be encoded (a bug) is answered `COMMAND_FAILED`.
pub fn response_line<T: Serialize>(id: Option<RequestId>, outcome: Result<T, RpcError>) -> Bytes {
    let encoded = match outcome {
        Ok(result) => serde_json::to_vec(&Response {
            jsonrpc: "2.0".into(),
            id: id.clone(),
            outcome: RpcOutcome::Result(result),
        }),
        Err(e) => serde_json::to_vec(&Response::err(id.clone(), e)),
    };
    let bytes = encoded.unwrap_or_else(|_| {
        let e = RpcError::from(WireError::new(
            ErrorKind::CommandFailed,
            "the result could not be encoded",
        ));
        // An error response of our own types always serialises.
        serde_json::to_vec(&Response::err(id, e)).unwrap_or_default()
    });
    Bytes::from(bytes)
}

pub(super) fn invalid_params(message: impl Into<String>) -> RpcError {
    RpcError::new(INVALID_PARAMS, ErrorKind::InvalidRequest, message)
}

pub(super) fn wire(kind: ErrorKind, message: impl Into<String>) -> RpcError {
    RpcError::from(WireError::new(kind, message))
}

/// `DIALOG_OPEN` for `dialog`, naming the method that answers it.
pub(super) fn dialog_open(dialog: DialogInfo) -> RpcError {
    RpcError::dialog_open(dialog, "answer it with page.dialog")
}

pub(super) fn check_version(v: u32) -> Result<(), RpcError> {
    if v == PROTOCOL_VERSION {
        Ok(())
    } else {
        Err(wire(
            ErrorKind::ProtocolVersion,
            format!("this daemon speaks protocol version {PROTOCOL_VERSION}"),
        ))
    }
}

pub(super) fn check_point(x: f64, y: f64) -> Result<(), RpcError> {
    for (name, v) in [("x", x), ("y", y)] {
        if !v.is_finite() || v < 0.0 {
            return Err(invalid_params(format!(
                "invalid params: `params.{name}` must be a finite number ≥ 0"
            )));
        }
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use cotab_shared::controller::Empty;
    use serde_json::{json, Value};

    fn parsed(line: &Bytes) -> Value {
        serde_json::from_slice(line).expect("a JSON line")
    }

    #[test]
    fn typed_text_is_kept_masked_unless_the_field_takes_no_secret_and_redacted() {
        assert_eq!(kept_text("hunter2", false), "•••••••");
        assert_eq!(kept_text("héllo", false), "•••••");
        assert_eq!(kept_text("ada@example.org", true), "ada@example.org");
        let token = kept_text("key ghp_0123456789abcdefghij0123 ok", true);
        assert!(!token.contains("ghp_0123"), "{token}");
        assert!(
            token.starts_with("key ") && token.ends_with(" ok"),
            "{token}"
        );
    }

    #[test]
    fn a_response_line_is_the_result_serialised_once_under_its_id() {
        let ok = response_line(Some(RequestId::Number(7)), Ok(Empty {}));
        assert_eq!(
            parsed(&ok),
            json!({"jsonrpc": "2.0", "id": 7, "result": {}})
        );
        assert!(!ok.ends_with(b"\n"), "the writer adds the newline");
        let err = response_line::<Empty>(None, Err(wire(ErrorKind::Busy, "later")));
        assert_eq!(
            parsed(&err),
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000,
                   "message": "later", "data": {"kind": "BUSY"}}})
        );
        // A result JSON cannot hold (a map keyed by numbers pairs) is a
        // typed failure, never a broken line.
        let unencodable: std::collections::HashMap<(u8, u8), u8> = [((1, 2), 3)].into();
        let line = response_line(Some(RequestId::Number(8)), Ok(unencodable));
        let v = parsed(&line);
        assert_eq!(v["id"], 8);
        assert_eq!(v["error"]["data"]["kind"], "COMMAND_FAILED");
    }
}
