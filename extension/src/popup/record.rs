//! The activity record's viewer: the popup page opened as
//! `popup.html?record` in a tab of its own (from the popup and the side
//! panel). It lists the sessions the daemon keeps and, for one, a
//! timeline of its entries a page at a time — filtered by tab and
//! outcome, with the picture of the tab after each request that has one —
//! and clears one session or all. It asks the daemon over a native port
//! of its own, as the side panel watches ([`cotab_shared::watch`]'s
//! `RecordAsk`); the files stay the daemon's. Like every cotab page, it is
//! a blocked target for agents.
//!
//! Its DOM is the end-to-end tests' contract: `#record[data-state]`,
//! `#record-sessions tbody tr[data-id]` (a `button.open` in each),
//! `#record-session[data-id]` with `select#record-tab`,
//! `select#record-outcome`, `button#record-earlier`, `button#record-later`,
//! `#record-range[data-from][data-total]`, `button#record-clear`,
//! `button#record-clear-all`, and `ol#record-entries >
//! li[data-seq][data-outcome]`, each with an `img` once its picture came.

use super::by_id;
use crate::chrome::{error_message, runtime, to_js};
use crate::log;
use crate::panel_model::{line, page_range, pages_around, RECORD_PAGE};
use cotab_shared::watch::{duration_text, RecordAnswer, RecordAsk, WatchEvent, MAX_FRAMES};
use cotab_shared::TabId;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlSelectElement};

struct Viewer {
    document: Document,
    root: Element,
    sessions: Element,
    session: Element,
    title: Element,
    tab: HtmlSelectElement,
    outcome: HtmlSelectElement,
    range: Element,
    earlier: Element,
    later: Element,
    entries: Element,
    port: RefCell<Option<runtime::Port>>,
    /// The number of the latest ask; an answer to an older one of the
    /// same kind is dropped.
    next: Cell<u32>,
    list_ask: Cell<u32>,
    page_ask: Cell<u32>,
    clear_ask: Cell<u32>,
    /// The session shown and the first entry of its page.
    id: RefCell<Option<String>>,
    from: Cell<u32>,
}

/// Starts the viewer's page.
pub(crate) fn start(document: &Document) -> Result<(), JsValue> {
    let by_id = |id: &str| by_id(document, id);
    if let Some(body) = document.body() {
        body.set_attribute("class", "record")?;
    }
    document.set_title("cotab · activity record");
    let root = by_id("record")?;
    root.remove_attribute("hidden")?;
    let v = Rc::new(Viewer {
        document: document.clone(),
        sessions: by_id("record-sessions")?,
        session: by_id("record-session")?,
        title: by_id("record-title")?,
        tab: by_id("record-tab")?.dyn_into()?,
        outcome: by_id("record-outcome")?.dyn_into()?,
        range: by_id("record-range")?,
        earlier: by_id("record-earlier")?,
        later: by_id("record-later")?,
        entries: by_id("record-entries")?,
        root,
        port: RefCell::new(None),
        next: Cell::new(0),
        list_ask: Cell::new(0),
        page_ask: Cell::new(0),
        clear_ask: Cell::new(0),
        id: RefCell::new(None),
        from: Cell::new(0),
    });
    let on = |id: &str, event: &str, f: Box<dyn FnMut(web_sys::Event)>| -> Result<(), JsValue> {
        let f = Closure::<dyn FnMut(web_sys::Event)>::new(f);
        by_id(id)?.add_event_listener_with_callback(event, f.as_ref().unchecked_ref())?;
        // Page-lifetime listener: the element lives as long as the page.
        f.forget();
        Ok(())
    };
    on("record-sessions", "click", {
        let v = v.clone();
        Box::new(move |e: web_sys::Event| {
            let row = e
                .target()
                .and_then(|t| t.dyn_into::<Element>().ok())
                .and_then(|el| el.closest("button.open").ok().flatten())
                .and_then(|b| b.closest("tr[data-id]").ok().flatten());
            if let Some(id) = row.and_then(|r| r.get_attribute("data-id")) {
                v.id.replace(Some(id));
                v.from.set(0);
                v.tab.set_value("");
                v.outcome.set_value("");
                ask_page(&v);
            }
        })
    })?;
    for id in ["record-tab", "record-outcome"] {
        on(id, "change", {
            let v = v.clone();
            Box::new(move |_| {
                v.from.set(0);
                ask_page(&v);
            })
        })?;
    }
    for (id, later) in [("record-earlier", false), ("record-later", true)] {
        on(id, "click", {
            let v = v.clone();
            Box::new(move |_| {
                let total = v
                    .range
                    .get_attribute("data-total")
                    .and_then(|t| t.parse().ok())
                    .unwrap_or(0);
                let (before, after) = pages_around(v.from.get(), total);
                if let Some(from) = if later { after } else { before } {
                    v.from.set(from);
                    ask_page(&v);
                }
            })
        })?;
    }
    on("record-clear", "click", {
        let v = v.clone();
        Box::new(move |_| {
            let id = v.id.borrow().clone();
            if id.is_some() && confirm("Clear this session from the record?") {
                let n = send(
                    &v,
                    RecordAsk {
                        op: "clear".into(),
                        id,
                        ..RecordAsk::default()
                    },
                );
                v.clear_ask.set(n);
            }
        })
    })?;
    on("record-clear-all", "click", {
        let v = v.clone();
        Box::new(move |_| {
            if confirm("Clear every session from the record?") {
                let n = send(
                    &v,
                    RecordAsk {
                        op: "clear".into(),
                        ..RecordAsk::default()
                    },
                );
                v.clear_ask.set(n);
            }
        })
    })?;
    connect(&v)?;
    ask_list(&v);
    Ok(())
}

fn confirm(question: &str) -> bool {
    web_sys::window()
        .and_then(|w| w.confirm_with_message(question).ok())
        .unwrap_or(false)
}

fn state(v: &Viewer, state: &str, text: &str) {
    let _ = v.root.set_attribute("data-state", state);
    if let Some(status) = v.document.get_element_by_id("record-status") {
        status.set_text_content(Some(text));
    }
}

fn connect(v: &Rc<Viewer>) -> Result<(), JsValue> {
    let port = super::panel::open_watch_port(
        {
            let v = v.clone();
            move |event: WatchEvent| {
                if let Some(answer) = event.record {
                    if let Err(e) = answered(&v, answer) {
                        log::error(&format!("could not show the record: {}", error_message(&e)));
                    }
                }
            }
        },
        {
            let v = v.clone();
            move || {
                v.port.replace(None);
                let why = runtime::last_error_message().unwrap_or_default();
                state(
                    &v,
                    "error",
                    &format!("Not connected to cotab's host. {why} Reload to try again."),
                );
            }
        },
    )?;
    v.port.replace(Some(port));
    Ok(())
}

/// Sends `ask` with a fresh number; that number.
fn send(v: &Viewer, mut ask: RecordAsk) -> u32 {
    let n = v.next.get().wrapping_add(1);
    v.next.set(n);
    ask.ask = n;
    let sent = match (&*v.port.borrow(), to_js(&ask)) {
        (Some(port), Ok(message)) => port.post_message(&message),
        (None, _) => Err(JsValue::from_str("cotab's host is not connected")),
        (_, Err(e)) => Err(e),
    };
    if let Err(e) = sent {
        state(v, "error", &error_message(&e));
    }
    n
}

fn ask_list(v: &Viewer) {
    let n = send(
        v,
        RecordAsk {
            op: "list".into(),
            ..RecordAsk::default()
        },
    );
    v.list_ask.set(n);
}

fn ask_page(v: &Viewer) {
    let Some(id) = v.id.borrow().clone() else {
        return;
    };
    let tab = v.tab.value().parse::<i32>().ok().map(TabId);
    let outcome = Some(v.outcome.value()).filter(|o| !o.is_empty());
    let n = send(
        v,
        RecordAsk {
            op: "page".into(),
            id: Some(id),
            from: Some(v.from.get()),
            count: Some(RECORD_PAGE),
            tab,
            outcome,
            ..RecordAsk::default()
        },
    );
    v.page_ask.set(n);
    state(v, "loading", "Loading…");
}

fn answered(v: &Viewer, a: RecordAnswer) -> Result<(), JsValue> {
    if let Some(error) = &a.error {
        state(v, "error", error);
        return Ok(());
    }
    if a.ask == v.list_ask.get() {
        return sessions(v, &a);
    }
    if a.ask == v.page_ask.get() {
        return page(v, &a);
    }
    if a.ask == v.clear_ask.get() {
        // The sessions again; the one shown may be gone.
        v.id.replace(None);
        v.session.set_attribute("hidden", "")?;
        ask_list(v);
        return Ok(());
    }
    // Else the pictures of the page shown.
    {
        for (seq, jpeg) in &a.frames {
            let selector = format!("#record-entries li[data-seq=\"{seq}\"] .frame");
            if let Some(cell) = v.document.query_selector(&selector)? {
                let img = v.document.create_element("img")?;
                img.set_attribute("alt", "the tab after it")?;
                img.set_attribute("src", &format!("data:image/jpeg;base64,{jpeg}"))?;
                cell.append_child(&img)?;
            }
        }
    }
    Ok(())
}

fn sessions(v: &Viewer, a: &RecordAnswer) -> Result<(), JsValue> {
    let body = v
        .sessions
        .query_selector("tbody")?
        .ok_or("the sessions table has no body")?;
    body.set_text_content(None);
    let d = &v.document;
    for s in &a.sessions {
        let tr = d.create_element("tr")?;
        tr.set_attribute("data-id", &s.id)?;
        let tabs: Vec<String> = s.tabs.iter().map(|t| t.0.to_string()).collect();
        for text in [
            s.agent.clone(),
            local_time(s.started_ms),
            duration_text(s.last_ms.saturating_sub(s.started_ms)),
            s.requests.to_string(),
            s.failed.to_string(),
            tabs.join(", "),
        ] {
            let td = d.create_element("td")?;
            td.set_text_content(Some(&text));
            tr.append_child(&td)?;
        }
        let td = d.create_element("td")?;
        let open = d.create_element("button")?;
        open.set_attribute("type", "button")?;
        open.set_attribute("class", "open")?;
        open.set_text_content(Some("Open"));
        td.append_child(&open)?;
        tr.append_child(&td)?;
        body.append_child(&tr)?;
    }
    let n = a.sessions.len();
    let text = match n {
        0 => "No agent session is recorded.".to_owned(),
        1 => "1 session.".to_owned(),
        n => format!("{n} sessions."),
    };
    state(v, "ready", &text);
    Ok(())
}

fn page(v: &Viewer, a: &RecordAnswer) -> Result<(), JsValue> {
    let Some(id) = v.id.borrow().clone() else {
        return Ok(());
    };
    let d = &v.document;
    v.session.remove_attribute("hidden")?;
    v.session.set_attribute("data-id", &id)?;
    let agent = a
        .entries
        .iter()
        .find(|e| !e.by_person())
        .map(|e| e.agent.clone())
        .unwrap_or_default();
    v.title
        .set_text_content(Some(&format!("{agent} · session {id}")));
    // The tab filter: every tab of the session, keeping the choice.
    let chosen = v.tab.value();
    let options: Vec<String> = a.tabs.iter().map(|t| t.0.to_string()).collect();
    v.tab.set_text_content(None);
    for (value, text) in std::iter::once((String::new(), "All tabs".to_owned()))
        .chain(options.iter().map(|t| (t.clone(), format!("Tab {t}"))))
    {
        let o = d.create_element("option")?;
        o.set_attribute("value", &value)?;
        o.set_text_content(Some(&text));
        v.tab.append_child(&o)?;
    }
    v.tab.set_value(&chosen);
    let from = v.from.get();
    v.range
        .set_text_content(Some(&page_range(from, a.entries.len(), a.total)));
    v.range.set_attribute("data-from", &from.to_string())?;
    v.range.set_attribute("data-total", &a.total.to_string())?;
    let (before, after) = pages_around(from, a.total);
    toggle(&v.earlier, before.is_some())?;
    toggle(&v.later, after.is_some())?;
    v.entries.set_text_content(None);
    for e in &a.entries {
        let li = d.create_element("li")?;
        li.set_attribute("data-seq", &e.seq.to_string())?;
        li.set_attribute("data-outcome", e.outcome.as_deref().unwrap_or(""))?;
        if e.by_person() {
            li.set_attribute("class", "person")?;
        }
        let time = d.create_element("time")?;
        time.set_text_content(Some(&local_time(e.at_ms)));
        li.append_child(&time)?;
        let who = d.create_element("span")?;
        who.set_attribute("class", "who")?;
        who.set_text_content(Some(if e.by_person() { "you" } else { &e.agent }));
        li.append_child(&who)?;
        let what = d.create_element("span")?;
        what.set_attribute("class", "what")?;
        let tab = e.tab.map(|t| format!(" (tab {t})")).unwrap_or_default();
        let typed = e
            .typed
            .as_ref()
            .map(|t| format!(" “{t}”"))
            .unwrap_or_default();
        what.set_text_content(Some(&format!("{}{typed}{tab}", line(e))));
        li.append_child(&what)?;
        let frame = d.create_element("span")?;
        frame.set_attribute("class", "frame")?;
        li.append_child(&frame)?;
        v.entries.append_child(&li)?;
    }
    state(v, "ready", "");
    // The pictures of the page, a few per ask.
    for seqs in a.framed.chunks(MAX_FRAMES) {
        send(
            v,
            RecordAsk {
                op: "frames".into(),
                id: Some(id.clone()),
                seqs: seqs.to_vec(),
                ..RecordAsk::default()
            },
        );
    }
    Ok(())
}

fn toggle(button: &Element, enabled: bool) -> Result<(), JsValue> {
    if enabled {
        button.remove_attribute("disabled")
    } else {
        button.set_attribute("disabled", "")
    }
}

/// `at_ms` in the person's local time, `YYYY-MM-DD HH:MM:SS`.
fn local_time(at_ms: u64) -> String {
    // Milliseconds since the epoch fit a double exactly for ages to come.
    let date = js_sys::Date::new(&JsValue::from_f64(at_ms as f64));
    format!(
        "{}-{:02}-{:02} {:02}:{:02}:{:02}",
        date.get_full_year(),
        date.get_month() + 1,
        date.get_date(),
        date.get_hours(),
        date.get_minutes(),
        date.get_seconds()
    )
}
