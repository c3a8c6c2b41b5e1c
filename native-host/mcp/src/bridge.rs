//! The MCP server's side of the controller link: one daemon session
//! (agent `cotab-mcp`), the "current tab" the tools act on, the calls
//! every tool makes through it (observe, act, a fresh snapshot after an
//! action), and the tools that are mostly that (`browser_tabs`,
//! `browser_wait_for`, `browser_evaluate`).
//!
//! A [`Bridge`] owns the [`Client`]; [`super::dispatch`] runs it as one
//! task that serves tool calls one at a time and, between them, reads the
//! daemon's notifications (developer mode, dialogs, closed tabs). It knows
//! nothing of MCP framing: [`super`] turns its answers into MCP results.

use super::answers::{
    downloads, modal_states, opened_tabs, page_changes, refused_navigations, tabs_text,
};
use super::args::{EvaluateArgs, TabsAction, TabsArgs, WaitForArgs};
use super::changes::{Seen, Set, Shows, SnapshotMode};
use super::files::Files;
use super::outcome::{ToolFailure, ToolOutput};
use super::McpServeError;
use cotab_client::{Client, ClientError, KeptSessionError};
use cotab_core::outline;
use cotab_shared::controller::{
    Acquire, Acted, AgentEvent, Bye, CloseTabParams, CreateTabParams, DialogInfo, Empty, Evaluate,
    EvaluateParams, Method, Notification, SelectParams, Snapshot, SnapshotParams, SnapshotResult,
    Status, TabsClose, TabsCreate, TabsList, TabsSelect, Wait, WaitParams, WaitUntil,
};
use cotab_shared::limits::{DEFAULT_SNAPSHOT_CHARS, MAX_SNAPSHOT_CHARS};
use cotab_shared::{ErrorKind, TabId};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use tokio::sync::mpsc;

/// How many refused navigations one answer tells at most.
const REFUSALS_TOLD: usize = 4;

/// How long `browser_tabs` `select` of an index past the shared tabs
/// waits for a tab the current page is opening.
const OPENING_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// How often it looks again meanwhile.
const OPENING_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// The agent name the MCP server's session shows the person.
pub(crate) const AGENT_NAME: &str = "cotab-mcp";

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
        // A failure the client learns later: the session could not start.
        Err(other) => Err(McpServeError::Initialize(other.to_string())),
    }
}

/// The daemon session behind the MCP server.
#[derive(Debug)]
pub(crate) struct Bridge {
    pub(super) client: Client,
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
    /// Why the current tab's navigations were refused since the last
    /// answer (its sites: [`AgentEvent::NavigationRefused`]).
    refused: Vec<String>,
    /// What became of the current tab's downloads that wait for the
    /// person since the last answer (a line each).
    downloads: Vec<String>,
    /// Developer mode as last seen.
    developer_mode: bool,
    /// Where the coordinate tools last put the mouse (screenshot pixels).
    pub(super) pointer: Option<(f64, f64)>,
    /// Where tools write the files they are asked for.
    pub(super) files: Files,
    /// Told when developer mode changed (the tool list changes with it).
    tools_changed: mpsc::UnboundedSender<()>,
    /// The daemon closed the connection; nothing more to read.
    pub(super) closed: bool,
    /// What an action's answer shows of the page.
    snapshot_mode: SnapshotMode,
    /// The outline the model was last shown of each tab.
    seen: Seen,
    /// The videos started, by tab, with the file name each was asked to
    /// be saved to.
    pub(super) video_names: Vec<(TabId, Option<String>)>,
}

impl Bridge {
    /// Opens the session on `client` (or resumes the kept one) and reads
    /// developer mode.
    pub(crate) async fn open(
        mut client: Client,
        session: SessionMode,
        files: Files,
        snapshot_mode: SnapshotMode,
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
            refused: Vec::new(),
            downloads: Vec::new(),
            developer_mode: status.developer_mode,
            pointer: None,
            files,
            tools_changed,
            closed: false,
            snapshot_mode,
            seen: Seen::default(),
            video_names: Vec::new(),
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

    /// What an outline of the whole page is asked for with: in
    /// [`SnapshotMode::Diff`], all of it (up to the largest `maxChars`),
    /// so that changes past where the model is shown it cut are changes
    /// too, never lines that only fell out of view; else the outline the
    /// model is shown.
    pub(super) fn whole_outline(&self) -> SnapshotParams {
        SnapshotParams {
            max_chars: (self.snapshot_mode == SnapshotMode::Diff).then_some(MAX_SNAPSHOT_CHARS),
            ..SnapshotParams::default()
        }
    }

    /// The model is shown `s`, the current tab's whole outline: with
    /// [`SnapshotMode::Diff`], the next action's answer says what changed
    /// since.
    pub(super) fn shown_whole(&mut self, s: &SnapshotResult) {
        if let (Some(tab), SnapshotMode::Diff) = (self.current, self.snapshot_mode) {
            self.seen.shown(tab, s);
        }
    }

    /// The last answer never reached the model: what it showed of the
    /// current tab's page is not what the next one compares with.
    pub(super) fn unseen(&mut self) {
        if let Some(tab) = self.current {
            self.seen.forget(tab);
        }
    }

    /// Makes `tab` the current tab. An outline the model saw of it before
    /// it went to other tabs may have left its mind: the next answer on
    /// it shows the page whole.
    fn set_current(&mut self, tab: TabId) {
        if self.current != Some(tab) {
            self.seen.forget(tab);
        }
        self.current = Some(tab);
    }

    pub(super) fn on_notification(&mut self, msg: Value) {
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
            AgentEvent::NavigationRefused {
                tab_id, message, ..
            } if Some(tab_id) == self.current && self.refused.len() < REFUSALS_TOLD => {
                self.refused.push(message);
            }
            AgentEvent::ApprovalPending {
                tab_id: Some(tab_id),
                ask: cotab_shared::watch::AskBefore::Download,
                what,
                ..
            } if Some(tab_id) == self.current && self.downloads.len() < REFUSALS_TOLD => {
                self.downloads
                    .push(format!("{what}: waits for the person's yes"));
            }
            AgentEvent::DownloadAnswered {
                tab_id,
                site,
                file,
                saved,
            } if Some(tab_id) == self.current && self.downloads.len() < REFUSALS_TOLD => {
                let from = if site.is_empty() {
                    String::new()
                } else {
                    format!(" from {site}")
                };
                self.downloads.push(if saved {
                    format!("“{file}”{from}: saved, the person approved it")
                } else {
                    format!("“{file}”{from}: not saved, the person did not approve it")
                });
            }
            AgentEvent::TabClosed { tab_id } => {
                self.seen.forget(tab_id);
                if Some(tab_id) == self.current {
                    self.current = None;
                    self.dialog = None;
                }
            }
            _ => {}
        }
    }

    /// Handles what `client` forwarded during the last calls.
    pub(super) fn drain(&mut self) {
        while let Ok(msg) = self.forwarded.try_recv() {
            self.on_notification(msg);
        }
    }

    pub(super) async fn developer_mode(&mut self) -> Result<bool, ToolFailure> {
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
    pub(super) async fn select(&mut self, tab: TabId) -> Result<Option<String>, ToolFailure> {
        self.client
            .call::<TabsSelect>(&SelectParams { tab_id: tab })
            .await?;
        self.set_current(tab);
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
    pub(super) async fn ensure_tab(&mut self) -> Result<TabId, ToolFailure> {
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

    /// `result` followed by the current tab's page after it, as the
    /// snapshot mode says ([`SnapshotMode`]: what changed since the model
    /// last saw it, by default), so the model can go on — unless a dialog
    /// is open: the page waits for it, and the answer says how to handle
    /// it.
    pub(super) async fn with_snapshot(&mut self, result: String) -> ToolOutput {
        self.with_snapshot_set(result, Vec::new()).await
    }

    /// [`Bridge::with_snapshot`] after an action that gave the elements of
    /// `set` (by ref) their values: the model knows them, so lines that
    /// show them so are no change to tell.
    pub(super) async fn with_snapshot_set(
        &mut self,
        result: String,
        set: Vec<(String, Set)>,
    ) -> ToolOutput {
        let page = self.page_after(set).await;
        // Told after the page was read: a tab the action opened is
        // heard of by then, as a rule.
        self.drain();
        let mut text = format!("### Result\n{result}\n\n");
        let current = self.current;
        let opened: Vec<_> = std::mem::take(&mut self.opened)
            .into_iter()
            .filter(|t| Some(t.id) != current)
            .collect();
        text.push_str(&opened_tabs(&opened));
        text.push_str(&refused_navigations(&std::mem::take(&mut self.refused)));
        text.push_str(&downloads(&std::mem::take(&mut self.downloads)));
        text.push_str(&page);
        ToolOutput::text(text)
    }

    /// What an answer shows of the current tab's page ([`Bridge::with_snapshot_set`]).
    async fn page_after(&mut self, set: Vec<(String, Set)>) -> String {
        let mut text = String::new();
        if let Some(d) = &self.dialog {
            text.push_str("### Page\n(the page waits for the dialog below)\n");
            text.push_str(&modal_states(Some(d), None));
            return text;
        }
        if self.snapshot_mode == SnapshotMode::None {
            return text;
        }
        let snapshot = self.observe::<Snapshot>(&self.whole_outline()).await;
        match snapshot {
            Ok(mut s) => {
                let cut = outline::cut(&s.text, DEFAULT_SNAPSHOT_CHARS);
                let shown = cut.as_ref().map_or(s.text.len(), String::len);
                let shows = match (self.current, self.snapshot_mode) {
                    (Some(tab), SnapshotMode::Diff) => self.seen.show(tab, &s, shown, &set),
                    _ => Shows::Whole(None),
                };
                if let (Some(cut), Shows::Whole(_)) = (cut, &shows) {
                    (s.text, s.truncated) = (cut, true);
                }
                text.push_str(&page_changes(&s, self.dialog.as_ref(), &shows));
            }
            Err(e) => {
                let _ = writeln!(text, "### Page\n(no snapshot: {e})");
                text.push_str(&modal_states(self.dialog.as_ref(), None));
            }
        }
        text
    }

    pub(super) async fn tabs(&mut self, a: TabsArgs) -> Result<ToolOutput, ToolFailure> {
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
                self.set_current(r.tab_id);
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
    pub(super) async fn resolve_tab(&mut self, a: &TabsArgs) -> Result<Option<TabId>, ToolFailure> {
        if let Some(id) = a.tab_id {
            return Ok(Some(TabId(id)));
        }
        let Some(index) = a.index else {
            return Ok(None);
        };
        // A tab the page just opened (a link with a target, after a click
        // that answered already) is shared a moment later: an index past
        // the list is looked for again, a little.
        let deadline = tokio::time::Instant::now() + OPENING_WAIT;
        let list = loop {
            let list = self.client.call::<TabsList>(&Empty {}).await?;
            if list.tabs.len() > index || tokio::time::Instant::now() >= deadline {
                break list;
            }
            tokio::time::sleep(OPENING_POLL).await;
        };
        self.drain();
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

    pub(super) async fn wait_for(&mut self, a: WaitForArgs) -> Result<ToolOutput, ToolFailure> {
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

    pub(super) async fn evaluate(&mut self, a: EvaluateArgs) -> Result<ToolOutput, ToolFailure> {
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
