//! The person's watch on agents at work: what the extension's side panel
//! asks of the daemon over a native port of its own, and what the daemon
//! tells it — each agent request as the person reads it. The service
//! worker's lane never carries these: a panel connects with
//! [`WatchHello`] instead of the lane's hello, and from then on only
//! receives [`WatchEvent`]s.

use crate::TabId;
use serde::{Deserialize, Serialize};

/// The first and only message a watching page sends:
/// `{"type":"watch","protocolVersion":N}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum WatchHello {
    /// A watch, in the native protocol version the page speaks.
    #[serde(rename_all = "camelCase")]
    Watch {
        /// The version.
        protocol_version: u32,
    },
}

/// A setting the person changes from the side panel, sent on its watch:
/// `{"agentPointer":false}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WatchSetting {
    /// Whether what agents aim at is drawn in the shared tabs.
    pub agent_pointer: bool,
}

/// The person's choice of where agents may take a shared tab, sent on
/// the watch: `{"tabScope":{"tab":3,"anySite":true}}` (any site, or with
/// `false` the site of the page it shows), or
/// `{"tabScope":{"tab":3,"allow":"bank.example"}}` (one site more).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScopeChange {
    /// The change.
    pub tab_scope: TabScopeChange,
}

/// The change of one tab's sites ([`ScopeChange`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TabScopeChange {
    /// The shared tab.
    pub tab: TabId,
    /// Any site (`true`), or only the site of the page it shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub any_site: Option<bool>,
    /// A site to allow too (a registrable domain, as [`TabScope`] names
    /// them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow: Option<String>,
}

/// Where agents may take one shared tab, as the watch tells it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TabScope {
    /// The shared tab.
    pub tab: TabId,
    /// Its title, as the person knows it (empty on a blocked page).
    #[serde(default)]
    pub title: String,
    /// Its sites (`example.com`); empty for any site.
    pub sites: Vec<String>,
    /// What an agent's request in it waits for the person's yes before
    /// (empty: nothing).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ask_before: Vec<AskBefore>,
}

/// A kind of agent request the person may ask to approve, per shared
/// tab, before anything of it reaches the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AskBefore {
    /// Every action (step mode): input, navigation, answering a dialog,
    /// opening or closing a tab, emulation, scripts and raw commands
    /// that are not reads. Reads and releases of held input go on.
    Step,
    /// Putting the person's files in the page: an upload or a drop of
    /// files.
    Files,
    /// Typing into a password field (or one whose `autocomplete` names
    /// a secret), and scripts, which could fill one unseen.
    Password,
    /// Submitting a form: a click or tap on its submit button, Enter or
    /// Space where that submits it, and scripts, which could submit one.
    Submit,
    /// Saving a file the page or the agent started to download, held
    /// before it is written.
    Download,
}

impl AskBefore {
    /// Every kind, in the order the side panel shows them.
    pub const ALL: [AskBefore; 5] = [
        AskBefore::Step,
        AskBefore::Submit,
        AskBefore::Files,
        AskBefore::Password,
        AskBefore::Download,
    ];

    /// The wire name (`step`).
    pub fn as_str(self) -> &'static str {
        match self {
            AskBefore::Step => "step",
            AskBefore::Files => "files",
            AskBefore::Password => "password",
            AskBefore::Submit => "submit",
            AskBefore::Download => "download",
        }
    }

    /// What it asks before, in the person's terms.
    pub fn label(self) -> &'static str {
        match self {
            AskBefore::Step => "every action",
            AskBefore::Files => "uploading files",
            AskBefore::Password => "typing a password",
            AskBefore::Submit => "submitting a form",
            AskBefore::Download => "downloading a file",
        }
    }
}

/// The person's change of what a shared tab asks before, sent on the
/// watch: `{"tabAskBefore":{"tab":3,"what":"files","on":true}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AskBeforeChange {
    /// The change.
    pub tab_ask_before: TabAskBefore,
}

/// One tab's change ([`AskBeforeChange`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TabAskBefore {
    /// The shared tab.
    pub tab: TabId,
    /// The kind of request.
    pub what: AskBefore,
    /// Whether to ask before it from now on.
    pub on: bool,
}

/// A site agents may work on in every share, as the watch tells it: the
/// person's grant from the extension's options page (with its time), or
/// the host config's `sites` (no time: only the file changes it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LastingSite {
    /// The site (a registrable domain, `github.com`).
    pub site: String,
    /// When the person granted it, in milliseconds since the Unix epoch;
    /// none for a site of the host config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granted_ms: Option<u64>,
}

/// The person's grant or revocation of a site for every share, sent on
/// the watch: `{"lastingSite":{"site":"github.com","allow":true}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LastingChange {
    /// The change.
    pub lasting_site: LastingSiteChange,
}

/// One site's grant or revocation ([`LastingChange`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LastingSiteChange {
    /// The site, as `github.com`.
    pub site: String,
    /// Grant (`true`) or revoke.
    pub allow: bool,
}

/// An agent's request waiting for the person's yes, as the watch tells
/// it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingApproval {
    /// The daemon's number of it.
    pub id: u64,
    /// The agent, as it named itself.
    pub agent: String,
    /// The tab it would act on (none for a tab it would open).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<TabId>,
    /// Why it waits.
    pub ask: AskBefore,
    /// What it would do, in the person's terms (`click · button "Send"`).
    pub what: String,
    /// The text it would type: as it is, or one `•` per character for a
    /// field that takes a secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Milliseconds left before it is refused unanswered.
    pub left_ms: u64,
    /// The tab as it is while the request waits, with what the request
    /// aims at marked: none until it is taken, for a request that opens
    /// a tab, when the tab could not be pictured, or when the pictures of
    /// requests shown before it fill what one message may carry
    /// ([`MAX_APPROVAL_FRAMES`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<ApprovalFrame>,
}

/// The most base64 characters of pictures one list of
/// [`PendingApproval`]s carries, so a watch message stays well under what
/// the browser takes from the host at once (1 MiB).
pub const MAX_APPROVAL_FRAMES: usize = 384 * 1024;

/// A picture of the tab a request waits in ([`PendingApproval::frame`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalFrame {
    /// The tab's viewport, a JPEG, base64.
    pub jpeg: String,
    /// The viewport's width in CSS pixels (the picture's whole width).
    pub width: u32,
    /// The viewport's height in CSS pixels.
    pub height: u32,
    /// What the request aims at, in the viewport's CSS pixels: an
    /// element's box (which may lie partly or wholly outside the
    /// viewport), or a point (no size). None when it aims at neither.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark: Option<Mark>,
}

/// A box in a viewport's CSS pixels ([`ApprovalFrame::mark`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    /// Left edge.
    pub x: i32,
    /// Top edge.
    pub y: i32,
    /// Width; 0 for a point.
    pub width: u32,
    /// Height; 0 for a point.
    pub height: u32,
}

/// The person's answer to a [`PendingApproval`], sent on the watch:
/// `{"approval":{"id":5,"approve":true}}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApprovalAnswer {
    /// The answer.
    pub approval: Approve,
}

/// Yes or no to one pending request ([`ApprovalAnswer`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Approve {
    /// [`PendingApproval::id`].
    pub id: u64,
    /// Yes (`true`) or no.
    pub approve: bool,
}

/// The start of [`ActivityEntry::method`] for what the person did
/// (`person.takeover`, `person.share`, …) rather than an agent.
pub const PERSON: &str = "person.";

/// One agent request as the person reads it, or something the person did
/// while agents were at work (a takeover, a share).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActivityEntry {
    /// The daemon's number of it, growing.
    pub seq: u64,
    /// When it began, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// The agent, as it named itself.
    pub agent: String,
    /// The tab it acts on, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<TabId>,
    /// The controller method (`input.click`), or [`PERSON`] and what the
    /// person did (`person.takeover`); empty when not told.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub method: String,
    /// What it does, in the person's terms (`click · button "Send"`):
    /// never typed text, a file's path or a script.
    pub what: String,
    /// How it ended: `ok`, or the error's kind; absent while it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// How long it took, in milliseconds, once it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
    /// What an `input.type` typed, in the activity record only (never
    /// told to a watch): masked (`•` per character) unless it went into a
    /// field known not to take a secret, and redacted as results are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub typed: Option<String>,
    /// The site a refused navigation was going to (`navigation.refused`),
    /// which the person may allow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
}

impl ActivityEntry {
    /// Whether the person did this, not an agent.
    pub fn by_person(&self) -> bool {
        self.method.starts_with(PERSON)
    }
}

/// How long, as a person reads it: `4 s`, `12 min`, `3 h 5 min`.
pub fn duration_text(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min", s / 60),
        _ => format!("{} h {} min", s / 3600, s / 60 % 60),
    }
}

/// One session of the activity record, as `cotab activity list` and the
/// viewer show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    /// The session's id.
    pub id: String,
    /// The agent.
    pub agent: String,
    /// When it began (ms since the epoch).
    pub started_ms: u64,
    /// When its last entry ended (ms since the epoch).
    pub last_ms: u64,
    /// The agent's requests kept.
    pub requests: usize,
    /// Of those, the ones that did not end `ok`.
    pub failed: usize,
    /// What the person did meanwhile.
    pub by_person: usize,
    /// The tabs it worked in, in order.
    pub tabs: Vec<TabId>,
    /// Lines that could not be read (a write cut short).
    pub skipped: usize,
    /// Pictures of the tab kept.
    pub frames: usize,
    /// The file's size.
    pub bytes: u64,
}

/// What a watching page asks of the activity record, one ask per
/// message: `{"ask":N,"op":"list"}`, `{"ask":N,"op":"page","id":…,
/// "from":0,"count":50,"tab":7,"outcome":"failed"}`, `{"ask":N,
/// "op":"frames","id":…,"seqs":[…]}`, `{"ask":N,"op":"clear","id":…}`
/// (no `id`: every session). The answer says the same `ask`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordAsk {
    /// The page's number for it.
    pub ask: u32,
    /// `list`, `page`, `frames` or `clear`.
    pub op: String,
    /// The session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The first entry of the page, among those that match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<u32>,
    /// How many entries (at most [`MAX_PAGE`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// Only the entries on this tab.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<TabId>,
    /// Only the entries that ended `ok`, or (`failed`) those that did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// The entries whose pictures are asked for (at most [`MAX_FRAMES`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seqs: Vec<u64>,
}

/// Entries in one page of the viewer, at most.
pub const MAX_PAGE: u32 = 200;
/// Pictures in one answer, at most (each a few tens of kilobytes: an
/// answer stays under the native link's megabyte).
pub const MAX_FRAMES: usize = 20;

/// The daemon's answer to a [`RecordAsk`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordAnswer {
    /// The ask it answers.
    pub ask: u32,
    /// Why it could not be answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `list`: the sessions, the latest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sessions: Vec<SessionSummary>,
    /// `page`: its entries, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entries: Vec<ActivityEntry>,
    /// `page`: how many entries match, in all.
    #[serde(default)]
    pub total: u32,
    /// `page`: every tab of the session, for the filter.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tabs: Vec<TabId>,
    /// `page`: the entries of the page that have a picture.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub framed: Vec<u64>,
    /// `frames`: the pictures, `[seq, base64 JPEG]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<(u64, String)>,
    /// `clear`: how many sessions went.
    #[serde(default)]
    pub cleared: u32,
}

/// What the daemon tells a watching page: `{"recent":true,"entries":[…]}`
/// at the start (and again when the page fell behind), then
/// `{"entries":[one]}` as each request begins and ends (the same `seq`
/// again, with its outcome). A plain struct, not a tagged enum: serde's
/// derive for those costs the page's wasm tens of kilobytes.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct WatchEvent {
    /// The entries replace what the page knew (the requests running and
    /// the latest ones, oldest first), instead of adding to it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recent: bool,
    /// The entries.
    pub entries: Vec<ActivityEntry>,
    /// Whether what agents aim at is drawn in the shared tabs: told with
    /// the recent entries and whenever it changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_pointer: Option<bool>,
    /// The answer to the page's ask of the activity record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<RecordAnswer>,
    /// The latest picture of tabs agents work in: with the recent entries
    /// (one per tab), then each as it is taken.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pictures: Vec<TabPicture>,
    /// Every shared tab's sites: with the recent entries, then whenever
    /// one changes or a tab joins the list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes: Option<Vec<TabScope>>,
    /// Every request waiting for the person's yes: with the recent
    /// entries, then whenever one begins or ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approvals: Option<Vec<PendingApproval>>,
    /// The sites agents may work on in every share: with the recent
    /// entries, then whenever they change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lasting: Option<Vec<LastingSite>>,
    /// The videos being recorded, then the person's latest saved ones:
    /// with the recent entries, then whenever one starts or ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub videos: Option<Vec<TabVideo>>,
}

/// A video of a shared tab, as the watch tells it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TabVideo {
    /// The tab.
    pub tab: TabId,
    /// The agent that started it; none: the person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Its file (under the daemon's state directory).
    pub path: String,
    /// Whether it is being recorded now (else it was saved).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recording: bool,
}

/// The person starts or stops the video of a shared tab, sent on the
/// watch: `{"tabVideo":{"tab":3,"record":true}}`. Stopping ends any
/// video of the tab, an agent's too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VideoChange {
    /// The change.
    pub tab_video: TabVideoChange,
}

/// The start or stop of one tab's video ([`VideoChange`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TabVideoChange {
    /// The shared tab.
    pub tab: TabId,
    /// Start (`true`) or stop.
    pub record: bool,
}

/// A picture of a tab after an agent's request (the activity record's,
/// a JPEG 320 pixels wide), for the side panel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TabPicture {
    /// The tab.
    pub tab: TabId,
    /// The request it follows ([`ActivityEntry::seq`]).
    pub seq: u64,
    /// The JPEG, base64.
    pub jpeg: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn durations_read_as_a_person_counts() {
        assert_eq!(duration_text(4_400), "4 s");
        assert_eq!(duration_text(59_999), "59 s");
        assert_eq!(duration_text(720_000), "12 min");
        assert_eq!(duration_text(11_100_000), "3 h 5 min");
    }

    #[test]
    fn the_watch_messages_read_as_documented() {
        let hello: WatchHello =
            serde_json::from_value(json!({"type": "watch", "protocolVersion": 1})).expect("hello");
        assert_eq!(
            hello,
            WatchHello::Watch {
                protocol_version: 1
            }
        );
        // The lane's hello is no watch.
        let lane = json!({"type": "hello", "protocolVersion": 1, "laneId": "l",
                          "extensionId": "e", "version": "0.1.0"});
        assert!(serde_json::from_value::<WatchHello>(lane).is_err());
        let entry = ActivityEntry {
            seq: 3,
            at_ms: 1_700_000_000_000,
            agent: "ada".into(),
            tab: Some(TabId(7)),
            method: String::new(),
            what: "click · button \"Send\"".into(),
            outcome: None,
            ms: None,
            typed: None,
            site: None,
        };
        let event = WatchEvent {
            recent: false,
            entries: vec![entry.clone()],
            agent_pointer: None,
            record: None,
            pictures: Vec::new(),
            scopes: None,
            approvals: None,
            lasting: None,
            videos: None,
        };
        let v = serde_json::to_value(&event).expect("json");
        assert_eq!(
            v,
            json!({"entries": [{"seq": 3, "atMs": 1_700_000_000_000u64,
                   "agent": "ada", "tab": 7, "what": "click · button \"Send\""}]})
        );
        assert_eq!(
            serde_json::from_value::<WatchEvent>(v).expect("back"),
            event
        );
        assert!(!entry.by_person());
        let person = ActivityEntry {
            method: format!("{PERSON}takeover"),
            ..entry
        };
        assert!(person.by_person());
        let v = serde_json::to_value(&person).expect("json");
        assert_eq!(v["method"], "person.takeover");
    }

    #[test]
    fn the_persons_approvals_read_as_documented() {
        let change: AskBeforeChange = serde_json::from_value(
            json!({"tabAskBefore": {"tab": 3, "what": "files", "on": true}}),
        )
        .expect("change");
        assert_eq!(
            change.tab_ask_before,
            TabAskBefore {
                tab: TabId(3),
                what: AskBefore::Files,
                on: true
            }
        );
        for bad in [
            json!({"tabAskBefore": {"tab": 3, "what": "everything", "on": true}}),
            json!({"tabAskBefore": {"tab": 3, "what": "files"}}),
            json!({"tabAskBefore": {"tab": 3, "what": "files", "on": true, "x": 1}}),
        ] {
            assert!(
                serde_json::from_value::<AskBeforeChange>(bad.clone()).is_err(),
                "{bad}"
            );
        }
        let answer: ApprovalAnswer =
            serde_json::from_value(json!({"approval": {"id": 5, "approve": false}}))
                .expect("answer");
        assert_eq!(
            answer.approval,
            Approve {
                id: 5,
                approve: false
            }
        );
        // Neither is taken for the other, nor for a change of sites.
        assert!(serde_json::from_value::<ScopeChange>(
            json!({"approval": {"id": 5, "approve": false}})
        )
        .is_err());
        assert!(serde_json::from_value::<ApprovalAnswer>(
            json!({"tabAskBefore": {"tab": 3, "what": "files", "on": true}})
        )
        .is_err());
        for a in AskBefore::ALL {
            assert_eq!(serde_json::to_value(a).expect("json"), json!(a.as_str()));
        }
    }
}
