//! Which processes are the relays a test browser started: the native
//! host the browser runs for cotab's extension, told apart from the
//! daemon and from other browsers' relays by `/proc`.

use std::fs;
use std::path::Path;

/// Whether a process is the relay started for `runtime_dir`'s browser: its
/// program is `cotab-host`, its first argument the extension's origin, and
/// its environment names that runtime directory (other browsers with cotab
/// may run on the same machine).
fn is_relay(cmdline: &[u8], environ: &[u8], runtime_dir: &Path) -> bool {
    let mut argv = cmdline.split(|b| *b == 0);
    let program_ok = argv
        .next()
        .is_some_and(|a| a == b"cotab-host" || a.ends_with(b"/cotab-host"));
    let origin_ok = argv
        .next()
        .is_some_and(|a| a.starts_with(b"chrome-extension://"));
    let mut want = b"COTAB_RUNTIME_DIR=".to_vec();
    want.extend_from_slice(runtime_dir.as_os_str().as_encoded_bytes());
    program_ok && origin_ok && environ.split(|b| *b == 0).any(|e| e == want.as_slice())
}

/// The pids of the relays started for `runtime_dir`'s browser, from
/// `/proc`. A process that exits between the listing and the reads, or is
/// unreadable, is not ours.
pub fn relay_pids(runtime_dir: &Path) -> Vec<i32> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<i32> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let (Ok(cmdline), Ok(environ)) = (
                fs::read(format!("/proc/{pid}/cmdline")),
                fs::read(format!("/proc/{pid}/environ")),
            ) else {
                return false;
            };
            is_relay(&cmdline, &environ, runtime_dir)
        })
        .collect();
    pids.sort_unstable();
    pids
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nul(parts: &[&str]) -> Vec<u8> {
        let mut v = parts.join("\0").into_bytes();
        v.push(0);
        v
    }

    #[test]
    fn the_relay_is_recognised_by_program_origin_and_runtime_dir() {
        let dir = Path::new("/tmp/cotab-e2e-x/run");
        let env = nul(&["HOME=/root", "COTAB_RUNTIME_DIR=/tmp/cotab-e2e-x/run"]);
        let relay = nul(&[
            "/work/target/release/cotab-host",
            "chrome-extension://abc/",
            "--parent-window=0",
        ]);
        assert!(is_relay(&relay, &env, dir));
        // The daemon, another runtime directory, another program.
        assert!(!is_relay(
            &nul(&["/work/target/release/cotab-host", "daemon"]),
            &env,
            dir
        ));
        assert!(!is_relay(
            &relay,
            &nul(&["COTAB_RUNTIME_DIR=/tmp/cotab-e2e-y/run"]),
            dir
        ));
        assert!(!is_relay(
            &relay,
            &nul(&["COTAB_RUNTIME_DIR=/tmp/cotab-e2e-x/run/sub"]),
            dir
        ));
        assert!(!is_relay(
            &nul(&["/usr/bin/not-cotab-host", "chrome-extension://abc/"]),
            &env,
            dir
        ));
        assert!(!is_relay(b"", b"", dir));
    }
}
