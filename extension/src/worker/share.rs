//! Sharing and unsharing tabs, and restoring the shared set after a worker
//! restart.
//!
//! A share opens the tab's debugger session ([`super::session`]), puts the tab
//! in the `cotab` tab group so the person sees what agents may touch, and
//! only then adds it to the set. The person shares from the popup or by
//! dragging a tab into the group ([`super::group_moves`]); an agent's
//! `createTab` shares the tab the extension opened for it
//! ([`super::agent_tabs`]). Only `http:`/`https:` pages are shareable
//! ([`cotab_shared::reach`]), plus the blank page of a tab the extension
//! opened; the page is judged once more after the attach, from the
//! session itself, since it may have navigated after its url was read.
//! Unsharing also ends the person's control of the tab.
//!
//! The tab is grouped while its share is still pending, so the group change
//! this causes is never mistaken for the person's
//! ([`crate::state::SharedSet::group_move`]).

use super::cells::{Saved, StartReason, Worker};
use super::{announce, held_input, session};
use crate::chrome::{error_message, storage, tab_groups, tabs, windows};
use crate::held::HeldInput;
use crate::log;
use crate::messages::TAB_GROUP_ID_NONE;
use crate::state::{Effect, ShareFailure, ShareOrigin, ShareStart};
use cotab_shared::{TabId, TAB_GROUP_TITLE};
use std::rc::Rc;
use wasm_bindgen::JsValue;

/// Shares `tab` at the person's request from the popup; `Err` carries a
/// message for the person.
pub(crate) async fn share(worker: &Rc<Worker>, tab: TabId) -> Result<(), String> {
    share_tab(worker, tab, ShareOrigin::Popup)
        .await
        .map_err(|failure| failure.to_string())
}

/// Shares `tab`, asked for by `origin`: checks its url, attaches, enables,
/// groups it (unless it is in the group already) and adds it to the set.
/// A tab shared already is left as it is.
pub(crate) async fn share_tab(
    worker: &Rc<Worker>,
    tab: TabId,
    origin: ShareOrigin,
) -> Result<(), ShareFailure> {
    worker.restored.wait().await;
    wait_for_release_session(worker, tab).await;
    let start = worker
        .state
        .borrow_mut()
        .shared
        .begin_share(tab)
        .map_err(ShareFailure::Refused)?;
    if start == ShareStart::AlreadyShared {
        return Ok(());
    }
    let mut attached = attach_shareable(worker, tab, origin).await;
    if let (Ok(window_id), true) = (&attached, origin.needs_grouping()) {
        let shown = match windows::is_normal(*window_id).await {
            Ok(true) => group(tab, *window_id).await,
            Ok(false) => Err(JsValue::from_str("a popup window shows no tab groups")),
            Err(e) => Err(e),
        };
        if let Err(e) = shown {
            let e = error_message(&e);
            if origin.must_be_grouped() {
                // Nobody asked for this tab to be shared: unless the group
                // shows it, the person would not know it is.
                session::detach(tab).await;
                worker.state.borrow_mut().pages.forget(tab);
                attached = Err(ShareFailure::Browser(format!(
                    "tab {tab} cannot join the cotab group ({e}), so it is not shared"
                )));
            } else {
                // The person or an agent asked for the share; the group only
                // shows it, and failing to make it must not fail the share.
                log::warn(&format!("could not group tab {tab}: {e}"));
            }
        }
    }
    let effects = worker
        .state
        .borrow_mut()
        .shared
        .finish_share(tab, attached.is_ok());
    announce::apply(worker, effects);
    attached?;
    // A tab is shared: the refusal of an earlier drag is history, and so
    // is why cotab unshared this one before.
    {
        let mut state = worker.state.borrow_mut();
        state.share_error = None;
        state.unshared.retain(|(t, _)| *t != tab);
    }
    Ok(())
}

/// Waits (briefly) while [`held_input::release_detached`] holds a debugger
/// session on `tab` only to release its held input.
async fn wait_for_release_session(worker: &Worker, tab: TabId) {
    for _ in 0..RELEASE_SESSION_POLLS {
        if !worker.state.borrow().facts.is_releasing(tab) {
            return;
        }
        gloo_timers::future::TimeoutFuture::new(RELEASE_SESSION_POLL_MS).await;
    }
}

/// How often and how many times a share polls for a release session to end
/// (at most about 5 s: each release has a 2 s deadline).
const RELEASE_SESSION_POLL_MS: u32 = 25;
const RELEASE_SESSION_POLLS: u32 = 200;

/// Stops sharing `tab` at the person's request from the popup, and takes
/// it out of the `cotab` group.
pub(crate) async fn unshare(worker: &Rc<Worker>, tab: TabId) -> Result<(), String> {
    if unshare_tab(worker, tab).await? {
        // Ungrouping is cosmetic, and fails harmlessly when the person
        // already moved the tab out of the group.
        let _ = tabs::ungroup(tab).await;
    }
    Ok(())
}

/// Stops sharing `tab` and leaves it in whatever group it is in (the
/// person dragged it out of the `cotab` group, maybe into one of theirs).
/// It leaves the set first, so no event or command reaches it while the
/// debugger detaches. `Ok(false)` when it was not shared.
pub(crate) async fn unshare_tab(worker: &Rc<Worker>, tab: TabId) -> Result<bool, String> {
    worker.restored.wait().await;
    let was_shared = worker
        .state
        .borrow_mut()
        .shared
        .unshare(tab)
        .map_err(|refusal| refusal.to_string())?;
    if !was_shared {
        return Ok(false);
    }
    announce::apply(worker, vec![Effect::Persist, Effect::SendShared]);
    // The daemon's releases cannot reach an unshared tab: send them before
    // the debugger goes.
    held_input::release_tab(worker, tab).await;
    // The browser lets what it paused go on once its debugger leaves: a
    // download waiting for the person's yes would be saved.
    held_input::refuse_paused(worker, tab);
    worker.state.borrow_mut().facts.session_ended(tab);
    session::detach(tab).await;
    worker.state.borrow_mut().pages.forget(tab);
    Ok(true)
}

/// Checks `tab`'s url as `origin` requires, attaches, enables and reads
/// its page; returns the tab's window. The page is judged again once
/// attached: it may have navigated since its url was read.
async fn attach_shareable(
    worker: &Rc<Worker>,
    tab: TabId,
    origin: ShareOrigin,
) -> Result<i32, ShareFailure> {
    let info = tabs::get(tab).await.map_err(|e| {
        ShareFailure::Browser(format!("tab {tab} is not available: {}", error_message(&e)))
    })?;
    origin
        .check_url(info.effective_url(), worker.state.borrow().pages.files())
        .map_err(ShareFailure::Blocked)?;
    session::attach(tab, false)
        .await
        .map_err(ShareFailure::Browser)?;
    let ready = match enable(worker, tab).await {
        Ok(()) => match worker.state.borrow().pages.blocked(tab) {
            // The blank page of a tab opened for an agent is what
            // `origin` allowed above; anything else blocked is not.
            Some(blocked) => Err(ShareFailure::Blocked(blocked)),
            None => Ok(()),
        },
        Err(e) => Err(ShareFailure::Browser(e)),
    };
    if let Err(e) = ready {
        session::detach(tab).await;
        worker.state.borrow_mut().pages.forget(tab);
        return Err(e);
    }
    Ok(info.window_id)
}

/// [`session::enable`], then what follows should the page have changed
/// (a re-attach of a shared tab: the page may have changed meanwhile).
pub(super) async fn enable(worker: &Rc<Worker>, tab: TabId) -> Result<(), String> {
    if let Some(change) = session::enable(worker, tab).await? {
        announce::page_changed(worker, tab, change);
    }
    Ok(())
}

/// Puts `tab` in the window's `cotab` group, creating the group if needed.
async fn group(tab: TabId, window_id: i32) -> Result<(), wasm_bindgen::JsValue> {
    let existing = tab_groups::in_window(window_id).await?;
    if let Some(group) = existing.iter().find(|g| g.is_cotab()) {
        return tabs::add_to_group(tab, group.id).await;
    }
    let group_id = tabs::group_in_new(tab, window_id).await?;
    tab_groups::update(group_id, TAB_GROUP_TITLE, tab_groups::COTAB_COLOR).await
}

/// Restores the shared set, the person's control flags and the held-input
/// ledger after a worker (re)start: re-attaches every tab that still exists,
/// drops the others, saves the result, opens the `restored` gate and
/// releases what the pages still hold (the daemon forgot it when the
/// worker's native link dropped).
///
/// After a worker restart the state comes from `chrome.storage.session`.
/// After a reload or update of the extension that area is empty, and the
/// state comes from `chrome.storage.local`, for tabs still in the `cotab`
/// group only. After a browser start tab ids mean nothing, and the stored
/// state is dropped ([`super::lifecycle`]).
pub(crate) async fn restore(worker: Rc<Worker>) {
    let (saved, source) = load_saved(&worker).await;
    worker.state.borrow_mut().held = HeldInput::from_stored(saved.held_presses.clone());
    if source == Source::WorkerRestart {
        worker.load_paused().await;
    }
    let mut kept = Vec::with_capacity(saved.shared_tabs.len());
    for tab in saved.shared_tabs.iter().copied().map(TabId) {
        if !worker.state.borrow().shared.restore_wanted(tab) {
            continue;
        }
        match reattach(&worker, tab, source).await {
            Ok(()) => kept.push(tab),
            Err(e) => log::info(&format!("no longer sharing tab {tab}: {e}")),
        }
    }
    let human: Vec<TabId> = saved.human_control.iter().copied().map(TabId).collect();
    let gone = worker
        .state
        .borrow_mut()
        .shared
        .finish_restore(kept, &human);
    for tab in gone {
        session::detach(tab).await;
    }
    if worker.saved() != saved || source == Source::Reload {
        worker.persist();
    }
    // Release before anything else may reach the tabs: a press an agent
    // makes once the gate opens must not be taken for an old one. The
    // daemon that paused navigations lost its lane with the old worker.
    let kept = worker.state.borrow().shared.ids().to_vec();
    for tab in kept {
        held_input::let_navigations_go(&worker, tab).await;
        held_input::release_tab(&worker, tab).await;
    }
    let others = worker.state.borrow().held.tabs();
    for tab in others {
        held_input::forget(&worker, tab);
    }
    worker.restored.open();
    if !saved.shared_tabs.is_empty() {
        let state = worker.state.borrow();
        let set = &state.shared;
        log::info(&format!(
            "restored shared tabs {:?} ({source:?}), the person controls {:?}",
            set.ids(),
            set.human_ids()
        ));
    }
}

/// Where a restore's state came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// `chrome.storage.session`: the worker restarted.
    WorkerRestart,
    /// `chrome.storage.local`: the extension was reloaded or updated.
    Reload,
    /// Nothing to restore.
    Nothing,
}

async fn load_saved(worker: &Worker) -> (Saved, Source) {
    let read = |area: Result<storage::StorageArea, wasm_bindgen::JsValue>| async move {
        let saved: Result<Saved, String> = match area {
            Ok(area) => area
                .get_items(&Saved::KEYS)
                .await
                .map_err(|e| error_message(&e)),
            Err(e) => Err(error_message(&e)),
        };
        saved.unwrap_or_else(|e| {
            log::warn(&format!("could not read the shared tabs: {e}"));
            Saved::default()
        })
    };
    let session = read(storage::session()).await;
    if !session.is_empty() {
        return (session, Source::WorkerRestart);
    }
    let local = read(storage::local()).await;
    if local.is_empty() {
        return (Saved::default(), Source::Nothing);
    }
    match worker.start.reason().await {
        StartReason::Reloaded => (local, Source::Reload),
        reason => {
            log::info(&format!(
                "not restoring the shared tabs of an earlier browser run ({reason:?})"
            ));
            // Saved so the dropped state is not read again.
            worker.persist();
            (Saved::default(), Source::Nothing)
        }
    }
}

/// Re-attaches a tab of the saved set (an existing session is ours). After
/// a reload only a tab still in the `cotab` group counts: the group is what
/// the person sees shared.
async fn reattach(worker: &Rc<Worker>, tab: TabId, source: Source) -> Result<(), String> {
    let info = tabs::get(tab)
        .await
        .map_err(|e| format!("the tab is gone: {}", error_message(&e)))?;
    if source == Source::Reload {
        let group = info.group_id.unwrap_or(TAB_GROUP_ID_NONE);
        let groups = tab_groups::in_window(info.window_id)
            .await
            .map_err(|e| error_message(&e))?;
        if group == TAB_GROUP_ID_NONE || !groups.iter().any(|g| g.id == group && g.is_cotab()) {
            return Err("it left the cotab group".to_owned());
        }
    }
    session::attach(tab, true).await?;
    if let Err(e) = enable(worker, tab).await {
        log::warn(&e);
    }
    Ok(())
}
