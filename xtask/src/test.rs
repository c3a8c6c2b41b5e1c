//! `cargo xtask test`: everything CI checks, in order of cost — formatting,
//! lints (native and wasm32), docs, the wasm32 extension build, the host
//! binaries, and every test including the end-to-end ones in Chromium.

use crate::build_extension::ensure_wasm_target;
use crate::setup::{
    cargo, ensure_chromium, ensure_components, ensure_mcp_client, ensure_mcp_python, run,
    warm_chromium,
};
use anyhow::Result;
use std::path::Path;

/// Runs every check and test.
pub(crate) fn run_all(root: &Path) -> Result<()> {
    ensure_components()?;
    ensure_wasm_target()?;
    ensure_chromium()?;
    ensure_mcp_client(&cotab_e2e::target_dir())?;
    ensure_mcp_python(root, &cotab_e2e::target_dir())?;
    // The CDP endpoint's end-to-end clients (and Playwright's outlines).
    crate::outlines::ensure_playwright(root)?;
    run(cargo(root).args(["fmt", "--all", "--", "--check"]))?;
    run(cargo(root).args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;
    // Each module as it is built: the worker's and the popup's.
    for module in crate::build_extension::MODULES {
        run(cargo(root).args([
            "clippy",
            "-p",
            "cotab-extension",
            "--target",
            "wasm32-unknown-unknown",
            "--no-default-features",
            "--features",
            module.feature,
            "--",
            "-D",
            "warnings",
        ]))?;
    }
    run(cargo(root)
        .args(["doc", "--workspace", "--no-deps"])
        .env("RUSTDOCFLAGS", "-D warnings"))?;
    crate::build_extension::run(root)?;
    run(cargo(root).args(["build", "-p", "cotab-host", "--bins"]))?;
    warm_chromium()?;
    run(cargo(root).args(["test", "--workspace"]))?;
    eprintln!("cargo xtask test: all checks passed");
    Ok(())
}
