//! Issue 40: downloads in a tab that asks before them wait in the browser
//! for the person's yes, whoever starts them; a no, an unshare or a
//! worker that stops saves nothing, and the person's own downloads go.

use crate::approvals::{answer, ask_before, kind, none_waiting, one_waiting, open_panel};
use crate::panel::until;
use crate::toolset::{find_ref, on_page, snapshot};
use cotab_e2e::browser::{Browser, LaunchOptions, Page};
use cotab_host::client::{Client, ClientError};
use cotab_shared::controller::{Click, ClickParams, CreateTabParams, Ref, TabsCreate};
use cotab_shared::{ErrorKind, TabId};
use serde_json::Value;

/// Has the browser save downloads in a folder of their own, with its
/// download events on.
async fn save_downloads(browser: &Browser) -> anyhow::Result<tempfile::TempDir> {
    let saved_to = tempfile::tempdir()?;
    browser
        .cdp
        .send(
            "Browser.setDownloadBehavior",
            serde_json::json!({"behavior": "allow", "downloadPath": saved_to.path(),
                "eventsEnabled": true}),
        )
        .await?;
    Ok(saved_to)
}

/// The names of the files saved in `dir`.
fn files_in(dir: &tempfile::TempDir) -> anyhow::Result<Vec<String>> {
    Ok(std::fs::read_dir(dir.path())?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect())
}

/// The next `download.answered` the agent is told: its params. It came
/// while a call of the agent's was waiting (forwarded to `told`), or
/// after (read off the connection).
async fn download_answered(
    told: &mut tokio::sync::mpsc::UnboundedReceiver<Value>,
    agent: &mut cotab_host::client::Client,
) -> anyhow::Result<Value> {
    let wait = async {
        loop {
            let msg = tokio::select! {
                m = told.recv() => m.ok_or_else(|| anyhow::anyhow!("no more"))?,
                m = agent.next_message() => m?,
            };
            if msg["method"] == "download.answered" {
                return anyhow::Ok(msg["params"].clone());
            }
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(30), wait).await?
}

/// The `/downloads` page shared and held by an agent, with the side panel
/// open and the tab asking before downloads, which the browser saves in a
/// folder of their own.
struct Asking {
    browser: Browser,
    tab: TabId,
    agent: Client,
    saved_to: tempfile::TempDir,
    panel: Page,
    /// What the agent is told while a call of its waits.
    told: tokio::sync::mpsc::UnboundedReceiver<Value>,
    /// The refs of the links named.
    links: [Ref; 2],
}

async fn asking(links: [&str; 2]) -> anyhow::Result<Asking> {
    let (browser, _page, tab, mut agent) = on_page("/downloads", LaunchOptions::default()).await?;
    let saved_to = save_downloads(&browser).await?;
    let outline = snapshot(&mut agent).await?;
    let links = [
        find_ref(&outline, &format!("link \"{}\"", links[0]))?,
        find_ref(&outline, &format!("link \"{}\"", links[1]))?,
    ];
    let panel = open_panel(&browser).await?;
    ask_before(&browser, &panel, tab, "download").await?;
    let told = agent.forward_notifications();
    Ok(Asking {
        browser,
        tab,
        agent,
        saved_to,
        panel,
        told,
        links,
    })
}

/// A download the agent starts waits for the person's yes, with nothing
/// saved: a response sent as an attachment, and a link with `download`.
/// A no saves nothing; a yes saves the file; the agent is told each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_download_waits_for_the_persons_yes_and_a_no_saves_nothing() -> anyhow::Result<()> {
    let Asking {
        browser,
        tab,
        agent,
        saved_to,
        panel,
        mut told,
        links,
    } = asking(["Get the report", "Save the notes"]).await?;
    let [report, notes] = links;
    let mut events = browser.cdp.events();

    // The attachment: the click goes, the file waits; a no saves nothing.
    // The click is answered once the download was: it started a
    // navigation that ends as a download.
    let task = crate::in_background!(agent, Click, ClickParams::on(report));
    let waiting = one_waiting(&browser, &panel).await?;
    assert_eq!(waiting, "download|");
    let what = "document.querySelector('#approvals li').textContent";
    let shown = browser.eval(&panel, what).await?;
    assert!(
        shown
            .as_str()
            .is_some_and(|t| t.contains("download “report.csv” from 127.0.0.1")),
        "{shown}"
    );
    assert_eq!(
        crate::toolbar::badge(&browser, tab).await?[0],
        "ASK",
        "the badge asks too"
    );
    answer(&browser, &panel, "deny").await?;
    let (mut agent, r) = task.await?;
    r?;
    let told_no = download_answered(&mut told, &mut agent).await?;
    assert_eq!(told_no["saved"], false);
    assert_eq!(told_no["file"], "report.csv");
    assert_eq!(told_no["site"], "127.0.0.1");

    // The link with `download`: approved, it is saved.
    let task = crate::in_background!(agent, Click, ClickParams::on(notes));
    assert_eq!(one_waiting(&browser, &panel).await?, "download|");
    answer(&browser, &panel, "approve").await?;
    let (mut agent, r) = task.await?;
    r?;
    let told_yes = download_answered(&mut told, &mut agent).await?;
    assert_eq!(told_yes["saved"], true);
    assert_eq!(told_yes["file"], "notes.txt");
    // The browser began one download only, the approved one, and saved it.
    let began = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        loop {
            let e = events
                .recv()
                .await
                .ok_or_else(|| anyhow::anyhow!("no more"))?;
            if e["method"] == "Browser.downloadWillBegin" {
                return anyhow::Ok(e["params"].clone());
            }
        }
    })
    .await??;
    assert_eq!(began["suggestedFilename"], "notes.txt", "{began}");
    let done = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        loop {
            let e = events
                .recv()
                .await
                .ok_or_else(|| anyhow::anyhow!("no more"))?;
            if e["method"] == "Browser.downloadProgress" && e["params"]["state"] != "inProgress" {
                return anyhow::Ok(e["params"]["state"].clone());
            }
        }
    })
    .await??;
    assert_eq!(done, "completed");
    let files = files_in(&saved_to)?;
    assert_eq!(files, ["notes.txt"], "the refused report was never saved");
    Ok(())
}

/// Until the one request the panel shows names `file` in its words.
async fn asked_for(browser: &Browser, panel: &Page, file: &str) -> anyhow::Result<()> {
    let shown = "[...document.querySelectorAll('#approvals li')].map(li => li.textContent)";
    let want = format!("download “{file}” from 127.0.0.1");
    until(browser, panel, shown, |v| {
        v.as_array()
            .is_some_and(|a| a.len() == 1 && a[0].as_str().is_some_and(|t| t.contains(&want)))
    })
    .await?;
    Ok(())
}

/// The person is asked with the name the browser saves the file under:
/// a link's own `download="…"` name rather than its url's, and the
/// response's own name rather than the link's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_download_is_asked_for_by_the_name_it_is_saved_under() -> anyhow::Result<()> {
    let Asking {
        browser,
        agent,
        saved_to,
        panel,
        mut told,
        links,
        ..
    } = asking(["Save the memo", "Save the summary"]).await?;
    let [memo, summary] = links;

    // `/memo.txt` saved as `invoice.txt`, as its link says.
    let task = crate::in_background!(agent, Click, ClickParams::on(memo));
    asked_for(&browser, &panel, "invoice.txt").await?;
    answer(&browser, &panel, "approve").await?;
    let (mut agent, r) = task.await?;
    r?;
    let told_yes = download_answered(&mut told, &mut agent).await?;
    assert_eq!(told_yes["saved"], true);
    assert_eq!(told_yes["file"], "invoice.txt");
    until_saved(&saved_to, "invoice.txt").await?;

    // The summary's link says `summary.txt`, its response
    // `totals-2026.csv`, which the browser takes first.
    let task = crate::in_background!(agent, Click, ClickParams::on(summary));
    asked_for(&browser, &panel, "totals-2026.csv").await?;
    answer(&browser, &panel, "deny").await?;
    let (mut agent, r) = task.await?;
    r?;
    let told_no = download_answered(&mut told, &mut agent).await?;
    assert_eq!(told_no["saved"], false);
    assert_eq!(told_no["file"], "totals-2026.csv");
    assert_eq!(
        files_in(&saved_to)?,
        ["invoice.txt"],
        "nothing more was saved"
    );
    Ok(())
}

/// Until `dir` holds `file`, whole (the browser writes a partial file
/// under another name first), within 30 s.
async fn until_saved(dir: &tempfile::TempDir, file: &str) -> anyhow::Result<()> {
    let clock =
        cotab_e2e::Deadline::new("the file to be saved", std::time::Duration::from_secs(30));
    loop {
        let files = files_in(dir)?;
        if files == [file] {
            return Ok(());
        }
        clock.next(files).await?;
    }
}

/// A tab an agent opens straight at a download, in a browser whose
/// shared tab asks before downloads, asks too: the file waits for the
/// person's yes before any of it is saved; a no saves nothing, a yes
/// saves it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_download_a_tab_an_agent_opens_starts_waits_for_the_persons_yes() -> anyhow::Result<()> {
    let (browser, _page, tab, agent) = on_page("/downloads", LaunchOptions::default()).await?;
    let saved_to = save_downloads(&browser).await?;
    let panel = open_panel(&browser).await?;
    ask_before(&browser, &panel, tab, "download").await?;
    let saved = || files_in(&saved_to);
    let open = |path: &str| CreateTabParams {
        url: Some(browser.fixture.url(path)),
    };

    let task = crate::in_background!(agent, TabsCreate, open("/report.csv"));
    assert_eq!(one_waiting(&browser, &panel).await?, "download|");
    assert_eq!(saved()?, Vec::<String>::new(), "nothing before the yes");
    answer(&browser, &panel, "deny").await?;
    let (agent, r) = task.await?;
    r?;
    assert_eq!(saved()?, Vec::<String>::new(), "nothing after a no");

    let task = crate::in_background!(agent, TabsCreate, open("/report.csv"));
    assert_eq!(one_waiting(&browser, &panel).await?, "download|");
    answer(&browser, &panel, "approve").await?;
    let (_agent, r) = task.await?;
    r?;
    cotab_e2e::wait_for(
        "the approved file",
        std::time::Duration::from_secs(15),
        || async { Ok((saved()? == ["report.csv"]).then_some(())) },
    )
    .await?;
    Ok(())
}

/// The fixture's downloads page shared, downloads asked for, and the
/// agent's click on the report waiting for the person's yes.
struct Waiting {
    browser: Browser,
    page: Page,
    tab: cotab_shared::TabId,
    events: tokio::sync::mpsc::UnboundedReceiver<Value>,
    saved_to: tempfile::TempDir,
    panel: Page,
    task: tokio::task::JoinHandle<(
        cotab_host::client::Client,
        Result<<Click as cotab_shared::controller::Method>::Result, ClientError>,
    )>,
}

async fn a_download_waiting() -> anyhow::Result<Waiting> {
    let (browser, page, tab, mut agent) = on_page("/downloads", LaunchOptions::default()).await?;
    let events = browser.cdp.events();
    let saved_to = save_downloads(&browser).await?;
    let outline = snapshot(&mut agent).await?;
    let report = find_ref(&outline, "link \"Get the report\"")?;
    let panel = open_panel(&browser).await?;
    ask_before(&browser, &panel, tab, "download").await?;
    let task = crate::in_background!(agent, Click, ClickParams::on(report));
    assert_eq!(one_waiting(&browser, &panel).await?, "download|");
    Ok(Waiting {
        browser,
        page,
        tab,
        events,
        saved_to,
        panel,
        task,
    })
}

/// A download waiting for the person's yes when they unshare its tab is
/// refused, not saved: unsharing is no yes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_download_waiting_when_the_person_unshares_its_tab_is_not_saved() -> anyhow::Result<()> {
    let Waiting {
        browser,
        page,
        tab,
        mut events,
        saved_to,
        panel,
        task,
    } = a_download_waiting().await?;
    browser.unshare(&page, tab).await?;
    let (_agent, r) = task.await?;
    // The click waited for the download it started, in a tab no longer
    // shared.
    assert!(
        r.is_ok() || kind(&r) == Some(ErrorKind::TabNotShared),
        "{r:?}"
    );
    none_waiting(&browser, &panel).await?;
    only_the_persons_download_follows(&browser, &page, &mut events, &saved_to).await
}

/// The person's own download of the notes, which nothing holds, is saved,
/// and nothing else is: the browser takes downloads in turn, so the
/// report, had it gone on, would have begun before the notes end.
async fn only_the_persons_download_follows(
    browser: &Browser,
    page: &Page,
    events: &mut tokio::sync::mpsc::UnboundedReceiver<Value>,
    saved_to: &tempfile::TempDir,
) -> anyhow::Result<()> {
    browser
        .eval(page, "document.getElementById('notes').click(); 1")
        .await?;
    let mut began = Vec::new();
    tokio::time::timeout(std::time::Duration::from_secs(30), async {
        let mut notes = None;
        loop {
            let e = events
                .recv()
                .await
                .ok_or_else(|| anyhow::anyhow!("no more"))?;
            let params = &e["params"];
            if e["method"] == "Browser.downloadWillBegin" {
                began.push(params["suggestedFilename"].clone());
                if params["suggestedFilename"] == "notes.txt" {
                    notes = Some(params["guid"].clone());
                }
            }
            if e["method"] == "Browser.downloadProgress"
                && params["state"] == "completed"
                && Some(&params["guid"]) == notes.as_ref()
            {
                return anyhow::Ok(());
            }
        }
    })
    .await??;
    assert_eq!(began, ["notes.txt"], "the report never began");
    let files = files_in(saved_to)?;
    assert_eq!(files, ["notes.txt"], "the report was not saved");
    Ok(())
}

/// A download waiting for the person's yes when the worker stops (the
/// lane, and the agent's lease, go with it) is refused by the worker that
/// starts again, not let go with the tab's pausing: nobody said yes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_download_waiting_when_the_worker_stops_is_not_saved() -> anyhow::Result<()> {
    let Waiting {
        browser,
        page,
        mut events,
        saved_to,
        panel,
        task,
        ..
    } = a_download_waiting().await?;
    browser.stop_workers(&page).await?;
    let (_agent, r) = task.await?;
    assert!(r.is_err(), "the click ended with the lane: {r:?}");
    // The panel's message wakes the worker, which answers once it has
    // restored the shared tabs.
    browser
        .eval(&panel, "chrome.runtime.sendMessage({type: 'getState'})")
        .await?;
    only_the_persons_download_follows(&browser, &page, &mut events, &saved_to).await
}
