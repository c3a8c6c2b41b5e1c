//! What every browser bench measures with: the page's viewport, one
//! direct CDP command on the page's own session, a timed future, and the
//! evaluation and redaction scan that `page.evaluate` sends.

use anyhow::Result;
use cotab_e2e::browser::{Browser, Page};
use cotab_shared::controller::EvaluateParams;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Viewport of the capture comparison, in CSS pixels (device scale 1).
pub(super) const VIEWPORT: (u32, u32) = (1280, 720);

/// `Emulation.setDeviceMetricsOverride`'s params for [`VIEWPORT`] at
/// device scale 1.
pub(super) fn viewport() -> Value {
    json!({"width": VIEWPORT.0, "height": VIEWPORT.1, "deviceScaleFactor": 1, "mobile": false})
}

/// One direct CDP command on the page's flat session.
pub(super) async fn direct(
    browser: &Browser,
    page: &Page,
    method: &str,
    params: Value,
) -> Result<Value> {
    browser
        .cdp
        .send_to(Some(&page.session), method, params)
        .await
}

/// Times one future.
pub(super) async fn timed<T>(
    f: impl std::future::Future<Output = Result<T>>,
) -> Result<(Duration, T)> {
    let start = Instant::now();
    let v = f.await?;
    Ok((start.elapsed(), v))
}

/// `page.evaluate` of `expression`, and the `Runtime.evaluate` the
/// daemon sends for it, minus the redaction scan.
pub(super) fn evaluation(expression: &str) -> (EvaluateParams, Value) {
    let params = EvaluateParams {
        expression: expression.into(),
        await_promise: None,
    };
    let raw = json!({"expression": expression, "returnByValue": true, "awaitPromise": true});
    (params, raw)
}

/// The redaction scan that follows a `page.evaluate` whose value may hold
/// text, as a direct `Runtime.evaluate`.
pub(super) fn scan() -> Value {
    json!({"expression": cotab_host::redact::PAGE_SECRETS_EXPRESSION, "returnByValue": true})
}
