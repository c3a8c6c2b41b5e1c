//! Video of a shared tab: the JPEG frames of a screencast
//! (`Page.screencastFrame`) as VP8 key frames ([`frame`]) in a WebM file
//! ([`webm`]) written as they come ([`mod@file`]). No I/O but the file's own;
//! the daemon decides what is recorded and when.

pub mod file;
pub mod frame;
pub mod webm;

pub use file::{Finished, VideoFile};
pub use frame::{encode, Vp8Frame};

use std::path::Path;

/// Why a frame or a file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum VideoError {
    /// The frame could not be encoded.
    #[error("a frame could not be encoded: {0}")]
    Frame(String),
    /// The file could not be made or written.
    #[error("could not {what} {path}: {source}")]
    Io {
        /// What was done.
        what: &'static str,
        /// The file.
        path: String,
        /// The system's error.
        source: std::io::Error,
    },
    /// No frame came before the end: nothing was kept.
    #[error("no frame of the tab came while it was recorded")]
    Empty,
}

impl VideoError {
    fn io(what: &'static str, path: &Path, source: std::io::Error) -> VideoError {
        VideoError::Io {
            what,
            path: path.display().to_string(),
            source,
        }
    }
}
