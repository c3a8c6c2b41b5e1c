//! The page rendered at another size, with other media features, printed
//! and captured whole, in real Chromium: `page.resize`,
//! `page.emulateMedia`, `page.pdf`, full-page captures and snapshots of
//! one element — each under the broker's rules, none of them moving or
//! resizing the person's window.

use crate::toolset::{find_ref, on_page, snapshot, DEADLINE};
use base64::Engine as _;
use cotab_e2e::browser::LaunchOptions;
use cotab_e2e::wait_for;
use cotab_shared::controller::{
    Capture, CaptureParams, ColorScheme, EmulateMedia, EmulateMediaParams, MediaType, Pdf,
    PdfParams, Ref, Resize, ResizeParams, Snapshot, SnapshotParams,
};
use cotab_shared::ErrorKind;
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_takes_a_bounded_size_and_media_features_the_window_does_not() -> anyhow::Result<()>
{
    let (browser, page, tab, mut agent) = on_page("/long", LaunchOptions::default()).await?;
    let sizes = "[innerWidth, innerHeight, outerWidth, outerHeight]";
    let before = browser.eval(&page, sizes).await?;
    let resized = agent
        .call::<Resize>(&ResizeParams {
            width: Some(640),
            height: Some(400),
        })
        .await?;
    assert_eq!((resized.width, resized.height), (640.0, 400.0));
    let now = browser.eval(&page, sizes).await?;
    assert_eq!(
        (now[0].clone(), now[1].clone()),
        (json!(640), json!(400)),
        "{now}"
    );
    let shot = agent.call::<Capture>(&CaptureParams::default()).await?;
    assert_eq!((shot.width, shot.height), (640, 400));
    for bad in [
        ResizeParams {
            width: Some(1921),
            height: Some(400),
        },
        ResizeParams {
            width: Some(640),
            height: None,
        },
        ResizeParams {
            width: Some(0),
            height: Some(400),
        },
    ] {
        let err = agent.call::<Resize>(&bad).await.expect_err("refused");
        assert_eq!(
            err.kind(),
            Some(ErrorKind::InvalidRequest),
            "{bad:?}: {err}"
        );
    }
    // Cleared: the page fills the tab again.
    agent.call::<Resize>(&ResizeParams::default()).await?;
    assert_eq!(browser.eval(&page, sizes).await?, before);

    let dark = "matchMedia('(prefers-color-scheme: dark)').matches";
    let print = "matchMedia('print').matches";
    let media = agent
        .call::<EmulateMedia>(&EmulateMediaParams {
            color_scheme: Some(Some(ColorScheme::Dark)),
            ..EmulateMediaParams::default()
        })
        .await?;
    assert_eq!(media.color_scheme, Some(ColorScheme::Dark));
    assert_eq!(browser.eval(&page, dark).await?, json!(true));
    // Another feature leaves the first as it is; null clears one.
    let media = agent
        .call::<EmulateMedia>(&EmulateMediaParams {
            media: Some(Some(MediaType::Print)),
            ..EmulateMediaParams::default()
        })
        .await?;
    assert_eq!(media.color_scheme, Some(ColorScheme::Dark));
    assert_eq!(browser.eval(&page, print).await?, json!(true));
    assert_eq!(browser.eval(&page, dark).await?, json!(true));
    agent
        .call::<EmulateMedia>(&EmulateMediaParams {
            color_scheme: Some(None),
            ..EmulateMediaParams::default()
        })
        .await?;
    assert_eq!(browser.eval(&page, dark).await?, json!(false));
    assert_eq!(browser.eval(&page, print).await?, json!(true));
    let err = agent
        .call::<EmulateMedia>(&EmulateMediaParams::default())
        .await
        .expect_err("nothing to emulate");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));

    // The person taking control gets the page as they left it: its own
    // size, no emulated media. While they control it, neither changes.
    agent
        .call::<Resize>(&ResizeParams {
            width: Some(500),
            height: Some(300),
        })
        .await?;
    browser.take_control(&page, tab).await?;
    wait_for("the page's own size and media", DEADLINE, || async {
        let own = browser.eval(&page, sizes).await? == before
            && browser.eval(&page, print).await? == json!(false);
        Ok(own.then_some(()))
    })
    .await?;
    let err = agent
        .call::<Resize>(&ResizeParams {
            width: Some(800),
            height: Some(600),
        })
        .await
        .expect_err("the person has control");
    assert_eq!(err.kind(), Some(ErrorKind::HumanHasControl), "{err}");
    let err = agent
        .call::<EmulateMedia>(&EmulateMediaParams {
            media: Some(None),
            ..EmulateMediaParams::default()
        })
        .await
        .expect_err("the person has control");
    assert_eq!(err.kind(), Some(ErrorKind::HumanHasControl), "{err}");
    assert_eq!(browser.eval(&page, sizes).await?, before);
    assert_eq!(browser.eval(&page, print).await?, json!(false));
    // Observing goes on, but a full-page capture resizes the page for a
    // moment: not while the person works in it.
    agent.call::<Capture>(&CaptureParams::default()).await?;
    let err = agent
        .call::<Capture>(&CaptureParams {
            full_page: true,
            ..CaptureParams::default()
        })
        .await
        .expect_err("the person has control");
    assert_eq!(err.kind(), Some(ErrorKind::HumanHasControl), "{err}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cleared_viewport_is_the_windows_even_if_it_changed_meanwhile() -> anyhow::Result<()> {
    let (browser, page, _tab, mut agent) = on_page("/long", LaunchOptions::default()).await?;
    let sizes = "[innerWidth, innerHeight]";
    let own = browser.eval(&page, sizes).await?;
    let small = ResizeParams {
        width: Some(700),
        height: Some(450),
    };
    agent.call::<Resize>(&small).await?;
    // The person makes the window smaller while the page has the agent's
    // size: the page keeps it until the agent clears it.
    let window = browser
        .cdp
        .send(
            "Browser.getWindowForTarget",
            json!({"targetId": page.target_id}),
        )
        .await?["windowId"]
        .clone();
    browser
        .cdp
        .send(
            "Browser.setWindowBounds",
            json!({"windowId": window, "bounds": {"width": 1000, "height": 640}}),
        )
        .await?;
    let _: Value = browser
        .eval(&page, "new Promise(r => setTimeout(r, 200))")
        .await?;
    assert_eq!(browser.eval(&page, sizes).await?, json!([700, 450]));
    // Cleared: the answer is the size the page has now, the window's new
    // one, neither the agent's nor the page's before.
    let cleared = agent.call::<Resize>(&ResizeParams::default()).await?;
    let now = browser.eval(&page, sizes).await?;
    let side = |i: usize| now[i].as_f64();
    assert_eq!(
        (side(0), side(1)),
        (Some(cleared.width), Some(cleared.height))
    );
    assert_ne!(now, own);
    assert_ne!(now, json!([700, 450]));
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_page_is_captured_whole_printed_and_outlined_in_parts() -> anyhow::Result<()> {
    let (browser, page, _tab, mut agent) = on_page("/long", LaunchOptions::default()).await?;
    let viewport = agent.call::<Capture>(&CaptureParams::default()).await?;
    // What the person sees of the page: its size and scrollbar.
    let seen = "[innerWidth, innerHeight, document.documentElement.clientWidth, scrollY]";
    let before = browser.eval(&page, seen).await?;
    let whole = agent
        .call::<Capture>(&CaptureParams {
            full_page: true,
            ..CaptureParams::default()
        })
        .await?;
    // The page is as it was: Chromium leaves it without its scrollbar
    // after a capture beyond the viewport unless cotab puts it back.
    assert_eq!(browser.eval(&page, seen).await?, before);
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(whole.data.as_deref().unwrap_or_default())?;
    let image = image::load_from_memory(&bytes)?;
    assert_eq!((image.width(), image.height()), (whole.width, whole.height));
    // As wide as the page (the viewport less its scrollbar).
    let page_width = &before[2];
    assert_eq!(
        Some(f64::from(whole.width)),
        page_width.as_f64().map(|w| w * whole.device_pixel_ratio)
    );
    assert!(whole.width <= viewport.width);
    // The page is 4400 CSS pixels and more tall.
    let dpr = whole.device_pixel_ratio;
    assert!(f64::from(whole.height) >= 4400.0 * dpr, "{}", whole.height);
    assert!(whole.height > viewport.height);
    // With a viewport the agent set, too.
    let small = ResizeParams {
        width: Some(900),
        height: Some(500),
    };
    agent.call::<Resize>(&small).await?;
    let resized = browser.eval(&page, seen).await?;
    let whole = agent
        .call::<Capture>(&CaptureParams {
            full_page: true,
            ..CaptureParams::default()
        })
        .await?;
    assert_eq!(f64::from(whole.width), 885.0 * dpr, "{resized}");
    assert_eq!(browser.eval(&page, seen).await?, resized);
    agent.call::<Resize>(&ResizeParams::default()).await?;
    assert_eq!(browser.eval(&page, seen).await?, before);
    let err = agent
        .call::<Capture>(&CaptureParams {
            full_page: true,
            clip: Some(Ref("e1".into())),
            ..CaptureParams::default()
        })
        .await
        .expect_err("a clip and the full page");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));

    let pdf = agent.call::<Pdf>(&PdfParams {}).await?;
    let bytes = base64::engine::general_purpose::STANDARD.decode(pdf.data.as_bytes())?;
    assert!(bytes.starts_with(b"%PDF-"), "not a PDF");
    assert!(bytes.len() > 500, "{} bytes", bytes.len());

    let full = snapshot(&mut agent).await?;
    let button = find_ref(&full, "button \"Bottom button\"")?;
    let part = agent
        .call::<Snapshot>(&SnapshotParams {
            root: Some(button.clone()),
            ..SnapshotParams::default()
        })
        .await?;
    assert_eq!(
        part.text,
        format!("- button \"Bottom button\" [ref={button}]")
    );
    let top = agent
        .call::<Snapshot>(&SnapshotParams {
            depth: Some(1),
            ..SnapshotParams::default()
        })
        .await?;
    assert!(
        top.text.contains(&format!("[ref={button}]")),
        "{}",
        top.text
    );
    // Boxes: where the element is in the viewport, in CSS pixels.
    browser
        .eval(
            &page,
            "document.getElementById('bottom').scrollIntoView(), 1",
        )
        .await?;
    let boxed = agent
        .call::<Snapshot>(&SnapshotParams {
            root: Some(button.clone()),
            boxes: true,
            ..SnapshotParams::default()
        })
        .await?;
    let rect = browser
        .eval(
            &page,
            "(r => [r.x, r.y, r.width, r.height])\
             (document.getElementById('bottom').getBoundingClientRect())",
        )
        .await?;
    let shown: Vec<f64> = boxed
        .text
        .split("[box=")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .map(|b| b.split(',').filter_map(|v| v.parse().ok()).collect())
        .unwrap_or_default();
    assert_eq!(shown.len(), 4, "{}", boxed.text);
    let side = |i: usize| rect[i].as_f64().unwrap_or(f64::NAN);
    // The content box lies inside the element's border box.
    assert!(
        shown[0] >= side(0).floor() && shown[1] >= side(1).floor(),
        "{shown:?} {rect}"
    );
    assert!(
        shown[2] > 0.0 && shown[2] <= side(2).ceil(),
        "{shown:?} {rect}"
    );
    assert!(
        shown[3] > 0.0 && shown[3] <= side(3).ceil(),
        "{shown:?} {rect}"
    );
    // The element leaves the document: its subtree is stale, never
    // another element's.
    browser
        .eval(&page, "document.getElementById('bottom').remove(), 1")
        .await?;
    let err = agent
        .call::<Snapshot>(&SnapshotParams {
            root: Some(button),
            ..SnapshotParams::default()
        })
        .await
        .expect_err("gone");
    assert_eq!(err.kind(), Some(ErrorKind::StaleRef), "{err}");
    let _: Value = browser.eval(&page, "1").await?;
    Ok(())
}

/// The person unshares a tab while an agent captures one of its elements
/// again and again: the page keeps its size. (The browser resizes the
/// page for a capture of a region and gives the size back once the
/// picture is taken, but only if the debugger is still there: the
/// extension lets the capture end before it leaves.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_person_unshares_a_tab_while_an_agent_captures_an_element() -> anyhow::Result<()> {
    use cotab_shared::controller::{Capture, CaptureParams};
    let (browser, page, tab, mut agent) =
        crate::toolset::on_page("/", LaunchOptions::default()).await?;
    let outline = crate::toolset::snapshot(&mut agent).await?;
    let button = crate::toolset::find_ref(&outline, "button \"Click me\"")?;
    let size = "[innerWidth, innerHeight]";
    let before = browser.eval(&page, size).await?;
    let (first, mut taken) = tokio::sync::mpsc::unbounded_channel();
    let captures = tokio::spawn(async move {
        let mut done = 0u32;
        loop {
            let shot = agent
                .call::<Capture>(&CaptureParams {
                    clip: Some(button.clone()),
                    ..CaptureParams::default()
                })
                .await;
            if shot.is_err() {
                return done;
            }
            done += 1;
            let _ = first.send(());
        }
    });
    // Captures follow one another with hardly a gap: the unshare lands
    // in one.
    for _ in 0..3 {
        taken.recv().await;
    }
    browser.unshare(&page, tab).await?;
    let done = tokio::time::timeout(DEADLINE, captures).await??;
    assert!(done >= 3, "{done} captures");
    assert_eq!(browser.eval(&page, size).await?, before, "the page's size");
    Ok(())
}
