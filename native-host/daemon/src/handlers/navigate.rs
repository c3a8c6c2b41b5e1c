//! `page.navigate`: to a url, back, forward or reload, waiting for the
//! page to load; the url check agents' urls go through; and the refusal
//! of a click on a link that would open a tab at a site the tab's share
//! does not allow (whose first request the tab's debugger could not
//! hold).

use super::{invalid_params, wire, Cx};
use crate::broker::{Fence, Need};
use crate::validate::check_navigate_url;
use cotab_shared::cdp::NodeAttributes;
use cotab_shared::cdp::{
    CdpEvent as _, FrameNavigated, GetNavigationHistory, LoadEventFired, Navigate,
    NavigateToHistoryEntry, NavigatedWithinDocument, Reload,
};
use cotab_shared::controller::{NavigateAction, NavigateParams, NavigateResult, Ref, RpcError};
use cotab_shared::native::CommandClass;
use cotab_shared::reach::{check_driveable, LocalFiles};
use cotab_shared::ErrorKind;
use serde_json::Value;

pub(super) async fn navigate(cx: &Cx<'_>, p: NavigateParams) -> Result<NavigateResult, RpcError> {
    match (&p.url, p.action) {
        (Some(_), Some(_)) => {
            return Err(invalid_params(
                "invalid params: `params.url` and `params.action` exclude each other",
            ))
        }
        (None, None) => {
            return Err(invalid_params(
                "invalid params: missing field `params.url` (or `params.action`)",
            ))
        }
        (Some(url), None) => check_url_param(url, &cx.shell.local_files())?,
        (None, Some(_)) => {}
    }
    // Leaving a page of another site is allowed (to a url in scope, or
    // a history entry checked below); reloading it is not.
    let fence = match (&p.url, p.action) {
        (Some(url), _) => cx.fence_to(Need::Act, Some(url))?,
        (None, Some(NavigateAction::Back | NavigateAction::Forward)) => {
            cx.fence_to(Need::Act, None)?
        }
        _ => cx.fence(Need::Act)?,
    };
    // What this request starts is the agent's, whatever redirects follow.
    let _going = cx.shell.agent_going(fence.tab);
    let (refused_before, _) = cx.shell.refusals(fence.tab);
    let refused = || match cx.shell.refusals(fence.tab) {
        (n, Some(e)) if n > refused_before => Some(RpcError::from(e)),
        _ => None,
    };
    cx.expect(&fence, p.expect.as_ref()).await?;
    cx.core(|c| c.input(&fence))?;
    // Subscribe before navigating so the load event cannot slip past.
    let mut events = cx.shell.lane.subscribe_cdp();
    let not_loaded = "the page did not finish loading before the deadline";
    match (p.url, p.action) {
        (Some(url), _) => {
            let r = cx
                .send(&fence, &Navigate { url: &url }, CommandClass::Act)
                .await?;
            if let Some(err) = r.error_text.filter(|s| !s.is_empty()) {
                // A redirect to another site, held and refused.
                if let Some(e) = refused() {
                    return Err(e);
                }
                return Err(wire(
                    ErrorKind::CommandFailed,
                    format!("navigation failed: {err}"),
                ));
            }
            let new_document = r.loader_id.is_some_and(|s| !s.is_empty());
            if new_document {
                cx.event(&fence, &mut events, not_loaded, |e| {
                    e.method == LoadEventFired::METHOD
                })
                .await?;
            }
        }
        (None, Some(NavigateAction::Reload)) => {
            cx.send(&fence, &Reload {}, CommandClass::Act).await?;
            cx.event(&fence, &mut events, not_loaded, |e| {
                e.method == LoadEventFired::METHOD
            })
            .await?;
        }
        (None, None) => {
            return Err(invalid_params(
                "invalid params: missing field `params.url` (or `params.action`)",
            ))
        }
        (None, Some(action)) => {
            let h = cx
                .send(&fence, &GetNavigationHistory {}, CommandClass::Observe)
                .await?;
            let current = h.current_index;
            let (target, none) = if action == NavigateAction::Back {
                (
                    current - 1,
                    "there is no previous page in this tab's history",
                )
            } else {
                (current + 1, "there is no next page in this tab's history")
            };
            let entry = usize::try_from(target)
                .ok()
                .and_then(|i| h.entries.get(i))
                .ok_or_else(|| wire(ErrorKind::InvalidRequest, none))?;
            let url = entry.url.as_str();
            // A blank page (a new tab's first entry) is fine to return to,
            // as is any page a shared tab may show.
            check_driveable(url, None, &cx.shell.local_files()).map_err(|b| {
                wire(
                    ErrorKind::BlockedTarget,
                    format!(
                        "that history entry is a page agents may not use ({})",
                        b.reason()
                    ),
                )
            })?;
            cx.core(|c| c.url_in_scope(fence.tab, url))?;
            let to = NavigateToHistoryEntry { entry_id: entry.id };
            cx.send(&fence, &to, CommandClass::Act).await?;
            // A document load, a same-document entry, or a page restored
            // from the back/forward cache (which fires no load event).
            cx.event(&fence, &mut events, not_loaded, |e| {
                e.method == LoadEventFired::METHOD
                    || e.method == NavigatedWithinDocument::METHOD
                    || FrameNavigated::parse(&e.method, &e.params).is_some_and(|n| {
                        n.frame.parent_id.is_none()
                            && n.kind.as_deref() == Some("BackForwardCacheRestore")
                    })
            })
            .await?;
        }
    }
    let v = cx
        .read(&fence, "({url: location.href, title: document.title})")
        .await?;
    let text = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    Ok(NavigateResult {
        url: text("url"),
        title: text("title"),
    })
}

/// A url an agent submitted, checked as `page.navigate` does.
pub(super) fn check_url_param(url: &str, files: &LocalFiles) -> Result<(), RpcError> {
    check_navigate_url(url, files).map_err(|e| match e.kind {
        ErrorKind::InvalidRequest => {
            invalid_params(format!("invalid params: `params.url`: {}", e.message))
        }
        _ => RpcError::from(e),
    })
}

/// The `href` of a link that opens its page in a new tab or window: an
/// `a` or `area` with a `target` other than `_self`, `_parent` and
/// `_top` (a named one included: it opens a window unless a frame has
/// that name).
fn opens_a_tab(node: &NodeAttributes) -> Option<&str> {
    let link = ["a", "area"]
        .iter()
        .any(|n| node.node_name.eq_ignore_ascii_case(n));
    let target = node.attribute("target")?.trim();
    let same = target.is_empty()
        || ["_self", "_parent", "_top"]
            .iter()
            .any(|t| target.eq_ignore_ascii_case(t));
    (link && !same).then(|| node.attribute("href")).flatten()
}

/// Refuses (`SITE_NOT_ALLOWED`) a click on the element `r` when it is a
/// link that opens a tab at a site the fence's tab may not go to: the
/// tab it opens makes its first request before anything can hold it.
/// Costs nothing in a tab shared for any site; elsewhere one read of the
/// element, which goes beside the click's own reads.
pub(super) async fn refuse_tab_off_scope(
    cx: &Cx<'_>,
    fence: &Fence,
    r: &Ref,
) -> Result<(), RpcError> {
    let (holds, page) = cx.core(|c| {
        let page = c
            .shared()
            .iter()
            .find(|t| t.id == fence.tab)
            .map(|t| t.url.clone());
        (c.scope(fence.tab).holds(), page)
    });
    if !holds {
        return Ok(());
    }
    let node = cx.describe_ref(fence, r).await?;
    let Some(href) = opens_a_tab(&node) else {
        return Ok(());
    };
    // Resolved as the page resolves it, but for a `<base href>`.
    let url = page
        .and_then(|p| url::Url::parse(&p).ok())
        .and_then(|base| base.join(href.trim()).ok());
    match url {
        Some(url) if matches!(url.scheme(), "http" | "https") => {
            Ok(cx.core(|c| c.url_in_scope(fence.tab, url.as_str()))?)
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, attributes: &[&str]) -> NodeAttributes {
        NodeAttributes {
            node_name: name.into(),
            attributes: attributes.iter().map(|a| (*a).to_owned()).collect(),
        }
    }

    #[test]
    fn a_link_opens_a_tab_by_its_target() {
        let opens = |n: &NodeAttributes| opens_a_tab(n).map(str::to_owned);
        let away = node("A", &["href", "https://b.test/x", "target", "_blank"]);
        assert_eq!(opens(&away).as_deref(), Some("https://b.test/x"));
        let named = node("area", &["target", "results", "href", "/y"]);
        assert_eq!(opens(&named).as_deref(), Some("/y"));
        for same in ["", "_self", "_TOP", " _parent "] {
            let n = node("a", &["href", "/z", "target", same]);
            assert_eq!(opens(&n), None, "{same:?}");
        }
        assert_eq!(opens(&node("a", &["href", "/z"])), None);
        assert_eq!(opens(&node("a", &["target", "_blank"])), None);
        assert_eq!(
            opens(&node("BUTTON", &["target", "_blank", "href", "/z"])),
            None
        );
    }
}
