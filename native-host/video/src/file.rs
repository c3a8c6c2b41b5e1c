//! A video file as it is recorded: made new and private, the header
//! written with the first frame (whose size is the track's), each frame
//! appended in one write, and at the end the last frame repeated at the
//! end time (so it lasts until then), the chapters and the duration.
//! Whatever stops the writing midway leaves a file that plays up to its
//! last whole frame.

use crate::frame::Vp8Frame;
use crate::webm::{self, Chapter, Header, Level1};
use crate::VideoError;
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The least time between two of the places a seek may start from.
pub const CUE_EVERY_MS: u64 = 500;

/// A recording's file.
#[derive(Debug)]
pub struct VideoFile {
    file: File,
    path: PathBuf,
    header: Option<Header>,
    cues: Vec<(u64, u64)>,
    last: Option<(u64, Vec<u8>)>,
    size: Option<(u32, u32)>,
    chapters: Vec<Chapter>,
    frames: u64,
    bytes: u64,
}

/// What a finished recording holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// Where it is.
    pub path: PathBuf,
    /// Frames written (the repeated last one not counted).
    pub frames: u64,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its length in milliseconds.
    pub duration_ms: u64,
    /// The track's width and height.
    pub size: (u32, u32),
}

impl VideoFile {
    /// Makes `path`, which must not exist, readable by its owner only.
    pub fn create(path: &Path) -> Result<VideoFile, VideoError> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .map_err(|e| VideoError::io("create", path, e))?;
        Ok(VideoFile {
            file,
            path: path.to_owned(),
            header: None,
            cues: Vec::new(),
            last: None,
            size: None,
            chapters: Vec::new(),
            frames: 0,
            bytes: 0,
        })
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Frames written so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Bytes written so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), VideoError> {
        self.file
            .write_all(bytes)
            .map_err(|e| VideoError::io("write", &self.path, e))?;
        self.bytes += bytes.len() as u64;
        Ok(())
    }

    /// Appends `frame`, shown from `at_ms` after the start; a time before
    /// the last frame's is taken as the last frame's.
    pub fn push(&mut self, at_ms: u64, frame: Vp8Frame) -> Result<(), VideoError> {
        if self.header.is_none() {
            let header = webm::header(frame.width, frame.height);
            self.write(&header.bytes)?;
            self.header = Some(header);
            self.size = Some((frame.width, frame.height));
        }
        let at_ms = at_ms.max(self.last.as_ref().map_or(0, |(t, _)| *t));
        self.cue(at_ms);
        let cluster = webm::frame(at_ms, &frame.data);
        self.write(&cluster)?;
        self.frames += 1;
        self.last = Some((at_ms, frame.data));
        Ok(())
    }

    /// Notes where the cluster written next starts, for a seek to
    /// `at_ms`: at most one a [`CUE_EVERY_MS`].
    fn cue(&mut self, at_ms: u64) {
        let Some(header) = &self.header else { return };
        if self
            .cues
            .last()
            .is_some_and(|(t, _)| at_ms < t + CUE_EVERY_MS)
        {
            return;
        }
        self.cues.push((at_ms, self.bytes - header.segment_at));
    }

    /// Marks `at_ms` with `title`.
    pub fn chapter(&mut self, at_ms: u64, title: &str) {
        self.chapters.push(Chapter {
            at_ms,
            title: title.to_owned(),
        });
    }

    /// Ends the recording at `end_ms`. A recording that got no frame is
    /// removed ([`VideoError::Empty`]).
    pub fn finish(mut self, end_ms: u64) -> Result<Finished, VideoError> {
        let (Some(header), Some(size)) = (self.header.take(), self.size) else {
            drop(std::fs::remove_file(&self.path));
            return Err(VideoError::Empty);
        };
        let mut end = end_ms;
        if let Some((at, data)) = self.last.take() {
            end = end.max(at);
            if end > at {
                let cluster = webm::frame(end, &data);
                self.write(&cluster)?;
            }
        }
        let mut index = vec![
            (Level1::Info, header.info_at),
            (Level1::Tracks, header.tracks_at),
        ];
        let cues = webm::cues(&self.cues);
        if !cues.is_empty() {
            index.push((Level1::Cues, self.bytes - header.segment_at));
            self.write(&cues)?;
        }
        self.chapters.sort_by_key(|c| c.at_ms);
        let chapters = webm::chapters(&self.chapters);
        if !chapters.is_empty() {
            index.push((Level1::Chapters, self.bytes - header.segment_at));
            self.write(&chapters)?;
        }
        let path = self.path.clone();
        let io = |what, e| VideoError::io(what, &path, e);
        for (at, bytes) in [
            (header.seek_at, webm::seek_head(&index)),
            (header.duration_at, webm::duration(end).to_vec()),
        ] {
            self.file
                .seek(SeekFrom::Start(at))
                .map_err(|e| io("seek", e))?;
            self.file.write_all(&bytes).map_err(|e| io("write", e))?;
        }
        self.file.sync_all().map_err(|e| io("sync", e))?;
        Ok(Finished {
            path: self.path,
            frames: self.frames,
            bytes: self.bytes,
            duration_ms: end,
            size,
        })
    }
}
