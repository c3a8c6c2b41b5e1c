//! `cotab doctor`: what a working cotab needs, each checked, and for each
//! failure the exact command that fixes it — the binaries and `PATH`, the
//! native-messaging host manifest of each browser (its path, its origin,
//! that it points at this `cotab-host`), the runtime directory, the daemon
//! and the browser lane, the sites agents may work on in every share, and
//! that their versions agree.

use crate::install::{self, Browser, Scope, Target};
use cotab_client::Client;
use cotab_local::runtime::{check_runtime_dir, AGENT_SOCKET};
use cotab_shared::controller::{Bye, Empty, LaneState, LaneTransport, Status, StatusResult};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One check's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    /// What was checked.
    pub name: String,
    /// Whether it holds (a browser not installed for this user counts as
    /// holding: nothing to fix).
    pub ok: bool,
    /// What was found.
    pub detail: String,
    /// The command that fixes it, when it fails.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Check {
    fn ok(name: &str, detail: String) -> Check {
        Check {
            name: name.to_owned(),
            ok: true,
            detail,
            fix: None,
        }
    }

    fn failed(name: &str, detail: String, fix: String) -> Check {
        Check {
            name: name.to_owned(),
            ok: false,
            detail,
            fix: Some(fix),
        }
    }
}

/// Where to look, as the running `cotab` sees it.
#[derive(Debug, Clone)]
pub struct Setting {
    /// The running `cotab` binary.
    pub cotab: PathBuf,
    /// `PATH`.
    pub path: Option<std::ffi::OsString>,
    /// The daemon's runtime directory.
    pub runtime_dir: PathBuf,
    /// This user's id.
    pub uid: u32,
}

/// Runs every check, in order.
pub async fn run(setting: &Setting) -> Vec<Check> {
    let mut checks = binaries(setting);
    let host = setting.cotab.with_file_name("cotab-host");
    for browser in Browser::ALL {
        checks.extend(manifest(browser, &host));
    }
    checks.push(logs());
    let dir = &setting.runtime_dir;
    match check_runtime_dir(dir, setting.uid) {
        Ok(()) => checks.push(Check::ok(
            "runtime directory",
            format!("{} (ours, private)", dir.display()),
        )),
        Err(cotab_local::runtime::RuntimeDirError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            checks.push(Check::failed(
                "runtime directory",
                format!("{} does not exist: no daemon has run", dir.display()),
                "open the browser with the cotab extension and share a tab (the browser starts \
                 the daemon), or run `cotab-host daemon`"
                    .into(),
            ));
            return checks;
        }
        Err(e) => {
            checks.push(Check::failed(
                "runtime directory",
                e.to_string(),
                format!("rm -r {} (cotab makes it again, private)", dir.display()),
            ));
            return checks;
        }
    }
    checks.extend(daemon(dir).await);
    checks
}

/// The sites agents may work on in every share (the person's grants
/// from the extension's options page and the host config's `sites`),
/// and the entries of the config that name none.
fn sites_check(sites: &[String], refused: &[usize]) -> Check {
    let now = if sites.is_empty() {
        "none: each share is for its own site only".to_owned()
    } else {
        format!("agents may work on {} in every share", sites.join(", "))
    };
    if refused.is_empty() {
        return Check::ok("sites", now);
    }
    let places: Vec<String> = refused.iter().map(|i| format!("#{}", i + 1)).collect();
    Check::failed(
        "sites",
        format!(
            "{now}; entries {} of the host config's `sites` name no site and are left out",
            places.join(", ")
        ),
        "write each as a registrable domain, `github.com` (not a url, not `mail.github.com`,          not `com`), in the host config (`cotab doctor` reads it again within a second)"
            .into(),
    )
}

/// A duration for people: `42s`, `7m 3s`, `2h 5m`, `3d 4h`.
fn uptime(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs}s"),
        60..3600 => format!("{}m {}s", secs / 60, secs % 60),
        3600..86_400 => format!("{}h {}m", secs / 3600, secs % 3600 / 60),
        _ => format!("{}d {}h", secs / 86_400, secs % 86_400 / 3600),
    }
}

/// The log directory: where it is, and that it is private (made if
/// missing).
fn logs() -> Check {
    let Some(dir) = cotab_local::logs::log_dir() else {
        return Check::failed(
            "logs",
            "no log directory: neither COTAB_LOG_DIR, XDG_STATE_HOME nor HOME is set".into(),
            "export XDG_STATE_HOME=~/.local/state (the daemon logs to stderr meanwhile)".into(),
        );
    };
    match cotab_local::logs::prepare_log_dir(&dir) {
        Ok(()) => Check::ok(
            "logs",
            format!("{} (`cotab logs` prints them)", dir.display()),
        ),
        Err(e) => Check::failed(
            "logs",
            format!("{}: {e}", dir.display()),
            format!("rm -r {} (cotab makes it again, private)", dir.display()),
        ),
    }
}

/// The `cotab` and `cotab-host` binaries, and `PATH`.
fn binaries(setting: &Setting) -> Vec<Check> {
    let mut checks = vec![Check::ok(
        "cotab",
        format!("{} {}", setting.cotab.display(), cotab_local::VERSION),
    )];
    let host = setting.cotab.with_file_name("cotab-host");
    checks.push(if host.is_file() {
        Check::ok("cotab-host", host.display().to_string())
    } else {
        Check::failed(
            "cotab-host",
            format!("{} is missing", host.display()),
            "cargo install --path native-host (installs cotab and cotab-host together)".into(),
        )
    });
    let on_path = setting.path.as_ref().and_then(|p| {
        std::env::split_paths(p)
            .map(|d| d.join("cotab"))
            .find(|c| c.is_file())
    });
    let same = |found: &Path| found.canonicalize().ok() == setting.cotab.canonicalize().ok();
    checks.push(match on_path {
        Some(found) if same(&found) => Check::ok("PATH", format!("cotab is {}", found.display())),
        Some(found) => Check::failed(
            "PATH",
            format!("`cotab` on PATH is {}, not this one", found.display()),
            format!(
                "put {} first on PATH, or cargo install --path native-host",
                setting.cotab.parent().unwrap_or(Path::new("/")).display()
            ),
        ),
        None => Check::failed(
            "PATH",
            "`cotab` is not on PATH".into(),
            "cargo install --path native-host".into(),
        ),
    });
    checks
}

/// The host manifest of `browser` for this user, if the browser is there.
fn manifest(browser: Browser, host: &Path) -> Option<Check> {
    let target = Target::Browser(browser, Scope::User);
    // No profile folder: the browser is not installed for this user.
    if !install::present(&target) {
        return None;
    }
    let file = install::manifest_path(&target).ok()?;
    let check = format!("{} host manifest", browser.name());
    let fix = format!("cotab-host install --browser {}", browser.name());
    Some(match install::check(&file, host) {
        Ok(()) => Check::ok(&check, format!("{} → {}", file.display(), host.display())),
        Err(p) => Check::failed(&check, format!("{} {p}", file.display()), fix),
    })
}

/// The daemon, the browser lane, and the versions.
async fn daemon(dir: &Path) -> Vec<Check> {
    let sock = dir.join(AGENT_SOCKET);
    let status = async {
        let mut client = Client::connect(&sock).await.ok()?;
        client.hello("cotab-doctor").await.ok()?;
        let status = client.call::<Status>(&Empty {}).await.ok();
        // The session ends at once rather than after the resume grace.
        let _ = client.call::<Bye>(&Empty {}).await;
        status
    }
    .await;
    let Some(StatusResult {
        pid,
        daemon_version,
        lane,
        extension_version,
        lane_transport,
        uptime_secs,
        sites,
        sites_refused,
        ..
    }) = status
    else {
        return vec![Check::failed(
            "daemon",
            format!("nothing answers at {}", sock.display()),
            "open the browser with the cotab extension and share a tab (the browser starts the \
             daemon), or run `cotab-host daemon`"
                .into(),
        )];
    };
    let mut checks = vec![Check::ok(
        "daemon",
        format!(
            "pid {pid}, version {daemon_version}, up {}",
            uptime(uptime_secs)
        ),
    )];
    checks.push(match lane {
        LaneState::Online => Check::ok(
            "browser lane",
            // The relay lets only cotab's origin in, so the extension
            // connected is the one of that id.
            format!(
                "online over {}, extension {} (id {})",
                match lane_transport {
                    Some(LaneTransport::WebSocket) => "the loopback WebSocket",
                    Some(LaneTransport::NativeMessaging) | None => "native messaging",
                },
                extension_version.as_deref().unwrap_or("of unknown version"),
                cotab_shared::EXTENSION_ID
            ),
        ),
        LaneState::Offline => Check::failed(
            "browser lane",
            "offline: the extension was connected and dropped".into(),
            "open the cotab popup in the browser: the extension connects again".into(),
        ),
        LaneState::Absent => Check::failed(
            "browser lane",
            "no extension has connected".into(),
            "load dist/extension unpacked at chrome://extensions (developer mode, Load \
             unpacked), then cotab-host install"
                .into(),
        ),
    });
    checks.push(sites_check(&sites, &sites_refused));
    let versions = [
        Some(cotab_local::VERSION),
        Some(daemon_version.as_str()),
        extension_version.as_deref(),
    ];
    let known: Vec<&str> = versions.into_iter().flatten().collect();
    checks.push(if known.iter().all(|v| *v == cotab_local::VERSION) {
        Check::ok("versions", format!("all {}", cotab_local::VERSION))
    } else {
        Check::failed(
            "versions",
            format!(
                "cotab {}, daemon {daemon_version}, extension {}",
                cotab_local::VERSION,
                extension_version.as_deref().unwrap_or("?")
            ),
            "rebuild and reinstall together: cargo install --path native-host && cargo xtask \
             build-extension, then reload the extension and restart the daemon (kill its pid)"
                .into(),
        )
    });
    checks
}

#[cfg(test)]
mod tests {
    use super::{sites_check, uptime};

    #[test]
    fn the_sites_of_every_share_are_shown_and_a_bad_entry_is_a_failure() {
        let none = sites_check(&[], &[]);
        assert!(none.ok);
        assert_eq!(none.detail, "none: each share is for its own site only");
        let some = sites_check(&["github.com".into(), "example.org".into()], &[]);
        assert!(some.ok, "{some:?}");
        assert!(some.detail.contains("github.com, example.org"));
        let bad = sites_check(&["github.com".into()], &[1, 3]);
        assert!(!bad.ok);
        assert!(bad.detail.contains("entries #2, #4"), "{}", bad.detail);
        assert!(bad.fix.is_some());
    }

    #[test]
    fn uptime_reads_in_the_two_largest_units() {
        assert_eq!(uptime(42), "42s");
        assert_eq!(uptime(423), "7m 3s");
        assert_eq!(uptime(7500), "2h 5m");
        assert_eq!(uptime(3 * 86_400 + 4 * 3600 + 59), "3d 4h");
    }
}
