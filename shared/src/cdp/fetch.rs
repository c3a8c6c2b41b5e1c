//! `Fetch`: how the daemon holds a shared tab's main-frame navigations
//! while an agent works in it (a request paused before it leaves the
//! browser, then let go or failed).

use super::network::Request;
use super::{CdpCommand, CdpEvent, Done};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// `Fetch.enable` pausing every document request to the web (frames'
/// too: the daemon tells them apart) before it is sent. Others (a local
/// file, an extension's page, `data:`) leave nothing for a site and are
/// the reach checks' to refuse; an extension's debugger may not even
/// answer a pause on some of them.
#[derive(Debug, Clone, PartialEq)]
pub struct HoldDocuments;

impl Serialize for HoldDocuments {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let pattern = |url: &str| json!({"urlPattern": url, "resourceType": "Document", "requestStage": "Request"});
        json!({"patterns": [pattern("http://*"), pattern("https://*")]}).serialize(s)
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
}
event!(RequestPaused, "Fetch.requestPaused");
