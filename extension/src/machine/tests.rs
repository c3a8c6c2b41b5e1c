//! The worker's state machine: what each event changes across its states,
//! and the effects it asks for, in order.

use super::*;
use crate::effect::Effect;
use cotab_shared::native::CommandClass;
use cotab_shared::reach::Blocked;
use cotab_shared::ErrorKind;
use serde_json::json;
use std::future::Future as _;
use std::task::{Context, Poll, Waker};

const T: TabId = TabId(3);
const U: TabId = TabId(4);
const MAIN: &str = "main-frame";
const KEY_EVENT: &str = "Input.dispatchKeyEvent";

/// A machine sharing `tabs`, each attached to a web page.
fn sharing(tabs: &[TabId]) -> Machine {
    let mut m = Machine::default();
    m.shared.finish_restore(tabs.to_vec(), &[]);
    for tab in tabs {
        m.pages.attaching(*tab);
        m.pages.attached(*tab, MAIN, "https://example.com/", None);
    }
    m
}

fn key_down() -> Value {
    json!({"type": "rawKeyDown", "key": "a", "code": "KeyA", "windowsVirtualKeyCode": 65})
}

/// The error the command's abort fired with, if it fired.
fn fired(abort: &crate::control::Abort) -> Option<ErrorKind> {
    let wait = std::pin::pin!(abort.wait());
    match wait.poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(e) => Some(e.kind),
        Poll::Pending => None,
    }
}

fn logged(effects: &[Effect]) -> Vec<&str> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Log { line, .. } => Some(line.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_closed_tab_fails_its_commands_forgets_what_it_held_and_ends_its_share() {
    let mut m = sharing(&[T, U]);
    let (_, on_t) = m.in_flight.register(T, CommandClass::Observe);
    let (_, on_u) = m.in_flight.register(U, CommandClass::Act);
    assert!(m.held.before_send(T, KEY_EVENT, &key_down()));
    m.facts.dialog_opened(T);
    let effects = m.tab_removed(T, true);
    assert_eq!(fired(&on_t), Some(ErrorKind::UnknownOutcome));
    assert_eq!(fired(&on_u), None, "only that tab's commands");
    assert!(m.held.tabs().is_empty(), "its held input is gone with it");
    assert_eq!(m.facts.dialogs(T), 0);
    assert_eq!(m.pages.blocked(T), None);
    assert!(!m.shared.contains(T) && m.shared.contains(U));
    assert_eq!(effects[..2], [Effect::PressesGone(T), Effect::Persist]);
    assert!(effects.contains(&Effect::SendShared), "{effects:?}");
    assert!(effects.iter().any(
        |e| matches!(e, Effect::Send(Event::TabClosed { tab_id, with_window: true })
            if *tab_id == T)
    ));
}

#[test]
fn a_detach_by_someone_else_releases_through_a_session_of_its_own() {
    let mut m = sharing(&[T]);
    let (_, abort) = m.in_flight.register(T, CommandClass::Act);
    m.held.before_send(T, KEY_EVENT, &key_down());
    let effects = m.detached(T, "canceled_by_user");
    assert_eq!(fired(&abort), Some(ErrorKind::UnknownOutcome));
    assert!(!m.shared.contains(T));
    assert_eq!(effects.first(), Some(&Effect::PressesGone(T)));
    assert_eq!(effects.last(), Some(&Effect::ReleaseDetached(T)));
    assert_eq!(m.held.tabs(), vec![T], "the release-only session sends it");
    assert!(effects.contains(&Effect::Ungroup(T)));
}

#[test]
fn a_detach_as_the_tab_closes_forgets_what_it_held() {
    let mut m = sharing(&[T]);
    m.held.before_send(T, KEY_EVENT, &key_down());
    let effects = m.detached(T, TARGET_CLOSED);
    assert!(m.held.tabs().is_empty());
    assert!(!effects.contains(&Effect::ReleaseDetached(T)));
    assert_eq!(effects.last(), Some(&Effect::Persist));
}

#[test]
fn the_workers_own_reattach_detach_changes_nothing() {
    let mut m = sharing(&[T]);
    let (_, abort) = m.in_flight.register(T, CommandClass::Observe);
    assert!(m.shared.begin_reattach(T));
    assert_eq!(m.detached(T, "canceled_by_user"), vec![]);
    assert_eq!(fired(&abort), None);
    assert!(m.shared.contains(T));
}

#[test]
fn a_crash_fails_commands_and_forgets_held_input_but_keeps_the_share() {
    let mut m = sharing(&[T]);
    let (_, abort) = m.in_flight.register(T, CommandClass::Observe);
    m.held.before_send(T, KEY_EVENT, &key_down());
    let effects = m.cdp_event(T, "Inspector.targetCrashed".to_owned(), Some(json!({})));
    assert_eq!(fired(&abort), Some(ErrorKind::UnknownOutcome));
    assert!(m.held.tabs().is_empty());
    assert!(m.facts.is_crashed(T));
    assert!(m.shared.contains(T));
    assert!(
        m.wants_cdp_event(T, "Inspector.targetReloadedAfterCrash"),
        "noted, though never forwarded"
    );
    assert_eq!(
        logged(&effects),
        ["the page in tab 3 crashed (1 command(s) in flight failed)"]
    );
    m.cdp_event(
        T,
        "Inspector.targetReloadedAfterCrash".to_owned(),
        Some(json!({})),
    );
    assert!(!m.facts.is_crashed(T), "a reload loads it again");
}

#[test]
fn a_crash_of_a_tab_not_shared_is_not_noted() {
    let mut m = sharing(&[]);
    assert_eq!(
        m.cdp_event(T, "Inspector.targetCrashed".to_owned(), Some(json!({}))),
        vec![]
    );
    assert!(!m.facts.is_crashed(T));
}

#[test]
fn a_page_that_becomes_blocked_fails_its_commands_releases_and_tells_the_host() {
    let mut m = sharing(&[T]);
    let (_, abort) = m.in_flight.register(T, CommandClass::Observe);
    let effects = m.cdp_event(
        T,
        "Page.frameStartedNavigating".to_owned(),
        Some(json!({"frameId": MAIN, "url": "file:///etc/passwd", "loaderId": "L"})),
    );
    assert_eq!(fired(&abort), Some(ErrorKind::BlockedTarget));
    assert_eq!(m.pages.blocked(T), Some(Blocked::LocalFile));
    assert_eq!(effects[1..], [Effect::ReleaseHeld(T), Effect::SendShared]);
    // Nothing of a blocked page reaches the host.
    let console = m.cdp_event(
        T,
        "Runtime.consoleAPICalled".to_owned(),
        Some(json!({"type": "log", "args": []})),
    );
    assert_eq!(console, vec![]);
}

#[test]
fn a_forwarded_event_of_a_shared_web_page_goes_to_the_host() {
    let mut m = sharing(&[T]);
    let params = json!({"type": "log", "args": []});
    assert!(m.wants_cdp_event(T, "Runtime.consoleAPICalled"));
    assert!(
        !m.wants_cdp_event(U, "Runtime.consoleAPICalled"),
        "U is not shared"
    );
    assert!(
        m.wants_cdp_event(U, "Page.frameNavigated"),
        "tracked for any tab"
    );
    assert_eq!(
        m.cdp_event(
            T,
            "Runtime.consoleAPICalled".to_owned(),
            Some(params.clone())
        ),
        vec![Effect::Send(Event::Cdp {
            session: None,
            tab_id: T,
            method: "Runtime.consoleAPICalled".to_owned(),
            params
        })]
    );
    assert_eq!(
        m.cdp_event(T, "Runtime.consoleAPICalled".to_owned(), None),
        vec![],
        "params that could not be read are dropped"
    );
    assert!(!m.wants_cdp_event(T, "Network.dataReceived"));
    assert!(
        m.wants_cdp_event(U, "Page.javascriptDialogOpening"),
        "noted for any tab"
    );
    m.cdp_event(
        U,
        "Page.javascriptDialogOpening".to_owned(),
        Some(json!({})),
    );
    assert_eq!(m.facts.dialogs(U), 1);
}

#[test]
fn a_url_change_to_a_blocked_page_suspends_and_a_title_change_is_sent() {
    let mut m = sharing(&[T]);
    let effects = m.tab_updated(T, Some("chrome://settings/"), false);
    assert_eq!(m.pages.blocked(T), Some(Blocked::BrowserPage));
    assert!(effects.contains(&Effect::ReleaseHeld(T)));
    let mut m = sharing(&[T]);
    assert_eq!(m.tab_updated(T, None, true), vec![Effect::SendShared]);
    assert_eq!(m.tab_updated(U, None, true), vec![], "not shared");
}

#[test]
fn a_policy_that_allows_a_local_file_makes_its_tab_driveable() {
    let mut m = sharing(&[T]);
    m.tab_updated(T, Some("file:///srv/site/index.html"), false);
    assert_eq!(m.pages.blocked(T), Some(Blocked::LocalFile));
    let effects = m.policy(LocalFiles(vec!["/srv/site".into()]));
    assert_eq!(m.pages.blocked(T), None);
    assert_eq!(
        effects,
        vec![
            Effect::info("tab 3 shows a web page again".to_owned()),
            Effect::SendShared
        ]
    );
}

#[test]
fn a_dropped_link_fails_every_command_and_forgets_who_controls_what() {
    let mut m = sharing(&[T, U]);
    let (_, a) = m.in_flight.register(T, CommandClass::Observe);
    let (_, b) = m.in_flight.register(U, CommandClass::Privileged);
    m.controllers(
        vec![TabControl {
            tab_id: T,
            holder: Holder::Nobody,
        }],
        vec![],
    );
    assert_eq!(m.holders.len(), 1);
    let (delay, said) = m.link_dropped("the native host exited".to_owned());
    assert!(delay > 0);
    assert_eq!(
        (fired(&a), fired(&b)),
        (
            Some(ErrorKind::UnknownOutcome),
            Some(ErrorKind::UnknownOutcome)
        )
    );
    assert!(m.holders.is_empty());
    assert!(matches!(said, Effect::Log { warn: true, .. }));
    assert!(!m.link.connected());
}

#[test]
fn taking_control_fails_agent_actions_and_asks_for_a_reattach_after_raw_cdp() {
    let mut m = sharing(&[T]);
    let (_, act) = m.in_flight.register(T, CommandClass::Act);
    let (_, read) = m.in_flight.register(T, CommandClass::Observe);
    let (effects, reattach) = m.take_control(T).expect("shared");
    assert_eq!(
        (fired(&act), fired(&read)),
        (Some(ErrorKind::HumanHasControl), None)
    );
    assert!(!reattach);
    assert_eq!(
        logged(&effects),
        ["the person took control of tab 3 (1 agent action(s) failed)"]
    );
    assert!(m.shared.is_human(T));
    let mut m = sharing(&[T]);
    m.facts.raw_cdp_sent(T);
    assert!(m.take_control(T).expect("shared").1);
    assert!(m.take_control(U).is_err(), "not shared");
}

#[test]
fn developer_mode_off_fails_privileged_commands_and_asks_for_a_reattach() {
    let mut m = sharing(&[T]);
    let (on, reattach) = m.developer_mode_set(true);
    assert!(!reattach);
    assert_eq!(
        on.last(),
        Some(&Effect::Send(Event::DeveloperMode { enabled: true }))
    );
    assert_eq!(m.developer_mode_set(true), (vec![], false), "already on");
    let (_, raw) = m.in_flight.register(T, CommandClass::Privileged);
    let (_, act) = m.in_flight.register(T, CommandClass::Act);
    let (off, reattach) = m.developer_mode_set(false);
    assert!(reattach);
    assert_eq!(
        (fired(&raw), fired(&act)),
        (Some(ErrorKind::DeveloperModeOff), None)
    );
    assert_eq!(
        logged(&off),
        ["developer mode off: 1 privileged command(s) failed, re-attaching shared tabs"]
    );
    // Turned on during the re-attach, it is told when the re-attach ends.
    assert!(m.developer.begin_reattach().is_some());
    let (on, _) = m.developer_mode_set(true);
    assert!(!on.iter().any(|e| matches!(e, Effect::Send(_))), "{on:?}");
}

#[test]
fn commands_are_admitted_by_the_tabs_share_control_and_page() {
    let mut m = sharing(&[T]);
    assert_eq!(m.admit(T, CommandClass::Act), Ok(Admission::Run));
    assert_eq!(
        m.admit(T, CommandClass::Privileged),
        Ok(Admission::NeedsDeveloperMode)
    );
    assert_eq!(
        m.admit(U, CommandClass::Observe).map_err(|e| e.kind),
        Err(ErrorKind::TabNotShared)
    );
    m.take_control(T).expect("shared");
    assert_eq!(
        m.admit(T, CommandClass::Act).map_err(|e| e.kind),
        Err(ErrorKind::HumanHasControl)
    );
    assert_eq!(m.admit(T, CommandClass::Release), Ok(Admission::Run));
    m.tab_updated(T, Some("file:///etc/hosts"), false);
    assert_eq!(
        m.admit(T, CommandClass::Release).map_err(|e| e.kind),
        Err(ErrorKind::BlockedTarget)
    );
}

#[test]
fn a_tab_is_listed_with_its_shared_opener_and_without_a_blocked_pages_url() {
    let mut m = sharing(&[T, U]);
    m.facts.opened_by(U, T);
    let info = m.tab_info(U, "https://example.com/new", Some("New"));
    assert_eq!(
        (
            info.url.as_str(),
            info.title.as_str(),
            info.opener,
            info.blocked
        ),
        ("https://example.com/new", "New", Some(T), None)
    );
    m.tab_removed(T, false);
    assert_eq!(
        m.tab_info(U, "https://e/", None).opener,
        None,
        "no longer shared"
    );
    m.tab_updated(U, Some("chrome://history/"), false);
    let info = m.tab_info(U, "chrome://history/", Some("History"));
    assert_eq!(
        (info.url.as_str(), info.title.as_str(), info.blocked),
        ("", "", Some(Blocked::BrowserPage))
    );
}

#[test]
fn the_popup_sees_who_controls_what_and_no_request_comes_from_a_shared_tab() {
    let mut m = sharing(&[T, U]);
    m.controllers(
        vec![TabControl {
            tab_id: U,
            holder: Holder::agent("a"),
        }],
        vec![],
    );
    m.take_control(T).expect("shared");
    m.share_error = Some("refused".to_owned());
    let state = m.popup_state(true);
    assert_eq!(state.shared, vec![T, U]);
    assert_eq!(state.human_control, vec![T]);
    assert_eq!(
        state.controllers,
        vec![
            TabControl {
                tab_id: T,
                holder: Holder::Human
            },
            TabControl {
                tab_id: U,
                holder: Holder::agent("a")
            }
        ]
    );
    assert!(state.developer_mode && !state.connected);
    assert_eq!(state.share_error.as_deref(), Some("refused"));
    assert!(m.refuses_popup_in(T));
    assert!(!m.refuses_popup_in(TabId(9)));
    assert_eq!(
        m.shared.begin_share(TabId(9)),
        Ok(crate::state::ShareStart::Proceed)
    );
    assert!(m.refuses_popup_in(TabId(9)), "a tab being shared");
}

#[test]
fn a_tab_the_browser_unshared_says_why_until_it_closes_or_is_shared_again() {
    let mut m = sharing(&[T, U]);
    m.detached(T, "canceled_by_user");
    m.detached(U, TARGET_CLOSED);
    let state = m.popup_state(false);
    assert_eq!(
        state.unshared,
        vec![
            Unshared {
                tab_id: T,
                why: "the browser's debugging bar was cancelled".into()
            },
            Unshared {
                tab_id: U,
                why: "the tab went to a page the browser keeps from extensions".into()
            },
        ]
    );
    // Shared again: its old note is not shown (the worker also drops it).
    m.shared.begin_share(T).expect("room");
    m.shared.finish_share(T, true);
    assert_eq!(m.popup_state(false).unshared.len(), 1);
    m.tab_removed(U, false);
    assert!(m.popup_state(false).unshared.is_empty());
    // A detach of a tab that was not shared says nothing.
    m.detached(TabId(9), "canceled_by_user");
    assert!(m.popup_state(false).unshared.is_empty());
}
