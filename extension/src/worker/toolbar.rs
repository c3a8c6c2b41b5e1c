//! The toolbar icon on each shared tab: sets the badges
//! [`crate::badge`] decides, only where they changed since last set. A
//! tab that closed meanwhile just fails its call.

use super::cells::Worker;
use crate::badge::{badges, changes};
use crate::chrome::{action, error_message};
use crate::log;
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
