//! The toolbar icon on each shared tab: sets the badges
//! [`crate::badge`] decides, only where they changed since last set, and
//! then the title of each `cotab` tab group to say the same
//! ([`crate::badge::group_title`]). A tab that closed meanwhile just
//! fails its call.

use super::cells::Worker;
use crate::badge::{badges, changes, group_title};
use crate::chrome::{action, error_message, tab_groups, tabs};
use crate::log;
use crate::messages::TAB_GROUP_ID_NONE;
use cotab_shared::TabId;
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;

/// Brings every tab's badge up to date with what the worker knows.
pub(super) fn refresh(worker: &Rc<Worker>) {
    let now = badges(&worker.state.borrow());
    let due = {
        let mut shown = worker.badges.borrow_mut();
        let due = changes(&shown, &now);
        *shown = now;
        due
    };
    if !due.is_empty() {
        spawn_local(retitle_groups(worker.clone()));
    }
    for (tab, badge) in due {
        let title = badge.title(worker.state.borrow().holders.get(&tab));
        spawn_local(async move {
            if let Err(e) = action::set_badge(tab.0, badge.text(), badge.color(), &title).await {
                // A tab that closed has no badge to set.
                log::info(&format!("no badge on tab {tab}: {}", error_message(&e)));
            }
        });
    }
}

/// Titles each `cotab` group that holds a shared tab after who controls
/// its tabs, read when the groups are known (a later change's own pass
/// comes after it).
async fn retitle_groups(worker: Rc<Worker>) {
    let ids = worker.state.borrow().shared.ids().to_vec();
    // Each shared tab's group, in share order.
    let mut grouped: Vec<(TabId, i32)> = Vec::new();
    for tab in ids {
        if let Ok(info) = tabs::get(tab).await {
            match info.group_id {
                Some(group) if group != TAB_GROUP_ID_NONE => grouped.push((tab, group)),
                _ => {}
            }
        }
    }
    // Once per shared tab in it: a handful of calls, and less code in the
    // worker than remembering the groups done.
    for &(_, group) in &grouped {
        let title = group_title(&worker.state.borrow(), |t| grouped.contains(&(t, group)));
        // A shared tab's group is cotab's: a tab dragged out of it is
        // unshared. A group that closed meanwhile has nothing to title.
        let _ = tab_groups::update(group, &title, tab_groups::COTAB_COLOR).await;
    }
}
