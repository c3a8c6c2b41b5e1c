//! Test-only proptest strategies for the decoders' property tests: JSON
//! values shaped like cotab's messages (their tags and field names, nested
//! a little) and bytes that are almost JSON. Not compiled outside tests.

use proptest::prelude::*;
use serde_json::{Map, Value};

/// Field names and tag values of both links, so generated objects reach
/// deep into the deserialisers instead of failing at the first key.
pub(crate) const WORDS: &[&str] = &[
    "type",
    "id",
    "command",
    "op",
    "tabId",
    "method",
    "params",
    "class",
    "url",
    "event",
    "kind",
    "tabs",
    "holder",
    "name",
    "result",
    "error",
    "message",
    "protocolVersion",
    "laneId",
    "extensionId",
    "version",
    "jsonrpc",
    "2.0",
    "code",
    "data",
    "enabled",
    "reason",
    "title",
    "humanControl",
    "welcome",
    "socketOffer",
    "agents",
    "names",
    "socketSwitched",
    "socketOpen",
    "controllers",
    "request",
    "hello",
    "response",
    "cdp",
    "listShared",
    "actInFrame",
    "developer",
    "scan",
    "input",
    "events",
    "frame",
    "createTab",
    "closeTab",
    "forwardEvents",
    "all",
    "shared",
    "tabClosed",
    "detached",
    "developerMode",
    "agent",
    "human",
    "nobody",
    "observe",
    "act",
    "release",
    "privileged",
    "tab.updated",
    "tab.closed",
    "control.revoked",
    "dialog.opened",
    "developerMode.changed",
    "lane.offline",
    "lane.online",
    "TAB_NOT_SHARED",
    "INVALID_REQUEST",
    "BUSY",
    "text",
    "key",
    "ref",
    "x",
    "y",
    "element",
    "format",
    "quality",
    "expression",
    "modifiers",
    "button",
    "clickCount",
    "timeoutMs",
    "values",
    "from",
    "to",
    "files",
    "accept",
    "promptText",
    "action",
    "agent",
    "ticket",
    "until",
    "expect",
    "frameId",
    "deltaX",
    "deltaY",
    "checked",
    "since",
    "limit",
    "maxWidth",
    "fullPage",
];

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(WORDS).prop_map(str::to_string),
        1 => "[a-zA-Z0-9._ \\\\\"\u{e9}\u{1f600}-]{0,8}",
    ]
}

/// Any JSON value, biased towards cotab's shapes.
pub(crate) fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        word().prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((word(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// An object with `tag` set to one of the words, plus random members.
pub(crate) fn tagged(tag: &'static str) -> impl Strategy<Value = Value> {
    (
        proptest::sample::select(WORDS),
        proptest::collection::vec((word(), json()), 0..6),
    )
        .prop_map(move |(t, kv)| {
            let mut m: Map<String, Value> = kv.into_iter().collect();
            m.insert(tag.into(), Value::from(t));
            Value::Object(m)
        })
}

/// Bytes of a JSON text with random damage (cut, byte flipped, bytes
/// inserted), or plain random bytes.
pub(crate) fn almost_json() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..64),
        (json(), any::<prop::sample::Index>(), any::<u8>(), 0u8..3).prop_map(|(v, at, b, how)| {
            let mut bytes = v.to_string().into_bytes();
            if bytes.is_empty() {
                return bytes;
            }
            let i = at.index(bytes.len());
            match how {
                0 => bytes.truncate(i),
                1 => bytes[i] = b,
                _ => bytes.insert(i, b),
            }
            bytes
        }),
    ]
}

/// `depth` unclosed `[`, then `tail`.
pub(crate) fn nested(depth: usize, tail: &str) -> String {
    let mut s = "[".repeat(depth);
    s.push_str(tail);
    s
}
