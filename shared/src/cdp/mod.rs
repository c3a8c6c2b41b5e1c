//! The CDP commands and events cotab speaks, typed: for each command its
//! method name, its params and the part of its result cotab reads; for
//! each event its name and the fields cotab reads.
//!
//! CDP is the browser's protocol, not cotab's: these types follow the
//! browser's names (`backendNodeId`, `cssVisualViewport`) and read only
//! what cotab uses, ignoring the rest. A field the browser may leave out is
//! optional here, so an answer is judged by the code that reads it (with
//! its own error), not refused whole.

use crate::error::{ErrorKind, WireError};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A CDP command: its method, its params (the value itself) and its
/// result.
pub trait CdpCommand: Serialize {
    /// The CDP method, `Domain.command`.
    const METHOD: &'static str;
    /// The part of the result cotab reads.
    type Response: DeserializeOwned;

    /// The params as the CDP params object.
    fn params(&self) -> Value {
        // Params are plain structs of strings, numbers and lists: they
        // always serialise.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The result read from the browser's answer; `COMMAND_FAILED` when
    /// the browser's answer does not have the result's shape.
    fn response(result: Value) -> Result<Self::Response, WireError> {
        serde_json::from_value(result).map_err(|_| {
            WireError::new(
                ErrorKind::CommandFailed,
                format!("the browser's answer to {} was malformed", Self::METHOD),
            )
        })
    }
}

/// A CDP event: its name and the fields cotab reads.
pub trait CdpEvent: DeserializeOwned {
    /// The event's name, `Domain.event`.
    const METHOD: &'static str;

    /// The event if `method` is this one and its params have its shape.
    fn parse(method: &str, params: &Value) -> Option<Self> {
        if method != Self::METHOD {
            return None;
        }
        Self::deserialize(params).ok()
    }
}

/// A result cotab does not read (any object).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Done {}

macro_rules! command {
    ($ty:ident $(<$lt:lifetime>)?, $method:literal, $response:ty) => {
        impl$(<$lt>)? CdpCommand for $ty $(<$lt>)? {
            const METHOD: &'static str = $method;
            type Response = $response;
        }
    };
}

macro_rules! event {
    ($ty:ident, $method:literal) => {
        impl CdpEvent for $ty {
            const METHOD: &'static str = $method;
        }
    };
}

mod dom;
mod fetch;
mod input;
mod network;
mod overlay;
mod page;
mod runtime;
mod screencast;
mod session;
#[cfg(test)]
mod tests;

pub use dom::*;
pub use fetch::*;
pub use input::*;
pub use network::*;
pub use overlay::*;
pub use page::*;
pub use runtime::*;
pub use screencast::*;
pub use session::*;
