//! The host's commands, one handler each, dispatched from
//! [`cotab_shared::native::Command`]. Every request is answered with a
//! response carrying its id; requests run concurrently.

use super::{cdp, link, shared_tabs, Worker};
use cotab_shared::limits::DEFAULT_DEADLINE_MS;
use cotab_shared::native::{Command, ExtensionToHost, Outcome};
use cotab_shared::{ErrorKind, TabId, WireError};
use serde_json::Value;
use std::rc::Rc;

/// Runs one request (after the shared set is restored) and sends its
/// response.
pub(crate) async fn handle(worker: Rc<Worker>, id: u64, command: Command) {
    worker.restored.wait().await;
    let outcome = match command {
        Command::ListShared => list_shared(&worker).await,
        Command::Cdp {
            tab_id,
            method,
            params,
        } => cdp_command(&worker, tab_id, &method, &params).await,
    };
    link::send(&worker, &ExtensionToHost::Response { id, outcome });
}

/// `listShared`: the shared tabs with urls and titles.
async fn list_shared(worker: &Worker) -> Outcome {
    match serde_json::to_value(shared_tabs(worker).await) {
        Ok(value) => Outcome::Result(value),
        Err(e) => Outcome::Error(WireError::new(ErrorKind::CommandFailed, e.to_string())),
    }
}

/// `cdp`: one CDP command on a shared tab; other tabs are never touched.
async fn cdp_command(worker: &Worker, tab: TabId, method: &str, params: &Value) -> Outcome {
    if !worker.shared.borrow().contains(tab) {
        return Outcome::Error(WireError::new(
            ErrorKind::TabNotShared,
            format!("tab {tab} is not shared"),
        ));
    }
    match cdp::send(tab, method, params, DEFAULT_DEADLINE_MS).await {
        Ok(value) => Outcome::Result(value),
        Err(e) => Outcome::Error(e),
    }
}
