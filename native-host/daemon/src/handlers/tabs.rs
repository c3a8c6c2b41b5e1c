//! `tabs.create` and `tabs.close`: the extension opens or closes the tab;
//! the core moves the session's selection and lease. A tab an agent opens
//! is shared for the sites the shared tabs are shared for together.

use super::{check_url_param, wire, Cx};
use cotab_shared::controller::{CloseTabParams, CreateTabParams, CreateTabResult, Empty, RpcError};
use cotab_shared::native::{Command, TabInfo};
use cotab_shared::ErrorKind;

pub(super) async fn create(cx: &Cx<'_>, p: CreateTabParams) -> Result<CreateTabResult, RpcError> {
    if let Some(url) = &p.url {
        check_url_param(url, &cx.shell.local_files())?;
    }
    let sid = cx.sid()?;
    let conn = cx.conn.id;
    cx.core(|c| c.selection(sid, conn))?;
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
    let v = cx.extension(Command::CreateTab { url: p.url }).await?;
    let info: TabInfo = serde_json::from_value(v).map_err(|_| {
        wire(
            ErrorKind::CommandFailed,
            "the extension sent a malformed tab",
        )
    })?;
    // The tab exists now whatever moved meanwhile: it becomes the
    // session's selection (a new revision) and its lease is taken.
    let selection_revision = cx.core(|c| c.tab_created(sid, conn, &info, scope))?;
    Ok(CreateTabResult {
        tab_id: info.id,
        selection_revision,
    })
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
