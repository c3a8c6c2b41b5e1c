//! Presses and their paired releases: what each agent holds down (a key,
//! a mouse button, a finger), from the moment it is recorded before the
//! send until it is released once, by the agent or by the daemon; the
//! pointer's position and the buttons held for coordinate input. Part of
//! [`Core`], as sans-IO as the rest.
//!
//! A press reaches a page by two paths, and both are recorded here: the
//! input methods (`input.keyDown`, `input.mouseDown`, …), whose presses
//! the daemon builds, and raw CDP (`cdp.send`, so the CDP endpoint too),
//! whose presses an agent builds itself ([`PressKind::Raw`]: the release
//! is the one [`cotab_shared::input::release_of`] pairs with it). So
//! every revocation releases both alike.

use super::{err, Actor, Core, Effect, Fence};
use crate::keys::{self, KeyInfo};
use crate::session::{ConnId, SessionId};
use cotab_shared::controller::{FrameId, Modifier, MouseButton};
use cotab_shared::held::{release_rank, Sent};
use cotab_shared::input::{
    input_role, mouse_up, release_of, touch_end, InputRole, KEY_EVENT, MOUSE_EVENT, TOUCH_EVENT,
};
use cotab_shared::{ErrorKind, TabId, WireError};
use serde_json::Value;

/// Identity of one recorded press.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PressId(pub u64);

/// What a press holds down.
#[derive(Debug, Clone, PartialEq)]
pub enum PressKind {
    /// A key, with the modifiers it was pressed with.
    Key {
        /// The key held.
        key: KeyInfo,
        /// The modifiers held with it, sent again with its release.
        modifiers: Vec<Modifier>,
    },
    /// A mouse button, at the pointer's last position (CSS pixels).
    Mouse {
        /// The button held.
        button: MouseButton,
        /// Horizontal position.
        x: f64,
        /// Vertical position.
        y: f64,
    },
    /// A finger, at its last position (CSS pixels), with the frame's DPR for
    /// later updates.
    Touch {
        /// Horizontal position.
        x: f64,
        /// Vertical position.
        y: f64,
        /// Image pixels per CSS pixel of the gesture's frame.
        dpr: f64,
    },
    /// A press an agent sent as raw CDP, with the release that pairs it.
    Raw {
        /// What it holds, as [`cotab_shared::input::input_role`] names
        /// it: `key:<code>`, `button:<name>` or `touch`.
        id: String,
        /// The release's CDP method.
        method: &'static str,
        /// The release's params (a button's follow the pointer).
        params: Value,
    },
}

/// Which held thing an agent releases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReleaseTarget {
    /// A key by its `KeyboardEvent.key` name (as normalised by the key
    /// table).
    Key(String),
    /// A mouse button.
    Mouse(MouseButton),
    /// The gesture in progress.
    Touch,
    /// What a raw CDP press holds, by its [`PressKind::Raw`] id.
    Raw(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PressState {
    /// Recorded; the press is being sent.
    Sending,
    /// Sent; held until released.
    Held,
    /// Revoked while being sent: released (or dropped) once the send
    /// settles.
    RevokedWhileSending { drop: bool },
    /// Released by the daemon; the agent's own release is answered
    /// `alreadyReleased` once.
    ReleasedByDaemon,
}

#[derive(Debug, Clone)]
pub(super) struct Press {
    pub(super) session: SessionId,
    pub(super) tab: TabId,
    pub(super) kind: PressKind,
    pub(super) state: PressState,
}

/// The paired release of a press, to send with `CommandClass::Release`.
#[derive(Debug, Clone, PartialEq)]
pub struct ReleaseCmd {
    /// The press it releases.
    pub press: PressId,
    /// The tab the press went to (and only it).
    pub tab: TabId,
    /// CDP method.
    pub method: &'static str,
    /// CDP params.
    pub params: Value,
}

/// What the record made of a raw CDP command before it was sent
/// ([`Core::raw_input_before`]), to finish once the command ended
/// ([`Core::raw_input_after`]).
#[derive(Debug)]
#[must_use]
pub struct RawInput {
    /// The press recorded, when the command is a press of something the
    /// session did not hold yet: if the command is dropped before it
    /// ends, [`Core::press_settled`] with `false` releases it.
    pub press: Option<PressId>,
    /// Where the session's held buttons were before a move took them
    /// along.
    moved: Option<Vec<(PressId, f64, f64)>>,
    /// A release's method and params, which clear what it releases once
    /// it ran.
    release: Option<(String, Value)>,
}

/// The answer to an agent's release.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentRelease {
    /// The daemon released it already; nothing to send.
    Already,
    /// Send this release, through the lane.
    Send(ReleaseCmd),
}

impl Core {
    pub(super) fn held_by(&self, sid: SessionId, target: &ReleaseTarget) -> Option<PressId> {
        self.presses
            .iter()
            .find(|(_, p)| p.session == sid && matches_target(&p.kind, target))
            .map(|(id, _)| *id)
    }

    /// Records a press before it is sent (state "sending"). A key or button
    /// already held, or a second gesture, is `INVALID_REQUEST`. With
    /// `frame`, the frame is checked again (a navigation or someone else's
    /// input may have come since the caller took it).
    pub fn begin_press(
        &mut self,
        fence: &Fence,
        frame: Option<&FrameId>,
        kind: PressKind,
    ) -> Result<PressId, WireError> {
        if let Some(f) = frame {
            self.frame_for(fence, Some(f))?;
        }
        self.check(fence)?;
        let target = target_of(&kind);
        if let Some(old) = self.held_by(fence.session, &target) {
            match self.presses.get(&old).map(|p| p.state) {
                // An unacknowledged daemon release gives way to a new press.
                Some(PressState::ReleasedByDaemon) => {
                    self.presses.remove(&old);
                }
                _ => {
                    return Err(err(
                        ErrorKind::InvalidRequest,
                        "that key, button or gesture is already held",
                    ))
                }
            }
        }
        let id = PressId(self.next_press);
        self.next_press += 1;
        self.presses.insert(
            id,
            Press {
                session: fence.session,
                tab: fence.tab,
                kind,
                state: PressState::Sending,
            },
        );
        self.mark_input(fence.tab, Actor::Agent(fence.session));
        Ok(id)
    }

    /// The press's send finished. A press revoked meanwhile, or whose send
    /// failed, is released now (the page may have seen it).
    pub fn press_settled(&mut self, id: PressId, sent: bool) {
        let Some(p) = self.presses.get(&id) else {
            return;
        };
        match p.state {
            PressState::RevokedWhileSending { drop: true } => {
                self.presses.remove(&id);
                self.effects.push(Effect::Dropped(id));
            }
            PressState::RevokedWhileSending { drop: false } => {
                if let Some(cmd) = self.release_cmd(id) {
                    self.presses.remove(&id);
                    self.effects.push(Effect::Release(cmd));
                }
            }
            PressState::Sending if !sent => {
                if let Some(cmd) = self.release_cmd(id) {
                    self.presses.remove(&id);
                    self.effects.push(Effect::Release(cmd));
                }
            }
            PressState::Sending => {
                if let Some(p) = self.presses.get_mut(&id) {
                    p.state = PressState::Held;
                }
            }
            PressState::Held | PressState::ReleasedByDaemon => {}
        }
    }

    /// The press needs no release from the daemon: it went to the
    /// extension with its release, which pairs them whatever fails
    /// ([`cotab_shared::native::Command::Input`]), or it never reached the
    /// page. Its record goes, with nothing to release, even if it was
    /// revoked while being sent; a press already settled as sent is kept.
    pub fn press_paired(&mut self, id: PressId) {
        if matches!(
            self.presses.get(&id).map(|p| p.state),
            Some(PressState::Sending | PressState::RevokedWhileSending { .. })
        ) {
            self.presses.remove(&id);
            self.effects.push(Effect::Dropped(id));
        }
    }

    /// Records a press an agent sends as raw CDP on the fence's tab
    /// (`method` with `params`, a press by
    /// [`cotab_shared::input::input_role`]) before it is sent. `None` when
    /// the session holds that already on the tab (a key's auto-repeat, a
    /// client that presses twice): the browser takes it as it comes, and
    /// the one record is released once.
    pub fn begin_raw_press(
        &mut self,
        fence: &Fence,
        method: &str,
        params: &Value,
    ) -> Result<Option<PressId>, WireError> {
        self.check(fence)?;
        let (InputRole::Press(id), Some((release, release_params))) =
            (input_role(method, params), release_of(method, params))
        else {
            return Err(err(ErrorKind::InvalidRequest, "that is no press"));
        };
        let target = ReleaseTarget::Raw(id.clone());
        let held = self.presses.values().any(|p| {
            p.session == fence.session
                && p.tab == fence.tab
                && p.state != PressState::ReleasedByDaemon
                && matches_target(&p.kind, &target)
        });
        if held {
            return Ok(None);
        }
        let press = PressId(self.next_press);
        self.next_press += 1;
        self.presses.insert(
            press,
            Press {
                session: fence.session,
                tab: fence.tab,
                kind: PressKind::Raw {
                    id,
                    method: release,
                    params: release_params,
                },
                state: PressState::Sending,
            },
        );
        self.mark_input(fence.tab, Actor::Agent(fence.session));
        Ok(Some(press))
    }

    /// An agent's raw release (`method` with `params`, a release by
    /// [`cotab_shared::input::input_role`]) went to the fence's tab, and
    /// the browser took it: the session's record of what it releases
    /// goes, whichever path pressed it. A release the daemon sent
    /// meanwhile is harmless: the extension sends a release only while
    /// its ledger says the page still holds the press.
    pub fn raw_released(&mut self, fence: &Fence, method: &str, params: &Value) {
        let InputRole::Release(id) = input_role(method, params) else {
            return;
        };
        let raw = ReleaseTarget::Raw(id.clone());
        self.presses.retain(|_, p| {
            let same = p.session == fence.session
                && p.tab == fence.tab
                && matches!(p.state, PressState::Held | PressState::ReleasedByDaemon)
                && (matches_target(&p.kind, &raw) || raw_id(&p.kind) == id);
            !same
        });
    }

    /// Notes a raw CDP command (`method` with `params`, by `cdp.send` or
    /// the CDP endpoint) about to go to the fence's tab, as the extension's
    /// ledger notes it (`cotab_shared::held::conformance` holds both to the
    /// same scenarios): a press is recorded before it is sent (its
    /// release is the one [`release_of`] pairs with it), a mouse move
    /// takes the session's held buttons along, a release waits for the
    /// answer.
    pub fn raw_input_before(
        &mut self,
        fence: &Fence,
        method: &str,
        params: &Value,
    ) -> Result<RawInput, WireError> {
        let role = input_role(method, params);
        let press = match role {
            InputRole::Press(_) => self.begin_raw_press(fence, method, params)?,
            InputRole::Release(_) | InputRole::Other => None,
        };
        let moving = method == MOUSE_EVENT
            && params.get("type").and_then(Value::as_str) == Some("mouseMoved");
        let at = |k: &str| params.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        let moved = moving.then(|| self.pointer_moved(fence, at("x"), at("y")));
        let release =
            matches!(role, InputRole::Release(_)).then(|| (method.to_owned(), params.clone()));
        Ok(RawInput {
            press,
            moved,
            release,
        })
    }

    /// How the command [`Core::raw_input_before`] noted ended: a press
    /// that did not run for certain is released now (it may have reached
    /// the page); a release that ran, or may have, clears what it
    /// releases, so no second one is sent; a move refused before the page
    /// saw it leaves the buttons where they were.
    pub fn raw_input_after(&mut self, fence: &Fence, input: RawInput, sent: Sent) {
        if let Some(id) = input.press {
            self.press_settled(id, sent == Sent::Accepted);
        }
        match (sent, input.release, input.moved) {
            (Sent::Accepted | Sent::Unknown, Some((method, params)), _) => {
                self.raw_released(fence, &method, &params);
            }
            (Sent::Refused, _, Some(was)) => self.pointer_back(&was),
            _ => {}
        }
    }

    /// Takes the release of press `id` if it is still held (click and press
    /// send theirs at once). `None` when the daemon already released it.
    pub fn release_press(&mut self, id: PressId) -> Option<ReleaseCmd> {
        match self.presses.get(&id).map(|p| p.state) {
            Some(PressState::Held) => {
                let cmd = self.release_cmd(id);
                self.presses.remove(&id);
                cmd
            }
            Some(PressState::ReleasedByDaemon) => {
                self.presses.remove(&id);
                None
            }
            _ => None,
        }
    }

    /// An agent's release (`input.keyUp`, `input.mouseUp`,
    /// `input.gesture.end`): needs no lease; goes to the press's own tab.
    pub fn agent_release(
        &mut self,
        sid: SessionId,
        conn: ConnId,
        target: ReleaseTarget,
    ) -> Result<AgentRelease, WireError> {
        self.bound(sid, conn)?;
        let not_held = || {
            err(
                ErrorKind::InvalidRequest,
                "nothing like that is held by this session",
            )
        };
        let id = self.held_by(sid, &target).ok_or_else(not_held)?;
        match self.presses.get(&id).map(|p| p.state) {
            Some(PressState::ReleasedByDaemon) => {
                self.presses.remove(&id);
                Ok(AgentRelease::Already)
            }
            Some(PressState::Held) => {
                let cmd = self.release_cmd(id).ok_or_else(not_held)?;
                self.presses.remove(&id);
                Ok(AgentRelease::Send(cmd))
            }
            _ => Err(err(
                ErrorKind::InvalidRequest,
                "the press is still being sent; release it after it returns",
            )),
        }
    }

    /// A mouse move on the fence's tab: marks input and moves the
    /// position of the session's held buttons there. Returns the `buttons`
    /// mask.
    pub fn mouse_moved(&mut self, fence: &Fence, x: f64, y: f64) -> Result<u32, WireError> {
        self.input(fence)?;
        self.pointer_moved(fence, x, y);
        Ok(self.buttons_held(fence.session, fence.tab, None))
    }

    /// Moves the position of the session's held buttons on the fence's tab
    /// (where their releases go) to `(x, y)`, and says where each was, for
    /// [`Core::pointer_back`].
    pub fn pointer_moved(&mut self, fence: &Fence, x: f64, y: f64) -> Vec<(PressId, f64, f64)> {
        let mut was = Vec::new();
        for (id, p) in &mut self.presses {
            if p.session == fence.session
                && p.tab == fence.tab
                && matches!(p.state, PressState::Held | PressState::Sending)
            {
                match &mut p.kind {
                    PressKind::Mouse { x: px, y: py, .. } => {
                        was.push((*id, *px, *py));
                        *px = x;
                        *py = y;
                    }
                    PressKind::Raw {
                        method: MOUSE_EVENT,
                        params,
                        ..
                    } => {
                        let at = |k: &str| params.get(k).and_then(Value::as_f64).unwrap_or(0.0);
                        was.push((*id, at("x"), at("y")));
                        params["x"] = Value::from(x);
                        params["y"] = Value::from(y);
                    }
                    _ => {}
                }
            }
        }
        was
    }

    /// Puts the buttons a move never took to the page (it was refused
    /// before it was sent) back where they were, those still recorded.
    pub fn pointer_back(&mut self, was: &[(PressId, f64, f64)]) {
        for &(id, x, y) in was {
            match self.presses.get_mut(&id).map(|p| &mut p.kind) {
                Some(PressKind::Mouse { x: px, y: py, .. }) => {
                    *px = x;
                    *py = y;
                }
                Some(PressKind::Raw {
                    method: MOUSE_EVENT,
                    params,
                    ..
                }) => {
                    params["x"] = Value::from(x);
                    params["y"] = Value::from(y);
                }
                _ => {}
            }
        }
    }

    /// The `buttons` mask of the session's held buttons on `tab`, besides
    /// `except`.
    pub fn buttons_held(&self, sid: SessionId, tab: TabId, except: Option<PressId>) -> u32 {
        self.presses
            .iter()
            .filter(|(id, p)| {
                Some(**id) != except
                    && p.session == sid
                    && p.tab == tab
                    && matches!(p.state, PressState::Held | PressState::Sending)
            })
            .filter_map(|(_, p)| match p.kind {
                PressKind::Mouse { button, .. } => Some(button.bit()),
                _ => None,
            })
            .fold(0, |a, b| a | b)
    }

    /// A gesture update on the fence's tab: the gesture's DPR, after
    /// checking the fence and moving the finger.
    pub fn gesture_moved(
        &mut self,
        fence: &Fence,
        x_img: f64,
        y_img: f64,
    ) -> Result<(f64, f64), WireError> {
        self.check(fence)?;
        let id = self
            .held_by(fence.session, &ReleaseTarget::Touch)
            .filter(|id| {
                self.presses
                    .get(id)
                    .is_some_and(|p| p.tab == fence.tab && p.state == PressState::Held)
            })
            .ok_or_else(|| {
                err(
                    ErrorKind::InvalidRequest,
                    "no gesture in progress on this tab",
                )
            })?;
        self.mark_input(fence.tab, Actor::Agent(fence.session));
        let Some(p) = self.presses.get_mut(&id) else {
            return Err(err(ErrorKind::InvalidRequest, "no gesture in progress"));
        };
        match &mut p.kind {
            PressKind::Touch { x, y, dpr } => {
                *x = x_img / *dpr;
                *y = y_img / *dpr;
                Ok((*x, *y))
            }
            _ => Err(err(ErrorKind::InvalidRequest, "no gesture in progress")),
        }
    }

    pub(super) fn release_cmd(&self, id: PressId) -> Option<ReleaseCmd> {
        let p = self.presses.get(&id)?;
        let (method, params) = match &p.kind {
            PressKind::Key { key, modifiers } => {
                let [_, up] = keys::key_events(key, modifiers);
                (KEY_EVENT, up)
            }
            PressKind::Mouse { button, x, y } => {
                let others = self.buttons_held(p.session, p.tab, Some(id));
                (MOUSE_EVENT, mouse_up(*x, *y, button.as_str(), Some(others)))
            }
            PressKind::Touch { .. } => (TOUCH_EVENT, touch_end()),
            PressKind::Raw { method, params, .. } => (*method, params.clone()),
        };
        Some(ReleaseCmd {
            press: id,
            tab: p.tab,
            method,
            params,
        })
    }

    /// The daemon releases every matching press: held ones now (or dropped
    /// when the browser side is gone), ones being sent once their send
    /// settles. Their releases go in [`release_rank`]'s order.
    pub(super) fn release_where(&mut self, pred: impl Fn(&Press) -> bool, drop: bool) {
        let mut ids: Vec<PressId> = self
            .presses
            .iter()
            .filter(|(_, p)| pred(p))
            .map(|(id, _)| *id)
            .collect();
        ids.sort_by_cached_key(|id| {
            let held = self.presses.get(id).map(|p| raw_id(&p.kind));
            release_rank(held.as_deref().unwrap_or(""), id.0)
        });
        for id in ids {
            let state = self.presses.get(&id).map(|p| p.state);
            match state {
                Some(PressState::Held) => {
                    if drop {
                        self.effects.push(Effect::Dropped(id));
                    } else if let Some(cmd) = self.release_cmd(id) {
                        self.effects.push(Effect::Release(cmd));
                    }
                    if let Some(p) = self.presses.get_mut(&id) {
                        p.state = PressState::ReleasedByDaemon;
                    }
                }
                Some(PressState::Sending) => {
                    if let Some(p) = self.presses.get_mut(&id) {
                        p.state = PressState::RevokedWhileSending { drop };
                    }
                }
                Some(PressState::RevokedWhileSending { .. }) if drop => {
                    if let Some(p) = self.presses.get_mut(&id) {
                        p.state = PressState::RevokedWhileSending { drop };
                    }
                }
                _ => {}
            }
        }
    }

    /// Presses not yet released (for tests and status).
    pub fn held_count(&self) -> usize {
        self.presses
            .values()
            .filter(|p| p.state != PressState::ReleasedByDaemon)
            .count()
    }
}

fn target_of(kind: &PressKind) -> ReleaseTarget {
    match kind {
        PressKind::Key { key, .. } => ReleaseTarget::Key(key.key.clone()),
        PressKind::Mouse { button, .. } => ReleaseTarget::Mouse(*button),
        PressKind::Touch { .. } => ReleaseTarget::Touch,
        PressKind::Raw { id, .. } => ReleaseTarget::Raw(id.clone()),
    }
}

fn matches_target(kind: &PressKind, target: &ReleaseTarget) -> bool {
    target_of(kind) == *target
}

/// What a press holds, in the words of [`input_role`], for any kind: an
/// agent may release by raw CDP what it pressed with the input methods.
fn raw_id(kind: &PressKind) -> String {
    match kind {
        PressKind::Key { key, .. } if key.code.is_empty() => format!("key:{}", key.key),
        PressKind::Key { key, .. } => format!("key:{}", key.code),
        PressKind::Mouse { button, .. } => format!("button:{}", button.as_str()),
        PressKind::Touch { .. } => "touch".to_owned(),
        PressKind::Raw { id, .. } => id.clone(),
    }
}
