//! Repository-wide checks run as plain tests (`cargo test -p xtask`): every
//! Rust module documents what it owns, and the manifest's key yields the
//! extension id the host allows.

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
