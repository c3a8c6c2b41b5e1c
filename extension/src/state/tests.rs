//! The shared set, the ways of sharing, the restore gate and the pending
//! presses: each rule as the worker relies on it.

use super::*;

#[test]
fn a_release_waits_for_the_presses_of_its_own_input_only() {
    let mut pending = PendingPresses::default();
    let left = pending.sent(TabId(1), "button:left".into());
    let key = pending.sent(TabId(1), "key:KeyA".into());
    let other_tab = pending.sent(TabId(2), "button:left".into());
    let waiting = pending.waiting(TabId(1), "button:left");
    assert_eq!(waiting.len(), 1);
    assert!(waiting[0].same(&left) && !waiting[0].is_open());
    assert!(pending.waiting(TabId(1), "touch").is_empty());
    pending.answered(&left);
    assert!(left.is_open());
    assert!(pending.waiting(TabId(1), "button:left").is_empty());
    assert!(!key.is_open() && !other_tab.is_open());
    // A page that went away opens its own presses' gates only.
    pending.gone(TabId(1));
    assert!(key.is_open() && !other_tab.is_open());
    assert!(pending.waiting(TabId(1), "key:KeyA").is_empty());
    assert_eq!(pending.waiting(TabId(2), "button:left").len(), 1);
    // A late answer of a gone press changes nothing.
    pending.answered(&key);
    assert_eq!(pending.waiting(TabId(2), "button:left").len(), 1);
}

fn restored(ids: &[i32]) -> SharedSet {
    let mut set = SharedSet::default();
    set.finish_restore(ids.iter().map(|i| TabId(*i)).collect(), &[]);
    set
}

#[test]
fn share_reserves_and_caps() {
    let mut set = restored(&[]);
    assert_eq!(set.begin_share(TabId(1)), Ok(ShareStart::Proceed));
    assert_eq!(set.begin_share(TabId(1)), Err(ShareRefusal::Busy));
    assert_eq!(set.unshare(TabId(1)), Err(ShareRefusal::Busy));
    assert_eq!(
        set.finish_share(TabId(1), true),
        vec![Effect::Persist, Effect::SendShared]
    );
    assert_eq!(set.begin_share(TabId(1)), Ok(ShareStart::AlreadyShared));
    assert_eq!(set.begin_share(TabId(2)), Ok(ShareStart::Proceed));
    assert!(set.finish_share(TabId(2), false).is_empty());
    assert_eq!(set.ids(), &[TabId(1)]);

    for i in 10..(10 + MAX_SHARED_TABS as i32 - 1) {
        assert_eq!(set.begin_share(TabId(i)), Ok(ShareStart::Proceed));
    }
    assert_eq!(set.begin_share(TabId(99)), Err(ShareRefusal::Full));
    assert_eq!(set.unshare(TabId(1)), Ok(true));
    assert_eq!(set.unshare(TabId(1)), Ok(false));
    assert_eq!(set.begin_share(TabId(99)), Ok(ShareStart::Proceed));
}

#[test]
fn room_is_checked_before_a_tab_is_opened() {
    let mut set = restored(&[]);
    for i in 0..(MAX_SHARED_TABS as i32 - 1) {
        set.begin_share(TabId(i)).expect("room");
        set.finish_share(TabId(i), true);
    }
    assert_eq!(set.has_room(), Ok(()));
    // A pending share takes the last place.
    assert_eq!(set.begin_share(TabId(100)), Ok(ShareStart::Proceed));
    assert!(set.is_pending(TabId(100)));
    assert_eq!(set.has_room(), Err(ShareRefusal::Full));
    set.finish_share(TabId(100), false);
    assert!(!set.is_pending(TabId(100)));
    assert_eq!(set.has_room(), Ok(()));
}

#[test]
fn group_moves_follow_the_person() {
    let mut set = SharedSet::default();
    // Before the restore nothing is decided.
    assert_eq!(set.group_move(TabId(1), true), GroupMove::Nothing);
    set.finish_restore(vec![TabId(1)], &[]);
    assert_eq!(set.group_move(TabId(2), true), GroupMove::Share);
    assert_eq!(set.group_move(TabId(1), false), GroupMove::Unshare);
    assert_eq!(set.group_move(TabId(1), true), GroupMove::Nothing);
    assert_eq!(set.group_move(TabId(2), false), GroupMove::Nothing);
    // The worker's own share groups the tab while it is pending.
    set.begin_share(TabId(3)).expect("room");
    assert_eq!(set.group_move(TabId(3), false), GroupMove::Nothing);
    assert_eq!(set.group_move(TabId(3), true), GroupMove::Nothing);
    set.finish_share(TabId(3), true);
    assert_eq!(set.group_move(TabId(3), true), GroupMove::Nothing);
    // Its unshare leaves the set before it ungroups the tab.
    assert_eq!(set.unshare(TabId(3)), Ok(true));
    assert_eq!(set.group_move(TabId(3), false), GroupMove::Nothing);
}

#[test]
fn share_origins_judge_urls() {
    for origin in [ShareOrigin::Popup, ShareOrigin::GroupDrag] {
        assert_eq!(
            origin.check_url("about:blank", &LocalFiles::NONE),
            Err(Blocked::BrowserPage)
        );
        assert_eq!(
            origin.check_url("https://example.com/", &LocalFiles::NONE),
            Ok(())
        );
    }
    assert_eq!(
        ShareOrigin::Created.check_url("about:blank", &LocalFiles::NONE),
        Ok(())
    );
    assert_eq!(
        ShareOrigin::Created.check_url("data:text/html,x", &LocalFiles::NONE),
        Err(Blocked::DataUrl)
    );
    assert!(ShareOrigin::Popup.needs_grouping());
    assert!(ShareOrigin::Created.needs_grouping());
    assert!(!ShareOrigin::GroupDrag.needs_grouping());
    // A tab a page opened is shared only where the group shows it.
    assert_eq!(
        ShareOrigin::Opened.check_url("about:blank", &LocalFiles::NONE),
        Ok(())
    );
    assert_eq!(ShareOrigin::Opened.check_url("", &LocalFiles::NONE), Ok(()));
    assert_eq!(
        ShareOrigin::Opened.check_url("chrome://settings", &LocalFiles::NONE),
        Err(Blocked::BrowserPage)
    );
    assert!(ShareOrigin::Opened.needs_grouping() && ShareOrigin::Opened.must_be_grouped());
    assert!(!ShareOrigin::Popup.must_be_grouped() && !ShareOrigin::Created.must_be_grouped());
}

#[test]
fn share_failures_on_the_wire() {
    let blocked = ShareFailure::Blocked(Blocked::LocalFile).to_wire();
    assert_eq!(blocked.kind, ErrorKind::BlockedTarget);
    assert!(
        blocked.message.contains("local file"),
        "{}",
        blocked.message
    );
    let full = ShareFailure::Refused(ShareRefusal::Full).to_wire();
    assert_eq!(full.kind, ErrorKind::CommandFailed);
    assert_eq!(
        full.message,
        format!("at most {MAX_SHARED_TABS} tabs can be shared at once")
    );
    assert_eq!(
        ShareFailure::Refused(ShareRefusal::Busy).to_wire().kind,
        ErrorKind::Busy
    );
    let browser = ShareFailure::Browser("could not attach".into()).to_wire();
    assert_eq!(
        (browser.kind, browser.message.as_str()),
        (ErrorKind::CommandFailed, "could not attach")
    );
}

#[test]
fn enable_commands_are_parsed_pairs() {
    let commands = enable_commands().expect("the shared list parses");
    assert_eq!(commands.len(), ENABLED_CDP_DOMAINS.len());
    assert_eq!(commands[0], ("Page.enable", serde_json::json!({})));
    assert!(commands.contains(&(
        "Page.setLifecycleEventsEnabled",
        serde_json::json!({"enabled": true})
    )));
    assert!(commands.iter().any(|(m, _)| *m == "Runtime.enable"));
}

#[test]
fn detach_and_close_drop_shared_tabs_only() {
    let mut set = restored(&[1, 2]);
    assert!(set.on_detach(TabId(3), "target_closed").is_empty());
    assert_eq!(
        set.on_detach(TabId(1), "canceled_by_user"),
        vec![
            Effect::Persist,
            Effect::Send(Event::Detached {
                tab_id: TabId(1),
                reason: "canceled_by_user".into()
            }),
            Effect::SendShared,
            Effect::Ungroup(TabId(1))
        ]
    );
    assert_eq!(
        set.on_removed(TabId(2), false),
        vec![
            Effect::Persist,
            Effect::Send(Event::TabClosed {
                tab_id: TabId(2),
                with_window: false
            }),
            Effect::SendShared
        ]
    );
    // The detach that follows a close finds nothing left to do.
    assert!(set.on_detach(TabId(2), "target_closed").is_empty());
    assert_eq!(set.persisted(), Persisted::default());
}

#[test]
fn updates_and_cdp_events_concern_shared_tabs() {
    let set = restored(&[4]);
    assert_eq!(
        set.on_updated(TabId(4), true, false),
        vec![Effect::SendShared]
    );
    assert_eq!(
        set.on_updated(TabId(4), false, true),
        vec![Effect::SendShared]
    );
    assert!(set.on_updated(TabId(4), false, false).is_empty());
    assert!(set.on_updated(TabId(5), true, true).is_empty());
    assert!(set.forwards_cdp_event(TabId(4), "Page.loadEventFired"));
    assert!(!set.forwards_cdp_event(TabId(4), "Network.dataReceived"));
    assert!(!set.forwards_cdp_event(TabId(5), "Page.loadEventFired"));
}

#[test]
fn tabs_gone_during_restore_are_not_kept() {
    let mut set = SharedSet::default();
    assert!(set.on_removed(TabId(1), false).is_empty());
    assert!(set.on_detach(TabId(2), "canceled_by_user").is_empty());
    assert!(!set.restore_wanted(TabId(1)));
    assert!(set.restore_wanted(TabId(3)));
    let dropped = set.finish_restore(vec![TabId(2), TabId(3), TabId(3)], &[]);
    assert_eq!(dropped, vec![TabId(2)]);
    assert_eq!(set.ids(), &[TabId(3)]);
    assert!(set.is_restored());
}

#[test]
fn taking_and_handing_back_control() {
    let mut set = restored(&[1, 2]);
    assert_eq!(set.take_control(TabId(3)), Err(NotShared(TabId(3))));
    assert_eq!(
        set.take_control(TabId(2)),
        Ok(vec![Effect::Persist, Effect::SendShared])
    );
    // No toggle: taking again changes nothing.
    assert_eq!(set.take_control(TabId(2)), Ok(vec![]));
    assert!(set.is_human(TabId(2)) && !set.is_human(TabId(1)));
    assert_eq!(set.human_ids(), vec![TabId(2)]);
    assert_eq!(
        serde_json::to_value(set.persisted()).expect("serialises"),
        serde_json::json!({"sharedTabs":[1,2],"humanControl":[2]})
    );
    assert_eq!(
        set.hand_back(TabId(2)),
        vec![Effect::Persist, Effect::SendShared]
    );
    assert!(set.hand_back(TabId(2)).is_empty());
    assert!(!set.is_human(TabId(2)));
}

#[test]
fn unsharing_ends_human_control() {
    let mut set = restored(&[1, 2, 3]);
    for tab in [1, 2, 3] {
        set.take_control(TabId(tab)).expect("shared");
    }
    assert_eq!(set.unshare(TabId(1)), Ok(true));
    set.on_detach(TabId(2), "target_closed");
    set.on_removed(TabId(3), false);
    assert!(set.human_ids().is_empty());
    // Sharing again starts without human control.
    assert_eq!(set.begin_share(TabId(1)), Ok(ShareStart::Proceed));
    set.finish_share(TabId(1), true);
    assert!(!set.is_human(TabId(1)));
}

#[test]
fn human_control_survives_a_restore() {
    let saved: Persisted =
        serde_json::from_value(serde_json::json!({"sharedTabs":[4,5,6],"humanControl":[5,6]}))
            .expect("parses");
    let mut set = SharedSet::default();
    set.on_removed(TabId(6), false);
    let human: Vec<TabId> = saved.human_control.iter().copied().map(TabId).collect();
    let kept = saved.shared_tabs.iter().copied().map(TabId).collect();
    assert_eq!(set.finish_restore(kept, &human), vec![TabId(6)]);
    assert_eq!(
        set.persisted(),
        Persisted {
            shared_tabs: vec![4, 5],
            human_control: vec![5]
        }
    );
    // A set saved before human control existed reads as none.
    let old: Persisted =
        serde_json::from_value(serde_json::json!({"sharedTabs":[1]})).expect("parses");
    assert!(old.human_control.is_empty());
}

#[test]
fn our_own_reattach_is_not_an_unshare() {
    let mut set = restored(&[1, 2, 3]);
    set.take_control(TabId(1)).expect("shared");
    assert!(set.begin_reattach(TabId(1)));
    assert!(!set.begin_reattach(TabId(9)));
    assert!(set.is_reattaching(TabId(1)));
    assert!(set.on_detach(TabId(1), "target_closed").is_empty());
    assert_eq!(set.end_reattach(TabId(1), true), ReattachEnd::Keep);
    assert!(set.contains(TabId(1)) && set.is_human(TabId(1)));

    // Unshared during the re-attach: the new session must go.
    set.begin_reattach(TabId(2));
    assert_eq!(set.unshare(TabId(2)), Ok(true));
    assert_eq!(set.end_reattach(TabId(2), true), ReattachEnd::DetachAgain);

    // Could not attach again: the tab is dropped like a detach.
    set.begin_reattach(TabId(3));
    match set.end_reattach(TabId(3), false) {
        ReattachEnd::Dropped(effects) => {
            assert!(effects.contains(&Effect::Send(Event::Detached {
                tab_id: TabId(3),
                reason: "reattach_failed".into()
            })))
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(set.ids(), &[TabId(1)]);
    // After the re-attach a detach is a detach again.
    assert!(!set.on_detach(TabId(1), "target_closed").is_empty());
}

#[test]
fn cdp_errors_keep_the_message() {
    assert_eq!(
        cdp_error_message(r#"{"code":-32601,"message":"'Foo.bar' wasn't found"}"#),
        "'Foo.bar' wasn't found"
    );
    assert_eq!(
        cdp_error_message("Detached while handling command."),
        "Detached while handling command."
    );
    assert!(is_already_attached(
        "Another debugger is already attached to the tab with id: 5."
    ));
}

#[test]
fn gate_releases_waiters_when_opened() {
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

    let gate = Gate::default();
    let mut wait = std::pin::pin!(gate.wait());
    assert_eq!(wait.as_mut().poll(&mut cx), Poll::Pending);
    gate.open();
    assert_eq!(count.0.load(Ordering::SeqCst), 1);
    assert!(gate.is_open());
    assert_eq!(wait.as_mut().poll(&mut cx), Poll::Ready(()));
    assert_eq!(std::pin::pin!(gate.wait()).poll(&mut cx), Poll::Ready(()));
}

#[test]
fn holds_answers_as_contains_does() {
    let cases = [
        ("abc", "b"),
        ("abc", ""),
        ("", ""),
        ("", "a"),
        ("abc", "abcd"),
        (
            "x Not attached to an active page",
            "Not attached to an active page",
        ),
        ("Not attached", "attached to"),
    ];
    for (text, part) in cases {
        assert_eq!(holds(text, part), text.contains(part), "{text:?} {part:?}");
    }
}
