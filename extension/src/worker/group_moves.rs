//! The `cotab` tab group as a way to share: a tab the person drags into it
//! is shared, a shared tab they drag out of it is unshared, and a tab a
//! shared page opens (which the browser puts in its opener's group) is
//! shared at once.
//!
//! `chrome.tabs.onUpdated` reports a `groupId` change; this module reads
//! the tab's group as it is now (not as the event said, which may be stale)
//! and lets [`crate::state::SharedSet::group_move`] decide. A share that is
//! refused (the shared-tab limit, a url that may not be shared, a browser
//! failure) moves the tab back out of the group and is kept as the popup's
//! `shareError`. The worker's own grouping never loops back here: it groups
//! a tab while the share is pending and ungroups only tabs already out of
//! the set.

use super::cells::Worker;
use super::share;
use crate::chrome::{error_message, tab_groups, tabs};
use crate::log;
use crate::messages::{ChromeTab, TAB_GROUP_ID_NONE};
use crate::state::{GroupMove, ShareFailure, ShareOrigin, ShareRefusal};
use cotab_shared::TabId;
use std::rc::Rc;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::spawn_local;

/// `tab`'s group changed: share or unshare it to match.
pub(super) fn group_changed(worker: &Rc<Worker>, tab: TabId) {
    let worker = worker.clone();
    spawn_local(async move {
        worker.restored.wait().await;
        // The worker's own share of this tab is running: its grouping.
        if worker.state.borrow().shared.is_pending(tab) {
            return;
        }
        let in_cotab_group = match in_cotab_group(tab).await {
            Ok(inside) => inside,
            Err(e) => {
                log::info(&format!(
                    "tab {tab} changed group but cannot be read: {}",
                    error_message(&e)
                ));
                return;
            }
        };
        let decision = worker.state.borrow().shared.group_move(tab, in_cotab_group);
        match decision {
            GroupMove::Share => joined(&worker, tab, ShareOrigin::GroupDrag).await,
            GroupMove::Unshare => match share::unshare_tab(&worker, tab).await {
                Ok(_) => log::info(&format!(
                    "tab {tab} left the cotab group and is no longer shared"
                )),
                Err(e) => log::warn(&format!("tab {tab} left the cotab group: {e}")),
            },
            GroupMove::Nothing => {}
        }
    });
}

/// A tab was created in the `cotab` group (the person opened it from a
/// shared tab's menu): it is shared at once, so the group shows only
/// shared tabs.
pub(super) fn created(worker: &Rc<Worker>, tab: ChromeTab) {
    let (Some(id), Some(group)) = (tab.id, tab.group_id) else {
        return;
    };
    if group == TAB_GROUP_ID_NONE {
        return;
    }
    let worker = worker.clone();
    spawn_local(async move {
        worker.restored.wait().await;
        if tab_groups::get(group).await.is_ok_and(|g| g.is_cotab()) {
            joined(&worker, id, ShareOrigin::Opened).await;
        }
    });
}

/// The page of `source` opened `tab` (a link with a target,
/// `window.open`): when `source` is shared, `tab` is shared at once, in the
/// `cotab` group, and agents hear of it with the shared list.
pub(super) fn opened(worker: &Rc<Worker>, tab: TabId, source: TabId) {
    let worker = worker.clone();
    spawn_local(async move {
        worker.restored.wait().await;
        if !worker.state.borrow().shared.contains(source) {
            return;
        }
        worker.state.borrow_mut().facts.opened_by(tab, source);
        joined(&worker, tab, ShareOrigin::Opened).await;
        give_the_front_back(&worker, tab, source).await;
    });
}

/// The browser brings a tab a link opens to the front, even when the
/// link's tab is behind the person's: the person's tab goes back in front,
/// so the agent's work never takes the front from them.
async fn give_the_front_back(worker: &Worker, tab: TabId, source: TabId) {
    let Ok(info) = tabs::get(tab).await else {
        return;
    };
    let back = worker
        .state
        .borrow()
        .fronts
        .give_back(info.window_id, tab, source);
    if let Some(back) = back {
        if let Err(e) = tabs::activate(back).await {
            log::info(&format!(
                "could not bring tab {back} back to the front: {}",
                error_message(&e)
            ));
        }
    }
}

/// An unshared tab joined the `cotab` group, or a shared page opened it:
/// share it, or move it back out and tell the person why.
async fn joined(worker: &Rc<Worker>, tab: TabId, origin: ShareOrigin) {
    match share::share_tab(worker, tab, origin).await {
        Ok(()) => log::info(&format!("tab {tab} joined the cotab group and is shared")),
        // Another share of this tab is running; it decides.
        Err(ShareFailure::Refused(ShareRefusal::Busy)) => {}
        // A page opened a tab on a page that may not be shared (cotab's
        // own, for one the browser stopped): nobody asked for it, so
        // there is nothing to tell the person.
        Err(ShareFailure::Blocked(why)) if origin == ShareOrigin::Opened => {
            log::info(&format!(
                "tab {tab}, opened by a shared page, is not shared: {why}"
            ));
        }
        Err(failure) => {
            let message = failure.to_string();
            log::warn(&format!("tab {tab} joined the cotab group: {message}"));
            worker.state.borrow_mut().share_error = Some(message);
            // The group must show exactly what is shared. The tab is out of
            // the set, so the group change this causes is ignored.
            if let Err(e) = tabs::ungroup(tab).await {
                log::warn(&format!(
                    "could not move tab {tab} out of the cotab group: {}",
                    error_message(&e)
                ));
            }
        }
    }
}

/// Whether `tab` is in a `cotab` group now.
async fn in_cotab_group(tab: TabId) -> Result<bool, JsValue> {
    let group_id = tabs::get(tab).await?.group_id.unwrap_or(TAB_GROUP_ID_NONE);
    if group_id == TAB_GROUP_ID_NONE {
        return Ok(false);
    }
    Ok(tab_groups::get(group_id).await?.is_cotab())
}
