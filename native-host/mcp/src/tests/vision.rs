//! The coordinate tools of `--caps vision`: offered only with it, each one
//! the protocol call it stands for, at points of the latest screenshot,
//! and the mouse's last position kept for the press and the wheel.

use super::*;

#[tokio::test]
async fn without_vision_the_coordinate_tools_are_neither_listed_nor_callable() {
    let daemon = FakeDaemon::start(one_tab());
    let mut mcp = Mcp::start(&daemon).await;
    let names = mcp.tool_names().await;
    assert!(
        !names.iter().any(|n| n.starts_with("browser_mouse_")),
        "{names:?}"
    );
    mcp.send(json!({"jsonrpc":"2.0","id":99,"method":"tools/call",
                    "params":{"name":"browser_mouse_click_xy","arguments":{"x":1,"y":2}}}))
        .await;
    let answer = loop {
        let msg = mcp.next().await;
        if msg["id"] == 99 {
            break msg;
        }
    };
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("unknown tool")),
        "{answer}"
    );
    assert!(daemon.input_calls().is_empty());
    mcp.close().await;
}

#[tokio::test]
async fn with_vision_each_coordinate_tool_is_its_input_call() {
    let daemon = FakeDaemon::start(one_tab());
    let mut mcp =
        Mcp::start_serving(&daemon, SessionMode::Fresh, Caps::of(&[crate::Cap::Vision])).await;
    let names = mcp.tool_names().await;
    for name in crate::tools::VISION {
        assert!(names.iter().any(|n| n == name), "{name} not in {names:?}");
    }
    mcp.call("browser_snapshot", json!({})).await;
    daemon.clear();

    // No position yet: a press has nowhere to go, and nothing is sent.
    let (text, is_error, _) = mcp.call("browser_mouse_down", json!({})).await;
    assert!(is_error && text.contains("browser_mouse_move_xy"), "{text}");
    assert!(daemon.calls().is_empty());

    mcp.call("browser_mouse_move_xy", json!({"x": 10, "y": 20}))
        .await;
    mcp.call("browser_mouse_down", json!({"button": "right"}))
        .await;
    mcp.call("browser_mouse_up", json!({"button": "right"}))
        .await;
    mcp.call("browser_mouse_wheel", json!({"deltaX": 0, "deltaY": 300}))
        .await;
    mcp.call(
        "browser_mouse_click_xy",
        json!({"x": 5, "y": 6, "clickCount": 2}),
    )
    .await;
    assert_eq!(
        daemon.input_calls(),
        vec![
            ("input.mouseMove".into(), json!({"x": 10.0, "y": 20.0})),
            (
                "input.mouseDown".into(),
                json!({"x": 10.0, "y": 20.0, "button": "right"})
            ),
            ("input.mouseUp".into(), json!({"button": "right"})),
            (
                "input.scroll".into(),
                json!({"x": 10.0, "y": 20.0, "deltaX": 0.0, "deltaY": 300.0})
            ),
            (
                "input.click".into(),
                json!({"x": 5.0, "y": 6.0, "clickCount": 2})
            ),
        ]
    );
    daemon.clear();

    let (text, is_error, _) = mcp
        .call(
            "browser_mouse_drag_xy",
            json!({"startX": 1, "startY": 2, "endX": 30, "endY": 40}),
        )
        .await;
    assert!(
        !is_error && text.contains("Dragged from (1, 2) to (30, 40)"),
        "{text}"
    );
    assert_eq!(
        daemon.input_calls(),
        vec![
            ("input.mouseDown".into(), json!({"x": 1.0, "y": 2.0})),
            ("input.mouseMove".into(), json!({"x": 30.0, "y": 40.0})),
            ("input.mouseUp".into(), json!({})),
        ]
    );
    daemon.clear();
    let (text, is_error, _) = mcp
        .call(
            "browser_mouse_click_xy",
            json!({"x": 1, "y": 2, "delay": 50}),
        )
        .await;
    assert!(is_error && text.contains("`delay`"), "{text}");
    assert!(daemon.input_calls().is_empty());
    mcp.close().await;
}
