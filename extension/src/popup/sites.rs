//! What the popup shows of the daemon's side of each shared tab, next to
//! the tab: where agents may take it (its sites, or any site) with the
//! person's "any site" switch, and how many agent requests wait for the
//! person's yes (answered in the side panel). Read from a watch of the
//! popup's own ([`super::panel::open_watch_port`]), which lives as long as
//! the popup; the switch's change goes back on it, as the side panel's
//! does. Without the host nothing of it is shown.
//!
//! The DOM it writes is the end-to-end tests' contract: in a shared
//! tab's `li[data-tab-id]`, `span.sites[data-tab-id]` and
//! `input.any-site[data-tab]`; `p#popup-waiting[data-count]`.

use super::panel::{any_site_switch, open_watch_port, scope_change};
use crate::chrome::{error_message, runtime, to_js};
use crate::log;
use cotab_shared::watch::{ScopeChange, TabScope, WatchEvent};
use cotab_shared::TabId;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlInputElement};

/// What the watch last told, and the way back to it.
#[derive(Default)]
pub(super) struct Sites {
    /// Every shared tab's sites; empty until the watch told them.
    scopes: RefCell<Vec<TabScope>>,
    /// How many requests wait for the person's yes.
    waiting: Cell<usize>,
    /// The watch, while open.
    port: RefCell<Option<runtime::Port>>,
    /// The person flipped a switch since the watch last told the sites:
    /// the next sites are shown even if they did not change (a change
    /// the daemon refused leaves the switch as it was).
    flipped: Cell<bool>,
}

impl Sites {
    /// Opens the watch; `changed` is called after each event that changed
    /// what is shown.
    pub(super) fn start(self: &Rc<Self>, changed: impl Fn() + 'static) {
        let on_event = {
            let sites = self.clone();
            move |event: WatchEvent| {
                let mut any = false;
                if let Some(scopes) = event.scopes {
                    any |= sites.flipped.replace(false) || *sites.scopes.borrow() != scopes;
                    sites.scopes.replace(scopes);
                }
                if let Some(approvals) = event.approvals {
                    any |= sites.waiting.replace(approvals.len()) != approvals.len();
                }
                if any {
                    changed();
                }
            }
        };
        let on_end = {
            let sites = self.clone();
            move || {
                sites.port.replace(None);
            }
        };
        match open_watch_port(on_event, on_end) {
            Ok(port) => {
                self.port.replace(Some(port));
            }
            Err(e) => log::warn(&format!(
                "could not open a watch of cotab's host: {}",
                error_message(&e)
            )),
        }
    }

    /// What is shown now, to tell whether the list must be rebuilt.
    pub(super) fn shown(&self) -> (Vec<TabScope>, usize) {
        (self.scopes.borrow().clone(), self.waiting.get())
    }

    /// How many requests wait for the person's yes.
    pub(super) fn waiting(&self) -> usize {
        self.waiting.get()
    }

    /// The person flipped a tab's "any site" switch (`event` on the
    /// list): tells the daemon. Its next list of sites shows the outcome;
    /// one that cannot be told shows the sites as they were.
    pub(super) fn on_change(&self, event: &web_sys::Event) {
        let Some(target) = event.target().and_then(|t| t.dyn_into::<Element>().ok()) else {
            return;
        };
        let Some(change) = scope_change(&event.type_(), &target) else {
            return;
        };
        let posted = match &*self.port.borrow() {
            Some(port) => to_js(&ScopeChange {
                tab_scope: change.clone(),
            })
            .and_then(|m| port.post_message(&m)),
            None => Err(JsValue::from_str("cotab's host is not connected")),
        };
        self.flipped.set(posted.is_ok());
        if let Err(e) = posted {
            log::warn(&format!(
                "could not tell cotab's host your choice: {}",
                error_message(&e)
            ));
            if let Some(input) = target.dyn_ref::<HtmlInputElement>() {
                input.set_checked(!input.checked());
            }
        }
    }

    /// Appends to a shared tab's row where agents may take it, with the
    /// "any site" switch; nothing while the watch has not told it.
    pub(super) fn append_to(&self, d: &Document, li: &Element, tab: TabId) -> Result<(), JsValue> {
        let scopes = self.scopes.borrow();
        let Some(scope) = scopes.iter().find(|s| s.tab == tab) else {
            return Ok(());
        };
        let id = tab.to_string();
        let sites = d.create_element("span")?;
        sites.set_attribute("class", "sites")?;
        sites.set_attribute("data-tab-id", &id)?;
        sites.set_text_content(Some(&sites_line(&scope.sites)));
        li.append_child(&sites)?;
        let switch = any_site_switch(d, scope)?;
        li.append_child(&switch)?;
        Ok(())
    }
}

/// Where agents may take a tab of `sites`, as the popup says it.
fn sites_line(sites: &[String]) -> String {
    if sites.is_empty() {
        "Agents may go to any site".to_owned()
    } else {
        format!("Agents may go only to {}", sites.join(", "))
    }
}

/// The note on requests waiting for the person's yes, if any.
pub(super) fn waiting_line(count: usize) -> Option<String> {
    match count {
        0 => None,
        1 => Some("An agent's request waits for your yes: open the side panel to answer.".into()),
        n => Some(format!(
            "{n} agent requests wait for your yes: open the side panel to answer."
        )),
    }
}
