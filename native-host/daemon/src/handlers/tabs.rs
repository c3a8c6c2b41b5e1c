//! `tabs.create` and `tabs.close`: the extension opens or closes the tab;
//! the core moves the session's selection and lease. A tab an agent opens
//! is shared for the sites the shared tabs are shared for together, and
//! asks before what any of them asks before.
//!
//! Where that holds navigations or downloads, the tab is opened blank and
//! only then taken to its url, as the agent's own navigation: its first
//! request is paused like any later one (a redirect to another site is
//! refused, a download waits for the person's yes) instead of leaving the
//! browser before the tab is held.

use super::{check_url_param, wire, Cx};
use crate::broker::Need;
use cotab_shared::cdp::{CdpEvent as _, HoldDocuments, LoadEventFired, Navigate};
use cotab_shared::controller::{CloseTabParams, CreateTabParams, CreateTabResult, Empty, RpcError};
use cotab_shared::native::{Command, CommandClass, TabInfo};
use cotab_shared::watch::AskBefore;
use cotab_shared::{ErrorKind, TabId};

pub(super) async fn create(cx: &Cx<'_>, p: CreateTabParams) -> Result<CreateTabResult, RpcError> {
    if let Some(url) = &p.url {
        check_url_param(url, &cx.shell.local_files())?;
    }
    let sid = cx.sid()?;
    let conn = cx.conn.id;
    let (before, _) = cx.core(|c| c.selection(sid, conn))?;
    // The new tab is shared for the sites the shared tabs are shared
    // for together; its url must be one of them.
    let scope = cx.core(|c| c.scope_for_agent_tab());
    if let Some(url) = p.url.as_deref().filter(|u| !scope.allows(u)) {
        let site = crate::scope::site_of(url).unwrap_or_default();
        return Err(wire(
            ErrorKind::SiteNotAllowed,
            format!(
                "{site} is outside the sites the shared tabs are shared for ({}): the person can allow it in cotab's side panel",
                scope.describe()
            ),
        ));
    }
    let downloads = cx.core(|c| c.asks_for_agent_tab().contains(&AskBefore::Download));
    let held_first = scope.holds() || downloads;
    let (open_at, then) = match p.url {
        Some(url) if held_first => (None, Some(url)),
        url => (url, None),
    };
    let v = cx.extension(Command::CreateTab { url: open_at }).await?;
    let info: TabInfo = serde_json::from_value(v).map_err(|_| {
        wire(
            ErrorKind::CommandFailed,
            "the extension sent a malformed tab",
        )
    })?;
    // The tab exists now whatever moved meanwhile: it becomes the
    // session's selection (a new revision) and its lease is taken.
    let selection_revision = cx.core(|c| c.tab_created(sid, conn, &info, scope))?;
    if let Some(url) = then {
        match go_held(cx, info.id, &url, downloads).await {
            Ok(()) => {}
            Err(NotThere::Loading(e)) => return Err(e),
            Err(NotThere::Refused(e)) => {
                // The tab was opened only for that url: it goes again, and
                // the session's selection is back where it was.
                if let Err(close) = cx.extension(Command::CloseTab { tab_id: info.id }).await {
                    tracing::info!(tab = %info.id, message = %close.message, "a tab opened for a refused url stays");
                }
                cx.core(|c| c.tab_closed(info.id));
                if let Some(old) = before {
                    let _ = cx.core(|c| c.select(sid, conn, old));
                }
                return Err(e);
            }
        }
    }
    Ok(CreateTabResult {
        tab_id: info.id,
        selection_revision,
    })
}

/// How taking a new tab to its url failed.
enum NotThere {
    /// Before the page was reached: the url was refused (a redirect to
    /// another site), or the tab could not be held. The tab was opened
    /// only for that url, so it goes again.
    Refused(RpcError),
    /// While the page loaded (the deadline, the person's takeover, a
    /// dialog): the tab stays, as after `page.navigate`.
    Loading(RpcError),
}

/// Takes the new, held tab `tab` to `url` as the agent's own navigation,
/// once its document requests are paused, and waits for its page to load
/// as `page.navigate` does. A page that failed to load and a download,
/// whatever the person answered (told with `download.answered`), leave
/// the tab as opening it at `url` would have.
async fn go_held(cx: &Cx<'_>, tab: TabId, url: &str, downloads: bool) -> Result<(), NotThere> {
    let fence = cx
        .fence_to(Need::Act, Some(url))
        .map_err(NotThere::Refused)?;
    // What the lease's holding sends may not have gone yet: this one is
    // answered before the navigation is sent.
    cx.send(
        &fence,
        &HoldDocuments {
            responses: downloads,
        },
        CommandClass::Release,
    )
    .await
    .map_err(NotThere::Refused)?;
    let _going = cx.shell.agent_going(tab);
    let (refused_before, _) = cx.shell.refusals(tab);
    let mut events = cx.shell.lane.subscribe_cdp();
    let r = cx
        .send(&fence, &Navigate { url }, CommandClass::Act)
        .await
        .map_err(NotThere::Refused)?;
    if r.error_text.is_some_and(|s| !s.is_empty()) {
        return match cx.shell.refusals(tab) {
            (n, Some(e)) if n > refused_before => Err(NotThere::Refused(e.into())),
            _ => Ok(()),
        };
    }
    if r.loader_id.is_some_and(|s| !s.is_empty()) {
        cx.event(
            &fence,
            &mut events,
            "the page did not finish loading before the deadline",
            |e| e.method == LoadEventFired::METHOD,
        )
        .await
        .map_err(NotThere::Loading)?;
    }
    Ok(())
}

pub(super) async fn close(cx: &Cx<'_>, p: CloseTabParams) -> Result<Empty, RpcError> {
    let sid = cx.sid()?;
    let conn = cx.conn.id;
    let tab = cx.core(|c| c.close_target(sid, conn, p.tab_id))?;
    cx.extension(Command::CloseTab { tab_id: tab }).await?;
    // Held input there is dropped (the debugger is gone with the tab) and
    // a selection of it is cleared.
    cx.core(|c| c.tab_closed(tab));
    Ok(Empty {})
}
