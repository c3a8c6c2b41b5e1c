//! `cargo xtask demo`: builds everything, starts Chromium with cotab
//! (headed when a display exists), shares a built-in demo page through the
//! real popup, and runs a short agent session with the `cotab` CLI, printing
//! each step and where its screenshots went.

use crate::build_extension::ensure_wasm_target;
use crate::setup::{ensure_chromium, run};
use anyhow::{bail, Context, Result};
use cotab_e2e::browser::{Browser, LaunchOptions};
use cotab_e2e::fixture::{DEMO_BUTTON_CENTRE, DEMO_FIELD_CENTRE};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Runs the demo.
pub(crate) fn run_demo(root: &Path) -> Result<()> {
    ensure_wasm_target()?;
    ensure_chromium()?;
    crate::build_extension::run(root)?;
    run(
        Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .current_dir(root)
            .args(["build", "-p", "cotab-host", "--bins"]),
    )?;
    let out_dir = cotab_e2e::target_dir().join("demo");
    std::fs::create_dir_all(&out_dir)?;
    let headed =
        std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some();
    tokio::runtime::Runtime::new()?.block_on(session(headed, &out_dir))
}

async fn session(headed: bool, out_dir: &Path) -> Result<()> {
    println!(
        "Starting Chromium ({}) with the cotab extension…",
        if headed { "headed" } else { "headless" }
    );
    let browser = Browser::launch(LaunchOptions {
        headed,
        ..LaunchOptions::default()
    })
    .await?;
    println!(
        "  daemon runtime directory: {}",
        browser.runtime_dir.display()
    );
    let url = browser.fixture.url("/demo");
    let page = browser.open_tab(&url).await?;
    println!("The person shares the demo page from the cotab popup…");
    let tab = browser.share(&page, &url).await?;
    println!("  shared tab {tab}\n");

    let run_dir = browser.runtime_dir.clone();
    let cli = cotab_e2e::binary("cotab")?;
    let step = |args: &[&str]| -> Result<()> {
        println!("$ cotab {}", args.join(" "));
        let out = Command::new(&cli)
            .arg("--runtime-dir")
            .arg(&run_dir)
            .args(args)
            .output()
            .context("running cotab")?;
        print!("{}", String::from_utf8_lossy(&out.stdout));
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
        if !out.status.success() {
            bail!("cotab {} failed: {}", args.join(" "), out.status);
        }
        Ok(())
    };
    let before: PathBuf = out_dir.join("before.jpg");
    let after: PathBuf = out_dir.join("after.jpg");
    let field = (
        DEMO_FIELD_CENTRE.0.to_string(),
        DEMO_FIELD_CENTRE.1.to_string(),
    );
    let button = (
        DEMO_BUTTON_CENTRE.0.to_string(),
        DEMO_BUTTON_CENTRE.1.to_string(),
    );

    step(&["status"])?;
    step(&["tabs"])?;
    step(&["select", &tab.to_string()])?;
    step(&["screenshot", "-o", path_str(&before)?])?;
    step(&["click", &button.0, &button.1])?;
    step(&["click", &field.0, &field.1])?;
    step(&["type", "Hello from an agent"])?;
    step(&["screenshot", "-o", path_str(&after)?])?;
    step(&["press", "Enter"])?;
    // Enter submits the form; let the next page load before listing tabs.
    cotab_e2e::wait_for(
        "the form's result page",
        Duration::from_secs(15),
        || async {
            Ok((browser
                .eval(&page, "document.readyState + ' ' + document.title")
                .await?
                == "complete Submitted")
                .then_some(()))
        },
    )
    .await?;
    step(&["tabs"])?;
    println!(
        "\nScreenshots: {} and {}",
        before.display(),
        after.display()
    );
    Ok(())
}

fn path_str(p: &Path) -> Result<&str> {
    p.to_str()
        .context("the target directory's path is not UTF-8")
}
