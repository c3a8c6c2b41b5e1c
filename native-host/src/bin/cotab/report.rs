//! How a `cotab` failure reads and exits: `error: KIND: message` on stderr,
//! or with `--json` one object `{"error": {"kind", "message", …}}` on
//! stdout; exit 1 for an error the daemon answered (or any other failure),
//! 2 for a usage error, 3 when no daemon runs (or it went away during the
//! command: never a bare transport error). The daemon's messages are
//! put in the CLI's terms: they name `cotab` commands, not protocol
//! methods.

use crate::ctx::{Failure, ANSWER_A_DIALOG};
use cotab_host::client::ClientError;
use cotab_shared::controller::RpcError;
use cotab_shared::ErrorKind;
use serde_json::json;
use std::process::ExitCode;

/// The kind of a usage error (exit 2) in `--json` output.
pub(crate) const USAGE: &str = "USAGE";

/// The kind of "no daemon runs" (exit 3) in `--json` output.
pub(crate) const NOT_RUNNING: &str = "DAEMON_NOT_RUNNING";

/// The kind of a failure on the CLI's side (a file it could not write) in
/// `--json` output.
pub(crate) const FAILED: &str = "FAILED";

/// The kind of an activity session the record does not hold, in
/// `--json` output.
pub(crate) const SESSION_NOT_FOUND: &str = "SESSION_NOT_FOUND";

/// The kind of an activity session whose file is not a record, in
/// `--json` output.
pub(crate) const RECORD_DAMAGED: &str = "RECORD_DAMAGED";

/// What the daemon's hints name, and the `cotab` command that does it.
const COMMANDS: &[(&str, &str)] = &[
    ("call page.snapshot", "run `cotab snapshot`"),
    ("call tabs.select", "run `cotab select TAB`"),
    ("call tabs.list", "run `cotab tabs`"),
    ("call control.acquire", "run `cotab acquire`"),
    ("answer it with page.dialog", ANSWER_A_DIALOG),
];

/// Reports `failure` as `--json` says, and gives the exit code.
pub(crate) fn report(failure: Failure, json: bool) -> ExitCode {
    let (kind, message, code, dialog) = match &failure {
        Failure::Usage(m) => (USAGE.to_owned(), m.clone(), 2, None),
        Failure::NotRunning(sock) if !sock.exists() => (
            NOT_RUNNING.to_owned(),
            format!(
                "the cotab daemon is not running (no socket at {}); open the browser with the \
                 cotab extension and share a tab",
                sock.display()
            ),
            3,
            None,
        ),
        Failure::NotRunning(sock) => (
            NOT_RUNNING.to_owned(),
            format!(
                "the cotab daemon is not running: nothing answers at {} (it stopped, and no new \
                 one started within 5 s); open the browser with the cotab extension, whose \
                 native host starts it, or run `cotab doctor`",
                sock.display()
            ),
            3,
            None,
        ),
        // The daemon went away while the command ran.
        Failure::Rpc(e) if e.is_transport() => (
            NOT_RUNNING.to_owned(),
            "the cotab daemon went away while the command ran (it may or may not have \
             acted); run `cotab status` to see whether a new one runs"
                .to_owned(),
            3,
            None,
        ),
        Failure::Rpc(ClientError::Rpc(e)) => (
            e.kind().as_str().to_owned(),
            explain(e),
            1,
            e.data.dialog.clone(),
        ),
        Failure::Rpc(e) => (FAILED.to_owned(), e.to_string(), 1, None),
        Failure::Other(e) => (FAILED.to_owned(), format!("{e:#}"), 1, None),
        Failure::Record(e) => {
            use cotab_host::record::RecordError as R;
            let (kind, code) = match e {
                R::BadId(_) => (USAGE, 2),
                R::NotFound(_) => (SESSION_NOT_FOUND, 1),
                R::Damaged { .. } => (RECORD_DAMAGED, 1),
                R::Io { .. } => (FAILED, 1),
            };
            (kind.to_owned(), e.to_string(), code, None)
        }
        // Already said, as the doctor's report.
        Failure::Unhealthy => return ExitCode::from(1),
    };
    if json {
        let mut error = json!({ "kind": kind, "message": message });
        if let Some(d) = dialog {
            error["dialog"] = json!(d);
        }
        println!("{}", json!({ "error": error }));
    } else if code == 2 {
        eprintln!("error: {message}\n\nFor more, try `cotab --help`.");
    } else if kind == FAILED || kind == NOT_RUNNING {
        eprintln!("error: {message}");
    } else {
        eprintln!("error: {kind}: {message}");
    }
    ExitCode::from(code)
}

/// The message of a daemon's error in the CLI's terms: a dialog that
/// blocks the tab says how to answer it with `cotab dialog`, and a hint to
/// call a method names the command that does it.
pub(crate) fn explain(e: &RpcError) -> String {
    let message = match &e.data.dialog {
        Some(d) if e.kind() == ErrorKind::DialogOpen => {
            RpcError::dialog_open(d.clone(), ANSWER_A_DIALOG).message
        }
        _ => e.message.clone(),
    };
    in_cli_terms(&message)
}

/// `message` with every method hint of [`COMMANDS`] replaced by its
/// command.
fn in_cli_terms(message: &str) -> String {
    COMMANDS
        .iter()
        .fold(message.to_owned(), |m, (hint, command)| {
            m.replace(hint, command)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_daemons_hints_name_cotab_commands() {
        for (daemon, cli) in [
            (
                "the page navigated since the snapshot: call page.snapshot again",
                "the page navigated since the snapshot: run `cotab snapshot` again",
            ),
            (
                "no tab selected: call tabs.select first",
                "no tab selected: run `cotab select TAB` first",
            ),
            (
                "this session does not hold control of the tab: call control.acquire",
                "this session does not hold control of the tab: run `cotab acquire`",
            ),
            ("tab 3 is not shared", "tab 3 is not shared"),
        ] {
            assert_eq!(in_cli_terms(daemon), cli);
        }
    }
}
