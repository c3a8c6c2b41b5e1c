//! The files `cotab mcp` writes for the tools that take a `filename`
//! (`browser_take_screenshot`, `browser_snapshot`, `browser_pdf_save`), as
//! Playwright MCP's do: a name given is resolved against the workspace
//! root (the directory `cotab mcp` started in), and a file the tool names
//! itself (`page-<timestamp>.pdf`) goes to the output directory
//! (`--output-dir`; by default `.cotab-mcp` in the workspace, or in the
//! temporary directory, private to the user, when the workspace is `/` or
//! not writable).
//!
//! The name comes from the model and is hostile: it reaches no file
//! outside the workspace root. A name with a `..` segment, an absolute
//! path elsewhere, a directory on the way that leads out (a symlink), or a
//! symlink as the file itself is refused `PATH_NOT_ALLOWED`, and nothing is
//! written. The output directory is the person's choice and may lie
//! anywhere.

use super::outcome::ToolFailure;
use cotab_shared::ErrorKind;
use std::collections::HashSet;
use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, OpenOptionsExt as _};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// The default output directory, in the workspace root.
pub const DEFAULT_OUTPUT_DIR: &str = ".cotab-mcp";

/// Where `cotab mcp` writes files.
#[derive(Debug, Clone)]
pub struct Files {
    root: PathBuf,
    output_dir: PathBuf,
    /// The files this server wrote: the only ones a name may replace.
    written: Arc<Mutex<HashSet<PathBuf>>>,
}

impl Files {
    /// Files named against `root`, the ones named by the tools in
    /// `output_dir` (relative to `root`; [`DEFAULT_OUTPUT_DIR`] when
    /// absent).
    pub fn new(root: PathBuf, output_dir: Option<PathBuf>) -> Files {
        let output_dir = match output_dir {
            Some(dir) => root.join(dir),
            None if root != Path::new("/") && writable(&root) => root.join(DEFAULT_OUTPUT_DIR),
            None => {
                std::env::temp_dir().join(format!("{DEFAULT_OUTPUT_DIR}-{}", nix::unistd::getuid()))
            }
        };
        Files {
            root,
            output_dir,
            written: Arc::default(),
        }
    }

    /// Makes the output directory: private to the user when it is made
    /// here; one that exists must be a directory of the user's, not a
    /// symlink (in a shared temporary directory, another user may have
    /// made it first).
    fn output_dir(&self) -> Result<&Path, ToolFailure> {
        let dir = &self.output_dir;
        match std::fs::symlink_metadata(dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(dir)
                    .map_err(|e| io_failure("the output directory could not be created", &e))?;
            }
            Err(e) => return Err(io_failure("the output directory cannot be read", &e)),
            Ok(m) if !m.is_dir() || m.uid() != nix::unistd::getuid().as_raw() => {
                return Err(not_allowed(
                    "the output directory is not a directory of this user's",
                ))
            }
            Ok(_) => {}
        }
        Ok(dir)
    }

    /// Writes `bytes` to `filename` in the workspace, or to `generated`
    /// (a plain file name) in the output directory when no name was
    /// given. Returns the path as the answer shows it: relative to the
    /// workspace root when inside it.
    pub(crate) async fn save(
        &self,
        filename: Option<&str>,
        generated: String,
        bytes: Vec<u8>,
    ) -> Result<String, ToolFailure> {
        let files = self.clone();
        let filename = filename.map(str::to_string);
        tokio::task::spawn_blocking(move || {
            let path = match filename {
                Some(name) => files.inside_root(&name)?,
                None => files.output_dir()?.join(generated),
            };
            // A file of the person's (their code, their notes) is never
            // replaced: only a new one, or one this server wrote.
            let written = files.written.lock().unwrap_or_else(PoisonError::into_inner);
            let replace = written.contains(&path);
            drop(written);
            write_file(&path, &bytes, replace)?;
            files
                .written
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(path.clone());
            Ok(files.shown(&path))
        })
        .await
        .map_err(|_| ToolFailure::new(ErrorKind::CommandFailed, "writing the file failed"))?
    }

    /// `name` resolved against the root, its missing directories made:
    /// refused unless every part of it stays inside the root.
    fn inside_root(&self, name: &str) -> Result<PathBuf, ToolFailure> {
        let given = Path::new(name);
        if name.is_empty() || name.contains('\0') || name.ends_with('/') {
            return Err(not_allowed("`filename` must name a file"));
        }
        if given
            .components()
            .any(|c| matches!(c, Component::ParentDir))
        {
            return Err(not_allowed("`filename` may not contain `..`"));
        }
        let path = self.root.join(given);
        let root = self
            .root
            .canonicalize()
            .map_err(|e| io_failure("the workspace root cannot be read", &e))?;
        if !path.starts_with(&self.root) && !path.starts_with(&root) {
            return Err(not_allowed(
                "`filename` must lie inside the workspace root (the directory cotab mcp \
                 started in)",
            ));
        }
        let parent = path.parent().unwrap_or(&self.root);
        // The deepest directory that exists decides where the rest is
        // made: a symlink on the way out of the root is caught before
        // anything is created.
        let mut existing = parent;
        while !existing.exists() {
            existing = existing.parent().unwrap_or(&self.root);
        }
        let real = existing
            .canonicalize()
            .map_err(|e| io_failure("the file's directory cannot be read", &e))?;
        if !real.starts_with(&root) {
            return Err(not_allowed(
                "`filename` leads out of the workspace root (through a symlink)",
            ));
        }
        std::fs::create_dir_all(parent)
            .map_err(|e| io_failure("the file's directory could not be created", &e))?;
        Ok(path)
    }

    fn shown(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }
}

/// Whether this user may make files in `dir`.
fn writable(dir: &Path) -> bool {
    nix::unistd::access(dir, nix::unistd::AccessFlags::W_OK).is_ok()
}

/// Writes `bytes` to a new file at `path`, or when `replace` over the
/// regular file there; a symlink there is refused, and so is any file
/// there unless `replace`.
fn write_file(path: &Path, bytes: &[u8], replace: bool) -> Result<(), ToolFailure> {
    let mut options = std::fs::OpenOptions::new();
    options
        .write(true)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits());
    if replace {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    let mut file = options.open(path).map_err(|e| match e.raw_os_error() {
        Some(code) if code == nix::errno::Errno::ELOOP as i32 => {
            not_allowed("`filename` names a symlink")
        }
        Some(code) if code == nix::errno::Errno::EEXIST as i32 => not_allowed(
            "`filename` names a file that exists: cotab mcp writes new files, and replaces only              those it wrote; choose another name",
        ),
        _ => io_failure("the file could not be written", &e),
    })?;
    file.write_all(bytes)
        .map_err(|e| io_failure("the file could not be written", &e))
}

fn not_allowed(message: &str) -> ToolFailure {
    ToolFailure::new(ErrorKind::PathNotAllowed, message)
}

/// A failure to write, with the system's reason (never the path: the
/// model gave it and reads it back from its own call).
fn io_failure(what: &str, e: &std::io::Error) -> ToolFailure {
    ToolFailure::new(ErrorKind::CommandFailed, format!("{what}: {}", e.kind()))
}

/// `page-<timestamp>.<ext>`, as Playwright MCP names the files it names
/// itself; the timestamp is UTC, to the millisecond.
pub(crate) fn generated_name(ext: &str) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let (secs, millis) = (now.as_secs(), now.subsec_millis());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "page-{y:04}-{m:02}-{d:02}T{:02}-{:02}-{:02}-{millis:03}Z.{ext}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> (tempfile::TempDir, Files) {
        let dir = tempfile::tempdir().expect("tempdir");
        let files = Files::new(dir.path().to_path_buf(), None);
        (dir, files)
    }

    fn kind(r: Result<String, ToolFailure>) -> Option<ErrorKind> {
        r.err().and_then(|e| e.kind)
    }

    #[tokio::test]
    async fn a_name_is_written_in_the_workspace_and_shown_relative() {
        let (dir, files) = files();
        let shown = files
            .save(Some("shots/a.png"), "x".into(), b"png".to_vec())
            .await
            .expect("saved");
        assert_eq!(shown, "shots/a.png");
        assert_eq!(
            std::fs::read(dir.path().join("shots/a.png")).expect("test io"),
            b"png"
        );
        // Again: the file is replaced.
        files
            .save(Some("shots/a.png"), "x".into(), b"2".to_vec())
            .await
            .expect("replaced");
        assert_eq!(
            std::fs::read(dir.path().join("shots/a.png")).expect("test io"),
            b"2"
        );
        // An absolute name inside the root is taken too.
        let inside = dir.path().join("b.pdf");
        let shown = files
            .save(inside.to_str(), "x".into(), b"pdf".to_vec())
            .await
            .expect("saved");
        assert_eq!(shown, "b.pdf");
    }

    #[tokio::test]
    async fn without_a_name_the_file_goes_to_the_output_directory() {
        let (dir, files) = files();
        let shown = files
            .save(None, generated_name("pdf"), b"pdf".to_vec())
            .await
            .expect("saved");
        assert!(shown.starts_with(".cotab-mcp/page-"), "{shown}");
        assert!(shown.ends_with("Z.pdf"), "{shown}");
        assert_eq!(
            std::fs::read(dir.path().join(&shown)).expect("test io"),
            b"pdf"
        );
    }

    #[tokio::test]
    async fn no_name_reaches_outside_the_workspace() {
        let (dir, files) = files();
        let outside = tempfile::tempdir().expect("tempdir");
        let target = outside.path().join("victim");
        std::fs::write(&target, b"keep").expect("test io");
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).expect("test io");
        std::os::unix::fs::symlink(&target, dir.path().join("link.png")).expect("test io");
        let absolute = target.to_str().expect("test io").to_string();
        // A file of the person's inside the workspace is not replaced.
        std::fs::write(dir.path().join("main.rs"), b"fn main() {}").expect("test io");
        for name in [
            "../victim",
            "a/../../victim",
            absolute.as_str(),
            "out/victim",
            "out/new/dir/x.png",
            "link.png",
            "main.rs",
            "",
            "dir/",
        ] {
            let r = files.save(Some(name), "x".into(), b"evil".to_vec()).await;
            assert_eq!(kind(r), Some(ErrorKind::PathNotAllowed), "{name:?}");
        }
        assert_eq!(std::fs::read(&target).expect("test io"), b"keep");
        assert_eq!(
            std::fs::read(dir.path().join("main.rs")).expect("test io"),
            b"fn main() {}"
        );
        assert!(!outside.path().join("new").exists(), "nothing made outside");
    }

    #[tokio::test]
    async fn a_workspace_at_the_root_puts_output_in_a_private_temporary_directory() {
        let files = Files::new(PathBuf::from("/"), None);
        let want =
            std::env::temp_dir().join(format!("{DEFAULT_OUTPUT_DIR}-{}", nix::unistd::getuid()));
        assert_eq!(files.output_dir, want);
        // Someone else's directory, or a symlink, is not written to.
        let dir = tempfile::tempdir().expect("tempdir");
        let elsewhere = tempfile::tempdir().expect("tempdir");
        std::os::unix::fs::symlink(elsewhere.path(), dir.path().join("out")).expect("link");
        let files = Files::new(dir.path().to_path_buf(), Some("out".into()));
        let r = files.save(None, "x.png".into(), b"x".to_vec()).await;
        assert_eq!(kind(r), Some(ErrorKind::PathNotAllowed));
        assert!(!elsewhere.path().join("x.png").exists());
        // One this user made is used, private.
        let files = Files::new(dir.path().to_path_buf(), Some("made".into()));
        files
            .save(None, "x.png".into(), b"x".to_vec())
            .await
            .expect("saved");
        let mode = std::fs::metadata(dir.path().join("made"))
            .expect("made")
            .mode();
        assert_eq!(mode & 0o777, 0o700);
    }

    #[test]
    fn generated_names_carry_a_utc_timestamp() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_788), (2026, 12, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        let name = generated_name("png");
        assert!(name.starts_with("page-20"), "{name}");
        assert_eq!(name.len(), "page-2026-12-01T18-22-06-123Z.png".len());
    }
}
