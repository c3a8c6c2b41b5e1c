//! The video tools through the server (`--caps devtools`): the calls they
//! make, and the finished file copied into the workspace under the name
//! the start asked for, never outside it.

use super::*;
use cotab_shared::controller::{Video, VideoChapterResult, VideoStartResult, VideoStopResult};

/// A daemon whose video of tab 1 is the file `video` holds.
fn recording(video: PathBuf) -> Arc<Responder> {
    let base = one_tab();
    Arc::new(move |call| match call {
        Call::VideoStart(_) => ok(VideoStartResult {
            tab_id: TabId(1),
            path: video.display().to_string(),
        }),
        Call::VideoChapter(_) => ok(VideoChapterResult { videos: 1 }),
        Call::VideoStop(_) => ok(VideoStopResult {
            videos: vec![Video {
                tab_id: TabId(1),
                path: Some(video.display().to_string()),
                duration_ms: 1500,
                frames: 9,
                bytes: 11,
                ended: None,
            }],
        }),
        other => base(other),
    })
}

#[tokio::test]
async fn the_video_tools_come_with_devtools_and_save_the_file_in_the_workspace() {
    let dir = tempfile::tempdir().expect("dir");
    let video = dir.path().join("tab-1.webm");
    std::fs::write(&video, b"\x1a\x45\xdf\xa3webm").expect("written");
    let daemon = FakeDaemon::start(recording(video.clone()));
    let mut plain = Mcp::start(&daemon).await;
    assert!(!plain
        .tool_names()
        .await
        .iter()
        .any(|n| n == "browser_start_video"));
    plain.close().await;

    let daemon = FakeDaemon::start(recording(video));
    let caps = Caps::of(&[crate::Cap::Devtools]);
    let mut mcp = Mcp::start_serving(&daemon, SessionMode::Fresh, caps).await;
    // A name that leads out of the workspace is refused at the end, and
    // nothing is written.
    let (text, is_error, _) = mcp
        .call(
            "browser_start_video",
            json!({"filename": "../out.webm", "size": {"width": 640, "height": 480}, "fps": 10, "cursor": true}),
        )
        .await;
    assert!(!is_error && text.contains("tab 1 started"), "{text}");
    let start = daemon
        .calls()
        .into_iter()
        .find(|(m, _)| m == "video.start")
        .expect("sent");
    assert_eq!(
        start.1,
        json!({"size": {"width": 640, "height": 480}, "fps": 10})
    );
    let (text, is_error, _) = mcp
        .call(
            "browser_video_chapter",
            json!({"title": "login", "duration": 500}),
        )
        .await;
    assert!(
        !is_error && text.contains("Chapter 'login' added."),
        "{text}"
    );
    let (text, is_error, _) = mcp.call("browser_stop_video", json!({})).await;
    assert!(is_error && text.contains("PATH_NOT_ALLOWED"), "{text}");
    assert!(!mcp
        .workspace
        .path()
        .parent()
        .expect("a parent")
        .join("out.webm")
        .exists());

    daemon.clear();
    mcp.call("browser_start_video", json!({"filename": "clips/run.webm"}))
        .await;
    let (text, is_error, _) = mcp.call("browser_stop_video", json!({})).await;
    assert!(!is_error, "{text}");
    assert!(
        text.contains("- [Video of tab 1](clips/run.webm) (1.5 s, 9 frames)"),
        "{text}"
    );
    let root = mcp.workspace.path().to_path_buf();
    assert_eq!(
        std::fs::read(root.join("clips/run.webm")).expect("saved"),
        b"\x1a\x45\xdf\xa3webm"
    );
    mcp.close().await;
}
