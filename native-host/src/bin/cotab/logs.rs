//! `cotab logs [-f] [-n N] [--relay]`: the last lines of the daemon's (or
//! the relays') log, then, with `-f`, each line as it is written, across
//! rotations.

use crate::ctx::Failure;
use cotab_host::logs::{log_dir, tail, DAEMON_LOG, RELAY_LOG};
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::time::Duration;

/// How often a followed log is looked at.
const POLL: Duration = Duration::from_millis(200);

pub(crate) async fn run(follow: bool, lines: usize, relay: bool) -> Result<(), Failure> {
    let dir = log_dir().ok_or_else(|| {
        Failure::Other(anyhow::anyhow!(
            "no log directory: set COTAB_LOG_DIR, XDG_STATE_HOME or HOME"
        ))
    })?;
    let name = if relay { RELAY_LOG } else { DAEMON_LOG };
    let path = dir.join(name);
    let (last, mut at) = tail(&dir, name, lines)
        .map_err(|e| Failure::Other(anyhow::anyhow!("reading {}: {e}", path.display())))?;
    if last.is_empty() && !path.exists() {
        eprintln!("(no log yet at {})", path.display());
    }
    let mut out = std::io::stdout().lock();
    for line in &last {
        // A closed pipe (`cotab logs | head`) ends the command quietly.
        if writeln!(out, "{line}").is_err() {
            return Ok(());
        }
    }
    drop(out);
    if !follow {
        return Ok(());
    }
    // From where the tail was read; a file that shrank was rotated: start
    // the new one from its beginning.
    loop {
        tokio::time::sleep(POLL).await;
        let Ok(mut file) = std::fs::File::open(&path) else {
            continue;
        };
        let len = file.metadata().map_or(0, |m| m.len());
        if len < at {
            at = 0;
        }
        if len == at {
            continue;
        }
        let mut fresh = Vec::new();
        if file.seek(SeekFrom::Start(at)).is_err() || file.read_to_end(&mut fresh).is_err() {
            continue;
        }
        at += fresh.len() as u64;
        let mut out = std::io::stdout().lock();
        if out.write_all(&fresh).and_then(|()| out.flush()).is_err() {
            return Ok(());
        }
    }
}
