//! What every `cotab` subcommand works with: the daemon connection in the
//! CLI's kept session, the output mode, and how acting commands get
//! control ([`Ctx::act`]), and how results read.

use cotab_host::client::{Client, ClientError, KeptSessionError};
use cotab_host::runtime::{CLI_RELEASED_FILE, CLI_TICKET_FILE};
use cotab_shared::controller::{Acquire, Acted, ControlResult, Empty, Method, Release, RpcError};
use cotab_shared::{ErrorKind, WireError};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// How long the CLI's session keeps control of its tab between
/// invocations (`session.hello`'s `keepControlMs`): two minutes after the
/// last command ends. Held keys and buttons are released after the
/// daemon's resume grace all the same.
pub(crate) const KEEP_CONTROL_MS: u64 = 120_000;

/// Why a subcommand failed, which decides the exit code
/// ([`crate::report`]).
pub(crate) enum Failure {
    /// The command line asks for something that cannot be (exit 2).
    Usage(String),
    /// No daemon listens at this socket (exit 3).
    NotRunning(PathBuf),
    /// The daemon refused or the connection failed (exit 1).
    Rpc(ClientError),
    /// Anything else (exit 1).
    Other(anyhow::Error),
    /// `cotab doctor` found what does not hold; it printed it (exit 1).
    Unhealthy,
    /// The activity record refused (a bad id is a usage error, exit 2;
    /// the rest exit 1).
    Record(cotab_host::record::RecordError),
}

impl From<cotab_host::record::RecordError> for Failure {
    fn from(e: cotab_host::record::RecordError) -> Self {
        Failure::Record(e)
    }
}

impl From<ClientError> for Failure {
    fn from(e: ClientError) -> Self {
        Failure::Rpc(e)
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Other(e)
    }
}

/// A subcommand's context.
pub(crate) struct Ctx {
    /// The daemon, in the CLI's session.
    pub(crate) client: Client,
    /// `--json`.
    pub(crate) json: bool,
    /// `--take`: an acting command takes control even after
    /// `cotab release`.
    take: bool,
    /// The file whose presence says the CLI gave control back.
    released: PathBuf,
    /// The kept session could not be resumed (the daemon restarted, or
    /// the session expired), so this one is new: nothing is selected.
    session_lost: bool,
}

impl Ctx {
    /// Resumes the CLI's session (its ticket is kept in the runtime
    /// directory), or opens a new one that keeps its control for
    /// [`KEEP_CONTROL_MS`] between invocations.
    pub(crate) async fn open(
        mut client: Client,
        runtime_dir: &Path,
        json: bool,
        take: bool,
    ) -> Result<Ctx, Failure> {
        let path = runtime_dir.join(CLI_TICKET_FILE);
        let kept = path.exists();
        let resumed = match client
            .resume_or_hello(&path, "cotab-cli", Some(KEEP_CONTROL_MS))
            .await
        {
            Ok(resumed) => resumed.is_some(),
            Err(KeptSessionError::Client(e)) => return Err(e.into()),
            Err(e) => return Err(anyhow::Error::from(e).into()),
        };
        Ok(Ctx {
            client,
            json,
            take,
            released: runtime_dir.join(CLI_RELEASED_FILE),
            session_lost: kept && !resumed,
        })
    }

    /// Calls an acting method. The session keeps its lease between
    /// invocations for [`KEEP_CONTROL_MS`]; when it has none (`NO_CONTROL`,
    /// refused before anything was sent) control is taken once (which fails
    /// if another agent or the person holds the tab) and the call retried —
    /// unless `cotab release` gave control back and neither `cotab acquire`
    /// nor `--take` took it since.
    pub(crate) async fn act<M: Method>(
        &mut self,
        params: &M::Params,
    ) -> Result<M::Result, Failure> {
        match self.client.call::<M>(params).await {
            Err(ClientError::Rpc(e)) if e.kind() == ErrorKind::NoControl => {
                if !self.take && self.released.exists() {
                    return Err(Failure::Rpc(ClientError::Rpc(RpcError::from(
                        WireError::new(
                            ErrorKind::NoControl,
                            "control was given back with `cotab release`; run `cotab acquire`, \
                             or repeat the command with `--take`",
                        ),
                    ))));
                }
                self.acquire().await?;
                Ok(self.client.call::<M>(params).await?)
            }
            r => Ok(r?),
        }
    }

    /// `control.acquire`; acting commands take control again by themselves
    /// from now on.
    pub(crate) async fn acquire(&mut self) -> Result<ControlResult, Failure> {
        let r = self.client.call::<Acquire>(&Empty {}).await?;
        self.taken()?;
        Ok(r)
    }

    /// Control was taken (by `control.acquire` or a new tab): forgets a
    /// `cotab release`.
    pub(crate) fn taken(&self) -> Result<(), Failure> {
        match std::fs::remove_file(&self.released) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(anyhow::Error::new(e)
                .context(format!("removing {}", self.released.display()))
                .into()),
            _ => Ok(()),
        }
    }

    /// `failure`, saying why nothing is selected when the kept session was
    /// lost: the selection went with it.
    pub(crate) fn why_unselected(&self, failure: Failure) -> Failure {
        match failure {
            Failure::Rpc(ClientError::Rpc(mut e))
                if self.session_lost
                    && e.kind() == ErrorKind::InvalidRequest
                    && e.message.starts_with("no tab selected") =>
            {
                e.message = "no tab selected: the CLI's session ended (the daemon restarted, or \
                             the session expired), and its selection with it; call tabs.select \
                             first"
                    .to_owned();
                Failure::Rpc(ClientError::Rpc(e))
            }
            f => f,
        }
    }

    /// `control.release`; acting commands do not take control again
    /// until [`Ctx::acquire`] or `--take`.
    pub(crate) async fn release(&mut self) -> Result<Empty, Failure> {
        let r = self.client.call::<Release>(&Empty {}).await?;
        std::fs::write(&self.released, b"").map_err(|e| {
            anyhow::Error::new(e).context(format!("writing {}", self.released.display()))
        })?;
        Ok(r)
    }
}

/// Prints `value`: as JSON with `--json`, else as `human` says (nothing
/// when it says nothing).
pub(crate) fn print<T: Serialize>(
    json: bool,
    value: &T,
    human: impl FnOnce(&T) -> String,
) -> Result<(), Failure> {
    if json {
        let text = serde_json::to_string_pretty(value).map_err(anyhow::Error::from)?;
        println!("{text}");
    } else {
        let text = human(value);
        if !text.is_empty() {
            println!("{text}");
        }
    }
    Ok(())
}

/// How the CLI says to answer a dialog.
pub(crate) const ANSWER_A_DIALOG: &str =
    "answer it with `cotab dialog accept` or `cotab dialog dismiss`";

/// How the CLI says to answer a file chooser.
pub(crate) const ANSWER_A_CHOOSER: &str =
    "answer it with `cotab upload --chooser FILE...` (no file cancels it)";

/// `done`, and the dialog or file chooser the action opened, if one did,
/// with how to answer it.
pub(crate) fn then_dialog(acted: &Acted, done: String) -> String {
    let mut text = done;
    if let Some(d) = &acted.dialog {
        text = format!("{text}; then {} opened: {ANSWER_A_DIALOG}", d.describe());
    }
    if let Some(c) = &acted.file_chooser {
        let what = if c.multiple { "files" } else { "a file" };
        text = format!("{text}; then a file chooser for {what} opened: {ANSWER_A_CHOOSER}");
    }
    text
}
