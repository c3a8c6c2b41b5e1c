//! Messages between the popup and the service worker, and the shape of a
//! `chrome.tabs.Tab` as the extension reads it.
//!
//! These never leave the extension; the messages to and from the native host
//! live in `cotab_shared::native`. The popup sends a [`PopupRequest`] with
//! `chrome.runtime.sendMessage`; the worker answers `getState` with a
//! [`PopupState`] and `share`/`unshare`/`takeControl`/`handBack` with an
//! [`ActionReply`], and `setDeveloperMode` (the person flipped the switch)
//! too: the worker writes the switch to `chrome.storage.local` itself, and
//! undoes a change to on that it did not write. The worker answers these
//! requests only from the popup page, and never from a page in a shared
//! tab, which an agent may be driving.

use cotab_shared::native::TabControl;
use cotab_shared::tagged::Tagged;
use cotab_shared::TabId;
use serde::{Deserialize, Deserializer, Serialize};

/// A request from the popup to the service worker. (Deserialised by hand
/// with [`Tagged`], which keeps serde's content buffering out of the wasm.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum PopupRequest {
    /// `{"type":"getState"}`, answered with a [`PopupState`].
    GetState,
    /// `{"type":"share","tabId":N}`, answered with an [`ActionReply`].
    Share {
        /// The tab to share.
        #[serde(rename = "tabId")]
        tab_id: TabId,
    },
    /// `{"type":"unshare","tabId":N}`, answered with an [`ActionReply`].
    Unshare {
        /// The tab to stop sharing.
        #[serde(rename = "tabId")]
        tab_id: TabId,
    },
    /// `{"type":"takeControl","tabId":N}`: the person takes control of a
    /// shared tab. Answered with an [`ActionReply`].
    TakeControl {
        /// The shared tab.
        #[serde(rename = "tabId")]
        tab_id: TabId,
    },
    /// `{"type":"handBack","tabId":N}`: the person hands a tab back to
    /// agents. Answered with an [`ActionReply`].
    HandBack {
        /// The shared tab.
        #[serde(rename = "tabId")]
        tab_id: TabId,
    },
    /// `{"type":"setDeveloperMode","enabled":B}`: the person flipped the
    /// developer-mode switch. Answered with an [`ActionReply`].
    SetDeveloperMode {
        /// The switch's new state.
        enabled: bool,
    },
}

impl<'de> Deserialize<'de> for PopupRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut t = Tagged::read(d, "type")?;
        Ok(match t.tag.as_str() {
            "getState" => PopupRequest::GetState,
            "share" => PopupRequest::Share {
                tab_id: t.field("tabId")?,
            },
            "unshare" => PopupRequest::Unshare {
                tab_id: t.field("tabId")?,
            },
            "takeControl" => PopupRequest::TakeControl {
                tab_id: t.field("tabId")?,
            },
            "handBack" => PopupRequest::HandBack {
                tab_id: t.field("tabId")?,
            },
            "setDeveloperMode" => PopupRequest::SetDeveloperMode {
                enabled: t.field("enabled")?,
            },
            _ => {
                return Err(t.unknown(&[
                    "getState",
                    "share",
                    "unshare",
                    "takeControl",
                    "handBack",
                    "setDeveloperMode",
                ]))
            }
        })
    }
}

/// The worker's state as the popup shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PopupState {
    /// Whether the native host answered the last hello.
    pub connected: bool,
    /// The shared tabs, in the order they were shared.
    pub shared: Vec<TabId>,
    /// The shared tabs the person controls.
    #[serde(rename = "humanControl", default)]
    pub human_control: Vec<TabId>,
    /// Who controls each shared tab, one entry per shared tab: the person
    /// when they took it, else what the daemon last said.
    #[serde(default)]
    pub controllers: Vec<TabControl>,
    /// The shared tabs whose page agents may not use now, with why: agents
    /// are paused there until it shows a web page again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suspended: Vec<Suspended>,
    /// The local files the host config lets agents reach (a `file:` tab
    /// under them may be shared).
    #[serde(rename = "fileDirs", default, skip_serializing_if = "is_none")]
    pub file_dirs: cotab_shared::reach::LocalFiles,
    /// Whether developer mode is on (read from `chrome.storage.local`).
    #[serde(rename = "developerMode", default)]
    pub developer_mode: bool,
    /// The last native-link error, if the link is not healthy.
    #[serde(rename = "lastError", default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// Why the last tab the person dragged into the `cotab` group was not
    /// shared (it was moved back out); cleared when a tab is shared.
    #[serde(
        rename = "shareError",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub share_error: Option<String>,
    /// The agents connected to the daemon now, by name (the daemon's
    /// `agents` message; empty while the link is down).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
    /// Tabs of the window cotab stopped sharing by itself (the browser
    /// took its debugger away), and why, until they are shared again or
    /// closed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unshared: Vec<Unshared>,
}

fn is_none(files: &cotab_shared::reach::LocalFiles) -> bool {
    files.0.is_empty()
}

/// A shared tab agents are paused on ([`PopupState::suspended`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suspended {
    /// The shared tab agents are paused on.
    #[serde(rename = "tabId")]
    pub tab_id: TabId,
    /// What its page is.
    pub blocked: cotab_shared::reach::Blocked,
}

/// A tab cotab stopped sharing without the person asking
/// ([`PopupState::unshared`]), and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unshared {
    /// The tab, no longer shared.
    #[serde(rename = "tabId")]
    pub tab_id: TabId,
    /// Why, as the popup says it.
    pub why: String,
}

/// The answer to a share or unshare request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionReply {
    /// Whether the action succeeded.
    pub ok: bool,
    /// Why it failed, for the person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ActionReply {
    /// `{"ok":true}` for `Ok`, `{"ok":false,"error":…}` for `Err`.
    pub fn from_result(result: Result<(), String>) -> Self {
        match result {
            Ok(()) => ActionReply {
                ok: true,
                error: None,
            },
            Err(error) => ActionReply {
                ok: false,
                error: Some(error),
            },
        }
    }
}

/// The fields of a `chrome.tabs.Tab` the extension uses. Every field but
/// `windowId` is optional in the browser's schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChromeTab {
    /// The tab id; absent for some special tabs.
    #[serde(default)]
    pub id: Option<TabId>,
    /// The committed url.
    #[serde(default)]
    pub url: Option<String>,
    /// The url being loaded, before it commits.
    #[serde(default)]
    pub pending_url: Option<String>,
    /// Its title, if the browser reports one.
    #[serde(default)]
    pub title: Option<String>,
    /// The window holding the tab.
    pub window_id: i32,
    /// The tab group holding the tab; [`TAB_GROUP_ID_NONE`] (or absent)
    /// when it is in none.
    #[serde(default)]
    pub group_id: Option<i32>,
}

/// `chrome.tabGroups.TAB_GROUP_ID_NONE`: the `groupId` of a tab in no group.
pub const TAB_GROUP_ID_NONE: i32 = -1;

impl ChromeTab {
    /// The url to judge and show: the committed one, else the pending one.
    pub fn effective_url(&self) -> &str {
        match (&self.url, &self.pending_url) {
            (Some(url), _) if !url.is_empty() => url,
            (_, Some(pending)) => pending,
            _ => "",
        }
    }
}

/// The fields of a `chrome.tabGroups.TabGroup` the extension uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChromeTabGroup {
    /// The group id.
    pub id: i32,
    /// The group's title; absent or empty for an unnamed group.
    #[serde(default)]
    pub title: Option<String>,
}

impl ChromeTabGroup {
    /// Whether this is a `cotab` group: the one whose tabs are shared.
    pub fn is_cotab(&self) -> bool {
        self.title
            .as_deref()
            .is_some_and(cotab_shared::is_tab_group_title)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cotab_shared::native::Holder;
    use serde_json::json;

    #[test]
    fn popup_requests_golden() {
        let cases = [
            (PopupRequest::GetState, json!({"type":"getState"})),
            (
                PopupRequest::Share { tab_id: TabId(5) },
                json!({"type":"share","tabId":5}),
            ),
            (
                PopupRequest::Unshare { tab_id: TabId(6) },
                json!({"type":"unshare","tabId":6}),
            ),
            (
                PopupRequest::TakeControl { tab_id: TabId(7) },
                json!({"type":"takeControl","tabId":7}),
            ),
            (
                PopupRequest::HandBack { tab_id: TabId(8) },
                json!({"type":"handBack","tabId":8}),
            ),
            (
                PopupRequest::SetDeveloperMode { enabled: true },
                json!({"type":"setDeveloperMode","enabled":true}),
            ),
        ];
        for (req, golden) in cases {
            assert_eq!(serde_json::to_value(&req).expect("serialises"), golden);
            let back: PopupRequest = serde_json::from_value(golden).expect("parses");
            assert_eq!(back, req);
        }
        assert!(serde_json::from_value::<PopupRequest>(json!({"type":"other"})).is_err());
    }

    #[test]
    fn popup_state_golden() {
        let state = PopupState {
            connected: false,
            shared: vec![TabId(1), TabId(2)],
            human_control: vec![TabId(2)],
            controllers: vec![
                TabControl {
                    tab_id: TabId(1),
                    holder: Holder::agent("bot"),
                },
                TabControl {
                    tab_id: TabId(2),
                    holder: Holder::Human,
                },
            ],
            suspended: vec![Suspended {
                tab_id: TabId(1),
                blocked: cotab_shared::reach::Blocked::LocalFile,
            }],
            file_dirs: cotab_shared::reach::LocalFiles(vec!["/home/ada/site".into()]),
            developer_mode: true,
            last_error: Some("Specified native messaging host not found.".into()),
            share_error: Some("at most 16 tabs can be shared at once".into()),
            agents: vec!["bot".into()],
            unshared: vec![Unshared {
                tab_id: TabId(3),
                why: "the browser's debugging bar was cancelled".into(),
            }],
        };
        let golden = json!({"connected":false,"shared":[1,2],"humanControl":[2],
               "controllers":[{"tabId":1,"holder":{"kind":"agent","name":"bot"}},
                              {"tabId":2,"holder":{"kind":"human"}}],
               "suspended":[{"tabId":1,"blocked":"localFile"}],
               "fileDirs":["/home/ada/site"],
               "developerMode":true,
               "lastError":"Specified native messaging host not found.",
               "shareError":"at most 16 tabs can be shared at once",
               "agents":["bot"],
               "unshared":[{"tabId":3,"why":"the browser's debugging bar was cancelled"}]});
        assert_eq!(serde_json::to_value(&state).expect("serialises"), golden);
        assert_eq!(
            serde_json::from_value::<PopupState>(golden).expect("parses"),
            state
        );
        let healthy = PopupState {
            connected: true,
            ..PopupState::default()
        };
        assert_eq!(
            serde_json::to_value(&healthy).expect("serialises"),
            json!({"connected":true,"shared":[],"humanControl":[],"controllers":[],
                   "developerMode":false})
        );
    }

    #[test]
    fn action_reply_golden() {
        assert_eq!(
            serde_json::to_value(ActionReply::from_result(Ok(()))).expect("serialises"),
            json!({"ok":true})
        );
        assert_eq!(
            serde_json::to_value(ActionReply::from_result(Err("no".into()))).expect("serialises"),
            json!({"ok":false,"error":"no"})
        );
    }

    #[test]
    fn chrome_tab_reads_the_browser_shape() {
        let tab: ChromeTab = serde_json::from_value(json!({
            "id": 7, "windowId": 1, "index": 0, "active": true, "groupId": -1,
            "url": "", "pendingUrl": "http://a/", "title": "A", "status": "loading"
        }))
        .expect("parses");
        assert_eq!(tab.id, Some(TabId(7)));
        assert_eq!(tab.effective_url(), "http://a/");
        assert_eq!(tab.group_id, Some(TAB_GROUP_ID_NONE));
        let bare: ChromeTab = serde_json::from_value(json!({"windowId": 2})).expect("parses");
        assert_eq!(bare.effective_url(), "");
        assert_eq!(bare.group_id, None);
    }

    #[test]
    fn only_the_group_titled_cotab_is_ours() {
        let group: ChromeTabGroup = serde_json::from_value(json!({
            "id": 3, "title": "cotab", "color": "blue", "collapsed": false, "windowId": 1
        }))
        .expect("parses");
        assert!(group.is_cotab());
        let unnamed: ChromeTabGroup =
            serde_json::from_value(json!({"id": 4, "windowId": 1})).expect("parses");
        assert!(!unnamed.is_cotab());
        let other: ChromeTabGroup =
            serde_json::from_value(json!({"id": 5, "title": "Cotab"})).expect("parses");
        assert!(!other.is_cotab());
    }
}
