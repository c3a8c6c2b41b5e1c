//! `cotab activity [list|show ID|export ID -o FILE|clear ID|clear --all]`:
//! the activity record the daemon keeps in its state directory (the log
//! directory), read and cleared here without the daemon.

use crate::ctx::Failure;
use cotab_host::cli::ActivityCmd;
use cotab_host::logs::log_dir;
use cotab_host::record::{export, utc, Record, Session, Summary};
use cotab_shared::watch::duration_text;
use serde_json::json;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

pub(crate) fn run(cmd: Option<ActivityCmd>, json: bool) -> Result<(), Failure> {
    let dir = log_dir().ok_or_else(|| {
        Failure::Other(anyhow::anyhow!(
            "no state directory: set COTAB_LOG_DIR, XDG_STATE_HOME or HOME"
        ))
    })?;
    let record = Record::in_state_dir(&dir);
    match cmd.unwrap_or(ActivityCmd::List) {
        ActivityCmd::List => list(&record, json),
        ActivityCmd::Show { id } => show(&record.read_with(&id, false)?, json),
        ActivityCmd::Export { id, output } => {
            let page = export(&record.read(&id)?);
            write_page(&output, &page)?;
            if json {
                println!("{}", json!({ "id": id, "path": output }));
            } else if output != Path::new("-") {
                println!("{}", output.display());
            }
            Ok(())
        }
        ActivityCmd::Clear { id, all } => {
            let n = match (id, all) {
                (Some(id), false) => record.clear(&id).map(|()| 1)?,
                _ => record.clear_all()?,
            };
            if json {
                println!("{}", json!({ "cleared": n }));
            } else {
                println!("cleared {n} session{}", if n == 1 { "" } else { "s" });
            }
            Ok(())
        }
    }
}

/// `s` without control characters (an agent names itself, and a page its
/// elements: neither may drive the person's terminal).
fn printable(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect()
}

fn list(record: &Record, json: bool) -> Result<(), Failure> {
    let sessions: Vec<Summary> = record.list()?;
    if json {
        println!("{}", json!({ "sessions": sessions }));
        return Ok(());
    }
    if sessions.is_empty() {
        println!("(no agent session recorded in {})", record.dir().display());
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{:<24} {:<16} {:<19}  {:>10}  {:>8}  {:>6}  TABS",
        "ID", "AGENT", "STARTED (UTC)", "LENGTH", "REQUESTS", "FAILED"
    );
    for s in &sessions {
        let tabs: Vec<String> = s.tabs.iter().map(|t| t.0.to_string()).collect();
        let line = writeln!(
            out,
            "{:<24} {:<16} {:<19}  {:>10}  {:>8}  {:>6}  {}",
            s.id,
            printable(&s.agent).chars().take(16).collect::<String>(),
            utc(s.started_ms),
            duration_text(s.last_ms.saturating_sub(s.started_ms)),
            s.requests,
            s.failed,
            tabs.join(",")
        );
        // A closed pipe (`cotab activity | head`) ends it quietly.
        if line.is_err() {
            break;
        }
    }
    Ok(())
}

fn show(session: &Session, json: bool) -> Result<(), Failure> {
    if json {
        let v = json!({
            "session": session.header,
            "entries": session.entries,
            "frames": session.frame_count,
            "skipped": session.skipped,
        });
        println!("{v}");
        return Ok(());
    }
    let h = &session.header;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{} · {} · began {} UTC",
        h.id,
        printable(&h.agent),
        utc(h.started_ms)
    );
    for e in &session.entries {
        let who = if e.by_person() {
            "(you)".to_owned()
        } else {
            printable(&e.agent)
        };
        let tab = e.tab.map(|t| format!("tab {}", t.0)).unwrap_or_default();
        let outcome = e.outcome.as_deref().unwrap_or("?");
        let ms = e.ms.map(|m| format!(" {m} ms")).unwrap_or_default();
        let at = utc(e.at_ms);
        let time = at.get(11..).unwrap_or(&at);
        let typed = e
            .typed
            .as_ref()
            .map(|t| format!(" {t:?}"))
            .unwrap_or_default();
        if writeln!(
            out,
            "{time}  {who:<12} {tab:<8} {}{typed}  → {}{ms}",
            printable(&e.what),
            printable(outcome)
        )
        .is_err()
        {
            return Ok(());
        }
    }
    if session.skipped > 0 {
        let _ = writeln!(
            out,
            "({} line(s) could not be read: a write cut short)",
            session.skipped
        );
    }
    Ok(())
}

/// Writes `page` to `path` (`-`: stdout), readable by this user only.
fn write_page(path: &Path, page: &str) -> Result<(), Failure> {
    if path == Path::new("-") {
        let _ = std::io::stdout().write_all(page.as_bytes());
        return Ok(());
    }
    let failed =
        |e: std::io::Error| Failure::Other(anyhow::anyhow!("writing {}: {e}", path.display()));
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .map_err(failed)?;
    f.write_all(page.as_bytes()).map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_page_or_an_agent_named_cannot_drive_the_terminal() {
        assert_eq!(printable("ada\u{1b}[2J\u{7}"), "ada\u{fffd}[2J\u{fffd}");
        assert_eq!(
            printable("click · button \"Send\""),
            "click · button \"Send\""
        );
        assert_eq!(printable("a\u{9b}b\nc"), "a\u{fffd}b\u{fffd}c");
    }
}
