//! The page a tab shows when the browser stopped it
//! (`popup.html?stopped#<url, encoded>`): the page of a tab an agent
//! holds opened it at another site, and cotab's rule blocked its first
//! request ([`crate::opened`]). It says so in the person's terms and lets
//! them open it anyway (their own navigation, which the rule does not
//! stop: no page of the held tab's sites starts it) or close it. Its
//! buttons take clicks only a moment after it shows, so a page that has
//! it shown again and again cannot have the person click what they did
//! not read.
//!
//! Pages cannot open it (it is not web-accessible) and agents cannot
//! drive it (cotab's own pages are blocked targets); its DOM is the
//! end-to-end tests' contract: `#stopped-url`, `#stopped-open`,
//! `#stopped-close`.

use super::by_id;
use crate::chrome::tabs;
use crate::log;
use gloo_timers::future::TimeoutFuture;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;
use web_sys::Document;

/// The most of the url shown; a longer one ends in "…".
const SHOWN: usize = 400;

/// Milliseconds after the page shows before its buttons take clicks.
const SETTLE_MS: u32 = 1_000;

/// Shows the stopped tab's page.
pub(crate) fn start(document: &Document) -> Result<(), JsValue> {
    let by_id = |id: &str| by_id(document, id);
    if let Some(body) = document.body() {
        body.set_attribute("class", "stopped")?;
    }
    document.set_title("cotab stopped this tab");
    by_id("stopped")?.remove_attribute("hidden")?;
    let hash = web_sys::window()
        .map(|w| w.location().hash().unwrap_or_default())
        .unwrap_or_default();
    let url = read(&hash);
    let mut shown: String = url.chars().take(SHOWN).collect();
    if shown.len() < url.len() {
        shown.push('…');
    }
    by_id("stopped-url")?.set_text_content(Some(if shown.is_empty() {
        "(an address cotab could not read)"
    } else {
        &shown
    }));
    let open = by_id("stopped-open")?;
    let close = by_id("stopped-close")?;
    for button in [&open, &close] {
        button.set_attribute("disabled", "")?;
    }
    // Only a web address: nothing the page named can run here.
    let web = url.starts_with("http://") || url.starts_with("https://");
    if web {
        let go = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
            if let Some(w) = web_sys::window() {
                if let Err(e) = w.location().replace(&url) {
                    log::warn(&format!("could not open it: {e:?}"));
                }
            }
        });
        open.add_event_listener_with_callback("click", go.as_ref().unchecked_ref())?;
        // Page-lifetime listener.
        go.forget();
    }
    let leave = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
        // This page's own tab, as the browser says it.
        spawn_local(async move {
            let closed = match tabs::current().await {
                Ok(tab) => match tab.id {
                    Some(id) => tabs::remove(id).await,
                    None => Err(JsValue::from_str("the tab has no id")),
                },
                Err(e) => Err(e),
            };
            if let Err(e) = closed {
                log::warn(&format!("could not close the tab: {e:?}"));
            }
        });
    });
    close.add_event_listener_with_callback("click", leave.as_ref().unchecked_ref())?;
    // Page-lifetime listener.
    leave.forget();
    spawn_local(async move {
        TimeoutFuture::new(SETTLE_MS).await;
        let _ = close.remove_attribute("disabled");
        if web {
            let _ = open.remove_attribute("disabled");
        }
    });
    Ok(())
}

/// The url of the page's hash, `#<url, encoded>`.
fn read(hash: &str) -> String {
    let hash = hash.strip_prefix('#').unwrap_or(hash);
    js_sys::decode_uri_component(hash)
        .ok()
        .and_then(|u| u.as_string())
        .unwrap_or_default()
}
