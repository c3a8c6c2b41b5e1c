//! Bench item 3, captures: cotab's `page.capture` against direct CDP's
//! `Page.captureScreenshot` in interleaved blocks on a page that changes
//! every frame, an unchanged frame answered by its id, and large captures
//! of a noisy canvas.

use super::probe::{direct, timed, VIEWPORT};
use super::worker_trace::{
    hop_split, pauses_between, split_rows, trace_rows, worker_trace, TraceRecord,
};
use super::{Row, Sample};
use anyhow::{bail, Context, Result};
use base64::Engine as _;
use cotab_e2e::browser::{Browser, Page};
use cotab_host::client::Client;
use cotab_shared::controller::{Capture, CaptureParams, CaptureResult, ImageFormat};
use serde_json::json;
use std::time::Duration;

/// Captures one after the other in a block of one kind (each ≈ 50 ms).
const CAPTURE_BLOCK: usize = 8;
/// Warm-up and measured rounds of capture blocks (one block per kind).
const CAPTURE_WARM_UP: usize = 1;
const CAPTURE_ROUNDS: usize = 10;

fn decoded_len(data: &str) -> Result<usize> {
    Ok(base64::engine::general_purpose::STANDARD
        .decode(data)
        .context("a capture that is not base64")?
        .len())
}

/// Item 3's capture: JPEG q80.
fn jpeg_q80() -> CaptureParams {
    CaptureParams {
        format: ImageFormat::Jpeg,
        quality: Some(80),
        ..CaptureParams::default()
    }
}

/// Capture times and decoded image sizes of one kind.
#[derive(Default)]
struct Frames {
    times: Vec<Duration>,
    bytes: Vec<usize>,
}

impl Frames {
    fn sample(self) -> Sample {
        Sample::Frames(self.times, self.bytes)
    }
}

/// `n` direct JPEG q80 captures back to back, kept in `into` when
/// `measured`.
async fn direct_block(
    browser: &Browser,
    page: &Page,
    n: usize,
    measured: bool,
    into: &mut Frames,
) -> Result<()> {
    for _ in 0..n {
        let (d, r) = timed(direct(
            browser,
            page,
            "Page.captureScreenshot",
            json!({"format": "jpeg", "quality": 80}),
        ))
        .await?;
        let bytes = decoded_len(r["data"].as_str().context("no data in the capture")?)?;
        if measured {
            into.times.push(d);
            into.bytes.push(bytes);
        }
    }
    Ok(())
}

/// `n` `page.capture`s back to back, kept in `into` when `measured` (one
/// without `knownFrameId` must bring its image); returns the last answer
/// and how many of the measured ones were `unchanged`.
async fn cotab_block(
    agent: &mut Client,
    params: &CaptureParams,
    n: usize,
    measured: bool,
    into: &mut Frames,
) -> Result<(Option<CaptureResult>, usize)> {
    let (mut last, mut unchanged) = (None, 0);
    for _ in 0..n {
        let (d, r) = timed(async { Ok(agent.call::<Capture>(params).await?) }).await?;
        let bytes = match (r.data.as_deref(), &params.known_frame_id) {
            (Some(data), _) => decoded_len(data)?,
            (None, Some(_)) => 0,
            (None, None) => bail!("page.capture without data"),
        };
        if measured {
            into.times.push(d);
            into.bytes.push(bytes);
            unchanged += usize::from(r.unchanged);
        }
        last = Some(r);
    }
    Ok((last, unchanged))
}

/// Item 3: JPEG q80 captures, direct vs `page.capture`, and `page.capture`
/// with `knownFrameId` on the unchanged page.
pub(super) async fn captures(
    browser: &Browser,
    page: &Page,
    agent: &mut Client,
) -> Result<(Vec<Row>, (u32, u32), (usize, usize))> {
    let jpeg = jpeg_q80();
    let (mut a, mut b, mut c) = (Frames::default(), Frames::default(), Frames::default());
    let mut size = (0, 0);
    let mut unchanged = 0;
    // Blocks, not single captures, alternate: a capture waits for the
    // compositor's next frame, so how long one takes depends on where the
    // one before it left the frame clock. Back to back in a block, each
    // kind settles into its own rate, which is what an agent pulling
    // frames gets; alternating the blocks keeps drift off the comparison.
    for round in 0..CAPTURE_WARM_UP + CAPTURE_ROUNDS {
        let measured = round >= CAPTURE_WARM_UP;
        if round == CAPTURE_WARM_UP {
            worker_trace(browser).await?;
        }
        direct_block(browser, page, CAPTURE_BLOCK, measured, &mut a).await?;
        let (last, _) = cotab_block(agent, &jpeg, CAPTURE_BLOCK, measured, &mut b).await?;
        let last = last.context("no page.capture in the block")?;
        size = (last.width, last.height);
        let known = CaptureParams {
            known_frame_id: Some(last.frame_id),
            ..jpeg.clone()
        };
        unchanged += cotab_block(agent, &known, CAPTURE_BLOCK, measured, &mut c)
            .await?
            .1;
    }
    if size != VIEWPORT {
        eprintln!(
            "note: page.capture returned {}×{}, not the {}×{} asked for",
            size.0, size.1, VIEWPORT.0, VIEWPORT.1
        );
    }
    let trace = worker_trace(browser).await?;
    // The worker's screenshots, in order: each round's block of plain
    // captures, then its block with `knownFrameId`.
    let shots: Vec<&TraceRecord> = trace
        .iter()
        .filter(|r| r.what == "Page.captureScreenshot")
        .collect();
    let times: Vec<Duration> = b
        .times
        .chunks(CAPTURE_BLOCK)
        .zip(c.times.chunks(CAPTURE_BLOCK))
        .flat_map(|(b, c)| b.iter().chain(c))
        .copied()
        .collect();
    let split = hop_split(browser, "Page.captureScreenshot", &shots, &times);
    let mut rows = vec![
        Row::new(
            "3",
            "`Page.captureScreenshot` jpeg q80",
            "direct CDP",
            a.sample(),
        ),
        Row::new("3", "`page.capture` jpeg q80", "cotab", b.sample()),
        Row::new(
            "3",
            "`page.capture` with `knownFrameId`, page unchanged",
            "cotab",
            c.sample(),
        ),
    ];
    rows.extend(trace_rows(
        "3",
        &trace,
        &[("Page.captureScreenshot", "`page.capture`'s screenshot")],
    ));
    rows.extend(split_rows(
        "3",
        split,
        "`page.capture` (both kinds) outside the daemon's wait for its screenshot: agent socket, daemon, agent",
        "`page.capture` (both kinds) in the lane's transport, both ways",
    ));
    rows.push(Row::new(
        "3",
        "`page.capture` back to back, in the worker: a screenshot's answer posted → the next screenshot handed to `chrome.debugger` (the pause the compositor sees)",
        "cotab",
        Sample::Millis(pauses_between(&trace, "Page.captureScreenshot")),
    ));
    Ok((rows, size, (unchanged, CAPTURE_ROUNDS * CAPTURE_BLOCK)))
}

/// Captures of each kind per block of item 3's large captures, and their
/// measured rounds.
const LARGE_BLOCK: usize = 4;
const LARGE_ROUNDS: usize = 5;

/// Paints random pixels over the viewport: a page whose JPEG q80 capture
/// weighs hundreds of kilobytes, as a photo-heavy page's does.
const NOISE: &str = "(() => { const c = document.createElement('canvas'); \
    c.id = 'bench-noise'; c.width = innerWidth; c.height = innerHeight; \
    c.style = 'position:fixed;left:0;top:0;z-index:2147483647'; \
    const x = c.getContext('2d'); const d = x.createImageData(c.width, c.height); \
    for (let i = 0; i < d.data.length; i++) d.data[i] = (i % 4 === 3) ? 255 : (Math.random() * 256) | 0; \
    x.putImageData(d, 0, 0); document.body.appendChild(c); return d.data.length; })()";

/// Item 3, large: JPEG q80 captures of a page covered in noise, direct vs
/// `page.capture`, alternating blocks as above, so the bytes' cost on
/// every hop shows; with the worker's split of the screenshot.
pub(super) async fn large_captures(
    browser: &Browser,
    page: &Page,
    agent: &mut Client,
) -> Result<Vec<Row>> {
    browser.eval(page, NOISE).await?;
    let jpeg = jpeg_q80();
    let (mut a, mut b) = (Frames::default(), Frames::default());
    for round in 0..1 + LARGE_ROUNDS {
        let measured = round >= 1;
        if round == 1 {
            worker_trace(browser).await?;
        }
        direct_block(browser, page, LARGE_BLOCK, measured, &mut a).await?;
        cotab_block(agent, &jpeg, LARGE_BLOCK, measured, &mut b).await?;
    }
    let trace = worker_trace(browser).await?;
    let shots: Vec<&TraceRecord> = trace
        .iter()
        .filter(|r| r.what == "Page.captureScreenshot")
        .collect();
    let split = hop_split(browser, "Page.captureScreenshot", &shots, &b.times);
    let mut rows = vec![
        Row::new(
            "3",
            "`Page.captureScreenshot` jpeg q80, page covered in noise",
            "direct CDP",
            a.sample(),
        ),
        Row::new(
            "3",
            "`page.capture` jpeg q80, page covered in noise",
            "cotab",
            b.sample(),
        ),
    ];
    rows.extend(trace_rows(
        "3",
        &trace,
        &[(
            "Page.captureScreenshot",
            "`page.capture`'s screenshot of the noise",
        )],
    ));
    rows.extend(split_rows(
        "3",
        split,
        "`page.capture` of the noise outside the daemon's wait for its screenshot: agent socket, daemon (reading, hashing, writing the image), agent reading it",
        "`page.capture` of the noise in the lane's transport, both ways",
    ));
    // The page as it was: the noise lies over everything, and the items
    // after this one click the fixture's button.
    browser
        .eval(page, "document.getElementById('bench-noise').remove(); 1")
        .await?;
    Ok(rows)
}
