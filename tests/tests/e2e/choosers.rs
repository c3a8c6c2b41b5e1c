//! File choosers: one an agent's click opens waits for the agent (the
//! person is not shown a dialog they did not ask for), one the person
//! opens shows as always, and taking control ends the agent's at once.

use crate::dialogs::next_notification;
use crate::toolset::{find_ref, on_page, snapshot, upload_dirs};
use cotab_e2e::wait_for;
use cotab_host::client::Client;
use cotab_shared::controller::{
    Acted, Click, ClickParams, FileChooserInfo, Navigate, NavigateParams, Ref, SetFiles,
    SetFilesParams, Snapshot, SnapshotParams,
};
use cotab_shared::ErrorKind;
use std::time::Duration;

async fn click(agent: &mut Client, r: &Ref) -> anyhow::Result<Acted> {
    Ok(agent
        .call::<Click>(&ClickParams {
            element: Some(r.clone()),
            ..ClickParams::default()
        })
        .await?)
}

async fn waiting(agent: &mut Client) -> anyhow::Result<Option<FileChooserInfo>> {
    Ok(agent
        .call::<Snapshot>(&SnapshotParams::default())
        .await?
        .file_chooser)
}

fn chooser(paths: &[&std::path::Path]) -> SetFilesParams {
    SetFilesParams {
        element: None,
        paths: paths.iter().map(|p| p.display().to_string()).collect(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chooser_the_agent_opens_waits_for_its_files_and_the_persons_shows() -> anyhow::Result<()>
{
    let (_dir, allowed, secret, options) = upload_dirs()?;
    let (a, b) = (allowed.join("a.txt"), allowed.join("b.txt"));
    std::fs::write(&a, "one")?;
    std::fs::write(&b, "three")?;
    let (browser, page, tab, mut agent) = on_page("/chooser", options).await?;
    let outline = snapshot(&mut agent).await?;
    let attach = find_ref(&outline, "Attach files")?;
    let single = find_ref(&outline, "Single")?;

    // The page opens a hidden input's chooser from the agent's click.
    let mut seen = agent.forward_notifications();
    let acted = click(&mut agent, &attach).await?;
    let opened = FileChooserInfo {
        tab_id: tab,
        multiple: true,
    };
    assert_eq!(acted.file_chooser, Some(opened.clone()), "{acted:?}");
    let note = next_notification(&mut agent, &mut seen, "fileChooser.opened").await?;
    assert_eq!(
        note["params"],
        serde_json::json!({"tabId": tab.0, "multiple": true})
    );
    assert_eq!(waiting(&mut agent).await?, Some(opened));
    let err = agent
        .call::<SetFiles>(&chooser(&[&secret]))
        .await
        .expect_err("outside the allowed directories");
    assert_eq!(err.kind(), Some(ErrorKind::PathNotAllowed), "{err}");
    assert!(
        waiting(&mut agent).await?.is_some(),
        "a refused answer keeps the chooser"
    );
    agent.call::<SetFiles>(&chooser(&[&a, &b])).await?;
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('got').textContent")
            .await?,
        "files: a.txt (3), b.txt (5)"
    );
    assert_eq!(waiting(&mut agent).await?, None);
    let err = agent
        .call::<SetFiles>(&chooser(&[&a]))
        .await
        .expect_err("answered already");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest), "{err}");

    // A chooser cancelled: the page hears nothing, as in Playwright.
    let acted = click(&mut agent, &single).await?;
    assert_eq!(acted.file_chooser.map(|c| c.multiple), Some(false));
    agent.call::<SetFiles>(&chooser(&[])).await?;
    assert_eq!(waiting(&mut agent).await?, None);

    // A chooser waits only while its document does.
    click(&mut agent, &attach).await?;
    agent
        .call::<Navigate>(&NavigateParams::to(browser.fixture.url("/chooser")))
        .await?;
    assert_eq!(waiting(&mut agent).await?, None);
    assert_eq!(browser.eval(&page, "window.cancels").await?, 0);

    // The person's own click shows the chooser once the agent's input is
    // a moment past (the browser cancels it at once when headless).
    wait_for(
        "the person's chooser to show",
        Duration::from_secs(10),
        || async {
            browser.person_clicks(&page, "#attach").await?;
            let cancels = browser.eval(&page, "window.cancels").await?;
            Ok((cancels.as_u64() > Some(0)).then_some(()))
        },
    )
    .await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn taking_control_shows_the_persons_choosers_at_once_and_drops_the_agents(
) -> anyhow::Result<()> {
    let (_dir, allowed, _secret, options) = upload_dirs()?;
    let a = allowed.join("a.txt");
    std::fs::write(&a, "one")?;
    let (browser, page, tab, mut agent) = on_page("/chooser", options).await?;
    let attach = find_ref(&snapshot(&mut agent).await?, "Attach files")?;
    assert!(click(&mut agent, &attach).await?.file_chooser.is_some());
    browser.take_control(&page, tab).await?;
    crate::rules::notification(&mut agent, "control.revoked").await?;
    // A trip to the page after the takeover: the interception ended
    // before it.
    assert_eq!(waiting(&mut agent).await?, None, "the takeover dropped it");
    // Within the agent's grace, yet the person's chooser shows.
    browser.person_clicks(&page, "#attach").await?;
    wait_for(
        "the person's chooser to show",
        Duration::from_secs(5),
        || async {
            let cancels = browser.eval(&page, "window.cancels").await?;
            Ok((cancels.as_u64() == Some(1)).then_some(()))
        },
    )
    .await?;
    browser.hand_back(&page, tab).await?;
    agent
        .call::<cotab_shared::controller::Acquire>(&cotab_shared::controller::Empty {})
        .await?;
    let err = agent
        .call::<SetFiles>(&chooser(&[&a]))
        .await
        .expect_err("the takeover dropped the agent's chooser");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest), "{err}");
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('got').textContent")
            .await?,
        ""
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chooser_in_a_tab_behind_the_persons_is_answered_without_reaching_the_front(
) -> anyhow::Result<()> {
    let (_dir, allowed, _secret, options) = upload_dirs()?;
    let a = allowed.join("a.txt");
    std::fs::write(&a, "one")?;
    let (browser, page, _tab, mut agent) = on_page("/chooser", options).await?;
    let attach = find_ref(&snapshot(&mut agent).await?, "Attach files")?;
    // The person works in a tab of their own, in front.
    let mine = browser.open_tab(&browser.fixture.url("/input")).await?;
    browser.activate(&mine).await?;
    let state = "[document.visibilityState, document.hasFocus()]";
    assert_eq!(
        browser.eval(&mine, state).await?,
        serde_json::json!(["visible", true])
    );
    assert!(click(&mut agent, &attach).await?.file_chooser.is_some());
    agent.call::<SetFiles>(&chooser(&[&a])).await?;
    assert_eq!(
        browser
            .eval(&page, "document.getElementById('got').textContent")
            .await?,
        "files: a.txt (3)"
    );
    assert_eq!(
        browser.eval(&mine, state).await?,
        serde_json::json!(["visible", true])
    );
    assert_eq!(browser.eval(&page, "window.cancels").await?, 0);
    Ok(())
}
