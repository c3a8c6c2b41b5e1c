//! The page's documents read from the browser's capture
//! (`DOMSnapshot.captureSnapshot`), for the outline and for the names a
//! page's links give its downloads: off the daemon's one thread when the
//! capture is large, so it keeps serving other requests meanwhile.

use crate::outline::{Captured, Dom};
use cotab_shared::{ErrorKind, WireError};
use serde_json::Value;

/// Nodes above which a capture is read (and its outline rendered) on the
/// blocking pool.
pub const LARGE_CAPTURE: usize = 4_000;

/// The documents of the capture `v`; `COMMAND_FAILED` when it cannot be
/// read.
pub async fn read(v: Value) -> Result<Dom, WireError> {
    let nodes: usize = v
        .get("documents")
        .and_then(Value::as_array)
        .map_or(0, |docs| {
            docs.iter()
                .filter_map(|d| d.pointer("/nodes/nodeType").and_then(Value::as_array))
                .map(Vec::len)
                .sum()
        });
    let read = move || {
        let captured: Captured = serde_json::from_value(v).map_err(|e| {
            WireError::new(
                ErrorKind::CommandFailed,
                format!("the browser's capture of the page could not be read: {e}"),
            )
        })?;
        Ok(Dom::read(captured))
    };
    if nodes <= LARGE_CAPTURE {
        return read();
    }
    tokio::task::spawn_blocking(read).await.map_err(|_| {
        WireError::new(
            ErrorKind::CommandFailed,
            "reading the page's documents failed",
        )
    })?
}
