//! The worker's own trace of each request (`self.cotabTrace()`) and the
//! rows read from it: where a request's time went between the daemon, the
//! native link, the worker and the browser.

use super::{Row, Sample};
use anyhow::{bail, Context, Result};
use cotab_e2e::browser::Browser;
use std::time::Duration;

/// Rows of the worker's trace, per request kind (`what`, labelled
/// `label`): the admission checks, the `chrome.debugger` call(s) (for
/// `page.evaluate`, the call and its scan), encoding and posting the
/// answer, and all of it.
pub(super) fn trace_rows(
    item: &'static str,
    trace: &[TraceRecord],
    kinds: &[(&str, &str)],
) -> Vec<Row> {
    let steps: [(&str, Step); 4] = [
        ("received → handed to `chrome.debugger` (checks)", |r| {
            r.sent - r.received
        }),
        ("`chrome.debugger` call(s)", |r| r.answered - r.sent),
        ("answered → answer posted", |r| r.posted - r.answered),
        ("received → answer posted", |r| r.posted - r.received),
    ];
    let mut rows = Vec::new();
    for (what, label) in kinds {
        for (step, f) in steps {
            let ms: Vec<f64> = trace
                .iter()
                .filter(|r| r.what == *what)
                .map(f)
                .filter(|v| v.is_finite())
                .collect();
            if !ms.is_empty() {
                rows.push(Row::new(
                    item,
                    &format!("{label} in the worker: {step}"),
                    "extension",
                    Sample::Millis(ms),
                ));
            }
        }
    }
    rows
}

/// The pauses in the worker between one `what` request's answer posted
/// and the next one's command handed to `chrome.debugger`, for requests
/// that follow each other back to back: a pause of 20 ms or more has
/// something else between the two (a block of direct captures, each of
/// which waits for at least one frame), and is left out.
pub(super) fn pauses_between(trace: &[TraceRecord], what: &str) -> Vec<f64> {
    let records: Vec<&TraceRecord> = trace.iter().filter(|r| r.what == what).collect();
    records
        .windows(2)
        .map(|w| w[1].sent - w[0].posted)
        .filter(|ms| ms.is_finite() && *ms < 20.0)
        .collect()
}

/// One step's duration in a [`TraceRecord`], in milliseconds.
type Step = fn(&TraceRecord) -> f64;

/// One record of the worker's request trace (`extension/src/trace.rs`):
/// `performance.now()` marks, NaN for a step the request did not take.
pub(super) struct TraceRecord {
    pub(super) what: String,
    pub(super) received: f64,
    pub(super) sent: f64,
    pub(super) answered: f64,
    pub(super) posted: f64,
    /// CDP commands sent for the request.
    pub(super) sends: u64,
}

/// Splits each of `times` (an agent's requests, each one `what` request
/// to the browser) with its record in the worker's trace and its line in
/// the daemon's, in order: the agent's time less the daemon's wait for the
/// browser is the agent socket and the daemon; that wait less the worker's
/// time is the lane's transport (the WebSocket, or the relay and the
/// browser's native messaging), both ways. None
/// (and a note) if the counts do not match.
pub(super) fn hop_split(
    browser: &Browser,
    what: &str,
    records: &[&TraceRecord],
    times: &[Duration],
) -> Option<(Vec<f64>, Vec<f64>)> {
    let waits = browser_waits(browser, what);
    if records.len() != times.len() || waits.len() < times.len() {
        eprintln!(
            "note: {} `{what}` records in the worker's trace and {} in the daemon's for \
             {} requests; no per-hop split",
            records.len(),
            waits.len(),
            times.len()
        );
        return None;
    }
    let waits = &waits[waits.len() - times.len()..];
    Some(
        records
            .iter()
            .zip(times)
            .zip(waits)
            .map(|((r, d), wait)| {
                (
                    d.as_secs_f64() * 1000.0 - wait,
                    wait - (r.posted - r.received),
                )
            })
            .unzip(),
    )
}

/// The rows of a [`hop_split`]: the daemon's part, then the messaging.
pub(super) fn split_rows(
    item: &'static str,
    split: Option<(Vec<f64>, Vec<f64>)>,
    daemon: &'static str,
    messaging: &'static str,
) -> Vec<Row> {
    let Some((d, m)) = split else {
        return Vec::new();
    };
    [(daemon, d), (messaging, m)]
        .into_iter()
        .filter_map(|(what, ms)| {
            let ms: Vec<f64> = ms.into_iter().filter(|v| v.is_finite()).collect();
            (!ms.is_empty()).then(|| Row::new(item, what, "cotab", Sample::Millis(ms)))
        })
        .collect()
}

/// The daemon's waits for the browser's answers to `what` requests, in
/// milliseconds and in order: its half of the per-hop trace (the
/// `cotab_host::hops` lines of its log).
pub(super) fn browser_waits(browser: &Browser, what: &str) -> Vec<f64> {
    let want = format!("what=\"{what}\"");
    browser
        .daemon_log()
        .lines()
        .filter(|l| l.contains("browser answered") && l.contains(&want))
        .filter_map(|l| {
            let micros = l.split("micros=").nth(1)?.split_whitespace().next()?;
            micros.parse::<f64>().ok().map(|us| us / 1000.0)
        })
        .collect()
}

/// Reads and clears the worker's request trace.
pub(super) async fn worker_trace(browser: &Browser) -> Result<Vec<TraceRecord>> {
    let v = browser
        .in_worker("self.cotabTrace ? self.cotabTrace() : null")
        .await?;
    if v.is_null() {
        bail!("the worker has no request trace (self.cotabTrace)");
    }
    let records = v
        .as_array()
        .context("the worker's request trace is a list")?;
    Ok(records
        .iter()
        .map(|r| {
            // NaN arrives as null.
            let num = |k: &str| r[k].as_f64().unwrap_or(f64::NAN);
            TraceRecord {
                what: r["what"].as_str().unwrap_or_default().to_owned(),
                received: num("received"),
                sent: num("sent"),
                answered: num("answered"),
                posted: num("posted"),
                sends: r["sends"].as_u64().unwrap_or(0),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::{pauses_between, TraceRecord};

    fn record(what: &str, sent: f64, posted: f64) -> TraceRecord {
        TraceRecord {
            what: what.to_owned(),
            received: sent - 0.1,
            sent,
            answered: posted - 0.1,
            posted,
            sends: 1,
        }
    }

    #[test]
    fn pauses_are_taken_between_back_to_back_requests_of_one_kind() {
        let trace = [
            record("Page.captureScreenshot", 0.0, 40.0),
            // Another kind between two captures does not split them.
            record("Page.getLayoutMetrics", 41.0, 41.5),
            record("Page.captureScreenshot", 41.5, 80.0),
            record("Page.captureScreenshot", 82.0, 120.0),
            // A block of something else (a direct capture's frames) between.
            record("Page.captureScreenshot", 400.0, 440.0),
        ];
        assert_eq!(pauses_between(&trace, "Page.captureScreenshot"), [1.5, 2.0]);
        assert!(pauses_between(&trace, "Runtime.evaluate").is_empty());
    }
}
