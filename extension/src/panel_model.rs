//! What the side panel shows of agents at work, pure: the requests the
//! daemon's watch told of ([`cotab_shared::watch`]), per agent — what it
//! is doing now, its latest requests with their outcome and the latest
//! picture of the tab it works in — where agents may take each shared
//! tab and what it asks before, the requests waiting for the person's
//! yes, and which tabs "Stop all agents" takes from them.

use cotab_shared::native::{Holder, TabControl};
use cotab_shared::watch::{
    ActivityEntry, Mark, PendingApproval, TabPicture, TabScope, TabVideo, WatchEvent,
};
use cotab_shared::TabId;
use std::collections::BTreeMap;

/// Where a request's mark goes on the picture of its tab, in percent of
/// the picture's width and height ([`place`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Placed {
    /// An element's box, the part inside the picture: left, top, width,
    /// height.
    Box(f64, f64, f64, f64),
    /// A point: left, top.
    Point(f64, f64),
    /// Outside the picture: the element is above, below or beside what
    /// the tab shows.
    Outside(&'static str),
}

/// Places `mark`, in CSS pixels of a `width`×`height` viewport, on its
/// picture. None for a viewport without a size.
pub fn place(mark: Mark, width: u32, height: u32) -> Option<Placed> {
    if width == 0 || height == 0 {
        return None;
    }
    let (w, h) = (f64::from(width), f64::from(height));
    let (x0, y0) = (f64::from(mark.x), f64::from(mark.y));
    if mark.width == 0 && mark.height == 0 {
        if !(0.0..=w).contains(&x0) || !(0.0..=h).contains(&y0) {
            return Some(Placed::Outside("off the part of the page shown"));
        }
        return Some(Placed::Point(x0 / w * 100.0, y0 / h * 100.0));
    }
    let (x1, y1) = (x0 + f64::from(mark.width), y0 + f64::from(mark.height));
    if y1 <= 0.0 {
        return Some(Placed::Outside("above the part of the page shown"));
    }
    if y0 >= h {
        return Some(Placed::Outside("below the part of the page shown"));
    }
    if x1 <= 0.0 || x0 >= w {
        return Some(Placed::Outside("beside the part of the page shown"));
    }
    let (cx0, cy0, cx1, cy1) = (x0.max(0.0), y0.max(0.0), x1.min(w), y1.min(h));
    Some(Placed::Box(
        cx0 / w * 100.0,
        cy0 / h * 100.0,
        (cx1 - cx0) / w * 100.0,
        (cy1 - cy0) / h * 100.0,
    ))
}

/// The latest requests shown per agent.
pub const RECENT_PER_AGENT: usize = 20;

/// Requests kept in all, oldest dropped first.
const KEPT: usize = 500;

/// The requests the watch told of, by number.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Activity {
    entries: BTreeMap<u64, ActivityEntry>,
    /// The latest picture of each tab.
    pictures: BTreeMap<TabId, TabPicture>,
    /// Each shared tab's sites, as the watch last told them.
    scopes: Vec<TabScope>,
    /// The requests waiting for the person's yes, oldest first.
    approvals: Vec<PendingApproval>,
    /// The videos being recorded, then the person's latest saved ones.
    videos: Vec<TabVideo>,
}

/// One agent as the panel shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentView {
    /// Its name.
    pub agent: String,
    /// What it is doing now, if a request of its runs.
    pub now: Option<ActivityEntry>,
    /// Its latest requests that ended, newest first.
    pub recent: Vec<ActivityEntry>,
    /// The latest picture of the tab its latest request that ended was
    /// on, taken after one of its requests.
    pub picture: Option<TabPicture>,
}

impl Activity {
    /// Takes in what the watch said.
    pub fn apply(&mut self, event: WatchEvent) {
        if event.recent {
            self.entries.clear();
            self.pictures.clear();
        }
        if let Some(scopes) = event.scopes {
            self.scopes = scopes;
        }
        if let Some(approvals) = event.approvals {
            self.approvals = approvals;
        }
        if let Some(videos) = event.videos {
            self.videos = videos;
        }
        for picture in event.pictures {
            self.pictures.insert(picture.tab, picture);
        }
        for entry in event.entries {
            self.entries.insert(entry.seq, entry);
        }
        while self.entries.len() > KEPT {
            self.entries.pop_first();
        }
    }

    /// Where agents may take `tab`: its sites (empty for any site), or
    /// `None` when the watch told of no such shared tab.
    pub fn sites(&self, tab: TabId) -> Option<&[String]> {
        self.scopes
            .iter()
            .find(|s| s.tab == tab)
            .map(|s| s.sites.as_slice())
    }

    /// Every shared tab's sites, as the watch last told them.
    pub fn scopes(&self) -> &[TabScope] {
        &self.scopes
    }

    /// The video being recorded of `tab`, if one is.
    pub fn recording(&self, tab: TabId) -> Option<&TabVideo> {
        self.videos.iter().find(|v| v.recording && v.tab == tab)
    }

    /// The person's latest saved videos, newest last.
    pub fn saved_videos(&self) -> impl Iterator<Item = &TabVideo> {
        self.videos.iter().filter(|v| !v.recording)
    }

    /// The requests waiting for the person's yes, oldest first.
    pub fn approvals(&self) -> &[PendingApproval] {
        &self.approvals
    }

    /// Every agent that made a request, the one that acted last first.
    pub fn agents(&self) -> Vec<AgentView> {
        let mut views: Vec<AgentView> = Vec::new();
        for entry in self.entries.values().rev() {
            let at = match views.iter().position(|v| v.agent == entry.agent) {
                Some(at) => at,
                None => {
                    views.push(AgentView {
                        agent: entry.agent.clone(),
                        now: None,
                        recent: Vec::new(),
                        picture: None,
                    });
                    views.len() - 1
                }
            };
            let view = &mut views[at];
            match entry.outcome {
                None if view.now.is_none() => view.now = Some(entry.clone()),
                None => {}
                Some(_) if view.recent.len() < RECENT_PER_AGENT => view.recent.push(entry.clone()),
                Some(_) => {}
            }
        }
        for view in &mut views {
            view.picture = view
                .recent
                .first()
                .and_then(|e| e.tab)
                .and_then(|tab| self.pictures.get(&tab))
                .filter(|p| {
                    self.entries
                        .get(&p.seq)
                        .is_none_or(|e| e.agent == view.agent)
                })
                .cloned();
        }
        views
    }
}

/// The tabs an agent holds now: what "Stop all agents" takes back.
pub fn held_by_agents(controllers: &[TabControl]) -> Vec<TabId> {
    controllers
        .iter()
        .filter(|c| matches!(c.holder, Holder::Agent { .. }))
        .map(|c| c.tab_id)
        .collect()
}

/// How an entry reads in the panel: what it did, then its outcome and
/// time when it ended (`click · button "Send" — ok, 12 ms`).
pub fn line(entry: &ActivityEntry) -> String {
    match (&entry.outcome, entry.ms) {
        (Some(outcome), Some(ms)) => format!("{} — {}, {ms} ms", entry.what, outcome_text(outcome)),
        (Some(outcome), None) => format!("{} — {}", entry.what, outcome_text(outcome)),
        (None, _) => entry.what.clone(),
    }
}

/// Entries in one page of the activity record's viewer.
pub const RECORD_PAGE: u32 = 50;

/// What the viewer's pager says: `entries 51–100 of 10000`.
pub fn page_range(from: u32, shown: usize, total: u32) -> String {
    if shown == 0 {
        return format!("no entries of {total}");
    }
    let last = u64::from(from) + shown as u64;
    format!("entries {}–{last} of {total}", from + 1)
}

/// The page before `from` (never below 0) and after it (`None` past the
/// end).
pub fn pages_around(from: u32, total: u32) -> (Option<u32>, Option<u32>) {
    let before = (from > 0).then(|| from.saturating_sub(RECORD_PAGE));
    let after = from.checked_add(RECORD_PAGE).filter(|n| *n < total);
    (before, after)
}

/// An outcome in the person's words.
fn outcome_text(outcome: &str) -> &str {
    match outcome {
        "ok" => "done",
        "HUMAN_HAS_CONTROL" => "refused: you have control",
        "NO_CONTROL" => "refused: no control",
        "BLOCKED_TARGET" => "refused: a page agents may not use",
        "TAB_NOT_SHARED" => "refused: the tab is not shared",
        "DEVELOPER_MODE_OFF" => "refused: developer mode is off",
        "TIMEOUT" => "timed out",
        "DIALOG_OPEN" => "a dialog is open",
        "SITE_NOT_ALLOWED" => "refused: a site you did not allow",
        "DENIED_BY_PERSON" => "not approved by you",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(seq: u64, agent: &str, what: &str, outcome: Option<&str>) -> ActivityEntry {
        ActivityEntry {
            seq,
            at_ms: 1_000 + seq,
            agent: agent.into(),
            tab: Some(TabId(1)),
            method: String::new(),
            what: what.into(),
            outcome: outcome.map(str::to_owned),
            ms: outcome.map(|_| 5),
            typed: None,
            site: None,
        }
    }

    #[test]
    fn each_agent_shows_the_latest_picture_of_the_tab_it_works_in() {
        let mut a = Activity::default();
        let picture = |tab: i32, seq: u64| TabPicture {
            tab: TabId(tab),
            seq,
            jpeg: format!("/9j/{seq}"),
        };
        a.apply(WatchEvent {
            recent: true,
            entries: vec![
                entry(1, "ada", "click", Some("ok")),
                entry(2, "bob", "click", Some("ok")),
            ],
            pictures: vec![picture(1, 1)],
            ..WatchEvent::default()
        });
        let views = a.agents();
        // Both worked in tab 1; the picture followed ada's request.
        assert_eq!(views[0].agent, "bob");
        assert_eq!(views[0].picture, None);
        assert_eq!(views[1].picture, Some(picture(1, 1)));
        a.apply(WatchEvent {
            pictures: vec![picture(1, 2)],
            ..WatchEvent::default()
        });
        let views = a.agents();
        assert_eq!(views[0].picture, Some(picture(1, 2)));
        assert_eq!(views[1].picture, None, "bob's request came after");
        // The recent ones again: pictures start over too.
        a.apply(WatchEvent {
            recent: true,
            ..WatchEvent::default()
        });
        assert!(a.agents().is_empty());
    }

    #[test]
    fn the_record_pages_read_as_a_person_counts() {
        assert_eq!(page_range(0, 50, 10_000), "entries 1–50 of 10000");
        assert_eq!(page_range(9_950, 50, 10_000), "entries 9951–10000 of 10000");
        assert_eq!(page_range(0, 0, 0), "no entries of 0");
        assert_eq!(pages_around(0, 120), (None, Some(50)));
        assert_eq!(pages_around(50, 120), (Some(0), Some(100)));
        assert_eq!(pages_around(100, 120), (Some(50), None));
        assert_eq!(pages_around(10, 120), (Some(0), Some(60)));
        assert_eq!(
            pages_around(u32::MAX - 1, u32::MAX),
            (Some(u32::MAX - 51), None)
        );
    }

    #[test]
    fn each_agent_shows_what_it_does_now_and_its_latest_requests() {
        let mut a = Activity::default();
        a.apply(WatchEvent {
            recent: true,
            entries: vec![
                entry(1, "ada", "click · button \"Send\"", Some("ok")),
                entry(2, "bob", "go back", Some("TIMEOUT")),
            ],
            agent_pointer: Some(true),
            ..WatchEvent::default()
        });
        a.apply(WatchEvent {
            recent: false,
            entries: vec![entry(3, "ada", "type 5 characters", None)],
            ..WatchEvent::default()
        });
        let views = a.agents();
        assert_eq!(
            views.iter().map(|v| v.agent.as_str()).collect::<Vec<_>>(),
            ["ada", "bob"]
        );
        assert_eq!(
            views[0].now.as_ref().map(|e| e.what.as_str()),
            Some("type 5 characters")
        );
        assert_eq!(views[0].recent.len(), 1);
        assert_eq!(line(&views[1].recent[0]), "go back — timed out, 5 ms");
        // It ends: no longer doing anything, newest first.
        a.apply(WatchEvent {
            recent: false,
            entries: vec![entry(
                3,
                "ada",
                "type 5 characters",
                Some("HUMAN_HAS_CONTROL"),
            )],
            ..WatchEvent::default()
        });
        let views = a.agents();
        assert_eq!(views[0].now, None);
        assert_eq!(
            line(&views[0].recent[0]),
            "type 5 characters — refused: you have control, 5 ms"
        );
        // Only the latest per agent, and a bounded whole.
        for seq in 10..10 + 600 {
            a.apply(WatchEvent {
                recent: false,
                entries: vec![entry(seq, "ada", "wait", Some("ok"))],
                ..WatchEvent::default()
            });
        }
        assert_eq!(a.agents()[0].recent.len(), RECENT_PER_AGENT);
        assert!(a.entries.len() <= KEPT);
    }

    #[test]
    fn the_sites_of_each_tab_are_the_last_told() {
        let mut a = Activity::default();
        assert_eq!(a.sites(TabId(1)), None);
        let scope = |tab: i32, sites: &[&str]| TabScope {
            tab: TabId(tab),
            title: String::new(),
            sites: sites.iter().map(|s| s.to_string()).collect(),
            ask_before: Vec::new(),
        };
        a.apply(WatchEvent {
            recent: true,
            scopes: Some(vec![scope(1, &["example.com"]), scope(2, &[])]),
            ..WatchEvent::default()
        });
        assert_eq!(a.sites(TabId(1)), Some(&["example.com".to_string()][..]));
        assert_eq!(a.sites(TabId(2)), Some(&[][..]));
        // Entries alone keep them; a new list replaces them.
        a.apply(WatchEvent {
            entries: vec![entry(1, "ada", "go", Some("SITE_NOT_ALLOWED"))],
            ..WatchEvent::default()
        });
        assert_eq!(a.sites(TabId(2)), Some(&[][..]));
        a.apply(WatchEvent {
            scopes: Some(vec![scope(2, &["a.test"])]),
            ..WatchEvent::default()
        });
        assert_eq!(a.sites(TabId(1)), None);
        assert_eq!(
            line(&a.agents()[0].recent[0]),
            "go — refused: a site you did not allow, 5 ms"
        );
    }

    #[test]
    fn a_mark_is_placed_on_its_picture_in_percent_and_clipped() {
        let m = |x, y, width, height| Mark {
            x,
            y,
            width,
            height,
        };
        assert_eq!(
            place(m(100, 50, 200, 100), 1000, 500),
            Some(Placed::Box(10.0, 10.0, 20.0, 20.0))
        );
        // Partly outside: the part inside.
        assert_eq!(
            place(m(-100, 450, 200, 100), 1000, 500),
            Some(Placed::Box(0.0, 90.0, 10.0, 10.0))
        );
        assert_eq!(
            place(m(250, 125, 0, 0), 1000, 500),
            Some(Placed::Point(25.0, 25.0))
        );
        assert_eq!(
            place(m(10, 900, 50, 20), 1000, 500),
            Some(Placed::Outside("below the part of the page shown"))
        );
        assert_eq!(
            place(m(10, -90, 50, 20), 1000, 500),
            Some(Placed::Outside("above the part of the page shown"))
        );
        assert_eq!(
            place(m(1200, 10, 50, 20), 1000, 500),
            Some(Placed::Outside("beside the part of the page shown"))
        );
        assert_eq!(
            place(m(1200, 10, 0, 0), 1000, 500),
            Some(Placed::Outside("off the part of the page shown"))
        );
        assert_eq!(place(m(1, 1, 1, 1), 0, 500), None);
    }

    #[test]
    fn the_requests_waiting_for_the_person_are_the_last_told() {
        use cotab_shared::watch::AskBefore;
        let mut a = Activity::default();
        assert!(a.approvals().is_empty());
        let waiting = PendingApproval {
            id: 4,
            agent: "ada".into(),
            tab: Some(TabId(1)),
            ask: AskBefore::Files,
            what: "upload · 1 file".into(),
            text: None,
            left_ms: 45_000,
            frame: None,
        };
        a.apply(WatchEvent {
            recent: true,
            approvals: Some(vec![waiting.clone()]),
            ..WatchEvent::default()
        });
        assert_eq!(a.approvals(), &[waiting][..]);
        // Entries alone keep them; an empty list ends them.
        a.apply(WatchEvent {
            entries: vec![entry(1, "ada", "upload", Some("DENIED_BY_PERSON"))],
            ..WatchEvent::default()
        });
        assert_eq!(a.approvals().len(), 1);
        a.apply(WatchEvent {
            approvals: Some(Vec::new()),
            ..WatchEvent::default()
        });
        assert!(a.approvals().is_empty());
        assert_eq!(
            line(&a.agents()[0].recent[0]),
            "upload — not approved by you, 5 ms"
        );
    }

    #[test]
    fn stop_all_takes_the_tabs_agents_hold() {
        let controllers = [
            TabControl {
                tab_id: TabId(1),
                holder: Holder::agent("ada"),
            },
            TabControl {
                tab_id: TabId(2),
                holder: Holder::Human,
            },
            TabControl {
                tab_id: TabId(3),
                holder: Holder::Nobody,
            },
            TabControl {
                tab_id: TabId(4),
                holder: Holder::agent("bob"),
            },
        ];
        assert_eq!(held_by_agents(&controllers), vec![TabId(1), TabId(4)]);
    }
}
