//! File choosers an agent's input opens ([`crate::broker`]'s `chooser`):
//! turning interception on before the input goes out, and answering the
//! chooser that waits (`input.setFiles` without a ref).

use super::Cx;
use crate::broker::{ChooserMark, Fence, NodeRef, WaitingChooser};
use crate::shell::intercept;
use cotab_shared::controller::{FileChooserInfo, RpcError};
use cotab_shared::TabId;
use std::sync::PoisonError;

impl Cx<'_> {
    /// Before an agent's press on the fence's tab: choosers the page opens
    /// from it are intercepted ([`crate::broker::INTERCEPT_GRACE`]), and
    /// the request remembers how many had opened, so its answer names a
    /// new one ([`Cx::acted`]). A tab that refuses interception is driven
    /// all the same (its choosers show, as they would without cotab).
    ///
    /// An "on" is sent at once, and the press waits for its answer
    /// ([`Cx::interception_on`]) before it goes: the browser takes an
    /// input event and a command of the page's domain by different ways,
    /// so a click sent right behind the "on" may reach the page first and
    /// show its chooser to nobody.
    pub(super) fn intercept_choosers(&self, fence: &Fence) -> Result<(), RpcError> {
        // One change of interception at a time, decided and sent together,
        // so an "off" for a grace that ended never overtakes the "on" of
        // the input after it.
        let _one = self
            .shell
            .choosers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let now = std::time::Instant::now();
        let mark = self.core(|c| c.intercept_choosers(fence, now))?;
        self.cut
            .chooser
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert((fence.tab, mark));
        if mark.enable {
            match self.shell.lane.send_now(&intercept(fence.tab, true)) {
                Some(answer) => self.cut.set_intercepting(answer),
                None => {
                    tracing::warn!(tab = %fence.tab, "file choosers not intercepted: the browser link is busy or gone");
                    self.core(|c| c.intercept_refused(fence.tab));
                }
            }
        }
        Ok(())
    }

    /// Waits, until the request's deadline, for the answer to the "on"
    /// the request's press sent ([`Cx::intercept_choosers`]), if one is
    /// outstanding. A refusal drives the tab all the same.
    pub(super) async fn interception_on(&self) {
        let Some(answer) = self.cut.take_intercepting() else {
            return;
        };
        match tokio::time::timeout_at(self.deadline, answer).await {
            Ok(Ok(Ok(_))) => {}
            Ok(Ok(Err(e))) => {
                tracing::debug!(kind = ?e.kind, "the page refused to intercept file choosers")
            }
            Ok(Err(_)) | Err(_) => {}
        }
    }

    /// The chooser the request's input opened, if one did.
    pub(super) fn chooser_opened(&self) -> Option<FileChooserInfo> {
        let mark: Option<(TabId, ChooserMark)> = *self
            .cut
            .chooser
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (tab, mark) = mark?;
        self.core(|c| c.chooser_since(tab, &mark))
    }

    /// The chooser waiting on the fence's tab (`INVALID_REQUEST` if none).
    pub(super) fn waiting_chooser(&self, fence: &Fence) -> Result<WaitingChooser, RpcError> {
        Ok(self.core(|c| c.waiting_chooser(fence))?)
    }

    /// The files were set on `node`: the chooser `answered` (the one
    /// `input.setFiles` answered without a ref), or else one `node`
    /// opened, no longer waits.
    pub(super) fn files_set(&self, fence: &Fence, node: &NodeRef, answered: Option<u64>) {
        self.core(|c| match answered {
            Some(n) => c.chooser_answered(fence.tab, Some(n)),
            None => c.files_set_on(fence.tab, node),
        });
    }
}
