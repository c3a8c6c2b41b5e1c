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
use cotab_shared::controller::{Click, ClickParams, Snapshot, SnapshotParams};
use cotab_shared::ErrorKind;

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

/// Issue 36: a page that embeds a frame of an extension the browser
/// refuses to load (cotab's own popup here) makes the browser refuse
/// every debugger command on the tab, cotab's included: the agent is told
/// so (`BLOCKED_TARGET`, saying why), not a bare browser refusal, and the
/// tab works again, snapshot and refs, once the page drops the frame.
/// A browser page in a frame changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_the_browser_keeps_from_extensions_is_explained() -> anyhow::Result<()> {
    let (browser, page, _tab, mut agent) = on_page("/second", LaunchOptions::default()).await?;
    // The person goes there in the shared tab.
    browser
        .cdp
        .send_to(
            Some(&page.session),
            "Page.navigate",
            serde_json::json!({"url": browser.fixture.url("/refused-frames")}),
        )
        .await?;
    let clock = cotab_e2e::Deadline::new("the page", std::time::Duration::from_secs(15));
    loop {
        let state = browser
            .eval(&page, "document.readyState + document.title")
            .await?;
        if state == "completeRefused frames" {
            break;
        }
        clock.next(state).await?;
    }
    let err = agent
        .call::<Snapshot>(&SnapshotParams::default())
        .await
        .expect_err("the browser refuses the tab");
    assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget), "{err}");
    assert!(err.to_string().contains("removes the frame"), "{err}");
    // The page drops the extension's frame; the browser page's stays.
    browser
        .eval(&page, "document.getElementById('popup').remove(); 1")
        .await?;
    let snap = agent.call::<Snapshot>(&SnapshotParams::default()).await?;
    assert!(
        snap.text.contains("heading \"Page with refused frames\""),
        "{}",
        snap.text
    );
    assert!(snap.text.contains("After the frames"), "{}", snap.text);
    let go = crate::toolset::find_ref(&snap.text, "button \"Go on\"")?;
    agent.call::<Click>(&ClickParams::on(go)).await?;
    assert_eq!(browser.eval(&page, "document.title").await?, "Went");
    Ok(())
}
