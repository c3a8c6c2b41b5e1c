//! Fixture pages served on 127.0.0.1 by the harness, so tests and the demo
//! never touch the network. Element positions are fixed by CSS so an agent
//! can click them by coordinates.

use anyhow::{Context, Result};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;

/// The `cotab mcp` test page: a button whose clicks are counted in a
/// paragraph, so a snapshot shows the change.
pub const MCP: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>MCP fixture</title></head>
<body>
 <h1>Counter</h1>
 <p id="status">Not pressed yet</p>
 <button id="press" onclick="document.getElementById('status').textContent = 'Pressed ' + (++window.presses) + ' time(s)'">Press me</button>
 <input id="name" aria-label="Name" onkeydown="window.keys++">
 <script>window.presses = 0; window.keys = 0;</script>
</body></html>
"#;

/// The fixture pages whose Playwright aria snapshot is recorded in
/// `tests/fixtures/playwright/NAME.yml` (`cargo xtask record-outlines`)
/// for the golden test of `page.snapshot`: (name, path).
pub const RECORDED_OUTLINES: &[(&str, &str)] = &[
    ("signup", "/signup"),
    ("navigates", "/navigates"),
    ("coform", "/coform"),
    ("mcp", "/mcp"),
];

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
/// A page whose actions navigate, or not: a link, a script, a form, a jump
/// within the page, and a button that stays.
pub const NAVIGATES: &str = r##"<!doctype html>
<html><head><meta charset="utf-8"><title>Navigates</title></head>
<body>
 <a href="/second?via=link">Go by link</a>
 <button onclick="location.href = '/second?via=script'">Go by script</button>
 <button onclick="document.title = 'Stayed'">Stay</button>
 <a href="#part">Jump within the page</a>
 <a href="/slow">Go slowly</a>
 <form action="/submitted"><input name="q" aria-label="Query"><button>Search</button></form>
 <div style="height: 3000px"></div>
 <h2 id="part">Part</h2>
</body></html>
"##;
/// A form a person would fill with an agent: sending it asks for a
/// confirmation, then for a note, then shows a receipt link that opens in
/// a new tab.
pub const COFORM: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Report</title></head>
<body>
 <label>Name <input id="name"></label>
 <label>Email <input id="email" type="email"></label>
 <button id="send" onclick="
   if (!confirm('Send the report?')) return;
   const note = prompt('A note for the team?', '');
   document.title = 'Sent: ' + note;
   document.getElementById('receipt').hidden = false;
 ">Send</button>
 <a id="receipt" href="/second?receipt=1" target="_blank" hidden>See the receipt</a>
</body></html>
"#;
/// A page that opens tabs: a link with a target, `window.open`, and a
/// popup window (which cannot join a tab group).
pub const OPENER: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Opener</title></head>
<body>
 <a href="/second?from=link" target="_blank">Open the second page</a>
 <button onclick="window.open('/second?from=script')">Open by script</button>
 <button onclick="window.open('/second?from=popup', 'pop', 'popup,width=400,height=300')">Open a popup</button>
</body></html>
"#;
/// A checkout page that embeds its payment form from another site
/// (`localhost` beside the fixture's `127.0.0.1`), which the browser runs
/// in a process of its own, and runs a dedicated worker. The form tells
/// the page when it runs (`data-pay="ready"` on the body) and when it
/// paid (the title).
pub const CHECKOUT: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Checkout</title></head>
<body>
 <h1>Checkout</h1>
 <iframe id="pay" title="Payment" style="width:400px;height:160px"></iframe>
 <script>
  document.getElementById('pay').src = 'http://localhost:' + location.port + '/pay';
  addEventListener('message', (e) => {
    if (e.data === 'paid') document.title = 'Paid';
    if (e.data === 'ready') document.body.dataset.pay = 'ready';
  });
  new Worker(URL.createObjectURL(new Blob(['self.answer = 42;'])), { name: 'calc' });
 </script>
</body></html>
"#;
/// The payment form [`CHECKOUT`] embeds, with a PIN the person already
/// typed (a password field, which agents read redacted).
const PAY: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Pay</title></head>
<body>
 <input id="card" placeholder="Card number">
 <input id="pin" type="password" value="frame-pin-8168">
 <button id="submit" onclick="parent.postMessage('paid', '*'); this.textContent = 'Paid'">Pay</button>
 <script>parent.postMessage('ready', '*');</script>
</body></html>
"#;
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

/// A sign-up form whose fields an agent fills by refs from one snapshot.
pub const SIGNUP: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Sign up</title></head>
<body>
 <h1>Create an account</h1>
 <form id="form">
  <p><label for="email">Email</label> <input id="email" name="email" type="email"></p>
  <p><label for="password">Password</label> <input id="password" name="password" type="password"></p>
  <p><label for="country">Country</label>
   <select id="country" name="country">
    <option value="">Choose…</option><option value="fr">France</option><option value="jp">Japan</option>
   </select></p>
  <p><label><input id="terms" type="checkbox"> I accept the terms</label></p>
  <button type="submit">Sign up</button>
 </form>
 <p id="result" role="status"></p>
 <script>
  document.getElementById("form").addEventListener("submit", e => {
    e.preventDefault();
    const f = e.target;
    const ok = document.getElementById("terms").checked;
    document.getElementById("result").textContent =
      ok ? "Welcome " + f.email.value + " from " + f.country.value : "Accept the terms";
    document.title = ok ? "Signed up" : "Sign up";
  });
 </script>
</body></html>
"#;

/// A field whose focus handler hands the focus to another field.
pub const FOCUS_THIEF: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Focus thief</title></head>
<body>
 <p><label for="thief">Nickname</label>
  <input id="thief" value="keep" onfocus="document.getElementById('other').focus()"></p>
 <p><label for="other">Other</label> <input id="other"></p>
</body></html>
"#;

/// A page that embeds the sign-up form in a same-origin iframe.
pub const FRAMED: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Framed</title></head>
<body><h1>Outer page</h1>
<iframe id="inner" src="/signup" title="Embedded form" style="width:600px;height:500px;border:0"></iframe>
</body></html>
"#;

/// A hostile page that embeds frames the browser refuses to load or
/// keeps from extensions: cotab's own popup (a `chrome-extension://` page
/// not meant for the web) and a browser page. The page's own content must
/// still reach the agent.
pub const REFUSED_FRAMES: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Refused frames</title></head>
<body><h1>Page with refused frames</h1>
<button id="go" onclick="document.title = 'Went'">Go on</button>
<iframe id="popup" src="chrome-extension://njcapokbkdmpnkpmgflbgjlehbglmgck/popup.html" title="cotab popup"></iframe>
<iframe id="settings" src="chrome://settings" title="browser settings"></iframe>
<p>After the frames</p>
</body></html>
"#;

/// A hostile page under a strict Content-Security-Policy that watches for
/// anything cotab might draw in it: every DOM mutation, the nodes and
/// shadow roots it holds, focus and pointer events, what sits under the
/// point of its one control, the active element and that control's
/// computed style. `seen()` reports them all; `clicks` counts the
/// clicks the control itself got.
pub const WATCHFUL: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Watchful</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'nonce-w1'; style-src 'nonce-w1'">
<style nonce="w1">
 body { margin: 0; background: #fff; font: 16px sans-serif; }
 #target { position: absolute; left: 120px; top: 120px; width: 240px; height: 80px;
           background: #2b6cb0; color: #fff; display: flex; align-items: center; justify-content: center; }
</style></head>
<body><div id="target" role="button" tabindex="0" aria-label="Delete draft">Delete draft</div>
<script nonce="w1">
 window.__mutations = 0;
 new MutationObserver(r => { window.__mutations += r.length; })
   .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
 window.__events = [];
 for (const type of ["focus", "blur", "focusin", "focusout", "click"]) {
   addEventListener(type, e => __events.push(type + ":" + (e.target.id || e.target.nodeName || "window")), true);
 }
 const t = document.getElementById("target");
 window.clicks = 0;
 t.addEventListener("click", () => { window.clicks++; });
 const style = () => { const c = getComputedStyle(t); return [c.backgroundColor, c.outlineStyle, c.boxShadow, c.opacity].join("|"); };
 window.__style = style();
 window.seen = () => {
   const r = t.getBoundingClientRect();
   const under = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
   const shadows = [...document.querySelectorAll("*")].filter(e => e.shadowRoot).length;
   return {
     mutations: window.__mutations,
     nodes: document.getElementsByTagName("*").length,
     shadows,
     under: under ? under.id : null,
     active: document.activeElement ? document.activeElement.nodeName : null,
     styleSame: style() === window.__style,
     events: __events.filter(e => !e.startsWith("click")),
   };
 };
</script></body></html>
"#;

/// A long page with a button far below the fold.
pub const LONG: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Long page</title></head>
<body style="margin:0">
 <div style="height:4000px;background:linear-gradient(#fff,#ccd)">Scroll down</div>
 <button id="bottom" onclick="document.title = 'Bottom clicked'">Bottom button</button>
 <div style="height:400px"></div>
</body></html>
"#;

/// HTML5 drag and drop between two zones.
pub const DRAG: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Drag</title>
<style>
 .zone { width: 220px; height: 120px; border: 2px dashed #888; margin: 20px; display: inline-block; }
 #item { width: 80px; height: 40px; background: #48c; color: #fff; }
</style></head>
<body>
 <div class="zone" id="left" aria-label="Left zone" role="region"><div id="item" draggable="true" role="button" aria-label="Card">Card</div></div>
 <div class="zone" id="right" aria-label="Right zone" role="region"></div>
 <script>
  const item = document.getElementById("item");
  item.addEventListener("dragstart", e => e.dataTransfer.setData("text/plain", "card"));
  for (const zone of document.querySelectorAll(".zone")) {
    zone.addEventListener("dragover", e => e.preventDefault());
    zone.addEventListener("drop", e => {
      e.preventDefault();
      zone.appendChild(item);
      document.title = "Dropped in " + zone.id;
    });
  }
 </script>
</body></html>
"#;

/// Text that appears half a second after load.
pub const DELAYED: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Delayed</title></head>
<body><p id="status">Loading…</p>
<script>setTimeout(() => { document.getElementById("status").textContent = "Ready now"; }, 500);</script>
</body></html>
"#;

/// Buttons that open a confirm and a prompt dialog when clicked and an
/// alert when pressed, and a field that opens an alert on a key down; the
/// page records its mouse downs, ups and clicks and its key downs and ups
/// in `__mouse`.
pub const DIALOGS: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Dialogs</title></head>
<body>
 <button id="confirm" onclick="document.getElementById('out').textContent = confirm('Proceed?') ? 'confirmed' : 'cancelled'">Confirm</button>
 <button id="prompt" onclick="document.getElementById('out').textContent = 'name=' + prompt('Your name?', 'anon')">Prompt</button>
 <button id="alert" onmousedown="alert('Pressed')">Alert on press</button>
 <input id="key" aria-label="Alert on key" onkeydown="alert('Key ' + event.key)">
 <button id="chain" onclick="
   const out = document.getElementById('out');
   if (!confirm('Delete the draft?')) { out.textContent = 'kept'; return; }
   const name = prompt('Type its name to confirm', 'draft');
   out.textContent = 'deleted ' + name;
   alert('Deleted ' + name);
   document.title = 'Deleted';
 ">Delete draft</button>
 <p id="out"></p>
 <script>
  window.__mouse = [];
  for (const type of ["mousedown", "mouseup", "click", "keydown", "keyup"]) {
   addEventListener(type, () => __mouse.push(type), true);
  }
 </script>
</body></html>
"#;

/// A page that makes requests: a script, a fetch with a token in its
/// query and an `Authorization` header at load, and on its buttons a POST
/// with a password in its body, a redirected fetch and one that fails.
pub const NETWORK: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Network</title>
<script src="/app.js"></script></head>
<body>
 <button id="post" onclick="fetch('/api/data', {method: 'POST', body: JSON.stringify({name: 'Ada', password: 'hunter2'})}).then(() => document.title = 'posted')">Post</button>
 <button id="moved" onclick="fetch('/api/old').then(() => document.title = 'moved')">Moved</button>
 <button id="fail" onclick="fetch('http://127.0.0.1:9/nope').catch(() => document.title = 'failed')">Fail</button>
 <script>fetch('/api/data?q=1&token=s3cr3tvalue', {headers: {Authorization: 'Bearer abcdefgh12345678'}}).then(() => document.title = 'loaded');</script>
</body></html>
"#;

/// A drop zone that shows what was dropped on it: the text and the
/// files, with their sizes.
pub const DROP: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Drop</title>
<style> #zone { width: 300px; height: 150px; border: 2px dashed #888; } </style></head>
<body>
 <div id="zone" role="region" aria-label="Drop zone">Drop here</div>
 <p id="got"></p>
 <script>
  const zone = document.getElementById('zone');
  zone.addEventListener('dragover', e => e.preventDefault());
  zone.addEventListener('drop', async e => {
    e.preventDefault();
    // The drag's data store closes once the handler yields.
    const text = e.dataTransfer.getData('text/plain');
    const files = await Promise.all([...e.dataTransfer.files].map(async f => `${f.name} (${(await f.text()).length})`));
    document.getElementById('got').textContent = `text=${text} files=${files.join(',')}`;
    document.title = 'dropped';
  });
 </script>
</body></html>
"#;

/// A page that logs at several levels and throws an uncaught error.
pub const CONSOLE: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Console</title></head>
<body><button id="log" onclick="console.log('clicked', 7)">Log</button>
<script>
 console.log("hello from the page", 42);
 console.warn("careful now");
 console.error("something bad");
 setTimeout(() => { throw new Error("uncaught boom"); }, 0);
</script></body></html>
"#;

/// A file input that shows the chosen file's name.
pub const UPLOAD: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Upload</title></head>
<body>
 <label for="file">Attachment</label> <input id="file" type="file">
 <p id="name"></p>
 <script>
  document.getElementById("file").addEventListener("change", e => {
    const f = e.target.files[0];
    document.getElementById("name").textContent = f ? f.name + " (" + f.size + " bytes)" : "";
    document.title = f ? "Uploaded " + f.name : "Upload";
  });
 </script>
</body></html>
"#;

/// A button that opens a hidden multi-file input's chooser (as most
/// upload widgets do), and a plain file input; the page counts the
/// chooser's `cancel` events (the browser's answer when a chooser shows
/// and nobody picks) and names the files chosen.
pub const CHOOSER: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Chooser</title></head>
<body>
 <button id="attach">Attach files</button>
 <input id="files" type="file" multiple hidden>
 <label for="one">Single</label> <input id="one" type="file">
 <p id="got"></p>
 <script>
  window.cancels = 0;
  document.getElementById("attach").addEventListener("click", () => document.getElementById("files").click());
  for (const input of document.querySelectorAll("input[type=file]")) {
    input.addEventListener("cancel", () => { window.cancels++; });
    input.addEventListener("change", e => {
      const names = Array.from(e.target.files, f => f.name + " (" + f.size + ")").join(", ");
      document.getElementById("got").textContent = e.target.id + ": " + names;
      document.title = "Chose " + e.target.files.length;
    });
  }
 </script>
</body></html>
"#;

/// A button covered by an overlay, and a zero-size button.
pub const COVERED: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Covered</title>
<style>
 #under { position: absolute; left: 20px; top: 20px; width: 160px; height: 50px; }
 #overlay { position: absolute; left: 0; top: 0; width: 400px; height: 200px; background: rgba(0,0,0,.3); }
 #tiny { position: absolute; left: 20px; top: 300px; width: 0; height: 0; padding: 0; border: 0; overflow: hidden; }
</style></head>
<body>
 <button id="under" onclick="document.title = 'clicked under'">Hidden action</button>
 <div id="overlay"></div>
 <button id="tiny" onclick="document.title = 'clicked tiny'">Tiny action</button>
</body></html>
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

/// Downloads: a link to a response saved as an attachment, a link with
/// `download` to a plain text the browser would show, one that names
/// its file otherwise than its url does, and one whose name the
/// response's own overrides.
const DOWNLOADS: &str = r#"<!doctype html>
<html><head><title>Downloads</title></head>
<body>
 <h1>Downloads</h1>
 <p><a id="report" href="/report.csv">Get the report</a></p>
 <p><a id="notes" href="/notes.txt" download="notes.txt">Save the notes</a></p>
 <p><a id="memo" href="/memo.txt" download="invoice.txt">Save the memo</a></p>
 <p><a id="summary" href="/export" download="summary.txt">Save the summary</a></p>
</body></html>
"#;

/// Centre of the demo page's button, in CSS pixels.
pub const DEMO_BUTTON_CENTRE: (f64, f64) = (150.0, 118.0);
/// A page that paints itself blue when its button is pressed (a video's
/// frames before and after tell the two apart).
pub const PAINT: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Paint</title>
<style>
 body { margin: 0; height: 100vh; background: rgb(255, 255, 255); }
 body.blue { background: rgb(0, 96, 255); }
 button { position: absolute; left: 40px; top: 200px; width: 160px; height: 48px; }
</style></head>
<body>
 <button onclick="document.body.className = 'blue'">Paint</button>
</body></html>
"#;

/// Centre of the demo page's text field, in CSS pixels.
pub const DEMO_FIELD_CENTRE: (f64, f64) = (200.0, 202.0);

/// The answers of the fixture's non-HTML paths: `/app.js`, the JSON
/// `/api/data` (with a cookie), and `/api/old`, which redirects there.
fn api(path: &str) -> Option<tiny_http::Response<std::io::Cursor<Vec<u8>>>> {
    let header = |k: &str, v: &str| {
        tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()).expect("static header is valid")
    };
    let (status, kind, body) = match path {
        "/app.js" => (200, "text/javascript", "window.loaded = 1;"),
        "/api/data" => (200, "application/json", r#"{"ok":true,"session":"abc"}"#),
        "/api/old" => (302, "text/plain", ""),
        "/report.csv" => (200, "text/csv", "month,total\njan,12\n"),
        "/notes.txt" => (200, "text/plain", "the notes\n"),
        "/memo.txt" => (200, "text/plain", "the memo\n"),
        "/export" => (200, "text/csv", "month,total\njan,12\n"),
        _ => return None,
    };
    let mut response = tiny_http::Response::from_string(body)
        .with_status_code(status)
        .with_header(header("Content-Type", kind));
    if path == "/api/data" {
        response.add_header(header("Set-Cookie", "sid=zzz; Path=/"));
    }
    if path == "/api/old" {
        response.add_header(header("Location", "/api/data"));
    }
    if path == "/report.csv" {
        response.add_header(header(
            "Content-Disposition",
            "attachment; filename=\"report.csv\"",
        ));
    }
    if path == "/export" {
        response.add_header(header(
            "Content-Disposition",
            "attachment; filename=\"totals-2026.csv\"",
        ));
    }
    Some(response)
}

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
                    if let Some(response) = api(&path) {
                        // A browser that went away mid-response is not the server's problem.
                        let _ = request.respond(response);
                        continue;
                    }
                    let (status, body) = match path.as_str() {
                        "/" => (200, INDEX),
                        "/mcp" => (200, MCP),
                        "/submitted" => (200, SUBMITTED),
                        "/second" => (200, SECOND),
                        "/other" => (200, OTHER),
                        "/demo" => (200, DEMO),
                        "/input" => (200, INPUT),
                        "/signup" => (200, SIGNUP),
                        "/focus-thief" => (200, FOCUS_THIEF),
                        "/long" => (200, LONG),
                        "/framed" => (200, FRAMED),
                        "/refused-frames" => (200, REFUSED_FRAMES),
                        "/watchful" => (200, WATCHFUL),
                        "/drag" => (200, DRAG),
                        "/delayed" => (200, DELAYED),
                        "/dialogs" => (200, DIALOGS),
                        "/opener" => (200, OPENER),
                        "/checkout" => (200, CHECKOUT),
                        "/pay" => (200, PAY),
                        "/coform" => (200, COFORM),
                        "/navigates" => (200, NAVIGATES),
                        "/console" => (200, CONSOLE),
                        "/upload" => (200, UPLOAD),
                        "/chooser" => (200, CHOOSER),
                        "/network" => (200, NETWORK),
                        "/drop" => (200, DROP),
                        "/downloads" => (200, DOWNLOADS),
                        "/covered" => (200, COVERED),
                        "/paint" => (200, PAINT),
                        "/slow" => (200, SECOND),
                        "/big" => (200, crate::big_page::html()),
                        tasks => match crate::task_pages::page(tasks) {
                            Some(page) => (200, page),
                            None => (404, "<!doctype html><title>Not found</title>"),
                        },
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
