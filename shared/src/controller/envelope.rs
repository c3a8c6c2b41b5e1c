//! The JSON-RPC 2.0 envelope of the controller link: the error codes, a
//! request line decoded into an [`Envelope`] (its params still raw), the
//! error object, the response and the request line as a client writes it,
//! and the [`Method`] trait that ties a method's name to its types.

use super::DialogInfo;
use crate::error::{ErrorKind, WireError};
use crate::ids::RequestId;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

/// JSON-RPC error code: the line is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC error code: JSON, but not a request object.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC error code: no such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC error code: the params do not fit the method.
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC error code for every cotab error with a kind in `data.kind`.
pub const SERVER_ERROR: i64 = -32000;

/// A method of the controller protocol.
pub trait Method {
    /// The wire name, e.g. `tabs.list`.
    const NAME: &'static str;
    /// The params object.
    type Params: Serialize + DeserializeOwned;
    /// The result object.
    type Result: Serialize + DeserializeOwned;
}

/// One decoded request line, params still raw.
#[derive(Debug, Deserialize)]
pub struct Envelope<'a> {
    /// Must be `"2.0"`.
    pub jsonrpc: String,
    /// Absent for a notification (which gets no answer); `"id": null` is
    /// a request, [`RequestId::Null`].
    #[serde(default, deserialize_with = "present_id")]
    pub id: Option<RequestId>,
    /// Method name.
    pub method: String,
    /// Params, decoded later by [`Call::parse`](super::Call::parse).
    #[serde(borrow, default)]
    pub params: Option<&'a RawValue>,
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    /// JSON-RPC code.
    pub code: i64,
    /// Message for a person; never echoes submitted values.
    pub message: String,
    /// `{"kind": "…"}`, and for `DIALOG_OPEN` the dialog.
    pub data: ErrorData,
}

/// The `data` member of every cotab error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorData {
    /// Stable machine-readable kind.
    pub kind: ErrorKind,
    /// For `DIALOG_OPEN`: the dialog that is open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<DialogInfo>,
}

impl RpcError {
    /// An error with an explicit JSON-RPC code.
    pub fn new(code: i64, kind: ErrorKind, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: ErrorData { kind, dialog: None },
        }
    }

    /// `DIALOG_OPEN`: `dialog` is open on the tab, and `next` says how to
    /// answer it, in the caller's terms (`page.dialog` on the protocol).
    pub fn dialog_open(dialog: DialogInfo, next: &str) -> Self {
        let mut e = RpcError::new(
            SERVER_ERROR,
            ErrorKind::DialogOpen,
            format!("{} is open on this tab: {next}", dialog.describe()),
        );
        e.data.dialog = Some(dialog);
        e
    }

    /// The error's kind.
    pub fn kind(&self) -> ErrorKind {
        self.data.kind
    }
}

impl From<WireError> for RpcError {
    fn from(e: WireError) -> Self {
        RpcError::new(SERVER_ERROR, e.kind, e.message)
    }
}

/// Decodes one line into an envelope. `Err` carries the error response's
/// id (when one could be read) and the error.
pub fn decode_line(line: &str) -> Result<Envelope<'_>, (Option<RequestId>, RpcError)> {
    let raw: &RawValue = serde_json::from_str(line).map_err(|_| {
        (
            None,
            RpcError::new(
                PARSE_ERROR,
                ErrorKind::InvalidRequest,
                "parse error: the line is not valid JSON",
            ),
        )
    })?;
    let invalid = |id| {
        (
            id,
            RpcError::new(
                INVALID_REQUEST,
                ErrorKind::InvalidRequest,
                "invalid request: expected an object with jsonrpc \"2.0\", method and optional id and params",
            ),
        )
    };
    match serde_json::from_str::<Envelope<'_>>(raw.get()) {
        Ok(env) if env.jsonrpc == "2.0" => Ok(env),
        Ok(env) => Err(invalid(env.id)),
        Err(_) => {
            // Salvage the id, if any, so the client can match the error.
            #[derive(Deserialize)]
            struct IdOnly {
                #[serde(default, deserialize_with = "present_id")]
                id: Option<RequestId>,
            }
            let id = serde_json::from_str::<IdOnly>(raw.get())
                .ok()
                .and_then(|i| i.id);
            Err(invalid(id))
        }
    }
}

/// An `id` member that is there, `null` included: serde's `Option` would
/// read `null` as absent, which turns a request into a notification.
fn present_id<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<RequestId>, D::Error> {
    RequestId::deserialize(d).map(Some)
}

/// A successful or failed response line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response<R = Value> {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    /// The request's id, or null when it could not be read.
    pub id: Option<RequestId>,
    /// What came of the request.
    #[serde(flatten)]
    pub outcome: RpcOutcome<R>,
}

/// `{"result": …}` or `{"error": …}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RpcOutcome<R = Value> {
    /// Success.
    Result(R),
    /// Failure.
    Error(RpcError),
}

impl Response {
    /// A success response.
    pub fn ok(id: Option<RequestId>, result: Value) -> Self {
        Response {
            jsonrpc: "2.0".into(),
            id,
            outcome: RpcOutcome::Result(result),
        }
    }

    /// An error response.
    pub fn err(id: Option<RequestId>, error: RpcError) -> Self {
        Response {
            jsonrpc: "2.0".into(),
            id,
            outcome: RpcOutcome::Error(error),
        }
    }
}

/// A request line as a client writes it.
#[derive(Debug, Clone, Serialize)]
pub struct OutgoingRequest<'a, P> {
    /// Always `"2.0"`.
    pub jsonrpc: &'static str,
    /// Correlates the response.
    pub id: RequestId,
    /// Method name.
    pub method: &'a str,
    /// Params object.
    pub params: &'a P,
}
