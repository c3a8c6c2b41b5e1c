//! Developer mode switched off while an agent works: the extension
//! re-attaches every shared tab to clear what raw CDP left, and the
//! agent's reads in flight across it are answered on the new session, not
//! failed. And a worker that has not read the switch yet is sent no raw
//! CDP: the daemon counts developer mode off until the worker reports it.

use cotab_e2e::browser::{Browser, LaunchOptions};
use cotab_shared::controller::{
    Acquire, Capture, CaptureParams, Empty, ImageFormat, SelectParams, Snapshot, SnapshotParams,
    TabsSelect,
};
use cotab_shared::EXTENSION_ID;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_in_flight_when_developer_mode_goes_off_are_answered() -> anyhow::Result<()> {
    let browser = Browser::launch(LaunchOptions::default()).await?;
    let url = browser.fixture.url("/");
    let page = browser.open_tab(&url).await?;
    let tab = browser.share(&page, &url).await?;
    let mut reader = browser.agent("reader").await?;
    reader
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    reader.call::<Acquire>(&Empty {}).await?;
    // An element's capture too: the daemon aims at it first, in one
    // operation of the extension's.
    let outline = crate::toolset::snapshot(&mut reader).await?;
    let link = crate::toolset::find_ref(&outline, "button \"Click me\"")?;
    let size = "[innerWidth, innerHeight]";
    let before = browser.eval(&page, size).await?;
    let stop = Arc::new(AtomicBool::new(false));
    let reads = {
        let stop = stop.clone();
        tokio::spawn(async move {
            let mut done = 0u32;
            let mut failed = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let shot = reader
                    .call::<Capture>(&CaptureParams {
                        format: ImageFormat::Jpeg,
                        ..CaptureParams::default()
                    })
                    .await;
                if let Err(e) = shot {
                    failed.push(format!("capture: {e}"));
                }
                let element = reader
                    .call::<Capture>(&CaptureParams {
                        clip: Some(link.clone()),
                        ..CaptureParams::default()
                    })
                    .await;
                if let Err(e) = element {
                    failed.push(format!("an element's capture: {e}"));
                }
                if let Err(e) = reader.call::<Snapshot>(&SnapshotParams::default()).await {
                    failed.push(format!("snapshot: {e}"));
                }
                done += 3;
            }
            (done, failed)
        })
    };
    // The person flips the switch while the reads go on: each off
    // re-attaches the tab under them (the browser gives a page its size
    // back after a capture of a region only if the debugger stayed).
    for on in [true, false].repeat(20) {
        browser.set_developer_mode(&page, on).await?;
    }
    stop.store(true, Ordering::Relaxed);
    let (done, failed) = reads.await?;
    assert!(done > 10, "only {done} reads");
    assert!(
        failed.is_empty(),
        "{} of {done} reads failed: {failed:?}",
        failed.len()
    );
    assert_eq!(browser.eval(&page, size).await?, before, "the page's size");
    Ok(())
}

/// The condition of a breakpoint on the worker's call of a storage
/// area's `get` (the wasm's glue, `arg0.get(arg1)`): it never pauses, but
/// makes the worker's reads of the developer-mode switch answer 3 s late
/// (its other reads of storage are left alone).
const SLOW_SWITCH_READS: &str = r#"arg1 === 'developerMode' && !arg0.slowed && (() => {
    const get = arg0.get.bind(arg0);
    arg0.get = (keys, ...rest) => keys === 'developerMode'
        ? new Promise(r => setTimeout(r, 3000)).then(() => get(keys, ...rest))
        : get(keys, ...rest);
    arg0.slowed = true;
})(), false"#;

/// The 0-based line of the worker's glue that calls a storage area's
/// `get`.
fn storage_get_line() -> anyhow::Result<usize> {
    let glue = std::fs::read_to_string(cotab_e2e::extension_dir()?.join("cotab_worker.js"))?;
    let lines: Vec<usize> = glue
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim() == "const ret = arg0.get(arg1);")
        .map(|(i, _)| i)
        .collect();
    match lines[..] {
        [line] => Ok(line),
        _ => anyhow::bail!("the worker's glue calls `arg0.get(arg1)` on lines {lines:?}, not once"),
    }
}

/// A page's new worker runs (a worker held for a debugger never does).
const WORKER_RUNS: &str = r#"new Promise(done => {
    const w = new Worker(URL.createObjectURL(new Blob(['postMessage(1)'])));
    w.onmessage = () => done(true);
    setTimeout(() => done(false), 5000);
})"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn raw_cdp_before_a_new_worker_has_read_the_switch_is_refused_and_holds_nothing(
) -> anyhow::Result<()> {
    let browser = Browser::launch(LaunchOptions::default()).await?;
    let url = browser.fixture.url("/");
    let page = browser.open_tab(&url).await?;
    let tab = browser.share(&page, &url).await?;
    browser.set_developer_mode(&page, true).await?;
    // The extension's next worker starts held for the harness, which
    // slows its reads of the switch and lets it run.
    let mut events = browser.cdp.events();
    browser
        .cdp
        .send(
            "Target.setAutoAttach",
            json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true,
                   "filter": [{"type": "service_worker"}]}),
        )
        .await?;
    browser.reload_extension().await?;
    let worker_url = format!("chrome-extension://{EXTENSION_ID}/background.js");
    let session = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(e) = events.recv().await {
            let p = &e["params"];
            if e["method"] == "Target.attachedToTarget"
                && p["waitingForDebugger"] == Value::Bool(true)
                && p["targetInfo"]["url"] == worker_url.as_str()
            {
                return p["sessionId"].as_str().map(str::to_owned);
            }
        }
        None
    })
    .await?
    .ok_or_else(|| anyhow::anyhow!("the reloaded worker was not attached"))?;
    let on =
        |method: &'static str, params: Value| browser.cdp.send_to(Some(&session), method, params);
    on("Debugger.enable", json!({})).await?;
    on(
        "Debugger.setBreakpointByUrl",
        json!({"urlRegex": "cotab_worker\\.js$", "lineNumber": storage_get_line()?,
               "condition": SLOW_SWITCH_READS}),
    )
    .await?;
    on("Runtime.runIfWaitingForDebugger", json!({})).await?;
    browser.wait_lane_online().await?;

    let mut agent = browser.agent("undone").await?;
    agent
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    agent.call::<Acquire>(&Empty {}).await?;
    // Raw CDP that would hold the page's new workers for a debugger, sent
    // while the worker reads the switch, and the session's end right
    // behind it, whose undo must not be overtaken by it.
    agent
        .send_raw(
            r#"{"jsonrpc":"2.0","id":100,"method":"cdp.send","params":{"method":"Target.setAutoAttach","params":{"autoAttach":true,"waitForDebuggerOnStart":true,"flatten":true}}}"#,
        )
        .await?;
    agent
        .send_raw(r#"{"jsonrpc":"2.0","id":101,"method":"session.bye"}"#)
        .await?;
    let mut answered = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), async {
        while answered.len() < 2 {
            match agent.next_message().await {
                Ok(m) if m.get("id").is_some() => answered.push(m),
                Ok(_) => {}
                Err(e) => anyhow::bail!("the connection ended before both answers: {e}"),
            }
        }
        Ok(())
    })
    .await??;
    answered.sort_by_key(|m| m["id"].as_u64());
    assert_eq!(
        answered[0]["error"]["data"]["kind"], "DEVELOPER_MODE_OFF",
        "the raw call is refused before the worker has read the switch: {answered:?}"
    );
    assert_eq!(answered[1]["result"], json!({}), "{answered:?}");
    assert_eq!(
        browser
            .in_worker("chrome.storage.local.slowed === true")
            .await?,
        json!(true),
        "the worker's reads of the switch were slowed"
    );
    browser
        .cdp
        .send(
            "Target.setAutoAttach",
            json!({"autoAttach": false, "waitForDebuggerOnStart": false, "flatten": true}),
        )
        .await?;
    assert_eq!(
        browser.eval(&page, WORKER_RUNS).await?,
        json!(true),
        "the page's new worker runs: nothing holds it for a debugger once the lease ended \
         ({answered:?})"
    );
    Ok(())
}
