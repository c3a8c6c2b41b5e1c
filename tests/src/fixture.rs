//! Fixture pages served on 127.0.0.1 by the harness, so tests and the demo
//! never touch the network. Element positions are fixed by CSS so an agent
//! can click them by coordinates.

use anyhow::{Context, Result};
use std::sync::Arc;
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
pub struct Fixture {
    /// `http://127.0.0.1:PORT`
    pub base: String,
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
        // Two threads so a slow request cannot stall the page's other loads.
        for _ in 0..2 {
            let server = server.clone();
            thread::spawn(move || {
                for request in server.incoming_requests() {
                    let path = request.url().split('?').next().unwrap_or("/").to_string();
                    let (status, body) = match path.as_str() {
                        "/" => (200, INDEX),
                        "/submitted" => (200, SUBMITTED),
                        "/second" => (200, SECOND),
                        "/other" => (200, OTHER),
                        "/demo" => (200, DEMO),
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
        })
    }

    /// Absolute url of a fixture path.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }
}
