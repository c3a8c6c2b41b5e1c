//! Checks on values agents submit and on what the browser returns, with no
//! I/O: url checks for `page.navigate`, image geometry for `page.capture`,
//! and the browser's refusals that mean a page keeps extensions out.
//!
//! Error messages never contain the submitted value.

use cotab_shared::limits::MAX_URL;
use cotab_shared::reach::{check_shareable, LocalFiles};
use cotab_shared::{ErrorKind, WireError};

/// A character that would move or hide the text around it where a name
/// is shown to the person (an agent's, a file's): a control character,
/// or a mark or override of text direction.
pub fn unshowable(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// Checks that `url` is an absolute `http:` or `https:` url within
/// [`MAX_URL`] bytes, of a page agents may open
/// ([`cotab_shared::reach::check_shareable`]: not the web store), or a
/// local file `files` allows. Other schemes and pages are
/// `BLOCKED_TARGET`; anything that is not an absolute url is
/// `INVALID_REQUEST`.
///
/// This is a structural check (scheme, `//`, a non-empty host, a numeric
/// port, no whitespace or control characters), not a full WHATWG parser:
/// the browser parses the url again, and any url that passes here is one
/// the browser treats as a network url.
pub fn check_navigate_url(url: &str, files: &LocalFiles) -> Result<(), WireError> {
    let invalid = |why: &str| {
        Err(WireError::new(
            ErrorKind::InvalidRequest,
            format!("invalid url: {why}"),
        ))
    };
    if url.len() > MAX_URL {
        return invalid("longer than the limit");
    }
    if url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return invalid("contains whitespace or control characters");
    }
    let Some((scheme, rest)) = url.split_once(':') else {
        return invalid("not an absolute url");
    };
    let mut sc = scheme.chars();
    let scheme_ok = sc.next().is_some_and(|c| c.is_ascii_alphabetic())
        && sc.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok {
        return invalid("not an absolute url");
    }
    let scheme = scheme.to_ascii_lowercase();
    if scheme == "file" && files.allows(url) {
        return Ok(());
    }
    if scheme != "http" && scheme != "https" {
        return Err(WireError::new(
            ErrorKind::BlockedTarget,
            "only http: and https: urls may be navigated to",
        ));
    }
    if let Err(blocked) = check_shareable(url, files) {
        return Err(WireError::new(
            ErrorKind::BlockedTarget,
            format!("agents may not open that page ({})", blocked.reason()),
        ));
    }
    let Some(after) = rest.strip_prefix("//") else {
        return invalid("missing `//` after the scheme");
    };
    let authority = after.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = if let Some(v6) = host_port.strip_prefix('[') {
        match v6.split_once(']') {
            Some((h, p)) => (h, p.strip_prefix(':')),
            None => return invalid("bad host"),
        }
    } else {
        match host_port.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host_port, None),
        }
    };
    if host.is_empty() {
        return invalid("missing host");
    }
    if let Some(p) = port {
        if !p.is_empty() && p.parse::<u16>().is_err() {
            return invalid("bad port");
        }
    }
    Ok(())
}

/// Width and height of a PNG or JPEG image from its header bytes.
pub fn image_size(bytes: &[u8]) -> Option<(u32, u32)> {
    png_size(bytes).or_else(|| jpeg_size(bytes))
}

fn png_size(b: &[u8]) -> Option<(u32, u32)> {
    // Signature (8), IHDR length (4), "IHDR" (4), width (4), height (4).
    if b.len() < 24 || &b[..8] != b"\x89PNG\r\n\x1a\n" || &b[12..16] != b"IHDR" {
        return None;
    }
    let be = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    Some((be(16), be(20)))
}

fn jpeg_size(b: &[u8]) -> Option<(u32, u32)> {
    if b.len() < 4 || b[0] != 0xFF || b[1] != 0xD8 {
        return None;
    }
    let mut i = 2;
    loop {
        // Skip fill bytes before a marker.
        while *b.get(i)? == 0xFF && *b.get(i + 1)? == 0xFF {
            i += 1;
        }
        if *b.get(i)? != 0xFF {
            return None;
        }
        let marker = *b.get(i + 1)?;
        i += 2;
        // Markers without a length: TEM, RSTn.
        if marker == 0x01 || (0xD0..=0xD7).contains(&marker) {
            continue;
        }
        let len = u16::from_be_bytes([*b.get(i)?, *b.get(i + 1)?]) as usize;
        let is_sof = matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
        if is_sof {
            // Length (2), precision (1), height (2), width (2).
            let h = u16::from_be_bytes([*b.get(i + 3)?, *b.get(i + 4)?]);
            let w = u16::from_be_bytes([*b.get(i + 5)?, *b.get(i + 6)?]);
            return Some((w.into(), h.into()));
        }
        if marker == 0xD9 || marker == 0xDA || len < 2 {
            return None;
        }
        i += len;
    }
}

/// What `chrome.debugger` answers every command on a tab while one of its
/// frames holds a `chrome-extension://` page the browser refused to load
/// (its error page stands for `chrome-extension://invalid/`).
const REFUSED_EXTENSION_FRAME: &str =
    "Cannot access a chrome-extension:// URL of different extension";

/// What the browser answers a command still running on a tab's own
/// session when its debugger leaves (the person unshared the tab, or
/// another program detached it).
const DETACHED_MID_COMMAND: &str = "Detached while handling command";

/// The extension's error `e` in the agent's terms: a command refused
/// because the page embeds a frame of an extension the browser would not
/// load (a page can do that on purpose to keep extensions out: the
/// browser then refuses every debugger command on the whole tab, cotab's
/// included) is `BLOCKED_TARGET` saying so, not a bare browser refusal.
/// A command on the tab's own session (not `child`, a frame's) that the
/// debugger leaving cut short may have acted already: `UNKNOWN_OUTCOME`,
/// never a plain failure the agent would retry as if nothing happened.
pub fn browser_refusal(e: WireError, child: bool) -> WireError {
    if !child && e.kind == ErrorKind::CommandFailed && e.message.contains(DETACHED_MID_COMMAND) {
        return WireError::new(
            ErrorKind::UnknownOutcome,
            "the tab stopped being shared while the command ran (the person unshared it, or \
             another program took its debugger): it may or may not have acted",
        );
    }
    if e.kind == ErrorKind::CommandFailed && e.message.contains(REFUSED_EXTENSION_FRAME) {
        return WireError::new(
            ErrorKind::BlockedTarget,
            "the page embeds a frame of a browser extension that the browser refused to \
             load, and while that frame is there the browser refuses every debugger command on \
             the tab (a page can do this to keep extensions out): nothing can be read from or \
             done in this tab until the page removes the frame or navigates",
        );
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(url: &str) -> Option<ErrorKind> {
        check_navigate_url(url, &LocalFiles::NONE)
            .err()
            .map(|e| e.kind)
    }

    #[test]
    fn a_command_cut_short_by_the_tab_leaving_may_have_acted() {
        let cut = || WireError::new(ErrorKind::CommandFailed, "Detached while handling command.");
        assert_eq!(
            browser_refusal(cut(), false).kind,
            ErrorKind::UnknownOutcome
        );
        // A frame's session going away is that frame's business.
        assert_eq!(browser_refusal(cut(), true).kind, ErrorKind::CommandFailed);
        let other = WireError::new(ErrorKind::CommandFailed, "No node with given id");
        assert_eq!(browser_refusal(other, false).kind, ErrorKind::CommandFailed);
        let refused = WireError::new(ErrorKind::CommandFailed, REFUSED_EXTENSION_FRAME);
        assert_eq!(
            browser_refusal(refused, true).kind,
            ErrorKind::BlockedTarget
        );
    }

    #[test]
    fn accepts_http_and_https() {
        for u in [
            "http://127.0.0.1:8080/a?b#c",
            "https://example.com",
            "HTTPS://Example.com/",
            "http://user:pw@host/",
            "http://[::1]:80/",
            "http://localhost:/x",
        ] {
            assert_eq!(kind(u), None, "{u}");
        }
    }

    #[test]
    fn blocks_other_schemes() {
        for u in [
            "file:///etc/passwd",
            "chrome://settings",
            "javascript:alert(1)",
            "data:text/html,hi",
            "chrome-extension://x/",
            "devtools://devtools",
            "about:blank",
        ] {
            assert_eq!(kind(u), Some(ErrorKind::BlockedTarget), "{u}");
        }
    }

    #[test]
    fn refuses_non_urls_without_echoing() {
        for u in [
            "",
            "example.com",
            "/relative",
            "http:/x",
            "http://",
            "http://:80/",
            "http://h:99999/",
            "http://a b/",
            "1http://x",
        ] {
            let e = check_navigate_url(u, &LocalFiles::NONE).expect_err(u);
            assert_eq!(e.kind, ErrorKind::InvalidRequest, "{u}");
            if !u.is_empty() {
                assert!(!e.message.contains(u), "{}", e.message);
            }
        }
        let long = format!("http://h/{}", "a".repeat(MAX_URL));
        assert_eq!(kind(&long), Some(ErrorKind::InvalidRequest));
    }

    #[test]
    fn png_header() {
        let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        b.extend_from_slice(&1280u32.to_be_bytes());
        b.extend_from_slice(&720u32.to_be_bytes());
        assert_eq!(image_size(&b), Some((1280, 720)));
        assert_eq!(image_size(&b[..20]), None);
    }

    #[test]
    fn jpeg_header() {
        // SOI, APP0 (length 4, 2 bytes of data), SOF0 with 600×800.
        let b = [
            0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x02,
            0x58, 0x03, 0x20,
        ];
        assert_eq!(image_size(&b), Some((800, 600)));
        assert_eq!(image_size(&b[..12]), None);
        assert_eq!(image_size(b"GIF89a"), None);
    }

    #[test]
    fn a_frame_that_keeps_extensions_out_is_a_blocked_target() {
        let refused = WireError::new(
            ErrorKind::CommandFailed,
            "Cannot access a chrome-extension:// URL of different extension",
        );
        let e = browser_refusal(refused, false);
        assert_eq!(e.kind, ErrorKind::BlockedTarget);
        assert!(e.message.contains("removes the frame"), "{}", e.message);
        let other = WireError::new(ErrorKind::CommandFailed, "No node with given id found");
        assert_eq!(browser_refusal(other.clone(), false), other);
        let timeout = WireError::new(ErrorKind::Timeout, REFUSED_EXTENSION_FRAME);
        assert_eq!(browser_refusal(timeout.clone(), false), timeout);
    }
}
