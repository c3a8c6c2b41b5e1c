//! Held input, as both of cotab's ledgers of it keep it: the daemon's
//! record of what each agent session holds and the extension's own ledger
//! per tab are the one type [`Ledger`], over their own owner (the
//! daemon's a session on a tab, the extension's a tab). What a press holds
//! and the release that pairs it are [`crate::input`]'s
//! ([`input_role`](crate::input::input_role),
//! [`release_of`](crate::input::release_of)); here is what a ledger makes
//! of how a command it saw go out ended ([`Sent`]), the order in which a
//! revocation releases what a tab holds ([`release_rank`]) and, with the
//! `conformance` feature, the scenarios both ledgers are tested against
//! (`conformance`), so the two cannot come to disagree.
//!
//! Why two ledgers: each outlives a fault of the other's side. The
//! extension's is kept in `chrome.storage` and releases what a tab holds
//! when the daemon cannot (the native link gone, the tab unshared, the
//! debugger detached from outside); the daemon's knows which session
//! pressed what, answers an agent's own release, and releases what a
//! session holds when its lease goes (a takeover, a lease's end, a client
//! gone), through a worker that restarted meanwhile.

mod ledger;
pub use ledger::{Freed, Ledger, Moved, Press, State};

/// How a command a ledger saw go out ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sent {
    /// The browser ran it: a release clears its press.
    Accepted,
    /// It was refused before it reached the page (the browser's
    /// `COMMAND_FAILED`, or a refusal on the way: the person's control,
    /// developer mode off, a blocked page): a release leaves its press
    /// held, to be released again later; a move left the pointer where it
    /// was.
    Refused,
    /// No answer came (`UNKNOWN_OUTCOME`: a timeout after it was handed
    /// over, the link gone): it may have run, so a release clears its
    /// press (the page never gets a second one) and a press counts as
    /// held.
    Unknown,
}

/// Where the release of what the press `id` ([`crate::input::InputRole`]:
/// `touch`, `button:<name>`, `key:<code>`) holds goes among the releases
/// of one revocation, the `seq`-th press recorded: the touch first, then
/// the buttons in the order they were pressed, then the keys, the last
/// pressed first, so a modifier held before a key goes up after it. Sort
/// by it, smallest first.
pub fn release_rank(id: &str, seq: u64) -> (u8, i128) {
    match id.split_once(':') {
        Some(("button", _)) => (1, i128::from(seq)),
        Some(("key", _)) => (2, -i128::from(seq)),
        _ => (0, i128::from(seq)),
    }
}

#[cfg(feature = "conformance")]
pub mod conformance;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_revocation_releases_the_touch_then_buttons_as_pressed_then_keys_last_first() {
        let mut held = vec![
            ("key:ShiftLeft", 1),
            ("button:left", 2),
            ("key:KeyA", 3),
            ("touch", 4),
            ("button:right", 5),
        ];
        held.sort_by_key(|(id, seq)| release_rank(id, *seq));
        let ids: Vec<&str> = held.into_iter().map(|(id, _)| id).collect();
        assert_eq!(
            ids,
            [
                "touch",
                "button:left",
                "button:right",
                "key:KeyA",
                "key:ShiftLeft"
            ]
        );
    }
}
