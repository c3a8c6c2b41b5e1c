//! `browser_network_requests` and `browser_network_request`: the current
//! tab's requests since it was shared (`page.network`), and one request's
//! headers and bodies (`page.networkRequest`, developer mode only), in
//! Playwright MCP's lines. Either may be saved to a `filename` instead.

use super::bridge::Bridge;
use super::outcome::{ToolFailure, ToolOutput};
use cotab_shared::controller::{
    Network, NetworkDetail, NetworkParams, NetworkRequestDetail, NetworkRequestParams,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::fmt::Write as _;

/// Arguments of `browser_network_requests`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NetworkRequestsArgs {
    /// Whether to include successful static resources like images, fonts,
    /// scripts, etc. Defaults to false.
    #[serde(default, rename = "static")]
    pub(crate) include_static: bool,
    /// Only return requests whose URL matches this regexp (e.g.
    /// "/api/.*user").
    pub(crate) filter: Option<String>,
    /// File name to save the network requests to, inside the workspace
    /// root. If not provided, requests are returned as text.
    pub(crate) filename: Option<String>,
}

/// A part of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum PartArg {
    RequestHeaders,
    RequestBody,
    ResponseHeaders,
    ResponseBody,
}

/// Arguments of `browser_network_request`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NetworkRequestArgs {
    /// 1-based index of the request, as printed by
    /// browser_network_requests.
    pub(crate) index: u64,
    /// Return only this part of the request. Omit to return full details.
    pub(crate) part: Option<PartArg>,
    /// File name to save the result to, inside the workspace root. If not
    /// provided, output is returned as text.
    pub(crate) filename: Option<String>,
}

impl Bridge {
    pub(super) async fn network_requests(
        &mut self,
        a: NetworkRequestsArgs,
    ) -> Result<ToolOutput, ToolFailure> {
        let r = self
            .observe::<Network>(&NetworkParams {
                include_static: a.include_static,
                filter: a.filter,
            })
            .await?;
        let mut text = String::new();
        if r.dropped > 0 {
            let _ = writeln!(text, "({} older requests are no longer kept)", r.dropped);
        }
        for req in &r.requests {
            let _ = writeln!(text, "{}. {}", req.index, req.line());
        }
        if r.requests.is_empty() {
            text.push_str("No requests.\n");
        }
        if r.hidden_static > 0 {
            let n = r.hidden_static;
            let (s, them) = if n == 1 { ("", "it") } else { ("s", "them") };
            let _ = writeln!(
                text,
                "\nNote: {n} static request{s} not shown, run with \"static\" option to see \
                 {them}."
            );
        }
        self.answer("Network", "network", a.filename, text).await
    }

    pub(super) async fn network_request(
        &mut self,
        a: NetworkRequestArgs,
    ) -> Result<ToolOutput, ToolFailure> {
        let d = self
            .observe::<NetworkDetail>(&NetworkRequestParams { index: a.index })
            .await?;
        let text = match a.part {
            None => details(&d),
            Some(PartArg::RequestHeaders) => headers(&d.request_headers),
            Some(PartArg::RequestBody) => d.request_body.clone().unwrap_or_default(),
            Some(PartArg::ResponseHeaders) => {
                d.response_headers.as_ref().map(headers).unwrap_or_default()
            }
            Some(PartArg::ResponseBody) => body(&d),
        };
        self.answer("Request", "request", a.filename, text).await
    }

    /// `text` under `### {title}`, or saved to `filename` and linked.
    async fn answer(
        &mut self,
        title: &str,
        prefix: &str,
        filename: Option<String>,
        text: String,
    ) -> Result<ToolOutput, ToolFailure> {
        let Some(name) = filename else {
            return Ok(ToolOutput::text(format!("### {title}\n{text}")));
        };
        let generated = format!("{prefix}.log");
        let shown = self
            .files
            .save(Some(&name), generated, text.into_bytes())
            .await?;
        Ok(ToolOutput::text(format!(
            "### {title}\n- [{title}]({shown})"
        )))
    }
}

fn headers(h: &Value) -> String {
    match h.as_object() {
        Some(map) => map
            .iter()
            .map(|(k, v)| format!("{k}: {}", v.as_str().map_or(v.to_string(), str::to_string)))
            .collect::<Vec<_>>()
            .join("\n"),
        None => String::new(),
    }
}

fn body(d: &NetworkRequestDetail) -> String {
    match (&d.response_body, d.response_body_base64) {
        (None, _) => String::new(),
        (Some(b), false) => b.clone(),
        (Some(b), true) => format!("(binary, {} bytes of base64)", b.len()),
    }
}

fn details(d: &NetworkRequestDetail) -> String {
    let r = &d.request;
    let mut out = format!(
        "#{} [{}] {}\n\n  General\n",
        r.index,
        r.method.to_uppercase(),
        r.url
    );
    if let Some(why) = &r.failure {
        let _ = writeln!(out, "    status:    [FAILED] {why}");
    } else if let Some(status) = r.status {
        let _ = writeln!(
            out,
            "    status:    [{status}] {}",
            r.status_text.as_deref().unwrap_or_default()
        );
    }
    let _ = writeln!(out, "    type:      {}", r.resource_type);
    if let Some(mime) = &r.mime_type {
        let _ = writeln!(out, "    mime:      {mime}");
    }
    let mut section = |title: &str, text: String| {
        if text.is_empty() {
            return;
        }
        let _ = writeln!(out, "\n  {title}");
        for line in text.lines() {
            let _ = writeln!(out, "    {line}");
        }
    };
    section("Request headers", headers(&d.request_headers));
    section("Request body", d.request_body.clone().unwrap_or_default());
    section(
        "Response headers",
        d.response_headers.as_ref().map(headers).unwrap_or_default(),
    );
    section("Response body", body(d));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cotab_shared::controller::NetworkRequest;

    fn req(status: Option<u16>, failure: Option<&str>) -> NetworkRequest {
        NetworkRequest {
            index: 3,
            method: "post".into(),
            url: "http://a/api".into(),
            resource_type: "fetch".into(),
            status,
            status_text: status.map(|_| "OK".into()),
            mime_type: None,
            failure: failure.map(str::to_string),
        }
    }

    #[test]
    fn requests_read_as_playwright_mcp_lists_them() {
        assert_eq!(
            req(Some(200), None).line(),
            "[POST] http://a/api => [200] OK"
        );
        assert_eq!(
            req(None, Some("net::ERR_FAILED")).line(),
            "[POST] http://a/api => [FAILED] net::ERR_FAILED"
        );
        assert_eq!(req(None, None).line(), "[POST] http://a/api");
        let d = NetworkRequestDetail {
            request: req(Some(201), None),
            request_headers: serde_json::json!({"Accept": "*/*"}),
            request_body: Some("{\"a\":1}".into()),
            response_headers: None,
            response_body: Some("done".into()),
            response_body_base64: false,
        };
        let text = details(&d);
        assert!(
            text.starts_with("#3 [POST] http://a/api\n\n  General\n"),
            "{text}"
        );
        assert!(
            text.contains("\n  Request headers\n    Accept: */*\n"),
            "{text}"
        );
        assert!(text.contains("\n  Response body\n    done\n"), "{text}");
        assert!(!text.contains("Response headers"), "{text}");
    }
}
