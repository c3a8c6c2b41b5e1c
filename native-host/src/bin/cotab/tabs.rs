//! `cotab` subcommands: the daemon, the shared tabs and who controls them.

use crate::ctx::{print, Ctx, Failure};
use cotab_host::cli::TabsCmd;
use cotab_shared::controller::{
    CloseTabParams, CreateTabParams, Empty, SelectParams, Status, TabsClose, TabsCreate, TabsList,
    TabsSelect,
};
use cotab_shared::TabId;

/// Runs `cmd`.
pub(crate) async fn run(cx: &mut Ctx, cmd: TabsCmd) -> Result<(), Failure> {
    match cmd {
        TabsCmd::Status => {
            let s = cx.client.call::<Status>(&Empty {}).await?;
            print(cx.json, &s, |s| {
                format!(
                    "daemon {} (pid {}), browser lane {}{}, {} shared tab(s), {} agent connection(s)",
                    s.daemon_version,
                    s.pid,
                    s.lane,
                    s.extension_version.as_deref().map(|v| format!(" (extension {v})")).unwrap_or_default(),
                    s.shared_tabs,
                    s.agents
                )
            })
        }
        TabsCmd::Tabs => {
            let r = cx.client.call::<TabsList>(&Empty {}).await?;
            print(cx.json, &r, |r| {
                if r.tabs.is_empty() {
                    return "no shared tabs: share one from the cotab extension".into();
                }
                r.tabs
                    .iter()
                    .map(|t| {
                        format!(
                            "{} {}  {}  {}",
                            if t.selected { "*" } else { " " },
                            t.id,
                            t.title,
                            t.url
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }
        TabsCmd::Select { id, observe } => {
            let r = cx
                .client
                .call::<TabsSelect>(&SelectParams { tab_id: TabId(id) })
                .await?;
            if observe {
                return print(cx.json, &r, |r| {
                    format!("selected tab {} (observing)", r.tab_id)
                });
            }
            let r = cx.acquire().await?;
            print(cx.json, &r, |r| {
                format!("selected tab {} and took control", r.tab_id)
            })
        }
        TabsCmd::Acquire => {
            let r = cx.acquire().await?;
            print(cx.json, &r, |r| format!("took control of tab {}", r.tab_id))
        }
        TabsCmd::Release => {
            let r = cx.release().await?;
            print(cx.json, &r, |_| "gave control back".into())
        }
        TabsCmd::NewTab { url } => {
            let r = cx
                .client
                .call::<TabsCreate>(&CreateTabParams { url })
                .await?;
            // The new tab is under the session's control.
            cx.taken()?;
            print(cx.json, &r, |r| {
                format!("opened tab {}, selected, under your control", r.tab_id)
            })
        }
        TabsCmd::CloseTab { id } => {
            let r = cx
                .client
                .call::<TabsClose>(&CloseTabParams {
                    tab_id: id.map(TabId),
                })
                .await?;
            print(cx.json, &r, |_| "closed the tab".into())
        }
    }
}
