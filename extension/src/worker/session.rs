//! A tab's debugger session: attaching `chrome.debugger` (CDP 1.3),
//! sending the commands of [`cotab_shared::native::ENABLED_CDP_DOMAINS`] so
//! the events the host wants flow, reading the page the session sees, and
//! detaching. Shares, re-attaches and the short sessions that only release
//! held input all go through here.

use super::cdp;
use super::cells::Worker;
use crate::chrome::{debugger, error_message, from_js};
use crate::log;
use crate::page_state::{at, Change};
use crate::state::{enable_commands, is_already_attached};
use cotab_shared::cdp::BEST_EFFORT_CDP;
use cotab_shared::TabId;
use serde_json::Value;

/// Deadline of the domain-enabling commands sent on attach, in milliseconds.
const ENABLE_DEADLINE_MS: u64 = 10_000;

/// Attaches the debugger. An existing session counts as ours only when
/// `ours_if_attached` (the tab is in our persisted set: a worker restart
/// does not end the extension's debugger sessions).
pub(super) async fn attach(tab: TabId, ours_if_attached: bool) -> Result<(), String> {
    let target = debugger::debuggee(tab).map_err(|e| error_message(&e))?;
    match debugger::attach(&target, debugger::PROTOCOL_VERSION).await {
        Ok(_) => Ok(()),
        Err(e) => {
            let message = error_message(&e);
            if !is_already_attached(&message) {
                Err(format!("could not attach to tab {tab}: {message}"))
            } else if ours_if_attached {
                Ok(())
            } else {
                Err(format!(
                    "another debugger (another extension?) is attached to tab {tab}"
                ))
            }
        }
    }
}

/// Sends every command of [`cotab_shared::native::ENABLED_CDP_DOMAINS`],
/// with its params, then reads the tab's main frame (`Page.getFrameTree`)
/// into the machine's [`pages`](crate::machine::Machine::pages): whether
/// its page is blocked, from the session just opened. What was known of
/// the page before is forgotten first.
/// Says how the page changed, if it did.
pub(super) async fn enable(worker: &Worker, tab: TabId) -> Result<Option<Change>, String> {
    let before = worker.state.borrow().pages.blocked(tab);
    worker.state.borrow_mut().pages.attaching(tab);
    // A new session: nothing raw CDP set up in the old one is left.
    worker.state.borrow_mut().facts.new_session(tab);
    for (method, params) in enable_commands()? {
        let sent = cdp::send(tab, method, &params, ENABLE_DEADLINE_MS).await;
        match sent {
            Ok(_) => {}
            Err(e) if BEST_EFFORT_CDP.contains(&method) => log::warn(&format!(
                "tab {tab} refused {method} ({}): it is driven slowly from behind another tab",
                e.message
            )),
            Err(e) => {
                return Err(format!(
                    "could not run {method} on tab {tab}: {}",
                    e.message
                ))
            }
        }
    }
    let tree = cdp::send(tab, "Page.getFrameTree", &Value::Null, ENABLE_DEADLINE_MS)
        .await
        .map_err(|e| format!("could not read the page of tab {tab}: {}", e.message))?;
    let tree: Value = from_js(tree).map_err(|e| error_message(&e))?;
    let text = |p: &str| at(&tree, p).and_then(Value::as_str);
    let url = format!(
        "{}{}",
        text("/frameTree/frame/url").unwrap_or_default(),
        text("/frameTree/frame/urlFragment").unwrap_or_default()
    );
    worker.state.borrow_mut().pages.attached(
        tab,
        text("/frameTree/frame/id").unwrap_or_default(),
        &url,
        text("/frameTree/frame/unreachableUrl"),
    );
    // A re-attach of a shared tab: the page may have changed meanwhile.
    let now = worker.state.borrow().pages.blocked(tab);
    Ok((now != before).then(|| now.map_or(Change::Driveable, Change::Blocked)))
}

/// Detaches the debugger, logging failures (the tab may be gone), once
/// the browser answered the tab's captures ([`cdp::captures_done`]).
pub(super) async fn detach(tab: TabId) {
    cdp::captures_done(tab).await;
    let result = match debugger::debuggee(tab) {
        Ok(target) => debugger::detach(&target).await.map(drop),
        Err(e) => Err(e),
    };
    if let Err(e) = result {
        log::info(&format!("detaching from tab {tab}: {}", error_message(&e)));
    }
}
