//! Repository-wide checks run as plain tests (`cargo test -p xtask`): every
//! Rust module documents what it owns, no source file grows past what one
//! can hold in one's head, the core crate stays sans-IO (its dependencies
//! and its code), no folder of any crate (shared, extension, the native
//! host's, tests, xtask) holds modules on a circle (the worker's form
//! layers), the extension's policy modules name no browser API, the
//! protocol document names every method, and the manifest's key yields
//! the extension id the host allows.

#[cfg(test)]
mod tests {
    use base64::Engine as _;
    use sha2::{Digest, Sha256};
    use std::fs;
    use std::path::{Path, PathBuf};

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("xtask lives one level below the root")
            .to_path_buf()
    }

    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    #[test]
    fn every_module_starts_with_a_doc_comment() {
        let mut files = Vec::new();
        for krate in ["shared", "native-host", "extension", "tests", "xtask"] {
            rust_files(&root().join(krate), &mut files);
        }
        assert!(files.len() > 10, "found only {} Rust files", files.len());
        let missing: Vec<_> = files
            .iter()
            .filter(|f| {
                let text = fs::read_to_string(f).unwrap_or_default();
                let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                !first.starts_with("//!")
            })
            .collect();
        assert!(
            missing.is_empty(),
            "modules without a `//!` doc: {missing:#?}"
        );
    }

    /// Longest a Rust source file may be.
    const MAX_LINES: usize = 800;

    /// Files longer than [`MAX_LINES`] today, each with the most lines it
    /// may have: a limit may only go down (split the file instead), and a
    /// file back under [`MAX_LINES`] leaves the list.
    const LONG_FILES: &[(&str, usize)] = &[];

    #[test]
    fn no_source_file_grows_past_what_one_can_hold_in_ones_head() {
        let root = root();
        let mut files = Vec::new();
        for krate in [
            "shared",
            "native-host",
            "extension",
            "tests",
            "xtask",
            "fuzz",
        ] {
            rust_files(&root.join(krate), &mut files);
        }
        let mut problems = Vec::new();
        for file in &files {
            let name = file
                .strip_prefix(&root)
                .unwrap_or(file)
                .display()
                .to_string();
            if name.contains("/target/") {
                continue;
            }
            let lines = fs::read_to_string(file).unwrap_or_default().lines().count();
            match LONG_FILES.iter().find(|(n, _)| *n == name) {
                Some((_, limit)) if lines > *limit => problems.push(format!(
                    "{name}: {lines} lines, more than its {limit}: split it"
                )),
                Some(_) if lines <= MAX_LINES => problems.push(format!(
                    "{name}: {lines} lines, no longer long: take it off LONG_FILES"
                )),
                None if lines > MAX_LINES => {
                    problems.push(format!("{name}: {lines} lines, over {MAX_LINES}: split it"))
                }
                _ => {}
            }
        }
        for (name, _) in LONG_FILES {
            if !root.join(name).is_file() {
                problems.push(format!("{name} is gone: take it off LONG_FILES"));
            }
        }
        assert!(problems.is_empty(), "{problems:#?}");
    }

    /// What the sans-IO broker core must never touch: an async runtime,
    /// logging, the clock, files or sockets (its tests may read the
    /// clock).
    const NOT_IN_THE_CORE: &[&str] = &[
        "tokio",
        "tracing",
        "Instant::now",
        "SystemTime",
        "std::fs",
        "std::net",
        "std::thread",
    ];

    /// What `cotab-core` may depend on: the protocol and pure helpers,
    /// none of which does I/O of its own.
    const CORE_DEPENDENCIES: &[&str] = &[
        "cotab-shared",
        "serde",
        "serde_json",
        "base64",
        "getrandom",
        "url",
        // Line diffs of outlines; it reads the clock only to stop at the
        // deadline its caller hands in (`outline::changes::diff`).
        "similar",
        // The Public Suffix List, compiled in (`scope::site_of`).
        "psl",
    ];

    /// The names of a `Cargo.toml` section's entries (`[dependencies]`).
    fn section_names(manifest: &str, section: &str) -> Vec<String> {
        let mut names = Vec::new();
        let mut inside = false;
        for line in manifest.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                inside = line == section;
                continue;
            }
            if inside && !line.is_empty() && !line.starts_with('#') {
                if let Some((name, _)) = line.split_once('=') {
                    names.push(name.trim().trim_end_matches(".workspace").to_owned());
                }
            }
        }
        names
    }

    #[test]
    fn the_core_crate_depends_on_nothing_that_does_io() {
        let manifest = fs::read_to_string(root().join("native-host/core/Cargo.toml"))
            .expect("cotab-core's manifest");
        let deps = section_names(&manifest, "[dependencies]");
        assert!(deps.contains(&"cotab-shared".to_owned()), "{deps:?}");
        let extra: Vec<&String> = deps
            .iter()
            .filter(|d| !CORE_DEPENDENCIES.contains(&d.as_str()))
            .collect();
        assert!(
            extra.is_empty(),
            "cotab-core depends on {extra:?}: the core does no I/O (CORE_DEPENDENCIES)"
        );
    }

    /// The crates of agents' programs: they reach the daemon through
    /// `cotab-client` only, never through its own crate.
    const AGENT_SIDE: &[&str] = &[
        "native-host/client",
        "native-host/mcp",
        "native-host/cdp",
        "native-host/cli",
    ];

    #[test]
    fn agents_programs_never_depend_on_the_daemons_crate() {
        for krate in AGENT_SIDE {
            let manifest = fs::read_to_string(root().join(krate).join("Cargo.toml"))
                .unwrap_or_else(|e| panic!("{krate}'s manifest: {e}"));
            for section in ["[dependencies]", "[dev-dependencies]"] {
                let deps = section_names(&manifest, section);
                assert!(
                    !deps
                        .iter()
                        .any(|d| d == "cotab-daemon" || d == "cotab-host"),
                    "{krate} depends on the daemon in {section}: {deps:?}"
                );
            }
        }
        // The scan reads what it should: the CLI's own dependencies.
        let cli = fs::read_to_string(root().join("native-host/cli/Cargo.toml")).expect("cli");
        assert!(section_names(&cli, "[dependencies]").contains(&"cotab-mcp".to_owned()));
    }

    #[test]
    fn the_broker_core_does_no_io_keeps_no_clock_and_logs_nothing() {
        let mut files = Vec::new();
        rust_files(&root().join("native-host/core/src"), &mut files);
        assert!(files.len() > 10, "no core sources found");
        let mut found = Vec::new();
        for file in files {
            let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.ends_with("tests.rs") {
                continue;
            }
            let text = fs::read_to_string(&file).unwrap_or_default();
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                for word in NOT_IN_THE_CORE {
                    if code.contains(word) {
                        found.push(format!("{}:{}: {word}", file.display(), n + 1));
                    }
                }
            }
        }
        assert!(found.is_empty(), "the broker core reaches out: {found:#?}");
    }

    /// The modules of `dir` (a directory counts as one; `lib.rs` and
    /// `mod.rs`, the roots, are left out) and the ones each names after
    /// `prefix` (`crate::` or `super::`, with `{…}` groups read item by
    /// item) in its code outside tests and comments.
    fn module_uses(dir: &Path, prefix: &str) -> Vec<(String, Vec<String>)> {
        let mut modules: Vec<(String, Vec<PathBuf>)> = Vec::new();
        for entry in fs::read_dir(dir).expect("a source directory").flatten() {
            let path = entry.path();
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            if stem == "lib" || stem == "mod" {
                continue;
            }
            let mut files = Vec::new();
            if path.is_dir() {
                rust_files(&path, &mut files);
            } else {
                files.push(path.clone());
            }
            modules.push((stem.to_owned(), files));
        }
        let names: Vec<String> = modules.iter().map(|(n, _)| n.clone()).collect();
        modules
            .into_iter()
            .map(|(name, files)| {
                let mut uses = Vec::new();
                for file in files {
                    if file.file_name().is_some_and(|n| n == "tests.rs") {
                        continue;
                    }
                    let text = fs::read_to_string(&file).unwrap_or_default();
                    let code: String = text
                        .split("#[cfg(test)]")
                        .next()
                        .unwrap_or("")
                        .lines()
                        .map(|l| l.split("//").next().unwrap_or(""))
                        .collect::<Vec<_>>()
                        .join(" ");
                    for (at, _) in code.match_indices(prefix) {
                        for used in used_names(&code[at + prefix.len()..]) {
                            if used != name && names.contains(&used) && !uses.contains(&used) {
                                uses.push(used);
                            }
                        }
                    }
                }
                uses.sort();
                (name, uses)
            })
            .collect()
    }

    /// The first path segment of what `rest` (the text after a `crate::`
    /// or `super::`) names: one name, or each item of a `{…}` group.
    fn used_names(rest: &str) -> Vec<String> {
        let ident = |s: &str| -> String {
            s.trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        };
        let Some(group) = rest.strip_prefix('{') else {
            return vec![ident(rest)];
        };
        let mut depth = 0;
        let mut items = vec![String::new()];
        for c in group.chars() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => items.push(String::new()),
                _ => {}
            }
            if let Some(item) = items.last_mut() {
                item.push(c);
            }
        }
        items
            .iter()
            .map(|i| ident(i.trim_start_matches(',')))
            .collect()
    }

    /// The modules of `uses` on a circle (each with what it uses): what is
    /// left once Kahn's algorithm took every module whose uses are taken.
    fn on_a_circle(uses: &[(String, Vec<String>)]) -> Vec<(String, Vec<String>)> {
        let mut left = uses.to_vec();
        let mut taken: Vec<String> = Vec::new();
        while let Some(at) = left
            .iter()
            .position(|(_, u)| u.iter().all(|m| taken.contains(m)))
        {
            taken.push(left.remove(at).0);
        }
        left
    }

    #[test]
    fn the_shared_crates_modules_form_no_circle() {
        let uses = module_uses(&root().join("shared/src"), "crate::");
        assert!(uses.len() > 8, "found only {} shared modules", uses.len());
        assert!(
            uses.iter()
                .any(|(m, u)| m == "native" && u.contains(&"cdp".to_owned())),
            "the scan sees no use at all: {uses:?}"
        );
        let left = on_a_circle(&uses);
        assert!(
            left.is_empty(),
            "shared modules on a circle (each with what it uses): {left:#?}"
        );
    }

    #[test]
    fn the_extensions_modules_form_no_circle() {
        let uses = module_uses(&root().join("extension/src"), "crate::");
        assert!(
            uses.iter()
                .any(|(m, u)| m == "worker" && u.contains(&"state".to_owned())),
            "the scan sees no use at all: {uses:?}"
        );
        let left = on_a_circle(&uses);
        assert!(
            left.is_empty(),
            "extension modules on a circle (each with what it uses): {left:#?}"
        );
    }

    /// Every directory of `src` whose modules see each other, with the
    /// prefix they name each other by: the crate's root (`crate::`), a
    /// binary's own root under `bin/` (`crate::`), and every folder of
    /// modules below (`super::`).
    fn module_folders(src: &Path, out: &mut Vec<(PathBuf, &'static str)>) {
        let root = src.ends_with("src") || src.parent().is_some_and(|p| p.ends_with("bin"));
        out.push((src.to_path_buf(), if root { "crate::" } else { "super::" }));
        let Ok(entries) = fs::read_dir(src) else {
            return;
        };
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        for dir in dirs {
            if dir.ends_with("tests") {
                continue;
            }
            module_folders(&dir, out);
        }
    }

    #[test]
    fn no_folder_of_any_crate_holds_modules_on_a_circle() {
        let mut folders = Vec::new();
        for krate in [
            "shared",
            "extension",
            "native-host/core",
            "native-host/local",
            "native-host/client",
            "native-host/daemon",
            "native-host/mcp",
            "native-host/cdp",
            "native-host/cli",
            "native-host/install",
            "native-host",
            "tests",
            "xtask",
        ] {
            module_folders(&root().join(krate).join("src"), &mut folders);
        }
        assert!(folders.len() > 15, "found only {} folders", folders.len());
        let mut seen_a_use = false;
        let mut circles = Vec::new();
        for (dir, prefix) in &folders {
            let uses = module_uses(dir, prefix);
            seen_a_use |= uses.iter().any(|(_, u)| !u.is_empty());
            let left = on_a_circle(&uses);
            if !left.is_empty() {
                circles.push((dir.strip_prefix(root()).unwrap_or(dir).to_owned(), left));
            }
        }
        assert!(seen_a_use, "the scan sees no use at all");
        assert!(
            circles.is_empty(),
            "modules on a circle, by folder (each with what it uses): {circles:#?}"
        );
    }

    #[test]
    fn the_workers_modules_form_layers() {
        let uses = module_uses(&root().join("extension/src/worker"), "super::");
        assert!(uses.len() > 10, "found only {} worker modules", uses.len());
        assert!(
            uses.iter()
                .any(|(m, u)| m == "share" && u.contains(&"held_input".to_owned())),
            "the scan sees no use at all: {uses:?}"
        );
        let left = on_a_circle(&uses);
        assert!(
            left.is_empty(),
            "worker modules on a circle (each with what it uses): {left:#?}"
        );
    }

    /// What the extension's policy modules may not name: they are plain
    /// Rust, tested on the host, and the worker's glue runs what they
    /// decide.
    const NOT_IN_THE_POLICY: &[&str] = &[
        "wasm_bindgen",
        "js_sys",
        "web_sys",
        "gloo",
        "JsValue",
        "crate::chrome",
        "crate::worker",
        "crate::log",
        "crate::popup",
    ];

    #[test]
    fn the_extensions_policy_modules_name_no_browser_api() {
        let glue = ["lib.rs", "log.rs", "popup.rs", "trace.rs"];
        let mut checked = 0;
        let mut found = Vec::new();
        for entry in fs::read_dir(root().join("extension/src"))
            .expect("extension/src")
            .flatten()
        {
            let path = entry.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() || glue.contains(&name) {
                continue;
            }
            checked += 1;
            let text = fs::read_to_string(&path).unwrap_or_default();
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                for word in NOT_IN_THE_POLICY {
                    if code.contains(word) {
                        found.push(format!("{}:{}: {word}", path.display(), n + 1));
                    }
                }
            }
        }
        assert!(checked > 8, "found only {checked} policy modules");
        assert!(
            found.is_empty(),
            "policy modules reach the browser: {found:#?}"
        );
    }

    #[test]
    fn the_protocol_document_names_every_method() {
        let doc = fs::read_to_string(root().join("docs/protocol.md")).expect("docs/protocol.md");
        let missing: Vec<&str> = cotab_shared::controller::Call::METHODS
            .iter()
            .copied()
            .filter(|m| !doc.contains(&format!("`{m}")))
            .collect();
        assert!(
            missing.is_empty(),
            "methods docs/protocol.md does not name: {missing:?}"
        );
    }

    #[test]
    fn manifest_key_gives_the_extension_id() {
        let manifest: serde_json::Value = serde_json::from_str(
            &fs::read_to_string(root().join("manifest.json")).expect("manifest.json"),
        )
        .expect("manifest.json is JSON");
        let key = manifest["key"].as_str().expect("manifest has a key");
        let der = base64::engine::general_purpose::STANDARD
            .decode(key)
            .expect("key is base64");
        let digest = Sha256::digest(&der);
        let id: String = digest[..16]
            .iter()
            .flat_map(|b| [b >> 4, b & 0xf])
            .map(|n| char::from(b'a' + n))
            .collect();
        assert_eq!(id, cotab_shared::EXTENSION_ID);
    }

    #[test]
    fn manifest_version_matches_the_crates() {
        let manifest: serde_json::Value = serde_json::from_str(
            &fs::read_to_string(root().join("manifest.json")).expect("manifest.json"),
        )
        .expect("manifest.json is JSON");
        assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
    }
}
