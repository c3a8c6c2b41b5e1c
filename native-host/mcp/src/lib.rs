//! `cotab mcp`: an MCP server on stdio (built on the `rmcp` SDK) that
//! offers the shared tabs to an LLM as Playwright-MCP-style tools
//! (`browser_snapshot`, `browser_click` by ref, …).
//!
//! - `tools`: the table of tools: names, argument types, descriptions and
//!   the bridge method that runs each; the opt-in `--caps`; decoding a
//!   `tools/call` and running it. `schema`: the JSON schema of each.
//! - `args`: the arguments of the tools without a module of their own.
//! - `bridge`: one daemon session (agent `cotab-mcp`) and the calls every
//!   tool makes with the controller protocol; the tools' methods in
//!   `page` (navigation, close, dialogs, console), `elements` (click,
//!   hover, select, drag), `form` (`browser_fill_form`), `keyboard`
//!   (`browser_press_key`, `browser_type`), `find` (`browser_find`), `drop`
//!   (`browser_drop`), `vision` (the
//!   coordinate tools of `--caps vision`), `output` (screenshots,
//!   snapshots and PDFs saved to files, which `files` writes and
//!   confines to the workspace), `emulation` (`browser_resize`,
//!   `browser_emulate_media`), `network` (`browser_network_requests`,
//!   `browser_network_request`), `params` (the params of tools that are one
//!   call) and `answers` (what the model reads back) beside it.
//! - this module: the MCP handler that lists and calls tools, tells the
//!   client when the tool list changes (developer mode), and the stdio
//!   wiring.
//!
//! It owns no protocol knowledge of its own: every action goes through
//! [`cotab_client::Client`], and the daemon enforces every rule (leases,
//! refs, developer mode). A broker error comes back as an MCP tool error
//! (`isError: true`) whose text starts with the error's kind, e.g.
//! `STALE_REF: …`.
//!
//! **Architecture Invariant:** stdout carries MCP messages only; nothing
//! here prints.

mod answers;
mod args;
mod bridge;
mod changes;
mod dispatch;
mod drop;
mod elements;
mod emulation;
mod files;
mod find;
mod form;
mod keyboard;
mod network;
mod outcome;
mod output;
mod page;
mod params;
mod schema;
mod tools;
mod upload;
mod video;
mod vision;

use bridge::Bridge;
pub use bridge::SessionMode;
pub use changes::SnapshotMode;
use cotab_client::{Client, ClientError};
use dispatch::Request;
pub use files::{Files, DEFAULT_OUTPUT_DIR};
use outcome::{ToolFailure, ToolOutput};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt as _};
use std::path::Path;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot};
use tools::{ArgsError, ToolCall};
pub use tools::{Cap, Caps};

/// What the server tells the model about itself at `initialize`.
const INSTRUCTIONS: &str = "These tools drive browser tabs that a person shared with you \
through cotab. The person can take control of a tab at any time; actions then fail with \
HUMAN_HAS_CONTROL until they hand it back. Start with browser_snapshot: it lists the page's \
elements with refs (e.g. [ref=e12]) that browser_click, browser_type and the other tools take. \
Refs belong to the latest snapshot: after STALE_REF, take a new one. Errors start with their \
kind (STALE_REF, NOT_INTERACTABLE, DIALOG_OPEN, NO_CONTROL, …).";

/// Why `cotab mcp` stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpServeError {
    /// The daemon could not be reached or refused the session.
    #[error(transparent)]
    Daemon(#[from] ClientError),
    /// The session file could not be written.
    #[error("cannot write the session file {path}: {source}")]
    SessionFile {
        /// The file.
        path: std::path::PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// The MCP client did not complete the MCP handshake.
    #[error("MCP initialisation failed: {0}")]
    Initialize(String),
    /// The MCP service ended with an error.
    #[error("MCP service failed: {0}")]
    Service(String),
}

/// The MCP handler: lists tools, forwards calls to the bridge task.
#[derive(Debug, Clone)]
struct CotabMcp {
    bridge: mpsc::Sender<Request>,
    /// The opt-in tool groups this server offers.
    caps: Caps,
}

impl CotabMcp {
    async fn developer_mode(&self) -> bool {
        let (tx, rx) = oneshot::channel();
        if self.bridge.send(Request::DeveloperMode(tx)).await.is_err() {
            return false;
        }
        // Without an answer (the daemon is gone) the privileged tool is
        // not offered.
        matches!(rx.await, Ok(Ok(true)))
    }

    async fn run(&self, call: ToolCall) -> Result<ToolOutput, ToolFailure> {
        let lost = || ToolFailure {
            kind: None,
            message: "the cotab session ended; restart the MCP server".into(),
        };
        let (tx, rx) = oneshot::channel();
        self.bridge
            .send(Request::Tool(call, tx))
            .await
            .map_err(|_| lost())?;
        rx.await.map_err(|_| lost())?
    }
}

/// An MCP tool result for what the bridge answered.
fn tool_result(outcome: Result<ToolOutput, ToolFailure>) -> CallToolResult {
    match outcome {
        Ok(out) => {
            let mut content = vec![ContentBlock::text(out.text)];
            if let Some((data, mime)) = out.image {
                content.push(ContentBlock::image(data, mime));
            }
            CallToolResult::success(content)
        }
        Err(e) => CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
    }
}

impl ServerHandler for CotabMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new("cotab", cotab_local::VERSION))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let developer_mode = self.developer_mode().await;
        Ok(ListToolsResult::with_all_items(tools::definitions(
            developer_mode,
            self.caps,
        )))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools::definitions(true, self.caps)
            .into_iter()
            .find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.unwrap_or_default();
        let offered = self.caps.offers(&request.name);
        let call = match ToolCall::parse(&request.name, args).and_then(|c| {
            if offered {
                Ok(c)
            } else {
                Err(ArgsError::UnknownTool)
            }
        }) {
            Ok(call) => call,
            Err(ArgsError::UnknownTool) => {
                return Err(McpError::invalid_params(
                    format!("unknown tool `{}`", request.name),
                    None,
                ))
            }
            // Bad arguments are the model's to fix: a tool error it reads.
            Err(e @ ArgsError::Invalid { .. }) => {
                return Ok(tool_result(Err(ToolFailure {
                    kind: Some(cotab_shared::ErrorKind::InvalidRequest),
                    message: e.to_string(),
                }))
                .into())
            }
        };
        Ok(tool_result(self.run(call).await).into())
    }
}

/// Serves MCP on `transport` (stdin/stdout for `cotab mcp`) with a session
/// on the daemon's agent socket at `agent_socket`, until the MCP client
/// closes the transport; then ends a [`SessionMode::Fresh`] daemon session
/// (`session.bye`).
pub async fn serve_on<R, W>(
    agent_socket: &Path,
    session: SessionMode,
    caps: Caps,
    files: Files,
    snapshot_mode: SnapshotMode,
    transport: (R, W),
) -> Result<(), McpServeError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let client = Client::connect(agent_socket).await?;
    let (changed_tx, mut changed_rx) = mpsc::unbounded_channel();
    let bridge = Bridge::open(client, session, files, snapshot_mode, changed_tx).await?;
    let (requests_tx, requests_rx) = mpsc::channel(16);
    let bridge_task = dispatch::spawn(bridge, requests_rx);
    let handler = CotabMcp {
        bridge: requests_tx.clone(),
        caps,
    };
    let service = handler
        .serve(transport)
        .await
        .map_err(|e| McpServeError::Initialize(e.to_string()))?;
    let peer = service.peer().clone();
    let notifier = tokio::spawn(async move {
        while changed_rx.recv().await.is_some() {
            // A client that went away cannot be told; the service ends too.
            let _ = peer.notify_tool_list_changed().await;
        }
    });
    let outcome = service.waiting().await;
    notifier.abort();
    // The MCP client is gone: the bridge ends the daemon session and stops.
    // A bridge task that already stopped has nothing left to end.
    if requests_tx.send(Request::End).await.is_ok() {
        let _ = bridge_task.await;
    }
    outcome
        .map(|_| ())
        .map_err(|e| McpServeError::Service(e.to_string()))
}

/// `cotab mcp`: serves MCP on stdin/stdout, with the opt-in tools of
/// `caps`, writing files where `files` says, answering actions with what
/// `snapshot_mode` shows of the page.
pub async fn serve_stdio(
    agent_socket: &Path,
    session: SessionMode,
    caps: Caps,
    files: Files,
    snapshot_mode: SnapshotMode,
) -> Result<(), McpServeError> {
    serve_on(
        agent_socket,
        session,
        caps,
        files,
        snapshot_mode,
        rmcp::transport::stdio(),
    )
    .await
}

#[cfg(test)]
mod tests;
