//! What the popup shows, decided without the DOM: one row per tab of the
//! window, with the action its button offers.
//!
//! The `popup` module turns these rows into elements; the data attributes
//! it writes are the end-to-end tests' contract (see the crate docs).

use crate::messages::ChromeTab;
use crate::policy::check_shareable;
use cotab_shared::TabId;

/// What a tab's button does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowAction {
    /// The tab can be shared: `data-action="share"`.
    Share,
    /// The tab is shared: `data-action="unshare"`.
    Unshare,
    /// The tab cannot be shared, for this short reason; the button is
    /// disabled and has no `data-action`.
    Unavailable(&'static str),
}

impl RowAction {
    /// The `data-action` value, if the button is enabled.
    pub fn data_action(&self) -> Option<&'static str> {
        match self {
            RowAction::Share => Some("share"),
            RowAction::Unshare => Some("unshare"),
            RowAction::Unavailable(_) => None,
        }
    }

    /// The button's label.
    pub fn label(&self) -> &'static str {
        match self {
            RowAction::Unshare => "Unshare",
            RowAction::Share | RowAction::Unavailable(_) => "Share",
        }
    }
}

/// One tab in the popup's list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The tab.
    pub tab_id: TabId,
    /// Its url (`data-url`).
    pub url: String,
    /// Its title, or its url when it has none.
    pub label: String,
    /// What its button does.
    pub action: RowAction,
}

/// The rows for `tabs`, given the ids of the shared tabs. Tabs without an id
/// are left out.
pub fn rows(tabs: &[ChromeTab], shared: &[TabId]) -> Vec<Row> {
    tabs.iter()
        .filter_map(|tab| {
            let tab_id = tab.id?;
            let url = tab.effective_url().to_owned();
            let action = if shared.contains(&tab_id) {
                RowAction::Unshare
            } else {
                match check_shareable(&url) {
                    Ok(()) => RowAction::Share,
                    Err(blocked) => RowAction::Unavailable(blocked.reason()),
                }
            };
            let label = match tab.title.as_deref() {
                Some(title) if !title.trim().is_empty() => title.to_owned(),
                _ => url.clone(),
            };
            Some(Row {
                tab_id,
                url,
                label,
                action,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tab(id: Option<i32>, url: &str, title: &str) -> ChromeTab {
        ChromeTab {
            id: id.map(TabId),
            url: Some(url.into()),
            pending_url: None,
            title: Some(title.into()),
            window_id: 1,
        }
    }

    #[test]
    fn rows_offer_the_right_action() {
        let tabs = [
            tab(Some(1), "http://127.0.0.1:8000/", "Local"),
            tab(Some(2), "https://example.com/", ""),
            tab(Some(3), "chrome-extension://x/popup.html", "cotab"),
            tab(None, "http://a/", "no id"),
        ];
        let rows = rows(&tabs, &[TabId(2)]);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].action, RowAction::Share);
        assert_eq!(rows[0].action.data_action(), Some("share"));
        assert_eq!(rows[0].label, "Local");
        assert_eq!(rows[1].action, RowAction::Unshare);
        assert_eq!(rows[1].action.label(), "Unshare");
        assert_eq!(rows[1].label, "https://example.com/");
        assert_eq!(rows[2].action, RowAction::Unavailable("extension page"));
        assert_eq!(rows[2].action.data_action(), None);
    }
}
