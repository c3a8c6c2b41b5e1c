//! The person's host config: where it is (`$COTAB_CONFIG`, default
//! `$XDG_CONFIG_HOME/cotab/config.json` or `~/.config/cotab/config.json`),
//! how it is read, and what it allows agents besides the shared tabs'
//! web pages:
//!
//! ```json
//! {"uploadDirs": ["/home/ada/Uploads"], "fileDirs": ["/home/ada/site"],
//!  "sites": ["github.com"]}
//! ```
//!
//! `uploadDirs`: the directories `input.setFiles` may upload from
//! ([`crate::uploads`], read at every upload). `fileDirs`: the directories
//! whose local files (`file:` urls) may be shared and driven by agents
//! ([`cotab_shared::reach::LocalFiles`]); the daemon follows changes to
//! them within a second ([`Watch`]) and tells the extension. `sites`: the
//! sites agents may work on in every share, besides each share's own
//! ([`crate::scope`]), followed as `fileDirs` are; an entry that names no
//! site is left out and reported ([`HostConfig::sites`]), the others
//! apply. Absent file, absent keys: nothing of any.
//!
//! **API Boundary:** errors never contain a path from the config or from
//! an agent.

use cotab_shared::reach::LocalFiles;
use cotab_shared::{ErrorKind, WireError};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Environment variable naming the host config file.
pub const CONFIG_ENV: &str = "COTAB_CONFIG";

/// The host config (`config.json`): what the person lets agents reach.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostConfig {
    /// Directories files may be uploaded from.
    #[serde(default)]
    pub upload_dirs: Vec<PathBuf>,
    /// Directories whose local files agents may reach.
    #[serde(default)]
    pub file_dirs: Vec<PathBuf>,
    /// How much of the activity record is kept.
    #[serde(default)]
    pub activity: ActivityConfig,
    /// Sites agents may work on in every share, as the person wrote them
    /// ([`HostConfig::sites`] reads them).
    #[serde(default, rename = "sites")]
    pub site_names: Vec<String>,
}

/// `"activity": {"maxMegabytes": 200, "maxDays": 7}` in the host config:
/// the activity record's bounds ([`cotab_local::record::Limits`]);
/// `maxMegabytes` 0 keeps no record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ActivityConfig {
    /// All sessions together, in MiB (default 200).
    pub max_megabytes: Option<u64>,
    /// A session last written longer ago goes (default 7).
    pub max_days: Option<u64>,
}

impl ActivityConfig {
    /// The bounds, defaults filled in.
    pub fn limits(&self) -> cotab_local::record::Limits {
        let default = cotab_local::record::Limits::default();
        cotab_local::record::Limits {
            max_bytes: self
                .max_megabytes
                .map_or(default.max_bytes, |m| m.saturating_mul(1 << 20)),
            max_age: self.max_days.map_or(default.max_age, |d| {
                std::time::Duration::from_secs(d.saturating_mul(86_400))
            }),
        }
    }
}

impl HostConfig {
    /// [`HostConfig::site_names`] read as sites ([`crate::scope::site_named`]:
    /// `GitHub.com` is `github.com`), once each, and the places (from 0)
    /// of the entries that name none (`https://github.com/`, `com`,
    /// `mail.example.com`), which are left out.
    pub fn sites(&self) -> (std::collections::BTreeSet<String>, Vec<usize>) {
        let mut sites = std::collections::BTreeSet::new();
        let mut refused = Vec::new();
        for (i, name) in self.site_names.iter().enumerate() {
            match crate::scope::site_named(name) {
                Some(site) => {
                    sites.insert(site);
                }
                None => refused.push(i),
            }
        }
        (sites, refused)
    }

    /// [`HostConfig::file_dirs`] as the extension checks them: absolute
    /// directories that exist, symlinks resolved, in order, once each.
    pub fn local_files(&self) -> LocalFiles {
        let mut dirs: Vec<String> = Vec::new();
        for dir in self.file_dirs.iter().filter(|d| d.is_absolute()) {
            let Ok(real) = std::fs::canonicalize(dir) else {
                continue;
            };
            if let (true, Some(text)) = (real.is_dir(), real.to_str()) {
                if !dirs.iter().any(|d| d == text) {
                    dirs.push(text.to_owned());
                }
            }
        }
        LocalFiles(dirs)
    }
}

/// Where the host config is: `$COTAB_CONFIG`, else
/// `$XDG_CONFIG_HOME/cotab/config.json`, else `~/.config/cotab/config.json`.
pub fn config_path() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(p) = var(CONFIG_ENV) {
        return Some(p);
    }
    let base = var("XDG_CONFIG_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| var("HOME").map(|h| h.join(".config")))?;
    Some(base.join("cotab").join("config.json"))
}

/// Reads the config at `path`. An absent file allows nothing; an unreadable
/// or malformed one is an error (the person meant to configure something).
pub fn load(path: Option<&Path>) -> Result<HostConfig, WireError> {
    let Some(path) = path else {
        return Ok(HostConfig::default());
    };
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|_| {
            WireError::new(
                ErrorKind::CommandFailed,
                "the cotab config file is not valid: expected {\"uploadDirs\": [\"/abs/dir\"], \"fileDirs\": [\"/abs/dir\"], \"sites\": [\"example.com\"], \"activity\": {\"maxMegabytes\": 200, \"maxDays\": 7}}",
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(HostConfig::default()),
        Err(_) => Err(WireError::new(
            ErrorKind::CommandFailed,
            "the cotab config file cannot be read",
        )),
    }
}

/// Notices changes to the config file by its modification time and size,
/// so it is read again only when it changed.
#[derive(Debug, Default)]
pub struct Watch {
    seen: Option<Option<(SystemTime, u64)>>,
}

impl Watch {
    /// The config at `path`, if it changed (appeared, went, was written)
    /// since the last call, or on the first call. An unreadable or malformed
    /// file reads as allowing nothing.
    pub fn changed(&mut self, path: Option<&Path>) -> Option<HostConfig> {
        let stamp = path
            .and_then(|p| std::fs::metadata(p).ok())
            .map(|m| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len()));
        if self.seen == Some(stamp) {
            return None;
        }
        self.seen = Some(stamp);
        Some(load(path).unwrap_or_else(|_| {
            tracing::warn!("the cotab config file is not valid; it allows nothing");
            HostConfig::default()
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_file_is_read_and_absent_allows_nothing() {
        let root = tempfile::tempdir().expect("tempdir");
        let path = root.path().join("config.json");
        assert_eq!(load(Some(&path)), Ok(HostConfig::default()));
        std::fs::write(&path, r#"{"uploadDirs": ["/tmp/x"], "other": 1}"#).expect("write");
        assert_eq!(
            load(Some(&path)).expect("valid").upload_dirs,
            vec![PathBuf::from("/tmp/x")]
        );
        std::fs::write(&path, "{nope").expect("write");
        assert_eq!(
            load(Some(&path)).map_err(|e| e.kind),
            Err(ErrorKind::CommandFailed)
        );
    }

    #[test]
    fn the_activity_records_bounds_default_and_a_typo_is_refused() {
        let root = tempfile::tempdir().expect("tempdir");
        let path = root.path().join("config.json");
        assert_eq!(
            HostConfig::default().activity.limits(),
            cotab_local::record::Limits::default()
        );
        std::fs::write(&path, r#"{"activity": {"maxMegabytes": 5, "maxDays": 1}}"#).expect("write");
        let limits = load(Some(&path)).expect("valid").activity.limits();
        assert_eq!(limits.max_bytes, 5 << 20);
        assert_eq!(limits.max_age, std::time::Duration::from_secs(86_400));
        std::fs::write(&path, r#"{"activity": {"maxMegabyte": 5}}"#).expect("write");
        assert!(load(Some(&path)).is_err());
        std::fs::write(&path, r#"{"activity": {"maxDays": -1}}"#).expect("write");
        assert!(load(Some(&path)).is_err());
    }

    #[test]
    fn file_dirs_are_resolved_and_only_existing_absolute_directories_count() {
        let root = tempfile::tempdir().expect("tempdir");
        let site = root.path().join("site");
        std::fs::create_dir(&site).expect("dir");
        std::fs::write(root.path().join("plain"), "x").expect("file");
        let alias = root.path().join("alias");
        std::os::unix::fs::symlink(&site, &alias).expect("symlink");
        let config = HostConfig {
            file_dirs: vec![
                alias,
                site.clone(),
                root.path().join("plain"),
                root.path().join("missing"),
                PathBuf::from("relative/dir"),
            ],
            ..HostConfig::default()
        };
        let real = std::fs::canonicalize(&site).expect("real");
        assert_eq!(
            config.local_files(),
            LocalFiles(vec![real.display().to_string()])
        );
    }

    #[test]
    fn sites_are_read_as_sites_and_an_entry_that_names_none_is_left_out() {
        let config: HostConfig = serde_json::from_str(
            r#"{"sites": ["GitHub.com", "https://bank.test/", "com", "example.org", "github.com"]}"#,
        )
        .expect("valid");
        let (sites, refused) = config.sites();
        assert_eq!(
            sites.into_iter().collect::<Vec<_>>(),
            ["example.org", "github.com"]
        );
        assert_eq!(refused, [1, 2]);
        // Not a list of names: the whole file is not valid.
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.json");
        std::fs::write(&path, r#"{"sites": "github.com"}"#).expect("write");
        assert!(load(Some(&path)).is_err());
        assert_eq!(HostConfig::default().sites(), Default::default());
    }

    #[test]
    fn the_watch_reads_again_only_after_a_change() {
        let root = tempfile::tempdir().expect("tempdir");
        let path = root.path().join("config.json");
        let mut watch = Watch::default();
        assert_eq!(watch.changed(Some(&path)), Some(HostConfig::default()));
        assert_eq!(watch.changed(Some(&path)), None);
        std::fs::write(&path, r#"{"fileDirs": ["/tmp"]}"#).expect("write");
        let read = watch.changed(Some(&path)).expect("changed");
        assert_eq!(read.file_dirs, vec![PathBuf::from("/tmp")]);
        assert_eq!(watch.changed(Some(&path)), None);
        std::fs::write(&path, "{nope, longer than before").expect("write");
        assert_eq!(watch.changed(Some(&path)), Some(HostConfig::default()));
        std::fs::remove_file(&path).expect("rm");
        assert_eq!(watch.changed(Some(&path)), Some(HostConfig::default()));
    }
}
