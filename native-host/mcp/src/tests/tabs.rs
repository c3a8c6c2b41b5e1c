//! A tab the page opens: told in the answer of the action that opened
//! it, even when the browser tells of it while the page is read after
//! the action; and not told as new once the model selected it.

use super::{one_tab, FakeDaemon, Mcp, Responder};
use cotab_shared::controller::Call;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// `tab.opened` of tab 8, opened by tab 7's page.
fn opened() -> Value {
    json!({"jsonrpc": "2.0", "method": "tab.opened", "params": {
        "id": 8, "url": "http://127.0.0.1/second", "title": "Second", "openerTabId": 7
    }})
}

#[tokio::test]
async fn a_tab_the_click_opened_is_told_with_the_click_and_not_again_once_selected() {
    let push: Arc<Mutex<Option<mpsc::UnboundedSender<Value>>>> = Arc::default();
    let page = one_tab();
    let on_click = push.clone();
    let respond: Arc<Responder> = Arc::new(move |call| {
        // The browser tells of the tab after the click answered.
        if let Call::Click(_) = call {
            if let Some(push) = on_click.lock().expect("lock").as_ref() {
                let _ = push.send(opened());
            }
        }
        page(call)
    });
    let daemon = FakeDaemon::start(respond);
    *push.lock().expect("lock") = Some(daemon.push.clone());
    let mut mcp = Mcp::start(&daemon).await;
    mcp.call("browser_snapshot", json!({})).await;
    let (text, is_error, _) = mcp
        .call(
            "browser_click",
            json!({"element": "Click me", "target": "e2"}),
        )
        .await;
    assert!(!is_error, "{text}");
    assert!(text.contains("### New tabs\n- tabId=8"), "{text}");

    // Heard of again as the model selects it: the answer of selecting it
    // does not call it new.
    daemon.push.send(opened()).expect("push");
    let (text, is_error, _) = mcp
        .call("browser_tabs", json!({"action": "select", "index": 1}))
        .await;
    assert!(!is_error, "{text}");
    assert!(text.contains("Selected tab 8"), "{text}");
    assert!(!text.contains("### New tabs"), "{text}");
    mcp.close().await;
}

#[tokio::test]
async fn selecting_the_tab_a_click_opens_waits_for_it_to_be_shared_a_little() {
    // How many more lists leave tab 8 out (the page's tab not yet shared).
    let unshared_lists = Arc::new(AtomicUsize::new(usize::MAX));
    let page = one_tab();
    let left_out = unshared_lists.clone();
    let respond: Arc<Responder> = Arc::new(move |call| match call {
        Call::TabsList(_)
            if left_out
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_ok() =>
        {
            let mut all = page(call)?;
            if let Some(tabs) = all["tabs"].as_array_mut() {
                tabs.truncate(1);
            }
            Ok(all)
        }
        other => page(other),
    });
    let daemon = FakeDaemon::start(respond);
    let mut mcp = Mcp::start(&daemon).await;
    mcp.call("browser_snapshot", json!({})).await;
    // No tab opens: a clear error after the wait.
    let (text, is_error, _) = mcp
        .call("browser_tabs", json!({"action": "select", "index": 1}))
        .await;
    assert!(is_error, "{text}");
    assert!(
        text.contains("no shared tab at index 1 (1 shared)"),
        "{text}"
    );
    // The tab is shared after the select first looked: it looks again.
    unshared_lists.store(1, Ordering::SeqCst);
    let (text, is_error, _) = mcp
        .call("browser_tabs", json!({"action": "select", "index": 1}))
        .await;
    assert!(!is_error, "{text}");
    assert!(text.contains("Selected tab 8"), "{text}");
    assert_eq!(unshared_lists.load(Ordering::SeqCst), 0, "it looked twice");
    mcp.close().await;
}
