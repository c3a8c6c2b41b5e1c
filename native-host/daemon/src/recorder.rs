//! Writes the activity record ([`cotab_local::record`]) on a thread of its
//! own, so no agent's answer waits for a disk: the feed hands it each
//! request as it ends, and what the person did meanwhile, and goes on.
//!
//! Each agent session of this daemon run has one file, named
//! `{run}-{pid}-{session}` (the run's start in ms, the daemon's pid, the
//! session's number), made at its first entry. What the person did goes
//! to every session that has a file and is still known to the core. At
//! most sixteen files are held open (the least recently written is
//! closed). The record is pruned to its [`Limits`] at start, every
//! ten minutes and after every twentieth of its size written. A write
//! that fails (a full disk) loses that entry, is logged once until one
//! succeeds again, and never stops the daemon.

use crate::session::SessionId;
use cotab_local::record::{self, Filter, Frame, Header, Limits, Record, RecordError, Writer};
use cotab_shared::watch::ActivityEntry;
use cotab_shared::watch::{RecordAnswer, RecordAsk, MAX_FRAMES, MAX_PAGE};
use std::collections::{HashMap, HashSet};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

/// Files held open at once.
const OPEN: usize = 16;
/// How often the record is pruned while entries come.
const PRUNE_EVERY: Duration = Duration::from_secs(600);

enum Msg {
    /// An agent's request ended.
    Entry {
        sid: SessionId,
        agent: String,
        entry: ActivityEntry,
    },
    /// A picture of the tab after a request of `sid`.
    Frame { sid: SessionId, frame: Frame },
    /// The person did something, seen by these sessions.
    Person {
        sids: Vec<SessionId>,
        entry: ActivityEntry,
    },
    /// Answer once everything sent before is written (tests).
    #[cfg(test)]
    Flush(mpsc::Sender<()>),
}

/// The record's writer thread; dropping it writes what is queued and
/// joins the thread.
#[derive(Debug)]
pub struct Recorder {
    tx: Option<mpsc::Sender<Msg>>,
    thread: Option<std::thread::JoinHandle<()>>,
    run: String,
    record: Record,
}

impl std::fmt::Debug for Msg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Msg")
    }
}

impl Recorder {
    /// Starts writing `record`, bounded by `limits`; `None` when `limits`
    /// keep no record (`max_bytes` 0) or the thread cannot start.
    pub fn start(record: Record, limits: Limits) -> Option<Recorder> {
        if limits.max_bytes == 0 {
            tracing::info!("the activity record is turned off (maxMegabytes 0)");
            return None;
        }
        let run = format!("{}-{}", record::now_ms(), std::process::id());
        let (tx, rx) = mpsc::channel();
        let mut state = State {
            record: record.clone(),
            limits,
            run: run.clone(),
            open: HashMap::new(),
            known: HashSet::new(),
            clock: 0,
            written: 0,
            pruned: Instant::now(),
            failing: false,
        };
        let thread = std::thread::Builder::new()
            .name("cotab-record".into())
            .spawn(move || state.serve(&rx))
            .map_err(|e| tracing::warn!(error = %e, "no activity record: its thread did not start"))
            .ok()?;
        Some(Recorder {
            tx: Some(tx),
            thread: Some(thread),
            run,
            record,
        })
    }

    /// The record it writes.
    pub fn record(&self) -> &Record {
        &self.record
    }

    /// The record's id of session `sid` of this run.
    pub fn id_of(&self, sid: SessionId) -> String {
        format!("{}-{}", self.run, sid.0)
    }

    fn send(&self, msg: Msg) {
        if let Some(tx) = &self.tx {
            // The thread ended (it panicked): nothing more is recorded.
            let _ = tx.send(msg);
        }
    }

    /// `entry`, a request of session `sid` (agent `agent`) that ended.
    pub fn entry(&self, sid: SessionId, agent: &str, entry: ActivityEntry) {
        self.send(Msg::Entry {
            sid,
            agent: agent.to_owned(),
            entry,
        });
    }

    /// `jpeg` (base64), the tab after request `seq` of session `sid`;
    /// kept only when that session has a file.
    pub fn frame(&self, sid: SessionId, seq: u64, jpeg: String) {
        self.send(Msg::Frame {
            sid,
            frame: Frame {
                frame_of: seq,
                jpeg,
            },
        });
    }

    /// `entry`, something the person did, for each of `sids` that has
    /// a file.
    pub fn person(&self, sids: Vec<SessionId>, entry: ActivityEntry) {
        if !sids.is_empty() {
            self.send(Msg::Person { sids, entry });
        }
    }

    /// Waits until everything sent before is written.
    #[cfg(test)]
    pub fn flush(&self) {
        let (tx, rx) = mpsc::channel();
        self.send(Msg::Flush(tx));
        let _ = rx.recv_timeout(Duration::from_secs(10));
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        drop(self.tx.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// One line of a session's file.
#[derive(Clone, Copy)]
enum Line<'a> {
    Entry(&'a ActivityEntry),
    Frame(&'a Frame),
}

/// Base64 of pictures in one answer to the viewer, at most: the native
/// link carries a megabyte.
const FRAMES_BUDGET: usize = 768 << 10;

/// The answer to a watching page's `ask` of `record` (reads files: run it
/// off the daemon's thread).
pub fn answer(record: &Record, ask: &RecordAsk) -> RecordAnswer {
    let mut out = RecordAnswer {
        ask: ask.ask,
        ..RecordAnswer::default()
    };
    let id = || {
        ask.id
            .clone()
            .ok_or_else(|| RecordError::BadId(String::new()))
    };
    let done: Result<(), RecordError> = (|| {
        match ask.op.as_str() {
            "list" => out.sessions = record.list()?,
            "page" => {
                let filter = Filter {
                    tab: ask.tab,
                    ok: match ask.outcome.as_deref() {
                        None | Some("") => None,
                        Some("ok") => Some(true),
                        Some(_) => Some(false),
                    },
                };
                let count = ask.count.unwrap_or(50).min(MAX_PAGE) as usize;
                let from = ask.from.unwrap_or(0) as usize;
                let page = record.page(&id()?, &filter, from, count)?;
                out.total = u32::try_from(page.total).unwrap_or(u32::MAX);
                out.entries = page.entries;
                out.tabs = page.tabs;
                out.framed = page.framed;
            }
            "frames" => {
                let seqs: Vec<u64> = ask.seqs.iter().copied().take(MAX_FRAMES).collect();
                out.frames = record.frames(&id()?, &seqs, FRAMES_BUDGET)?;
            }
            "clear" => {
                let n = match &ask.id {
                    Some(id) => record.clear(id).map(|()| 1)?,
                    None => record.clear_all()?,
                };
                out.cleared = u32::try_from(n).unwrap_or(u32::MAX);
            }
            other => {
                out.error = Some(format!(
                    "unknown op {:?}: list, page, frames or clear",
                    other.chars().take(32).collect::<String>()
                ));
            }
        }
        Ok(())
    })();
    if let Err(e) = done {
        out.error = Some(e.to_string());
    }
    out
}

struct State {
    record: Record,
    limits: Limits,
    run: String,
    /// Open files by id, with when each was last written (by `clock`).
    open: HashMap<String, (Writer, u64)>,
    /// Ids of this run's sessions that have a file.
    known: HashSet<String>,
    clock: u64,
    /// Bytes written since the last prune.
    written: u64,
    pruned: Instant,
    /// The last write failed (logged once).
    failing: bool,
}

impl State {
    fn serve(&mut self, rx: &mpsc::Receiver<Msg>) {
        self.prune();
        loop {
            match rx.recv_timeout(PRUNE_EVERY) {
                Ok(Msg::Entry { sid, agent, entry }) => {
                    let id = format!("{}-{}", self.run, sid.0);
                    self.write(&id, Some(&agent), Line::Entry(&entry));
                }
                Ok(Msg::Frame { sid, frame }) => {
                    let id = format!("{}-{}", self.run, sid.0);
                    if self.known.contains(&id) {
                        self.write(&id, None, Line::Frame(&frame));
                    }
                }
                Ok(Msg::Person { sids, entry }) => {
                    for sid in sids {
                        let id = format!("{}-{}", self.run, sid.0);
                        if self.known.contains(&id) {
                            self.write(&id, None, Line::Entry(&entry));
                        }
                    }
                }
                #[cfg(test)]
                Ok(Msg::Flush(done)) => {
                    let _ = done.send(());
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            }
            let due =
                self.written > self.limits.max_bytes / 20 || self.pruned.elapsed() >= PRUNE_EVERY;
            if due {
                self.prune();
            }
        }
    }

    fn prune(&mut self) {
        self.pruned = Instant::now();
        self.written = 0;
        let keep: Vec<&str> = self.open.keys().map(String::as_str).collect();
        match self.record.prune(&self.limits, SystemTime::now(), &keep) {
            Ok(0) => {}
            Ok(n) => tracing::info!(sessions = n, "pruned the activity record"),
            Err(e) => tracing::warn!(error = %e, "could not prune the activity record"),
        }
    }

    /// The open file of `id`: kept open, else opened again, else (never
    /// made, or the person cleared it) made, with `agent` in its header.
    fn writer(&mut self, id: &str, agent: Option<&str>) -> Result<&mut Writer, RecordError> {
        if self.open.get(id).is_some_and(|(w, _)| w.is_gone()) {
            self.open.remove(id);
            self.known.remove(id);
        }
        if !self.open.contains_key(id) {
            if self.open.len() >= OPEN {
                let oldest = self
                    .open
                    .iter()
                    .min_by_key(|(_, (_, at))| *at)
                    .map(|(k, _)| k.clone());
                if let Some(k) = oldest {
                    self.open.remove(&k);
                }
            }
            let opened = match Writer::open(&self.record, id) {
                Ok(w) => w,
                Err(RecordError::NotFound(_)) => {
                    let Some(agent) = agent else {
                        return Err(RecordError::NotFound(id.to_owned()));
                    };
                    let header = Header {
                        format: record::FORMAT,
                        id: id.to_owned(),
                        agent: agent.to_owned(),
                        started_ms: record::now_ms(),
                    };
                    Writer::create(&self.record, &header)?
                }
                Err(e) => return Err(e),
            };
            self.known.insert(id.to_owned());
            self.open.insert(id.to_owned(), (opened, 0));
        }
        self.clock += 1;
        let clock = self.clock;
        let (w, at) = self.open.get_mut(id).expect("just opened");
        *at = clock;
        Ok(w)
    }

    fn write(&mut self, id: &str, agent: Option<&str>, line: Line<'_>) {
        let written = self.writer(id, agent).and_then(|w| {
            match line {
                Line::Entry(e) => w.append(e),
                Line::Frame(f) => w.append_frame(f),
            }
            .map_err(|source| RecordError::Io {
                path: std::path::PathBuf::from(format!("{id}.{}", record::EXT)),
                source,
            })
        });
        match written {
            Ok(n) => {
                self.written += n;
                if self.failing {
                    tracing::info!("the activity record is written again");
                }
                self.failing = false;
            }
            // A person's entry for a session whose file went.
            Err(RecordError::NotFound(_)) => {}
            Err(e) => {
                if !self.failing {
                    tracing::warn!(error = %e, "an activity entry was not recorded");
                }
                self.failing = true;
            }
        }
    }
}

#[cfg(test)]
mod tests;
