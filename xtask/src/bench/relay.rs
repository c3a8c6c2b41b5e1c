//! Bench item 4, the relay hop alone: `cotab-host chrome-extension://…/`
//! started as the browser starts it (stdin and stdout are pipes), with an
//! echoing stand-in for the daemon on `host.sock`. One sample is one frame
//! written to the relay's stdin and read back from its stdout: it crosses
//! the relay twice, as a command and its answer do.
//!
//! With `COTAB_BENCH_BASELINE` naming another `cotab-host` binary, that
//! one runs too, in interleaved rounds (alternating which goes first), as
//! a before/after comparison.

use super::{Row, Sample};
use anyhow::{bail, Context, Result};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixListener;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// Rounds dropped before measuring, and measured.
const WARM_UP: usize = 200;
const ROUNDS: usize = 2000;

/// A small frame, the size of a short CDP answer.
const PAYLOAD: &[u8] = br#"{"type":"response","id":1,"outcome":{"result":{"result":{"type":"number","value":2,"description":"2"}}}}"#;

/// One relay process with its stand-in daemon.
struct Relay {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    // Kept for its Drop (the runtime directory).
    _dir: tempfile::TempDir,
}

impl Relay {
    async fn start(binary: &Path) -> Result<Relay> {
        let dir = tempfile::Builder::new().prefix("cotab-relay").tempdir()?;
        let rt = dir.path().join("rt");
        std::fs::create_dir(&rt)?;
        std::fs::set_permissions(&rt, std::fs::Permissions::from_mode(0o700))?;
        let listener = UnixListener::bind(rt.join(cotab_host::runtime::HOST_SOCKET))?;
        // The stand-in daemon: echoes every byte back.
        tokio::spawn(async move {
            if let Ok((stream, _)) = listener.accept().await {
                let (mut r, mut w) = stream.into_split();
                // Ends when the relay goes.
                let _ = tokio::io::copy(&mut r, &mut w).await;
            }
        });
        let origin = cotab_shared::extension_origin(cotab_shared::EXTENSION_ID);
        let mut child = Command::new(binary)
            .arg(origin)
            .env("COTAB_RUNTIME_DIR", &rt)
            .env("COTAB_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("starting {} as a relay", binary.display()))?;
        let stdin = child.stdin.take().context("no stdin")?;
        let stdout = child.stdout.take().context("no stdout")?;
        Ok(Relay {
            child,
            stdin,
            stdout,
            _dir: dir,
        })
    }

    /// One frame through the relay and back.
    async fn round_trip(&mut self, frame: &[u8], back: &mut Vec<u8>) -> Result<Duration> {
        let start = Instant::now();
        self.stdin.write_all(frame).await?;
        back.resize(frame.len(), 0);
        tokio::time::timeout(Duration::from_secs(10), self.stdout.read_exact(back))
            .await
            .context("the relay did not answer within 10 s")??;
        let d = start.elapsed();
        if back != frame {
            bail!("the relay returned another frame");
        }
        Ok(d)
    }
}

/// Measures the relay of `binary` (and of `COTAB_BENCH_BASELINE`, if set).
pub(crate) async fn run(binary: &Path) -> Result<Vec<Row>> {
    let mut frame = (PAYLOAD.len() as u32).to_ne_bytes().to_vec();
    frame.extend_from_slice(PAYLOAD);
    let mut relays = vec![("cotab-host relay", Relay::start(binary).await?, Vec::new())];
    if let Some(base) = std::env::var_os("COTAB_BENCH_BASELINE") {
        relays.push((
            "baseline relay (COTAB_BENCH_BASELINE)",
            Relay::start(Path::new(&base)).await?,
            Vec::new(),
        ));
    }
    let mut back = Vec::new();
    for round in 0..WARM_UP + ROUNDS {
        // A B, then B A: whichever goes second waits on a process that
        // idled longer, so the order alternates.
        if round % 2 == 1 {
            relays.reverse();
        }
        for (_, relay, samples) in &mut relays {
            let d = relay.round_trip(&frame, &mut back).await?;
            if round >= WARM_UP {
                samples.push(d);
            }
        }
        if round % 2 == 1 {
            relays.reverse();
        }
    }
    let mut rows = Vec::new();
    for (name, mut relay, samples) in relays {
        if let Some(status) = relay.child.try_wait()? {
            bail!("the relay exited: {status}");
        }
        rows.push(Row::new(
            "4",
            &format!("a {}-byte frame through the relay and back", PAYLOAD.len()),
            name,
            Sample::Latency(samples),
        ));
    }
    Ok(rows)
}
