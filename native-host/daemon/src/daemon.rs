//! The daemon role: owns the runtime directory, the two sockets and the
//! broker, and lives until it is told to stop or stays idle.
//!
//! Start-up order matters: the runtime directory is checked before
//! anything is created in it, the lock is taken before the pid file or the
//! sockets are touched (a second daemon must not disturb the first), and
//! the sockets are bound under a umask that makes them private from the
//! first instant.

use crate::accept::{agent_limit, nofile_limit, Accepted, Acceptor};
use crate::agent;
use crate::broker::CoreConfig;
use crate::browser_conn;
use crate::codec::NativeCodec;
use crate::runtime::{
    prepare_runtime_dir, RuntimeDirError, AGENT_SOCKET, HOST_SOCKET, LOCK_FILE, PID_FILE,
};
use crate::shell::{Counts, Shell};
use crate::socket_lane;
use cotab_shared::controller::{Response, RpcError, SERVER_ERROR};
use cotab_shared::limits::{
    DEFAULT_DEADLINE_MS, MAX_AGENT_CONNECTIONS, MAX_EXTENSION_TO_HOST, MAX_HOST_TO_EXTENSION,
    MAX_LANE_CONNECTIONS, RESUME_GRACE_MS,
};
use cotab_shared::ErrorKind;
use futures_util::StreamExt;
use nix::fcntl::{Flock, FlockArg};
use nix::sys::stat::{umask, Mode};
use std::fs;
use std::io::{self, Write as _};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::watch;
use tokio_util::codec::Framed;
use tokio_util::sync::CancellationToken;

/// Settings of one daemon run.
#[derive(Debug, Clone)]
pub struct DaemonConfig {
    /// Where the sockets, lock and pid files live.
    pub runtime_dir: PathBuf,
    /// Exit after this long with no lane and no agent connected.
    pub idle_exit: Duration,
    /// Deadline of every request.
    pub default_deadline: Duration,
    /// How long a disconnected session keeps its lease and held input.
    pub resume_grace: Duration,
    /// How long a request waits for the person's yes before it is
    /// refused unanswered.
    pub approval_wait: Duration,
    /// Settings of agent connections (slow and non-reading peers).
    pub agent: agent::AgentConfig,
    /// Agent connections open at once; one more is answered `BUSY` and
    /// closed.
    pub max_agents: usize,
    /// The private directory where the person's settings and the activity
    /// record are kept (the log directory); none: the settings last as
    /// long as the daemon and no record is kept.
    pub state_dir: Option<PathBuf>,
}

impl DaemonConfig {
    /// Settings from the environment: [`crate::default_runtime_dir`],
    /// `COTAB_IDLE_EXIT_SECS` (default 600), `COTAB_DEADLINE_MS`
    /// (default [`DEFAULT_DEADLINE_MS`]), `COTAB_RESUME_GRACE_MS`
    /// (default [`RESUME_GRACE_MS`]), `COTAB_APPROVAL_WAIT_MS` (default
    /// [`crate::shell::APPROVAL_WAIT`]), `COTAB_MAX_AGENTS` (default
    /// [`MAX_AGENT_CONNECTIONS`], fewer when the process may open few
    /// files: [`agent_limit`]) and [`agent::AgentConfig::from_env`].
    pub fn from_env() -> Self {
        let num = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
        };
        DaemonConfig {
            runtime_dir: crate::default_runtime_dir(),
            idle_exit: Duration::from_secs(num("COTAB_IDLE_EXIT_SECS").unwrap_or(600)),
            default_deadline: Duration::from_millis(
                num("COTAB_DEADLINE_MS").unwrap_or(DEFAULT_DEADLINE_MS),
            ),
            resume_grace: Duration::from_millis(
                num("COTAB_RESUME_GRACE_MS").unwrap_or(RESUME_GRACE_MS),
            ),
            approval_wait: num("COTAB_APPROVAL_WAIT_MS")
                .map_or(crate::shell::APPROVAL_WAIT, Duration::from_millis),
            agent: agent::AgentConfig::from_env(),
            max_agents: num("COTAB_MAX_AGENTS")
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or_else(|| {
                    agent_limit(MAX_AGENT_CONNECTIONS, nofile_limit().unwrap_or(u64::MAX))
                }),
            state_dir: crate::logs::log_dir(),
        }
    }
}

/// Why the daemon stopped without an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DaemonExit {
    /// Another daemon holds the lock.
    AlreadyRunning,
    /// Nothing was connected for the idle period.
    Idle,
    /// Asked to stop (signal or token).
    Shutdown,
}

/// Why the daemon could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DaemonError {
    /// The runtime directory is unsafe or unusable.
    #[error(transparent)]
    RuntimeDir(#[from] RuntimeDirError),
    /// A socket path is taken by something we must not remove: someone
    /// else may have planted it, so it is neither followed, reused nor
    /// deleted.
    #[error("{path} is {found}, not a socket of ours; refusing to use or remove it")]
    ForeignPath {
        /// The socket path.
        path: PathBuf,
        /// What is there instead.
        found: Found,
    },
    /// A file or socket operation failed.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The failure.
        source: io::Error,
    },
}

/// What occupies a socket path the daemon did not create.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Found {
    /// A symbolic link (never followed).
    Symlink,
    /// A regular file.
    File,
    /// A directory (not a socket).
    Directory,
    /// A socket owned by another uid.
    ForeignSocket {
        /// The uid that owns it.
        owner: u32,
    },
    /// A fifo, device or other special file.
    Other,
}

impl std::fmt::Display for Found {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Found::Symlink => f.write_str("a symlink"),
            Found::File => f.write_str("a regular file"),
            Found::Directory => f.write_str("a directory"),
            Found::ForeignSocket { owner } => write!(f, "a socket owned by uid {owner}"),
            Found::Other => f.write_str("a special file"),
        }
    }
}

/// Keeps the activity record under the state directory `dir`, bounded as
/// the host config says (its defaults when the config cannot be read).
fn keep_record(shell: &Shell, dir: &Path) {
    let config = crate::config::load(crate::config::config_path().as_deref()).unwrap_or_else(|e| {
        tracing::warn!(error = %e.message, "the activity record keeps its default bounds");
        crate::config::HostConfig::default()
    });
    let record = cotab_local::record::Record::in_state_dir(dir);
    // Videos are kept within the record's bounds.
    shell.videos.keep_within(config.activity.limits());
    shell.prune_videos();
    if let Some(recorder) = crate::recorder::Recorder::start(record, config.activity.limits()) {
        shell.activity.keep(recorder);
    }
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> DaemonError + '_ {
    move |source| DaemonError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Removes a stale socket at `path` if it is a socket we own; refuses
/// anything else.
fn clear_stale_socket(path: &Path) -> Result<(), DaemonError> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_at(path)(e)),
        Ok(meta) => {
            let kind = meta.file_type();
            let found = if kind.is_symlink() {
                Found::Symlink
            } else if kind.is_file() {
                Found::File
            } else if kind.is_dir() {
                Found::Directory
            } else if kind.is_socket() && meta.uid() == nix::unistd::getuid().as_raw() {
                // A socket of ours left by a daemon that died: we hold the
                // lock, so no live daemon listens on it.
                return fs::remove_file(path).map_err(io_at(path));
            } else if kind.is_socket() {
                Found::ForeignSocket { owner: meta.uid() }
            } else {
                Found::Other
            };
            Err(DaemonError::ForeignPath {
                path: path.to_path_buf(),
                found,
            })
        }
    }
}

fn bind_private(path: &Path) -> Result<UnixListener, DaemonError> {
    clear_stale_socket(path)?;
    // umask is process-wide, but the daemon binds its sockets before it
    // starts any other work, so nothing else creates files meanwhile.
    let old = umask(Mode::from_bits_truncate(0o177));
    let bound = UnixListener::bind(path);
    umask(old);
    let listener = bound.map_err(io_at(path))?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o600)).map_err(io_at(path))?;
    Ok(listener)
}

/// Removes the files a daemon run created.
struct Cleanup(Vec<PathBuf>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        for p in &self.0 {
            // Already gone is fine.
            let _ = fs::remove_file(p);
        }
    }
}

fn peer_is_us(stream: &UnixStream) -> bool {
    match stream.peer_cred() {
        Ok(cred) => cred.uid() == nix::unistd::getuid().as_raw(),
        Err(_) => false,
    }
}

/// Runs a daemon until `shutdown` fires or it stays idle.
pub async fn run(
    config: DaemonConfig,
    shutdown: CancellationToken,
) -> Result<DaemonExit, DaemonError> {
    let dir = &config.runtime_dir;
    prepare_runtime_dir(dir)?;

    let lock_path = dir.join(LOCK_FILE);
    let lock_file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
        .open(&lock_path)
        .map_err(io_at(&lock_path))?;
    let _lock = match Flock::lock(lock_file, FlockArg::LockExclusiveNonblock) {
        Ok(lock) => lock,
        Err((_, nix::errno::Errno::EWOULDBLOCK)) => {
            tracing::info!(dir = %dir.display(), "a cotab daemon is already running");
            return Ok(DaemonExit::AlreadyRunning);
        }
        Err((_, errno)) => return Err(io_at(&lock_path)(io::Error::from(errno))),
    };

    let pid_path = dir.join(PID_FILE);
    let host_path = dir.join(HOST_SOCKET);
    let agent_path = dir.join(AGENT_SOCKET);
    // Only what this run created is removed on exit: a path that was
    // refused (someone else's file, link or socket) is left alone.
    let mut cleanup = Cleanup(vec![pid_path.clone()]);
    {
        // A pid file left by a dead daemon is simply overwritten: we hold
        // the lock, so it cannot be a live one's.
        let _ = fs::remove_file(&pid_path);
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&pid_path)
            .map_err(io_at(&pid_path))?;
        writeln!(f, "{}", std::process::id()).map_err(io_at(&pid_path))?;
    }
    let mut host = Acceptor::new(bind_private(&host_path)?, HOST_SOCKET, MAX_LANE_CONNECTIONS);
    cleanup.0.push(host_path);
    let mut agents = Acceptor::new(bind_private(&agent_path)?, AGENT_SOCKET, config.max_agents);
    cleanup.0.push(agent_path);
    tracing::info!(dir = %dir.display(), pid = std::process::id(), "cotab daemon listening");

    let mut shell = Shell::new(
        config.default_deadline,
        CoreConfig {
            resume_grace: config.resume_grace,
            ..CoreConfig::default()
        },
    );
    shell.approval_wait = config.approval_wait;
    let shell = Arc::new(shell);
    // The person's settings, where the daemon's logs are (private).
    match &config.state_dir {
        Some(dir) => match crate::logs::prepare_log_dir(dir) {
            Ok(()) => {
                shell.keep_settings(crate::settings::Store::in_dir(dir));
                shell.videos.keep_in(dir.join("videos"));
                keep_record(&shell, dir);
            }
            Err(e) => {
                tracing::warn!(error = %e, "no state directory: the person's settings last as long as the daemon")
            }
        },
        None => {
            tracing::info!("no state directory: the person's settings last as long as the daemon")
        }
    }
    // The core keeps no timers: resume graces and ticket TTLs are checked
    // on this tick, a fraction of the grace (so a short test grace is
    // honoured promptly).
    let mut ticker = tokio::time::interval(
        (config.resume_grace / 4).clamp(Duration::from_millis(10), Duration::from_secs(1)),
    );
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let conns = shutdown.child_token();
    if socket_lane::enabled_by_env() {
        match socket_lane::bind().await {
            Ok((socket, listener)) => {
                tracing::info!(
                    port = socket.port(),
                    "the lane's WebSocket listens on 127.0.0.1"
                );
                shell.set_socket_offers(socket);
                tokio::spawn(socket_lane::serve(shell.clone(), listener, conns.clone()));
            }
            Err(e) => {
                tracing::warn!(error = %e, "no WebSocket for the lane; it stays on native messaging");
            }
        }
    } else {
        tracing::info!(
            "the lane's WebSocket is off ({})",
            socket_lane::SOCKET_LANE_ENV
        );
    }
    let idle = wait_idle(shell.watch_counts(), config.idle_exit);
    tokio::pin!(idle);
    let exit = loop {
        tokio::select! {
            _ = shutdown.cancelled() => break DaemonExit::Shutdown,
            _ = ticker.tick() => {
                shell.tick();
                shell.refresh_config();
            }
            _ = &mut idle => {
                tracing::info!("idle: no browser and no agent connected; exiting");
                break DaemonExit::Idle;
            }
            a = host.next() => match a {
                Accepted::Conn(stream, _) | Accepted::Full(stream) if !peer_is_us(&stream) => {
                    tracing::warn!("refused a browser connection from another user");
                }
                Accepted::Conn(stream, slot) => {
                    let (shell, conns) = (shell.clone(), conns.clone());
                    tokio::spawn(async move {
                        serve_lane(shell, stream, conns).await;
                        drop(slot);
                    });
                }
                Accepted::Full(_) => {
                    tracing::warn!(limit = MAX_LANE_CONNECTIONS, "too many browser connections; closed one");
                }
            },
            a = agents.next() => match a {
                Accepted::Conn(stream, _) | Accepted::Full(stream) if !peer_is_us(&stream) => {
                    tracing::warn!("refused an agent connection from another user");
                }
                Accepted::Conn(stream, slot) => {
                    let (shell, conns) = (shell.clone(), conns.clone());
                    tokio::spawn(async move {
                        agent::serve(shell, stream, config.agent, conns).await;
                        drop(slot);
                    });
                }
                Accepted::Full(stream) => {
                    tokio::spawn(refuse_agent(stream, config.max_agents));
                }
            },
        }
    };
    conns.cancel();
    tracing::info!(?exit, "cotab daemon stopped");
    Ok(exit)
}

/// How long a connection past the limit has to take its `BUSY` line.
const REFUSAL_WRITE: Duration = Duration::from_secs(1);

/// Answers a connection past the agent limit with one `BUSY` error line
/// (id null: it sent no request yet) and closes it.
async fn refuse_agent(mut stream: UnixStream, limit: usize) {
    use tokio::io::AsyncWriteExt as _;
    tracing::debug!(limit, "too many agent connections; refused one");
    let err = RpcError::new(
        SERVER_ERROR,
        ErrorKind::Busy,
        format!("too many agent connections (the limit is {limit}); close one and try again"),
    );
    let Ok(mut line) = serde_json::to_vec(&Response::err(None, err)) else {
        return;
    };
    line.push(b'\n');
    // A peer that does not read loses only the explanation.
    let _ = tokio::time::timeout(REFUSAL_WRITE, async {
        stream.write_all(&line).await?;
        stream.shutdown().await
    })
    .await;
}

/// Runs a daemon that also stops on SIGTERM and SIGINT.
pub async fn run_with_signals(config: DaemonConfig) -> Result<DaemonExit, DaemonError> {
    use tokio::signal::unix::{signal, SignalKind};
    let token = CancellationToken::new();
    let sig_err = |source| DaemonError::Io {
        path: PathBuf::from("<signals>"),
        source,
    };
    let mut term = signal(SignalKind::terminate()).map_err(sig_err)?;
    let mut int = signal(SignalKind::interrupt()).map_err(sig_err)?;
    let t = token.clone();
    tokio::spawn(async move {
        tokio::select! {
            _ = term.recv() => tracing::info!("SIGTERM"),
            _ = int.recv() => tracing::info!("SIGINT"),
        }
        t.cancel();
    });
    run(config, token).await
}

/// Resolves once nothing has been connected for `idle`.
async fn wait_idle(mut counts: watch::Receiver<Counts>, idle: Duration) {
    loop {
        let busy = {
            let c = counts.borrow_and_update();
            c.lanes + c.agents > 0
        };
        if busy {
            if counts.changed().await.is_err() {
                return std::future::pending().await;
            }
            continue;
        }
        tokio::select! {
            _ = tokio::time::sleep(idle) => return,
            r = counts.changed() => if r.is_err() {
                return std::future::pending().await;
            },
        }
    }
}

/// Serves one relay connection (a browser lane): native-messaging frames
/// on `host.sock`, served by [`browser_conn::serve`].
async fn serve_lane(shell: Arc<Shell>, stream: UnixStream, shutdown: CancellationToken) {
    let (sink, frames) = Framed::new(
        stream,
        NativeCodec::new(MAX_EXTENSION_TO_HOST, MAX_HOST_TO_EXTENSION),
    )
    .split();
    browser_conn::serve(shell, frames, sink, shutdown).await;
}
