//! The toolbar icon on each shared tab: sets the badges
//! [`crate::badge`] decides, only where they changed since last set, and
//! then the title of each `cotab` tab group to say the same
//! ([`crate::badge::group_title`]). A tab that closed meanwhile just
//! fails its call.
//!
//! While a request waits for the person's yes in a tab (`ASK`) and no
//! side panel is open, a system notification says so
//! ([`crate::badge::ask_notice`]); a click on it opens the side panel,
//! and it goes when the request no longer waits (or, for a notification
//! an earlier worker left, when this worker first sets the tab's badge).

use super::cells::Worker;
use super::listen::listen;
use crate::badge::{ask_notice, ask_notice_tab, badges, changes, group_title, Badge};
use crate::chrome::{action, error_message, notifications, runtime, side_panel, tab_groups, tabs};
use crate::log;
use crate::messages::TAB_GROUP_ID_NONE;
use cotab_shared::TabId;
use gloo_timers::future::TimeoutFuture;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{spawn_local, JsFuture};

/// The side panel's page.
const PANEL_PAGE: &str = "popup.html?panel";

/// How often a request waiting while a side panel is open looks whether
/// the panel closed, in milliseconds.
const PANEL_LOOK_MS: u32 = 1_000;

/// The most characters of a tab's title a notification shows.
const NOTICE_TITLE_CHARS: usize = 60;

/// Brings every tab's badge up to date with what the worker knows.
pub(super) fn refresh(worker: &Rc<Worker>) {
    let now = badges(&worker.state.borrow());
    let (due, asked) = {
        let mut shown = worker.badges.borrow_mut();
        let due = changes(&shown, &now);
        // A tab that asked, or that this worker has not set a badge on
        // yet: a worker before it may have left its notification.
        let asked: Vec<TabId> = shown
            .iter()
            .filter(|(_, b)| *b == Badge::Asks)
            .map(|(t, _)| *t)
            .chain(
                now.iter()
                    .map(|(t, _)| *t)
                    .filter(|t| shown.iter().all(|(s, _)| s != t)),
            )
            .collect();
        *shown = now;
        (due, asked)
    };
    if !due.is_empty() {
        spawn_local(retitle_groups(worker.clone()));
    }
    for &(tab, badge) in &due {
        if badge == Badge::Asks {
            spawn_local(notify_asks(worker.clone(), tab));
        } else if asked.contains(&tab) {
            spawn_local(async move {
                let (id, ..) = ask_notice(tab, None, "");
                // One never shown, or closed by the person: no news.
                let _ = notifications::clear(&id).await;
            });
        }
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

/// Tells the person that a request waits for their yes in `tab` once no
/// side panel, which lists it, is open: looked at again every
/// [`PANEL_LOOK_MS`] while the request waits, so a panel closed meanwhile
/// (or still closing when the request began) leaves the person told.
async fn notify_asks(worker: Rc<Worker>, tab: TabId) {
    loop {
        if !worker.badges.borrow().contains(&(tab, Badge::Asks)) {
            return;
        }
        let open = match runtime::get_url(PANEL_PAGE) {
            Ok(panel) => runtime::page_open(&panel).await.unwrap_or(false),
            Err(_) => false,
        };
        if !open {
            break;
        }
        TimeoutFuture::new(PANEL_LOOK_MS).await;
    }
    // A blocked page's title is not shown, as in the shared list.
    let blocked = worker.state.borrow().pages.blocked(tab).is_some();
    let title = match blocked {
        true => None,
        false => tabs::get(tab).await.ok().and_then(|t| t.title),
    };
    let title: String = title
        .unwrap_or_default()
        .chars()
        .take(NOTICE_TITLE_CHARS)
        .collect();
    let (id, heading, message) = ask_notice(tab, worker.state.borrow().holders.get(&tab), &title);
    if let Err(e) = notifications::show(&id, &heading, &message).await {
        log::warn(&format!(
            "no notification for tab {tab}: {}",
            error_message(&e)
        ));
        return;
    }
    // Answered while it was being shown: it goes at once.
    if !worker.badges.borrow().contains(&(tab, Badge::Asks)) {
        let _ = notifications::clear(&id).await;
    }
}

/// Listens to clicks on cotab's notifications: one that a request waits
/// opens the side panel in the request's tab's window (in a tab of its
/// own when the browser will not open the panel), and goes.
pub(super) fn register() {
    listen(
        "notifications.onClicked",
        notifications::on_clicked(),
        Closure::<dyn FnMut(String)>::new(|id: String| {
            let Some(tab) = ask_notice_tab(&id) else {
                return;
            };
            // Called within the click's gesture, which the browser asks
            // the side panel for.
            let opened = side_panel::open_at_tab(tab);
            spawn_local(async move {
                let _ = notifications::clear(&id).await;
                let opened = match opened {
                    Ok(promise) => JsFuture::from(promise).await.map(drop),
                    Err(e) => Err(e),
                };
                if let Err(e) = opened {
                    log::info(&format!(
                        "the side panel did not open: {}",
                        error_message(&e)
                    ));
                    let window = tabs::get(tab).await.ok().map(|t| t.window_id);
                    if let Ok(panel) = runtime::get_url(PANEL_PAGE) {
                        let _ = tabs::create(&panel, window).await;
                    }
                }
            });
        }),
    );
}
