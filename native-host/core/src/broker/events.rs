//! Raw CDP events for agents (`cdp.events`, developer mode): which
//! connections get a tab's events. A session's subscription holds while
//! it is bound to a connection, has that tab selected, and developer mode
//! stays on since it subscribed (the same epoch); nothing else ends it.

use super::{no_session, Connection, Core, Fence, Session};
use crate::session::ConnId;
use cotab_shared::{TabId, WireError};

impl Core {
    /// `cdp.events`: from now on the session gets every CDP event of the
    /// fence's tab (`enabled`), or none. Needs what the fence was taken
    /// for (developer mode, for a privileged one).
    pub fn cdp_events(&mut self, fence: &Fence, enabled: bool) -> Result<(), WireError> {
        self.check(fence)?;
        let epoch = self.dev_epoch;
        let session = self
            .sessions
            .get_mut(&fence.session)
            .ok_or_else(no_session)?;
        session.events = enabled.then_some((fence.tab, epoch));
        Ok(())
    }

    /// The connections that get `tab`'s CDP events now.
    pub fn cdp_event_conns(&self, tab: TabId) -> Vec<ConnId> {
        if !self.developer_mode {
            return Vec::new();
        }
        self.sessions
            .values()
            .filter_map(|s| self.gets_events(s, tab))
            .collect()
    }

    fn gets_events(&self, s: &Session, tab: TabId) -> Option<ConnId> {
        match (s.events, s.connection) {
            (Some((t, epoch)), Connection::Bound(conn))
                if t == tab && epoch == self.dev_epoch && s.selected == Some(tab) =>
            {
                Some(conn)
            }
            _ => None,
        }
    }
}
