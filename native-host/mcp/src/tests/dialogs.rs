//! A dialog an action opens: shown as a modal state instead of the page
//! that waits for it, named by refusals, and answered one after another
//! until the page is shown again.

use super::{ok, one_tab, FakeDaemon, Mcp, Responder};
use cotab_shared::controller::{Acted, Call, DialogInfo, DialogKind, RpcError};
use cotab_shared::TabId;
use serde_json::json;
use std::sync::{Arc, Mutex};

#[tokio::test]
async fn an_action_that_opens_a_dialog_shows_it_and_answers_follow_the_chain() {
    let dialog = |kind, message: &str| DialogInfo {
        tab_id: TabId(7),
        kind,
        message: message.into(),
        default_prompt: None,
    };
    let answers = Arc::new(Mutex::new(0));
    let page = one_tab();
    let respond: Arc<Responder> = Arc::new(move |call| match call {
        Call::Click(p) if p.element.as_ref().is_some_and(|r| r.0 == "e2") => ok(Acted {
            dialog: Some(dialog(DialogKind::Confirm, "Delete?")),
            file_chooser: None,
        }),
        // Refused: the confirm was open before the click began.
        Call::Click(_) => Err(RpcError::dialog_open(
            dialog(DialogKind::Confirm, "Delete?"),
            "answer it with page.dialog",
        )),
        Call::Dialog(_) => {
            let mut n = answers.lock().expect("lock");
            *n += 1;
            ok(Acted {
                dialog: (*n == 1).then(|| dialog(DialogKind::Prompt, "Name?")),
                file_chooser: None,
            })
        }
        other => page(other),
    });
    let daemon = FakeDaemon::start(respond);
    let mut mcp = Mcp::start(&daemon).await;
    mcp.call("browser_snapshot", json!({})).await;
    daemon.clear();

    // The click succeeded and opened a confirm: the answer shows it, and
    // takes no snapshot of a page that waits for it.
    let (text, is_error, _) = mcp
        .call("browser_click", json!({"element":"Delete","ref":"e2"}))
        .await;
    assert!(!is_error, "{text}");
    assert!(text.starts_with("### Result\nClicked Delete\n"), "{text}");
    assert!(
        text.contains("- [\"confirm\" dialog with message \"Delete?\"]: can be handled by browser_handle_dialog"),
        "{text}"
    );
    assert_eq!(daemon.methods(), vec!["input.click"]);
    daemon.clear();

    // A refusal names the tool that answers the dialog.
    let (text, is_error, _) = mcp
        .call("browser_click", json!({"element":"Other","ref":"e3"}))
        .await;
    assert!(is_error);
    assert_eq!(
        text,
        "DIALOG_OPEN: a confirm dialog (\"Delete?\") is open on this tab: answer it with the browser_handle_dialog tool"
    );
    daemon.clear();

    // Accepting it leads to a prompt: that is what the answer shows.
    let (text, _, _) = mcp
        .call("browser_handle_dialog", json!({"accept": true}))
        .await;
    assert!(
        text.starts_with("### Result\nAccepted the confirm dialog\n"),
        "{text}"
    );
    assert!(
        text.contains("\"prompt\" dialog with message \"Name?\""),
        "{text}"
    );
    assert_eq!(daemon.methods(), vec!["page.dialog"]);
    daemon.clear();

    // The prompt's answer ends the chain: the page is shown again.
    let (text, _, _) = mcp
        .call(
            "browser_handle_dialog",
            json!({"accept": true, "promptText": "x"}),
        )
        .await;
    assert!(
        text.starts_with("### Result\nAccepted the prompt dialog\n"),
        "{text}"
    );
    assert!(!text.contains("Modal state"), "{text}");
    assert!(text.contains("### Snapshot changes\nNone since"), "{text}");
    assert_eq!(daemon.methods(), vec!["page.dialog", "page.snapshot"]);
}
