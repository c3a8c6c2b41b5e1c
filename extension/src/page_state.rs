//! What the worker knows of the page in each attached tab, from the
//! browser's own reports (CDP events and `chrome.tabs.onUpdated`), without
//! any browser API: the tab's main frame, whether the page it shows — or
//! is on its way to — is a blocked target ([`cotab_shared::reach`]), and
//! its live JavaScript execution contexts.
//!
//! It also keeps the local files the person's host config lets agents
//! reach, as the daemon last said ([`Pages::set_files`]): pages are judged
//! against it whenever asked, so taking a directory back suspends a tab
//! showing one of its files at once.
//!
//! **A shared tab whose page is blocked is suspended for agents:** the
//! worker refuses every command on it (`BLOCKED_TARGET`) until its main
//! frame commits a page agents may drive again. A navigation is judged
//! when it starts (`Page.frameStartedNavigating`, which the browser sends
//! before the new document exists and before any later answer of the
//! tab's session), again when it commits (`Page.frameNavigated`, which
//! also covers redirects), and by the tab's url as `chrome.tabs` reports
//! it, so a path that skips one report is caught by another.
//!
//! The contexts let a privileged `Runtime.evaluate` or
//! `Runtime.callFunctionOn` name the context it means by its unique id
//! ([`Pages::pin_context`]): numeric context ids are reused by the next
//! document, so a command sent just before a navigation could otherwise
//! run in the page that replaced the one the agent saw.

use cotab_shared::reach::{check_driveable, Blocked, LocalFiles};
use cotab_shared::{ErrorKind, TabId, WireError};
use serde_json::Value;

/// CDP events the tracker reads (params as JSON).
pub const TRACKED_EVENTS: &[&str] = &[
    "Page.frameStartedNavigating",
    "Page.frameNavigated",
    "Runtime.executionContextCreated",
    "Runtime.executionContextDestroyed",
    "Runtime.executionContextsCleared",
];

/// How a report changed whether a tab is suspended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// The tab's page is (or is about to be) a blocked target.
    Blocked(Blocked),
    /// The tab shows a page agents may drive again.
    Driveable,
}

/// One JavaScript execution context of a tab's page.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Context {
    unique: String,
    frame: String,
    default: bool,
}

/// A url as a report gave it, with the url a failed navigation was going
/// to; judged against the local files allowed at the time it is asked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Seen {
    url: String,
    unreachable: Option<String>,
}

impl Seen {
    fn blocked(&self, files: &LocalFiles) -> Option<Blocked> {
        check_driveable(&self.url, self.unreachable.as_deref(), files).err()
    }
}

/// What is known of one tab's page.
#[derive(Debug, Clone, Default)]
struct Page {
    /// The main frame's id, once a report named it.
    main_frame: Option<String>,
    /// The committed page, once reported (or a blocked url the tab
    /// reported since).
    committed: Option<Seen>,
    /// A main-frame navigation that started and has not committed yet,
    /// with its loader id.
    starting: Option<(Seen, String)>,
    /// Live contexts with their (reusable) numeric id. A few per page:
    /// a list keeps the wasm smaller than a map would.
    contexts: Vec<(i64, Context)>,
    /// [`Page::judge`] as of the last report or policy change: read at
    /// every command and forwarded event, so it is kept, not recomputed.
    verdict: Option<Blocked>,
    /// Whether every CDP event of this debugger session goes to the host
    /// (the daemon's `forwardEvents`), not only the forwarded ones.
    all_events: bool,
}

impl Page {
    fn judge(&self, files: &LocalFiles) -> Option<Blocked> {
        let starting = self.starting.as_ref().and_then(|(s, _)| s.blocked(files));
        starting.or_else(|| self.committed.as_ref()?.blocked(files))
    }

    fn context(&self, id: i64) -> Option<&Context> {
        self.contexts.iter().find(|(i, _)| *i == id).map(|(_, c)| c)
    }

    fn is_main(&self, frame: &str) -> bool {
        // Until the main frame is known every frame counts as it, so a
        // blocked start is never missed (at worst a subframe's suspends
        // the tab until the next commit).
        self.main_frame.as_deref().is_none_or(|m| m == frame)
    }
}

/// The pages of every attached tab (at most a few dozen: a list), and the
/// local files the person's host config lets agents reach (none until
/// the daemon says).
#[derive(Debug, Clone, Default)]
pub struct Pages {
    tabs: Vec<(TabId, Page)>,
    files: LocalFiles,
}

fn text<'a>(v: &'a Value, pointer: &str) -> &'a str {
    at(v, pointer).and_then(Value::as_str).unwrap_or("")
}

/// `Value::pointer` for cotab's own pointers, which name object keys only
/// and hold no `~` escapes: without the unescaping, which would cost the
/// worker's wasm the two-way string searcher (kilobytes).
pub(crate) fn at<'a>(v: &'a Value, pointer: &str) -> Option<&'a Value> {
    pointer.split('/').skip(1).try_fold(v, |v, key| v.get(key))
}

impl Pages {
    fn get(&self, tab: TabId) -> Option<&Page> {
        self.tabs.iter().find(|(t, _)| *t == tab).map(|(_, p)| p)
    }

    fn entry(&mut self, tab: TabId) -> &mut Page {
        let i = match self.tabs.iter().position(|(t, _)| *t == tab) {
            Some(i) => i,
            None => {
                self.tabs.push((tab, Page::default()));
                self.tabs.len() - 1
            }
        };
        &mut self.tabs[i].1
    }

    /// Whether agents are suspended on `tab`, and why.
    pub fn blocked(&self, tab: TabId) -> Option<Blocked> {
        self.get(tab).and_then(|p| p.verdict)
    }

    /// The main frame's id (the page's CDP target id), once reported.
    pub fn main_frame(&self, tab: TabId) -> Option<&str> {
        self.get(tab)?.main_frame.as_deref()
    }

    /// Whether every CDP event of `tab`'s debugger session is forwarded.
    pub fn all_events(&self, tab: TabId) -> bool {
        self.get(tab).is_some_and(|p| p.all_events)
    }

    /// Forward every CDP event of `tab` (`all`) or only the usual ones,
    /// until the debugger session ends ([`Pages::attaching`]).
    pub fn set_all_events(&mut self, tab: TabId, all: bool) {
        self.entry(tab).all_events = all;
    }

    /// The local files agents may reach.
    pub fn files(&self) -> &LocalFiles {
        &self.files
    }

    /// The daemon says which local files agents may reach now: every
    /// tab's page is judged again. Returns the tabs whose suspension
    /// changed.
    pub fn set_files(&mut self, files: LocalFiles) -> Vec<(TabId, Change)> {
        let before: Vec<(TabId, Option<Blocked>)> =
            self.tabs.iter().map(|(t, p)| (*t, p.verdict)).collect();
        self.files = files;
        before
            .into_iter()
            .filter_map(|(tab, was)| Some((tab, self.change(tab, was)?)))
            .collect()
    }

    /// The debugger is about to (re-)attach to `tab`: what was known of
    /// its page belongs to the session that went. Contexts reported from
    /// here on are the new session's.
    pub fn attaching(&mut self, tab: TabId) {
        *self.entry(tab) = Page::default();
    }

    /// The tab's main frame as `Page.getFrameTree` reports it right after
    /// the attach: its id, url and the url it failed to reach, if any.
    pub fn attached(
        &mut self,
        tab: TabId,
        frame: &str,
        url: &str,
        unreachable: Option<&str>,
    ) -> Option<Change> {
        let before = self.blocked(tab);
        let page = self.entry(tab);
        page.main_frame = Some(frame.to_owned());
        page.committed = Some(Seen {
            url: url.to_owned(),
            unreachable: unreachable.map(str::to_owned),
        });
        self.change(tab, before)
    }

    /// The tab's url as `chrome.tabs` reports it changed: a blocked url
    /// suspends the tab (nothing else lifts that but a main-frame commit).
    pub fn url_changed(&mut self, tab: TabId, url: &str) -> Option<Change> {
        let seen = Seen {
            url: url.to_owned(),
            unreachable: None,
        };
        seen.blocked(&self.files)?;
        let before = self.blocked(tab);
        self.entry(tab).committed = Some(seen);
        self.change(tab, before)
    }

    /// A CDP event of [`TRACKED_EVENTS`] from `tab`.
    pub fn on_event(&mut self, tab: TabId, method: &str, params: &Value) -> Option<Change> {
        let before = self.blocked(tab);
        let page = self.entry(tab);
        match method {
            // A newer navigation replaces the one pending.
            "Page.frameStartedNavigating" if page.is_main(text(params, "/frameId")) => {
                let seen = Seen {
                    url: text(params, "/url").to_owned(),
                    unreachable: None,
                };
                page.starting = Some((seen, text(params, "/loaderId").to_owned()));
            }
            "Page.frameNavigated" if at(params, "/frame/parentId").is_none() => {
                let frame = text(params, "/frame/id");
                if !frame.is_empty() {
                    page.main_frame = Some(frame.to_owned());
                }
                let url = format!(
                    "{}{}",
                    text(params, "/frame/url"),
                    text(params, "/frame/urlFragment")
                );
                let unreachable = at(params, "/frame/unreachableUrl")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                page.committed = Some(Seen { url, unreachable });
                let loader = text(params, "/frame/loaderId");
                // The navigation pending is this one (or has no loader to
                // tell): it has now been judged at its commit. Another
                // one's commit leaves it pending.
                if page
                    .starting
                    .as_ref()
                    .is_some_and(|(_, l)| l.is_empty() || l == loader)
                {
                    page.starting = None;
                }
            }
            "Runtime.executionContextCreated" => {
                if let Some(id) = at(params, "/context/id").and_then(Value::as_i64) {
                    page.contexts.retain(|(i, _)| *i != id);
                    page.contexts.push((
                        id,
                        Context {
                            unique: text(params, "/context/uniqueId").to_owned(),
                            frame: text(params, "/context/auxData/frameId").to_owned(),
                            default: at(params, "/context/auxData/isDefault")
                                .and_then(Value::as_bool)
                                .unwrap_or(false),
                        },
                    ));
                }
            }
            "Runtime.executionContextDestroyed" => {
                if let Some(id) = params.get("executionContextId").and_then(Value::as_i64) {
                    page.contexts.retain(|(i, _)| *i != id);
                }
            }
            "Runtime.executionContextsCleared" => page.contexts.clear(),
            _ => {}
        }
        self.change(tab, before)
    }

    /// `tab` was detached or closed: nothing of its page is known.
    pub fn forget(&mut self, tab: TabId) {
        self.tabs.retain(|(t, _)| *t != tab);
    }

    /// Judges `tab`'s page again, and says how its suspension changed
    /// since `before`.
    fn change(&mut self, tab: TabId, before: Option<Blocked>) -> Option<Change> {
        let files = &self.files;
        let page = self
            .tabs
            .iter_mut()
            .find(|(t, _)| *t == tab)
            .map(|(_, p)| p)?;
        page.verdict = page.judge(files);
        match (before, page.verdict) {
            (None, Some(b)) => Some(Change::Blocked(b)),
            (Some(_), None) => Some(Change::Driveable),
            (Some(a), Some(b)) if a != b => Some(Change::Blocked(b)),
            _ => None,
        }
    }

    /// Names the execution context a privileged `Runtime.evaluate` or
    /// `Runtime.callFunctionOn` on `tab` runs in by its unique id, so it
    /// runs in the document the agent meant or fails: a numeric id
    /// (`contextId`, `executionContextId`) becomes the unique id it stands
    /// for now, and an evaluation that names none is pinned to the main
    /// frame's default context when it is known. A context the tab does
    /// not have, by either id, is refused. A call on an object
    /// (`objectId`) is already bound to the object's context.
    pub fn pin_context(
        &self,
        tab: TabId,
        method: &str,
        params: &mut Value,
    ) -> Result<(), WireError> {
        let unknown = || {
            WireError::new(
                ErrorKind::CommandFailed,
                "no such execution context in this tab (its document may have changed)",
            )
        };
        let Some(obj) = params.as_object_mut() else {
            return Ok(());
        };
        let numeric_key = match method {
            "Runtime.evaluate" => "contextId",
            "Runtime.callFunctionOn" => "executionContextId",
            _ => return Ok(()),
        };
        let page = self.get(tab);
        let contexts = || {
            page.map(|p| p.contexts.iter().map(|(_, c)| c))
                .into_iter()
                .flatten()
        };
        if let Some(unique) = obj.get("uniqueContextId").and_then(Value::as_str) {
            return if contexts().any(|c| c.unique == unique) {
                Ok(())
            } else {
                Err(unknown())
            };
        }
        if let Some(id) = obj.get(numeric_key).filter(|v| !v.is_null()) {
            let context = id
                .as_i64()
                .and_then(|id| page?.context(id))
                .ok_or_else(unknown)?;
            let unique = Value::String(context.unique.clone());
            obj.remove(numeric_key);
            obj.insert("uniqueContextId".into(), unique);
            return Ok(());
        }
        if method == "Runtime.evaluate" {
            let main = page.and_then(|p| p.main_frame.as_deref());
            let default = contexts().find(|c| c.default && Some(c.frame.as_str()) == main);
            if let Some(c) = default {
                obj.insert("uniqueContextId".into(), Value::String(c.unique.clone()));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const T: TabId = TabId(7);
    const MAIN: &str = "F0";

    #[test]
    fn at_reads_object_paths_as_a_json_pointer_does() {
        let v = json!({"frame": {"id": "F1", "parentId": null}, "n": [1]});
        for p in [
            "/frame/id",
            "/frame",
            "/frame/parentId",
            "/x",
            "/frame/id/more",
            "",
        ] {
            assert_eq!(at(&v, p), v.pointer(p), "{p}");
        }
    }

    fn start(url: &str, loader: &str) -> Value {
        json!({"frameId": MAIN, "url": url, "loaderId": loader, "navigationType": "differentDocument"})
    }

    fn commit(url: &str, loader: &str) -> Value {
        json!({"frame": {"id": MAIN, "loaderId": loader, "url": url}})
    }

    fn context(id: i64, unique: &str, frame: &str, default: bool) -> Value {
        json!({"context": {"id": id, "uniqueId": unique, "origin": "", "name": "",
                           "auxData": {"isDefault": default, "type": "default", "frameId": frame}}})
    }

    fn attached_web() -> Pages {
        let mut p = Pages::default();
        p.attaching(T);
        assert_eq!(p.attached(T, MAIN, "https://example.com/", None), None);
        p
    }

    #[test]
    fn a_start_towards_a_blocked_page_suspends_at_once_and_its_commit_keeps_it() {
        let mut p = attached_web();
        let c = p.on_event(
            T,
            "Page.frameStartedNavigating",
            &start("file:///etc/passwd", "L1"),
        );
        assert_eq!(c, Some(Change::Blocked(Blocked::LocalFile)));
        assert_eq!(p.blocked(T), Some(Blocked::LocalFile));
        assert_eq!(
            p.on_event(
                T,
                "Page.frameNavigated",
                &commit("file:///etc/passwd", "L1")
            ),
            None
        );
        assert_eq!(p.blocked(T), Some(Blocked::LocalFile));
        // Leaving starts towards a web page: still on the file until it
        // commits.
        assert_eq!(
            p.on_event(
                T,
                "Page.frameStartedNavigating",
                &start("https://a.test/", "L2")
            ),
            None
        );
        assert_eq!(p.blocked(T), Some(Blocked::LocalFile));
        let c = p.on_event(T, "Page.frameNavigated", &commit("https://a.test/", "L2"));
        assert_eq!(c, Some(Change::Driveable));
        assert_eq!(p.blocked(T), None);
    }

    #[test]
    fn a_redirect_is_caught_at_the_commit_and_an_error_page_judged_by_its_target() {
        let mut p = attached_web();
        assert_eq!(
            p.on_event(
                T,
                "Page.frameStartedNavigating",
                &start("https://a.test/r", "L1")
            ),
            None
        );
        let c = p.on_event(
            T,
            "Page.frameNavigated",
            &commit(
                "chrome-extension://njcapokbkdmpnkpmgflbgjlehbglmgck/popup.html",
                "L1",
            ),
        );
        assert_eq!(c, Some(Change::Blocked(Blocked::ExtensionPage)));
        let error_page = json!({"frame": {"id": MAIN, "loaderId": "L2", "url": "chrome-error://chromewebdata/",
                                          "unreachableUrl": "http://unreachable.test/"}});
        assert_eq!(
            p.on_event(T, "Page.frameNavigated", &error_page),
            Some(Change::Driveable)
        );
    }

    #[test]
    fn subframes_do_not_suspend_the_tab_once_the_main_frame_is_known() {
        let mut p = attached_web();
        let sub = json!({"frameId": "F9", "url": "file:///etc/passwd", "loaderId": "L1"});
        assert_eq!(p.on_event(T, "Page.frameStartedNavigating", &sub), None);
        let sub =
            json!({"frame": {"id": "F9", "parentId": MAIN, "loaderId": "L1", "url": "file:///x"}});
        assert_eq!(p.on_event(T, "Page.frameNavigated", &sub), None);
        assert_eq!(p.blocked(T), None);
        // Before the main frame is known, any start counts.
        let mut q = Pages::default();
        assert!(q
            .on_event(
                T,
                "Page.frameStartedNavigating",
                &json!({"frameId": "F9", "url": "file:///a", "loaderId": "L"})
            )
            .is_some());
    }

    #[test]
    fn the_tabs_url_suspends_but_only_a_commit_lifts_it() {
        let mut p = attached_web();
        assert_eq!(p.url_changed(T, "https://b.test/"), None);
        assert_eq!(
            p.url_changed(T, "file:///etc/passwd"),
            Some(Change::Blocked(Blocked::LocalFile))
        );
        assert_eq!(p.url_changed(T, "https://b.test/"), None);
        assert_eq!(p.blocked(T), Some(Blocked::LocalFile));
        assert_eq!(
            p.on_event(T, "Page.frameNavigated", &commit("https://b.test/", "L3")),
            Some(Change::Driveable)
        );
    }

    #[test]
    fn a_blocked_start_replaced_by_another_navigation_no_longer_counts() {
        let mut p = attached_web();
        assert!(p
            .on_event(T, "Page.frameStartedNavigating", &start("file:///a", "L1"))
            .is_some());
        let c = p.on_event(
            T,
            "Page.frameStartedNavigating",
            &start("https://c.test/", "L2"),
        );
        assert_eq!(c, Some(Change::Driveable));
        // An unrelated commit (another loader) leaves a pending blocked
        // start in place.
        assert!(p
            .on_event(T, "Page.frameStartedNavigating", &start("file:///b", "L4"))
            .is_some());
        assert_eq!(
            p.on_event(T, "Page.frameNavigated", &commit("https://c.test/", "L2")),
            None
        );
        assert_eq!(p.blocked(T), Some(Blocked::LocalFile));
    }

    #[test]
    fn an_attach_to_a_blocked_page_is_suspended_and_forget_drops_it() {
        let mut p = Pages::default();
        p.attaching(T);
        assert_eq!(
            p.attached(T, MAIN, "file:///etc/passwd", None),
            Some(Change::Blocked(Blocked::LocalFile))
        );
        p.forget(T);
        assert_eq!(p.blocked(T), None);
    }

    #[test]
    fn local_files_the_person_allows_are_driveable_and_revoking_them_suspends_at_once() {
        let mut p = attached_web();
        let site = "file:///home/ada/site/index.html";
        assert!(p
            .on_event(T, "Page.frameStartedNavigating", &start(site, "L1"))
            .is_some());
        p.on_event(T, "Page.frameNavigated", &commit(site, "L1"));
        assert_eq!(p.blocked(T), Some(Blocked::LocalFile));
        let allowed = LocalFiles(vec!["/home/ada/site".into()]);
        assert_eq!(p.set_files(allowed.clone()), vec![(T, Change::Driveable)]);
        assert_eq!(p.files(), &allowed);
        assert_eq!(p.blocked(T), None);
        // Elsewhere on the disk is still blocked.
        assert!(p
            .on_event(
                T,
                "Page.frameStartedNavigating",
                &start("file:///etc/passwd", "L2")
            )
            .is_some());
        p.on_event(T, "Page.frameNavigated", &commit(site, "L3"));
        assert_eq!(
            p.blocked(T),
            Some(Blocked::LocalFile),
            "the start is still pending"
        );
        p.on_event(T, "Page.frameNavigated", &commit(site, "L2"));
        assert_eq!(p.blocked(T), None);
        assert_eq!(
            p.set_files(LocalFiles::NONE),
            vec![(T, Change::Blocked(Blocked::LocalFile))]
        );
        assert_eq!(p.set_files(LocalFiles::NONE), vec![]);
    }

    #[test]
    fn evaluations_are_pinned_to_the_context_they_mean() {
        let mut p = attached_web();
        p.on_event(
            T,
            "Runtime.executionContextCreated",
            &context(1, "u-main", MAIN, true),
        );
        p.on_event(
            T,
            "Runtime.executionContextCreated",
            &context(2, "u-iso", MAIN, false),
        );
        p.on_event(
            T,
            "Runtime.executionContextCreated",
            &context(3, "u-sub", "F9", true),
        );

        let mut e = json!({"expression": "1"});
        p.pin_context(T, "Runtime.evaluate", &mut e)
            .expect("pinned");
        assert_eq!(e, json!({"expression": "1", "uniqueContextId": "u-main"}));

        let mut e = json!({"expression": "1", "contextId": 3});
        p.pin_context(T, "Runtime.evaluate", &mut e)
            .expect("pinned");
        assert_eq!(e, json!({"expression": "1", "uniqueContextId": "u-sub"}));

        let mut f = json!({"functionDeclaration": "f", "executionContextId": 2});
        p.pin_context(T, "Runtime.callFunctionOn", &mut f)
            .expect("pinned");
        assert_eq!(
            f,
            json!({"functionDeclaration": "f", "uniqueContextId": "u-iso"})
        );

        let mut f = json!({"functionDeclaration": "f", "objectId": "o.1"});
        p.pin_context(T, "Runtime.callFunctionOn", &mut f)
            .expect("bound to its object");
        assert_eq!(f, json!({"functionDeclaration": "f", "objectId": "o.1"}));

        for mut bad in [
            json!({"expression": "1", "contextId": 9}),
            json!({"expression": "1", "uniqueContextId": "u-other"}),
        ] {
            let err = p
                .pin_context(T, "Runtime.evaluate", &mut bad)
                .expect_err("unknown");
            assert_eq!(err.kind, ErrorKind::CommandFailed);
        }
        // A navigation clears the contexts: the old ids mean nothing now.
        p.on_event(T, "Runtime.executionContextsCleared", &json!({}));
        let mut e = json!({"expression": "1", "contextId": 1});
        assert!(p.pin_context(T, "Runtime.evaluate", &mut e).is_err());
        let mut e = json!({"expression": "1"});
        p.pin_context(T, "Runtime.evaluate", &mut e)
            .expect("no context known: as it is");
        assert_eq!(e, json!({"expression": "1"}));
        p.on_event(
            T,
            "Runtime.executionContextCreated",
            &context(1, "u-next", MAIN, true),
        );
        p.on_event(
            T,
            "Runtime.executionContextDestroyed",
            &json!({"executionContextId": 1}),
        );
        let mut e = json!({"expression": "1", "contextId": 1});
        assert!(p.pin_context(T, "Runtime.evaluate", &mut e).is_err());
    }
}
