//! Sessions and control: `session.hello`, `session.resume`, `session.bye`,
//! `host.status`, `tabs.list`, `tabs.select`, `control.acquire` and
//! `control.release`.

use super::{check_version, invalid_params, wire, Cx};
use crate::session::mint_ticket;
use crate::validate::unshowable;
use cotab_shared::controller::{
    AgentTab, Call, ControlResult, Empty, HelloParams, HelloResult, LaneState, ResumeParams,
    ResumeResult, RpcError, SelectParams, SelectResult, StatusResult, TabsListResult,
};
use cotab_shared::limits::{MAX_AGENT_NAME, MAX_KEEP_CONTROL_MS};
use cotab_shared::{ErrorKind, PROTOCOL_VERSION};
use std::time::Duration;

pub(super) fn hello(cx: &Cx<'_>, p: HelloParams) -> Result<HelloResult, RpcError> {
    check_version(p.protocol_version)?;
    if p.agent.trim().is_empty() || p.agent.len() > MAX_AGENT_NAME {
        return Err(invalid_params(format!(
            "invalid params: `params.agent` must be 1 to {MAX_AGENT_NAME} bytes, not only spaces"
        )));
    }
    // The name is shown to the person (the badge, the tab group's title,
    // the side panel, the record): nothing in it may move or hide text.
    if p.agent.chars().any(unshowable)
        || p.group
            .as_deref()
            .is_some_and(|g| g.chars().any(unshowable))
    {
        return Err(invalid_params(
            "invalid params: `params.agent` and `params.group` may hold no control or \
             text-direction characters"
                .to_owned(),
        ));
    }
    let keep_control = match p.keep_control_ms {
        None => Duration::ZERO,
        Some(ms) if ms <= MAX_KEEP_CONTROL_MS => Duration::from_millis(ms),
        Some(_) => {
            return Err(invalid_params(format!(
                "invalid params: `params.keepControlMs` must be at most {MAX_KEEP_CONTROL_MS}"
            )))
        }
    };
    if p.group.as_ref().is_some_and(|g| g.len() > MAX_AGENT_NAME) {
        return Err(invalid_params(format!(
            "invalid params: `params.group` must be at most {MAX_AGENT_NAME} bytes"
        )));
    }
    let ticket =
        mint_ticket().map_err(|_| wire(ErrorKind::CommandFailed, "no randomness available"))?;
    let conn = cx.conn.id;
    let t = ticket.clone();
    let sid = cx.core(|c| c.hello_keeping(conn, p.agent, t, keep_control, p.group));
    cx.attach(sid);
    tracing::info!(conn = conn.0, "session opened");
    Ok(HelloResult {
        protocol_version: PROTOCOL_VERSION,
        ticket,
        daemon_version: crate::VERSION.into(),
        methods: Call::METHODS.iter().map(|m| m.to_string()).collect(),
    })
}

pub(super) fn resume(cx: &Cx<'_>, p: ResumeParams) -> Result<ResumeResult, RpcError> {
    check_version(p.protocol_version)?;
    let conn = cx.conn.id;
    let sid = cx
        .core(|c| c.resume(conn, &p.ticket, std::time::Instant::now()))
        .ok_or_else(|| {
            wire(
                ErrorKind::AuthenticationFailed,
                "unknown, expired or revoked ticket",
            )
        })?;
    cx.attach(sid);
    let (selected_tab, selection_revision) = cx.core(|c| c.selection(sid, conn))?;
    tracing::debug!(conn = conn.0, "session resumed");
    Ok(ResumeResult {
        protocol_version: PROTOCOL_VERSION,
        selected_tab,
        selection_revision,
    })
}

pub(super) fn bye(cx: &Cx<'_>) -> Result<Empty, RpcError> {
    let sid = cx.sid()?;
    let conn = cx.conn.id;
    cx.conn.session().take();
    cx.core(|c| c.bye(sid, conn));
    Ok(Empty {})
}

pub(super) fn status(cx: &Cx<'_>) -> StatusResult {
    let (lane, extension_version) = cx.shell.lane.status();
    // Tabs are shared by a browser that is there: the last list of one
    // that went is kept for its return, but is not what is shared now.
    let shared_tabs = match lane {
        LaneState::Online => cx.core(|c| c.shared().len()),
        LaneState::Absent | LaneState::Offline => 0,
    };
    StatusResult {
        protocol_version: PROTOCOL_VERSION,
        daemon_version: crate::VERSION.into(),
        pid: std::process::id(),
        lane,
        extension_version,
        lane_transport: match lane {
            LaneState::Online => cx.shell.lane.transport(),
            LaneState::Absent | LaneState::Offline => None,
        },
        shared_tabs,
        agents: cx.shell.counts.borrow().agents,
        developer_mode: cx.core(|c| c.developer_mode()),
        uptime_secs: cx.shell.started.elapsed().as_secs(),
        sites: cx.core(|c| c.lasting_sites().iter().cloned().collect()),
        sites_refused: cx.shell.sites_refused(),
    }
}

pub(super) async fn tabs_list(cx: &Cx<'_>) -> Result<TabsListResult, RpcError> {
    let list = cx.live_shared().await?;
    let sid = cx.sid()?;
    let conn = cx.conn.id;
    let (selected, _) = cx.core(|c| c.selection(sid, conn))?;
    Ok(TabsListResult {
        tabs: list
            .tabs
            .into_iter()
            .map(|t| AgentTab {
                selected: Some(t.id) == selected,
                id: t.id,
                url: t.url,
                title: t.title,
                blocked: t.blocked,
                target_id: t.target_id,
            })
            .collect(),
    })
}

pub(super) async fn tabs_select(cx: &Cx<'_>, p: SelectParams) -> Result<SelectResult, RpcError> {
    cx.live_shared().await?;
    let sid = cx.sid()?;
    let conn = cx.conn.id;
    let selection_revision = cx.core(|c| c.select(sid, conn, p.tab_id))?;
    Ok(SelectResult {
        tab_id: p.tab_id,
        selection_revision,
    })
}

pub(super) fn acquire(cx: &Cx<'_>) -> Result<ControlResult, RpcError> {
    let sid = cx.sid()?;
    let conn = cx.conn.id;
    let (tab_id, selection_revision) = cx.core(|c| c.acquire(sid, conn))?;
    Ok(ControlResult {
        tab_id,
        selection_revision,
    })
}

pub(super) fn release(cx: &Cx<'_>) -> Result<Empty, RpcError> {
    let sid = cx.sid()?;
    let conn = cx.conn.id;
    cx.core(|c| c.release_control(sid, conn))?;
    Ok(Empty {})
}
