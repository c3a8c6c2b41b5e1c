//! `Fetch`: how the daemon holds a shared tab's main-frame navigations
//! while an agent works in it (a request paused before it leaves the
//! browser, then let go or failed).

use super::network::Request;
use super::{CdpCommand, CdpEvent, Done};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// `Fetch.enable` pausing every document request to the web (frames'
/// too: the daemon tells them apart) before it is sent, and with
/// `responses` again when its response's headers came, before its body
/// is read (what tells a download). Others (a local file, an extension's
/// page, `data:`) leave nothing for a site and are the reach checks' to
/// refuse; an extension's debugger may not even answer a pause on some of
/// them.
#[derive(Debug, Clone, PartialEq)]
pub struct HoldDocuments {
    /// Pause at the response too.
    pub responses: bool,
}

impl Serialize for HoldDocuments {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let stages: &[&str] = if self.responses {
            &["Request", "Response"]
        } else {
            &["Request"]
        };
        let patterns: Vec<_> = stages
            .iter()
            .flat_map(|stage| {
                ["http://*", "https://*"].map(|url| {
                    json!({"urlPattern": url, "resourceType": "Document", "requestStage": stage})
                })
            })
            .collect();
        json!({ "patterns": patterns }).serialize(s)
    }
}
command!(HoldDocuments, "Fetch.enable", Done);

/// `Fetch.disable`: paused requests go on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FetchDisable {}
command!(FetchDisable, "Fetch.disable", Done);

/// `Fetch.continueRequest`, unchanged.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContinueRequest<'a> {
    /// The paused request.
    pub request_id: &'a str,
}
command!(ContinueRequest<'a>, "Fetch.continueRequest", Done);

/// `Fetch.failRequest`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FailRequest<'a> {
    /// The paused request.
    pub request_id: &'a str,
    /// The network error the page sees: `Aborted` for a navigation
    /// (the tab stays on its page, as when a navigation is cancelled).
    pub error_reason: &'a str,
}
command!(FailRequest<'a>, "Fetch.failRequest", Done);

/// `Fetch.requestPaused`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestPaused {
    /// The id to continue or fail it with.
    pub request_id: String,
    /// The request.
    #[serde(default)]
    pub request: Request,
    /// The frame it loads a document for, or starts from.
    #[serde(default)]
    pub frame_id: String,
    /// `Document`, `Script`, …
    #[serde(default)]
    pub resource_type: String,
    /// The `Network` domain's id of the request, the same along a chain
    /// of redirects.
    #[serde(default)]
    pub network_id: Option<String>,
    /// When this request follows a redirect: the id of the one
    /// redirected.
    #[serde(default)]
    pub redirected_request_id: Option<String>,
    /// At the response stage: its HTTP status.
    #[serde(default)]
    pub response_status_code: Option<i64>,
    /// At the response stage, when it failed: why.
    #[serde(default)]
    pub response_error_reason: Option<String>,
    /// At the response stage: its headers.
    #[serde(default)]
    pub response_headers: Vec<HeaderEntry>,
}

impl RequestPaused {
    /// Whether it is paused at its response (else before it is sent).
    pub fn at_response(&self) -> bool {
        self.response_status_code.is_some() || self.response_error_reason.is_some()
    }

    /// The response header `name` (any case), if it has one.
    pub fn response_header(&self, name: &str) -> Option<&str> {
        self.response_headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str())
    }
}

/// One HTTP header of a paused response.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct HeaderEntry {
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// Its value.
    #[serde(default)]
    pub value: String,
}
event!(RequestPaused, "Fetch.requestPaused");
