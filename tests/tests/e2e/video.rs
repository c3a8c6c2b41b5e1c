//! Issue 39: a video of a shared tab that an agent starts — a WebM file
//! of the tab's page that plays in Chromium, its frames before and after
//! the agent's click, its chapters; nothing of what the person did while
//! they held the tab; ended with a playable file when the tab is
//! unshared.

use crate::toolset::{find_ref, on_page, snapshot};
use cotab_e2e::browser::{Browser, LaunchOptions, Page};
use cotab_host::client::Client;
use cotab_shared::controller::{
    Click, ClickParams, Empty, VideoChapter, VideoChapterParams, VideoSize, VideoStart,
    VideoStartParams, VideoStop, VideoStopResult,
};
use cotab_shared::ErrorKind;
use serde_json::Value;
use std::time::Duration;

const WHITE: [u8; 3] = [255, 255, 255];
const BLUE: [u8; 3] = [0, 96, 255];
const RED: [u8; 3] = [255, 0, 0];

/// The colour of each frame of the video at `path` at (`x`, `y`) of its
/// own pixels, and the frames' times.
fn frame_colours(path: &str, x: u32, y: u32) -> anyhow::Result<Vec<(u64, [u8; 3])>> {
    let file = std::fs::read(path)?;
    let mut out = Vec::new();
    for (at, vp8) in cotab_host::video_file::webm::read_frames(&file) {
        let (w, _, rgb) = cotab_host::video_file::frame::decode(vp8)
            .ok_or_else(|| anyhow::anyhow!("the frame at {at} ms does not decode"))?;
        let i = ((y * w + x) * 3) as usize;
        out.push((at, [rgb[i], rgb[i + 1], rgb[i + 2]]));
    }
    Ok(out)
}

fn near(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) < 40)
}

/// Until the page drew `n` more frames.
async fn frames_drawn(browser: &Browser, page: &Page, n: u32) -> anyhow::Result<()> {
    browser
        .eval(
            page,
            &format!(
                "new Promise(done => {{ let n = {n}; const f = () => --n ? \
                 requestAnimationFrame(f) : done(true); requestAnimationFrame(f); }})"
            ),
        )
        .await?;
    Ok(())
}

/// Plays the video at `path` in an unshared tab of `browser`: its
/// duration, its size, and the colour at (5, 5) at its start and end.
async fn played(browser: &Browser, path: &str) -> anyhow::Result<Value> {
    use base64::Engine as _;
    let data = base64::engine::general_purpose::STANDARD.encode(std::fs::read(path)?);
    let tab = browser.open_tab(&browser.fixture.url("/")).await?;
    let script = format!(
        r#"(async () => {{
  const blob = await (await fetch("data:video/webm;base64,{data}")).blob();
  const v = document.createElement("video");
  v.muted = true;
  v.src = URL.createObjectURL(blob);
  await new Promise((ok, fail) => {{ v.onloadeddata = ok; v.onerror = () => fail(new Error(String(v.error && v.error.message))); }});
  const c = document.createElement("canvas");
  const at = async t => {{
    v.currentTime = t;
    await new Promise(ok => v.onseeked = ok);
    c.width = v.videoWidth; c.height = v.videoHeight;
    const g = c.getContext("2d");
    g.drawImage(v, 0, 0);
    return [...g.getImageData(5, 5, 1, 1).data.slice(0, 3)];
  }};
  return {{ duration: v.duration, width: v.videoWidth, height: v.videoHeight,
           first: await at(0), last: await at(Math.max(0, v.duration - 0.01)) }};
}})()"#
    );
    browser.eval(&tab, &script).await
}

async fn stop(agent: &mut Client) -> anyhow::Result<VideoStopResult> {
    Ok(agent.call::<VideoStop>(&Empty {}).await?)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agents_video_plays_with_its_clicks_and_without_what_the_person_did(
) -> anyhow::Result<()> {
    let (browser, page, tab, mut agent) = on_page("/paint", LaunchOptions::default()).await?;
    let outline = snapshot(&mut agent).await?;
    let paint = find_ref(&outline, "button \"Paint\"")?;

    // Bad input changes nothing: no video runs after it.
    for bad in [
        VideoStartParams {
            fps: Some(0),
            ..VideoStartParams::default()
        },
        VideoStartParams {
            size: Some(VideoSize {
                width: 10_000,
                height: 600,
            }),
            ..VideoStartParams::default()
        },
    ] {
        let e = agent.call::<VideoStart>(&bad).await.expect_err("refused");
        assert_eq!(e.kind(), Some(ErrorKind::InvalidRequest), "{e}");
    }
    let e = agent
        .call::<VideoChapter>(&VideoChapterParams {
            title: "nothing records".into(),
            description: None,
        })
        .await
        .expect_err("no video");
    assert_eq!(e.kind(), Some(ErrorKind::InvalidRequest), "{e}");
    assert!(stop(&mut agent).await?.videos.is_empty());

    let started = agent
        .call::<VideoStart>(&VideoStartParams {
            size: Some(VideoSize {
                width: 640,
                height: 640,
            }),
            fps: Some(10),
        })
        .await?;
    assert_eq!(started.tab_id, tab);
    let state = browser.runtime_dir.with_file_name("logs");
    assert!(
        std::path::Path::new(&started.path).starts_with(state.join("videos")),
        "{}",
        started.path
    );
    // One video a tab.
    let again = agent
        .call::<VideoStart>(&VideoStartParams::default())
        .await
        .expect_err("busy");
    assert_eq!(again.kind(), Some(ErrorKind::Busy), "{again}");
    frames_drawn(&browser, &page, 10).await?;

    // The person takes the tab and paints it red, then white again: the
    // agent's video keeps none of it.
    browser.take_control(&page, tab).await?;
    browser
        .eval(&page, "document.body.style.background = 'rgb(255, 0, 0)'")
        .await?;
    frames_drawn(&browser, &page, 20).await?;
    browser
        .eval(&page, "document.body.style.background = ''")
        .await?;
    frames_drawn(&browser, &page, 5).await?;
    browser.hand_back(&page, tab).await?;
    agent
        .call::<cotab_shared::controller::Acquire>(&Empty {})
        .await?;

    agent.call::<Click>(&ClickParams::on(paint)).await?;
    frames_drawn(&browser, &page, 10).await?;
    agent
        .call::<VideoChapter>(&VideoChapterParams {
            title: "painted".into(),
            description: Some("the page is blue".into()),
        })
        .await?;
    let done = stop(&mut agent).await?;
    assert_eq!(done.videos.len(), 1, "{done:?}");
    let video = &done.videos[0];
    assert_eq!(video.ended, None, "{video:?}");
    let path = video.path.clone().expect("a file");
    assert_eq!(path, started.path);
    assert!(video.frames >= 2, "{video:?}");

    let colours = frame_colours(&path, 5, 5)?;
    assert_eq!(colours.len() as u64, video.frames + 1, "the last one lasts");
    assert!(near(colours[0].1, WHITE), "{colours:?}");
    assert!(near(colours[colours.len() - 1].1, BLUE), "{colours:?}");
    assert!(
        !colours.iter().any(|(_, c)| near(*c, RED)),
        "a frame of the person's: {colours:?}"
    );
    let file = std::fs::read(&path)?;
    let has = |s: &str| file.windows(s.len()).any(|w| w == s.as_bytes());
    assert!(has("painted — the page is blue"));
    assert!(has("toolset: click · button \"Paint\""));
    let mode = std::fs::metadata(&path)?;
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o777,
        0o600
    );

    let shown = played(&browser, &path).await?;
    let duration = shown["duration"].as_f64().unwrap_or(0.0);
    assert!(
        (duration * 1000.0 - video.duration_ms as f64).abs() < 100.0,
        "{shown} against {video:?}"
    );
    // The page's viewport, scaled into the 640 × 640 box asked for.
    let inner = browser.eval(&page, "[innerWidth, innerHeight]").await?;
    let (w, h) = (
        inner[0].as_f64().unwrap_or(0.0),
        inner[1].as_f64().unwrap_or(0.0),
    );
    let scale = (640.0 / w).min(640.0 / h).min(1.0);
    assert_eq!(
        shown["width"].as_f64(),
        Some((w * scale).round()),
        "{shown} {inner}"
    );
    let height = shown["height"].as_f64().unwrap_or(0.0);
    assert!((height - h * scale).abs() <= 1.0, "{shown} {inner}");
    let colour = |v: &Value| -> [u8; 3] {
        let c: Vec<u8> = v
            .as_array()
            .map(|a| a.iter().map(|x| x.as_u64().unwrap_or(0) as u8).collect())
            .unwrap_or_default();
        [c[0], c[1], c[2]]
    };
    assert!(near(colour(&shown["first"]), WHITE), "{shown}");
    assert!(near(colour(&shown["last"]), BLUE), "{shown}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_video_whose_tab_is_unshared_ends_there_and_plays() -> anyhow::Result<()> {
    let (browser, page, tab, mut agent) = on_page("/paint", LaunchOptions::default()).await?;
    agent
        .call::<VideoStart>(&VideoStartParams::default())
        .await?;
    frames_drawn(&browser, &page, 10).await?;
    browser.unshare(&page, tab).await?;
    // Once the daemon knows the tab is no longer shared, the video ended
    // there, and the stop tells why.
    let clock = cotab_e2e::Deadline::new("the unshare", Duration::from_secs(10));
    loop {
        let list = agent
            .call::<cotab_shared::controller::TabsList>(&Empty {})
            .await?;
        if list.tabs.iter().all(|t| t.id != tab) {
            break;
        }
        clock.next(list).await?;
    }
    let done = stop(&mut agent).await?;
    assert_eq!(done.videos.len(), 1, "{done:?}");
    let video = &done.videos[0];
    assert_eq!(
        video.ended.as_deref(),
        Some("its tab was unshared"),
        "{video:?}"
    );
    let path = video.path.clone().expect("a file");
    assert!(!frame_colours(&path, 5, 5)?.is_empty());
    let shown = played(&browser, &path).await?;
    assert!(shown["duration"].as_f64().unwrap_or(0.0) > 0.0, "{shown}");
    Ok(())
}

/// Until `expression` on `page` gives `want`.
async fn until(
    browser: &Browser,
    page: &Page,
    expression: &str,
    want: Value,
) -> anyhow::Result<()> {
    let clock = cotab_e2e::Deadline::new(expression, Duration::from_secs(10));
    loop {
        let now = browser.eval(page, expression).await?;
        if now == want {
            return Ok(());
        }
        clock.next(now).await?;
    }
}

/// Until `tab`'s badge says `text`.
async fn badge_says(browser: &Browser, tab: cotab_shared::TabId, text: &str) -> anyhow::Result<()> {
    let clock = cotab_e2e::Deadline::new("the badge", Duration::from_secs(10));
    loop {
        let now = crate::toolbar::badge(browser, tab).await?;
        if now[0] == text {
            return Ok(());
        }
        clock.next(now).await?;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_person_records_a_tab_from_the_side_panel_and_agents_cannot_stop_it(
) -> anyhow::Result<()> {
    let (browser, page, tab, mut agent) = on_page("/paint", LaunchOptions::default()).await?;
    let outline = snapshot(&mut agent).await?;
    let paint = find_ref(&outline, "button \"Paint\"")?;
    let panel = crate::approvals::open_panel(&browser).await?;
    let recording = format!(
        "document.querySelector('li[data-tab=\"{tab}\"] span.video')?.dataset.recording ?? null"
    );
    until(&browser, &panel, &recording, Value::from("")).await?;

    // An agent's video: the badge says REC, the panel names the agent.
    agent
        .call::<VideoStart>(&VideoStartParams::default())
        .await?;
    badge_says(&browser, tab, "REC").await?;
    until(&browser, &panel, &recording, Value::from("agent")).await?;
    let said = browser
        .eval(
            &panel,
            &format!("document.querySelector('li[data-tab=\"{tab}\"] span.video').textContent"),
        )
        .await?;
    assert!(
        said.as_str().unwrap_or("").contains("agent toolset"),
        "{said}"
    );
    // The person stops it: the agent is told who did.
    let stop_button =
        format!("document.querySelector('button.record[data-tab=\"{tab}\"]').click()");
    browser.eval(&panel, &stop_button).await?;
    until(&browser, &panel, &recording, Value::from("")).await?;
    let done = stop(&mut agent).await?;
    assert_eq!(done.videos.len(), 1, "{done:?}");
    // Why it ended; under load it may also say that no frame came yet.
    let ended = done.videos[0].ended.as_deref().unwrap_or("");
    assert!(ended.starts_with("the person stopped it"), "{done:?}");
    badge_says(&browser, tab, "AI").await?;

    // The person's own video, from the panel.
    browser.eval(&panel, &stop_button).await?;
    until(&browser, &panel, &recording, Value::from("person")).await?;
    badge_says(&browser, tab, "REC").await?;
    // No agent stops it, or starts another of the tab.
    assert!(stop(&mut agent).await?.videos.is_empty());
    let busy = agent
        .call::<VideoStart>(&VideoStartParams::default())
        .await
        .expect_err("the person records it");
    assert_eq!(busy.kind(), Some(ErrorKind::Busy), "{busy}");
    until(&browser, &panel, &recording, Value::from("person")).await?;

    agent.call::<Click>(&ClickParams::on(paint)).await?;
    frames_drawn(&browser, &page, 10).await?;
    browser.eval(&panel, &stop_button).await?;
    let saved = "[...document.querySelectorAll('#videos li')].map(l => l.textContent)";
    let clock = cotab_e2e::Deadline::new("the saved video", Duration::from_secs(10));
    let line = loop {
        let now = browser.eval(&panel, saved).await?;
        if let Some(line) = now.get(0).and_then(Value::as_str) {
            break line.to_owned();
        }
        clock.next(now).await?;
    };
    let path = line
        .split(" was saved to ")
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("no path in {line:?}"))?;
    assert!(line.contains("“Paint”"), "{line}");
    let colours = frame_colours(path, 5, 5)?;
    assert!(near(colours[0].1, WHITE), "{colours:?}");
    assert!(near(colours[colours.len() - 1].1, BLUE), "{colours:?}");
    let file = std::fs::read(path)?;
    let has = |s: &str| file.windows(s.len()).any(|w| w == s.as_bytes());
    assert!(has("toolset: click · button \"Paint\""));
    badge_says(&browser, tab, "AI").await?;
    let shown = played(&browser, path).await?;
    assert!(shown["duration"].as_f64().unwrap_or(0.0) > 0.0, "{shown}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_video_goes_on_after_the_worker_stopped_and_came_back() -> anyhow::Result<()> {
    let (browser, page, _tab, mut agent) = on_page("/paint", LaunchOptions::default()).await?;
    agent
        .call::<VideoStart>(&VideoStartParams {
            fps: Some(10),
            ..VideoStartParams::default()
        })
        .await?;
    frames_drawn(&browser, &page, 10).await?;
    // The browser stops the worker; nothing but its own alarm wakes it.
    browser.stop_workers(&page).await?;
    crate::faults::notifications(
        &mut agent,
        &["lane.offline", "lane.online"],
        Duration::from_secs(60),
    )
    .await?;
    let clock = cotab_e2e::Deadline::new("the lane back", Duration::from_secs(60));
    loop {
        // Refs do not outlive the lane: the page is read again.
        let acted = async {
            agent
                .call::<cotab_shared::controller::Acquire>(&Empty {})
                .await?;
            let outline = snapshot(&mut agent).await?;
            let paint = find_ref(&outline, "button \"Paint\"")?;
            Ok::<_, anyhow::Error>(agent.call::<Click>(&ClickParams::on(paint)).await?)
        }
        .await;
        match acted {
            Ok(_) => break,
            Err(e) => clock.next(e.to_string()).await?,
        }
    }
    frames_drawn(&browser, &page, 10).await?;
    let done = stop(&mut agent).await?;
    assert_eq!(done.videos.len(), 1, "{done:?}");
    let video = &done.videos[0];
    assert_eq!(video.ended, None, "{video:?}");
    let colours = frame_colours(video.path.as_deref().expect("a file"), 5, 5)?;
    assert!(near(colours[0].1, WHITE), "{colours:?}");
    // Painted after the worker came back: the video has it.
    assert!(near(colours[colours.len() - 1].1, BLUE), "{colours:?}");
    Ok(())
}
