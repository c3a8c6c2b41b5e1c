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
    /// What the person's host config lets agents reach besides web pages,
    /// sent after each hello and whenever the config changes: the local
    /// directories whose files may be shared and driven (`fileDirs`).
    Policy {
        /// The directories ([`crate::reach::LocalFiles`]).
        #[serde(rename = "fileDirs")]
        file_dirs: crate::reach::LocalFiles,
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
    },
    /// Input events for a shared tab, in one trip over the native link:
    /// a click's move, press and release. The extension checks them first
    /// ([`check_input_events`]: `INVALID_REQUEST`, nothing sent), then
    /// sends them in order, each once the one before answered (a release
    /// as [`CommandClass::Release`], the others as [`CommandClass::Act`]).
    /// The first failure ends the command and is its answer, but only
    /// after the releases still due went out: each later release in the
    /// list whose press the page may hold (the extension's ledger holds
    /// it). So the extension pairs these presses, not the daemon. Result:
    /// the last event's CDP result.
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
        /// The tab.
        #[serde(rename = "tabId")]
        tab_id: TabId,
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
            "policy" => HostToExtension::Policy {
                file_dirs: t.field("fileDirs")?,
            },
            "request" => HostToExtension::Request {
                id: t.field("id")?,
                command: t.field("command")?,
            },
            _ => return Err(t.unknown(&["welcome", "controllers", "policy", "request"])),
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
            },
            "input" => Command::Input {
                tab_id: t.field("tabId")?,
                events: t.field("events")?,
                if_viewport: t.field_or_default("ifViewport")?,
            },
            "createTab" => Command::CreateTab {
                url: t.field_or_default("url")?,
            },
            "closeTab" => Command::CloseTab {
                tab_id: t.field("tabId")?,
            },
            _ => return Err(t.unknown(&["listShared", "cdp", "input", "createTab", "closeTab"])),
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
}

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
    /// The tab.
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
        /// The extension id.
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
        const VARIANTS: &[&str] = &["hello", "response", "event"];
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
    },
    /// The debugger detached from a shared tab, which is no longer shared.
    Detached {
        /// The tab.
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
        /// The tab.
        #[serde(rename = "tabId")]
        tab_id: TabId,
        /// CDP event name.
        method: String,
        /// CDP event params.
        #[serde(default)]
        params: Value,
    },
}

pub use crate::cdp::{ENABLED_CDP_DOMAINS, FORWARDED_CDP_EVENTS};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use proptest::prelude::*;
    use serde_json::json;

    fn round_trip<T>(value: &T, golden: Value)
    where
        T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
    {
        assert_eq!(serde_json::to_value(value).expect("serialises"), golden);
        let back: T = serde_json::from_value(golden).expect("deserialises");
        assert_eq!(&back, value);
    }

    #[test]
    fn hello_golden() {
        round_trip(
            &ExtensionToHost::Hello {
                protocol_version: 1,
                lane_id: LaneId("lane-1".into()),
                extension_id: crate::EXTENSION_ID.into(),
                version: "0.1.0".into(),
            },
            json!({"type":"hello","protocolVersion":1,"laneId":"lane-1",
                   "extensionId":crate::EXTENSION_ID,"version":"0.1.0"}),
        );
    }

    #[test]
    fn command_names_are_the_method_or_the_op() {
        let cdp = Command::Cdp {
            tab_id: TabId(1),
            method: "Page.reload".into(),
            params: Value::Null,
            class: CommandClass::Act,
            then: None,
            if_viewport: None,
        };
        assert_eq!(cdp.name(), "Page.reload");
        assert_eq!(Command::ListShared.name(), "listShared");
        let input = Command::Input {
            tab_id: TabId(1),
            events: Vec::new(),
            if_viewport: None,
        };
        assert_eq!(input.name(), "input");
        assert_eq!(Command::CreateTab { url: None }.name(), "createTab");
        assert_eq!(Command::CloseTab { tab_id: TabId(1) }.name(), "closeTab");
    }

    #[test]
    fn request_golden() {
        round_trip(
            &HostToExtension::Request {
                id: 7,
                command: Command::Cdp {
                    tab_id: TabId(3),
                    method: "Page.navigate".into(),
                    params: json!({"url":"http://127.0.0.1/"}),
                    class: CommandClass::Act,
                    then: None,
                    if_viewport: None,
                },
            },
            json!({"type":"request","id":7,"command":{"op":"cdp","tabId":3,
                   "method":"Page.navigate","params":{"url":"http://127.0.0.1/"},"class":"act"}}),
        );
        // A follow-up rides in the same request; its result is a
        // `ThenResult` in the response.
        round_trip(
            &HostToExtension::Request {
                id: 8,
                command: Command::Cdp {
                    tab_id: TabId(3),
                    method: "Runtime.evaluate".into(),
                    params: json!({"expression":"1+1"}),
                    class: CommandClass::Privileged,
                    then: Some(FollowUp {
                        method: "Runtime.evaluate".into(),
                        params: json!({"expression":"scan()"}),
                        overlap: true,
                    }),
                    if_viewport: None,
                },
            },
            json!({"type":"request","id":8,"command":{"op":"cdp","tabId":3,
                   "method":"Runtime.evaluate","params":{"expression":"1+1"},"class":"privileged",
                   "then":{"method":"Runtime.evaluate","params":{"expression":"scan()"},
                           "overlap":true}}}),
        );
        // Input aimed at a capture's frame names the frame's viewport.
        round_trip(
            &HostToExtension::Request {
                id: 9,
                command: Command::Cdp {
                    tab_id: TabId(3),
                    method: "Input.dispatchMouseEvent".into(),
                    params: json!({"type":"mouseMoved","x":10,"y":20}),
                    class: CommandClass::Act,
                    then: None,
                    if_viewport: Some(FrameGeometry {
                        viewport_width: 1280.0,
                        viewport_height: 720.0,
                        scroll_x: 0.0,
                        scroll_y: 96.5,
                    }),
                },
            },
            json!({"type":"request","id":9,"command":{"op":"cdp","tabId":3,
                   "method":"Input.dispatchMouseEvent","params":{"type":"mouseMoved","x":10,"y":20},
                   "class":"act","ifViewport":{"viewportWidth":1280.0,"viewportHeight":720.0,
                                               "scrollX":0.0,"scrollY":96.5}}}),
        );
        // A click in one trip: its events, the first checked against the
        // frame's viewport.
        round_trip(
            &HostToExtension::Request {
                id: 10,
                command: Command::Input {
                    tab_id: TabId(3),
                    events: vec![
                        InputEvent::new(
                            "Input.dispatchMouseEvent",
                            json!({"type":"mouseMoved","x":10,"y":20}),
                        ),
                        InputEvent::new(
                            "Input.dispatchMouseEvent",
                            json!({"type":"mousePressed","x":10,"y":20,"button":"left"}),
                        ),
                    ],
                    if_viewport: None,
                },
            },
            json!({"type":"request","id":10,"command":{"op":"input","tabId":3,"events":[
                   {"method":"Input.dispatchMouseEvent","params":{"type":"mouseMoved","x":10,"y":20}},
                   {"method":"Input.dispatchMouseEvent",
                    "params":{"type":"mousePressed","x":10,"y":20,"button":"left"}}]}}),
        );
        round_trip(
            &ThenResult {
                result: json!({"result":{"value":2}}),
                then: Outcome::Error(WireError::new(ErrorKind::CommandFailed, "gone")),
            },
            json!({"result":{"result":{"value":2}},
                   "then":{"error":{"kind":"COMMAND_FAILED","message":"gone"}}}),
        );
        // A command without a class is an action (the strictest
        // non-privileged class).
        let back: HostToExtension = serde_json::from_value(json!({"type":"request","id":1,
            "command":{"op":"cdp","tabId":3,"method":"Page.reload"}}))
        .expect("deserialises");
        assert!(matches!(
            back,
            HostToExtension::Request {
                command: Command::Cdp {
                    class: CommandClass::Act,
                    ..
                },
                ..
            }
        ));
        round_trip(
            &HostToExtension::Controllers {
                tabs: vec![
                    TabControl {
                        tab_id: TabId(3),
                        holder: Holder::Agent { name: "a".into() },
                    },
                    TabControl {
                        tab_id: TabId(4),
                        holder: Holder::Human,
                    },
                ],
            },
            json!({"type":"controllers","tabs":[
                {"tabId":3,"holder":{"kind":"agent","name":"a"}},
                {"tabId":4,"holder":{"kind":"human"}}]}),
        );
        round_trip(
            &HostToExtension::Request {
                id: 8,
                command: Command::ListShared,
            },
            json!({"type":"request","id":8,"command":{"op":"listShared"}}),
        );
        round_trip(
            &HostToExtension::Request {
                id: 9,
                command: Command::CreateTab {
                    url: Some("http://127.0.0.1/".into()),
                },
            },
            json!({"type":"request","id":9,"command":{"op":"createTab","url":"http://127.0.0.1/"}}),
        );
        round_trip(
            &HostToExtension::Request {
                id: 10,
                command: Command::CloseTab { tab_id: TabId(5) },
            },
            json!({"type":"request","id":10,"command":{"op":"closeTab","tabId":5}}),
        );
        for (method, params) in ENABLED_CDP_DOMAINS {
            assert!(method.contains('.'));
            assert!(serde_json::from_str::<Value>(params).is_ok_and(|v| v.is_object()));
        }
        round_trip(
            &HostToExtension::Welcome {
                protocol_version: 1,
            },
            json!({"type":"welcome","protocolVersion":1}),
        );
        round_trip(
            &HostToExtension::Policy {
                file_dirs: crate::reach::LocalFiles(vec!["/home/ada/site".into()]),
            },
            json!({"type":"policy","fileDirs":["/home/ada/site"]}),
        );
    }

    #[test]
    fn response_golden() {
        round_trip(
            &ExtensionToHost::Response {
                id: 7,
                outcome: Outcome::Result(json!({"frameId":"F"})),
            },
            json!({"type":"response","id":7,"result":{"frameId":"F"}}),
        );
        round_trip(
            &ExtensionToHost::Response {
                id: 9,
                outcome: Outcome::Error(WireError::new(
                    ErrorKind::TabNotShared,
                    "tab 4 is not shared",
                )),
            },
            json!({"type":"response","id":9,"error":{"kind":"TAB_NOT_SHARED",
                   "message":"tab 4 is not shared"}}),
        );
    }

    #[test]
    fn responses_read_in_any_field_order_and_refuse_ambiguity() {
        let read = |v: Value| serde_json::from_str::<ExtensionToHost>(&v.to_string());
        assert_eq!(
            read(json!({"result": null, "id": 3, "type": "response"})).expect("reads"),
            ExtensionToHost::Response {
                id: 3,
                outcome: Outcome::Result(Value::Null)
            }
        );
        // An escaped tag and unknown fields.
        let escaped = r#"{"type":"respons\u0065","id":3,"result":1,"x":[1]}"#;
        assert!(serde_json::from_str::<ExtensionToHost>(escaped).is_ok());
        let refused = |v: Value, says: &str| {
            let e = read(v).expect_err("refused").to_string();
            assert!(e.contains(says), "{e}");
        };
        refused(
            json!({"type": "response", "id": 3}),
            "`result` or an `error`",
        );
        refused(
            json!({"type": "response", "id": 3, "result": 1, "error": {"kind": "TIMEOUT", "message": "m"}}),
            "both",
        );
        refused(
            json!({"type": "response", "result": 1}),
            "missing field `id`",
        );
        refused(
            json!({"type": "hello", "protocolVersion": 2}),
            "missing field `laneId`",
        );
        refused(json!({"id": 1, "result": 1}), "missing field `type`");
        refused(json!({"type": "later", "id": 1}), "unknown variant `later`");
        refused(json!({"type": 7}), "invalid type");
        refused(
            json!({"type": "response", "id": -1, "result": 1}),
            "invalid value",
        );
        refused(json!([1, 2]), "invalid type");
        let twice = r#"{"type":"response","id":1,"id":2,"result":1}"#;
        let e = serde_json::from_str::<ExtensionToHost>(twice).expect_err("refused");
        assert!(e.to_string().contains("duplicate field `id`"), "{e}");
    }

    #[test]
    fn event_golden() {
        round_trip(
            &ExtensionToHost::Event {
                event: Event::Shared(SharedTabs {
                    tabs: vec![TabInfo {
                        id: TabId(1),
                        url: "http://a/".into(),
                        title: "A".into(),
                        human_control: true,
                        blocked: None,
                        opener: Some(TabId(3)),
                    }],
                }),
            },
            json!({"type":"event","event":{"kind":"shared","tabs":[{"id":1,"url":"http://a/",
                   "title":"A","humanControl":true,"openerTabId":3}]}}),
        );
        round_trip(
            &ExtensionToHost::Event {
                event: Event::DeveloperMode { enabled: false },
            },
            json!({"type":"event","event":{"kind":"developerMode","enabled":false}}),
        );
        round_trip(
            &ExtensionToHost::Event {
                event: Event::Detached {
                    tab_id: TabId(2),
                    reason: "target_closed".into(),
                },
            },
            json!({"type":"event","event":{"kind":"detached","tabId":2,"reason":"target_closed"}}),
        );
        round_trip(
            &ExtensionToHost::Event {
                event: Event::Cdp {
                    tab_id: TabId(2),
                    method: "Page.loadEventFired".into(),
                    params: json!({"timestamp":1.5}),
                },
            },
            json!({"type":"event","event":{"kind":"cdp","tabId":2,
                   "method":"Page.loadEventFired","params":{"timestamp":1.5}}}),
        );
    }

    #[test]
    fn frame_limits() {
        assert_eq!(frame_len(0u32.to_ne_bytes(), 10), Err(FrameError::Empty));
        assert_eq!(frame_len(10u32.to_ne_bytes(), 10), Ok(10));
        assert_eq!(
            frame_len(11u32.to_ne_bytes(), 10),
            Err(FrameError::TooLarge { len: 11, limit: 10 })
        );
        assert!(matches!(
            frame_len(u32::MAX.to_ne_bytes(), crate::limits::MAX_EXTENSION_TO_HOST),
            Err(FrameError::TooLarge { .. })
        ));
        assert_eq!(encode_frame(b"", 10), Err(FrameError::Empty));
        assert_eq!(encode_frame(&[b'1'; 10], 10).map(|f| f.len()), Ok(14));
        assert!(encode_frame(&[b'1'; 11], 10).is_err());
    }

    proptest! {
        #[test]
        fn frame_round_trip(payload in proptest::collection::vec(any::<u8>(), 1..4096)) {
            let frame = encode_frame(&payload, 4096).expect("within limit");
            let header: [u8; 4] = frame[..4].try_into().expect("four bytes");
            let len = frame_len(header, 4096).expect("valid header");
            prop_assert_eq!(&frame[4..4 + len], &payload[..]);
        }
    }

    /// Every deserialiser of the native link, fed anything, returns a
    /// value or an error and never panics; what it accepts serialises and
    /// reads back to the same value.
    mod bad_input {
        use super::*;
        use crate::arbitrary::{almost_json, json, nested, tagged};

        fn survives<T>(bytes: &[u8])
        where
            T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
        {
            if let Ok(msg) = serde_json::from_slice::<T>(bytes) {
                let text = serde_json::to_string(&msg).expect("serialises");
                serde_json::from_str::<T>(&text).expect("reads back");
            }
        }

        fn round_trips<T>(v: Value) -> Result<(), TestCaseError>
        where
            T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
        {
            if let Ok(msg) = serde_json::from_value::<T>(v) {
                let again = serde_json::to_value(&msg).expect("serialises");
                let back: T = serde_json::from_value(again).expect("reads back");
                prop_assert_eq!(back, msg);
            }
            Ok(())
        }

        #[test]
        fn deep_nesting_is_a_typed_error_not_a_stack_overflow() {
            // Issue 5: serde_json's recursion limit refuses it at depth 128.
            let deep = nested(100_000, "");
            let event = format!(
                r#"{{"type":"event","event":{{"kind":"cdp","tabId":1,"method":"m","params":{deep}}}}}"#
            );
            // A bare array is refused at its first byte; the same depth
            // inside a member reaches the recursion limit.
            assert!(serde_json::from_str::<ExtensionToHost>(&deep).is_err());
            assert!(serde_json::from_str::<HostToExtension>(&deep).is_err());
            let e = serde_json::from_str::<ExtensionToHost>(&event).expect_err("refused");
            assert!(e.to_string().contains("recursion limit"), "{e}");
            let request = format!(
                r#"{{"type":"request","id":1,"command":{{"op":"cdp","tabId":1,"method":"m","params":{deep}}}}}"#
            );
            let e = serde_json::from_str::<HostToExtension>(&request).expect_err("refused");
            assert!(e.to_string().contains("recursion limit"), "{e}");
        }

        #[test]
        fn invalid_utf8_is_a_typed_error() {
            let bytes = b"{\"type\":\"hello\",\"version\":\"\xff\"}";
            assert!(serde_json::from_slice::<ExtensionToHost>(bytes).is_err());
        }

        proptest! {
            #[test]
            fn any_bytes_never_panic(bytes in almost_json()) {
                survives::<HostToExtension>(&bytes);
                survives::<ExtensionToHost>(&bytes);
            }

            #[test]
            fn message_shaped_json_never_panics_and_round_trips(
                msg in tagged("type"),
                command in tagged("op"),
                event in tagged("kind"),
            ) {
                let mut with_parts = msg.clone();
                if let Value::Object(m) = &mut with_parts {
                    m.insert("command".into(), command);
                    m.insert("event".into(), event);
                }
                for v in [msg, with_parts] {
                    round_trips::<HostToExtension>(v.clone())?;
                    round_trips::<ExtensionToHost>(v.clone())?;
                    survives::<HostToExtension>(v.to_string().as_bytes());
                    survives::<ExtensionToHost>(v.to_string().as_bytes());
                }
            }

            #[test]
            fn any_json_never_panics(v in json()) {
                round_trips::<HostToExtension>(v.clone())?;
                round_trips::<ExtensionToHost>(v)?;
            }
        }
    }
}
