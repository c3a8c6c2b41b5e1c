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
use cotab_local::record::{self, Header, Limits, Record, RecordError, Writer};
use cotab_shared::watch::ActivityEntry;
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
            record,
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
        })
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
                    self.write(&id, Some(&agent), &entry);
                }
                Ok(Msg::Person { sids, entry }) => {
                    for sid in sids {
                        let id = format!("{}-{}", self.run, sid.0);
                        if self.known.contains(&id) {
                            self.write(&id, None, &entry);
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

    fn write(&mut self, id: &str, agent: Option<&str>, entry: &ActivityEntry) {
        let written = self.writer(id, agent).and_then(|w| {
            w.append(entry).map_err(|source| RecordError::Io {
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
