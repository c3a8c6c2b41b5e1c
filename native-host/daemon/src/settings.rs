//! The person's settings the daemon keeps for them (the side panel and
//! the options page change them over their watch): whether what agents
//! aim at is drawn in the shared tabs, and the sites the person lets
//! agents work on in every share, each with when they granted it. Kept in `settings.json` in the daemon's private state directory
//! (the log directory, 0700; the file 0600), read at start, written at
//! each change, so the choice outlives the daemon and the browser.
//!
//! A file that cannot be read or parsed leaves the defaults in force and
//! is logged once; it is replaced at the next change.

use serde::{Deserialize, Serialize};
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

/// The file's name in the state directory.
pub const FILE: &str = "settings.json";

/// The person's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// Whether what agents aim at is drawn in the shared tabs.
    pub agent_pointer: bool,
    /// The sites the person lets agents work on in every share.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sites: Vec<Granted>,
}

/// A site the person granted for every share.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Granted {
    /// The site (a registrable domain).
    pub site: String,
    /// When, in milliseconds since the Unix epoch.
    pub granted_ms: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            agent_pointer: true,
            sites: Vec::new(),
        }
    }
}

/// Where the settings live: `dir`'s [`FILE`].
#[derive(Debug, Clone)]
pub struct Store {
    path: PathBuf,
}

impl Store {
    /// The store in state directory `dir`.
    pub fn in_dir(dir: &Path) -> Store {
        Store {
            path: dir.join(FILE),
        }
    }

    /// The settings as saved, or the defaults.
    pub fn load(&self) -> Settings {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|_| {
                tracing::warn!(path = %self.path.display(), "the person's settings are unreadable; using the defaults");
                Settings::default()
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Settings::default(),
            Err(e) => {
                tracing::warn!(path = %self.path.display(), error = %e, "could not read the person's settings; using the defaults");
                Settings::default()
            }
        }
    }

    /// Saves `settings`: written beside the file, then moved over it, so a
    /// crash leaves the old file or the new one, never half of either.
    pub fn save(&self, settings: &Settings) -> std::io::Result<()> {
        let tmp = self.path.with_extension("json.tmp");
        let bytes = serde_json::to_vec(settings).map_err(std::io::Error::other)?;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_outlive_the_store_and_a_broken_file_gives_the_defaults() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::in_dir(dir.path());
        assert_eq!(store.load(), Settings::default());
        assert!(store.load().agent_pointer);
        let granted = Granted {
            site: "github.com".into(),
            granted_ms: 1_700_000_000_000,
        };
        store
            .save(&Settings {
                agent_pointer: false,
                sites: vec![granted.clone()],
            })
            .expect("saved");
        let loaded = Store::in_dir(dir.path()).load();
        assert!(!loaded.agent_pointer);
        assert_eq!(loaded.sites, vec![granted]);
        // A file of before the sites reads with none.
        std::fs::write(dir.path().join(FILE), br#"{"agentPointer":false}"#).expect("write");
        assert_eq!(store.load().sites, Vec::new());
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(dir.path().join(FILE))
            .expect("file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        std::fs::write(dir.path().join(FILE), b"{not json").expect("write");
        assert_eq!(store.load(), Settings::default());
    }
}
