//! `input.drop`: files and MIME-typed data dropped onto an element as if
//! dragged from outside the page (Playwright MCP's `browser_drop`). The
//! files must lie under the directories the person allowed for uploads,
//! as `input.setFiles`'s do.

use super::by_ref::allowed_uploads;
use super::{invalid_params, Cx};
use crate::broker::Need;
use crate::uploads;
use cotab_shared::cdp::DispatchDragEvent;
use cotab_shared::controller::{DropParams, Empty, RpcError, MAX_DROP_ITEMS};
use cotab_shared::limits::MAX_HOST_TO_EXTENSION;
use cotab_shared::native::CommandClass;
use serde_json::{json, Value};

/// Whether `m` reads as a MIME type (`type/subtype`, token characters).
fn is_mime_type(m: &str) -> bool {
    let token = |s: &str| {
        !s.is_empty()
            && s.len() <= 127
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&^_.+-".contains(&b))
    };
    m.split_once('/').is_some_and(|(t, s)| token(t) && token(s))
}

/// The drag data the browser drops: the items, the files, copy.
fn drag_data(p: &DropParams, files: &[std::path::PathBuf]) -> Value {
    let items: Vec<Value> = p
        .data
        .iter()
        .map(|(mime, data)| json!({"mimeType": mime, "data": data}))
        .collect();
    let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    json!({"items": items, "files": files, "dragOperationsMask": 1})
}

pub(super) async fn drop_on(cx: &Cx<'_>, p: DropParams) -> Result<Empty, RpcError> {
    if p.paths.is_empty() && p.data.is_empty() {
        return Err(invalid_params(
            "invalid params: give `params.paths`, `params.data` or both",
        ));
    }
    if p.paths.len() > uploads::MAX_FILES || p.data.len() > MAX_DROP_ITEMS {
        return Err(invalid_params(format!(
            "invalid params: at most {} files and {MAX_DROP_ITEMS} MIME types",
            uploads::MAX_FILES
        )));
    }
    if !p.data.keys().all(|m| is_mime_type(m)) {
        return Err(invalid_params(
            "invalid params: each key of `params.data` must be a MIME type like `text/plain`",
        ));
    }
    // Three events carry the data: together they must fit one message.
    let size: usize = p.data.iter().map(|(k, v)| k.len() + v.len()).sum();
    if size * 3 > MAX_HOST_TO_EXTENSION / 2 {
        return Err(invalid_params("invalid params: `params.data` is too large"));
    }
    let files = if p.paths.is_empty() {
        Vec::new()
    } else {
        allowed_uploads(p.paths.clone()).await?
    };
    let fence = cx.fence(Need::Act)?;
    let el = cx.element(&fence, &p.element).await?;
    let (x, y) = cx
        .visible_point(&fence, &el, CommandClass::Act, true)
        .await?;
    let data = drag_data(&p, &files);
    cx.core(|c| c.input(&fence))?;
    for kind in ["dragEnter", "dragOver", "drop"] {
        let event = DispatchDragEvent {
            kind,
            x,
            y,
            data: data.clone(),
            modifiers: 0,
        };
        cx.send(&fence, &event, CommandClass::Act).await?;
    }
    cx.check(&fence)?;
    Ok(Empty {})
}

#[cfg(test)]
mod tests {
    use super::*;
    use cotab_shared::controller::Ref;

    #[test]
    fn data_is_dropped_by_mime_type_with_the_checked_files() {
        assert!(is_mime_type("text/plain"));
        assert!(is_mime_type("application/vnd.api+json"));
        for bad in ["text", "/plain", "text/", "text/pl ain", "a/b/c"] {
            assert!(!is_mime_type(bad), "{bad}");
        }
        let p = DropParams {
            element: Ref("e1".into()),
            paths: vec!["/up/a.txt".into()],
            data: [("text/plain".to_string(), "hi".to_string())].into(),
        };
        assert_eq!(
            drag_data(&p, &["/up/a.txt".into()]),
            json!({"items": [{"mimeType": "text/plain", "data": "hi"}],
                   "files": ["/up/a.txt"], "dragOperationsMask": 1})
        );
    }
}
