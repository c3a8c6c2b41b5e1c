//! What the lane's WebSocket has offered and who waits on it: the token
//! sent to the latest connection that said hello, and the socket past its
//! handshake waiting for that connection's `socketOpen`
//! ([`crate::socket_lane`] serves the socket; the steps are there).
//!
//! **Architecture Invariant:** a token opens one socket, for the
//! connection it was offered to, within its time to live; a token that
//! does not match leaves the offer in place.

use crate::lane::Lane;
use cotab_shared::limits::SOCKET_OFFER_TTL_MS;
use cotab_shared::native::HostToExtension;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;
use subtle::ConstantTimeEq;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_util::bytes::Bytes;
use tokio_util::sync::CancellationToken;

/// A token's length in bytes (sent as twice as many hex digits).
const TOKEN_BYTES: usize = 32;

/// The offered token of the latest connection that said hello.
#[derive(Debug)]
struct Offer {
    token: String,
    generation: u64,
    expires: Instant,
}

/// A socket past its handshake, waiting for its native connection's
/// `socketOpen`.
#[derive(Debug)]
struct Waiting {
    generation: u64,
    tx: mpsc::Sender<Bytes>,
    adopted: oneshot::Sender<CancellationToken>,
}

#[derive(Debug, Default)]
struct Offers {
    offer: Option<Offer>,
    waiting: Option<Waiting>,
}

/// The lane WebSocket's state: its port, the token it offered last and
/// the socket waiting to take the lane over.
#[derive(Debug)]
pub struct SocketOffers {
    port: u16,
    offers: Mutex<Offers>,
}

impl SocketOffers {
    /// Offers of a WebSocket listening on 127.0.0.1:`port`.
    pub fn new(port: u16) -> SocketOffers {
        SocketOffers {
            port,
            offers: Mutex::new(Offers::default()),
        }
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    fn lock(&self) -> MutexGuard<'_, Offers> {
        self.offers.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A fresh offer for the connection of `generation`; it replaces any
    /// earlier one (and any socket still waiting for an earlier
    /// connection). `None` when no randomness is available.
    pub fn offer(&self, generation: u64) -> Option<HostToExtension> {
        let mut bytes = [0u8; TOKEN_BYTES];
        if getrandom::fill(&mut bytes).is_err() {
            tracing::warn!(
                "no randomness for a WebSocket token; the lane stays on native messaging"
            );
            return None;
        }
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut g = self.lock();
        g.offer = Some(Offer {
            token: token.clone(),
            generation,
            expires: Instant::now() + Duration::from_millis(SOCKET_OFFER_TTL_MS),
        });
        if g.waiting
            .as_ref()
            .is_some_and(|w| w.generation != generation)
        {
            g.waiting = None;
        }
        Some(HostToExtension::SocketOffer {
            port: self.port,
            token,
        })
    }

    /// Uses up the offer whose token is `token`, if it is unexpired, and
    /// returns its generation. Compared in constant time; a wrong token
    /// leaves the offer in place.
    pub(crate) fn redeem(&self, token: &str) -> Option<u64> {
        let mut g = self.lock();
        let offer = g.offer.as_ref()?;
        let same: bool = offer.token.as_bytes().ct_eq(token.as_bytes()).into();
        if !same {
            return None;
        }
        let offer = g.offer.take()?;
        (Instant::now() <= offer.expires).then_some(offer.generation)
    }

    /// Parks the socket of `generation` (its writer's queue) until its
    /// native connection switches.
    pub(crate) fn wait(
        &self,
        generation: u64,
        tx: mpsc::Sender<Bytes>,
    ) -> oneshot::Receiver<CancellationToken> {
        let (adopted, rx) = oneshot::channel();
        self.lock().waiting = Some(Waiting {
            generation,
            tx,
            adopted,
        });
        rx
    }

    /// The native connection of `generation` read the worker's
    /// `socketOpen`: hands its socket the lane and returns `true`, or
    /// returns `false` when no socket of that connection is waiting (the
    /// caller then tells the worker so, on the native link).
    pub fn switch(&self, lane: &Lane, generation: u64) -> bool {
        let Some(waiting) = self.lock().waiting.take() else {
            return false;
        };
        if waiting.generation != generation {
            return false;
        }
        let Ok(last) = serde_json::to_vec(&HostToExtension::SocketSwitched { accepted: true })
        else {
            return false;
        };
        match lane.adopt(generation, waiting.tx, Bytes::from(last)) {
            Some(ended) => waiting.adopted.send(ended).is_ok(),
            None => false,
        }
    }
}

#[cfg(test)]
mod tests;
