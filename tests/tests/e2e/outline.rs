//! The golden test of `page.snapshot`: cotab's outline of fixture pages
//! against the aria snapshot Playwright writes of the same pages
//! (`tests/fixtures/playwright/NAME.yml`, recorded by `cargo xtask
//! record-outlines`). Both are read as the sequence of what they show —
//! each element's role, name and states, each text, each link's target —
//! with what only one side has set aside: refs (their numbers are each
//! side's own), Playwright's unnamed `generic` wrappers and its
//! `[cursor=pointer]` hints, the page's own focused body, and a label's
//! text repeated after the control it names. A link's target is compared
//! by its path, or its fragment when it has one (Playwright writes the
//! `href`, cotab the url it resolves to).

use crate::toolset::on_page;
use cotab_e2e::browser::LaunchOptions;
use cotab_e2e::workspace_root;
use cotab_shared::controller::{Snapshot, SnapshotParams};

/// What one outline line shows, refs and Playwright's own marks left out;
/// `None` for a line that shows nothing of the page's content.
fn shown(line: &str) -> Option<String> {
    let body = line.trim_start().strip_prefix("- ")?;
    let mut kept = String::new();
    let mut rest = body;
    // Drop `[ref=…]` and `[cursor=…]`, keep every other bracket.
    while let Some(open) = rest.find(" [") {
        let close = rest[open..].find(']').map(|c| open + c + 1)?;
        let mark = &rest[open + 2..close - 1];
        kept.push_str(&rest[..open]);
        if !mark.starts_with("ref=") && !mark.starts_with("cursor=") {
            kept.push_str(&rest[open..close]);
        }
        rest = &rest[close..];
    }
    kept.push_str(rest);
    let kept = kept.strip_suffix(':').unwrap_or(&kept).to_string();
    // Unnamed wrappers, and the document body that has the focus.
    if kept == "generic" || kept == "generic [active]" {
        return None;
    }
    // A link's target as written in the page (`/second`) or resolved
    // (`http://127.0.0.1:1234/second`): its path and what follows.
    if let Some(url) = kept.strip_prefix("/url: ") {
        let url = url.trim_matches('"');
        let path = match url.find("://") {
            Some(at) => url[at + 3..].find('/').map_or("/", |p| &url[at + 3 + p..]),
            None => url,
        };
        // A jump within the page is written `#part` by the page.
        let path = path.find('#').map_or(path, |at| &path[at..]);
        return Some(format!("/url {path}"));
    }
    Some(kept)
}

/// What an outline shows, in order. A label's text right after the control
/// it names is set aside: Playwright repeats it from the DOM, Chromium's
/// accessibility tree holds it only as the control's name.
fn sequence(outline: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in outline.lines().filter_map(shown) {
        let repeats = line.strip_prefix("text: ").is_some_and(|text| {
            out.last()
                .is_some_and(|last| last.contains(&format!("\"{}\"", text.trim_matches('"'))))
        });
        if !repeats {
            out.push(line);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_outline_shows_what_playwrights_aria_snapshot_shows() -> anyhow::Result<()> {
    let dir = workspace_root()
        .join("tests")
        .join("fixtures")
        .join("playwright");
    for (name, path) in cotab_e2e::fixture::RECORDED_OUTLINES {
        let recorded = std::fs::read_to_string(dir.join(format!("{name}.yml")))?;
        let (_browser, _page, _tab, mut agent) = on_page(path, LaunchOptions::default()).await?;
        let ours = agent
            .call::<Snapshot>(&SnapshotParams::default())
            .await?
            .text;
        let (want, got) = (sequence(&recorded), sequence(&ours));
        assert_eq!(
            got, want,
            "{name}: cotab's outline\n{ours}\n\nPlaywright's\n{recorded}"
        );
    }
    Ok(())
}
