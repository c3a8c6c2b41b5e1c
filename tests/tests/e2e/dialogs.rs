//! JavaScript dialogs in real Chromium: reported as the browser reports
//! them, chains followed dialog by dialog, actions that open one reported
//! with it, and input around them released once.

use crate::toolset::{find_ref, on_page, snapshot, DEADLINE};
use cotab_e2e::browser::LaunchOptions;
use cotab_e2e::wait_for;
use cotab_host::client::{Client, ClientError};
use cotab_shared::controller::{
    Acted, Click, ClickParams, Dialog, DialogKind, DialogParams, Hover, HoverParams, KeyDown,
    KeyParams, Press, PressParams, Snapshot, SnapshotParams,
};
use cotab_shared::ErrorKind;
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dialogs_are_reported_block_actions_and_are_answered() -> anyhow::Result<()> {
    let (browser, page, tab, mut agent) = on_page("/dialogs", LaunchOptions::default()).await?;
    // A dialog may open while the click that opens it is still answering.
    let mut seen = agent.forward_notifications();
    let outline = snapshot(&mut agent).await?;
    let confirm = find_ref(&outline, "button \"Confirm\"")?;
    let prompt = find_ref(&outline, "button \"Prompt\"")?;
    let alert = find_ref(&outline, "button \"Alert on press\"")?;
    let mouse = "__mouse.join(' ')";

    // The click opens a confirm: it must not hang, and it succeeds saying
    // which dialog it opened.
    let clicked = tokio::time::timeout(
        DEADLINE,
        agent.call::<Click>(&ClickParams::on(confirm.clone())),
    )
    .await??;
    assert_eq!(opened_by(&clicked), Some((DialogKind::Confirm, "Proceed?")));
    let opened = next_notification(&mut agent, &mut seen, "dialog.opened").await?;
    assert_eq!(opened["params"]["tabId"], tab.0);
    assert_eq!(opened["params"]["type"], "confirm");
    assert_eq!(opened["params"]["message"], "Proceed?");
    // Anything else on the tab is refused while the dialog is open, an
    // action too: it had not begun when the dialog opened.
    let err = agent
        .call::<Snapshot>(&SnapshotParams::default())
        .await
        .expect_err("dialog open");
    assert_eq!(err.kind(), Some(ErrorKind::DialogOpen), "{err}");
    assert!(
        err.to_string().contains(
            "a confirm dialog (\"Proceed?\") is open on this tab: answer it with page.dialog"
        ),
        "{err}"
    );
    let err = agent
        .call::<Click>(&ClickParams::on(confirm))
        .await
        .expect_err("dialog open");
    let ClientError::Rpc(e) = &err else {
        anyhow::bail!("not a refusal: {err}");
    };
    assert_eq!(e.kind(), ErrorKind::DialogOpen, "{err}");
    assert_eq!(
        e.data.dialog.as_ref().map(|d| d.message.as_str()),
        Some("Proceed?")
    );
    let answered = agent
        .call::<Dialog>(&DialogParams {
            accept: true,
            prompt_text: None,
        })
        .await?;
    assert_eq!(answered.dialog, None, "no dialog follows the confirm");
    wait_for("the confirm's result", DEADLINE, || async {
        Ok((browser
            .eval(&page, "document.getElementById('out').textContent")
            .await?
            == "confirmed")
            .then_some(()))
    })
    .await?;
    // The dialog opened while the click's release was with the browser:
    // the page saw it once.
    assert_eq!(
        browser.eval(&page, mouse).await?,
        "mousedown mouseup click",
        "one press and one release"
    );

    // A prompt, answered with text.
    let clicked = tokio::time::timeout(
        DEADLINE,
        agent.call::<Click>(&ClickParams::on(prompt.clone())),
    )
    .await??;
    assert_eq!(
        opened_by(&clicked),
        Some((DialogKind::Prompt, "Your name?"))
    );
    let opened = next_notification(&mut agent, &mut seen, "dialog.opened").await?;
    assert_eq!(opened["params"]["type"], "prompt");
    assert_eq!(opened["params"]["defaultPrompt"], "anon");
    agent
        .call::<Dialog>(&DialogParams {
            accept: true,
            prompt_text: Some("cotab".into()),
        })
        .await?;
    wait_for("the prompt's result", DEADLINE, || async {
        Ok((browser
            .eval(&page, "document.getElementById('out').textContent")
            .await?
            == "name=cotab")
            .then_some(()))
    })
    .await?;

    // A double click whose first press opens an alert: the release waits
    // for the dialog to be answered, then reaches the page once, and the
    // second press is not sent after the dialog.
    let double = ClickParams {
        click_count: Some(2),
        ..ClickParams::on(alert)
    };
    let clicked = tokio::time::timeout(DEADLINE, agent.call::<Click>(&double)).await?;
    accept_the_dialog_of(&mut agent, &mut seen, clicked, "Pressed").await?;
    let ups = "__mouse.filter(t => t === 'mouseup').length";
    wait_for("the release after the alert", DEADLINE, || async {
        Ok((browser.eval(&page, ups).await? == 3).then_some(()))
    })
    .await?;
    // Input the agent sends now reaches the page after anything sent for
    // the click before it: still one release for each press.
    agent
        .call::<Hover>(&HoverParams {
            element: Some(prompt),
            ..HoverParams::default()
        })
        .await?;
    let counts = "['mousedown', 'mouseup'].map(t => __mouse.filter(m => m === t).length)";
    assert_eq!(browser.eval(&page, counts).await?, json!([3, 3]));

    // A key press whose key down opens an alert: its key up reaches the
    // page once the alert is answered.
    let field = find_ref(&outline, "textbox \"Alert on key\"")?;
    agent.call::<Click>(&ClickParams::on(field)).await?;
    let pressed = tokio::time::timeout(
        DEADLINE,
        agent.call::<Press>(&PressParams {
            key: "a".into(),
            modifiers: Vec::new(),
            expect: None,
        }),
    )
    .await?;
    accept_the_dialog_of(&mut agent, &mut seen, pressed, "Key a").await?;
    let keys = "['keydown', 'keyup'].map(t => __mouse.filter(m => m === t).length)";
    wait_for("the key up after the alert", DEADLINE, || async {
        Ok((browser.eval(&page, keys).await? == json!([1, 1])).then_some(()))
    })
    .await?;

    // A key held down on its own whose key down opens an alert: the
    // daemon releases it at once (the dialog cut it short), and the
    // release waits
    // in the extension for the key down's answer, so it reaches the page.
    let held = tokio::time::timeout(
        DEADLINE,
        agent.call::<KeyDown>(&KeyParams {
            key: "b".into(),
            modifiers: Vec::new(),
            expect: None,
        }),
    )
    .await?;
    accept_the_dialog_of(&mut agent, &mut seen, held, "Key b").await?;
    wait_for(
        "the held key's release after the alert",
        DEADLINE,
        || async { Ok((browser.eval(&page, keys).await? == json!([2, 2])).then_some(())) },
    )
    .await?;
    let err = agent
        .call::<Dialog>(&DialogParams {
            accept: true,
            prompt_text: None,
        })
        .await
        .expect_err("no dialog");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest), "{err}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_whose_press_a_takeover_cuts_short_is_still_released() -> anyhow::Result<()> {
    let (browser, page, tab, mut agent) = on_page("/dialogs", LaunchOptions::default()).await?;
    let mut seen = agent.forward_notifications();
    let outline = snapshot(&mut agent).await?;
    let alert = find_ref(&outline, "button \"Alert on press\"")?;
    // The harness answers the dialog in the person's place; its session
    // sees dialogs once its Page domain is on.
    browser
        .cdp
        .send_to(Some(&page.session), "Page.enable", json!({}))
        .await?;
    // The press opens an alert, so the browser has not answered it when
    // the person takes control: the extension fails it, and still sends
    // the click's release, which the page gets once the alert is gone.
    let clicked =
        tokio::time::timeout(DEADLINE, agent.call::<Click>(&ClickParams::on(alert))).await?;
    if let Err(e) = clicked {
        assert_eq!(e.kind(), Some(ErrorKind::DialogOpen), "{e}");
    }
    next_notification(&mut agent, &mut seen, "dialog.opened").await?;
    browser.take_control(&page, tab).await?;
    next_notification(&mut agent, &mut seen, "control.revoked").await?;
    browser
        .cdp
        .send_to(
            Some(&page.session),
            "Page.handleJavaScriptDialog",
            json!({"accept": true}),
        )
        .await?;
    let ups = "__mouse.filter(t => t === 'mouseup').length";
    wait_for("the click's release", DEADLINE, || async {
        Ok((browser.eval(&page, ups).await? == 1).then_some(()))
    })
    .await?;
    assert_eq!(
        browser
            .eval(&page, "__mouse.filter(t => t === 'mousedown').length")
            .await?,
        1
    );
    Ok(())
}

/// The kind and message of the dialog an action says it opened.
fn opened_by(acted: &Acted) -> Option<(DialogKind, &str)> {
    acted.dialog.as_ref().map(|d| (d.kind, d.message.as_str()))
}

/// Checks `outcome`, that of a call whose input opened an alert with
/// `message`: it succeeds and names the alert, which `dialog.opened`
/// announced too. Then accepts the alert.
async fn accept_the_dialog_of(
    agent: &mut Client,
    seen: &mut tokio::sync::mpsc::UnboundedReceiver<Value>,
    outcome: Result<Acted, ClientError>,
    message: &str,
) -> anyhow::Result<()> {
    assert_eq!(opened_by(&outcome?), Some((DialogKind::Alert, message)));
    let opened = next_notification(agent, seen, "dialog.opened").await?;
    assert_eq!(opened["params"]["message"], message);
    let answered = agent
        .call::<Dialog>(&DialogParams {
            accept: true,
            prompt_text: None,
        })
        .await?;
    assert_eq!(answered.dialog, None);
    Ok(())
}

/// The next notification named `method`: one a call already read (and
/// forwarded to `seen`), or the next one to arrive.
pub(crate) async fn next_notification(
    agent: &mut Client,
    seen: &mut tokio::sync::mpsc::UnboundedReceiver<Value>,
    method: &str,
) -> anyhow::Result<Value> {
    while let Ok(msg) = seen.try_recv() {
        if msg["method"] == method {
            return Ok(msg);
        }
    }
    crate::rules::notification(agent, method).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chain_of_dialogs_is_followed_dialog_by_dialog() -> anyhow::Result<()> {
    let (browser, page, _tab, mut agent) = on_page("/dialogs", LaunchOptions::default()).await?;
    let outline = snapshot(&mut agent).await?;
    let delete = find_ref(&outline, "button \"Delete draft\"")?;
    // A confirm, then a prompt, then an alert, each opened by answering
    // the one before: every answer names the next.
    let clicked =
        tokio::time::timeout(DEADLINE, agent.call::<Click>(&ClickParams::on(delete))).await??;
    assert_eq!(
        opened_by(&clicked),
        Some((DialogKind::Confirm, "Delete the draft?"))
    );
    let answer = |text: Option<&str>| DialogParams {
        accept: true,
        prompt_text: text.map(str::to_owned),
    };
    let next = tokio::time::timeout(DEADLINE, agent.call::<Dialog>(&answer(None))).await??;
    assert_eq!(
        opened_by(&next),
        Some((DialogKind::Prompt, "Type its name to confirm"))
    );
    assert_eq!(
        next.dialog.and_then(|d| d.default_prompt).as_deref(),
        Some("draft")
    );
    let next = tokio::time::timeout(DEADLINE, agent.call::<Dialog>(&answer(Some("v2")))).await??;
    assert_eq!(opened_by(&next), Some((DialogKind::Alert, "Deleted v2")));
    let next = tokio::time::timeout(DEADLINE, agent.call::<Dialog>(&answer(None))).await??;
    assert_eq!(next.dialog, None, "the chain is over");
    // The page went on to its end, and the agent sees it at once.
    let outline = snapshot(&mut agent).await?;
    assert!(outline.contains("deleted v2"), "{outline}");
    assert_eq!(browser.eval(&page, "document.title").await?, "Deleted");
    let err = agent
        .call::<Dialog>(&answer(None))
        .await
        .expect_err("no dialog");
    assert_eq!(err.kind(), Some(ErrorKind::InvalidRequest), "{err}");
    // Dismissing the first ends the chain there.
    let delete = find_ref(&snapshot(&mut agent).await?, "button \"Delete draft\"")?;
    let clicked = agent.call::<Click>(&ClickParams::on(delete)).await?;
    assert_eq!(
        opened_by(&clicked),
        Some((DialogKind::Confirm, "Delete the draft?"))
    );
    let next = agent
        .call::<Dialog>(&DialogParams {
            accept: false,
            prompt_text: None,
        })
        .await?;
    assert_eq!(next.dialog, None);
    assert!(snapshot(&mut agent).await?.contains("kept"));
    Ok(())
}

/// The presses the ledger holds as saved in each storage area.
const SAVED_PRESSES: &str = "Promise.all([chrome.storage.session, chrome.storage.local].map(\
     a => a.get('heldPresses').then(r => (r.heldPresses || []).length)))";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_press_waiting_on_its_dialog_is_saved_and_forgotten_once_released() -> anyhow::Result<()>
{
    let (browser, _page, _tab, mut agent) = on_page("/dialogs", LaunchOptions::default()).await?;
    let mut seen = agent.forward_notifications();
    // A press whose handler opens an alert keeps its input waiting: the
    // button it holds is saved in both areas, for a worker that would
    // start again meanwhile (a click that ends within 20 ms is not), and
    // forgotten once the release ran.
    let outline = snapshot(&mut agent).await?;
    let alert = find_ref(&outline, "button \"Alert on press\"")?;
    let clicked =
        tokio::time::timeout(DEADLINE, agent.call::<Click>(&ClickParams::on(alert))).await?;
    if let Err(e) = clicked {
        assert_eq!(e.kind(), Some(ErrorKind::DialogOpen), "{e}");
    }
    next_notification(&mut agent, &mut seen, "dialog.opened").await?;
    wait_for("the held button saved", DEADLINE, || async {
        Ok((browser.in_worker(SAVED_PRESSES).await? == json!([1, 1])).then_some(()))
    })
    .await?;
    agent
        .call::<Dialog>(&DialogParams {
            accept: true,
            prompt_text: None,
        })
        .await?;
    wait_for("the release saved", DEADLINE, || async {
        Ok((browser.in_worker(SAVED_PRESSES).await? == json!([0, 0])).then_some(()))
    })
    .await?;
    Ok(())
}
