//! `cotab-host install`: writes the native-messaging host manifest that
//! lets the browser start us for the cotab extension.
//!
//! Hand-written rather than the `native_messaging` crate's installer so the
//! manifest is exactly ours: one exact origin (never a wildcard), the
//! canonical path of this executable, and a `--user-data-dir` target for
//! test profiles (which Chromium reads instead of the per-user folder).

use serde::Serialize;
use std::io;
use std::path::{Path, PathBuf};

/// Browsers we know where to install for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Browser {
    /// Chromium (also Debian's `chromium` package).
    Chromium,
    /// Google Chrome.
    Chrome,
}

#[derive(Debug, Serialize)]
struct Manifest<'a> {
    name: &'a str,
    description: &'a str,
    path: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    /// Exactly one origin, by type: the manifest can name no other
    /// extension and no pattern.
    allowed_origins: [String; 1],
}

/// The manifest's JSON for an executable at `exe_path`.
pub fn manifest_json(exe_path: &Path) -> String {
    let path = exe_path.to_string_lossy();
    let m = Manifest {
        name: cotab_shared::NATIVE_HOST_NAME,
        description: "cotab: share browser tabs with an AI agent",
        path: &path,
        kind: "stdio",
        allowed_origins: [cotab_shared::extension_origin(cotab_shared::EXTENSION_ID)],
    };
    // Serialising a struct of strings cannot fail.
    serde_json::to_string_pretty(&m).unwrap_or_default()
}

/// The folder the manifest goes to.
pub fn manifest_dir(browser: Browser, user_data_dir: Option<&Path>) -> io::Result<PathBuf> {
    if let Some(dir) = user_data_dir {
        return Ok(dir.join("NativeMessagingHosts"));
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "HOME is not set"))?;
    let base = if cfg!(target_os = "macos") {
        home.join("Library/Application Support")
            .join(match browser {
                Browser::Chromium => "Chromium",
                Browser::Chrome => "Google/Chrome",
            })
    } else {
        home.join(".config").join(match browser {
            Browser::Chromium => "chromium",
            Browser::Chrome => "google-chrome",
        })
    };
    Ok(base.join("NativeMessagingHosts"))
}

/// Writes the manifest for the running executable; returns its path.
pub fn install(browser: Browser, user_data_dir: Option<&Path>) -> io::Result<PathBuf> {
    let exe = std::env::current_exe()?.canonicalize()?;
    let dir = manifest_dir(browser, user_data_dir)?;
    std::fs::create_dir_all(&dir)?;
    let file = dir.join(format!("{}.json", cotab_shared::NATIVE_HOST_NAME));
    std::fs::write(&file, manifest_json(&exe) + "\n")?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_has_the_exact_origin() {
        let v: serde_json::Value =
            serde_json::from_str(&manifest_json(Path::new("/opt/cotab-host"))).expect("json");
        assert_eq!(v["name"], "dev.cotab.host");
        assert_eq!(v["path"], "/opt/cotab-host");
        assert_eq!(v["type"], "stdio");
        assert_eq!(
            v["allowed_origins"],
            serde_json::json!([format!(
                "chrome-extension://{}/",
                cotab_shared::EXTENSION_ID
            )])
        );
    }

    #[test]
    fn user_data_dir_wins() {
        let d = manifest_dir(Browser::Chrome, Some(Path::new("/p"))).expect("dir");
        assert_eq!(d, PathBuf::from("/p/NativeMessagingHosts"));
    }
}
