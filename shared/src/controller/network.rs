//! Params and results of `page.network` (the selected tab's requests since
//! it was shared) and `page.networkRequest` (one request's headers and
//! bodies, developer mode only).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Requests a tab's log keeps; older ones are dropped and counted.
pub const MAX_NETWORK_REQUESTS: usize = 1000;

/// Params of `page.network`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NetworkParams {
    /// Also list successful static resources: every request that is not a
    /// `fetch` or `XHR` and got an answer below 400 (documents, scripts,
    /// images, fonts …), as Playwright MCP counts them. Hidden by default.
    #[serde(default, rename = "static", skip_serializing_if = "std::ops::Not::not")]
    pub include_static: bool,
    /// Only requests whose url this regular expression matches (Rust's
    /// syntax, at most 1000 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
}

/// One request of a tab, as `page.network` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkRequest {
    /// 1-based, since the tab was shared; a redirect is a request of its
    /// own.
    pub index: u64,
    /// The HTTP method.
    pub method: String,
    /// The url.
    pub url: String,
    /// What it loads, as Chromium names it, lower case: `document`,
    /// `script`, `fetch`, `xhr`, `image` …
    pub resource_type: String,
    /// The HTTP status, once answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The status text, once answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_text: Option<String>,
    /// The response's MIME type, once answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Why it failed (`net::ERR_…`), if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

impl NetworkRequest {
    /// `[GET] url => [200] OK` (or `=> [FAILED] why`), as Playwright MCP
    /// lists a request.
    pub fn line(&self) -> String {
        let outcome = match (&self.failure, self.status) {
            (Some(why), _) => format!(" => [FAILED] {why}"),
            (None, Some(status)) => format!(
                " => [{status}] {}",
                self.status_text.as_deref().unwrap_or_default()
            ),
            (None, None) => String::new(),
        };
        format!("[{}] {}{outcome}", self.method.to_uppercase(), self.url)
            .trim_end()
            .to_string()
    }

    /// A successful static resource ([`NetworkParams::include_static`]).
    pub fn is_static_success(&self) -> bool {
        let fetch = matches!(self.resource_type.as_str(), "fetch" | "xhr");
        !fetch && self.failure.is_none() && self.status.is_some_and(|s| s < 400)
    }
}

/// Result of `page.network`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkResult {
    /// The requests, oldest first.
    pub requests: Vec<NetworkRequest>,
    /// Successful static resources left out (without `static`).
    pub hidden_static: u64,
    /// Requests older than the log keeps ([`MAX_NETWORK_REQUESTS`]).
    pub dropped: u64,
}

/// Params of `page.networkRequest`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NetworkRequestParams {
    /// The request's `index` in `page.network`.
    pub index: u64,
}

/// Result of `page.networkRequest`: one request with its headers and
/// bodies, secrets redacted as in every developer-mode result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkRequestDetail {
    /// The request, as `page.network` lists it.
    pub request: NetworkRequest,
    /// The request's headers (name → value).
    pub request_headers: Value,
    /// The request's body, when the browser had it at hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_body: Option<String>,
    /// The response's headers (name → value), once answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_headers: Option<Value>,
    /// The response's body: text, or base64 when `responseBodyBase64`.
    /// Absent when the browser no longer has it (it keeps 1 MB a
    /// response, 10 MB a tab) or the response has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_body: Option<String>,
    /// `responseBody` is base64 (a binary response).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub response_body_base64: bool,
}
