//! The first request of a tab a held tab's page opens, blocked by the
//! browser ([`crate::opened`]): the listeners that keep the rules' state,
//! the rules written, and a blocked tab told to the daemon or taken
//! again to where the person meant.

use super::cells::Worker;
use super::listen::listen;
use crate::chrome::{error_message, net_rules, tabs, to_js};
use crate::log;
use crate::opened::Blocked;
use cotab_shared::native::{Event, ExtensionToHost, OpenedHold};
use cotab_shared::TabId;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

/// The browser's error for a request an extension's rule blocked.
const BLOCKED: &str = "net::ERR_BLOCKED_BY_CLIENT";

/// The `chrome.storage.session` key of which tab opened which
/// ([`crate::opened::OpenedHolds::parents`]), for a worker that starts
/// again.
const PARENTS_KEY: &str = "openedParents";

/// Registers the navigation listeners, knows the tabs there now and
/// drops the rules an earlier worker left (the daemon names the held
/// tabs again after its hello). Requests wait for that write only if
/// the daemon named held tabs meanwhile.
pub(super) fn register(worker: &Rc<Worker>) {
    let w = worker.clone();
    listen(
        "chrome.webNavigation.onCommitted",
        tabs::on_committed(),
        Closure::<dyn FnMut(JsValue)>::new(move |details: JsValue| {
            if let Some(n) = tabs::MainFrameNavigation::read(&details) {
                if w.opened.borrow_mut().committed(n.tab_id, &n.url) {
                    write_rules(&w, false);
                }
            }
        }),
    );
    let w = worker.clone();
    listen(
        "chrome.webNavigation.onErrorOccurred",
        tabs::on_error_occurred(),
        Closure::<dyn FnMut(JsValue)>::new(move |details: JsValue| {
            if let Some(n) = tabs::MainFrameNavigation::read(&details) {
                if n.error == BLOCKED {
                    blocked(&w, n);
                }
            }
        }),
    );
    let w = worker.clone();
    spawn_local(async move {
        let kept = super::cells::load_list(PARENTS_KEY).await;
        let kept = kept.iter().filter_map(|(tab, opener)| {
            Some((TabId(tab.parse().ok()?), TabId(opener.parse().ok()?)))
        });
        w.opened.borrow_mut().restore(kept.collect());
        let all = tabs::query_all().await.unwrap_or_else(|e| {
            // None known: the rules then leave no tab free (fail closed).
            log::warn(&format!(
                "the tabs could not be listed: {}",
                error_message(&e)
            ));
            Vec::new()
        });
        w.opened
            .borrow_mut()
            .started(all.into_iter().filter_map(|t| t.id));
        save_parents(&w);
        let guard = w.opened.borrow().holding();
        write_rules(&w, guard);
    });
}

/// The daemon named the held tabs.
pub(super) fn set(worker: &Rc<Worker>, held: Vec<OpenedHold>) {
    if worker.opened.borrow_mut().set(held) {
        write_rules(worker, true);
    }
}

/// `tab` closed.
pub(super) fn closed(worker: &Rc<Worker>, tab: TabId) {
    if worker.opened.borrow_mut().removed(tab) {
        save_parents(worker);
    }
}

/// Saves which tab opened which, in call order, so a worker that starts
/// again keeps what a held tab's page opened held with it.
fn save_parents(worker: &Worker) {
    // Not before what an earlier worker saved was read back.
    if !worker.opened.borrow().is_started() {
        return;
    }
    let list = worker
        .opened
        .borrow()
        .parents()
        .iter()
        .map(|(tab, opener)| format!("{} {}", tab.0, opener.0))
        .collect();
    super::cells::save_list(PARENTS_KEY, list);
}

/// The page of `source` opened `tab`.
pub(super) fn opened(worker: &Rc<Worker>, tab: TabId, source: TabId) {
    let (change, blocked) = worker.opened.borrow_mut().opened(tab, source);
    save_parents(worker);
    if change {
        write_rules(worker, false);
    }
    if let Some(what) = blocked {
        perform(worker, tab, what);
    }
}

/// The browser blocked the main-frame request `n`.
fn blocked(worker: &Rc<Worker>, n: tabs::MainFrameNavigation) {
    let what = worker.opened.borrow_mut().blocked(n.tab_id, n.url);
    perform(worker, n.tab_id, what);
}

/// What a block of `tab` means, done: the daemon told, or the tab taken
/// to its url again.
fn perform(worker: &Rc<Worker>, tab: TabId, what: Blocked) {
    match what {
        Blocked::Refused { opener, url } => {
            log::info(&format!(
                "tab {opener}'s page opened tab {tab} at another site: blocked"
            ));
            // The tab says what happened, in place of the browser's
            // "blocked" page, and lets the person open it themselves.
            let stopped = crate::chrome::runtime::get_url(&format!(
                "popup.html?stopped#{}",
                String::from(js_sys::encode_uri_component(&url))
            ));
            let event = Event::OpenedRefused {
                tab_id: opener,
                opened: tab,
                url,
            };
            super::port::send(worker, &ExtensionToHost::Event { event });
            spawn_local(async move {
                let shown = match stopped {
                    Ok(page) => tabs::navigate(tab, &page).await,
                    Err(e) => Err(e),
                };
                if let Err(e) = shown {
                    log::warn(&format!(
                        "a stopped tab could not say so: {}",
                        error_message(&e)
                    ));
                }
            });
        }
        Blocked::Again { url } => {
            write_rules(worker, false);
            spawn_local(async move {
                if let Err(e) = tabs::navigate(tab, &url).await {
                    log::warn(&format!(
                        "a tab could not be taken on: {}",
                        error_message(&e)
                    ));
                }
            });
        }
        Blocked::Left => {}
    }
}

/// Writes the rules anew, one write at a time: a change while one is on
/// its way is written after it. With `guard` (the held tabs changed),
/// requests that come from now on wait until they are in place; a write
/// that only frees tabs holds nobody up.
pub(super) fn write_rules(worker: &Rc<Worker>, guard: bool) {
    if guard && worker.opened_written.borrow().is_open() {
        *worker.opened_written.borrow_mut() = crate::state::Gate::default();
    }
    if worker.opened_writing.replace(true) {
        worker.opened_again.set(true);
        return;
    }
    let w = worker.clone();
    spawn_local(async move {
        loop {
            w.opened_again.set(false);
            let rules = to_js(&w.opened.borrow().rules());
            let written = match rules {
                Ok(rules) => net_rules::replace_session_rules(rules).await,
                Err(e) => Err(e),
            };
            if let Err(e) = written {
                log::error(&format!(
                    "the rules holding opened tabs could not be written: {}",
                    error_message(&e)
                ));
            }
            if !w.opened_again.get() {
                break;
            }
        }
        w.opened_writing.set(false);
        // Until the tabs there at the start are known no rule is
        // written: requests the daemon's naming made wait go on waiting.
        if w.opened.borrow().is_started() {
            w.opened_written.borrow().open();
        }
    });
}
