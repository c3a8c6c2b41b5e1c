//! Following a navigation an action caused (a link, a script, a form
//! submitted with Enter): what the browser reported while the action ran
//! says whether the main frame started one ([`Navigation`]); if so the
//! action answers once the new document has committed and fired its load
//! event, as Playwright's actions wait for the navigations they start.

use super::{wire, Cx};
use crate::lane::CdpEvent;
use cotab_shared::cdp::{
    CdpCommand, CdpEvent as _, Evaluate, FrameNavigated, FrameRequestedNavigation,
    FrameStartedNavigating, FrameStoppedLoading, GetFrameTree, LoadEventFired,
    NavigatedWithinDocument,
};
use cotab_shared::controller::RpcError;
use cotab_shared::native::{CdpCall, Command};
use cotab_shared::ErrorKind;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::{self, error::RecvError, error::TryRecvError};
use tokio::time::Instant;

/// How long a navigation the page asked for may take to start in the
/// browser before the action answers without it (it was cancelled, or
/// went to another tab or a download).
pub(crate) const NAVIGATION_START_MS: u64 = 1_000;

/// Where the main frame's navigation is, as the browser reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Navigation {
    /// None was asked for.
    #[default]
    None,
    /// The page asked for one in this tab.
    Requested,
    /// The browser started it.
    Started,
    /// The new document committed.
    Committed,
    /// It loaded, stayed in the document, or stopped without a new one.
    Done,
}

impl Navigation {
    /// The state after the event `method` with `params` of the tab whose
    /// main frame is `main`.
    pub(crate) fn see(self, method: &str, params: &Value, main: &str) -> Navigation {
        let next = match method {
            FrameRequestedNavigation::METHOD => {
                match FrameRequestedNavigation::parse(method, params) {
                    Some(r) if r.frame_id == main && r.disposition == "currentTab" => {
                        Navigation::Requested
                    }
                    _ => self,
                }
            }
            FrameStartedNavigating::METHOD => match FrameStartedNavigating::parse(method, params) {
                Some(s) if s.frame_id == main => {
                    if s.navigation_type
                        .to_ascii_lowercase()
                        .contains("samedocument")
                    {
                        Navigation::Done
                    } else {
                        Navigation::Started
                    }
                }
                _ => self,
            },
            FrameNavigated::METHOD => match FrameNavigated::parse(method, params) {
                Some(n) if n.frame.parent_id.is_none() => Navigation::Committed,
                _ => self,
            },
            NavigatedWithinDocument::METHOD => match NavigatedWithinDocument::parse(method, params)
            {
                Some(n) if n.frame_id == main && self < Navigation::Committed => Navigation::Done,
                _ => self,
            },
            LoadEventFired::METHOD if self == Navigation::Committed => Navigation::Done,
            FrameStoppedLoading::METHOD => match FrameStoppedLoading::parse(method, params) {
                Some(s) if s.frame_id == main && self > Navigation::None => Navigation::Done,
                _ => self,
            },
            _ => self,
        };
        // A later report never takes it back (a second request while the
        // first commits is the same navigation going on).
        next.max(self)
    }

    /// Whether the action waits for more.
    pub(crate) fn pending(self) -> bool {
        matches!(
            self,
            Navigation::Requested | Navigation::Started | Navigation::Committed
        )
    }
}

/// The probe's expression: nothing to compute, only the trip.
const SETTLE: &str = cotab_shared::native::SETTLE_EXPRESSION;

/// Moves what `events` holds for `tab` into `seen`.
fn drain(
    events: &mut broadcast::Receiver<Arc<CdpEvent>>,
    tab: cotab_shared::TabId,
    seen: &mut Vec<Arc<CdpEvent>>,
) {
    loop {
        match events.try_recv() {
            Ok(ev) if ev.tab_id == tab => seen.push(ev),
            Ok(_) | Err(TryRecvError::Lagged(_)) => {}
            Err(TryRecvError::Empty | TryRecvError::Closed) => break,
        }
    }
}

/// Whether `method` says something about a navigation.
fn is_navigation(method: &str) -> bool {
    [
        FrameRequestedNavigation::METHOD,
        FrameStartedNavigating::METHOD,
        FrameNavigated::METHOD,
        NavigatedWithinDocument::METHOD,
    ]
    .contains(&method)
}

impl Cx<'_> {
    /// After an action that succeeded: when what the browser reported
    /// since `events` was subscribed (before the action) shows a navigation
    /// of the main frame of the tab the action went to, waits until it is
    /// done — committed and loaded, within the document, or stopped — and
    /// until the request's deadline (`TIMEOUT`); a navigation asked for
    /// that does not start within [`NAVIGATION_START_MS`] is not waited
    /// for. A dialog that opens meanwhile ends the wait (`DIALOG_OPEN`, so
    /// the action answers with the dialog). No navigation: no wait, but one
    /// trip through the page to be sure ([`Cx::settle`]).
    pub(super) async fn follow_navigation(
        &self,
        events: &mut broadcast::Receiver<Arc<CdpEvent>>,
    ) -> Result<(), RpcError> {
        let Some(tab) = self.cut.tab() else {
            return Ok(());
        };
        let mut seen = Vec::new();
        drain(events, tab, &mut seen);
        if !seen.iter().any(|e| is_navigation(&e.method)) {
            // The page's reports and the action's answer come by different
            // ways: one trip through the page's main thread on the same
            // session brings every report it made before. A settled input
            // made that trip before it answered.
            if !self.cut.was_settled(tab) {
                self.settle(tab).await?;
            }
            drain(events, tab, &mut seen);
            if !seen.iter().any(|e| is_navigation(&e.method)) {
                return Ok(());
            }
        }
        let main = match seen.iter().find_map(|e| {
            FrameNavigated::parse(&e.method, &e.params)
                .filter(|n| n.frame.parent_id.is_none())
                .map(|n| n.frame.id)
        }) {
            Some(id) => id,
            None => self.main_frame(tab).await?,
        };
        let mut nav = seen
            .iter()
            .fold(Navigation::None, |n, e| n.see(&e.method, &e.params, &main));
        let start_by = Instant::now() + Duration::from_millis(NAVIGATION_START_MS);
        let wait = async {
            while nav.pending() {
                let requested = nav == Navigation::Requested;
                let until = if requested {
                    start_by.min(self.deadline)
                } else {
                    self.deadline
                };
                match tokio::time::timeout_at(until, events.recv()).await {
                    Err(_) if requested => return Ok(()),
                    Err(_) => {
                        return Err(wire(
                            ErrorKind::Timeout,
                            "the action was done, but the page it led to did not finish \
                             loading before the deadline",
                        ))
                    }
                    Ok(Ok(ev)) if ev.tab_id == tab => nav = nav.see(&ev.method, &ev.params, &main),
                    Ok(Ok(_)) | Ok(Err(RecvError::Lagged(_))) => {}
                    Ok(Err(RecvError::Closed)) => {
                        return Err(wire(ErrorKind::RuntimeLost, "the browser lane went away"))
                    }
                }
            }
            Ok(())
        };
        self.unless_dialog(tab, wait).await
    }

    /// One trip through `tab`'s main thread on its debugger session (class
    /// Observe): the answer comes after every report the page made before
    /// it ran. A dialog that opens meanwhile ends it (`DIALOG_OPEN`); a
    /// page that went away (a navigation) ends it too, which is what it
    /// looks for.
    async fn settle(&self, tab: cotab_shared::TabId) -> Result<(), RpcError> {
        let probe = Evaluate::by_value(SETTLE);
        let call = self.extension(Command::Observe(CdpCall::new(
            tab,
            Evaluate::METHOD,
            probe.params(),
        )));
        match self.unless_dialog(tab, call).await {
            Err(e) if e.kind() == ErrorKind::DialogOpen || e.kind() == ErrorKind::TabNotShared => {
                Err(e)
            }
            _ => Ok(()),
        }
    }

    /// The id of `tab`'s main frame (`Page.getFrameTree`, class Observe).
    async fn main_frame(&self, tab: cotab_shared::TabId) -> Result<String, RpcError> {
        let tree = self
            .extension(Command::Observe(CdpCall::new(
                tab,
                GetFrameTree::METHOD,
                GetFrameTree {}.params(),
            )))
            .await?;
        Ok(GetFrameTree::response(tree)?.frame_tree.frame.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(events: &[(&str, Value)]) -> Navigation {
        events
            .iter()
            .fold(Navigation::None, |n, (m, p)| n.see(m, p, "M"))
    }

    #[test]
    fn a_navigation_is_done_once_its_document_loaded() {
        let requested = (
            FrameRequestedNavigation::METHOD,
            json!({"frameId": "M", "disposition": "currentTab", "reason": "anchorClick"}),
        );
        let started = (
            FrameStartedNavigating::METHOD,
            json!({"frameId": "M", "navigationType": "differentDocument"}),
        );
        let committed = (
            FrameNavigated::METHOD,
            json!({"frame": {"id": "M", "loaderId": "L2", "url": "http://a/2"}}),
        );
        let loaded = (LoadEventFired::METHOD, json!({"timestamp": 1.0}));
        assert_eq!(run(std::slice::from_ref(&requested)), Navigation::Requested);
        assert_eq!(
            run(&[requested.clone(), started.clone()]),
            Navigation::Started
        );
        assert_eq!(
            run(&[requested.clone(), started.clone(), committed.clone()]),
            Navigation::Committed
        );
        assert_eq!(
            run(&[
                requested.clone(),
                started,
                committed.clone(),
                loaded.clone()
            ]),
            Navigation::Done
        );
        // The old document's load is not the new one's.
        assert_eq!(
            run(&[loaded.clone(), requested.clone()]),
            Navigation::Requested
        );
        // A navigation that stops without a document (a download, a 204).
        let stopped = (FrameStoppedLoading::METHOD, json!({"frameId": "M"}));
        assert_eq!(run(&[requested, stopped]), Navigation::Done);
        assert!(!Navigation::Done.pending() && !Navigation::None.pending());
    }

    #[test]
    fn other_frames_tabs_and_documents_are_not_waited_for() {
        assert_eq!(
            run(&[(
                FrameRequestedNavigation::METHOD,
                json!({"frameId": "child", "disposition": "currentTab"})
            )]),
            Navigation::None
        );
        assert_eq!(
            run(&[(
                FrameRequestedNavigation::METHOD,
                json!({"frameId": "M", "disposition": "newTab"})
            )]),
            Navigation::None
        );
        assert_eq!(
            run(&[(
                FrameNavigated::METHOD,
                json!({"frame": {"id": "c", "parentId": "M", "loaderId": "L", "url": "http://a/f"}})
            )]),
            Navigation::None
        );
        // A jump within the document.
        assert_eq!(
            run(&[
                (
                    FrameStartedNavigating::METHOD,
                    json!({"frameId": "M", "navigationType": "sameDocument"})
                ),
                (NavigatedWithinDocument::METHOD, json!({"frameId": "M"})),
            ]),
            Navigation::Done
        );
        assert_eq!(
            run(&[(NavigatedWithinDocument::METHOD, json!({"frameId": "M"}))]),
            Navigation::Done
        );
    }
}
