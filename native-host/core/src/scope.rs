//! A share's sites: where agents may take a shared tab. When the person
//! shares a tab, the share is for the site of the page it shows (its
//! registrable domain: `mail.example.com` and `www.example.com` are both
//! `example.com`, as the browser's own "site" is), unless the person
//! chose any site. While an agent holds the tab, a main-frame navigation
//! to another site is held before its request leaves the browser, and an
//! agent's request on a page of another site is refused
//! (`SITE_NOT_ALLOWED`).
//!
//! A url that has no site (`about:blank`, `data:`, the browser's error
//! page) carries no cookie to anyone: it is in every scope.

use cotab_shared::{ErrorKind, WireError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The site of `url`: the registrable domain of its host (from the Public
/// Suffix List, its private part included, so `a.github.io` and
/// `b.github.io` are two sites); the host itself for an IP address, for
/// a name with no registrable part (`localhost`) and for a public suffix.
/// Lowercase, no port, no scheme: two schemes or ports of one host are one
/// site. `None` for a url that is not `http:`/`https:` (`about:blank`,
/// `data:`, `blob:` takes its origin's) or does not parse.
pub fn site_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url.trim()).ok()?;
    let parsed = match parsed.scheme() {
        "blob" => url::Url::parse(parsed.path()).ok()?,
        _ => parsed,
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        return None;
    }
    let host = match parsed.host()? {
        url::Host::Domain(d) => d.trim_end_matches('.').to_ascii_lowercase(),
        url::Host::Ipv4(ip) => return Some(ip.to_string()),
        url::Host::Ipv6(ip) => return Some(format!("[{ip}]")),
    };
    let site = psl::domain_str(&host).unwrap_or(&host);
    Some(site.to_owned())
}

/// `name` if it names a site as [`site_of`] does (`example.com`,
/// `localhost`, an IP address), lowercase: not a url, a path, a name
/// under a site (`mail.example.com`) or a public suffix alone (`com`,
/// `co.uk`, `github.io`), which would name no one's site.
pub fn site_named(name: &str) -> Option<String> {
    let lower = name.trim().to_ascii_lowercase();
    let bracketed = lower.starts_with('[') && lower.ends_with(']');
    if lower.is_empty() || lower.contains(['/', '?', '#', '@', '\\', ' ']) {
        return None;
    }
    if lower.contains(':') && !bracketed {
        return None;
    }
    if psl::suffix(lower.as_bytes())
        .is_some_and(|s| s.is_known() && s.as_bytes() == lower.as_bytes())
    {
        return None;
    }
    (site_of(&format!("https://{lower}/")).as_deref() == Some(lower.as_str())).then_some(lower)
}

/// Where agents may take one shared tab.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Scope {
    /// Any site: the person chose it, or the tab was shared on a page
    /// with no site (a new tab) and nothing narrower was chosen.
    #[default]
    Any,
    /// These sites only (never empty).
    Sites(BTreeSet<String>),
}

impl Scope {
    /// The scope of a tab shared while it showed `url`: that page's site,
    /// or any site when the page has none.
    pub fn shared_at(url: &str) -> Scope {
        match site_of(url) {
            Some(site) => Scope::Sites(BTreeSet::from([site])),
            None => Scope::Any,
        }
    }

    /// The scope of a tab that `tabs`' scopes together allow: every site
    /// any of them allows; any site if one allows any, or there is none.
    pub fn union<'a>(scopes: impl IntoIterator<Item = &'a Scope>) -> Scope {
        let mut all = BTreeSet::new();
        for s in scopes {
            match s {
                Scope::Any => return Scope::Any,
                Scope::Sites(sites) => all.extend(sites.iter().cloned()),
            }
        }
        if all.is_empty() {
            Scope::Any
        } else {
            Scope::Sites(all)
        }
    }

    /// Whether agents may take the tab to `url`.
    pub fn allows(&self, url: &str) -> bool {
        self.allows_also(url, &BTreeSet::new())
    }

    /// [`Scope::allows`] with the sites `also` added, without making the
    /// wider scope.
    pub fn allows_also(&self, url: &str, also: &BTreeSet<String>) -> bool {
        match self {
            Scope::Any => true,
            Scope::Sites(sites) => {
                site_of(url).is_none_or(|s| sites.contains(&s) || also.contains(&s))
            }
        }
    }

    /// Whether navigations must be held (the scope is narrower than any
    /// site).
    pub fn holds(&self) -> bool {
        matches!(self, Scope::Sites(_))
    }

    /// How the person reads it: `example.com`, `a.com, b.org`, or
    /// `any site`.
    pub fn describe(&self) -> String {
        match self {
            Scope::Any => "any site".to_owned(),
            Scope::Sites(sites) => sites.iter().cloned().collect::<Vec<_>>().join(", "),
        }
    }

    /// `SITE_NOT_ALLOWED` for taking `tab` to `url` (which this scope does
    /// not allow). Names the site, never the url's path or query (they
    /// may hold what the page put there).
    pub fn refusal(&self, tab: cotab_shared::TabId, url: &str) -> WireError {
        let site = site_of(url).unwrap_or_else(|| "that page".to_owned());
        WireError::new(
            ErrorKind::SiteNotAllowed,
            format!(
                "{site} is outside the sites tab {tab} is shared for ({}): the person can allow it in cotab's side panel",
                self.describe()
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_site_is_named_by_its_registrable_domain_alone() {
        for (name, site) in [
            ("example.com", Some("example.com")),
            (" Bank.Test ", Some("bank.test")),
            ("localhost", Some("localhost")),
            ("127.0.0.1", Some("127.0.0.1")),
            ("[::1]", Some("[::1]")),
            ("alice.github.io", Some("alice.github.io")),
            ("mail.example.com", None),
            ("com", None),
            ("co.uk", None),
            ("github.io", None),
            ("https://example.com/", None),
            ("example.com/x", None),
            ("example.com:443", None),
            ("user@example.com", None),
            ("", None),
            ("exa mple.com", None),
        ] {
            assert_eq!(site_named(name).as_deref(), site, "{name:?}");
        }
    }

    #[test]
    fn a_site_is_the_registrable_domain_of_the_host() {
        for (url, site) in [
            ("https://mail.example.com/inbox?x=1", Some("example.com")),
            ("http://www.example.com:8080/", Some("example.com")),
            ("https://example.co.uk/", Some("example.co.uk")),
            ("https://a.b.example.co.uk/", Some("example.co.uk")),
            ("https://alice.github.io/x", Some("alice.github.io")),
            ("HTTPS://WWW.Example.COM./", Some("example.com")),
            ("http://127.0.0.1:8701/one", Some("127.0.0.1")),
            ("http://[::1]:9/", Some("[::1]")),
            ("http://localhost:8702/", Some("localhost")),
            ("http://app.localhost/", Some("app.localhost")),
            ("https://co.uk/", Some("co.uk")),
            ("blob:https://x.example.com/1234", Some("example.com")),
            ("about:blank", None),
            ("data:text/html,hi", None),
            ("chrome-error://chromewebdata/", None),
            ("file:///etc/passwd", None),
            ("not a url", None),
        ] {
            assert_eq!(site_of(url).as_deref(), site, "{url}");
        }
    }

    #[test]
    fn a_scope_allows_its_sites_and_pages_with_no_site() {
        let s = Scope::shared_at("https://mail.example.com/");
        assert!(s.holds());
        assert!(s.allows("https://www.example.com/a"));
        assert!(s.allows("http://example.com:81/"));
        assert!(s.allows("about:blank"));
        assert!(!s.allows("https://bank.example.org/"));
        assert!(!s.allows("https://example.com.evil.test/"));
        assert!(!s.allows("https://notexample.com/"));
        assert_eq!(s.describe(), "example.com");
        let e = s.refusal(
            cotab_shared::TabId(3),
            "https://bank.example.org/login?secret=1",
        );
        assert_eq!(e.kind, ErrorKind::SiteNotAllowed);
        assert!(e.message.contains("example.org"), "{}", e.message);
        assert!(!e.message.contains("secret"), "{}", e.message);
    }

    #[test]
    fn a_tab_shared_on_a_page_with_no_site_is_shared_for_any() {
        assert_eq!(Scope::shared_at("about:blank"), Scope::Any);
        assert!(Scope::Any.allows("https://anything.test/"));
        assert!(!Scope::Any.holds());
    }

    #[test]
    fn a_union_is_every_site_and_any_wins() {
        let a = Scope::shared_at("https://a.com/");
        let b = Scope::shared_at("https://b.org/");
        let u = Scope::union([&a, &b]);
        assert!(u.allows("https://x.a.com/") && u.allows("https://b.org/"));
        assert!(!u.allows("https://c.net/"));
        assert_eq!(u.describe(), "a.com, b.org");
        assert_eq!(Scope::union([&a, &Scope::Any]), Scope::Any);
        assert_eq!(Scope::union([]), Scope::Any);
    }
}
