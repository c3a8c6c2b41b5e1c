//! The release archive, unpacked and installed as a person would.

use super::*;

fn read_tar_gz(archive: &Path, into: &Path) {
    let file = fs::File::open(archive).expect("archive");
    tar::Archive::new(flate2::read::GzDecoder::new(file))
        .unpack(into)
        .expect("unpacks");
}

#[test]
fn the_archive_unpacks_and_installs_for_every_browser_of_a_user() {
    let root = cotab_e2e::workspace_root();
    let extension = root.join("dist").join("extension");
    assert!(
        extension.join("manifest.json").is_file(),
        "run `cargo xtask build-extension` first (cargo xtask test does)"
    );
    let cotab = cotab_e2e::binary("cotab").expect("cotab built");
    let bin_dir = cotab.parent().expect("a folder").to_path_buf();
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("out");
    let made = package(
        &Inputs {
            version: "9.9.9",
            target: "test-target",
            bin_dir: &bin_dir,
            extension: &extension,
            readme: &root.join("README.md"),
            // The debug binaries are large: stored, not compressed (the
            // level changes nothing else).
            level: 0,
        },
        &out,
    )
    .expect("packaged");
    assert_eq!(made.archive, out.join("cotab-9.9.9-test-target.tar.gz"));
    assert_eq!(made.extension_zip, out.join("cotab-extension-9.9.9.zip"));

    // The checksums are those of the files, as sha256sum writes them.
    let sums = write_sums(&out, &[made.archive.clone(), made.extension_zip.clone()]).expect("sums");
    assert_eq!(sums, out.join("SHA256SUMS"));
    let sums = fs::read_to_string(&sums).expect("sums");
    for f in [&made.archive, &made.extension_zip] {
        let line = format!(
            "{}  {}",
            hex(&Sha256::digest(fs::read(f).expect("file"))),
            f.file_name().and_then(|n| n.to_str()).expect("name")
        );
        assert!(sums.lines().any(|l| l == line), "{line} in {sums}");
    }

    // The zip has the extension's manifest, with its key, at its root.
    let mut zip =
        zip::ZipArchive::new(fs::File::open(&made.extension_zip).expect("zip")).expect("a zip");
    let mut manifest = String::new();
    std::io::Read::read_to_string(
        &mut zip
            .by_name("manifest.json")
            .expect("manifest.json at the root"),
        &mut manifest,
    )
    .expect("read");
    let manifest: serde_json::Value = serde_json::from_str(&manifest).expect("json");
    assert!(manifest["key"].is_string(), "the key fixes the id");
    let names: Vec<String> = zip
        .file_names()
        .map(|n| n.expect("a name").into_owned())
        .collect();
    assert_eq!(
        names.len(),
        files_under(&extension).expect("files").len(),
        "{names:?}"
    );

    // Unpacked: one top folder, executables executable, the rest there.
    let unpacked = tmp.path().join("unpacked");
    read_tar_gz(&made.archive, &unpacked);
    let top = unpacked.join("cotab-9.9.9-test-target");
    for f in [
        "bin/cotab",
        "bin/cotab-host",
        "install.sh",
        "extension/manifest.json",
        "cotab-extension-9.9.9.zip",
        "README.md",
        "completions/cotab.bash",
        "man/cotab.1",
    ] {
        assert!(top.join(f).is_file(), "{f} missing");
    }
    use std::os::unix::fs::PermissionsExt as _;
    for f in ["bin/cotab", "bin/cotab-host", "install.sh"] {
        let mode = fs::metadata(top.join(f))
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "{f} is not executable: {mode:o}");
    }

    // install.sh under a fresh HOME: the binaries in PREFIX/bin, and
    // every browser's manifest pointing at the installed cotab-host.
    let home = tmp.path().join("home");
    let prefix = tmp.path().join("prefix");
    fs::create_dir_all(&home).expect("home");
    let run = Command::new("sh")
        .arg(top.join("install.sh"))
        .arg("--all")
        .env("HOME", &home)
        .env("PREFIX", &prefix)
        .env_remove("NATIVE_MESSAGING_BROWSERS_CONFIG")
        .output()
        .expect("install.sh runs");
    assert!(run.status.success(), "{run:?}");
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(text.contains("Load unpacked"), "{text}");
    let host = prefix
        .join("bin/cotab-host")
        .canonicalize()
        .expect("installed");
    let manifest = home.join(".config/chromium/NativeMessagingHosts/dev.cotab.host.json");
    let v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&manifest).expect("manifest")).expect("json");
    assert_eq!(v["path"], host.display().to_string());
    let verify = Command::new(&host)
        .arg("verify")
        .env("HOME", &home)
        .output()
        .expect("verify runs");
    assert!(verify.status.success(), "{verify:?}");
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_in_the_extension_is_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let ext = tmp.path().join("extension");
    fs::create_dir_all(&ext).expect("dir");
    fs::write(ext.join("manifest.json"), "{}").expect("file");
    std::os::unix::fs::symlink("/etc/passwd", ext.join("passwd")).expect("link");
    let err = files_under(&ext).expect_err("a link");
    assert!(err.to_string().contains("symbolic link"), "{err}");
}

#[test]
fn dist_takes_each_target_once_and_the_hosts_by_default() {
    let host = "x86_64-unknown-linux-gnu";
    assert_eq!(targets_of(Vec::new(), host), vec![host]);
    let asked = [
        "aarch64-unknown-linux-gnu",
        "x86_64-unknown-linux-musl",
        "aarch64-unknown-linux-gnu",
    ];
    assert_eq!(
        targets_of(asked.iter().map(|s| s.to_string()).collect(), host),
        vec!["aarch64-unknown-linux-gnu", "x86_64-unknown-linux-musl"]
    );
    assert!(triple("x86_64-unknown-linux-gnu").is_ok());
    for bad in ["", "a b", "x/y"] {
        assert!(triple(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn a_cross_target_gets_its_c_compiler_and_linker_unless_they_are_set() {
    let aarch64 = CROSS
        .iter()
        .find(|c| c.target == "aarch64-unknown-linux-gnu")
        .expect("known");
    let pairs = |env: Vec<(String, String)>| {
        env.into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        pairs(aarch64.env(|_| false)),
        vec![
            "CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc",
            "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc",
        ]
    );
    // What the caller set stays theirs.
    assert_eq!(
        pairs(aarch64.env(|k| k.starts_with("CC_"))),
        vec!["CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc"]
    );
    let musl = CROSS
        .iter()
        .find(|c| c.target == "x86_64-unknown-linux-musl")
        .expect("known");
    assert_eq!(
        pairs(musl.env(|_| false)),
        vec!["CC_x86_64_unknown_linux_musl=musl-gcc"]
    );
}
