//! `Runtime`: evaluating code in the page and the values it returns.

use super::{CdpCommand, CdpEvent, Done};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `Runtime.evaluate`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluate<'a> {
    /// JavaScript source, evaluated as a script in the page.
    pub expression: &'a str,
    /// Return the value itself rather than a handle.
    pub return_by_value: bool,
    /// Wait for a promise the expression returns.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub await_promise: bool,
    /// The group a returned handle joins, to be released with it
    /// ([`ReleaseObjectGroup`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_group: Option<&'a str>,
}
command!(Evaluate<'a>, "Runtime.evaluate", Evaluated);

/// `Runtime.releaseObjectGroup`: the page may free what the group's
/// handles held.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseObjectGroup {
    /// The group.
    pub object_group: String,
}
command!(ReleaseObjectGroup, "Runtime.releaseObjectGroup", Done);

impl<'a> Evaluate<'a> {
    /// `expression`, its value returned by value.
    pub fn by_value(expression: &'a str) -> Evaluate<'a> {
        Evaluate {
            expression,
            return_by_value: true,
            await_promise: false,
            object_group: None,
        }
    }
}

/// `Runtime.callFunctionOn`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallFunctionOn<'a> {
    /// The object the function is called on (`this`).
    pub object_id: &'a str,
    /// The function's source.
    pub function_declaration: &'a str,
    /// The arguments the function is called with, in order.
    pub arguments: Vec<CallArgument>,
    /// Return the value itself rather than a handle.
    pub return_by_value: bool,
    /// Wait for a promise the function returns.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub await_promise: bool,
}
command!(CallFunctionOn<'a>, "Runtime.callFunctionOn", Evaluated);

/// An argument of [`CallFunctionOn`]: a value, or an object by its id.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CallArgument {
    /// A value (JSON).
    Value(Value),
    /// A remote object.
    ObjectId(String),
}

/// The result of [`Evaluate`] and [`CallFunctionOn`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluated {
    /// What the code returned.
    #[serde(default)]
    pub result: RemoteObject,
    /// Set when the code threw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception_details: Option<Value>,
}

impl Evaluated {
    /// Whether the code threw.
    pub fn threw(&self) -> bool {
        self.exception_details.is_some()
    }
}

/// A value in the page: by value, or by handle.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteObject {
    /// `string`, `number`, `object`, `undefined`, ….
    #[serde(default, rename = "type")]
    pub kind: String,
    /// `null`, `array`, `error`, … for objects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtype: Option<String>,
    /// The value, when returned by value (`null` reads as none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// A value JSON cannot hold (`NaN`, `-0`, a bigint), as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unserializable_value: Option<String>,
    /// The browser's text for it (an object's class, an error's stack).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The handle, when returned by reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_id: Option<String>,
}

/// A script's position in a stack trace.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallFrame {
    /// The script's url.
    #[serde(default)]
    pub url: String,
    /// 0-based line.
    #[serde(default)]
    pub line_number: Option<u64>,
}

/// A stack trace, innermost frame first.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StackTrace {
    /// The calls that led there, innermost first.
    #[serde(default)]
    pub call_frames: Vec<CallFrame>,
}

/// `Runtime.consoleAPICalled`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleApiCalled {
    /// `log`, `debug`, `warning`, `error`, `assert`, ….
    #[serde(default, rename = "type")]
    pub kind: String,
    /// What was logged.
    #[serde(default)]
    pub args: Vec<RemoteObject>,
    /// Where.
    #[serde(default)]
    pub stack_trace: Option<StackTrace>,
}
event!(ConsoleApiCalled, "Runtime.consoleAPICalled");

/// `Runtime.exceptionThrown`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionThrown {
    /// What was thrown, and where.
    #[serde(default)]
    pub exception_details: ExceptionDetails,
}
event!(ExceptionThrown, "Runtime.exceptionThrown");

/// What [`ExceptionThrown`] reports of an uncaught exception.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionDetails {
    /// A short text (`Uncaught`).
    #[serde(default)]
    pub text: Option<String>,
    /// The thrown value.
    #[serde(default)]
    pub exception: Option<RemoteObject>,
    /// The script's url, when no stack trace says it.
    #[serde(default)]
    pub url: Option<String>,
    /// 0-based line, when no stack trace says it.
    #[serde(default)]
    pub line_number: Option<u64>,
    /// Where.
    #[serde(default)]
    pub stack_trace: Option<StackTrace>,
}
