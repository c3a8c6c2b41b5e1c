//! What one debugger session of cotab's asks of the browser: the commands
//! sent at every attach, and the events forwarded to the daemon.

/// CDP events the extension forwards; everything else stays in the browser.
pub const FORWARDED_CDP_EVENTS: &[&str] = &[
    "Page.loadEventFired",
    "Page.frameNavigated",
    "Page.navigatedWithinDocument",
    "Page.frameRequestedNavigation",
    "Page.frameStartedNavigating",
    "Page.frameStoppedLoading",
    "Page.lifecycleEvent",
    "Page.javascriptDialogOpening",
    "Page.javascriptDialogClosed",
    "Page.fileChooserOpened",
    "Runtime.consoleAPICalled",
    "Runtime.exceptionThrown",
    "Input.dragIntercepted",
    "Inspector.targetCrashed",
    "Network.requestWillBeSent",
    "Network.responseReceived",
    "Network.loadingFailed",
    // Main-frame navigations the daemon holds while an agent works in a
    // tab shared for some sites only (it enables `Fetch` then).
    "Fetch.requestPaused",
    // The frames of a video of the tab (the daemon acknowledges them
    // while it records; the keep-alive screencast's one frame is never
    // acknowledged).
    "Page.screencastFrame",
];

/// CDP commands (method, params as JSON text) the extension sends on every
/// tab it attaches to, so the events above flow and the tab can be driven
/// from behind the person's tab.
pub const ENABLED_CDP_DOMAINS: &[(&str, &str)] = &[
    ("Page.enable", "{}"),
    ("Page.setLifecycleEventsEnabled", r#"{"enabled":true}"#),
    ("Runtime.enable", "{}"),
    // `Inspector.targetCrashed`: a crashed page's commands never settle.
    ("Inspector.enable", "{}"),
    // The requests `page.network` lists; bodies kept for developer mode's
    // `page.networkRequest`, at most 10 MB a tab, 1 MB a response.
    (
        "Network.enable",
        r#"{"maxTotalBufferSize":10000000,"maxResourceBufferSize":1000000}"#,
    ),
    // A tab behind the person's active tab is hidden: Chromium draws no
    // frames for it, so each input event waits 5 s for its acknowledgement
    // and a wheel or a capture of a changed page may never answer. Focus
    // emulation keeps the page visible to itself, so input is acknowledged
    // at once; a screencast keeps frames coming, so captures answer (it
    // sends one 8-pixel frame at most every thousandth frame, and the
    // extension never acknowledges it, so no more come). Neither brings
    // the tab to the front or takes the person's focus (checked end to
    // end); both end with the debugger session.
    ("Emulation.setFocusEmulationEnabled", r#"{"enabled":true}"#),
    // What the person sees of an agent at work: the element an action
    // aims at, drawn by the browser over the page (`Overlay`, which needs
    // `DOM`), where no page script can see it.
    ("DOM.enable", "{}"),
    ("Overlay.enable", "{}"),
    (
        "Page.startScreencast",
        r#"{"format":"jpeg","quality":1,"maxWidth":8,"maxHeight":8,"everyNthFrame":1000}"#,
    ),
];

/// The commands of [`ENABLED_CDP_DOMAINS`] a share goes on without: the
/// network log, what makes a tab behind the person's fast, and the
/// person's view of the agent at work; a page
/// that refuses them is still driven (in front). The others it needs (without their events the
/// daemon could not see a dialog, a navigation or a crash).
pub const BEST_EFFORT_CDP: [&str; 5] = [
    "Network.enable",
    "Emulation.setFocusEmulationEnabled",
    "DOM.enable",
    "Overlay.enable",
    "Page.startScreencast",
];
