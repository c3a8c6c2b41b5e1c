//! `cotab-host install`, `uninstall` and `verify`: the native-messaging
//! host manifest that lets a browser start us for the cotab extension.
//!
//! Where each browser reads manifests — per user or system-wide, and the
//! Windows registry key that points at the file — comes from the
//! `native_messaging` crate's browser table, and the crate writes and
//! removes them. What the manifest says is cotab's and is checked after
//! every write: exactly one origin (cotab's, never a pattern) and the
//! canonical path of this executable. A browser profile given with
//! `--user-data-dir` (which Chromium reads before the per-user folder, as
//! test profiles do) is written here directly: the crate knows no such
//! place.

mod commands;

pub use commands::{install_all, uninstall_all, verify_all, Which};
use serde::Serialize;
use serde_json::Value;
use std::io;
use std::path::{Path, PathBuf};

/// The browsers cotab installs for: the Chromium family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Browser {
    /// Google Chrome.
    Chrome,
    /// Chrome for Testing.
    ChromeForTesting,
    /// Chromium (also Debian's `chromium` package).
    Chromium,
    /// Microsoft Edge.
    Edge,
    /// Brave.
    Brave,
    /// Vivaldi.
    Vivaldi,
}

impl Browser {
    /// Every browser, in the order they are listed.
    pub const ALL: [Browser; 6] = [
        Browser::Chrome,
        Browser::ChromeForTesting,
        Browser::Chromium,
        Browser::Edge,
        Browser::Brave,
        Browser::Vivaldi,
    ];

    /// Its key in the `native_messaging` crate's table.
    fn key(self) -> &'static str {
        match self {
            Browser::Chrome => "chrome",
            Browser::ChromeForTesting => "chrome_for_testing",
            Browser::Chromium => "chromium",
            Browser::Edge => "edge",
            Browser::Brave => "brave",
            Browser::Vivaldi => "vivaldi",
        }
    }

    /// Its name on the command line (`--browser`).
    pub fn name(self) -> &'static str {
        match self {
            Browser::Chrome => "chrome",
            Browser::ChromeForTesting => "chrome-for-testing",
            Browser::Chromium => "chromium",
            Browser::Edge => "edge",
            Browser::Brave => "brave",
            Browser::Vivaldi => "vivaldi",
        }
    }
}

/// For whom a manifest is installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// This user (no privileges needed).
    User,
    /// Every user of the machine (`--system`; needs root or an
    /// administrator).
    System,
}

impl Scope {
    fn crate_scope(self) -> native_messaging::Scope {
        match self {
            Scope::User => native_messaging::Scope::User,
            Scope::System => native_messaging::Scope::System,
        }
    }
}

/// Where a manifest goes: a browser's own folder at a scope, or a browser
/// profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The folder `browser` reads at `scope`.
    Browser(Browser, Scope),
    /// `<dir>/NativeMessagingHosts`, read by the browser started with
    /// `--user-data-dir=<dir>`.
    Profile(PathBuf),
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Browser(b, Scope::User) => f.write_str(b.name()),
            Target::Browser(b, Scope::System) => write!(f, "{} (system)", b.name()),
            Target::Profile(dir) => write!(f, "profile {}", dir.display()),
        }
    }
}

const DESCRIPTION: &str = "cotab: share browser tabs with an AI agent";

/// The environment variable with which the `native_messaging` crate reads
/// another browser table: refused, so no environment sends a manifest
/// elsewhere than the browsers' own folders.
const TABLE_OVERRIDE: &str = "NATIVE_MESSAGING_BROWSERS_CONFIG";

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

fn origin() -> String {
    cotab_shared::extension_origin(cotab_shared::EXTENSION_ID)
}

/// The manifest's JSON for an executable at `exe_path`.
pub fn manifest_json(exe_path: &Path) -> String {
    let path = exe_path.to_string_lossy();
    let m = Manifest {
        name: cotab_shared::NATIVE_HOST_NAME,
        description: DESCRIPTION,
        path: &path,
        kind: "stdio",
        allowed_origins: [origin()],
    };
    // Serialising a struct of strings cannot fail.
    serde_json::to_string_pretty(&m).unwrap_or_default()
}

fn file_name() -> String {
    format!("{}.json", cotab_shared::NATIVE_HOST_NAME)
}

pub(crate) fn no_table_override() -> io::Result<()> {
    if std::env::var_os(TABLE_OVERRIDE).is_some() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{TABLE_OVERRIDE} is set: unset it (cotab installs only where the browsers look)"
            ),
        ));
    }
    Ok(())
}

/// The manifest file of `target`. A browser without a folder at that
/// scope on this system (Vivaldi has no system-wide one on Linux) is
/// `Unsupported`.
pub fn manifest_path(target: &Target) -> io::Result<PathBuf> {
    match target {
        Target::Profile(dir) => Ok(dir.join("NativeMessagingHosts").join(file_name())),
        Target::Browser(browser, scope) => {
            no_table_override()?;
            let crate_scope = scope.crate_scope();
            if !native_messaging::browser_supports_scope(browser.key(), crate_scope)? {
                return Err(io::Error::new(
                    io::ErrorKind::Unsupported,
                    format!("{target} has no host-manifest folder on this system"),
                ));
            }
            native_messaging::manifest_path(
                browser.key(),
                crate_scope,
                cotab_shared::NATIVE_HOST_NAME,
            )
        }
    }
}

/// The Windows registry key (under `HKEY_CURRENT_USER` for the user scope,
/// `HKEY_LOCAL_MACHINE` for the system one) whose default value names the
/// manifest file of `browser`: Chromium browsers on Windows find manifests
/// only through it.
/// (Read from the crate's table on every system, so it is checked
/// without Windows; the crate writes the key on Windows only.)
pub fn registry_key(browser: Browser, scope: Scope) -> io::Result<String> {
    no_table_override()?;
    let cfg = native_messaging::paths::browser_cfg(browser.key())?;
    let registry = cfg
        .windows
        .as_ref()
        .and_then(|w| w.registry.as_ref())
        .filter(|_| cfg.windows_registry);
    let template = registry.and_then(|r| match scope {
        Scope::User => r.hkcu_key_template.as_ref(),
        Scope::System => r.hklm_key_template.as_ref(),
    });
    template
        .map(|t| t.replace("{name}", cotab_shared::NATIVE_HOST_NAME))
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("{} has no registry key on Windows", browser.name()),
            )
        })
}

/// Whether the browser of `target` is there (a profile always counts):
/// for this user, it has run (its folder above the manifest folder holds
/// its `Local State`; an install for it makes the folder, not that file);
/// system-wide, that folder exists.
pub fn present(target: &Target) -> bool {
    let Target::Browser(_, scope) = target else {
        return true;
    };
    let Some(dir) = manifest_path(target)
        .ok()
        .and_then(|f| f.parent().and_then(Path::parent).map(Path::to_path_buf))
    else {
        return false;
    };
    match scope {
        Scope::User => dir.join("Local State").is_file(),
        Scope::System => dir.is_dir(),
    }
}

/// For a system-wide manifest, every user's browser will start `exe`: it
/// must be root's and not writable by anyone else, nor any folder above
/// it.
#[cfg(unix)]
fn system_safe(exe: &Path) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt as _;
    let mut at = Some(exe);
    while let Some(p) = at {
        let m = std::fs::metadata(p)?;
        if m.uid() != 0 || m.mode() & 0o022 != 0 {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "{} is not root's alone (owner uid {}, mode {:o}): a system-wide manifest must \
                     point at a cotab-host only root can replace, e.g. under /usr/local/bin",
                    p.display(),
                    m.uid(),
                    m.mode() & 0o7777
                ),
            ));
        }
        at = p.parent();
    }
    Ok(())
}

#[cfg(not(unix))]
fn system_safe(_: &Path) -> io::Result<()> {
    Ok(())
}

/// This executable, resolved: what every manifest must point at.
pub fn this_executable() -> io::Result<PathBuf> {
    std::env::current_exe()?.canonicalize()
}

/// Writes the manifest of `target` for `exe` (canonical), then reads it
/// back and checks it; returns its path.
pub fn install(target: &Target, exe: &Path) -> io::Result<PathBuf> {
    let file = manifest_path(target)?;
    if matches!(target, Target::Browser(_, Scope::System)) {
        system_safe(exe)?;
    }
    match target {
        Target::Profile(_) => {
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&file, manifest_json(exe) + "\n")?;
        }
        Target::Browser(browser, scope) => native_messaging::install(
            cotab_shared::NATIVE_HOST_NAME,
            DESCRIPTION,
            exe,
            &[origin()],
            &[],
            &[browser.key()],
            scope.crate_scope(),
        )?,
    }
    check(&file, exe).map_err(|problem| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} was written but {problem}", file.display()),
        )
    })?;
    Ok(file)
}

/// Removes the manifest of `target` (and on Windows its registry key);
/// returns its path if there was one.
pub fn uninstall(target: &Target) -> io::Result<Option<PathBuf>> {
    let file = manifest_path(target)?;
    let existed = file.is_file();
    match target {
        Target::Profile(_) => {
            if existed {
                std::fs::remove_file(&file)?;
            }
        }
        Target::Browser(browser, scope) => native_messaging::remove(
            cotab_shared::NATIVE_HOST_NAME,
            &[browser.key()],
            scope.crate_scope(),
        )?,
    }
    Ok(existed.then_some(file))
}

/// What is wrong with the manifest at `file`, if anything, for `exe`: it
/// must be JSON naming cotab's host, with exactly cotab's origin, and a
/// path that resolves to `exe`.
pub fn check(file: &Path, exe: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|_| "it is missing".to_string())?;
    let json: Value = serde_json::from_str(&text).map_err(|_| "it is not JSON".to_string())?;
    let origin = origin();
    let points_at = json["path"].as_str().map(PathBuf::from);
    if points_at.as_ref().is_some_and(|p| !p.is_absolute()) {
        return Err(format!("its path {} is not absolute", json["path"]));
    }
    if json["name"] != cotab_shared::NATIVE_HOST_NAME {
        Err(format!(
            "its name is not {}",
            cotab_shared::NATIVE_HOST_NAME
        ))
    } else if json["allowed_origins"] != serde_json::json!([origin]) {
        Err(format!("its allowed_origins are not exactly [{origin}]"))
    } else if points_at.as_ref().is_none_or(|p| !p.is_file()) {
        Err(format!("its path {} is not a file", json["path"]))
    } else if points_at.and_then(|p| p.canonicalize().ok()) != exe.canonicalize().ok() {
        Err(format!(
            "its path {} is not {}",
            json["path"],
            exe.display()
        ))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests;
