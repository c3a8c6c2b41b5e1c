//! Sites for every share that the person grants from the extension's
//! options page (issue 40): kept by the daemon with when they were
//! granted, across its restarts; revoked by the person only; the host
//! config's `sites` listed beside them and changed by the file only.
//! And what the person chose for one shared tab, kept across a restart
//! of the daemon for the same page only.

use crate::harness::{daemon_binary, eventually, tab, FakeExt, Script};
use crate::watch::{next, watch_at, Watch};
use cotab_host::client::{Client, ClientError};
use cotab_shared::controller::{
    Acquire, Empty, Navigate, NavigateParams, SelectParams, Status, TabsSelect,
};
use cotab_shared::native::TabInfo;
use cotab_shared::watch::{AskBefore, LastingSite, TabScope};
use cotab_shared::{ErrorKind, TabId};
use futures_util::SinkExt as _;
use serde_json::json;
use std::path::Path;

const T: i32 = 7;

/// The next list of sites for every share the watch tells.
async fn lasting(w: &mut Watch) -> Vec<LastingSite> {
    loop {
        if let Some(sites) = next(w).await.lasting {
            return sites;
        }
    }
}

async fn change(w: &mut Watch, site: &str, allow: bool) {
    let message = json!({"lastingSite": {"site": site, "allow": allow}});
    w.send(serde_json::to_vec(&message).expect("json"))
        .await
        .expect("send");
}

/// The binary daemon on `dir`, the extension sharing tab 7 on a mail
/// page, an agent holding it, and a watch.
async fn start(dir: &Path) -> (tokio::process::Child, FakeExt, Client, Watch) {
    start_on(dir, None).await
}

/// [`start`], with the tab's page `target` id.
async fn start_on(
    dir: &Path,
    target: Option<&str>,
) -> (tokio::process::Child, FakeExt, Client, Watch) {
    let rt = dir.join("rt");
    let daemon = daemon_binary(&rt, &dir.join("state"), &dir.join("config.json"));
    let host = rt.join(cotab_host::runtime::HOST_SOCKET);
    let agent_sock = rt.join(cotab_host::runtime::AGENT_SOCKET);
    eventually(|| tokio::net::UnixStream::connect(host.clone())).await;
    let ext = FakeExt::connect(
        &host,
        Script {
            tabs: vec![TabInfo {
                url: "https://mail.example.com/".into(),
                target_id: target.map(str::to_owned),
                ..tab(T)
            }],
            ..Script::default()
        },
    )
    .await;
    let mut a = eventually(|| {
        let sock = agent_sock.clone();
        async move {
            let mut c = Client::connect(sock).await?;
            c.hello("test-agent").await?;
            c.call::<TabsSelect>(&SelectParams { tab_id: TabId(T) })
                .await?;
            Ok::<_, ClientError>(c)
        }
    })
    .await;
    a.call::<Acquire>(&Empty {}).await.expect("acquire");
    let w = watch_at(&host).await;
    (daemon, ext, a, w)
}

async fn goes(a: &mut Client, url: &str) -> Result<(), ErrorKind> {
    match a.call::<Navigate>(&NavigateParams::to(url)).await {
        Ok(_) => Ok(()),
        Err(e) => Err(e.kind().unwrap_or(ErrorKind::CommandFailed)),
    }
}

#[tokio::test]
async fn the_person_grants_a_site_for_every_share_and_only_they_take_it_back() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        tmp.path().join("config.json"),
        r#"{"sites": ["github.com"]}"#,
    )
    .expect("config");
    let (mut daemon, _ext, mut a, mut w) = start(tmp.path()).await;
    let first = lasting(&mut w).await;
    assert_eq!(
        first,
        [LastingSite {
            site: "github.com".into(),
            granted_ms: None
        }]
    );
    assert_eq!(
        goes(&mut a, "https://docs.rs/serde").await,
        Err(ErrorKind::SiteNotAllowed)
    );

    // Granted: allowed at once, in every share, with when.
    let before = cotab_local::record::now_ms();
    change(&mut w, "Docs.rs", true).await;
    let now = lasting(&mut w).await;
    let docs = now.iter().find(|s| s.site == "docs.rs").expect("granted");
    assert!(docs.granted_ms.is_some_and(|t| t >= before));
    let granted_ms = docs.granted_ms;
    goes(&mut a, "https://docs.rs/serde")
        .await
        .expect("granted");
    let status = a.call::<Status>(&Empty {}).await.expect("status");
    assert_eq!(
        status.sites,
        ["docs.rs", "github.com"],
        "cotab doctor shows them"
    );

    // Bad changes change nothing, and the list is told as it is.
    for (site, allow) in [
        ("https://bank.test/", true),
        ("com", true),
        ("mail.example.com", true),
        ("github.com", false),
    ] {
        change(&mut w, site, allow).await;
        assert_eq!(lasting(&mut w).await, now, "{site} {allow}");
    }
    goes(&mut a, "https://github.com/ada")
        .await
        .expect("the config's");

    // The grant outlives the daemon, with its time.
    daemon.kill().await.expect("killed");
    drop(a);
    let (_daemon, _ext, mut a, mut w) = start(tmp.path()).await;
    let kept = lasting(&mut w).await;
    assert_eq!(
        kept.iter()
            .find(|s| s.site == "docs.rs")
            .map(|s| s.granted_ms),
        Some(granted_ms)
    );
    // Revoked: refused from then on.
    change(&mut w, "docs.rs", false).await;
    assert!(lasting(&mut w).await.iter().all(|s| s.site != "docs.rs"));
    assert_eq!(
        goes(&mut a, "https://docs.rs/serde").await,
        Err(ErrorKind::SiteNotAllowed)
    );
}

/// Tab 7's sites and what it asks before, once the watch tells them
/// with `f` true.
async fn tab_scope(w: &mut Watch, f: impl Fn(&TabScope) -> bool) -> TabScope {
    loop {
        if let Some(scopes) = next(w).await.scopes {
            if let Some(s) = scopes.into_iter().find(|s| s.tab == TabId(T)) {
                if f(&s) {
                    return s;
                }
            }
        }
    }
}

async fn send(w: &mut Watch, message: serde_json::Value) {
    w.send(serde_json::to_vec(&message).expect("json"))
        .await
        .expect("send");
}

/// The daemon restarting must not hand an agent what the person's
/// approvals held back: the same page keeps its choices. A page of
/// another browser that got the same tab id does not inherit them.
#[tokio::test]
async fn a_tabs_approvals_and_sites_outlive_a_restart_of_the_daemon_for_its_page_only() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("config.json"), "{}").expect("config");
    let (mut daemon, _ext, a, mut w) = start_on(tmp.path(), Some("PAGE-A")).await;
    // A site for every share, which the daemon applies as it starts.
    change(&mut w, "github.com", true).await;
    while !lasting(&mut w).await.iter().any(|s| s.site == "github.com") {}
    send(
        &mut w,
        json!({"tabAskBefore": {"tab": T, "what": "step", "on": true}}),
    )
    .await;
    send(&mut w, json!({"tabScope": {"tab": T, "anySite": true}})).await;
    tab_scope(&mut w, |s| {
        s.sites.is_empty() && s.ask_before == [AskBefore::Step]
    })
    .await;

    daemon.kill().await.expect("killed");
    drop(a);
    // A daemon that starts and stops before the browser comes back
    // keeps them too.
    let rt = tmp.path().join("rt");
    let mut between = daemon_binary(
        &rt,
        &tmp.path().join("state"),
        &tmp.path().join("config.json"),
    );
    let host = rt.join(cotab_host::runtime::HOST_SOCKET);
    eventually(|| tokio::net::UnixStream::connect(host.clone())).await;
    // Once it says the granted site, it has read its settings.
    let mut told = watch_at(&host).await;
    assert!(lasting(&mut told)
        .await
        .iter()
        .any(|s| s.site == "github.com"));
    between.kill().await.expect("killed");
    let (mut daemon, _ext, mut a, mut w) = start_on(tmp.path(), Some("PAGE-A")).await;
    let kept = tab_scope(&mut w, |_| true).await;
    assert_eq!(kept.ask_before, [AskBefore::Step], "{kept:?}");
    assert!(kept.sites.is_empty(), "any site still: {kept:?}");
    // The agent's navigation waits for the person's yes, as before.
    let going = tokio::spawn(async move {
        let r = goes(&mut a, "https://docs.rs/serde").await;
        (a, r)
    });
    let waiting = loop {
        if let Some(list) = next(&mut w).await.approvals {
            if let Some(first) = list.first() {
                break first.id;
            }
        }
    };
    send(
        &mut w,
        json!({"approval": {"id": waiting, "approve": false}}),
    )
    .await;
    let (a, r) = going.await.expect("task");
    assert_eq!(r, Err(ErrorKind::DeniedByPerson));

    // Another browser: tab 7 is another page now.
    daemon.kill().await.expect("killed");
    drop(a);
    let (_daemon, _ext, mut a, mut w) = start_on(tmp.path(), Some("PAGE-B")).await;
    let fresh = tab_scope(&mut w, |_| true).await;
    assert!(fresh.ask_before.is_empty(), "{fresh:?}");
    assert_eq!(fresh.sites, ["example.com", "github.com"]);
    assert_eq!(
        goes(&mut a, "https://docs.rs/serde").await,
        Err(ErrorKind::SiteNotAllowed)
    );
}
