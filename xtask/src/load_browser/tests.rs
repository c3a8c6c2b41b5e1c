//! The run's plan and its ledger.

use super::plan::LedgerError;
use super::*;
use std::collections::HashSet;

#[test]
fn the_plan_gives_each_agent_four_tabs_and_each_tab_one_controller() {
    let slots = plan();
    assert_eq!(slots.len(), AGENTS * TABS_PER_AGENT);
    for agent in 0..AGENTS {
        let mine: HashSet<usize> = slots
            .iter()
            .filter(|s| s.agent == agent)
            .map(|s| s.tab)
            .collect();
        assert_eq!(mine.len(), TABS_PER_AGENT, "agent {agent}: {mine:?}");
    }
    for tab in 0..TABS {
        let on: Vec<&Slot> = slots.iter().filter(|s| s.tab == tab).collect();
        assert_eq!(on.len(), 2, "tab {tab}");
        assert_eq!(
            on.iter().filter(|s| s.role == Role::Controller).count(),
            1,
            "tab {tab}"
        );
        assert_ne!(on[0].agent, on[1].agent, "tab {tab}");
    }
}

#[test]
fn the_ledger_accepts_each_answer_once() {
    let mut l = Ledger::default();
    assert_eq!(l.sent(1, "a"), Ok(()));
    assert_eq!(l.sent(2, "b"), Ok(()));
    assert_eq!(l.sent(2, "again"), Err(LedgerError::Reused(2)));
    assert_eq!(l.answered(2), Ok("b"));
    assert_eq!(l.answered(2), Err(LedgerError::Duplicate(2)));
    assert_eq!(l.answered(7), Err(LedgerError::Unknown(7)));
    assert_eq!(l.outstanding(), 1);
    assert_eq!(l.sent(2, "reuse after answer"), Err(LedgerError::Reused(2)));
    assert_eq!(l.answered(1), Ok("a"));
    assert_eq!(l.outstanding(), 0);
}

#[test]
fn points_stay_inside_the_capture() {
    for k in 0..500 {
        let (x, y) = point((640.0, 406.0), k);
        assert!((128.0..=512.0).contains(&x), "{x}");
        assert!((81.0..=325.0).contains(&y), "{y}");
    }
}

#[test]
fn error_kinds_read_as_on_the_wire() {
    assert_eq!(kind_name(ErrorKind::Busy), "BUSY");
    assert_eq!(kind_name(ErrorKind::StaleFrame), "STALE_FRAME");
}

#[test]
fn every_method_name_is_the_protocols() {
    for op in [
        Op::Hello,
        Op::Select,
        Op::Acquire,
        Op::Capture,
        Op::Snapshot,
        Op::Click,
        Op::MouseMove,
        Op::Press,
    ] {
        assert!(
            cotab_shared::controller::Call::METHODS.contains(&op.method()),
            "{op:?}"
        );
    }
}
