//! The browser-level domains a client sends without a session
//! (`Target`, `Browser`), answered over the shared tabs; attaching and
//! detaching a tab's session.

use super::domain::{
    self, result, AttachToTarget, BrowserContexts, CloseTarget, CreateTarget, DetachFromTarget,
    Done, Event, GetTargetInfo, SessionResult, SetAutoAttach, SetDiscoverTargets, Success,
    TargetIdResult, TargetInfo, TargetInfoResult, TargetInfos, Version,
};
use super::page::watch_page;
use super::{failure, session, target_id, Client, Page, CONTEXT, PRODUCT};
use cotab_shared::controller::{
    Acquire, AgentTab, Bye, CdpEvents, CdpEventsParams, CloseTabParams, CreateTabParams, Empty,
    ErrorData, RpcError, SelectParams, TabsClose, TabsCreate, TabsSelect,
};
use cotab_shared::limits::MAX_IN_FLIGHT_PER_CONNECTION;
use cotab_shared::{ErrorKind, TabId};
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use tokio::sync::Semaphore;

impl Client {
    /// A command on the browser: without a session, or on one of
    /// `Target.attachToBrowserTarget` (`on`), which gets the events the
    /// command causes.
    pub(super) async fn browser_command(
        self: &Arc<Self>,
        method: &str,
        params: Value,
        on: Option<&str>,
    ) -> Result<Value, RpcError> {
        match method {
            "Browser.getVersion" => result(&Version {
                protocol_version: "1.3",
                product: PRODUCT,
                revision: "",
                user_agent: PRODUCT,
                js_version: "",
            }),
            // Downloads stay the person's: where the browser puts them.
            "Browser.setDownloadBehavior" => result(&Done {}),
            "Target.setAutoAttach" => {
                let on = domain::params::<SetAutoAttach>(params)?.auto_attach;
                self.lock().auto_attach = on;
                if on {
                    for t in self.tabs().await? {
                        if target_id(&t).is_none() || t.blocked.is_some() {
                            continue;
                        }
                        if let Err(e) = self.attach(&t).await {
                            tracing::warn!(tab = %t.id, kind = %e.data.kind, "a CDP client could not attach a shared tab (another agent or the person controls it?); the client does not see it");
                        }
                    }
                }
                result(&Done {})
            }
            "Target.setDiscoverTargets" => {
                let on = domain::params::<SetDiscoverTargets>(params)?.discover;
                self.lock().discover = on;
                if on {
                    for t in self.tabs().await? {
                        let attached = self.attached_tab(t.id).is_some();
                        if let Some(info) = self.info(&t, attached) {
                            self.emit(&Event::TargetCreated { target_info: &info }, None);
                        }
                    }
                }
                result(&Done {})
            }
            "Target.getTargets" => {
                let tabs = self.tabs().await?;
                let target_infos = tabs
                    .iter()
                    .filter_map(|t| self.info(t, self.attached_tab(t.id).is_some()))
                    .collect();
                result(&TargetInfos { target_infos })
            }
            "Target.getTargetInfo" => match domain::params::<GetTargetInfo>(params)?.target_id {
                None => result(&TargetInfoResult {
                    target_info: TargetInfo {
                        target_id: self.config.browser_id.clone(),
                        kind: "browser",
                        title: String::new(),
                        url: String::new(),
                        attached: true,
                        opener_id: None,
                        can_access_opener: false,
                        browser_context_id: None,
                    },
                }),
                Some(id) => {
                    let tabs = self.tabs().await?;
                    let t = find_target(&tabs, &id)?;
                    let target_info = self
                        .info(t, self.attached_tab(t.id).is_some())
                        .ok_or_else(no_target)?;
                    result(&TargetInfoResult { target_info })
                }
            },
            "Target.getBrowserContexts" => result(&BrowserContexts {
                browser_context_ids: Vec::new(),
            }),
            "Target.attachToTarget" => {
                let p = domain::params::<AttachToTarget>(params)?;
                if !p.flatten {
                    return Err(failure(
                        ErrorKind::InvalidRequest,
                        "only flat sessions (`flatten: true`) are served",
                    ));
                }
                let tabs = self.tabs().await?;
                let t = find_target(&tabs, &p.target_id)?;
                let session_id = self.attach_fresh(t, on).await?;
                result(&SessionResult { session_id })
            }
            "Target.attachToBrowserTarget" => {
                let session_id = self.new_session_id();
                self.lock().browser_sessions.push(session_id.clone());
                result(&SessionResult { session_id })
            }
            "Target.detachFromTarget" => {
                let p = domain::params::<DetachFromTarget>(params)?;
                let s = p.session_id.as_deref().unwrap_or("");
                let browser = {
                    let mut st = self.lock();
                    let before = st.browser_sessions.len();
                    st.browser_sessions.retain(|b| b != s);
                    before != st.browser_sessions.len()
                };
                // A child stays attached for the tab's other clients.
                if browser || self.lock().children.remove(s).is_some() {
                    return result(&Done {});
                }
                if !self.detach(s).await {
                    return Err(failure(
                        ErrorKind::InvalidRequest,
                        "No session with given id",
                    ));
                }
                result(&Done {})
            }
            "Target.createTarget" => {
                let p = domain::params::<CreateTarget>(params)?;
                if p.browser_context_id
                    .as_deref()
                    .is_some_and(|c| c != CONTEXT)
                {
                    return Err(no_context());
                }
                let url = p.url.filter(|u| u != "about:blank");
                let created = self
                    .browser
                    .call::<TabsCreate>(&CreateTabParams { url })
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
                let info = self.info(t, false).ok_or_else(no_target)?;
                self.emit(&Event::TargetCreated { target_info: &info }, None);
                if self.lock().auto_attach {
                    self.attach(t).await?;
                }
                result(&TargetIdResult {
                    target_id: info.target_id,
                })
            }
            "Target.closeTarget" => {
                let p = domain::params::<CloseTarget>(params)?;
                let tabs = self.tabs().await?;
                let t = find_target(&tabs, &p.target_id)?;
                // An attached tab's own agent session holds its lease:
                // it closes the tab (the browser's session could not).
                let close = CloseTabParams { tab_id: Some(t.id) };
                match self.attached_tab(t.id) {
                    Some(page) => page.mux.call::<TabsClose>(&close).await?,
                    None => self.browser.call::<TabsClose>(&close).await?,
                };
                result(&Success { success: true })
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

    /// `Target.attachToTarget`: one more CDP session on `t`, announced on
    /// the browser session that asked (`on`, or none).
    async fn attach_fresh(
        self: &Arc<Self>,
        t: &AgentTab,
        on: Option<&str>,
    ) -> Result<String, RpcError> {
        self.attach_on(t, None, true, on).await
    }

    /// [`Client::attach`] of a tab the page of `opener` (a target id)
    /// opened.
    pub(super) async fn attach_opened(
        self: &Arc<Self>,
        t: &AgentTab,
        opener: Option<&str>,
    ) -> Result<String, RpcError> {
        self.attach_on(t, opener, false, None).await
    }

    /// Attaches `t` (opened by `opener`'s page, if given), or with `fresh`
    /// adds one more CDP session to it if it is attached, announcing the
    /// session on browser session `on` (none: the client's root).
    async fn attach_on(
        self: &Arc<Self>,
        t: &AgentTab,
        opener: Option<&str>,
        fresh: bool,
        on: Option<&str>,
    ) -> Result<String, RpcError> {
        let _one = self.attaching.lock().await;
        if let Some(p) = self.attached_tab(t.id) {
            let mut ids = p.ids.lock().unwrap_or_else(|e| e.into_inner());
            if let (false, Some((first, _))) = (fresh, ids.first()) {
                return Ok(first.clone());
            }
            let id = self.new_session_id();
            ids.push((id.clone(), on.map(str::to_owned)));
            drop(ids);
            self.lock().pages.insert(id.clone(), p.clone());
            self.announce(&id, &p.target, on);
            return Ok(id);
        }
        let mut info = self.info(t, true).ok_or_else(no_target)?;
        if let Some(opener) = opener {
            info.opener_id = Some(opener.to_owned());
            info.can_access_opener = true;
        }
        let (mux, notes) = session(&self.config, &self.agent, Some(&self.group)).await?;
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
        let id = self.new_session_id();
        let page = Arc::new(Page {
            tab: t.id,
            ids: Mutex::new(vec![(id.clone(), on.map(str::to_owned))]),
            target: info,
            mux,
            revoked: Mutex::new(None),
            closing: Mutex::default(),
            order: Arc::default(),
            // Room is left for the session's own calls (its release, its end).
            slots: Semaphore::new(MAX_IN_FLIGHT_PER_CONNECTION - 2),
        });
        self.lock().pages.insert(id.clone(), page.clone());
        self.announce(&id, &page.target, on);
        tokio::spawn(watch_page(self.clone(), page, notes));
        Ok(id)
    }

    fn announce(&self, id: &str, target: &TargetInfo, on: Option<&str>) {
        let event = Event::AttachedToTarget {
            session_id: id,
            target_info: target,
            waiting_for_debugger: false,
        };
        self.emit(&event, on);
    }

    /// Detaches CDP session `s` (`Target.detachedFromTarget`); the tab's
    /// agent session ends with its last. Whether it was attached.
    pub(super) async fn detach(&self, s: &str) -> bool {
        let Some(page) = self.lock().pages.remove(s) else {
            return false;
        };
        let (on, last) = {
            let mut ids = page.ids.lock().unwrap_or_else(|e| e.into_inner());
            let on = ids
                .iter()
                .find(|(i, _)| i == s)
                .and_then(|(_, on)| on.clone());
            ids.retain(|(i, _)| i != s);
            (on, ids.is_empty())
        };
        let event = Event::DetachedFromTarget {
            session_id: s,
            target_id: &page.target.target_id,
        };
        self.emit(&event, on.as_deref());
        if last {
            let _ = page.mux.call::<Bye>(&Empty {}).await;
        }
        true
    }

    /// Detaches every CDP session on `page`, with `Target.targetDestroyed`
    /// when its tab went.
    pub(super) async fn detach_page(&self, page: &Page, destroyed: Option<&str>) {
        self.lock()
            .children
            .retain(|_, c| !std::ptr::eq(Arc::as_ptr(&c.page), page));
        let ids = page.ids.lock().unwrap_or_else(|e| e.into_inner()).clone();
        for (id, _) in ids {
            self.detach(&id).await;
        }
        if let Some(why) = destroyed {
            tracing::debug!(why, "a CDP client's target went");
            let event = Event::TargetDestroyed {
                target_id: &page.target.target_id,
            };
            self.emit(&event, None);
        }
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
        let opener_id = Some(opener.target.target_id.as_str());
        if auto_attach {
            if let Err(e) = self.attach_opened(t, opener_id).await {
                tracing::info!(%tab, kind = %e.data.kind, "a CDP client could not attach a tab its page opened");
            }
        } else if discover {
            if let Some(mut info) = self.info(t, false) {
                info.opener_id = opener_id.map(str::to_owned);
                self.emit(&Event::TargetCreated { target_info: &info }, None);
            }
        }
    }
}

/// The shared tab whose target id is `id`.
fn find_target<'a>(tabs: &'a [AgentTab], id: &str) -> Result<&'a AgentTab, RpcError> {
    tabs.iter()
        .find(|t| target_id(t) == Some(id))
        .ok_or_else(no_target)
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
