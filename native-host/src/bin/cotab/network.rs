//! `cotab network`: the selected tab's requests since it was shared, or
//! one request's headers and bodies (developer mode only).

use crate::ctx::{print, Ctx, Failure};
use cotab_shared::controller::{Network, NetworkDetail, NetworkParams, NetworkRequestParams};
use std::fmt::Write as _;

/// `cotab network [INDEX] [--static] [--filter RE]`.
pub(crate) async fn run(
    cx: &mut Ctx,
    index: Option<u64>,
    include_static: bool,
    filter: Option<String>,
) -> Result<(), Failure> {
    if let Some(index) = index {
        let d = cx
            .client
            .call::<NetworkDetail>(&NetworkRequestParams { index })
            .await?;
        return print(cx.json, &d, |d| {
            let mut out = d.request.line();
            let mut headers = |title: &str, h: &serde_json::Value| {
                if let Some(map) = h.as_object().filter(|m| !m.is_empty()) {
                    let _ = write!(out, "\n{title}:");
                    for (k, v) in map {
                        let v = v.as_str().map_or(v.to_string(), str::to_string);
                        let _ = write!(out, "\n  {k}: {v}");
                    }
                }
            };
            headers("request headers", &d.request_headers);
            if let Some(h) = &d.response_headers {
                headers("response headers", h);
            }
            if let Some(b) = &d.request_body {
                let _ = write!(out, "\nrequest body:\n{b}");
            }
            match (&d.response_body, d.response_body_base64) {
                (Some(b), false) => {
                    let _ = write!(out, "\nresponse body:\n{b}");
                }
                (Some(b), true) => {
                    let _ = write!(out, "\nresponse body: binary, {} bytes of base64", b.len());
                }
                (None, _) => {}
            }
            out
        });
    }
    let r = cx
        .client
        .call::<Network>(&NetworkParams {
            include_static,
            filter,
        })
        .await?;
    print(cx.json, &r, |r| {
        let mut out: Vec<String> = r
            .requests
            .iter()
            .map(|q| format!("{}. {}", q.index, q.line()))
            .collect();
        if r.hidden_static > 0 {
            out.push(format!(
                "({} successful static requests not shown: --static shows them)",
                r.hidden_static
            ));
        }
        if r.dropped > 0 {
            out.push(format!("({} older requests are no longer kept)", r.dropped));
        }
        out.join("\n")
    })
}
