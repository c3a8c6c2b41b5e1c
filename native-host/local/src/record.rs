//! The activity record: what each agent session did, kept for the person
//! under the daemon's private state directory — one file per session,
//! `activity/<id>.jsonl`, its first line a [`Header`] and then one
//! [`ActivityEntry`] per line as each request ended (and what the person
//! did meanwhile: takeovers, shares), and a small JPEG of the tab after
//! an agent's request as a line of its own ([`Frame`]).
//!
//! One line is written with one `write` to a file opened for appending,
//! so a daemon that dies mid-write leaves at most that line torn; a
//! reader skips a line it cannot read and counts it ([`Session::skipped`]),
//! and a writer whose last write failed (a full disk) starts its next line
//! on a line of its own ([`Writer::append`]). Files are opened without
//! following links, the directory is 0700 and the files 0600.
//!
//! The record is bounded by [`Limits`] (oldest sessions out first). It
//! holds what the watch holds — never typed text, a file's path, a script
//! or raw CDP params (`docs/security.md`) — and is read by `cotab activity`
//! and exported as one self-contained HTML page ([`export`]).

use crate::runtime::check_runtime_dir;
use cotab_shared::watch::ActivityEntry;
use cotab_shared::TabId;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead as _, BufReader, Write as _};
use std::os::unix::fs::{
    DirBuilderExt as _, MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _,
};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

mod html;
pub use html::export;

/// The record's directory in the state directory.
pub const DIR: &str = "activity";
/// The extension of a session's file.
pub const EXT: &str = "jsonl";
/// The format of a session's file, in its header.
pub const FORMAT: u32 = 1;
/// Longest session id.
const MAX_ID: usize = 64;

/// How much is kept: the oldest sessions go first past either bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// All sessions' files together, in bytes; 0 keeps no record.
    pub max_bytes: u64,
    /// A session whose file was last written longer ago goes.
    pub max_age: Duration,
}

impl Default for Limits {
    /// 200 MiB and 7 days.
    fn default() -> Self {
        Limits {
            max_bytes: 200 << 20,
            max_age: Duration::from_secs(7 * 24 * 3600),
        }
    }
}

/// A picture of the tab after the entry `frame_of`, one line of its own:
/// `{"frameOf":SEQ,"jpeg":"BASE64"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Frame {
    /// The entry it follows ([`ActivityEntry::seq`]).
    pub frame_of: u64,
    /// The JPEG, base64.
    pub jpeg: String,
}

/// How a frame's line begins: told apart from an entry's without reading
/// the whole line.
const FRAME_LINE: &[u8] = b"{\"frameOf\":";

/// Whether `b64` is base64 text of a JPEG: only base64's characters (so
/// it is safe inside an HTML attribute) and a JPEG's first bytes.
fn is_jpeg_base64(b64: &str) -> bool {
    b64.starts_with("/9j/")
        && b64
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
}

/// A session file's first line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    /// [`FORMAT`].
    pub format: u32,
    /// The session's id in the record.
    pub id: String,
    /// The agent, as it named itself.
    pub agent: String,
    /// When the session began, in milliseconds since the Unix epoch.
    pub started_ms: u64,
}

/// One session as `cotab activity list` and the viewer show it.
pub use cotab_shared::watch::SessionSummary as Summary;

/// One session's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// Its header.
    pub header: Header,
    /// Its entries, in the order they ended.
    pub entries: Vec<ActivityEntry>,
    /// Pictures of the tab after entries, by the entry's `seq` (empty
    /// when read without them).
    pub frames: std::collections::BTreeMap<u64, String>,
    /// How many pictures the file holds.
    pub frame_count: usize,
    /// Lines that could not be read (a write cut short).
    pub skipped: usize,
}

impl Session {
    /// The session in a line of `cotab activity list`.
    pub fn summary(&self, bytes: u64) -> Summary {
        let mut tabs: Vec<TabId> = Vec::new();
        for tab in self.entries.iter().filter_map(|e| e.tab) {
            if !tabs.contains(&tab) {
                tabs.push(tab);
            }
        }
        let agents = || self.entries.iter().filter(|e| !e.by_person());
        let last_ms = self
            .entries
            .iter()
            .map(|e| e.at_ms.saturating_add(e.ms.unwrap_or(0)))
            .max()
            .unwrap_or(self.header.started_ms)
            .max(self.header.started_ms);
        Summary {
            id: self.header.id.clone(),
            agent: self.header.agent.clone(),
            started_ms: self.header.started_ms,
            last_ms,
            requests: agents().count(),
            failed: agents()
                .filter(|e| e.outcome.as_deref() != Some("ok"))
                .count(),
            by_person: self.entries.iter().filter(|e| e.by_person()).count(),
            tabs,
            skipped: self.skipped,
            frames: self.frame_count,
            bytes,
        }
    }
}

/// What went wrong with the record.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// Not an id a session could have.
    #[error("{0:?} is not a session id (digits and dashes, as `cotab activity list` shows them)")]
    BadId(String),
    /// No session of that id is kept.
    #[error("no session {0} in the activity record (`cotab activity list` shows those kept)")]
    NotFound(String),
    /// The session's file is not a record (its header cannot be read).
    #[error("session {id} cannot be read: {why}")]
    Damaged {
        /// The session.
        id: String,
        /// What is wrong.
        why: String,
    },
    /// The directory or a file could not be read or written.
    #[error("the activity record at {path}: {source}")]
    Io {
        /// Where.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> RecordError + '_ {
    move |source| RecordError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Whether `id` could be a session's: 1–64 digits and dashes, starting
/// with a digit (so never a path, a dot or an option).
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID
        && id.starts_with(|c: char| c.is_ascii_digit())
        && id.bytes().all(|b| b.is_ascii_digit() || b == b'-')
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `ms` since the epoch as `YYYY-MM-DD HH:MM:SS` in UTC.
pub fn utc(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's days-to-civil, for days since 1970-01-01.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// The record in a state directory.
#[derive(Debug, Clone)]
pub struct Record {
    dir: PathBuf,
}

impl Record {
    /// The record under `state_dir` (which need not hold one yet).
    pub fn in_state_dir(state_dir: &Path) -> Self {
        Record {
            dir: state_dir.join(DIR),
        }
    }

    /// Its directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Makes the directory (0700) unless it exists, then checks it is this
    /// user's and no one else's.
    pub fn prepare(&self) -> Result<(), RecordError> {
        let at = io_at(&self.dir);
        if std::fs::symlink_metadata(&self.dir).is_err() {
            std::fs::DirBuilder::new()
                .mode(0o700)
                .create(&self.dir)
                .map_err(at)?;
            // The mode above went through the umask.
            std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o700))
                .map_err(io_at(&self.dir))?;
        }
        check_runtime_dir(&self.dir, nix::unistd::getuid().as_raw()).map_err(|e| RecordError::Io {
            path: self.dir.clone(),
            source: io::Error::new(io::ErrorKind::PermissionDenied, e.to_string()),
        })
    }

    fn path(&self, id: &str) -> Result<PathBuf, RecordError> {
        if !valid_id(id) {
            return Err(RecordError::BadId(id.to_owned()));
        }
        Ok(self.dir.join(format!("{id}.{EXT}")))
    }

    /// The ids of the sessions kept, with their files' size and last
    /// write; none when there is no record yet.
    fn files(&self) -> Result<Vec<(String, u64, SystemTime)>, RecordError> {
        let read = match std::fs::read_dir(&self.dir) {
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_at(&self.dir)(e)),
        };
        let mut files = Vec::new();
        for item in read {
            let item = item.map_err(io_at(&self.dir))?;
            let name = item.file_name();
            let Some(id) = name
                .to_str()
                .and_then(|n| n.strip_suffix(EXT))
                .and_then(|n| n.strip_suffix('.'))
            else {
                continue;
            };
            let Ok(meta) = item.metadata() else {
                continue;
            };
            if valid_id(id) && meta.is_file() {
                let at = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                files.push((id.to_owned(), meta.len(), at));
            }
        }
        Ok(files)
    }

    /// Every session kept, the latest first. A file that is not a record
    /// is left out.
    pub fn list(&self) -> Result<Vec<Summary>, RecordError> {
        let mut out = Vec::new();
        for (id, bytes, _) in self.files()? {
            match self.read_with(&id, false) {
                Ok(session) => out.push(session.summary(bytes)),
                // Cleared or pruned since the directory was read.
                Err(RecordError::NotFound(_) | RecordError::Damaged { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        out.sort_by(|a, b| (b.started_ms, &b.id).cmp(&(a.started_ms, &a.id)));
        Ok(out)
    }

    /// Session `id`'s file, opened to read without following a link.
    fn open(&self, id: &str) -> Result<(PathBuf, File), RecordError> {
        let path = self.path(id)?;
        match OpenOptions::new()
            .read(true)
            .custom_flags(nix::libc::O_NOFOLLOW)
            .open(&path)
        {
            Ok(f) => Ok((path, f)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                Err(RecordError::NotFound(id.to_owned()))
            }
            Err(e) => Err(io_at(&path)(e)),
        }
    }

    /// The session `id`, with its pictures.
    pub fn read(&self, id: &str) -> Result<Session, RecordError> {
        self.read_with(id, true)
    }

    /// The session `id`; its pictures only counted unless `frames`.
    pub fn read_with(&self, id: &str, frames: bool) -> Result<Session, RecordError> {
        let (path, file) = self.open(id)?;
        let mut lines = BufReader::new(file).split(b'\n');
        let damaged = |why: &str| RecordError::Damaged {
            id: id.to_owned(),
            why: why.to_owned(),
        };
        let first = match lines.next() {
            Some(line) => line.map_err(io_at(&path))?,
            None => return Err(damaged("the file is empty")),
        };
        let header: Header = serde_json::from_slice(&first)
            .map_err(|_| damaged("its first line is not a session's header"))?;
        if header.format != FORMAT || header.id != id {
            return Err(damaged("its header is of another format or session"));
        }
        let mut session = Session {
            header,
            entries: Vec::new(),
            frames: std::collections::BTreeMap::new(),
            frame_count: 0,
            skipped: 0,
        };
        for line in lines {
            let line = line.map_err(io_at(&path))?;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if line.starts_with(FRAME_LINE) {
                if !frames {
                    // Counted without decoding its picture: a whole line
                    // ends its picture's string and its object; one a
                    // write cut short does not.
                    if line.trim_ascii_end().ends_with(b"\"}") {
                        session.frame_count += 1;
                    } else {
                        session.skipped += 1;
                    }
                    continue;
                }
                match serde_json::from_slice::<Frame>(&line) {
                    Ok(f) if is_jpeg_base64(&f.jpeg) => {
                        session.frame_count += 1;
                        session.frames.insert(f.frame_of, f.jpeg);
                    }
                    _ => session.skipped += 1,
                }
                continue;
            }
            match serde_json::from_slice::<ActivityEntry>(&line) {
                Ok(e) => session.entries.push(e),
                Err(_) => session.skipped += 1,
            }
        }
        Ok(session)
    }

    /// Removes the session `id`.
    pub fn clear(&self, id: &str) -> Result<(), RecordError> {
        let path = self.path(id)?;
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                Err(RecordError::NotFound(id.to_owned()))
            }
            Err(e) => Err(io_at(&path)(e)),
        }
    }

    /// Removes every session; how many there were.
    pub fn clear_all(&self) -> Result<usize, RecordError> {
        let mut n = 0;
        for (id, _, _) in self.files()? {
            match self.clear(&id) {
                Ok(()) => n += 1,
                Err(RecordError::NotFound(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(n)
    }

    /// Removes the sessions last written more than `limits.max_age` before
    /// `now`, then the oldest until all fit in `limits.max_bytes`; never
    /// those in `keep` (sessions still being written). How many went.
    pub fn prune(
        &self,
        limits: &Limits,
        now: SystemTime,
        keep: &[&str],
    ) -> Result<usize, RecordError> {
        let mut files = self.files()?;
        files.sort_by_key(|(_, _, at)| *at);
        let mut total: u64 = files.iter().map(|(_, len, _)| len).sum();
        let mut gone = 0;
        for (id, len, at) in files {
            if keep.contains(&id.as_str()) {
                continue;
            }
            let old = now.duration_since(at).unwrap_or_default() > limits.max_age;
            if old || total > limits.max_bytes {
                match self.clear(&id) {
                    Ok(()) | Err(RecordError::NotFound(_)) => {}
                    Err(e) => return Err(e),
                }
                total = total.saturating_sub(len);
                gone += 1;
            }
        }
        Ok(gone)
    }
}

/// Which entries a page of the viewer holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Only those on this tab.
    pub tab: Option<TabId>,
    /// Only those that ended `ok` (`Some(true)`) or did not (`Some(false)`).
    pub ok: Option<bool>,
}

impl Filter {
    fn matches(&self, e: &ActivityEntry) -> bool {
        self.tab.is_none_or(|t| e.tab == Some(t))
            && self
                .ok
                .is_none_or(|ok| (e.outcome.as_deref() == Some("ok")) == ok)
    }
}

/// One page of a session's entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Page {
    /// The entries, in order.
    pub entries: Vec<ActivityEntry>,
    /// How many entries match, in all.
    pub total: usize,
    /// Every tab of the session.
    pub tabs: Vec<TabId>,
    /// The entries of the page that have a picture.
    pub framed: Vec<u64>,
}

impl Record {
    /// Reads session `id` line by line, without keeping it whole: `line`
    /// gets each entry, or each picture's `frameOf` and its line.
    fn each(&self, id: &str, mut line: impl FnMut(Line<'_>)) -> Result<(), RecordError> {
        let (path, file) = self.open(id)?;
        let mut lines = BufReader::new(file).split(b'\n');
        // The header was checked by whoever asked for a page of it.
        let _ = lines.next();
        for raw in lines {
            let raw = raw.map_err(io_at(&path))?;
            if let Some(rest) = raw.strip_prefix(FRAME_LINE) {
                let digits: Vec<u8> = rest
                    .iter()
                    .copied()
                    .take_while(u8::is_ascii_digit)
                    .collect();
                if let Some(seq) = std::str::from_utf8(&digits)
                    .ok()
                    .and_then(|d| d.parse().ok())
                {
                    line(Line::Frame(seq, &raw));
                }
            } else if let Ok(e) = serde_json::from_slice::<ActivityEntry>(&raw) {
                line(Line::Entry(e));
            }
        }
        Ok(())
    }

    /// Entries `from`… (at most `count`) of session `id` that match
    /// `filter`.
    pub fn page(
        &self,
        id: &str,
        filter: &Filter,
        from: usize,
        count: usize,
    ) -> Result<Page, RecordError> {
        // The header, checked.
        self.read_with(id, false).map(drop)?;
        let mut page = Page::default();
        let mut on_page = std::collections::BTreeSet::new();
        self.each(id, |line| match line {
            Line::Entry(e) => {
                if let Some(t) = e.tab {
                    if !page.tabs.contains(&t) {
                        page.tabs.push(t);
                    }
                }
                if filter.matches(&e) {
                    if page.total >= from && page.entries.len() < count {
                        on_page.insert(e.seq);
                        page.entries.push(e);
                    }
                    page.total += 1;
                }
            }
            Line::Frame(seq, _) => {
                if on_page.contains(&seq) && !page.framed.contains(&seq) {
                    page.framed.push(seq);
                }
            }
        })?;
        Ok(page)
    }

    /// The pictures after entries `seqs` of session `id`, as many as fit
    /// in `budget` bytes of base64.
    pub fn frames(
        &self,
        id: &str,
        seqs: &[u64],
        budget: usize,
    ) -> Result<Vec<(u64, String)>, RecordError> {
        let mut out: Vec<(u64, String)> = Vec::new();
        let mut used = 0;
        self.each(id, |line| {
            let Line::Frame(seq, raw) = line else {
                return;
            };
            if !seqs.contains(&seq) || out.iter().any(|(s, _)| *s == seq) {
                return;
            }
            if let Ok(f) = serde_json::from_slice::<Frame>(raw) {
                if is_jpeg_base64(&f.jpeg) && used + f.jpeg.len() <= budget {
                    used += f.jpeg.len();
                    out.push((seq, f.jpeg));
                }
            }
        })?;
        Ok(out)
    }
}

/// One line of a session's file, as [`Record::each`] reads it.
enum Line<'a> {
    Entry(ActivityEntry),
    Frame(u64, &'a [u8]),
}

/// Appends one session's entries to its file.
#[derive(Debug)]
pub struct Writer {
    file: File,
    /// The last write failed part-way: the file may end inside a line.
    torn: bool,
}

impl Writer {
    /// A new session's file in `record`, starting with `header`.
    pub fn create(record: &Record, header: &Header) -> Result<Writer, RecordError> {
        record.prepare()?;
        let path = record.path(&header.id)?;
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(nix::libc::O_NOFOLLOW)
            .open(&path)
            .map_err(io_at(&path))?;
        let mut w = Writer { file, torn: false };
        let line = serde_json::to_vec(header).map_err(|e| io_at(&path)(e.into()))?;
        w.line(line).map_err(io_at(&path))?;
        Ok(w)
    }

    /// The file of session `id`, which must exist, to go on with.
    pub fn open(record: &Record, id: &str) -> Result<Writer, RecordError> {
        let path = record.path(id)?;
        match OpenOptions::new()
            .append(true)
            .custom_flags(nix::libc::O_NOFOLLOW)
            .open(&path)
        {
            Ok(file) => Ok(Writer {
                file,
                // A crash may have left the file inside a line.
                torn: true,
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                Err(RecordError::NotFound(id.to_owned()))
            }
            Err(e) => Err(io_at(&path)(e)),
        }
    }

    /// Appends `entry` as one line, written at once; the bytes written.
    pub fn append(&mut self, entry: &ActivityEntry) -> io::Result<u64> {
        self.line(serde_json::to_vec(entry)?)
    }

    /// Appends `frame` as one line, written at once; the bytes written.
    /// Anything but a JPEG's base64 is refused.
    pub fn append_frame(&mut self, frame: &Frame) -> io::Result<u64> {
        if !is_jpeg_base64(&frame.jpeg) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a frame must be a JPEG, base64",
            ));
        }
        self.line(serde_json::to_vec(frame)?)
    }

    fn line(&mut self, mut line: Vec<u8>) -> io::Result<u64> {
        line.push(b'\n');
        if self.torn {
            // A line of its own after what a failed write left.
            line.insert(0, b'\n');
        }
        match self.file.write_all(&line) {
            Ok(()) => {
                self.torn = false;
                Ok(line.len() as u64)
            }
            Err(e) => {
                self.torn = true;
                Err(e)
            }
        }
    }

    /// Whether its file was removed (cleared by the person, or pruned).
    pub fn is_gone(&self) -> bool {
        self.file.metadata().map_or(true, |m| m.nlink() == 0)
    }
}

#[cfg(test)]
mod tests;
