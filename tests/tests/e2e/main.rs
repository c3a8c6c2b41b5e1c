//! End-to-end tests: real headless Chromium loads the built extension, a
//! test shares a fixture tab through the real popup, and an agent drives it
//! through the daemon's socket.

mod approvals;
mod background;
mod bad_input;
mod boundary;
mod cdp_endpoint;
mod choosers;
mod cli;
mod coworking;
mod developer;
mod dialogs;
mod downloads;
mod drive;
mod emulation;
mod faults;
mod lane;
mod mcp;
mod navigation;
mod network;
mod opened;
mod outline;
mod overlay;
mod panel;
mod popup;
mod record;
mod rules;
mod scope;
mod toolbar;
mod toolset;
mod video;

use cotab_e2e::browser::{Browser, LaunchOptions, Page};
use cotab_shared::TabId;

/// A browser with the fixture index page open and shared.
async fn shared_fixture() -> anyhow::Result<(Browser, Page, TabId)> {
    let browser = Browser::launch(LaunchOptions::default()).await?;
    let url = browser.fixture.url("/");
    let page = browser.open_tab(&url).await?;
    let tab = browser.share(&page, &url).await?;
    Ok((browser, page, tab))
}
