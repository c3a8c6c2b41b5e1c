//! What the contexts of one request share ([`Cut`]): the dialog that cut
//! it short, the tab it last talked to, its file-chooser interception,
//! its last settled input, what it aimed at, and whether it typed into a
//! field that takes no secret.

use crate::broker::ChooserMark;
use crate::lane::CallResult;
use cotab_shared::controller::DialogInfo;
use cotab_shared::TabId;
use std::sync::{Mutex, PoisonError};
use tokio::sync::oneshot;

/// Whether a dialog cut a request short: shared by the contexts of one
/// request (a part of it may run with a shorter deadline).
#[derive(Default)]
pub(super) struct Cut {
    /// The dialog that opened after the request had begun and cut it
    /// short ([`Cx::acted`]).
    pub(super) by: Mutex<Option<DialogInfo>>,
    /// The tab the request last talked to: set once the request has begun
    /// talking to the page (some step of it passed the dialog check,
    /// [`Cx::unless_dialog`]).
    pub(super) tab: Mutex<Option<TabId>>,
    /// The tab of the request's first press, and where its file choosers
    /// stood then ([`Cx::intercept_choosers`]).
    pub(super) chooser: Mutex<Option<(TabId, ChooserMark)>>,
    /// The answer to the request's "on" of file-chooser interception,
    /// while nothing waited for it ([`Cx::interception_on`]).
    pub(super) intercepting: Mutex<Option<oneshot::Receiver<CallResult>>>,
    /// The tab whose page the request's last step, an input
    /// ([`Command::Input`], which settles), went through after its events:
    /// every report the page made before then has arrived.
    pub(super) settled: Mutex<Option<TabId>>,
    /// What the request's action aimed at last, drawn for the person once
    /// it acted ([`crate::overlay`]).
    pub(super) aimed: Mutex<Option<(TabId, crate::overlay::Aimed)>>,
    /// The request typed into a field known not to take a secret
    /// ([`Cx::focus_for_typing`]): what it typed may be kept in the
    /// person's record as it is.
    pub(super) plain_field: Mutex<bool>,
}

impl Cut {
    pub(super) fn typed_in_plain_field(&self, plain: bool) {
        *self
            .plain_field
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = plain;
    }

    /// Whether the request typed into a field known not to take a secret.
    pub(super) fn plain_field(&self) -> bool {
        *self
            .plain_field
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The tab the request last talked to, if it began.
    pub(super) fn tab(&self) -> Option<TabId> {
        *self.tab.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn set_intercepting(&self, answer: oneshot::Receiver<CallResult>) {
        *self
            .intercepting
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(answer);
    }

    pub(super) fn take_intercepting(&self) -> Option<oneshot::Receiver<CallResult>> {
        self.intercepting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// The request's last step was an input on `tab` that went through its
    /// page after its events.
    pub(super) fn settled(&self, tab: TabId) {
        *self.settled.lock().unwrap_or_else(PoisonError::into_inner) = Some(tab);
    }

    /// Whether the request's last step went through `tab`'s page after it
    /// acted ([`Cut::settled`]).
    pub(super) fn was_settled(&self, tab: TabId) -> bool {
        *self.settled.lock().unwrap_or_else(PoisonError::into_inner) == Some(tab)
    }
}
