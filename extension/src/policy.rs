//! Which urls a person may share: plain web pages only (DESIGN §2, "Blocked
//! targets"), plus the blank page of a tab cotab opened itself for an agent.
//!
//! The browser's own debugger refuses some of these (`chrome://`), but it
//! allows others (`file:`, `data:`, `about:blank`, the extension's own pages),
//! so cotab decides itself. This module only classifies urls; it does not
//! look at tabs.

use std::fmt;

/// Why a url cannot be shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blocked {
    /// A browser page: `chrome:`, `devtools:`, `about:`, `view-source:` …
    BrowserPage,
    /// An extension page, including cotab's own popup.
    ExtensionPage,
    /// A local file.
    LocalFile,
    /// A `data:` url.
    DataUrl,
    /// The Chrome Web Store, which extensions must never script.
    WebStore,
    /// No url yet, or a scheme other than `http:`/`https:`.
    NotWebPage,
}

impl Blocked {
    /// A few words for the popup, next to the disabled button.
    pub fn reason(self) -> &'static str {
        match self {
            Blocked::BrowserPage => "browser page",
            Blocked::ExtensionPage => "extension page",
            Blocked::LocalFile => "local file",
            Blocked::DataUrl => "data url",
            Blocked::WebStore => "web store",
            Blocked::NotWebPage => "not a web page",
        }
    }
}

impl fmt::Display for Blocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "this tab cannot be shared ({}): only http and https pages can",
            self.reason()
        )
    }
}

/// Url prefixes of the web store, compared case-insensitively.
const WEB_STORE: &[&str] = &[
    "https://chromewebstore.google.com/",
    "https://chrome.google.com/webstore",
];

/// Checks that `url` is an `http:`/`https:` page other than the web store.
pub fn check_shareable(url: &str) -> Result<(), Blocked> {
    let lower = url.trim().to_ascii_lowercase();
    let scheme = lower.split_once(':').map(|(s, _)| s).unwrap_or("");
    match scheme {
        "http" | "https" => {
            if WEB_STORE.iter().any(|p| lower.starts_with(p)) {
                Err(Blocked::WebStore)
            } else {
                Ok(())
            }
        }
        "chrome" | "devtools" | "about" | "view-source" | "edge" | "brave" | "chrome-untrusted"
        | "chrome-search" => Err(Blocked::BrowserPage),
        "chrome-extension" | "moz-extension" | "extension" => Err(Blocked::ExtensionPage),
        "file" => Err(Blocked::LocalFile),
        "data" => Err(Blocked::DataUrl),
        _ => Err(Blocked::NotWebPage),
    }
}

/// The blank page a tab opened for an agent without a url shows.
pub const BLANK_PAGE: &str = "about:blank";

/// Checks the url of a tab cotab opened itself (`tabs.create` for an
/// agent): [`check_shareable`], except that the blank page is allowed, since
/// nothing of the person's can be in it.
pub fn check_created(url: &str) -> Result<(), Blocked> {
    if url.trim().eq_ignore_ascii_case(BLANK_PAGE) {
        return Ok(());
    }
    check_shareable(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_pages_are_shareable() {
        assert_eq!(check_shareable("http://127.0.0.1:8000/"), Ok(()));
        assert_eq!(check_shareable("https://example.com/a?b"), Ok(()));
        assert_eq!(check_shareable("HTTPS://EXAMPLE.COM/"), Ok(()));
    }

    #[test]
    fn blocked_targets_are_refused() {
        let cases = [
            ("chrome://settings", Blocked::BrowserPage),
            (
                "devtools://devtools/bundled/inspector.html",
                Blocked::BrowserPage,
            ),
            ("about:blank", Blocked::BrowserPage),
            ("view-source:https://example.com/", Blocked::BrowserPage),
            (
                "chrome-extension://njcapokbkdmpnkpmgflbgjlehbglmgck/popup.html",
                Blocked::ExtensionPage,
            ),
            ("file:///etc/passwd", Blocked::LocalFile),
            ("data:text/html,hi", Blocked::DataUrl),
            (
                "https://chromewebstore.google.com/detail/x",
                Blocked::WebStore,
            ),
            (
                "https://chrome.google.com/webstore/category",
                Blocked::WebStore,
            ),
            ("", Blocked::NotWebPage),
            ("ftp://example.com/", Blocked::NotWebPage),
            ("javascript:alert(1)", Blocked::NotWebPage),
        ];
        for (url, want) in cases {
            assert_eq!(check_shareable(url), Err(want), "{url}");
        }
    }

    #[test]
    fn a_created_tab_may_be_blank_and_nothing_else() {
        assert_eq!(check_created("about:blank"), Ok(()));
        assert_eq!(check_created("http://127.0.0.1:8000/"), Ok(()));
        for url in [
            "about:blank#x",
            "about:srcdoc",
            "chrome://newtab/",
            "data:text/html,hi",
            "file:///etc/passwd",
            "",
        ] {
            assert!(check_created(url).is_err(), "{url}");
        }
    }

    #[test]
    fn the_refusal_says_why() {
        let msg = Blocked::LocalFile.to_string();
        assert!(msg.contains("local file") && msg.contains("http"), "{msg}");
    }
}
