//! The person keeps working in their own tab while the agent drives a
//! shared tab behind it: every request on the hidden tab answers (none
//! waits for a frame the browser would not draw), the shared tab never
//! comes to the front, and the person's tab keeps its focus, its
//! visibility and exactly the keys the person typed.

use crate::shared_fixture;
use cotab_e2e::fixture::BUTTON_CENTRE;
use cotab_e2e::outline_ref;
use cotab_shared::controller::{
    Acquire, Capture, CaptureParams, Click, ClickParams, Empty, ImageFormat, Ref, Scroll,
    ScrollParams, SelectParams, Snapshot, SnapshotParams, TabsList, TabsSelect, Type, TypeParams,
    Wait, WaitParams, WaitUntil,
};
use serde_json::json;

/// The ref of the first outline line containing `needle`.
fn ref_in(outline: &str, needle: &str) -> anyhow::Result<Ref> {
    outline_ref(outline, needle).ok_or_else(|| anyhow::anyhow!("no {needle:?} in:\n{outline}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_tab_behind_the_persons_tab_is_driven_without_coming_to_the_front(
) -> anyhow::Result<()> {
    let (browser, shared, tab) = shared_fixture().await?;
    // The person's own tab, in front: it records every key it receives.
    let mine = browser.open_tab(&browser.fixture.url("/input")).await?;
    browser.activate(&mine).await?;
    let state = "[document.visibilityState, document.hasFocus()]";
    assert_eq!(browser.eval(&mine, state).await?, json!(["visible", true]));

    let mut agent = browser.agent("behind").await?;
    agent
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    agent.call::<Acquire>(&Empty {}).await?;

    // Observe, then act, on the tab behind: by ref, at a frame's point,
    // with the wheel, by typing, and wait for what it did.
    let outline = agent
        .call::<Snapshot>(&SnapshotParams::default())
        .await?
        .text;
    let button = ref_in(&outline, "button \"Click me\"")?;
    let field = ref_in(&outline, "textbox")?;
    agent.call::<Click>(&ClickParams::on(button)).await?;
    let shot = agent
        .call::<Capture>(&CaptureParams {
            format: ImageFormat::Jpeg,
            ..CaptureParams::default()
        })
        .await?;
    let dpr = shot.device_pixel_ratio;
    agent
        .call::<Click>(&ClickParams {
            x: Some(BUTTON_CENTRE.0 * dpr),
            y: Some(BUTTON_CENTRE.1 * dpr),
            frame_id: Some(shot.frame_id.clone()),
            ..ClickParams::default()
        })
        .await?;
    agent
        .call::<Scroll>(&ScrollParams {
            x: Some(10.0),
            y: Some(10.0),
            frame_id: Some(shot.frame_id),
            delta_y: Some(50.0),
            ..ScrollParams::default()
        })
        .await?;
    agent
        .call::<Type>(&TypeParams {
            text: "Ada".into(),
            element: Some(field),
            ..TypeParams::default()
        })
        .await?;
    agent
        .call::<Wait>(&WaitParams {
            selector: Some("#name".into()),
            ..WaitParams::until(WaitUntil::Selector)
        })
        .await?;
    // Rounds of input, a snapshot and captures, as an agent works: each
    // capture needs a frame the browser would not draw for a hidden tab.
    for _ in 0..6 {
        let outline = agent
            .call::<Snapshot>(&SnapshotParams::default())
            .await?
            .text;
        agent
            .call::<Click>(&ClickParams::on(ref_in(&outline, "button \"Click me\"")?))
            .await?;
        let shot = agent
            .call::<Capture>(&CaptureParams {
                format: ImageFormat::Jpeg,
                ..CaptureParams::default()
            })
            .await?;
        agent
            .call::<Scroll>(&ScrollParams {
                x: Some(10.0),
                y: Some(10.0),
                frame_id: Some(shot.frame_id),
                delta_y: Some(40.0),
                ..ScrollParams::default()
            })
            .await?;
        agent
            .call::<Capture>(&CaptureParams {
                format: ImageFormat::Png,
                ..CaptureParams::default()
            })
            .await?;
    }
    // The page did what the agent asked.
    assert_eq!(browser.eval(&shared, "document.title").await?, "Clicked");
    assert_eq!(
        browser
            .eval(&shared, "document.getElementById('name').value")
            .await?,
        "Ada"
    );

    // The person typed meanwhile; their tab stayed in front, focused,
    // visible, and got those keys and nothing else.
    for key in ['h', 'i'] {
        browser.person_types(&mine, key).await?;
    }
    assert_eq!(browser.eval(&mine, state).await?, json!(["visible", true]));
    let keys = browser
        .eval(
            &mine,
            "__events.filter(e => e.type.startsWith('key')).map(e => e.type + ':' + e.key).join(' ')",
        )
        .await?;
    assert_eq!(keys, "keydown:h keyup:h keydown:i keyup:i");
    let active = browser
        .in_worker("chrome.tabs.query({active: true, lastFocusedWindow: true}).then(t => t.map(t => t.id))")
        .await?;
    assert!(
        !active
            .as_array()
            .is_some_and(|ids| ids.contains(&json!(tab.0))),
        "the shared tab came to the front: {active}"
    );
    assert_eq!(agent.call::<TabsList>(&Empty {}).await?.tabs.len(), 1);
    Ok(())
}
