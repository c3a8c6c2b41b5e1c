//! `cargo xtask`: the project's automation, dispatched by subcommand name.
//!
//! - `build-extension`: wasm32 build of `extension/` and wasm-bindgen run
//!   in-process into `dist/extension/` ([`build_extension`]).
//! - `test`: everything CI checks ([`mod@test`]).
//! - `demo`: start Chromium with cotab, share a demo page and drive it as an
//!   agent ([`demo`]).
//! - `load`: the release daemon under many agents at once, checked for lost
//!   or duplicated answers and exact `BUSY` counts ([`load`]).
//! - `load-browser [--secs N]`: 8 agents on 16 shared tabs of real headless
//!   Chromium, checked for exactly-once answers and errors
//!   ([`load_browser`]).
//! - `soak [--minutes N]`: an idle shared browser must keep its extension's
//!   service worker and native port ([`soak`]).
//! - `bench`: cotab side by side with direct CDP on one browser, the daemon
//!   alone, the extension's size and start-up ([`mod@bench`]).
//! - `completions [DIR]`, `man [DIR]`: the `cotab` CLI's shell completions
//!   and man pages ([`docs_cli`]).
//! - `dist [--target TRIPLE]...`: the release archive of each target (this
//!   machine's by default), the extension's zip and their checksums in
//!   `target/dist` ([`release`]).
//! - `record-outlines`: Playwright's aria snapshots of the fixture pages,
//!   for the golden test of `page.snapshot` ([`outlines`]).

mod bench;
pub mod build_extension;
mod demo;
mod docs_cli;
mod icon;
mod load;
mod load_browser;
mod outlines;
mod release;
mod setup;
mod soak;
mod test;
mod tidy;

use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <build-extension | test | demo | load | load-browser [--secs N] | soak [--minutes N] | bench [daemon | browser] | completions [DIR] | man [DIR] | record-outlines | dist [--target TRIPLE]...>";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<()> {
    let root = workspace_root()?;
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("build-extension") => {
            build_extension::run(&root)?;
            Ok(())
        }
        Some("test") => {
            let start = std::time::Instant::now();
            test::run_all(&root)?;
            eprintln!("cargo xtask test took {:.0?}", start.elapsed());
            Ok(())
        }
        Some("demo") => {
            let start = std::time::Instant::now();
            demo::run_demo(&root)?;
            eprintln!("cargo xtask demo took {:.0?}", start.elapsed());
            Ok(())
        }
        Some("load") => load::run_load(&root),
        Some("load-browser") => load_browser::run_load_browser(&root, &args[1..]),
        Some("soak") => soak::run_soak(&root, &args[1..]),
        Some("bench") => bench::run_bench(&root, args.get(1).map(String::as_str)),
        Some("completions") => {
            let dir = docs_cli::out_dir(&root, &args[1..], "completions");
            for path in docs_cli::completions(&dir)? {
                println!("{}", path.display());
            }
            Ok(())
        }
        Some("record-outlines") => outlines::record(&root),
        Some("dist") => release::run(&root, &args[1..]),
        Some("man") => {
            let dir = docs_cli::out_dir(&root, &args[1..], "man");
            for path in docs_cli::man_pages(&dir)? {
                println!("{}", path.display());
            }
            Ok(())
        }
        Some(other) => bail!("unknown subcommand `{other}`\n{USAGE}"),
        None => bail!("{USAGE}"),
    }
}

/// The workspace root: the parent of this crate's manifest directory.
fn workspace_root() -> Result<PathBuf> {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .context("xtask's manifest directory has no parent")
}
