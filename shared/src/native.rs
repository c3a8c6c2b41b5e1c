//! The native link: messages between the daemon and the extension, and the
//! native-messaging frame format that carries them.
//!
//! A frame is a 4-byte length in native byte order followed by that many
//! bytes of UTF-8 JSON. The browser allows 1 MiB towards the extension
//! ([`crate::limits::MAX_HOST_TO_EXTENSION`]); cotab caps the other direction
//! at [`crate::limits::MAX_EXTENSION_TO_HOST`]. This module owns the format
//! but does no I/O: the host's codecs call [`frame_len`] and [`encode_frame`].

pub use crate::cdp::{CssViewport, LayoutMetrics};
use crate::error::WireError;
pub use crate::geometry::{check_viewport, FrameGeometry};
use crate::ids::{LaneId, TabId};
use crate::input::InputRole;
pub use crate::input::{check_input_events, InputEvent};
pub use crate::tab::TabInfo;
use crate::tagged::Tagged;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// Why a frame was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// The frame is longer than the limit of its direction.
    #[error("native message of {len} bytes exceeds the limit of {limit} bytes")]
    TooLarge {
        /// Length of the refused frame's payload.
        len: usize,
        /// The limit in force.
        limit: usize,
    },
    /// The payload is empty, which is never valid JSON.
    #[error("empty native message")]
    Empty,
}

/// Reads the payload length from a frame header, checked against `limit`.
pub fn frame_len(header: [u8; 4], limit: usize) -> Result<usize, FrameError> {
    let len = u32::from_ne_bytes(header) as usize;
    if len == 0 {
        return Err(FrameError::Empty);
    }
    if len > limit {
        return Err(FrameError::TooLarge { len, limit });
    }
    Ok(len)
}

/// Frames `payload` (header + bytes), refusing payloads over `limit` so an
/// oversized message is never sent.
pub fn encode_frame(payload: &[u8], limit: usize) -> Result<Vec<u8>, FrameError> {
    if payload.is_empty() {
        return Err(FrameError::Empty);
    }
    if payload.len() > limit {
        return Err(FrameError::TooLarge {
            len: payload.len(),
            limit,
        });
    }
    // The limit is far below u32::MAX, so the cast cannot truncate.
    let mut out = Vec::with_capacity(payload.len() + 4);
    out.extend_from_slice(&(payload.len() as u32).to_ne_bytes());
    out.extend_from_slice(payload);
    Ok(out)
}

/// A message from the daemon to the extension. (Deserialised by hand, in
/// [`crate::tagged`]'s way, with the same shape.)
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum HostToExtension {
    /// Answer to the extension's [`ExtensionToHost::Hello`].
    Welcome {
        /// The daemon's protocol version.
        #[serde(rename = "protocolVersion")]
        protocol_version: u32,
    },
    /// Who controls each shared tab, sent whenever it changes so the popup
    /// can show it. Tabs not listed have no controller.
    Controllers {
        /// Controllers of shared tabs.
        tabs: Vec<TabControl>,
    },
    /// The names of the agents connected now (one per session bound to a
    /// connection, sorted), sent after each hello and whenever it
    /// changes, so the popup can show them.
    Agents {
        /// Their names from `session.hello`.
        names: Vec<String>,
    },
    /// What the person's host config lets agents reach besides web pages,
    /// sent after each hello and whenever the config changes: the local
    /// directories whose files may be shared and driven (`fileDirs`).
    Policy {
        /// The directories ([`crate::reach::LocalFiles`]).
        #[serde(rename = "fileDirs")]
        file_dirs: crate::reach::LocalFiles,
    },
    /// The daemon's loopback WebSocket for this connection, sent after the
    /// welcome when it serves one: the worker may connect to
    /// `ws://127.0.0.1:{port}/lane/{token}` once, within
    /// [`crate::limits::SOCKET_OFFER_TTL_MS`], and then switch the lane's
    /// messages to it ([`ExtensionToHost::SocketOpen`]).
    SocketOffer {
        /// The WebSocket's port on 127.0.0.1.
        port: u16,
        /// A fresh one-time token (64 hex digits).
        token: String,
    },
    /// The last message on the native link before the lane's messages ride
    /// the WebSocket (`accepted`), or the answer that they stay on the
    /// native link (no WebSocket of this connection is waiting).
    SocketSwitched {
        /// Whether the daemon switched to the WebSocket.
        accepted: bool,
    },
    /// A command the extension must run and answer with a
    /// [`ExtensionToHost::Response`] carrying the same `id`.
    Request {
        /// Correlates the response.
        id: u64,
        /// What to do.
        command: Command,
    },
}

/// A command the daemon asks the extension to run. (Deserialised by hand,
/// with the same shape.)
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum Command {
    /// List the shared tabs. Result: [`SharedTabs`].
    ListShared,
    /// Send one CDP command to a shared tab through `chrome.debugger`.
    /// Result: the CDP result object. A tab that is not shared fails with
    /// `TAB_NOT_SHARED`; the extension never touches other tabs.
    Cdp {
        /// The shared tab.
        #[serde(rename = "tabId")]
        tab_id: TabId,
        /// CDP method, e.g. `Page.navigate`.
        method: String,
        /// CDP params object.
        #[serde(default)]
        params: Value,
        /// What the command does to the page, which decides who may send
        /// it (see [`CommandClass`]).
        #[serde(default)]
        class: CommandClass,
        /// A second command for the same tab, sent (class
        /// [`CommandClass::Observe`]) as soon as this one succeeds, in the
        /// same trip over the native link. With it, the result is a
        /// [`ThenResult`]; a failure of this command fails the whole and
        /// skips the second.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        then: Option<FollowUp>,
        /// The viewport (CSS pixels) the command's coordinates were taken
        /// in: a capture's frame. Right before the command, the extension
        /// reads the live one (`Page.getLayoutMetrics`, class
        /// [`CommandClass::Observe`]); unless it
        /// [matches](FrameGeometry::matches), the answer is `STALE_FRAME`
        /// and the command is not sent.
        #[serde(
            default,
            rename = "ifViewport",
            skip_serializing_if = "Option::is_none"
        )]
        if_viewport: Option<FrameGeometry>,
        /// A child session of the tab's debugger session (a frame in
        /// another process, a worker) that a `Target.attachedToTarget`
        /// event of the tab named: the command (and its follow-up) goes
        /// there. Raw CDP only ([`CommandClass::Privileged`]), checked as
        /// [`crate::reach::check_raw_cdp`] says for a child.
        #[serde(default, rename = "sessionId", skip_serializing_if = "Option::is_none")]
        session: Option<String>,
    },
    /// Input events for a shared tab, in one trip over the native link:
    /// a click's move, press and release. The extension checks them first
    /// ([`check_input_events`]: `INVALID_REQUEST`, nothing sent), then
    /// hands them to the browser by [`crate::input::InputPlan`]: in
    /// groups, in order, the events before a release at once and each
    /// release once its press answered (a release as
    /// [`CommandClass::Release`], the others as [`CommandClass::Act`]), a
    /// group ending where the page holds nothing more. A refusal ends the
    /// command, but only after the releases still due went out: each later
    /// release in the list whose press was handed to the browser. So the
    /// extension pairs these presses, not the daemon. Result: the last
    /// event's CDP result.
    Input {
        /// The shared tab.
        #[serde(rename = "tabId")]
        tab_id: TabId,
        /// The events, in order.
        events: Vec<InputEvent>,
        /// As [`Command::Cdp`]'s: checked before the first event.
        #[serde(
            default,
            rename = "ifViewport",
            skip_serializing_if = "Option::is_none"
        )]
        if_viewport: Option<FrameGeometry>,
        /// Once the events answered, one trip through the page's main
        /// thread ([`SETTLE_EXPRESSION`], class observe) before the
        /// answer, so that every report the page made before it reached
        /// the daemon ahead of the answer. Its outcome is not reported,
        /// but for `TAB_NOT_SHARED`.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        settle: bool,
    },
    /// Open a new tab in the window of the shared tabs (the last focused
    /// window when none is shared) and share it. Result: its [`TabInfo`].
    CreateTab {
        /// An `http:`/`https:` url (checked by the daemon and again by the
        /// extension); `about:blank` when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    /// Close a shared tab. Result: `{}`. A tab that is not shared fails
    /// `TAB_NOT_SHARED`.
    CloseTab {
        /// The shared tab to close.
        #[serde(rename = "tabId")]
        tab_id: TabId,
    },
    /// Forward every CDP event of a shared tab (`all`), not only those of
    /// [`FORWARDED_CDP_EVENTS`], until `all` is false or the debugger
    /// session ends. Result: `{}`. A tab that is not shared fails
    /// `TAB_NOT_SHARED`.
    ForwardEvents {
        /// The shared tab.
        #[serde(rename = "tabId")]
        tab_id: TabId,
        /// Whether every event goes.
        all: bool,
    },
}

/// What a CDP command does to the page. The extension enforces it on top
/// of the daemon's rules, so a bug in the daemon cannot act on a tab the
/// person controls or run privileged code with developer mode off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CommandClass {
    /// Reads state (capture, layout, title); always allowed on a shared tab.
    Observe,
    /// Changes the page (input, navigation); refused with
    /// `HUMAN_HAS_CONTROL` while the person controls the tab.
    #[default]
    Act,
    /// The paired release of input an agent pressed (key up, mouse up, touch
    /// end); allowed even while the person controls the tab.
    Release,
    /// Agent-supplied code or raw CDP; refused with `DEVELOPER_MODE_OFF`
    /// unless developer mode is on at the moment of dispatch, and refused
    /// while the person controls the tab.
    Privileged,
}

impl InputEvent {
    /// The class the event is sent with: a release is
    /// [`CommandClass::Release`] (it runs whoever controls the tab),
    /// anything else [`CommandClass::Act`].
    pub fn class(&self) -> CommandClass {
        match self.role() {
            InputRole::Release(_) => CommandClass::Release,
            _ => CommandClass::Act,
        }
    }
}

/// Who controls a shared tab, as the daemon tells the extension.
/// (Deserialised by hand, with the same shape.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Holder {
    /// Nobody holds the control lease.
    Nobody,
    /// The person took control.
    Human,
    /// An agent holds the lease.
    Agent {
        /// The agent's name from `session.hello`.
        name: String,
    },
}

impl<'de> Deserialize<'de> for HostToExtension {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut t = Tagged::read(d, "type")?;
        Ok(match t.tag.as_str() {
            "welcome" => HostToExtension::Welcome {
                protocol_version: t.field("protocolVersion")?,
            },
            "controllers" => HostToExtension::Controllers {
                tabs: t.field("tabs")?,
            },
            "agents" => HostToExtension::Agents {
                names: t.field("names")?,
            },
            "policy" => HostToExtension::Policy {
                file_dirs: t.field("fileDirs")?,
            },
            "socketOffer" => HostToExtension::SocketOffer {
                port: t.field("port")?,
                token: t.field("token")?,
            },
            "socketSwitched" => HostToExtension::SocketSwitched {
                accepted: t.field("accepted")?,
            },
            "request" => HostToExtension::Request {
                id: t.field("id")?,
                command: t.field("command")?,
            },
            _ => {
                return Err(t.unknown(&[
                    "welcome",
                    "controllers",
                    "agents",
                    "policy",
                    "socketOffer",
                    "socketSwitched",
                    "request",
                ]))
            }
        })
    }
}

impl<'de> Deserialize<'de> for Command {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut t = Tagged::read(d, "op")?;
        Ok(match t.tag.as_str() {
            "listShared" => Command::ListShared,
            "cdp" => Command::Cdp {
                tab_id: t.field("tabId")?,
                method: t.field("method")?,
                params: t.field_or_default("params")?,
                class: t.field_or_default("class")?,
                then: t.field_or_default("then")?,
                if_viewport: t.field_or_default("ifViewport")?,
                session: t.field_or_default("sessionId")?,
            },
            "input" => Command::Input {
                tab_id: t.field("tabId")?,
                events: t.field("events")?,
                if_viewport: t.field_or_default("ifViewport")?,
                settle: t.field_or_default("settle")?,
            },
            "createTab" => Command::CreateTab {
                url: t.field_or_default("url")?,
            },
            "closeTab" => Command::CloseTab {
                tab_id: t.field("tabId")?,
            },
            "forwardEvents" => Command::ForwardEvents {
                tab_id: t.field("tabId")?,
                all: t.field("all")?,
            },
            _ => {
                return Err(t.unknown(&[
                    "listShared",
                    "cdp",
                    "input",
                    "createTab",
                    "closeTab",
                    "forwardEvents",
                ]))
            }
        })
    }
}

impl Command {
    /// The command's name in traces and logs: its CDP method, or its op.
    pub fn name(&self) -> &str {
        match self {
            Command::Cdp { method, .. } => method,
            Command::ListShared => "listShared",
            Command::Input { .. } => "input",
            Command::CreateTab { .. } => "createTab",
            Command::CloseTab { .. } => "closeTab",
            Command::ForwardEvents { .. } => "forwardEvents",
        }
    }
}

impl<'de> Deserialize<'de> for Holder {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut t = Tagged::read(d, "kind")?;
        Ok(match t.tag.as_str() {
            "nobody" => Holder::Nobody,
            "human" => Holder::Human,
            "agent" => Holder::Agent {
                name: t.field("name")?,
            },
            _ => return Err(t.unknown(&["nobody", "human", "agent"])),
        })
    }
}

/// The second command of a [`Command::Cdp`], an observation made right
/// after the first command answers (the daemon's redaction scan after a
/// developer-mode call).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FollowUp {
    /// CDP method.
    pub method: String,
    /// CDP params object.
    #[serde(default)]
    pub params: Value,
    /// The extension may send the follow-up right behind the command,
    /// before the command answers. Its answer then counts only if the
    /// browser answered the command first; otherwise (or if the order
    /// cannot be told) it is sent again once the command has answered. Only
    /// for a command that the page's main thread runs in order with the
    /// follow-up, such as `Runtime.evaluate`: there, answering after the
    /// command means running after its result was settled.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub overlap: bool,
    /// The follow-up is not needed when the command is a
    /// `Runtime.evaluate` or `Runtime.callFunctionOn` whose answer holds
    /// no text: no exception, and a result whose `type` is `number`,
    /// `boolean`, `bigint` or `undefined`, or `object` with the `subtype`
    /// `null`. The extension then answers without waiting for it (or
    /// sending it), its outcome an error that says so.
    #[serde(
        default,
        rename = "unlessScalar",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub unless_scalar: bool,
}

/// The expression of the trip through the page that a settled
/// [`Command::Input`] and the daemon make: nothing to compute, only the
/// trip.
pub const SETTLE_EXPRESSION: &str = "0";

/// The result of a [`Command::Cdp`] with a [`FollowUp`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThenResult {
    /// The first command's CDP result.
    pub result: Value,
    /// What came of the follow-up.
    pub then: Outcome,
}

/// One shared tab's controller.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabControl {
    /// The shared tab.
    #[serde(rename = "tabId")]
    pub tab_id: TabId,
    /// Who controls it.
    pub holder: Holder,
}

/// Result of [`Command::ListShared`], and payload of
/// [`Event::Shared`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SharedTabs {
    /// Shared tabs, in the order the person shared them.
    pub tabs: Vec<TabInfo>,
}

/// A message from the extension to the daemon.
///
/// Read by a hand-written visitor that takes each field straight from the
/// JSON text, in any order, with no intermediate tree: the derive for an
/// internally tagged enum with a flattened [`Outcome`] buffers the whole
/// message twice (a capture's base64 image among it) before building it.
/// Keys no message uses are ignored; a key one of the messages uses must
/// hold that key's type whatever the message (the derive ignored, say, an
/// `id` on an event).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ExtensionToHost {
    /// First message on every connection: who this lane is.
    Hello {
        /// The extension's protocol version.
        #[serde(rename = "protocolVersion")]
        protocol_version: u32,
        /// Stable id of this browser profile's extension instance.
        #[serde(rename = "laneId")]
        lane_id: LaneId,
        /// The extension's id (`chrome.runtime.id`).
        #[serde(rename = "extensionId")]
        extension_id: String,
        /// The extension's version from its manifest.
        version: String,
    },
    /// Answer to a [`HostToExtension::Request`].
    Response {
        /// The request's id.
        id: u64,
        /// What came of it.
        #[serde(flatten)]
        outcome: Outcome,
    },
    /// Something happened in the browser.
    Event {
        /// What happened.
        event: Event,
    },
    /// Sent on the native link once the offered WebSocket is open: the
    /// worker sends nothing more on the native link and waits for
    /// [`HostToExtension::SocketSwitched`], so the messages of each
    /// direction keep their order across the switch.
    SocketOpen,
}

impl<'de> Deserialize<'de> for ExtensionToHost {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ExtensionToHostVisitor)
    }
}

struct ExtensionToHostVisitor;

/// Sets `slot` from the map's next value, refusing a second `name`.
fn once<'de, T: Deserialize<'de>, A: serde::de::MapAccess<'de>>(
    slot: &mut Option<T>,
    name: &'static str,
    map: &mut A,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(serde::de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

impl<'de> serde::de::Visitor<'de> for ExtensionToHostVisitor {
    type Value = ExtensionToHost;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object with a `type` field")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        use serde::de::Error;
        const VARIANTS: &[&str] = &["hello", "response", "event", "socketOpen"];
        let mut tag: Option<CowStr<'de>> = None;
        let mut id: Option<u64> = None;
        let mut result: Option<Value> = None;
        let mut error: Option<WireError> = None;
        let mut event: Option<Event> = None;
        let mut protocol_version: Option<u32> = None;
        let mut lane_id: Option<LaneId> = None;
        let mut extension_id: Option<String> = None;
        let mut version: Option<String> = None;
        while let Some(CowStr(key)) = map.next_key()? {
            match &*key {
                "type" => once(&mut tag, "type", &mut map)?,
                "id" => once(&mut id, "id", &mut map)?,
                "result" => once(&mut result, "result", &mut map)?,
                "error" => once(&mut error, "error", &mut map)?,
                "event" => once(&mut event, "event", &mut map)?,
                "protocolVersion" => once(&mut protocol_version, "protocolVersion", &mut map)?,
                "laneId" => once(&mut lane_id, "laneId", &mut map)?,
                "extensionId" => once(&mut extension_id, "extensionId", &mut map)?,
                "version" => once(&mut version, "version", &mut map)?,
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        let CowStr(tag) = tag.ok_or_else(|| A::Error::missing_field("type"))?;
        let need = |name: &'static str| A::Error::missing_field(name);
        Ok(match &*tag {
            "hello" => ExtensionToHost::Hello {
                protocol_version: protocol_version.ok_or_else(|| need("protocolVersion"))?,
                lane_id: lane_id.ok_or_else(|| need("laneId"))?,
                extension_id: extension_id.ok_or_else(|| need("extensionId"))?,
                version: version.ok_or_else(|| need("version"))?,
            },
            "response" => ExtensionToHost::Response {
                id: id.ok_or_else(|| need("id"))?,
                outcome: match (result, error) {
                    (Some(v), None) => Outcome::Result(v),
                    (None, Some(e)) => Outcome::Error(e),
                    (None, None) => {
                        return Err(A::Error::custom(
                            "a response needs a `result` or an `error` field",
                        ))
                    }
                    (Some(_), Some(_)) => {
                        return Err(A::Error::custom(
                            "a response has both a `result` and an `error` field",
                        ))
                    }
                },
            },
            "event" => ExtensionToHost::Event {
                event: event.ok_or_else(|| need("event"))?,
            },
            "socketOpen" => ExtensionToHost::SocketOpen,
            other => return Err(A::Error::unknown_variant(other, VARIANTS)),
        })
    }
}

/// A string borrowed from the input when it has no escapes, else owned.
struct CowStr<'de>(std::borrow::Cow<'de, str>);

impl<'de> Deserialize<'de> for CowStr<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = CowStr<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(CowStr(std::borrow::Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(CowStr(std::borrow::Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

/// The outcome of a command: `{"result": …}` or `{"error": …}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    /// The command succeeded.
    Result(Value),
    /// The command failed.
    Error(WireError),
}

/// An event the extension forwards to the daemon.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Event {
    /// The set of shared tabs, or one of their urls or titles, changed. The
    /// full list is sent each time.
    Shared(SharedTabs),
    /// A shared tab was closed.
    TabClosed {
        /// The closed tab.
        #[serde(rename = "tabId")]
        tab_id: TabId,
        /// Whether it closed with its window (`removeInfo.isWindowClosing`):
        /// the person closed the window, or the browser is quitting.
        #[serde(
            default,
            rename = "withWindow",
            skip_serializing_if = "std::ops::Not::not"
        )]
        with_window: bool,
    },
    /// The debugger detached from a shared tab, which is no longer shared.
    Detached {
        /// The tab that closed.
        #[serde(rename = "tabId")]
        tab_id: TabId,
        /// The browser's reason, e.g. `target_closed` or `canceled_by_user`.
        reason: String,
    },
    /// Developer mode is on or off. Sent after every hello and whenever
    /// the person flips the switch. When it turns off, the extension has
    /// already failed in-flight privileged commands and re-attached the
    /// debugger to every shared tab (clearing what raw CDP left behind).
    DeveloperMode {
        /// Whether privileged calls are allowed.
        enabled: bool,
    },
    /// A CDP event from a shared tab, for the methods in
    /// [`FORWARDED_CDP_EVENTS`] only.
    Cdp {
        /// The shared tab the event came from.
        #[serde(rename = "tabId")]
        tab_id: TabId,
        /// CDP event name.
        method: String,
        /// CDP event params.
        #[serde(default)]
        params: Value,
        /// The child session it came from (see [`Command::Cdp`]'s), none
        /// for the tab's own. A child's events are forwarded only while
        /// the daemon asked for every event of the tab.
        #[serde(default, rename = "sessionId", skip_serializing_if = "Option::is_none")]
        session: Option<String>,
    },
}

pub use crate::cdp::{ENABLED_CDP_DOMAINS, FORWARDED_CDP_EVENTS};

#[cfg(test)]
mod tests;
