//! Which local files an agent may upload with `input.setFiles`: the
//! person's host config ([`crate::config`], `uploadDirs`) names the
//! directories; every path must resolve (symlinks included) to a regular
//! file under one of them.
//!
//! It owns the path check and the content type guessed for a file the
//! page builds itself. It does not send anything to the browser
//! ([`crate::handlers`] does).
//!
//! **API Boundary:** errors never contain a submitted path: an agent must
//! not learn from them what exists on the person's disk.

use crate::config::HostConfig;
use cotab_shared::{ErrorKind, WireError};
use std::path::{Path, PathBuf};

/// Most files in one `input.setFiles`.
pub const MAX_FILES: usize = 64;

fn refused() -> WireError {
    WireError::new(
        ErrorKind::PathNotAllowed,
        "a file is missing, not a regular file, or not under a directory allowed for uploads \
         (`uploadDirs` in the cotab config)",
    )
}

/// Checks every path: absolute, resolving (symlinks followed) to a regular
/// file inside an allowed directory (itself resolved). Returns the resolved
/// paths, in order. Any failure is `PATH_NOT_ALLOWED` without the path.
pub fn check_paths(paths: &[String], config: &HostConfig) -> Result<Vec<PathBuf>, WireError> {
    let dirs: Vec<PathBuf> = config
        .upload_dirs
        .iter()
        .filter(|d| d.is_absolute())
        .filter_map(|d| std::fs::canonicalize(d).ok())
        .filter(|d| d.is_dir())
        .collect();
    paths
        .iter()
        .map(|p| {
            let p = Path::new(p);
            if !p.is_absolute() || dirs.is_empty() {
                return Err(refused());
            }
            let real = std::fs::canonicalize(p).map_err(|_| refused())?;
            let regular = std::fs::metadata(&real).is_ok_and(|m| m.is_file());
            if regular && dirs.iter().any(|d| real.starts_with(d)) {
                Ok(real)
            } else {
                Err(refused())
            }
        })
        .collect()
}

/// A content type for a file the page builds from bytes, by extension.
pub fn content_type(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "txt" | "log" | "md" => "text/plain",
        "csv" => "text/csv",
        "html" | "htm" => "text/html",
        "json" => "application/json",
        "pdf" => "application/pdf",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "zip" => "application/zip",
        "xml" => "application/xml",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(dir: &Path) -> HostConfig {
        HostConfig {
            upload_dirs: vec![dir.to_path_buf()],
            ..HostConfig::default()
        }
    }

    #[test]
    fn only_regular_files_under_allowed_dirs_pass() {
        let root = tempfile::tempdir().expect("tempdir");
        let allowed = root.path().join("allowed");
        let outside = root.path().join("outside");
        std::fs::create_dir_all(allowed.join("sub")).expect("dirs");
        std::fs::create_dir_all(&outside).expect("dirs");
        std::fs::write(allowed.join("sub/a.txt"), "a").expect("file");
        std::fs::write(outside.join("secret.txt"), "s").expect("file");
        std::os::unix::fs::symlink(outside.join("secret.txt"), allowed.join("link.txt"))
            .expect("symlink");
        let s = |p: PathBuf| p.display().to_string();
        let cfg = config(&allowed);

        let ok = check_paths(&[s(allowed.join("sub/a.txt"))], &cfg).expect("allowed");
        assert_eq!(ok.len(), 1);
        assert!(ok[0].ends_with("sub/a.txt"));
        // `..` that leaves the directory, a symlink escaping it, a
        // directory, a missing file, a relative path: all refused alike.
        for bad in [
            s(allowed.join("../outside/secret.txt")),
            s(allowed.join("link.txt")),
            s(allowed.join("sub")),
            s(allowed.join("missing.txt")),
            "sub/a.txt".to_string(),
        ] {
            let e = check_paths(std::slice::from_ref(&bad), &cfg).expect_err(&bad);
            assert_eq!(e.kind, ErrorKind::PathNotAllowed, "{bad}");
            assert!(!e.message.contains("secret") && !e.message.contains("allowed/"));
        }
        // No config: nothing is allowed.
        let none = check_paths(&[s(allowed.join("sub/a.txt"))], &HostConfig::default());
        assert_eq!(none.map_err(|e| e.kind), Err(ErrorKind::PathNotAllowed));
        // A symlinked allowed directory is resolved too.
        let alias = root.path().join("alias");
        std::os::unix::fs::symlink(&allowed, &alias).expect("symlink");
        assert!(check_paths(&[s(allowed.join("sub/a.txt"))], &config(&alias)).is_ok());
    }

    #[test]
    fn content_types_follow_the_extension() {
        assert_eq!(content_type(Path::new("/a/B.PNG")), "image/png");
        assert_eq!(content_type(Path::new("/a/b")), "application/octet-stream");
    }
}
