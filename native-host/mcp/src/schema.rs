//! The JSON schema of a tool's arguments as MCP clients read it: derived
//! from the argument type (`schemars`), every subschema inline, optional
//! fields simply not required, and descriptions on one line.

use rmcp::model::JsonObject;
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::Value;
use std::sync::Arc;

/// The JSON schema of `T` as MCP wants an input schema: an object schema,
/// every subschema inline, optional fields simply not required (no `null`
/// type, which clients that coerce command-line values by `type` would not
/// understand).
pub(crate) fn input_schema<T: JsonSchema>() -> Arc<JsonObject> {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    drop_null(&mut schema);
    consts_to_enum(&mut schema);
    unwrap_descriptions(&mut schema);
    let mut object = match schema {
        Value::Object(o) => o,
        _ => JsonObject::new(),
    };
    // The struct's own doc line is for Rust readers; the tool's description
    // speaks for it.
    object.remove("$schema");
    object.remove("title");
    object.remove("description");
    object
        .entry("type")
        .or_insert_with(|| Value::String("object".into()));
    object
        .entry("properties")
        .or_insert_with(|| Value::Object(JsonObject::new()));
    Arc::new(object)
}

/// Removes `null` from the schema's types: an `Option` field is described
/// by its value's schema and simply left out of `required`.
fn drop_null(schema: &mut Value) {
    let Value::Object(object) = schema else {
        if let Value::Array(items) = schema {
            items.iter_mut().for_each(drop_null);
        }
        return;
    };
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            object.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = object.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(alternatives)) = object.get_mut(key) else {
            continue;
        };
        alternatives.retain(|a| a.get("type").is_none_or(|t| t != "null"));
        if let [Value::Object(only)] = alternatives.as_slice() {
            let only = only.clone();
            object.remove(key);
            for (k, v) in only {
                object.entry(k).or_insert(v);
            }
        }
    }
    object.values_mut().for_each(drop_null);
}

/// A `oneOf` of string constants (what schemars makes of an enum whose
/// variants have doc comments) as one `enum`, as Playwright MCP's schemas
/// list a choice.
fn consts_to_enum(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            let consts: Option<Vec<Value>> = object
                .get("oneOf")
                .and_then(Value::as_array)
                .and_then(|alternatives| {
                    alternatives
                        .iter()
                        .map(|a| a.get("const").filter(|c| c.is_string()).cloned())
                        .collect()
                });
            if let Some(values) = consts {
                object.remove("oneOf");
                object.insert("type".into(), Value::String("string".into()));
                object.insert("enum".into(), Value::Array(values));
            }
            object.values_mut().for_each(consts_to_enum);
        }
        Value::Array(items) => items.iter_mut().for_each(consts_to_enum),
        _ => {}
    }
}

/// Joins the lines of doc-comment descriptions: the model reads one
/// sentence, not the source's line breaks.
fn unwrap_descriptions(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            for (key, value) in object.iter_mut() {
                match value {
                    Value::String(text) if key == "description" => {
                        *text = text.replace('\n', " ");
                    }
                    other => unwrap_descriptions(other),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_descriptions),
        _ => {}
    }
}
