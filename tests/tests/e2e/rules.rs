//! The broker's safety rules in real Chromium (issue 3): human takeover
//! releases held input and revokes the agent; a dropped agent's held key is
//! released; developer mode is read live and its off switch clears what
//! raw CDP left behind; two agents never share control; a tab switch voids
//! a slow action; a frame taken before a navigation, or one the page has
//! scrolled away from, is stale; an action that expects another url or
//! revision does nothing.

use cotab_e2e::browser::{Browser, LaunchOptions, Page};
use cotab_e2e::wait_for;
use cotab_host::client::Client;
use cotab_shared::controller::{
    Acquire, Capture, CaptureParams, CaptureResult, CdpSend, CdpSendParams, Click, ClickParams,
    Empty, Evaluate, EvaluateParams, Expect, GestureBegin, GestureEnd, GestureUpdate, KeyDown,
    KeyParams, MouseDown, MouseUp, MouseUpParams, Navigate, NavigateParams, PointParams,
    PointerParams, Release, SelectParams, TabsSelect,
};
use cotab_shared::{ErrorKind, TabId};
use serde_json::{json, Value};
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(15);

/// A browser with the input recorder shared, and an agent that selected it,
/// holds its lease and has captured it.
async fn recorder(
    options: LaunchOptions,
) -> anyhow::Result<(Browser, Page, TabId, Client, CaptureResult)> {
    let browser = Browser::launch(options).await?;
    let url = browser.fixture.url("/input");
    let page = browser.open_tab(&url).await?;
    let tab = browser.share(&page, &url).await?;
    let mut agent = browser.agent("agent-a").await?;
    agent
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    agent.call::<Acquire>(&Empty {}).await?;
    let frame = agent.call::<Capture>(&CaptureParams::default()).await?;
    Ok((browser, page, tab, agent, frame))
}

/// The next notification named `method`.
pub(crate) async fn notification(agent: &mut Client, method: &str) -> anyhow::Result<Value> {
    let found = tokio::time::timeout(DEADLINE, async {
        loop {
            let msg = agent.next_message().await?;
            if msg["method"] == method {
                return anyhow::Ok(msg);
            }
        }
    })
    .await;
    match found {
        Ok(r) => r,
        Err(_) => anyhow::bail!("no {method} notification within {DEADLINE:?}"),
    }
}

fn centre(frame: &CaptureResult) -> (f64, f64) {
    (f64::from(frame.width) / 2.0, f64::from(frame.height) / 2.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn takeover_releases_the_held_button_and_revokes_the_agent() -> anyhow::Result<()> {
    let (browser, page, tab, mut agent, frame) = recorder(LaunchOptions::default()).await?;
    let (x, y) = centre(&frame);
    agent
        .call::<MouseDown>(&PointerParams {
            x,
            y,
            frame_id: Some(frame.frame_id.clone()),
            button: None,
            expect: None,
        })
        .await?;
    browser
        .wait_balance(&page, (0, 1), "the page to see the button held")
        .await?;

    // The person takes control in the real popup.
    browser.take_control(&page, tab).await?;
    browser
        .wait_balance(&page, (0, 0), "the page to see the button released")
        .await?;
    let revoked = notification(&mut agent, "control.revoked").await?;
    assert_eq!(
        revoked["params"],
        json!({"tabId": tab.0, "reason": "human"})
    );

    // The agent's next input is refused; its late paired release is a no-op.
    let err = agent
        .call::<Click>(&ClickParams {
            x: Some(x),
            y: Some(y),
            frame_id: None,
            expect: None,
            ..ClickParams::default()
        })
        .await
        .expect_err("input after takeover");
    assert_eq!(err.kind(), Some(ErrorKind::HumanHasControl), "{err}");
    let err = agent
        .call::<Acquire>(&Empty {})
        .await
        .expect_err("acquire while the person holds it");
    assert_eq!(err.kind(), Some(ErrorKind::HumanHasControl), "{err}");
    let late = agent.call::<MouseUp>(&MouseUpParams::default()).await?;
    assert!(late.already_released);
    let events_before = browser.eval(&page, "__events.length").await?;

    // Hand back: the agent acquires again and works.
    browser.hand_back(&page, tab).await?;
    agent.call::<Acquire>(&Empty {}).await?;
    let frame = agent.call::<Capture>(&CaptureParams::default()).await?;
    let (x, y) = centre(&frame);
    agent
        .call::<Click>(&ClickParams {
            x: Some(x),
            y: Some(y),
            frame_id: Some(frame.frame_id),
            expect: None,
            ..ClickParams::default()
        })
        .await?;
    browser
        .wait_balance(&page, (0, 0), "a balanced click")
        .await?;
    let events_after = browser.eval(&page, "__events.length").await?;
    assert_eq!(
        events_after.as_i64(),
        events_before.as_i64().map(|n| n + 2),
        "the click after hand-back reached the page"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_agents_held_key_is_released() -> anyhow::Result<()> {
    let options = LaunchOptions {
        env: vec![("COTAB_RESUME_GRACE_MS".into(), "300".into())],
        ..LaunchOptions::default()
    };
    let (browser, page, _tab, mut agent, _frame) = recorder(options).await?;
    agent
        .call::<KeyDown>(&KeyParams {
            key: "a".into(),
            modifiers: vec![],
            expect: None,
        })
        .await?;
    browser
        .wait_balance(&page, (1, 0), "the page to see the key held")
        .await?;
    drop(agent);
    browser
        .wait_balance(&page, (0, 0), "the page to see the key released")
        .await?;
    let log = browser.eval(&page, "JSON.stringify(__events)").await?;
    assert!(
        log.as_str()
            .unwrap_or("")
            .contains(r#"{"type":"keyup","key":"a""#),
        "{log}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn developer_mode_is_read_live() -> anyhow::Result<()> {
    let (browser, page, _tab, mut agent, _frame) = recorder(LaunchOptions::default()).await?;
    let eval = |expression: &str| EvaluateParams {
        expression: expression.into(),
        await_promise: None,
    };

    // Off by default.
    let err = agent
        .call::<Evaluate>(&eval("1 + 1"))
        .await
        .expect_err("developer mode is off");
    assert_eq!(err.kind(), Some(ErrorKind::DeveloperModeOff), "{err}");

    browser.set_developer_mode(&page, true).await?;
    let changed = notification(&mut agent, "developerMode.changed").await?;
    assert_eq!(changed["params"]["enabled"], true);
    assert_eq!(
        agent.call::<Evaluate>(&eval("1 + 1")).await?.value,
        json!(2)
    );
    // A binding outlives navigations: state raw CDP leaves in the page.
    // (A script on every new document is refused: it would also run in
    // pages agents may not use.)
    agent
        .call::<CdpSend>(&CdpSendParams {
            session_id: None,
            method: "Runtime.addBinding".into(),
            params: Some(json!({"name": "__probe"})),
        })
        .await?;
    let err = agent
        .call::<CdpSend>(&CdpSendParams {
            session_id: None,
            method: "Page.addScriptToEvaluateOnNewDocument".into(),
            params: Some(json!({"source": "window.__probe = 42"})),
        })
        .await
        .expect_err("a script for every later document");
    assert_eq!(err.kind(), Some(ErrorKind::BlockedTarget), "{err}");
    let url = browser.fixture.url("/input");
    agent
        .call::<Navigate>(&NavigateParams {
            url: Some(url.clone()),
            expect: None,
            ..NavigateParams::default()
        })
        .await?;
    assert_eq!(
        agent
            .call::<Evaluate>(&eval("typeof window.__probe"))
            .await?
            .value,
        json!("function")
    );

    // Off: refused at once, and the raw CDP script is gone after a reload.
    browser.set_developer_mode(&page, false).await?;
    let changed = notification(&mut agent, "developerMode.changed").await?;
    assert_eq!(changed["params"]["enabled"], false);
    let err = agent
        .call::<Evaluate>(&eval("1 + 1"))
        .await
        .expect_err("off again");
    assert_eq!(err.kind(), Some(ErrorKind::DeveloperModeOff), "{err}");
    let err = agent
        .call::<CdpSend>(&CdpSendParams {
            session_id: None,
            method: "Runtime.evaluate".into(),
            params: Some(json!({"expression": "1"})),
        })
        .await
        .expect_err("raw CDP while off");
    assert_eq!(err.kind(), Some(ErrorKind::DeveloperModeOff), "{err}");
    agent
        .call::<Navigate>(&NavigateParams {
            url: Some(url.clone()),
            expect: None,
            ..NavigateParams::default()
        })
        .await?;
    assert_eq!(
        browser.eval(&page, "typeof window.__probe").await?,
        "undefined"
    );

    // On again works without restarting anything.
    browser.set_developer_mode(&page, true).await?;
    notification(&mut agent, "developerMode.changed").await?;
    assert_eq!(
        agent.call::<Evaluate>(&eval("2 * 21")).await?.value,
        json!(42)
    );

    // The person's password is redacted from what the agent reads, also
    // when the call waited for it: the page scan follows the call.
    browser
        .eval(
            &page,
            "document.body.insertAdjacentHTML('beforeend', \
             '<input type=password id=pw><input type=password id=late>'); \
             document.getElementById('pw').value = 'Canary-Pw-93ab'; 'ok'",
        )
        .await?;
    // The scan rides right behind a call that answers at once (two CDP
    // commands sent), and is sent again after one that waited (three): the
    // worker's request trace counts them.
    browser.in_worker("self.cotabTrace().length").await?;
    for _ in 0..5 {
        let r = agent
            .call::<Evaluate>(&eval("'pw=' + document.getElementById('pw').value"))
            .await?;
        assert_eq!(r.value, json!("pw=[redacted]"));
    }
    let sends = browser
        .in_worker("self.cotabTrace().filter(r => r.what === 'Runtime.evaluate').map(r => r.sends)")
        .await?;
    let sends: Vec<u64> = serde_json::from_value(sends)?;
    assert_eq!(sends.len(), 5, "{sends:?}");
    assert!(sends.iter().all(|n| *n == 2 || *n == 3), "{sends:?}");
    assert!(
        sends.contains(&2),
        "the scan never rode behind the call: {sends:?}"
    );
    let r = agent
        .call::<Evaluate>(&eval(
            "new Promise(done => setTimeout(() => { \
               const late = document.getElementById('late'); \
               late.value = 'Late-Secret-77x'; done(late.value); }, 50))",
        ))
        .await?;
    assert_eq!(r.value, json!("[redacted]"));
    let sends = browser
        .in_worker("self.cotabTrace().filter(r => r.what === 'Runtime.evaluate').map(r => r.sends)")
        .await?;
    assert_eq!(
        sends,
        json!([3]),
        "the scan is sent again after a call that waited"
    );
    // A value with no text (a number, a boolean, null) needs no scan: after
    // a call that waited it is not sent again, and the answer does not
    // wait for one.
    for (expression, want) in [
        (
            "new Promise(done => setTimeout(() => done(7), 50))",
            json!(7),
        ),
        (
            "new Promise(done => setTimeout(() => done(null), 50))",
            json!(null),
        ),
    ] {
        let r = agent.call::<Evaluate>(&eval(expression)).await?;
        assert_eq!(r.value, want);
    }
    let sends = browser
        .in_worker("self.cotabTrace().filter(r => r.what === 'Runtime.evaluate').map(r => r.sends)")
        .await?;
    assert_eq!(sends, json!([2, 2]), "no scan after a value with no text");
    // So for raw CDP: a number waits for no scan, but an object's
    // description is text (an error's message here), and waits for it.
    let r = agent
        .call::<CdpSend>(&CdpSendParams {
            session_id: None,
            method: "Runtime.evaluate".into(),
            params: Some(json!({"expression":
                "new Promise(done => setTimeout(() => done(6 * 7), 50))", "awaitPromise": true})),
        })
        .await?;
    assert_eq!(r["result"]["value"], 42, "{r}");
    let r = agent
        .call::<CdpSend>(&CdpSendParams {
            session_id: None,
            method: "Runtime.evaluate".into(),
            params: Some(json!({"expression":
                "new Promise(done => setTimeout(() => \
                   done(new Error('pw ' + document.getElementById('pw').value)), 50))",
                "awaitPromise": true})),
        })
        .await?;
    let description = r["result"]["description"].as_str().unwrap_or_default();
    assert!(description.starts_with("Error: pw [redacted]"), "{r}");
    let sends = browser
        .in_worker("self.cotabTrace().filter(r => r.what === 'Runtime.evaluate').map(r => r.sends)")
        .await?;
    assert_eq!(
        sends,
        json!([2, 3]),
        "raw: no scan after a number, one after an object"
    );

    // Issue 15: a password field inside open shadow roots, nested, is
    // scanned too.
    browser
        .eval(
            &page,
            "const host = document.createElement('div'); host.id = 'shadow-host'; \
             document.body.append(host); const inner = document.createElement('span'); \
             host.attachShadow({mode: 'open'}).append(inner); \
             inner.attachShadow({mode: 'open'}).innerHTML = '<input type=password id=deep>'; \
             inner.shadowRoot.getElementById('deep').value = 'Shadow-Pw-51qz'; 'ok'",
        )
        .await?;
    let r = agent
        .call::<Evaluate>(&eval(
            "document.getElementById('shadow-host').shadowRoot.querySelector('span')\
             .shadowRoot.getElementById('deep').value",
        ))
        .await?;
    assert_eq!(r.value, json!("[redacted]"), "{:?}", r.exception);
    // And in a same-origin frame inside that shadow root, under a shadow
    // root of the frame's own: roots and frames are followed both ways.
    browser
        .eval(
            &page,
            "new Promise(loaded => { const inner = document.getElementById('shadow-host')\
               .shadowRoot.querySelector('span'); const frame = document.createElement('iframe'); \
             frame.id = 'framed'; frame.srcdoc = '<div id=host></div>'; \
             frame.onload = () => { const d = frame.contentDocument; \
               d.getElementById('host').attachShadow({mode: 'open'}).innerHTML = \
                 '<input type=password id=framed-pw>'; \
               d.getElementById('host').shadowRoot.getElementById('framed-pw').value = \
                 'Framed-Pw-83kd'; loaded('ok'); }; \
             inner.shadowRoot.append(frame); })",
        )
        .await?;
    let r = agent
        .call::<Evaluate>(&eval(
            "'framed ' + document.getElementById('shadow-host').shadowRoot.querySelector('span')\
             .shadowRoot.getElementById('framed').contentDocument.getElementById('host')\
             .shadowRoot.getElementById('framed-pw').value",
        ))
        .await?;
    assert_eq!(r.value, json!("framed [redacted]"), "{:?}", r.exception);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_agents_never_share_control() -> anyhow::Result<()> {
    let (browser, page, tab, mut a, frame) = recorder(LaunchOptions::default()).await?;
    let mut b = browser.agent("agent-b").await?;
    b.call::<TabsSelect>(&SelectParams { tab_id: tab }).await?;
    let err = b
        .call::<Acquire>(&Empty {})
        .await
        .expect_err("A holds the lease");
    assert_eq!(err.kind(), Some(ErrorKind::NoControl), "{err}");
    let b_frame = b.call::<Capture>(&CaptureParams::default()).await?;
    let (x, y) = centre(&b_frame);
    let err = b
        .call::<Click>(&ClickParams {
            x: Some(x),
            y: Some(y),
            frame_id: Some(b_frame.frame_id),
            expect: None,
            ..ClickParams::default()
        })
        .await
        .expect_err("B has no control");
    assert_eq!(err.kind(), Some(ErrorKind::NoControl), "{err}");
    assert_eq!(browser.balance(&page).await?, (0, 0));
    assert_eq!(browser.eval(&page, "__events.length").await?, 0);

    // A still acts, on its own frame.
    let (x, y) = centre(&frame);
    a.call::<Click>(&ClickParams {
        x: Some(x),
        y: Some(y),
        frame_id: Some(frame.frame_id),
        expect: None,
        ..ClickParams::default()
    })
    .await?;
    assert_eq!(browser.eval(&page, "__events.length").await?, 2);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tab_switch_voids_a_slow_action_and_navigation_stales_frames() -> anyhow::Result<()> {
    let (browser, page, tab, mut agent, frame) = recorder(LaunchOptions::default()).await?;
    let other_url = browser.fixture.url("/second");
    let other = browser.open_tab(&other_url).await?;
    let other_tab = browser.share(&other, &other_url).await?;
    browser.activate(&page).await?;

    // A navigation to a page that answers only when the gate opens is in
    // flight while the same session selects another tab.
    let slow = browser.fixture.url("/slow");
    // One connection runs its requests concurrently: the navigation is in
    // flight when the same session selects another tab.
    let navigate =
        json!({"jsonrpc":"2.0","id":900,"method":"page.navigate","params":{"url": slow}})
            .to_string();
    agent.send_raw(&navigate).await?;
    let select =
        json!({"jsonrpc":"2.0","id":901,"method":"tabs.select","params":{"tabId": other_tab.0}})
            .to_string();
    agent.send_raw(&select).await?;
    let mut answers = std::collections::HashMap::new();
    let mut opened = false;
    let got = tokio::time::timeout(DEADLINE, async {
        while answers.len() < 2 {
            let msg = agent.next_message().await?;
            if let Some(id) = msg["id"].as_i64() {
                if id == 901 && !opened {
                    // The selection moved; now let the slow page load.
                    browser.fixture.open_gate();
                    opened = true;
                }
                answers.insert(id, msg);
            }
        }
        anyhow::Ok(())
    })
    .await;
    anyhow::ensure!(got.is_ok(), "answers missing: {answers:?}");
    got??;
    assert!(answers[&901].get("result").is_some(), "{:?}", answers[&901]);
    assert_eq!(
        answers[&900]["error"]["data"]["kind"], "TAB_CHANGED",
        "{:?}",
        answers[&900]
    );

    // Back on the recorder: the frame taken before a navigation is stale.
    agent
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?;
    agent.call::<Acquire>(&Empty {}).await?;
    let fresh = agent.call::<Capture>(&CaptureParams::default()).await?;
    agent
        .call::<Navigate>(&NavigateParams {
            url: Some(browser.fixture.url("/input")),
            expect: None,
            ..NavigateParams::default()
        })
        .await?;
    let (x, y) = centre(&fresh);
    for old in [frame.frame_id, fresh.frame_id] {
        let err = agent
            .call::<Click>(&ClickParams {
                x: Some(x),
                y: Some(y),
                frame_id: Some(old),
                expect: None,
                ..ClickParams::default()
            })
            .await
            .expect_err("frame taken before a navigation");
        assert_eq!(err.kind(), Some(ErrorKind::StaleFrame), "{err}");
    }
    assert_eq!(
        browser.eval(&page, "__events.length").await?,
        0,
        "a stale click reached the page"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actions_that_expect_another_state_do_nothing() -> anyhow::Result<()> {
    let (browser, page, tab, mut agent, frame) = recorder(LaunchOptions::default()).await?;
    let (x, y) = centre(&frame);
    let click = |expect| ClickParams {
        x: Some(x),
        y: Some(y),
        frame_id: Some(frame.frame_id.clone()),
        expect: Some(expect),
        ..ClickParams::default()
    };
    let err = agent
        .call::<Click>(&click(Expect {
            url: Some(browser.fixture.url("/elsewhere")),
            selection_revision: None,
        }))
        .await
        .expect_err("another url");
    assert_eq!(err.kind(), Some(ErrorKind::StateChanged), "{err}");
    let revision = agent
        .call::<TabsSelect>(&SelectParams { tab_id: tab })
        .await?
        .selection_revision;
    let err = agent
        .call::<Click>(&click(Expect {
            url: None,
            selection_revision: Some(revision - 1),
        }))
        .await
        .expect_err("an old revision");
    assert_eq!(err.kind(), Some(ErrorKind::StateChanged), "{err}");
    assert_eq!(
        browser.eval(&page, "__events.length").await?,
        0,
        "a refused click reached the page"
    );

    // The same click with the state it expects goes through.
    agent
        .call::<Click>(&click(Expect {
            url: Some(browser.fixture.url("/input")),
            selection_revision: Some(revision),
        }))
        .await?;
    assert_eq!(browser.eval(&page, "__events.length").await?, 2);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_at_a_frame_the_page_scrolled_away_from_does_nothing() -> anyhow::Result<()> {
    let (browser, page, _tab, mut agent, _) = recorder(LaunchOptions::default()).await?;
    browser
        .eval(&page, "document.body.style.minHeight = '5000px'; 0")
        .await?;
    let frame = agent.call::<Capture>(&CaptureParams::default()).await?;
    let (x, y) = centre(&frame);
    let click = || ClickParams {
        x: Some(x),
        y: Some(y),
        frame_id: Some(frame.frame_id.clone()),
        expect: None,
        ..ClickParams::default()
    };
    assert_eq!(browser.eval(&page, "scrollTo(0, 300); scrollY").await?, 300);
    let err = agent
        .call::<Click>(&click())
        .await
        .expect_err("the page scrolled since the frame");
    assert_eq!(err.kind(), Some(ErrorKind::StaleFrame), "{err}");
    let err = agent
        .call::<MouseDown>(&PointerParams {
            x,
            y,
            frame_id: Some(frame.frame_id.clone()),
            button: None,
            expect: None,
        })
        .await
        .expect_err("the page scrolled since the frame");
    assert_eq!(err.kind(), Some(ErrorKind::StaleFrame), "{err}");
    assert_eq!(
        browser.eval(&page, "__events.length").await?,
        0,
        "input at a scrolled-away frame reached the page: {}",
        browser.eval(&page, "JSON.stringify(__events)").await?
    );
    assert_eq!(browser.balance(&page).await?, (0, 0));
    // Scrolled back within a pixel, the frame shows the page again.
    assert_eq!(browser.eval(&page, "scrollTo(0, 0); scrollY").await?, 0);
    agent.call::<Click>(&click()).await?;
    assert_eq!(browser.eval(&page, "__events.length").await?, 2);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_gesture_is_lifted_when_the_agent_releases_control() -> anyhow::Result<()> {
    let (browser, page, _tab, mut agent, frame) = recorder(LaunchOptions::default()).await?;
    let (x, y) = centre(&frame);
    agent
        .call::<GestureBegin>(&PointerParams {
            x,
            y,
            frame_id: Some(frame.frame_id.clone()),
            button: None,
            expect: None,
        })
        .await?;
    agent
        .call::<GestureUpdate>(&PointParams { x: x + 40.0, y })
        .await?;
    let touches = "__events.filter(e => e.type.startsWith('touch')).map(e => e.type).join(',')";
    wait_for("the page to see the finger down", DEADLINE, || async {
        Ok((browser.eval(&page, touches).await? == "touchstart").then_some(()))
    })
    .await?;
    // Giving control back lifts the finger first.
    agent.call::<Release>(&Empty {}).await?;
    wait_for("the page to see the finger lifted", DEADLINE, || async {
        Ok((browser.eval(&page, touches).await? == "touchstart,touchend").then_some(()))
    })
    .await?;
    assert!(agent.call::<GestureEnd>(&Empty {}).await?.already_released);
    Ok(())
}

/// Issue 15: what raw CDP set up in a tab (here a timezone and a media
/// override) does not outlive the agent's control: taking control
/// re-attaches the tab. (A viewport override would not do here: Chromium
/// 148 keeps it after its session detaches.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_takeover_clears_what_raw_cdp_set_up_in_the_tab() -> anyhow::Result<()> {
    let (browser, page, tab, mut agent, _frame) = recorder(LaunchOptions::default()).await?;
    let probe = "[Intl.DateTimeFormat().resolvedOptions().timeZone, matchMedia('print').matches]";
    let state = || async { browser.eval(&page, probe).await };
    let natural = state().await?;
    browser.set_developer_mode(&page, true).await?;
    notification(&mut agent, "developerMode.changed").await?;
    for (method, params) in [
        (
            "Emulation.setTimezoneOverride",
            json!({"timezoneId": "Asia/Tokyo"}),
        ),
        ("Emulation.setEmulatedMedia", json!({"media": "print"})),
    ] {
        agent
            .call::<CdpSend>(&CdpSendParams {
                session_id: None,
                method: method.into(),
                params: Some(params),
            })
            .await?;
    }
    assert_eq!(state().await?, json!(["Asia/Tokyo", true]));
    assert_ne!(natural, json!(["Asia/Tokyo", true]));
    browser.take_control(&page, tab).await?;
    wait_for("the overrides to be gone", DEADLINE, || async {
        Ok((state().await? == natural).then_some(()))
    })
    .await?;
    // The tab is still shared and observable.
    agent.call::<Capture>(&CaptureParams::default()).await?;
    Ok(())
}
