//! Secrets in developer-mode results and in the daemon's log: a page's
//! password field, cookies and credentials in raw CDP answers never reach
//! an agent or the log. `docs/security.md` maps each protection to its
//! test here.

use crate::harness::{eventually, tab, Daemon, FakeExt, Reply, Responder, Script, WAIT};
use crate::security::{spawn_daemon, spawn_daemon_logging, stop, wait_listening};
use cotab_host::redact::{PAGE_SECRETS_EXPRESSION, REDACTED};
use cotab_host::runtime::{AGENT_SOCKET, HOST_SOCKET};
use cotab_shared::controller::{
    Acquire, CdpSend, CdpSendParams, Empty, Evaluate, EvaluateParams, SelectParams, TabsSelect,
};
use cotab_shared::native::{Command as NativeCommand, Event};
use cotab_shared::{ErrorKind, TabId};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;

const PASSWORD: &str = "Canary-Passw0rd-7f3a";
const COOKIE: &str = "CanaryCookieValue9b21";
const BEARER: &str = "CanaryBearerToken5d0e";
const PARAM: &str = "CanaryParam-c4e1";

/// The fake page: a password field holding [`PASSWORD`], a script-visible
/// cookie `sid=COOKIE`, and raw CDP answers full of credentials.
fn secret_page() -> Script {
    let responder: Responder = Arc::new(|_tab: TabId, method: &str, params: &Value| {
        let expression = params["expression"].as_str().unwrap_or_default();
        match method {
            "Runtime.evaluate" if expression == PAGE_SECRETS_EXPRESSION => Reply::ok(json!({
                "result": {"type": "object",
                           "value": {"passwords": [PASSWORD], "cookies": [COOKIE]}}})),
            "Runtime.evaluate" if expression.contains("type=password") => Reply::ok(json!({
                "result": {"type": "string", "value": PASSWORD}})),
            "Runtime.evaluate" if expression.contains("bigDump") => Reply::ok(json!({
                "result": {"type": "string",
                           "value": format!("{} {PASSWORD} {}", "a".repeat(200_000), "b".repeat(200_000))}})),
            "Runtime.evaluate" if expression.contains("document.cookie") => Reply::ok(json!({
                "result": {"type": "string", "value": format!("sid={COOKIE}; theme=dark")}})),
            "Runtime.evaluate" if expression.contains("headers") => Reply::ok(json!({
                "result": {"type": "object", "value": {
                    "headers": {"Authorization": format!("Bearer {BEARER}"), "Accept": "*/*"},
                    "note": format!("sent with Bearer {BEARER}")}}})),
            "Runtime.evaluate" if expression.contains("throw") => Reply::ok(json!({
                "result": {"type": "object"},
                "exceptionDetails": {"text": "Uncaught",
                    "exception": {"description": format!("Error: bad password {PASSWORD}")}}})),
            "Network.getCookies" => Reply::ok(json!({
                "cookies": [{"name": "sid", "value": COOKIE, "domain": "example.test",
                             "path": "/", "httpOnly": true, "secure": true, "session": true}]})),
            "Network.getResponseBody" => Reply::ok(json!({
                "body": format!("{{\"access_token\":\"{BEARER}\",\"user\":\"ann\"}}"),
                "base64Encoded": false})),
            _ => None,
        }
    });
    Script {
        tabs: vec![tab(7)],
        responder: Some(responder),
        ..Script::default()
    }
}

/// An agent holding tab 7 with developer mode on.
async fn developer(agent_sock: &Path, ext: &FakeExt) -> cotab_host::client::Client {
    let mut a = cotab_host::client::Client::connect(agent_sock)
        .await
        .expect("connect");
    a.hello("security-test").await.expect("hello");
    a.call::<TabsSelect>(&SelectParams { tab_id: TabId(7) })
        .await
        .expect("select");
    a.call::<Acquire>(&Empty {}).await.expect("acquire");
    ext.event(Event::DeveloperMode { enabled: true });
    loop {
        let msg = tokio::time::timeout(WAIT, a.next_message())
            .await
            .expect("in time")
            .expect("message");
        if msg["method"] == "developerMode.changed" && msg["params"]["enabled"] == true {
            return a;
        }
    }
}

fn eval(expression: &str) -> EvaluateParams {
    EvaluateParams {
        expression: expression.into(),
        await_promise: None,
    }
}

fn cdp(method: &str, params: Value) -> CdpSendParams {
    CdpSendParams {
        session_id: None,
        method: method.into(),
        params: Some(params),
    }
}

/// Every developer-mode call the canary tests make, with what the agent
/// must see; returns the results as text for the caller's own checks.
async fn exercise(a: &mut cotab_host::client::Client) -> String {
    let mut seen = String::new();
    let r = a
        .call::<Evaluate>(&eval(&format!(
            "/* {PARAM} */ document.querySelector('input[type=password]').value"
        )))
        .await
        .expect("evaluate");
    assert_eq!(r.value, json!(REDACTED), "a password field's value");
    seen.push_str(&serde_json::to_string(&r).expect("json"));

    // A result large enough to be redacted off the daemon's thread.
    let r = a
        .call::<Evaluate>(&eval("bigDump()"))
        .await
        .expect("evaluate");
    let text = r.value.as_str().expect("a string");
    assert_eq!(
        text.len(),
        400_002 + REDACTED.len(),
        "only the password went"
    );
    assert!(text.contains(&format!(" {REDACTED} ")));
    seen.push_str(text);

    let r = a
        .call::<Evaluate>(&eval("document.cookie"))
        .await
        .expect("evaluate");
    assert_eq!(r.value, json!(format!("sid={REDACTED}; theme=dark")));
    seen.push_str(&serde_json::to_string(&r).expect("json"));

    let r = a
        .call::<Evaluate>(&eval("({headers: lastRequestHeaders()})"))
        .await
        .expect("evaluate");
    assert_eq!(
        r.value,
        json!({"headers": {"Authorization": REDACTED, "Accept": "*/*"},
               "note": format!("sent with Bearer {REDACTED}")})
    );
    seen.push_str(&serde_json::to_string(&r).expect("json"));

    let r = a
        .call::<Evaluate>(&eval("throw new Error('bad password ' + pw)"))
        .await
        .expect("evaluate");
    assert_eq!(
        r.exception.as_deref(),
        Some(format!("Error: bad password {REDACTED}").as_str())
    );
    seen.push_str(&serde_json::to_string(&r).expect("json"));

    // The page's own cookies (other origins' are out of reach).
    let r = a
        .call::<CdpSend>(&cdp("Network.getCookies", json!({})))
        .await
        .expect("cdp.send");
    assert_eq!(
        r,
        json!({"cookies": [{"name": "sid", "value": REDACTED, "domain": "example.test",
                            "path": "/", "httpOnly": true, "secure": true, "session": true}]}),
        "the cookie's value only"
    );
    seen.push_str(&r.to_string());
    let r = a
        .call::<CdpSend>(&cdp(
            "Runtime.evaluate",
            json!({"expression": "document.cookie", "returnByValue": true}),
        ))
        .await
        .expect("cdp.send");
    assert_eq!(
        r["result"]["value"],
        json!(format!("sid={REDACTED}; theme=dark"))
    );
    seen.push_str(&r.to_string());
    let r = a
        .call::<CdpSend>(&cdp("Network.getResponseBody", json!({"requestId": PARAM})))
        .await
        .expect("cdp.send");
    seen.push_str(&r.to_string());
    seen
}

/// Secrets the page holds are redacted in what `page.evaluate` and
/// `cdp.send` hand the agent: a password field's value (known from the
/// daemon's scan of the page), a script-visible cookie, an `Authorization`
/// header, cookies from raw CDP.
#[tokio::test]
async fn developer_mode_results_hide_the_pages_secrets() {
    let d = Daemon::start().await;
    let ext = FakeExt::connect(&d.host_sock(), secret_page()).await;
    let mut a = developer(&d.agent_sock(), &ext).await;
    let seen = exercise(&mut a).await;
    for canary in [PASSWORD, COOKIE, BEARER] {
        assert!(!seen.contains(canary), "{canary} reached the agent: {seen}");
    }
}

/// The page scan rides with the developer-mode call: one command to the
/// extension, the privileged call with the scan as its follow-up (which
/// the extension sends as class observe right after the call answers).
#[tokio::test]
async fn the_page_scan_rides_with_the_call() {
    let d = Daemon::start().await;
    let mut ext = FakeExt::connect(&d.host_sock(), secret_page()).await;
    let mut a = developer(&d.agent_sock(), &ext).await;
    let r = a
        .call::<Evaluate>(&eval(
            "document.querySelector('input[type=password]').value",
        ))
        .await
        .expect("evaluate");
    assert_eq!(r.value, json!(REDACTED));
    loop {
        if let NativeCommand::Developer { scan, .. } = ext.next_command().await {
            let scan = scan.expect("the scan rides with the call");
            assert_eq!(scan, PAGE_SECRETS_EXPRESSION);
            break;
        }
    }
}

/// A call whose answer holds no page text (input, layout, a screenshot)
/// goes alone; one that may (the DOM's HTML) takes the scan along.
#[tokio::test]
async fn calls_that_answer_no_page_text_go_without_the_scan() {
    let d = Daemon::start().await;
    let mut ext = FakeExt::connect(&d.host_sock(), secret_page()).await;
    let mut a = developer(&d.agent_sock(), &ext).await;
    for (method, scanned) in [
        ("Page.getLayoutMetrics", false),
        ("DOM.getOuterHTML", true),
        ("Runtime.evaluate", true),
    ] {
        a.call::<CdpSend>(&cdp(method, json!({})))
            .await
            .expect("cdp.send");
        loop {
            if let NativeCommand::Developer { call, scan, .. } = ext.next_command().await {
                assert_eq!(call.method, method);
                assert_eq!(scan.is_some(), scanned, "{method}");
                break;
            }
        }
    }
}

/// A scan that fails (the page went away between the call and the scan)
/// still lets the call's result through the key and shape rules; an
/// answer that lacks the scan altogether is withheld, typed.
#[tokio::test]
async fn a_failed_scan_still_redacts_and_a_missing_one_withholds() {
    let responder: Responder = Arc::new(|_tab: TabId, method: &str, params: &Value| {
        let expression = params["expression"].as_str().unwrap_or_default();
        match method {
            "Runtime.evaluate" if expression == PAGE_SECRETS_EXPRESSION => {
                Reply::failed("Inspected target navigated or closed")
            }
            "Runtime.evaluate" if expression.contains("headers") => Reply::ok(json!({
                "result": {"type": "object", "value": {
                    "headers": {"Authorization": format!("Bearer {BEARER}")}}}})),
            _ => None,
        }
    });
    let d = Daemon::start().await;
    let ext = FakeExt::connect(&d.host_sock(), Script::one_tab(7, responder)).await;
    let mut a = developer(&d.agent_sock(), &ext).await;
    let r = a
        .call::<Evaluate>(&eval("({headers: lastRequestHeaders()})"))
        .await
        .expect("the call's result despite the failed scan");
    assert_eq!(r.value, json!({"headers": {"Authorization": REDACTED}}));

    // An extension answering without the follow-up: the bare CDP result
    // never reaches the agent.
    drop(ext);
    let d = Daemon::start().await;
    let ext = FakeExt::connect(
        &d.host_sock(),
        Script {
            no_follow_ups: true,
            ..secret_page()
        },
    )
    .await;
    let mut a = developer(&d.agent_sock(), &ext).await;
    let err = a
        .call::<CdpSend>(&cdp("Network.getCookies", json!({})))
        .await
        .expect_err("withheld");
    assert_eq!(err.kind(), Some(ErrorKind::CommandFailed), "{err}");
    assert!(!err.to_string().contains(COOKIE), "{err}");
}

/// With `COTAB_LOG=trace`, the daemon's log names the CDP methods but
/// never holds a parameter or a result: no canary of the page, nor of the
/// agent's params, appears in it.
#[tokio::test]
async fn the_daemon_log_holds_no_params_or_results() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let rt = tmp.path().join("rt");
    let log = tmp.path().join("daemon.log");
    let daemon = spawn_daemon(&rt, &log, &[], "077");
    wait_listening(&rt.join(AGENT_SOCKET)).await;
    eventually(|| tokio::net::UnixStream::connect(rt.join(AGENT_SOCKET))).await;
    let ext = FakeExt::connect(&rt.join(HOST_SOCKET), secret_page()).await;
    let mut a = developer(&rt.join(AGENT_SOCKET), &ext).await;
    exercise(&mut a).await;
    // A failing call's error path too.
    let err = a
        .call::<CdpSend>(&cdp("Bogus", json!({"x": PARAM})))
        .await
        .expect_err("bad method");
    assert!(!err.to_string().contains(PARAM));
    drop(a);
    drop(ext);
    stop(daemon).await;
    let log = std::fs::read_to_string(&log).expect("log");
    assert!(
        log.contains("Network.getCookies") && log.contains("DEBUG"),
        "the log was at trace level and saw the calls: {log}"
    );
    for canary in [PASSWORD, COOKIE, BEARER, PARAM] {
        assert!(!log.contains(canary), "{canary} in the daemon log:\n{log}");
    }
}

/// At the default level, each failed request is one line with its kind,
/// method and tab; a session's comings and goings are not logged.
#[tokio::test]
async fn a_failed_request_is_one_info_line_with_its_kind_method_and_tab() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let rt = tmp.path().join("rt");
    let log = tmp.path().join("daemon.log");
    let daemon = spawn_daemon_logging(&rt, &log, &[], "077", "info");
    wait_listening(&rt.join(AGENT_SOCKET)).await;
    eventually(|| tokio::net::UnixStream::connect(rt.join(AGENT_SOCKET))).await;
    let ext = FakeExt::connect(&rt.join(HOST_SOCKET), secret_page()).await;
    let mut a = developer(&rt.join(AGENT_SOCKET), &ext).await;
    let err = a
        .call::<CdpSend>(&cdp("Bogus", json!({"x": PARAM})))
        .await
        .expect_err("bad method");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest), "{err}");
    drop(a);
    drop(ext);
    stop(daemon).await;
    let log = std::fs::read_to_string(&log).expect("log");
    let failed: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("request failed"))
        .collect();
    assert_eq!(failed.len(), 1, "{log}");
    let line = failed[0];
    assert!(
        line.contains("INFO")
            && line.contains("kind=INVALID_REQUEST")
            && line.contains("method=\"cdp.send\"")
            && line.contains("tab=7"),
        "{line}"
    );
    assert!(!log.contains(PARAM) && !log.contains("Bogus"), "{log}");
    assert!(!log.contains("session resumed"), "{log}");
}
