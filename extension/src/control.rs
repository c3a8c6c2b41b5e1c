//! Who may do what to a shared tab, decided without any browser API: the
//! command-class rules the extension enforces on top of the daemon's
//! (DESIGN §2, "Control lease" and "Developer mode"), what the popup says
//! about a tab's controller, how the developer-mode switch is read, and the
//! registry of CDP commands in flight, which can fail them at once when the
//! person takes control or turns developer mode off.
//!
//! The human-control flags themselves live with the shared set
//! ([`crate::state::SharedSet`]), which persists and clears them; the
//! `worker` module performs the effects decided here.

use cotab_shared::native::{CommandClass, Holder};
use cotab_shared::reach::Blocked;
use cotab_shared::{ErrorKind, TabId, WireError};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// `chrome.storage.local` key of the developer-mode switch (a boolean;
/// absent means off).
pub const DEVELOPER_MODE_KEY: &str = "developerMode";

/// How a command of some class may proceed, once the tab is known to be
/// shared and its human-control flag read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Send it now.
    Run,
    /// Send it only if developer mode is on at this moment (read it live).
    NeedsDeveloperMode,
}

/// Decides whether a command of `class` may run on `tab`: `shared` says
/// whether the tab is shared, `human` whether the person controls it,
/// `blocked` whether its page is a blocked target.
///
/// Nothing runs on a tab whose page is blocked (the extension itself sends
/// the releases of what agents held there). Otherwise `observe` and
/// `release` always run on a shared tab (a release must reach the page
/// even after the person took over, so no key stays held); `act` and
/// `privileged` are refused while the person has control; `privileged`
/// also needs developer mode.
pub fn admit(
    tab: TabId,
    class: CommandClass,
    shared: bool,
    human: bool,
    blocked: Option<Blocked>,
) -> Result<Admission, WireError> {
    if !shared {
        return Err(WireError::new(
            ErrorKind::TabNotShared,
            format!("tab {tab} is not shared"),
        ));
    }
    if let Some(blocked) = blocked {
        return Err(blocked.suspended(tab));
    }
    match class {
        CommandClass::Observe | CommandClass::Release => Ok(Admission::Run),
        CommandClass::Act | CommandClass::Privileged if human => Err(human_has_control(tab)),
        CommandClass::Act => Ok(Admission::Run),
        CommandClass::Privileged => Ok(Admission::NeedsDeveloperMode),
    }
}

/// `HUMAN_HAS_CONTROL` for `tab`.
pub fn human_has_control(tab: TabId) -> WireError {
    WireError::new(
        ErrorKind::HumanHasControl,
        format!("the person has control of tab {tab}"),
    )
}

/// `DEVELOPER_MODE_OFF`.
pub fn developer_mode_off() -> WireError {
    WireError::new(
        ErrorKind::DeveloperModeOff,
        "developer mode is off: the person has not allowed agents to run JavaScript or raw CDP",
    )
}

/// Whether a value read from `chrome.storage.local` under
/// [`DEVELOPER_MODE_KEY`] turns developer mode on: only `true` does;
/// absent, `false` or anything else is off.
pub fn developer_mode_enabled(stored: &Value) -> bool {
    stored.as_bool() == Some(true)
}

/// What a `chrome.storage.onChanged` notice says about the switch:
/// `Some(enabled)` when `area` is `local` and `changes` names
/// [`DEVELOPER_MODE_KEY`] (a removed key is off), `None` otherwise.
pub fn developer_mode_change(area: &str, changes: &Value) -> Option<bool> {
    if area != "local" {
        return None;
    }
    let change = changes.get(DEVELOPER_MODE_KEY)?;
    Some(developer_mode_enabled(
        change.get("newValue").unwrap_or(&Value::Null),
    ))
}

/// What the worker does with a change of [`DEVELOPER_MODE_KEY`] that
/// `chrome.storage.onChanged` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwitchNotice {
    /// Nothing: the switch in memory already says so (the worker's own
    /// write), or an earlier write of the worker's that a later one
    /// follows.
    Ignore,
    /// Turn developer mode off: turning it off is safe whoever asks.
    TurnOff,
    /// Something other than the worker (an extension page opened outside
    /// the popup) turned it on: write off back and keep it off.
    Revert,
}

/// Decides [`SwitchNotice`]: `memory` is the switch as the worker knows it
/// (`None` before its first read), `stored` the value storage now holds,
/// `writing` whether a write of the worker's own is still on its way.
///
/// Only the person turns developer mode on, through the popup's request
/// to the worker, which changes the switch in memory before it writes
/// storage; so a change to `true` that memory does not already hold was
/// written by someone else — unless it is the echo of the worker's own
/// earlier write, overtaken by a later one still being written.
pub fn switch_notice(memory: Option<bool>, stored: bool, writing: bool) -> SwitchNotice {
    match (memory, stored) {
        (Some(m), s) if m == s => SwitchNotice::Ignore,
        (_, false) => SwitchNotice::TurnOff,
        (_, true) if writing => SwitchNotice::Ignore,
        (_, true) => SwitchNotice::Revert,
    }
}

/// Who the popup says controls a shared tab: the person when the extension
/// marked the tab human-controlled (it knows that itself, without waiting
/// for the daemon), else the daemon's word — except that the daemon's
/// `human` is stale once the extension cleared the flag, so it reads as
/// nobody.
pub fn effective_holder(human: bool, daemon: Option<&Holder>) -> Holder {
    if human {
        return Holder::Human;
    }
    match daemon {
        Some(agent @ Holder::Agent { .. }) => agent.clone(),
        Some(Holder::Human | Holder::Nobody) | None => Holder::Nobody,
    }
}

/// The popup's `data-controller` value for `holder`.
pub fn holder_kind(holder: &Holder) -> &'static str {
    match holder {
        Holder::Nobody => "nobody",
        Holder::Human => "human",
        Holder::Agent { .. } => "agent",
    }
}

/// The popup's sentence for `holder`.
pub fn holder_text(holder: &Holder) -> String {
    match holder {
        Holder::Nobody => "No one has control".to_owned(),
        Holder::Human => "You have control".to_owned(),
        Holder::Agent {
            name,
            waiting: true,
        } => format!("Agent {name} has control and waits for your yes"),
        Holder::Agent { name, .. } => format!("Agent {name} has control"),
    }
}

/// A one-shot abort: [`Abort::fire`] once with an error, and the future of
/// [`Abort::wait`] completes with it. A command races its CDP call against
/// it.
#[derive(Debug, Clone, Default)]
pub struct Abort {
    inner: Rc<RefCell<AbortInner>>,
}

#[derive(Debug, Default)]
struct AbortInner {
    reason: Option<WireError>,
    waker: Option<Waker>,
}

impl Abort {
    /// Fires the abort with `reason`; a second fire keeps the first reason.
    pub fn fire(&self, reason: WireError) {
        let waker = {
            let mut inner = self.inner.borrow_mut();
            if inner.reason.is_some() {
                return;
            }
            inner.reason = Some(reason);
            inner.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Completes with the reason once fired.
    pub fn wait(&self) -> AbortWait {
        AbortWait {
            abort: self.clone(),
        }
    }
}

/// The future of [`Abort::wait`].
#[derive(Debug)]
pub struct AbortWait {
    abort: Abort,
}

impl Future for AbortWait {
    type Output = WireError;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<WireError> {
        let mut inner = self.abort.inner.borrow_mut();
        match &inner.reason {
            Some(reason) => Poll::Ready(reason.clone()),
            None => {
                inner.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// A command registered in [`InFlight`].
#[derive(Debug)]
struct Entry {
    tab: TabId,
    class: CommandClass,
    abort: Abort,
}

/// The CDP commands sent and not yet answered, with their class and tab, so
/// the worker can fail them the moment their authority ends. Keys are the
/// registry's own (host request ids are not trusted to be unique).
#[derive(Debug, Default)]
pub struct InFlight {
    next: u64,
    entries: BTreeMap<u64, Entry>,
}

impl InFlight {
    /// Registers a command of `class` on `tab`; returns its key (for
    /// [`InFlight::finish`]) and its abort.
    pub fn register(&mut self, tab: TabId, class: CommandClass) -> (u64, Abort) {
        let key = self.next;
        self.next = self.next.wrapping_add(1);
        let abort = Abort::default();
        self.entries.insert(
            key,
            Entry {
                tab,
                class,
                abort: abort.clone(),
            },
        );
        (key, abort)
    }

    /// Forgets a command that was answered (or aborted already).
    pub fn finish(&mut self, key: u64) {
        self.entries.remove(&key);
    }

    /// How many commands are in flight.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no command is in flight.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Developer mode turned off: fails every privileged command with
    /// `DEVELOPER_MODE_OFF`. Returns how many.
    pub fn abort_privileged(&mut self) -> usize {
        self.abort_where(|e| e.class == CommandClass::Privileged, developer_mode_off)
    }

    /// The person took control of `tab`: fails its `act` and `privileged`
    /// commands with `HUMAN_HAS_CONTROL` (the daemon voids their results
    /// too). Observations and releases go on. Returns how many.
    pub fn abort_actions_on(&mut self, tab: TabId) -> usize {
        self.abort_where(
            |e| e.tab == tab && matches!(e.class, CommandClass::Act | CommandClass::Privileged),
            || human_has_control(tab),
        )
    }

    /// `tab`'s page went away while commands ran on it (closed, crashed,
    /// detached): fails every one of them with `UNKNOWN_OUTCOME` (each may
    /// or may not have run). Returns how many.
    pub fn abort_all_on(&mut self, tab: TabId, why: &str) -> usize {
        self.abort_where(
            |e| e.tab == tab,
            || {
                WireError::new(
                    ErrorKind::UnknownOutcome,
                    format!("{why} while the command ran on tab {tab}; it may or may not have run"),
                )
            },
        )
    }

    /// `tab`'s page became a blocked target: fails every command on it with
    /// `err` (`BLOCKED_TARGET`), so no answer from that page reaches an
    /// agent. Returns how many.
    pub fn fail_all_on(&mut self, tab: TabId, err: &WireError) -> usize {
        self.abort_where(|e| e.tab == tab, || err.clone())
    }

    /// The native link dropped: fails every command with `UNKNOWN_OUTCOME`.
    /// Returns how many.
    pub fn abort_all(&mut self, why: &str) -> usize {
        self.abort_where(
            |_| true,
            || {
                WireError::new(
                    ErrorKind::UnknownOutcome,
                    format!("{why} while the command ran; it may or may not have run"),
                )
            },
        )
    }

    fn abort_where(
        &mut self,
        matches: impl Fn(&Entry) -> bool,
        reason: impl Fn() -> WireError,
    ) -> usize {
        let keys: Vec<u64> = self
            .entries
            .iter()
            .filter(|(_, e)| matches(e))
            .map(|(k, _)| *k)
            .collect();
        for key in &keys {
            if let Some(entry) = self.entries.remove(key) {
                entry.abort.fire(reason());
            }
        }
        keys.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn classes_on_a_tab_nobody_took() {
        let tab = TabId(3);
        assert_eq!(
            admit(tab, CommandClass::Observe, true, false, None),
            Ok(Admission::Run)
        );
        assert_eq!(
            admit(tab, CommandClass::Act, true, false, None),
            Ok(Admission::Run)
        );
        assert_eq!(
            admit(tab, CommandClass::Release, true, false, None),
            Ok(Admission::Run)
        );
        assert_eq!(
            admit(tab, CommandClass::Privileged, true, false, None),
            Ok(Admission::NeedsDeveloperMode)
        );
    }

    #[test]
    fn classes_on_a_tab_the_person_controls() {
        let tab = TabId(3);
        assert_eq!(
            admit(tab, CommandClass::Observe, true, true, None),
            Ok(Admission::Run)
        );
        assert_eq!(
            admit(tab, CommandClass::Release, true, true, None),
            Ok(Admission::Run)
        );
        for class in [CommandClass::Act, CommandClass::Privileged] {
            let err = admit(tab, class, true, true, None).expect_err("refused");
            assert_eq!(err.kind, ErrorKind::HumanHasControl);
            assert_eq!(err.message, "the person has control of tab 3");
        }
    }

    #[test]
    fn unshared_tabs_refuse_every_class() {
        for class in [
            CommandClass::Observe,
            CommandClass::Act,
            CommandClass::Release,
            CommandClass::Privileged,
        ] {
            let err = admit(TabId(9), class, false, false, None).expect_err("refused");
            assert_eq!(err.kind, ErrorKind::TabNotShared);
        }
    }

    #[test]
    fn only_true_turns_developer_mode_on() {
        assert!(developer_mode_enabled(&json!(true)));
        for off in [json!(false), json!(null), json!("true"), json!(1)] {
            assert!(!developer_mode_enabled(&off), "{off}");
        }
        assert_eq!(developer_mode_off().kind, ErrorKind::DeveloperModeOff);
    }

    #[test]
    fn storage_changes_of_the_switch() {
        let on = json!({"developerMode":{"oldValue":false,"newValue":true}});
        assert_eq!(developer_mode_change("local", &on), Some(true));
        let off = json!({"developerMode":{"oldValue":true,"newValue":false}});
        assert_eq!(developer_mode_change("local", &off), Some(false));
        let removed = json!({"developerMode":{"oldValue":true}});
        assert_eq!(developer_mode_change("local", &removed), Some(false));
        assert_eq!(developer_mode_change("session", &on), None);
        let other = json!({"laneId":{"newValue":"x"}});
        assert_eq!(developer_mode_change("local", &other), None);
    }

    #[test]
    fn holders_as_the_popup_shows_them() {
        let bot = Holder::agent("bot");
        assert_eq!(effective_holder(true, Some(&bot)), Holder::Human);
        assert_eq!(effective_holder(false, Some(&bot)), bot);
        assert_eq!(
            effective_holder(false, Some(&Holder::Human)),
            Holder::Nobody
        );
        assert_eq!(effective_holder(false, None), Holder::Nobody);
        assert_eq!(holder_text(&bot), "Agent bot has control");
        assert_eq!(holder_text(&Holder::Human), "You have control");
        assert_eq!(holder_text(&Holder::Nobody), "No one has control");
        assert_eq!(holder_kind(&bot), "agent");
        assert_eq!(holder_kind(&Holder::Human), "human");
        assert_eq!(holder_kind(&Holder::Nobody), "nobody");
    }

    fn poll_abort(abort: &Abort) -> Poll<WireError> {
        let waker = Waker::noop();
        let mut cx = Context::from_waker(waker);
        std::pin::pin!(abort.wait()).poll(&mut cx)
    }

    #[test]
    fn in_flight_commands_fail_when_authority_ends() {
        let mut in_flight = InFlight::default();
        let (_, privileged) = in_flight.register(TabId(1), CommandClass::Privileged);
        let (_, act_1) = in_flight.register(TabId(1), CommandClass::Act);
        let (_, act_2) = in_flight.register(TabId(2), CommandClass::Act);
        let (_, release_1) = in_flight.register(TabId(1), CommandClass::Release);
        let (observe_key, observe_1) = in_flight.register(TabId(1), CommandClass::Observe);
        assert_eq!(in_flight.len(), 5);

        assert_eq!(in_flight.abort_privileged(), 1);
        match poll_abort(&privileged) {
            Poll::Ready(e) => assert_eq!(e.kind, ErrorKind::DeveloperModeOff),
            Poll::Pending => panic!("the privileged command was not aborted"),
        }
        assert!(poll_abort(&act_1).is_pending());

        assert_eq!(in_flight.abort_actions_on(TabId(1)), 1);
        match poll_abort(&act_1) {
            Poll::Ready(e) => assert_eq!(e, human_has_control(TabId(1))),
            Poll::Pending => panic!("the action was not aborted"),
        }
        assert!(poll_abort(&act_2).is_pending());
        assert!(poll_abort(&release_1).is_pending());
        assert!(poll_abort(&observe_1).is_pending());

        in_flight.finish(observe_key);
        assert_eq!(in_flight.len(), 2);
        assert_eq!(in_flight.abort_actions_on(TabId(1)), 0);

        assert_eq!(in_flight.abort_all_on(TabId(1), "the page crashed"), 1);
        match poll_abort(&release_1) {
            Poll::Ready(e) => {
                assert_eq!(e.kind, ErrorKind::UnknownOutcome);
                assert_eq!(
                    e.message,
                    "the page crashed while the command ran on tab 1; it may or may not have run"
                );
            }
            Poll::Pending => panic!("the release was not aborted"),
        }
        assert!(poll_abort(&act_2).is_pending());
        assert_eq!(in_flight.len(), 1);
        assert_eq!(in_flight.abort_all("the native link dropped"), 1);
        match poll_abort(&act_2) {
            Poll::Ready(e) => assert_eq!(e.kind, ErrorKind::UnknownOutcome),
            Poll::Pending => panic!("the action was not aborted"),
        }
        assert!(in_flight.is_empty());
    }

    #[test]
    fn only_the_workers_own_writes_turn_developer_mode_on() {
        use SwitchNotice::*;
        // The worker's own writes: memory changed first.
        assert_eq!(switch_notice(Some(true), true, true), Ignore);
        assert_eq!(switch_notice(Some(false), false, false), Ignore);
        // Off is honoured from anywhere.
        assert_eq!(switch_notice(Some(true), false, false), TurnOff);
        assert_eq!(switch_notice(None, false, false), TurnOff);
        // On from anyone else is undone.
        assert_eq!(switch_notice(Some(false), true, false), Revert);
        assert_eq!(switch_notice(None, true, false), Revert);
        // On, off in quick succession: the first write's echo arrives
        // while the second is on its way.
        assert_eq!(switch_notice(Some(false), true, true), Ignore);
    }

    #[test]
    fn nothing_runs_on_a_tab_whose_page_is_blocked() {
        let tab = TabId(4);
        for class in [
            CommandClass::Observe,
            CommandClass::Release,
            CommandClass::Act,
            CommandClass::Privileged,
        ] {
            let err =
                admit(tab, class, true, false, Some(Blocked::ExtensionPage)).expect_err("refused");
            assert_eq!(err.kind, ErrorKind::BlockedTarget, "{class:?}");
        }
    }

    #[test]
    fn every_command_on_a_tab_that_went_to_a_blocked_page_fails_with_its_reason() {
        let mut in_flight = InFlight::default();
        let (_, observe) = in_flight.register(TabId(1), CommandClass::Observe);
        let (_, release) = in_flight.register(TabId(1), CommandClass::Release);
        let (_, other) = in_flight.register(TabId(2), CommandClass::Observe);
        let err = cotab_shared::reach::Blocked::LocalFile.suspended(TabId(1));
        assert_eq!(in_flight.fail_all_on(TabId(1), &err), 2);
        for abort in [&observe, &release] {
            match poll_abort(abort) {
                Poll::Ready(e) => assert_eq!(e, err),
                Poll::Pending => panic!("not aborted"),
            }
        }
        assert!(poll_abort(&other).is_pending());
    }

    #[test]
    fn an_abort_wakes_its_waiter_and_keeps_the_first_reason() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::Arc;
        use std::task::Wake;

        struct Count(AtomicUsize);
        impl Wake for Count {
            fn wake(self: Arc<Self>) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        let abort = Abort::default();
        let mut wait = std::pin::pin!(abort.wait());
        assert!(wait.as_mut().poll(&mut cx).is_pending());
        abort.fire(developer_mode_off());
        abort.fire(human_has_control(TabId(1)));
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        assert_eq!(
            wait.as_mut().poll(&mut cx),
            Poll::Ready(developer_mode_off())
        );
    }
}
