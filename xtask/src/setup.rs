//! Installs what the tests and the demo need on a fresh machine beyond
//! the Rust toolchain: Chromium, through apt-get when run as root (otherwise
//! the exact command is printed), the MCP clients the `cotab mcp`
//! end-to-end test drives (the MCP Inspector through npm, the MCP Python
//! SDK through pip in a virtual environment), and binaryen's `wasm-opt`
//! for the extension build, through npm; and a target's Rust standard
//! library through rustup (the extension's wasm32, a release's cross
//! targets), which the extension build and `dist` ask for.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `cargo` (the one running xtask) in the workspace `root`.
pub(crate) fn cargo(root: &Path) -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(root);
    cmd
}

/// Runs a command, failing with its name when it fails.
pub(crate) fn run(cmd: &mut Command) -> Result<()> {
    let shown = format!("{cmd:?}");
    eprintln!("$ {shown}");
    let status = cmd.status().with_context(|| format!("starting {shown}"))?;
    if !status.success() {
        bail!("{shown} failed: {status}");
    }
    Ok(())
}

/// Installs `target`'s standard library with rustup when it is missing.
pub(crate) fn ensure_target(target: &str) -> Result<()> {
    let out = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .context("running `rustup target list --installed`")?;
    if !out.status.success() {
        bail!("`rustup target list --installed` failed");
    }
    if String::from_utf8_lossy(&out.stdout)
        .lines()
        .any(|l| l.trim() == target)
    {
        return Ok(());
    }
    let status = Command::new("rustup")
        .args(["target", "add", target])
        .status()
        .context("running `rustup target add`")?;
    if !status.success() {
        bail!("`rustup target add {target}` failed");
    }
    Ok(())
}

/// Installs Chromium and ChromeDriver from the distribution when missing.
pub(crate) fn ensure_chromium() -> Result<()> {
    if cotab_e2e::browser::chromium_path().is_ok() {
        return Ok(());
    }
    let command = "apt-get update && apt-get install -y chromium chromium-driver";
    if !is_root() {
        bail!("Chromium is not installed. Install it with:\n    sudo sh -c '{command}'\nor set COTAB_CHROMIUM to a Chromium binary.");
    }
    run(Command::new("apt-get").arg("update"))?;
    run(Command::new("apt-get")
        .args(["install", "-y", "chromium", "chromium-driver"])
        .env("DEBIAN_FRONTEND", "noninteractive"))?;
    cotab_e2e::browser::chromium_path().map(|_| ())
}

/// Starts the browser once, headless, and waits for it to print a blank
/// page: its first start on a fresh machine reads the whole binary from
/// disk and builds its caches, which should not count against the first
/// tests' deadlines. A browser that cannot start at all fails here, with
/// its own message.
pub(crate) fn warm_chromium() -> Result<()> {
    let chromium = cotab_e2e::browser::chromium_path()?;
    let profile = tempfile::Builder::new().prefix("cotab-warm-").tempdir()?;
    let started = std::time::Instant::now();
    let out = Command::new("timeout")
        .arg("180")
        .arg(&chromium)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--dump-dom", "about:blank"])
        .output()
        .with_context(|| format!("starting {}", chromium.display()))?;
    if !out.status.success() || !String::from_utf8_lossy(&out.stdout).contains("<html") {
        bail!(
            "{} did not start ({}): {}",
            chromium.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    eprintln!(
        "{} started and printed a page in {:.1} s",
        chromium.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// Adds rustfmt and clippy when the toolchain lacks them (a minimal rustup
/// profile installs neither).
pub(crate) fn ensure_components() -> Result<()> {
    let out = Command::new("rustup")
        .args(["component", "list", "--installed"])
        .output()
        .context("running rustup (needed for rustfmt and clippy)")?;
    let installed = String::from_utf8_lossy(&out.stdout);
    let missing: Vec<&str> = ["rustfmt", "clippy"]
        .into_iter()
        .filter(|c| !installed.lines().any(|l| l.starts_with(&format!("{c}-"))))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    run(Command::new("rustup")
        .args(["component", "add"])
        .args(&missing))
}

/// The MCP client the `cotab mcp` end-to-end test drives (in CLI mode),
/// pinned: the newest release whose declared engines accept Node 20.
const MCP_INSPECTOR_VERSION: &str = "0.15.0";

/// Installs the MCP Inspector under `<target>/mcp-client` with npm when it
/// is missing or another version.
pub(crate) fn ensure_mcp_client(target: &Path) -> Result<()> {
    let dir = target.join("mcp-client");
    let manifest = dir
        .join("node_modules")
        .join("@modelcontextprotocol")
        .join("inspector")
        .join("package.json");
    let installed = std::fs::read_to_string(&manifest)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|m| m["version"] == MCP_INSPECTOR_VERSION);
    if installed {
        return Ok(());
    }
    run(Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&dir)
        .arg(format!(
            "@modelcontextprotocol/inspector@{MCP_INSPECTOR_VERSION}"
        )))
    .context("installing the MCP Inspector (needs node and npm)")
}

/// Installs the official MCP Python SDK (`tests/mcp-python/requirements.txt`)
/// in a virtual environment under `<target>/mcp-python` when it is
/// missing or the requirements changed, for the `cotab mcp` end-to-end
/// test's second client. Needs Python 3 with `venv` (apt-get installs it
/// when missing and run as root).
pub(crate) fn ensure_mcp_python(root: &Path, target: &Path) -> Result<()> {
    let dir = target.join("mcp-python");
    let wanted = std::fs::read_to_string(root.join("tests/mcp-python/requirements.txt"))
        .context("reading tests/mcp-python/requirements.txt")?;
    let stamp = dir.join("requirements.txt");
    if std::fs::read_to_string(&stamp).is_ok_and(|had| had == wanted)
        && dir.join("bin").join("python").is_file()
    {
        return Ok(());
    }
    let venv = |dir: &Path| {
        Command::new("python3")
            .args(["-m", "venv", "--clear"])
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success())
    };
    if !venv(&dir) {
        if !is_root() {
            bail!("Python 3 with venv is needed for the MCP Python SDK client: install python3 and python3-venv");
        }
        run(Command::new("apt-get").arg("update"))?;
        run(Command::new("apt-get")
            .args(["install", "-y", "python3", "python3-venv"])
            .env("DEBIAN_FRONTEND", "noninteractive"))?;
        if !venv(&dir) {
            bail!("python3 -m venv {} failed", dir.display());
        }
    }
    run(Command::new(dir.join("bin").join("pip"))
        .args(["install", "--quiet", "--disable-pip-version-check", "-r"])
        .arg(root.join("tests/mcp-python/requirements.txt")))
    .context("installing the MCP Python SDK")?;
    std::fs::write(&stamp, wanted).with_context(|| format!("writing {}", stamp.display()))
}

/// The binaryen release whose `wasm-opt` shrinks the extension's module
/// (npm package `binaryen`, which carries it as JavaScript and wasm, so it
/// runs wherever Node does). Pinned: the end-to-end suite passes with its
/// output. Debian's binaryen 108 produces a module that fails at init.
const BINARYEN_VERSION: &str = "132.0.0";

/// Installs binaryen under `<target>/binaryen` with npm when it is missing
/// or another version, and returns its `wasm-opt`.
pub(crate) fn ensure_wasm_opt(target: &Path) -> Result<PathBuf> {
    let dir = target.join("binaryen");
    let modules = dir.join("node_modules");
    let wasm_opt = modules.join(".bin").join("wasm-opt");
    let installed = std::fs::read_to_string(modules.join("binaryen").join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|m| m["version"] == BINARYEN_VERSION);
    if !installed || !wasm_opt.is_file() {
        run(Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&dir)
            .arg(format!("binaryen@{BINARYEN_VERSION}")))
        .context("installing binaryen (needs node and npm)")?;
    }
    Ok(wasm_opt)
}
