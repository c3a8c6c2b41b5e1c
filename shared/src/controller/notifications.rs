//! What the daemon tells an agent unasked: a [`Notification`] line
//! carrying an [`AgentEvent`].

use super::{DialogInfo, FileChooserInfo, RevokeReason};
use crate::ids::TabId;
use serde::{Deserialize, Serialize};

/// A notification from the daemon to an agent (no id).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notification {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    /// What happened.
    #[serde(flatten)]
    pub event: AgentEvent,
}

/// The notifications an agent can receive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", content = "params")]
pub enum AgentEvent {
    /// A shared tab's url or title changed.
    #[serde(rename = "tab.updated")]
    TabUpdated(crate::tab::TabInfo),
    /// A page in a shared tab opened another tab (a link with a target,
    /// `window.open`), now shared too; told to the sessions that have the
    /// opener selected. Its `openerTabId` names the opener.
    #[serde(rename = "tab.opened")]
    TabOpened(crate::tab::TabInfo),
    /// A shared tab was closed or unshared.
    #[serde(rename = "tab.closed")]
    TabClosed {
        /// The shared tab it is about.
        #[serde(rename = "tabId")]
        tab_id: TabId,
    },
    /// The agent lost the control lease of a tab; its held input there has
    /// been released.
    #[serde(rename = "control.revoked")]
    ControlRevoked {
        /// The shared tab it is about.
        #[serde(rename = "tabId")]
        tab_id: TabId,
        /// Why.
        reason: RevokeReason,
    },
    /// A JavaScript dialog opened on a shared tab; actions on the tab fail
    /// `DIALOG_OPEN` until `page.dialog` answers it.
    #[serde(rename = "dialog.opened")]
    DialogOpened(DialogInfo),
    /// A file chooser opened on a shared tab for an agent's input; the
    /// person was not shown it. `input.setFiles` without `ref` answers it.
    #[serde(rename = "fileChooser.opened")]
    FileChooserOpened(FileChooserInfo),
    /// The person turned developer mode on or off.
    #[serde(rename = "developerMode.changed")]
    DeveloperModeChanged {
        /// Whether `page.evaluate` and `cdp.send` are allowed now.
        enabled: bool,
    },
    /// A CDP event of the tab the session asked for with `cdp.events`,
    /// as the browser sent it (developer mode only). They stop, without a
    /// notification of their own, when developer mode turns off
    /// (`developerMode.changed`), the session selects another tab, or the
    /// tab goes (`tab.closed`).
    #[serde(rename = "cdp.event")]
    CdpEvent {
        /// The shared tab it is about.
        #[serde(rename = "tabId")]
        tab_id: TabId,
        /// The CDP event's method, e.g. `Page.frameNavigated`.
        method: String,
        /// Its params, as the browser sent them.
        params: serde_json::Value,
        /// The child session of the tab it came from (see `cdp.send`'s
        /// `sessionId`); none for the tab's own page.
        #[serde(default, rename = "sessionId", skip_serializing_if = "Option::is_none")]
        session_id: Option<String>,
    },
    /// A navigation of a tab the session holds, to a site outside those
    /// the tab is shared for, was held before its request left the
    /// browser and refused: the tab stayed on its page. Started by the
    /// page (a link, a form, a script) or by the agent.
    #[serde(rename = "navigation.refused")]
    NavigationRefused {
        /// The shared tab it is about.
        #[serde(rename = "tabId")]
        tab_id: TabId,
        /// The site it was going to (`bank.example`), never the whole url.
        site: String,
        /// Why, as `SITE_NOT_ALLOWED` says it.
        message: String,
    },
    /// A download the page or the agent started in a tab the session
    /// holds, which asks before downloads, waited for the person's yes
    /// (told with `approval.pending`, `ask` `download`) and was answered:
    /// `saved` when they approved it; else it was refused (a no, no
    /// answer in time, the lease ended) and nothing was saved.
    #[serde(rename = "download.answered")]
    DownloadAnswered {
        /// The shared tab it is about.
        #[serde(rename = "tabId")]
        tab_id: TabId,
        /// The site it came from (`example.com`), never the whole url.
        site: String,
        /// The file's name, as the browser would save it.
        file: String,
        /// Whether it was saved.
        saved: bool,
    },
    /// A request of the session waits for the person's yes before any
    /// of it reaches the page (they asked to approve such requests in
    /// this tab). Its answer comes when they decide: its result, or
    /// `DENIED_BY_PERSON` when they say no or do not answer in time;
    /// `HUMAN_HAS_CONTROL` or `TAB_NOT_SHARED` when they take the tab
    /// or unshare it meanwhile.
    #[serde(rename = "approval.pending")]
    ApprovalPending {
        /// The shared tab it is about (none for `tabs.create`).
        #[serde(rename = "tabId", default, skip_serializing_if = "Option::is_none")]
        tab_id: Option<TabId>,
        /// Why it waits: `step`, `files` or `password`.
        ask: crate::watch::AskBefore,
        /// What it would do, as the person is shown it.
        what: String,
        /// Milliseconds the person has to answer.
        #[serde(rename = "waitMs")]
        wait_ms: u64,
    },
    /// The browser lane dropped.
    #[serde(rename = "lane.offline")]
    LaneOffline {},
    /// The browser lane (re)connected.
    #[serde(rename = "lane.online")]
    LaneOnline {},
}

impl Notification {
    /// Wraps an event.
    pub fn new(event: AgentEvent) -> Self {
        Notification {
            jsonrpc: "2.0".into(),
            event,
        }
    }
}
