//! File choosers. A native file dialog an agent's click opened on the
//! person's screen is one the agent cannot answer and the person did not
//! ask for; one the person opened must show as always. So a tab
//! intercepts choosers (`Page.setInterceptFileChooserDialog`) only from an
//! agent's input until [`INTERCEPT_GRACE`] after its last one, and the
//! chooser that opened meanwhile waits for the agent (`input.setFiles`
//! without a ref) instead of showing.
//!
//! It owns: whether each tab intercepts and until when, the chooser
//! waiting on each tab and its input, and which choosers are new since an
//! action began. It does not own sending the commands (the handlers and
//! the shell do, one at a time: see the daemon's `Shell::choosers`).

use super::{Core, Effect, Fence, NodeRef, UndoCmd};
use cotab_shared::cdp::{CdpCommand as _, FileChooserOpened, SetInterceptFileChooserDialog};
use cotab_shared::controller::{AgentEvent, FileChooserInfo};
use cotab_shared::{ErrorKind, TabId, WireError};
use std::time::{Duration, Instant};

/// How long after an agent's last input on a tab a chooser the page opens
/// is the agent's: the page may open it from a handler that ran a little
/// later (after a fetch). Past it, and at once when the person takes
/// control, choosers show again (within a tick of the daemon, at most a
/// second more).
pub const INTERCEPT_GRACE: Duration = Duration::from_secs(1);

/// One tab's choosers.
#[derive(Debug, Default)]
pub(super) struct Choosers {
    /// The chooser waiting for the agent.
    waiting: Option<Waiting>,
    /// How many choosers opened on the tab so far.
    opened: u64,
    /// Intercepting until then; `None`: not intercepting.
    until: Option<Instant>,
}

#[derive(Debug, Clone)]
struct Waiting {
    info: FileChooserInfo,
    /// Its `<input type=file>` (none when no input opened it).
    node: Option<NodeRef>,
    /// Its number among the tab's choosers.
    number: u64,
}

/// Where a tab's choosers stood as an agent's input went out
/// ([`Core::intercept_choosers`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChooserMark {
    /// The tab must start intercepting before the input goes out.
    pub enable: bool,
    /// Choosers opened on the tab before the input.
    pub opened: u64,
}

/// The waiting chooser an `input.setFiles` answers
/// ([`Core::waiting_chooser`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitingChooser {
    /// Its input.
    pub node: NodeRef,
    /// It takes several files.
    pub multiple: bool,
    /// Its number, for [`Core::chooser_answered`].
    pub number: u64,
}

impl Core {
    /// An agent's input on the fence's tab is about to go out: choosers the
    /// tab opens are intercepted until [`INTERCEPT_GRACE`] after `now`.
    pub fn intercept_choosers(
        &mut self,
        fence: &Fence,
        now: Instant,
    ) -> Result<ChooserMark, WireError> {
        self.check(fence)?;
        let c = &mut self.page_mut(fence.tab).choosers;
        let enable = c.until.is_none();
        c.until = Some(now + INTERCEPT_GRACE);
        Ok(ChooserMark {
            enable,
            opened: c.opened,
        })
    }

    /// The tab refused to intercept: it is not intercepting.
    pub fn intercept_refused(&mut self, tab: TabId) {
        if let Some(p) = self.pages.get_mut(&tab) {
            p.choosers.until = None;
        }
    }

    /// Whether some tab's grace ended by `now` ([`Core::choosers_due`]
    /// would name it).
    pub fn any_chooser_due(&self, now: Instant) -> bool {
        self.pages
            .values()
            .any(|p| p.choosers.until.is_some_and(|u| u <= now))
    }

    /// The tabs whose grace ended by `now`, no longer intercepting from
    /// now on: the caller turns their interception off.
    pub fn choosers_due(&mut self, now: Instant) -> Vec<TabId> {
        let mut due = Vec::new();
        for (tab, p) in &mut self.pages {
            if p.choosers.until.is_some_and(|u| u <= now) {
                p.choosers.until = None;
                due.push(*tab);
            }
        }
        due
    }

    /// The person took control of `tab`: choosers show again at once, and
    /// the one waiting for the agent is dropped.
    pub(super) fn undo_choosers(&mut self, tab: TabId) {
        let Some(p) = self.pages.get_mut(&tab) else {
            return;
        };
        p.choosers.waiting = None;
        if p.choosers.until.take().is_some() {
            let off = SetInterceptFileChooserDialog { enabled: false };
            self.effects.push(Effect::Undo(UndoCmd {
                tab,
                method: SetInterceptFileChooserDialog::METHOD,
                params: off.params(),
            }));
        }
    }

    /// The page's document changed: its chooser's input is gone.
    pub(super) fn forget_chooser(&mut self, tab: TabId) {
        if let Some(p) = self.pages.get_mut(&tab) {
            p.choosers.waiting = None;
        }
    }

    /// The "off" for `tab` could not be sent: the tab still intercepts,
    /// and the next tick tries again.
    pub fn intercept_off_failed(&mut self, tab: TabId, now: Instant) {
        if let Some(p) = self.pages.get_mut(&tab) {
            p.choosers.until.get_or_insert(now);
        }
    }

    /// `Page.fileChooserOpened` on `tab`: it waits for the agent (in place
    /// of any older one), and every session that has the tab selected is
    /// told. One that opened while the tab should not be intercepting (an
    /// "off" lost on its way) is nobody's to answer: `false`, and the
    /// caller turns interception off again.
    pub fn on_file_chooser(&mut self, tab: TabId, opened: &FileChooserOpened) -> bool {
        if !self.is_shared(tab) {
            return true;
        }
        if self
            .pages
            .get(&tab)
            .is_none_or(|p| p.choosers.until.is_none())
        {
            return false;
        }
        let info = FileChooserInfo {
            tab_id: tab,
            multiple: opened.mode == "selectMultiple",
        };
        let node = opened.backend_node_id.map(|id| NodeRef {
            frame: opened.frame_id.clone(),
            backend_node_id: id,
        });
        let c = &mut self.page_mut(tab).choosers;
        c.opened += 1;
        c.waiting = Some(Waiting {
            info: info.clone(),
            node,
            number: c.opened,
        });
        self.notify_selecting(tab, AgentEvent::FileChooserOpened(info));
        true
    }

    /// The chooser waiting on `tab`, if any.
    pub fn file_chooser(&self, tab: TabId) -> Option<FileChooserInfo> {
        let w = self.pages.get(&tab)?.choosers.waiting.as_ref()?;
        Some(w.info.clone())
    }

    /// The chooser waiting on `tab` if it opened after `mark` was taken.
    pub fn chooser_since(&self, tab: TabId, mark: &ChooserMark) -> Option<FileChooserInfo> {
        let w = self.pages.get(&tab)?.choosers.waiting.as_ref()?;
        (w.number > mark.opened).then(|| w.info.clone())
    }

    /// The chooser waiting on the fence's tab, for `input.setFiles`
    /// without a ref: `INVALID_REQUEST` when none waits, or when no input
    /// opened it (nothing can take the files).
    pub fn waiting_chooser(&self, fence: &Fence) -> Result<WaitingChooser, WireError> {
        self.check(fence)?;
        let waiting = self
            .pages
            .get(&fence.tab)
            .and_then(|p| p.choosers.waiting.as_ref());
        let Some(w) = waiting else {
            return Err(WireError::new(
                ErrorKind::InvalidRequest,
                "no file chooser is open on this tab: click the file input first, or name the \
                 input itself",
            ));
        };
        let Some(node) = w.node.clone() else {
            return Err(WireError::new(
                ErrorKind::InvalidRequest,
                "the file chooser open on this tab belongs to no file input: name one with `ref`",
            ));
        };
        Ok(WaitingChooser {
            node,
            multiple: w.info.multiple,
            number: w.number,
        })
    }

    /// Files were set on `node` by its ref: a chooser it opened is
    /// answered.
    pub fn files_set_on(&mut self, tab: TabId, node: &NodeRef) {
        if let Some(p) = self.pages.get_mut(&tab) {
            if p.choosers
                .waiting
                .as_ref()
                .is_some_and(|w| w.node.as_ref() == Some(node))
            {
                p.choosers.waiting = None;
            }
        }
    }

    /// The chooser `number` of `tab` was answered (or dismissed): it no
    /// longer waits, unless a newer one replaced it.
    pub fn chooser_answered(&mut self, tab: TabId, number: Option<u64>) {
        let Some(p) = self.pages.get_mut(&tab) else {
            return;
        };
        let answered = match (&p.choosers.waiting, number) {
            (Some(w), Some(n)) => w.number == n,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if answered {
            p.choosers.waiting = None;
        }
    }
}
