//! The controller methods: one handler per [`Call`] variant, dispatched
//! from [`dispatch`], over the daemon's shared state ([`Broker`]).
//!
//! Handlers see typed params and return typed results; they never touch
//! sockets or JSON-RPC framing (that is [`crate::agent`]). What they ask of
//! the browser goes through [`crate::lane::Lane::call`], so every deadline
//! and lane rule applies to them alike. Every rule about sessions,
//! control, frames, held input and developer mode is decided by the
//! sans-IO [`crate::broker::Core`]: a handler takes a
//! [`crate::broker::Fence`] when it starts, re-checks it after every
//! awaited step, and performs the [`crate::broker::Effect`]s the core
//! returns ([`Broker::with_core`]).
//!
//! Every CDP command goes through `Cx::cdp`, which refuses it at once
//! while a JavaScript dialog is open on its tab and fails it
//! `DIALOG_OPEN` the moment one opens while it is pending (a page blocked
//! by a dialog answers nothing else).
//!
//! Submodules: `cx` (the context of one request: its fence, its CDP steps
//! and the guards of its presses), one per family of methods — `session`
//! (hello, resume, bye, status, tabs.list/select, acquire/release),
//! `navigate`, `capture`, `input` (clicks, typing, keys, held input by
//! coordinates), `developer` (`page.evaluate`, `cdp.send` and their
//! redaction), `element` (refs → elements → points, and the input methods
//! by ref), `page` (snapshot, waits, console, dialogs), `tabs`
//! (`tabs.create`, `tabs.close`).

mod capture;
mod cx;
mod developer;
mod element;
mod input;
mod navigate;
mod page;
mod session;
mod tabs;

use self::capture::Rect;
use self::cx::{Cx, HeldPress};
use self::input::{aim_of, first_button};
use self::navigate::check_url_param;
use crate::shell::{Broker, ConnState};

use cotab_shared::controller::{Call, DialogKind, RpcError, INVALID_PARAMS};
use cotab_shared::{ErrorKind, WireError, PROTOCOL_VERSION};
use serde::Serialize;
use serde_json::Value;
use tokio::time::Instant;

/// Runs one call for `conn` and returns its result as JSON.
pub async fn dispatch(broker: &Broker, conn: &ConnState, call: Call) -> Result<Value, RpcError> {
    let cx = Cx {
        broker,
        conn,
        deadline: Instant::now() + broker.default_deadline,
    };
    match call {
        Call::Hello(p) => to_json(session::hello(&cx, p)),
        Call::Resume(p) => to_json(session::resume(&cx, p)),
        other => {
            cx.sid()?;
            match other {
                Call::Bye(_) => to_json(session::bye(&cx)),
                Call::Status(_) => to_json(Ok(session::status(&cx))),
                Call::TabsList(_) => to_json(session::tabs_list(&cx).await),
                Call::TabsSelect(p) => to_json(session::tabs_select(&cx, p).await),
                Call::Navigate(p) => to_json(navigate::navigate(&cx, p).await),
                Call::Capture(p) => to_json(capture::capture(&cx, p).await),
                Call::Click(p) => to_json(input::click(&cx, p).await),
                Call::Type(p) => to_json(input::type_text(&cx, p).await),
                Call::Press(p) => to_json(input::press(&cx, p).await),
                Call::Acquire(_) => to_json(session::acquire(&cx)),
                Call::Release(_) => to_json(session::release(&cx)),
                Call::KeyDown(p) => to_json(input::key_down(&cx, p).await),
                Call::KeyUp(p) => to_json(input::key_up(&cx, p).await),
                Call::MouseDown(p) => to_json(input::mouse_down(&cx, p).await),
                Call::MouseMove(p) => to_json(input::mouse_move(&cx, p).await),
                Call::MouseUp(p) => to_json(input::mouse_up(&cx, p).await),
                Call::GestureBegin(p) => to_json(input::gesture_begin(&cx, p).await),
                Call::GestureUpdate(p) => to_json(input::gesture_update(&cx, p).await),
                Call::GestureEnd(_) => to_json(input::gesture_end(&cx).await),
                Call::Evaluate(p) => to_json(developer::evaluate(&cx, p).await),
                Call::CdpSend(p) => to_json(developer::cdp_send(&cx, p).await),
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

pub(super) fn to_json<T: Serialize>(r: Result<T, RpcError>) -> Result<Value, RpcError> {
    let v = r?;
    serde_json::to_value(v).map_err(|_| {
        RpcError::from(WireError::new(
            ErrorKind::CommandFailed,
            "the result could not be encoded",
        ))
    })
}

pub(super) fn invalid_params(message: impl Into<String>) -> RpcError {
    RpcError::new(INVALID_PARAMS, ErrorKind::InvalidRequest, message)
}

pub(super) fn wire(kind: ErrorKind, message: impl Into<String>) -> RpcError {
    RpcError::from(WireError::new(kind, message))
}

pub(super) fn dialog_open(kind: DialogKind) -> RpcError {
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
