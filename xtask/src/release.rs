//! `cargo xtask dist [--target TRIPLE]...`: the release archives.
//!
//! It builds the extension, then `cotab` and `cotab-host` in release mode
//! for each target (the host's when none is named), then writes into
//! `target/dist/`:
//!
//! - `cotab-VERSION-TARGET.tar.gz` for each target: `bin/cotab`,
//!   `bin/cotab-host`, `extension/` (load it unpacked), the extension's
//!   zip, `install.sh`, shell completions, man pages and the README,
//!   under one top folder;
//! - `cotab-extension-VERSION.zip`: the extension, `manifest.json` at its
//!   root (its `key` fixes the extension's id wherever it is loaded);
//! - `SHA256SUMS`: every file's SHA-256, as `sha256sum -c` reads it.
//!
//! A target other than the host's needs its Rust standard library (added
//! with rustup when missing) and a C compiler for it (mimalloc is C), which
//! [`CROSS`] names for the targets a Linux machine builds with its
//! distribution's packages; cotab runs on Unix only (Unix sockets), so no
//! Windows target builds.

use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What goes into the archive.
pub(crate) struct Inputs<'a> {
    /// The version in the file names.
    pub(crate) version: &'a str,
    /// The target triple in the archive's name.
    pub(crate) target: &'a str,
    /// Where `cotab` and `cotab-host` are.
    pub(crate) bin_dir: &'a Path,
    /// The built extension (`dist/extension`).
    pub(crate) extension: &'a Path,
    /// The README that goes along.
    pub(crate) readme: &'a Path,
    /// The gzip level of the archive (0–9).
    pub(crate) level: u32,
}

/// What was written.
#[derive(Debug)]
pub(crate) struct Made {
    pub(crate) archive: PathBuf,
    pub(crate) extension_zip: PathBuf,
}

/// Cross targets and what builds them here: the C compiler for the `cc`
/// crate, the linker (none: rustc's default works), and the package that
/// brings them (Debian's).
pub(crate) const CROSS: &[Cross] = &[
    Cross {
        target: "x86_64-unknown-linux-musl",
        cc: "musl-gcc",
        linker: None,
        package: "musl-tools",
    },
    Cross {
        target: "aarch64-unknown-linux-gnu",
        cc: "aarch64-linux-gnu-gcc",
        linker: Some("aarch64-linux-gnu-gcc"),
        package: "gcc-aarch64-linux-gnu",
    },
];

/// A target [`CROSS`] knows how to build.
pub(crate) struct Cross {
    pub(crate) target: &'static str,
    pub(crate) cc: &'static str,
    pub(crate) linker: Option<&'static str>,
    pub(crate) package: &'static str,
}

impl Cross {
    /// The environment cargo needs for it, but what is set already: the
    /// caller's choice wins.
    pub(crate) fn env(&self, set: impl Fn(&str) -> bool) -> Vec<(String, String)> {
        let under = self.target.replace('-', "_");
        let mut env = vec![(format!("CC_{under}"), self.cc.to_owned())];
        if let Some(linker) = self.linker {
            env.push((
                format!("CARGO_TARGET_{}_LINKER", under.to_uppercase()),
                linker.to_owned(),
            ));
        }
        env.retain(|(k, _)| !set(k));
        env
    }
}

/// A target triple as `--target` takes it: letters, digits, `-`, `_`
/// and `.`, not empty.
pub(crate) fn triple(t: &str) -> Result<String, String> {
    let ok = !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.');
    ok.then(|| t.to_owned())
        .ok_or_else(|| "not a target triple".to_owned())
}

/// The targets asked for, each once, or the host's when none was.
pub(crate) fn targets_of(asked: Vec<String>, host: &str) -> Vec<String> {
    let mut targets: Vec<String> = Vec::new();
    for t in asked {
        if !targets.contains(&t) {
            targets.push(t);
        }
    }
    if targets.is_empty() {
        targets.push(host.to_owned());
    }
    targets
}

/// The binaries of the archive.
const BINARIES: [&str; 2] = ["cotab", "cotab-host"];

/// The install script: the binaries into `$PREFIX/bin` (default
/// `~/.local/bin`), then the host manifests (its arguments go to
/// `cotab-host install`).
const INSTALL_SH: &str = r#"#!/bin/sh
# Installs cotab from this folder: `cotab` and `cotab-host` into
# $PREFIX/bin (default: ~/.local/bin), then the native-messaging host
# manifest for the browsers this user has. Arguments go to
# `cotab-host install`: --all, --browser NAME, --system.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix=${PREFIX:-$HOME/.local}
mkdir -p "$prefix/bin"
for b in cotab cotab-host; do
    cp "$here/bin/$b" "$prefix/bin/$b.new"
    chmod 0755 "$prefix/bin/$b.new"
    mv -f "$prefix/bin/$b.new" "$prefix/bin/$b"
done
"$prefix/bin/cotab-host" install "$@" ||
    echo "No host manifest was written: run $prefix/bin/cotab-host install --browser NAME (or --all) once your browser is installed."
echo "Next: open chrome://extensions, turn on developer mode, press"
echo "\"Load unpacked\" and choose $here/extension; then run: cotab doctor"
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "Add $prefix/bin to your PATH." ;;
esac
"#;

/// `cargo xtask dist [--target TRIPLE]...`.
pub(crate) fn run(root: &Path, asked: Vec<String>) -> Result<()> {
    let host = host_target()?;
    let targets = targets_of(asked, &host);
    let extension = crate::build_extension::run(root)?;
    let target_dir = cotab_e2e::target_dir();
    let out = target_dir.join("dist");
    let mut written = Vec::new();
    for target in &targets {
        let bin_dir = build(root, target, &host)?;
        let made = package(
            &Inputs {
                version: env!("CARGO_PKG_VERSION"),
                target,
                bin_dir: &bin_dir,
                extension: &extension,
                readme: &root.join("README.md"),
                level: 9,
            },
            &out,
        )?;
        written.push(made.archive);
        if !written.contains(&made.extension_zip) {
            written.push(made.extension_zip);
        }
    }
    let sums = write_sums(&out, &written)?;
    for p in written.iter().chain([&sums]) {
        println!("{}", p.display());
    }
    Ok(())
}

/// Builds the binaries for `target` in release mode and returns where they
/// are (`target/release` for the host's, else `target/TARGET/release`).
fn build(root: &Path, target: &str, host: &str) -> Result<PathBuf> {
    let mut cargo = crate::setup::cargo(root);
    cargo.args(["build", "--release", "-p", "cotab-host", "--bins"]);
    let target_dir = cotab_e2e::target_dir();
    if target == host {
        crate::setup::run(&mut cargo)?;
        return Ok(target_dir.join("release"));
    }
    crate::setup::ensure_target(target)?;
    if let Some(cross) = CROSS.iter().find(|c| c.target == target) {
        let on_path = |tool: &str| {
            std::env::var_os("PATH")
                .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
        };
        let env = cross.env(|k| std::env::var_os(k).is_some());
        for (_, tool) in &env {
            if !on_path(tool) {
                bail!(
                    "building for {target} needs `{tool}`: apt-get install {} (or set the \
                     variables {} yourself)",
                    cross.package,
                    env.iter()
                        .map(|(k, _)| k.as_str())
                        .collect::<Vec<_>>()
                        .join(" and ")
                );
            }
        }
        cargo.envs(env);
    }
    cargo.args(["--target", target]);
    crate::setup::run(&mut cargo).with_context(|| {
        format!("building for {target} (its C compiler and linker may be missing)")
    })?;
    Ok(target_dir.join(target).join("release"))
}

/// The target triple rustc builds for by default (`rustc -vV`'s `host`).
fn host_target() -> Result<String> {
    let out = Command::new("rustc")
        .arg("-vV")
        .output()
        .context("running rustc -vV")?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .context("rustc -vV named no host")
}

/// Writes the archive, the extension's zip and the checksums into `out`.
pub(crate) fn package(inputs: &Inputs<'_>, out: &Path) -> Result<Made> {
    let name = format!("cotab-{}-{}", inputs.version, inputs.target);
    let stage = out.join(&name);
    if stage.exists() {
        fs::remove_dir_all(&stage).with_context(|| format!("removing {}", stage.display()))?;
    }
    fs::create_dir_all(stage.join("bin"))?;
    for b in BINARIES {
        let from = inputs.bin_dir.join(b);
        let to = stage.join("bin").join(b);
        fs::copy(&from, &to).with_context(|| format!("copying {}", from.display()))?;
        set_mode(&to, 0o755)?;
    }
    copy_tree(inputs.extension, &stage.join("extension"))?;
    let zip_name = format!("cotab-extension-{}.zip", inputs.version);
    let extension_zip = out.join(&zip_name);
    zip_tree(inputs.extension, &extension_zip)?;
    fs::copy(&extension_zip, stage.join(&zip_name))?;
    let script = stage.join("install.sh");
    fs::write(&script, INSTALL_SH)?;
    set_mode(&script, 0o755)?;
    fs::copy(inputs.readme, stage.join("README.md"))?;
    crate::docs_cli::completions(&stage.join("completions"))?;
    crate::docs_cli::man_pages(&stage.join("man"))?;

    let archive = out.join(format!("{name}.tar.gz"));
    tar_tree(&stage, &name, &archive, inputs.level)?;
    Ok(Made {
        archive,
        extension_zip,
    })
}

/// Writes `SHA256SUMS` into `out`: each of `files`' SHA-256 and name.
pub(crate) fn write_sums(out: &Path, files: &[PathBuf]) -> Result<PathBuf> {
    let sums = out.join("SHA256SUMS");
    let mut text = String::new();
    for f in files {
        let bytes = fs::read(f).with_context(|| format!("reading {}", f.display()))?;
        let file = f.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        text.push_str(&format!("{}  {file}\n", hex(&Sha256::digest(&bytes))));
    }
    fs::write(&sums, text).with_context(|| format!("writing {}", sums.display()))?;
    Ok(sums)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .with_context(|| format!("setting the mode of {}", path.display()))
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) -> Result<()> {
    Ok(())
}

/// The files under `dir`, relative to it, sorted (so archives come out
/// the same for the same files); a symbolic link is an error.
fn files_under(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut todo = vec![PathBuf::new()];
    while let Some(rel) = todo.pop() {
        for entry in fs::read_dir(dir.join(&rel))
            .with_context(|| format!("reading {}", dir.join(&rel).display()))?
        {
            let entry = entry?;
            let path = rel.join(entry.file_name());
            let kind = entry.file_type()?;
            if kind.is_symlink() {
                // It would put whatever it points at into the release.
                bail!("{} is a symbolic link", dir.join(&path).display());
            }
            if kind.is_dir() {
                todo.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    for rel in files_under(from)? {
        let dest = to.join(&rel);
        if let Some(parent) = dest.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::copy(from.join(&rel), &dest).with_context(|| format!("copying {}", rel.display()))?;
    }
    Ok(())
}

fn zip_tree(dir: &Path, out: &Path) -> Result<()> {
    let file = fs::File::create(out).with_context(|| format!("creating {}", out.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(0o644);
    for rel in files_under(dir)? {
        let name = rel.to_string_lossy().replace('\\', "/");
        zip.start_file(name, options)?;
        zip.write_all(&fs::read(dir.join(&rel))?)?;
    }
    zip.finish()?;
    Ok(())
}

fn tar_tree(dir: &Path, top: &str, out: &Path, level: u32) -> Result<()> {
    let file = fs::File::create(out).with_context(|| format!("creating {}", out.display()))?;
    let gz = flate2::write::GzEncoder::new(file, flate2::Compression::new(level));
    let mut tar = tar::Builder::new(gz);
    tar.mode(tar::HeaderMode::Deterministic);
    for rel in files_under(dir)? {
        tar.append_path_with_name(dir.join(&rel), Path::new(top).join(&rel))
            .with_context(|| format!("archiving {}", rel.display()))?;
    }
    tar.into_inner()?.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests;
