//! Where agents may take a shared tab (issue 40): a tab is shared for the
//! site of the page it shows; an agent's navigation or new tab elsewhere
//! is refused before anything reaches the browser; while an agent holds
//! the tab, the page's own navigations elsewhere are held in the browser
//! and failed, the person's go on; only the person, on the side panel's
//! watch, widens it.

use crate::harness::{notification, tab, Daemon, FakeExt, Script};
use crate::watch::{next, watch, Watch};
use cotab_host::client::Client;
use cotab_shared::controller::{
    Acquire, CdpSend, CdpSendParams, CreateTabParams, Empty, Navigate, NavigateParams,
    SelectParams, TabsCreate, TabsSelect,
};
use cotab_shared::native::{Command, Event, TabInfo};
use cotab_shared::watch::{ActivityEntry, TabScope};
use cotab_shared::{ErrorKind, TabId};
use futures_util::SinkExt as _;
use serde_json::{json, Value};

const T: i32 = 7;

/// Tab `id` showing `url`, its main frame `main-<id>`.
fn at(id: i32, url: &str) -> TabInfo {
    TabInfo {
        url: url.into(),
        target_id: Some(format!("main-{id}")),
        ..tab(id)
    }
}

/// The extension sharing tab 7 on `url`, and an agent that holds it.
async fn controlling(d: &Daemon, url: &str) -> (FakeExt, Client) {
    let ext = FakeExt::connect(
        &d.host_sock(),
        Script {
            tabs: vec![at(T, url)],
            ..Script::default()
        },
    )
    .await;
    let mut a = d.agent().await;
    a.call::<TabsSelect>(&SelectParams { tab_id: TabId(T) })
        .await
        .expect("select");
    a.call::<Acquire>(&Empty {}).await.expect("acquire");
    (ext, a)
}

/// A CDP event of tab 7, as the extension forwards it.
fn cdp(ext: &FakeExt, method: &str, params: Value) {
    ext.event(Event::Cdp {
        session: None,
        tab_id: TabId(T),
        method: method.into(),
        params,
    });
}

/// The page asks to take its main frame to `url`.
fn page_asks(ext: &FakeExt, url: &str) {
    cdp(
        ext,
        "Page.frameRequestedNavigation",
        json!({"frameId": format!("main-{T}"), "url": url, "reason": "scriptInitiated",
               "disposition": "currentTab"}),
    );
}

/// The browser paused the document request `id` to `url` of `frame`.
fn paused(ext: &FakeExt, id: &str, url: &str, frame: &str, redirected: Option<&str>) {
    let mut params = json!({"requestId": id, "frameId": frame, "resourceType": "Document",
        "networkId": format!("net-{}", redirected.unwrap_or(id)),
        "request": {"url": url, "method": "GET", "headers": {}}});
    if let Some(r) = redirected {
        params["redirectedRequestId"] = json!(r);
    }
    cdp(ext, "Fetch.requestPaused", params);
}

/// How the daemon answered the paused request `id`: the method it sent
/// for it (`Fetch.continueRequest` or `Fetch.failRequest`) and its params.
async fn answer(ext: &mut FakeExt, id: &str) -> (String, Value) {
    loop {
        let command = ext.next_command().await;
        let Some(call) = command.call() else {
            continue;
        };
        if call.params["requestId"] == id {
            return (call.method.clone(), call.params.clone());
        }
    }
}

async fn goes_on(ext: &mut FakeExt, id: &str) {
    let (method, _) = answer(ext, id).await;
    assert_eq!(method, "Fetch.continueRequest", "request {id}");
}

async fn is_failed(ext: &mut FakeExt, id: &str) {
    let (method, params) = answer(ext, id).await;
    assert_eq!(method, "Fetch.failRequest", "request {id}");
    assert_eq!(params["errorReason"], "Aborted");
}

/// The refusals of a site among the entries a new watch is told first.
async fn refused_entries(d: &Daemon) -> Vec<ActivityEntry> {
    let mut w = watch(d).await;
    let recent = next(&mut w).await.entries;
    recent
        .into_iter()
        .filter(|e| e.outcome.as_deref() == Some("SITE_NOT_ALLOWED"))
        .collect()
}

/// The next sites the watch tells.
async fn scopes(w: &mut Watch) -> Vec<TabScope> {
    loop {
        if let Some(scopes) = next(w).await.scopes {
            return scopes;
        }
    }
}

async fn send(w: &mut Watch, change: Value) {
    w.send(serde_json::to_vec(&change).expect("json"))
        .await
        .expect("send");
}

fn sites(scopes: &[TabScope]) -> Vec<String> {
    scopes
        .iter()
        .find(|s| s.tab == TabId(T))
        .map(|s| s.sites.clone())
        .expect("tab 7 listed")
}

#[tokio::test]
async fn an_agent_cannot_take_a_tab_or_open_one_outside_its_sites() {
    let d = Daemon::start().await;
    let (mut ext, mut a) = controlling(&d, "https://mail.example.com/inbox").await;
    ext.next_cdp("Fetch.enable").await;
    while ext.received.try_recv().is_ok() {}

    let err = a
        .call::<Navigate>(&NavigateParams::to("https://bank.test/login?next=pay"))
        .await
        .expect_err("another site");
    assert_eq!(err.kind(), Some(ErrorKind::SiteNotAllowed), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("bank.test") && text.contains("example.com"),
        "{text}"
    );
    assert!(!text.contains("login"), "the url's path stays out: {text}");
    let err = a
        .call::<TabsCreate>(&CreateTabParams {
            url: Some("http://bank.test/".into()),
        })
        .await
        .expect_err("another site");
    assert_eq!(err.kind(), Some(ErrorKind::SiteNotAllowed), "{err}");
    // Nothing of either reached the browser.
    a.call::<cotab_shared::controller::TabsList>(&Empty {})
        .await
        .expect("tabs.list");
    assert!(matches!(ext.next_command().await, Command::ListShared));

    // Another page of the same site is the same site.
    a.call::<Navigate>(&NavigateParams::to("https://www.example.com/settings"))
        .await
        .expect("the same site");
    // The person's side panel can offer to allow the site of each.
    let refused = refused_entries(&d).await;
    assert_eq!(refused.len(), 2, "{refused:?}");
    assert!(
        refused
            .iter()
            .all(|e| e.site.as_deref() == Some("bank.test")),
        "{refused:?}"
    );
}

#[tokio::test]
async fn the_pages_own_navigations_elsewhere_are_held_and_the_agent_told() {
    let d = Daemon::start().await;
    let (mut ext, mut a) = controlling(&d, "https://mail.example.com/inbox").await;
    let enable = ext.next_cdp("Fetch.enable").await;
    assert_eq!(
        enable["patterns"][0],
        json!({"urlPattern": "http://*", "resourceType": "Document", "requestStage": "Request"})
    );
    let mut w = watch(&d).await;
    assert_eq!(sites(&scopes(&mut w).await), ["example.com"]);

    // A script, a link or a form of the page: failed before it is sent.
    page_asks(&ext, "https://bank.test/pay");
    paused(&ext, "r1", "https://bank.test/pay", "main-7", None);
    is_failed(&mut ext, "r1").await;
    let told = notification(&mut a, "navigation.refused").await;
    assert_eq!(told["tabId"], T);
    assert_eq!(told["site"], "bank.test");
    // Its own site, a frame's document and the person's own navigation go.
    page_asks(&ext, "https://www.example.com/next");
    paused(&ext, "r2", "https://www.example.com/next", "main-7", None);
    goes_on(&mut ext, "r2").await;
    paused(&ext, "r3", "https://ads.test/frame", "child-1", None);
    goes_on(&mut ext, "r3").await;
    paused(&ext, "r4", "https://bank.test/", "main-7", None);
    goes_on(&mut ext, "r4").await;
    // A redirect is judged as the request its chain began with.
    page_asks(&ext, "https://mail.example.com/out");
    paused(&ext, "r5", "https://mail.example.com/out", "main-7", None);
    goes_on(&mut ext, "r5").await;
    paused(&ext, "r6", "https://bank.test/pay", "main-7", Some("r5"));
    is_failed(&mut ext, "r6").await;

    // The person reads it in the side panel and allows the site there.
    let refused: ActivityEntry = loop {
        let event = next(&mut w).await;
        if let Some(e) = event
            .entries
            .into_iter()
            .find(|e| e.outcome.as_deref() == Some("SITE_NOT_ALLOWED"))
        {
            break e;
        }
    };
    assert_eq!(refused.site.as_deref(), Some("bank.test"));
    assert_eq!(refused.agent, "test-agent");
    assert_eq!(
        refused.what,
        "the page tried to go to bank.test (not allowed: example.com)"
    );
    send(
        &mut w,
        json!({"tabScope": {"tab": T, "allow": "bank.test"}}),
    )
    .await;
    assert_eq!(sites(&scopes(&mut w).await), ["bank.test", "example.com"]);
    page_asks(&ext, "https://bank.test/pay");
    paused(&ext, "r7", "https://bank.test/pay", "main-7", None);
    goes_on(&mut ext, "r7").await;
    a.call::<Navigate>(&NavigateParams::to("https://bank.test/"))
        .await
        .expect("allowed now");

    // Any site: nothing is held any more.
    send(&mut w, json!({"tabScope": {"tab": T, "anySite": true}})).await;
    assert_eq!(sites(&scopes(&mut w).await), Vec::<String>::new());
    ext.next_cdp("Fetch.disable").await;
    a.call::<Navigate>(&NavigateParams::to("https://elsewhere.test/"))
        .await
        .expect("any site");
}

#[tokio::test]
async fn raw_cdp_cannot_turn_the_holding_off() {
    let d = Daemon::start().await;
    let (ext, mut a) = controlling(&d, "https://mail.example.com/").await;
    ext.event(Event::DeveloperMode { enabled: true });
    notification(&mut a, "developerMode.changed").await;
    for (method, params) in [
        ("Fetch.disable", json!({})),
        ("Fetch.enable", json!({"patterns": []})),
        ("Fetch.continueRequest", json!({"requestId": "r1"})),
        ("Page.navigate", json!({"url": "https://bank.test/"})),
    ] {
        let err = a
            .call::<CdpSend>(&CdpSendParams {
                method: method.into(),
                params: Some(params),
                session_id: None,
            })
            .await
            .expect_err(method);
        assert!(
            matches!(
                err.kind(),
                Some(ErrorKind::BlockedTarget | ErrorKind::SiteNotAllowed)
            ),
            "{method}: {err}"
        );
    }
    // Shared for any site but asking before downloads: `Fetch` holds
    // those, so an agent cannot let one go itself.
    let mut w = watch(&d).await;
    send(&mut w, json!({"tabScope": {"tab": T, "anySite": true}})).await;
    send(
        &mut w,
        json!({"tabAskBefore": {"tab": T, "what": "download", "on": true}}),
    )
    .await;
    loop {
        let s = scopes(&mut w).await;
        if sites(&s).is_empty() && s[0].ask_before.iter().any(|a| a.as_str() == "download") {
            break;
        }
    }
    let err = a
        .call::<CdpSend>(&CdpSendParams {
            method: "Fetch.continueRequest".into(),
            params: Some(json!({"requestId": "r1"})),
            session_id: None,
        })
        .await
        .expect_err("Fetch is cotab's");
    assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget), "{err}");
}

#[tokio::test]
async fn a_bad_change_of_sites_changes_nothing() {
    let d = Daemon::start().await;
    let (_ext, _a) = controlling(&d, "https://mail.example.com/").await;
    let mut w = watch(&d).await;
    let first = scopes(&mut w).await;
    assert_eq!(sites(&first), ["example.com"]);
    assert_eq!(first[0].title, "Tab 7");
    for bad in [
        json!({"tabScope": {"tab": T, "allow": "https://bank.test/x"}}),
        json!({"tabScope": {"tab": T, "allow": "com"}}),
        json!({"tabScope": {"tab": T, "allow": ""}}),
        json!({"tabScope": {"tab": T}}),
        json!({"tabScope": {"tab": T, "anySite": true, "allow": "bank.test"}}),
        json!({"tabScope": {"tab": 99, "anySite": true}}),
    ] {
        send(&mut w, bad.clone()).await;
        assert_eq!(sites(&scopes(&mut w).await), ["example.com"], "{bad}");
    }
    // A site is named by its registrable domain, whatever the case.
    send(
        &mut w,
        json!({"tabScope": {"tab": T, "allow": "Bank.Test"}}),
    )
    .await;
    assert_eq!(sites(&scopes(&mut w).await), ["bank.test", "example.com"]);
}

/// The person's sites for every share, in the host config: agents may
/// work there in any share, an entry that names no site is left out and
/// reported, and a change applies within a second.
#[tokio::test]
async fn the_host_configs_sites_apply_to_every_share() {
    use cotab_shared::controller::Status;
    let tmp = tempfile::tempdir().expect("tempdir");
    let rt = tmp.path().join("rt");
    let config = tmp.path().join("config.json");
    std::fs::write(
        &config,
        r#"{"sites": ["GitHub.com", "https://bank.test/", "com"]}"#,
    )
    .expect("config");
    let _daemon = crate::harness::daemon_binary(&rt, &tmp.path().join("state"), &config);
    let host = rt.join(cotab_host::runtime::HOST_SOCKET);
    let agent_sock = rt.join(cotab_host::runtime::AGENT_SOCKET);
    crate::harness::eventually(|| tokio::net::UnixStream::connect(host.clone())).await;
    let _ext = FakeExt::connect(
        &host,
        Script {
            tabs: vec![at(T, "https://mail.example.com/")],
            ..Script::default()
        },
    )
    .await;
    let mut a = crate::harness::eventually(|| {
        let sock = agent_sock.clone();
        async move {
            let mut c = Client::connect(sock).await?;
            c.hello("test-agent").await?;
            c.call::<TabsSelect>(&SelectParams { tab_id: TabId(T) })
                .await?;
            Ok::<_, cotab_host::client::ClientError>(c)
        }
    })
    .await;
    a.call::<Acquire>(&Empty {}).await.expect("acquire");
    let status = a.call::<Status>(&Empty {}).await.expect("status");
    assert_eq!(status.sites, ["github.com"]);
    assert_eq!(status.sites_refused, [1, 2]);
    a.call::<Navigate>(&NavigateParams::to("https://github.com/ada"))
        .await
        .expect("a site of every share");
    let err = a
        .call::<Navigate>(&NavigateParams::to("https://bank.test/"))
        .await
        .expect_err("a bad entry allows nothing");
    assert_eq!(err.kind(), Some(ErrorKind::SiteNotAllowed), "{err}");

    // The person takes it back: every watch is told, and it is refused.
    let mut w = crate::watch::watch_at(&host).await;
    assert_eq!(sites(&scopes(&mut w).await), ["example.com", "github.com"]);
    std::fs::write(&config, r#"{"sites": []}"#).expect("config");
    assert_eq!(sites(&scopes(&mut w).await), ["example.com"]);
    let err = a
        .call::<Navigate>(&NavigateParams::to("https://github.com/ada"))
        .await
        .expect_err("taken back");
    assert_eq!(err.kind(), Some(ErrorKind::SiteNotAllowed), "{err}");
    let status = a.call::<Status>(&Empty {}).await.expect("status");
    assert!(status.sites.is_empty() && status.sites_refused.is_empty());
}

/// The one request the watch says waits for the person's yes, once one
/// does.
async fn waiting_one(w: &mut Watch) -> cotab_shared::watch::PendingApproval {
    loop {
        if let Some(mut a) = next(w).await.approvals {
            if a.len() == 1 {
                return a.remove(0);
            }
        }
    }
}

/// The browser paused the navigation `id` to `url` of tab 7's main frame
/// before sending it, with the headers every navigation carries.
fn navigation_paused(ext: &FakeExt, id: &str, url: &str) {
    cdp(
        ext,
        "Fetch.requestPaused",
        json!({"requestId": id, "frameId": format!("main-{T}"), "resourceType": "Document",
               "networkId": format!("net-{id}"),
               "request": {"url": url, "method": "GET",
                           "headers": {"Upgrade-Insecure-Requests": "1"}}}),
    );
}

/// The browser paused the document request `id` at its response, with
/// `headers`.
fn response_paused(ext: &FakeExt, id: &str, url: &str, headers: Value) {
    cdp(
        ext,
        "Fetch.requestPaused",
        json!({"requestId": id, "frameId": format!("main-{T}"), "resourceType": "Document",
               "networkId": format!("net-{id}"), "responseStatusCode": 200,
               "responseHeaders": headers,
               "request": {"url": url, "method": "GET",
                           "headers": {"Upgrade-Insecure-Requests": "1"}}}),
    );
}

/// An agent holding tab 7, whose person asks before downloads, with the
/// browser pausing its responses too now; the person's watch.
async fn asking_downloads(d: &Daemon) -> (FakeExt, Client, Watch) {
    let (mut ext, a) = controlling(d, "https://mail.example.com/inbox").await;
    let mut w = watch(d).await;
    send(
        &mut w,
        json!({"tabAskBefore": {"tab": T, "what": "download", "on": true}}),
    )
    .await;
    loop {
        let (params, _) = ext.next_cdp_class("Fetch.enable").await;
        if params.to_string().contains("\"Response\"") {
            break;
        }
    }
    (ext, a, w)
}

#[tokio::test]
async fn a_download_waits_in_the_browser_for_the_persons_yes_and_a_takeover_fails_it() {
    let d = Daemon::start().await;
    let (mut ext, mut a, mut w) = asking_downloads(&d).await;
    let attachment = json!([{"name": "content-disposition", "value": "attachment; filename=\"r.csv\""},
                            {"name": "Content-Type", "value": "text/csv"}]);

    // A page that is shown goes on; one the browser would save waits.
    page_asks(&ext, "https://mail.example.com/page");
    navigation_paused(&ext, "p1", "https://mail.example.com/page");
    goes_on(&mut ext, "p1").await;
    response_paused(
        &ext,
        "p1",
        "https://mail.example.com/page",
        json!([{"name": "Content-Type", "value": "text/html"}]),
    );
    goes_on(&mut ext, "p1").await;
    // The person's own (their address bar): never held.
    navigation_paused(&ext, "m1", "https://mail.example.com/mine");
    goes_on(&mut ext, "m1").await;
    response_paused(
        &ext,
        "m1",
        "https://mail.example.com/mine",
        attachment.clone(),
    );
    goes_on(&mut ext, "m1").await;
    // A link with `download` (its request carries no navigation
    // headers): it goes on to its response, which waits whatever its
    // type, as it is saved; approved, it goes on.
    cdp(
        &ext,
        "Fetch.requestPaused",
        json!({"requestId": "d1", "frameId": format!("main-{T}"), "resourceType": "Document",
               "networkId": "net-d1", "request": {"url": "https://mail.example.com/notes.txt",
               "method": "GET", "headers": {}}}),
    );
    goes_on(&mut ext, "d1").await;
    let shown = json!([{"name": "Content-Type", "value": "text/plain"}]);
    response_paused(&ext, "d1", "https://mail.example.com/notes.txt", shown);
    let waiting = waiting_one(&mut w).await;
    assert_eq!(
        waiting.what,
        "download “notes.txt” from example.com (the page may save it under another name)",
        "the fake browser has no page whose link names it"
    );
    assert_eq!(
        notification(&mut a, "approval.pending").await["ask"],
        "download"
    );
    send(
        &mut w,
        json!({"approval": {"id": waiting.id, "approve": true}}),
    )
    .await;
    goes_on(&mut ext, "d1").await;
    let told = notification(&mut a, "download.answered").await;
    assert_eq!(told["saved"], true);

    // The page's attachment waits; the person takes the tab: it is failed
    // before the pausing ends (which would let it go on), nothing saved.
    page_asks(&ext, "https://mail.example.com/r");
    navigation_paused(&ext, "r1", "https://mail.example.com/r");
    goes_on(&mut ext, "r1").await;
    response_paused(&ext, "r1", "https://mail.example.com/r", attachment.clone());
    let waiting = waiting_one(&mut w).await;
    assert_eq!(waiting.ask.as_str(), "download");
    assert_eq!(waiting.what, "download “r.csv” from example.com");
    notification(&mut a, "approval.pending").await;
    ext.event(Event::Shared(cotab_shared::native::SharedTabs {
        tabs: vec![TabInfo {
            human_control: true,
            ..at(T, "https://mail.example.com/inbox")
        }],
    }));
    let first = loop {
        let command = ext.next_command().await;
        let Some(call) = command.call() else {
            continue;
        };
        match call.method.as_str() {
            "Fetch.disable" => break "Fetch.disable".to_owned(),
            "Fetch.failRequest" if call.params["requestId"] == "r1" => {
                break "Fetch.failRequest".to_owned()
            }
            _ => {}
        }
    };
    assert_eq!(first, "Fetch.failRequest", "failed before the pausing ends");
    let told = notification(&mut a, "download.answered").await;
    assert_eq!(
        told,
        json!({"tabId": T, "site": "example.com", "file": "r.csv", "saved": false})
    );
}

/// A link's download paused: at its request (`status` none, no navigation
/// headers, as the browser fetches a download), or at its response.
fn link_paused(
    ext: &FakeExt,
    id: &str,
    url: &str,
    redirected: Option<&str>,
    status: Option<i64>,
    headers: Value,
) {
    let mut e = json!({"requestId": id, "frameId": format!("main-{T}"), "resourceType": "Document",
                       "request": {"url": url, "method": "GET", "headers": {}}});
    if let Some(r) = redirected {
        e["redirectedRequestId"] = json!(r);
    }
    if let Some(status) = status {
        e["responseStatusCode"] = json!(status);
        e["responseHeaders"] = headers;
    }
    cdp(ext, "Fetch.requestPaused", e);
}

/// A link's download goes on to its response, through a redirect whose
/// step is not asked for, and waits there whatever its type; the page
/// that starts more of them than the daemon can follow has the next held
/// at its request, not let go.
#[tokio::test]
async fn a_links_download_waits_at_its_last_response_and_none_slips_past_its_mark() {
    let d = Daemon::start().await;
    let (mut ext, mut a, mut w) = asking_downloads(&d).await;
    let text = json!([{"name": "Content-Type", "value": "text/plain"}]);
    let moved = json!([{"name": "Location", "value": "/files/n.txt"}]);
    let url = "https://mail.example.com/n";
    link_paused(&ext, "l1", url, None, None, json!(null));
    goes_on(&mut ext, "l1").await;
    link_paused(&ext, "l1", url, None, Some(302), moved);
    goes_on(&mut ext, "l1").await;
    let moved_to = "https://mail.example.com/files/n.txt";
    link_paused(&ext, "l2", moved_to, Some("l1"), None, json!(null));
    goes_on(&mut ext, "l2").await;
    link_paused(&ext, "l2", moved_to, None, Some(200), text.clone());
    let waiting = waiting_one(&mut w).await;
    assert_eq!(
        waiting.what, "download “n.txt” from example.com (the page may save it under another name)",
        "the link was not read: the fake browser has no page"
    );
    notification(&mut a, "approval.pending").await;
    send(
        &mut w,
        json!({"approval": {"id": waiting.id, "approve": false}}),
    )
    .await;
    is_failed(&mut ext, "l2").await;
    assert_eq!(
        notification(&mut a, "download.answered").await["saved"],
        false
    );

    // Eight downloads whose responses never come fill the marks; the
    // ninth waits at its request.
    for i in 0..8 {
        let id = format!("f{i}");
        link_paused(&ext, &id, &format!("{url}{i}"), None, None, json!(null));
        goes_on(&mut ext, &id).await;
    }
    link_paused(&ext, "f8", &format!("{url}8"), None, None, json!(null));
    let waiting = waiting_one(&mut w).await;
    assert!(
        waiting.what.starts_with("download “n8”"),
        "{}",
        waiting.what
    );
    // And a response of a link's download whose mark is gone is told by
    // its request's headers.
    link_paused(&ext, "f9", &format!("{url}9"), None, Some(200), text);
    let second = loop {
        let n = next(&mut w).await;
        if n.approvals.as_ref().is_some_and(|p| p.len() == 2) {
            break n.approvals.unwrap_or_default();
        }
    };
    assert!(
        second.iter().any(|p| p.what.starts_with("download “n9”")),
        "{second:?}"
    );
}

/// While an agent holds a tab shared for some sites, the extension is told
/// to have the browser block the first request of a tab the page opens
/// elsewhere, with the tab's sites; when the agent lets go, that ends. A
/// blocked one the extension reports is refused as the page's own
/// navigation would be, and told to the agent; reported when the tab is
/// no longer held, it is nothing.
#[tokio::test]
async fn the_tabs_a_held_page_opens_are_held_with_it_and_a_blocked_one_is_told() {
    use cotab_shared::controller::Release;
    let d = Daemon::start().await;
    let (mut ext, mut a) = controlling(&d, "https://mail.example.com/inbox").await;
    ext.opened_until(|o| o.len() == 1 && o[0].tab_id == TabId(T) && o[0].sites == ["example.com"])
        .await;

    let opened = |url: &str| Event::OpenedRefused {
        tab_id: TabId(T),
        opened: TabId(8),
        url: url.into(),
    };
    // In its sites (the extension's rule would never block it): nothing.
    ext.event(opened("https://www.example.com/"));
    ext.event(opened("https://bank.test/pay?to=x"));
    let told = notification(&mut a, "navigation.refused").await;
    assert_eq!(told["site"], "bank.test", "{told}");
    assert_eq!(told["tabId"], T, "{told}");
    let text = told["message"].as_str().unwrap_or_default();
    assert!(!text.contains("pay"), "the url's path stays out: {text}");

    a.call::<Release>(&Empty {}).await.expect("release");
    ext.opened_until(<[_]>::is_empty).await;
    ext.event(opened("https://bank.test/again"));
    // A call the extension answers comes back behind the event on its
    // connection: the daemon took the event first.
    a.call::<cotab_shared::controller::TabsList>(&Empty {})
        .await
        .expect("tabs.list");
    // The one refusal is all the record has.
    let refused = refused_entries(&d).await;
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(
        refused[0].what.contains("open a tab at bank.test"),
        "{refused:?}"
    );
}
