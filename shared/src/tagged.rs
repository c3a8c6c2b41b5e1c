//! Reading internally tagged enums (`{"type":"request","id":7,…}`) without
//! serde's buffering of arbitrary content: the object is read once as a
//! JSON map, its tag picks the variant, and each field is read from the
//! map. serde's derive for `#[serde(tag = …)]` buffers every message into
//! its private `Content` tree first, which costs the extension's wasm
//! about 50 KB; these hand-written readers keep the same JSON shapes and
//! the same kinds of error (missing field, unknown variant, wrong type).
//!
//! Unknown fields are ignored, as the derive does.

use serde::de::{DeserializeOwned, Error};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// A tagged object: its tag and the other fields.
#[derive(Debug)]
pub struct Tagged {
    /// The tag's value.
    pub tag: String,
    fields: Map<String, Value>,
}

impl Tagged {
    /// Reads an object and takes its `tag` field.
    pub fn read<'de, D: Deserializer<'de>>(d: D, tag: &'static str) -> Result<Tagged, D::Error> {
        let mut fields = match Value::deserialize(d)? {
            Value::Object(fields) => fields,
            other => {
                return Err(D::Error::custom(format!(
                    "invalid type: {}, expected an object with a `{tag}` field",
                    kind(&other)
                )))
            }
        };
        let tag = match fields.remove(tag) {
            Some(Value::String(s)) => s,
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "invalid type for `{tag}`: {}, expected a string",
                    kind(&other)
                )))
            }
            None => return Err(D::Error::missing_field(tag)),
        };
        Ok(Tagged { tag, fields })
    }

    /// A required field.
    pub fn field<T: DeserializeOwned, E: Error>(&mut self, name: &'static str) -> Result<T, E> {
        match self.fields.remove(name) {
            Some(v) => read_field(name, v),
            None => Err(E::missing_field(name)),
        }
    }

    /// A field that reads as its default when absent (serde's
    /// `#[serde(default)]`).
    pub fn field_or_default<T: DeserializeOwned + Default, E: Error>(
        &mut self,
        name: &'static str,
    ) -> Result<T, E> {
        match self.fields.remove(name) {
            None => Ok(T::default()),
            Some(v) => read_field(name, v),
        }
    }

    /// A required field naming one of `names` (a unit variant, read
    /// without serde's enum machinery): its index there.
    pub fn one_of<E: Error>(
        &mut self,
        name: &'static str,
        names: &'static [&'static str],
    ) -> Result<usize, E> {
        let given: String = self.field(name)?;
        names.iter().position(|n| *n == given).ok_or_else(|| {
            E::custom(format!(
                "field `{name}`: unknown variant `{given}`, expected one of {names:?}"
            ))
        })
    }

    /// The error for a tag naming no variant.
    pub fn unknown<E: Error>(&self, variants: &'static [&'static str]) -> E {
        E::unknown_variant(&self.tag, variants)
    }
}

fn read_field<T: DeserializeOwned, E: Error>(name: &str, v: Value) -> Result<T, E> {
    serde_json::from_value(v).map_err(|e| E::custom(format!("field `{name}`: {e}")))
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use crate::native::{CdpCall, Command, Holder, HostToExtension};
    use crate::TabId;
    use serde_json::json;

    fn err<T: serde::de::DeserializeOwned + std::fmt::Debug>(v: serde_json::Value) -> String {
        serde_json::from_value::<T>(v)
            .expect_err("refused")
            .to_string()
    }

    #[test]
    fn shapes_read_as_the_derive_would() {
        let cmd: Command =
            serde_json::from_value(json!({"op":"act","tabId":3,"method":"Page.reload","extra":1}))
                .expect("act");
        assert_eq!(
            cmd,
            Command::Act(CdpCall::new(
                TabId(3),
                "Page.reload",
                serde_json::Value::Null
            ))
        );
        let cmd: Command =
            serde_json::from_value(json!({"op":"createTab","url":null})).expect("createTab");
        assert_eq!(cmd, Command::CreateTab { url: None });
        let h: Holder =
            serde_json::from_value(json!({"kind":"agent","name":"bot"})).expect("agent");
        assert_eq!(h, Holder::agent("bot"));
    }

    #[test]
    fn bad_shapes_get_errors_that_say_what() {
        assert_eq!(err::<Command>(json!({"tabId":3})), "missing field `op`");
        assert!(err::<Command>(json!({"op":"fly"}))
            .starts_with("unknown variant `fly`, expected one of"));
        assert_eq!(
            err::<Command>(json!({"op":"act","tabId":3})),
            "missing field `method`"
        );
        assert!(err::<Command>(json!({"op":"act","tabId":"x","method":"m"}))
            .starts_with("field `tabId`: invalid type"));
        assert!(
            err::<Command>(json!({"op":"actInFrame","tabId":1,"method":"m","frame":null}))
                .starts_with("field `frame`:")
        );
        assert_eq!(
            err::<HostToExtension>(json!([1])),
            "invalid type: array, expected an object with a `type` field"
        );
        assert_eq!(
            err::<HostToExtension>(json!({"type":7})),
            "invalid type for `type`: number, expected a string"
        );
        assert_eq!(
            err::<Holder>(json!({"kind":"agent"})),
            "missing field `name`"
        );
    }
}
