//! The browser-level domains a client sends without a session
//! (`Target`, `Browser`), answered over the shared tabs; attaching and
//! detaching a tab's session.

use super::page::watch_page;
use super::{failure, params_str, session, target_id, Client, Page, CONTEXT, PRODUCT};
use cotab_shared::controller::{
    Acquire, AgentTab, Bye, CdpEvents, CdpEventsParams, CloseTabParams, CreateTabParams, Empty,
    ErrorData, RpcError, SelectParams, TabsClose, TabsCreate, TabsSelect,
};
use cotab_shared::{ErrorKind, TabId};
use serde_json::{json, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use tokio::sync::RwLock;

impl Client {
    pub(super) async fn browser_command(
        self: &Arc<Self>,
        method: &str,
        params: Value,
    ) -> Result<Value, RpcError> {
        match method {
            "Browser.getVersion" => Ok(json!({
                "protocolVersion": "1.3",
                "product": PRODUCT,
                "revision": "",
                "userAgent": PRODUCT,
                "jsVersion": "",
            })),
            // Downloads stay the person's: where the browser puts them.
            "Browser.setDownloadBehavior" => Ok(json!({})),
            "Target.setAutoAttach" => {
                let on = params.get("autoAttach").and_then(Value::as_bool) == Some(true);
                self.lock().auto_attach = on;
                if on {
                    for t in self.tabs().await? {
                        if target_id(&t).is_none() || t.blocked.is_some() {
                            continue;
                        }
                        if let Err(e) = self.attach(&t).await {
                            tracing::info!(tab = %t.id, kind = %e.data.kind, "a CDP client could not attach a shared tab");
                        }
                    }
                }
                Ok(json!({}))
            }
            "Target.setDiscoverTargets" => {
                let on = params.get("discover").and_then(Value::as_bool) == Some(true);
                self.lock().discover = on;
                if on {
                    for t in self.tabs().await? {
                        let attached = self.attached_tab(t.id).is_some();
                        if let Some(info) = self.info(&t, attached) {
                            self.send(json!({"method": "Target.targetCreated", "params": {"targetInfo": info}}));
                        }
                    }
                }
                Ok(json!({}))
            }
            "Target.getTargets" => {
                let tabs = self.tabs().await?;
                let infos: Vec<Value> = tabs
                    .iter()
                    .filter_map(|t| self.info(t, self.attached_tab(t.id).is_some()))
                    .collect();
                Ok(json!({"targetInfos": infos}))
            }
            "Target.getTargetInfo" => match params_str(&params, "targetId") {
                None => Ok(json!({"targetInfo": {
                    "targetId": self.config.browser_id,
                    "type": "browser",
                    "title": "",
                    "url": "",
                    "attached": true,
                    "canAccessOpener": false,
                }})),
                Some(id) => {
                    let tabs = self.tabs().await?;
                    let t = tabs
                        .iter()
                        .find(|t| target_id(t) == Some(id))
                        .ok_or_else(no_target)?;
                    let info = self
                        .info(t, self.attached_tab(t.id).is_some())
                        .ok_or_else(no_target)?;
                    Ok(json!({"targetInfo": info}))
                }
            },
            "Target.getBrowserContexts" => Ok(json!({"browserContextIds": []})),
            "Target.attachToTarget" => {
                let id = params_str(&params, "targetId").unwrap_or("");
                if params.get("flatten").and_then(Value::as_bool) != Some(true) {
                    return Err(failure(
                        ErrorKind::InvalidRequest,
                        "only flat sessions (`flatten: true`) are served",
                    ));
                }
                let tabs = self.tabs().await?;
                let t = tabs
                    .iter()
                    .find(|t| target_id(t) == Some(id))
                    .ok_or_else(no_target)?;
                let session = self.attach(t).await?;
                Ok(json!({"sessionId": session}))
            }
            "Target.detachFromTarget" => {
                let s = params_str(&params, "sessionId").unwrap_or("");
                if !self.detach(s, None).await {
                    return Err(failure(
                        ErrorKind::InvalidRequest,
                        "No session with given id",
                    ));
                }
                Ok(json!({}))
            }
            "Target.createTarget" => {
                if params.get("browserContextId").is_some_and(|c| c != CONTEXT) {
                    return Err(no_context());
                }
                let url = params_str(&params, "url").filter(|u| *u != "about:blank");
                let created = self
                    .browser
                    .call::<TabsCreate>(&CreateTabParams {
                        url: url.map(str::to_owned),
                    })
                    .await?;
                // The tab's own session takes control of it.
                let _ = self
                    .browser
                    .call::<cotab_shared::controller::Release>(&Empty {})
                    .await;
                let tabs = self.tabs().await?;
                let t = tabs
                    .iter()
                    .find(|t| t.id == created.tab_id)
                    .ok_or_else(no_target)?;
                let id = target_id(t).ok_or_else(no_target)?.to_owned();
                self.send(json!({"method": "Target.targetCreated", "params": {"targetInfo": self.info(t, false)}}));
                if self.lock().auto_attach {
                    self.attach(t).await?;
                }
                Ok(json!({"targetId": id}))
            }
            "Target.closeTarget" => {
                let id = params_str(&params, "targetId").unwrap_or("");
                let tabs = self.tabs().await?;
                let t = tabs
                    .iter()
                    .find(|t| target_id(t) == Some(id))
                    .ok_or_else(no_target)?;
                self.browser
                    .call::<TabsClose>(&CloseTabParams { tab_id: Some(t.id) })
                    .await?;
                Ok(json!({"success": true}))
            }
            "Target.createBrowserContext" | "Target.disposeBrowserContext" => Err(no_context()),
            _ => Err(RpcError {
                code: -32601,
                message: format!(
                    "'{}' is not served: cotab's CDP endpoint reaches the shared tabs' pages only",
                    method.chars().take(64).collect::<String>()
                ),
                data: ErrorData {
                    kind: ErrorKind::BlockedTarget,
                    dialog: None,
                },
            }),
        }
    }

    /// Attaches `t`: its agent session, then `Target.attachedToTarget`.
    /// An attached tab keeps its session.
    pub(super) async fn attach(self: &Arc<Self>, t: &AgentTab) -> Result<String, RpcError> {
        self.attach_opened(t, None).await
    }

    /// [`Client::attach`] of a tab the page of `opener` (a target id)
    /// opened.
    pub(super) async fn attach_opened(
        self: &Arc<Self>,
        t: &AgentTab,
        opener: Option<&str>,
    ) -> Result<String, RpcError> {
        let _one = self.attaching.lock().await;
        if let Some(p) = self.attached_tab(t.id) {
            return Ok(p.session_id.clone());
        }
        let mut info = self.info(t, true).ok_or_else(no_target)?;
        if let Some(opener) = opener {
            info["openerId"] = json!(opener);
            info["canAccessOpener"] = json!(true);
        }
        let (mux, notes) = session(&self.config, &self.agent).await?;
        let opened = async {
            mux.call::<TabsSelect>(&SelectParams { tab_id: t.id })
                .await?;
            mux.call::<Acquire>(&Empty {}).await?;
            mux.call::<CdpEvents>(&CdpEventsParams { enabled: true })
                .await
        }
        .await;
        if let Err(e) = opened {
            let _ = mux.call::<Bye>(&Empty {}).await;
            return Err(e);
        }
        let session_id = {
            let mut s = self.lock();
            s.next_session += 1;
            format!(
                "{}{:08X}",
                self.config.browser_id[..16].to_ascii_uppercase(),
                s.next_session
            )
        };
        let page = Arc::new(Page {
            tab: t.id,
            session_id: session_id.clone(),
            target: info.clone(),
            mux,
            revoked: Mutex::new(None),
            order: RwLock::new(()),
        });
        self.lock().pages.insert(session_id.clone(), page.clone());
        self.send(json!({"method": "Target.attachedToTarget", "params": {
            "sessionId": session_id,
            "targetInfo": info,
            "waitingForDebugger": false,
        }}));
        tokio::spawn(watch_page(self.clone(), page, notes));
        Ok(session_id)
    }

    /// Detaches session `s` (`Target.detachedFromTarget`), with
    /// `Target.targetDestroyed` when its tab went. Whether it was attached.
    pub(super) async fn detach(&self, s: &str, destroyed: Option<&str>) -> bool {
        let Some(page) = self.lock().pages.remove(s) else {
            return false;
        };
        let target = page.target.get("targetId").cloned().unwrap_or(Value::Null);
        self.send(json!({"method": "Target.detachedFromTarget", "params": {"sessionId": s, "targetId": target}}));
        if let Some(why) = destroyed {
            tracing::debug!(why, "a CDP client's target went");
            self.send(json!({"method": "Target.targetDestroyed", "params": {"targetId": target}}));
        }
        let _ = page.mux.call::<Bye>(&Empty {}).await;
        true
    }
}

impl Client {
    /// A page of the client's opened `tab` (a link with a target,
    /// `window.open`), which cotab shared: attached with its opener when
    /// the client auto-attaches, announced when it discovers.
    ///
    /// Boxed as `Send`: attaching starts the watch of the new tab's
    /// session, which may come back here.
    pub(super) fn opened(
        self: &Arc<Self>,
        tab: TabId,
        opener: Arc<Page>,
    ) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let this = self.clone();
        Box::pin(async move { this.open_tab(tab, &opener).await })
    }

    async fn open_tab(self: &Arc<Self>, tab: TabId, opener: &Page) {
        let tabs = match self.tabs().await {
            Ok(t) => t,
            Err(e) => {
                tracing::info!(kind = %e.data.kind, "a CDP client could not list a tab its page opened");
                return;
            }
        };
        let Some(t) = tabs.iter().find(|t| t.id == tab) else {
            return;
        };
        let (auto_attach, discover) = {
            let s = self.lock();
            (s.auto_attach, s.discover)
        };
        let opener_id = opener.target.get("targetId").and_then(Value::as_str);
        if auto_attach {
            if let Err(e) = self.attach_opened(t, opener_id).await {
                tracing::info!(%tab, kind = %e.data.kind, "a CDP client could not attach a tab its page opened");
            }
        } else if discover {
            if let Some(mut info) = self.info(t, false) {
                if let Some(o) = opener_id {
                    info["openerId"] = json!(o);
                }
                self.send(
                    json!({"method": "Target.targetCreated", "params": {"targetInfo": info}}),
                );
            }
        }
    }
}

fn no_target() -> RpcError {
    failure(
        ErrorKind::TabNotShared,
        "No target with given id found (cotab's CDP endpoint sees the shared tabs only)",
    )
}

fn no_context() -> RpcError {
    failure(
        ErrorKind::InvalidRequest,
        "cotab's CDP endpoint has one browser context, the person's own: new contexts are not served",
    )
}
