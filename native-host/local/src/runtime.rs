//! The runtime directory: where it is, and the checks that make it private.
//!
//! Everything the daemon exposes lives here (`host.sock`, `agent.sock`, the
//! lock and pid files, the CLI's ticket). The directory must be ours alone:
//! a symlink, another owner or any group/other permission bit means someone
//! else could have prepared it, so we refuse to use it rather than repair it.

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Socket the relays (browser lanes) connect to.
pub const HOST_SOCKET: &str = "host.sock";
/// Socket agents connect to.
pub const AGENT_SOCKET: &str = "agent.sock";
/// Lock file held by the running daemon.
pub const LOCK_FILE: &str = "daemon.lock";
/// The running daemon's pid.
pub const PID_FILE: &str = "daemon.pid";
/// Where a relay-started daemon's stderr goes when there is no log
/// directory ([`crate::logs`]).
pub const LOG_FILE: &str = "daemon.log";
/// The `cotab` CLI's session ticket.
pub const CLI_TICKET_FILE: &str = "cli.ticket";
/// Present once `cotab release` gave control back, until `cotab acquire`
/// (or `--take`) takes it again.
pub const CLI_RELEASED_FILE: &str = "cli.released";

/// The runtime directory from the environment: `$COTAB_RUNTIME_DIR`, else
/// `$XDG_RUNTIME_DIR/cotab`, else `/tmp/cotab-<uid>`.
pub fn default_runtime_dir() -> PathBuf {
    resolve_runtime_dir(
        std::env::var_os("COTAB_RUNTIME_DIR").map(PathBuf::from),
        std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from),
        nix::unistd::getuid().as_raw(),
    )
}

fn resolve_runtime_dir(cotab: Option<PathBuf>, xdg: Option<PathBuf>, uid: u32) -> PathBuf {
    match (cotab, xdg) {
        (Some(dir), _) if !dir.as_os_str().is_empty() => dir,
        (_, Some(xdg)) if !xdg.as_os_str().is_empty() => xdg.join("cotab"),
        _ => PathBuf::from(format!("/tmp/cotab-{uid}")),
    }
}

/// Why the runtime directory cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RuntimeDirError {
    /// The path is a symlink.
    #[error("runtime directory {0} is a symlink; refusing to use it")]
    Symlink(PathBuf),
    /// The path exists but is not a directory.
    #[error("runtime directory {0} is not a directory")]
    NotADirectory(PathBuf),
    /// Another user owns it.
    #[error("runtime directory {path} is owned by uid {owner}, not by us (uid {uid})")]
    WrongOwner {
        /// The directory.
        path: PathBuf,
        /// The uid that owns it.
        owner: u32,
        /// Our uid.
        uid: u32,
    },
    /// It grants group or other permissions.
    #[error("runtime directory {path} has mode {mode:o}; it must be 0700")]
    TooOpen {
        /// The directory.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// Creating or inspecting it failed.
    #[error("runtime directory {path}: {source}")]
    Io {
        /// The directory.
        path: PathBuf,
        /// The failure.
        source: io::Error,
    },
}

/// Creates `dir` with mode 0700 if it is absent (parents as needed), then
/// checks it is a real directory, owned by us, without group/other bits.
pub fn prepare_runtime_dir(dir: &Path) -> Result<(), RuntimeDirError> {
    let io_err = |source| RuntimeDirError::Io {
        path: dir.to_path_buf(),
        source,
    };
    match fs::symlink_metadata(dir) {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(io_err)?;
        }
        Err(e) => return Err(io_err(e)),
    }
    check_runtime_dir(dir, nix::unistd::getuid().as_raw())
}

/// Checks an existing runtime directory against `uid`.
pub fn check_runtime_dir(dir: &Path, uid: u32) -> Result<(), RuntimeDirError> {
    let meta = fs::symlink_metadata(dir).map_err(|source| RuntimeDirError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    if meta.file_type().is_symlink() {
        return Err(RuntimeDirError::Symlink(dir.to_path_buf()));
    }
    if !meta.is_dir() {
        return Err(RuntimeDirError::NotADirectory(dir.to_path_buf()));
    }
    if meta.uid() != uid {
        return Err(RuntimeDirError::WrongOwner {
            path: dir.to_path_buf(),
            owner: meta.uid(),
            uid,
        });
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(RuntimeDirError::TooOpen {
            path: dir.to_path_buf(),
            mode,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uid() -> u32 {
        nix::unistd::getuid().as_raw()
    }

    #[test]
    fn resolution_order() {
        let p = |s: &str| Some(PathBuf::from(s));
        assert_eq!(
            resolve_runtime_dir(p("/a"), p("/x"), 5),
            PathBuf::from("/a")
        );
        assert_eq!(
            resolve_runtime_dir(None, p("/x"), 5),
            PathBuf::from("/x/cotab")
        );
        assert_eq!(
            resolve_runtime_dir(p(""), p(""), 5),
            PathBuf::from("/tmp/cotab-5")
        );
        assert_eq!(
            resolve_runtime_dir(None, None, 7),
            PathBuf::from("/tmp/cotab-7")
        );
    }

    #[test]
    fn creates_a_private_dir() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("a/b");
        prepare_runtime_dir(&dir).expect("created");
        let mode = fs::metadata(&dir).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        prepare_runtime_dir(&dir).expect("reused");
    }

    #[test]
    fn refuses_open_modes_symlinks_and_files() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let open = tmp.path().join("open");
        fs::create_dir(&open).expect("mkdir");
        fs::set_permissions(&open, fs::Permissions::from_mode(0o750)).expect("chmod");
        assert!(matches!(
            prepare_runtime_dir(&open),
            Err(RuntimeDirError::TooOpen { .. })
        ));

        let real = tmp.path().join("real");
        fs::create_dir(&real).expect("mkdir");
        fs::set_permissions(&real, fs::Permissions::from_mode(0o700)).expect("chmod");
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        assert!(matches!(
            prepare_runtime_dir(&link),
            Err(RuntimeDirError::Symlink(_))
        ));

        let file = tmp.path().join("file");
        fs::write(&file, b"").expect("write");
        assert!(matches!(
            prepare_runtime_dir(&file),
            Err(RuntimeDirError::NotADirectory(_))
        ));
    }

    #[test]
    fn refuses_another_owner() {
        let tmp = tempfile::tempdir().expect("tempdir");
        fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o700)).expect("chmod");
        assert!(check_runtime_dir(tmp.path(), uid()).is_ok());
        assert!(matches!(
            check_runtime_dir(tmp.path(), uid().wrapping_add(1)),
            Err(RuntimeDirError::WrongOwner { .. })
        ));
    }
}
