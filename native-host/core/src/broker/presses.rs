//! Presses and their paired releases: what each agent holds down (a key,
//! a mouse button, a finger), from the moment it is recorded before the
//! send until it is released once, by the agent or by the daemon; the
//! pointer's position and the buttons held for coordinate input. Part of
//! [`Core`], as sans-IO as the rest.
//!
//! The record is [`Ledger`](cotab_shared::held::Ledger), the type of the
//! extension's own ledger too, owned by a session on a tab ([`Owner`]):
//! each press with what it holds (`key:<code>`, `button:<name>`,
//! `touch`) and the release that pairs it. A press reaches a page by two
//! paths, and both are recorded alike: the input methods
//! (`input.keyDown`, `input.mouseDown`, …), whose presses the daemon
//! builds ([`PressKind`]), and raw CDP (`cdp.send`, so the CDP endpoint
//! too), whose presses an agent builds itself (the release is the one
//! [`cotab_shared::input::release_of`] pairs with it). So every
//! revocation releases both alike, and an agent may release by raw CDP
//! what it pressed with the input methods.

use super::{err, Actor, Core, Effect, Fence};
use crate::keys::{self, KeyInfo};
use crate::session::{ConnId, SessionId};
use cotab_shared::controller::{FrameId, Modifier, MouseButton};
use cotab_shared::held::{Freed, Moved, Sent, State};
use cotab_shared::input::{input_role, mouse_up, touch_end, InputRole, MOUSE_EVENT};
use cotab_shared::{ErrorKind, TabId, WireError};
use serde_json::Value;

/// Identity of one recorded press.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PressId(pub u64);

/// What an input method presses.
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
    /// What a raw CDP press holds, as
    /// [`cotab_shared::input::input_role`] names it.
    Raw(String),
}

/// Whose a press is: the session that pressed it, on the tab it went
/// to. The owner of the daemon's [`Ledger`](cotab_shared::held::Ledger).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    /// The session.
    pub session: SessionId,
    /// The tab (and only it) the press and its release go to.
    pub tab: TabId,
}

impl Owner {
    /// The fence's session on its tab.
    pub fn of(fence: &Fence) -> Owner {
        Owner {
            session: fence.session,
            tab: fence.tab,
        }
    }
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
    /// What a release releases, which it clears once it ran.
    release: Option<String>,
}

/// The answer to an agent's release.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentRelease {
    /// The daemon released it already; nothing to send.
    Already,
    /// Send this release, through the lane.
    Send(ReleaseCmd),
}

/// What `kind` holds, as [`input_role`] names it, and the params of
/// the release that pairs it (a button's `buttons` set as it goes).
fn recorded(kind: PressKind) -> (String, Value) {
    match kind {
        PressKind::Key { key, modifiers } => {
            let [_, up] = keys::key_events(&key, &modifiers);
            (key_id(&key), up)
        }
        PressKind::Mouse { button, x, y } => (
            format!("button:{}", button.as_str()),
            mouse_up(x, y, button.as_str(), Some(0)),
        ),
        PressKind::Touch { .. } => ("touch".to_owned(), touch_end()),
    }
}

/// What a key holds: `key:<code>`, else `key:<key>`.
fn key_id(key: &KeyInfo) -> String {
    match key.code.as_str() {
        "" => format!("key:{}", key.key),
        code => format!("key:{code}"),
    }
}

/// What `target` names, as [`input_role`] does.
fn target_id(target: &ReleaseTarget) -> String {
    match target {
        ReleaseTarget::Key(name) => match keys::lookup(name) {
            Some(key) => key_id(&key),
            None => format!("key:{name}"),
        },
        ReleaseTarget::Mouse(button) => format!("button:{}", button.as_str()),
        ReleaseTarget::Touch => "touch".to_owned(),
        ReleaseTarget::Raw(id) => id.clone(),
    }
}

impl Core {
    pub(super) fn held_by(&self, sid: SessionId, target: &ReleaseTarget) -> Option<PressId> {
        let id = target_id(target);
        self.held
            .find(|p| p.owner.session == sid && p.id == id)
            .map(|p| PressId(p.seq))
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
        let dpr = match kind {
            PressKind::Touch { dpr, .. } => Some(dpr),
            _ => None,
        };
        let (id, release) = recorded(kind);
        let held = || {
            err(
                ErrorKind::InvalidRequest,
                "that key, button or gesture is already held",
            )
        };
        // One the session holds on another tab counts too; an
        // unacknowledged daemon release gives way to a new press.
        if let Some(old) = self
            .held
            .find(|p| p.owner.session == fence.session && p.id == id)
        {
            if old.state != State::Released {
                return Err(held());
            }
            let seq = old.seq;
            self.held.remove(seq);
        }
        let seq = self
            .held
            .press(Owner::of(fence), id, release)
            .map_err(|_| held())?;
        if let Some(dpr) = dpr {
            self.gestures.insert(PressId(seq), dpr);
        }
        self.mark_input(fence.tab, Actor::Agent(fence.session));
        Ok(PressId(seq))
    }

    /// Turns what the ledger let go of into effects (a gesture's DPR goes
    /// with its press).
    fn freed(&mut self, freed: impl IntoIterator<Item = Freed<Owner>>) {
        for f in freed {
            let press = PressId(f.seq);
            self.gestures.remove(&press);
            self.effects.push(match f.release {
                Some((method, params)) => Effect::Release(ReleaseCmd {
                    press,
                    tab: f.owner.tab,
                    method,
                    params,
                }),
                None => Effect::Dropped(press),
            });
        }
    }

    /// The press's send finished. A press revoked meanwhile, or whose send
    /// failed, is released now (the page may have seen it).
    pub fn press_settled(&mut self, id: PressId, sent: bool) {
        let sent = if sent { Sent::Accepted } else { Sent::Unknown };
        let freed = self.held.press_answered(id.0, sent);
        self.freed(freed);
    }

    /// The press needs no release from the daemon: it went to the
    /// extension with its release, which pairs them whatever fails
    /// ([`cotab_shared::native::Command::Input`]), or it never reached the
    /// page. Its record goes, with nothing to release, even if it was
    /// revoked while being sent; a press already settled as sent is kept.
    pub fn press_paired(&mut self, id: PressId) {
        let freed = self.held.press_unsent(id.0);
        self.freed(freed);
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
        let owner = Owner::of(fence);
        let seq = match self.held.press_input(owner, method, params) {
            None => return Err(err(ErrorKind::InvalidRequest, "that is no press")),
            Some(Err(_)) => return Ok(None),
            Some(Ok(seq)) => seq,
        };
        self.mark_input(fence.tab, Actor::Agent(fence.session));
        Ok(Some(PressId(seq)))
    }

    /// Notes a raw CDP command (`method` with `params`, by `cdp.send` or
    /// the CDP endpoint) about to go to the fence's tab, as the extension's
    /// ledger notes it (`cotab_shared::held::conformance` holds both to the
    /// same scenarios): a press is recorded before it is sent (its
    /// release is the one [`release_of`](cotab_shared::input::release_of)
    /// pairs with it), a mouse move takes the session's held buttons
    /// along, a release marks what it releases as releasing until its
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
        let release = match role {
            InputRole::Release(id) => {
                let owner = Owner::of(fence);
                self.held.release_sent(&owner, &id);
                Some(id)
            }
            _ => None,
        };
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
        if let Some(id) = input.release {
            self.release_ended(fence, &id, sent);
        }
        if let (Sent::Refused, Some(was)) = (sent, input.moved) {
            self.pointer_back(&was);
        }
    }

    /// An agent's raw release (`method` with `params`, a release by
    /// [`cotab_shared::input::input_role`]) went to the fence's tab, and
    /// the browser took it: the session's record of what it releases
    /// goes, whichever path pressed it. A release the daemon sent
    /// meanwhile is harmless: the extension sends a release only while
    /// its ledger says the page still holds the press.
    pub fn raw_released(&mut self, fence: &Fence, method: &str, params: &Value) {
        if let InputRole::Release(id) = input_role(method, params) {
            self.release_ended(fence, &id, Sent::Accepted);
        }
    }

    /// The session's own release of `id` on the fence's tab ended as
    /// `sent` ([`Ledger::release_answered`](cotab_shared::held::Ledger::release_answered)).
    fn release_ended(&mut self, fence: &Fence, id: &str, sent: Sent) {
        let (_, freed) = self.held.release_answered(&Owner::of(fence), id, sent);
        self.freed(freed);
    }

    /// Takes the release of press `id` if it is still held (click and press
    /// send theirs at once). `None` when the daemon already released it.
    pub fn release_press(&mut self, id: PressId) -> Option<ReleaseCmd> {
        let freed = self.held.take_release(id.0)?;
        self.gestures.remove(&id);
        let (method, params) = freed.release?;
        Some(ReleaseCmd {
            press: id,
            tab: freed.owner.tab,
            method,
            params,
        })
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
        match self.held.get(id.0).map(|p| p.state) {
            Some(State::Released) => {
                self.release_press(id);
                Ok(AgentRelease::Already)
            }
            Some(State::Held) => self
                .release_press(id)
                .map(AgentRelease::Send)
                .ok_or_else(not_held),
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
        let owner = Owner::of(fence);
        let was = self.held.moved(|p| p.owner == owner, x, y);
        was.into_iter()
            .map(|(seq, x, y)| (PressId(seq), x, y))
            .collect()
    }

    /// Puts the buttons a move never took to the page (it was refused
    /// before it was sent) back where they were, those still recorded.
    pub fn pointer_back(&mut self, was: &[(PressId, f64, f64)]) {
        let was: Moved = was.iter().map(|&(id, x, y)| (id.0, x, y)).collect();
        self.held.moved_back(&was);
    }

    /// The `buttons` mask of the session's held buttons on `tab`, besides
    /// `except`.
    pub fn buttons_held(&self, sid: SessionId, tab: TabId, except: Option<PressId>) -> u32 {
        let owner = Owner { session: sid, tab };
        self.held
            .buttons(|p| p.owner == owner, except.map(|id| id.0))
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
        let no_gesture = || {
            err(
                ErrorKind::InvalidRequest,
                "no gesture in progress on this tab",
            )
        };
        let id = self
            .held_by(fence.session, &ReleaseTarget::Touch)
            .filter(|id| {
                self.held
                    .get(id.0)
                    .is_some_and(|p| p.owner.tab == fence.tab && p.state == State::Held)
            })
            .ok_or_else(no_gesture)?;
        let dpr = *self.gestures.get(&id).ok_or_else(no_gesture)?;
        self.mark_input(fence.tab, Actor::Agent(fence.session));
        Ok((x_img / dpr, y_img / dpr))
    }

    /// The daemon releases every matching press: held ones now (or dropped
    /// when the browser side is gone), ones being sent once their send
    /// settles. Their releases go in [`release_rank`]'s order.
    pub(super) fn release_where(&mut self, pred: impl Fn(&Owner) -> bool, drop: bool) {
        let freed = self.held.revoke(|p| pred(&p.owner), drop);
        self.freed(freed);
    }

    /// Presses not yet released (for tests and status).
    pub fn held_count(&self) -> usize {
        self.held
            .presses()
            .iter()
            .filter(|p| p.state != State::Released)
            .count()
    }
}
