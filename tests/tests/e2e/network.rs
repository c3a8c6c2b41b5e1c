//! A shared tab's requests in real Chromium: listed since the tab was
//! shared as Playwright MCP lists them, secrets in urls redacted, and one
//! request's headers and bodies in developer mode only, redacted too.

use crate::toolset::{on_page, DEADLINE};
use cotab_e2e::browser::LaunchOptions;
use cotab_e2e::{wait_for, Deadline};
use cotab_shared::controller::{
    Navigate, NavigateAction, NavigateParams, Network, NetworkDetail, NetworkParams,
    NetworkRequest, NetworkRequestParams,
};
use cotab_shared::ErrorKind;

/// `METHOD path type outcome`, the fixture's base left out of the url.
fn line(base: &str, r: &NetworkRequest) -> String {
    let path = r.url.strip_prefix(base).unwrap_or(&r.url);
    let outcome = match (&r.failure, r.status) {
        (Some(_), _) => "failed".to_string(),
        (None, Some(s)) => s.to_string(),
        (None, None) => "pending".to_string(),
    };
    format!("{} {} {} {}", r.method, path, r.resource_type, outcome)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tabs_requests_are_listed_and_read_with_their_secrets_redacted() -> anyhow::Result<()> {
    let (browser, page, _tab, mut agent) = on_page("/network", LaunchOptions::default()).await?;
    // What the page loaded before it was shared is not in the log: a
    // reload brings its requests in.
    let before = agent.call::<Network>(&NetworkParams::default()).await?;
    assert!(
        before.requests.iter().all(|r| !r.url.contains("token")),
        "{before:?}"
    );
    agent
        .call::<Navigate>(&NavigateParams {
            action: Some(NavigateAction::Reload),
            ..NavigateParams::default()
        })
        .await?;
    for (button, title) in [("post", "posted"), ("moved", "moved"), ("fail", "failed")] {
        browser
            .eval(
                &page,
                &format!("document.getElementById('{button}').click(), 1"),
            )
            .await?;
        wait_for(&format!("the title {title:?}"), DEADLINE, || async {
            Ok((browser.eval(&page, "document.title").await? == title).then_some(()))
        })
        .await?;
    }
    let clock = Deadline::new("the failed request in the log", DEADLINE);
    let fetches = loop {
        let r = agent.call::<Network>(&NetworkParams::default()).await?;
        if r.requests.iter().any(|q| q.failure.is_some()) {
            break r;
        }
        clock.next(r).await?;
    };
    let base = &browser.fixture.base;
    let lines: Vec<String> = fetches.requests.iter().map(|r| line(base, r)).collect();
    assert_eq!(
        lines,
        vec![
            "GET /api/data?q=1&token=[redacted] fetch 200",
            "POST /api/data fetch 200",
            "GET /api/old fetch 302",
            "GET /api/data fetch 200",
            "GET http://127.0.0.1:9/nope fetch failed",
        ],
        "{fetches:?}"
    );
    // The document and its script are successful static requests.
    assert!(fetches.hidden_static >= 2, "{fetches:?}");
    let all = agent
        .call::<Network>(&NetworkParams {
            include_static: true,
            ..NetworkParams::default()
        })
        .await?;
    let kinds: Vec<&str> = all
        .requests
        .iter()
        .map(|r| r.resource_type.as_str())
        .collect();
    assert!(
        kinds.contains(&"document") && kinds.contains(&"script"),
        "{kinds:?}"
    );
    let only = agent
        .call::<Network>(&NetworkParams {
            filter: Some("/api/old$".into()),
            ..NetworkParams::default()
        })
        .await?;
    assert_eq!(only.requests.len(), 1, "{only:?}");
    let err = agent
        .call::<Network>(&NetworkParams {
            filter: Some("(".into()),
            ..NetworkParams::default()
        })
        .await
        .expect_err("not a regular expression");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));

    // Headers and bodies: developer mode only.
    let with_token = fetches.requests[0].index;
    let err = agent
        .call::<NetworkDetail>(&NetworkRequestParams { index: with_token })
        .await
        .expect_err("developer mode is off");
    assert_eq!(err.kind(), Some(ErrorKind::DeveloperModeOff), "{err}");
    browser.set_developer_mode(&page, true).await?;
    let d = agent
        .call::<NetworkDetail>(&NetworkRequestParams { index: with_token })
        .await?;
    assert!(d.request.url.ends_with("token=[redacted]"), "{d:?}");
    let shown = serde_json::to_string(&d)?;
    for secret in ["abcdefgh12345678", "s3cr3tvalue", "zzz", "\"abc\""] {
        assert!(!shown.contains(secret), "{secret} in {shown}");
    }
    assert_eq!(d.request_headers["Authorization"], "[redacted]", "{d:?}");
    assert_eq!(
        d.response_body.as_deref(),
        Some(r#"{"ok":true,"session":"[redacted]"}"#),
        "{d:?}"
    );
    let post = agent
        .call::<NetworkDetail>(&NetworkRequestParams {
            index: fetches.requests[1].index,
        })
        .await?;
    assert_eq!(
        post.request_body.as_deref(),
        Some(r#"{"name":"Ada","password":"[redacted]"}"#),
        "{post:?}"
    );
    let err = agent
        .call::<NetworkDetail>(&NetworkRequestParams { index: 99_999 })
        .await
        .expect_err("no such request");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest));

    // A tab that is not shared is not logged, however it loads.
    let other = browser.open_tab(&browser.fixture.url("/network")).await?;
    wait_for("the other tab to load", DEADLINE, || async {
        Ok((browser.eval(&other, "document.title").await? == "loaded").then_some(()))
    })
    .await?;
    let after = agent
        .call::<Network>(&NetworkParams {
            include_static: true,
            ..NetworkParams::default()
        })
        .await?;
    assert_eq!(after.requests.len(), all.requests.len(), "{after:?}");
    Ok(())
}
