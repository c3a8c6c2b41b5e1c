//! What each MCP tool does on the controller link: one daemon session
//! (agent `cotab-mcp`), the "current tab" the tools act on, and the
//! mapping of every [`ToolCall`] to protocol methods and back to text (and
//! an image) for the model.
//!
//! A [`Bridge`] owns the [`Client`]; [`spawn`] runs it as one task that
//! serves requests one at a time and, between them, reads the daemon's
//! notifications (developer mode, dialogs, closed tabs). It knows nothing
//! of MCP framing: [`super`] turns its answers into MCP results.

use super::answers::{
    click_line, console_text, dialog_kind, modal_states, named, opened_tabs, page_state,
    quoted_list, tabs_text, ANSWER_A_DIALOG,
};
use super::args::{
    DragArgs, ElementArgs, EvaluateArgs, HandleDialogArgs, SelectOptionArgs, TabsAction, TabsArgs,
    WaitForArgs,
};
use super::files::Files;
use super::params::{click_params, console_params};
use super::tools::ToolCall;
use super::McpServeError;
use crate::client::{Client, ClientError, KeptSessionError};
use crate::keys;
use cotab_shared::controller::{
    Acquire, Acted, AgentEvent, Bye, CloseTabParams, Console, CreateTabParams, DialogInfo,
    DialogParams, DragParams, Empty, ErrorData, Evaluate, EvaluateParams, HoverParams, Method,
    Navigate, NavigateAction, NavigateParams, Notification, Press, PressParams, Ref, RpcError,
    SelectOption, SelectOptionParams, SelectParams, Snapshot, SnapshotParams, Status, TabsClose,
    TabsCreate, TabsList, TabsSelect, Wait, WaitParams, WaitUntil,
};
use cotab_shared::{ErrorKind, TabId};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use tokio::sync::{mpsc, oneshot};

/// The agent name the MCP server's session shows the person.
pub(crate) const AGENT_NAME: &str = "cotab-mcp";

/// What a tool answers when it worked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolOutput {
    /// Markdown for the model.
    pub(crate) text: String,
    /// An image: base64 data and its MIME type.
    pub(crate) image: Option<(String, &'static str)>,
}

impl ToolOutput {
    pub(super) fn text(text: String) -> Self {
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
    pub(super) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ToolFailure {
            kind: Some(kind),
            message: message.into(),
        }
    }

    pub(super) fn invalid(message: impl Into<String>) -> Self {
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

/// Which daemon session the server uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionMode {
    /// A new session, ended (`session.bye`) when the MCP client goes.
    Fresh,
    /// The session whose ticket is kept in this file: resumed at start
    /// (its selected tab, lease within the daemon's grace, and snapshot refs
    /// carry over), left resumable at exit. For one-shot MCP clients that
    /// start a server per call.
    Kept(PathBuf),
}

/// Resumes the session whose ticket `path` holds, or opens one and stores
/// its ticket there ([`Client::resume_or_hello`]). Returns the resumed
/// session's selected tab.
async fn resume_or_hello(client: &mut Client, path: &Path) -> Result<Option<TabId>, McpServeError> {
    match client.resume_or_hello(path, AGENT_NAME, None).await {
        Ok(resumed) => Ok(resumed.and_then(|r| r.selected_tab)),
        Err(KeptSessionError::Client(e)) => Err(e.into()),
        Err(KeptSessionError::File { path, source }) => {
            Err(McpServeError::SessionFile { path, source })
        }
    }
}

/// Something the MCP side asks of the bridge task.
#[derive(Debug)]
pub(crate) enum Request {
    /// Run a tool.
    Tool(ToolCall, oneshot::Sender<Result<ToolOutput, ToolFailure>>),
    /// Whether developer mode is on now (`host.status`).
    DeveloperMode(oneshot::Sender<Result<bool, ToolFailure>>),
    /// End the daemon session and stop.
    End,
}

/// The daemon session behind the MCP server.
#[derive(Debug)]
pub(crate) struct Bridge {
    client: Client,
    /// Notifications `client` read while waiting for responses.
    forwarded: mpsc::UnboundedReceiver<Value>,
    /// Whether the session outlives this server.
    session: SessionMode,
    /// The tab the tools act on, once one was selected.
    current: Option<TabId>,
    /// The dialog open on the current tab, as the daemon announced it.
    pub(super) dialog: Option<DialogInfo>,
    /// Tabs the current tab's page opened since the last answer.
    opened: Vec<cotab_shared::native::TabInfo>,
    /// Developer mode as last seen.
    developer_mode: bool,
    /// Where the coordinate tools last put the mouse (screenshot pixels).
    pub(super) pointer: Option<(f64, f64)>,
    /// Where tools write the files they are asked for.
    pub(super) files: Files,
    /// Told when developer mode changed (the tool list changes with it).
    tools_changed: mpsc::UnboundedSender<()>,
    /// The daemon closed the connection; nothing more to read.
    closed: bool,
}

impl Bridge {
    /// Opens the session on `client` (or resumes the kept one) and reads
    /// developer mode.
    pub(crate) async fn open(
        mut client: Client,
        session: SessionMode,
        files: Files,
        tools_changed: mpsc::UnboundedSender<()>,
    ) -> Result<Bridge, McpServeError> {
        let forwarded = client.forward_notifications();
        let current = match &session {
            SessionMode::Fresh => {
                client.hello(AGENT_NAME).await?;
                None
            }
            SessionMode::Kept(path) => resume_or_hello(&mut client, path).await?,
        };
        let status = client.call::<Status>(&Empty {}).await?;
        Ok(Bridge {
            client,
            forwarded,
            session,
            current,
            dialog: None,
            opened: Vec::new(),
            developer_mode: status.developer_mode,
            pointer: None,
            files,
            tools_changed,
            closed: false,
        })
    }

    /// Ends a fresh session (`session.bye`), so its lease goes at once
    /// rather than after the daemon's resume grace. A kept session is left
    /// resumable.
    pub(crate) async fn close(mut self) {
        if !self.closed && self.session == SessionMode::Fresh {
            // The daemon may be gone already; then there is nothing to end.
            let _ = self.client.call::<Bye>(&Empty {}).await;
        }
    }

    fn on_notification(&mut self, msg: Value) {
        let Ok(n) = serde_json::from_value::<Notification>(msg) else {
            return; // A notification this version does not know.
        };
        match n.event {
            AgentEvent::DeveloperModeChanged { enabled } if enabled != self.developer_mode => {
                self.developer_mode = enabled;
                // The MCP side may be gone at shutdown; nobody to tell.
                let _ = self.tools_changed.send(());
            }
            AgentEvent::DialogOpened(d) if Some(d.tab_id) == self.current => {
                self.dialog = Some(d);
            }
            AgentEvent::TabOpened(t) if t.opener.is_some() && t.opener == self.current => {
                self.opened.push(t);
            }
            AgentEvent::TabClosed { tab_id } if Some(tab_id) == self.current => {
                self.current = None;
                self.dialog = None;
            }
            _ => {}
        }
    }

    /// Handles what `client` forwarded during the last calls.
    fn drain(&mut self) {
        while let Ok(msg) = self.forwarded.try_recv() {
            self.on_notification(msg);
        }
    }

    async fn developer_mode(&mut self) -> Result<bool, ToolFailure> {
        let status = self.client.call::<Status>(&Empty {}).await?;
        self.drain();
        if status.developer_mode != self.developer_mode {
            self.developer_mode = status.developer_mode;
            let _ = self.tools_changed.send(());
        }
        Ok(status.developer_mode)
    }

    /// Selects `tab` and takes control of it. Taking control may fail (the
    /// person or another agent holds the tab): the selection stands, and
    /// the returned note says so.
    async fn select(&mut self, tab: TabId) -> Result<Option<String>, ToolFailure> {
        self.client
            .call::<TabsSelect>(&SelectParams { tab_id: tab })
            .await?;
        self.current = Some(tab);
        self.dialog = None;
        match self.client.call::<Acquire>(&Empty {}).await {
            Ok(_) => Ok(None),
            Err(ClientError::Rpc(e)) => Ok(Some(format!(
                "Could not take control of tab {tab} ({}: {}); actions will fail until it is free.",
                e.kind(),
                e.message
            ))),
            Err(e) => Err(e.into()),
        }
    }

    /// The current tab; on the first call, the first shared tab, selected
    /// and controlled.
    async fn ensure_tab(&mut self) -> Result<TabId, ToolFailure> {
        if let Some(tab) = self.current {
            return Ok(tab);
        }
        let list = self.client.call::<TabsList>(&Empty {}).await?;
        let Some(first) = list.tabs.first() else {
            return Err(ToolFailure::new(
                ErrorKind::TabNotShared,
                "no tab is shared with agents: ask the person to share one from the cotab \
                 extension",
            ));
        };
        let tab = first.id;
        self.select(tab).await?;
        Ok(tab)
    }

    /// Calls a method that needs no lease, on the current tab.
    pub(super) async fn observe<M: Method>(
        &mut self,
        params: &M::Params,
    ) -> Result<M::Result, ToolFailure> {
        self.ensure_tab().await?;
        let r = self.client.call::<M>(params).await;
        self.drain();
        Ok(r?)
    }

    /// Calls an acting method on the current tab. The lease may have gone
    /// since it was taken (the person took control and handed back): on
    /// `NO_CONTROL`, which is refused before anything is sent, control is
    /// taken again once and the call retried.
    pub(super) async fn act<M: Method>(
        &mut self,
        params: &M::Params,
    ) -> Result<M::Result, ToolFailure> {
        self.ensure_tab().await?;
        let r = match self.client.call::<M>(params).await {
            Err(e) if e.kind() == Some(ErrorKind::NoControl) => {
                self.client.call::<Acquire>(&Empty {}).await?;
                self.client.call::<M>(params).await
            }
            r => r,
        };
        self.drain();
        Ok(r?)
    }

    /// [`Bridge::act`] of an input method: a dialog the action opened is
    /// the one the next answers show.
    pub(super) async fn acted<M: Method<Result = Acted>>(
        &mut self,
        params: &M::Params,
    ) -> Result<(), ToolFailure> {
        let r = self.act::<M>(params).await?;
        if let Some(d) = r.dialog {
            self.dialog = Some(d);
        }
        Ok(())
    }

    /// `result` followed by a fresh snapshot of the current tab, as
    /// Playwright MCP answers actions, so the model can go on — unless a
    /// dialog is open: the page waits for it, and the answer says how to
    /// handle it.
    pub(super) async fn with_snapshot(&mut self, result: String) -> ToolOutput {
        let mut text = format!("### Result\n{result}\n\n");
        let opened = std::mem::take(&mut self.opened);
        text.push_str(&opened_tabs(&opened));
        if let Some(d) = &self.dialog {
            text.push_str("### Page\n(the page waits for the dialog below)\n");
            text.push_str(&modal_states(Some(d), None));
            return ToolOutput::text(text);
        }
        let snapshot = self.observe::<Snapshot>(&SnapshotParams::default()).await;
        match snapshot {
            Ok(s) => text.push_str(&page_state(&s, self.dialog.as_ref())),
            Err(e) => {
                let _ = writeln!(text, "### Page\n(no snapshot: {e})");
                text.push_str(&modal_states(self.dialog.as_ref(), None));
            }
        }
        ToolOutput::text(text)
    }

    /// Runs one tool.
    pub(crate) async fn run(&mut self, call: ToolCall) -> Result<ToolOutput, ToolFailure> {
        match call {
            ToolCall::Tabs(a) => self.tabs(a).await,
            ToolCall::Find(a) => self.find(a).await,
            ToolCall::Close(_) => self.tabs(TabsArgs::close_current()).await,
            ToolCall::Navigate(a) => {
                let r = self.act::<Navigate>(&NavigateParams::to(a.url)).await?;
                Ok(self
                    .with_snapshot(format!("Navigated to {} ({})", r.url, r.title))
                    .await)
            }
            ToolCall::NavigateBack(_) => {
                let r = self
                    .act::<Navigate>(&NavigateParams {
                        action: Some(NavigateAction::Back),
                        ..NavigateParams::default()
                    })
                    .await?;
                Ok(self
                    .with_snapshot(format!("Went back to {} ({})", r.url, r.title))
                    .await)
            }
            ToolCall::Snapshot(a) => self.snapshot(a).await,
            ToolCall::PdfSave(a) => self.pdf_save(a).await,
            ToolCall::Resize(a) => self.resize(a).await,
            ToolCall::Drop(a) => self.drop_onto(a).await,
            ToolCall::NetworkRequests(a) => self.network_requests(a).await,
            ToolCall::NetworkRequest(a) => self.network_request(a).await,
            ToolCall::EmulateMedia(a) => self.emulate_media(a).await,
            ToolCall::Click(a) => {
                let line = click_line(&a);
                self.acted::<cotab_shared::controller::Click>(&click_params(a))
                    .await?;
                Ok(self.with_snapshot(line).await)
            }
            ToolCall::Hover(ElementArgs { element, target }) => {
                let line = format!("Hovered over {}", named(element.as_deref(), &target));
                self.acted::<cotab_shared::controller::Hover>(&HoverParams {
                    element: Some(Ref(target)),
                    ..HoverParams::default()
                })
                .await?;
                Ok(self.with_snapshot(line).await)
            }
            ToolCall::Type(a) => self.type_text(a).await,
            ToolCall::PressKey(a) => {
                let (modifiers, key) = keys::parse_combo(&a.key).map_err(ToolFailure::invalid)?;
                self.acted::<Press>(&PressParams {
                    key,
                    modifiers,
                    expect: None,
                })
                .await?;
                Ok(self.with_snapshot(format!("Pressed {}", a.key)).await)
            }
            ToolCall::SelectOption(SelectOptionArgs {
                element,
                target,
                values,
            }) => {
                let name = named(element.as_deref(), &target);
                let r = self
                    .act::<SelectOption>(&SelectOptionParams {
                        element: Ref(target),
                        values,
                    })
                    .await?;
                Ok(self
                    .with_snapshot(format!("Selected {} in {name}", quoted_list(&r.selected)))
                    .await)
            }
            ToolCall::Drag(DragArgs {
                start_element,
                start_target,
                end_element,
                end_target,
            }) => {
                let line = format!(
                    "Dragged {} to {}",
                    named(start_element.as_deref(), &start_target),
                    named(end_element.as_deref(), &end_target)
                );
                self.acted::<cotab_shared::controller::Drag>(&DragParams {
                    from: Ref(start_target),
                    to: Ref(end_target),
                })
                .await?;
                Ok(self.with_snapshot(line).await)
            }
            ToolCall::FillForm(a) => self.fill_form(a).await,
            ToolCall::TakeScreenshot(a) => self.screenshot(a).await,
            ToolCall::WaitFor(a) => self.wait_for(a).await,
            ToolCall::HandleDialog(HandleDialogArgs {
                accept,
                prompt_text,
            }) => {
                let what = self
                    .dialog
                    .as_ref()
                    .map(|d| format!("the {} dialog", dialog_kind(d.kind)))
                    .unwrap_or_else(|| "the dialog".into());
                let answered = self
                    .act::<cotab_shared::controller::Dialog>(&DialogParams {
                        accept,
                        prompt_text,
                    })
                    .await?;
                // The next dialog of a chain, if the answer led to one.
                self.dialog = answered.dialog;
                let verb = if accept { "Accepted" } else { "Dismissed" };
                Ok(self.with_snapshot(format!("{verb} {what}")).await)
            }
            ToolCall::ConsoleMessages(a) => {
                let r = self
                    .observe::<Console>(&console_params(a.level, a.all))
                    .await?;
                self.saved_or_text(a.filename, None, console_text(&r)).await
            }
            ToolCall::FileUpload(a) => self.file_upload(a).await,
            ToolCall::MouseMoveXy(a) => self.mouse_move_xy(a).await,
            ToolCall::MouseClickXy(a) => self.mouse_click_xy(a).await,
            ToolCall::MouseDragXy(a) => self.mouse_drag_xy(a).await,
            ToolCall::MouseDown(a) => self.mouse_down(a).await,
            ToolCall::MouseUp(a) => self.mouse_up(a).await,
            ToolCall::MouseWheel(a) => self.mouse_wheel(a).await,
            ToolCall::Evaluate(a) => self.evaluate(a).await,
        }
    }

    async fn tabs(&mut self, a: TabsArgs) -> Result<ToolOutput, ToolFailure> {
        match a.action {
            TabsAction::List => {
                let list = self.client.call::<TabsList>(&Empty {}).await?;
                self.drain();
                Ok(ToolOutput::text(format!(
                    "### Open tabs\n{}",
                    tabs_text(&list, self.current)
                )))
            }
            TabsAction::New => {
                let r = self
                    .client
                    .call::<TabsCreate>(&CreateTabParams { url: a.url })
                    .await?;
                self.current = Some(r.tab_id);
                self.dialog = None;
                self.drain();
                Ok(self
                    .with_snapshot(format!("Opened tab {} (now the current tab)", r.tab_id))
                    .await)
            }
            TabsAction::Close => {
                let Some(tab) = self.resolve_tab(&a).await?.or(self.current) else {
                    return Err(ToolFailure::invalid(
                        "no current tab: give `index` or `tabId` of the tab to close",
                    ));
                };
                self.client
                    .call::<TabsClose>(&CloseTabParams { tab_id: Some(tab) })
                    .await?;
                if self.current == Some(tab) {
                    self.current = None;
                    self.dialog = None;
                }
                self.drain();
                let list = self.client.call::<TabsList>(&Empty {}).await?;
                Ok(ToolOutput::text(format!(
                    "### Result\nClosed tab {tab}\n\n### Open tabs\n{}",
                    tabs_text(&list, self.current)
                )))
            }
            TabsAction::Select => {
                let Some(tab) = self.resolve_tab(&a).await? else {
                    return Err(ToolFailure::invalid("`select` needs `index` or `tabId`"));
                };
                let note = self.select(tab).await?;
                let mut line = format!("Selected tab {tab} (now the current tab)");
                if let Some(note) = note {
                    line.push('\n');
                    line.push_str(&note);
                }
                Ok(self.with_snapshot(line).await)
            }
        }
    }

    /// The tab `index` or `tabId` names, if either is given.
    async fn resolve_tab(&mut self, a: &TabsArgs) -> Result<Option<TabId>, ToolFailure> {
        if let Some(id) = a.tab_id {
            return Ok(Some(TabId(id)));
        }
        let Some(index) = a.index else {
            return Ok(None);
        };
        let list = self.client.call::<TabsList>(&Empty {}).await?;
        match list.tabs.get(index) {
            Some(t) => Ok(Some(t.id)),
            None => Err(ToolFailure::new(
                ErrorKind::TabNotShared,
                format!(
                    "no shared tab at index {index} ({} shared)",
                    list.tabs.len()
                ),
            )),
        }
    }

    async fn wait_for(&mut self, a: WaitForArgs) -> Result<ToolOutput, ToolFailure> {
        let waits = wait_params(&a)?;
        let mut waited = 0;
        for w in &waits {
            waited += self.observe::<Wait>(w).await?.waited_ms;
        }
        let mut what = Vec::new();
        if let Some(t) = a.time {
            what.push(format!("{t} s"));
        }
        if let Some(t) = &a.text_gone {
            what.push(format!("\"{t}\" to disappear"));
        }
        if let Some(t) = &a.text {
            what.push(format!("\"{t}\" to appear"));
        }
        Ok(self
            .with_snapshot(format!("Waited for {} ({waited} ms)", what.join(", then ")))
            .await)
    }

    async fn evaluate(&mut self, a: EvaluateArgs) -> Result<ToolOutput, ToolFailure> {
        if !self.developer_mode().await? {
            return Err(ToolFailure::new(
                ErrorKind::DeveloperModeOff,
                "developer mode is off: the person can turn it on in the cotab popup",
            ));
        }
        if a.target.is_some() || a.element.is_some() {
            return Err(ToolFailure::invalid(
                "browser_evaluate does not take an element here: find it inside the function \
                 (e.g. with document.querySelector)",
            ));
        }
        let r = self
            .act::<Evaluate>(&EvaluateParams {
                expression: format!("({})()", a.function),
                await_promise: Some(true),
            })
            .await?;
        if let Some(e) = r.exception {
            return Err(ToolFailure::new(
                ErrorKind::CommandFailed,
                format!("the function threw: {e}"),
            ));
        }
        let value = serde_json::to_string_pretty(&r.value).unwrap_or_else(|_| "null".into());
        self.saved_or_text(a.filename, Some("Result"), value).await
    }
}

/// Runs `bridge` as a task serving `requests` until they end, then ends
/// the session.
pub(crate) fn spawn(
    mut bridge: Bridge,
    mut requests: mpsc::Receiver<Request>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            tokio::select! {
                request = requests.recv() => match request {
                    None | Some(Request::End) => break,
                    Some(Request::Tool(call, reply)) => {
                        // The MCP side may have given up on the call
                        // (cancelled); the result then has no reader.
                        let _ = reply.send(bridge.run(call).await);
                    }
                    Some(Request::DeveloperMode(reply)) => {
                        let _ = reply.send(bridge.developer_mode().await);
                    }
                },
                msg = bridge.client.next_message(), if !bridge.closed => match msg {
                    Ok(msg) if msg.get("id").is_none() => bridge.on_notification(msg),
                    // A response nobody waits for (a call cancelled before
                    // its answer): nothing to do with it.
                    Ok(_) => {}
                    Err(_) => bridge.closed = true,
                },
            }
        }
        bridge.close().await;
    })
}

/// The `page.wait` calls of a `browser_wait_for`, in Playwright's order:
/// the time, then the text to go, then the text to come.
pub(crate) fn wait_params(a: &WaitForArgs) -> Result<Vec<WaitParams>, ToolFailure> {
    let mut waits = Vec::new();
    if let Some(seconds) = a.time {
        if !(0.0..=300.0).contains(&seconds) {
            return Err(ToolFailure::invalid("`time` must be 0 to 300 seconds"));
        }
        waits.push(WaitParams {
            // Rounded to whole milliseconds: the bound above keeps it small.
            time_ms: Some((seconds * 1000.0).round() as u64),
            ..WaitParams::until(WaitUntil::Time)
        });
    }
    if let Some(text) = &a.text_gone {
        waits.push(WaitParams {
            text: Some(text.clone()),
            ..WaitParams::until(WaitUntil::TextGone)
        });
    }
    if let Some(text) = &a.text {
        waits.push(WaitParams {
            text: Some(text.clone()),
            ..WaitParams::until(WaitUntil::Text)
        });
    }
    if waits.is_empty() {
        return Err(ToolFailure::invalid(
            "give `time`, `text` or `textGone` to wait for",
        ));
    }
    Ok(waits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wait_for_runs_time_then_gone_then_text() {
        let waits = wait_params(&WaitForArgs {
            time: Some(1.5),
            text: Some("Done".into()),
            text_gone: Some("Loading".into()),
        })
        .expect("valid");
        let waits: Vec<Value> = waits
            .iter()
            .map(|w| serde_json::to_value(w).expect("serialises"))
            .collect();
        assert_eq!(
            waits,
            vec![
                json!({"until":"time","timeMs":1500}),
                json!({"until":"textGone","text":"Loading"}),
                json!({"until":"text","text":"Done"}),
            ]
        );
        let none = WaitForArgs {
            time: None,
            text: None,
            text_gone: None,
        };
        assert_eq!(
            wait_params(&none).map(|_| ()).map_err(|e| e.kind),
            Err(Some(ErrorKind::InvalidRequest))
        );
        let negative = WaitForArgs {
            time: Some(-1.0),
            ..none
        };
        assert!(wait_params(&negative).is_err());
    }

    #[test]
    fn failures_start_with_the_kind() {
        let e = ToolFailure::from(ClientError::Rpc(cotab_shared::controller::RpcError::new(
            cotab_shared::controller::SERVER_ERROR,
            ErrorKind::StaleRef,
            "take a new snapshot",
        )));
        assert_eq!(e.to_string(), "STALE_REF: take a new snapshot");
        let e = ToolFailure::from(ClientError::Closed);
        assert!(e.to_string().starts_with("the connection"), "{e}");
    }
}
