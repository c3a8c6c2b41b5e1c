//! `browser_file_upload` through the server: the file chooser an action
//! opened is its modal state, answered without a ref.

use super::*;
use cotab_shared::controller::FileChooserInfo;

#[tokio::test]
async fn a_file_chooser_is_a_modal_state_that_browser_file_upload_answers() {
    let base = one_tab();
    let waiting = Arc::new(Mutex::new(false));
    let state = Arc::clone(&waiting);
    let chooser = FileChooserInfo {
        tab_id: TabId(7),
        multiple: true,
    };
    let opened = chooser.clone();
    let daemon = FakeDaemon::start(Arc::new(move |call| match call {
        Call::Click(_) => {
            *state.lock().expect("lock") = true;
            ok(Acted {
                dialog: None,
                file_chooser: Some(opened.clone()),
            })
        }
        Call::SetFiles(p) => {
            if p.element.is_none() {
                *state.lock().expect("lock") = false;
            }
            ok(Acted::default())
        }
        Call::Snapshot(_) => ok(SnapshotResult {
            url: "http://127.0.0.1/".into(),
            title: "Fixture".into(),
            text: "- button \"Attach\" [ref=e2]\n".into(),
            refs: 1,
            truncated: false,
            file_chooser: state.lock().expect("lock").then(|| opened.clone()),
            changes: None,
            whole_because: None,
        }),
        other => base(other),
    }));
    let mut mcp = Mcp::start(&daemon).await;
    let (text, is_error, _) = mcp
        .call(
            "browser_click",
            json!({"element": "Attach", "target": "e2"}),
        )
        .await;
    assert!(!is_error, "{text}");
    // As Playwright MCP: the page, the modal state, then the snapshot.
    assert!(
        text.contains(
            "- Page Title: Fixture\n### Modal state\n- [File chooser]: can be handled by \
             browser_file_upload\n### Snapshot\n"
        ),
        "{text}"
    );
    daemon.clear();
    let (text, is_error, _) = mcp
        .call(
            "browser_file_upload",
            json!({"paths": ["/up/a.txt", "/up/b.txt"]}),
        )
        .await;
    assert!(!is_error, "{text}");
    assert!(
        text.starts_with("### Result\nSet 2 file(s) in the file chooser"),
        "{text}"
    );
    assert!(!text.contains("Modal state"), "{text}");
    let sent = daemon
        .calls()
        .into_iter()
        .find(|(m, _)| m == "input.setFiles")
        .expect("input.setFiles sent");
    assert_eq!(sent.1, json!({"paths": ["/up/a.txt", "/up/b.txt"]}));

    // No paths: the chooser is cancelled; a ref without paths is refused
    // before anything is sent.
    daemon.clear();
    let (text, is_error, _) = mcp.call("browser_file_upload", json!({})).await;
    assert!(
        !is_error && text.contains("Cancelled the file chooser"),
        "{text}"
    );
    let sent = daemon
        .calls()
        .into_iter()
        .find(|(m, _)| m == "input.setFiles")
        .expect("input.setFiles sent");
    assert_eq!(sent.1, json!({"paths": []}));
    daemon.clear();
    let (text, is_error, _) = mcp
        .call("browser_file_upload", json!({"target": "e5"}))
        .await;
    assert!(is_error && text.contains("`paths` is required"), "{text}");
    assert!(daemon.calls().is_empty(), "{:?}", daemon.calls());
    let (text, is_error, _) = mcp
        .call(
            "browser_file_upload",
            json!({"target": "e5", "paths": ["/up/a.txt"], "element": "CV"}),
        )
        .await;
    assert!(!is_error && text.contains("Set 1 file(s) on CV"), "{text}");
    mcp.close().await;
}
