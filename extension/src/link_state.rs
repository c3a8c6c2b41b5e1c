//! The native link's state, without any browser API: its phase (closed,
//! waiting for the daemon's welcome, connected), its last error for the
//! popup, and the backoff between reconnects.

use cotab_shared::NATIVE_PROTOCOL_VERSION;

/// First reconnect delay after the native port drops, in milliseconds.
pub const RECONNECT_INITIAL_MS: u32 = 500;

/// Longest reconnect delay, in milliseconds.
pub const RECONNECT_MAX_MS: u32 = 30_000;

/// Capped exponential backoff: 500 ms doubling up to 30 s, reset after the
/// host welcomes us.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backoff {
    next_ms: u32,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            next_ms: RECONNECT_INITIAL_MS,
        }
    }
}

impl Backoff {
    /// The delay before the next attempt; doubles the one after it.
    pub fn next_delay_ms(&mut self) -> u32 {
        let delay = self.next_ms;
        self.next_ms = delay.saturating_mul(2).min(RECONNECT_MAX_MS);
        delay
    }

    /// Starts again from the initial delay.
    pub fn reset(&mut self) {
        *self = Backoff::default();
    }
}

/// The native link's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkPhase {
    /// No port: never connected yet, or waiting to reconnect.
    Disconnected,
    /// A port is open and our hello is sent; the host has not answered.
    AwaitingWelcome,
    /// The host welcomed us with our protocol version.
    Connected,
}

/// The native link: its phase, its backoff and the last error it saw.
#[derive(Debug, Clone)]
pub struct Link {
    phase: LinkPhase,
    backoff: Backoff,
    last_error: Option<String>,
}

impl Default for Link {
    fn default() -> Self {
        Link {
            phase: LinkPhase::Disconnected,
            backoff: Backoff::default(),
            last_error: None,
        }
    }
}

impl Link {
    /// The current phase.
    pub fn phase(&self) -> LinkPhase {
        self.phase
    }

    /// Whether the host welcomed us on the current port.
    pub fn connected(&self) -> bool {
        self.phase == LinkPhase::Connected
    }

    /// Whether messages may be posted: a port is open and our hello went
    /// first. Messages are dropped otherwise; the hello and shared list
    /// sent on reconnect resynchronise the host.
    pub fn can_send(&self) -> bool {
        self.phase != LinkPhase::Disconnected
    }

    /// The last error, shown in the popup.
    pub fn last_error(&self) -> Option<&str> {
        self.last_error.as_deref()
    }

    /// A port was opened and the hello posted.
    pub fn hello_sent(&mut self) {
        self.phase = LinkPhase::AwaitingWelcome;
    }

    /// The host answered our hello. A different protocol version is kept as
    /// the last error and leaves the link unwelcomed.
    pub fn welcome(&mut self, protocol_version: u32) -> Result<(), String> {
        if protocol_version != NATIVE_PROTOCOL_VERSION {
            let msg = format!(
                "the native host speaks protocol {protocol_version}, this extension {NATIVE_PROTOCOL_VERSION}"
            );
            self.last_error = Some(msg.clone());
            return Err(msg);
        }
        self.phase = LinkPhase::Connected;
        self.last_error = None;
        self.backoff.reset();
        Ok(())
    }

    /// The port closed (or could not be opened) with `error`; returns the
    /// delay before reconnecting.
    pub fn disconnected(&mut self, error: String) -> u32 {
        self.phase = LinkPhase::Disconnected;
        self.last_error = Some(error);
        self.backoff.next_delay_ms()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_the_cap_and_resets() {
        let mut b = Backoff::default();
        let delays: Vec<u32> = (0..9).map(|_| b.next_delay_ms()).collect();
        assert_eq!(
            delays,
            [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]
        );
        b.reset();
        assert_eq!(b.next_delay_ms(), 500);
    }

    #[test]
    fn link_phases() {
        let mut link = Link::default();
        assert!(!link.can_send() && !link.connected());
        assert_eq!(link.disconnected("not found".into()), 500);
        assert_eq!(link.disconnected("not found".into()), 1000);
        assert_eq!(link.last_error(), Some("not found"));
        link.hello_sent();
        assert!(link.can_send() && !link.connected());
        assert!(link.welcome(NATIVE_PROTOCOL_VERSION + 1).is_err());
        assert_eq!(link.phase(), LinkPhase::AwaitingWelcome);
        assert!(link.welcome(NATIVE_PROTOCOL_VERSION).is_ok());
        assert!(link.connected() && link.last_error().is_none());
        // A welcome resets the backoff.
        assert_eq!(link.disconnected("Native host has exited.".into()), 500);
        assert!(!link.can_send());
    }
}
