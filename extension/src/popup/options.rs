//! The options page: the popup page opened as `popup.html?options` in a
//! tab of its own (from the popup, the side panel and the browser's
//! extension options). It lists the sites agents may work on in every
//! share — the person's grants, each with when it was made and a Revoke
//! button, and the host config's `sites`, which only the file changes —
//! and grants another. The list and the changes go over a watch of the
//! page's own ([`cotab_shared::watch`]'s `LastingChange`); the daemon
//! keeps them. Like every cotab page, it is a blocked target for agents.
//!
//! Its DOM is the end-to-end tests' contract: `#options`,
//! `#options-status[data-watching]`, `ul#lasting > li[data-site]
//! [data-from]` (`person` or `config`) with `button.revoke[data-site]`
//! on the person's, `input#lasting-site`, `button#lasting-add` and
//! `#options-error` (a grant the daemon did not take).

use super::by_id;
use super::panel::open_watch_port;
use crate::chrome::{error_message, runtime, to_js};
use crate::log;
use cotab_shared::watch::{LastingChange, LastingSite, LastingSiteChange, WatchEvent};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlInputElement};

struct Options {
    document: Document,
    list: Element,
    status: Element,
    error: Element,
    input: HtmlInputElement,
    /// The port while the watch is open; kept so it is not collected.
    port: RefCell<Option<runtime::Port>>,
    /// The site the person asked to grant, until the daemon's list says
    /// whether it took it.
    asked: RefCell<Option<String>>,
}

/// Starts the options page.
pub(crate) fn start(document: &Document) -> Result<(), JsValue> {
    let by_id = |id: &str| by_id(document, id);
    if let Some(body) = document.body() {
        body.set_attribute("class", "options")?;
    }
    document.set_title("cotab · sites for every share");
    by_id("options")?.remove_attribute("hidden")?;
    let o = Rc::new(Options {
        document: document.clone(),
        list: by_id("lasting")?,
        status: by_id("options-status")?,
        error: by_id("options-error")?,
        input: by_id("lasting-site")?.dyn_into()?,
        port: RefCell::new(None),
        asked: RefCell::new(None),
    });
    let add = Closure::<dyn FnMut(web_sys::Event)>::new({
        let o = o.clone();
        move |event: web_sys::Event| {
            event.prevent_default();
            let site = o.input.value().trim().to_lowercase();
            if site.is_empty() {
                return;
            }
            o.asked.replace(Some(site.clone()));
            o.change(site, true);
        }
    });
    by_id("lasting-form")?
        .add_event_listener_with_callback("submit", add.as_ref().unchecked_ref())?;
    // Page-lifetime listener: the form lives as long as the page.
    add.forget();
    let revoke = Closure::<dyn FnMut(web_sys::Event)>::new({
        let o = o.clone();
        move |event: web_sys::Event| {
            let site = event
                .target()
                .and_then(|t| t.dyn_into::<Element>().ok())
                .filter(|e| e.get_attribute("class").as_deref() == Some("revoke"))
                .and_then(|e| e.get_attribute("data-site"));
            if let Some(site) = site {
                o.change(site, false);
            }
        }
    });
    o.list
        .add_event_listener_with_callback("click", revoke.as_ref().unchecked_ref())?;
    // Page-lifetime listener: the list lives as long as the page.
    revoke.forget();
    watch(&o);
    Ok(())
}

impl Options {
    fn change(&self, site: String, allow: bool) {
        let change = LastingChange {
            lasting_site: LastingSiteChange { site, allow },
        };
        let sent = match &*self.port.borrow() {
            Some(port) => to_js(&change).and_then(|m| port.post_message(&m)),
            None => Err(JsValue::from_str("cotab's host is not connected")),
        };
        if let Err(e) = sent {
            self.error
                .set_text_content(Some(&format!("Not changed: {}", error_message(&e))));
        }
    }
}

/// Opens the watch; the list comes with its first event and with every
/// change. When the port closes it is opened again a moment later.
fn watch(o: &Rc<Options>) {
    let opened = open_watch_port(
        {
            let o = o.clone();
            move |event: WatchEvent| {
                watching(&o, true);
                if let Some(sites) = event.lasting {
                    if let Err(e) = render(&o, &sites) {
                        log::error(&format!("could not show the sites: {}", error_message(&e)));
                    }
                }
            }
        },
        {
            let o = o.clone();
            move || {
                o.port.replace(None);
                watching(&o, false);
                let o = o.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    gloo_timers::future::TimeoutFuture::new(super::panel::RECONNECT_MS).await;
                    watch(&o);
                });
            }
        },
    );
    match opened {
        Ok(port) => {
            o.port.replace(Some(port));
        }
        Err(e) => {
            watching(o, false);
            log::warn(&format!("could not watch: {}", error_message(&e)));
        }
    }
}

fn watching(o: &Options, on: bool) {
    let _ = o
        .status
        .set_attribute("data-watching", if on { "true" } else { "false" });
    o.status.set_text_content(Some(if on {
        "Connected to cotab's host"
    } else {
        "Not connected to cotab's host: changes cannot be made now"
    }));
}

/// Shows `sites`, and whether the site the person asked for was taken.
fn render(o: &Options, sites: &[LastingSite]) -> Result<(), JsValue> {
    if let Some(asked) = o.asked.borrow_mut().take() {
        if sites.iter().any(|s| s.site == asked) {
            o.input.set_value("");
            o.error.set_text_content(None);
        } else {
            o.error.set_text_content(Some(&format!(
                "“{asked}” was not added: name a site as example.com (not a url, a name under a site or a public suffix)."
            )));
        }
    }
    let d = &o.document;
    o.list.set_text_content(None);
    if sites.is_empty() {
        let li = d.create_element("li")?;
        li.set_text_content(Some(
            "None: each share is for the site it was shared at only.",
        ));
        o.list.append_child(&li)?;
    }
    for s in sites {
        let li = d.create_element("li")?;
        li.set_attribute("data-site", &s.site)?;
        let strong = d.create_element("strong")?;
        strong.set_text_content(Some(&s.site));
        li.append_child(&strong)?;
        match s.granted_ms {
            Some(ms) => {
                li.set_attribute("data-from", "person")?;
                let date = js_sys::Date::new(&JsValue::from_f64(ms as f64));
                let when = String::from(date.to_locale_string("default", &JsValue::UNDEFINED));
                li.append_with_str_1(&format!(" — allowed by you on {when} "))?;
                let button = d.create_element("button")?;
                button.set_attribute("type", "button")?;
                button.set_attribute("class", "revoke")?;
                button.set_attribute("data-site", &s.site)?;
                button.set_text_content(Some("Revoke"));
                li.append_child(&button)?;
            }
            None => {
                li.set_attribute("data-from", "config")?;
                li.append_with_str_1(
                    " — set in the host config's `sites` (change the file to take it out)",
                )?;
            }
        }
        o.list.append_child(&li)?;
    }
    Ok(())
}
