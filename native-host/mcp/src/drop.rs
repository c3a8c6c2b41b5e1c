//! `browser_drop`: files or MIME-typed data dropped onto an element, as if
//! dragged from outside the page (`input.drop`).

use super::answers::named;
use super::bridge::Bridge;
use super::outcome::{ToolFailure, ToolOutput};
use cotab_shared::controller::{DropOn, DropParams, Ref};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeMap;

/// Arguments of `browser_drop`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DropArgs {
    /// Human-readable element description used to obtain permission to
    /// interact with the element.
    pub(crate) element: Option<String>,
    /// Exact target element reference from the page snapshot (`ref` is
    /// taken too).
    #[serde(rename = "target", alias = "ref")]
    pub(crate) target: String,
    /// Absolute paths to files to drop onto the element, each under a
    /// directory the person allowed for uploads.
    #[serde(default)]
    pub(crate) paths: Vec<String>,
    /// Data to drop, as a map of MIME type to string value (e.g.
    /// {"text/plain": "hello", "text/uri-list": "https://example.com"}).
    #[serde(default)]
    pub(crate) data: BTreeMap<String, String>,
}

impl Bridge {
    pub(super) async fn drop_onto(&mut self, a: DropArgs) -> Result<ToolOutput, ToolFailure> {
        if a.paths.is_empty() && a.data.is_empty() {
            return Err(ToolFailure::invalid(
                "At least one of \"paths\" or \"data\" must be provided.",
            ));
        }
        let what = match (a.paths.len(), a.data.len()) {
            (0, n) => format!("{n} data item(s)"),
            (f, 0) => format!("{f} file(s)"),
            (f, n) => format!("{f} file(s) and {n} data item(s)"),
        };
        let onto = named(a.element.as_deref(), &a.target);
        self.acted::<DropOn>(&DropParams {
            element: Ref(a.target),
            paths: a.paths,
            data: a.data,
        })
        .await?;
        Ok(self
            .with_snapshot(format!("Dropped {what} onto {onto}"))
            .await)
    }
}
