//! `cotab-host install`, `verify` and `uninstall` for every browser of
//! this user, under a temporary HOME, through the real binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const HOST: &str = env!("CARGO_BIN_EXE_cotab-host");

fn host(home: &Path, args: &[&str]) -> Output {
    Command::new(HOST)
        .args(args)
        .env("HOME", home)
        .env_remove("NATIVE_MESSAGING_BROWSERS_CONFIG")
        .output()
        .expect("cotab-host runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Each browser's per-user folder on Linux, under `home`.
fn folders(home: &Path) -> Vec<(&'static str, PathBuf)> {
    [
        ("chrome", ".config/google-chrome"),
        ("chrome-for-testing", ".config/google-chrome-for-testing"),
        ("chromium", ".config/chromium"),
        ("edge", ".config/microsoft-edge"),
        ("brave", ".config/BraveSoftware/Brave-Browser"),
        ("vivaldi", ".config/vivaldi"),
    ]
    .into_iter()
    .map(|(name, dir)| (name, home.join(dir)))
    .collect()
}

fn manifest(folder: &Path) -> PathBuf {
    folder.join("NativeMessagingHosts/dev.cotab.host.json")
}

#[test]
fn install_verify_and_uninstall_cover_every_browser_of_this_user() {
    let home = tempfile::tempdir().expect("home");
    let home = home.path();
    let exe = Path::new(HOST).canonicalize().expect("canonical");

    // No browser here: the default finds none, and says how to go on.
    let out = host(home, &["install"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--browser, or use --all"),
        "{out:?}"
    );

    // The default is the browsers this user has: Chromium and Brave.
    let all = folders(home);
    for (name, dir) in &all {
        if ["chromium", "brave"].contains(name) {
            std::fs::create_dir_all(dir).expect("profile folder");
            std::fs::write(dir.join("Local State"), "{}").expect("a browser that ran");
        }
    }
    let out = host(home, &["install"]);
    assert!(out.status.success(), "{out:?}");
    for (name, dir) in &all {
        let wanted = ["chromium", "brave"].contains(name);
        assert_eq!(manifest(dir).is_file(), wanted, "{name}: {}", stdout(&out));
    }
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(manifest(&all[2].1)).expect("manifest"))
            .expect("json");
    assert_eq!(v["path"], exe.display().to_string());
    assert_eq!(
        v["allowed_origins"],
        serde_json::json!([cotab_shared::extension_origin(cotab_shared::EXTENSION_ID)])
    );

    // --all: every browser, folders made as needed; verify says so.
    let out = host(home, &["install", "--all"]);
    assert!(out.status.success(), "{out:?}");
    for (name, dir) in &all {
        assert!(manifest(dir).is_file(), "{name}");
    }
    let out = host(home, &["verify"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        stdout(&out).lines().filter(|l| l.contains(": ok ")).count(),
        6,
        "{out:?}"
    );
    // The folders --all made do not make those browsers look installed.
    std::fs::remove_file(manifest(&all[0].1)).expect("chrome's manifest");
    let out = host(home, &["verify"]);
    assert!(out.status.success(), "chrome has not run here: {out:?}");
    assert!(!stdout(&out).contains("chrome:"), "{out:?}");
    let out = host(home, &["install", "--browser", "chrome"]);
    assert!(out.status.success(), "{out:?}");

    // A manifest tampered with fails verify, which names the fix.
    let edge = manifest(&all[3].1);
    let text = std::fs::read_to_string(&edge).expect("manifest");
    std::fs::write(
        &edge,
        text.replace("chrome-extension://", "chrome-extension://x"),
    )
    .expect("write");
    let out = host(
        home,
        &["verify", "--browser", "edge", "--browser", "chrome"],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = stdout(&out);
    assert!(text.contains("chrome: ok "), "{text}");
    assert!(
        text.contains("edge: FAILED: ")
            && text.contains("not exactly")
            && text.contains("fix: cotab-host install --browser edge"),
        "{text}"
    );

    // Uninstall one, then the rest.
    let out = host(home, &["uninstall", "--browser", "vivaldi"]);
    assert!(out.status.success(), "{out:?}");
    assert!(!manifest(&all[5].1).exists());
    assert!(manifest(&all[0].1).exists());
    let out = host(home, &["uninstall"]);
    assert!(out.status.success(), "{out:?}");
    for (name, dir) in &all {
        assert!(!manifest(dir).exists(), "{name}");
    }
    let out = host(home, &["uninstall"]);
    assert!(
        stdout(&out).contains("no cotab host manifest was installed"),
        "{out:?}"
    );
    let out = host(home, &["verify", "--browser", "chromium"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(stdout(&out).contains("it is missing"), "{out:?}");
}

#[test]
fn a_profile_gets_its_own_manifest_and_bad_choices_are_refused() {
    let home = tempfile::tempdir().expect("home");
    let profile = home.path().join("profile");
    let dir = profile.display().to_string();
    let out = host(
        home.path(),
        &["install", "--browser", "chromium", "--user-data-dir", &dir],
    );
    assert!(out.status.success(), "{out:?}");
    assert!(profile
        .join("NativeMessagingHosts/dev.cotab.host.json")
        .is_file());
    let out = host(home.path(), &["verify", "--user-data-dir", &dir]);
    assert!(out.status.success(), "{out:?}");
    // Usage errors: clap's exit code 2, nothing written.
    for args in [
        &["install", "--all", "--browser", "chrome"][..],
        &["install", "--system", "--user-data-dir", &dir],
        &["install", "--browser", "netscape"],
    ] {
        let out = host(home.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
    }
    // Another browser table from the environment is refused, with or
    // without --browser, and uninstall does not claim there was none.
    for args in [
        &["install", "--browser", "chrome"][..],
        &["install"],
        &["uninstall"],
        &["verify"],
    ] {
        let out = Command::new(HOST)
            .args(args)
            .env("HOME", home.path())
            .env(
                "NATIVE_MESSAGING_BROWSERS_CONFIG",
                home.path().join("evil.toml"),
            )
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains("NATIVE_MESSAGING_BROWSERS_CONFIG is set"),
            "{args:?}: {out:?}"
        );
    }
    assert!(!home.path().join(".config/google-chrome").exists());
}
