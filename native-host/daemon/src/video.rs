//! Videos of shared tabs ([`cotab_video`]): while a tab is recorded, its
//! session's screencast sends frames the size of the video, which the
//! daemon acknowledges no faster than the video's frame rate (the browser
//! sends the next frame only then) and hands to the recording's own
//! thread, which encodes them and appends them to the file. No agent's
//! answer waits for a frame's encoding; a frame that comes while the
//! thread is still busy with earlier ones is skipped.
//!
//! An agent's video holds only what an agent may see: while the person
//! controls the tab, or it shows a blocked page, frames are skipped and
//! the last one lasts. A video ends when its session stops it or ends,
//! or its tab is unshared or closed; the file plays up to its last whole
//! frame whatever ends it (a crash, a full disk).

use crate::session::SessionId;
use cotab_shared::cdp::{ScreencastFrame, ScreencastFrameAck, StartScreencast};
use cotab_shared::controller::{Video, VideoSize};
use cotab_shared::TabId;
use cotab_video::{Finished, VideoError, VideoFile};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant, SystemTime};
use tokio::sync::oneshot;

/// Frames waiting for the recording's thread before more are skipped.
const QUEUE: usize = 4;
/// The screencast's JPEG quality (the frames are encoded again).
const JPEG_QUALITY: u8 = 80;
/// libwebp's quality for the video's frames.
const VP8_QUALITY: f32 = 60.0;
/// The largest file a recording writes; it ends there.
pub const MAX_BYTES: u64 = 1 << 30;
/// How long the end of a video may take to be written.
const FINISH_WAIT: Duration = Duration::from_secs(10);

/// Who started a video.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// An agent's session.
    Agent(SessionId),
    /// The person, from the side panel: their video holds the tab while
    /// they control it too.
    Person,
}

enum Job {
    Frame {
        at_ms: u64,
        data: String,
    },
    Finish {
        end_ms: u64,
        chapters: Vec<(u64, String)>,
        reply: oneshot::Sender<Ended>,
    },
}

/// What the recording's thread says when it ended.
#[derive(Debug)]
struct Ended {
    path: PathBuf,
    finished: Result<Finished, VideoError>,
    frames: u64,
    bytes: u64,
    /// Why writing stopped before the end.
    cut: Option<String>,
}

struct Running {
    owner: Owner,
    started: Instant,
    /// The least time between two acknowledged frames.
    every: Duration,
    /// When the last frame was (or will be) acknowledged.
    acked: tokio::time::Instant,
    start: StartScreencast,
    path: PathBuf,
    jobs: Sender<Job>,
    /// Frames handed to the thread and not yet written.
    queued: Arc<AtomicUsize>,
    /// When the last frame was handed to the thread.
    kept: Option<Instant>,
    /// The latest frame that came too soon after it, written when its
    /// acknowledgement goes ([`Videos::flush`]) unless another replaced
    /// it.
    pending: Option<String>,
    /// The chapters so far: milliseconds from the start, and titles.
    chapters: Vec<(u64, String)>,
}

struct Ending {
    owner: Owner,
    tab: TabId,
    path: PathBuf,
    why: Option<String>,
    reply: oneshot::Receiver<Ended>,
}

#[derive(Default)]
struct State {
    running: HashMap<TabId, Running>,
    ending: Vec<Ending>,
    /// The person's latest videos that were saved, newest last.
    saved: Vec<(TabId, PathBuf)>,
    next: u64,
}

/// The person's saved videos the panels are told of.
const SAVED_SHOWN: usize = 3;

/// The daemon's videos.
#[derive(Default)]
pub struct Videos {
    dir: OnceLock<PathBuf>,
    /// The bounds of the videos kept: the activity record's.
    limits: OnceLock<cotab_local::record::Limits>,
    state: Mutex<State>,
}

impl std::fmt::Debug for Videos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Videos").field("dir", &self.dir).finish()
    }
}

/// Why a video could not start.
#[derive(Debug)]
pub enum StartError {
    /// The tab is recorded already.
    Busy,
    /// There is nowhere to keep it.
    NoDirectory,
    /// Its file could not be made.
    File(String),
}

/// The screencast a video of `size` at `fps` runs.
pub fn screencast(size: VideoSize) -> StartScreencast {
    StartScreencast {
        format: "jpeg",
        quality: JPEG_QUALITY,
        max_width: size.width,
        max_height: size.height,
        every_nth_frame: 1,
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Videos {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps videos in `dir` (made private if missing).
    pub fn keep_in(&self, dir: PathBuf) {
        drop(self.dir.set(dir));
    }

    /// Keeps the videos within `limits` (the activity record's): no file
    /// older than its age, and the oldest out first past its size.
    pub fn keep_within(&self, limits: cotab_local::record::Limits) {
        let _ = self.limits.set(limits);
    }

    /// What [`prune`] needs now, if videos are bounded: the directory,
    /// the bounds, and the files no pruning touches (those recorded or
    /// being finished).
    pub fn pruning(&self) -> Option<(PathBuf, cotab_local::record::Limits, Vec<PathBuf>)> {
        let dir = self.dir.get()?.clone();
        let limits = *self.limits.get()?;
        let state = self.state();
        let busy = state
            .running
            .values()
            .map(|r| r.path.clone())
            .chain(state.ending.iter().map(|e| e.path.clone()))
            .collect();
        Some((dir, limits, busy))
    }

    /// Whether `tab` is recorded.
    pub fn records(&self, tab: TabId) -> bool {
        self.state().running.contains_key(&tab)
    }

    /// Starts a video of `tab` for `owner`, at most `fps` frames a second
    /// of at most `size`: its file made, its thread started. The caller
    /// starts the screencast ([`screencast`]).
    pub fn start(
        &self,
        tab: TabId,
        owner: Owner,
        size: VideoSize,
        fps: u32,
    ) -> Result<PathBuf, StartError> {
        let dir = self.dir.get().ok_or(StartError::NoDirectory)?;
        let mut state = self.state();
        if state.running.contains_key(&tab) {
            return Err(StartError::Busy);
        }
        make_private_dir(dir).map_err(|e| StartError::File(e.to_string()))?;
        state.next += 1;
        let stamp = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, millis);
        let path = dir.join(format!("tab-{}-{stamp}-{}.webm", tab.0, state.next));
        let file = VideoFile::create(&path).map_err(|e| StartError::File(e.to_string()))?;
        let (jobs, rx) = mpsc::channel();
        let queued = Arc::new(AtomicUsize::new(0));
        let queued_ = queued.clone();
        std::thread::Builder::new()
            .name(format!("video-{}", tab.0))
            .spawn(move || record(file, &rx, &queued_))
            .map_err(|e| StartError::File(e.to_string()))?;
        state.running.insert(
            tab,
            Running {
                owner,
                started: Instant::now(),
                every: Duration::from_millis(1000 / u64::from(fps.max(1))),
                acked: tokio::time::Instant::now(),
                start: screencast(size),
                path: path.clone(),
                jobs,
                queued,
                kept: None,
                pending: None,
                chapters: Vec::new(),
            },
        );
        Ok(path)
    }

    /// The screencast each running video needs, to start again (after
    /// the browser connection came back).
    pub fn screencasts(&self) -> Vec<(TabId, StartScreencast)> {
        self.state()
            .running
            .iter()
            .map(|(tab, r)| (*tab, r.start.clone()))
            .collect()
    }

    /// A frame of `tab`'s screencast came; `visible` says whether an agent
    /// may see the tab now, `blocked` whether it shows a blocked page
    /// (which no video holds). Returns the acknowledgement to send and when,
    /// or none when the tab is not recorded (the frame is the keep-alive
    /// screencast's, never acknowledged).
    pub fn frame(
        &self,
        tab: TabId,
        frame: ScreencastFrame,
        visible: bool,
        blocked: bool,
    ) -> Option<(tokio::time::Instant, ScreencastFrameAck)> {
        let mut state = self.state();
        let running = state.running.get_mut(&tab)?;
        let now = tokio::time::Instant::now();
        let due = (running.acked + running.every).max(now);
        running.acked = due;
        let ack = ScreencastFrameAck {
            session_id: frame.session_id,
        };
        let shown = match running.owner {
            Owner::Agent(_) => visible,
            Owner::Person => !blocked,
        };
        if shown {
            let soon = running.kept.is_some_and(|k| k.elapsed() < running.every);
            if soon {
                running.pending = Some(frame.data);
            } else {
                running.pending = None;
                keep(tab, running, frame.data);
            }
        }
        Some((due, ack))
    }

    /// Writes `tab`'s frame that came too soon, if one waits: the page's
    /// latest picture is never lost to the frame rate.
    pub fn flush(&self, tab: TabId) {
        let mut state = self.state();
        if let Some(running) = state.running.get_mut(&tab) {
            if let Some(data) = running.pending.take() {
                keep(tab, running, data);
            }
        }
    }

    /// Marks the present moment with `title` in every video of `owner`;
    /// how many.
    pub fn chapter(&self, owner: Owner, title: &str) -> u32 {
        let mut state = self.state();
        let mut marked = 0;
        for running in state.running.values_mut().filter(|r| r.owner == owner) {
            let at_ms = millis(running.started.elapsed());
            running.chapters.push((at_ms, title.to_owned()));
            marked += 1;
        }
        marked
    }

    /// Marks the present moment in `tab`'s video, if it is recorded: an
    /// agent's action there, as the person reads it.
    pub fn mark(&self, tab: TabId, what: &str) {
        let mut state = self.state();
        if let Some(running) = state.running.get_mut(&tab) {
            let at_ms = millis(running.started.elapsed());
            running.chapters.push((at_ms, what.to_owned()));
        }
    }

    /// Ends `tab`'s video, if it is recorded, because of `why` (none: its
    /// owner stopped it). Whether it was: the caller then gives the tab
    /// its keep-alive screencast back.
    pub fn end(&self, tab: TabId, why: Option<&str>) -> bool {
        let mut state = self.state();
        let Some(running) = state.running.remove(&tab) else {
            return false;
        };
        let end_ms = millis(running.started.elapsed());
        let (reply, rx) = oneshot::channel();
        let job = Job::Finish {
            end_ms,
            chapters: running.chapters,
            reply,
        };
        if running.jobs.send(job).is_ok() {
            state.ending.push(Ending {
                owner: running.owner,
                tab,
                path: running.path,
                why: why.map(str::to_owned),
                reply: rx,
            });
        }
        true
    }

    /// Ends every video whose tab is not in `shared`.
    pub fn keep_tabs(&self, shared: &[TabId], why: &str) -> Vec<TabId> {
        let gone: Vec<TabId> = self
            .state()
            .running
            .keys()
            .filter(|t| !shared.contains(t))
            .copied()
            .collect();
        for tab in &gone {
            self.end(*tab, Some(why));
        }
        gone
    }

    /// Ends every video of a session not in `live`; the tabs whose
    /// screencast goes back to the keep-alive one.
    pub fn keep_sessions(&self, live: &[SessionId]) -> Vec<TabId> {
        let gone_owner = |owner: &Owner| match owner {
            Owner::Agent(sid) => !live.contains(sid),
            Owner::Person => false,
        };
        let gone: Vec<TabId> = self
            .state()
            .running
            .iter()
            .filter(|(_, r)| gone_owner(&r.owner))
            .map(|(t, _)| *t)
            .collect();
        for tab in &gone {
            self.end(*tab, Some("its session ended"));
        }
        // What ended for a session that is gone is no one's to read.
        self.state().ending.retain(|e| !gone_owner(&e.owner));
        gone
    }

    /// Every tab recorded, sorted.
    pub fn tabs(&self) -> Vec<TabId> {
        let mut tabs: Vec<TabId> = self.state().running.keys().copied().collect();
        tabs.sort_unstable();
        tabs
    }

    /// Every video running: its tab, who started it, and its file.
    pub fn running(&self) -> Vec<(TabId, Owner, PathBuf)> {
        let mut list: Vec<(TabId, Owner, PathBuf)> = self
            .state()
            .running
            .iter()
            .map(|(t, r)| (*t, r.owner, r.path.clone()))
            .collect();
        list.sort_unstable_by_key(|(t, ..)| *t);
        list
    }

    /// The person's latest saved videos, newest last: with those of
    /// theirs that ended (their tab unshared or closed) and whose file is
    /// written by now.
    pub fn saved(&self) -> Vec<(TabId, PathBuf)> {
        let mut state = self.state();
        let mut written = Vec::new();
        state.ending.retain_mut(|e| {
            if e.owner != Owner::Person {
                return true;
            }
            match e.reply.try_recv() {
                Ok(ended) => {
                    if ended.finished.is_ok() {
                        written.push((e.tab, ended.path));
                    }
                    false
                }
                Err(oneshot::error::TryRecvError::Empty) => true,
                Err(oneshot::error::TryRecvError::Closed) => false,
            }
        });
        state.saved.extend(written);
        let extra = state.saved.len().saturating_sub(SAVED_SHOWN);
        state.saved.drain(..extra);
        state.saved.clone()
    }

    /// Waits for the person's videos that ended to be written, and keeps
    /// the latest of those saved for the panels.
    pub async fn keep_saved(&self) {
        for video in self.ended(Owner::Person).await {
            let Some(path) = video.path else { continue };
            let mut state = self.state();
            state.saved.push((video.tab_id, PathBuf::from(path)));
            let extra = state.saved.len().saturating_sub(SAVED_SHOWN);
            state.saved.drain(..extra);
        }
    }

    /// The owner of `tab`'s video, if it is recorded.
    pub fn owner(&self, tab: TabId) -> Option<Owner> {
        self.state().running.get(&tab).map(|r| r.owner)
    }

    /// The tabs `owner` records.
    pub fn tabs_of(&self, owner: Owner) -> Vec<TabId> {
        self.state()
            .running
            .iter()
            .filter(|(_, r)| r.owner == owner)
            .map(|(t, _)| *t)
            .collect()
    }

    /// Every video of `owner` that ended and was not told yet, once its
    /// file is written.
    pub async fn ended(&self, owner: Owner) -> Vec<Video> {
        let mine: Vec<Ending> = {
            let mut state = self.state();
            let (mine, rest) = std::mem::take(&mut state.ending)
                .into_iter()
                .partition(|e| e.owner == owner);
            state.ending = rest;
            mine
        };
        let mut videos = Vec::new();
        for e in mine {
            let ended = tokio::time::timeout(FINISH_WAIT, e.reply).await;
            videos.push(match ended {
                Ok(Ok(ended)) => told(e.tab, e.why, ended),
                _ => Video {
                    tab_id: e.tab,
                    path: None,
                    duration_ms: 0,
                    frames: 0,
                    bytes: 0,
                    ended: Some("its file was not finished in time".to_owned()),
                },
            });
        }
        videos
    }
}

/// Hands the frame `data` to `running`'s thread, unless it is still busy
/// with [`QUEUE`] of them.
fn keep(tab: TabId, running: &mut Running, data: String) {
    if running.queued.load(Ordering::Acquire) >= QUEUE {
        return;
    }
    let at_ms = millis(running.started.elapsed());
    running.queued.fetch_add(1, Ordering::AcqRel);
    running.kept = Some(Instant::now());
    if running.jobs.send(Job::Frame { at_ms, data }).is_err() {
        tracing::debug!(%tab, "a video's thread is gone");
    }
}

/// What the agent is told of a video that ended.
fn told(tab: TabId, why: Option<String>, ended: Ended) -> Video {
    let path = Some(ended.path.display().to_string());
    let why = match (why, ended.cut) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    };
    match ended.finished {
        Ok(f) => Video {
            tab_id: tab,
            path,
            duration_ms: f.duration_ms,
            frames: f.frames,
            bytes: f.bytes,
            ended: why,
        },
        Err(VideoError::Empty) => Video {
            tab_id: tab,
            path: None,
            duration_ms: 0,
            frames: 0,
            bytes: 0,
            ended: Some(match why {
                Some(w) => format!("{w}; no frame of the tab came, so nothing was kept"),
                None => "no frame of the tab came, so nothing was kept".to_owned(),
            }),
        },
        Err(e) => Video {
            tab_id: tab,
            path,
            duration_ms: 0,
            frames: ended.frames,
            bytes: ended.bytes,
            ended: Some(match why {
                Some(w) => format!("{w}; {e}"),
                None => e.to_string(),
            }),
        },
    }
}

/// The recording's thread: encodes and appends each frame, keeps the
/// chapters, and writes the end when told.
fn record(mut file: VideoFile, jobs: &mpsc::Receiver<Job>, queued: &AtomicUsize) {
    let mut cut: Option<String> = None;
    let mut last_ms = 0;
    while let Ok(job) = jobs.recv() {
        match job {
            Job::Frame { at_ms, data } => {
                last_ms = at_ms;
                if cut.is_none() {
                    cut = write_frame(&mut file, at_ms, &data);
                }
                queued.fetch_sub(1, Ordering::AcqRel);
            }
            Job::Finish {
                end_ms,
                chapters,
                reply,
            } => {
                for (at_ms, title) in chapters {
                    file.chapter(at_ms, &title);
                }
                let (path, frames, bytes) = (file.path().to_owned(), file.frames(), file.bytes());
                let finished = file.finish(end_ms);
                drop(reply.send(Ended {
                    path,
                    finished,
                    frames,
                    bytes,
                    cut,
                }));
                return;
            }
        }
    }
    // The daemon let go of it without an end: the file plays as it is,
    // its duration written.
    drop(file.finish(last_ms));
}

/// Encodes the frame `data` (a JPEG, base64) and appends it; why the
/// file can take no more, if so. A frame that does not encode is skipped.
fn write_frame(file: &mut VideoFile, at_ms: u64, data: &str) -> Option<String> {
    use base64::Engine as _;
    let jpeg = base64::engine::general_purpose::STANDARD
        .decode(data)
        .ok()?;
    let frame = match cotab_video::encode(&jpeg, VP8_QUALITY) {
        Ok(frame) => frame,
        Err(e) => {
            tracing::debug!(error = %e, "a video frame was skipped");
            return None;
        }
    };
    if let Err(e) = file.push(at_ms, frame) {
        tracing::warn!(error = %e, "a video stopped being written");
        return Some(format!("it stopped being written: {e}"));
    }
    (file.bytes() >= MAX_BYTES).then(|| {
        format!(
            "it reached the largest size a video takes ({} MiB)",
            MAX_BYTES >> 20
        )
    })
}

/// Removes the videos (`*.webm` files, never a link) in `dir` older
/// than the limits' age, then the oldest while all of them take more than
/// its size (0: no size bound) — never one of `busy`, never the newest
/// (an agent's stop copies it next). Returns how many went.
pub fn prune(dir: &Path, limits: &cotab_local::record::Limits, busy: &[PathBuf]) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut files: Vec<(SystemTime, u64, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let path = e.path();
            let meta = std::fs::symlink_metadata(&path).ok()?;
            let webm = path.extension().is_some_and(|x| x == "webm");
            let modified = meta.modified().ok()?;
            (meta.is_file() && webm).then_some((modified, meta.len(), path))
        })
        .collect();
    files.sort();
    let newest = files.last().map(|(_, _, p)| p.clone());
    let now = SystemTime::now();
    let mut total: u64 = files.iter().map(|(_, len, _)| len).sum();
    let mut gone = 0;
    for (modified, len, path) in &files {
        if busy.contains(path) || Some(path) == newest.as_ref() {
            continue;
        }
        let old = now
            .duration_since(*modified)
            .is_ok_and(|age| age > limits.max_age);
        let over = limits.max_bytes > 0 && total > limits.max_bytes;
        if (old || over) && std::fs::remove_file(path).is_ok() {
            total = total.saturating_sub(*len);
            gone += 1;
        }
    }
    gone
}

/// Makes `dir` readable by its owner only, if it is missing.
fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TAB: TabId = TabId(7);

    fn frame(n: i64) -> ScreencastFrame {
        ScreencastFrame {
            data: "bm90IGEganBlZw==".into(),
            session_id: n,
        }
    }

    #[tokio::test]
    async fn a_tab_records_once_its_frames_are_acknowledged_and_an_empty_video_keeps_no_file() {
        let dir = tempfile::tempdir().expect("dir");
        let videos = Videos::default();
        let owner = Owner::Agent(SessionId(1));
        let size = VideoSize {
            width: 320,
            height: 200,
        };
        assert!(matches!(
            videos.start(TAB, owner, size, 10),
            Err(StartError::NoDirectory)
        ));
        videos.keep_in(dir.path().join("videos"));
        let path = videos.start(TAB, owner, size, 10).expect("started");
        assert!(matches!(
            videos.start(TAB, owner, size, 10),
            Err(StartError::Busy)
        ));
        // Another tab's frames are the keep-alive screencast's: never
        // acknowledged.
        assert!(videos.frame(TabId(8), frame(1), true, false).is_none());
        let (first, ack) = videos
            .frame(TAB, frame(1), false, false)
            .expect("acknowledged");
        assert_eq!(ack.session_id, 1);
        // The next no sooner than the frame rate allows.
        let (second, _) = videos
            .frame(TAB, frame(2), true, false)
            .expect("acknowledged");
        assert!(second >= first + Duration::from_millis(100));
        assert_eq!(videos.chapter(owner, "x"), 1);
        assert_eq!(videos.chapter(Owner::Agent(SessionId(2)), "x"), 0);
        // Its session ends: the video ends with it, and no frame decoded,
        // so nothing is kept, and nobody is told.
        assert_eq!(videos.keep_sessions(&[SessionId(3)]), vec![TAB]);
        assert!(!videos.records(TAB));
        assert!(videos.ended(owner).await.is_empty());
        let clock = std::time::Instant::now();
        while path.exists() && clock.elapsed() < FINISH_WAIT {
            std::thread::yield_now();
        }
        assert!(!path.exists(), "an empty video's file is removed");
        let mode = std::fs::metadata(dir.path().join("videos")).expect("made");
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o777,
            0o700
        );
    }

    #[tokio::test]
    async fn a_video_stopped_tells_why_nothing_was_kept() {
        let dir = tempfile::tempdir().expect("dir");
        let videos = Videos::default();
        videos.keep_in(dir.path().to_owned());
        let owner = Owner::Agent(SessionId(1));
        videos.start(TAB, owner, DEFAULT_SIZE, 25).expect("started");
        assert!(videos.end(TAB, None));
        assert!(!videos.end(TAB, None), "once");
        let told = videos.ended(owner).await;
        assert_eq!(told.len(), 1);
        assert_eq!(told[0].path, None);
        assert_eq!(
            told[0].ended.as_deref(),
            Some("no frame of the tab came, so nothing was kept")
        );
    }

    const DEFAULT_SIZE: VideoSize = cotab_shared::controller::DEFAULT_VIDEO_SIZE;

    #[test]
    fn videos_past_the_records_bounds_go_oldest_first_but_never_one_busy_or_the_newest() {
        let dir = tempfile::tempdir().expect("dir");
        let at = |name: &str, len: usize, age_s: u64| {
            let path = dir.path().join(name);
            std::fs::write(&path, vec![0u8; len]).expect("written");
            let when = SystemTime::now() - Duration::from_secs(age_s);
            std::fs::File::options()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_modified(when))
                .expect("dated");
            path
        };
        let ancient = at("a.webm", 10, 100_000);
        let old = at("b.webm", 600, 300);
        let busy = at("c.webm", 600, 200);
        let newest = at("d.webm", 600, 100);
        let other = at("notes.txt", 10, 100_000);
        let limits = cotab_local::record::Limits {
            max_bytes: 1_000,
            max_age: Duration::from_secs(3_600),
        };
        assert_eq!(prune(dir.path(), &limits, std::slice::from_ref(&busy)), 2);
        assert!(!ancient.exists(), "past its age");
        assert!(!old.exists(), "the oldest, past the size");
        assert!(busy.exists() && newest.exists() && other.exists());
        // Alone past the size, the newest stays.
        assert_eq!(prune(dir.path(), &limits, &[]), 1);
        assert!(newest.exists() && !busy.exists());
        assert_eq!(prune(dir.path(), &limits, &[]), 0);
    }
}
