//! Session identities and tickets: ids, minting and the constant-time
//! compare. The session table itself (binding, resume, grace, TTL) lives in
//! the broker core ([`crate::broker`]), which owns every rule about it.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use cotab_shared::Ticket;

/// Identity of one agent connection inside the daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ConnId(pub u64);

/// Identity of one session inside the daemon (never sent to agents).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(pub u64);

/// Mints a ticket: 16 random bytes, base64url without padding.
pub fn mint_ticket() -> Result<Ticket, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(Ticket(URL_SAFE_NO_PAD.encode(bytes)))
}

/// Compares two byte strings in time that depends only on their lengths.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tickets_are_128_bit_base64url() {
        let t = mint_ticket().expect("random");
        assert_eq!(t.0.len(), 22);
        assert!(t
            .0
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
        assert_ne!(t, mint_ticket().expect("random"));
        assert_eq!(format!("{t:?}"), "Ticket(…)");
    }

    #[test]
    fn constant_time_compare() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
        assert!(constant_time_eq(b"", b""));
    }
}
