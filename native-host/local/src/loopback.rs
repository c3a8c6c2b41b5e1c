//! What every loopback server of cotab's checks first in a request's head
//! (the lane's WebSocket, the CDP endpoint): that `Host` names this
//! loopback port, so that a page reaching the port through a DNS name
//! that rebinds to 127.0.0.1 is refused.

/// Whether a `Host` header names this loopback port (`127.0.0.1:PORT` or
/// `localhost:PORT`): a DNS-rebound name never does.
pub fn is_loopback_host(host: &str, port: u16) -> bool {
    ["127.0.0.1", "localhost"]
        .iter()
        .any(|name| host.eq_ignore_ascii_case(&format!("{name}:{port}")))
}

#[cfg(test)]
mod tests {
    use super::is_loopback_host;

    #[test]
    fn only_this_loopback_port_by_a_loopback_name_passes() {
        assert!(is_loopback_host("127.0.0.1:9222", 9222));
        assert!(is_loopback_host("LOCALHOST:9222", 9222));
        assert!(!is_loopback_host("127.0.0.1:9223", 9222));
        assert!(!is_loopback_host("evil.example:9222", 9222));
        assert!(!is_loopback_host("127.0.0.1", 9222));
        assert!(!is_loopback_host("127.0.0.1:9222.evil.example", 9222));
    }
}
