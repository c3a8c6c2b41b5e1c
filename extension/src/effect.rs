//! What the worker must do after one of its decisions ([`Effect`]), as
//! [`crate::state::SharedSet`] and [`crate::machine::Machine`] decide it
//! and the worker's glue performs it, in order.

use cotab_shared::native::Event;
use cotab_shared::TabId;

/// Something the worker must do after a decision.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Write the shared set to `chrome.storage.session`.
    Persist,
    /// Send this event to the host.
    Send(Event),
    /// Send [`Event::Shared`] with the current list (urls and titles are
    /// read from the browser first).
    SendShared,
    /// Take the tab out of the `cotab` group: it is no longer shared, and
    /// the group must show the person exactly what agents may touch.
    Ungroup(TabId),
    /// The tab's page is gone (closed, crashed, detached): its presses
    /// will get no answer that matters, and releases waiting for them may
    /// go.
    PressesGone(TabId),
    /// Let the tab's paused navigations go and send the releases of what
    /// agents hold on it, through its debugger session.
    ReleaseHeld(TabId),
    /// The tab's debugger was detached by someone else: attach once more
    /// just to release what its page holds, then detach.
    ReleaseDetached(TabId),
    /// Log this line, at info level (`false`) or as a warning (`true`).
    Log {
        /// A warning, not news.
        warn: bool,
        /// The line to log.
        line: String,
    },
}

impl Effect {
    /// An info line.
    pub fn info(line: String) -> Effect {
        Effect::Log { warn: false, line }
    }

    /// A warning.
    pub fn warn(line: String) -> Effect {
        Effect::Log { warn: true, line }
    }
}
