//! The side panel: the popup page opened as `popup.html?panel`, which
//! stays open beside the tabs while the person works. Above the popup's
//! own list (each shared tab, who controls it, Take control / Hand back)
//! it shows what each agent is doing now and its latest requests with
//! their outcome, told by the daemon's watch over a native port of the
//! panel's own ([`cotab_shared::watch`]; the worker's lane never carries
//! them), where agents may take each shared tab (the site it was shared
//! at, more sites the person allowed, or any site), and a "Stop all
//! agents" button that takes every tab an agent holds back for the
//! person. The person's choices of sites go to the daemon on the same
//! watch; agents have no way to make them. So do the person's choices
//! of what a tab asks their yes before (every action, submitting a form,
//! uploading files, typing a password), and their answers to the requests waiting for it,
//! listed first.
//!
//! Its DOM is the end-to-end tests' contract: `#activity`,
//! `#watch-status[data-watching]`, `button#stop-all`,
//! `input#agent-pointer` (the drawings in the page, on or off: the daemon
//! keeps the choice), `ul#scopes > li[data-tab][data-asks]` (what the
//! daemon last said the tab asks before, space-separated) with
//! `span.sites` and `input.any-site[data-tab]` and
//! `input.ask-before[data-tab][data-what]` (`step`, `submit`, `files`,
//! `password`), `#waiting` (hidden while nothing waits)
//! with `ul#approvals > li[data-approval][data-ask]` and its
//! `button.approve[data-approval]` and `button.deny[data-approval]`, one
//! `section.agent[data-agent]` per agent with `p.now[data-now]`,
//! `ol.recent > li[data-seq][data-outcome]` (a navigation refused for
//! its site with `button.allow-site[data-tab][data-site]`) and, once the
//! daemon took
//! one, `figure.picture[data-tab][data-seq] > img` (the tab it works in
//! after its latest request). Each tab in `#scopes` has its video's
//! `span.video[data-recording]` (`agent`, `person` or empty) with
//! `button.record[data-tab][data-record]`; the person's saved videos are
//! `ul#videos > li[data-tab]` in `#saved-videos`.

use super::by_id;
use crate::chrome::{error_message, from_js, runtime, to_js};
use crate::log;
use crate::messages::{PopupRequest, PopupState};
use crate::panel_model::{held_by_agents, line, place, Activity, AgentView, Placed};
use cotab_shared::watch::{
    ActivityEntry, ApprovalAnswer, ApprovalFrame, Approve, AskBefore, AskBeforeChange,
    PendingApproval, ScopeChange, TabAskBefore, TabScope, TabScopeChange, TabVideoChange,
    VideoChange, WatchEvent, WatchHello, WatchSetting,
};
use cotab_shared::{ErrorKind, TabId};
use cotab_shared::{NATIVE_HOST_NAME, NATIVE_PROTOCOL_VERSION};
use gloo_timers::future::TimeoutFuture;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;
use web_sys::{Document, Element, HtmlInputElement};

/// Milliseconds before a watch that ended is opened again.
pub(super) const RECONNECT_MS: u32 = 2_000;

/// Milliseconds after the requests waiting changed during which their
/// Approve and Deny take no click.
const SETTLE_MS: f64 = 600.0;

struct Panel {
    document: Document,
    list: Element,
    /// Where agents may take each shared tab.
    scopes: Element,
    /// The requests waiting for the person's yes, and their list.
    waiting: Element,
    approvals: Element,
    status: Element,
    /// The switch of the drawings in the page (the daemon keeps it).
    pointer: HtmlInputElement,
    activity: RefCell<Activity>,
    /// The requests waiting as last shown, and since when (ms): their
    /// buttons take no click for [`SETTLE_MS`] after the list changed,
    /// so a request that slides under the pointer is not answered.
    shown_approvals: RefCell<(Vec<u64>, f64)>,
    /// The port while the watch is open; kept so it is not collected.
    port: RefCell<Option<runtime::Port>>,
}

/// Starts the panel's part of the page.
pub(crate) fn start(document: &Document) -> Result<(), JsValue> {
    let by_id = |id: &str| by_id(document, id);
    if let Some(body) = document.body() {
        body.set_attribute("class", "panel")?;
    }
    by_id("activity")?.remove_attribute("hidden")?;
    let panel = Rc::new(Panel {
        document: document.clone(),
        list: by_id("agents-activity")?,
        scopes: by_id("scopes")?,
        waiting: by_id("waiting")?,
        approvals: by_id("approvals")?,
        status: by_id("watch-status")?,
        pointer: by_id("agent-pointer")?.dyn_into::<HtmlInputElement>()?,
        activity: RefCell::new(Activity::default()),
        shown_approvals: RefCell::new((Vec::new(), 0.0)),
        port: RefCell::new(None),
    });
    let stop = Closure::<dyn FnMut(web_sys::Event)>::new(move |_event: web_sys::Event| {
        spawn_local(stop_all());
    });
    by_id("stop-all")?.add_event_listener_with_callback("click", stop.as_ref().unchecked_ref())?;
    // Page-lifetime listener: the button lives as long as the page.
    stop.forget();
    let switch = Closure::<dyn FnMut(web_sys::Event)>::new({
        let panel = panel.clone();
        move |_event: web_sys::Event| {
            let setting = WatchSetting {
                agent_pointer: panel.pointer.checked(),
            };
            if let Err(e) = panel.post(&setting) {
                log::warn(&format!(
                    "could not change the setting: {}",
                    error_message(&e)
                ));
                panel.pointer.set_checked(!setting.agent_pointer);
            }
        }
    });
    panel
        .pointer
        .add_event_listener_with_callback("change", switch.as_ref().unchecked_ref())?;
    // Page-lifetime listener: the switch lives as long as the page.
    switch.forget();
    // The person's choices, from the controls `render` makes.
    let choose = Closure::<dyn FnMut(web_sys::Event)>::new({
        let panel = panel.clone();
        move |event: web_sys::Event| {
            let Some(target) = event.target().and_then(|t| t.dyn_into::<Element>().ok()) else {
                return;
            };
            let kind = event.type_();
            let posted = if let Some(change) = scope_change(&kind, &target) {
                panel.post(&ScopeChange { tab_scope: change })
            } else if let Some(change) = ask_before_change(&kind, &target) {
                panel.post(&AskBeforeChange {
                    tab_ask_before: change,
                })
            } else if let Some(answer) = approval_answer(&kind, &target) {
                panel.post(&ApprovalAnswer { approval: answer })
            } else if let Some(change) = video_change(&kind, &target) {
                panel.post(&VideoChange { tab_video: change })
            } else {
                return;
            };
            if let Err(e) = posted {
                log::warn(&format!(
                    "could not tell cotab's host your choice: {}",
                    error_message(&e)
                ));
                // Shows what the daemon last told again.
                let _ = render(&panel);
            }
        }
    });
    let section = by_id("activity")?;
    for kind in ["click", "change"] {
        section.add_event_listener_with_callback(kind, choose.as_ref().unchecked_ref())?;
    }
    // Page-lifetime listener: the section lives as long as the page.
    choose.forget();
    watch(&panel);
    Ok(())
}

impl Panel {
    /// Sends `message` on the watch.
    fn post(&self, message: &impl serde::Serialize) -> Result<(), JsValue> {
        match &*self.port.borrow() {
            Some(port) => port.post_message(&to_js(message)?),
            None => Err(JsValue::from_str("cotab's host is not connected")),
        }
    }
}

/// The change of sites the person asked for by `kind` (`click`,
/// `change`) on `target`: a tab's "any site" switch, or "allow" on a
/// refused navigation.
pub(super) fn scope_change(kind: &str, target: &Element) -> Option<TabScopeChange> {
    let tab = TabId(target.get_attribute("data-tab")?.parse().ok()?);
    let class = target.get_attribute("class").unwrap_or_default();
    match (kind, class.as_str()) {
        ("change", "any-site") => Some(TabScopeChange {
            tab,
            any_site: Some(target.dyn_ref::<HtmlInputElement>()?.checked()),
            allow: None,
        }),
        ("click", "allow-site") => Some(TabScopeChange {
            tab,
            any_site: None,
            allow: Some(target.get_attribute("data-site")?),
        }),
        _ => None,
    }
}

/// The change of what a tab asks before by `kind` on `target`: one of
/// its "ask before" switches.
fn ask_before_change(kind: &str, target: &Element) -> Option<TabAskBefore> {
    if kind != "change" || target.get_attribute("class").as_deref() != Some("ask-before") {
        return None;
    }
    let tab = TabId(target.get_attribute("data-tab")?.parse().ok()?);
    let what = target.get_attribute("data-what")?;
    let what = AskBefore::ALL.into_iter().find(|a| a.as_str() == what)?;
    Some(TabAskBefore {
        tab,
        what,
        on: target.dyn_ref::<HtmlInputElement>()?.checked(),
    })
}

/// The person's answer by `kind` on `target`: Approve or Deny on a
/// request waiting for them.
fn approval_answer(kind: &str, target: &Element) -> Option<Approve> {
    let approve = match (kind, target.get_attribute("class").as_deref()) {
        ("click", Some("approve")) => true,
        ("click", Some("deny")) => false,
        _ => return None,
    };
    let id = target.get_attribute("data-approval")?.parse().ok()?;
    Some(Approve { id, approve })
}

/// Opens the watch: the daemon says what is recent, then each request as
/// it begins and ends. When the port closes (the browser's native host
/// went, the daemon restarted) it is opened again a moment later.
fn watch(panel: &Rc<Panel>) {
    if let Err(e) = open_watch(panel) {
        watching(panel, false, Some(&error_message(&e)));
    }
}

fn open_watch(panel: &Rc<Panel>) -> Result<(), JsValue> {
    let port = open_watch_port(
        {
            let panel = panel.clone();
            move |event: WatchEvent| {
                watching(&panel, true, None);
                if let Some(on) = event.agent_pointer {
                    panel.pointer.set_checked(on);
                }
                panel.activity.borrow_mut().apply(event);
                if let Err(e) = render(&panel) {
                    log::error(&format!(
                        "could not render the agents: {}",
                        error_message(&e)
                    ));
                }
            }
        },
        {
            let panel = panel.clone();
            move || {
                panel.port.replace(None);
                watching(&panel, false, runtime::last_error_message().as_deref());
                let panel = panel.clone();
                spawn_local(async move {
                    TimeoutFuture::new(RECONNECT_MS).await;
                    watch(&panel);
                });
            }
        },
    )?;
    panel.port.replace(Some(port));
    Ok(())
}

/// Opens a watch on the daemon over a native port of the page's own:
/// `on_event` gets each event it tells, `on_end` is called once the port
/// closes.
pub(super) fn open_watch_port(
    mut on_event: impl FnMut(WatchEvent) + 'static,
    mut on_end: impl FnMut() + 'static,
) -> Result<runtime::Port, JsValue> {
    let port = runtime::connect_native(NATIVE_HOST_NAME)?;
    let on_message = Closure::<dyn FnMut(JsValue)>::new(move |message: JsValue| {
        match from_js::<WatchEvent>(message) {
            Ok(event) => on_event(event),
            Err(e) => log::warn(&format!("an unreadable watch event: {}", error_message(&e))),
        }
    });
    port.on_message()
        .add_listener(on_message.as_ref().unchecked_ref())?;
    // Lives as long as the port, which lives as long as the page or
    // until it disconnects (then a new port gets new listeners).
    on_message.forget();
    let on_disconnect = Closure::<dyn FnMut(JsValue)>::new(move |_port: JsValue| on_end());
    port.on_disconnect()
        .add_listener(on_disconnect.as_ref().unchecked_ref())?;
    // As the message listener above.
    on_disconnect.forget();
    let hello = WatchHello::Watch {
        protocol_version: NATIVE_PROTOCOL_VERSION,
    };
    port.post_message(&to_js(&hello)?)?;
    Ok(port)
}

/// Says whether the panel hears the daemon.
fn watching(panel: &Panel, on: bool, why: Option<&str>) {
    let _ = panel
        .status
        .set_attribute("data-watching", if on { "true" } else { "false" });
    let text = match (on, why) {
        (true, _) => "Watching agents".to_owned(),
        (false, Some(why)) => format!("Not watching agents: {why}"),
        (false, None) => "Not watching agents".to_owned(),
    };
    panel.status.set_text_content(Some(&text));
}

/// Takes back every tab an agent holds.
async fn stop_all() {
    let state: Result<PopupState, JsValue> =
        async { from_js(runtime::send_message(&to_js(&PopupRequest::GetState)?).await?) }.await;
    let Ok(state) = state else {
        log::warn("stop all: the worker did not answer");
        return;
    };
    for tab_id in held_by_agents(&state.controllers) {
        if let Some(error) = super::request(&PopupRequest::TakeControl { tab_id }).await {
            log::warn(&format!("stop all: tab {tab_id}: {error}"));
        }
    }
}

/// Rebuilds the requests waiting, the tabs' sites and the agents'
/// sections.
fn render(panel: &Panel) -> Result<(), JsValue> {
    panel.approvals.set_text_content(None);
    let waiting = panel.activity.borrow().approvals().to_vec();
    let ids: Vec<u64> = waiting.iter().map(|a| a.id).collect();
    let now = js_sys::Date::now();
    let settled_at = {
        let mut shown = panel.shown_approvals.borrow_mut();
        if shown.0 != ids {
            *shown = (ids, now + SETTLE_MS);
        }
        shown.1
    };
    let settling = now < settled_at;
    for approval in &waiting {
        let item = approval_item(panel, approval, settling)?;
        panel.approvals.append_child(&item)?;
    }
    if settling {
        let list = panel.approvals.clone();
        spawn_local(async move {
            TimeoutFuture::new((settled_at - now).ceil() as u32).await;
            while let Ok(Some(button)) = list.query_selector("button[disabled]") {
                if button.remove_attribute("disabled").is_err() {
                    break;
                }
            }
        });
    }
    if waiting.is_empty() {
        panel.waiting.set_attribute("hidden", "")?;
    } else {
        panel.waiting.remove_attribute("hidden")?;
    }
    panel.scopes.set_text_content(None);
    for scope in panel.activity.borrow().scopes() {
        let item = scope_item(panel, scope)?;
        panel.scopes.append_child(&item)?;
    }
    render_saved(panel)?;
    let views = panel.activity.borrow().agents();
    panel.list.set_text_content(None);
    if views.is_empty() {
        let p = panel.document.create_element("p")?;
        p.set_attribute("class", "detail")?;
        p.set_text_content(Some("No agent has acted yet."));
        panel.list.append_child(&p)?;
    }
    for view in &views {
        let section = agent_section(panel, view)?;
        panel.list.append_child(&section)?;
    }
    Ok(())
}

fn agent_section(panel: &Panel, view: &AgentView) -> Result<Element, JsValue> {
    let d = &panel.document;
    let section = d.create_element("section")?;
    section.set_attribute("class", "agent")?;
    section.set_attribute("data-agent", &view.agent)?;
    let h = d.create_element("h2")?;
    h.set_text_content(Some(&view.agent));
    section.append_child(&h)?;
    let now = d.create_element("p")?;
    now.set_attribute("class", "now")?;
    now.set_attribute(
        "data-now",
        if view.now.is_some() { "true" } else { "false" },
    )?;
    now.set_text_content(Some(&match &view.now {
        Some(e) => format!("Now: {}{}", e.what, on_tab(panel, e)),
        None => "Idle".to_owned(),
    }));
    section.append_child(&now)?;
    let list = d.create_element("ol")?;
    list.set_attribute("class", "recent")?;
    for e in &view.recent {
        let li = d.create_element("li")?;
        li.set_attribute("data-seq", &e.seq.to_string())?;
        li.set_attribute("data-outcome", e.outcome.as_deref().unwrap_or(""))?;
        let time = d.create_element("time")?;
        time.set_text_content(Some(&clock(e.at_ms)));
        li.append_child(&time)?;
        li.append_with_str_1(&format!(" {}{}", line(e), on_tab(panel, e)))?;
        if let Some(button) = allow_button(panel, e)? {
            li.append_child(&button)?;
        }
        list.append_child(&li)?;
    }
    section.append_child(&list)?;
    if let Some(p) = &view.picture {
        let figure = d.create_element("figure")?;
        figure.set_attribute("class", "picture")?;
        figure.set_attribute("data-tab", &p.tab.to_string())?;
        figure.set_attribute("data-seq", &p.seq.to_string())?;
        let img = d.create_element("img")?;
        img.set_attribute(
            "alt",
            &format!("tab {} after the agent's latest request", p.tab),
        )?;
        // The daemon's picture: base64 of a JPEG, checked before it was kept.
        img.set_attribute("src", &format!("data:image/jpeg;base64,{}", p.jpeg))?;
        figure.append_child(&img)?;
        let caption = d.create_element("figcaption")?;
        caption.set_text_content(Some(&format!("Tab {} after its latest request", p.tab)));
        figure.append_child(&caption)?;
        section.append_child(&figure)?;
    }
    Ok(section)
}

/// A shared tab with its sites and the switch to any site.
fn scope_item(panel: &Panel, scope: &TabScope) -> Result<Element, JsValue> {
    let d = &panel.document;
    let li = d.create_element("li")?;
    let tab = scope.tab.to_string();
    li.set_attribute("data-tab", &tab)?;
    let asks: Vec<&str> = scope.ask_before.iter().map(|a| a.as_str()).collect();
    li.set_attribute("data-asks", &asks.join(" "))?;
    let title = if scope.title.is_empty() {
        format!("Tab {tab}")
    } else {
        scope.title.clone()
    };
    li.append_with_str_1(&format!("{title}: "))?;
    let sites = d.create_element("span")?;
    sites.set_attribute("class", "sites")?;
    sites.set_text_content(Some(&if scope.sites.is_empty() {
        "any site".to_owned()
    } else {
        scope.sites.join(", ")
    }));
    li.append_child(&sites)?;
    li.append_with_str_1(" ")?;
    let switch = any_site_switch(d, scope)?;
    li.append_child(&switch)?;
    let asks = d.create_element("span")?;
    asks.set_attribute("class", "asks")?;
    asks.append_with_str_1("Ask me before:")?;
    for what in AskBefore::ALL {
        let label = d.create_element("label")?;
        let input = d.create_element("input")?.dyn_into::<HtmlInputElement>()?;
        input.set_type("checkbox");
        input.set_attribute("class", "ask-before")?;
        input.set_attribute("data-tab", &tab)?;
        input.set_attribute("data-what", what.as_str())?;
        input.set_checked(scope.ask_before.contains(&what));
        label.append_child(&input)?;
        label.append_with_str_1(&format!(" {}", what.label()))?;
        asks.append_with_str_1(" ")?;
        asks.append_child(&label)?;
    }
    li.append_child(&asks)?;
    let video = video_control(panel, scope.tab)?;
    li.append_child(&video)?;
    Ok(li)
}

/// A tab's video: `span.video[data-recording]` saying who records it, and
/// `button.record[data-tab][data-record]` that starts one or stops it
/// ([`video_change`] reads its click).
fn video_control(panel: &Panel, tab: TabId) -> Result<Element, JsValue> {
    let d = &panel.document;
    let span = d.create_element("span")?;
    span.set_attribute("class", "video")?;
    let activity = panel.activity.borrow();
    let recording = activity.recording(tab);
    span.set_attribute(
        "data-recording",
        match recording {
            Some(v) if v.agent.is_some() => "agent",
            Some(_) => "person",
            None => "",
        },
    )?;
    if let Some(v) = recording {
        span.append_with_str_1(&match &v.agent {
            Some(agent) => format!("Recording: a video by agent {agent} "),
            None => "Recording your video ".to_owned(),
        })?;
    }
    let button = d.create_element("button")?;
    button.set_attribute("type", "button")?;
    button.set_attribute("class", "record")?;
    button.set_attribute("data-tab", &tab.to_string())?;
    let record = recording.is_none();
    button.set_attribute("data-record", if record { "true" } else { "false" })?;
    button.set_text_content(Some(if record {
        "Record video"
    } else {
        "Stop recording"
    }));
    span.append_child(&button)?;
    Ok(span)
}

/// The start or stop of a tab's video the person asked for by `kind` on
/// `target`: its Record video or Stop recording button.
fn video_change(kind: &str, target: &Element) -> Option<TabVideoChange> {
    if kind != "click" || target.get_attribute("class").as_deref() != Some("record") {
        return None;
    }
    Some(TabVideoChange {
        tab: TabId(target.get_attribute("data-tab")?.parse().ok()?),
        record: target.get_attribute("data-record").as_deref() == Some("true"),
    })
}

/// The person's saved videos: `#saved-videos` (hidden while there are
/// none) with `ul#videos > li[data-tab]`, each naming its file.
fn render_saved(panel: &Panel) -> Result<(), JsValue> {
    let d = &panel.document;
    let list = by_id(d, "videos")?;
    list.set_text_content(None);
    let mut any = false;
    for v in panel.activity.borrow().saved_videos() {
        any = true;
        let li = d.create_element("li")?;
        li.set_attribute("data-tab", &v.tab.to_string())?;
        li.set_text_content(Some(&format!(
            "A video of the tab{} was saved to {}",
            tab_name(panel, v.tab),
            v.path
        )));
        list.append_child(&li)?;
    }
    let section = by_id(d, "saved-videos")?;
    if any {
        section.remove_attribute("hidden")
    } else {
        section.set_attribute("hidden", "")
    }
}

/// A tab's "any site" switch, `label > input.any-site[data-tab]`, on
/// while it may go to any site ([`scope_change`] reads its change).
pub(super) fn any_site_switch(d: &Document, scope: &TabScope) -> Result<Element, JsValue> {
    let label = d.create_element("label")?;
    label.set_attribute("class", "any-site-switch")?;
    let input = d.create_element("input")?.dyn_into::<HtmlInputElement>()?;
    input.set_type("checkbox");
    input.set_attribute("class", "any-site")?;
    input.set_attribute("data-tab", &scope.tab.to_string())?;
    input.set_checked(scope.sites.is_empty());
    label.append_child(&input)?;
    label.append_with_str_1(" any site")?;
    Ok(label)
}

/// A request waiting for the person's yes, with Approve and Deny (which
/// take no click yet while the list is `settling`).
fn approval_item(panel: &Panel, a: &PendingApproval, settling: bool) -> Result<Element, JsValue> {
    let d = &panel.document;
    let li = d.create_element("li")?;
    let id = a.id.to_string();
    li.set_attribute("data-approval", &id)?;
    li.set_attribute("data-ask", a.ask.as_str())?;
    // The tab by its title, as the person knows it.
    let on = a
        .tab
        .map(|t| tab_name(panel, t))
        .unwrap_or_else(|| " in a new tab".to_owned());
    let why = match a.ask {
        AskBefore::Step => "you asked to approve every action",
        AskBefore::Files => "it would put your files in the page",
        AskBefore::Password => "it would type into a password field",
        AskBefore::Submit => "it may submit a form",
        AskBefore::Download => "it would save a file to your computer",
    };
    li.append_with_str_1(&format!("{} wants to {}{on} ({why})", a.agent, a.what))?;
    if let Some(text) = &a.text {
        li.append_with_str_1(": ")?;
        let span = d.create_element("span")?;
        span.set_attribute("class", "text")?;
        span.set_text_content(Some(text));
        li.append_child(&span)?;
    }
    li.append_with_str_1(&format!(
        " — refused if you do not answer within {} s.",
        a.left_ms.div_ceil(1000)
    ))?;
    if let Some(frame) = &a.frame {
        let figure = approval_frame(d, frame)?;
        li.append_child(&figure)?;
    }
    let buttons = d.create_element("div")?;
    for (class, text) in [("approve", "Approve"), ("deny", "Deny")] {
        let button = d.create_element("button")?;
        button.set_attribute("type", "button")?;
        button.set_attribute("class", class)?;
        button.set_attribute("data-approval", &id)?;
        if settling {
            button.set_attribute("disabled", "")?;
        }
        button.set_text_content(Some(text));
        buttons.append_child(&button)?;
    }
    li.append_child(&buttons)?;
    Ok(li)
}

/// The picture of the tab a request waits in, with what it aims at
/// marked: `figure.frame > img` and `span.mark[data-mark="x y w h"]` (CSS
/// pixels of the tab's viewport), or a caption when it is out of the
/// picture.
fn approval_frame(d: &Document, frame: &ApprovalFrame) -> Result<Element, JsValue> {
    let figure = d.create_element("figure")?;
    figure.set_attribute("class", "frame")?;
    let img = d.create_element("img")?;
    img.set_attribute("src", &format!("data:image/jpeg;base64,{}", frame.jpeg))?;
    img.set_attribute("alt", "The tab as it is now")?;
    figure.append_child(&img)?;
    let Some(mark) = frame.mark else {
        return Ok(figure);
    };
    let style = match place(mark, frame.width, frame.height) {
        Some(Placed::Box(left, top, width, height)) => {
            format!("left:{left:.2}%;top:{top:.2}%;width:{width:.2}%;height:{height:.2}%")
        }
        Some(Placed::Point(left, top)) => format!("left:{left:.2}%;top:{top:.2}%"),
        Some(Placed::Outside(where_)) => {
            let caption = d.create_element("figcaption")?;
            caption.set_text_content(Some(&format!("What it aims at is {where_}.")));
            figure.append_child(&caption)?;
            return Ok(figure);
        }
        None => return Ok(figure),
    };
    let span = d.create_element("span")?;
    let point = mark.width == 0 && mark.height == 0;
    span.set_attribute("class", if point { "mark point" } else { "mark" })?;
    span.set_attribute(
        "data-mark",
        &format!("{} {} {} {}", mark.x, mark.y, mark.width, mark.height),
    )?;
    span.set_attribute("style", &style)?;
    figure.append_child(&span)?;
    Ok(figure)
}

/// "Allow" on a navigation refused for its site, while the tab is still
/// shared without it.
fn allow_button(panel: &Panel, e: &ActivityEntry) -> Result<Option<Element>, JsValue> {
    let (Some(tab), Some(site)) = (e.tab, e.site.as_deref()) else {
        return Ok(None);
    };
    let refused = e.outcome.as_deref() == Some(ErrorKind::SiteNotAllowed.as_str());
    let shut = panel
        .activity
        .borrow()
        .sites(tab)
        .is_some_and(|sites| !sites.is_empty() && !sites.iter().any(|s| s == site));
    if !refused || !shut {
        return Ok(None);
    }
    let button = panel.document.create_element("button")?;
    button.set_attribute("type", "button")?;
    button.set_attribute("class", "allow-site")?;
    button.set_attribute("data-tab", &tab.to_string())?;
    button.set_attribute("data-site", site)?;
    button.set_text_content(Some(&format!("Allow {site} in this tab")));
    Ok(Some(button))
}

/// ` (tab N)` when the entry has a tab.
/// Where entry `e` acted: ` in “TITLE”` for a shared tab the watch told
/// the title of, else ` (tab N)`; nothing for none.
fn on_tab(panel: &Panel, e: &ActivityEntry) -> String {
    e.tab.map(|t| tab_name(panel, t)).unwrap_or_default()
}

/// Shared tab `t` as the person knows it: ` in “TITLE”`, else ` (tab N)`
/// (not shared any more, or no title).
fn tab_name(panel: &Panel, t: TabId) -> String {
    let activity = panel.activity.borrow();
    let title = activity
        .scopes()
        .iter()
        .find(|s| s.tab == t)
        .map(|s| s.title.clone());
    match title.filter(|t| !t.is_empty()) {
        Some(title) => format!(" in “{title}”"),
        None => format!(" (tab {t})"),
    }
}

/// The local time of `at_ms`, `HH:MM:SS`.
fn clock(at_ms: u64) -> String {
    // Milliseconds since the epoch fit a double exactly for ages to come.
    let date = js_sys::Date::new(&JsValue::from_f64(at_ms as f64));
    format!(
        "{:02}:{:02}:{:02}",
        date.get_hours(),
        date.get_minutes(),
        date.get_seconds()
    )
}
