//! Offers and switches: one use per token, for its connection, in time;
//! the switch's last native message and the lane's new writer.

use super::*;
use cotab_shared::controller::LaneTransport;
use cotab_shared::LaneId;

fn token_of(offer: Option<HostToExtension>) -> String {
    match offer {
        Some(HostToExtension::SocketOffer { port, token }) => {
            assert_eq!(port, 4321);
            assert_eq!(token.len(), 64);
            assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
            token
        }
        other => panic!("not an offer: {other:?}"),
    }
}

#[tokio::test]
async fn a_token_opens_one_socket_for_its_connection_and_a_wrong_one_changes_nothing() {
    let offers = SocketOffers::new(4321);
    let token = token_of(offers.offer(7));
    assert_eq!(offers.redeem(&"0".repeat(64)), None);
    assert_eq!(offers.redeem(""), None);
    assert_eq!(offers.redeem(&token[..63]), None);
    assert_eq!(offers.redeem(&token), Some(7));
    assert_eq!(offers.redeem(&token), None, "used once");

    // A newer hello's offer replaces the older one.
    let old = token_of(offers.offer(8));
    let new = token_of(offers.offer(9));
    assert_ne!(old, new);
    assert_eq!(offers.redeem(&old), None);
    assert_eq!(offers.redeem(&new), Some(9));
}

#[tokio::test(start_paused = true)]
async fn a_token_expires() {
    let offers = SocketOffers::new(4321);
    let token = token_of(offers.offer(1));
    tokio::time::advance(Duration::from_millis(SOCKET_OFFER_TTL_MS + 1)).await;
    assert_eq!(offers.redeem(&token), None);
    // And it is gone, not only refused once.
    assert!(offers.lock().offer.is_none());
}

#[tokio::test]
async fn the_switch_queues_its_last_native_message_then_sends_on_the_socket() {
    let lane = Lane::default();
    let (native_tx, mut native_rx) = mpsc::channel(8);
    let attached = lane.attach(LaneId("l".into()), "0.1.0".into(), native_tx);
    let g = attached.generation;
    let offers = SocketOffers::new(4321);
    let _ = offers.offer(g);
    // No socket waits: the switch is refused and nothing changes.
    assert!(!offers.switch(&lane, g));
    assert_eq!(lane.transport(), Some(LaneTransport::NativeMessaging));

    let (socket_tx, mut socket_rx) = mpsc::channel(8);
    let mut adopted = offers.wait(g, socket_tx.clone());
    // A socket of another connection is not this one's.
    assert!(!offers.switch(&lane, g + 1));
    assert!(adopted.try_recv().is_err());
    let mut adopted = offers.wait(g, socket_tx);
    assert!(offers.switch(&lane, g));
    let ended = adopted.try_recv().expect("the socket was handed the lane");
    assert_eq!(lane.transport(), Some(LaneTransport::WebSocket));
    let last: HostToExtension =
        serde_json::from_slice(&native_rx.try_recv().expect("a last native message"))
            .expect("ours");
    assert_eq!(last, HostToExtension::SocketSwitched { accepted: true });
    lane.send_oneway(&HostToExtension::Controllers {
        tabs: Vec::new(),
        recorded: Vec::new(),
    });
    assert!(
        native_rx.try_recv().is_err(),
        "nothing more on the native link"
    );
    assert!(
        socket_rx.try_recv().is_ok(),
        "the socket takes what follows"
    );

    // The lane's end closes both transports.
    assert!(!ended.is_cancelled());
    assert!(lane.detach(g));
    assert!(ended.is_cancelled());
    assert_eq!(lane.transport(), None);
}

#[tokio::test]
async fn a_stale_connection_cannot_switch() {
    let lane = Lane::default();
    let (tx1, _rx1) = mpsc::channel(8);
    let first = lane.attach(LaneId("l".into()), "0.1.0".into(), tx1);
    let (tx2, _rx2) = mpsc::channel(8);
    let _second = lane.attach(LaneId("l".into()), "0.1.0".into(), tx2);
    let offers = SocketOffers::new(4321);
    let (socket_tx, _socket_rx) = mpsc::channel(8);
    let _adopted = offers.wait(first.generation, socket_tx);
    assert!(!offers.switch(&lane, first.generation));
    assert_eq!(lane.transport(), Some(LaneTransport::NativeMessaging));
}
