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
        /// The shared tabs a video is recorded of (the badge says `REC`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        recorded: Vec<TabId>,
    },
    /// The shared tabs whose pages may open no tab at another site now
    /// (an agent holds them, and they are shared for some sites), sent
    /// whenever that changes and after each hello; none lifts it.
    HoldOpened {
        /// Each such tab with its sites.
        tabs: Vec<OpenedHold>,
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

/// One CDP command for a shared tab, as each lane operation that sends one
/// names it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CdpCall {
    /// The shared tab.
    #[serde(rename = "tabId")]
    pub tab_id: TabId,
    /// CDP method, e.g. `Page.navigate`.
    pub method: String,
    /// CDP params object.
    pub params: Value,
}

impl CdpCall {
    /// The call of `method` with `params` on `tab`.
    pub fn new(tab: TabId, method: impl Into<String>, params: Value) -> CdpCall {
        CdpCall {
            tab_id: tab,
            method: method.into(),
            params,
        }
    }
}

/// A command the daemon asks the extension to run: each operation is named
/// by what it does to the page, which decides who may run it (its
/// [`CommandClass`], [`Command::class`]) and what the extension does
/// around the CDP call. A tab that is not shared fails `TAB_NOT_SHARED`;
/// the extension never touches other tabs. (Deserialised by hand, with the
/// same shape.)
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum Command {
    /// List the shared tabs. Result: [`SharedTabs`].
    ListShared,
    /// A read of a shared tab (capture, layout, title, the outline; class
    /// [`CommandClass::Observe`]). Result: the CDP result object.
    Observe(CdpCall),
    /// A change to the page that one of the daemon's tools makes
    /// (navigation, focus, text insertion; class [`CommandClass::Act`]).
    /// Result: the CDP result object.
    Act(CdpCall),
    /// An action aimed at a point of a capture's frame (a wheel turn, a
    /// pointer move; class [`CommandClass::Act`]): right before it, the
    /// extension reads the live viewport (`Page.getLayoutMetrics`, class
    /// observe) and, unless it [matches](FrameGeometry::matches) `frame`,
    /// answers `STALE_FRAME` without sending it. Result: the CDP result
    /// object.
    ActInFrame {
        /// The command.
        #[serde(flatten)]
        call: CdpCall,
        /// The viewport (CSS pixels) the command's coordinates were taken
        /// in.
        frame: FrameGeometry,
    },
    /// The paired release of input an agent pressed (key up, mouse up,
    /// touch end; class [`CommandClass::Release`]): it runs whoever
    /// controls the tab, once the browser answered its press. Result: the
    /// CDP result object.
    Release(CdpCall),
    /// An agent's own code or raw CDP call (developer mode; class
    /// [`CommandClass::Privileged`]), checked by the extension as
    /// [`crate::reach::check_raw_cdp`] says. Result: the CDP result
    /// object, or with a `scan` a [`Scanned`].
    Developer {
        /// The command.
        #[serde(flatten)]
        call: CdpCall,
        /// A child session of the tab's debugger session (a frame in
        /// another process, a worker) that a `Target.attachedToTarget`
        /// event of the tab named: the command (and its scan) goes there,
        /// checked as [`crate::reach::check_child_cdp`] says.
        #[serde(default, rename = "sessionId", skip_serializing_if = "Option::is_none")]
        session: Option<String>,
        /// The expression of the daemon's redaction scan, which the
        /// extension evaluates (`returnByValue`, class observe) in the same
        /// place as soon as the command succeeds, in the same trip: the
        /// answer is then a [`Scanned`], and a failed command fails the
        /// whole without the scan. When the command is a
        /// `Runtime.evaluate` or `Runtime.callFunctionOn` (the page's main
        /// thread runs it in order with the scan), the scan may be sent
        /// right behind it, its answer counting only if the browser
        /// answered the command first (otherwise it is sent again); and a
        /// result that holds no text (no exception; a number, a boolean, a
        /// bigint, undefined or null) is answered without it, the scan's
        /// outcome an error that says so.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scan: Option<String>,
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
    /// extension pairs these presses, not the daemon. Once the events
    /// answered, it makes one trip through the page's main thread
    /// ([`SETTLE_EXPRESSION`], class observe) before the answer, so that
    /// every report the page made before it reached the daemon ahead of
    /// the answer; that trip's outcome is not reported, but for
    /// `TAB_NOT_SHARED`. Result: the last event's CDP result.
    Input {
        /// The shared tab.
        #[serde(rename = "tabId")]
        tab_id: TabId,
        /// The events, in order.
        events: Vec<InputEvent>,
        /// As [`Command::ActInFrame`]'s: checked before the first event.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        frame: Option<FrameGeometry>,
    },
    /// Aim at an element in one trip ([`aim`]): bring it into view and
    /// find its quads, the viewport and, if asked, a point on it that
    /// hits it. Result: [`Aimed`].
    Aim(Aim),
    /// Open a new tab in the window of the shared tabs (the last focused
    /// window when none is shared) and share it. Result: its [`TabInfo`].
    CreateTab {
        /// An `http:`/`https:` url (checked by the daemon and again by the
        /// extension); `about:blank` when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    /// Close a shared tab. Result: `{}`.
    CloseTab {
        /// The shared tab to close.
        #[serde(rename = "tabId")]
        tab_id: TabId,
    },
    /// Forward every CDP event of a shared tab (`all`), not only those of
    /// [`FORWARDED_CDP_EVENTS`], until `all` is false or the debugger
    /// session ends. Result: `{}`.
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CommandClass {
    /// Reads state (capture, layout, title); always allowed on a shared tab.
    Observe,
    /// Changes the page (input, navigation); refused with
    /// `HUMAN_HAS_CONTROL` while the person controls the tab.
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

impl<'de> Deserialize<'de> for HostToExtension {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut t = Tagged::read(d, "type")?;
        Ok(match t.tag.as_str() {
            "welcome" => HostToExtension::Welcome {
                protocol_version: t.field("protocolVersion")?,
            },
            "controllers" => HostToExtension::Controllers {
                tabs: t.field("tabs")?,
                recorded: t.field_or_default("recorded")?,
            },
            "holdOpened" => HostToExtension::HoldOpened {
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
                    "holdOpened",
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
        let call = |t: &mut Tagged| -> Result<CdpCall, D::Error> {
            Ok(CdpCall {
                tab_id: t.field("tabId")?,
                method: t.field("method")?,
                params: t.field_or_default("params")?,
            })
        };
        Ok(match t.tag.as_str() {
            "listShared" => Command::ListShared,
            "observe" => Command::Observe(call(&mut t)?),
            "act" => Command::Act(call(&mut t)?),
            "actInFrame" => Command::ActInFrame {
                call: call(&mut t)?,
                frame: t.field("frame")?,
            },
            "release" => Command::Release(call(&mut t)?),
            "developer" => Command::Developer {
                call: call(&mut t)?,
                session: t.field_or_default("sessionId")?,
                scan: t.field_or_default("scan")?,
            },
            "input" => Command::Input {
                tab_id: t.field("tabId")?,
                events: t.field("events")?,
                frame: t.field_or_default("frame")?,
            },
            "aim" => Command::Aim(Aim {
                tab_id: t.field("tabId")?,
                backend_node_id: t.field("backendNodeId")?,
                class: [CommandClass::Observe, CommandClass::Act]
                    [t.one_of("class", &["observe", "act"])?],
                point: AimPoint::ALL[t.one_of("point", &["none", "centre", "hit"])?],
            }),
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
                    "observe",
                    "act",
                    "actInFrame",
                    "release",
                    "developer",
                    "input",
                    "aim",
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
            Command::ListShared => "listShared",
            Command::Input { .. } => "input",
            Command::Aim(_) => "aim",
            Command::CreateTab { .. } => "createTab",
            Command::CloseTab { .. } => "closeTab",
            Command::ForwardEvents { .. } => "forwardEvents",
            _ => self.call().map_or("", |c| &c.method),
        }
    }

    /// The CDP call of an operation that sends one.
    pub fn call(&self) -> Option<&CdpCall> {
        match self {
            Command::Observe(call)
            | Command::Act(call)
            | Command::ActInFrame { call, .. }
            | Command::Release(call)
            | Command::Developer { call, .. } => Some(call),
            _ => None,
        }
    }

    /// The class of an operation that sends one CDP call: what decides who
    /// may run it. ([`Command::Input`]'s events each have their own,
    /// [`InputEvent::class`].)
    pub fn class(&self) -> Option<CommandClass> {
        match self {
            Command::Observe(_) => Some(CommandClass::Observe),
            Command::Act(_) | Command::ActInFrame { .. } => Some(CommandClass::Act),
            Command::Release(_) => Some(CommandClass::Release),
            Command::Developer { .. } => Some(CommandClass::Privileged),
            _ => None,
        }
    }

    /// The operation that sends `call` with `class` and nothing around it:
    /// [`Command::Observe`], [`Command::Act`], [`Command::Release`], or a
    /// [`Command::Developer`] call without child session or scan.
    pub fn plain(call: CdpCall, class: CommandClass) -> Command {
        match class {
            CommandClass::Observe => Command::Observe(call),
            CommandClass::Act => Command::Act(call),
            CommandClass::Release => Command::Release(call),
            CommandClass::Privileged => Command::Developer {
                call,
                session: None,
                scan: None,
            },
        }
    }
}

/// Whether the page's main thread runs a [`Command::Developer`] call of
/// `method` in order with its scan (an evaluation, a function called on an
/// object, as Playwright's and Puppeteer's are): the scan may then go right
/// behind it, and a result of it that holds no text needs none.
pub fn runs_in_order_with_scan(method: &str) -> bool {
    matches!(method, "Runtime.evaluate" | "Runtime.callFunctionOn")
}

/// The expression of the trip through the page that a [`Command::Input`]
/// and the daemon make: nothing to compute, only the trip.
pub const SETTLE_EXPRESSION: &str = "0";

/// The result of a [`Command::Developer`] with a scan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scanned {
    /// The command's CDP result.
    pub result: Value,
    /// What came of the scan.
    pub scan: Outcome,
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
    /// The browser blocked the first request of a tab a page of `tab_id`
    /// opened, to `url`, outside the sites the daemon named for it
    /// ([`HostToExtension::HoldOpened`]).
    OpenedRefused {
        /// The shared tab whose page opened it.
        #[serde(rename = "tabId")]
        tab_id: TabId,
        /// The tab it opened.
        opened: TabId,
        /// Where the blocked request went.
        url: String,
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
        /// The child session it came from (see [`Command::Developer`]'s), none
        /// for the tab's own. A child's events are forwarded only while
        /// the daemon asked for every event of the tab.
        #[serde(default, rename = "sessionId", skip_serializing_if = "Option::is_none")]
        session: Option<String>,
    },
}

pub use crate::cdp::{ENABLED_CDP_DOMAINS, FORWARDED_CDP_EVENTS};

pub mod aim;
pub use aim::{Aim, AimPoint, Aimed};
mod control;
pub use control::{Holder, OpenedHold, TabControl};

#[cfg(test)]
mod tests;
