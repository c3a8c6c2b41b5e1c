//! `Network`: the requests of a shared tab's page, as the events the
//! extension forwards report them, and a response's body.

use super::{CdpCommand, CdpEvent};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The request of a [`RequestWillBeSent`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// The url, fragment excluded.
    #[serde(default)]
    pub url: String,
    /// The HTTP method.
    #[serde(default)]
    pub method: String,
    /// The request's headers (name → value).
    #[serde(default)]
    pub headers: Value,
    /// The body, when the browser has it at hand.
    #[serde(default)]
    pub post_data: Option<String>,
}

/// A response, of [`ResponseReceived`] or a redirect.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Response {
    /// The HTTP status.
    #[serde(default)]
    pub status: u16,
    /// The HTTP status text.
    #[serde(default)]
    pub status_text: String,
    /// The MIME type.
    #[serde(default)]
    pub mime_type: String,
    /// The response's headers (name → value).
    #[serde(default)]
    pub headers: Value,
}

/// `Network.requestWillBeSent`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestWillBeSent {
    /// The request's id, the same for its redirects.
    pub request_id: String,
    /// The request.
    #[serde(default)]
    pub request: Request,
    /// What the request loads: `Document`, `Script`, `Fetch`, `XHR` …
    #[serde(default, rename = "type")]
    pub resource_type: Option<String>,
    /// When this request follows a redirect: the redirect's response.
    #[serde(default)]
    pub redirect_response: Option<Response>,
}
event!(RequestWillBeSent, "Network.requestWillBeSent");

/// `Network.responseReceived`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseReceived {
    /// The request's id.
    pub request_id: String,
    /// What the request loads.
    #[serde(default, rename = "type")]
    pub resource_type: Option<String>,
    /// The response.
    #[serde(default)]
    pub response: Response,
}
event!(ResponseReceived, "Network.responseReceived");

/// `Network.loadingFailed`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadingFailed {
    /// The request's id.
    pub request_id: String,
    /// Why, e.g. `net::ERR_CONNECTION_REFUSED`.
    #[serde(default)]
    pub error_text: String,
    /// The page (or the browser) cancelled it.
    #[serde(default)]
    pub canceled: bool,
}
event!(LoadingFailed, "Network.loadingFailed");

/// `Network.getResponseBody`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetResponseBody<'a> {
    /// The request's id.
    pub request_id: &'a str,
}
command!(GetResponseBody<'a>, "Network.getResponseBody", Value);
