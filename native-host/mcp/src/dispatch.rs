//! The bridge task ([`spawn`]): the MCP side's requests ([`Request`]),
//! served one at a time, each tool call run by the tool that answers it
//! ([`Bridge::run`]), and the daemon's notifications read between them.

use super::answers::{click_line, console_text, dialog_kind, named, quoted_list};
use super::args::{DragArgs, ElementArgs, HandleDialogArgs, SelectOptionArgs, TabsArgs};
use super::bridge::Bridge;
use super::outcome::{ToolFailure, ToolOutput};
use super::params::{click_params, console_params};
use super::tools::ToolCall;
use cotab_core::keys;
use cotab_shared::controller::{
    Console, DialogParams, DragParams, HoverParams, Navigate, NavigateAction, NavigateParams,
    Press, PressParams, Ref, SelectOption, SelectOptionParams,
};
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

impl Bridge {
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
