//! `cargo xtask record-outlines`: Playwright's aria snapshots of cotab's
//! fixture pages, recorded into `tests/fixtures/playwright/NAME.yml` for
//! the golden test of `page.snapshot` (`e2e::outline`). It installs
//! `tests/playwright`'s locked `playwright-core` under
//! `<target>/playwright` with npm (no browser download: the page is loaded
//! in the machine's Chromium), serves the fixture pages, and runs
//! `tests/playwright/record.cjs` on them. Rerun it when a fixture page or
//! the pinned Playwright changes, and commit what it writes.

use crate::setup::run;
use anyhow::{Context, Result};
use cotab_e2e::fixture::RECORDED_OUTLINES as PAGES;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Installs `tests/playwright`'s locked `playwright-core` under
/// `<target>/playwright` when it is missing or its lock changed; returns
/// its `node_modules`.
pub(crate) fn ensure_playwright(root: &Path) -> Result<PathBuf> {
    let dir = cotab_e2e::target_dir().join("playwright");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let source = root.join("tests").join("playwright");
    let lock = std::fs::read_to_string(source.join("package-lock.json"))
        .context("reading tests/playwright/package-lock.json")?;
    let stamp = dir.join("installed-lock.json");
    let modules = dir.join("node_modules");
    if std::fs::read_to_string(&stamp).is_ok_and(|had| had == lock)
        && modules.join("playwright-core").is_dir()
        && modules.join("puppeteer-core").is_dir()
    {
        return Ok(modules);
    }
    for file in ["package.json", "package-lock.json"] {
        std::fs::copy(source.join(file), dir.join(file))
            .with_context(|| format!("copying {file}"))?;
    }
    run(Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(&dir)
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1"))
    .context("installing playwright-core (needs node and npm)")?;
    std::fs::write(&stamp, lock).with_context(|| format!("writing {}", stamp.display()))?;
    Ok(modules)
}

/// Records every page of `cotab_e2e::fixture::RECORDED_OUTLINES`.
pub(crate) fn record(root: &Path) -> Result<()> {
    let modules = ensure_playwright(root)?;
    let source = root.join("tests").join("playwright");
    let out = root.join("tests").join("fixtures").join("playwright");
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let fixture = cotab_e2e::fixture::Fixture::start()?;
    let chromium = cotab_e2e::browser::chromium_path()?;
    let mut node = Command::new("node");
    node.arg(source.join("record.cjs"))
        .arg(&chromium)
        .arg(&out)
        .args(
            PAGES
                .iter()
                .map(|(name, path)| format!("{name}={}", fixture.url(path))),
        )
        .env("NODE_PATH", modules);
    run(&mut node).context("recording Playwright's snapshots")
}
