//! Holding a download for the person's yes, in a tab that asks before
//! downloads ([`AskBefore::Download`]) while an agent holds it.
//!
//! The browser pauses the tab's document requests ([`super::holds`]), at
//! their response too: a response the browser would save rather than
//! show (`Content-Disposition: attachment`, or a type it does not
//! display) is a download, known once its headers came and before its
//! body is read; a link with `download` says so before its request is
//! sent (`Page.frameRequestedNavigation` with disposition `download`).
//! One the page or the agent began waits there, paused, with nothing
//! written, until the person answers in the side panel (the badge says
//! `ASK`): a yes lets it go on, a no, no answer in
//! [`Shell::approval_wait`] or the end of the agent's lease fails it.
//! The agent is told it waits (`approval.pending`) and how it ended
//! (`download.answered`). The person's own downloads are never held.
//!
//! Not held, as no request of the page's is paused for them: a download
//! of a `blob:` or `data:` url the page made itself (the browser saves
//! it without a request), and one from a service worker's response.

use super::Shell;
use cotab_shared::cdp::{ContinueRequest, FailRequest, RequestPaused};
use cotab_shared::controller::AgentEvent;
use cotab_shared::watch::{AskBefore, PendingApproval};
use cotab_shared::TabId;
use std::sync::Arc;

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

/// The file name a download is saved under, as far as the daemon can
/// tell: the `filename*` of its `Content-Disposition` (which the browser
/// prefers), else its `filename`, else the last part of its url's path;
/// at most 80 characters, without path separators or control
/// characters. (A link's `download` name is not seen here.)
fn file_name(disposition: Option<&str>, url: &str) -> String {
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
    let from_url = || {
        url::Url::parse(url)
            .ok()
            .and_then(|u| {
                u.path_segments()
                    .and_then(|mut s| s.next_back().map(str::to_owned))
            })
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "a file".to_owned())
    };
    let name = extended
        .filter(|n| !n.is_empty())
        .or_else(|| param("filename").filter(|n| !n.is_empty()))
        .unwrap_or_else(from_url);
    name.chars()
        .filter(|c| !matches!(c, '/' | '\\') && !c.is_control())
        .take(80)
        .collect()
}

impl Shell {
    /// `Fetch.requestPaused` of `tab` at a document's response: a
    /// download the page or the agent began is held for the person's yes
    /// when the tab asks before downloads; anything else goes on.
    pub(super) fn on_response_paused(self: &Arc<Self>, tab: TabId, e: &RequestPaused) {
        let main = self.with_core(|c| c.main_frame(tab).map(str::to_owned));
        let is_main = main.as_deref() == Some(e.frame_id.as_str());
        let download = e.response_error_reason.is_none()
            && is_download(
                e.response_header("content-disposition"),
                e.response_header("content-type"),
            );
        let disposition = e.response_header("content-disposition").map(str::to_owned);
        if download
            && !self.person_began(tab, e, is_main)
            && self.hold_download(tab, e, disposition.as_deref())
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

    /// Holds the paused request `e` of `tab`, a download, for the
    /// person's yes, if the tab asks before downloads and an agent holds
    /// it; `false` (nothing done: it goes on as any request) otherwise,
    /// or when the person already approved its chain (a redirect, its
    /// response after its request).
    pub(super) fn hold_download(
        self: &Arc<Self>,
        tab: TabId,
        e: &RequestPaused,
        disposition: Option<&str>,
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
        let chain = e.network_id.clone().unwrap_or_default();
        let request = e.request_id.clone();
        let approved = self.with_navs(tab, |t| {
            let approved = !chain.is_empty() && t.approved.contains(&chain);
            if !approved {
                t.waiting.push(request.clone());
            }
            approved
        });
        if approved {
            return false;
        }
        let site = crate::scope::site_of(&e.request.url).unwrap_or_default();
        let file = file_name(disposition, &e.request.url);
        let shell = self.clone();
        tracing::info!(%tab, %site, "a download waits for the person's yes");
        drop(tokio::spawn(async move {
            let asked = Asked {
                tab,
                sid,
                agent,
                site: &site,
                file: &file,
            };
            let yes = shell.ask_for_download(asked, leases, scopes).await;
            // Still paused here: no end of the hold failed it meanwhile.
            let paused = shell.with_navs(tab, |t| {
                let at = t.waiting.iter().position(|r| *r == request);
                let paused = at.map(|i| t.waiting.remove(i)).is_some();
                if paused && yes && !chain.is_empty() {
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
        } = asked;
        let what = if site.is_empty() {
            format!("download “{file}”")
        } else {
            format!("download “{file}” from {site}")
        };
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

/// A download put to the person.
struct Asked<'a> {
    tab: TabId,
    sid: crate::session::SessionId,
    agent: String,
    site: &'a str,
    file: &'a str,
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

    #[test]
    fn a_downloads_file_is_named_by_its_header_else_its_url() {
        assert_eq!(
            file_name(
                Some("attachment; filename=\"report.pdf\""),
                "https://a.test/x"
            ),
            "report.pdf"
        );
        assert_eq!(
            file_name(
                Some("attachment; FILENAME=../../etc/passwd"),
                "https://a.test/x"
            ),
            "....etcpasswd"
        );
        assert_eq!(
            file_name(None, "https://a.test/files/data.zip?x=1"),
            "data.zip"
        );
        assert_eq!(file_name(Some("attachment"), "https://a.test/"), "a file");
        assert_eq!(
            file_name(None, &format!("https://a.test/{}", "x".repeat(200))).len(),
            80
        );
    }
}
