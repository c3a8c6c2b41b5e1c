//! Refs, dialogs, the console buffer, lifecycle events and capture digests,
//! as the broker keeps them.

use super::*;
use crate::broker::tests::*;
use crate::broker::{CaptureMark, Effect, Need};
use cotab_shared::controller::DialogKind;
use cotab_shared::controller::{Ref, RevokeReason};
use serde_json::json;

fn node(id: i64) -> NodeRef {
    NodeRef {
        frame: "F".into(),
        backend_node_id: id,
    }
}

fn snapshot(c: &mut Core, s: SessionId, ids: &[i64]) -> u64 {
    snapshot_of(c, s, ids, false)
}

/// [`snapshot`], of part of the page when `partial`.
fn snapshot_of(c: &mut Core, s: SessionId, ids: &[i64], partial: bool) -> u64 {
    let f = c.fence(s, A, Need::Observe).expect("fence");
    let mark = c.snapshot_started(&f);
    // More numbers reserved than used, as a page's nodes outnumber its
    // refs.
    let reserved = ids.len() as u64 + 5;
    let numbers = c.reserve_refs(&f, reserved).expect("numbers");
    let first = numbers.first();
    finish(c, &f, mark, numbers, reserved, ids, partial);
    first
}

/// Numbers the elements `ids` with `numbers` and stores them as the
/// snapshot of `f`'s tab.
fn finish(
    c: &mut Core,
    f: &crate::broker::Fence,
    mark: crate::broker::SnapshotMark,
    numbers: RefNumbers,
    reserved: u64,
    ids: &[i64],
    partial: bool,
) {
    let text = (!partial).then_some("- document");
    finish_with(c, f, mark, numbers, reserved, ids, text);
}

/// [`finish`], a whole snapshot when it has a `text`: what it replaces.
fn finish_with(
    c: &mut Core,
    f: &crate::broker::Fence,
    mark: crate::broker::SnapshotMark,
    mut numbers: RefNumbers,
    reserved: u64,
    ids: &[i64],
    text: Option<&str>,
) -> Option<Given> {
    let refs = ids
        .iter()
        .map(|i| {
            let n = node(*i);
            (numbers.number(&n), n)
        })
        .collect();
    c.snapshot_finished(
        f,
        mark,
        (numbers.first(), numbers.fresh()),
        reserved,
        refs,
        text.map(std::sync::Arc::from),
    )
    .expect("stored")
}

fn resolve(c: &Core, s: SessionId, r: &str) -> Result<NodeRef, ErrorKind> {
    let f = c.fence(s, A, Need::Observe).expect("fence");
    c.resolve_ref(&f, &Ref(r.into())).map_err(|e| e.kind)
}

#[test]
fn refs_are_numbered_across_snapshots_and_only_the_latest_is_valid() {
    let (mut c, s) = setup();
    assert_eq!(snapshot(&mut c, s, &[10, 11, 12]), 1);
    assert_eq!(resolve(&c, s, "e2"), Ok(node(11)));
    assert_eq!(snapshot(&mut c, s, &[20, 21]), 4);
    assert_eq!(resolve(&c, s, "e4"), Ok(node(20)));
    assert_eq!(resolve(&c, s, "e5"), Ok(node(21)));
    // An older snapshot's ref never reaches another element.
    assert_eq!(resolve(&c, s, "e2"), Err(ErrorKind::StaleRef));
    assert_eq!(resolve(&c, s, "e6"), Err(ErrorKind::StaleRef));
    assert_eq!(resolve(&c, s, "x1"), Err(ErrorKind::InvalidRequest));
    assert_eq!(resolve(&c, s, "e"), Err(ErrorKind::InvalidRequest));
}

#[test]
fn a_partial_snapshot_adds_its_refs_and_keeps_the_latest_ones() {
    let (mut c, s) = setup();
    snapshot(&mut c, s, &[10, 11]);
    // One element's subtree: 11 again and 12, new.
    snapshot_of(&mut c, s, &[11, 12], true);
    assert_eq!(resolve(&c, s, "e1"), Ok(node(10)), "kept");
    assert_eq!(resolve(&c, s, "e2"), Ok(node(11)), "same number");
    let twelve = (3..20)
        .find(|n| resolve(&c, s, &format!("e{n}")) == Ok(node(12)))
        .expect("12 numbered");
    // A full snapshot replaces them all.
    snapshot(&mut c, s, &[12]);
    assert_eq!(resolve(&c, s, "e1"), Err(ErrorKind::StaleRef));
    assert_eq!(resolve(&c, s, &format!("e{twelve}")), Ok(node(12)));
    // A navigation ends a partial snapshot's refs too.
    snapshot_of(&mut c, s, &[10], true);
    c.on_main_frame_navigated(TabId(1));
    assert_eq!(resolve(&c, s, "e1"), Err(ErrorKind::StaleRef));
}

#[test]
fn a_ref_never_issued_is_told_from_a_stale_one() {
    let (mut c, s) = setup();
    let message = |c: &Core, r: &str| {
        let f = c.fence(s, A, Need::Observe).expect("fence");
        c.resolve_ref(&f, &Ref(r.into()))
            .map_err(|e| (e.kind, e.message))
            .expect_err("refused")
    };
    let (kind, said) = message(&c, "e1");
    assert_eq!(kind, ErrorKind::StaleRef);
    assert!(said.contains("e1 was never issued"), "{said}");
    snapshot(&mut c, s, &[10, 11]);
    snapshot(&mut c, s, &[20]);
    let (_, said) = message(&c, "e2");
    assert!(said.contains("latest snapshot"), "{said}");
    // The numbers the last snapshot reserved and did not use went back:
    // never issued.
    let (_, said) = message(&c, "e4");
    assert!(said.contains("e4 was never issued"), "{said}");
    let (_, said) = message(&c, "e9999");
    assert!(said.contains("e9999 was never issued"), "{said}");
}

#[test]
fn an_element_keeps_its_ref_across_snapshots_of_its_document() {
    let (mut c, s) = setup();
    assert_eq!(snapshot(&mut c, s, &[10, 11, 12]), 1);
    // 11 is gone, 13 is new: the others keep their numbers, the new one
    // takes a number never used.
    snapshot(&mut c, s, &[10, 12, 13]);
    assert_eq!(resolve(&c, s, "e1"), Ok(node(10)));
    assert_eq!(resolve(&c, s, "e3"), Ok(node(12)));
    assert_eq!(
        resolve(&c, s, "e2"),
        Err(ErrorKind::StaleRef),
        "its element left"
    );
    assert_eq!(resolve(&c, s, "e4"), Ok(node(13)));
    // An element that comes back keeps the number it had.
    snapshot(&mut c, s, &[11, 13]);
    assert_eq!(resolve(&c, s, "e2"), Ok(node(11)));
    assert_eq!(resolve(&c, s, "e1"), Err(ErrorKind::StaleRef));
    // A new document numbers afresh: no ref of the old one reaches it.
    c.on_main_frame_navigated(TabId(1));
    let first = snapshot(&mut c, s, &[10]);
    assert!(first > 4, "{first}");
    assert_eq!(resolve(&c, s, &format!("e{first}")), Ok(node(10)));
    assert_eq!(resolve(&c, s, "e1"), Err(ErrorKind::StaleRef));
}

#[test]
fn snapshots_rendered_at_once_take_numbers_apart() {
    let (mut c, s) = setup();
    let f = c.fence(s, A, Need::Observe).expect("fence");
    let mark = c.snapshot_started(&f);
    // Two snapshots of the session render at the same time, each with
    // more numbers reserved than it will use.
    let a = c.reserve_refs(&f, 10).expect("a");
    let b = c.reserve_refs(&f, 10).expect("b");
    assert_eq!((a.first(), b.first()), (1, 11));
    finish(&mut c, &f, mark, a, 10, &[10, 11], false);
    // `b` reserved after `a`'s numbers: they stay taken.
    assert_eq!(c.reserve_refs(&f, 0).expect("peek").first(), 21);
    finish(&mut c, &f, mark, b, 10, &[20], false);
    assert_eq!(resolve(&c, s, "e11"), Ok(node(20)));
    assert_eq!(resolve(&c, s, "e1"), Err(ErrorKind::StaleRef));
    // Nothing reserved after `b`: its unused numbers came back.
    assert_eq!(snapshot(&mut c, s, &[30]), 12);
}

/// A whole snapshot of `text` taken from start to end, as `finish_with`.
fn whole(c: &mut Core, s: SessionId, text: &str) -> Option<(String, bool)> {
    let f = c.fence(s, A, Need::Observe).expect("fence");
    let mark = c.snapshot_started(&f);
    let numbers = c.reserve_refs(&f, 1).expect("numbers");
    finish_with(c, &f, mark, numbers, 1, &[10], Some(text)).map(|g| (g.outline.to_string(), g.same))
}

#[test]
fn each_whole_snapshot_is_compared_with_the_whole_one_it_replaces() {
    let (mut c, s) = setup();
    assert_eq!(whole(&mut c, s, "- one"), None, "nothing before");
    assert_eq!(whole(&mut c, s, "- two"), Some(("- one".into(), true)));

    // Two at once: the one ending last is compared with the one ending
    // first, which the agent was given in between, not with what both
    // started from.
    let f = c.fence(s, A, Need::Observe).expect("fence");
    let mark = c.snapshot_started(&f);
    let a = c.reserve_refs(&f, 1).expect("a");
    let b = c.reserve_refs(&f, 1).expect("b");
    let given = |g: Option<Given>| g.map(|g| (g.outline.to_string(), g.same));
    let first = finish_with(&mut c, &f, mark, a, 1, &[10], Some("- three"));
    assert_eq!(given(first), Some(("- two".into(), true)));
    let second = finish_with(&mut c, &f, mark, b, 1, &[10], Some("- four"));
    assert_eq!(given(second), Some(("- three".into(), true)));

    // A partial snapshot keeps the whole outline, through a navigation too,
    // and the next whole one is told it is of another document.
    c.on_main_frame_navigated(TabId(1));
    snapshot_of(&mut c, s, &[11], true);
    assert_eq!(whole(&mut c, s, "- five"), Some(("- four".into(), false)));

    // A navigation while the snapshot is read: the page read may be either.
    let mark = c.snapshot_started(&f);
    let numbers = c.reserve_refs(&f, 1).expect("numbers");
    c.on_main_frame_navigated(TabId(1));
    let during = finish_with(&mut c, &f, mark, numbers, 1, &[10], Some("- six"));
    assert_eq!(given(during), Some(("- five".into(), false)));
    // What the person is told an agent aimed at still reads the latest.
    assert_eq!(c.last_outline(s, TabId(1)).as_deref(), Some("- six"));
}

#[test]
fn a_navigation_makes_refs_stale_even_during_the_snapshot() {
    let (mut c, s) = setup();
    snapshot(&mut c, s, &[10]);
    c.on_main_frame_navigated(TabId(1));
    assert_eq!(resolve(&c, s, "e1"), Err(ErrorKind::StaleRef));

    // A navigation while the snapshot was being read.
    let f = c.fence(s, A, Need::Observe).expect("fence");
    let mark = c.snapshot_started(&f);
    c.on_main_frame_navigated(TabId(1));
    let numbers = c.reserve_refs(&f, 1).expect("numbers");
    let first = numbers.first();
    finish(&mut c, &f, mark, numbers, 1, &[30], false);
    assert_eq!(
        resolve(&c, s, &format!("e{first}")),
        Err(ErrorKind::StaleRef)
    );
}

#[test]
fn refs_are_per_session_and_per_tab() {
    let (mut c, s) = setup();
    let other = c.hello(B, "beta".into(), cotab_shared::Ticket("tb".into()));
    c.select(other, B, TabId(1)).expect("select");
    snapshot(&mut c, s, &[10]);
    let f = c.fence(other, B, Need::Observe).expect("fence");
    assert_eq!(
        c.resolve_ref(&f, &Ref("e1".into())).map_err(|e| e.kind),
        Err(ErrorKind::StaleRef)
    );
    // The other tab's snapshot does not replace this one's.
    c.select(s, A, TabId(2)).expect("select");
    assert_eq!(snapshot(&mut c, s, &[40]), 2);
    c.select(s, A, TabId(1)).expect("select");
    assert_eq!(resolve(&c, s, "e1"), Ok(node(10)));
    assert_eq!(resolve(&c, s, "e2"), Err(ErrorKind::StaleRef));
}

#[test]
fn console_buffer_is_bounded_filtered_and_counts_drops() {
    let (mut c, s) = setup();
    let entry = |level, text: &str| ConsoleEntry {
        level,
        text: text.into(),
        exception: false,
        url: None,
        line: None,
    };
    for i in 0..(CONSOLE_CAPACITY + 5) {
        let level = if i % 2 == 0 {
            ConsoleLevel::Info
        } else {
            ConsoleLevel::Error
        };
        c.on_console(TabId(1), entry(level, &format!("m{}", i + 1)));
    }
    let f = c.fence(s, A, Need::Observe).expect("fence");
    let all = c.console(&f, None, None, false).expect("console");
    assert_eq!(all.messages.len(), CONSOLE_CAPACITY);
    assert_eq!(all.messages[0].seq, 6);
    assert_eq!(all.dropped, 5);
    assert_eq!(all.next, (CONSOLE_CAPACITY + 5) as u64);
    let late = c.console(&f, Some(3), None, false).expect("console");
    assert_eq!(late.dropped, 2);
    let newer = c
        .console(&f, Some(all.next - 2), None, false)
        .expect("console");
    assert_eq!(newer.messages.len(), 2);
    assert_eq!(newer.dropped, 0);
    let errors = c
        .console(&f, Some(all.next - 4), Some(&[ConsoleLevel::Error]), false)
        .expect("console");
    assert!(errors
        .messages
        .iter()
        .all(|m| m.level == ConsoleLevel::Error));
    assert_eq!(errors.messages.len(), 2);
    let none = c.console(&f, Some(all.next), None, false).expect("console");
    assert!(none.messages.is_empty());
    assert_eq!(none.next, all.next);
}

#[test]
fn console_events_are_read_like_devtools() {
    use cotab_shared::cdp::CdpEvent as _;
    let api = |v: Value| ConsoleApiCalled::parse(ConsoleApiCalled::METHOD, &v).expect("parses");
    let e = ConsoleEntry::from_console_api(&api(json!({
        "type": "warning",
        "args": [{"type": "string", "value": "n ="}, {"type": "number", "value": 42},
                 {"type": "object", "subtype": "null", "value": null},
                 {"type": "undefined"}, {"type": "object", "description": "Object"},
                 {"type": "number", "unserializableValue": "NaN", "description": "NaN"}],
        "stackTrace": {"callFrames": [{"url": "http://a/x.js", "lineNumber": 6}]}
    })));
    assert_eq!(e.level, ConsoleLevel::Warning);
    assert_eq!(e.text, "n = 42 null undefined Object NaN");
    assert_eq!((e.url.as_deref(), e.line), (Some("http://a/x.js"), Some(7)));
    for (t, l) in [
        ("debug", ConsoleLevel::Debug),
        ("assert", ConsoleLevel::Error),
        ("log", ConsoleLevel::Info),
        ("table", ConsoleLevel::Info),
    ] {
        assert_eq!(
            ConsoleEntry::from_console_api(&api(json!({"type": t}))).level,
            l
        );
    }
    let thrown = json!({"exceptionDetails": {
        "text": "Uncaught", "lineNumber": 2, "url": "http://a/",
        "exception": {"type": "object", "description": "Error: boom\n    at x"}}});
    let x = ConsoleEntry::from_exception(
        &ExceptionThrown::parse(ExceptionThrown::METHOD, &thrown).expect("parses"),
    );
    assert_eq!(
        (x.level, x.exception, x.text.as_str(), x.line),
        (ConsoleLevel::Error, true, "Error: boom\n    at x", Some(3))
    );
    let long = ConsoleEntry::from_console_api(&api(
        json!({"type": "log", "args": [{"type": "string", "value": "é".repeat(9000)}]}),
    ));
    assert!(long.text.len() <= MAX_CONSOLE_TEXT + '…'.len_utf8());
}

#[test]
fn a_dialog_is_tracked_and_announced_to_sessions_on_its_tab() {
    let (mut c, s) = setup();
    let other = c.hello(B, "beta".into(), cotab_shared::Ticket("tb".into()));
    c.select(other, B, TabId(2)).expect("select");
    c.take_effects();
    let info = DialogInfo {
        tab_id: TabId(1),
        kind: DialogKind::Confirm,
        message: "Sure?".into(),
        default_prompt: None,
    };
    c.on_dialog_opening(info.clone());
    assert_eq!(c.dialog(TabId(1)), Some(&info));
    assert_eq!(c.dialog(TabId(2)), None);
    assert_eq!(
        c.take_effects(),
        vec![Effect::Notify(s, AgentEvent::DialogOpened(info))]
    );
    c.on_dialog_closed(TabId(1));
    assert_eq!(c.dialog(TabId(1)), None);
    // A lost lane forgets dialogs; a closed tab forgets its page.
    c.on_dialog_opening(DialogInfo {
        tab_id: TabId(2),
        kind: DialogKind::Alert,
        message: String::new(),
        default_prompt: None,
    });
    c.on_lane_lost();
    assert_eq!(c.dialog(TabId(2)), None);
}

#[test]
fn lifecycle_follows_the_current_loader() {
    let (mut c, _) = setup();
    let t = TabId(1);
    assert_eq!(c.lifecycle_reached(t, "M", "networkIdle"), None);
    c.on_lifecycle(t, "M", "L1", "init");
    c.on_lifecycle(t, "M", "L1", "networkIdle");
    assert_eq!(c.lifecycle_reached(t, "M", "networkIdle"), Some(true));
    c.on_lifecycle(t, "M", "L2", "init");
    assert_eq!(c.lifecycle_reached(t, "M", "networkIdle"), Some(false));
    assert_eq!(c.lifecycle_loader(t, "M"), Some("L2"));
    c.on_tab_gone(t, Gone::Closed);
    assert_eq!(c.lifecycle_reached(t, "M", "networkIdle"), None);
}

/// Issue 36: a tab shared after it loaded behind the person's reports its
/// first paint when it is shown, long after its network idle: what came
/// before is not known to be missing.
#[test]
fn a_loader_heard_from_its_middle_says_nothing_of_what_came_before() {
    let (mut c, _) = setup();
    let t = TabId(1);
    c.on_lifecycle(t, "M", "L1", "firstPaint");
    assert_eq!(c.lifecycle_reached(t, "M", "firstPaint"), Some(true));
    assert_eq!(c.lifecycle_reached(t, "M", "networkIdle"), None);
    // The browser's report of what the loader reached, on a new enable.
    c.on_lifecycle(t, "M", "L1", "networkIdle");
    assert_eq!(c.lifecycle_reached(t, "M", "networkIdle"), Some(true));
}

#[test]
fn an_unchanged_capture_reuses_a_still_valid_frame() {
    let (mut c, s) = setup();
    let f = c.fence(s, A, Need::Observe).expect("fence");
    let mark: CaptureMark = c.capture_started(&f);
    let meta = CaptureMeta {
        dpr: 1.0,
        geometry: geo(),
        origin: (0.0, 0.0),
        digest: [7; 32],
    };
    let id = c.capture_finished_with(&f, mark, meta).expect("frame");
    assert!(c.unchanged_frame(&f, &id, &[7; 32], &geo()).is_some());
    assert!(c.unchanged_frame(&f, &id, &[8; 32], &geo()).is_none());
    let mut scrolled = geo();
    scrolled.scroll_y = 100.0;
    assert!(c.unchanged_frame(&f, &id, &[7; 32], &scrolled).is_none());
    c.on_main_frame_navigated(TabId(1));
    assert!(c.unchanged_frame(&f, &id, &[7; 32], &geo()).is_none());
}

#[test]
fn created_tabs_are_selected_and_leased_and_closing_clears_the_selection() {
    let (mut c, s) = setup();
    let f = c.fence(s, A, Need::Act).expect("fence");
    let held = c
        .begin_press(&f, None, mouse())
        .expect("press on the old tab");
    c.press_settled(held, true);
    c.take_effects();
    let info = TabInfo {
        id: TabId(9),
        url: "about:blank".into(),
        title: String::new(),
        human_control: false,
        blocked: None,
        opener: None,
        target_id: None,
    };
    let rev = c
        .tab_created(s, A, &info, crate::scope::Scope::Any)
        .expect("created");
    assert_eq!(c.selection(s, A).expect("bound"), (Some(TabId(9)), rev));
    let effects = c.take_effects();
    // Leaving tab 1 released the button there and its lease.
    assert_eq!(releases(&effects).len(), 1);
    assert!(revoked(&effects).contains(&(s, TabId(1), RevokeReason::TabSwitched)));
    assert!(c.fence(s, A, Need::Act).is_ok());

    // Another agent's tab cannot be closed; the own one can.
    let other = c.hello(B, "beta".into(), cotab_shared::Ticket("tb".into()));
    c.select(other, B, TabId(2)).expect("select");
    c.acquire(other, B).expect("acquire");
    assert_eq!(
        c.close_target(s, A, Some(TabId(2))).map_err(|e| e.kind),
        Err(ErrorKind::NoControl)
    );
    assert_eq!(
        c.close_target(s, A, Some(TabId(5))).map_err(|e| e.kind),
        Err(ErrorKind::TabNotShared)
    );
    assert_eq!(c.close_target(s, A, None), Ok(TabId(9)));
    let f = c.fence(s, A, Need::Act).expect("fence");
    let key = c.begin_press(&f, None, key("a")).expect("press");
    c.press_settled(key, true);
    c.tab_closed(TabId(9));
    assert_eq!(c.selection(s, A).expect("bound"), (None, rev + 1));
    assert_eq!(c.held_count(), 0);
    let effects = c.take_effects();
    assert!(
        releases(&effects).is_empty(),
        "nothing is sent to a closed tab"
    );
    assert!(effects.contains(&Effect::Dropped(key)));
}

fn undone(effects: &[Effect]) -> Vec<(TabId, &'static str)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Undo(u) => Some((u.tab, u.method)),
            _ => None,
        })
        .collect()
}

#[test]
fn the_person_taking_control_gets_the_pages_own_viewport_and_media_back() {
    use cotab_shared::controller::{ColorScheme, MediaEmulation};
    let (mut c, s) = setup();
    // Nothing set: nothing to undo.
    c.on_shared(&[tab(1, true), tab(2, false)]);
    assert!(undone(&c.take_effects()).is_empty());
    c.on_shared(&[tab(1, false), tab(2, false)]);
    c.acquire(s, A).expect("acquire");
    let f = c.fence(s, A, Need::Act).expect("fence");
    c.viewport_set(
        &f,
        Some(crate::broker::Viewport {
            set: (640, 400),
            own: (1280, 720),
        }),
    )
    .expect("set");
    let dark = MediaEmulation {
        color_scheme: Some(ColorScheme::Dark),
        ..MediaEmulation::default()
    };
    c.media_set(&f, dark).expect("set");
    c.take_effects();
    c.on_shared(&[tab(1, true), tab(2, false)]);
    assert_eq!(
        undone(&c.take_effects()),
        vec![
            (TabId(1), "Emulation.clearDeviceMetricsOverride"),
            (TabId(1), "Emulation.setEmulatedMedia"),
        ]
    );
    assert_eq!(c.viewport(TabId(1)), None);
    assert_eq!(c.media(TabId(1)), MediaEmulation::default());
    // Once undone, a second takeover has nothing to undo.
    c.on_shared(&[tab(1, false), tab(2, false)]);
    c.on_shared(&[tab(1, true), tab(2, false)]);
    assert!(undone(&c.take_effects()).is_empty());
}

#[test]
fn children_held_for_a_debugger_are_let_run_when_the_lease_ends() {
    let (mut c, s) = setup();
    c.on_shared(&[tab(1, false), tab(2, false)]);
    c.acquire(s, A).expect("acquire");
    let f = c.fence(s, A, Need::Act).expect("fence");
    // Auto-attach that runs its children at once leaves nothing to undo.
    c.auto_attach_set(&f, false).expect("set");
    c.take_effects();
    c.on_shared(&[tab(1, true), tab(2, false)]);
    assert!(undone(&c.take_effects()).is_empty());
    // Held children: the person's takeover turns auto-attach off.
    c.on_shared(&[tab(1, false), tab(2, false)]);
    c.acquire(s, A).expect("acquire again");
    let f = c.fence(s, A, Need::Act).expect("fence");
    c.auto_attach_set(&f, true).expect("set");
    // Asked again without holding: those already held still wait.
    c.auto_attach_set(&f, false).expect("set again");
    c.take_effects();
    c.on_shared(&[tab(1, true), tab(2, false)]);
    assert_eq!(
        undone(&c.take_effects()),
        vec![(TabId(1), "Target.setAutoAttach")]
    );
    // So does the session's end, once.
    c.on_shared(&[tab(1, false), tab(2, false)]);
    c.acquire(s, A).expect("acquire a third time");
    let f = c.fence(s, A, Need::Act).expect("fence");
    c.auto_attach_set(&f, true).expect("set");
    c.take_effects();
    assert!(c.bye(s, A));
    assert_eq!(
        undone(&c.take_effects()),
        vec![(TabId(1), "Target.setAutoAttach")]
    );
}
