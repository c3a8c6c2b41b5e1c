//! `browser_file_upload`: the files for the file chooser an action opened
//! (its modal state), as Playwright MCP takes them, or — cotab's addition
//! — for a file input named by its ref (`input.setFiles`).

use super::bridge::Bridge;
use super::outcome::{ToolFailure, ToolOutput};
use cotab_shared::controller::{Ref, SetFiles, SetFilesParams};
use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `browser_file_upload`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileUploadArgs {
    /// The absolute paths to the files to upload. Can be single file or
    /// multiple files, each under a directory the person allowed for
    /// uploads. If omitted, the file chooser is cancelled.
    pub(crate) paths: Option<Vec<String>>,
    /// Human-readable description of the file input (with `target`).
    pub(crate) element: Option<String>,
    /// Exact reference of an `<input type=file>` from the page snapshot,
    /// to set its files without opening its chooser (`ref` is taken too).
    #[serde(rename = "target", alias = "ref")]
    pub(crate) target: Option<String>,
}

impl Bridge {
    pub(super) async fn file_upload(
        &mut self,
        a: FileUploadArgs,
    ) -> Result<ToolOutput, ToolFailure> {
        let paths = a.paths.unwrap_or_default();
        let count = paths.len();
        let line = match (&a.target, count) {
            (Some(_), 0) => {
                return Err(ToolFailure::invalid(
                    "`paths` is required with `target`: the files to set on the input",
                ))
            }
            (Some(t), n) => {
                let on = a.element.clone().unwrap_or_else(|| format!("element {t}"));
                format!("Set {n} file(s) on {on}")
            }
            (None, 0) => "Cancelled the file chooser".to_owned(),
            (None, n) => format!("Set {n} file(s) in the file chooser"),
        };
        self.acted::<SetFiles>(&SetFilesParams {
            element: a.target.map(Ref),
            paths,
        })
        .await?;
        Ok(self.with_snapshot(line).await)
    }
}
