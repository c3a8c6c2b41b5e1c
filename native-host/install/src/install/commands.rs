//! The manifest commands of `cotab-host`: which targets they act on
//! (named browsers, all of them, the ones this machine has, or a
//! profile), and what they print.

use super::{
    check, install, manifest_path, no_table_override, present, uninstall, Browser, Scope, Target,
};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Which manifests a command acts on.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Which {
    /// These browsers (repeat the option for several). Default: every
    /// browser that has run here (its `Local State` is there).
    #[arg(long, value_enum, value_name = "NAME")]
    pub browser: Vec<Browser>,
    /// Every browser cotab knows, whether this machine has it or not.
    #[arg(long, conflicts_with = "browser")]
    pub all: bool,
    /// The system-wide folders (every user; needs root) instead of this
    /// user's.
    #[arg(long)]
    pub system: bool,
    /// The browser profile started with `--user-data-dir=DIR` instead of a
    /// browser's own folder.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["all", "system"])]
    pub user_data_dir: Option<PathBuf>,
}

impl Which {
    fn scope(&self) -> Scope {
        if self.system {
            Scope::System
        } else {
            Scope::User
        }
    }

    /// The targets named, or — with neither `--browser` nor `--all` — the
    /// browsers `default` keeps.
    fn targets(&self, default: impl Fn(&Target) -> bool) -> Vec<Target> {
        if let Some(dir) = &self.user_data_dir {
            return vec![Target::Profile(dir.clone())];
        }
        let scope = self.scope();
        let named = !self.browser.is_empty();
        let browsers: Vec<Browser> = if named {
            self.browser.clone()
        } else {
            Browser::ALL.to_vec()
        };
        browsers
            .into_iter()
            .map(|b| Target::Browser(b, scope))
            .filter(|t| named || self.all && manifest_path(t).is_ok() || !self.all && default(t))
            .collect()
    }

    /// How to run `command` again for `target` alone.
    fn fix(target: &Target, command: &str) -> String {
        match target {
            Target::Browser(b, Scope::User) => {
                format!("cotab-host {command} --browser {}", b.name())
            }
            Target::Browser(b, Scope::System) => {
                format!("sudo cotab-host {command} --system --browser {}", b.name())
            }
            Target::Profile(dir) => {
                format!("cotab-host {command} --user-data-dir {}", dir.display())
            }
        }
    }
}

fn none_found(which: &Which) -> io::Error {
    let scope = if which.system { " system-wide" } else { "" };
    io::Error::new(
        io::ErrorKind::NotFound,
        format!(
            "no browser cotab knows is installed{scope} here ({}): name one with --browser, or use --all",
            Browser::ALL.map(Browser::name).join(", ")
        ),
    )
}

/// `cotab-host install`: writes each target's manifest for `exe`. Returns
/// whether every one was written.
pub fn install_all(which: &Which, exe: &Path, out: &mut dyn Write) -> io::Result<bool> {
    no_table_override()?;
    let targets = which.targets(present);
    if targets.is_empty() {
        return Err(none_found(which));
    }
    let mut ok = true;
    for t in &targets {
        match install(t, exe) {
            Ok(file) => writeln!(out, "{t}: installed {} → {}", file.display(), exe.display())?,
            Err(e) => {
                ok = false;
                writeln!(out, "{t}: FAILED: {e}")?;
            }
        }
    }
    Ok(ok)
}

/// `cotab-host uninstall`: removes each target's manifest (by default
/// wherever one is). Returns whether every removal worked.
pub fn uninstall_all(which: &Which, out: &mut dyn Write) -> io::Result<bool> {
    no_table_override()?;
    let targets = which.targets(|t| manifest_path(t).is_ok());
    let mut ok = true;
    let mut removed = 0;
    for t in &targets {
        match uninstall(t) {
            Ok(Some(file)) => {
                removed += 1;
                writeln!(out, "{t}: removed {}", file.display())?;
            }
            Ok(None) => {}
            Err(e) => {
                ok = false;
                writeln!(out, "{t}: FAILED: {e}")?;
            }
        }
    }
    if removed == 0 && ok {
        writeln!(out, "no cotab host manifest was installed")?;
    }
    Ok(ok)
}

/// `cotab-host verify`: checks each target's manifest (by default those of
/// the browsers this machine has, and any other that exists) against
/// `exe`. Returns whether all of them hold, at least one being there.
pub fn verify_all(which: &Which, exe: &Path, out: &mut dyn Write) -> io::Result<bool> {
    no_table_override()?;
    let targets = which.targets(|t| present(t) || manifest_path(t).is_ok_and(|f| f.exists()));
    if targets.is_empty() {
        return Err(none_found(which));
    }
    let mut ok = true;
    for t in &targets {
        let file = match manifest_path(t) {
            Ok(f) => f,
            Err(e) => {
                ok = false;
                writeln!(out, "{t}: FAILED: {e}")?;
                continue;
            }
        };
        match check(&file, exe) {
            Ok(()) => writeln!(out, "{t}: ok {} → {}", file.display(), exe.display())?,
            Err(problem) => {
                ok = false;
                writeln!(
                    out,
                    "{t}: FAILED: {} {problem}; fix: {}",
                    file.display(),
                    Which::fix(t, "install")
                )?;
            }
        }
    }
    Ok(ok)
}
