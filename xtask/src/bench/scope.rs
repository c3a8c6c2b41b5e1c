//! What a share's sites cost (issue 40). The fixture tab is shared for
//! its site, `127.0.0.1`, so while the agent holds it the browser pauses
//! each of its document requests for the daemon to judge: an in-scope
//! `page.navigate` is timed so, then with the tab shared for any site
//! (nothing paused; the person's switch in the side panel), and an
//! out-of-scope one, refused before anything is sent. Last, the page's
//! own navigation to another site (`localhost`): from the script's
//! `location` change until the agent is told it was refused, the request
//! failed in the browser meanwhile; and a tab the page opens there
//! (`window.open`), from the script's call until the agent is told, the
//! new tab's first request blocked by the browser meanwhile (the tabs are
//! closed after).
//!
//! Then what asking before costs what is not asked (the side panel's
//! "Ask me before" switches): the same in-scope navigations with
//! downloads asked for (each document paused at its response too, to
//! tell a download), and typing into the fixture's text field by its ref
//! with passwords asked for (the field's attributes read first, to tell
//! a password field), each beside the same without.

use super::{Row, Sample};
use anyhow::{anyhow, bail, Result};
use cotab_e2e::browser::{Browser, Page};
use cotab_host::client::Client;
use cotab_shared::controller::{Navigate, NavigateParams, Ref, Type, TypeParams};
use cotab_shared::ErrorKind;
use std::time::Duration;
use tokio::time::Instant;

const WARM_UP: usize = 3;
const ROUNDS: usize = 20;
const GIVE_UP: Duration = Duration::from_secs(10);

pub(super) async fn navigations(
    browser: &Browser,
    page: &Page,
    agent: &mut Client,
) -> Result<Vec<Row>> {
    let home = browser.fixture.url("/");
    let second = browser.fixture.url("/second");
    let held = round_trips(agent, &home, &second).await?;
    any_site(browser, page, true).await?;
    let free = round_trips(agent, &home, &second).await?;
    any_site(browser, page, false).await?;
    let elsewhere = home.replace("127.0.0.1", "localhost");
    let mut refused = Vec::new();
    for round in 0..WARM_UP + ROUNDS {
        let t = Instant::now();
        let err = agent
            .call::<Navigate>(&NavigateParams::to(elsewhere.clone()))
            .await
            .err()
            .ok_or_else(|| anyhow!("page.navigate to another site was not refused"))?;
        if err.kind() != Some(ErrorKind::SiteNotAllowed) {
            bail!("page.navigate to another site: {err}");
        }
        if round >= WARM_UP {
            refused.push(t.elapsed());
        }
    }
    let mut pages = Vec::new();
    for round in 0..WARM_UP + ROUNDS {
        // A new address each round: the browser may drop a page's repeat
        // of a navigation to where the one just refused went.
        let there = format!("{elsewhere}?round={round}");
        let t = Instant::now();
        browser
            .eval(page, &format!("location.href = {there:?}; 1"))
            .await?;
        told(agent).await?;
        if round >= WARM_UP {
            pages.push(t.elapsed());
        }
    }
    let mut opened = Vec::new();
    for round in 0..WARM_UP + ROUNDS {
        let there = format!("{elsewhere}?opened={round}");
        let t = Instant::now();
        // With a gesture, as a click would give it: the popup blocker
        // lets it open.
        let r = browser
            .cdp
            .send_to(
                Some(&page.session),
                "Runtime.evaluate",
                serde_json::json!({"expression": format!("window.open({there:?}); 1"),
                                   "userGesture": true}),
            )
            .await?;
        if r.get("exceptionDetails").is_some() {
            bail!("window.open threw: {r}");
        }
        told(agent).await?;
        if round >= WARM_UP {
            opened.push(t.elapsed());
        }
    }
    close_opened(browser).await?;
    let row = |what: &str, sample| Row::new("40", what, "cotab", Sample::Latency(sample));
    Ok(vec![
        row(
            "`page.navigate` to a page of the tab's site and back, its navigations held \
             (each paused request judged by the daemon)",
            held,
        ),
        row(
            "`page.navigate` to a page of the tab's site and back, the tab shared for any site \
             (nothing paused)",
            free,
        ),
        row(
            "`page.navigate` to another site, refused before anything is sent",
            refused,
        ),
        row(
            "the page's own navigation to another site: its script's `location` change until \
             the agent is told `navigation.refused`",
            pages,
        ),
        row(
            "a tab the page opens at another site: its script's `window.open` until the agent \
             is told `navigation.refused` (the new tab's first request blocked by the browser)",
            opened,
        ),
    ])
}

/// Closes the tabs the page opened in [`navigations`].
async fn close_opened(browser: &Browser) -> Result<()> {
    let targets = browser
        .cdp
        .send("Target.getTargets", serde_json::json!({}))
        .await?;
    let opened = targets["targetInfos"].as_array().into_iter().flatten();
    for t in opened.filter(|t| {
        t["type"] == "page" && t["url"].as_str().is_some_and(|u| u.contains("?opened="))
    }) {
        browser
            .cdp
            .send(
                "Target.closeTarget",
                serde_json::json!({"targetId": t["targetId"]}),
            )
            .await?;
    }
    Ok(())
}

/// What asking before downloads costs a navigation, and asking before
/// passwords costs typing into a field that takes none.
/// `field` is the ref of the fixture's text field.
pub(super) async fn asks(
    browser: &Browser,
    page: &Page,
    agent: &mut Client,
    field: Ref,
) -> Result<Vec<Row>> {
    // The typing first: the navigations make the field's ref stale.
    let params = TypeParams {
        text: "a".into(),
        element: Some(field),
        clear: true,
        ..TypeParams::default()
    };
    let plain = typing(agent, &params).await?;
    ask_before(browser, page, "password", true).await?;
    let asked = typing(agent, &params).await?;
    ask_before(browser, page, "password", false).await?;
    browser
        .eval(
            page,
            "(() => { const f = document.getElementById('name'); f.value = ''; f.blur(); \
             return 1; })()",
        )
        .await?;
    let home = browser.fixture.url("/");
    let second = browser.fixture.url("/second");
    ask_before(browser, page, "download", true).await?;
    let downloads = round_trips(agent, &home, &second).await?;
    ask_before(browser, page, "download", false).await?;
    let row = |what: &str, sample| Row::new("40", what, "cotab", Sample::Latency(sample));
    Ok(vec![
        row(
            "`page.navigate` to a page of the tab's site and back, downloads asked for \
             (each document paused at its request and at its response)",
            downloads,
        ),
        row(
            "`input.type` with `clear` on a snapshot's ref, back to back, nothing asked",
            plain,
        ),
        row(
            "`input.type` with `clear` on a snapshot's ref, back to back, passwords asked for \
             (the field read first; it takes none, so nothing waits)",
            asked,
        ),
    ])
}

/// `input.type` of `params`, timed, back to back.
async fn typing(agent: &mut Client, params: &TypeParams) -> Result<Vec<Duration>> {
    let mut sample = Vec::new();
    for round in 0..WARM_UP + ROUNDS {
        let t = Instant::now();
        agent.call::<Type>(params).await?;
        if round >= WARM_UP {
            sample.push(t.elapsed());
        }
    }
    Ok(sample)
}

/// Turns the side panel's "Ask me before `what`" switch of the fixture
/// tab on or off, as the person does.
async fn ask_before(browser: &Browser, page: &Page, what: &str, on: bool) -> Result<()> {
    let switch =
        format!("document.querySelector('#scopes input.ask-before[data-what=\"{what}\"]')");
    let told = format!(
        "(document.querySelector('#scopes li')?.dataset.asks ?? '').split(' ').includes({what:?}) === {on}"
    );
    super::panel::set_switch(browser, page, "an ask-before switch", &switch, on, &told).await
}

/// `page.navigate` to `there` and back to `home`, timed each way.
async fn round_trips(agent: &mut Client, home: &str, there: &str) -> Result<Vec<Duration>> {
    let mut sample = Vec::new();
    for round in 0..WARM_UP + ROUNDS {
        for url in [there, home] {
            let t = Instant::now();
            agent.call::<Navigate>(&NavigateParams::to(url)).await?;
            if round >= WARM_UP {
                sample.push(t.elapsed());
            }
        }
    }
    Ok(sample)
}

/// Waits for the agent's next `navigation.refused`.
async fn told(agent: &mut Client) -> Result<()> {
    let found = tokio::time::timeout(GIVE_UP, async {
        loop {
            let msg = agent.next_message().await?;
            if msg["method"] == "navigation.refused" {
                return anyhow::Ok(());
            }
        }
    })
    .await;
    found.map_err(|_| anyhow!("no navigation.refused within {GIVE_UP:?}"))?
}

/// Shares the fixture tab for any site (`on`) or its own site again, as
/// the person does with the side panel's switch, and puts the tab back in
/// front.
async fn any_site(browser: &Browser, page: &Page, on: bool) -> Result<()> {
    let want = if on { "any site" } else { "127.0.0.1" };
    super::panel::set_switch(
        browser,
        page,
        "the side panel's any-site switch",
        "document.querySelector('#scopes input.any-site')",
        on,
        // The daemon told the watch the tab's sites changed.
        &format!("document.querySelector('#scopes .sites')?.textContent === {want:?}"),
    )
    .await
}
