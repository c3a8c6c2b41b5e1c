//! Holding a shared tab's navigations to sites outside its scope
//! ([`crate::scope`]) before any request for them leaves the browser.
//!
//! While an agent holds a tab whose scope is narrower than any site
//! ([`Core::tabs_to_hold`]), the daemon has the browser pause every
//! document request of the tab (`Fetch.enable`) and answers each pause:
//! a frame's document, a page in scope and a navigation the person
//! started go on; a main-frame navigation to another site that the page
//! or an agent started is failed as `Aborted` (the tab stays on its
//! page, as when a navigation is cancelled), kept in the agent's
//! activity record, and told to the agent (`navigation.refused`).
//!
//! Who started a navigation, as the browser tells it: the page asks
//! first (`Page.frameRequestedNavigation`: a link, a form, a script, a
//! refresh); an agent's own (`page.navigate`, a raw `Page.navigate`)
//! runs under [`Shell::agent_going`]; anything else is the browser's own
//! — the person's address bar, a bookmark, the back button — which is
//! never held. A redirect is judged as the request that began its chain.
//! Not told apart: a script's `history.back()` from the person's back
//! button (both go on; a page of another site the history brings back is
//! refused to agents by the fence, `SITE_NOT_ALLOWED`), and a page
//! opening another tab (`window.open`, `target=_blank`), whose first
//! request the opener cannot pause: the new tab is shared for the
//! opener's sites, so agents are refused there if it left them.
//!
//! The commands go as the daemon's own (class `release`), so a pause is
//! answered whoever controls the tab by then; a pause of a tab not held
//! (Fetch left on by an earlier daemon, or turned off meanwhile) goes on.

use super::Shell;
use crate::broker::Core;
use crate::scope::Scope;
use crate::session::SessionId;
use cotab_shared::cdp::{
    ContinueRequest, FailRequest, FetchDisable, FrameRequestedNavigation, HoldDocuments,
    RequestPaused,
};
use cotab_shared::controller::AgentEvent;
use cotab_shared::native::{HostToExtension, OpenedHold};
use cotab_shared::watch::{TabScope, TabScopeChange};
use cotab_shared::{ErrorKind, TabId, WireError};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::Arc;

/// How many chains of redirects a tab remembers the start of.
const CHAINS: usize = 8;

/// Who started a navigation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Starter {
    /// The browser on its own: the person (address bar, bookmarks,
    /// history buttons).
    Person,
    /// The page (links, forms, scripts, refreshes).
    Page,
    /// An agent's own navigation command.
    Agent,
}

/// What the daemon holds and knows of each tab's navigations.
#[derive(Debug, Default)]
pub(crate) struct Holds {
    /// The tabs it had the browser pause document requests of, each with
    /// whether at their responses too (to tell downloads).
    on: BTreeMap<TabId, bool>,
    /// What the extension was last told of the tabs whose pages may open
    /// no tab at another site.
    opened: Vec<OpenedHold>,
    tabs: HashMap<TabId, TabNavs>,
}

#[derive(Debug, Default)]
pub(super) struct TabNavs {
    /// The page asked for a main-frame navigation that no paused request
    /// answered yet.
    asked: bool,
    /// Agent requests taking the tab somewhere themselves, running.
    agent_going: u32,
    /// Who began each recent chain, by its network id.
    chains: VecDeque<(String, Starter)>,
    /// Navigations refused so far, and the last refusal.
    refused: u64,
    last: Option<WireError>,
    /// Urls the page asked to download (`<a download>`), not paused yet.
    downloads: VecDeque<String>,
    /// The pauses of downloads known by their request (a link with
    /// `download`), let go to their response, where they are asked for
    /// whatever their type.
    pub(super) links: VecDeque<String>,
    /// Downloads paused for the person's yes, by request id.
    pub(super) waiting: Vec<String>,
    /// The network ids of downloads the person approved: their later
    /// pauses (the response, a redirect) go on unasked.
    pub(super) approved: VecDeque<String>,
}

/// While alive, an agent's request is taking its tab somewhere itself
/// ([`Shell::agent_going`]).
pub(crate) struct Going<'a> {
    shell: &'a Shell,
    tab: TabId,
}

impl Drop for Going<'_> {
    fn drop(&mut self) {
        let mut h = self.shell.holds_lock();
        if let Some(t) = h.tabs.get_mut(&self.tab) {
            t.agent_going = t.agent_going.saturating_sub(1);
        }
    }
}

impl Shell {
    fn holds_lock(&self) -> std::sync::MutexGuard<'_, Holds> {
        self.holds.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Turns the pausing on where the core now wants navigations held and
    /// off where it no longer does (after the lease or a scope changed,
    /// or the lane came back).
    pub(super) fn update_holds(&self) {
        let (want, reachable, opened) = self.with_core(|c| {
            let want: BTreeMap<TabId, bool> = c
                .tabs_to_hold()
                .into_iter()
                .map(|t| (t, c.holds_downloads(t)))
                .collect();
            let reachable: BTreeSet<TabId> = c
                .shared()
                .iter()
                .map(|i| i.id)
                .filter(|t| c.reachable(*t))
                .collect();
            let opened: Vec<OpenedHold> = want
                .keys()
                .filter_map(|&tab_id| match c.scope(tab_id) {
                    Scope::Sites(sites) => Some(OpenedHold {
                        tab_id,
                        sites: sites.into_iter().collect(),
                    }),
                    Scope::Any => None,
                })
                .collect();
            (want, reachable, opened)
        });
        let (on, off, failed, opened) = {
            let mut h = self.holds_lock();
            // New, or its responses held now or no longer.
            let on: Vec<(TabId, bool)> = want
                .iter()
                .filter(|(t, r)| h.on.get(t) != Some(r))
                .map(|(t, r)| (*t, *r))
                .collect();
            // An unshared tab's debugger is gone, and the extension lets a
            // suspended one go itself: nothing to turn off there.
            let off: Vec<TabId> =
                h.on.keys()
                    .filter(|t| !want.contains_key(t) && reachable.contains(t))
                    .copied()
                    .collect();
            // Downloads waiting where responses are held no more: failed
            // before the pausing changes, which would let them go on.
            let failed: Vec<(TabId, String)> = h
                .tabs
                .iter_mut()
                .filter(|(t, _)| want.get(t) != Some(&true) && reachable.contains(t))
                .flat_map(|(t, navs)| navs.waiting.drain(..).map(|id| (*t, id)))
                .collect();
            h.on = want;
            let opened = (h.opened != opened).then(|| {
                h.opened.clone_from(&opened);
                opened
            });
            (on, off, failed, opened)
        };
        if let Some(tabs) = opened {
            tracing::debug!(
                tabs = tabs.len(),
                "the tabs whose pages may open no tab elsewhere"
            );
            self.lane.send_oneway(&HostToExtension::HoldOpened { tabs });
        }
        for (tab, request_id) in failed {
            tracing::info!(%tab, "a download waiting for the person is refused: its hold ended");
            self.send_detached(
                tab,
                &FailRequest {
                    request_id: &request_id,
                    error_reason: "Aborted",
                },
            );
        }
        for (tab, responses) in on {
            tracing::debug!(%tab, responses, "holding the tab's document requests");
            self.send_detached(tab, &HoldDocuments { responses });
        }
        for tab in off {
            tracing::debug!(%tab, "no longer holding navigations");
            self.send_detached(tab, &FetchDisable {});
        }
    }

    /// Every shared tab's sites and what it asks before, as the watches
    /// tell them.
    pub(crate) fn tab_scopes(&self) -> Vec<TabScope> {
        self.with_core(|c| {
            c.scopes()
                .into_iter()
                .map(|(info, scope)| TabScope {
                    tab: info.id,
                    title: info.title.clone(),
                    sites: match scope {
                        Scope::Any => Vec::new(),
                        Scope::Sites(sites) => sites.into_iter().collect(),
                    },
                    ask_before: c.ask_before(info.id).into_iter().collect(),
                })
                .collect()
        })
    }

    /// The person changed where agents may take a shared tab (from the
    /// side panel's watch): any site, only the site of the page it shows,
    /// or one site more. A tab not shared or a name that is not a site
    /// is refused and changes nothing.
    pub(crate) fn change_scope(&self, change: &TabScopeChange) -> Result<(), WireError> {
        let tab = change.tab;
        self.with_core(|c| {
            let now = c.own_scope(tab);
            let scope = match (change.any_site, change.allow.as_deref()) {
                (Some(true), None) => Scope::Any,
                (Some(false), None) => c.scope_of_page(tab),
                (None, Some(site)) => {
                    let Some(site) = crate::scope::site_named(site) else {
                        return Err(WireError::new(
                            ErrorKind::InvalidRequest,
                            "`allow` must name a site, as `example.com`",
                        ));
                    };
                    match now {
                        Scope::Any => Scope::Any,
                        Scope::Sites(mut sites) => {
                            sites.insert(site);
                            Scope::Sites(sites)
                        }
                    }
                }
                _ => {
                    return Err(WireError::new(
                        ErrorKind::InvalidRequest,
                        "a change of a tab's sites says `anySite` or `allow`, one of them",
                    ))
                }
            };
            c.set_scope(tab, scope)
        })?;
        tracing::info!(%tab, "the person changed the sites a tab is shared for");
        Ok(())
    }

    /// Marks an agent's request on `tab` as taking it somewhere itself
    /// until the guard drops: what it starts is the agent's.
    pub(crate) fn agent_going(&self, tab: TabId) -> Going<'_> {
        self.holds_lock().tabs.entry(tab).or_default().agent_going += 1;
        Going { shell: self, tab }
    }

    /// How many navigations of `tab` were refused so far, and the last
    /// refusal.
    pub(crate) fn refusals(&self, tab: TabId) -> (u64, Option<WireError>) {
        self.holds_lock()
            .tabs
            .get(&tab)
            .map_or((0, None), |t| (t.refused, t.last.clone()))
    }

    /// `Page.frameRequestedNavigation` of `tab`: the page asked to take
    /// its main frame somewhere.
    pub(super) fn on_navigation_asked(&self, tab: TabId, e: &FrameRequestedNavigation) {
        let main = self.with_core(|c| c.main_frame(tab) == Some(e.frame_id.as_str()));
        if main && e.disposition == "currentTab" {
            self.holds_lock().tabs.entry(tab).or_default().asked = true;
        }
        if e.disposition == "download" {
            let mut h = self.holds_lock();
            let asked = &mut h.tabs.entry(tab).or_default().downloads;
            if asked.len() >= CHAINS {
                asked.pop_front();
            }
            asked.push_back(e.url.clone());
        }
    }

    /// The tab's share ended: what was known of it goes.
    pub(super) fn forget_navs(&self, tab: TabId) {
        self.holds_lock().tabs.remove(&tab);
    }

    /// `Fetch.requestPaused` of `tab`: let it go or fail it, or hold a
    /// download for the person's yes.
    pub(super) fn on_request_paused(self: &Arc<Self>, tab: TabId, e: &RequestPaused) {
        if e.at_response() {
            self.on_response_paused(tab, e);
            return;
        }
        let (main, scope, holder) = self.with_core(|c: &mut Core| {
            (
                c.main_frame(tab).map(str::to_owned),
                c.scope(tab),
                c.holder_of(tab),
            )
        });
        let is_main = main.as_deref() == Some(e.frame_id.as_str());
        // `None` when nothing is held there (no agent holds the tab).
        let (held, starter) = {
            let mut h = self.holds_lock();
            let held = h.on.contains_key(&tab);
            let t = h.tabs.entry(tab).or_default();
            // A frame's document is the page's content, never refused.
            let starter = if is_main {
                starter_of(t, e)
            } else {
                Starter::Person
            };
            (held, (held && holder.is_some()).then_some(starter))
        };
        tracing::debug!(%tab, main = is_main, starter = ?starter, "a document request paused");
        let refuse = is_main
            && e.resource_type == "Document"
            && matches!(starter, Some(Starter::Page | Starter::Agent))
            && !scope.allows(&e.request.url);
        // `<a download>`, known before it is sent: the page said so, or
        // it is fetched as no navigation is ([`fetched_to_save`]). It goes
        // on to its response, where the name the browser saves it under
        // is known, marked (as is the request a redirect of a marked one
        // makes); when the marks are full, it is held here.
        let carried = e.redirected_request_id.as_ref().is_some_and(|r| {
            self.with_navs(tab, |t| {
                let at = t.links.iter().position(|l| l == r);
                at.and_then(|i| t.links.remove(i)).is_some()
            })
        });
        let download =
            carried || self.page_downloads(tab, &e.request.url) || fetched_to_save(e, is_main);
        if !refuse && download {
            let marked = self.with_navs(tab, |t| {
                let room = t.links.len() < CHAINS;
                if room {
                    t.links.push_back(e.request_id.clone());
                }
                room
            });
            if !marked && self.hold_download(tab, e, None, true) {
                return;
            }
        }
        if !refuse {
            self.send_detached(
                tab,
                &ContinueRequest {
                    request_id: &e.request_id,
                },
            );
            if !held {
                // Left on by an earlier daemon, or turned off since.
                self.send_detached(tab, &FetchDisable {});
            }
            return;
        }
        self.send_detached(
            tab,
            &FailRequest {
                request_id: &e.request_id,
                error_reason: "Aborted",
            },
        );
        let who = match starter {
            Some(Starter::Agent) => "go to",
            _ => "the page tried to go to",
        };
        self.refused(tab, &e.request.url, &scope, holder, who);
    }

    /// Tells the extension again which tabs' pages may open no tab at
    /// another site (a new connection of the browser's).
    pub(super) fn tell_opened_holds(&self) {
        let tabs = self.holds_lock().opened.clone();
        self.lane.send_oneway(&HostToExtension::HoldOpened { tabs });
    }

    /// The browser blocked the first request of a tab a page of `tab`
    /// opened, to `url` ([`cotab_shared::native::Event::OpenedRefused`]):
    /// refused as the page's own navigation there would be, if the tab
    /// is still held and `url` still outside its sites.
    pub(super) fn on_opened_refused(&self, tab: TabId, url: &str) {
        let (scope, holder) = self.with_core(|c| (c.scope(tab), c.holder_of(tab)));
        if !self.holds_lock().on.contains_key(&tab) || scope.allows(url) {
            tracing::debug!(%tab, "a blocked tab the page opened, no longer held");
            return;
        }
        self.refused(tab, url, &scope, holder, "the page tried to open a tab at");
    }

    /// A navigation of `tab` to `url`, outside its `scope`, was refused:
    /// counted, kept in the record of the agent holding the tab, and told
    /// to it.
    fn refused(
        &self,
        tab: TabId,
        url: &str,
        scope: &Scope,
        holder: Option<(SessionId, String)>,
        who: &str,
    ) {
        let error = scope.refusal(tab, url);
        let site = crate::scope::site_of(url).unwrap_or_default();
        tracing::info!(%tab, %site, "held a navigation outside the tab's sites");
        {
            let mut h = self.holds_lock();
            let t = h.tabs.entry(tab).or_default();
            t.refused += 1;
            t.last = Some(error.clone());
        }
        if let Some((sid, agent)) = holder {
            let what = format!("{who} {site} (not allowed: {})", scope.describe());
            self.activity
                .refused(sid, &agent, tab, what, site.clone(), error.clone());
            self.with_core(|c| {
                c.notify(
                    sid,
                    AgentEvent::NavigationRefused {
                        tab_id: tab,
                        site,
                        message: error.message,
                    },
                );
            });
        }
    }
}

impl Shell {
    /// The tab's navigation records, for [`super::downloads`].
    pub(super) fn with_navs<R>(&self, tab: TabId, f: impl FnOnce(&mut TabNavs) -> R) -> R {
        f(self.holds_lock().tabs.entry(tab).or_default())
    }

    /// Whether the page asked to download `url` (`<a download>`): taken
    /// once.
    fn page_downloads(&self, tab: TabId, url: &str) -> bool {
        let mut h = self.holds_lock();
        let Some(t) = h.tabs.get_mut(&tab) else {
            return false;
        };
        let at = t.downloads.iter().position(|u| u == url);
        at.and_then(|i| t.downloads.remove(i)).is_some()
    }

    /// Whether the person began the document request `e`, paused at its
    /// response: its chain's start, as judged when it was sent (a frame's
    /// document, or one not seen then, counts as the page's).
    pub(super) fn person_began(&self, tab: TabId, e: &RequestPaused, is_main: bool) -> bool {
        if !is_main {
            return false;
        }
        let chain = e.network_id.clone().unwrap_or_default();
        let h = self.holds_lock();
        h.tabs.get(&tab).is_some_and(|t| {
            t.chains
                .iter()
                .any(|(id, s)| *id == chain && *s == Starter::Person)
        })
    }
}

/// Whether the paused request `e` carries the header the browser sends
/// with every navigation request (`Upgrade-Insecure-Requests`).
/// Whether `e` (paused at its request or its response) is the tab's
/// document fetched as no navigation is, which only a download is:
/// without the `Upgrade-Insecure-Requests` every navigation of the
/// browser's carries, the person's too.
pub(super) fn fetched_to_save(e: &RequestPaused, is_main: bool) -> bool {
    is_main && e.resource_type == "Document" && !navigation_headers(e)
}

fn navigation_headers(e: &RequestPaused) -> bool {
    e.request.headers.as_object().is_some_and(|h| {
        h.keys()
            .any(|k| k.eq_ignore_ascii_case("upgrade-insecure-requests"))
    })
}

/// Who began the navigation `e` (a main-frame document request) of a tab
/// whose navigations are `t`, remembered along its redirects.
fn starter_of(t: &mut TabNavs, e: &RequestPaused) -> Starter {
    let chain = e.network_id.clone().unwrap_or_default();
    if e.redirected_request_id.is_some() {
        if let Some((_, s)) = t.chains.iter().find(|(id, _)| *id == chain) {
            return *s;
        }
        // A chain begun before the daemon knew: judged as the page's.
        return Starter::Page;
    }
    let s = if std::mem::take(&mut t.asked) {
        Starter::Page
    } else if t.agent_going > 0 {
        Starter::Agent
    } else {
        Starter::Person
    };
    if t.chains.len() >= CHAINS {
        t.chains.pop_front();
    }
    t.chains.push_back((chain, s));
    s
}
