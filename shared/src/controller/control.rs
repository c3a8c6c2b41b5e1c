//! The params and results of sessions, the lane's status, tabs and
//! control: `session.*`, `host.status`, `tabs.*`, `control.*`, and why a
//! lease ends ([`RevokeReason`]).

use crate::ids::{TabId, Ticket};
use serde::{Deserialize, Serialize};

/// Params of methods that take none. Unknown members are refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Empty {}

/// Params of `session.hello`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HelloParams {
    /// The protocol version the agent speaks; must be 1.
    pub protocol_version: u32,
    /// A short name for the agent, shown to the person.
    pub agent: String,
    /// How long the session keeps its control leases once its connection
    /// drops, in milliseconds: at least the resume grace (what it gets
    /// without this), at most [`crate::limits::MAX_KEEP_CONTROL_MS`]. Held
    /// input is released after the resume grace however long the leases
    /// stay. For agents that connect per command, like the CLI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_control_ms: Option<u64>,
    /// Sessions of one agent program that say the same `group` (any
    /// string it picks, at most [`crate::limits::MAX_AGENT_NAME`] bytes)
    /// and the same `agent` are one agent to the person: the popup names
    /// them once. A client of `cotab cdp-endpoint` opens one session per
    /// tab it attaches and one of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

impl HelloParams {
    /// `session.hello` of protocol version 1 as `agent`.
    pub fn new(agent: impl Into<String>) -> Self {
        HelloParams {
            protocol_version: crate::PROTOCOL_VERSION,
            agent: agent.into(),
            keep_control_ms: None,
            group: None,
        }
    }
}

/// Result of `session.hello`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HelloResult {
    /// The daemon's protocol version.
    pub protocol_version: u32,
    /// The session's ticket, for `session.resume`.
    pub ticket: Ticket,
    /// The daemon's version.
    pub daemon_version: String,
    /// Methods this daemon serves.
    pub methods: Vec<String>,
}

/// Params of `session.resume`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResumeParams {
    /// The protocol version the agent speaks; must be 1.
    pub protocol_version: u32,
    /// The ticket `session.hello` returned.
    pub ticket: Ticket,
}

/// Result of `session.resume`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResumeResult {
    /// The daemon's protocol version.
    pub protocol_version: u32,
    /// The session's selected tab, if any.
    pub selected_tab: Option<TabId>,
    /// The session's selection revision.
    pub selection_revision: u64,
}

/// State of the browser lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LaneState {
    /// No extension has connected since the daemon started.
    Absent,
    /// The extension is connected.
    Online,
    /// The extension was connected and dropped.
    Offline,
}

impl LaneState {
    /// The wire name: `absent`, `online` or `offline`.
    pub fn as_str(self) -> &'static str {
        match self {
            LaneState::Absent => "absent",
            LaneState::Online => "online",
            LaneState::Offline => "offline",
        }
    }
}

impl std::fmt::Display for LaneState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What carries the browser lane's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LaneTransport {
    /// The browser's native messaging, through the relay.
    NativeMessaging,
    /// The daemon's loopback WebSocket.
    WebSocket,
}

impl LaneTransport {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            LaneTransport::NativeMessaging => "nativeMessaging",
            LaneTransport::WebSocket => "webSocket",
        }
    }
}

/// Result of `host.status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusResult {
    /// The daemon's protocol version.
    pub protocol_version: u32,
    /// The daemon's version.
    pub daemon_version: String,
    /// The daemon's process id.
    pub pid: u32,
    /// The browser lane's state.
    pub lane: LaneState,
    /// The extension's version, once a lane has connected.
    pub extension_version: Option<String>,
    /// What carries the lane's messages, while it is online.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lane_transport: Option<LaneTransport>,
    /// Number of tabs the browser shares with agents; 0 unless the lane is
    /// online (the tabs of a lane that dropped come back with it).
    pub shared_tabs: usize,
    /// Number of agent connections.
    pub agents: usize,
    /// Whether developer mode is on (`page.evaluate`, `cdp.send`).
    #[serde(default)]
    pub developer_mode: bool,
    /// Seconds since the daemon started.
    #[serde(default)]
    pub uptime_secs: u64,
    /// The sites agents may work on in every share: the person's grants
    /// from the extension's options page and the host config's `sites`
    /// (registrable domains, `github.com`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sites: Vec<String>,
    /// The entries of the host config's `sites` that name no site (their
    /// place in the list, from 0): left out, the others apply.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sites_refused: Vec<usize>,
}

/// A shared tab as listed to an agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentTab {
    /// The tab id.
    pub id: TabId,
    /// The tab's url (empty while it is on a page agents may not use).
    pub url: String,
    /// The tab's title (empty while it is on a page agents may not use).
    pub title: String,
    /// Whether this agent has selected it.
    pub selected: bool,
    /// Set while the tab shows a page agents may not use (a local file, an
    /// extension or browser page): every request on it is refused
    /// `BLOCKED_TARGET`, and its url and title are left empty, until it
    /// shows a web page again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<crate::reach::Blocked>,
    /// The CDP target id of the tab's page (what a CDP client names it
    /// by), once the browser reported it; not given while it is blocked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_id: Option<String>,
}

/// Result of `tabs.list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabsListResult {
    /// The shared tabs; tabs not shared are never listed.
    pub tabs: Vec<AgentTab>,
}

/// Params of `tabs.select`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SelectParams {
    /// The shared tab to select.
    pub tab_id: TabId,
}

/// Result of `tabs.select`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectResult {
    /// The selected tab.
    pub tab_id: TabId,
    /// The agent's selection revision after the change.
    pub selection_revision: u64,
}

/// Why an agent lost control of a tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RevokeReason {
    /// The person took control.
    Human,
    /// The person unshared the tab.
    Unshared,
    /// The tab was closed.
    TabClosed,
    /// The agent selected another tab.
    TabSwitched,
    /// The session ended (`session.bye`).
    SessionEnded,
    /// The agent's connection dropped and it did not resume in time, or its
    /// ticket expired.
    Disconnected,
    /// Developer mode was turned off while the agent held input.
    DeveloperModeOff,
    /// The browser lane went away.
    LaneLost,
    /// The tab went to a page agents may not use (a local file, an
    /// extension or browser page); it may be acquired again once it shows
    /// a web page.
    BlockedTarget,
}

/// Result of `control.acquire`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ControlResult {
    /// The tab now controlled.
    pub tab_id: TabId,
    /// The session's selection revision.
    pub selection_revision: u64,
}

/// Params of `tabs.create`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateTabParams {
    /// An absolute `http:` or `https:` url; a blank tab when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// Result of `tabs.create`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTabResult {
    /// The new tab, now shared, selected and controlled by the caller.
    pub tab_id: TabId,
    /// The session's selection revision after the change.
    pub selection_revision: u64,
}

/// Params of `tabs.close`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CloseTabParams {
    /// The shared tab; the selected one when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
}
