//! The daemon's shared state around the sans-IO core: the browser lane,
//! the core behind its lock and the effects it returns performed, the
//! in-flight budgets, the connection counts that decide the idle exit, the
//! outboxes the core's notifications go to, the blockers signal, the local-file policy
//! read from the host config, and each agent connection's state
//! ([`ConnState`]). What the extension reports besides answers is applied
//! in `events`. The handlers ([`crate::handlers`]) work over it; the
//! socket tasks ([`crate::daemon`], [`crate::agent`]) own it.

mod approvals;
mod downloads;
mod events;
mod holds;
mod videos;

use crate::broker::{Core, CoreConfig, Effect, ReleaseCmd};
use crate::config;
use crate::lane::Lane;
use crate::overlay::Overlays;
use crate::session::{ConnId, SessionId};
use crate::socket_offers::SocketOffers;
use cotab_shared::cdp::{CdpCommand, SetInterceptFileChooserDialog};
use cotab_shared::controller::{AgentEvent, Notification};
use cotab_shared::limits::{MAX_IN_FLIGHT_TOTAL, MAX_MEDIA_IN_FLIGHT_TOTAL};
use cotab_shared::native::{CdpCall, Command, HostToExtension};
use cotab_shared::reach::LocalFiles;
use cotab_shared::{TabId, WireError};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::{watch, Semaphore};
use tokio::time::Instant;
use tokio_util::bytes::Bytes;

/// How many lanes and agents are connected; the daemon exits when both
/// stay zero for its idle period.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Browser connections.
    pub lanes: usize,
    /// Agent connections.
    pub agents: usize,
}

/// Where a connection's notifications go: its outgoing queue, which
/// drops a notification rather than wait.
pub struct Sink(Box<dyn Fn(Bytes) + Send + Sync>);

impl Sink {
    /// A sink that hands each notification line to `f`.
    pub fn new(f: impl Fn(Bytes) + Send + Sync + 'static) -> Sink {
        Sink(Box::new(f))
    }
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sink")
    }
}

/// The daemon's shared state.
#[derive(Debug)]
pub struct Shell {
    /// The browser lane.
    pub lane: Arc<Lane>,
    core: Mutex<Core>,
    /// Deadline of every request.
    pub default_deadline: Duration,
    /// Requests in flight in the whole daemon.
    pub in_flight: Arc<Semaphore>,
    /// Captures in flight in the whole daemon.
    pub media_in_flight: Arc<Semaphore>,
    pub(crate) counts: watch::Sender<Counts>,
    /// Each agent connection's notification sink.
    sinks: Mutex<HashMap<ConnId, Sink>>,
    /// Bumped whenever a dialog opens or a shared tab goes, so calls
    /// pending on a tab look again.
    pub(crate) blockers: watch::Sender<u64>,
    next_conn: AtomicU64,
    /// What the host config allows, as last read, and the watch that
    /// says when to read it again.
    config: Mutex<ConfigRead>,
    /// When the daemon started serving.
    pub started: std::time::Instant,
    /// Held while a tab's interception of file choosers is turned on or
    /// off, so the commands reach the browser in the order the core
    /// decided them.
    pub(crate) choosers: Mutex<()>,
    /// The loopback WebSocket the lane may move to, once bound.
    socket: std::sync::OnceLock<Arc<SocketOffers>>,
    /// What each tab shows the person of an agent at work.
    pub overlays: Arc<Overlays>,
    /// Agent requests as the person reads them.
    pub activity: crate::activity::Feed,
    /// Videos of shared tabs.
    pub videos: crate::video::Videos,
    /// Told when a video starts or ends (the watches tell the panels).
    pub videos_changed: watch::Sender<u64>,
    /// Where the person's settings are kept, once the daemon knows its
    /// state directory.
    settings: std::sync::OnceLock<crate::settings::Store>,
    /// The sites the person granted for every share (kept with the
    /// settings).
    granted: Mutex<Vec<crate::settings::Granted>>,
    /// The shared tabs' settings as last saved.
    kept: Mutex<Vec<crate::broker::KeptShare>>,
    /// Told when the person's settings change (the watches tell the
    /// panels).
    pub settings_changed: watch::Sender<u64>,
    /// The tabs whose navigations are held, and what is known of each
    /// tab's navigations ([`holds`]).
    holds: Mutex<holds::Holds>,
    /// Told when a shared tab's sites changed (the watches tell the
    /// panels).
    pub scopes_changed: watch::Sender<u64>,
    /// Agent requests waiting for the person's yes ([`approvals`]).
    approvals: Mutex<approvals::Approvals>,
    /// Told when one begins waiting or stops (the watches tell the
    /// panels).
    pub approvals_changed: watch::Sender<u64>,
    /// How long a request waits for the person's yes before it is
    /// refused unanswered.
    pub approval_wait: Duration,
    /// Told whenever who holds a shared tab changes (a lease taken,
    /// ended, taken over, unshared), so requests waiting on it look
    /// again.
    pub leases_changed: watch::Sender<u64>,
}

/// How long a request waits for the person's yes by default: under the
/// 60 s after which MCP's TypeScript SDK gives up on a tool call.
pub const APPROVAL_WAIT: Duration = Duration::from_secs(45);

/// What the host config allows, as the daemon last read it.
#[derive(Debug)]
struct ConfigRead {
    /// The local files agents may reach.
    files: LocalFiles,
    /// The sites of `sites`, and the entries that name no site.
    sites: std::collections::BTreeSet<String>,
    sites_refused: Vec<usize>,
    watch: config::Watch,
}

impl Shell {
    /// A broker with an absent lane and no session.
    pub fn new(default_deadline: Duration, core: CoreConfig) -> Self {
        Shell {
            lane: Arc::new(Lane::default()),
            core: Mutex::new(Core::new(core)),
            default_deadline,
            in_flight: Arc::new(Semaphore::new(MAX_IN_FLIGHT_TOTAL)),
            media_in_flight: Arc::new(Semaphore::new(MAX_MEDIA_IN_FLIGHT_TOTAL)),
            counts: watch::Sender::new(Counts::default()),
            sinks: Mutex::new(HashMap::new()),
            blockers: watch::Sender::new(0),
            next_conn: AtomicU64::new(1),
            config: Mutex::new(ConfigRead {
                files: LocalFiles::NONE,
                sites: std::collections::BTreeSet::new(),
                sites_refused: Vec::new(),
                watch: config::Watch::default(),
            }),
            started: std::time::Instant::now(),
            choosers: Mutex::new(()),
            socket: std::sync::OnceLock::new(),
            overlays: Arc::default(),
            activity: crate::activity::Feed::default(),
            videos: crate::video::Videos::default(),
            videos_changed: watch::Sender::new(0),
            settings: std::sync::OnceLock::new(),
            granted: Mutex::default(),
            kept: Mutex::default(),
            settings_changed: watch::Sender::new(0),
            holds: Mutex::default(),
            scopes_changed: watch::Sender::new(0),
            approvals: Mutex::default(),
            approvals_changed: watch::Sender::new(0),
            approval_wait: APPROVAL_WAIT,
            leases_changed: watch::Sender::new(0),
        }
    }

    /// Keeps the person's settings in `store` from now on, and applies
    /// what it holds. Set once.
    pub fn keep_settings(&self, store: crate::settings::Store) {
        let settings = store.load();
        self.overlays
            .set_enabled(&self.lane, settings.agent_pointer);
        let mut sites = settings.sites;
        // A hand-edited file: what names no site grants nothing.
        sites.retain(|g| crate::scope::site_named(&g.site).as_deref() == Some(g.site.as_str()));
        *self.granted_lock() = sites;
        let mut shares = store.load_shares();
        // A hand-edited file: sites that are no page's site are no scope
        // (the tab keeps the site it shows); its asks still hold.
        for k in &mut shares {
            if let Some(crate::scope::Scope::Sites(sites)) = &k.scope {
                let sites_of_pages = !sites.is_empty()
                    && sites.iter().all(|s| {
                        crate::scope::site_of(&format!("https://{s}/")).as_deref() == Some(s)
                    });
                if !sites_of_pages {
                    k.scope = None;
                }
            }
        }
        *self.kept.lock().unwrap_or_else(|e| e.into_inner()) = shares.clone();
        // Before anything saves them: the shares are the core's first.
        self.with_core(|c| c.restore_shares(shares));
        let _ = self.settings.set(store);
        self.apply_lasting_sites();
    }

    /// Saves the shared tabs' settings if they changed since last saved.
    fn keep_shares(&self, shares: Vec<crate::broker::KeptShare>) {
        let Some(store) = self.settings.get() else {
            return;
        };
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if *kept == shares {
            return;
        }
        match store.save_shares(&shares) {
            Ok(()) => *kept = shares,
            Err(e) => tracing::warn!(error = %e, "could not save the shared tabs' settings"),
        }
    }

    fn granted_lock(&self) -> MutexGuard<'_, Vec<crate::settings::Granted>> {
        self.granted.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The person's settings in force.
    pub fn settings(&self) -> crate::settings::Settings {
        crate::settings::Settings {
            agent_pointer: self.overlays.enabled(),
            sites: self.granted_lock().clone(),
        }
    }

    /// Saves the settings in force and tells every watch.
    fn settings_changed(&self) {
        if let Some(store) = self.settings.get() {
            if let Err(e) = store.save(&self.settings()) {
                tracing::warn!(error = %e, "could not save the person's settings");
            }
        }
        self.settings_changed.send_modify(|n| *n += 1);
    }

    /// The person turned the drawings of what agents aim at on or off
    /// (from the side panel): applied at once, saved, and told to every
    /// watch.
    pub fn set_agent_pointer(&self, on: bool) {
        self.overlays.set_enabled(&self.lane, on);
        self.settings_changed();
    }

    /// The person granted or revoked a site for every share (from the
    /// extension's options page): applied at once, saved with when, and
    /// told to every watch. A name that is not a site, or a site of the
    /// host config (which only the file changes), is refused and changes
    /// nothing.
    pub fn change_lasting_site(&self, site: &str, allow: bool) -> Result<(), WireError> {
        let Some(site) = crate::scope::site_named(site) else {
            return Err(WireError::new(
                cotab_shared::ErrorKind::InvalidRequest,
                "a site is named as `example.com`: not a url, a name under a site or a public suffix",
            ));
        };
        if !allow && self.config_lock().sites.contains(&site) {
            return Err(WireError::new(
                cotab_shared::ErrorKind::InvalidRequest,
                format!("{site} is in the host config's `sites`: take it out of the file"),
            ));
        }
        {
            let mut granted = self.granted_lock();
            let had = granted.iter().any(|g| g.site == site);
            match (allow, had) {
                (true, false) => granted.push(crate::settings::Granted {
                    site: site.clone(),
                    granted_ms: cotab_local::record::now_ms(),
                }),
                (false, true) => granted.retain(|g| g.site != site),
                _ => return Ok(()),
            }
        }
        tracing::info!(%site, allow, "the person changed the sites of every share");
        self.apply_lasting_sites();
        self.settings_changed();
        Ok(())
    }

    /// The sites of every share: the host config's, then the person's
    /// grants, by name.
    pub fn lasting_sites(&self) -> Vec<cotab_shared::watch::LastingSite> {
        let config = self.config_lock().sites.clone();
        let mut all: Vec<cotab_shared::watch::LastingSite> = config
            .iter()
            .map(|site| cotab_shared::watch::LastingSite {
                site: site.clone(),
                granted_ms: None,
            })
            .collect();
        for g in self
            .granted_lock()
            .iter()
            .filter(|g| !config.contains(&g.site))
        {
            all.push(cotab_shared::watch::LastingSite {
                site: g.site.clone(),
                granted_ms: Some(g.granted_ms),
            });
        }
        all.sort_by(|a, b| a.site.cmp(&b.site));
        all
    }

    /// The core takes the host config's sites and the person's grants
    /// for every share.
    fn apply_lasting_sites(&self) {
        let mut sites = self.config_lock().sites.clone();
        sites.extend(self.granted_lock().iter().map(|g| g.site.clone()));
        self.with_core(|c| c.set_lasting_sites(sites));
    }

    /// Offers `socket` to every browser connection that says hello from
    /// now on. Set once; a second call changes nothing.
    pub fn set_socket_offers(&self, socket: SocketOffers) {
        let _ = self.socket.set(Arc::new(socket));
    }

    /// The loopback WebSocket the lane may move to, if one is served.
    pub fn socket_offers(&self) -> Option<Arc<SocketOffers>> {
        self.socket.get().cloned()
    }

    /// The local files agents may reach (`fileDirs` of the host config).
    pub fn local_files(&self) -> LocalFiles {
        self.config_lock().files.clone()
    }

    /// The entries of the host config's `sites` that name no site, by
    /// their place in the list.
    pub fn sites_refused(&self) -> Vec<usize> {
        self.config_lock().sites_refused.clone()
    }

    fn config_lock(&self) -> std::sync::MutexGuard<'_, ConfigRead> {
        self.config.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reads the host config again if it changed; when the local files it
    /// allows changed, tells the extension, and the core takes its sites
    /// for every share. Called on the daemon's tick, so a change applies
    /// within a second.
    pub fn refresh_config(&self) {
        let path = config::config_path();
        let changed = {
            let mut g = self.config_lock();
            let Some(read) = g.watch.changed(path.as_deref()) else {
                return;
            };
            let (sites, refused) = read.sites();
            if !refused.is_empty() {
                tracing::warn!(
                    entries = ?refused,
                    "entries of the host config's `sites` name no site (a registrable domain, as `example.com`): left out"
                );
            }
            g.sites_refused = refused;
            g.sites = sites;
            let files = read.local_files();
            (files != g.files).then(|| {
                g.files = files.clone();
                files
            })
        };
        if let Some(file_dirs) = changed {
            tracing::info!(
                dirs = file_dirs.0.len(),
                "the local files agents may reach changed"
            );
            self.lane
                .send_oneway(&HostToExtension::Policy { file_dirs });
        }
        self.apply_lasting_sites();
        self.settings_changed.send_modify(|n| *n += 1);
    }

    /// Runs `f` on the core, then performs the effects it produced (after
    /// the lock is released, in order). The connections each notification
    /// reaches are read under the same lock, as the core stood when it
    /// made the notification.
    pub fn with_core<R>(&self, f: impl FnOnce(&mut Core) -> R) -> R {
        let (r, effects, shares) = {
            // Plain data: a panic elsewhere does not make it unusable.
            let mut core = self.core.lock().unwrap_or_else(|e| e.into_inner());
            let r = f(&mut core);
            let effects: Vec<(Effect, Vec<ConnId>)> = core
                .take_effects()
                .into_iter()
                .map(|e| {
                    let to = match &e {
                        Effect::Notify(sid, _) => core.audience(Some(*sid)),
                        Effect::NotifyAll(_) => core.audience(None),
                        _ => Vec::new(),
                    };
                    (e, to)
                })
                .collect();
            let shares = effects
                .iter()
                .any(|(e, _)| matches!(e, Effect::Scopes))
                .then(|| core.shares_to_keep());
            (r, effects, shares)
        };
        self.perform(effects);
        if let Some(shares) = shares {
            self.keep_shares(shares);
        }
        r
    }

    /// Registers the sink of connection `conn`'s notifications.
    pub fn add_sink(&self, conn: ConnId, sink: Sink) {
        self.sinks_lock().insert(conn, sink);
    }

    /// Drops the sink of connection `conn` (it closed).
    pub fn remove_sink(&self, conn: ConnId) {
        self.sinks_lock().remove(&conn);
    }

    fn sinks_lock(&self) -> MutexGuard<'_, HashMap<ConnId, Sink>> {
        self.sinks.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands `event` to the sinks of `conns`, serialised once.
    fn notify(&self, conns: &[ConnId], event: AgentEvent) {
        if conns.is_empty() {
            return;
        }
        // Our own notification types always serialise.
        let Ok(line) = serde_json::to_vec(&Notification::new(event)) else {
            return;
        };
        let line = Bytes::from(line);
        let sinks = self.sinks_lock();
        for conn in conns {
            if let Some(sink) = sinks.get(conn) {
                (sink.0)(line.clone());
            }
        }
    }

    fn perform(&self, effects: Vec<(Effect, Vec<ConnId>)>) {
        let mut holds_changed = false;
        for (e, to) in effects {
            match e {
                Effect::Release(cmd) => {
                    // Detached on purpose: the release must happen even if
                    // nobody waits for it. Spawned in the core's order
                    // (`cotab_shared::held::release_rank`), which the
                    // lane keeps: the daemon's runtime has one thread,
                    // which runs its tasks in the order they came.
                    drop(self.send_release(cmd));
                }
                Effect::Dropped(press) => {
                    tracing::debug!(press = press.0, "held input dropped with its tab or lane");
                }
                Effect::Notify(_, event) | Effect::NotifyAll(event) => self.notify(&to, event),
                Effect::Controllers(tabs) => {
                    self.send_controllers(tabs);
                    self.leases_changed.send_modify(|n| *n += 1);
                    holds_changed = true;
                }
                Effect::Scopes => {
                    self.scopes_changed.send_modify(|n| *n += 1);
                    holds_changed = true;
                }
                Effect::Agents(names) => {
                    self.lane.send_oneway(&HostToExtension::Agents { names });
                }
                Effect::Undo(cmd) => self.send_undo(cmd.tab, cmd.method, cmd.params),
            }
        }
        if holds_changed {
            self.update_holds();
        }
    }

    /// Sends a paired release (class `Release`) in its own task, so it
    /// happens even if the caller goes away. A failure is logged, never
    /// retried.
    pub(crate) fn send_release(
        &self,
        cmd: ReleaseCmd,
    ) -> tokio::task::JoinHandle<Result<Value, WireError>> {
        let lane = self.lane.clone();
        let deadline = Instant::now() + self.default_deadline;
        tokio::spawn(async move {
            let r = lane
                .call(
                    Command::Release(CdpCall::new(cmd.tab, cmd.method, cmd.params)),
                    deadline,
                )
                .await;
            if let Err(e) = &r {
                tracing::warn!(tab = %cmd.tab, method = cmd.method, kind = %e.kind, "a paired release failed");
            }
            r
        })
    }

    /// Sends a CDP command of the daemon's own — one that undoes state it
    /// set, or holds the tab's navigations — as class `Release`, so it
    /// runs whoever controls the tab, in its own task; a failure is
    /// logged.
    pub(crate) fn send_detached<C: CdpCommand>(&self, tab: TabId, command: &C) {
        self.send_undo(tab, C::METHOD, command.params());
    }

    /// [`Shell::send_detached`] of a command already encoded.
    ///
    /// With the browser connected it goes out now, ahead of whatever is
    /// sent after it: the commands of the next session on the tab, which
    /// may set up again what it undoes, come after it. Otherwise it waits
    /// for the browser, as a release does.
    fn send_undo(&self, tab: TabId, method: &'static str, params: Value) {
        let command = Command::Release(CdpCall::new(tab, method, params));
        let failed = move |e: WireError| {
            tracing::warn!(%tab, method, kind = %e.kind, "a command of the daemon's own failed");
        };
        if let Some(answer) = self.lane.send_now(&command) {
            drop(tokio::spawn(async move {
                if let Ok(Err(e)) = answer.await {
                    failed(e);
                }
            }));
            return;
        }
        let lane = self.lane.clone();
        let deadline = Instant::now() + self.default_deadline;
        // Detached on purpose: it must run even if the request is gone.
        drop(tokio::spawn(async move {
            if let Err(e) = lane.call(command, deadline).await {
                failed(e);
            }
        }));
    }

    /// A browser connection said hello and became the lane's connection.
    /// Whatever the previous one left (held input, leases) is gone.
    pub fn lane_attached(&self) {
        self.with_core(Core::on_lane_online);
        self.lane.send_oneway(&HostToExtension::Policy {
            file_dirs: self.local_files(),
        });
        self.tell_opened_holds();
        // A new connection's sessions run the keep-alive screencast:
        // each tab still recorded gets its video's back.
        for (tab, start) in self.videos.screencasts() {
            self.screencast(tab, &start);
        }
    }

    /// Runs `start` as `tab`'s screencast in place of the one running (a
    /// video's, or the keep-alive one back once a video ended): the
    /// browser runs one at a time and refuses a second.
    pub fn screencast(&self, tab: TabId, start: &cotab_shared::cdp::StartScreencast) {
        self.send_detached(tab, &cotab_shared::cdp::StopScreencast {});
        self.send_detached(tab, start);
    }

    /// A video started or ended: the badges and the panels say so, and
    /// the videos kept are brought within their bounds (off the daemon's
    /// thread).
    pub fn on_videos_changed(&self) {
        self.tell_controllers();
        self.videos_changed.send_modify(|n| *n += 1);
        self.prune_videos();
    }

    /// Brings the videos kept within the activity record's bounds, off
    /// the daemon's thread.
    pub fn prune_videos(&self) {
        if let Some((dir, limits, busy)) = self.videos.pruning() {
            drop(tokio::task::spawn_blocking(move || {
                let gone = crate::video::prune(&dir, &limits, &busy);
                if gone > 0 {
                    tracing::info!(gone, "videos past the record's bounds removed");
                }
            }));
        }
    }

    /// The lane's connection closed.
    pub fn lane_lost(&self) {
        self.with_core(Core::on_lane_lost);
        // Every lease went with it: requests waiting on one look again.
        self.leases_changed.send_modify(|n| *n += 1);
    }

    /// Expires resume graces and tickets, and ends the interception of
    /// file choosers on tabs whose grace ended (decided and sent under
    /// the shell's `choosers` lock).
    pub fn tick(&self) {
        let now = std::time::Instant::now();
        let live = self.with_core(|c| {
            c.tick(now);
            c.session_ids()
        });
        let ended = self.videos.keep_sessions(&live);
        for &tab in &ended {
            self.keep_alive_screencast(tab);
        }
        if !ended.is_empty() {
            self.on_videos_changed();
        }
        let _one = self.choosers.lock().unwrap_or_else(|e| e.into_inner());
        for tab in self.with_core(|c| c.choosers_due(now)) {
            if !self.lane.send_unanswered(&intercept(tab, false)) {
                tracing::debug!(%tab, "file choosers not shown again yet: the browser link is busy or gone");
                self.with_core(|c| c.intercept_off_failed(tab, now));
            }
        }
    }

    /// A fresh connection id.
    pub fn next_conn_id(&self) -> ConnId {
        ConnId(self.next_conn.fetch_add(1, Ordering::Relaxed))
    }

    /// Changes the connection counts.
    pub fn update_counts(&self, f: impl FnOnce(&mut Counts)) {
        self.counts.send_modify(f);
    }

    /// Watches the connection counts.
    pub fn watch_counts(&self) -> watch::Receiver<Counts> {
        self.counts.subscribe()
    }
}

/// One agent connection as handlers see it.
#[derive(Debug)]
pub struct ConnState {
    /// The connection's id.
    pub id: ConnId,
    session: Mutex<Option<SessionId>>,
}

impl ConnState {
    /// A connection without a session.
    pub fn new(id: ConnId) -> Self {
        ConnState {
            id,
            session: Mutex::new(None),
        }
    }

    pub(crate) fn session(&self) -> MutexGuard<'_, Option<SessionId>> {
        self.session.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The attached session, if any (notifications go only there).
    pub fn session_id(&self) -> Option<SessionId> {
        *self.session()
    }

    /// The attached session if it is still bound to this connection: once
    /// another connection resumed it, this one has no session (no calls,
    /// no notifications).
    pub fn bound_session(&self, shell: &Shell) -> Option<SessionId> {
        let sid = self.session_id()?;
        shell.with_core(|c| c.is_bound(sid, self.id)).then_some(sid)
    }

    /// Lets the connection's session go: it stays resumable, keeping its
    /// lease and held input for the resume grace.
    pub fn close(&self, shell: &Shell) {
        let sid = self.session().take();
        if let Some(sid) = sid {
            shell.with_core(|c| c.unbind(sid, self.id, std::time::Instant::now()));
        }
    }
}

/// `Page.setInterceptFileChooserDialog` for `tab`: on (class `act`, as
/// the input it comes before) or off (class `release`: it goes even while
/// the person has control).
pub(crate) fn intercept(tab: TabId, enabled: bool) -> Command {
    let call = CdpCall::new(
        tab,
        SetInterceptFileChooserDialog::METHOD,
        SetInterceptFileChooserDialog { enabled }.params(),
    );
    if enabled {
        Command::Act(call)
    } else {
        Command::Release(call)
    }
}
