//! An agent drives a shared tab: list, capture, click, type, press,
//! navigate; tabs that are not shared stay invisible and refused.

use crate::shared_fixture;
use base64::Engine as _;
use cotab_e2e::fixture::{BUTTON_CENTRE, FIELD_CENTRE};
use cotab_e2e::Deadline;
use cotab_host::client::Client;
use cotab_shared::controller::{
    Acquire, AgentTab, Capture, CaptureParams, Click, ClickParams, Empty, ImageFormat, Navigate,
    NavigateParams, Press, PressParams, SelectParams, TabsList, TabsSelect, Type, TypeParams,
};
use cotab_shared::{ErrorKind, TabId};
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(15);

/// Polls `tabs.list` until the tab's entry satisfies `done`, and returns it.
async fn wait_tab(
    agent: &mut Client,
    tab: TabId,
    what: &str,
    done: impl Fn(&AgentTab) -> bool,
) -> anyhow::Result<AgentTab> {
    let clock = Deadline::new(what, DEADLINE);
    loop {
        let list = agent.call::<TabsList>(&Empty {}).await?;
        if let Some(t) = list.tabs.iter().find(|t| t.id == tab && done(t)) {
            return Ok(t.clone());
        }
        clock.next(list).await?;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_drives_a_shared_tab() -> anyhow::Result<()> {
    let (browser, page, tab) = shared_fixture().await?;
    // A second tab the person did not share.
    let other_url = browser.fixture.url("/other");
    let other = browser.open_tab(&other_url).await?;
    browser.activate(&page).await?;

    let mut agent = browser.agent("e2e").await?;

    // Only the shared tab is listed.
    let list = agent.call::<TabsList>(&Empty {}).await?;
    assert_eq!(list.tabs.len(), 1, "{list:?}");
    assert_eq!(list.tabs[0].id, tab);
    assert_eq!(list.tabs[0].url, browser.fixture.url("/"));
    assert_eq!(list.tabs[0].title, "Fixture");
    assert!(!list.tabs[0].selected);

    let sel = agent
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    assert_eq!(sel.tab_id, tab);
    agent.call::<Acquire>(&Empty {}).await?;
    assert!(agent.call::<TabsList>(&Empty {}).await?.tabs[0].selected);

    // A capture is a decodable JPEG the size of the page's viewport.
    let shot = agent
        .call::<Capture>(&CaptureParams {
            format: ImageFormat::Jpeg,
            quality: Some(80),
            ..CaptureParams::default()
        })
        .await?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(shot.data.as_deref().unwrap_or_default())?;
    let image = image::load_from_memory_with_format(&bytes, image::ImageFormat::Jpeg)?;
    assert_eq!((image.width(), image.height()), (shot.width, shot.height));
    let viewport = browser
        .eval(
            &page,
            "[Math.round(innerWidth * devicePixelRatio), Math.round(innerHeight * devicePixelRatio), devicePixelRatio]",
        )
        .await?;
    assert_eq!(
        viewport[0].as_u64(),
        Some(u64::from(shot.width)),
        "{viewport}"
    );
    assert_eq!(
        viewport[1].as_u64(),
        Some(u64::from(shot.height)),
        "{viewport}"
    );
    assert_eq!(viewport[2].as_f64(), Some(shot.device_pixel_ratio));
    // The button is drawn where the fixture puts it: darker than the page.
    let rgb = image.to_rgb8();
    let dpr = shot.device_pixel_ratio;
    let px = rgb.get_pixel(
        (BUTTON_CENTRE.0 * dpr) as u32 - 90,
        (BUTTON_CENTRE.1 * dpr) as u32,
    );
    assert!(
        px.0.iter().any(|c| *c < 250),
        "no button border at its place: {px:?}"
    );

    // A PNG capture works too.
    let png = agent
        .call::<Capture>(&CaptureParams {
            format: ImageFormat::Png,
            quality: None,
            ..CaptureParams::default()
        })
        .await?;
    let png_bytes = base64::engine::general_purpose::STANDARD
        .decode(png.data.as_deref().unwrap_or_default())?;
    image::load_from_memory_with_format(&png_bytes, image::ImageFormat::Png)?;

    // Clicking the button changes the page.
    agent
        .call::<Click>(&ClickParams {
            x: Some(BUTTON_CENTRE.0 * dpr),
            y: Some(BUTTON_CENTRE.1 * dpr),
            frame_id: Some(shot.frame_id.clone()),
            expect: None,
            ..ClickParams::default()
        })
        .await?;
    wait_tab(&mut agent, tab, "the title to show the click", |t| {
        t.title == "Clicked"
    })
    .await?;
    assert_eq!(browser.eval(&page, "document.title").await?, "Clicked");

    // Clicking the field focuses it; typing fills it.
    agent
        .call::<Click>(&ClickParams {
            x: Some(FIELD_CENTRE.0 * dpr),
            y: Some(FIELD_CENTRE.1 * dpr),
            frame_id: None,
            expect: None,
            ..ClickParams::default()
        })
        .await?;
    agent
        .call::<Type>(&TypeParams {
            text: "hello cotab".into(),
            expect: None,
            ..TypeParams::default()
        })
        .await?;
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('name').value")
            .await?,
        "hello cotab"
    );

    // Enter submits the form.
    agent
        .call::<Press>(&PressParams {
            key: "Enter".into(),
            modifiers: vec![],
            expect: None,
        })
        .await?;
    let submitted = wait_tab(&mut agent, tab, "the form submission", |t| {
        t.title == "Submitted"
    })
    .await?;
    assert_eq!(
        submitted.url,
        browser.fixture.url("/submitted?name=hello+cotab")
    );

    // Navigation returns the new url and title, and tabs.list shows them.
    let second = browser.fixture.url("/second");
    let nav = agent
        .call::<Navigate>(&NavigateParams {
            url: Some(second.clone()),
            expect: None,
            ..NavigateParams::default()
        })
        .await?;
    assert_eq!(nav.url, second);
    assert_eq!(nav.title, "Second page");
    let list = agent.call::<TabsList>(&Empty {}).await?;
    assert_eq!(list.tabs.len(), 1);
    assert_eq!(
        (list.tabs[0].url.as_str(), list.tabs[0].title.as_str()),
        (second.as_str(), "Second page")
    );

    // Blocked schemes are refused without touching the tab.
    for url in [
        "chrome://settings",
        "file:///etc/passwd",
        "javascript:alert(1)",
    ] {
        let err = agent
            .call::<Navigate>(&NavigateParams {
                url: Some(url.into()),
                expect: None,
                ..NavigateParams::default()
            })
            .await
            .expect_err("blocked target");
        assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget), "{url}: {err}");
        assert!(
            !err.to_string().contains(url),
            "error echoes the url: {err}"
        );
    }

    // The unshared tab is invisible and refused.
    assert_eq!(agent.call::<TabsList>(&Empty {}).await?.tabs.len(), 1);
    let popup = browser.open_popup().await?;
    let other_tab = browser.tab_id_in_popup(&popup, &other_url).await?;
    browser.close(&popup).await?;
    let err = agent
        .call::<TabsSelect>(&SelectParams { tab_id: other_tab })
        .await
        .expect_err("unshared tab");
    assert_eq!(err.kind(), Some(ErrorKind::TabNotShared));
    assert_eq!(browser.eval(&other, "document.title").await?, "Not shared");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsharing_hides_the_tab_and_refuses_actions() -> anyhow::Result<()> {
    let (browser, page, tab) = shared_fixture().await?;
    let mut agent = browser.agent("e2e").await?;
    agent
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    agent.call::<Acquire>(&Empty {}).await?;
    agent.call::<Capture>(&CaptureParams::default()).await?;

    browser.unshare(&page, tab).await?;
    assert!(agent.call::<TabsList>(&Empty {}).await?.tabs.is_empty());
    let err = agent
        .call::<Capture>(&CaptureParams::default())
        .await
        .expect_err("capture of an unshared tab");
    assert_eq!(err.kind(), Some(ErrorKind::TabNotShared));
    let err = agent
        .call::<Click>(&ClickParams {
            x: Some(BUTTON_CENTRE.0),
            y: Some(BUTTON_CENTRE.1),
            frame_id: None,
            expect: None,
            ..ClickParams::default()
        })
        .await
        .expect_err("click on an unshared tab");
    // Unsharing revoked the lease, and the tab is gone for agents: either
    // refusal is typed and nothing reaches the page.
    assert!(
        matches!(
            err.kind(),
            Some(ErrorKind::TabNotShared | ErrorKind::NoControl)
        ),
        "{err}"
    );
    assert_eq!(browser.eval(&page, "document.title").await?, "Fixture");
    Ok(())
}

/// Evaluates `expr` (a promise) in a fresh popup page, which has the
/// extension's chrome.* APIs, and closes it.
async fn in_extension(
    browser: &cotab_e2e::browser::Browser,
    expr: &str,
) -> anyhow::Result<serde_json::Value> {
    let popup = browser.open_popup().await?;
    let v = browser.eval(&popup, expr).await;
    browser.close(&popup).await?;
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sharing_groups_and_attaches_and_survives_a_worker_restart() -> anyhow::Result<()> {
    let (browser, page, tab) = shared_fixture().await?;
    let group = in_extension(
        &browser,
        &format!(
            "chrome.tabs.get({tab}).then(t => chrome.tabGroups.get(t.groupId)).then(g => g.title)"
        ),
    )
    .await?;
    assert_eq!(group, "cotab");
    // `getTargets().attached` also counts the harness's own CDP session, so
    // ask the browser whether this extension could attach: it cannot while
    // its share holds the tab.
    let attached = format!(
        "chrome.debugger.attach({{tabId: {tab}}}, '1.3') \
           .then(() => chrome.debugger.detach({{tabId: {tab}}})).then(() => false) \
           .catch(e => String(e).includes('already attached') ? true : String(e))"
    );
    assert_eq!(in_extension(&browser, &attached).await?, true);

    // Stop the extension's service worker; opening the popup wakes it, and
    // it restores the share from chrome.storage.session without the person
    // sharing again.
    browser
        .cdp
        .send_to(
            Some(&page.session),
            "ServiceWorker.enable",
            serde_json::json!({}),
        )
        .await?;
    browser
        .cdp
        .send_to(
            Some(&page.session),
            "ServiceWorker.stopAllWorkers",
            serde_json::json!({}),
        )
        .await?;
    let popup = browser.open_popup().await?;
    let unshare = format!(
        "document.querySelector('[data-tab-id=\"{tab}\"][data-action=\"unshare\"]') !== null"
    );
    cotab_e2e::wait_for("the popup to show the restored share", DEADLINE, || async {
        Ok((browser.eval(&popup, &unshare).await? == true).then_some(()))
    })
    .await?;
    browser.close(&popup).await?;
    // The daemon may still be noticing the old port's end; retry until the
    // new lane answers.
    let ids = cotab_e2e::wait_for("the restored lane to list the tab", DEADLINE, || async {
        let mut agent = browser.agent("e2e").await?;
        let list = agent.call::<TabsList>(&Empty {}).await?;
        Ok(Some(list.tabs.iter().map(|t| t.id).collect::<Vec<_>>()))
    })
    .await?;
    assert_eq!(ids, vec![tab]);
    let mut agent = browser.agent("e2e").await?;
    agent
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    agent.call::<Capture>(&CaptureParams::default()).await?;

    // Unsharing detaches the debugger and leaves the group.
    browser.unshare(&page, tab).await?;
    assert_eq!(in_extension(&browser, &attached).await?, false);
    let grouped = in_extension(
        &browser,
        &format!("chrome.tabs.get({tab}).then(t => t.groupId)"),
    )
    .await?;
    assert_eq!(grouped, -1);
    Ok(())
}
