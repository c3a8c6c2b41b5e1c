//! `cargo xtask build-extension`: builds the extension crate for wasm32
//! (profile `wasm-release`) twice, as the service worker's module and as
//! the popup's, runs wasm-bindgen in-process on each and assembles
//! `dist/extension/`.
//!
//! The output is what Chromium loads unpacked: for each module
//! ([`MODULES`]) the generated bindings (`cotab_worker.js`,
//! `cotab_worker_bg.wasm`; `cotab_popup.js`, `cotab_popup_bg.wasm`),
//! shrunk by binaryen's `wasm-opt` (`--flatten --rereloop -Oz`) when node
//! and npm are there to install it (≈ 10 % fewer bytes to compile at
//! every start), and the wasm bytes embedded in an ES module
//! (`cotab_worker_wasm.js`) so the service worker can instantiate
//! synchronously in its first turn; the two loaders
//! and the popup page from `extension/static/`, and `manifest.json` from
//! the root, and cotab's icon at each size ([`crate::icon`]). The worker's
//! module holds none of the popup's code: the worker starts whenever the
//! browser wakes it, the popup only when the person opens it. This module
//! owns that layout; it does not build the native host.

use anyhow::{bail, Context, Result};
use base64::Engine as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The wasm target the extension is built for.
const WASM_TARGET: &str = "wasm32-unknown-unknown";

/// The Cargo profile of the wasm build (size-optimised release, see the
/// workspace's `Cargo.toml`).
const PROFILE: &str = "wasm-release";

/// What cargo names the crate's wasm (the crate name with underscores).
const CRATE_STEM: &str = "cotab_extension";

/// One wasm module of the extension: the crate feature it is built with
/// and the stem of its files.
#[derive(Debug, Clone, Copy)]
pub struct Module {
    /// The crate feature that selects its entry point.
    pub feature: &'static str,
    /// Stem of its generated files in `dist/extension/`.
    pub stem: &'static str,
}

/// The service worker's module, then the popup's.
pub const MODULES: [Module; 2] = [WORKER, POPUP];

/// The service worker's module.
pub const WORKER: Module = Module {
    feature: "worker",
    stem: "cotab_worker",
};

/// The popup page's module.
pub const POPUP: Module = Module {
    feature: "popup",
    stem: "cotab_popup",
};

impl Module {
    /// The shrunk wasm in `dist/extension/`.
    pub fn wasm_name(&self) -> String {
        format!("{}_bg.wasm", self.stem)
    }
}

/// Files copied verbatim from `extension/static/`.
const STATIC_FILES: &[&str] = &["background.js", "popup.js", "popup.html", "popup.css"];

/// Builds the extension into `<root>/dist/extension` and returns that path.
pub fn run(root: &Path) -> Result<PathBuf> {
    ensure_wasm_target()?;
    let dist = root.join("dist").join("extension");
    if dist.exists() {
        fs::remove_dir_all(&dist).with_context(|| format!("removing {}", dist.display()))?;
    }
    fs::create_dir_all(&dist).with_context(|| format!("creating {}", dist.display()))?;
    let wasm_opt = match crate::setup::ensure_wasm_opt(&target_dir(root)?) {
        Ok(wasm_opt) => Some(wasm_opt),
        Err(e) => {
            eprintln!("warning: the wasm is not shrunk ({e:#}); it works, only larger");
            None
        }
    };
    let mut sizes = Vec::new();
    for module in MODULES {
        let len = build_module(root, module, wasm_opt.as_deref(), &dist)?;
        sizes.push(format!("{} {len} bytes", module.feature));
    }

    let statics = root.join("extension").join("static");
    for name in STATIC_FILES {
        copy(&statics.join(name), &dist.join(name))?;
    }
    copy(&root.join("manifest.json"), &dist.join("manifest.json"))?;
    crate::icon::write_all(&dist)?;

    println!(
        "extension built in {} (wasm: {})",
        dist.display(),
        sizes.join(", ")
    );
    Ok(dist)
}

/// Builds `module` into `dist`: its bindings, its (shrunk) wasm and the
/// module that embeds it. Returns the wasm's size.
fn build_module(
    root: &Path,
    module: Module,
    wasm_opt: Option<&Path>,
    dist: &Path,
) -> Result<usize> {
    let wasm_in = build_wasm(root, module.feature)?;
    let tmp = tempfile::tempdir().context("creating a temporary directory")?;
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(&wasm_in)
        .out_name(module.stem)
        .web(true)?
        // The library's default differs from the CLI's: without this the
        // generated `init()` cannot find the wasm (FACTS).
        .omit_default_module_path(false)
        .typescript(false)
        // The name section is a third of the module (≈ 150 KB) and only
        // names functions in stack traces; the panic hook logs the message.
        .remove_name_section(true)
        .remove_producers_section(true)
        .generate(tmp.path())
        .context("running wasm-bindgen")?;

    let js_name = format!("{}.js", module.stem);
    let wasm_name = module.wasm_name();
    copy(&tmp.path().join(&js_name), &dist.join(&js_name))?;
    let generated = tmp.path().join(&wasm_name);
    match wasm_opt {
        Some(wasm_opt) => shrink(wasm_opt, &generated, &dist.join(&wasm_name))?,
        None => copy(&generated, &dist.join(&wasm_name))?,
    }
    let wasm = fs::read(dist.join(&wasm_name)).context("reading the generated wasm")?;
    fs::write(
        dist.join(format!("{}_wasm.js", module.stem)),
        embed_module(&wasm),
    )
    .context("writing the embedded wasm module")?;
    Ok(wasm.len())
}

/// The wasm features `wasm-opt` may keep or use: those rustc's wasm32
/// target emits (reference types are among binaryen's defaults), all
/// supported by every browser cotab runs in.
const WASM_OPT_FEATURES: &[&str] = &[
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
];

/// Runs `wasm-opt -Oz` on `input`, writing `output`, after flattening
/// the code and rebuilding its control flow (`--flatten --rereloop`),
/// which lets `-Oz` take another 3 KB off the worker's module.
fn shrink(wasm_opt: &Path, input: &Path, output: &Path) -> Result<()> {
    let status = Command::new(wasm_opt)
        .args(["--flatten", "--rereloop", "-Oz"])
        .args(WASM_OPT_FEATURES)
        .arg(input)
        .arg("-o")
        .arg(output)
        .status()
        .with_context(|| format!("running {}", wasm_opt.display()))?;
    if !status.success() {
        bail!("wasm-opt failed on {}: {status}", input.display());
    }
    Ok(())
}

/// The ES module that carries the wasm bytes, so loaders can call `initSync`
/// without a fetch (a service worker must register its listeners in its
/// first turn, and top-level `await` is refused there).
fn embed_module(wasm: &[u8]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(wasm);
    format!(
        "// Generated by `cargo xtask build-extension`; do not edit.\n\
         export const wasmBytes = Uint8Array.fromBase64(\"{b64}\");\n"
    )
}

/// Installs the wasm32 target with rustup when it is missing.
pub(crate) fn ensure_wasm_target() -> Result<()> {
    crate::setup::ensure_target(WASM_TARGET)
}

/// Builds the extension crate with [`PROFILE`] and only `feature`, and
/// returns its `.wasm` (the same path for every feature: use it before the
/// next build).
fn build_wasm(root: &Path, feature: &str) -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(&cargo)
        .current_dir(root)
        .args([
            "build",
            "-p",
            "cotab-extension",
            "--target",
            WASM_TARGET,
            "--profile",
            PROFILE,
            "--no-default-features",
            "--features",
            feature,
        ])
        .args(remapped_registry())
        .status()
        .context("running cargo build for the extension")?;
    if !status.success() {
        bail!("building the extension for {WASM_TARGET} failed");
    }
    let wasm = target_dir(root)?
        .join(WASM_TARGET)
        .join(PROFILE)
        .join(format!("{CRATE_STEM}.wasm"));
    if !wasm.is_file() {
        bail!("expected {} after the build", wasm.display());
    }
    Ok(wasm)
}

/// `--config` arguments that shorten the paths of the crates.io sources
/// the wasm names (in panic locations) to `<crate>-<version>/…`: the
/// module does not depend on where the registry is, and is smaller. None
/// when the registry's sources cannot be listed.
fn remapped_registry() -> Vec<String> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(sources) = home.map(|h| h.join("registry").join("src")) else {
        return Vec::new();
    };
    let Ok(entries) = fs::read_dir(&sources) else {
        return Vec::new();
    };
    let flags: Vec<String> = entries
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| format!("\"--remap-path-prefix={}/=\"", e.path().display()))
        .collect();
    if flags.is_empty() {
        return Vec::new();
    }
    vec![
        "--config".to_owned(),
        format!("target.{WASM_TARGET}.rustflags=[{}]", flags.join(",")),
    ]
}

/// The cargo target directory: `CARGO_TARGET_DIR` when set, else what
/// `cargo metadata` reports.
fn target_dir(root: &Path) -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        let dir = PathBuf::from(dir);
        return Ok(if dir.is_absolute() {
            dir
        } else {
            root.join(dir)
        });
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(root)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()
        .context("running cargo metadata")?;
    if !out.status.success() {
        bail!("cargo metadata failed");
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).context("parsing cargo metadata")?;
    meta.get("target_directory")
        .and_then(|v| v.as_str())
        .map(PathBuf::from)
        .context("cargo metadata has no target_directory")
}

/// Copies one file, naming both ends on failure.
fn copy(from: &Path, to: &Path) -> Result<()> {
    fs::copy(from, to)
        .map(|_| ())
        .with_context(|| format!("copying {} to {}", from.display(), to.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_module_round_trips() {
        let module = embed_module(&[0, 97, 115, 109]);
        assert!(module.contains("export const wasmBytes = Uint8Array.fromBase64(\"AGFzbQ==\");"));
    }
}
