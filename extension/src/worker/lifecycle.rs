//! The worker's life: why it started (a fresh start of the browser profile,
//! the extension installed, updated or reloaded, or only the worker woken
//! again), a periodic alarm that wakes it after the browser stopped it, and
//! the test-only path that simulates the person detaching the debugger.
//!
//! Why the worker started ([`super::cells::Start`]) decides what
//! [`super::share::restore`] trusts:
//! after a worker restart `chrome.storage.session` holds the shared set;
//! after a reload or update that area is empty, and the set in
//! `chrome.storage.local` is restored (tab ids still name the same tabs in
//! the same browser run); after the browser started, tab ids are new and
//! the stored set is dropped.

use super::cells::{StartReason, Worker};
use super::listen::listen;
use super::{browser_events, port, session};
use crate::chrome::{alarms, error_message, runtime};
use crate::log;
use cotab_shared::TabId;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// Name of the wake-up alarm.
const WAKE_ALARM: &str = "cotab-wake";

/// Period of the wake-up alarm in minutes (the browser's minimum).
const WAKE_PERIOD_MINUTES: f64 = 0.5;

/// Registers `onInstalled`, `onStartup` and the alarm (all in the first
/// turn), and the test-only detach hook.
pub(super) fn register(worker: &Rc<Worker>) {
    let w = worker.clone();
    listen(
        "chrome.runtime.onInstalled",
        runtime::on_installed(),
        Closure::<dyn FnMut(JsValue)>::new(move |details: JsValue| {
            let reason = js_sys::Reflect::get(&details, &JsValue::from_str("reason"))
                .ok()
                .and_then(|r| r.as_string());
            let reason = if reason.as_deref() == Some("update") {
                StartReason::Reloaded
            } else {
                StartReason::Fresh
            };
            w.start.tell(reason);
        }),
    );
    let w = worker.clone();
    listen(
        "chrome.runtime.onStartup",
        runtime::on_startup(),
        Closure::<dyn FnMut()>::new(move || w.start.tell(StartReason::Fresh)),
    );
    // The alarm's only job is to wake a worker the browser stopped: the
    // worker's top level reconnects the native link.
    listen(
        "chrome.alarms.onAlarm",
        alarms::on_alarm(),
        Closure::<dyn FnMut(JsValue)>::new(|_alarm: JsValue| {}),
    );
    if let Err(e) = alarms::create(WAKE_ALARM, WAKE_PERIOD_MINUTES) {
        log::warn(&format!(
            "no wake-up alarm: {}; a stopped worker waits for a browser event",
            error_message(&e)
        ));
    }
    install_test_hook(worker);
}

/// Test-only: `cotabSimulateSocketDrop()` ([`port::simulate_socket_drop`]),
/// and `cotabSimulateOutsideDetach(tabId)` on the worker's global
/// (returns at once; the work follows) detaches cotab's debugger from the
/// tab and handles it exactly as a
/// `chrome.debugger.onDetach` with reason `canceled_by_user` (which headless
/// Chromium cannot produce). Only code already running inside the worker
/// (the extension itself, or a DevTools client attached to it) can call it.
fn install_test_hook(worker: &Rc<Worker>) {
    let w = worker.clone();
    let hook = Closure::<dyn FnMut(i32)>::new(move |tab: i32| {
        let w = w.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let tab = TabId(tab);
            session::detach(tab).await;
            browser_events::on_detach(&w, tab, "canceled_by_user");
        });
    });
    let set = js_sys::Reflect::set(
        &js_sys::global(),
        &JsValue::from_str("cotabSimulateOutsideDetach"),
        hook.as_ref(),
    );
    if let Err(e) = set {
        log::warn(&format!("no test hook: {}", error_message(&e)));
    }
    hook.forget();
    let w = worker.clone();
    let drop_hook = Closure::<dyn FnMut() -> bool>::new(move || port::simulate_socket_drop(&w));
    let set = js_sys::Reflect::set(
        &js_sys::global(),
        &JsValue::from_str("cotabSimulateSocketDrop"),
        drop_hook.as_ref(),
    );
    if let Err(e) = set {
        log::warn(&format!("no test hook: {}", error_message(&e)));
    }
    drop_hook.forget();
}
