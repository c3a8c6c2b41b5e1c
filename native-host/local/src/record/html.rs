//! One session of the record as a self-contained HTML page: no script,
//! nothing fetched (its Content-Security-Policy forbids both), every
//! string escaped.

use super::{utc, Session};
use std::fmt::Write as _;

/// `s` with HTML's special characters escaped, for text and attributes.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:14px system-ui,sans-serif;margin:2em;color:#1b1b1b}\
h1{font-size:1.3em}table{border-collapse:collapse;width:100%}\
th,td{text-align:left;padding:.3em .6em;border-bottom:1px solid #ddd;vertical-align:top}\
th{background:#f3f3f3}tr.person td{background:#fff6e0}td.bad{color:#a40000;font-weight:600}\
td.n{text-align:right;font-variant-numeric:tabular-nums}\
td.f img{width:240px;border:1px solid #ccc;display:block}";

/// The page of `session`.
pub fn export(session: &Session) -> String {
    let h = &session.header;
    let s = session.summary(0);
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; img-src data:\">\
         <meta name=\"referrer\" content=\"no-referrer\">\
         <title>cotab activity · {agent} · {start}</title><style>{STYLE}</style></head><body>\
         <h1>What {agent} did</h1>\
         <p>Session <code>{id}</code> · began {start} UTC · last {last} UTC · \
         {requests} requests, {failed} not ok · {person} by the person · tabs {tabs}</p>",
        agent = esc(&h.agent),
        start = utc(h.started_ms),
        last = utc(s.last_ms),
        id = esc(&h.id),
        requests = s.requests,
        failed = s.failed,
        person = s.by_person,
        tabs = s
            .tabs
            .iter()
            .map(|t| t.0.to_string())
            .collect::<Vec<_>>()
            .join(", "),
    );
    if session.skipped > 0 {
        let _ = write!(
            out,
            "<p>{} line(s) could not be read (a write cut short) and are left out.</p>",
            session.skipped
        );
    }
    out.push_str(
        "<table><thead><tr><th>Time (UTC)</th><th>Who</th><th>Tab</th><th>What</th>\
         <th>Outcome</th><th>ms</th><th>The tab after</th></tr></thead><tbody>\n",
    );
    for e in &session.entries {
        let person = e.by_person();
        let outcome = e.outcome.as_deref().unwrap_or("");
        let _ = writeln!(
            out,
            "<tr{class}><td>{at}</td><td>{who}</td><td class=\"n\">{tab}</td><td>{what}</td>\
             <td{bad}>{outcome}</td><td class=\"n\">{ms}</td><td class=\"f\">{frame}</td></tr>",
            class = if person { " class=\"person\"" } else { "" },
            at = utc(e.at_ms),
            who = if person {
                "the person".to_owned()
            } else {
                esc(&e.agent)
            },
            tab = e.tab.map(|t| t.0.to_string()).unwrap_or_default(),
            what = match &e.typed {
                Some(t) => format!("{} <q>{}</q>", esc(&e.what), esc(t)),
                None => esc(&e.what),
            },
            bad = if !person && outcome != "ok" {
                " class=\"bad\""
            } else {
                ""
            },
            outcome = esc(outcome),
            ms = e.ms.map(|m| m.to_string()).unwrap_or_default(),
            // Checked base64 only ([`super::Record::read`]).
            frame = match session.frames.get(&e.seq).filter(|_| !person) {
                Some(b64) =>
                    format!("<img alt=\"the tab after it\" src=\"data:image/jpeg;base64,{b64}\">"),
                None => String::new(),
            },
        );
    }
    out.push_str("</tbody></table></body></html>\n");
    out
}
