//! The requests of each shared tab since it was shared, as the forwarded
//! `Network.*` events report them: the log `page.network` lists and
//! `page.networkRequest` reads one entry of (with the headers, which only
//! developer mode shows). Bounded: past [`MAX_NETWORK_REQUESTS`] the oldest
//! go, counted.

use super::Core;
use cotab_shared::cdp::{LoadingFailed, RequestWillBeSent, Response, ResponseReceived};
use cotab_shared::controller::{NetworkRequest, MAX_NETWORK_REQUESTS};
use cotab_shared::TabId;
use serde_json::Value;
use std::collections::VecDeque;

/// Longest url kept, in bytes; a longer one (a `data:` url) is cut.
const MAX_URL: usize = 2048;

/// Longest request body kept, in bytes.
const MAX_POST_DATA: usize = 64 * 1024;

/// One request, with what only developer mode shows.
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkEntry {
    /// What `page.network` lists.
    pub request: NetworkRequest,
    /// The browser's id of the request (shared by its redirects).
    pub request_id: String,
    /// The request's headers.
    pub request_headers: Value,
    /// The request's body, when the browser sent it along.
    pub request_body: Option<String>,
    /// The response's headers, once answered.
    pub response_headers: Option<Value>,
}

/// A tab's requests.
#[derive(Debug, Default)]
pub(super) struct NetworkLog {
    entries: VecDeque<NetworkEntry>,
    /// Entries given out so far (the next `index` is this plus one).
    issued: u64,
}

impl NetworkLog {
    fn push(&mut self, entry: NetworkEntry) {
        if self.entries.len() == MAX_NETWORK_REQUESTS {
            self.entries.pop_front();
        }
        self.entries.push_back(entry);
    }

    /// The latest entry of the browser's request `id` (its last redirect).
    fn latest(&mut self, id: &str) -> Option<&mut NetworkEntry> {
        self.entries.iter_mut().rev().find(|e| e.request_id == id)
    }

    fn answered(entry: &mut NetworkEntry, response: &Response) {
        entry.request.status = Some(response.status);
        entry.request.status_text = Some(response.status_text.clone());
        entry.request.mime_type =
            (!response.mime_type.is_empty()).then(|| response.mime_type.clone());
        entry.response_headers = Some(response.headers.clone());
    }

    /// How many entries were dropped for room.
    fn dropped(&self) -> u64 {
        self.issued - self.entries.len() as u64
    }
}

fn cut(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut end = max;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.push('…');
    }
    s
}

impl Core {
    /// `Network.requestWillBeSent`: a new entry; a redirect first answers
    /// the entry it leaves.
    pub fn on_request(&mut self, tab: TabId, e: RequestWillBeSent) {
        if !self.is_shared(tab) {
            return;
        }
        let log = &mut self.page_mut(tab).network;
        if let Some(redirect) = &e.redirect_response {
            if let Some(left) = log.latest(&e.request_id) {
                NetworkLog::answered(left, redirect);
            }
        }
        log.issued += 1;
        let resource_type = e
            .resource_type
            .as_deref()
            .unwrap_or("other")
            .to_ascii_lowercase();
        let entry = NetworkEntry {
            request: NetworkRequest {
                index: log.issued,
                method: e.request.method,
                url: cut(e.request.url, MAX_URL),
                resource_type,
                status: None,
                status_text: None,
                mime_type: None,
                failure: None,
            },
            request_id: e.request_id,
            request_headers: e.request.headers,
            request_body: e.request.post_data.map(|b| cut(b, MAX_POST_DATA)),
            response_headers: None,
        };
        log.push(entry);
    }

    /// `Network.responseReceived`: the latest entry of the request is
    /// answered.
    pub fn on_response(&mut self, tab: TabId, e: ResponseReceived) {
        if let Some(entry) = self
            .pages
            .get_mut(&tab)
            .and_then(|p| p.network.latest(&e.request_id))
        {
            NetworkLog::answered(entry, &e.response);
            if let Some(t) = e.resource_type {
                entry.request.resource_type = t.to_ascii_lowercase();
            }
        }
    }

    /// `Network.loadingFailed`.
    pub fn on_request_failed(&mut self, tab: TabId, e: LoadingFailed) {
        if let Some(entry) = self
            .pages
            .get_mut(&tab)
            .and_then(|p| p.network.latest(&e.request_id))
        {
            let why = match (e.error_text.is_empty(), e.canceled) {
                (true, true) => "canceled".to_string(),
                (true, false) => "failed".to_string(),
                (false, _) => e.error_text,
            };
            entry.request.failure = Some(why);
        }
    }

    /// `tab`'s requests since it was shared, oldest first, and how many
    /// older ones were dropped.
    pub fn network(&self, tab: TabId) -> (Vec<NetworkRequest>, u64) {
        match self.pages.get(&tab) {
            Some(p) => (
                p.network
                    .entries
                    .iter()
                    .map(|e| e.request.clone())
                    .collect(),
                p.network.dropped(),
            ),
            None => (Vec::new(), 0),
        }
    }

    /// The entry `index` of `tab`'s log, while the log keeps it.
    pub fn network_entry(&self, tab: TabId, index: u64) -> Option<NetworkEntry> {
        self.pages
            .get(&tab)?
            .network
            .entries
            .iter()
            .find(|e| e.request.index == index)
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broker::tests::setup;
    use serde_json::json;

    fn request(id: &str, url: &str, kind: &str) -> RequestWillBeSent {
        serde_json::from_value(json!({"requestId": id, "type": kind,
            "request": {"url": url, "method": "GET", "headers": {"Accept": "*/*"}}}))
        .expect("event")
    }

    fn response(id: &str, status: u16) -> ResponseReceived {
        serde_json::from_value(json!({"requestId": id, "type": "Fetch",
            "response": {"status": status, "statusText": "OK", "mimeType": "application/json",
                         "headers": {"Set-Cookie": "sid=1"}}}))
        .expect("event")
    }

    #[test]
    fn requests_are_numbered_answered_redirected_failed_and_bounded() {
        let (mut c, _) = setup();
        let tab = TabId(1);
        c.on_request(tab, request("1", "http://a/api", "Fetch"));
        c.on_response(tab, response("1", 200));
        // A redirect answers the entry it leaves and is an entry of its own.
        c.on_request(tab, request("2", "http://a/old", "Document"));
        let mut moved = request("2", "http://a/new", "Document");
        moved.redirect_response = Some(Response {
            status: 301,
            status_text: "Moved".into(),
            ..Response::default()
        });
        c.on_request(tab, moved);
        c.on_request_failed(
            tab,
            serde_json::from_value(json!({"requestId": "2", "errorText": "net::ERR_FAILED"}))
                .expect("event"),
        );
        let (list, dropped) = c.network(tab);
        assert_eq!(dropped, 0);
        let seen: Vec<_> = list
            .iter()
            .map(|r| (r.index, r.url.as_str(), r.status, r.failure.as_deref()))
            .collect();
        assert_eq!(
            seen,
            vec![
                (1, "http://a/api", Some(200), None),
                (2, "http://a/old", Some(301), None),
                (3, "http://a/new", None, Some("net::ERR_FAILED")),
            ]
        );
        assert_eq!(list[0].resource_type, "fetch");
        let entry = c.network_entry(tab, 1).expect("kept");
        assert_eq!(entry.response_headers, Some(json!({"Set-Cookie": "sid=1"})));
        // A tab that is not shared logs nothing.
        c.on_request(TabId(9), request("x", "http://b/", "Fetch"));
        assert_eq!(c.network(TabId(9)).0.len(), 0);
        // Bounded: the oldest go, counted; indexes go on.
        for i in 0..MAX_NETWORK_REQUESTS {
            c.on_request(tab, request(&format!("n{i}"), "http://a/x", "Image"));
        }
        let (list, dropped) = c.network(tab);
        assert_eq!(list.len(), MAX_NETWORK_REQUESTS);
        assert_eq!(dropped, 3);
        assert_eq!(list[0].index, 4);
        assert!(c.network_entry(tab, 1).is_none());
    }

    #[test]
    fn a_long_url_is_cut_at_a_character() {
        assert_eq!(cut("ééé".into(), 3), "é…");
        assert_eq!(cut("abc".into(), 3), "abc");
    }
}
