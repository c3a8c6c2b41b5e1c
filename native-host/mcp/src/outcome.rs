//! What a tool comes to: its output for the model ([`ToolOutput`]), or
//! its failure, led by the broker's error kind ([`ToolFailure`]).

use super::answers::ANSWER_A_DIALOG;
use cotab_client::ClientError;
use cotab_shared::controller::{ErrorData, RpcError};
use cotab_shared::ErrorKind;

/// What a tool answers when it worked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolOutput {
    /// Markdown for the model.
    pub(crate) text: String,
    /// An image: base64 data and its MIME type.
    pub(crate) image: Option<(String, &'static str)>,
}

impl ToolOutput {
    pub(crate) fn text(text: String) -> Self {
        ToolOutput { text, image: None }
    }
}

/// A failed tool: the broker's error kind (when it has one) and a message.
/// Shown to the model as `KIND: message`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{message}", kind.map(|k| format!("{k}: ")).unwrap_or_default())]
pub(crate) struct ToolFailure {
    /// The broker's kind.
    pub(crate) kind: Option<ErrorKind>,
    /// What went wrong.
    pub(crate) message: String,
}

impl ToolFailure {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ToolFailure {
            kind: Some(kind),
            message: message.into(),
        }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        ToolFailure::new(ErrorKind::InvalidRequest, message)
    }
}

impl From<ClientError> for ToolFailure {
    fn from(e: ClientError) -> Self {
        match e {
            // A dialog that blocks the tab is answered with a tool.
            ClientError::Rpc(RpcError {
                data:
                    ErrorData {
                        kind: ErrorKind::DialogOpen,
                        dialog: Some(d),
                    },
                ..
            }) => ToolFailure::new(
                ErrorKind::DialogOpen,
                RpcError::dialog_open(d, ANSWER_A_DIALOG).message,
            ),
            ClientError::Rpc(e) => ToolFailure::new(e.kind(), e.message),
            ClientError::Closed | ClientError::Io(_) => ToolFailure {
                kind: None,
                message: "the connection to the cotab daemon was lost; restart the MCP server"
                    .into(),
            },
            other => ToolFailure {
                kind: None,
                message: other.to_string(),
            },
        }
    }
}
