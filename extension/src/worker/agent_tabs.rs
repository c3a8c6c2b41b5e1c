//! The host's `createTab` and `closeTab`: tabs opened and closed for an
//! agent.
//!
//! `createTab` opens an active tab in the window of the shared tabs (the
//! normal window focused last when none is shared), waits until the
//! browser reports its id and url, and shares it exactly as the popup's
//! Share does — except that a tab opened without a url may be the blank
//! page ([`crate::state::ShareOrigin::Created`]). A given url is checked
//! against [`cotab_shared::reach`] before any tab is opened, and the shared-tab
//! limit too; a tab that cannot be shared after all is closed again. The
//! answer is the tab's [`TabInfo`].
//!
//! `closeTab` closes a shared tab that the person does not control; the
//! close then flows through `chrome.tabs.onRemoved` like any other
//! ([`super::browser_events`]): `tabClosed`, then the shared list.

use super::cells::Worker;
use super::share;
use crate::chrome::{error_message, tabs, windows};
use crate::log;
use crate::state::{ShareFailure, ShareOrigin};
use cotab_shared::native::{CommandClass, TabInfo};
use cotab_shared::reach::{check_shareable, BLANK_PAGE};
use cotab_shared::{ErrorKind, TabId, WireError};
use gloo_timers::future::TimeoutFuture;
use serde_json::Value;
use std::rc::Rc;

/// How long a new tab may take to report its url, in milliseconds.
const URL_DEADLINE_MS: f64 = 5_000.0;

/// Pause between two reads of a new tab that has no url yet.
const URL_POLL_MS: u32 = 20;

/// `createTab`: opens `url` (the blank page when absent), shares the tab
/// and answers with its [`TabInfo`].
pub(super) async fn create_tab(
    worker: &Rc<Worker>,
    url: Option<String>,
) -> Result<Value, WireError> {
    if let Some(url) = &url {
        check_shareable(url, worker.state.borrow().pages.files())
            .map_err(|blocked| ShareFailure::Blocked(blocked).to_wire())?;
    }
    worker
        .state
        .borrow()
        .shared
        .has_room()
        .map_err(|refusal| ShareFailure::Refused(refusal).to_wire())?;
    let window = target_window(worker).await;
    let created = tabs::create(url.as_deref().unwrap_or(BLANK_PAGE), window)
        .await
        .map_err(|e| failed(format!("could not open a tab: {}", error_message(&e))))?;
    let Some(tab) = created.id else {
        return Err(failed("the browser opened a tab without an id".to_owned()));
    };
    let shared = match wait_for_url(tab).await {
        Ok(()) => share::share_tab(worker, tab, ShareOrigin::Created)
            .await
            .map_err(|failure| failure.to_wire()),
        Err(e) => Err(e),
    };
    if let Err(e) = shared {
        // The tab was opened only to be shared; do not leave it behind.
        if let Err(close) = tabs::remove(tab).await {
            log::info(&format!(
                "closing tab {tab}, which could not be shared: {}",
                error_message(&close)
            ));
        }
        return Err(e);
    }
    let info = tabs::get(tab)
        .await
        .map_err(|e| failed(format!("tab {tab} is gone: {}", error_message(&e))))?;
    let info = TabInfo {
        id: tab,
        url: info.effective_url().to_owned(),
        title: info.title.unwrap_or_default(),
        human_control: worker.state.borrow().shared.is_human(tab),
        // Just checked after the attach; a later change is reported with
        // the shared list.
        blocked: None,
        opener: None,
        target_id: worker
            .state
            .borrow()
            .pages
            .main_frame(tab)
            .map(str::to_owned),
    };
    serde_json::to_value(info).map_err(|e| failed(e.to_string()))
}

/// `closeTab`: closes a shared tab the person does not control.
pub(super) async fn close_tab(worker: &Rc<Worker>, tab: TabId) -> Result<Value, WireError> {
    // Closing is an action on the tab: refused while the person has
    // control, like any other.
    worker.state.borrow().admit(tab, CommandClass::Act)?;
    tabs::remove(tab)
        .await
        .map_err(|e| failed(format!("could not close tab {tab}: {}", error_message(&e))))?;
    Ok(Value::Object(serde_json::Map::new()))
}

/// The window a new tab opens in: the first shared tab's, else the normal
/// window focused last, else (`None`) the browser's current window.
async fn target_window(worker: &Worker) -> Option<i32> {
    let shared = worker.state.borrow().shared.ids().to_vec();
    for tab in shared {
        if let Ok(info) = tabs::get(tab).await {
            return Some(info.window_id);
        }
    }
    match windows::last_focused_normal().await {
        Ok(id) => Some(id),
        Err(e) => {
            log::info(&format!(
                "no last focused window, opening in the current one: {}",
                error_message(&e)
            ));
            None
        }
    }
}

/// Waits until the browser reports a url for the new tab (committed or
/// pending), so the policy judges what the tab really shows.
async fn wait_for_url(tab: TabId) -> Result<(), WireError> {
    let start = js_sys::Date::now();
    loop {
        let info = tabs::get(tab)
            .await
            .map_err(|e| failed(format!("tab {tab} is gone: {}", error_message(&e))))?;
        if !info.effective_url().is_empty() {
            return Ok(());
        }
        if js_sys::Date::now() - start > URL_DEADLINE_MS {
            return Err(WireError::new(
                ErrorKind::Timeout,
                format!("tab {tab} reported no url within {URL_DEADLINE_MS} ms"),
            ));
        }
        // There is no event for "the tab has a url" that cannot be missed
        // between `create` and a listener; a short poll with a deadline is
        // simpler and bounded.
        TimeoutFuture::new(URL_POLL_MS).await;
    }
}

/// `COMMAND_FAILED` with `message`.
fn failed(message: String) -> WireError {
    WireError::new(ErrorKind::CommandFailed, message)
}
