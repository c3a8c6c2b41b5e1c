//! Snapshots and their refs, the console, waits, uploads, created tabs,
//! captures, history and large results.

use super::*;
use crate::harness::eventually;

#[tokio::test]
async fn a_snapshot_of_one_element_keeps_the_other_refs_good() {
    let d = Daemon::start().await;
    let (script, _state) = page_script();
    let _ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let full = snapshot(&mut c).await;
    let agree = find_ref(&full, "\"Agree\"");
    let go = find_ref(&full, "\"Go\"");
    let part = c
        .call::<Snapshot>(&SnapshotParams {
            root: Some(agree.clone()),
            ..SnapshotParams::default()
        })
        .await
        .expect("snapshot of one element");
    assert_eq!(part.text, format!("- checkbox \"Agree\" [ref={agree}]"));
    assert_eq!(part.refs, 1);
    // The full snapshot's other refs still act.
    c.call::<Click>(&ClickParams::on(go))
        .await
        .expect("a ref of the full snapshot");
    let levels = c
        .call::<Snapshot>(&SnapshotParams {
            depth: Some(1),
            ..SnapshotParams::default()
        })
        .await
        .expect("levels");
    assert_eq!(levels.text, full);
    for (params, kind) in [
        (
            SnapshotParams {
                depth: Some(0),
                ..SnapshotParams::default()
            },
            ErrorKind::InvalidRequest,
        ),
        (
            SnapshotParams {
                root: Some(Ref("e999".into())),
                ..SnapshotParams::default()
            },
            ErrorKind::StaleRef,
        ),
    ] {
        let err = c.call::<Snapshot>(&params).await.expect_err("refused");
        assert_eq!(err.kind(), Some(kind), "{params:?}: {err}");
    }
}

#[tokio::test]
async fn snapshot_issues_refs_that_only_the_latest_snapshot_keeps() {
    let d = Daemon::start().await;
    let (script, state) = page_script();
    let ext = FakeExt::connect(&d.host_sock(), script).await;
    // Observing needs no lease.
    let mut c = observer(&d).await;
    let first = c
        .call::<Snapshot>(&SnapshotParams::default())
        .await
        .expect("snapshot");
    assert_eq!(first.refs, 9);
    assert!(!first.truncated);
    assert!(
        first.text.starts_with("- button \"Go\" [ref=e1]\n"),
        "{}",
        first.text
    );
    assert!(first.text.contains("- checkbox \"Agree\" [ref=e3]"));
    // The same document's elements keep their refs.
    let second = snapshot(&mut c).await;
    assert_eq!(find_ref(&second, "\"Go\""), Ref("e1".into()));
    assert_eq!(find_ref(&second, "\"Agree\""), Ref("e3".into()));
    c.call::<Acquire>(&Empty {}).await.expect("acquire");

    // A ref never issued never acts on anything.
    let err = c
        .call::<Click>(&ClickParams::on(Ref("e99".into())))
        .await
        .expect_err("never issued");
    assert_eq!(err.kind(), Some(ErrorKind::StaleRef));
    assert!(err.to_string().contains("never issued"), "{err}");
    // A node gone from the page.
    state.lock().expect("state").gone.push(11);
    let err = c
        .call::<Click>(&ClickParams::on(Ref("e1".into())))
        .await
        .expect_err("gone");
    assert_eq!(err.kind(), Some(ErrorKind::StaleRef));
    // A main-frame navigation since the snapshot: the next snapshot
    // numbers the new document afresh.
    main_frame_navigated(&ext);
    let give_up = tokio::time::Instant::now() + WAIT;
    loop {
        let err = c
            .call::<Click>(&ClickParams::on(Ref("e2".into())))
            .await
            .expect_err("stale after navigation");
        if err.kind() == Some(ErrorKind::StaleRef) {
            break;
        }
        assert!(tokio::time::Instant::now() < give_up, "{err}");
    }
    let third = snapshot(&mut c).await;
    assert_ne!(find_ref(&third, "\"Agree\""), Ref("e3".into()), "{third}");
    let small = c
        .call::<Snapshot>(&SnapshotParams {
            max_chars: Some(70),
            ..SnapshotParams::default()
        })
        .await
        .expect("snapshot");
    assert!(small.truncated);
    assert!(small.text.ends_with("more nodes)"), "{}", small.text);
    let err = c
        .call::<Snapshot>(&SnapshotParams {
            max_chars: Some(400_001),
            ..SnapshotParams::default()
        })
        .await
        .expect_err("too large");
    assert_eq!(err.rpc().map(|e| e.code), Some(INVALID_PARAMS));
}

#[tokio::test]
async fn console_messages_are_buffered_per_tab_and_filtered() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let ext = FakeExt::connect(&d.host_sock(), script).await;
    let c = controller(&d).await;
    ext.event(Event::Cdp {
        session: None,
        tab_id: TabId(7),
        method: "Runtime.consoleAPICalled".into(),
        params: json!({"type": "log", "args": [{"type": "string", "value": "hello"},
                                               {"type": "number", "value": 42}],
                       "stackTrace": {"callFrames": [{"url": "http://example.test/a.js", "lineNumber": 4}]}}),
    });
    ext.event(Event::Cdp {
        session: None,
        tab_id: TabId(7),
        method: "Runtime.exceptionThrown".into(),
        params: json!({"exceptionDetails": {"text": "Uncaught",
                       "exception": {"type": "object", "description": "Error: boom"}}}),
    });
    let shared = tokio::sync::Mutex::new(c);
    let all = eventually(|| {
        let c = &shared;
        async move {
            let r = c
                .lock()
                .await
                .call::<Console>(&ConsoleParams::default())
                .await
                .expect("console");
            if r.messages.len() == 2 {
                Ok(r)
            } else {
                Err(r)
            }
        }
    })
    .await;
    let mut c = shared.into_inner();
    assert_eq!(all.messages[0].text, "hello 42");
    assert_eq!(all.messages[0].level, ConsoleLevel::Info);
    assert_eq!(all.messages[0].line, Some(5));
    assert!(all.messages[1].exception);
    assert_eq!(all.messages[1].text, "Error: boom");
    let errors = c
        .call::<Console>(&ConsoleParams {
            levels: Some(vec![ConsoleLevel::Error]),
            ..ConsoleParams::default()
        })
        .await
        .expect("console");
    assert_eq!(errors.messages.len(), 1);
    let newer = c
        .call::<Console>(&ConsoleParams {
            since: Some(all.next),
            ..ConsoleParams::default()
        })
        .await
        .expect("console");
    assert!(newer.messages.is_empty());
    assert_eq!(newer.dropped, 0);
}

#[tokio::test]
async fn waits_poll_until_the_condition_holds_or_time_out() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let _ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = observer(&d).await;
    let r = c
        .call::<Wait>(&WaitParams {
            text: Some("Ready".into()),
            ..WaitParams::until(WaitUntil::Text)
        })
        .await
        .expect("appeared");
    assert!(r.waited_ms >= 150, "{r:?}");
    let err = c
        .call::<Wait>(&WaitParams {
            text: Some("Never".into()),
            timeout_ms: Some(300),
            ..WaitParams::until(WaitUntil::Text)
        })
        .await
        .expect_err("timeout");
    assert_eq!(err.kind(), Some(ErrorKind::Timeout));
    let err = c
        .call::<Wait>(&WaitParams::until(WaitUntil::TextGone))
        .await
        .expect_err("no text");
    assert!(err.to_string().contains("params.text"), "{err}");
    let err = c
        .call::<Wait>(&WaitParams {
            selector: Some("a[[".into()),
            ..WaitParams::until(WaitUntil::Selector)
        })
        .await
        .expect_err("bad selector");
    assert!(err.to_string().contains("params.selector"), "{err}");
    // Already loaded, already idle (reported again by the browser when
    // asked): at once.
    for until in [WaitUntil::Load, WaitUntil::NetworkIdle] {
        let r = tokio::time::timeout(WAIT, c.call::<Wait>(&WaitParams::until(until)))
            .await
            .expect("in time")
            .expect("done");
        assert!(r.waited_ms < 5_000);
    }
    let r = c
        .call::<Wait>(&WaitParams {
            time_ms: Some(50),
            ..WaitParams::until(WaitUntil::Time)
        })
        .await
        .expect("slept");
    assert!(r.waited_ms >= 50);
}

#[tokio::test]
async fn uploads_come_only_from_allowed_directories() {
    let root = tempfile::tempdir().expect("tempdir");
    let allowed = root.path().join("allowed");
    let outside = root.path().join("outside");
    std::fs::create_dir_all(&allowed).expect("dir");
    std::fs::create_dir_all(&outside).expect("dir");
    std::fs::write(allowed.join("cv.txt"), "hello").expect("file");
    std::fs::write(outside.join("secret.txt"), "secret").expect("file");
    std::os::unix::fs::symlink(outside.join("secret.txt"), allowed.join("escape.txt"))
        .expect("symlink");
    let config = root.path().join("config.json");
    std::fs::write(&config, json!({"uploadDirs": [allowed]}).to_string()).expect("config");
    // The only test of this binary that reads the config.
    std::env::set_var(cotab_host::config::CONFIG_ENV, &config);

    let d = Daemon::start().await;
    let (script, _) = page_script();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let outline = snapshot(&mut c).await;
    let input = find_ref(&outline, "\"Attachment\"");
    let files = |p: &std::path::Path| SetFilesParams {
        element: Some(input.clone()),
        paths: vec![p.display().to_string()],
    };
    for bad in [allowed.join("escape.txt"), outside.join("secret.txt")] {
        let err = c.call::<SetFiles>(&files(&bad)).await.expect_err("refused");
        assert_eq!(err.kind(), Some(ErrorKind::PathNotAllowed));
        assert!(!err.to_string().contains("secret"), "{err}");
    }
    c.call::<SetFiles>(&files(&allowed.join("cv.txt")))
        .await
        .expect("uploaded");
    // The browser refused the path for an extension: the page builds the
    // file from its bytes.
    let cmds = cdp_until(&mut ext, "DOM.setFileInputFiles").await;
    assert_eq!(
        cmds.last().map(|c| c.1["backendNodeId"].clone()),
        Some(json!(17))
    );
    let built = loop {
        let p = ext.next_cdp("Runtime.callFunctionOn").await;
        if p["functionDeclaration"]
            .as_str()
            .is_some_and(|f| f.contains("DataTransfer"))
        {
            break p;
        }
    };
    let file = &built["arguments"][0]["value"][0];
    assert_eq!(
        (file["name"].as_str(), file["type"].as_str()),
        (Some("cv.txt"), Some("text/plain"))
    );
    assert_eq!(file["data"], "aGVsbG8=");
    let err = c
        .call::<SetFiles>(&SetFilesParams {
            element: Some(find_ref(&outline, "\"Go\"")),
            paths: vec![allowed.join("cv.txt").display().to_string()],
        })
        .await
        .expect_err("not a file input");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));
}

#[tokio::test]
async fn created_tabs_are_selected_and_controlled_and_closing_clears_the_selection() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let r = c
        .call::<TabsCreate>(&CreateTabParams {
            url: Some("http://example.test/new".into()),
        })
        .await
        .expect("created");
    assert_eq!(r.tab_id, TabId(100));
    assert_eq!(r.selection_revision, 2);
    // Acting needs no acquire: the new tab's lease is ours.
    c.call::<Type>(&TypeParams {
        text: "x".into(),
        ..TypeParams::default()
    })
    .await
    .expect("typed in the new tab");
    let err = c
        .call::<TabsCreate>(&CreateTabParams {
            url: Some("chrome://settings".into()),
        })
        .await
        .expect_err("blocked");
    assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget));
    c.call::<TabsClose>(&CloseTabParams::default())
        .await
        .expect("closed");
    loop {
        if let cotab_shared::native::Command::CloseTab { tab_id } = ext.next_command().await {
            assert_eq!(tab_id, TabId(100));
            break;
        }
    }
    let err = c
        .call::<Type>(&TypeParams {
            text: "x".into(),
            ..TypeParams::default()
        })
        .await
        .expect_err("nothing selected");
    assert!(err.to_string().contains("no tab selected"), "{err}");
}

#[tokio::test]
async fn captures_downscale_clip_and_report_unchanged_frames() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let shot = c
        .call::<Capture>(&CaptureParams {
            format: ImageFormat::Png,
            max_width: Some(400),
            ..CaptureParams::default()
        })
        .await
        .expect("captured");
    assert!(shot.width <= 400, "{}", shot.width);
    assert_eq!(shot.device_pixel_ratio, 0.5);
    let p = ext.next_cdp("Page.captureScreenshot").await;
    assert_eq!(p["clip"]["y"], PAGE_Y, "clips are in document coordinates");
    assert_eq!(p["clip"]["scale"], 0.25);
    let again = c
        .call::<Capture>(&CaptureParams {
            format: ImageFormat::Png,
            max_width: Some(400),
            known_frame_id: Some(shot.frame_id.clone()),
            ..CaptureParams::default()
        })
        .await
        .expect("captured");
    assert!(again.unchanged);
    assert_eq!(again.data, None);
    assert_eq!(again.frame_id, shot.frame_id);
    // Clicks on the unchanged frame still aim right.
    c.call::<Click>(&ClickParams {
        frame_id: Some(again.frame_id.clone()),
        ..ClickParams::at(100.0, 50.0)
    })
    .await
    .expect("clicked");
    let moved = ext.next_cdp("Input.dispatchMouseEvent").await;
    assert_eq!(
        (moved["x"].as_f64(), moved["y"].as_f64()),
        (Some(200.0), Some(100.0))
    );

    let outline = snapshot(&mut c).await;
    let zone = c
        .call::<Capture>(&CaptureParams {
            format: ImageFormat::Png,
            clip: Some(find_ref(&outline, "\"Zone\"")),
            ..CaptureParams::default()
        })
        .await
        .expect("clipped");
    assert_eq!((zone.width, zone.height), (200, 200));
    let p = ext.next_cdp("Page.captureScreenshot").await;
    assert_eq!(
        (p["clip"]["x"].as_f64(), p["clip"]["y"].as_f64()),
        (Some(600.0), Some(100.0 + PAGE_Y))
    );
    let different = c
        .call::<Capture>(&CaptureParams {
            format: ImageFormat::Png,
            known_frame_id: Some(shot.frame_id),
            ..CaptureParams::default()
        })
        .await
        .expect("captured");
    assert!(!different.unchanged);
    assert!(different.data.is_some());
    let status = c.call::<Status>(&Empty {}).await.expect("status");
    assert!(!status.developer_mode);
}

#[tokio::test]
async fn history_navigation_goes_to_the_entry_and_waits_for_the_page() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let nav = |action| NavigateParams {
        action: Some(action),
        ..NavigateParams::default()
    };
    c.call::<Navigate>(&nav(NavigateAction::Back))
        .await
        .expect("back");
    let p = ext.next_cdp("Page.navigateToHistoryEntry").await;
    assert_eq!(p["entryId"], 5);
    let err = c
        .call::<Navigate>(&nav(NavigateAction::Forward))
        .await
        .expect_err("no next entry");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));
    c.call::<Navigate>(&nav(NavigateAction::Reload))
        .await
        .expect("reloaded");
    ext.next_cdp("Page.reload").await;
    let err = c
        .call::<Navigate>(&NavigateParams {
            url: Some("http://example.test/".into()),
            action: Some(NavigateAction::Back),
            expect: None,
        })
        .await
        .expect_err("both");
    assert!(err.to_string().contains("params.action"), "{err}");
}

/// A capture and an accessibility tree big enough to be read off the
/// daemon's thread (a browser frame over 256 KiB, a capture of over 1 MiB
/// of base64, a tree of over 2,000 nodes) come through whole.
#[tokio::test]
async fn large_captures_and_trees_are_read_whole() {
    use base64::Engine as _;
    let mut image = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    image.extend_from_slice(&640u32.to_be_bytes());
    image.extend_from_slice(&480u32.to_be_bytes());
    image.extend_from_slice(&[8, 2, 0, 0, 0]);
    image.resize(900_000, 7);
    let data = base64::engine::general_purpose::STANDARD.encode(&image);
    assert!(data.len() > 1 << 20);
    let buttons = 2_500;
    let names: Vec<String> = (0..buttons).map(|i| format!("B{i}")).collect();
    let items: Vec<(i64, &str, &str)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (10 + i as i64, "button", n.as_str()))
        .collect();
    let tree = capture(&[("MAIN", &items)], &[]);
    let reply_data = data.clone();
    let responder: Responder = Arc::new(move |_tab, method, _params| match method {
        "Page.captureScreenshot" => Reply::ok(json!({ "data": reply_data })),
        "DOMSnapshot.captureSnapshot" => Reply::ok(tree.clone()),
        _ => None,
    });
    let d = Daemon::start().await;
    let _ext = FakeExt::connect(&d.host_sock(), Script::one_tab(7, responder)).await;
    let mut a = Client::connect(&d.agent_sock()).await.expect("connect");
    a.hello("large").await.expect("hello");
    a.call::<TabsSelect>(&SelectParams { tab_id: TabId(7) })
        .await
        .expect("select");
    let params = CaptureParams {
        format: ImageFormat::Png,
        ..CaptureParams::default()
    };
    let shot = a.call::<Capture>(&params).await.expect("capture");
    assert_eq!((shot.width, shot.height), (640, 480));
    assert_eq!(shot.data.as_deref(), Some(data.as_str()));
    let again = a
        .call::<Capture>(&CaptureParams {
            known_frame_id: Some(shot.frame_id),
            ..params
        })
        .await
        .expect("capture again");
    assert!(again.unchanged && again.data.is_none());
    let snap = a
        .call::<Snapshot>(&SnapshotParams {
            max_chars: Some(400_000),
            ..SnapshotParams::default()
        })
        .await
        .expect("snapshot");
    assert_eq!(snap.refs, buttons);
    assert!(
        snap.text.contains("button \"B2499\""),
        "{}",
        &snap.text[..200]
    );
}

/// A page of frames: MAIN holds A (which holds D), and B, a frame in
/// another process that the capture does not reach. The capture fails
/// with `failure` when one is given.
fn framed_page(failure: Option<ErrorKind>) -> Responder {
    let main: &[(i64, &str, &str)] = &[
        (10, "button", "Main first"),
        (20, "iframe", "a"),
        (21, "iframe", "b"),
        (11, "button", "Main last"),
    ];
    let a: &[(i64, &str, &str)] = &[(40, "button", "In A"), (30, "iframe", "d")];
    let d: &[(i64, &str, &str)] = &[(50, "link", "In D")];
    let page = capture(&[("MAIN", main), ("A", a), ("D", d)], &[(20, 1), (30, 2)]);
    Arc::new(move |_tab, method, params| match method {
        "DOMSnapshot.captureSnapshot" => match failure {
            Some(kind) => Some(Reply::Err(kind, "no capture")),
            None => Reply::ok(page.clone()),
        },
        "Runtime.evaluate" if params["returnByValue"] == true => {
            Reply::ok(json!({"result": {"type": "object",
                "value": {"url": "http://example.test/frames", "title": "Frames"}}}))
        }
        // The focus is on the link in D.
        "Runtime.evaluate" => Reply::ok(json!({"result": {"type": "object", "objectId": "focus"}})),
        "DOM.describeNode" if params["objectId"] == "focus" => {
            Reply::ok(json!({"node": {"backendNodeId": 50}}))
        }
        _ => None,
    })
}

#[tokio::test]
async fn a_snapshot_asks_for_its_parts_at_once_and_shows_the_frames_its_process_holds() {
    let captured = Arc::new(tokio::sync::Notify::new());
    let d = Daemon::start().await;
    let mut ext = FakeExt::connect(
        &d.host_sock(),
        Script {
            gates: [("DOMSnapshot.captureSnapshot".to_string(), captured.clone())].into(),
            ..Script::one_tab(7, framed_page(None))
        },
    )
    .await;
    let mut c = observer(&d).await;
    let call = tokio::spawn(async move { c.call::<Snapshot>(&SnapshotParams::default()).await });
    // The focus and the url and title are asked for while the capture is
    // still unanswered; the focus's handle is released right behind its
    // description.
    let first = cdp_until(&mut ext, "Runtime.releaseObjectGroup").await;
    let mut asked = methods(&first);
    asked.sort();
    assert_eq!(
        asked,
        [
            "DOM.describeNode",
            "DOMSnapshot.captureSnapshot",
            "Runtime.evaluate",
            "Runtime.evaluate",
            "Runtime.releaseObjectGroup"
        ]
    );
    let group = |method: &str, pick: fn(&Value) -> bool| {
        first
            .iter()
            .find(|c| c.0 == method && pick(&c.1))
            .map(|c| c.1["objectGroup"].clone())
    };
    let taken = group("Runtime.evaluate", |p| p["returnByValue"] == false);
    assert!(taken.as_ref().is_some_and(Value::is_string), "{first:?}");
    assert_eq!(group("Runtime.releaseObjectGroup", |_| true), taken);
    let order = methods(&first);
    let at = |m: &str| order.iter().position(|x| *x == m);
    assert!(
        at("DOM.describeNode") < at("Runtime.releaseObjectGroup"),
        "{order:?}"
    );
    assert_eq!(
        first[0].1["computedStyles"],
        json!(["display", "visibility"]),
        "{first:?}"
    );
    captured.notify_one();
    let snap = tokio::time::timeout(WAIT, call)
        .await
        .expect("in time")
        .expect("task")
        .expect("snapshot");
    assert_eq!(snap.url, "http://example.test/frames");
    assert_eq!(snap.title, "Frames");
    // B (in another process) stays empty; D is inside A.
    assert_eq!(
        snap.text,
        "- button \"Main first\" [ref=e1]\n\
         - iframe \"a\" [ref=e2]:\n  \
           - button \"In A\" [ref=e3]\n  \
           - iframe \"d\" [ref=e4]:\n    \
             - link \"In D\" [active] [ref=e5]:\n      \
               - /url: http://example.test/x\n\
         - iframe \"b\" [ref=e6]\n\
         - button \"Main last\" [ref=e7]"
    );
}

#[tokio::test]
async fn a_capture_that_fails_fails_the_snapshot_with_its_kind() {
    for kind in [ErrorKind::CommandFailed, ErrorKind::RuntimeLost] {
        let d = Daemon::start().await;
        let _ext =
            FakeExt::connect(&d.host_sock(), Script::one_tab(7, framed_page(Some(kind)))).await;
        let mut c = observer(&d).await;
        let err = c
            .call::<Snapshot>(&SnapshotParams::default())
            .await
            .expect_err("the capture failed");
        assert_eq!(err.kind(), Some(kind));
    }
}

/// `page.snapshot` with `changes`: the whole outline the first time, then
/// only what changed since the session's last one of the page (its refs
/// still good), nothing when nothing did, and the whole outline again,
/// saying why, after a navigation.
#[tokio::test]
async fn a_snapshot_of_changes_gives_what_changed_since_the_sessions_last_one() {
    let d = Daemon::start().await;
    let (script, state) = page_script();
    let ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let changes = SnapshotParams {
        changes: true,
        ..SnapshotParams::default()
    };
    let first = c.call::<Snapshot>(&changes).await.expect("snapshot");
    assert_eq!((&first.changes, &first.whole_because), (&None, &None));
    let agree = find_ref(&first.text, "\"Agree\"");
    state.lock().expect("state").checked = true;
    let second = c.call::<Snapshot>(&changes).await.expect("snapshot");
    let diff = second.changes.expect("what changed");
    assert_eq!(second.text, "", "no outline beside the changes");
    let added: Vec<&str> = diff.lines().filter(|l| l.starts_with('+')).collect();
    assert_eq!(added.len(), 1, "{diff}");
    assert!(
        added[0].contains("checkbox \"Agree\"") && added[0].contains("[checked]"),
        "{diff}"
    );
    assert!(
        added[0].contains(&format!("[ref={}]", agree.0)),
        "the same ref: {diff}"
    );
    assert!(diff.lines().any(|l| l.starts_with('-')), "{diff}");
    assert!(diff.len() < first.text.len());
    // Nothing changed since.
    let third = c.call::<Snapshot>(&changes).await.expect("snapshot");
    assert_eq!(third.changes.as_deref(), Some(""));
    // The refs the session holds still act.
    c.call::<Click>(&ClickParams::on(agree.clone()))
        .await
        .expect("a ref of the first snapshot");
    // Another session has its own last snapshot: none yet.
    let mut other = observer(&d).await;
    let theirs = other.call::<Snapshot>(&changes).await.expect("snapshot");
    assert!(theirs.changes.is_none() && !theirs.text.is_empty());
    // After a navigation, the whole outline and why.
    main_frame_navigated(&ext);
    // The event may reach the daemon after the next request does.
    let give_up = tokio::time::Instant::now() + WAIT;
    let navigated = loop {
        let s = c.call::<Snapshot>(&changes).await.expect("snapshot");
        if s.whole_because.is_some() {
            break s;
        }
        assert!(tokio::time::Instant::now() < give_up, "{s:?}");
    };
    assert!(navigated.changes.is_none() && !navigated.text.is_empty());
    assert!(navigated
        .whole_because
        .is_some_and(|why| why.contains("another page")),);
    // A part of the new page after another navigation keeps the whole
    // outline given before, and the next changes say why they are whole.
    main_frame_navigated_to(&ext, "L3");
    let part = SnapshotParams {
        depth: Some(1),
        ..SnapshotParams::default()
    };
    let give_up = tokio::time::Instant::now() + WAIT;
    loop {
        c.call::<Snapshot>(&part).await.expect("a part");
        let s = c.call::<Snapshot>(&changes).await.expect("snapshot");
        if s.whole_because.is_some() {
            assert!(s.changes.is_none() && !s.text.is_empty(), "{s:?}");
            break;
        }
        assert!(tokio::time::Instant::now() < give_up, "{s:?}");
    }
    // An outline cut at the limit cannot be compared with.
    let cut = SnapshotParams {
        max_chars: Some(20),
        ..SnapshotParams::default()
    };
    assert!(c.call::<Snapshot>(&cut).await.expect("cut").truncated);
    let after_cut = c.call::<Snapshot>(&changes).await.expect("snapshot");
    assert!(
        after_cut
            .whole_because
            .as_deref()
            .is_some_and(|why| why.contains("cut")),
        "{after_cut:?}"
    );
    // Changes are of the whole outline only.
    for params in [
        SnapshotParams {
            root: Some(agree.clone()),
            ..changes.clone()
        },
        SnapshotParams {
            boxes: true,
            ..changes.clone()
        },
        SnapshotParams {
            depth: Some(1),
            ..changes.clone()
        },
    ] {
        let err = c.call::<Snapshot>(&params).await.expect_err("refused");
        assert_eq!(err.rpc().map(|e| e.code), Some(INVALID_PARAMS), "{err}");
    }
}

/// The fake's tab 7 reports a main-frame navigation to another document.
fn main_frame_navigated(ext: &FakeExt) {
    main_frame_navigated_to(ext, "L2");
}

/// [`main_frame_navigated`], to the document of `loader`.
fn main_frame_navigated_to(ext: &FakeExt, loader: &str) {
    ext.event(Event::Cdp {
        session: None,
        tab_id: TabId(7),
        method: "Page.frameNavigated".into(),
        params: json!({"frame": {"id": "MAIN", "loaderId": loader}}),
    });
}
