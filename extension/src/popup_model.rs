//! What the popup shows, decided without the DOM: one row per tab of the
//! window, with the action its button offers and, for a shared tab, who
//! controls it and whether the person can take control or hand it back.
//!
//! The `popup` module turns these rows into elements; the data attributes
//! it writes are the end-to-end tests' contract (see the crate docs).

use crate::control::{holder_kind, holder_text};
use crate::messages::{ChromeTab, PopupRequest, PopupState};
use cotab_shared::native::Holder;
use cotab_shared::reach::check_shareable;
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

/// The control button of a shared tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlAction {
    /// The person does not control the tab: `data-action="take-control"`.
    TakeControl,
    /// The person controls the tab: `data-action="hand-back"`.
    HandBack,
}

impl ControlAction {
    /// The `data-action` value.
    pub fn data_action(self) -> &'static str {
        match self {
            ControlAction::TakeControl => "take-control",
            ControlAction::HandBack => "hand-back",
        }
    }

    /// The button's label.
    pub fn label(self) -> &'static str {
        match self {
            ControlAction::TakeControl => "Take control",
            ControlAction::HandBack => "Hand back",
        }
    }
}

/// Who controls a shared tab, and the button that changes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlRow {
    /// The controller.
    pub holder: Holder,
    /// The control button.
    pub action: ControlAction,
}

impl ControlRow {
    /// The `data-controller` value: `nobody`, `human` or `agent`.
    pub fn kind(&self) -> &'static str {
        holder_kind(&self.holder)
    }

    /// The sentence shown, e.g. "Agent bot has control".
    pub fn text(&self) -> String {
        holder_text(&self.holder)
    }
}

/// One tab in the popup's list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The tab the row is about.
    pub tab_id: TabId,
    /// Its url (`data-url`).
    pub url: String,
    /// Its title, or its url when it has none.
    pub label: String,
    /// What its button does.
    pub action: RowAction,
    /// Its controller, for a shared tab.
    pub control: Option<ControlRow>,
    /// For a shared tab agents are paused on: the sentence that says why.
    pub suspended: Option<String>,
    /// For a tab cotab stopped sharing by itself: the sentence that says
    /// why.
    pub unshared: Option<String>,
}

/// The rows for `tabs`, given the worker's state. Tabs without an id are
/// left out. The person holds a tab when the worker says so; otherwise the
/// holder is the worker's entry in `controllers` (nobody when it has none).
pub fn rows(tabs: &[ChromeTab], state: &PopupState) -> Vec<Row> {
    tabs.iter()
        .filter_map(|tab| {
            let tab_id = tab.id?;
            let url = tab.effective_url().to_owned();
            let shared = state.shared.contains(&tab_id);
            let control = shared.then(|| {
                let human = state.human_control.contains(&tab_id);
                let holder = if human {
                    Holder::Human
                } else {
                    match state.controllers.iter().find(|c| c.tab_id == tab_id) {
                        Some(c) if c.holder != Holder::Human => c.holder.clone(),
                        _ => Holder::Nobody,
                    }
                };
                let action = if human {
                    ControlAction::HandBack
                } else {
                    ControlAction::TakeControl
                };
                ControlRow { holder, action }
            });
            let action = if shared {
                RowAction::Unshare
            } else {
                match check_shareable(&url, &state.file_dirs) {
                    Ok(()) => RowAction::Share,
                    Err(blocked) => RowAction::Unavailable(blocked.reason()),
                }
            };
            let label = match tab.title.as_deref() {
                Some(title) if !title.trim().is_empty() => title.to_owned(),
                _ => url.clone(),
            };
            let suspended = state
                .suspended
                .iter()
                .find(|s| s.tab_id == tab_id)
                .map(|s| format!("Agents paused: {}", s.blocked.reason()));
            let unshared = (!shared)
                .then(|| state.unshared.iter().find(|u| u.tab_id == tab_id))
                .flatten()
                .map(|u| format!("Unshared by cotab: {}", u.why));
            Some(Row {
                tab_id,
                url,
                label,
                action,
                control,
                suspended,
                unshared,
            })
        })
        .collect()
}

/// Whether the error of the popup's `request` still holds in `state`,
/// with `tabs` the window's tabs: once its tab is where the request
/// wanted it (shared, unshared, in the person's control or handed back;
/// the switch as it was asked), or is gone, the error is out of date and
/// the popup stops showing it.
pub fn error_still_holds(request: &PopupRequest, state: &PopupState, tabs: &[ChromeTab]) -> bool {
    let shared = |tab: &TabId| state.shared.contains(tab);
    let human = |tab: &TabId| state.human_control.contains(tab);
    let present = |tab: &TabId| tabs.iter().any(|t| t.id == Some(*tab));
    match request {
        PopupRequest::Share { tab_id } => present(tab_id) && !shared(tab_id),
        PopupRequest::Unshare { tab_id } => present(tab_id) && shared(tab_id),
        PopupRequest::TakeControl { tab_id } => present(tab_id) && !human(tab_id),
        PopupRequest::HandBack { tab_id } => present(tab_id) && human(tab_id),
        PopupRequest::SetDeveloperMode { enabled } => state.developer_mode != *enabled,
        PopupRequest::GetState => true,
    }
}

/// What the popup says about the agents connected to the daemon: their
/// names (two sessions of one agent count twice), or that there are
/// none; nothing while the host is not connected.
pub fn agents_line(state: &PopupState) -> Option<String> {
    if !state.connected {
        return None;
    }
    let mut counted: Vec<(&str, usize)> = Vec::new();
    for name in &state.agents {
        match counted.iter_mut().find(|(n, _)| *n == name.as_str()) {
            Some((_, count)) => *count += 1,
            None => counted.push((name.as_str(), 1)),
        }
    }
    Some(match counted.as_slice() {
        [] => "No agent connected".to_owned(),
        list => {
            let names: Vec<String> = list
                .iter()
                .map(|(name, count)| match count {
                    1 => (*name).to_owned(),
                    n => format!("{name} ×{n}"),
                })
                .collect();
            let noun = if state.agents.len() == 1 {
                "Agent"
            } else {
                "Agents"
            };
            format!("{noun} connected: {}", names.join(", "))
        }
    })
}

/// What the popup asks while cotab's icon is not pinned to the toolbar:
/// its badge, which says on every tab who has control, shows only there.
pub const PIN_HINT: &str = "Pin cotab to the toolbar (the puzzle icon, then the pin) to see on \
     every tab whether an agent has control.";

/// The warning the popup shows while developer mode is on.
pub const DEVELOPER_WARNING: &str =
    "Developer mode is on: agents can run JavaScript and raw CDP in the shared tabs.";

/// What the popup says under "Host not connected": why, and where to
/// look next. The browser's own words for a host it cannot start name no
/// fix: for a host it cannot find (`Specified native messaging host not
/// found.`, no manifest) the fix is `cotab-host install`; otherwise
/// `cotab doctor` names one.
pub fn host_detail(connected: bool, last_error: Option<&str>) -> Option<String> {
    match (connected, last_error.map(sentence).as_deref()) {
        (true, _) => last_error.map(str::to_owned),
        (false, Some(e)) if e.contains("host not found") => Some(format!(
            "{e} Run `cotab-host install` in a terminal, then open this popup again."
        )),
        (false, Some(e)) => Some(format!(
            "{e} Run `cotab doctor` in a terminal: it says what is missing and how to fix it."
        )),
        (false, None) => None,
    }
}

/// `said` as a sentence: a capital first, a full stop last (the
/// browser's own messages are; cotab's reasons are phrases), so what
/// follows it reads apart.
fn sentence(said: &str) -> String {
    let said = said.trim();
    let mut chars = said.chars();
    let mut out: String = match chars.next() {
        // ASCII only: the case tables of all of Unicode would cost the
        // popup's wasm 15 KB, and cotab's reasons are English.
        Some(first) => std::iter::once(first.to_ascii_uppercase())
            .chain(chars)
            .collect(),
        None => return String::new(),
    };
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cotab_shared::native::TabControl;

    #[test]
    fn the_connected_agents_are_named_and_counted() {
        let mut state = PopupState::default();
        assert_eq!(agents_line(&state), None, "no host, no word on agents");
        state.connected = true;
        assert_eq!(agents_line(&state).as_deref(), Some("No agent connected"));
        state.agents = vec!["ada".into()];
        assert_eq!(agents_line(&state).as_deref(), Some("Agent connected: ada"));
        state.agents = vec!["ada".into(), "ada".into(), "cotab-mcp".into()];
        assert_eq!(
            agents_line(&state).as_deref(),
            Some("Agents connected: ada ×2, cotab-mcp")
        );
    }

    #[test]
    fn an_action_error_is_dropped_once_the_tab_is_where_the_action_wanted_it() {
        let tab = TabId(3);
        let tabs: Vec<ChromeTab> = serde_json::from_value(
            serde_json::json!([{"id": 3, "windowId": 1, "url": "https://a.example/"}]),
        )
        .expect("a tab");
        let mut state = PopupState::default();
        let share = PopupRequest::Share { tab_id: tab };
        let take = PopupRequest::TakeControl { tab_id: tab };
        let back = PopupRequest::HandBack { tab_id: tab };
        let unshare = PopupRequest::Unshare { tab_id: tab };
        assert!(error_still_holds(&share, &state, &tabs));
        assert!(!error_still_holds(&share, &state, &[]), "the tab is gone");
        assert!(!error_still_holds(&unshare, &state, &tabs));
        assert!(error_still_holds(&take, &state, &tabs));
        state.shared.push(tab);
        assert!(!error_still_holds(&share, &state, &tabs));
        assert!(error_still_holds(&unshare, &state, &tabs));
        assert!(error_still_holds(&take, &state, &tabs));
        assert!(!error_still_holds(&back, &state, &tabs));
        state.human_control.push(tab);
        assert!(!error_still_holds(&take, &state, &tabs));
        assert!(error_still_holds(&back, &state, &tabs));
        let on = PopupRequest::SetDeveloperMode { enabled: true };
        assert!(error_still_holds(&on, &state, &tabs));
        state.developer_mode = true;
        assert!(!error_still_holds(&on, &state, &tabs));
    }

    #[test]
    fn a_host_not_connected_names_the_command_that_fixes_it() {
        let said = host_detail(false, Some("Specified native messaging host not found."))
            .expect("a detail");
        assert_eq!(
            said,
            "Specified native messaging host not found. Run `cotab-host install` in a \
             terminal, then open this popup again."
        );
        let said = host_detail(false, Some("Native host has exited.")).expect("a detail");
        assert!(
            said.starts_with("Native host has exited. Run `cotab doctor`"),
            "{said}"
        );
        let said = host_detail(false, Some("the WebSocket lane closed")).expect("a detail");
        assert!(
            said.starts_with("The WebSocket lane closed. Run `cotab doctor`"),
            "{said}"
        );
        assert_eq!(host_detail(false, None), None, "nothing went wrong yet");
        assert_eq!(host_detail(true, None), None);
        assert_eq!(host_detail(true, Some("odd")).as_deref(), Some("odd"));
    }

    fn tab(id: Option<i32>, url: &str, title: &str) -> ChromeTab {
        ChromeTab {
            id: id.map(TabId),
            url: Some(url.into()),
            pending_url: None,
            title: Some(title.into()),
            window_id: 1,
            group_id: None,
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
        let state = PopupState {
            shared: vec![TabId(2)],
            ..PopupState::default()
        };
        let rows = rows(&tabs, &state);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].action, RowAction::Share);
        assert_eq!(rows[0].action.data_action(), Some("share"));
        assert_eq!(rows[0].label, "Local");
        assert_eq!(rows[1].action, RowAction::Unshare);
        assert_eq!(rows[1].action.label(), "Unshare");
        assert_eq!(rows[1].label, "https://example.com/");
        assert_eq!(rows[2].action, RowAction::Unavailable("extension page"));
        assert_eq!(rows[2].action.data_action(), None);
        assert_eq!(rows[0].control, None);
        let control = rows[1].control.as_ref().expect("shared tab");
        assert_eq!(control.kind(), "nobody");
        assert_eq!(control.text(), "No one has control");
        assert_eq!(control.action.data_action(), "take-control");
        assert_eq!(rows[1].suspended, None);
    }

    #[test]
    fn a_shared_tab_on_a_blocked_page_says_agents_are_paused() {
        let tabs = [tab(Some(2), "file:///home/ada/notes.txt", "notes")];
        let state = PopupState {
            shared: vec![TabId(2)],
            suspended: vec![crate::messages::Suspended {
                tab_id: TabId(2),
                blocked: cotab_shared::reach::Blocked::LocalFile,
            }],
            ..PopupState::default()
        };
        let rows = rows(&tabs, &state);
        assert_eq!(rows[0].action, RowAction::Unshare);
        assert_eq!(
            rows[0].suspended.as_deref(),
            Some("Agents paused: local file")
        );
    }

    #[test]
    fn shared_rows_show_the_controller() {
        let tabs = [
            tab(Some(1), "http://a/", "A"),
            tab(Some(2), "http://b/", "B"),
            tab(Some(3), "http://c/", "C"),
            tab(Some(4), "http://d/", "D"),
        ];
        let state = PopupState {
            shared: vec![TabId(1), TabId(2), TabId(3)],
            human_control: vec![TabId(2)],
            controllers: vec![
                TabControl {
                    tab_id: TabId(1),
                    holder: Holder::agent("bot"),
                },
                // The extension knows the person's control itself: a stale
                // `human` from the daemon reads as nobody.
                TabControl {
                    tab_id: TabId(3),
                    holder: Holder::Human,
                },
                // A holder for an unshared tab is not shown.
                TabControl {
                    tab_id: TabId(4),
                    holder: Holder::agent("x"),
                },
            ],
            ..PopupState::default()
        };
        let rows = rows(&tabs, &state);
        let shown: Vec<_> = rows
            .iter()
            .map(|r| {
                r.control
                    .as_ref()
                    .map(|c| (c.kind(), c.text(), c.action.data_action(), c.action.label()))
            })
            .collect();
        assert_eq!(
            shown,
            vec![
                Some((
                    "agent",
                    "Agent bot has control".to_owned(),
                    "take-control",
                    "Take control"
                )),
                Some((
                    "human",
                    "You have control".to_owned(),
                    "hand-back",
                    "Hand back"
                )),
                Some((
                    "nobody",
                    "No one has control".to_owned(),
                    "take-control",
                    "Take control"
                )),
                None,
            ]
        );
    }
}
