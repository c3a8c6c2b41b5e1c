//! Input by ref: clicks aimed after a hit test, typing, options and
//! checkboxes, HTML5 drags and the wheel.

use super::*;

#[tokio::test]
async fn a_ref_click_aims_at_its_element_in_one_command() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let go = find_ref(&snapshot(&mut c).await, "\"Go\"");
    c.call::<Click>(&ClickParams::on(go))
        .await
        .expect("clicked");
    let aim = loop {
        if let cotab_shared::native::Command::Aim(aim) = ext.next_command().await {
            break aim;
        }
    };
    assert_eq!(
        (aim.backend_node_id, aim.class, aim.point),
        (11, CommandClass::Act, cotab_shared::native::AimPoint::Hit)
    );
    // What the extension does for it, as the fake does it too.
    let cmds = cdp_until(&mut ext, "DOM.getNodeForLocation").await;
    assert_eq!(
        methods(&cmds),
        [
            "DOM.resolveNode",
            "DOM.scrollIntoViewIfNeeded",
            "DOM.getContentQuads",
            "Page.getLayoutMetrics",
            "DOM.getNodeForLocation"
        ],
        "{cmds:?}"
    );
}

#[tokio::test]
async fn a_ref_click_aims_at_the_visible_centre_after_a_hit_test() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let go = find_ref(&snapshot(&mut c).await, "\"Go\"");
    c.call::<Click>(&ClickParams {
        click_count: Some(2),
        ..ClickParams::on(go)
    })
    .await
    .expect("clicked");
    let cmds = cdp_until(&mut ext, "DOM.resolveNode").await;
    assert_eq!(
        cmds.last().map(|c| c.1["backendNodeId"].clone()),
        Some(json!(11))
    );
    let cmds = cdp_until(&mut ext, "DOM.getNodeForLocation").await;
    assert!(methods(&cmds).contains(&"DOM.scrollIntoViewIfNeeded"));
    assert!(methods(&cmds).contains(&"DOM.getContentQuads"));
    // The hit test reads document coordinates: the centre plus the scroll.
    let hit = &cmds.last().expect("hit test").1;
    assert_eq!(
        (hit["x"].as_f64(), hit["y"].as_f64()),
        (Some(140.0), Some(210.0))
    );
    let mut mouse = Vec::new();
    while mouse.len() < 5 {
        mouse.push(ext.next_cdp("Input.dispatchMouseEvent").await);
    }
    let seen: Vec<(&str, f64, f64, u64)> = mouse
        .iter()
        .map(|m| {
            (
                m["type"].as_str().unwrap_or_default(),
                m["x"].as_f64().unwrap_or(-1.0),
                m["y"].as_f64().unwrap_or(-1.0),
                m["clickCount"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            ("mouseMoved", 140.0, 110.0, 0),
            ("mousePressed", 140.0, 110.0, 1),
            ("mouseReleased", 140.0, 110.0, 1),
            ("mousePressed", 140.0, 110.0, 2),
            ("mouseReleased", 140.0, 110.0, 2),
        ]
    );

    // Exactly one of ref or x+y, named in the error.
    let err = c
        .call::<Click>(&ClickParams {
            x: Some(1.0),
            ..ClickParams::on(Ref("e1".into()))
        })
        .await
        .expect_err("both");
    assert!(err.to_string().contains("params.ref"), "{err}");
    let err = c
        .call::<Click>(&ClickParams::default())
        .await
        .expect_err("neither");
    assert!(err.to_string().contains("params.ref"), "{err}");
    let err = c
        .call::<Click>(&ClickParams {
            x: Some(1.0),
            ..ClickParams::default()
        })
        .await
        .expect_err("no y");
    assert!(err.to_string().contains("params.y"), "{err}");
}

#[tokio::test]
async fn zero_size_and_covered_elements_are_not_interactable() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let _ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let outline = snapshot(&mut c).await;
    let err = c
        .call::<Click>(&ClickParams::on(find_ref(&outline, "\"Tiny\"")))
        .await
        .expect_err("no size");
    assert_eq!(err.kind(), Some(ErrorKind::NotInteractable));
    assert!(err.to_string().contains("no size"), "{err}");
    let err = c
        .call::<Click>(&ClickParams::on(find_ref(&outline, "\"Under\"")))
        .await
        .expect_err("covered");
    assert_eq!(err.kind(), Some(ErrorKind::NotInteractable));
    assert!(err.to_string().contains("covered"), "{err}");
}

#[tokio::test]
async fn typing_by_ref_focuses_clears_types_and_submits() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let outline = snapshot(&mut c).await;
    c.call::<Type>(&TypeParams {
        text: "Ada".into(),
        element: Some(find_ref(&outline, "\"Name\"")),
        clear: true,
        submit: true,
        expect: None,
    })
    .await
    .expect("typed");
    let cmds = cdp_until(&mut ext, "Input.dispatchKeyEvent").await;
    let m = methods(&cmds);
    let at = |name: &str| m.iter().position(|x| *x == name).expect(name);
    // The focus, its check (which only reads), then the emptying.
    let calls: Vec<usize> = (0..m.len())
        .filter(|&i| m[i] == "Runtime.callFunctionOn")
        .collect();
    assert_eq!(calls.len(), 2, "{m:?}");
    assert!(at("DOM.focus") < calls[0]);
    assert!(calls[1] < at("Input.insertText"));
    let clears: Vec<&Value> = calls
        .iter()
        .map(|&i| &cmds[i].1["arguments"][0]["value"])
        .collect();
    assert_eq!(clears, [false, true]);
    assert_eq!(cmds[at("Input.insertText")].1["text"], "Ada");
    let down = &cmds.last().expect("enter").1;
    assert_eq!(
        (down["type"].as_str(), down["key"].as_str()),
        (Some("keyDown"), Some("Enter"))
    );
    let up = ext.next_cdp("Input.dispatchKeyEvent").await;
    assert_eq!(up["type"], "keyUp");
    // A button takes no text.
    let err = c
        .call::<Type>(&TypeParams {
            text: "x".into(),
            element: Some(find_ref(&outline, "\"Go\"")),
            ..TypeParams::default()
        })
        .await
        .expect_err("not editable");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));
}

#[tokio::test]
async fn typing_by_ref_asks_for_the_focus_and_its_check_at_once() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let focused = Arc::new(tokio::sync::Semaphore::new(0));
    let script = Script {
        held: HashMap::from([("DOM.focus".to_string(), focused.clone())]),
        ..script
    };
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let name = find_ref(&snapshot(&mut c).await, "\"Name\"");
    let typed = tokio::spawn(async move {
        c.call::<Type>(&TypeParams {
            text: "Ada".into(),
            element: Some(name),
            clear: true,
            ..TypeParams::default()
        })
        .await
    });
    // The check (that the element takes text and has the focus; it only
    // reads) is asked for while the focus's answer is held back.
    let cmds = cdp_until(&mut ext, "Runtime.callFunctionOn").await;
    let m = methods(&cmds);
    assert_eq!(m[m.len() - 2..], ["DOM.focus", "Runtime.callFunctionOn"]);
    let check = &cmds.last().expect("the check").1;
    assert!(
        check["functionDeclaration"]
            .as_str()
            .is_some_and(|f| f.contains("activeElement !== el")),
        "{check}"
    );
    assert_eq!(check["arguments"][0]["value"], false, "{check}");
    // Emptying it waits for the focus's answer: another agent's request,
    // asked for now, reaches the extension first.
    let mut other = observer(&d).await;
    let listed = tokio::spawn(async move { other.call::<TabsList>(&Empty {}).await });
    assert!(
        matches!(
            ext.next_command().await,
            cotab_shared::native::Command::ListShared
        ),
        "the emptying went out before the focus answered"
    );
    listed.await.expect("task").expect("listed");
    focused.add_permits(1);
    let clear = ext.next_cdp("Runtime.callFunctionOn").await;
    assert_eq!(clear["arguments"][0]["value"], true, "{clear}");
    assert_eq!(ext.next_cdp("Input.insertText").await["text"], "Ada");
    tokio::time::timeout(WAIT, typed)
        .await
        .expect("in time")
        .expect("task")
        .expect("typed");
}

#[tokio::test]
async fn select_option_and_check_change_only_what_differs() {
    let d = Daemon::start().await;
    let (script, state) = page_script();
    let _ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let outline = snapshot(&mut c).await;
    let color = find_ref(&outline, "\"Color\"");
    let r = c
        .call::<SelectOption>(&SelectOptionParams {
            element: color.clone(),
            values: vec!["Red".into()],
        })
        .await
        .expect("selected");
    assert_eq!(r.selected, vec!["r".to_string()]);
    let err = c
        .call::<SelectOption>(&SelectOptionParams {
            element: color,
            values: vec!["secret-colour".into()],
        })
        .await
        .expect_err("no option");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));
    assert!(!err.to_string().contains("secret-colour"));
    let err = c
        .call::<SelectOption>(&SelectOptionParams {
            element: find_ref(&outline, "\"Go\""),
            values: vec!["x".into()],
        })
        .await
        .expect_err("not a select");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));

    let agree = find_ref(&outline, "\"Agree\"");
    let check = |checked| CheckParams {
        element: agree.clone(),
        checked,
    };
    c.call::<Check>(&check(true)).await.expect("checked");
    assert!(state.lock().expect("state").checked);
    // Already checked: nothing is clicked (a click would uncheck it).
    c.call::<Check>(&check(true)).await.expect("still checked");
    assert!(state.lock().expect("state").checked);
    c.call::<Check>(&check(false)).await.expect("unchecked");
    assert!(!state.lock().expect("state").checked);
    let err = c
        .call::<Check>(&CheckParams {
            element: find_ref(&outline, "\"Go\""),
            checked: true,
        })
        .await
        .expect_err("not checkable");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));
}

#[tokio::test]
async fn an_html5_drag_is_intercepted_and_dropped_with_its_data() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let outline = snapshot(&mut c).await;
    c.call::<Drag>(&DragParams {
        from: find_ref(&outline, "\"Card\""),
        to: find_ref(&outline, "\"Zone\""),
    })
    .await
    .expect("dragged");
    let cmds = cdp_until(&mut ext, "Input.dispatchDragEvent").await;
    let intercept = cmds
        .iter()
        .find(|c| c.0 == "Input.setInterceptDrags")
        .expect("interception on");
    assert_eq!(intercept.1["enabled"], true);
    let enter = &cmds.last().expect("drag event").1;
    assert_eq!(enter["type"], "dragEnter");
    assert_eq!(
        (enter["x"].as_f64(), enter["y"].as_f64()),
        (Some(650.0), Some(150.0))
    );
    assert_eq!(enter["data"]["items"][0]["data"], "card");
    for kind in ["dragOver", "drop"] {
        assert_eq!(ext.next_cdp("Input.dispatchDragEvent").await["type"], kind);
    }
    let up = ext.next_cdp("Input.dispatchMouseEvent").await;
    assert_eq!(up["type"], "mouseReleased");
    let (off, class) = ext.next_cdp_class("Input.setInterceptDrags").await;
    assert_eq!(
        (off["enabled"].as_bool(), class),
        (Some(false), CommandClass::Release)
    );
}

#[tokio::test]
async fn scroll_turns_the_wheel_at_the_centre_or_brings_a_ref_into_view() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    c.call::<Scroll>(&ScrollParams {
        delta_y: Some(300.0),
        ..ScrollParams::default()
    })
    .await
    .expect("scrolled");
    let wheel = ext.next_cdp("Input.dispatchMouseEvent").await;
    assert_eq!(
        (
            wheel["type"].as_str(),
            wheel["x"].as_f64(),
            wheel["y"].as_f64(),
            wheel["deltaY"].as_f64()
        ),
        (Some("mouseWheel"), Some(400.0), Some(300.0), Some(300.0))
    );
    let outline = snapshot(&mut c).await;
    c.call::<Scroll>(&ScrollParams {
        element: Some(find_ref(&outline, "\"Zone\"")),
        ..ScrollParams::default()
    })
    .await
    .expect("into view");
    let p = ext.next_cdp("DOM.scrollIntoViewIfNeeded").await;
    assert_eq!(p["backendNodeId"], 19);
    let err = c
        .call::<Scroll>(&ScrollParams::default())
        .await
        .expect_err("nothing to do");
    assert!(err.to_string().contains("params.deltaY"), "{err}");
}

#[tokio::test]
async fn a_click_goes_through_the_page_before_it_answers_and_no_trip_follows() {
    let d = Daemon::start().await;
    let (script, _) = page_script();
    let mut ext = FakeExt::connect(&d.host_sock(), script).await;
    let mut c = controller(&d).await;
    let go = find_ref(&snapshot(&mut c).await, "\"Go\"");
    tokio::time::timeout(WAIT, c.call::<Click>(&ClickParams::on(go)))
        .await
        .expect("in time")
        .expect("clicked");
    // A request after the click that reaches the extension.
    c.call::<TabsList>(&Empty {}).await.expect("tabs");
    let mut seen = Vec::new();
    loop {
        let cmd = tokio::time::timeout(WAIT, ext.next_command())
            .await
            .expect("a command");
        let clicked = seen
            .iter()
            .any(|c| matches!(c, cotab_shared::native::Command::Input { .. }));
        if clicked && matches!(cmd, cotab_shared::native::Command::ListShared) {
            break;
        }
        seen.push(cmd);
    }
    let input = seen
        .iter()
        .rposition(|c| matches!(c, cotab_shared::native::Command::Input { .. }))
        .expect("the click's input");
    // The extension's trip through the page (every `input` op makes it),
    // and no other after it: the daemon makes none of its own.
    let probes = seen[input..]
        .iter()
        .filter(|c| {
            matches!(c, cotab_shared::native::Command::Observe(call)
                if call.method == "Runtime.evaluate" && call.params["expression"] == "0")
        })
        .count();
    assert_eq!(probes, 1, "{:?}", &seen[input..]);
}
