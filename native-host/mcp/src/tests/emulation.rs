//! `browser_resize` and `browser_emulate_media` through the server: the
//! calls they make, and the values refused before anything is sent.

use super::*;
use cotab_shared::controller::{ColorScheme, MediaEmulation, ResizeResult};

fn emulating() -> Arc<Responder> {
    let base = one_tab();
    Arc::new(move |call| match call {
        Call::Resize(p) => ok(ResizeResult {
            width: f64::from(p.width.unwrap_or(800)),
            height: f64::from(p.height.unwrap_or(600)),
        }),
        Call::EmulateMedia(_) => ok(MediaEmulation {
            color_scheme: Some(ColorScheme::Dark),
            ..MediaEmulation::default()
        }),
        other => base(other),
    })
}

#[tokio::test]
async fn resize_and_media_map_to_their_methods_within_bounds() {
    let daemon = FakeDaemon::start(emulating());
    let mut mcp = Mcp::start(&daemon).await;
    let (text, is_error, _) = mcp
        .call("browser_resize", json!({"width": 1024, "height": 700.4}))
        .await;
    assert!(!is_error && text.contains("1024x700"), "{text}");
    assert_eq!(
        daemon.calls().last().expect("a call"),
        &(
            "page.resize".to_string(),
            json!({"width": 1024, "height": 700})
        )
    );
    daemon.clear();
    for args in [
        json!({"width": 4000, "height": 700}),
        json!({"width": 800, "height": 0}),
        json!({"width": 800, "height": -5}),
    ] {
        let (text, is_error, _) = mcp.call("browser_resize", args.clone()).await;
        assert!(is_error && text.contains("1920x1200"), "{args}: {text}");
    }
    assert!(daemon.calls().is_empty(), "{:?}", daemon.calls());

    let (text, is_error, _) = mcp
        .call(
            "browser_emulate_media",
            json!({"colorScheme": "dark", "media": null}),
        )
        .await;
    assert!(!is_error && text.contains("- colorScheme: dark"), "{text}");
    let sent = daemon.calls();
    let media = sent
        .iter()
        .find(|(m, _)| m == "page.emulateMedia")
        .expect("sent");
    assert_eq!(media.1, json!({"colorScheme": "dark", "media": null}));
    daemon.clear();
    let (text, is_error, _) = mcp.call("browser_emulate_media", json!({})).await;
    assert!(is_error && text.contains("at least one"), "{text}");
    let (text, is_error, _) = mcp
        .call("browser_emulate_media", json!({"colorScheme": "sepia"}))
        .await;
    assert!(
        is_error && text.contains("unknown variant `sepia`"),
        "{text}"
    );
    assert!(daemon.calls().is_empty(), "{:?}", daemon.calls());
    mcp.close().await;
}
