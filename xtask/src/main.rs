//! `cargo xtask`: the project's automation, one task per subcommand as clap
//! parses them ([`Task`]).
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

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// `cargo xtask`'s command line, as clap parses it.
#[derive(Debug, Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    about = "cotab's automation: build, test, measure, package",
    disable_help_subcommand = true
)]
struct Xtask {
    #[command(subcommand)]
    task: Task,
}

/// One task.
#[derive(Debug, Subcommand)]
enum Task {
    /// Build the extension (wasm32, wasm-bindgen in-process) into dist/extension.
    BuildExtension,
    /// Everything CI checks: formatting, lints, docs, the wasm build, every test.
    Test,
    /// Start Chromium with cotab, share a demo page and drive it as an agent.
    Demo,
    /// The release daemon under many agents at once, checked for lost or
    /// duplicated answers and exact BUSY counts.
    Load,
    /// 8 agents on 16 shared tabs of real headless Chromium.
    LoadBrowser {
        /// How long to run, in seconds.
        #[arg(long, default_value_t = load_browser::DEFAULT_SECS, value_parser = clap::value_parser!(u64).range(1..))]
        secs: u64,
    },
    /// An idle shared browser must keep its extension's worker and port.
    Soak {
        /// How long to run, in minutes.
        #[arg(long, default_value_t = soak::DEFAULT_MINUTES, value_parser = clap::value_parser!(u64).range(1..))]
        minutes: u64,
    },
    /// cotab side by side with direct CDP on one browser, the daemon alone,
    /// the extension's size and start-up.
    Bench {
        /// Only this part (default: all of them).
        #[arg(value_enum)]
        part: Option<bench::Part>,
    },
    /// The cotab CLI's shell completions (default: target/completions).
    Completions {
        /// Where to write them.
        dir: Option<PathBuf>,
    },
    /// The cotab CLI's man pages (default: target/man).
    Man {
        /// Where to write them.
        dir: Option<PathBuf>,
    },
    /// Playwright's aria snapshots of the fixture pages, for the golden
    /// test of page.snapshot.
    RecordOutlines,
    /// The release archive of each target (this machine's by default), the
    /// extension's zip and their checksums in target/dist.
    Dist {
        /// A target triple; repeatable.
        #[arg(long = "target", value_name = "TRIPLE", value_parser = release::triple)]
        targets: Vec<String>,
    },
}

fn main() -> ExitCode {
    let xtask = Xtask::parse();
    match run(xtask.task) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `task`, each by its module.
fn run(task: Task) -> Result<()> {
    let root = workspace_root()?;
    match task {
        Task::BuildExtension => build_extension::run(&root).map(drop),
        Task::Test => timed("test", || test::run_all(&root)),
        Task::Demo => timed("demo", || demo::run_demo(&root)),
        Task::Load => load::run_load(&root),
        Task::LoadBrowser { secs } => load_browser::run_load_browser(&root, secs),
        Task::Soak { minutes } => soak::run_soak(&root, minutes),
        Task::Bench { part } => bench::run_bench(&root, part),
        Task::Completions { dir } => {
            let dir = docs_cli::out_dir(&root, dir, "completions");
            print_paths(docs_cli::completions(&dir)?);
            Ok(())
        }
        Task::Man { dir } => {
            let dir = docs_cli::out_dir(&root, dir, "man");
            print_paths(docs_cli::man_pages(&dir)?);
            Ok(())
        }
        Task::RecordOutlines => outlines::record(&root),
        Task::Dist { targets } => release::run(&root, targets),
    }
}

/// Runs `f` and says how long task `name` took.
fn timed(name: &str, f: impl FnOnce() -> Result<()>) -> Result<()> {
    let start = std::time::Instant::now();
    f()?;
    eprintln!("cargo xtask {name} took {:.0?}", start.elapsed());
    Ok(())
}

fn print_paths(paths: Vec<PathBuf>) {
    for path in paths {
        println!("{}", path.display());
    }
}

/// The workspace root: the parent of this crate's manifest directory.
fn workspace_root() -> Result<PathBuf> {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .context("xtask's manifest directory has no parent")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Task, clap::Error> {
        Xtask::try_parse_from(std::iter::once("cargo xtask").chain(args.iter().copied()))
            .map(|x| x.task)
    }

    #[test]
    fn the_command_line_is_read_and_checked() {
        assert!(matches!(
            parse(&["load-browser"]),
            Ok(Task::LoadBrowser { secs: 60 })
        ));
        assert!(matches!(
            parse(&["load-browser", "--secs", "5"]),
            Ok(Task::LoadBrowser { secs: 5 })
        ));
        assert!(matches!(
            parse(&["soak", "--minutes=3"]),
            Ok(Task::Soak { minutes: 3 })
        ));
        for bad in [
            &["load-browser", "--secs"][..],
            &["load-browser", "--secs", "0"],
            &["load-browser", "--secs", "x"],
            &["load-browser", "--minutes", "3"],
            &["bench", "everything"],
            &["dist", "--target", "a b"],
            &["dist", "--target="],
            &["dist", "--release"],
            &["nothing"],
            &[],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        assert!(matches!(
            parse(&["bench", "browser"]),
            Ok(Task::Bench {
                part: Some(bench::Part::Browser)
            })
        ));
        match parse(&[
            "dist",
            "--target",
            "aarch64-unknown-linux-gnu",
            "--target=x86_64-unknown-linux-musl",
        ]) {
            Ok(Task::Dist { targets }) => assert_eq!(
                targets,
                vec!["aarch64-unknown-linux-gnu", "x86_64-unknown-linux-musl"]
            ),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse(&["completions", "/tmp/c"]),
            Ok(Task::Completions { dir: Some(_) })
        ));
    }
}
