//! The tools about the current tab's page as a whole: `browser_navigate`,
//! `browser_navigate_back`, `browser_close`, `browser_handle_dialog`,
//! `browser_console_messages`.

use super::answers::{console_text, dialog_kind};
use super::args::{ConsoleArgs, HandleDialogArgs, NavigateArgs, NoArgs, TabsArgs};
use super::bridge::Bridge;
use super::outcome::{ToolFailure, ToolOutput};
use super::params::console_params;
use cotab_shared::controller::{
    Console, Dialog, DialogParams, Navigate, NavigateAction, NavigateParams,
};

impl Bridge {
    /// `browser_navigate`.
    pub(super) async fn navigate(&mut self, a: NavigateArgs) -> Result<ToolOutput, ToolFailure> {
        let r = self.act::<Navigate>(&NavigateParams::to(a.url)).await?;
        Ok(self
            .with_snapshot(format!("Navigated to {} ({})", r.url, r.title))
            .await)
    }

    /// `browser_navigate_back`.
    pub(super) async fn navigate_back(&mut self, _: NoArgs) -> Result<ToolOutput, ToolFailure> {
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

    /// `browser_close`: the current tab, as `browser_tabs` `close` does.
    pub(super) async fn close_tab(&mut self, _: NoArgs) -> Result<ToolOutput, ToolFailure> {
        self.tabs(TabsArgs::close_current()).await
    }

    /// `browser_handle_dialog`.
    pub(super) async fn handle_dialog(
        &mut self,
        a: HandleDialogArgs,
    ) -> Result<ToolOutput, ToolFailure> {
        let what = self
            .dialog
            .as_ref()
            .map(|d| format!("the {} dialog", dialog_kind(d.kind)))
            .unwrap_or_else(|| "the dialog".into());
        let answered = self
            .act::<Dialog>(&DialogParams {
                accept: a.accept,
                prompt_text: a.prompt_text,
            })
            .await?;
        // The next dialog of a chain, if the answer led to one.
        self.dialog = answered.dialog;
        let verb = if a.accept { "Accepted" } else { "Dismissed" };
        Ok(self.with_snapshot(format!("{verb} {what}")).await)
    }

    /// `browser_console_messages`.
    pub(super) async fn console_messages(
        &mut self,
        a: ConsoleArgs,
    ) -> Result<ToolOutput, ToolFailure> {
        let r = self
            .observe::<Console>(&console_params(a.level, a.all))
            .await?;
        self.saved_or_text(a.filename, None, console_text(&r)).await
    }
}
