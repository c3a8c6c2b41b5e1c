//! Item 1's CPU split: the CPU time one request costs each thread on its
//! way (the extension's service worker, the browser's UI and IO threads,
//! the page's renderer, the daemon, the bench's own process is left out),
//! read from `/proc` around a run of requests sent back to back. Latency
//! says how long a request waits; this says whose work it waits for, and
//! what the browser's own APIs cost against cotab's code.
//!
//! Linux only (each thread's `schedstat`, in nanoseconds, and its
//! `comm`). Threads of one role in several processes of the same kind are
//! added up.

use super::{Row, Sample};
use cotab_e2e::browser::Browser;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Requests in one run.
pub(super) const REQUESTS: usize = 1000;

/// Requests sent first and not counted (a worker that just started, a
/// function not yet optimised).
pub(super) const WARM_UP: usize = 100;

/// CPU microseconds per request by thread role, the largest first, and
/// the requests' latencies.
pub(crate) struct CpuSplit {
    pub(crate) latencies: Vec<Duration>,
    pub(crate) per_request: Vec<(String, f64)>,
}

impl CpuSplit {
    /// `role 123 µs, …; all 456 µs`, roles under 5 µs left out.
    pub(crate) fn describe(&self) -> String {
        let all: f64 = self.per_request.iter().map(|(_, us)| us).sum();
        let parts: Vec<String> = self
            .per_request
            .iter()
            .filter(|(_, us)| *us >= 5.0)
            .map(|(role, us)| format!("{role} {us:.0}"))
            .collect();
        format!("CPU µs/request: {}; all {all:.0}", parts.join(", "))
    }
}

/// The CPU times of every thread at the start of a run.
pub(super) struct Meter {
    profile: PathBuf,
    daemon: Option<i32>,
    before: BTreeMap<String, u64>,
}

impl Meter {
    /// Reads the threads' times now: the run's requests come next.
    pub(super) fn start(browser: &Browser) -> Meter {
        let profile = browser.profile_dir();
        let daemon = browser.daemon_pid();
        let before = threads(&profile, daemon);
        Meter {
            profile,
            daemon,
            before,
        }
    }

    /// The run is over: the row of its CPU split, one request per latency.
    pub(super) fn row(self, what: &str, path: &'static str, latencies: Vec<Duration>) -> Row {
        let after = threads(&self.profile, self.daemon);
        let n = latencies.len().max(1) as f64;
        let mut per_request: Vec<(String, f64)> = after
            .iter()
            .map(|(role, ns)| {
                // A thread that ended during the run takes its time along.
                let spent = ns.saturating_sub(self.before.get(role).copied().unwrap_or(0));
                (role.clone(), spent as f64 / 1e3 / n)
            })
            .filter(|(_, us)| *us > 0.0)
            .collect();
        per_request.sort_by(|a, b| b.1.total_cmp(&a.1));
        Row::new(
            "1",
            what,
            path,
            Sample::Cpu(CpuSplit {
                latencies,
                per_request,
            }),
        )
    }
}

/// CPU nanoseconds so far of every thread of the browser running on
/// `profile` (its own process and every process under it) and of the
/// daemon, by role.
fn threads(profile: &Path, daemon: Option<i32>) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    let profile = format!("--user-data-dir={}", profile.display());
    let procs = processes();
    let browser = procs
        .iter()
        .find(|p| p.args.contains(&profile) && !p.args.iter().any(|a| a.starts_with("--type=")))
        .map(|p| p.pid);
    for p in &procs {
        let kind = if Some(p.pid) == daemon {
            Kind::Daemon
        } else if browser.is_some_and(|b| descends(&procs, p.pid, b)) {
            Kind::of_chromium(&p.args)
        } else {
            continue;
        };
        let Ok(tasks) = fs::read_dir(format!("/proc/{}/task", p.pid)) else {
            continue;
        };
        for task in tasks.flatten() {
            // A thread that ended meanwhile has no files any more.
            let (Ok(comm), Some(ns)) = (
                fs::read_to_string(task.path().join("comm")),
                fs::read_to_string(task.path().join("schedstat"))
                    .ok()
                    .as_deref()
                    .and_then(schedstat_ns),
            ) else {
                continue;
            };
            *out.entry(kind.role(comm.trim_end())).or_insert(0) += ns;
        }
    }
    out
}

/// A process: its id, its parent's and its arguments.
struct Proc {
    pid: i32,
    parent: i32,
    args: Vec<String>,
}

/// Every process `/proc` shows now.
fn processes() -> Vec<Proc> {
    let Ok(dir) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| {
            let pid: i32 = e.file_name().to_str()?.parse().ok()?;
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // After the name in parentheses: the state, then the parent.
            let parent = stat
                .get(stat.rfind(')')? + 2..)?
                .split(' ')
                .nth(1)?
                .parse()
                .ok()?;
            // Chromium's child processes rewrite their command line as one
            // string, its arguments apart by spaces.
            let args = fs::read(format!("/proc/{pid}/cmdline"))
                .ok()?
                .split(|b| *b == 0 || *b == b' ')
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect();
            Some(Proc { pid, parent, args })
        })
        .collect()
}

/// Whether `pid` is `ancestor` or a process under it.
fn descends(procs: &[Proc], mut pid: i32, ancestor: i32) -> bool {
    // Bounded: a parent chain is short, and `/proc` read at two moments
    // could show a loop.
    for _ in 0..64 {
        if pid == ancestor {
            return true;
        }
        match procs.iter().find(|p| p.pid == pid) {
            Some(p) if p.parent != pid => pid = p.parent,
            _ => return false,
        }
    }
    false
}

/// The kinds of process a request crosses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Browser,
    Extension,
    Renderer,
    Network,
    Other,
    Daemon,
    /// The native messaging host the browser started (cotab's relay).
    Relay,
}

impl Kind {
    fn of_chromium(args: &[String]) -> Kind {
        if args.first().is_some_and(|a| a.ends_with("cotab-host")) {
            return Kind::Relay;
        }
        let kind = args.iter().find_map(|a| a.strip_prefix("--type="));
        match kind {
            None => Kind::Browser,
            Some("renderer") if args.iter().any(|a| a == "--extension-process") => Kind::Extension,
            Some("renderer") => Kind::Renderer,
            Some("utility") if args.iter().any(|a| a.contains("NetworkService")) => Kind::Network,
            Some(_) => Kind::Other,
        }
    }

    /// The role of a thread named `comm` (as the kernel shortens it) in a
    /// process of this kind.
    fn role(self, comm: &str) -> String {
        let main = comm == "chromium";
        let io = comm.starts_with("Chrome_IOThrea") || comm.starts_with("Chrome_ChildIOT");
        match self {
            Kind::Daemon => "daemon".into(),
            Kind::Relay => "relay".into(),
            Kind::Browser if main => "browser UI thread".into(),
            Kind::Browser if io => "browser IO thread".into(),
            Kind::Extension if comm.starts_with("ServiceWorker") => {
                "extension's service worker thread".into()
            }
            Kind::Extension if io => "extension process IO thread".into(),
            Kind::Renderer if main => "page renderer main thread".into(),
            Kind::Renderer if io => "page renderer IO thread".into(),
            Kind::Network => "network service".into(),
            Kind::Browser => "browser, other threads".into(),
            Kind::Extension => "extension process, other threads".into(),
            Kind::Renderer => "page renderer, other threads".into(),
            Kind::Other => "other browser processes".into(),
        }
    }
}

/// The CPU time a thread ran so far, in nanoseconds: the first field of
/// its `/proc/<pid>/task/<tid>/schedstat`.
pub(super) fn schedstat_ns(schedstat: &str) -> Option<u64> {
    schedstat.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_threads_cpu_time_is_the_first_field_of_its_schedstat() {
        assert_eq!(schedstat_ns("123456789 2000 31\n"), Some(123_456_789));
        assert_eq!(schedstat_ns(""), None);
        assert_eq!(schedstat_ns("x 1 2"), None);
    }

    #[test]
    fn chromium_processes_and_threads_get_their_roles() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let ext = Kind::of_chromium(&args(&[
            "chromium",
            "--type=renderer",
            "--extension-process",
        ]));
        assert_eq!(
            ext.role("ServiceWorker t"),
            "extension's service worker thread"
        );
        let page = Kind::of_chromium(&args(&["chromium", "--type=renderer"]));
        assert_eq!(page.role("chromium"), "page renderer main thread");
        let browser = Kind::of_chromium(&args(&["chromium", "--user-data-dir=/p"]));
        assert_eq!(browser.role("chromium"), "browser UI thread");
        assert_eq!(browser.role("Chrome_IOThread"), "browser IO thread");
        let net = Kind::of_chromium(&args(&[
            "chromium",
            "--type=utility",
            "--utility-sub-type=network.mojom.NetworkService",
        ]));
        assert_eq!(net, Kind::Network);
        let relay = Kind::of_chromium(&args(&["/x/cotab-host", "chrome-extension://id/"]));
        assert_eq!(relay.role("cotab-host"), "relay");
    }

    #[test]
    fn a_process_under_the_browser_is_found_through_its_parents() {
        let p = |pid, parent| Proc {
            pid,
            parent,
            args: Vec::new(),
        };
        // The browser 10, its zygote 11, a renderer 12 under the zygote.
        let procs = [p(1, 0), p(10, 1), p(11, 10), p(12, 11), p(20, 1)];
        assert!(descends(&procs, 12, 10));
        assert!(descends(&procs, 10, 10));
        assert!(!descends(&procs, 20, 10));
        assert!(!descends(&procs, 99, 10));
    }
}
