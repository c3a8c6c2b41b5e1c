//! `page.network` and `page.networkRequest`: the selected tab's requests
//! since it was shared ([`crate::broker`]'s log of the forwarded
//! `Network.*` events), and one request's headers and bodies — developer
//! mode only, read and redacted as every developer-mode result is. Urls
//! reach agents without developer mode: their secret query values and
//! secret shapes are redacted ([`redact::redact_url`]).

use super::developer::{redacted, scanned};
use super::{invalid_params, Cx};
use crate::broker::Need;
use crate::redact;
use cotab_shared::cdp::{CdpCommand as _, GetResponseBody};
use cotab_shared::controller::{
    NetworkParams, NetworkRequestDetail, NetworkRequestParams, NetworkResult, RpcError,
};
use cotab_shared::ErrorKind;
use regex::{Regex, RegexBuilder};
use serde_json::{json, Value};

/// Longest `filter`, in characters.
const MAX_FILTER: usize = 1000;

/// The compiled `filter`: a bad or too large expression is
/// `INVALID_REQUEST`.
fn filter_of(filter: Option<&str>) -> Result<Option<Regex>, RpcError> {
    let Some(source) = filter else {
        return Ok(None);
    };
    if source.chars().count() > MAX_FILTER {
        return Err(invalid_params(format!(
            "invalid params: `params.filter` is longer than {MAX_FILTER} characters"
        )));
    }
    RegexBuilder::new(source)
        .size_limit(1 << 20)
        .build()
        .map(Some)
        .map_err(|_| invalid_params("invalid params: `params.filter` is not a regular expression"))
}

pub(super) fn network(cx: &Cx<'_>, p: NetworkParams) -> Result<NetworkResult, RpcError> {
    let filter = filter_of(p.filter.as_deref())?;
    let fence = cx.fence(Need::Observe)?;
    let (all, dropped) = cx.core(|c| c.network(fence.tab));
    let mut hidden_static = 0;
    let requests = all
        .into_iter()
        .filter(|r| {
            let shown = p.include_static || !r.is_static_success();
            hidden_static += u64::from(!shown);
            shown
        })
        .filter(|r| filter.as_ref().is_none_or(|f| f.is_match(&r.url)))
        .map(|mut r| {
            r.url = redact::redact_url(&r.url);
            r
        })
        .collect();
    Ok(NetworkResult {
        requests,
        hidden_static,
        dropped,
    })
}

pub(super) async fn network_request(
    cx: &Cx<'_>,
    p: NetworkRequestParams,
) -> Result<NetworkRequestDetail, RpcError> {
    let fence = cx.fence(Need::Privileged)?;
    let entry = cx
        .core(|c| c.network_entry(fence.tab, p.index))
        .ok_or_else(|| {
            invalid_params(format!(
                "request #{} is not in this tab's log (it keeps the latest 1000): call \
                 page.network",
                p.index
            ))
        })?;
    let answered = entry.request.status.is_some() && entry.request.failure.is_none();
    // The body, while the browser keeps it; the page scan that follows
    // names the page's secrets for the redaction of everything shown.
    let (body, known) = if answered {
        let read = GetResponseBody {
            request_id: &entry.request_id,
        };
        match scanned(
            cx,
            &fence,
            GetResponseBody::METHOD,
            read.params(),
            false,
            None,
        )
        .await
        {
            Ok((v, known)) => (Some(v), known),
            Err(e) if e.kind() == ErrorKind::CommandFailed => (None, Default::default()),
            Err(e) => return Err(e),
        }
    } else {
        (None, Default::default())
    };
    cx.check(&fence)?;
    let base64 = body
        .as_ref()
        .and_then(|b| b.get("base64Encoded"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let shown = json!({
        "requestHeaders": entry.request_headers,
        "requestBody": entry.request_body,
        "responseHeaders": entry.response_headers,
        "responseBody": body.as_ref().and_then(|b| b.get("body")).cloned(),
    });
    let mut request = entry.request;
    request.url = redact::redact_str(&redact::redact_url(&request.url), &known);
    let shown = redacted(shown, known).await?;
    let text = |k: &str| shown.get(k).and_then(Value::as_str).map(str::to_string);
    Ok(NetworkRequestDetail {
        request,
        request_headers: shown.get("requestHeaders").cloned().unwrap_or(Value::Null),
        request_body: text("requestBody"),
        response_headers: shown
            .get("responseHeaders")
            .filter(|h| !h.is_null())
            .cloned(),
        response_body: text("responseBody"),
        response_body_base64: base64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_is_a_bounded_regular_expression() {
        assert!(filter_of(None).expect("none").is_none());
        let f = filter_of(Some("/api/.*user")).expect("ok").expect("some");
        assert!(f.is_match("http://a/api/v1/user"));
        for bad in ["(", &"a".repeat(MAX_FILTER + 1), "a{1000}{1000}"] {
            let e = filter_of(Some(bad)).expect_err("refused");
            assert_eq!(e.kind(), ErrorKind::InvalidRequest, "{bad:.20}");
        }
    }
}
