//! The load run's fake extension: one peer on `host.sock` that speaks the
//! real native-messaging framing ([`NativeCodec`]) and the real messages
//! ([`cotab_shared::native`]).
//!
//! It says hello, checks the welcome, then answers `listShared` with one
//! shared tab and every CDP operation with a small canned result. While it
//! is *holding*, answers wait (nothing is dropped); releasing the hold sends
//! every waiting answer. It owns no assertion about the daemon beyond the
//! handshake: the load driver checks what agents see.

use anyhow::{bail, Context, Result};
use base64::Engine as _;
use cotab_host::codec::NativeCodec;
use cotab_shared::cdp::{
    CaptureScreenshot, CdpCommand as _, CssViewport, Evaluate, Evaluated, GetLayoutMetrics,
    LayoutMetrics, RemoteObject, Screenshot,
};
use cotab_shared::geometry::FrameGeometry;
use cotab_shared::input::InputPlan;
use cotab_shared::limits::{MAX_EXTENSION_TO_HOST, MAX_HOST_TO_EXTENSION};
use cotab_shared::native::{
    check_viewport, Command, ExtensionToHost, HostToExtension, Outcome, Scanned, SharedTabs,
    TabInfo,
};
use cotab_shared::{ErrorKind, LaneId, WireError, NATIVE_PROTOCOL_VERSION};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::UnixStream;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio_util::codec::Framed;

/// A fake extension connected to the daemon; disconnects on drop.
pub(crate) struct FakeExt {
    hold: watch::Sender<bool>,
    received: Arc<AtomicUsize>,
    reader: JoinHandle<()>,
    writer: JoinHandle<()>,
}

impl FakeExt {
    /// Connects to `host_sock`, says hello, checks the welcome, then serves
    /// `tab` as the one shared tab.
    pub(crate) async fn connect(host_sock: &Path, tab: TabInfo) -> Result<FakeExt> {
        let stream = UnixStream::connect(host_sock)
            .await
            .with_context(|| format!("connecting to {}", host_sock.display()))?;
        let mut framed = Framed::new(
            stream,
            NativeCodec::new(MAX_HOST_TO_EXTENSION, MAX_EXTENSION_TO_HOST),
        );
        let hello = ExtensionToHost::Hello {
            protocol_version: NATIVE_PROTOCOL_VERSION,
            lane_id: LaneId("lane-load".into()),
            extension_id: cotab_shared::EXTENSION_ID.into(),
            version: "0.0.1".into(),
        };
        framed.send(serde_json::to_vec(&hello)?).await?;
        let welcome = tokio::time::timeout(Duration::from_secs(10), framed.next())
            .await
            .context("no welcome within 10 s")?
            .context("the daemon closed host.sock before its welcome")??;
        match serde_json::from_slice(&welcome)? {
            HostToExtension::Welcome { protocol_version }
                if protocol_version == NATIVE_PROTOCOL_VERSION => {}
            other => bail!("expected a welcome, got {other:?}"),
        }

        let (hold, hold_rx) = watch::channel(false);
        let received = Arc::new(AtomicUsize::new(0));
        let (out, mut out_rx) = mpsc::unbounded_channel::<ExtensionToHost>();
        let (mut sink, mut frames) = framed.split();
        // The answers already queued are written together and flushed
        // once, so the fake costs less CPU than the daemon it measures.
        let writer = tokio::spawn(async move {
            while let Some(mut msg) = out_rx.recv().await {
                loop {
                    let Ok(bytes) = serde_json::to_vec(&msg) else {
                        return;
                    };
                    if sink.feed(bytes).await.is_err() {
                        return;
                    }
                    match out_rx.try_recv() {
                        Ok(next) => msg = next,
                        Err(_) => break,
                    }
                }
                if sink.flush().await.is_err() {
                    return;
                }
            }
        });
        let counter = received.clone();
        let reader = tokio::spawn(async move {
            while let Some(Ok(frame)) = frames.next().await {
                let Ok(HostToExtension::Request { id, command }) = serde_json::from_slice(&frame)
                else {
                    // `controllers` updates (and anything else) need no answer.
                    continue;
                };
                counter.fetch_add(1, Ordering::Relaxed);
                let response = ExtensionToHost::Response {
                    id,
                    outcome: answer(&command, &tab),
                };
                if !*hold_rx.borrow() {
                    // The writer ends only when the fake is dropped.
                    let _ = out.send(response);
                    continue;
                }
                let mut hold = hold_rx.clone();
                let out = out.clone();
                tokio::spawn(async move {
                    // The sender lives as long as the fake; if it is gone the
                    // fake is being dropped and the answer does not matter.
                    if hold.wait_for(|held| !*held).await.is_ok() {
                        // The writer ends only when the fake is dropped.
                        let _ = out.send(response);
                    }
                });
            }
        });
        Ok(FakeExt {
            hold,
            received,
            reader,
            writer,
        })
    }

    /// Holds every answer from now on (`true`), or sends the held ones and
    /// answers at once again (`false`).
    pub(crate) fn hold(&self, held: bool) {
        self.hold.send_replace(held);
    }

    /// How many requests it has received so far.
    pub(crate) fn received(&self) -> usize {
        self.received.load(Ordering::Relaxed)
    }
}

impl Drop for FakeExt {
    fn drop(&mut self) {
        self.reader.abort();
        self.writer.abort();
    }
}

/// The canned answer to `command`.
fn answer(command: &Command, tab: &TabInfo) -> Outcome {
    // Input aimed at a frame: the viewport check the extension makes.
    let viewport = |frame: &FrameGeometry| {
        check_viewport(
            frame,
            LayoutMetrics::viewport_in(cdp("Page.getLayoutMetrics", &Value::Null)),
        )
    };
    if let Command::ActInFrame { frame, .. } = command {
        if let Err(e) = viewport(frame) {
            return Outcome::Error(e);
        }
    }
    match command {
        Command::ListShared => Outcome::Result(json!(SharedTabs {
            tabs: vec![tab.clone()]
        })),
        Command::Observe(call)
        | Command::Act(call)
        | Command::ActInFrame { call, .. }
        | Command::Release(call)
        | Command::Developer {
            call, scan: None, ..
        } => Outcome::Result(cdp(&call.method, &call.params)),
        Command::Developer {
            call,
            scan: Some(scan),
            ..
        } => Outcome::Result(json!(Scanned {
            result: cdp(&call.method, &call.params),
            scan: Outcome::Result(cdp(
                "Runtime.evaluate",
                &json!({"expression": scan, "returnByValue": true})
            )),
        })),
        Command::Input { events, frame, .. } => {
            // Run as the extension runs it; every event succeeds.
            let mut plan = match InputPlan::new(events) {
                Ok(plan) => plan,
                Err(e) => return Outcome::Error(e),
            };
            if let Some(Err(e)) = frame.as_ref().map(viewport) {
                return Outcome::Error(e);
            }
            let mut answers = Vec::new();
            while plan.begin_group(|| None) {
                while let Some(event) = plan.next_event() {
                    plan.handed(event, Ok(()));
                    answers.push(Ok(cdp(&event.method, &event.params)));
                }
            }
            match plan.finish(answers) {
                Ok(last) => Outcome::Result(last.unwrap_or_else(|| json!({}))),
                Err(e) => Outcome::Error(e),
            }
        }
        other => Outcome::Error(WireError::new(
            ErrorKind::CommandFailed,
            format!("the load fake does not do {other:?}"),
        )),
    }
}

/// A small CDP result: enough for `page.capture` (a PNG header, the device
/// pixel ratio, the layout metrics), `{}` for anything else.
fn cdp(method: &str, params: &Value) -> Value {
    fn answer<T: serde::Serialize>(r: &T) -> Value {
        serde_json::to_value(r).unwrap_or_default()
    }
    let result = |kind: &str, value: Option<Value>| Evaluated {
        result: RemoteObject {
            kind: kind.into(),
            value,
            ..RemoteObject::default()
        },
        exception_details: None,
    };
    match method {
        CaptureScreenshot::METHOD => {
            let data = base64::engine::general_purpose::STANDARD.encode(png_100x50());
            answer(&Screenshot { data: Some(data) })
        }
        GetLayoutMetrics::METHOD => answer(&LayoutMetrics {
            css_layout_viewport: None,
            css_visual_viewport: Some(CssViewport {
                client_width: 100.0,
                client_height: 50.0,
                page_x: 0.0,
                page_y: 0.0,
            }),
        }),
        Evaluate::METHOD if params["expression"] == "window.devicePixelRatio" => {
            answer(&result("number", Some(json!(1))))
        }
        Evaluate::METHOD => answer(&result("undefined", None)),
        _ => json!({}),
    }
}

/// The header of a 100×50 PNG: all the daemon reads of a capture.
fn png_100x50() -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    b.extend_from_slice(&100u32.to_be_bytes());
    b.extend_from_slice(&50u32.to_be_bytes());
    b.extend_from_slice(&[8, 2, 0, 0, 0]);
    b
}
