//! The bridge task ([`spawn`]): the MCP side's requests ([`Request`]),
//! served one at a time, each tool call run by the method of the bridge
//! the tool table names ([`ToolCall::run`]), and the daemon's
//! notifications read between them.

use super::bridge::Bridge;
use super::outcome::{ToolFailure, ToolOutput};
use super::tools::ToolCall;
use tokio::sync::{mpsc, oneshot};

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
                        // (cancelled); the result then has no reader, and
                        // the model did not see the page it showed.
                        if reply.send(call.run(&mut bridge).await).is_err() {
                            bridge.unseen();
                        }
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
