//! Each shared tab's sites: what a tab is shared for, the refusal of a
//! page of another site, and which tabs have their navigations held.

use super::tests::{tab, A};
use super::*;
use crate::scope::Scope;
use cotab_shared::watch::AskBefore;
use cotab_shared::Ticket;
use std::collections::BTreeSet;

fn at(id: i32, url: &str) -> TabInfo {
    TabInfo {
        url: url.into(),
        ..tab(id, false)
    }
}

fn sites(names: &[&str]) -> Scope {
    Scope::Sites(names.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>())
}

/// A core sharing `tabs`, with an agent session that holds the first.
fn holding(tabs: &[TabInfo]) -> (Core, SessionId) {
    let mut c = Core::default();
    c.on_lane_online();
    c.on_shared(tabs);
    let s = c.hello(A, "ada".into(), Ticket("t".into()));
    c.select(s, A, tabs[0].id).expect("select");
    c.acquire(s, A).expect("acquire");
    c.take_effects();
    (c, s)
}

#[test]
fn a_tab_is_shared_for_its_site_and_a_tab_it_opens_for_the_same() {
    let popup = TabInfo {
        opener: Some(TabId(1)),
        ..at(2, "https://ads.test/landing")
    };
    let (mut c, _) = holding(&[at(1, "https://mail.example.com/"), at(3, "about:blank")]);
    assert_eq!(c.scope(TabId(1)), sites(&["example.com"]));
    assert_eq!(c.scope(TabId(3)), Scope::Any, "a page with no site");
    // A tab the page opened cannot widen its sites, wherever it went.
    c.on_shared(&[at(1, "https://mail.example.com/"), popup]);
    assert_eq!(c.scope(TabId(2)), sites(&["example.com"]));
    assert!(c.take_effects().contains(&Effect::Scopes));
    // A tab an agent opens gets every site shared together.
    assert_eq!(c.scope_for_agent_tab(), sites(&["example.com"]));
}

#[test]
fn an_agent_is_refused_a_page_of_another_site_until_the_person_allows_it() {
    let (mut c, s) = holding(&[at(1, "https://mail.example.com/")]);
    assert!(c.fence(s, A, Need::Observe).is_ok());
    // The person takes the tab to their bank: no agent reads it there.
    c.on_shared(&[at(1, "https://bank.test/accounts")]);
    for need in [Need::Observe, Need::Act] {
        let err = c.fence(s, A, need).expect_err("another site");
        assert_eq!(err.kind, ErrorKind::SiteNotAllowed, "{need:?}");
        assert!(err.message.contains("bank.test"), "{}", err.message);
        assert!(!err.message.contains("accounts"), "{}", err.message);
    }
    // An agent may take it back to its site, not elsewhere.
    assert!(c
        .fence_to(s, A, Need::Act, Some("https://mail.example.com/"))
        .is_ok());
    let err = c
        .fence_to(s, A, Need::Act, Some("https://shop.test/"))
        .expect_err("another site");
    assert_eq!(err.kind, ErrorKind::SiteNotAllowed);
    // The person allows the bank for this share.
    c.set_scope(TabId(1), sites(&["bank.test", "example.com"]))
        .expect("shared");
    assert!(c.fence(s, A, Need::Observe).is_ok());
    assert_eq!(
        c.set_scope(TabId(9), Scope::Any)
            .expect_err("not shared")
            .kind,
        ErrorKind::TabNotShared
    );
}

#[test]
fn navigations_are_held_while_an_agent_holds_a_tab_of_some_sites() {
    let (mut c, s) = holding(&[at(1, "https://mail.example.com/"), at(2, "about:blank")]);
    assert_eq!(c.tabs_to_hold(), vec![TabId(1)], "tab 2 is any site");
    assert_eq!(c.holder_of(TabId(1)), Some((s, "ada".to_owned())));
    // The person takes control: their navigations are theirs.
    c.on_shared(&[
        TabInfo {
            human_control: true,
            ..at(1, "https://mail.example.com/")
        },
        at(2, "about:blank"),
    ]);
    assert_eq!(c.tabs_to_hold(), Vec::<TabId>::new());
    assert_eq!(c.holder_of(TabId(1)), None);
    // Handed back and taken again, then any site: nothing to hold.
    c.on_shared(&[at(1, "https://mail.example.com/"), at(2, "about:blank")]);
    c.acquire(s, A).expect("acquire");
    assert_eq!(c.tabs_to_hold(), vec![TabId(1)]);
    c.set_scope(TabId(1), Scope::Any).expect("shared");
    assert_eq!(c.tabs_to_hold(), Vec::<TabId>::new());
    // Any site, but asking before downloads: held, responses too.
    assert!(!c.holds_downloads(TabId(1)));
    c.set_ask_before(TabId(1), AskBefore::Download, true)
        .expect("shared");
    assert_eq!(c.tabs_to_hold(), vec![TabId(1)]);
    assert!(c.holds_downloads(TabId(1)));
    assert!(!c.holds_downloads(TabId(2)));
    c.set_ask_before(TabId(1), AskBefore::Download, false)
        .expect("shared");
    assert_eq!(c.tabs_to_hold(), Vec::<TabId>::new());
    // Unshared: nothing is reachable there.
    c.on_shared(&[at(2, "about:blank")]);
    assert!(!c.reachable(TabId(1)));
    assert!(c.reachable(TabId(2)));
}

#[test]
fn the_persons_sites_for_every_share_widen_each_and_are_not_kept_by_one() {
    let (mut c, s) = holding(&[at(1, "https://mail.example.com/")]);
    c.set_lasting_sites(BTreeSet::from(["github.com".to_owned()]));
    assert!(c.take_effects().contains(&Effect::Scopes));
    assert_eq!(c.scope(TabId(1)), sites(&["example.com", "github.com"]));
    assert_eq!(c.own_scope(TabId(1)), sites(&["example.com"]));
    assert_eq!(
        c.scope_for_agent_tab(),
        sites(&["example.com", "github.com"])
    );
    c.on_shared(&[at(1, "https://github.com/ada")]);
    assert!(c.fence(s, A, Need::Observe).is_ok());
    assert_eq!(c.tabs_to_hold(), vec![TabId(1)], "still some sites only");
    // Taken back: the tab's own sites are what is left.
    c.set_lasting_sites(BTreeSet::new());
    assert_eq!(
        c.fence(s, A, Need::Observe).expect_err("another site").kind,
        ErrorKind::SiteNotAllowed
    );
    c.take_effects();
    c.set_lasting_sites(BTreeSet::new());
    assert!(!c.take_effects().contains(&Effect::Scopes), "no change");
}

#[test]
fn what_a_tab_asks_before_is_the_persons_and_goes_with_the_tabs_it_opens() {
    use cotab_shared::watch::AskBefore;
    let (mut c, s) = holding(&[at(1, "https://mail.example.com/"), at(3, "about:blank")]);
    assert!(c.ask_before(TabId(1)).is_empty());
    c.set_ask_before(TabId(1), AskBefore::Files, true)
        .expect("shared");
    assert!(c.take_effects().contains(&Effect::Scopes));
    // The same again changes nothing, and tells nobody.
    c.set_ask_before(TabId(1), AskBefore::Files, true)
        .expect("shared");
    assert!(!c.take_effects().contains(&Effect::Scopes));
    let err = c
        .set_ask_before(TabId(9), AskBefore::Step, true)
        .expect_err("not shared");
    assert_eq!(err.kind, ErrorKind::TabNotShared);
    // A tab the page opens asks the same; so does one an agent opens.
    let popup = TabInfo {
        opener: Some(TabId(1)),
        ..at(2, "https://mail.example.com/x")
    };
    c.on_shared(&[
        at(1, "https://mail.example.com/"),
        at(3, "about:blank"),
        popup,
    ]);
    assert_eq!(c.ask_before(TabId(2)), [AskBefore::Files].into());
    assert!(c.ask_before(TabId(3)).is_empty());
    let made = at(4, "https://mail.example.com/new");
    c.tab_created(s, A, &made, Scope::Any).expect("created");
    assert_eq!(c.ask_before(TabId(4)), [AskBefore::Files].into());
    c.set_ask_before(TabId(1), AskBefore::Files, false)
        .expect("shared");
    assert!(c.ask_before(TabId(1)).is_empty());
    assert!(c.ask_before(TabId(9)).is_empty(), "a tab not shared");
}

#[test]
fn a_page_of_another_site_is_refused_as_soon_as_it_commits_before_the_list_says_so() {
    let (mut c, s) = holding(&[at(1, "https://mail.example.com/")]);
    // The person's navigation commits: the page says so before the list.
    c.on_main_frame_committed(TabId(1), "https://bank.test/accounts");
    let err = c.fence(s, A, Need::Observe).expect_err("another site");
    assert_eq!(err.kind, ErrorKind::SiteNotAllowed);
    // The list catches up; then the person comes back, the list first.
    c.on_shared(&[at(1, "https://bank.test/accounts")]);
    assert!(c.fence(s, A, Need::Observe).is_err());
    c.on_shared(&[at(1, "https://mail.example.com/inbox")]);
    assert!(c.fence(s, A, Need::Observe).is_ok());
    // A document of the tab's own site commits: nothing changes.
    c.on_main_frame_committed(TabId(1), "https://mail.example.com/sent");
    assert!(c.fence(s, A, Need::Observe).is_ok());
    c.on_main_frame_committed(TabId(1), "");
    assert!(c.fence(s, A, Need::Observe).is_ok());
}
