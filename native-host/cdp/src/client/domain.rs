//! The browser-level messages the endpoint answers and sends itself,
//! typed as the protocol names them: the `Target` and `Browser` domains'
//! params, results and events, and the HTTP pages' bodies. What is read
//! from a client is checked against its type once ([`params`]); a field
//! missing or of the wrong type is refused as the browser refuses it.

use super::{ErrorData, ErrorKind, RpcError};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A target as `Target.getTargets` and the events describe it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct TargetInfo {
    pub(super) target_id: String,
    #[serde(rename = "type")]
    pub(super) kind: &'static str,
    pub(super) title: String,
    pub(super) url: String,
    pub(super) attached: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) opener_id: Option<String>,
    pub(super) can_access_opener: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) browser_context_id: Option<&'static str>,
}

/// An event the endpoint sends of its own (the tabs' events are the
/// browser's, relayed as they came).
#[derive(Debug, Serialize)]
#[serde(tag = "method", content = "params")]
pub(super) enum Event<'a> {
    #[serde(rename = "Target.targetCreated", rename_all = "camelCase")]
    TargetCreated { target_info: &'a TargetInfo },
    #[serde(rename = "Target.attachedToTarget", rename_all = "camelCase")]
    AttachedToTarget {
        session_id: &'a str,
        target_info: &'a TargetInfo,
        waiting_for_debugger: bool,
    },
    #[serde(rename = "Target.detachedFromTarget", rename_all = "camelCase")]
    DetachedFromTarget {
        session_id: &'a str,
        target_id: &'a str,
    },
    #[serde(rename = "Target.targetDestroyed", rename_all = "camelCase")]
    TargetDestroyed { target_id: &'a str },
}

impl Event<'_> {
    /// The message, on browser session `on` (none: the client's root).
    pub(super) fn message(&self, on: Option<&str>) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if let (Some(on), Value::Object(m)) = (on, &mut v) {
            m.insert("sessionId".into(), on.into());
        }
        v
    }
}

/// `Target.setAutoAttach`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SetAutoAttach {
    pub(super) auto_attach: bool,
    #[serde(default)]
    pub(super) wait_for_debugger_on_start: bool,
}

/// `Target.setAutoAttach` as the endpoint sends it to a tab: its frames in
/// other processes and its workers, as flat sessions.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct AutoAttachChildren {
    pub(super) auto_attach: bool,
    pub(super) wait_for_debugger_on_start: bool,
    pub(super) flatten: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) filter: Option<[TargetFilter; 2]>,
}

/// One entry of a `Target.setAutoAttach` filter.
#[derive(Debug, Serialize)]
pub(super) struct TargetFilter {
    #[serde(rename = "type")]
    pub(super) kind: &'static str,
}

impl AutoAttachChildren {
    /// Off: what another client asked for is dropped.
    pub(super) fn off() -> Self {
        AutoAttachChildren {
            auto_attach: false,
            wait_for_debugger_on_start: false,
            flatten: true,
            filter: None,
        }
    }

    /// On, for frames and workers, held at their start if `waits`.
    pub(super) fn on(waits: bool) -> Self {
        AutoAttachChildren {
            auto_attach: true,
            wait_for_debugger_on_start: waits,
            flatten: true,
            filter: Some([
                TargetFilter { kind: "iframe" },
                TargetFilter { kind: "worker" },
            ]),
        }
    }
}

/// `Target.setDiscoverTargets`.
#[derive(Debug, Deserialize)]
pub(super) struct SetDiscoverTargets {
    pub(super) discover: bool,
}

/// `Target.getTargetInfo`: none is the browser's own.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct GetTargetInfo {
    #[serde(default)]
    pub(super) target_id: Option<String>,
}

/// `Target.attachToTarget`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct AttachToTarget {
    pub(super) target_id: String,
    #[serde(default)]
    pub(super) flatten: bool,
}

/// `Target.detachFromTarget`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct DetachFromTarget {
    #[serde(default)]
    pub(super) session_id: Option<String>,
}

/// `Target.createTarget`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CreateTarget {
    #[serde(default)]
    pub(super) url: Option<String>,
    #[serde(default)]
    pub(super) browser_context_id: Option<String>,
}

/// `Target.closeTarget`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CloseTarget {
    pub(super) target_id: String,
}

/// `Browser.getVersion`'s result.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Version {
    pub(super) protocol_version: &'static str,
    pub(super) product: &'static str,
    pub(super) revision: &'static str,
    pub(super) user_agent: &'static str,
    pub(super) js_version: &'static str,
}

/// A result that names one target.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct TargetInfoResult {
    pub(super) target_info: TargetInfo,
}

/// `Target.getTargets`' result.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct TargetInfos {
    pub(super) target_infos: Vec<TargetInfo>,
}

/// `Target.getBrowserContexts`' result.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct BrowserContexts {
    pub(super) browser_context_ids: Vec<String>,
}

/// A result that names a session.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SessionResult {
    pub(super) session_id: String,
}

/// `Target.createTarget`'s result.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct TargetIdResult {
    pub(super) target_id: String,
}

/// `Target.closeTarget`'s result.
#[derive(Debug, Serialize)]
pub(super) struct Success {
    pub(super) success: bool,
}

/// A result with nothing in it.
#[derive(Debug, Serialize)]
pub(super) struct Done {}

/// `/json/version`, as Chrome serves it.
#[derive(Debug, Serialize)]
pub(super) struct VersionPage {
    #[serde(rename = "Browser")]
    pub(super) browser: &'static str,
    #[serde(rename = "Protocol-Version")]
    pub(super) protocol_version: &'static str,
    #[serde(rename = "User-Agent")]
    pub(super) user_agent: &'static str,
    #[serde(rename = "V8-Version")]
    pub(super) v8_version: &'static str,
    #[serde(rename = "WebKit-Version")]
    pub(super) webkit_version: &'static str,
    #[serde(rename = "webSocketDebuggerUrl")]
    pub(super) web_socket_debugger_url: String,
}

/// One page of `/json/list`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ListedPage {
    pub(super) description: &'static str,
    pub(super) devtools_frontend_url: &'static str,
    pub(super) id: String,
    pub(super) title: String,
    #[serde(rename = "type")]
    pub(super) kind: &'static str,
    pub(super) url: String,
}

/// A command's params as `T`; the browser's answer to ones that are not.
pub(super) fn params<T: DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    serde_json::from_value(params).map_err(|e| RpcError {
        code: -32602,
        message: format!("Invalid parameters: {e}"),
        data: ErrorData {
            kind: ErrorKind::InvalidRequest,
            dialog: None,
        },
    })
}

/// A command's result as its JSON value.
pub(super) fn result<T: Serialize>(result: &T) -> Result<Value, RpcError> {
    serde_json::to_value(result).map_err(|e| RpcError {
        code: -32603,
        message: format!("the endpoint could not write its answer: {e}"),
        data: ErrorData {
            kind: ErrorKind::CommandFailed,
            dialog: None,
        },
    })
}

#[cfg(test)]
mod tests;
