//! The manifest's content, where each browser reads it, and the checks of
//! what is installed.

use super::*;

#[test]
fn manifest_has_the_exact_origin() {
    let v: Value =
        serde_json::from_str(&manifest_json(Path::new("/opt/cotab-host"))).expect("json");
    assert_eq!(v["name"], "dev.cotab.host");
    assert_eq!(v["path"], "/opt/cotab-host");
    assert_eq!(v["type"], "stdio");
    assert_eq!(
        v["allowed_origins"],
        serde_json::json!([format!(
            "chrome-extension://{}/",
            cotab_shared::EXTENSION_ID
        )])
    );
}

#[test]
fn a_profile_reads_its_own_folder() {
    let f = manifest_path(&Target::Profile("/p".into())).expect("path");
    assert_eq!(
        f,
        PathBuf::from("/p/NativeMessagingHosts/dev.cotab.host.json")
    );
}

#[cfg(target_os = "linux")]
#[test]
fn system_wide_folders_are_the_ones_each_browser_reads_on_linux() {
    let system = |b| manifest_path(&Target::Browser(b, Scope::System));
    for (browser, dir) in [
        (Browser::Chrome, "/etc/opt/chrome/native-messaging-hosts"),
        (
            Browser::ChromeForTesting,
            "/etc/opt/chrome_for_testing/native-messaging-hosts",
        ),
        (Browser::Chromium, "/etc/chromium/native-messaging-hosts"),
        (Browser::Edge, "/etc/opt/edge/native-messaging-hosts"),
        (Browser::Brave, "/etc/brave/native-messaging-hosts"),
    ] {
        assert_eq!(
            system(browser).expect("configured"),
            Path::new(dir).join("dev.cotab.host.json"),
            "{browser:?}"
        );
    }
    let err = system(Browser::Vivaldi).expect_err("Vivaldi reads no system folder on Linux");
    assert_eq!(err.kind(), io::ErrorKind::Unsupported);
    assert!(err.to_string().contains("vivaldi (system)"), "{err}");
}

#[test]
fn every_browser_has_a_windows_registry_key_at_both_scopes() {
    for (browser, key) in [
        (
            Browser::Chrome,
            r"Software\Google\Chrome\NativeMessagingHosts",
        ),
        (
            Browser::ChromeForTesting,
            r"Software\Google\Chrome for Testing\NativeMessagingHosts",
        ),
        (Browser::Chromium, r"Software\Chromium\NativeMessagingHosts"),
        (
            Browser::Edge,
            r"Software\Microsoft\Edge\NativeMessagingHosts",
        ),
        (
            Browser::Brave,
            r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts",
        ),
        (Browser::Vivaldi, r"Software\Vivaldi\NativeMessagingHosts"),
    ] {
        for scope in [Scope::User, Scope::System] {
            assert_eq!(
                registry_key(browser, scope).expect("a key"),
                format!(r"{key}\dev.cotab.host"),
                "{browser:?} {scope:?}"
            );
        }
        // And the file the key names, in the table for Windows.
        let cfg = native_messaging::paths::browser_cfg(browser.key()).expect("known");
        let windows = cfg.paths.windows.as_ref().expect("Windows paths");
        assert!(windows.user.is_some(), "{browser:?}");
    }
}

#[test]
fn a_manifest_is_good_only_with_exactly_our_origin_and_this_executable() {
    let dir = tempfile::tempdir().expect("dir");
    let exe = dir.path().join("cotab-host");
    std::fs::write(&exe, "").expect("exe");
    let other = dir.path().join("other-host");
    std::fs::write(&other, "").expect("exe");
    let file = dir.path().join("m.json");
    assert_eq!(check(&file, &exe), Err("it is missing".into()));
    std::fs::write(&file, "{").expect("write");
    assert_eq!(check(&file, &exe), Err("it is not JSON".into()));
    std::fs::write(&file, manifest_json(&exe)).expect("write");
    assert_eq!(check(&file, &exe), Ok(()));
    let with = |f: &dyn Fn(&mut Value)| {
        let mut v: Value = serde_json::from_str(&manifest_json(&exe)).expect("json");
        f(&mut v);
        std::fs::write(&file, v.to_string()).expect("write");
        check(&file, &exe).expect_err("refused")
    };
    let wildcard = with(&|v| v["allowed_origins"] = serde_json::json!(["chrome-extension://*/"]));
    assert!(wildcard.contains("not exactly"), "{wildcard}");
    let extra = with(&|v| {
        v["allowed_origins"]
            .as_array_mut()
            .expect("list")
            .push("chrome-extension://aaaa/".into())
    });
    assert!(extra.contains("not exactly"), "{extra}");
    let elsewhere = with(&|v| v["path"] = other.display().to_string().into());
    assert!(elsewhere.contains("is not"), "{elsewhere}");
    let gone = with(&|v| v["path"] = "/nonexistent/cotab-host".into());
    assert!(gone.contains("is not a file"), "{gone}");
    let named = with(&|v| v["name"] = "other.host".into());
    assert!(named.contains("its name"), "{named}");
}

#[cfg(unix)]
#[test]
fn a_system_wide_manifest_points_only_at_a_binary_only_root_can_replace() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().expect("dir");
    let exe = dir.path().join("cotab-host");
    std::fs::write(&exe, "").expect("exe");
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let err = system_safe(&exe).expect_err("anyone may write it");
    assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
    assert!(err.to_string().contains("not root's alone"), "{err}");
    // The temporary folder (world-writable /tmp above it) is not safe
    // either, whatever the file's mode.
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    assert!(system_safe(&exe).is_err());
}

#[test]
fn a_relative_path_is_refused() {
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("m.json");
    let mut v: Value = serde_json::from_str(&manifest_json(Path::new("/x"))).expect("json");
    v["path"] = "cotab-host".into();
    std::fs::write(&file, v.to_string()).expect("write");
    let err = check(&file, Path::new("/x")).expect_err("relative");
    assert!(err.contains("not absolute"), "{err}");
}
