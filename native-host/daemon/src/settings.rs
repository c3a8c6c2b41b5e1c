//! The person's settings the daemon keeps for them (the side panel and
//! the options page change them over their watch): whether what agents
//! aim at is drawn in the shared tabs, and the sites the person lets
//! agents work on in every share, each with when they granted it. Kept in
//! `settings.json` in the daemon's private state directory (the log
//! directory, 0700; the file 0600), read at start, written at each
//! change, so the choice outlives the daemon and the browser.
//!
//! Beside it, `shares.json` keeps what the person chose for each shared
//! tab (its sites, what it asks before), so it outlives a restart of the
//! daemon, not of the browser ([`KeptShare`]).
//!
//! A file that cannot be read or parsed leaves the defaults in force and
//! is logged once; it is replaced at the next change.

use crate::broker::KeptShare;
use serde::{Deserialize, Serialize};
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

/// The file's name in the state directory.
pub const FILE: &str = "settings.json";

/// The shared tabs' file's name in the state directory.
pub const SHARES_FILE: &str = "shares.json";

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

/// Where the settings live: `dir`'s [`FILE`] and [`SHARES_FILE`].
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// The store in state directory `dir`.
    pub fn in_dir(dir: &Path) -> Store {
        Store {
            dir: dir.to_path_buf(),
        }
    }

    /// The settings as saved, or the defaults.
    pub fn load(&self) -> Settings {
        read(&self.dir.join(FILE), "the person's settings").unwrap_or_default()
    }

    /// Saves `settings` ([`write`]).
    pub fn save(&self, settings: &Settings) -> std::io::Result<()> {
        write(&self.dir.join(FILE), settings)
    }

    /// The shares kept, or none; an entry this version cannot read is
    /// left out, the others kept.
    pub fn load_shares(&self) -> Vec<KeptShare> {
        let entries: Vec<serde_json::Value> =
            read(&self.dir.join(SHARES_FILE), "the shared tabs' settings").unwrap_or_default();
        entries
            .into_iter()
            .filter_map(|e| serde_json::from_value(e).ok())
            .collect()
    }

    /// Saves the shares to keep ([`write`]).
    pub fn save_shares(&self, shares: &[KeptShare]) -> std::io::Result<()> {
        write(&self.dir.join(SHARES_FILE), &shares)
    }
}

/// What `path` holds, or `None` when it is missing or unreadable (logged
/// as `what`).
fn read<T: serde::de::DeserializeOwned>(path: &Path, what: &str) -> Option<T> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .inspect_err(|_| {
                tracing::warn!(path = %path.display(), "{what} are unreadable; using the defaults");
            })
            .ok(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "could not read {what}; using the defaults");
            None
        }
    }
}

/// Writes `value` to `path` (0600): beside the file, then moved over it,
/// so a crash leaves the old file or the new one, never half of either.
fn write<T: Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let tmp = path.with_extension("json.tmp");
    let bytes = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)?;
    f.write_all(&bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)
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

    #[test]
    fn the_shared_tabs_settings_outlive_the_store_and_a_broken_file_gives_none() {
        use crate::scope::Scope;
        use cotab_shared::watch::AskBefore;
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::in_dir(dir.path());
        assert_eq!(store.load_shares(), Vec::new());
        let shares = vec![KeptShare {
            tab: cotab_shared::TabId(4),
            target: "A".into(),
            scope: Some(Scope::Any),
            ask_before: [AskBefore::Submit].into(),
        }];
        store.save_shares(&shares).expect("saved");
        assert_eq!(Store::in_dir(dir.path()).load_shares(), shares);
        // An entry of another version goes; the others stay.
        std::fs::write(
            dir.path().join(SHARES_FILE),
            br#"[{"tab":4,"target":"A","askBefore":["submit"]},{"tab":5,"target":"B","askBefore":["later"]}]"#,
        )
        .expect("write");
        let kept = store.load_shares();
        assert_eq!(kept.len(), 1, "{kept:?}");
        assert_eq!(kept[0].scope, None);
        assert_eq!(store.load(), Settings::default(), "the settings apart");
        std::fs::write(dir.path().join(SHARES_FILE), b"[{\"tab\":").expect("write");
        assert_eq!(store.load_shares(), Vec::new());
    }
}
