//! The page a tab shows when the browser stopped it
//! (`popup.html?stopped#<tab> <url>`): the page of a tab an agent holds
//! opened it at another site, and cotab's rule blocked its first request
//! ([`crate::opened`]). It says so in the person's terms and lets them
//! open it anyway (their own navigation, which the rule does not stop:
//! no page of the held tab's sites starts it) or close it.
//!
//! Pages cannot open it (it is not web-accessible) and agents cannot
//! drive it (cotab's own pages are blocked targets); its DOM is the
//! end-to-end tests' contract: `#stopped-url`, `#stopped-open`,
//! `#stopped-close`.

use super::by_id;
use crate::chrome::tabs;
use crate::log;
use cotab_shared::TabId;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;
use web_sys::Document;

/// The most of the url shown.
const SHOWN: usize = 400;

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
    let (tab, url) = read(&hash);
    let shown: String = url.chars().take(SHOWN).collect();
    by_id("stopped-url")?.set_text_content(Some(if shown.is_empty() {
        "(an address cotab could not read)"
    } else {
        &shown
    }));
    let open = by_id("stopped-open")?;
    // Only a web address: nothing the page named can run here.
    if url.starts_with("http://") || url.starts_with("https://") {
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
    } else {
        open.set_attribute("disabled", "")?;
    }
    let close = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
        if let Some(tab) = tab {
            spawn_local(async move {
                if let Err(e) = tabs::remove(tab).await {
                    log::warn(&format!("could not close the tab: {e:?}"));
                }
            });
        }
    });
    by_id("stopped-close")?
        .add_event_listener_with_callback("click", close.as_ref().unchecked_ref())?;
    // Page-lifetime listener.
    close.forget();
    Ok(())
}

/// The tab and the url of the page's hash, `#<tab> <url, encoded>`.
fn read(hash: &str) -> (Option<TabId>, String) {
    let hash = hash.strip_prefix('#').unwrap_or(hash);
    let (tab, url) = hash
        .split_once(' ')
        .or_else(|| hash.split_once("%20"))
        .unwrap_or(("", ""));
    let url = js_sys::decode_uri_component(url)
        .ok()
        .and_then(|u| u.as_string())
        .unwrap_or_default();
    (tab.parse().ok().map(TabId), url)
}
