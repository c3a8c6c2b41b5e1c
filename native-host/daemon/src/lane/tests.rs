//! The lane's rules: states, pending calls, deadlines, the grace for a
//! returning browser.

use super::*;
use cotab_shared::native::{CdpCall, CommandClass};
use serde_json::json;
use std::time::Duration;

fn online(lane: &Lane) -> (u64, mpsc::Receiver<Bytes>) {
    let (tx, rx) = mpsc::channel(8);
    (
        lane.attach(LaneId("L".into()), "1.0".into(), tx).generation,
        rx,
    )
}

#[test]
fn a_replaced_connection_is_told_and_is_no_longer_current() {
    let lane = Lane::default();
    let (tx, _rx) = mpsc::channel(8);
    let first = lane.attach(LaneId("L".into()), "1.0".into(), tx);
    assert!(lane.is_current(first.generation));
    assert!(!first.replaced.is_cancelled());
    let (tx, _rx2) = mpsc::channel(8);
    let second = lane.attach(LaneId("M".into()), "2.0".into(), tx);
    assert!(first.replaced.is_cancelled());
    assert!(!lane.is_current(first.generation));
    assert!(lane.is_current(second.generation));
    assert!(!second.replaced.is_cancelled());
    // The replaced connection's close changes nothing.
    assert!(!lane.detach(first.generation));
    assert!(lane.is_current(second.generation));
}

fn far() -> Instant {
    Instant::now() + Duration::from_secs(30)
}

fn request_id(frame: &Bytes) -> u64 {
    match serde_json::from_slice::<HostToExtension>(frame).expect("request") {
        HostToExtension::Request { id, .. } => id,
        _ => panic!("not a request"),
    }
}

#[tokio::test]
async fn absent_lane_fails_at_once() {
    let lane = Lane::default();
    let err = lane
        .call(Command::ListShared, far())
        .await
        .expect_err("absent");
    assert_eq!(err.kind, ErrorKind::LaneAbsent);
}

#[tokio::test]
async fn an_unanswered_command_goes_at_once_ahead_of_what_follows_and_its_answer_is_ignored() {
    let lane = Arc::new(Lane::default());
    assert!(!lane.send_unanswered(&Command::ListShared), "no connection");
    let (generation, mut rx) = online(&lane);
    assert!(lane.send_unanswered(&Command::ListShared));
    let l = lane.clone();
    let call = tokio::spawn(async move { l.call(Command::ListShared, far()).await });
    let first = request_id(&rx.recv().await.expect("frame"));
    let second = request_id(&rx.recv().await.expect("frame"));
    assert!(first < second);
    // Nobody waits for the first: its answer settles nothing.
    lane.complete(generation, first, Outcome::Result(json!({"tabs": [1]})));
    assert_eq!(lane.pending_len(), 1);
    lane.complete(generation, second, Outcome::Result(json!({"tabs": []})));
    assert_eq!(call.await.expect("task"), Ok(json!({"tabs": []})));
    // A full channel sends nothing, and says so.
    let (tx, _full) = mpsc::channel(1);
    lane.attach(LaneId("L".into()), "1.0".into(), tx);
    assert!(lane.send_unanswered(&Command::ListShared));
    assert!(!lane.send_unanswered(&Command::ListShared));
}

#[tokio::test]
async fn response_settles_the_call() {
    let lane = Arc::new(Lane::default());
    let (generation, mut rx) = online(&lane);
    let l = lane.clone();
    let call = tokio::spawn(async move { l.call(Command::ListShared, far()).await });
    let id = request_id(&rx.recv().await.expect("frame"));
    lane.complete(generation, id, Outcome::Result(json!({"tabs": []})));
    assert_eq!(call.await.expect("task"), Ok(json!({"tabs": []})));
    assert_eq!(lane.pending_len(), 0);
}

#[tokio::test]
async fn drop_fails_pending_with_unknown_outcome() {
    let lane = Arc::new(Lane::default());
    let (generation, mut rx) = online(&lane);
    let l = lane.clone();
    let call = tokio::spawn(async move { l.call(Command::ListShared, far()).await });
    rx.recv().await.expect("frame");
    lane.detach(generation);
    let err = call.await.expect("task").expect_err("dropped");
    assert_eq!(err.kind, ErrorKind::UnknownOutcome);
    assert_eq!(lane.status().0, LaneState::Offline);
}

#[tokio::test(start_paused = true)]
async fn deadline_gives_timeout() {
    let lane = Lane::default();
    let (_generation, _rx) = online(&lane);
    let err = lane
        .call(
            Command::ListShared,
            Instant::now() + Duration::from_millis(50),
        )
        .await
        .expect_err("timeout");
    assert_eq!(err.kind, ErrorKind::Timeout);
    assert_eq!(lane.pending_len(), 0);
}

#[tokio::test(start_paused = true)]
async fn offline_call_waits_for_the_lane_then_runtime_lost() {
    let lane = Arc::new(Lane::default());
    let (generation, _rx) = online(&lane);
    lane.detach(generation);
    let err = lane
        .call(
            Command::ListShared,
            Instant::now() + Duration::from_millis(50),
        )
        .await
        .expect_err("lost");
    assert_eq!(err.kind, ErrorKind::RuntimeLost);

    // Back before the deadline: the call goes through.
    let l = lane.clone();
    let call = tokio::spawn(async move { l.call(Command::ListShared, far()).await });
    tokio::task::yield_now().await;
    let (generation, mut rx) = online(&lane);
    let id = request_id(&rx.recv().await.expect("frame"));
    lane.complete(generation, id, Outcome::Result(json!(1)));
    assert_eq!(call.await.expect("task"), Ok(json!(1)));
}

#[tokio::test(start_paused = true)]
async fn an_offline_lane_is_waited_for_only_a_short_grace() {
    let lane = Arc::new(Lane::default());
    let (generation, _rx) = online(&lane);
    lane.detach(generation);
    let grace = Duration::from_millis(LANE_RETURN_GRACE_MS);
    // A call with a long deadline gives up at the grace.
    let start = Instant::now();
    let err = lane
        .call(Command::ListShared, start + grace * 6)
        .await
        .expect_err("lost");
    assert_eq!(err.kind, ErrorKind::RuntimeLost);
    assert_eq!(Instant::now() - start, grace);
    // Past the grace, a new call fails at once.
    let err = lane
        .call(Command::ListShared, far())
        .await
        .expect_err("lost");
    assert_eq!(err.kind, ErrorKind::RuntimeLost);
    assert_eq!(Instant::now() - start, grace, "no wait");
    // The lane back, and gone again: a fresh grace.
    let (generation, _rx) = online(&lane);
    lane.detach(generation);
    let again = Instant::now();
    let err = lane
        .call(Command::ListShared, far())
        .await
        .expect_err("lost");
    assert_eq!(err.kind, ErrorKind::RuntimeLost);
    assert_eq!(Instant::now() - again, grace);
}

#[tokio::test(start_paused = true)]
async fn an_offline_lane_refuses_actions_at_once_but_lets_reads_and_releases_wait() {
    let lane = Arc::new(Lane::default());
    let (generation, _rx) = online(&lane);
    lane.detach(generation);
    let cdp = |class| {
        let call = CdpCall::new(
            TabId(1),
            "Input.dispatchKeyEvent",
            json!({"type": "keyDown"}),
        );
        Command::plain(call, class)
    };
    let input = Command::Input {
        tab_id: TabId(1),
        events: Vec::new(),
        frame: None,
    };
    let in_frame = Command::ActInFrame {
        call: CdpCall::new(TabId(1), "Input.dispatchMouseEvent", json!({})),
        frame: cotab_shared::native::FrameGeometry {
            viewport_width: 1.0,
            viewport_height: 1.0,
            scroll_x: 0.0,
            scroll_y: 0.0,
        },
    };
    for command in [
        cdp(CommandClass::Act),
        cdp(CommandClass::Privileged),
        input,
        in_frame,
    ] {
        let start = Instant::now();
        let name = command.name().to_owned();
        let err = lane.call(command, far()).await.expect_err("offline");
        assert_eq!(err.kind, ErrorKind::RuntimeLost);
        // At once: the (paused) clock did not move to any deadline.
        assert_eq!(Instant::now(), start, "{name} waited for the lane");
    }
    // A release waits for the same browser and then goes through.
    let l = lane.clone();
    let release = tokio::spawn(async move { l.call(cdp(CommandClass::Release), far()).await });
    tokio::task::yield_now().await;
    let (generation, mut rx) = online(&lane);
    let frame = rx.recv().await.expect("frame");
    lane.complete(generation, request_id(&frame), Outcome::Result(json!({})));
    assert_eq!(release.await.expect("task"), Ok(json!({})));
    // Only the release was sent: the refused actions left no frame.
    assert!(rx.try_recv().is_err());
}

#[tokio::test]
async fn oversize_frames_are_refused_before_sending() {
    let lane = Lane::new(100);
    let (_generation, mut rx) = online(&lane);
    let cmd = Command::Act(CdpCall::new(
        TabId(1),
        "Input.insertText",
        json!({"text": "x".repeat(200)}),
    ));
    let err = lane.call(cmd, far()).await.expect_err("too big");
    assert_eq!(err.kind, ErrorKind::InvalidRequest);
    assert!(rx.try_recv().is_err(), "nothing was sent");
    assert_eq!(lane.pending_len(), 0);
}

#[tokio::test]
async fn replaced_connection_fails_its_pending_and_ignores_stale_detach() {
    let lane = Arc::new(Lane::default());
    let (first, mut rx) = online(&lane);
    let l = lane.clone();
    let call = tokio::spawn(async move { l.call(Command::ListShared, far()).await });
    rx.recv().await.expect("frame");
    let (_second, _rx2) = online(&lane);
    assert_eq!(
        call.await.expect("task").expect_err("replaced").kind,
        ErrorKind::UnknownOutcome
    );
    lane.detach(first);
    assert_eq!(lane.status().0, LaneState::Online);
}

#[tokio::test]
async fn a_caller_that_stops_waiting_forgets_its_request() {
    let lane = Arc::new(Lane::default());
    let (generation, mut rx) = online(&lane);
    let l = lane.clone();
    let call = tokio::spawn(async move { l.call(Command::ListShared, far()).await });
    let id = request_id(&rx.recv().await.expect("frame"));
    assert_eq!(lane.pending_len(), 1);
    call.abort();
    // The task's drop removes the entry; its late answer finds nobody.
    let _ = call.await;
    assert_eq!(lane.pending_len(), 0);
    lane.complete(generation, id, Outcome::Result(json!(1)));
}

/// Issue 36: a tab closed with its window while the browser quits is the
/// lane's business once the lane goes.
#[tokio::test(start_paused = true)]
async fn a_lane_that_goes_and_stays_away_is_gone_for_good() {
    let lane = Arc::new(Lane::default());
    let grace = Duration::from_millis(LANE_RETURN_GRACE_MS);
    let within = Duration::from_secs(2);
    assert!(!lane.gone_for_good(within, far()).await, "never connected");
    let (generation, _rx) = online(&lane);
    // Online all along: not gone, once the watch is over.
    let start = Instant::now();
    assert!(!lane.gone_for_good(within, far()).await);
    assert_eq!(start.elapsed(), within);
    // It goes during the watch and stays away past the grace.
    let l = lane.clone();
    let watch = tokio::spawn(async move { l.gone_for_good(within, far()).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let start = Instant::now();
    lane.detach(generation);
    assert!(watch.await.expect("task"));
    assert_eq!(start.elapsed(), grace);
    // Past the grace: at once.
    let start = Instant::now();
    assert!(lane.gone_for_good(within, far()).await);
    assert_eq!(start.elapsed(), Duration::ZERO);
}

#[tokio::test(start_paused = true)]
async fn a_lane_that_comes_back_in_its_grace_is_not_gone() {
    let lane = Arc::new(Lane::default());
    let (generation, _rx) = online(&lane);
    lane.detach(generation);
    let l = lane.clone();
    let watch = tokio::spawn(async move { l.gone_for_good(Duration::ZERO, far()).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (_generation, _rx2) = online(&lane);
    assert!(!watch.await.expect("task"));
    // A deadline before the grace ends the wait, gone.
    let (generation, _rx3) = online(&lane);
    lane.detach(generation);
    let start = Instant::now();
    let short = start + Duration::from_millis(40);
    assert!(lane.gone_for_good(Duration::ZERO, short).await);
    assert_eq!(start.elapsed(), Duration::from_millis(40));
}
