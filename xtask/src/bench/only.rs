//! Which of the browser items a run measures: `COTAB_BENCH_ITEMS`, to
//! time a few items again without the whole run.

use anyhow::{bail, Result};

/// The browser items a run is limited to (`COTAB_BENCH_ITEMS`, a
/// comma-separated list of [`Only::NAMES`]); every item when unset.
pub(super) struct Only(pub(super) Option<Vec<String>>);

impl Only {
    /// The names of the browser items, in the order they run.
    const NAMES: [&'static str; 16] = [
        "evaluate",
        "move",
        "click",
        "ref-click",
        "frames",
        "panel",
        "scope",
        "asks",
        "type",
        "press",
        "snapshots",
        "captures",
        "video",
        "restarts",
        "cpu",
        "endpoint",
    ];

    /// The items `COTAB_BENCH_ITEMS` names, or every item when it is
    /// unset.
    pub(super) fn from_env() -> Result<Only> {
        match std::env::var("COTAB_BENCH_ITEMS") {
            Ok(list) => Only::parse(&list),
            Err(_) => Ok(Only(None)),
        }
    }

    /// The items of a comma-separated `list`; a name no item has fails,
    /// as does a list that names none.
    fn parse(list: &str) -> Result<Only> {
        let names: Vec<String> = list
            .split(',')
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty())
            .collect();
        if let Some(bad) = names.iter().find(|n| !Self::NAMES.contains(&n.as_str())) {
            bail!(
                "COTAB_BENCH_ITEMS names no item `{bad}`; the items are {}",
                Self::NAMES.join(", ")
            );
        }
        if names.is_empty() {
            bail!(
                "COTAB_BENCH_ITEMS names no item; the items are {}",
                Self::NAMES.join(", ")
            );
        }
        Ok(Only(Some(names)))
    }

    /// Whether the item `name` runs.
    pub(super) fn runs(&self, name: &str) -> bool {
        self.0
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name))
    }
}

#[cfg(test)]
mod tests {
    use super::Only;

    #[test]
    fn only_the_items_named_run_and_a_bad_name_runs_none() {
        let only = Only::parse(" click, evaluate ,").expect("two items");
        assert!(only.runs("click") && only.runs("evaluate"));
        assert!(!only.runs("captures"));
        assert!(Only(None).runs("captures"));
        let bad = Only::parse("click,clicks").err().expect("no item `clicks`");
        assert!(bad.to_string().contains("`clicks`"), "{bad}");
        assert!(Only::parse(" , ").is_err());
    }
}
