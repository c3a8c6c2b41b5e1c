//! The input methods that take refs: hover, select options, check and
//! uncheck, drag one element onto another, scroll, and upload files into
//! a file input. Each resolves its element as [`super::element`] does,
//! then acts on it through the page or as coordinate input.

use super::element::{not_interactable, Element};
use super::{aim_of, invalid_params, off_thread_if, wire, Cx, HeldPress};
use crate::broker::{Fence, Need, PressKind};
use crate::{config, uploads};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use cotab_shared::cdp::{
    CdpEvent as _, DispatchDragEvent, DragIntercepted, MouseEvent, SetFileInputFiles,
    SetInterceptDrags,
};
use cotab_shared::controller::{
    CheckParams, DragParams, Empty, HoverParams, MouseButton, RpcError, ScrollParams,
    SelectOptionParams, SelectOptionResult, SetFilesParams,
};
use cotab_shared::limits::MAX_HOST_TO_EXTENSION;
use cotab_shared::native::CommandClass;
use cotab_shared::ErrorKind;
use serde_json::{json, Value};
use std::time::Duration;

/// Checkbox state: `true`/`false`/`"mixed"`, or `null` when the element is
/// not checkable; and whether it is a radio button.
const CHECKED_FN: &str = "function() { \
    const radio = (this instanceof HTMLInputElement && this.type === 'radio') || \
        this.getAttribute('role') === 'radio' || this.getAttribute('role') === 'menuitemradio'; \
    if (this instanceof HTMLInputElement && (this.type === 'checkbox' || this.type === 'radio')) \
        return {state: this.indeterminate ? 'mixed' : this.checked, radio}; \
    const a = this.getAttribute('aria-checked'); \
    if (a === 'true' || a === 'false') return {state: a === 'true', radio}; \
    if (a === 'mixed') return {state: 'mixed', radio}; \
    return {state: null, radio}; }";

/// Selects options by value, else by label; fires `input` and `change`.
const SELECT_FN: &str = "function(wanted) { \
    if (!(this instanceof HTMLSelectElement)) return {error: 'not-select'}; \
    if (this.disabled) return {error: 'disabled'}; \
    const opts = Array.from(this.options); const picked = []; \
    for (const w of wanted) { \
        const o = opts.find(o => o.value === w) || opts.find(o => o.label === w || o.text.trim() === w); \
        if (!o) return {error: 'no-option'}; \
        if (o.disabled) return {error: 'option-disabled'}; \
        if (!picked.includes(o)) picked.push(o); } \
    if (picked.length > 1 && !this.multiple) return {error: 'not-multiple'}; \
    for (const o of opts) o.selected = picked.includes(o); \
    this.dispatchEvent(new Event('input', {bubbles: true})); \
    this.dispatchEvent(new Event('change', {bubbles: true})); \
    return {selected: Array.from(this.selectedOptions).map(o => o.value)}; }";

/// `{file, multiple}` of a file input, or `{file: false}`.
const FILE_INPUT_FN: &str = "function() { \
    return {file: this instanceof HTMLInputElement && this.type === 'file', multiple: !!this.multiple, \
            disabled: !!this.disabled}; }";

/// Builds `File`s from base64 bytes in the page and sets them.
const FILES_FROM_BYTES_FN: &str = "function(files) { \
    const dt = new DataTransfer(); \
    for (const f of files) { \
        const bin = atob(f.data); const bytes = new Uint8Array(bin.length); \
        for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i); \
        dt.items.add(new File([bytes], f.name, {type: f.type})); } \
    this.files = dt.files; \
    this.dispatchEvent(new Event('input', {bubbles: true})); \
    this.dispatchEvent(new Event('change', {bubbles: true})); \
    return this.files.length; }";

/// Whether a drag starting on the element is an HTML5 drag.
const DRAGGABLE_FN: &str = "function() { \
    for (let n = this; n; n = n.parentElement) { if (n.draggable) return true; } return false; }";

/// How long a drag of a draggable element waits for the browser to report
/// it (`Input.dragIntercepted`) before it goes on as a plain mouse drag.
const DRAG_START_WAIT: Duration = Duration::from_secs(1);

/// Mouse moves between the two ends of a drag.
const DRAG_STEPS: u32 = 5;

pub(super) async fn hover(cx: &Cx<'_>, p: HoverParams) -> Result<Empty, RpcError> {
    let aim = aim_of(p.element, p.x, p.y, p.frame_id)?;
    let fence = cx.fence(Need::Act)?;
    let (x, y, frame) = cx.aim(&fence, &aim).await?;
    cx.move_mouse(&fence, (x, y), frame.as_ref()).await?;
    Ok(Empty {})
}

pub(super) async fn select_option(
    cx: &Cx<'_>,
    p: SelectOptionParams,
) -> Result<SelectOptionResult, RpcError> {
    if p.values.is_empty() {
        return Err(invalid_params(
            "invalid params: `params.values` must name at least one option",
        ));
    }
    let fence = cx.fence(Need::Act)?;
    let el = cx.element(&fence, &p.element).await?;
    cx.core(|c| c.input(&fence))?;
    let r = cx
        .call_on(
            &fence,
            &el,
            SELECT_FN,
            vec![json!(p.values)],
            CommandClass::Act,
        )
        .await?;
    match r.get("error").and_then(Value::as_str) {
        None => {}
        Some("not-select") => {
            return Err(wire(
                ErrorKind::InvalidRequest,
                "the element is not a <select>",
            ))
        }
        Some("no-option") => {
            return Err(wire(
                ErrorKind::InvalidRequest,
                "the select has no option with that value or label",
            ))
        }
        Some("not-multiple") => {
            return Err(wire(
                ErrorKind::InvalidRequest,
                "the select takes one option only",
            ))
        }
        Some(_) => return Err(not_interactable("the select or the option is disabled")),
    }
    let selected = r
        .get("selected")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    Ok(SelectOptionResult { selected })
}

pub(super) async fn check(cx: &Cx<'_>, p: CheckParams) -> Result<Empty, RpcError> {
    let fence = cx.fence(Need::Act)?;
    let el = cx.element(&fence, &p.element).await?;
    let read = || async {
        let v = cx
            .call_on(&fence, &el, CHECKED_FN, vec![], CommandClass::Observe)
            .await?;
        let radio = v.get("radio").and_then(Value::as_bool).unwrap_or(false);
        match v.get("state") {
            Some(Value::Bool(b)) => Ok((Some(*b), radio)),
            Some(Value::String(_)) => Ok((None, radio)),
            _ => Err(wire(
                ErrorKind::InvalidRequest,
                "the element is not a checkbox or radio button",
            )),
        }
    };
    let (state, radio) = read().await?;
    if state == Some(p.checked) {
        return Ok(Empty {});
    }
    if radio && !p.checked {
        return Err(wire(
            ErrorKind::InvalidRequest,
            "a radio button is unchecked by checking another one",
        ));
    }
    let (x, y) = cx
        .visible_point(&fence, &el, CommandClass::Act, true)
        .await?;
    cx.mouse_click(&fence, (x, y), None, MouseButton::Left, 1, 0)
        .await?;
    let (after, _) = read().await?;
    if after != Some(p.checked) {
        return Err(wire(
            ErrorKind::CommandFailed,
            "the click did not change the element's state",
        ));
    }
    Ok(Empty {})
}

pub(super) async fn drag(cx: &Cx<'_>, p: DragParams) -> Result<Empty, RpcError> {
    let fence = cx.fence(Need::Act)?;
    let from = cx.element(&fence, &p.from).await?;
    let to = cx.element(&fence, &p.to).await?;
    let (ax, ay) = cx
        .visible_point(&fence, &from, CommandClass::Act, true)
        .await?;
    let draggable = cx
        .call_on(&fence, &from, DRAGGABLE_FN, vec![], CommandClass::Observe)
        .await?
        == Value::Bool(true);
    let button = MouseButton::Left;
    // Subscribe before pressing so the browser's report cannot slip past.
    let mut events = cx.shell.lane.subscribe_cdp();
    if draggable {
        cx.send(
            &fence,
            &SetInterceptDrags { enabled: true },
            CommandClass::Act,
        )
        .await?;
    }
    let guard = cx
        .begin_press(
            &fence,
            None,
            PressKind::Mouse {
                button,
                x: ax,
                y: ay,
            },
        )
        .await?;
    let id = guard.id;
    let down = async {
        let moved = MouseEvent {
            kind: "mouseMoved",
            x: ax,
            y: ay,
            buttons: Some(0),
            ..MouseEvent::default()
        };
        cx.send(&fence, &moved, CommandClass::Act).await?;
        let pressed = MouseEvent {
            kind: "mousePressed",
            button: Some("left"),
            buttons: Some(1),
            click_count: Some(1),
            ..moved
        };
        cx.send(&fence, &pressed, CommandClass::Act).await
    }
    .await;
    guard.settle(down.is_ok());
    let held = HeldPress::new(cx.shell, id);
    let moved = async {
        down?;
        // The target may need scrolling too; the button stays held.
        let (bx, by) = cx
            .visible_point(&fence, &to, CommandClass::Act, false)
            .await?;
        let mut data = None;
        for step in 1..=DRAG_STEPS {
            let t = f64::from(step) / f64::from(DRAG_STEPS);
            let (x, y) = (ax + (bx - ax) * t, ay + (by - ay) * t);
            let buttons = cx.core(|c| c.mouse_moved(&fence, x, y))?;
            let moved = MouseEvent {
                kind: "mouseMoved",
                x,
                y,
                button: Some("left"),
                buttons: Some(buttons),
                ..MouseEvent::default()
            };
            cx.send(&fence, &moved, CommandClass::Act).await?;
            while let Ok(ev) = events.try_recv() {
                if ev.tab_id == fence.tab {
                    if let Some(drag) = DragIntercepted::parse(&ev.method, &ev.params) {
                        data = Some(drag.data);
                    }
                }
            }
            if data.is_some() {
                break;
            }
        }
        if draggable && data.is_none() {
            let deadline = tokio::time::Instant::now() + DRAG_START_WAIT;
            let cx2 = Cx {
                deadline: deadline.min(cx.deadline),
                ..*cx
            };
            if let Ok(ev) = cx2
                .event(&fence, &mut events, "no drag started", |e| {
                    e.method == DragIntercepted::METHOD
                })
                .await
            {
                data = DragIntercepted::parse(&ev.method, &ev.params).map(|d| d.data);
            }
        }
        if let Some(data) = data {
            for kind in ["dragEnter", "dragOver", "drop"] {
                let drag = DispatchDragEvent {
                    kind,
                    x: bx,
                    y: by,
                    data: data.clone(),
                    modifiers: 0,
                };
                cx.send(&fence, &drag, CommandClass::Act).await?;
            }
        }
        Ok::<_, RpcError>((bx, by))
    }
    .await;
    // The button goes up whatever happened, at the drop point when known.
    let released = held.release(cx).await;
    if draggable {
        // Interception must not outlive the drag (the person's own drags
        // would break): turned off with the release class, in its task.
        cx.shell
            .send_detached(fence.tab, &SetInterceptDrags { enabled: false });
    }
    moved?;
    released?;
    cx.check(&fence)?;
    Ok(Empty {})
}

pub(super) async fn scroll(cx: &Cx<'_>, p: ScrollParams) -> Result<Empty, RpcError> {
    if let Some(r) = &p.element {
        if p.x.is_some() || p.y.is_some() || p.delta_x.is_some() || p.delta_y.is_some() {
            return Err(invalid_params(
                "invalid params: `params.ref` excludes `params.x`, `params.y`, `params.deltaX` and `params.deltaY`",
            ));
        }
        if p.frame_id.is_some() {
            return Err(invalid_params(
                "invalid params: `params.frameId` is only allowed with `params.x` and `params.y`",
            ));
        }
        let fence = cx.fence(Need::Act)?;
        let el = cx.element(&fence, r).await?;
        cx.core(|c| c.input(&fence))?;
        cx.visible_point(&fence, &el, CommandClass::Act, false)
            .await?;
        return Ok(Empty {});
    }
    let (dx, dy) = (p.delta_x.unwrap_or(0.0), p.delta_y.unwrap_or(0.0));
    if !dx.is_finite() || !dy.is_finite() {
        return Err(invalid_params(
            "invalid params: `params.deltaX` and `params.deltaY` must be finite numbers",
        ));
    }
    if dx == 0.0 && dy == 0.0 {
        return Err(invalid_params(
            "invalid params: missing field `params.deltaY` (or `params.deltaX`, or `params.ref`)",
        ));
    }
    let fence = cx.fence(Need::Act)?;
    let (x, y, frame) = match (p.x, p.y) {
        (None, None) => {
            if p.frame_id.is_some() {
                return Err(invalid_params(
                    "invalid params: `params.frameId` is only allowed with `params.x` and `params.y`",
                ));
            }
            let g = cx.geometry(&fence).await?;
            (g.viewport_width / 2.0, g.viewport_height / 2.0, None)
        }
        (x, y) => {
            let aim = aim_of(None, x, y, p.frame_id)?;
            cx.aim(&fence, &aim).await?
        }
    };
    cx.core(|c| c.input(&fence))?;
    let wheel = MouseEvent {
        kind: "mouseWheel",
        x,
        y,
        delta_x: Some(dx),
        delta_y: Some(dy),
        ..MouseEvent::default()
    };
    cx.send_in(&fence, &wheel, frame.as_ref()).await?;
    Ok(Empty {})
}

/// `paths` as files under the directories the person allowed for uploads
/// (`PATH_NOT_ALLOWED` otherwise). The host config is read live, so the
/// person's edits apply without a restart; on the blocking pool, like
/// every file access, so a slow disk holds up this request only, not the
/// daemon's one thread.
pub(super) async fn allowed_uploads(
    paths: Vec<String>,
) -> Result<Vec<std::path::PathBuf>, RpcError> {
    off_thread_if(true, "reading the upload settings", move || {
        let config = config::load(config::config_path().as_deref())?;
        Ok(uploads::check_paths(&paths, &config)?)
    })
    .await
}

/// `input.setFiles`: on the input `ref` names, else on the input of the
/// file chooser waiting on the tab (no paths: the chooser is dismissed).
pub(super) async fn set_files(cx: &Cx<'_>, p: SetFilesParams) -> Result<Empty, RpcError> {
    let least = usize::from(p.element.is_some());
    if p.paths.len() < least || p.paths.len() > uploads::MAX_FILES {
        return Err(invalid_params(format!(
            "invalid params: `params.paths` must list {least} to {} files",
            uploads::MAX_FILES
        )));
    }
    let files = if p.paths.is_empty() {
        Vec::new()
    } else {
        allowed_uploads(p.paths).await?
    };
    let fence = cx.fence(Need::Act)?;
    let (el, answers) = match &p.element {
        Some(r) => (cx.element(&fence, r).await?, None),
        None => {
            let chooser = cx.waiting_chooser(&fence)?;
            if files.is_empty() {
                cx.core(|c| c.chooser_answered(fence.tab, Some(chooser.number)));
                return Ok(Empty {});
            }
            let el = cx.element_of(&fence, chooser.node).await.map_err(|e| {
                if e.kind() == ErrorKind::StaleRef {
                    wire(
                        ErrorKind::StaleRef,
                        "the file input that opened the chooser is no longer on the page",
                    )
                } else {
                    e
                }
            })?;
            (el, Some(chooser.number))
        }
    };
    let node = el.node.clone();
    set_files_on(cx, &fence, el, files).await?;
    cx.files_set(&fence, &node, answers);
    Ok(Empty {})
}

/// Sets `files` on the file input `el`.
async fn set_files_on(
    cx: &Cx<'_>,
    fence: &Fence,
    el: Element,
    files: Vec<std::path::PathBuf>,
) -> Result<(), RpcError> {
    let kind = cx
        .call_on(fence, &el, FILE_INPUT_FN, vec![], CommandClass::Observe)
        .await?;
    if kind.get("file") != Some(&Value::Bool(true)) {
        return Err(wire(
            ErrorKind::InvalidRequest,
            "the element is not a file input",
        ));
    }
    if kind.get("disabled") == Some(&Value::Bool(true)) {
        return Err(not_interactable("the file input is disabled"));
    }
    if files.len() > 1 && kind.get("multiple") != Some(&Value::Bool(true)) {
        return Err(wire(
            ErrorKind::InvalidRequest,
            "the file input takes one file only",
        ));
    }
    cx.core(|c| c.input(fence))?;
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let direct = cx
        .send(
            fence,
            &SetFileInputFiles {
                files: names,
                backend_node_id: el.node.backend_node_id,
            },
            CommandClass::Act,
        )
        .await;
    match direct {
        Ok(_) => return Ok(()),
        Err(e) if e.kind() == ErrorKind::CommandFailed => {
            tracing::debug!("DOM.setFileInputFiles refused; building the files in the page");
        }
        Err(e) => return Err(e),
    }
    // The browser refuses file paths from an extension without file
    // access: send the bytes instead, within the native-message limit.
    let count = files.len();
    let payload = off_thread_if(true, "reading the files", move || files_payload(&files)).await?;
    let n = cx
        .call_on(
            fence,
            &el,
            FILES_FROM_BYTES_FN,
            vec![Value::Array(payload)],
            CommandClass::Act,
        )
        .await?;
    if n.as_u64() != Some(count as u64) {
        return Err(wire(
            ErrorKind::CommandFailed,
            "the page did not take the files",
        ));
    }
    Ok(())
}

/// The files as `{name, type, data}` records (data in base64), within what
/// one message to the browser carries.
fn files_payload(files: &[std::path::PathBuf]) -> Result<Vec<Value>, RpcError> {
    let budget = (MAX_HOST_TO_EXTENSION - 16 * 1024) / 4 * 3;
    let mut total = 0usize;
    let mut payload = Vec::new();
    for f in files {
        let meta = std::fs::metadata(f).map_err(|_| {
            wire(
                ErrorKind::PathNotAllowed,
                "a file could not be read for the upload",
            )
        })?;
        total = total.saturating_add(usize::try_from(meta.len()).unwrap_or(usize::MAX));
        if total > budget {
            return Err(wire(
                ErrorKind::InvalidRequest,
                format!(
                    "the files are too large to upload through the extension (at most {} KiB in all)",
                    budget / 1024
                ),
            ));
        }
        let bytes = std::fs::read(f).map_err(|_| {
            wire(
                ErrorKind::PathNotAllowed,
                "a file could not be read for the upload",
            )
        })?;
        payload.push(json!({
            "name": f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            "type": uploads::content_type(f),
            "data": STANDARD.encode(&bytes),
        }));
    }
    Ok(payload)
}
