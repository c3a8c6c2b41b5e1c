//! A shared tab as agents see it, the one type both links carry.

use crate::ids::TabId;
use serde::{Deserialize, Serialize};

/// A tab as agents see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabInfo {
    /// The tab id.
    pub id: TabId,
    /// The tab's current url.
    pub url: String,
    /// The tab's current title.
    pub title: String,
    /// The person took control of this tab in the popup (or with the
    /// keyboard command); agents may observe it but not act on it.
    #[serde(default, rename = "humanControl")]
    pub human_control: bool,
    /// The tab's page is a blocked target ([`crate::reach`]): agents are
    /// refused everything on it until it shows a web page again, and its
    /// url and title are not reported (they are the person's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<crate::reach::Blocked>,
    /// The shared tab whose page opened this one (a `target=_blank` link,
    /// `window.open`), if that tab is still shared.
    #[serde(
        default,
        rename = "openerTabId",
        skip_serializing_if = "Option::is_none"
    )]
    pub opener: Option<TabId>,
    /// The CDP target id of the tab's page (its main frame's id), once
    /// the extension's debugger reported it; not given while the tab is
    /// blocked.
    #[serde(default, rename = "targetId", skip_serializing_if = "Option::is_none")]
    pub target_id: Option<String>,
}
