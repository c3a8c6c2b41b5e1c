//! The context of one request (`Cx`): its session and deadline, its fence
//! and the checks against it, every CDP step it sends (each raced against
//! the tab's dialogs), and the guards that settle, pair or release the
//! presses it records.

use super::cut::Cut;
use super::{dialog_open, first_button, wire};
use crate::broker::{
    AgentRelease, Core, Fence, Frame, Gone, Need, PressId, PressKind, ReleaseCmd, ReleaseTarget,
};
use crate::lane::CdpEvent;
use crate::session::SessionId;
use crate::shell::{ConnState, Shell};
use cotab_shared::cdp::{
    CdpCommand, Evaluate, GetLayoutMetrics, HandleJavaScriptDialog, LayoutMetrics, MouseEvent,
};
use cotab_shared::controller::{
    Acted, Expect, FrameGeometry, FrameId, LaneState, ReleaseResult, RpcError,
};
use cotab_shared::input::{check_input_events, InputEvent};
use cotab_shared::native::{CdpCall, Command, CommandClass, SharedTabs};
use cotab_shared::{ErrorKind, TabId, WireError};
use serde_json::Value;
use std::future::Future;
use std::sync::{Arc, PoisonError};
use tokio::sync::broadcast;
use tokio::time::Instant;

/// How long a request on a tab closed with its window waits for the
/// lane to go, which tells a browser that quits (it closes its windows,
/// then its extension's port) from a person who closed one window.
const WINDOW_TO_LANE: std::time::Duration = std::time::Duration::from_secs(2);

/// Settles a recorded press when the handler is done with it, or — if the
/// handler is dropped midway (its connection aborted) — as failed, which
/// makes the core release it.
pub(super) struct PressGuard<'a> {
    pub(super) shell: &'a Shell,
    pub(super) id: PressId,
    pub(super) armed: bool,
}

impl PressGuard<'_> {
    /// The press is settled elsewhere ([`crate::broker::Core::raw_input_after`]).
    pub(super) fn disarm(mut self) {
        self.armed = false;
    }

    pub(super) fn settle(mut self, sent: bool) {
        self.armed = false;
        let id = self.id;
        self.shell.with_core(|c| c.press_settled(id, sent));
    }
}

impl Drop for PressGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            let id = self.id;
            self.shell.with_core(|c| c.press_settled(id, false));
        }
    }
}

/// The record of a press that goes to the extension with its release
/// ([`Cx::input_events`]): the extension releases it whatever happens, so
/// the record is dropped with nothing for the daemon to send — when the
/// handler is done, or dropped midway.
pub(super) struct PairedPress<'a> {
    pub(super) shell: &'a Shell,
    pub(super) id: PressId,
}

impl Drop for PairedPress<'_> {
    fn drop(&mut self) {
        let id = self.id;
        self.shell.with_core(|c| c.press_paired(id));
    }
}

/// A press that was sent and is held across several awaited steps (a
/// drag): released by [`HeldPress::release`], or — if the handler is
/// dropped midway — by its drop, in a task of its own.
pub(super) struct HeldPress<'a> {
    pub(super) shell: &'a Shell,
    pub(super) id: PressId,
    pub(super) armed: bool,
}

impl<'a> HeldPress<'a> {
    pub(super) fn new(shell: &'a Shell, id: PressId) -> Self {
        HeldPress {
            shell,
            id,
            armed: true,
        }
    }

    /// Sends the release now (nothing when the core released it already).
    pub(super) async fn release(mut self, cx: &Cx<'_>) -> Result<(), RpcError> {
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
            if let Some(cmd) = self.shell.with_core(|c| c.release_press(id)) {
                // Detached on purpose: the release must happen even though
                // nobody waits for it.
                drop(self.shell.send_release(cmd));
            }
        }
    }
}

/// The context of one request.
pub(super) struct Cx<'a> {
    pub(super) shell: &'a Shell,
    pub(super) conn: &'a ConnState,
    pub(super) deadline: Instant,
    /// Whether a dialog cut the request short.
    pub(super) cut: &'a Cut,
}

impl Cx<'_> {
    pub(super) fn sid(&self) -> Result<SessionId, RpcError> {
        self.conn.bound_session(self.shell).ok_or_else(|| {
            wire(
                ErrorKind::AuthenticationFailed,
                "no session: call session.hello or session.resume first",
            )
        })
    }

    pub(super) fn core<R>(&self, f: impl FnOnce(&mut Core) -> R) -> R {
        self.shell.with_core(f)
    }

    pub(super) fn fence(&self, need: Need) -> Result<Fence, RpcError> {
        let sid = self.sid()?;
        let conn = self.conn.id;
        Ok(self.core(|c| c.fence(sid, conn, need))?)
    }

    /// [`Cx::fence`] for taking the tab to `to` ([`Core::fence_to`]).
    pub(super) fn fence_to(&self, need: Need, to: Option<&str>) -> Result<Fence, RpcError> {
        let sid = self.sid()?;
        let conn = self.conn.id;
        Ok(self.core(|c| c.fence_to(sid, conn, need, to))?)
    }

    pub(super) fn check(&self, fence: &Fence) -> Result<(), RpcError> {
        Ok(self.core(|c| c.check(fence))?)
    }

    /// Makes `sid` this connection's session, letting any previous one go.
    pub(super) fn attach(&self, sid: SessionId) {
        let old = self.conn.session().replace(sid);
        if let Some(old) = old.filter(|o| *o != sid) {
            let conn = self.conn.id;
            self.core(|c| c.unbind(old, conn, std::time::Instant::now()));
        }
    }

    /// `outcome`, unless it says the selected tab is no longer shared
    /// while the browser is going away: then the lane's answer, as every
    /// other method gets it (`RUNTIME_LOST` once the browser did not come
    /// back in its grace), so that an agent is not told its tab was
    /// unshared when the browser quit. A tab closed with its window waits
    /// up to [`WINDOW_TO_LANE`] for the lane to go (a browser that quits
    /// closes its windows first).
    pub(super) async fn lane_said<T>(&self, outcome: Result<T, RpcError>) -> Result<T, RpcError> {
        let Err(e) = &outcome else {
            return outcome;
        };
        if e.kind() != ErrorKind::TabNotShared {
            return outcome;
        }
        let with_window = self.sid().ok().is_some_and(|sid| {
            self.core(|c| {
                let tab = c.selection(sid, self.conn.id).ok().and_then(|(t, _)| t);
                tab.and_then(|t| c.gone(t)) == Some(Gone::ClosedWithWindow)
            })
        });
        let online = self.shell.lane.status().0 == LaneState::Online;
        if online && !with_window {
            return outcome;
        }
        let within = if with_window {
            WINDOW_TO_LANE
        } else {
            std::time::Duration::ZERO
        };
        if self.shell.lane.gone_for_good(within, self.deadline).await {
            return Err(wire(
                ErrorKind::RuntimeLost,
                "the browser went away (it quit, or the extension stopped) and did not come back",
            ));
        }
        outcome
    }

    pub(super) async fn extension(&self, command: Command) -> Result<Value, RpcError> {
        let child = matches!(
            &command,
            Command::Developer {
                session: Some(_),
                ..
            }
        );
        self.shell
            .lane
            .call(command, self.deadline)
            .await
            .map_err(|e| RpcError::from(crate::validate::browser_refusal(e, child)))
    }

    /// `DIALOG_OPEN` if a dialog is open on `tab` (once the request has
    /// begun, that dialog is the one that cut it short); `TAB_NOT_SHARED`
    /// if the tab closed or is no longer shared.
    pub(super) fn unblocked(&self, tab: TabId) -> Result<(), RpcError> {
        let (dialog, gone) = self.core(|c| {
            let gone = (!c.is_shared(tab)).then(|| c.gone_error(tab));
            (c.dialog(tab).cloned(), gone)
        });
        if let Some(gone) = gone {
            return Err(gone.into());
        }
        match dialog {
            None => Ok(()),
            Some(dialog) => {
                if self.cut.tab().is_some() {
                    *self.cut.by.lock().unwrap_or_else(PoisonError::into_inner) =
                        Some(dialog.clone());
                }
                Err(dialog_open(dialog))
            }
        }
    }

    /// Runs `fut` unless a dialog is open on `tab`, or opens before it
    /// finishes: then `DIALOG_OPEN` at once (what `fut` was waiting for is
    /// dropped; a late answer is ignored) — or the tab closes or is
    /// unshared: then `TAB_NOT_SHARED` at once.
    pub(super) async fn unless_dialog<T>(
        &self,
        tab: TabId,
        fut: impl Future<Output = Result<T, RpcError>>,
    ) -> Result<T, RpcError> {
        let mut opened = self.shell.blockers.subscribe();
        self.unblocked(tab)?;
        *self.cut.tab.lock().unwrap_or_else(PoisonError::into_inner) = Some(tab);
        // What this step sends comes after any settled input.
        *self
            .cut
            .settled
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = None;
        tokio::pin!(fut);
        loop {
            tokio::select! {
                // A dialog that opened by the time `fut` is ready cut it
                // short: the page answered what came before the dialog.
                biased;
                changed = opened.changed() => {
                    if changed.is_err() {
                        return fut.await;
                    }
                    self.unblocked(tab)?;
                }
                r = &mut fut => return r,
            }
        }
    }

    /// The outcome of an acting method: an action that a dialog cut short
    /// after it had begun talking to the page succeeds, and says which
    /// dialog opened (Playwright's "modal state"); one refused because a
    /// dialog was open before it began stays `DIALOG_OPEN`.
    pub(super) fn acted<T>(&self, outcome: Result<T, RpcError>) -> Result<Acted, RpcError> {
        let cut_by = || {
            self.cut
                .by
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
        };
        match outcome {
            Ok(_) => Ok(Acted {
                dialog: cut_by(),
                file_chooser: self.chooser_opened(),
            }),
            Err(e) if e.kind() == ErrorKind::DialogOpen => match cut_by() {
                Some(dialog) => Ok(Acted {
                    dialog: Some(dialog),
                    file_chooser: self.chooser_opened(),
                }),
                None => Err(e),
            },
            Err(e) => Err(e),
        }
    }

    /// Waits for the first CDP event of the fence's tab that `wanted`
    /// accepts, until the request's deadline (`TIMEOUT`) or a dialog
    /// (`DIALOG_OPEN`). Subscribe (`events`) before sending what causes it.
    pub(super) async fn event(
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

    /// One awaited CDP step of a fenced action ([`Step`]): `method` with
    /// `params` on the fence's tab, as `class` ([`Command::plain`]).
    pub(super) fn step<'s>(
        &'s self,
        fence: &'s Fence,
        method: &str,
        params: Value,
        class: CommandClass,
    ) -> Step<'s> {
        let call = CdpCall::new(fence.tab, method, params);
        self.step_of(fence, Command::plain(call, class))
    }

    /// The [`Step`] that sends `command`, which is for the fence's tab.
    pub(super) fn step_of<'s>(&'s self, fence: &'s Fence, command: Command) -> Step<'s> {
        Step {
            cx: self,
            fence,
            command,
            through_dialogs: false,
        }
    }

    /// A typed [`Cx::step`]: `command`'s params, and its result read as
    /// its response (`COMMAND_FAILED` when it has another shape).
    pub(super) async fn send<C: CdpCommand>(
        &self,
        fence: &Fence,
        command: &C,
        class: CommandClass,
    ) -> Result<C::Response, RpcError> {
        let v = self.step(fence, C::METHOD, command.params(), class).await?;
        Ok(C::response(v)?)
    }

    /// [`Cx::send`] of input aimed at a capture's frame (if any,
    /// [`Command::ActInFrame`]): the extension reads the live viewport right
    /// before sending it and answers `STALE_FRAME` instead if it is not the
    /// frame's, all in one trip over the native link.
    pub(super) async fn send_in<C: CdpCommand>(
        &self,
        fence: &Fence,
        command: &C,
        frame: Option<&Frame>,
    ) -> Result<C::Response, RpcError> {
        let call = CdpCall::new(fence.tab, C::METHOD, command.params());
        let command = match frame {
            Some(frame) => Command::ActInFrame {
                call,
                frame: frame.geometry.clone(),
            },
            None => Command::Act(call),
        };
        let v = self.step_of(fence, command).await?;
        Ok(C::response(v)?)
    }

    /// `r`, the outcome of an awaited step, once the fence is checked.
    pub(super) fn checked(
        &self,
        fence: &Fence,
        r: Result<Value, RpcError>,
    ) -> Result<Value, RpcError> {
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
    pub(super) async fn input_events(
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
            frame: frame.map(|f| f.geometry.clone()),
        });
        let r = self.unless_dialog(fence.tab, call).await;
        if r.is_ok() {
            self.cut.settled(fence.tab);
        }
        self.checked(fence, r)
    }

    /// `Runtime.evaluate` (class Observe) with `returnByValue`, returning
    /// the value.
    pub(super) async fn read(&self, fence: &Fence, expression: &str) -> Result<Value, RpcError> {
        let r = self
            .send(
                fence,
                &Evaluate::by_value(expression),
                CommandClass::Observe,
            )
            .await?;
        if r.threw() {
            return Err(wire(
                ErrorKind::CommandFailed,
                "the page threw while reading its state",
            ));
        }
        Ok(r.result.value.unwrap_or(Value::Null))
    }

    /// The live viewport (`Page.getLayoutMetrics`, class Observe).
    pub(super) async fn geometry(&self, fence: &Fence) -> Result<FrameGeometry, RpcError> {
        let r = self
            .step(
                fence,
                GetLayoutMetrics::METHOD,
                GetLayoutMetrics {}.params(),
                CommandClass::Observe,
            )
            .await?;
        LayoutMetrics::viewport_in(r).ok_or_else(|| {
            wire(
                ErrorKind::CommandFailed,
                "the browser sent no layout metrics",
            )
        })
    }

    /// Checks `expect` before anything is sent: the revision, then the
    /// live url.
    pub(super) async fn expect(
        &self,
        fence: &Fence,
        expect: Option<&Expect>,
    ) -> Result<(), RpcError> {
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
    /// is checked with the input's first command ([`Step::in_frame`]).
    pub(super) fn frame(&self, fence: &Fence, id: Option<&FrameId>) -> Result<Frame, RpcError> {
        Ok(self.core(|c| c.frame_for(fence, id))?)
    }

    /// [`Cx::frame`], its viewport checked against the live one here, for
    /// a press: a press sent with its check ([`Step::in_frame`]) would wait
    /// in the extension for the viewport, where a release the daemon sends
    /// meanwhile (the request timed out, a dialog opened) could overtake
    /// it and leave the button held.
    pub(super) async fn frame_live(
        &self,
        fence: &Fence,
        id: Option<&FrameId>,
    ) -> Result<Frame, RpcError> {
        let frame = self.frame(fence, id)?;
        let live = self.geometry(fence).await?;
        cotab_shared::native::check_viewport(&frame.geometry, Some(live))?;
        Ok(frame)
    }

    /// A `mouseMoved` to the CSS point `(x, y)`, with the buttons the
    /// session holds on the tab, which move with it (and go back where
    /// they were if the frame check refused the event).
    pub(super) async fn move_mouse(
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
        let moved = MouseEvent {
            kind: "mouseMoved",
            x,
            y,
            button: Some(first_button(buttons)),
            buttons: Some(buttons),
            ..MouseEvent::default()
        };
        let r = self.send_in(fence, &moved, frame).await;
        if matches!(&r, Err(e) if e.kind() == ErrorKind::StaleFrame) {
            self.core(|c| c.pointer_back(&was));
        }
        r.map(drop)
    }

    /// Records a press about to go out, once the interception of the
    /// file choosers it may open is on ([`Cx::interception_on`]).
    pub(super) async fn begin_press(
        &self,
        fence: &Fence,
        frame: Option<&cotab_shared::controller::FrameId>,
        kind: PressKind,
    ) -> Result<PressGuard<'_>, RpcError> {
        self.intercept_choosers(fence)?;
        self.interception_on().await;
        let id = self.core(|c| c.begin_press(fence, frame, kind))?;
        Ok(PressGuard {
            shell: self.shell,
            id,
            armed: true,
        })
    }

    /// [`Cx::begin_press`] for a press the extension pairs with its
    /// release ([`Cx::input_events`]).
    pub(super) async fn begin_paired_press(
        &self,
        fence: &Fence,
        frame: Option<&cotab_shared::controller::FrameId>,
        kind: PressKind,
    ) -> Result<PairedPress<'_>, RpcError> {
        self.intercept_choosers(fence)?;
        self.interception_on().await;
        let id = self.core(|c| c.begin_press(fence, frame, kind))?;
        Ok(PairedPress {
            shell: self.shell,
            id,
        })
    }

    /// Sends an agent's release and reports it.
    pub(super) async fn agent_release(
        &self,
        target: ReleaseTarget,
    ) -> Result<ReleaseResult, RpcError> {
        let sid = self.sid()?;
        let conn = self.conn.id;
        match self.core(|c| c.agent_release(sid, conn, target))? {
            AgentRelease::Already => Ok(ReleaseResult {
                already_released: true,
            }),
            AgentRelease::Send(cmd) => {
                // A click happens on the release (a key's activation too):
                // the chooser it opens is the agent's, however long after
                // the press — while the agent still holds the tab.
                if let Ok(fence) = self.fence(Need::Act) {
                    if fence.tab == cmd.tab {
                        self.intercept_choosers(&fence)?;
                    }
                }
                self.interception_on().await;
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
    pub(super) async fn release_now(&self, cmd: ReleaseCmd) -> Result<(), RpcError> {
        let tab = cmd.tab;
        let task = self.shell.send_release(cmd);
        let wait = async {
            match task.await {
                Ok(r) => r.map(drop).map_err(RpcError::from),
                Err(_) => Err(wire(ErrorKind::CommandFailed, "the release task failed")),
            }
        };
        let mut opened = self.shell.blockers.subscribe();
        self.unblocked(tab)?;
        tokio::pin!(wait);
        loop {
            tokio::select! {
                r = &mut wait => return r,
                changed = opened.changed() => {
                    if changed.is_err() {
                        return wait.await;
                    }
                    self.unblocked(tab)?;
                }
            }
        }
    }

    pub(super) async fn live_shared(&self) -> Result<SharedTabs, RpcError> {
        let v = self.extension(Command::ListShared).await?;
        let list: SharedTabs = serde_json::from_value(v).map_err(|_| {
            wire(
                ErrorKind::CommandFailed,
                "the extension sent a malformed tab list",
            )
        })?;
        self.shell.with_core(|c| c.on_shared(&list.tabs));
        Ok(list)
    }
}

/// One CDP step of a fenced action, built by [`Cx::step`] and sent when
/// awaited: unless a dialog is open on the tab or opens before it answers
/// ([`Cx::unless_dialog`]), and with the fence
/// checked after it, before its result is looked at ([`Cx::checked`]).
#[must_use = "a step is sent only when awaited"]
pub(super) struct Step<'s> {
    cx: &'s Cx<'s>,
    fence: &'s Fence,
    command: Command,
    through_dialogs: bool,
}

impl Step<'_> {
    /// Raw CDP as the browser has it: a dialog that is open or opens
    /// meanwhile does not cut the step short; the browser answers it once
    /// the dialog is (within the request's deadline).
    pub(super) fn through_dialogs(mut self) -> Self {
        self.through_dialogs = true;
        self
    }
}

impl<'s> std::future::IntoFuture for Step<'s> {
    type Output = Result<Value, RpcError>;
    type IntoFuture = std::pin::Pin<Box<dyn Future<Output = Self::Output> + Send + 's>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let Step {
                cx,
                fence,
                command,
                through_dialogs,
            } = self;
            let tab_id = fence.tab;
            let through_dialogs =
                through_dialogs || command.name() == HandleJavaScriptDialog::METHOD;
            tracing::debug!(tab = %tab_id, method = command.name(), class = ?command.class(), "cdp");
            let call = cx.extension(command);
            // Answering a dialog is the one step a dialog must not cut short.
            let r = if through_dialogs {
                call.await
            } else {
                cx.unless_dialog(tab_id, call).await
            };
            cx.checked(fence, r)
        })
    }
}
