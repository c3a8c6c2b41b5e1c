//! Fixture pages served on 127.0.0.1 by the harness, so tests and the demo
//! never touch the network. Element positions are fixed by CSS so an agent
//! can click them by coordinates.

use anyhow::{Context, Result};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;

/// Main fixture page: a button that retitles the page when clicked, and a
/// one-field form that submits on Enter.
pub const INDEX: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Fixture</title>
<style>
 body { margin: 0; font: 16px sans-serif; background: #fff; }
 #btn { position: absolute; left: 40px; top: 40px; width: 200px; height: 60px; }
 form { position: absolute; left: 40px; top: 140px; margin: 0; }
 #name { width: 300px; height: 40px; box-sizing: border-box; }
</style></head>
<body>
 <button id="btn" onclick="document.title = 'Clicked'">Click me</button>
 <form action="/submitted" method="get"><input id="name" name="name" autocomplete="off"></form>
</body></html>
"#;

/// Centre of the fixture's button, in CSS pixels.
pub const BUTTON_CENTRE: (f64, f64) = (140.0, 70.0);
/// Centre of the fixture's text field, in CSS pixels.
pub const FIELD_CENTRE: (f64, f64) = (190.0, 160.0);

const SUBMITTED: &str =
    "<!doctype html><html><head><title>Submitted</title></head><body><p>Thanks.</p></body></html>";
const SECOND: &str =
    "<!doctype html><html><head><title>Second page</title></head><body><h1>Second</h1></body></html>";
const OTHER: &str =
    "<!doctype html><html><head><title>Not shared</title></head><body><p>Private.</p></body></html>";

/// An instrumented page: a pad that fills the viewport and a log of every
/// key and button event the page receives, with `balance()` giving the
/// keys and buttons still held as the page sees them.
pub const INPUT: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Input recorder</title>
<style>
 body { margin: 0; }
 #pad { position: absolute; left: 0; top: 0; width: 100vw; height: 100vh; background: #eef; }
</style></head>
<body><div id="pad"></div>
<script>
 window.__events = [];
 for (const type of ["keydown", "keyup", "mousedown", "mouseup", "touchstart", "touchend"]) {
   addEventListener(type, e => __events.push({ type, key: e.key, button: e.button }), true);
 }
 window.balance = () => {
   let keys = 0, buttons = 0;
   for (const e of __events) {
     if (e.type === "keydown") keys++;
     if (e.type === "keyup") keys--;
     if (e.type === "mousedown") buttons++;
     if (e.type === "mouseup") buttons--;
   }
   return { keys, buttons, events: __events.length };
 };
</script></body></html>
"#;

/// The demo page of `cargo xtask demo`.
pub const DEMO: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>cotab demo</title>
<style>
 body { margin: 0; font: 18px sans-serif; background: #f6f7fb; color: #222; }
 h1 { position: absolute; left: 40px; top: 0; font-size: 28px; }
 #btn { position: absolute; left: 40px; top: 90px; width: 220px; height: 56px; font-size: 18px; }
 form { position: absolute; left: 40px; top: 180px; margin: 0; }
 #name { width: 320px; height: 44px; box-sizing: border-box; font-size: 18px; }
 #log { position: absolute; left: 40px; top: 250px; }
</style></head>
<body>
 <h1>Shared with an agent through cotab</h1>
 <button id="btn" onclick="document.getElementById('log').textContent = 'The agent clicked the button.'; document.title = 'cotab demo: clicked'">Click me</button>
 <form action="/submitted" method="get"><input id="name" name="name" placeholder="Type here" autocomplete="off"></form>
 <p id="log"></p>
</body></html>
"#;

/// Centre of the demo page's button, in CSS pixels.
pub const DEMO_BUTTON_CENTRE: (f64, f64) = (150.0, 118.0);
/// Centre of the demo page's text field, in CSS pixels.
pub const DEMO_FIELD_CENTRE: (f64, f64) = (200.0, 202.0);

/// A running fixture server. It stops when the process exits; each test
/// process serves its own on a random port.
///
/// `/slow` answers only once [`Fixture::open_gate`] is called, so a test
/// can hold a navigation in flight for exactly as long as it needs.
pub struct Fixture {
    /// `http://127.0.0.1:PORT`
    pub base: String,
    gate: Arc<(Mutex<bool>, Condvar)>,
}

impl Fixture {
    /// Starts the server on a random loopback port.
    pub fn start() -> Result<Fixture> {
        let server = tiny_http::Server::http("127.0.0.1:0")
            .map_err(|e| anyhow::anyhow!("starting the fixture server: {e}"))?;
        let port = server
            .server_addr()
            .to_ip()
            .context("fixture server has no IP address")?
            .port();
        let server = Arc::new(server);
        let gate: Arc<(Mutex<bool>, Condvar)> = Arc::default();
        // Several threads so a held `/slow` request cannot stall other loads.
        for _ in 0..4 {
            let server = server.clone();
            let gate = gate.clone();
            thread::spawn(move || {
                for request in server.incoming_requests() {
                    let path = request.url().split('?').next().unwrap_or("/").to_string();
                    if path == "/slow" {
                        let (open, changed) = &*gate;
                        let mut is_open = open.lock().unwrap_or_else(|e| e.into_inner());
                        while !*is_open {
                            is_open = changed.wait(is_open).unwrap_or_else(|e| e.into_inner());
                        }
                    }
                    let (status, body) = match path.as_str() {
                        "/" => (200, INDEX),
                        "/submitted" => (200, SUBMITTED),
                        "/second" => (200, SECOND),
                        "/other" => (200, OTHER),
                        "/demo" => (200, DEMO),
                        "/input" => (200, INPUT),
                        "/slow" => (200, SECOND),
                        _ => (404, "<!doctype html><title>Not found</title>"),
                    };
                    let header = tiny_http::Header::from_bytes(
                        &b"Content-Type"[..],
                        &b"text/html; charset=utf-8"[..],
                    )
                    .expect("static header is valid");
                    let response = tiny_http::Response::from_string(body)
                        .with_status_code(status)
                        .with_header(header);
                    // A browser that went away mid-response is not the server's problem.
                    let _ = request.respond(response);
                }
            });
        }
        Ok(Fixture {
            base: format!("http://127.0.0.1:{port}"),
            gate,
        })
    }

    /// Lets every held and future `/slow` request through.
    pub fn open_gate(&self) {
        let (open, changed) = &*self.gate;
        *open.lock().unwrap_or_else(|e| e.into_inner()) = true;
        changed.notify_all();
    }

    /// Absolute url of a fixture path.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }
}
