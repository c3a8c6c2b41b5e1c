//! Holding a download for the person's yes, in a tab that asks before
//! downloads ([`AskBefore::Download`]) while an agent holds it.
//!
//! The browser pauses the tab's document requests ([`super::holds`]), at
//! their response too: a response the browser would save rather than
//! show (`Content-Disposition: attachment`, or a type it does not
//! display) is a download, known once its headers came and before its
//! body is read; a link with `download` says so before its request is
//! sent (`Page.frameRequestedNavigation` with disposition `download`, or
//! a document fetched as no navigation is), and its response is one
//! whatever its type.
//! One the page or the agent began waits there, paused, with nothing
//! written, until the person answers in the side panel (the badge says
//! `ASK`): a yes lets it go on, a no, no answer in
//! [`Shell::approval_wait`] or the end of the agent's lease fails it.
//! The agent is told it waits (`approval.pending`) and how it ended
//! (`download.answered`). The person's own downloads are never held, but
//! for a link's with `download`, which the browser does not tell from
//! the page's or the agent's.
//!
//! Not held, as no request of the page's is paused for them: a download
//! of a `blob:` or `data:` url the page made itself (the browser saves
//! it without a request), and one from a service worker's response.
//!
//! The person is shown the name the browser will save it under, as the
//! browser picks it: the response's `Content-Disposition` name, else the
//! name the page's link gives it (`download="…"`, read from a capture of
//! the tab's documents, never from the page's script), else the url's.
//! That is why a link's download is asked for at its response, not
//! before its request: the request (of the link's own origin, as any the
//! page may fetch) goes out first, but nothing is written before the yes.

use super::Shell;
use crate::outline::Dom;
use crate::validate::unshowable;
use cotab_shared::cdp::{
    CaptureSnapshot, CdpCommand as _, ContinueRequest, FailRequest, RequestPaused,
};
use cotab_shared::controller::AgentEvent;
use cotab_shared::native::{CdpCall, Command};
use cotab_shared::watch::{AskBefore, PendingApproval};
use cotab_shared::TabId;
use std::sync::Arc;
use std::time::Duration;

/// How long the read of the page's links may take before the person is
/// asked with the url's name.
const LINK_READ: Duration = Duration::from_secs(2);

/// Distinct names the links of one url may give it that are shown; past
/// these, the url's name is.
const LINK_NAMES: usize = 3;

/// Types the browser shows in the tab rather than saves (their
/// start); any other document response is a download.
const SHOWN: &[&str] = &[
    "text/",
    "image/",
    "audio/",
    "video/",
    "application/pdf",
    "application/json",
    "application/xml",
    "application/xhtml+xml",
    "application/javascript",
    "application/ecmascript",
    "application/wasm",
    "multipart/x-mixed-replace",
];

/// Text types the browser saves rather than shows (Blink's own list).
const SAVED_TEXT: &[&str] = &[
    "text/calendar",
    "text/x-calendar",
    "text/x-vcalendar",
    "text/vcalendar",
    "text/vcard",
    "text/x-vcard",
    "text/directory",
    "text/ldif",
    "text/qif",
    "text/x-qif",
    "text/x-csv",
    "text/x-vcf",
    "text/rtf",
    "text/comma-separated-values",
    "text/csv",
    "text/csv-schema",
    "text/tab-separated-values",
    "text/x-comma-separated-values",
    "text/x-ms-iqy",
];

/// Whether a document response with these headers is saved, not shown:
/// a disposition of any type but `inline` (as the browser reads one), or
/// a type it does not display.
fn is_download(disposition: Option<&str>, content_type: Option<&str>) -> bool {
    let attachment = disposition.is_some_and(|d| {
        let kind = d.split(';').next().unwrap_or("").trim();
        !d.trim().is_empty() && !kind.eq_ignore_ascii_case("inline")
    });
    let kind = content_type
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let shown = kind.is_empty()
        || kind.ends_with("+xml")
        || kind.ends_with("+json")
        || SHOWN.iter().any(|s| kind.starts_with(s));
    attachment || !shown || SAVED_TEXT.contains(&kind.as_str())
}

/// The name a `Content-Disposition` gives its file, which the browser
/// saves it under before any other: `filename*`, else `filename`
/// ([`clean`]); `None` for none. Without it, a link's `download` name
/// ([`link_names`]) is taken, else [`url_name`].
fn header_name(disposition: Option<&str>) -> Option<String> {
    let param = |name: &str| {
        disposition.and_then(|d| {
            d.split(';').find_map(|p| {
                let (k, v) = p.split_once('=')?;
                k.trim()
                    .eq_ignore_ascii_case(name)
                    .then(|| v.trim().trim_matches('"').to_owned())
            })
        })
    };
    // `filename*=UTF-8''a%20b.pdf`: the charset, a language, the name.
    let extended = param("filename*").and_then(|v| {
        let encoded = v.splitn(3, '\'').nth(2)?.to_owned();
        let bytes: Vec<u8> =
            url::form_urlencoded::parse(format!("x={}", encoded.replace('+', "%2B")).as_bytes())
                .next()
                .map(|(_, v)| v.into_owned().into_bytes())?;
        String::from_utf8(bytes).ok()
    });
    extended
        .map(|n| clean(&n))
        .filter(|n| !n.is_empty())
        .or_else(|| {
            param("filename")
                .map(|n| clean(&n))
                .filter(|n| !n.is_empty())
        })
}

/// The last part of `url`'s path ([`clean`]), or "a file".
fn url_name(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.path_segments().and_then(|mut s| s.next_back().map(clean)))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "a file".to_owned())
}

/// A name as the person is shown it: without path separators, what
/// [`unshowable`] names (the characters that turn text around, so
/// `gpj.exe` cannot pass for `exe.jpg`) or invisible spaces; longer than
/// 80 characters, its start and its last 20 (its extension), with "…"
/// between.
fn clean(name: &str) -> String {
    let kept: Vec<char> = name
        .chars()
        .filter(|&c| {
            !unshowable(c) && !matches!(c, '/' | '\\' | '\u{200b}'..='\u{200d}' | '\u{feff}')
        })
        .collect();
    if kept.len() <= 80 {
        return kept.into_iter().collect();
    }
    let head = kept[..59].iter();
    let tail = kept[kept.len() - 20..].iter();
    head.chain(['…'].iter()).chain(tail).collect()
}

/// The names the page's links with `download="…"` give `url` (its
/// fragment aside), in the order the documents hold them, each once, at
/// most one more than [`LINK_NAMES`]: the browser keeps a link's name
/// only for a url of the linking document's origin, and an empty one not
/// at all.
fn link_names(dom: &Dom, url: &str) -> Vec<String> {
    let unfragmented = |mut u: url::Url| {
        u.set_fragment(None);
        u
    };
    let Ok(want) = url::Url::parse(url).map(unfragmented) else {
        return Vec::new();
    };
    let mut names = Vec::new();
    for d in &dom.documents {
        let (Ok(base), Ok(own)) = (url::Url::parse(&d.base_url), url::Url::parse(&d.url)) else {
            continue;
        };
        if own.origin() != want.origin() {
            continue;
        }
        for n in &d.nodes {
            if !(n.is("a") || n.is("area")) {
                continue;
            }
            let (Some(name), Some(href)) = (n.attr("download").map(clean), n.attr("href")) else {
                continue;
            };
            let to = base.join(href.trim()).map(unfragmented);
            if !name.is_empty() && to.as_ref() == Ok(&want) && !names.contains(&name) {
                names.push(name);
                if names.len() > LINK_NAMES {
                    return names;
                }
            }
        }
    }
    names
}

impl Shell {
    /// `Fetch.requestPaused` of `tab` at a document's response: a
    /// download the page or the agent began is held for the person's yes
    /// when the tab asks before downloads; anything else goes on.
    pub(super) fn on_response_paused(self: &Arc<Self>, tab: TabId, e: &RequestPaused) {
        let main = self.with_core(|c| c.main_frame(tab).map(str::to_owned));
        let is_main = main.as_deref() == Some(e.frame_id.as_str());
        // A redirect is a step on the way, never what is saved: its mark
        // stays for the request it makes.
        let redirect = e
            .response_status_code
            .is_some_and(|c| (300..400).contains(&c))
            && e.response_header("location").is_some();
        let marked = !redirect
            && self.with_navs(tab, |t| {
                let at = t.links.iter().position(|r| *r == e.request_id);
                at.and_then(|i| t.links.remove(i)).is_some()
            });
        // The request's headers come with its response: a link's download
        // is told again there, whatever became of its mark.
        let link = !redirect && (marked || super::holds::fetched_to_save(e, is_main));
        let disposition = e.response_header("content-disposition").map(str::to_owned);
        let download = e.response_error_reason.is_none()
            && !redirect
            && (link || is_download(disposition.as_deref(), e.response_header("content-type")));
        // A link's download is held whoever clicked it: the browser does
        // not say who did.
        if download
            && (link || !self.person_began(tab, e, is_main))
            && self.hold_download(tab, e, disposition.as_deref(), link)
        {
            return;
        }
        self.send_detached(
            tab,
            &ContinueRequest {
                request_id: &e.request_id,
            },
        );
    }

    /// Holds the paused response `e` of `tab`, a download (`link`: one a
    /// link with `download` began), for the person's yes, if the tab asks
    /// before downloads and an agent holds it; `false` (nothing done: it
    /// goes on as any request) otherwise, or when the person already
    /// approved its chain.
    pub(super) fn hold_download(
        self: &Arc<Self>,
        tab: TabId,
        e: &RequestPaused,
        disposition: Option<&str>,
        link: bool,
    ) -> bool {
        // Woken from here on: a lease that ends before the task runs is
        // not missed.
        let leases = self.leases_changed.subscribe();
        let scopes = self.scopes_changed.subscribe();
        let holder = self.with_core(|c| {
            let sid = c.lease_of(tab)?;
            let asks = c.holds_downloads(tab);
            asks.then(|| (sid, c.agent_of(sid).unwrap_or_default().to_owned()))
        });
        let Some((sid, agent)) = holder else {
            return false;
        };
        let chain = chain_of(e);
        let request = e.request_id.clone();
        let approved = self.with_navs(tab, |t| {
            let approved = t.approved.contains(&chain);
            if !approved {
                t.waiting.push(request.clone());
            }
            approved
        });
        if approved {
            return false;
        }
        let site = crate::scope::site_of(&e.request.url).unwrap_or_default();
        let url = e.request.url.clone();
        let named = header_name(disposition);
        let shell = self.clone();
        tracing::info!(%tab, %site, "a download waits for the person's yes");
        drop(tokio::spawn(async move {
            // The browser's own order: the response's name, the link's,
            // the url's.
            let (file, sure) = match named {
                Some(name) => (name, true),
                None if link => match shell.link_name(tab, &url).await {
                    Some(name) => (name, true),
                    // No link was read that names it: the page's own
                    // (one it left out of its documents, one of many).
                    None => (url_name(&url), false),
                },
                None => (url_name(&url), true),
            };
            let asked = Asked {
                tab,
                sid,
                agent,
                site: &site,
                file: &file,
                sure,
            };
            let yes = shell.ask_for_download(asked, leases, scopes).await;
            // Still paused here: no end of the hold failed it meanwhile.
            let paused = shell.with_navs(tab, |t| {
                let at = t.waiting.iter().position(|r| *r == request);
                let paused = at.map(|i| t.waiting.remove(i)).is_some();
                if paused && yes {
                    if t.approved.len() >= 8 {
                        t.approved.pop_front();
                    }
                    t.approved.push_back(chain);
                }
                paused
            });
            let saved = paused && yes;
            if saved {
                shell.send_detached(
                    tab,
                    &ContinueRequest {
                        request_id: &request,
                    },
                );
            } else if paused {
                shell.send_detached(
                    tab,
                    &FailRequest {
                        request_id: &request,
                        error_reason: "Aborted",
                    },
                );
            }
            tracing::info!(%tab, %site, saved, "a download was answered");
            shell.with_core(|c| {
                c.notify(
                    sid,
                    AgentEvent::DownloadAnswered {
                        tab_id: tab,
                        site,
                        file,
                        saved,
                    },
                );
            });
        }));
        true
    }

    /// The name the links of `tab`'s page give the download `url`
    /// ([`link_names`]), read from a capture of its documents within
    /// [`LINK_READ`]; several are shown together. `None` for none, for more
    /// than [`LINK_NAMES`], or when the read failed.
    async fn link_name(&self, tab: TabId, url: &str) -> Option<String> {
        let capture = CaptureSnapshot {
            computed_styles: Vec::new(),
        };
        let command =
            Command::Observe(CdpCall::new(tab, CaptureSnapshot::METHOD, capture.params()));
        let until = tokio::time::Instant::now() + LINK_READ;
        let read = async {
            let captured = match self.lane.call(command, until).await {
                Ok(v) => v,
                Err(e) => {
                    tracing::debug!(%tab, kind = %e.kind, "the page's links were not read");
                    return None;
                }
            };
            let dom = crate::documents::read(captured).await.ok()?;
            Some(link_names(&dom, url))
        };
        let names = tokio::time::timeout_at(until, read).await.ok()??;
        (1..=LINK_NAMES)
            .contains(&names.len())
            .then(|| names.join(" or "))
    }

    /// Asks the person whether the agent of `asked` may save its file:
    /// their yes, or `false` on a no, no answer in time, the lease gone
    /// from its session, or the tab no longer asking before downloads.
    async fn ask_for_download(
        &self,
        asked: Asked<'_>,
        mut leases: tokio::sync::watch::Receiver<u64>,
        mut scopes: tokio::sync::watch::Receiver<u64>,
    ) -> bool {
        let Asked {
            tab,
            sid,
            agent,
            site,
            file,
            sure,
        } = asked;
        let mut what = if site.is_empty() {
            format!("download “{file}”")
        } else {
            format!("download “{file}” from {site}")
        };
        if !sure {
            what.push_str(" (the page may save it under another name)");
        }
        let mut asking = self.ask_for(
            sid,
            PendingApproval {
                id: 0,
                agent,
                tab: Some(tab),
                ask: AskBefore::Download,
                what,
                text: None,
                left_ms: 0,
                frame: None,
            },
        );
        let holds = || self.with_core(|c| c.lease_of(tab) == Some(sid) && c.holds_downloads(tab));
        loop {
            if !holds() {
                return false;
            }
            tokio::select! {
                answer = &mut asking.answer => return answer == Ok(true) && holds(),
                changed = leases.changed() => if changed.is_err() { return false },
                changed = scopes.changed() => if changed.is_err() { return false },
                () = tokio::time::sleep_until(asking.until) => return false,
            }
        }
    }
}

/// What ties the pauses of one download together: its network id, the
/// same along its redirects; else (a download the browser fetches itself,
/// as for a link with `download`) the pause's own id, which its request
/// and its response share.
fn chain_of(e: &RequestPaused) -> String {
    match &e.network_id {
        Some(id) if !id.is_empty() => id.clone(),
        _ => format!("request {}", e.request_id),
    }
}

/// A download put to the person.
struct Asked<'a> {
    tab: TabId,
    sid: crate::session::SessionId,
    agent: String,
    site: &'a str,
    file: &'a str,
    /// The browser saves it under `file`, as far as the daemon can tell
    /// (not so for a link's download whose link was not read).
    sure: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_response_is_a_download_when_the_browser_would_save_it() {
        assert!(is_download(
            Some("attachment; filename=\"a.pdf\""),
            Some("application/pdf")
        ));
        assert!(is_download(Some("ATTACHMENT"), Some("text/html")));
        assert!(is_download(None, Some("application/octet-stream")));
        assert!(is_download(None, Some("application/zip; charset=binary")));
        assert!(!is_download(None, Some("text/html; charset=utf-8")));
        assert!(!is_download(Some("inline"), Some("application/pdf")));
        assert!(!is_download(None, Some("image/svg+xml")));
        assert!(!is_download(None, Some("application/ld+json")));
        assert!(!is_download(None, None), "sniffed and shown");
        // Any disposition but `inline` is saved, as the browser reads it;
        // and text the browser does not show.
        assert!(is_download(
            Some("download; filename=x.exe"),
            Some("text/html")
        ));
        assert!(is_download(Some("filename=x.exe"), Some("text/html")));
        assert!(!is_download(
            Some(" Inline ; filename=a.txt"),
            Some("text/plain")
        ));
        assert!(is_download(None, Some("text/csv")));
        assert!(is_download(None, Some("text/calendar; charset=utf-8")));
    }

    /// A capture of one document at `url` (its base `base`) holding
    /// elements of `(tag, attributes)`.
    fn captured(url: &str, base: &str, elements: &[(&str, &[(&str, &str)])]) -> Dom {
        let mut strings: Vec<String> =
            vec![url.into(), base.into(), "F".into(), "#document".into()];
        let mut at = |s: &str| {
            strings.push(s.to_owned());
            strings.len() - 1
        };
        let (mut parents, mut types, mut names, mut attrs) =
            (vec![-1], vec![9], vec![3], vec![vec![]]);
        for (tag, pairs) in elements {
            parents.push(0);
            types.push(1);
            names.push(at(&tag.to_uppercase()));
            attrs.push(
                pairs
                    .iter()
                    .flat_map(|(k, v)| [at(k), at(v)])
                    .collect::<Vec<_>>(),
            );
        }
        let json = serde_json::json!({
            "documents": [{"documentURL": 0, "baseURL": 1, "frameId": 2, "nodes": {
                "parentIndex": parents, "nodeType": types, "nodeName": names,
                "attributes": attrs}}],
            "strings": strings,
        });
        Dom::read(serde_json::from_value(json).expect("a capture"))
    }

    #[test]
    fn a_links_download_name_counts_for_its_own_origin_only() {
        let page = "https://a.test/files/";
        let dom = captured(
            page,
            page,
            &[
                ("a", &[("href", "memo.txt"), ("download", "invoice.txt")]),
                (
                    "a",
                    &[("href", "memo.txt#top"), ("download", "invoice.txt")],
                ),
                (
                    "area",
                    &[("href", "/files/memo.txt"), ("download", "../copy.txt")],
                ),
                ("a", &[("href", "memo.txt"), ("download", "")]),
                ("a", &[("href", "other.txt"), ("download", "other.txt")]),
                ("span", &[("href", "memo.txt"), ("download", "span.txt")]),
            ],
        );
        assert_eq!(
            link_names(&dom, "https://a.test/files/memo.txt"),
            ["invoice.txt", "..copy.txt"],
            "each name once, the url's fragment aside, an empty one not at all"
        );
        assert!(link_names(&dom, "https://a.test/files/nothing").is_empty());
        // A link to another origin is followed, not saved under its name.
        let dom = captured(
            page,
            page,
            &[(
                "a",
                &[("href", "https://b.test/x.bin"), ("download", "y.bin")],
            )],
        );
        assert!(link_names(&dom, "https://b.test/x.bin").is_empty());
        // A `<base>` elsewhere resolves the links, the document's own url
        // says whose they are.
        let dom = captured(
            page,
            "https://b.test/",
            &[("a", &[("href", "x.bin"), ("download", "y.bin")])],
        );
        assert!(link_names(&dom, "https://b.test/x.bin").is_empty());
        assert!(link_names(&dom, "not a url").is_empty());
        // Past the names shown, the reading stops.
        let many: Vec<(String, String)> = (0..10)
            .map(|i| ("memo.txt".to_owned(), format!("{i}.txt")))
            .collect();
        let elements: Vec<(&str, Vec<(&str, &str)>)> = many
            .iter()
            .map(|(h, d)| ("a", vec![("href", h.as_str()), ("download", d.as_str())]))
            .collect();
        let elements: Vec<(&str, &[(&str, &str)])> =
            elements.iter().map(|(t, a)| (*t, a.as_slice())).collect();
        let dom = captured(page, page, &elements);
        assert_eq!(
            link_names(&dom, "https://a.test/files/memo.txt").len(),
            LINK_NAMES + 1
        );
    }

    #[test]
    fn a_downloads_file_is_named_by_its_header_else_its_url() {
        assert_eq!(header_name(Some("attachment")), None);
        assert_eq!(header_name(None), None);
        assert_eq!(
            header_name(Some(
                "attachment; filename=a.txt; filename*=UTF-8''b%20c.txt"
            )),
            Some("b c.txt".to_owned())
        );
        assert_eq!(
            header_name(Some("attachment; filename=\"report.pdf\"")).as_deref(),
            Some("report.pdf")
        );
        assert_eq!(
            header_name(Some("attachment; FILENAME=../../etc/passwd")).as_deref(),
            Some("....etcpasswd")
        );
        assert_eq!(
            header_name(Some("attachment; filename=\"\u{202e}gpj.exe\"")).as_deref(),
            Some("gpj.exe"),
            "no character that turns the text around"
        );
        let long = format!("{}.pdf.exe", "a".repeat(100));
        let shown = clean(&long);
        assert_eq!(shown.chars().count(), 80);
        assert!(
            shown.ends_with("a.pdf.exe"),
            "the extension is kept: {shown}"
        );
        assert!(shown.contains('…'), "{shown}");
        assert_eq!(url_name("https://a.test/files/data.zip?x=1"), "data.zip");
        assert_eq!(url_name("https://a.test/"), "a file");
        assert_eq!(
            url_name(&format!("https://a.test/{}", "x".repeat(200)))
                .chars()
                .count(),
            80
        );
    }
}
