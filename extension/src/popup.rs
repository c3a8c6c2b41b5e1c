//! The popup page: lists the current window's tabs with a Share or Unshare
//! button each, and for a shared tab who controls it with a Take control or
//! Hand back button and its url; shows whether the native host is
//! connected, the last error (the popup's own action's until it no longer
//! holds, else why the worker refused a tab the person dragged into the
//! `cotab` group), and the developer-mode switch with a warning while it
//! is on.
//! Re-renders after every action and every second.
//!
//! It holds no share state: everything comes from the worker (`getState`)
//! and `chrome.tabs.query`. The switch is set by a request to the worker
//! too (`setDeveloperMode`), which writes it to `chrome.storage.local`.
//! The DOM it writes is the end-to-end tests' contract (see the crate
//! docs).

mod options;
mod panel;
mod record;
mod sites;
mod stopped;

use crate::chrome::{action, error_message, from_js, runtime, tabs, to_js};
use crate::log;
use crate::messages::{ActionReply, PopupRequest, PopupState};
use crate::popup_model::{
    agents_line, error_still_holds, host_detail, rows, Row, RowAction, DEVELOPER_WARNING, PIN_HINT,
};
use cotab_shared::watch::TabScope;
use cotab_shared::TabId;
use gloo_timers::future::TimeoutFuture;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;
use web_sys::{Document, Element, HtmlInputElement};

/// Milliseconds between two refreshes.
const REFRESH_MS: u32 = 1_000;

/// The page's fixed elements and what the list shows now.
struct Ui {
    document: Document,
    list: Element,
    status: Element,
    detail: Element,
    error: Element,
    /// The developer-mode warning.
    warning: Element,
    /// Which agents are connected.
    agents: Element,
    /// The hint to pin the icon.
    pin: Element,
    /// The popup's last action and its error, if it failed; shown before
    /// the worker's `shareError` until the action's tab is where it
    /// wanted it.
    action_error: RefCell<Option<(PopupRequest, String)>>,
    /// The developer-mode checkbox.
    developer: HtmlInputElement,
    /// Counts the person's flips of the switch, so a refresh that read the
    /// state before a flip does not undo it on screen.
    developer_flips: Cell<u64>,
    /// A flip is on its way to the worker.
    developer_writing: Cell<bool>,
    /// The rows on screen, with the tabs' sites and the count of requests
    /// waiting; the list is rebuilt only when they change.
    shown: RefCell<Option<Shown>>,
    /// What the daemon says of the shared tabs (the popup's own watch;
    /// the side panel shows its own).
    sites: Rc<sites::Sites>,
    /// The note on requests waiting for the person's yes.
    waiting: Element,
}

/// What the list shows: its rows, the shared tabs' sites and how many
/// requests wait for the person's yes.
type Shown = (Vec<Row>, (Vec<TabScope>, usize));

/// The page's element `#id`, or an error naming it.
pub(crate) fn by_id(document: &web_sys::Document, id: &str) -> Result<Element, JsValue> {
    document
        .get_element_by_id(id)
        .ok_or_else(|| JsValue::from_str(&format!("popup.html has no #{id}")))
}

/// Whether the page was opened with `query` (`?panel`: the side panel,
/// `?record`: the activity record's viewer, `?options`: the options
/// page, `?stopped`: a tab the browser stopped).
pub(crate) fn opened_as(query: &str) -> bool {
    let search = web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &JsValue::from_str("location")).ok())
        .and_then(|l| js_sys::Reflect::get(&l, &JsValue::from_str("search")).ok())
        .and_then(|s| s.as_string());
    search.as_deref() == Some(query)
}

/// Opens the page with `query` in a new tab; `what` names it in a
/// warning if it cannot be.
async fn open_as(query: &str, what: &str) {
    let opened = match runtime::get_url(&format!("popup.html{query}")) {
        Ok(url) => crate::chrome::tabs::create(&url, None).await.map(drop),
        Err(e) => Err(e),
    };
    if let Err(e) = opened {
        log::warn(&format!("could not open {what}: {}", error_message(&e)));
    }
}

/// Starts the popup.
pub(crate) fn start() -> Result<(), JsValue> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("the popup has no document")?;
    let by_id = |id: &str| by_id(&document, id);
    if opened_as("?record") {
        return record::start(&document);
    }
    if opened_as("?options") {
        return options::start(&document);
    }
    if opened_as("?stopped") {
        return stopped::start(&document);
    }
    let open_options = Closure::<dyn FnMut(web_sys::Event)>::new(move |_event: web_sys::Event| {
        spawn_local(open_as("?options", "the options page"));
    });
    by_id("open-options")?
        .add_event_listener_with_callback("click", open_options.as_ref().unchecked_ref())?;
    // Page-lifetime listener: the button lives as long as the page.
    open_options.forget();
    let open_record = Closure::<dyn FnMut(web_sys::Event)>::new(move |_event: web_sys::Event| {
        spawn_local(open_as("?record", "the activity record"));
    });
    by_id("open-record")?
        .add_event_listener_with_callback("click", open_record.as_ref().unchecked_ref())?;
    // Page-lifetime listener: the button lives as long as the page.
    open_record.forget();
    let ui = Rc::new(Ui {
        list: by_id("tabs")?,
        status: by_id("host-status")?,
        detail: by_id("host-detail")?,
        error: by_id("error")?,
        warning: by_id("developer-warning")?,
        agents: by_id("agents")?,
        pin: by_id("pin-hint")?,
        action_error: RefCell::new(None),
        developer: by_id("developer-mode")?.dyn_into::<HtmlInputElement>()?,
        developer_flips: Cell::new(0),
        developer_writing: Cell::new(false),
        document: document.clone(),
        shown: RefCell::new(None),
        sites: Rc::new(sites::Sites::default()),
        waiting: by_id("popup-waiting")?,
    });

    let on_click = Closure::<dyn FnMut(web_sys::Event)>::new({
        let ui = ui.clone();
        move |event: web_sys::Event| on_click(&ui, &event)
    });
    ui.list
        .add_event_listener_with_callback("click", on_click.as_ref().unchecked_ref())?;
    // Page-lifetime listener: the list element lives as long as the page.
    on_click.forget();

    let on_switch = Closure::<dyn FnMut(web_sys::Event)>::new({
        let ui = ui.clone();
        move |_event: web_sys::Event| {
            ui.developer_flips
                .set(ui.developer_flips.get().wrapping_add(1));
            ui.developer_writing.set(true);
            spawn_local(set_developer_mode(ui.clone(), ui.developer.checked()));
        }
    });
    ui.developer
        .add_event_listener_with_callback("change", on_switch.as_ref().unchecked_ref())?;
    // Page-lifetime listener: the checkbox lives as long as the page.
    on_switch.forget();

    if opened_as("?panel") {
        panel::start(&document)?;
    } else {
        ui.sites.start({
            let ui = ui.clone();
            move || {
                // Rebuilt even when the rows read the same: a switch the
                // person flipped shows what the daemon says again.
                ui.shown.replace(None);
                let ui = ui.clone();
                spawn_local(async move { refresh(&ui).await });
            }
        });
        let on_change = Closure::<dyn FnMut(web_sys::Event)>::new({
            let ui = ui.clone();
            move |event: web_sys::Event| ui.sites.on_change(&event)
        });
        ui.list
            .add_event_listener_with_callback("change", on_change.as_ref().unchecked_ref())?;
        // Page-lifetime listener: the list element lives as long as the page.
        on_change.forget();
        let open = Closure::<dyn FnMut(web_sys::Event)>::new(move |_event: web_sys::Event| {
            spawn_local(open_panel());
        });
        let button = by_id("open-panel")?;
        button.remove_attribute("hidden")?;
        button.add_event_listener_with_callback("click", open.as_ref().unchecked_ref())?;
        // Page-lifetime listener: the button lives as long as the page.
        open.forget();
    }
    spawn_local(async move {
        loop {
            refresh(&ui).await;
            TimeoutFuture::new(REFRESH_MS).await;
        }
    });
    Ok(())
}

/// Opens the side panel in the popup's window (the click is the
/// person's gesture the browser asks for), then closes the popup.
async fn open_panel() {
    let window = match tabs::query_current_window().await {
        Ok(tabs) => tabs.first().map(|t| t.window_id),
        Err(_) => None,
    };
    let Some(window) = window else {
        log::warn("no window to open the side panel in");
        return;
    };
    match crate::chrome::side_panel::open(window).await {
        Ok(()) => {
            if let Some(w) = web_sys::window() {
                let _ = w.close();
            }
        }
        Err(e) => log::warn(&format!(
            "could not open the side panel: {}",
            error_message(&e)
        )),
    }
}

fn on_click(ui: &Rc<Ui>, event: &web_sys::Event) {
    let Some(button) = event
        .target()
        .and_then(|t| t.dyn_into::<Element>().ok())
        .and_then(|el| el.closest("button[data-action]").ok().flatten())
    else {
        return;
    };
    let tab = button
        .get_attribute("data-tab-id")
        .and_then(|id| id.parse::<i32>().ok())
        .map(TabId);
    let request = match (tab, button.get_attribute("data-action").as_deref()) {
        (Some(tab_id), Some("share")) => PopupRequest::Share { tab_id },
        (Some(tab_id), Some("unshare")) => PopupRequest::Unshare { tab_id },
        (Some(tab_id), Some("take-control")) => PopupRequest::TakeControl { tab_id },
        (Some(tab_id), Some("hand-back")) => PopupRequest::HandBack { tab_id },
        _ => return,
    };
    // Disabled until the list is re-rendered, so a double click sends once.
    let _ = button.set_attribute("disabled", "");
    spawn_local(act(ui.clone(), request));
}

/// Asks the worker to set the switch (it writes it to storage), shows a
/// failure, re-renders.
async fn set_developer_mode(ui: Rc<Ui>, enabled: bool) {
    let asked = PopupRequest::SetDeveloperMode { enabled };
    let error = request(&asked)
        .await
        .map(|e| format!("could not change developer mode: {e}"));
    ui.developer_writing.set(false);
    show(&ui.error, error.as_deref());
    ui.action_error.replace(error.map(|e| (asked, e)));
    refresh(&ui).await;
}

/// Sends a request about one tab, shows its error, re-renders.
async fn act(ui: Rc<Ui>, request_: PopupRequest) {
    let error = request(&request_).await;
    show(&ui.error, error.as_deref());
    ui.action_error.replace(error.map(|e| (request_, e)));
    // Re-render even if nothing changed, to re-enable the clicked button.
    ui.shown.replace(None);
    refresh(&ui).await;
}

/// Sends `request` to the worker; the error to show, if it failed.
async fn request(request: &PopupRequest) -> Option<String> {
    let reply = match to_js(request) {
        Ok(message) => runtime::send_message(&message).await,
        Err(e) => Err(e),
    }
    .and_then(from_js::<ActionReply>);
    match reply {
        Ok(ActionReply { ok: true, .. }) => None,
        Ok(ActionReply { error, .. }) => {
            Some(error.unwrap_or_else(|| "the action failed".to_owned()))
        }
        Err(e) => Some(format!(
            "the extension did not answer: {}",
            error_message(&e)
        )),
    }
}

/// Reads the worker's state and the window's tabs and updates the page.
async fn refresh(ui: &Ui) {
    let flips = ui.developer_flips.get();
    let (state, answered) = match get_state().await {
        Ok(state) => (state, true),
        Err(e) => (
            PopupState {
                last_error: Some(format!(
                    "the extension's worker did not answer: {}",
                    error_message(&e)
                )),
                ..PopupState::default()
            },
            false,
        ),
    };
    // The person's flip wins over a state read before it was written.
    if answered && !ui.developer_writing.get() && ui.developer_flips.get() == flips {
        ui.developer.set_checked(state.developer_mode);
    }
    let _ = ui.status.set_attribute(
        "data-connected",
        if state.connected { "true" } else { "false" },
    );
    ui.status.set_text_content(Some(if state.connected {
        "Host connected"
    } else {
        "Host not connected"
    }));
    show(
        &ui.detail,
        host_detail(state.connected, state.last_error.as_deref()).as_deref(),
    );
    show(&ui.agents, agents_line(&state).as_deref());
    // Unknown (an older browser): no hint.
    let pinned = action::is_on_toolbar().await.unwrap_or(true);
    show(&ui.pin, (!pinned).then_some(PIN_HINT));
    show(
        &ui.warning,
        (answered && state.developer_mode).then_some(DEVELOPER_WARNING),
    );
    let tabs = match tabs::query_current_window().await {
        Ok(tabs) => tabs,
        Err(e) => {
            log::warn(&format!("could not list tabs: {}", error_message(&e)));
            return;
        }
    };
    {
        let mut action_error = ui.action_error.borrow_mut();
        if answered
            && action_error
                .as_ref()
                .is_some_and(|(asked, _)| !error_still_holds(asked, &state, &tabs))
        {
            *action_error = None;
        }
        let action_error = action_error.as_ref().map(|(_, e)| e.as_str());
        show(&ui.error, action_error.or(state.share_error.as_deref()));
    }
    let waiting = sites::waiting_line(ui.sites.waiting());
    show(&ui.waiting, waiting.as_deref());
    let _ = ui
        .waiting
        .set_attribute("data-count", &ui.sites.waiting().to_string());
    let shown = (rows(&tabs, &state), ui.sites.shown());
    if ui.shown.borrow().as_ref() == Some(&shown) {
        return;
    }
    if let Err(e) = render(ui, &shown.0) {
        log::error(&format!("could not render the tabs: {}", error_message(&e)));
    }
    ui.shown.replace(Some(shown));
}

async fn get_state() -> Result<PopupState, JsValue> {
    from_js(runtime::send_message(&to_js(&PopupRequest::GetState)?).await?)
}

/// Shows `text` in `el`, or hides `el` when there is none.
fn show(el: &Element, text: Option<&str>) {
    el.set_text_content(text);
    // Attribute writes on our own elements only fail for invalid names.
    let _ = match text {
        Some(_) => el.remove_attribute("hidden"),
        None => el.set_attribute("hidden", ""),
    };
}

/// Rebuilds the list: `<li data-tab-id data-url>` with the title, and for
/// a shared tab its controller and control button, then the share button.
fn render(ui: &Ui, rows: &[Row]) -> Result<(), JsValue> {
    ui.list.set_text_content(None);
    for row in rows {
        let id = row.tab_id.to_string();
        let li = ui.document.create_element("li")?;
        li.set_attribute("data-tab-id", &id)?;
        li.set_attribute("data-url", &row.url)?;
        let title = ui.document.create_element("span")?;
        title.set_attribute("class", "title")?;
        title.set_attribute("title", &row.url)?;
        title.set_text_content(Some(&row.label));
        li.append_child(&title)?;

        if let Some(control) = &row.control {
            // What is shared, in full: the title alone may hide the site.
            let url = ui.document.create_element("span")?;
            url.set_attribute("class", "url")?;
            url.set_attribute("data-tab-id", &id)?;
            url.set_text_content(Some(&row.url));
            li.append_child(&url)?;
            let who = ui.document.create_element("span")?;
            who.set_attribute("class", "controller")?;
            who.set_attribute("data-tab-id", &id)?;
            who.set_attribute("data-controller", control.kind())?;
            who.set_text_content(Some(&control.text()));
            li.append_child(&who)?;
            let button = ui.document.create_element("button")?;
            button.set_attribute("type", "button")?;
            button.set_attribute("data-tab-id", &id)?;
            button.set_attribute("data-action", control.action.data_action())?;
            button.set_text_content(Some(control.action.label()));
            li.append_child(&button)?;
            ui.sites.append_to(&ui.document, &li, row.tab_id)?;
        }
        if let Some(why) = &row.unshared {
            let note = ui.document.create_element("span")?;
            note.set_attribute("class", "unshared")?;
            note.set_attribute("data-tab-id", &id)?;
            note.set_text_content(Some(why));
            li.append_child(&note)?;
        }
        if let Some(why) = &row.suspended {
            let note = ui.document.create_element("span")?;
            note.set_attribute("class", "suspended")?;
            note.set_attribute("data-tab-id", &id)?;
            note.set_text_content(Some(why));
            li.append_child(&note)?;
        }

        let button = ui.document.create_element("button")?;
        button.set_attribute("type", "button")?;
        button.set_attribute("data-tab-id", &id)?;
        button.set_text_content(Some(row.action.label()));
        match &row.action {
            RowAction::Unavailable(reason) => {
                button.set_attribute("disabled", "")?;
                let why = ui.document.create_element("span")?;
                why.set_attribute("class", "reason")?;
                why.set_text_content(Some(reason));
                li.append_child(&why)?;
            }
            action => {
                if let Some(name) = action.data_action() {
                    button.set_attribute("data-action", name)?;
                }
            }
        }
        li.append_child(&button)?;
        ui.list.append_child(&li)?;
    }
    Ok(())
}
