//! The end-to-end harness: starts headless (or headed) Chromium with the
//! built extension loaded unpacked and cotab's host manifest in a fresh
//! profile, serves fixture pages, shares tabs by clicking the real popup,
//! and hands tests an agent connected to the daemon's socket.
//!
//! The harness needs what `cargo xtask build-extension` and `cargo build -p
//! cotab-host` produce; `cargo xtask test` builds both first. `cargo xtask
//! demo` uses the same harness.
//!
//! This crate is test tooling: nothing in the product depends on it.

pub mod big_page;
pub mod browser;
pub mod cdp;
pub mod fixture;
pub mod task_pages;

use anyhow::{bail, Result};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the e2e crate lives one level below the workspace root")
        .to_path_buf()
}

/// Cargo's target directory (honours `CARGO_TARGET_DIR`).
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                workspace_root().join(dir)
            }
        }
        None => workspace_root().join("target"),
    }
}

/// A built binary of the workspace: `COTAB_BIN_DIR/<name>` when that is
/// set, else the debug build in the target directory.
pub fn binary(name: &str) -> Result<PathBuf> {
    let dir = match std::env::var_os("COTAB_BIN_DIR") {
        Some(d) => PathBuf::from(d),
        None => target_dir().join("debug"),
    };
    let path = dir.join(name);
    if !path.is_file() {
        bail!(
            "{} is missing: run `cargo xtask test`, or `cargo build -p cotab-host` first",
            path.display()
        );
    }
    Ok(path)
}

/// The built extension directory.
pub fn extension_dir() -> Result<PathBuf> {
    let dir = workspace_root().join("dist").join("extension");
    if !dir.join("manifest.json").is_file() || !dir.join("background.js").is_file() {
        bail!(
            "{} is missing or incomplete: run `cargo xtask build-extension` first",
            dir.display()
        );
    }
    Ok(dir)
}

/// How long a polling loop pauses between two looks.
const POLL_INTERVAL: Duration = Duration::from_millis(50);

/// The deadline of a polling loop whose probe needs `&mut` state (an agent
/// connection), which [`wait_for`]'s closure cannot borrow:
/// `let d = Deadline::new(what, limit); loop { …look…; d.next().await?; }`.
pub struct Deadline {
    what: String,
    limit: Duration,
    start: Instant,
}

impl Deadline {
    /// Starts the clock for waiting for `what`.
    pub fn new(what: impl Into<String>, limit: Duration) -> Deadline {
        Deadline {
            what: what.into(),
            limit,
            start: Instant::now(),
        }
    }

    /// Fails once the deadline has passed (with `last`, what the last look
    /// saw); otherwise pauses before the next look.
    pub async fn next(&self, last: impl std::fmt::Debug) -> Result<()> {
        if self.start.elapsed() > self.limit {
            bail!(
                "timed out after {:?} waiting for {}; last seen: {last:?}",
                self.limit,
                self.what
            );
        }
        tokio::time::sleep(POLL_INTERVAL).await;
        Ok(())
    }
}

/// Polls `probe` until it yields `Some`, or fails after `deadline` saying
/// what was awaited. Used to wait for an observable state change, never as
/// a fixed sleep.
pub async fn wait_for<T, F, Fut>(what: &str, deadline: Duration, mut probe: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Option<T>>>,
{
    let clock = Deadline::new(what, deadline);
    loop {
        let last = match probe().await {
            Ok(Some(v)) => return Ok(v),
            Ok(None) => "the condition not yet met".to_string(),
            Err(e) => format!("error: {e:#}"),
        };
        clock.next(last).await?;
    }
}

/// The ref (`e12`) on the first line of a snapshot's outline that
/// contains `needle` and a ref; `None` when no line does.
pub fn outline_ref(outline: &str, needle: &str) -> Option<cotab_shared::controller::Ref> {
    let line = outline
        .lines()
        .find(|l| l.contains(needle) && l.contains("[ref="))?;
    let start = line.find("[ref=")? + "[ref=".len();
    let len = line[start..].find(']')?;
    Some(cotab_shared::controller::Ref(
        line[start..start + len].to_string(),
    ))
}
