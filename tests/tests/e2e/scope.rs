//! Issue 40: a share is scoped to the site of the page it was shared on.
//! While an agent holds the tab, a main-frame navigation to another site
//! — the agent's own, or the page's (a script, a link, a form, a
//! redirect) — is refused before any request for it leaves the browser:
//! a server on a second site records every request it gets, with its
//! cookies, and gets none. The person's own navigations go; the agent
//! reads nothing of the page they took the tab to; the person widens the
//! sites in the side panel, and only there.

use crate::boundary::location;
use crate::panel::until;
use crate::rules::notification;
use crate::toolset::{on_page, snapshot};
use cotab_e2e::browser::{Browser, LaunchOptions, Page};
use cotab_e2e::wait_for;
use cotab_host::client::Client;
use cotab_shared::controller::{
    CreateTabParams, Navigate, NavigateParams, Snapshot, SnapshotParams, TabsCreate,
};
use cotab_shared::{ErrorKind, EXTENSION_ID};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(15);

/// A server of a second site: answers every request with a small page
/// (`/redirect` with a redirect to `to`, given as the query) and records
/// each as `host path cookie`.
struct Other {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Other {
    fn start() -> anyhow::Result<Other> {
        let server = tiny_http::Server::http("127.0.0.1:0")
            .map_err(|e| anyhow::anyhow!("starting the second site: {e}"))?;
        let port = server
            .server_addr()
            .to_ip()
            .ok_or_else(|| anyhow::anyhow!("no port"))?
            .port();
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let log = seen.clone();
        std::thread::spawn(move || {
            for request in server.incoming_requests() {
                let header = |name: &'static str| {
                    request
                        .headers()
                        .iter()
                        .find(|h| h.field.equiv(name))
                        .map(|h| h.value.to_string())
                        .unwrap_or_default()
                };
                let line = format!(
                    "{} {} cookie={}",
                    header("Host"),
                    request.url(),
                    header("Cookie")
                );
                log.lock().unwrap_or_else(|e| e.into_inner()).push(line);
                let url = request.url().to_owned();
                let response = match url.strip_prefix("/redirect?to=") {
                    Some(to) => tiny_http::Response::from_string("")
                        .with_status_code(302)
                        .with_header(
                            tiny_http::Header::from_bytes(&b"Location"[..], to.as_bytes())
                                .expect("a header"),
                        ),
                    None => tiny_http::Response::from_string(
                        "<!doctype html><title>Other site</title><p>other",
                    )
                    .with_header(
                        tiny_http::Header::from_bytes(
                            &b"Content-Type"[..],
                            &b"text/html; charset=utf-8"[..],
                        )
                        .expect("a header"),
                    ),
                };
                let _ = request.respond(response);
            }
        });
        Ok(Other { port, seen })
    }

    /// `path` on the second site: `localhost`, another site than the
    /// fixture's `127.0.0.1` though the same server.
    fn url(&self, path: &str) -> String {
        format!("http://localhost:{}{path}", self.port)
    }

    /// The requests that reached it as the second site, but the icon the
    /// browser asks of a page it showed.
    fn reached(&self) -> Vec<String> {
        self.seen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter(|l| l.starts_with("localhost") && !l.contains(" /favicon.ico "))
            .cloned()
            .collect()
    }
}

/// The page itself (a script of its own) runs `js`, which leaves the
/// tab's site: the agent holding the tab is told it was refused (its
/// `params`).
async fn page_refused(
    browser: &Browser,
    page: &Page,
    agent: &mut Client,
    js: &str,
) -> anyhow::Result<Value> {
    browser.eval(page, &format!("{js}; 1")).await?;
    Ok(notification(agent, "navigation.refused").await?["params"].take())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_share_keeps_agents_and_the_pages_navigations_on_its_site() -> anyhow::Result<()> {
    let other = Other::start()?;
    let (browser, page, tab, mut agent) = on_page("/", LaunchOptions::default()).await?;
    let home = browser.fixture.url("/");
    // The person is logged in to the second site.
    let cookie = other.url("/");
    browser
        .cdp
        .send(
            "Storage.setCookies",
            json!({"cookies": [{"name": "session", "value": "s3cret", "url": cookie}]}),
        )
        .await?;

    // The agent's own navigation and new tab: refused before sending.
    let err = agent
        .call::<Navigate>(&NavigateParams::to(other.url("/agent?x=1")))
        .await
        .expect_err("another site");
    assert_eq!(err.kind(), Some(ErrorKind::SiteNotAllowed), "{err}");
    assert!(err.to_string().contains("localhost"), "{err}");
    let err = agent
        .call::<TabsCreate>(&CreateTabParams {
            url: Some(other.url("/new")),
        })
        .await
        .expect_err("another site");
    assert_eq!(err.kind(), Some(ErrorKind::SiteNotAllowed), "{err}");

    // The page's own: a script, a link, a form that posts, a redirect
    // from its own site. The holding goes to the browser with the lease,
    // ahead of the agent's next command: one read makes sure it is there
    // before the test's page scripts, which come from outside the lane.
    snapshot(&mut agent).await?;
    let to = other.url("/script");
    let refused = page_refused(
        &browser,
        &page,
        &mut agent,
        &format!("location.href = {to:?}"),
    )
    .await?;
    assert_eq!(refused["site"], "localhost");
    assert_eq!(refused["tabId"], tab.0);
    let link = other.url("/link");
    page_refused(
        &browser,
        &page,
        &mut agent,
        &format!(
            "const a = document.createElement('a'); a.href = {link:?}; \
             document.body.append(a); a.click()"
        ),
    )
    .await?;
    let form = other.url("/form");
    page_refused(
        &browser,
        &page,
        &mut agent,
        &format!(
            "const f = document.createElement('form'); f.method = 'post'; \
             f.action = {form:?}; document.body.append(f); f.submit()"
        ),
    )
    .await?;
    let away = format!(
        "http://127.0.0.1:{}/redirect?to={}",
        other.port,
        other.url("/redirected")
    );
    page_refused(
        &browser,
        &page,
        &mut agent,
        &format!("location.href = {away:?}"),
    )
    .await?;
    assert_eq!(other.reached(), Vec::<String>::new(), "nothing left");
    assert_eq!(location(&browser, &page).await?, home, "the tab stayed");
    // The agent goes on working on its page.
    assert!(snapshot(&mut agent).await?.contains("link"));

    // The person's own navigation goes, and the agent reads nothing there.
    browser
        .cdp
        .send_to(
            Some(&page.session),
            "Page.navigate",
            json!({"url": other.url("/person")}),
        )
        .await?;
    wait_for("the person's page", DEADLINE, || async {
        Ok((location(&browser, &page).await? == other.url("/person")).then_some(()))
    })
    .await?;
    assert_eq!(other.reached().len(), 1, "{:?}", other.reached());
    assert!(other.reached()[0].contains("s3cret"), "the person's own");
    let err = agent
        .call::<Snapshot>(&SnapshotParams::default())
        .await
        .expect_err("another site");
    assert_eq!(err.kind(), Some(ErrorKind::SiteNotAllowed), "{err}");
    // The agent may take the tab back to its site.
    agent
        .call::<Navigate>(&NavigateParams::to(home.clone()))
        .await?;
    assert_eq!(location(&browser, &page).await?, home);

    // The person allows the site in the side panel: then it goes.
    let panel = browser
        .open_tab(&format!(
            "chrome-extension://{EXTENSION_ID}/popup.html?panel"
        ))
        .await?;
    let item = format!("#scopes li[data-tab=\"{}\"] .sites", tab.0);
    let shown = until(
        &browser,
        &panel,
        &format!("document.querySelector('{item}')?.textContent ?? ''"),
        |v| v != "",
    )
    .await?;
    assert_eq!(shown, "127.0.0.1");
    let allow = "document.querySelector('button.allow-site[data-site=\"localhost\"]')";
    until(&browser, &panel, &format!("!!{allow}"), |v| v == true).await?;
    browser.eval(&panel, &format!("{allow}.click(); 1")).await?;
    until(
        &browser,
        &panel,
        &format!("document.querySelector('{item}').textContent"),
        |v| v == "127.0.0.1, localhost",
    )
    .await?;
    agent
        .call::<Navigate>(&NavigateParams::to(other.url("/allowed")))
        .await?;
    assert!(other.reached().iter().any(|l| l.contains("/allowed")));
    Ok(())
}

/// The pages open in the browser, as `Target.getTargets` lists them.
async fn pages(browser: &Browser) -> anyhow::Result<usize> {
    Ok(page_urls(browser).await?.len())
}

/// The urls of the pages open in the browser.
async fn page_urls(browser: &Browser) -> anyhow::Result<Vec<String>> {
    let targets = browser.cdp.send("Target.getTargets", json!({})).await?;
    Ok(targets["targetInfos"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter(|t| t["type"] == "page")
                .map(|t| t["url"].as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default())
}

/// A tab an agent opens at a url of the tab's site that redirects to
/// another site is held from its first request: the other site gets
/// nothing, the tab opened for it goes again, and the agent is told it
/// was refused with its selection where it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_an_agent_opens_is_held_from_its_first_request() -> anyhow::Result<()> {
    let other = Other::start()?;
    let (browser, _page, tab, mut agent) = on_page("/", LaunchOptions::default()).await?;
    let open = pages(&browser).await?;
    let away = format!(
        "http://127.0.0.1:{}/redirect?to={}",
        other.port,
        other.url("/redirected")
    );
    let err = agent
        .call::<TabsCreate>(&CreateTabParams { url: Some(away) })
        .await
        .expect_err("a redirect to another site");
    assert_eq!(err.kind(), Some(ErrorKind::SiteNotAllowed), "{err}");
    assert!(err.to_string().contains("localhost"), "{err}");
    assert_eq!(other.reached(), Vec::<String>::new(), "nothing left");
    // No more pages than before: the browser's own (the popup the share
    // went through) may still be closing when `open` was counted.
    wait_for("the tab opened for it to go", DEADLINE, || async {
        Ok((pages(&browser).await? <= open).then_some(()))
    })
    .await?;
    // The agent works on in the tab it had, and a tab of its site opens.
    let outline = snapshot(&mut agent).await?;
    assert!(outline.contains("Click me"), "{outline}");
    let opened = agent
        .call::<TabsCreate>(&CreateTabParams {
            url: Some(browser.fixture.url("/second")),
        })
        .await?;
    assert_ne!(opened.tab_id, tab);
    assert!(snapshot(&mut agent).await?.contains("Second"));
    Ok(())
}

/// The agent's click on a link that opens a tab at another site is
/// refused before anything is pressed: the tab it would open could not be
/// held before its first request. A link of the tab's site that opens a
/// tab still does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_on_a_link_opening_a_tab_at_another_site_is_refused() -> anyhow::Result<()> {
    use cotab_shared::controller::{Click, ClickParams};
    let other = Other::start()?;
    let (browser, page, _tab, mut agent) = on_page("/", LaunchOptions::default()).await?;
    let away = other.url("/popped");
    browser
        .eval(
            &page,
            &format!(
                "document.body.insertAdjacentHTML('beforeend', \
                 '<p><a target=\"_blank\" href=\"{away}\">Away</a> \
                  <a target=\"results\" href=\"/second?from=named\">Here</a></p>'); 1"
            ),
        )
        .await?;
    let open = pages(&browser).await?;
    let outline = snapshot(&mut agent).await?;
    let link = crate::toolset::find_ref(&outline, "link \"Away\"")?;
    let err = agent
        .call::<Click>(&ClickParams::on(link))
        .await
        .expect_err("a tab at another site");
    assert_eq!(err.kind(), Some(ErrorKind::SiteNotAllowed), "{err}");
    assert!(err.to_string().contains("localhost"), "{err}");
    assert_eq!(other.reached(), Vec::<String>::new(), "nothing left");
    // No more pages than before (the browser's own, the popup the share
    // went through, may still be closing meanwhile), none at the other
    // site.
    let urls = page_urls(&browser).await?;
    assert!(
        urls.len() <= open && !urls.iter().any(|u| u.contains("/popped")),
        "no tab opened: {urls:?}, {open} before"
    );

    // One of the tab's own site opens, and is shared with it.
    let here = crate::toolset::find_ref(&outline, "link \"Here\"")?;
    agent.call::<Click>(&ClickParams::on(here)).await?;
    wait_for("the tab of the site's link", DEADLINE, || async {
        let urls = page_urls(&browser).await?;
        Ok(urls
            .iter()
            .any(|u| u.ends_with("/second?from=named"))
            .then_some(()))
    })
    .await?;
    let urls = page_urls(&browser).await?;
    assert!(!urls.iter().any(|u| u.contains("/popped")), "{urls:?}");
    Ok(())
}

/// The person allows a site in every share from the options page, and
/// revokes it there; a name that is no site is not taken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_site_the_person_allows_in_the_options_page_is_allowed_in_every_share(
) -> anyhow::Result<()> {
    let other = Other::start()?;
    let (browser, _page, _tab, mut agent) = on_page("/", LaunchOptions::default()).await?;
    let options = browser
        .open_tab(&format!(
            "chrome-extension://{EXTENSION_ID}/popup.html?options"
        ))
        .await?;
    let status = "document.getElementById('options-status').dataset.watching";
    until(&browser, &options, status, |v| v == "true").await?;
    let grant = |site: &str| {
        format!(
            "document.getElementById('lasting-site').value = '{site}'; \
             document.getElementById('lasting-add').click(); 1"
        )
    };
    browser
        .eval(&options, &grant("https://localhost/x"))
        .await?;
    until(
        &browser,
        &options,
        "document.getElementById('options-error').textContent",
        |v| v.as_str().is_some_and(|t| t.contains("was not added")),
    )
    .await?;
    let err = agent
        .call::<Navigate>(&NavigateParams::to(other.url("/before")))
        .await
        .expect_err("not allowed yet");
    assert_eq!(err.kind(), Some(ErrorKind::SiteNotAllowed), "{err}");

    browser.eval(&options, &grant("localhost")).await?;
    let item = "document.querySelector('#lasting li[data-site=\"localhost\"]')?.dataset.from ?? ''";
    until(&browser, &options, item, |v| v == "person").await?;
    assert_eq!(
        browser
            .eval(
                &options,
                "document.getElementById('options-error').textContent"
            )
            .await?,
        ""
    );
    agent
        .call::<Navigate>(&NavigateParams::to(other.url("/granted")))
        .await?;
    assert!(other.reached().iter().any(|l| l.contains("/granted")));

    let revoke = "document.querySelector('#lasting button.revoke[data-site=\"localhost\"]')";
    browser
        .eval(&options, &format!("{revoke}.click(); 1"))
        .await?;
    until(&browser, &options, item, |v| v == "").await?;
    let err = agent
        .call::<Navigate>(&NavigateParams::to(other.url("/revoked")))
        .await
        .expect_err("revoked");
    assert_eq!(err.kind(), Some(ErrorKind::SiteNotAllowed), "{err}");
    Ok(())
}

/// The popup says next to a shared tab where agents may take it, and its
/// "any site" switch widens the share there; while an agent's request
/// waits for the person's yes, the popup says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_popup_shows_a_shares_sites_next_to_its_tab_and_widens_them() -> anyhow::Result<()> {
    let other = Other::start()?;
    let (browser, _page, tab, mut agent) = on_page("/", LaunchOptions::default()).await?;
    let popup = browser.open_popup().await?;
    let sites = format!(
        "document.querySelector('li[data-tab-id=\"{0}\"] span.sites[data-tab-id=\"{0}\"]')?.textContent ?? ''",
        tab.0
    );
    until(&browser, &popup, &sites, |v| {
        v == "Agents may go only to 127.0.0.1"
    })
    .await?;
    let err = agent
        .call::<Navigate>(&NavigateParams::to(other.url("/before")))
        .await
        .expect_err("another site");
    assert_eq!(err.kind(), Some(ErrorKind::SiteNotAllowed), "{err}");

    // "Any site", in the popup: the share is widened, and says so.
    let switch = format!(
        "document.querySelector('input.any-site[data-tab=\"{}\"]')",
        tab.0
    );
    until(&browser, &popup, &format!("{switch}?.checked"), |v| {
        v == false
    })
    .await?;
    browser
        .eval(&popup, &format!("{switch}.click(); 1"))
        .await?;
    until(&browser, &popup, &sites, |v| {
        v == "Agents may go to any site"
    })
    .await?;
    assert_eq!(
        browser.eval(&popup, &format!("{switch}.checked")).await?,
        true
    );
    agent
        .call::<Navigate>(&NavigateParams::to(other.url("/after")))
        .await?;
    assert!(other.reached().iter().any(|l| l.contains("/after")));
    assert!(!other.reached().iter().any(|l| l.contains("/before")));

    // A request waiting for the person's yes: the popup says so, and no
    // more once it is answered in the side panel.
    let panel = browser
        .open_tab(&format!(
            "chrome-extension://{EXTENSION_ID}/popup.html?panel"
        ))
        .await?;
    crate::approvals::ask_before(&browser, &panel, tab, "step").await?;
    let task = crate::in_background!(agent, Navigate, NavigateParams::to(other.url("/step")));
    crate::approvals::one_waiting(&browser, &panel).await?;
    let note = "[document.getElementById('popup-waiting').dataset.count, \
        document.getElementById('popup-waiting').hidden]";
    until(&browser, &popup, note, |v| v == &json!(["1", false])).await?;
    crate::approvals::answer(&browser, &panel, "deny").await?;
    let (_agent, r) = task.await?;
    assert!(r.is_err(), "denied: {r:?}");
    until(&browser, &popup, note, |v| v == &json!(["0", true])).await?;
    Ok(())
}

/// Runs `js` in `page` as if the person had just clicked it (a popup
/// blocker lets it open tabs).
async fn with_gesture(browser: &Browser, page: &Page, js: &str) -> anyhow::Result<()> {
    let r = browser
        .cdp
        .send_to(
            Some(&page.session),
            "Runtime.evaluate",
            json!({"expression": format!("{js}; 1"), "userGesture": true}),
        )
        .await?;
    anyhow::ensure!(r.get("exceptionDetails").is_none(), "page threw: {r}");
    Ok(())
}

/// A tab the page opens at another site while an agent holds it — by a
/// script's `window.open`, by a blank one the script then sends there, or
/// by a link with a target the agent clicks at a point, which cotab
/// cannot tell from any other click — is blocked by the browser before
/// its first request leaves, and the agent is told; a tab of the tab's
/// own site opens, and the page cannot send it elsewhere after. A tab the
/// person opens from a page of the same site in a tab not shared still
/// goes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_the_page_opens_at_another_site_is_blocked_before_its_first_request(
) -> anyhow::Result<()> {
    use cotab_shared::controller::{Capture, CaptureParams, Click, ClickParams};
    let other = Other::start()?;
    let (browser, page, tab, mut agent) = on_page("/", LaunchOptions::default()).await?;
    // The agent holds the tab from its first request on.
    snapshot(&mut agent).await?;

    let to = other.url("/opened-by-script");
    with_gesture(&browser, &page, &format!("window.open({to:?})")).await?;
    let refused = notification(&mut agent, "navigation.refused").await?;
    assert_eq!(refused["params"]["site"], "localhost", "{refused}");
    assert_eq!(refused["params"]["tabId"], tab.0, "{refused}");

    let to = other.url("/sent-later");
    with_gesture(
        &browser,
        &page,
        &format!("const w = window.open(''); w.location.href = {to:?}"),
    )
    .await?;
    notification(&mut agent, "navigation.refused").await?;

    let away = other.url("/clicked");
    let (x, y) = {
        let at = browser
            .eval(
                &page,
                &format!(
                    "const a = document.createElement('a'); a.target = '_blank'; \
                     a.href = {away:?}; a.textContent = 'Away'; \
                     a.style = 'position:fixed;left:10px;top:10px;padding:10px'; \
                     document.body.append(a); const r = a.getBoundingClientRect(); \
                     [r.x + r.width / 2, r.y + r.height / 2]"
                ),
            )
            .await?;
        (at[0].as_f64().unwrap_or(0.0), at[1].as_f64().unwrap_or(0.0))
    };
    // Coordinates are the capture's (its pixels are CSS pixels here).
    agent.call::<Capture>(&CaptureParams::default()).await?;
    // The refusal may come while the click still waits for its answer.
    let mut told = agent.forward_notifications();
    agent.call::<Click>(&ClickParams::at(x, y)).await?;
    let refused = async {
        loop {
            let msg = tokio::select! {
                m = told.recv() => m.ok_or_else(|| anyhow::anyhow!("no more"))?,
                m = agent.next_message() => m?,
            };
            if msg["method"] == "navigation.refused" {
                return anyhow::Ok(msg["params"].clone());
            }
        }
    };
    let refused = tokio::time::timeout(DEADLINE, refused).await??;
    assert_eq!(refused["site"], "localhost", "{refused}");
    assert_eq!(other.reached(), Vec::<String>::new(), "nothing left");

    // One of the tab's own site opens; the page cannot send it elsewhere
    // once it showed its page either.
    opens_its_own(&browser, &page).await?;
    sends_it_on(&browser, &page, &other.url("/sent-on")).await?;
    notification(&mut agent, "navigation.refused").await?;
    assert_eq!(other.reached(), Vec::<String>::new(), "nothing left");

    // The person's own, from a tab of the same site they did not share.
    let own = browser.open_tab(&browser.fixture.url("/")).await?;
    wait_for("the person's tab", DEADLINE, || async {
        Ok((location(&browser, &own).await? == browser.fixture.url("/")).then_some(()))
    })
    .await?;
    let mine = other.url("/the-persons");
    with_gesture(&browser, &own, &format!("window.open({mine:?})")).await?;
    wait_for("the person's tab at the other site", DEADLINE, || async {
        Ok(other
            .reached()
            .iter()
            .any(|l| l.contains("/the-persons"))
            .then_some(()))
    })
    .await?;
    assert_eq!(other.reached().len(), 1, "{:?}", other.reached());
    Ok(())
}

/// A tab the held page opened at its own site stays held with it after
/// the extension's worker stopped and started again: the page cannot send
/// it elsewhere once the agent holds its opener again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_the_held_page_opened_stays_held_after_the_worker_starts_again() -> anyhow::Result<()>
{
    use cotab_shared::controller::{Acquire, Empty};
    let other = Other::start()?;
    let (browser, page, _tab, mut agent) = on_page("/", LaunchOptions::default()).await?;
    snapshot(&mut agent).await?;
    opens_its_own(&browser, &page).await?;

    let panel = crate::approvals::open_panel(&browser).await?;
    browser.stop_workers(&page).await?;
    // The panel's message wakes the worker; the agent's lease went with
    // the lane, and it takes the tab again once the lane is back.
    browser
        .eval(&panel, "chrome.runtime.sendMessage({type: 'getState'})")
        .await?;
    let clock = cotab_e2e::Deadline::new("the agent to hold the tab again", DEADLINE);
    while let Err(e) = agent.call::<Acquire>(&Empty {}).await {
        clock.next(e.to_string()).await?;
    }
    // A request of the agent's runs once the rules are written again.
    snapshot(&mut agent).await?;
    sends_it_on(&browser, &page, &other.url("/sent-on-after")).await?;
    let refused = notification(&mut agent, "navigation.refused").await?;
    assert_eq!(refused["params"]["site"], "localhost", "{refused}");
    assert_eq!(other.reached(), Vec::<String>::new(), "nothing left");
    Ok(())
}

/// The page opens a tab of its own site (`window.opened`), and waits
/// until it shows it.
async fn opens_its_own(browser: &Browser, page: &Page) -> anyhow::Result<()> {
    let here = browser.fixture.url("/second?from=opened");
    with_gesture(
        browser,
        page,
        &format!("window.opened = window.open({here:?})"),
    )
    .await?;
    wait_for("the tab of the site", DEADLINE, || async {
        let urls = page_urls(browser).await?;
        Ok(urls.contains(&here).then_some(()))
    })
    .await
}

/// The page sends the tab it opened to `to`.
async fn sends_it_on(browser: &Browser, page: &Page, to: &str) -> anyhow::Result<()> {
    browser
        .eval(page, &format!("window.opened.location.href = {to:?}; 1"))
        .await?;
    Ok(())
}

/// A tab the held page opened at another site says, in place of the
/// browser's "blocked" page, that cotab stopped it and where it was
/// going; the person may open it themselves (the other site then gets
/// that one request), and agents still cannot use it there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_tab_says_so_and_the_person_may_open_it_anyway() -> anyhow::Result<()> {
    use cotab_shared::controller::{Empty, TabsList};
    let other = Other::start()?;
    let (browser, page, _tab, mut agent) = on_page("/", LaunchOptions::default()).await?;
    snapshot(&mut agent).await?;
    let to = other.url("/wanted?a=1&b=%3Ci%3E");
    with_gesture(&browser, &page, &format!("window.open({to:?})")).await?;
    notification(&mut agent, "navigation.refused").await?;
    let target = stopped_tab(&browser).await?;
    let tab = browser.attach_page(&target).await?;
    let shown = until(
        &browser,
        &tab,
        "document.getElementById('stopped-url')?.textContent",
        |v| v.as_str().is_some_and(|t| !t.is_empty()),
    )
    .await?;
    assert_eq!(shown, to.as_str(), "the address, as text");
    assert_eq!(other.reached(), Vec::<String>::new(), "nothing sent");

    // Agents are not offered cotab's page.
    let listed = agent.call::<TabsList>(&Empty {}).await?;
    let stopped = format!("chrome-extension://{EXTENSION_ID}/popup.html?stopped#");
    assert!(
        listed.tabs.iter().all(|t| !t.url.starts_with(&stopped)),
        "{listed:?}"
    );

    // Nor is the person told of a share that failed: nobody asked for
    // one. (The stopped tab's own page asks the worker.)
    let error = browser
        .eval(
            &tab,
            "chrome.runtime.sendMessage({type: 'getState'}).then(s => s.shareError ?? '')",
        )
        .await?;
    assert_eq!(error, "", "no error for the person");

    // The person opens it: the other site gets that one request.
    takes_clicks(&browser, &tab).await?;
    browser
        .eval(&tab, "document.getElementById('stopped-open').click(); 1")
        .await?;
    wait_for("the person's own opening", DEADLINE, || async {
        Ok((other.reached().len() == 1).then_some(()))
    })
    .await?;
    assert!(
        other.reached()[0].contains("/wanted?a=1&b=%3Ci%3E"),
        "{:?}",
        other.reached()
    );
    wait_for("the tab to leave cotab's page", DEADLINE, || async {
        Ok(stopped_target(&browser).await?.is_none().then_some(()))
    })
    .await?;

    // Another, which the person closes.
    let to = other.url("/unwanted");
    with_gesture(&browser, &page, &format!("window.open({to:?})")).await?;
    notification(&mut agent, "navigation.refused").await?;
    let target = stopped_tab(&browser).await?;
    let tab = browser.attach_page(&target).await?;
    // Once the page's script has run.
    until(
        &browser,
        &tab,
        "document.getElementById('stopped-url')?.textContent",
        |v| v.as_str().is_some_and(|t| !t.is_empty()),
    )
    .await?;
    takes_clicks(&browser, &tab).await?;
    // Clicked after the evaluation answered: the tab closes.
    browser
        .eval(
            &tab,
            "setTimeout(() => document.getElementById('stopped-close').click()); 1",
        )
        .await?;
    wait_for("the stopped tab to close", DEADLINE, || async {
        Ok(stopped_target(&browser).await?.is_none().then_some(()))
    })
    .await?;
    assert_eq!(other.reached().len(), 1, "{:?}", other.reached());
    Ok(())
}

/// The target of the tab showing cotab's page of a stopped tab, if one
/// does.
async fn stopped_target(browser: &Browser) -> anyhow::Result<Option<String>> {
    let stopped = format!("chrome-extension://{EXTENSION_ID}/popup.html?stopped#");
    let targets = browser.cdp.send("Target.getTargets", json!({})).await?;
    Ok(targets["targetInfos"].as_array().and_then(|t| {
        t.iter()
            .find(|t| t["url"].as_str().is_some_and(|u| u.starts_with(&stopped)))
            .and_then(|t| t["targetId"].as_str().map(str::to_owned))
    }))
}

/// Until the stopped tab's buttons take clicks (a moment after it shows).
async fn takes_clicks(browser: &Browser, tab: &Page) -> anyhow::Result<()> {
    until(
        browser,
        tab,
        "!document.getElementById('stopped-close').disabled",
        |v| v == true,
    )
    .await?;
    Ok(())
}

/// Until a tab shows cotab's page of a stopped tab: its target.
async fn stopped_tab(browser: &Browser) -> anyhow::Result<String> {
    wait_for("the stopped tab's page", DEADLINE, || {
        stopped_target(browser)
    })
    .await
}
