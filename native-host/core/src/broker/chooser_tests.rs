//! File choosers as the core keeps them: interception from an agent's
//! input for its grace, the chooser that waits, and what ends it.

use super::tests::*;
use super::*;
use cotab_shared::cdp::FileChooserOpened;
use cotab_shared::controller::{AgentEvent, FileChooserInfo};
use std::time::Instant;

fn opened(backend: Option<i64>, multiple: bool) -> FileChooserOpened {
    FileChooserOpened {
        frame_id: "F".into(),
        mode: if multiple {
            "selectMultiple"
        } else {
            "selectSingle"
        }
        .into(),
        backend_node_id: backend,
    }
}

fn fence(c: &Core, s: SessionId) -> Fence {
    c.fence(s, A, Need::Act).expect("fence")
}

#[test]
fn an_agents_input_intercepts_choosers_for_its_grace_then_they_show_again() {
    let (mut c, s) = setup();
    let t0 = Instant::now();
    let f = fence(&c, s);
    let first = c.intercept_choosers(&f, t0).expect("fence");
    assert_eq!(
        first,
        ChooserMark {
            enable: true,
            opened: 0
        }
    );
    // A second input within the grace: already on, and the grace moves.
    let later = t0 + INTERCEPT_GRACE / 2;
    assert!(!c.intercept_choosers(&f, later).expect("fence").enable);
    assert!(!c.any_chooser_due(t0 + INTERCEPT_GRACE));
    assert!(c.choosers_due(t0 + INTERCEPT_GRACE).is_empty());
    let end = later + INTERCEPT_GRACE;
    assert!(c.any_chooser_due(end));
    assert_eq!(c.choosers_due(end), vec![TabId(1)]);
    // Off once: the next input turns it on again.
    assert!(!c.any_chooser_due(end));
    // An "off" that could not be sent is tried again on the next tick.
    c.intercept_off_failed(TabId(1), end);
    assert_eq!(c.choosers_due(end), vec![TabId(1)]);
    // A chooser while not intercepting (an "off" lost on its way) is
    // nobody's: refused, not waiting for the agent.
    assert!(!c.on_file_chooser(TabId(1), &opened(Some(5), false)));
    assert_eq!(c.file_chooser(TabId(1)), None);
    assert!(c.intercept_choosers(&f, end).expect("fence").enable);
    // A tab that refused is not intercepting.
    c.intercept_refused(TabId(1));
    assert!(c.intercept_choosers(&f, end).expect("fence").enable);
}

#[test]
fn a_chooser_waits_for_the_agent_until_answered_replaced_or_its_document_goes() {
    let (mut c, s) = setup();
    let f = fence(&c, s);
    let mark = c.intercept_choosers(&f, Instant::now()).expect("fence");
    c.take_effects();
    assert!(c.on_file_chooser(TabId(1), &opened(Some(5), true)));
    let info = FileChooserInfo {
        tab_id: TabId(1),
        multiple: true,
    };
    assert_eq!(c.chooser_since(TabId(1), &mark), Some(info.clone()));
    assert!(c
        .take_effects()
        .iter()
        .any(|e| matches!(e, Effect::Notify(to, AgentEvent::FileChooserOpened(i)) if *to == s && *i == info)));
    let w = c.waiting_chooser(&f).expect("waiting");
    assert_eq!(w.node.backend_node_id, 5);
    assert!(w.multiple);
    // A newer chooser replaces it; answering the old one leaves the new.
    let mark = c.intercept_choosers(&f, Instant::now()).expect("fence");
    c.on_file_chooser(TabId(1), &opened(Some(6), false));
    assert_eq!(
        c.chooser_since(TabId(1), &mark).map(|i| i.multiple),
        Some(false)
    );
    c.chooser_answered(TabId(1), Some(w.number));
    assert_eq!(
        c.waiting_chooser(&f)
            .expect("still waiting")
            .node
            .backend_node_id,
        6
    );
    // Files set on another input leave it; on its own input answer it.
    c.files_set_on(
        TabId(1),
        &NodeRef {
            frame: "F".into(),
            backend_node_id: 5,
        },
    );
    assert!(c.file_chooser(TabId(1)).is_some());
    c.files_set_on(
        TabId(1),
        &NodeRef {
            frame: "F".into(),
            backend_node_id: 6,
        },
    );
    assert_eq!(c.file_chooser(TabId(1)), None);
    assert_eq!(
        c.waiting_chooser(&f).map(|_| ()).map_err(|e| e.kind),
        Err(ErrorKind::InvalidRequest)
    );
    // A new document drops it.
    c.on_file_chooser(TabId(1), &opened(Some(7), false));
    c.on_main_frame_navigated(TabId(1));
    assert_eq!(c.file_chooser(TabId(1)), None);
    // One no input opened cannot take files.
    c.on_file_chooser(TabId(1), &opened(None, false));
    assert_eq!(
        c.waiting_chooser(&f).map(|_| ()).map_err(|e| e.kind),
        Err(ErrorKind::InvalidRequest)
    );
    // A tab not shared has no choosers.
    c.on_file_chooser(TabId(9), &opened(Some(1), false));
    assert_eq!(c.file_chooser(TabId(9)), None);
}

#[test]
fn taking_control_shows_choosers_again_at_once_and_drops_the_waiting_one() {
    let (mut c, s) = setup();
    let f = fence(&c, s);
    c.intercept_choosers(&f, Instant::now()).expect("fence");
    c.on_file_chooser(TabId(1), &opened(Some(5), false));
    c.take_effects();
    c.on_shared(&[tab(1, true), tab(2, false)]);
    let undone: Vec<_> = c
        .take_effects()
        .into_iter()
        .filter_map(|e| match e {
            Effect::Undo(u) => Some((u.tab, u.method, u.params)),
            _ => None,
        })
        .collect();
    assert_eq!(
        undone,
        vec![(
            TabId(1),
            "Page.setInterceptFileChooserDialog",
            serde_json::json!({"enabled": false})
        )]
    );
    assert_eq!(c.file_chooser(TabId(1)), None);
    // Nothing is left for the tick to turn off.
    assert!(!c.any_chooser_due(Instant::now() + INTERCEPT_GRACE * 2));
}
