//! Where cotab's processes log: `daemon.log` and `relay.log` in the log
//! directory (`$COTAB_LOG_DIR`, else `$XDG_STATE_HOME/cotab`, else
//! `~/.local/state/cotab`), each capped at [`MAX_LOG_BYTES`] and rotated
//! (`daemon.log.1` … `.3`, oldest dropped) by the `file-rotate` crate.
//! The directory is made 0700 and must be the user's own, as the runtime
//! directory is ([`crate::runtime::check_runtime_dir`]); a process that
//! cannot log there logs to its stderr. `cotab logs` prints and follows
//! them.
//!
//! What is logged is the subscriber's business (`tracing`, never params or
//! page data); this module only says where it goes.

use crate::runtime::check_runtime_dir;
use file_rotate::compression::Compression;
use file_rotate::suffix::AppendCount;
use file_rotate::{ContentLimit, FileRotate};
use std::io;
use std::os::unix::fs::DirBuilderExt as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The daemon's log.
pub const DAEMON_LOG: &str = "daemon.log";
/// The relays' log (one relay per browser connection).
pub const RELAY_LOG: &str = "relay.log";
/// Where the daemon's stderr goes (a panic's message, before logging
/// starts).
pub const DAEMON_STDERR: &str = "daemon.stderr";
/// Largest log file before it is rotated.
pub const MAX_LOG_BYTES: usize = 4 << 20;
/// Rotated files kept besides the current one.
pub const KEPT_LOGS: usize = 3;

/// The log directory: `$COTAB_LOG_DIR`, else `$XDG_STATE_HOME/cotab`,
/// else `$HOME/.local/state/cotab`; `None` without any of them.
pub fn log_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    resolve_log_dir(var("COTAB_LOG_DIR"), var("XDG_STATE_HOME"), var("HOME"))
}

fn resolve_log_dir(
    own: Option<PathBuf>,
    state: Option<PathBuf>,
    home: Option<PathBuf>,
) -> Option<PathBuf> {
    own.or_else(|| state.filter(|s| s.is_absolute()).map(|s| s.join("cotab")))
        .or_else(|| home.map(|h| h.join(".local").join("state").join("cotab")))
}

/// Makes `dir` (0700; its parents as the umask says) unless it exists,
/// then checks it is a directory of this user's that no one else may
/// enter.
pub fn prepare_log_dir(dir: &Path) -> io::Result<()> {
    if std::fs::symlink_metadata(dir).is_err() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    check_runtime_dir(dir, nix::unistd::getuid().as_raw())
        .map_err(|e| io::Error::new(io::ErrorKind::PermissionDenied, e.to_string()))
}

/// A size-capped, rotated log file `name` in `dir`.
pub fn rotating(dir: &Path, name: &str) -> FileRotate<AppendCount> {
    FileRotate::new(
        dir.join(name),
        AppendCount::new(KEPT_LOGS),
        ContentLimit::BytesSurpassed(MAX_LOG_BYTES),
        Compression::None,
        None,
    )
}

/// Sets up `tracing` (filter from `COTAB_LOG`, default `info`) to write to
/// the log file `name` in the log directory; to stderr when there is no
/// usable log directory. Returns where it logs.
pub fn init(name: &str) -> Option<PathBuf> {
    let dir = log_dir().filter(|d| prepare_log_dir(d).is_ok());
    let Some(dir) = dir else {
        crate::init_logging();
        return None;
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("COTAB_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let file = Mutex::new(rotating(&dir, name));
    // A second call (tests) finds a subscriber already set; that is fine.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(file)
        .try_init();
    Some(dir.join(name))
}

/// The last `n` lines of the log `name` in `dir` (the rotated file before
/// it too, when the current one holds fewer), and how many bytes of the
/// current file they were read from: follow it from there.
pub fn tail(dir: &Path, name: &str, n: usize) -> io::Result<(Vec<String>, u64)> {
    let read = |p: PathBuf| match std::fs::read(p) {
        Ok(b) => Ok(String::from_utf8_lossy(&b).into_owned()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(e),
    };
    let current = read(dir.join(name))?;
    let read_up_to = current.len() as u64;
    let mut lines: Vec<String> = current.lines().map(str::to_string).collect();
    if lines.len() < n {
        let older = read(dir.join(format!("{name}.1")))?;
        let mut before: Vec<String> = older.lines().map(str::to_string).collect();
        before.append(&mut lines);
        lines = before;
    }
    let skip = lines.len().saturating_sub(n);
    Ok((lines.split_off(skip), read_up_to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;
    use std::os::unix::fs::PermissionsExt as _;

    #[test]
    fn the_log_directory_is_cotabs_own_then_the_state_directory_then_homes() {
        let p = |s: &str| Some(PathBuf::from(s));
        assert_eq!(resolve_log_dir(p("/l"), p("/s"), p("/h")), p("/l"));
        assert_eq!(resolve_log_dir(None, p("/s"), p("/h")), p("/s/cotab"));
        // A relative XDG_STATE_HOME is ignored, as the spec says.
        assert_eq!(
            resolve_log_dir(None, p("rel"), p("/h")),
            p("/h/.local/state/cotab")
        );
        assert_eq!(resolve_log_dir(None, None, None), None);
    }

    #[test]
    fn the_directory_is_made_private_and_someone_elses_is_refused() {
        let root = tempfile::tempdir().expect("tempdir");
        let dir = root.path().join("state").join("cotab");
        prepare_log_dir(&dir).expect("made");
        let mode = std::fs::metadata(&dir).expect("dir").permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        let open = root.path().join("open");
        std::fs::create_dir(&open).expect("dir");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        assert!(prepare_log_dir(&open).is_err());
        let link = root.path().join("link");
        std::os::unix::fs::symlink(&dir, &link).expect("link");
        assert!(prepare_log_dir(&link).is_err());
    }

    #[test]
    fn logs_rotate_past_the_cap_and_tail_reads_across_the_rotation() {
        let root = tempfile::tempdir().expect("tempdir");
        let mut log = rotating(root.path(), DAEMON_LOG);
        let line = "x".repeat(1023);
        for i in 0..(MAX_LOG_BYTES / 1024 + 8) {
            writeln!(log, "{i} {line}").expect("write");
        }
        log.flush().expect("flush");
        let size = |p: &str| std::fs::metadata(root.path().join(p)).map(|m| m.len());
        assert!(size("daemon.log.1").expect("rotated") as usize > MAX_LOG_BYTES);
        assert!((size("daemon.log").expect("current") as usize) < MAX_LOG_BYTES);
        let (last, _) = tail(root.path(), DAEMON_LOG, 20).expect("tail");
        assert_eq!(last.len(), 20);
        let n = MAX_LOG_BYTES / 1024 + 8;
        assert!(
            last[19].starts_with(&format!("{} ", n - 1)),
            "{:.20}",
            last[19]
        );
        assert!(
            last[0].starts_with(&format!("{} ", n - 20)),
            "{:.20}",
            last[0]
        );
        assert_eq!(
            tail(root.path(), "missing.log", 5).expect("none"),
            (vec![], 0)
        );
    }
}
