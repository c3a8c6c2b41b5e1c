//! What the worker keeps between events: the [`Worker`] every other module
//! of the worker reads and changes, what it saves to `chrome.storage`
//! ([`Saved`]), the open native port's handle, the WebSocket's and why the
//! worker started
//! ([`Start`]). Data only, and the one write of it (`persist`, which
//! `persist_changes` skips when it would write what is there): the
//! decisions are [`Machine`]'s, and the modules above this one run them.

use crate::chrome::runtime::Port;
use crate::chrome::socket::Socket;
use crate::chrome::{error_message, storage};
use crate::held::StoredEntry;
use crate::log;
use crate::machine::Machine;
use crate::state::{Gate, Persisted};
use cotab_shared::LaneId;
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

/// Everything the worker keeps between events. One per worker lifetime;
/// a worker restart starts from `chrome.storage` again.
pub(crate) struct Worker {
    /// What the worker knows and decides ([`Machine`]). Never borrowed
    /// across an `.await`.
    pub(super) state: RefCell<Machine>,
    /// The open native port and its listeners, if any.
    pub(super) port: RefCell<Option<PortHandle>>,
    /// Counts connection attempts, so a stale port's events are ignored.
    pub(super) generation: Cell<u64>,
    /// The lane id, once read from `chrome.storage.local`.
    pub(super) lane: RefCell<Option<LaneId>>,
    /// Opens once the shared set is restored; requests wait for it.
    pub(super) restored: Gate,
    /// Counts shared-list sends, so only the newest list is sent.
    pub(super) shared_seq: Cell<u64>,
    /// Why the worker started, once the browser said.
    pub(super) start: Start,
    /// The WebSocket that carries the lane, or is being opened to, if any.
    pub(super) socket: RefCell<Option<SocketHandle>>,
    /// Counts WebSockets opened, so a stale one's events are ignored.
    pub(super) socket_ids: Cell<u64>,
    /// Until when (`performance.now()`) offers of a WebSocket are declined
    /// after one failed.
    pub(super) socket_declined_until: Cell<f64>,
    /// The toolbar badges last set, per shared tab.
    pub(super) badges: RefCell<Vec<(cotab_shared::TabId, crate::badge::Badge)>>,
    /// What the last write to storage held ([`Worker::persist`]).
    pub(super) written: RefCell<Option<Saved>>,
    /// Requests the browser paused for the daemon (`Fetch.requestPaused`)
    /// that it has not answered yet, by tab: failed before the pausing
    /// ends without it ([`super::held_input::refuse_paused`]), which
    /// would let them go on unjudged (a download the person was asked
    /// about saved). The newest [`PAUSED_KEPT`] only.
    pub(super) paused: RefCell<Vec<(cotab_shared::TabId, String)>>,
    /// What the rules holding the tabs held tabs' pages open are written
    /// from ([`super::opened`]).
    pub(super) opened: RefCell<crate::opened::OpenedHolds>,
    /// Whether those rules are being written, and whether to write them
    /// again after.
    pub(super) opened_writing: Cell<bool>,
    pub(super) opened_again: Cell<bool>,
    /// Opens when the rules being written are in place.
    pub(super) opened_written: RefCell<Gate>,
}

/// How many unanswered paused requests the worker remembers.
const PAUSED_KEPT: usize = 32;

/// What the worker saves, in one write per storage area: the shared set
/// and human-control flags ([`Persisted`]) and the held-input ledger.
/// `chrome.storage.session` survives worker restarts;
/// `chrome.storage.local` also survives a reload of the extension.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Saved {
    /// [`Persisted::shared_tabs`].
    #[serde(default)]
    pub(super) shared_tabs: Vec<i32>,
    /// [`Persisted::human_control`].
    #[serde(default)]
    pub(super) human_control: Vec<i32>,
    /// The held-input ledger's presses. (Stored under a key of its
    /// own: one of another shape, left by an older version, is not
    /// read, so it cannot cost the shared set.)
    #[serde(default)]
    pub(super) held_presses: Vec<StoredEntry>,
}

/// The `chrome.storage.session` key of [`Worker::paused`], saved on its
/// own (each as `<tab> <request id>`): a worker that starts again fails
/// them before it lets the tabs' pausing go (nothing judged them, and
/// what waited for the person's yes would go on unasked). Not in
/// `chrome.storage.local`: after a reload of the extension its debugger
/// sessions, and what they paused, are new.
const PAUSED_KEY: &str = "pausedRequests";

impl Saved {
    /// The storage keys [`Saved`] reads and writes.
    pub(super) const KEYS: [&'static str; 3] = ["sharedTabs", "humanControl", "heldPresses"];

    pub(super) fn is_empty(&self) -> bool {
        self.shared_tabs.is_empty() && self.held_presses.is_empty()
    }
}

impl Worker {
    /// A worker that knows nothing yet.
    pub(super) fn new() -> Self {
        Worker {
            state: RefCell::new(Machine::default()),
            port: RefCell::new(None),
            generation: Cell::new(0),
            lane: RefCell::new(None),
            restored: Gate::default(),
            shared_seq: Cell::new(0),
            start: Start::default(),
            socket: RefCell::new(None),
            socket_ids: Cell::new(0),
            socket_declined_until: Cell::new(f64::NEG_INFINITY),
            badges: RefCell::new(Vec::new()),
            written: RefCell::new(None),
            paused: RefCell::new(Vec::new()),
            opened: RefCell::default(),
            opened_writing: Cell::new(false),
            opened_again: Cell::new(false),
            opened_written: RefCell::new(open_gate()),
        }
    }

    /// The shared set, its human-control flags and the held-input ledger
    /// as saved.
    pub(super) fn saved(&self) -> Saved {
        let Persisted {
            shared_tabs,
            human_control,
        } = self.state.borrow().shared.persisted();
        Saved {
            shared_tabs,
            human_control,
            held_presses: self.state.borrow().held.to_stored(),
        }
    }

    /// Notes request `id` the browser paused in `tab` for the daemon
    /// (the newest [`PAUSED_KEPT`] are kept), and saves the list.
    pub(super) fn note_paused(&self, tab: cotab_shared::TabId, id: &str) {
        {
            let mut paused = self.paused.borrow_mut();
            if paused.len() == PAUSED_KEPT {
                paused.remove(0);
            }
            paused.push((tab, id.to_owned()));
        }
        self.save_paused();
    }

    /// Forgets the paused requests `keep` says no to, and saves the list
    /// if it changed.
    pub(super) fn forget_paused(&self, keep: impl FnMut(&(cotab_shared::TabId, String)) -> bool) {
        let changed = {
            let mut paused = self.paused.borrow_mut();
            let before = paused.len();
            paused.retain(keep);
            paused.len() != before
        };
        if changed {
            self.save_paused();
        }
    }

    /// Writes [`Worker::paused`] to `chrome.storage.session`, in call
    /// order.
    fn save_paused(&self) {
        let list = self
            .paused
            .borrow()
            .iter()
            .map(|(t, id)| format!("{} {id}", t.0))
            .collect();
        save_list(PAUSED_KEY, list);
    }

    /// The paused requests an earlier worker saved.
    pub(super) async fn load_paused(&self) {
        let list = load_list(PAUSED_KEY).await;
        let paused = list
            .iter()
            .filter_map(|(tab, id)| Some((cotab_shared::TabId(tab.parse().ok()?), id.to_owned())));
        *self.paused.borrow_mut() = paused.collect();
    }

    /// Writes [`Worker::saved`] to `chrome.storage.session` and
    /// `chrome.storage.local`. The snapshot is taken now and written in call
    /// order, so a later write always holds the later state.
    pub(super) fn persist(&self) {
        let saved = self.saved();
        *self.written.borrow_mut() = Some(saved.clone());
        spawn_local(async move {
            let write = |area: Result<storage::StorageArea, wasm_bindgen::JsValue>| {
                let saved = &saved;
                async move {
                    match area {
                        Ok(area) => area.set_items(saved).await,
                        Err(e) => Err(e),
                    }
                }
            };
            // Both writes are issued in this first poll, so each area sees
            // the writes in call order.
            let (session, local) =
                futures_util::future::join(write(storage::session()), write(storage::local()))
                    .await;
            for (name, result) in [("session", session), ("local", local)] {
                if let Err(e) = result {
                    log::warn(&format!(
                        "could not save the shared tabs ({name}): {}",
                        error_message(&e)
                    ));
                }
            }
        });
    }

    /// [`Worker::persist`], unless the last write already holds what it
    /// would write.
    pub(super) fn persist_changes(&self) {
        if self.written.borrow().as_ref() != Some(&self.saved()) {
            self.persist();
        }
    }
}

/// An open port with the listeners that belong to it. Dropping it releases
/// the listeners; the port itself is already closed by then.
pub(crate) struct PortHandle {
    pub(super) port: Port,
    pub(super) generation: u64,
    /// Where the port's news go.
    pub(super) inbox: &'static Inbox,
    pub(super) _on_message: Closure<dyn FnMut(JsValue)>,
    pub(super) _on_disconnect: Closure<dyn FnMut(JsValue)>,
}

/// How far a WebSocket is in taking the lane over from the native port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SocketPhase {
    /// Connecting; the native port carries everything.
    Opening,
    /// Open, `socketOpen` sent on the native port: what the worker sends is
    /// held, and so is what arrives on the socket, until the daemon's
    /// `socketSwitched`.
    Switching,
    /// The socket carries the lane's messages both ways.
    Live,
}

/// A WebSocket with the listeners that belong to it, for the open native
/// port (it is closed with the port).
pub(crate) struct SocketHandle {
    pub(super) socket: Socket,
    pub(super) id: u64,
    pub(super) phase: SocketPhase,
    /// What the worker sent while switching (JSON text), in order.
    pub(super) outbox: Vec<JsValue>,
    /// What arrived on the socket while switching (JSON text), in order.
    pub(super) held: Vec<JsValue>,
    pub(super) _listeners: [Closure<dyn FnMut(JsValue)>; 3],
}

/// What the native port's news lead to, decided by [`super::link`].
pub(super) struct Inbox {
    /// A message from the host, as it came off the port.
    pub(super) message: fn(&Rc<Worker>, JsValue),
    /// The port dropped, for this reason. The old port's listeners may be
    /// running right now (this is called from its `onDisconnect`): its
    /// handle is to be dropped in a later task.
    pub(super) dropped: fn(Rc<Worker>, String, Option<PortHandle>),
}

/// How long a fresh start waits for the browser to say why it started the
/// worker, in milliseconds. The whole window is waited out unless the
/// browser says it started: `onStartup` may follow `onInstalled`.
const START_REASON_WAIT_MS: u32 = 3_000;

/// Why the extension's worker runs, as far as the browser said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StartReason {
    /// Nothing said yet (or only woken again).
    Unknown,
    /// `onInstalled` with reason `update`: the extension was updated or
    /// reloaded while the browser ran; tab ids are still valid.
    Reloaded,
    /// The browser profile started, or the extension was installed or the
    /// browser updated: tab ids from before mean nothing.
    Fresh,
}

/// What the browser told the worker about its start.
#[derive(Default)]
pub(crate) struct Start {
    reason: Cell<Option<StartReason>>,
    fresh: Gate,
}

impl Start {
    /// Notes what the browser said; a fresh start wins over a reload (an
    /// update applied as the browser starts fires both).
    pub(super) fn tell(&self, reason: StartReason) {
        if self.reason.get() != Some(StartReason::Fresh) {
            self.reason.set(Some(reason));
        }
        if reason == StartReason::Fresh {
            self.fresh.open();
        }
    }

    /// Waits out [`START_REASON_WAIT_MS`] (or until the browser says it
    /// started) and says why the worker runs.
    pub(crate) async fn reason(&self) -> StartReason {
        let fresh = std::pin::pin!(self.fresh.wait());
        let timer = std::pin::pin!(gloo_timers::future::TimeoutFuture::new(
            START_REASON_WAIT_MS
        ));
        futures_util::future::select(fresh, timer).await;
        self.reason.get().unwrap_or(StartReason::Unknown)
    }
}

/// A gate already open.
pub(super) fn open_gate() -> Gate {
    let gate = Gate::default();
    gate.open();
    gate
}

/// Writes `list` under `key` in `chrome.storage.session`, in call order.
pub(super) fn save_list(key: &'static str, list: Vec<String>) {
    spawn_local(async move {
        let written = match storage::session() {
            Ok(area) => area.set_key(key, &list).await,
            Err(e) => Err(e),
        };
        if let Err(e) = written {
            log::warn(&format!("could not save {key}: {}", error_message(&e)));
        }
    });
}

/// What [`save_list`] wrote under `key`, each entry split at its first
/// space (`<tab> <what>`); none when nothing was or it cannot be read.
pub(super) async fn load_list(key: &str) -> Vec<(String, String)> {
    let stored = match storage::session() {
        Ok(area) => area.get_key(key).await,
        Err(e) => Err(e),
    };
    let list: Vec<String> = stored
        .ok()
        .filter(|v| !v.is_undefined())
        .and_then(|v| crate::chrome::from_js(v).ok())
        .unwrap_or_default();
    list.iter()
        .filter_map(|p| {
            let (tab, what) = p.split_once(' ')?;
            Some((tab.to_owned(), what.to_owned()))
        })
        .collect()
}
