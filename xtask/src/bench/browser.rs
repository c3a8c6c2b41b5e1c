//! Bench items 1, 2, 3 and 5 (worker; item 3's captures are
//! [`super::captures`], the worker's trace [`super::worker_trace`]): one
//! headless Chromium with the
//! release build of cotab, one fixture page shared through the real popup,
//! developer mode switched on through the real popup, and one agent on the
//! daemon's socket. Direct CDP goes over the browser's own WebSocket (the
//! harness's connection, a flat session on the same page).
//!
//! Every comparison runs in interleaved rounds (A, B, A, B, …) after a
//! warm-up whose samples are dropped, so drift (CPU frequency, the other
//! work on the machine) lands on both sides alike.

use super::only::Only;
use super::probe::{direct, evaluation, scan, timed, viewport};
use super::stats::Summary;
use super::worker_trace::{
    browser_waits, hop_split, split_rows, trace_rows, worker_trace, TraceRecord,
};
use super::{Row, Sample};
use anyhow::{anyhow, bail, Context, Result};
use cotab_e2e::browser::{Browser, LaunchOptions, Page};
use cotab_host::client::Client;
use cotab_shared::controller::{
    Acquire, Capture, CaptureParams, CdpEvents, CdpEventsParams, CdpSend, CdpSendParams, Click,
    ClickParams, Empty, Evaluate, EvaluateParams, LaneTransport, MouseMove, PointerParams, Press,
    PressParams, Ref, SelectParams, Snapshot, SnapshotParams, Status, TabsList, TabsSelect, Type,
    TypeParams,
};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Rounds dropped before measuring.
const WARM_UP: usize = 30;
/// Measured rounds of the round-trip comparisons.
const ROUNDS: usize = 500;
/// Worker restarts measured.
const RESTARTS: usize = 8;
/// Deadline for a restarted worker to serve again.
const RESTART_DEADLINE: Duration = Duration::from_secs(30);

/// What the browser part measured.
#[derive(Default)]
pub(crate) struct BrowserFigures {
    pub(crate) rows: Vec<Row>,
    pub(crate) chromium: String,
    /// Capture size as cotab reported it.
    pub(crate) capture_size: (u32, u32),
    /// Captures with `knownFrameId` answered `unchanged`, of those sent.
    pub(crate) unchanged: (usize, usize),
    /// What carried the lane (`host.status`'s `laneTransport`).
    pub(crate) transport: String,
}

/// Launches the browser and runs every browser item.
pub(crate) async fn run() -> Result<BrowserFigures> {
    // A name no item has fails before the browser starts.
    Only::from_env()?;
    let browser = Browser::launch(LaunchOptions {
        headed: false,
        // Per-request debug lines in the daemon's log are not part of the
        // path being measured, but for its half of the per-hop trace (one
        // short line per browser request).
        env: vec![(
            "COTAB_LOG".into(),
            format!("warn,{}=debug", cotab_host::lane::HOPS_TARGET),
        )],
        ..LaunchOptions::default()
    })
    .await?;
    let version = browser.cdp.send("Browser.getVersion", json!({})).await?;
    let chromium = version["product"].as_str().unwrap_or("unknown").to_string();
    let url = browser.fixture.url("/");
    let page = browser.open_tab(&url).await?;
    let tab = browser.share(&page, &url).await?;
    browser.set_developer_mode(&page, true).await?;
    let mut agent = browser.agent("bench").await?;
    agent
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    agent.call::<Acquire>(&Empty {}).await?;
    let transport = lane_transport(&mut agent).await?;
    if std::env::var("COTAB_BENCH_DRAWINGS").as_deref() == Ok("off") {
        drawings_off(&browser, &page).await?;
    }

    // The same viewport for both CDP clients: whichever override the page
    // applies, both capture the same pixels.
    let metrics = viewport();
    direct(
        &browser,
        &page,
        "Emulation.setDeviceMetricsOverride",
        metrics.clone(),
    )
    .await?;
    agent
        .call::<CdpSend>(&CdpSendParams {
            session_id: None,
            method: "Emulation.setDeviceMetricsOverride".into(),
            params: Some(metrics),
        })
        .await?;

    let (mut rows, capture_size, unchanged) = match items(&browser, &page, &mut agent).await {
        Ok(items) => items,
        Err(e) => {
            // What the daemon saw goes with the browser's temporary files.
            browser.print_daemon_log_tail(60);
            return Err(e);
        }
    };
    drop(agent);
    drop(browser);
    if Only::from_env()?.runs("endpoint") {
        let relay = super::cdp_endpoint::PeerRelay::find()
            .map_err(|why| eprintln!("note: Playwright's extension relay is not timed: {why}"))
            .ok();
        rows.extend(super::cdp_endpoint::cdp_endpoint(relay.as_ref()).await?);
    }
    Ok(BrowserFigures {
        rows,
        chromium,
        capture_size,
        unchanged,
        transport,
    })
}

/// Turns the drawing of what agents aim at off as the person does, with
/// the side panel's switch, and puts the shared tab back in front.
async fn drawings_off(browser: &Browser, page: &Page) -> Result<()> {
    eprintln!("the drawings in the page are off (COTAB_BENCH_DRAWINGS=off)");
    let switch = "document.getElementById('agent-pointer')";
    super::panel::set_switch(
        browser,
        page,
        "the side panel's drawing switch to turn off",
        switch,
        false,
        &format!("{switch}?.checked === false"),
    )
    .await
}

/// Items 1, 2, 3 and 5 on the shared fixture tab, in order: their rows,
/// the capture size and the unchanged captures.
async fn items(
    browser: &Browser,
    page: &Page,
    agent: &mut Client,
) -> Result<(Vec<Row>, (u32, u32), (usize, usize))> {
    let only = Only::from_env()?;
    if let Some(names) = &only.0 {
        eprintln!(
            "only these browser items run (COTAB_BENCH_ITEMS): {}",
            names.join(", ")
        );
    }
    let mut rows = Vec::new();
    let (mut capture_size, mut unchanged) = ((0, 0), (0, 0));
    if only.runs("evaluate") {
        rows.extend(evaluate(browser, page, agent).await?);
    }
    if only.runs("move") {
        rows.extend(mouse_move(browser, page, agent).await?);
    }
    if only.runs("click") {
        rows.extend(click(browser, page, agent).await?);
    }
    if only.runs("ref-click") {
        rows.push(ref_click(agent).await?);
    }
    if only.runs("frames") {
        rows.extend(super::frames::record_frames(browser, page, agent).await?);
    }
    if only.runs("panel") {
        rows.extend(super::panel::panel_updates(browser, page, agent).await?);
    }
    if only.runs("scope") {
        rows.extend(super::scope::navigations(browser, page, agent).await?);
    }
    if only.runs("asks") {
        let field = fixture_ref(agent, "textbox").await?;
        rows.extend(super::scope::asks(browser, page, agent, field).await?);
    }
    if only.runs("type") {
        rows.push(ref_type(browser, page, agent).await?);
    }
    if only.runs("press") {
        rows.extend(key_press(browser, page, agent).await?);
    }
    if only.runs("snapshots") {
        rows.extend(super::snapshots::snapshots(browser, page, agent).await?);
    }
    if only.runs("captures") {
        let (capture_rows, size, same) = super::captures::captures(browser, page, agent).await?;
        rows.extend(capture_rows);
        (capture_size, unchanged) = (size, same);
        rows.extend(super::captures::large_captures(browser, page, agent).await?);
    }
    if only.runs("video") {
        rows.extend(super::video::video_clicks(agent).await?);
    }
    if only.runs("restarts") {
        rows.extend(restarts(browser, page, agent).await?);
    }
    // Last: its worker-only request makes the worker forward every event
    // of the tab from then on.
    if only.runs("cpu") {
        rows.extend(cpu_split(browser, page, agent).await?);
    }
    Ok((rows, capture_size, unchanged))
}

/// What carries the lane once it settled: the WebSocket, unless the
/// daemon's environment turned it off (`COTAB_SOCKET_LANE=off`).
async fn lane_transport(agent: &mut Client) -> Result<String> {
    let want = if cotab_host::socket_lane::enabled_by_env() {
        LaneTransport::WebSocket
    } else {
        LaneTransport::NativeMessaging
    };
    cotab_e2e::browser::carried_by(agent, want, Duration::from_secs(5)).await?;
    Ok(want.as_str().to_owned())
}

/// Item 1: a trivial `Runtime.evaluate`, direct vs `page.evaluate`.
async fn evaluate(browser: &Browser, page: &Page, agent: &mut Client) -> Result<Vec<Row>> {
    let (params, raw) = evaluation("1+1");
    let scan = scan();
    let (mut a, mut b, mut c, mut d) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut e = Vec::new();
    for round in 0..WARM_UP + ROUNDS {
        if round == WARM_UP {
            // The worker's trace of the warm-up is dropped.
            worker_trace(browser).await?;
        }
        let (da, r) = timed(direct(browser, page, "Runtime.evaluate", raw.clone())).await?;
        if r["result"]["value"] != 2 {
            bail!("direct Runtime.evaluate returned {r}");
        }
        let (db, r) = timed(async { Ok(agent.call::<Evaluate>(&params).await?) }).await?;
        if r.value != 2 {
            bail!("page.evaluate returned {:?}", r.value);
        }
        // Where the time goes: the agent socket and the daemon alone, then
        // one trip over the native link to the worker and back (no CDP).
        let (dc, _) = timed(async { Ok(agent.call::<Status>(&Empty {}).await?) }).await?;
        let (dd, _) = timed(async { Ok(agent.call::<TabsList>(&Empty {}).await?) }).await?;
        // The redaction scan `page.evaluate` sends after the call, direct.
        let (de, _) = timed(direct(browser, page, "Runtime.evaluate", scan.clone())).await?;
        if round >= WARM_UP {
            e.push(de);
            a.push(da);
            b.push(db);
            c.push(dc);
            d.push(dd);
        }
    }
    let trace = worker_trace(browser).await?;
    let evaluations: Vec<&TraceRecord> = trace
        .iter()
        .filter(|r| r.what == "Runtime.evaluate")
        .collect();
    let rode = evaluations.iter().filter(|r| r.sends == 2).count();
    let split = hop_split(browser, "Runtime.evaluate", &evaluations, &b);
    eprintln!(
        "note: the redaction scan rode behind the call in {rode} of {} `page.evaluate`s \
         (sent again after it in the others)",
        evaluations.len()
    );
    let mut rows = vec![
        Row::new(
            "1",
            "`Runtime.evaluate` `1+1`",
            "direct CDP",
            Sample::Latency(a),
        ),
        Row::new("1", "`page.evaluate` `1+1`", "cotab", Sample::Latency(b)),
        Row::new(
            "1",
            "`host.status` (agent socket and daemon only)",
            "cotab",
            Sample::Latency(c),
        ),
        Row::new(
            "1",
            "`tabs.list` (one native-messaging trip to the worker, no CDP)",
            "cotab",
            Sample::Latency(d),
        ),
        Row::new(
            "1",
            "`Runtime.evaluate` of the redaction scan that follows `page.evaluate`",
            "direct CDP",
            Sample::Latency(e),
        ),
    ];
    rows.extend(trace_rows(
        "1",
        &trace,
        &[
            ("Runtime.evaluate", "`page.evaluate`"),
            ("listShared", "`tabs.list`"),
        ],
    ));
    rows.extend(split_rows(
        "1",
        split,
        "`page.evaluate` in the agent socket and the daemon",
        "`page.evaluate` in the lane's transport (the WebSocket, or the relay and native messaging), both ways",
    ));
    Ok(rows)
}

/// Item 1's CPU split ([`super::cpu`]): a trivial evaluation over direct
/// CDP, through `page.evaluate`, and a request the worker answers without
/// the browser's APIs (`cdp.events` on: one trip over the lane, and no
/// more), each [`super::cpu::REQUESTS`] times back to back.
async fn cpu_split(browser: &Browser, page: &Page, agent: &mut Client) -> Result<Vec<Row>> {
    use super::cpu::{Meter, REQUESTS, WARM_UP};
    // The worker restarts before (item 5) lost the lane, and with it the
    // lease.
    agent.call::<Acquire>(&Empty {}).await?;
    let (params, raw) = evaluation("1+1");
    let mut rows = Vec::new();
    for run in [CpuRun::Direct, CpuRun::Evaluate, CpuRun::WorkerTrip] {
        for _ in 0..WARM_UP {
            cpu_request(run, browser, page, agent, &raw, &params).await?;
        }
        let meter = Meter::start(browser);
        let mut latencies = Vec::with_capacity(REQUESTS);
        for _ in 0..REQUESTS {
            let (d, ()) = timed(cpu_request(run, browser, page, agent, &raw, &params)).await?;
            latencies.push(d);
        }
        let (what, path) = run.row();
        rows.push(meter.row(what, path, latencies));
    }
    Ok(rows)
}

/// One request of [`cpu_split`]'s `run`.
async fn cpu_request(
    run: CpuRun,
    browser: &Browser,
    page: &Page,
    agent: &mut Client,
    raw: &Value,
    params: &EvaluateParams,
) -> Result<()> {
    match run {
        CpuRun::Direct => {
            direct(browser, page, "Runtime.evaluate", raw.clone()).await?;
        }
        CpuRun::Evaluate => {
            agent.call::<Evaluate>(params).await?;
        }
        CpuRun::WorkerTrip => {
            agent
                .call::<CdpEvents>(&CdpEventsParams { enabled: true })
                .await?;
        }
    }
    Ok(())
}

/// The requests of [`cpu_split`].
#[derive(Clone, Copy)]
enum CpuRun {
    Direct,
    Evaluate,
    WorkerTrip,
}

impl CpuRun {
    /// Its row's description and path.
    fn row(self) -> (&'static str, &'static str) {
        match self {
            CpuRun::Direct => (
                "CPU of `Runtime.evaluate` `1+1`, back to back",
                "direct CDP",
            ),
            CpuRun::Evaluate => ("CPU of `page.evaluate` `1+1`, back to back", "cotab"),
            CpuRun::WorkerTrip => (
                "CPU of one trip to the worker and back (`cdp.events`), back to back",
                "cotab",
            ),
        }
    }
}

/// The page's frame interval, in whole milliseconds: the pauses before
/// the mouse moves take every value below it.
const FRAME_MS: usize = 17;

/// A pause for `round`: 0 to [`FRAME_MS`] − 1 ms, each value once in any
/// [`FRAME_MS`] rounds in a row, not in order (tokio's timer adds up to a
/// millisecond).
pub(super) fn frame_pause(round: usize) -> Duration {
    Duration::from_millis((round * 7 % FRAME_MS) as u64)
}

/// Item 2: a non-privileged action reaching the page: a mouse move. The
/// page answers one at its next frame, so back to back a move would start
/// where the answer before it left the frame clock and time little but
/// the way back; each one starts after a pause of its own instead
/// ([`frame_pause`], the same for both kinds in a round), at any point of
/// the frame, so both ways and the wait for the frame count.
async fn mouse_move(browser: &Browser, page: &Page, agent: &mut Client) -> Result<Vec<Row>> {
    let frame = agent
        .call::<Capture>(&CaptureParams::default())
        .await?
        .frame_id;
    let points = [(100.0, 100.0), (300.0, 200.0)];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for round in 0..WARM_UP + ROUNDS {
        let (x, y) = points[round % 2];
        tokio::time::sleep(frame_pause(round)).await;
        let (da, _) = timed(direct(
            browser,
            page,
            "Input.dispatchMouseEvent",
            json!({"type": "mouseMoved", "x": x, "y": y}),
        ))
        .await?;
        let params = PointerParams {
            x,
            y,
            frame_id: Some(frame.clone()),
            button: None,
            expect: None,
        };
        tokio::time::sleep(frame_pause(round)).await;
        let (db, _) = timed(async { Ok(agent.call::<MouseMove>(&params).await?) }).await?;
        if round >= WARM_UP {
            a.push(da);
            b.push(db);
        }
    }
    Ok(item_2_pair(
        ("`Input.dispatchMouseEvent` mouseMoved", a),
        ("`input.mouseMove`", b),
    ))
}

/// Item 2's rows for one comparison: direct CDP's latencies and cotab's.
fn item_2_pair(
    (direct_what, direct): (&str, Vec<Duration>),
    (cotab_what, cotab): (&str, Vec<Duration>),
) -> Vec<Row> {
    vec![
        Row::new("2", direct_what, "direct CDP", Sample::Latency(direct)),
        Row::new("2", cotab_what, "cotab", Sample::Latency(cotab)),
    ]
}

/// The row of cotab's click sequence over direct CDP ([`click`]).
pub(crate) const SAME_SEQUENCE: &str = "a click as `input.click` sends it: viewport read; move and press at once; release; a trip through the page";

/// Item 2: a click on the fixture's button: direct CDP's move, press and
/// release against `input.click` at the same point of a capture (which
/// sends the same three events, in one trip with the viewport read), and
/// against the same sequence as cotab's over direct CDP: the viewport
/// read, the move and the press at once, the release once the press
/// answered, then a trip through the page (what the `input` command's
/// `settle` does). Each starts after a pause, as [`mouse_move`]'s do: its
/// move waits for the page's frame.
async fn click(browser: &Browser, page: &Page, agent: &mut Client) -> Result<Vec<Row>> {
    let frame = agent.call::<Capture>(&CaptureParams::default()).await?;
    if frame.device_pixel_ratio != 1.0 {
        bail!("the click's point assumes 1 image pixel per CSS pixel");
    }
    let (x, y) = cotab_e2e::fixture::BUTTON_CENTRE;
    let event = |kind: &str, buttons: u32| {
        json!({"type": kind, "x": x, "y": y, "button": "left", "buttons": buttons,
               "clickCount": 1})
    };
    let mouse = cotab_shared::input::MOUSE_EVENT;
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..WARM_UP + ROUNDS {
        tokio::time::sleep(frame_pause(round)).await;
        let (dc, _) = timed(async {
            direct(browser, page, "Page.getLayoutMetrics", json!({})).await?;
            let (moved, pressed) = tokio::join!(
                direct(browser, page, mouse, event("mouseMoved", 0)),
                direct(browser, page, mouse, event("mousePressed", 1)),
            );
            moved?;
            pressed?;
            direct(browser, page, mouse, event("mouseReleased", 0)).await?;
            direct(
                browser,
                page,
                "Runtime.evaluate",
                json!({"expression": cotab_shared::native::SETTLE_EXPRESSION}),
            )
            .await?;
            Ok(())
        })
        .await?;
        tokio::time::sleep(frame_pause(round)).await;
        let (da, _) = timed(async {
            for (kind, buttons) in [("mouseMoved", 0), ("mousePressed", 1), ("mouseReleased", 0)] {
                direct(browser, page, mouse, event(kind, buttons)).await?;
            }
            Ok(())
        })
        .await?;
        let params = ClickParams {
            x: Some(x),
            y: Some(y),
            frame_id: Some(frame.frame_id.clone()),
            ..ClickParams::default()
        };
        tokio::time::sleep(frame_pause(round)).await;
        let (db, _) = timed(async { Ok(agent.call::<Click>(&params).await?) }).await?;
        if round >= WARM_UP {
            a.push(da);
            b.push(db);
            c.push(dc);
        }
    }
    let mut rows = vec![
        Row::new(
            "2",
            "`Input.dispatchMouseEvent` moved, pressed, released (a click)",
            "direct CDP",
            Sample::Latency(a),
        ),
        Row::new("2", SAME_SEQUENCE, "direct CDP", Sample::Latency(c)),
        Row::new(
            "2",
            "`input.click` at a capture's point",
            "cotab",
            Sample::Latency(b),
        ),
    ];
    // Each click is one `input` command to the worker: the viewport read,
    // the move, the press and the release, one after another.
    let trace = worker_trace(browser).await?;
    let worker: Vec<f64> = trace
        .iter()
        .filter(|r| r.what == "input")
        .map(|r| r.posted - r.received)
        .collect();
    let waits = browser_waits(browser, "input");
    for (source, times) in [("in the worker", worker), ("the daemon's wait", waits)] {
        if times.len() < ROUNDS {
            eprintln!("note: no `input` command timings of `input.click` from {source}");
            continue;
        }
        let clicks = &times[times.len() - ROUNDS..];
        rows.push(Row::new(
            "2",
            &format!("`input.click` (viewport read, move, press, release), {source}"),
            "cotab",
            Sample::Millis(clicks.to_vec()),
        ));
    }
    Ok(rows)
}

/// Item 2: a key press (`ArrowDown`, which changes nothing on the fixture
/// page): direct CDP's key down and key up against `input.press`, which
/// sends the same two events in one trip. Key events wait for no frame, so
/// the rounds go back to back, interleaved.
async fn key_press(browser: &Browser, page: &Page, agent: &mut Client) -> Result<Vec<Row>> {
    let key = "ArrowDown";
    let info = cotab_host::keys::lookup(key).context("a known key")?;
    let events = cotab_host::keys::key_events(&info, &[]);
    let params = PressParams {
        key: key.into(),
        modifiers: Vec::new(),
        expect: None,
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for round in 0..WARM_UP + ROUNDS {
        let (da, _) = timed(async {
            for event in &events {
                direct(browser, page, "Input.dispatchKeyEvent", event.clone()).await?;
            }
            Ok(())
        })
        .await?;
        let (db, _) = timed(async { Ok(agent.call::<Press>(&params).await?) }).await?;
        if round >= WARM_UP {
            a.push(da);
            b.push(db);
        }
    }
    Ok(item_2_pair(
        ("`Input.dispatchKeyEvent` key down, key up", a),
        ("`input.press`", b),
    ))
}

/// Item 2: a click on the fixture's button by the ref of a snapshot, each
/// after a pause as [`click`]'s: the extension finds the element's
/// visible, uncovered centre in one `aim` op (its node, scrolled into
/// view, its quads and the layout, a hit test), then the daemon clicks
/// there.
async fn ref_click(agent: &mut Client) -> Result<Row> {
    let button = fixture_ref(agent, "button \"Click me\"").await?;
    let params = ClickParams::on(button);
    let mut v = Vec::new();
    for round in 0..WARM_UP + ROUNDS {
        tokio::time::sleep(frame_pause(round)).await;
        let (d, _) = timed(async { Ok(agent.call::<Click>(&params).await?) }).await?;
        if round >= WARM_UP {
            v.push(d);
        }
    }
    Ok(Row::new(
        "2",
        "`input.click` on a snapshot's ref",
        "cotab",
        Sample::Latency(v),
    ))
}

/// The ref of the first element of a new snapshot whose line contains
/// `line`.
async fn fixture_ref(agent: &mut Client, line: &str) -> Result<Ref> {
    let outline = agent
        .call::<Snapshot>(&SnapshotParams::default())
        .await?
        .text;
    cotab_e2e::outline_ref(&outline, line)
        .ok_or_else(|| anyhow!("no ref for `{line}` in:\n{outline}"))
}

/// Item 2: typing into the fixture's text field by the ref of a snapshot,
/// emptying it first (`clear`), each after a pause as [`click`]'s: the
/// extension finds the element's visible centre in one `aim` op (its
/// node, scrolled into view, its quads and the layout), then the daemon
/// focuses it and checks that it takes text (clearing it), then inserts
/// the text.
async fn ref_type(browser: &Browser, page: &Page, agent: &mut Client) -> Result<Row> {
    let params = TypeParams {
        text: "a".into(),
        element: Some(fixture_ref(agent, "textbox").await?),
        clear: true,
        ..TypeParams::default()
    };
    let mut v = Vec::new();
    for round in 0..WARM_UP + ROUNDS {
        tokio::time::sleep(frame_pause(round)).await;
        let (d, _) = timed(async { Ok(agent.call::<Type>(&params).await?) }).await?;
        if round >= WARM_UP {
            v.push(d);
        }
    }
    let value = browser
        .eval(page, "document.getElementById('name').value")
        .await?;
    if value != "a" {
        bail!("the fixture's field holds {value} after the typing rounds, not \"a\"");
    }
    // The page as it was: a focused field's caret blinks, which would
    // change every capture after this.
    browser
        .eval(
            page,
            "(() => { const f = document.getElementById('name'); f.value = ''; f.blur(); \
             return document.activeElement === document.body; })()",
        )
        .await?;
    Ok(Row::new(
        "2",
        "`input.type` with `clear` on a snapshot's ref",
        "cotab",
        Sample::Latency(v),
    ))
}

/// The worker's start-up marks (`self.cotabTiming`).
async fn worker_timing(browser: &Browser) -> Result<Value> {
    browser.in_worker("self.cotabTiming ?? null").await
}

/// Item 5: the worker's start (time origin → Rust start → first native
/// message), and the time from `ServiceWorker.stopAllWorkers` to the
/// restarted worker answering an agent's `tabs.list`. A tab opened in the
/// background right after the stop wakes the worker (`tabs.onUpdated`),
/// as any browser event would.
async fn restarts(browser: &Browser, page: &Page, agent: &mut Client) -> Result<Vec<Row>> {
    let mut rust_start = Vec::new();
    let mut first_message = Vec::new();
    let mut serving = Vec::new();
    let mut record = |timing: &Value| -> Result<()> {
        let num = |k: &str| {
            timing[k]
                .as_f64()
                .ok_or_else(|| anyhow!("the worker recorded no {k}: {timing}"))
        };
        rust_start.push(num("rustStartMs")?);
        first_message.push(num("firstNativeMessageMs")?);
        Ok(())
    };
    // The worker the browser started with.
    record(&worker_timing(browser).await?)?;
    direct(browser, page, "ServiceWorker.enable", json!({})).await?;
    for _ in 0..RESTARTS {
        let start = Instant::now();
        direct(browser, page, "ServiceWorker.stopAllWorkers", json!({})).await?;
        let wake = browser
            .cdp
            .send(
                "Target.createTarget",
                json!({"url": "about:blank", "background": true}),
            )
            .await?;
        // Any answer after the stop came from a new worker; the old lane's
        // loss may fail the first tries.
        loop {
            match agent.call::<TabsList>(&Empty {}).await {
                Ok(list) if !list.tabs.is_empty() => break,
                Ok(_) | Err(_) if start.elapsed() < RESTART_DEADLINE => {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                Ok(_) => bail!("the restarted worker shares no tab"),
                Err(e) => bail!("the worker did not serve again within {RESTART_DEADLINE:?}: {e}"),
            }
        }
        serving.push(start.elapsed().as_secs_f64() * 1e3);
        if let Some(id) = wake["targetId"].as_str() {
            browser
                .cdp
                .send("Target.closeTarget", json!({"targetId": id}))
                .await?;
        }
        record(&worker_timing(browser).await?)?;
    }
    Ok(vec![
        Row::new(
            "5",
            "worker time origin → Rust start (`initSync` done)",
            "extension",
            Sample::Millis(rust_start),
        ),
        Row::new(
            "5",
            "worker time origin → first native message",
            "extension",
            Sample::Millis(first_message),
        ),
        Row::new(
            "5",
            "`ServiceWorker.stopAllWorkers` → `tabs.list` served",
            "cotab",
            Sample::Millis(serving),
        ),
    ])
}

/// The summary of a row's latencies (for targets).
pub(crate) fn summary_of(rows: &[Row], what: &str, path: &str) -> Option<Summary> {
    rows.iter()
        .find(|r| r.what == what && r.path == path)
        .and_then(Row::summary)
}
