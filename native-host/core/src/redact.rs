//! Redaction of secrets in the results of developer-mode calls
//! (`page.evaluate`, `cdp.send`) before they reach an agent.
//!
//! Three rules, applied to every value of the result JSON:
//!
//! - **Keys.** A string or number under a key that names a secret
//!   (`password`, `token`, `authorization`, `cookie`, `apiKey`, `session`…,
//!   compared case- and punctuation-insensitively), and every string or
//!   number anywhere below such a key, becomes [`REDACTED`]. A
//!   `{name, value}` record (a CDP cookie, a header list entry) has its
//!   `value` redacted when it looks like a cookie or its `name` names a
//!   secret; its other fields stay visible.
//! - **Shapes.** Inside any string, `Bearer`/`Basic` credentials, JWTs and
//!   tokens with well-known prefixes (`ghp_`, `xoxb-`, `sk-`, `AKIA`…) are
//!   replaced.
//! - **Known values.** The page's own secrets, read by the daemon right
//!   after the call with [`PAGE_SECRETS_EXPRESSION`] (the values of
//!   password fields, and the longer cookie values visible to scripts), are
//!   replaced wherever they occur as a whole word; this is what catches
//!   `document.querySelector('input[type=password]').value` and
//!   `document.cookie`, which no key or shape gives away.
//!
//! It does not own the policy of when to redact (the handlers call it on
//! every developer-mode result) nor logging (nothing logs results at all).
//! It is a guard against secrets leaking by accident into an agent's
//! context and transcripts, not against an agent that means to read them:
//! developer mode runs arbitrary JavaScript, which can encode a secret
//! past any filter (`docs/security.md`).

use serde_json::Value;

/// What a redacted value becomes.
pub const REDACTED: &str = "[redacted]";

/// Most known values kept from one page scan.
const MAX_KNOWN: usize = 64;
/// Longest known value kept (longer ones are not a typed secret).
const MAX_KNOWN_LEN: usize = 4096;
/// Known values shorter than this are matched only as a whole string, so a
/// short password does not erase every occurrence of a common word.
const MIN_WORD_MATCH: usize = 4;

/// An observe-class `Runtime.evaluate` expression (with `returnByValue`)
/// that returns `{passwords: [...], cookies: [...]}`: the non-empty values
/// of the password fields of the document, of its open shadow roots (at
/// any depth) and of its same-origin frames (8 deep), and the cookie
/// values of at least 8 characters that scripts can read. It walks at most
/// [`MAX_SCANNED_ROOTS`] documents and shadow roots, without recursion.
///
/// It runs after every developer-mode call whose answer may hold text, on
/// the page's main thread, so its cost grows with the page: selectors find
/// the fields and the frames, and a tree walker, the cheapest way to visit
/// every element, looks for shadow roots (a `for … of` over
/// `querySelectorAll('*')` took twice as long on a 4,000-element page).
pub const PAGE_SECRETS_EXPRESSION: &str = r#"(() => {
  const passwords = [];
  const sel = 'input[type=password], input[autocomplete*="password"], input[autocomplete*="one-time-code"]';
  const roots = [[document, 0]];
  for (let seen = 0; roots.length && seen < 10000; seen++) {
    const [root, frames] = roots.pop();
    try {
      for (const e of root.querySelectorAll(sel)) if (e.value) passwords.push(e.value);
      if (frames < 8) for (const f of root.querySelectorAll('iframe, frame')) {
        try { const d = f.contentDocument; if (d) roots.push([d, frames + 1]); } catch (_) {}
      }
      const walk = (root.ownerDocument || root).createTreeWalker(root, 1);
      for (let el; (el = walk.nextNode()); ) if (el.shadowRoot) roots.push([el.shadowRoot, frames]);
    } catch (_) {}
  }
  let cookies = [];
  try {
    cookies = document.cookie.split(';')
      .map(c => { const i = c.indexOf('='); return i < 0 ? '' : c.slice(i + 1).trim(); })
      .filter(v => v.length >= 8);
  } catch (_) {}
  return { passwords, cookies };
})()"#;

/// Most documents and shadow roots one [`PAGE_SECRETS_EXPRESSION`] scan
/// walks (the number written in it).
pub const MAX_SCANNED_ROOTS: usize = 10_000;

/// Secret values the page holds right now, from a
/// [`PAGE_SECRETS_EXPRESSION`] scan.
#[derive(Debug, Default, Clone)]
pub struct Known(Vec<String>);

impl Known {
    /// The values of a scan's `result.value`; anything malformed gives none.
    pub fn from_scan(value: Option<&Value>) -> Self {
        let mut out: Vec<String> = Vec::new();
        for field in ["passwords", "cookies"] {
            let Some(items) = value.and_then(|v| v.get(field)).and_then(Value::as_array) else {
                continue;
            };
            for s in items.iter().filter_map(Value::as_str) {
                if !s.is_empty()
                    && s.len() <= MAX_KNOWN_LEN
                    && s != REDACTED
                    && out.len() < MAX_KNOWN
                    && !out.iter().any(|o| o == s)
                {
                    out.push(s.to_owned());
                }
            }
        }
        // Longest first, so a value containing another is replaced whole.
        out.sort_by_key(|s| std::cmp::Reverse(s.len()));
        Known(out)
    }

    /// Known values, for tests and callers that build their own.
    pub fn new(values: impl IntoIterator<Item = String>) -> Self {
        let values = values.into_iter().map(|v| serde_json::json!(v)).collect();
        Known::from_scan(Some(
            &serde_json::json!({ "passwords": Value::Array(values) }),
        ))
    }
}

/// Redacts `value` in place by the three rules of this module.
pub fn redact(value: &mut Value, known: &Known) {
    walk(value, false, known);
}

/// Redacts one string (a string value, an exception message). A string
/// that is itself a JSON object or array (a response body, a stored
/// blob) is redacted as JSON, so the key rule reaches inside it.
pub fn redact_str(s: &str, known: &Known) -> String {
    let trimmed = s.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        if let Ok(mut inner) = serde_json::from_str::<Value>(s) {
            let before = inner.clone();
            walk(&mut inner, false, known);
            if inner == before {
                return s.to_owned();
            }
            // Serialising a `Value` cannot fail.
            return serde_json::to_string(&inner).unwrap_or_else(|_| REDACTED.into());
        }
    }
    let mut out = scrub_shapes(s);
    for k in &known.0 {
        out = replace_known(&out, k);
    }
    out
}

fn walk(value: &mut Value, secret: bool, known: &Known) {
    match value {
        Value::String(s) => {
            if secret {
                *value = Value::String(REDACTED.into());
            } else {
                let scrubbed = redact_str(s, known);
                if scrubbed != *s {
                    *s = scrubbed;
                }
            }
        }
        Value::Number(n) => {
            if secret || (!known.0.is_empty() && known.0.contains(&n.to_string())) {
                *value = Value::String(REDACTED.into());
            }
        }
        Value::Bool(_) | Value::Null => {}
        Value::Array(items) => {
            for item in items {
                walk(item, secret, known);
            }
        }
        Value::Object(map) => {
            if let Some(secret_value) = record_value_is_secret(map) {
                // A recognised record: only its value is the secret, and
                // its name, domain, flags stay readable.
                for (k, v) in map.iter_mut() {
                    walk(v, k == "value" && (secret || secret_value), known);
                }
                return;
            }
            for (k, v) in map.iter_mut() {
                walk(v, secret || is_secret_key(k), known);
            }
        }
    }
}

/// For an object with a string `name` and a `value`: whether the value is
/// secret (a cookie's, or a header or field whose name names a secret).
/// `None` for any other object.
fn record_value_is_secret(map: &serde_json::Map<String, Value>) -> Option<bool> {
    let name = map.get("name")?.as_str()?;
    map.get("value")?;
    let cookie = [
        "domain", "path", "httpOnly", "secure", "sameSite", "expires",
    ]
    .iter()
    .any(|k| map.contains_key(*k));
    Some(cookie || is_secret_key(name))
}

/// A url with the values of its query parameters that name a secret
/// (`?access_token=…`, `&password=…`) and any secret by shape
/// ([`redact_str`]) replaced: urls of requests reach agents without
/// developer mode.
pub fn redact_url(url: &str) -> String {
    let known = Known::default();
    // `name=value&…`: a query, or a fragment (where an OAuth implicit
    // flow puts its `access_token`).
    let pairs = |part: &str| -> String {
        part.split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) if is_secret_key(name) => format!("{name}={REDACTED}"),
                Some((name, value)) => format!("{name}={}", redact_str(value, &known)),
                None => redact_str(pair, &known),
            })
            .collect::<Vec<_>>()
            .join("&")
    };
    let (head, fragment) = match url.split_once('#') {
        Some((h, f)) => (h, Some(f)),
        None => (url, None),
    };
    let (path, query) = match head.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (head, None),
    };
    let mut out = path
        .split('/')
        .map(|segment| redact_str(segment, &known))
        .collect::<Vec<_>>()
        .join("/");
    if let Some(q) = query {
        out.push('?');
        out.push_str(&pairs(q));
    }
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(&pairs(f));
    }
    out
}

/// Whether the answer of CDP `method` can hold no text of the page: ids,
/// numbers, an image, or nothing (input, emulation, layout, screenshots,
/// enabling domains, navigating), or only the frames' urls, origins and
/// names (`Page.getFrameTree`, whose answer a CDP client expects before
/// the events that follow it: Playwright reads a frame's document from
/// it). A developer-mode call of one goes without the scan for the
/// page's own secrets (which would cost a second trip through the page
/// per command, as a CDP client's every command would pay); its answer
/// still goes through the key and shape rules.
pub fn answer_holds_no_page_text(method: &str) -> bool {
    const NONE: &[&str] = &[
        "Page.captureScreenshot",
        "Page.getLayoutMetrics",
        "Page.navigate",
        "Page.reload",
        "Page.stopLoading",
        "Page.bringToFront",
        "Page.enable",
        "Page.setLifecycleEventsEnabled",
        "Page.setFontFamilies",
        "Page.createIsolatedWorld",
        "Page.addScriptToEvaluateOnNewDocument",
        "Page.removeScriptToEvaluateOnNewDocument",
        "Page.handleJavaScriptDialog",
        "Runtime.enable",
        "Runtime.releaseObject",
        "Runtime.releaseObjectGroup",
        "Runtime.runIfWaitingForDebugger",
        "Target.setAutoAttach",
        "Page.getFrameTree",
        "Network.enable",
        "Log.enable",
        "DOM.scrollIntoViewIfNeeded",
        "DOM.getContentQuads",
        "DOM.getBoxModel",
    ];
    method.starts_with("Input.") || method.starts_with("Emulation.") || NONE.contains(&method)
}

/// Whether a key or a header/field name names a secret.
pub fn is_secret_key(key: &str) -> bool {
    const CONTAINS: &[&str] = &[
        "password",
        "passwd",
        "passphrase",
        "secret",
        "token",
        "authorization",
        "cookie",
        "apikey",
        "accesskey",
        "privatekey",
        "credential",
        "session",
    ];
    const EXACT: &[&str] = &["pwd", "pass", "auth", "sid", "jwt", "otp", "pin"];
    let norm: String = key
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    CONTAINS.iter().any(|c| norm.contains(c)) || EXACT.contains(&norm.as_str())
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '~' | '+' | '/' | '=')
}

fn is_b64url(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A JWT: three base64url segments, the header starting `eyJ` (`{"`).
fn is_jwt(run: &str) -> bool {
    let parts: Vec<&str> = run.split('.').collect();
    parts.len() == 3
        && parts[0].starts_with("eyJ")
        && parts[0].len() >= 10
        && is_b64url(parts[0])
        && is_b64url(parts[1])
        && (parts[2].is_empty() || is_b64url(parts[2]))
}

/// A token with a well-known vendor prefix and enough characters after it.
fn is_prefixed_token(run: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "ghp_",
        "gho_",
        "ghs_",
        "ghu_",
        "ghr_",
        "github_pat_",
        "glpat-",
        "xoxb-",
        "xoxp-",
        "xoxa-",
        "xoxs-",
        "sk-",
        "sk_live_",
        "rk_live_",
        "AKIA",
        "ASIA",
        "AIza",
    ];
    PREFIXES.iter().any(|p| {
        run.strip_prefix(p).is_some_and(|rest| {
            rest.len() >= 16
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        })
    })
}

/// Replaces the secret shapes inside `s`.
fn scrub_shapes(s: &str) -> String {
    // Split into runs of token characters and the text between them.
    let mut out = String::with_capacity(s.len());
    let mut prev_word: Option<&str> = None;
    let mut rest = s;
    while !rest.is_empty() {
        let gap = rest.find(is_token_char).unwrap_or(rest.len());
        let (between, tail) = rest.split_at(gap);
        out.push_str(between);
        if tail.is_empty() {
            break;
        }
        let len = tail.find(|c| !is_token_char(c)).unwrap_or(tail.len());
        let (run, tail) = tail.split_at(len);
        // A sentence's final dot is not part of a token.
        let core = run.trim_end_matches('.');
        let after_scheme = between == " "
            && prev_word.is_some_and(|w| {
                w.eq_ignore_ascii_case("bearer") || w.eq_ignore_ascii_case("basic")
            });
        // `key=value` (a query string, a cookie header) with a secret key.
        let assigned = core
            .split_once('=')
            .filter(|(k, v)| !k.is_empty() && !v.is_empty() && is_secret_key(k));
        if (after_scheme && core.len() >= 8) || is_jwt(core) || is_prefixed_token(core) {
            out.push_str(REDACTED);
            out.push_str(&run[core.len()..]);
        } else if let Some((k, _)) = assigned {
            out.push_str(k);
            out.push('=');
            out.push_str(REDACTED);
            out.push_str(&run[core.len()..]);
        } else {
            out.push_str(run);
        }
        prev_word = Some(run);
        rest = tail;
    }
    out
}

/// Replaces `known` in `s`: the whole string always; as a word (not
/// inside a longer run of letters and digits) when long enough.
fn replace_known(s: &str, known: &str) -> String {
    if s == known {
        return REDACTED.into();
    }
    if known.chars().count() < MIN_WORD_MATCH || !s.contains(known) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while let Some(pos) = s[i..].find(known) {
        let start = i + pos;
        let end = start + known.len();
        let before_ok = !s[..start]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric());
        let after_ok = !s[end..].chars().next().is_some_and(|c| c.is_alphanumeric());
        out.push_str(&s[i..start]);
        if before_ok && after_ok {
            out.push_str(REDACTED);
        } else {
            out.push_str(known);
        }
        i = end;
    }
    out.push_str(&s[i..]);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_scan_walks_as_many_roots_as_documented() {
        let bound = format!("seen < {}", super::MAX_SCANNED_ROOTS);
        assert!(super::PAGE_SECRETS_EXPRESSION.contains(&bound));
    }

    use super::*;
    use serde_json::json;

    fn r(mut v: Value, known: &Known) -> Value {
        redact(&mut v, known);
        v
    }

    #[test]
    fn a_urls_secret_query_values_and_shapes_are_redacted() {
        assert_eq!(
            redact_url("http://a/api?q=cats&access_token=abc123&page=2#top"),
            "http://a/api?q=cats&access_token=[redacted]&page=2#top"
        );
        assert_eq!(
            redact_url("http://a/x?Session-Id=9"),
            "http://a/x?Session-Id=[redacted]"
        );
        assert_eq!(redact_url("http://a/plain"), "http://a/plain");
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlc2lnbmF0dXJl";
        let shown = redact_url(&format!("http://a/cb/{jwt}"));
        assert!(!shown.contains(jwt), "{shown}");
        assert_eq!(shown, "http://a/cb/[redacted]");
        assert_eq!(
            redact_url("http://a/cb#access_token=xyz&token_type=bearer"),
            "http://a/cb#access_token=[redacted]&token_type=[redacted]"
        );
    }

    #[test]
    fn only_answers_without_page_text_go_without_the_scan() {
        for m in [
            "Input.dispatchMouseEvent",
            "Emulation.setEmulatedMedia",
            "Page.captureScreenshot",
            "DOM.getContentQuads",
            "Page.getFrameTree",
            "Target.setAutoAttach",
        ] {
            assert!(super::answer_holds_no_page_text(m), "{m}");
        }
        for m in [
            "Runtime.evaluate",
            "Runtime.callFunctionOn",
            "DOM.getOuterHTML",
            "DOM.getDocument",
            "Network.getResponseBody",
            "Network.getCookies",
            "Page.getResourceContent",
            "Accessibility.getFullAXTree",
            "DOMSnapshot.captureSnapshot",
            "Input",
            "Inputx.dispatch",
        ] {
            assert!(!super::answer_holds_no_page_text(m), "{m}");
        }
    }

    #[test]
    fn secret_keys_are_redacted_at_any_depth_and_case() {
        let v = r(
            json!({"user": "ann", "Password": "p1", "nested": {"X-Api-Key": "k", "api_key": 7,
                   "csrfToken": "t", "headers": {"Authorization": "Basic abc", "Accept": "*/*"}},
                   "session": true, "Set-Cookie": ["a=b", "c=d"]}),
            &Known::default(),
        );
        assert_eq!(
            v,
            json!({"user": "ann", "Password": REDACTED, "nested": {"X-Api-Key": REDACTED,
                   "api_key": REDACTED, "csrfToken": REDACTED,
                   "headers": {"Authorization": REDACTED, "Accept": "*/*"}},
                   "session": true, "Set-Cookie": [REDACTED, REDACTED]})
        );
    }

    #[test]
    fn cookie_and_header_records_keep_all_but_the_value() {
        let v = r(
            json!({"cookies": [{"name": "sid", "value": "abc", "domain": "example.test",
                                "httpOnly": true, "session": false}],
                   "headers": [{"name": "Authorization", "value": "x"},
                               {"name": "Accept", "value": "text/html"}],
                   "fields": [{"name": "city", "value": "Lyon"}]}),
            &Known::default(),
        );
        assert_eq!(
            v,
            json!({"cookies": [{"name": "sid", "value": REDACTED, "domain": "example.test",
                                "httpOnly": true, "session": false}],
                   "headers": [{"name": "Authorization", "value": REDACTED},
                               {"name": "Accept", "value": "text/html"}],
                   "fields": [{"name": "city", "value": "Lyon"}]})
        );
    }

    #[test]
    fn secret_shapes_are_redacted_inside_strings() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX2hlcmU";
        let k = Known::default();
        assert_eq!(
            redact_str(&format!("auth: Bearer abcdefgh123456, then {jwt}."), &k),
            format!("auth: Bearer {REDACTED}, then {REDACTED}.")
        );
        assert_eq!(
            redact_str("token ghp_0123456789abcdefghij0123 ok", &k),
            format!("token {REDACTED} ok")
        );
        assert_eq!(redact_str("AKIAABCDEFGHIJKLMNOP", &k), REDACTED.to_string());
        assert_eq!(
            redact_str(
                "https://x.test/cb?code=1&access_token=abc.def&x=y; sid=42",
                &k
            ),
            format!("https://x.test/cb?code=1&access_token={REDACTED}&x=y; sid={REDACTED}")
        );
        assert_eq!(
            redact_str(r#"{"user":"ann","refresh_token":"r1"}"#, &k),
            format!(r#"{{"refresh_token":"{REDACTED}","user":"ann"}}"#)
        );
        assert_eq!(redact_str(r#"{"user":"ann"}"#, &k), r#"{"user":"ann"}"#);
        // Ordinary text, ids and dotted names are left alone.
        for plain in [
            "Bearer of good news",
            "example.test/a.b.c",
            "iVBORw0KGgoAAAANSUhEUgAA",
            "desk-top sk-short",
            "version 1.2.3",
        ] {
            assert_eq!(redact_str(plain, &k), plain);
        }
    }

    #[test]
    fn known_values_are_redacted_as_whole_words_and_numbers() {
        let k = Known::new([
            "hunter2!x".to_string(),
            "1234".to_string(),
            "ab".to_string(),
        ]);
        let v = r(
            json!({"v": "hunter2!x", "s": "user ann:hunter2!x logged",
                   "json": "{\"pw\":\"hunter2!x\"}", "inside": "zzhunter2!xzz",
                   "n": 1234, "short": "ab", "word": "abc lab", "other": 12345}),
            &k,
        );
        assert_eq!(
            v,
            json!({"v": REDACTED, "s": format!("user ann:{REDACTED} logged"),
                   "json": format!("{{\"pw\":\"{REDACTED}\"}}"), "inside": "zzhunter2!xzz",
                   "n": REDACTED, "short": REDACTED, "word": "abc lab", "other": 12345})
        );
    }

    #[test]
    fn a_scan_is_read_defensively() {
        assert!(Known::from_scan(None).0.is_empty());
        assert!(Known::from_scan(Some(&json!({"url": "x"}))).0.is_empty());
        let k = Known::from_scan(Some(
            &json!({"passwords": ["a", "", 3, "abc"], "cookies": ["abcdefghij", "a"]}),
        ));
        assert_eq!(k.0, vec!["abcdefghij", "abc", "a"]);
    }
}
