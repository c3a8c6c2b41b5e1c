//! What the person is told of agent requests.

use super::*;
use crate::broker::{CoreConfig, Need};
use cotab_shared::controller::{
    ClickParams, EvaluateParams, NavigateParams, PressParams, SnapshotParams, TypeParams,
};
use cotab_shared::native::TabInfo;
use cotab_shared::Ticket;

fn core_with_session() -> (Core, SessionId) {
    let mut c = Core::new(CoreConfig::default());
    c.on_lane_online();
    c.on_shared(&[TabInfo {
        id: TabId(1),
        url: "http://t/".into(),
        title: String::new(),
        human_control: false,
        blocked: None,
        opener: None,
        target_id: None,
    }]);
    let s = c.hello(crate::session::ConnId(1), "ada".into(), Ticket("t".into()));
    c.select(s, crate::session::ConnId(1), TabId(1))
        .expect("select");
    (c, s)
}

#[test]
fn requests_read_in_the_persons_terms_and_never_carry_what_was_typed() {
    let (mut c, s) = core_with_session();
    let conn = crate::session::ConnId(1);
    let f = c.fence(s, conn, Need::Observe).expect("fence");
    let mark = c.snapshot_started(&f);
    let node = crate::broker::NodeRef {
        frame: "F".into(),
        backend_node_id: 9,
    };
    let text = "- textbox \"Email\" [ref=e1]: ada@example.org\n- button \"Send\" [ref=e2]";
    let mut numbers = c.reserve_refs(&f, 2).expect("refs");
    let n = numbers.number(&node);
    c.snapshot_finished(
        &f,
        mark,
        (numbers.first(), numbers.fresh()),
        2,
        vec![(n, node)],
        Some(std::sync::Arc::from(text)),
    )
    .expect("stored");
    let tab = Some(TabId(1));
    let d = |call: Call| describe(&c, s, tab, &call);
    assert_eq!(
        d(Call::Click(ClickParams::on(Ref("e2".into())))).as_deref(),
        Some("click · button \"Send\"")
    );
    assert_eq!(
        d(Call::Click(ClickParams::at(10.4, 20.0))).as_deref(),
        Some("click · the point (10, 20)")
    );
    let typed = d(Call::Type(TypeParams {
        text: "hunter2".into(),
        element: Some(Ref("e1".into())),
        clear: false,
        submit: true,
        expect: None,
    }))
    .expect("told");
    assert_eq!(typed, "type 7 characters · textbox \"Email\", then Enter");
    assert!(!typed.contains("hunter2"));
    assert_eq!(
        d(Call::Navigate(NavigateParams::to(
            "https://bank.example/login?token=s3cret#x"
        )))
        .as_deref(),
        Some("go to https://bank.example/login")
    );
    assert_eq!(
        d(Call::Press(PressParams {
            key: "Enter".into(),
            modifiers: vec![],
            expect: None
        }))
        .as_deref(),
        Some("press Enter")
    );
    let script = d(Call::Evaluate(EvaluateParams {
        expression: "document.cookie".into(),
        await_promise: None,
    }))
    .expect("told");
    assert_eq!(script, "run a script (15 bytes)");
    // A ref the outline did not show is named by itself.
    assert_eq!(
        d(Call::Click(ClickParams::on(Ref("e40".into())))).as_deref(),
        Some("click · element e40")
    );
    // Reading the page is not told.
    assert_eq!(d(Call::Snapshot(SnapshotParams::default())), None);
}

#[test]
fn the_feed_keeps_what_runs_and_the_latest_that_ended() {
    let feed = Feed::default();
    let mut rx = feed.subscribe();
    let a = feed.begin(
        SessionId(1),
        "ada",
        Some(TabId(1)),
        "input.click",
        "click · button \"Send\"".into(),
    );
    let b = feed.begin(
        SessionId(2),
        "bob",
        None,
        "tabs.create",
        "open a tab".into(),
    );
    let ok: Result<(), RpcError> = Ok(());
    feed.end(a, &ok, 12, None);
    let refused: Result<(), RpcError> = Err(RpcError::from(cotab_shared::WireError::new(
        cotab_shared::ErrorKind::HumanHasControl,
        "x",
    )));
    feed.end(b, &refused, 3, None);
    feed.end(b, &ok, 4, None); // once only
    let seen: Vec<(u64, Option<String>)> = std::iter::from_fn(|| rx.try_recv().ok())
        .map(|e| (e.seq, e.outcome))
        .collect();
    assert_eq!(
        seen,
        vec![
            (a, None),
            (b, None),
            (a, Some("ok".into())),
            (b, Some("HUMAN_HAS_CONTROL".into()))
        ]
    );
    let c = feed.begin(SessionId(1), "ada", None, "page.wait", "wait".into());
    let recent = feed.recent();
    assert_eq!(
        recent.iter().map(|e| e.seq).collect::<Vec<_>>(),
        vec![a, b, c]
    );
    assert_eq!(recent[0].ms, Some(12));
    for _ in 0..KEPT + 5 {
        let n = feed.begin(SessionId(1), "ada", None, "page.wait", "wait".into());
        feed.end(n, &ok, 1, None);
    }
    assert_eq!(
        feed.recent().len(),
        KEPT + 1,
        "the kept ones and the running one"
    );
}

fn tab(id: i32, title: &str, human: bool) -> TabInfo {
    TabInfo {
        id: TabId(id),
        url: "http://t/".into(),
        title: title.into(),
        human_control: human,
        blocked: None,
        opener: None,
        target_id: None,
    }
}

#[test]
fn what_the_person_did_reads_from_the_change_of_the_shared_tabs() {
    let before = [
        tab(1, "Inbox", false),
        tab(2, "", true),
        tab(3, "Bank", false),
    ];
    let after = [
        tab(1, "Inbox", true),
        tab(2, "", false),
        tab(4, &"x".repeat(100), false),
    ];
    let changes = person_changes(&before, &after);
    let what: Vec<(&str, i32, &str)> = changes
        .iter()
        .map(|(m, t, w)| (*m, t.0, w.as_str()))
        .collect();
    assert_eq!(what[0], ("takeover", 1, "take control of tab 1 · Inbox"));
    assert_eq!(what[1], ("handBack", 2, "hand back tab 2"));
    assert_eq!(what[2].0, "share");
    assert!(what[2].2.ends_with('…') && what[2].2.chars().count() < 80);
    assert_eq!(what[3], ("unshare", 3, "stop sharing tab 3 · Bank"));
    assert_eq!(what.len(), 4);
    assert!(person_changes(&after, &after).is_empty());
}

#[test]
fn only_a_change_between_two_reports_of_developer_mode_is_the_persons_switch() {
    let mut last = None;
    // The first report since the daemon started, and a connection that
    // comes back with it as it was (the core counted it off meanwhile).
    assert!(!switched(&mut last, true));
    assert!(!switched(&mut last, true));
    assert!(switched(&mut last, false));
    assert!(!switched(&mut last, false));
    assert!(switched(&mut last, true));
    assert_eq!(last, Some(true));
}

#[test]
fn an_answer_to_a_dialog_says_what_the_dialog_asks() {
    use cotab_shared::controller::{DialogInfo, DialogParams};
    let (mut c, s) = core_with_session();
    let tab = Some(TabId(1));
    let answer = |accept, text: Option<&str>| {
        Call::Dialog(DialogParams {
            accept,
            prompt_text: text.map(str::to_owned),
        })
    };
    assert_eq!(
        describe(&c, s, tab, &answer(true, None)).as_deref(),
        Some("accept the dialog")
    );
    c.on_dialog_opening(DialogInfo {
        tab_id: TabId(1),
        kind: cotab_shared::controller::DialogKind::Prompt,
        message: "A note\nfor the team?".into(),
        default_prompt: None,
    });
    assert_eq!(
        describe(&c, s, tab, &answer(true, Some("secret"))).as_deref(),
        Some("accept the prompt \"A note for the team?\" with 6 characters"),
        "never the text typed"
    );
    assert_eq!(
        describe(&c, s, tab, &answer(false, Some("secret"))).as_deref(),
        Some("dismiss the prompt \"A note for the team?\"")
    );
}
