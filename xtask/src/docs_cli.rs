//! `cargo xtask completions [DIR]` and `cargo xtask man [DIR]`: shell
//! completions (bash, zsh, fish, elvish, PowerShell) and man pages (`cotab.1`
//! and one `cotab-COMMAND.1` per subcommand) for the `cotab` CLI, written
//! from its clap command (`cotab_host::cli::command`), so they list exactly
//! what the binary parses. Defaults: `target/completions`, `target/man`.

use anyhow::{Context, Result};
use clap_complete::Shell;
use std::fs;
use std::path::{Path, PathBuf};

/// Writes one completion script per shell into `dir`; returns their paths.
pub(crate) fn completions(dir: &Path) -> Result<Vec<PathBuf>> {
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut written = Vec::new();
    for shell in [
        Shell::Bash,
        Shell::Zsh,
        Shell::Fish,
        Shell::Elvish,
        Shell::PowerShell,
    ] {
        let mut cmd = cotab_host::cli::command();
        let path = clap_complete::generate_to(shell, &mut cmd, "cotab", dir)
            .with_context(|| format!("writing the {shell} completions"))?;
        written.push(path);
    }
    Ok(written)
}

/// Writes `cotab.1` and `cotab-COMMAND.1` for every subcommand into `dir`;
/// returns their paths.
pub(crate) fn man_pages(dir: &Path) -> Result<Vec<PathBuf>> {
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let cmd = cotab_host::cli::command();
    let mut written = Vec::new();
    let mut write = |name: String, page: clap::Command| -> Result<()> {
        let mut bytes = Vec::new();
        clap_mangen::Man::new(page)
            .render(&mut bytes)
            .with_context(|| format!("rendering {name}"))?;
        let path = dir.join(format!("{name}.1"));
        fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
        written.push(path);
        Ok(())
    };
    write("cotab".into(), cmd.clone())?;
    for sub in cmd.get_subcommands() {
        let name = format!("cotab-{}", sub.get_name());
        write(name.clone(), sub.clone().name(name))?;
    }
    Ok(written)
}

/// `dir`, else `target/<default>` under `root`.
pub(crate) fn out_dir(root: &Path, dir: Option<PathBuf>, default: &str) -> PathBuf {
    dir.unwrap_or_else(|| root.join("target").join(default))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completions_offer_every_subcommand() {
        let dir = tempfile::tempdir().expect("tempdir");
        let written = completions(dir.path()).expect("written");
        assert_eq!(written.len(), 5);
        let bash = fs::read_to_string(dir.path().join("cotab.bash")).expect("bash");
        for sub in cotab_host::cli::command().get_subcommands() {
            assert!(bash.contains(sub.get_name()), "{} missing", sub.get_name());
        }
        assert!(bash.contains("--runtime-dir"));
    }

    #[test]
    fn a_man_page_is_written_for_cotab_and_each_subcommand() {
        let dir = tempfile::tempdir().expect("tempdir");
        let written = man_pages(dir.path()).expect("written");
        let subs = cotab_host::cli::command().get_subcommands().count();
        assert_eq!(written.len(), subs + 1);
        let main = fs::read_to_string(dir.path().join("cotab.1")).expect("cotab.1");
        assert!(
            main.starts_with(".ie") || main.contains(".TH cotab"),
            "{main}"
        );
        let click = fs::read_to_string(dir.path().join("cotab-click.1")).expect("click");
        assert!(click.contains("\\-\\-button"), "{click}");
    }
}
