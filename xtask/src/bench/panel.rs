//! Item 2's side panel (issue 38): how long after an agent's request is
//! answered the side panel shows it. The panel page (`popup.html?panel`)
//! is a tab in front, the agent's tab behind it, as when the person
//! watches an agent work in another tab; the page itself notes when each
//! request's line first shows its outcome (a `MutationObserver`, on the
//! page's clock, which is the wall clock as the bench's is), so polling it
//! adds nothing to what is timed. The DOM is what is timed: the browser
//! paints it with its next frame.

use super::{Row, Sample};
use anyhow::{anyhow, Result};
use cotab_e2e::browser::{Browser, Page};
use cotab_host::client::Client;
use cotab_shared::controller::{Press, PressParams};
use cotab_shared::EXTENSION_ID;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const WARM_UP: usize = 3;
const ROUNDS: usize = 30;
/// Between rounds, so each request is a line of its own.
const PAUSE: Duration = Duration::from_millis(100);
/// How long a line may take to show before the bench gives up.
const GIVE_UP: Duration = Duration::from_secs(5);

/// Notes, per request (`data-seq`), when its line first had an outcome.
const OBSERVE: &str = "window.__shown = {}; \
    const mark = () => { for (const li of document.querySelectorAll('ol.recent li')) { \
      const s = Number(li.dataset.seq); \
      if (li.dataset.outcome && !(s in window.__shown)) \
        window.__shown[s] = performance.timeOrigin + performance.now(); } }; \
    new MutationObserver(mark).observe(document.body, \
      {subtree: true, childList: true, attributes: true}); \
    mark(); true";

/// The newest request the panel showed, and when: `[seq, ms]`.
const NEWEST: &str = "(() => { const s = Object.keys(window.__shown).map(Number); \
    if (!s.length) return [0, 0]; const m = Math.max(...s); \
    return [m, window.__shown[m]]; })()";

fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

async fn newest(browser: &Browser, panel: &Page) -> Result<(u64, f64)> {
    let v = browser.eval(panel, NEWEST).await?;
    let seq = v[0].as_u64().unwrap_or(0);
    let at = v[1].as_f64().unwrap_or(0.0);
    Ok((seq, at))
}

pub(super) async fn panel_updates(
    browser: &Browser,
    page: &Page,
    agent: &mut Client,
) -> Result<Vec<Row>> {
    let url = format!("chrome-extension://{EXTENSION_ID}/popup.html?panel");
    let panel = browser.open_tab(&url).await?;
    let started = tokio::time::Instant::now();
    loop {
        let watching = browser
            .eval(
                &panel,
                "document.getElementById('watch-status')?.dataset.watching",
            )
            .await?;
        if watching == "true" {
            break;
        }
        if started.elapsed() > GIVE_UP {
            return Err(anyhow!("the side panel did not start watching"));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    browser.eval(&panel, OBSERVE).await?;
    let press = PressParams {
        key: "Escape".into(),
        modifiers: vec![],
        expect: None,
    };
    let mut shown = Vec::new();
    for round in 0..WARM_UP + ROUNDS {
        let (before, _) = newest(browser, &panel).await?;
        agent.call::<Press>(&press).await?;
        let answered = now_ms();
        let asked = tokio::time::Instant::now();
        let at = loop {
            let (seq, at) = newest(browser, &panel).await?;
            if seq > before {
                break at;
            }
            if asked.elapsed() > GIVE_UP {
                return Err(anyhow!(
                    "the side panel did not show request after {before}"
                ));
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        };
        if round >= WARM_UP {
            // A line shown before the answer arrived counts as at once.
            shown.push(Duration::from_secs_f64((at - answered).max(0.0) / 1000.0));
        }
        tokio::time::sleep(PAUSE).await;
    }
    browser.close(&panel).await?;
    browser.activate(page).await?;
    Ok(vec![Row::new(
        "2",
        "the side panel shows an agent's `input.press` (its line's DOM), after the agent's answer; \
         the panel in front, the agent's tab behind",
        "cotab",
        Sample::Latency(shown),
    )])
}

/// Sets the side panel's checkbox `switch` (a DOM expression) to `on`, as
/// the person does, until `done` (a DOM expression) says the daemon took
/// it; then closes the panel and puts `page` back in front.
pub(super) async fn set_switch(
    browser: &Browser,
    page: &Page,
    what: &str,
    switch: &str,
    on: bool,
    done: &str,
) -> Result<()> {
    let url = format!("chrome-extension://{EXTENSION_ID}/popup.html?panel");
    let panel = browser.open_tab(&url).await?;
    let state = format!(
        "[document.getElementById('watch-status')?.dataset.watching, {switch}?.checked, !!({done})]"
    );
    let clock = cotab_e2e::Deadline::new(what, Duration::from_secs(10));
    loop {
        let v = browser.eval(&panel, &state).await?;
        match (v[0].as_str(), v[1].as_bool(), v[2].as_bool()) {
            (Some("true"), _, Some(true)) => break,
            (Some("true"), Some(checked), _) if checked != on => {
                browser
                    .eval(&panel, &format!("{switch}.click(); 1"))
                    .await?;
            }
            _ => {}
        }
        clock.next(v).await?;
    }
    browser.close(&panel).await?;
    browser.activate(page).await
}
