//! What agents may reach: shareable and driveable urls, blocked targets,
//! and raw CDP on the tab and on its child sessions.

use super::*;
use serde_json::json;

const N: &LocalFiles = &LocalFiles::NONE;

#[test]
fn web_pages_are_shareable() {
    assert_eq!(check_shareable("http://127.0.0.1:8000/", N), Ok(()));
    assert_eq!(check_shareable("https://example.com/a?b", N), Ok(()));
    assert_eq!(check_shareable("HTTPS://EXAMPLE.COM/", N), Ok(()));
}

#[test]
fn blocked_targets_are_refused() {
    let cases = [
        ("chrome://settings", Blocked::BrowserPage),
        (
            "devtools://devtools/bundled/inspector.html",
            Blocked::BrowserPage,
        ),
        ("about:blank", Blocked::BrowserPage),
        ("view-source:https://example.com/", Blocked::BrowserPage),
        ("chrome-error://chromewebdata/", Blocked::BrowserPage),
        (
            "chrome-extension://njcapokbkdmpnkpmgflbgjlehbglmgck/popup.html",
            Blocked::ExtensionPage,
        ),
        ("file:///etc/passwd", Blocked::LocalFile),
        ("FILE:///etc/passwd", Blocked::LocalFile),
        ("data:text/html,hi", Blocked::DataUrl),
        (
            "https://chromewebstore.google.com/detail/x",
            Blocked::WebStore,
        ),
        (
            "https://chrome.google.com/webstore/category",
            Blocked::WebStore,
        ),
        ("", Blocked::NotWebPage),
        ("ftp://example.com/", Blocked::NotWebPage),
        ("javascript:alert(1)", Blocked::NotWebPage),
    ];
    for (url, want) in cases {
        assert_eq!(check_shareable(url, &LocalFiles::NONE), Err(want), "{url}");
    }
}

#[test]
fn a_created_tab_may_be_blank_and_nothing_else() {
    assert_eq!(check_created("about:blank", N), Ok(()));
    assert_eq!(check_created("http://127.0.0.1:8000/", N), Ok(()));
    for url in [
        "about:blank#x",
        "about:srcdoc",
        "chrome://newtab/",
        "data:text/html,hi",
        "file:///etc/passwd",
        "",
    ] {
        assert!(check_created(url, N).is_err(), "{url}");
    }
}

#[test]
fn a_tab_stays_driveable_on_web_blank_and_data_pages_only() {
    for url in [
        "https://example.com/",
        "about:blank",
        "about:srcdoc",
        "data:text/html,hi",
        "blob:https://example.com/1b2c",
        "filesystem:http://example.com/temporary/a",
    ] {
        assert_eq!(check_driveable(url, None, N), Ok(()), "{url}");
    }
    let blocked = [
        ("file:///etc/passwd", Blocked::LocalFile),
        (
            "chrome-extension://njcapokbkdmpnkpmgflbgjlehbglmgck/popup.html",
            Blocked::ExtensionPage,
        ),
        (
            "blob:chrome-extension://njcapokbkdmpnkpmgflbgjlehbglmgck/1b2c",
            Blocked::ExtensionPage,
        ),
        ("blob:null/1b2c", Blocked::BrowserPage),
        ("chrome://version/", Blocked::BrowserPage),
        ("about:version", Blocked::BrowserPage),
        ("https://chromewebstore.google.com/", Blocked::WebStore),
        ("chrome-error://chromewebdata/", Blocked::BrowserPage),
    ];
    for (url, want) in blocked {
        assert_eq!(check_driveable(url, None, N), Err(want), "{url}");
    }
}

#[test]
fn an_error_page_is_judged_by_the_url_that_failed() {
    let error_page = "chrome-error://chromewebdata/";
    assert_eq!(
        check_driveable(error_page, Some("http://unreachable.test/"), N),
        Ok(())
    );
    assert_eq!(
        check_driveable(error_page, Some("file:///nope"), N),
        Err(Blocked::LocalFile)
    );
    assert_eq!(
        check_driveable(error_page, Some(""), N),
        Err(Blocked::BrowserPage)
    );
}

#[test]
fn local_files_are_reached_only_under_the_directories_the_person_allowed() {
    let files = LocalFiles(vec!["/home/ada/site".into(), "/srv/pages/".into()]);
    for url in [
        "file:///home/ada/site",
        "file:///home/ada/site/index.html",
        "FILE:///home/ada/site/a%20b.html?x#y",
        "file://localhost/srv/pages/x.html",
    ] {
        assert!(files.allows(url), "{url}");
        assert_eq!(check_shareable(url, &files), Ok(()), "{url}");
        assert_eq!(check_driveable(url, None, &files), Ok(()), "{url}");
    }
    for url in [
        "file:///home/ada/site-other/x.html",
        "file:///home/ada/sit",
        "file:///home/ada/site/../.ssh/id_rsa",
        "file:///home/ada/site/%2e%2e/.ssh/id_rsa",
        "file:///home/ada/site//x",
        "file:///home/ada/site/%zz",
        "file:///home/ada/site/%00",
        "file://fileserver/home/ada/site/x",
        "file:///etc/passwd",
        "https://example.com/home/ada/site",
    ] {
        assert!(!files.allows(url), "{url}");
    }
    assert_eq!(
        check_shareable("file:///etc/passwd", &files),
        Err(Blocked::LocalFile)
    );
    assert!(!LocalFiles::NONE.allows("file:///home/ada/site/x"));
    assert!(!LocalFiles(vec!["/".into()]).allows("file:///etc/passwd"));
    // A blob of a file page is not a file.
    assert!(check_driveable("blob:file:///home/ada/site/1", None, &files).is_err());
    // Raw navigation follows the same rule.
    let nav = |url: &str| check_raw_cdp("Page.navigate", &json!({"url": url}), &files);
    assert_eq!(nav("file:///home/ada/site/a.html"), Ok(RawCdp::Send));
    assert!(nav("file:///etc/passwd").is_err());
}

#[test]
fn the_refusal_says_why() {
    let msg = Blocked::LocalFile.to_string();
    assert!(msg.contains("local file") && msg.contains("http"), "{msg}");
    let msg = Blocked::ExtensionPage.suspended(crate::TabId(3)).message;
    assert!(
        msg.contains("tab 3") && msg.contains("extension page"),
        "{msg}"
    );
}

#[test]
fn raw_cdp_reaches_the_tabs_own_page_only() {
    let ok = [
        ("Runtime.enable", json!({})),
        ("DOM.getDocument", json!({"depth": -1})),
        ("Page.navigate", json!({"url": "https://example.com/"})),
        ("Page.reload", json!({"ignoreCache": true})),
        ("Page.captureScreenshot", json!({})),
        ("Network.getCookies", json!({})),
        (
            "Debugger.setBreakpointByUrl",
            json!({"lineNumber": 3, "url": "a.js"}),
        ),
        (
            "Input.dispatchDragEvent",
            json!({"type": "drop", "x": 1, "y": 1, "data": {"items": [], "dragOperationsMask": 1}}),
        ),
        ("Input.dispatchKeyEvent", json!({"type": "keyDown"})),
    ];
    for (method, params) in ok {
        assert_eq!(
            check_raw_cdp(method, &params, N),
            Ok(RawCdp::Send),
            "{method}"
        );
    }
    assert_eq!(
        check_raw_cdp("Runtime.evaluate", &json!({"expression": "1"}), N),
        Ok(RawCdp::InContext)
    );
    assert_eq!(
        check_raw_cdp("Page.navigateToHistoryEntry", &json!({"entryId": 7}), N),
        Ok(RawCdp::HistoryEntry(7))
    );
    for source in [" ", "", "//# sourceURL=pptr:internal", "// a\n\n  // b\r\n"] {
        assert_eq!(
            check_raw_cdp(
                "Page.addScriptToEvaluateOnNewDocument",
                &json!({"source": source, "worldName": "utility"}),
                N
            ),
            Ok(RawCdp::Send),
            "{source:?}"
        );
    }
    let refused = [
        (
            "Target.createTarget",
            json!({"url": "https://example.com/"}),
        ),
        ("Target.getTargets", json!({})),
        ("Browser.getVersion", json!({})),
        ("Storage.getCookies", json!({})),
        ("SystemInfo.getInfo", json!({})),
        ("IndexedDB.requestData", json!({})),
        ("Extensions.getStorageItems", json!({})),
        ("Page.navigate", json!({"url": "file:///etc/passwd"})),
        (
            "Page.navigate",
            json!({"url": "chrome-extension://njcapokbkdmpnkpmgflbgjlehbglmgck/popup.html"}),
        ),
        ("Page.navigate", json!({"url": "data:text/html,hi"})),
        ("Page.navigate", json!({})),
        ("Page.reload", json!({"scriptToEvaluateOnLoad": "evil()"})),
        (
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": "1"}),
        ),
        (
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": " evil()", "worldName": "utility"}),
        ),
        ("Page.addScriptToEvaluateOnNewDocument", json!({})),
        (
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": "// x\nevil()"}),
        ),
        (
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": "// x\u{2028}evil()"}),
        ),
        (
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": "<!-- evil()"}),
        ),
        (
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": "/* */ evil()"}),
        ),
        (
            "Page.setDownloadBehavior",
            json!({"behavior": "allow", "downloadPath": "/"}),
        ),
        (
            "Debugger.setBreakpointByUrl",
            json!({"lineNumber": 0, "urlRegex": ".*", "condition": "evil()"}),
        ),
        ("DOM.setFileInputFiles", json!({"files": ["/etc/passwd"]})),
        (
            "Input.dispatchDragEvent",
            json!({"type": "drop", "data": {"files": ["/etc/passwd"]}}),
        ),
        ("Input.setIgnoreInputEvents", json!({"ignore": true})),
        (
            "Input.emulateTouchFromMouseEvent",
            json!({"type": "mousePressed", "x": 1, "y": 1, "button": "left"}),
        ),
        ("Network.getAllCookies", json!({})),
        (
            "Network.getCookies",
            json!({"urls": ["https://bank.example/"]}),
        ),
        (
            "Network.setCookie",
            json!({"name": "a", "value": "b", "domain": "bank.example"}),
        ),
        (
            "Network.loadNetworkResource",
            json!({"url": "file:///etc/passwd"}),
        ),
        (
            "Runtime.compileScript",
            json!({"expression": "1", "persistScript": true}),
        ),
        ("Page.disable", json!({})),
        ("Runtime.disable", json!({})),
        ("Page.setLifecycleEventsEnabled", json!({"enabled": false})),
        ("nodot", json!({})),
    ];
    for (method, params) in refused {
        let err = check_raw_cdp(method, &params, N).expect_err(method);
        assert_eq!(err.kind, ErrorKind::BlockedTarget, "{method}");
        assert!(
            !err.message.contains("passwd"),
            "never echoes values: {}",
            err.message
        );
    }
}

#[test]
fn auto_attach_is_allowed_for_frames_and_workers_only() {
    let ok = json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true,
                    "filter": [{"type": "iframe"}, {"type": "worker"}]});
    assert_eq!(
        check_raw_cdp("Target.setAutoAttach", &ok, N),
        Ok(RawCdp::Send)
    );
    assert_eq!(
        check_child_cdp("Target.setAutoAttach", &ok, N),
        Ok(RawCdp::Send)
    );
    let off = json!({"autoAttach": false, "waitForDebuggerOnStart": false, "flatten": true});
    assert_eq!(
        check_raw_cdp("Target.setAutoAttach", &off, N),
        Ok(RawCdp::Send)
    );
    let refused = [
        // Playwright's and Puppeteer's own form: every kind, paused.
        json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}),
        json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true}),
        json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": false,
               "filter": [{"type": "iframe"}]}),
        json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true,
               "filter": [{"type": "service_worker"}]}),
        json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true,
               "filter": [{"type": "iframe"}, {}]}),
        json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true,
               "filter": [{"type": "shared_worker", "exclude": false}]}),
        json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true,
               "filter": []}),
        // Off with a filter: the browser refuses it.
        json!({"autoAttach": false, "waitForDebuggerOnStart": false, "flatten": true,
               "filter": [{"type": "iframe"}, {"type": "worker"}]}),
        // On without one: every kind.
        json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true,
               "extra": [{"type": "iframe"}, {"type": "worker"}]}),
        json!({"autoAttach": "yes", "waitForDebuggerOnStart": false, "flatten": true,
               "filter": [{"type": "iframe"}]}),
        json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true,
               "filter": [{"type": "iframe"}], "more": 1}),
        json!([]),
    ];
    for p in refused {
        let err = check_raw_cdp("Target.setAutoAttach", &p, N).expect_err("refused");
        assert_eq!(err.kind, ErrorKind::BlockedTarget, "{p}");
    }
    // The rest of the domain stays out of reach, in a child too.
    for method in [
        "Target.attachToTarget",
        "Target.setDiscoverTargets",
        "Target.getTargets",
    ] {
        assert!(check_raw_cdp(method, &json!({}), N).is_err(), "{method}");
        assert!(check_child_cdp(method, &json!({}), N).is_err(), "{method}");
    }
}

#[test]
fn a_child_session_takes_no_input_and_names_its_own_contexts() {
    for method in [
        "Input.dispatchMouseEvent",
        "Input.dispatchKeyEvent",
        "Input.insertText",
    ] {
        let err = check_child_cdp(method, &json!({"type": "keyDown"}), N).expect_err(method);
        assert_eq!(err.kind, ErrorKind::BlockedTarget);
    }
    assert_eq!(
        check_child_cdp("Runtime.evaluate", &json!({"expression": "1"}), N),
        Ok(RawCdp::Send)
    );
    // The tab's rules hold there too.
    assert!(check_child_cdp("Page.navigate", &json!({"url": "file:///etc/passwd"}), N).is_err());
    assert!(check_child_cdp("Network.getAllCookies", &json!({}), N).is_err());
    assert_eq!(
        check_child_cdp("Page.navigate", &json!({"url": "https://example.com/"}), N),
        Ok(RawCdp::Send)
    );
}
