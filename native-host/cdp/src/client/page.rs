//! Commands on an attached tab's session, and what its agent session
//! hears: its events, the person's takeover, the tab's end.

use super::domain::{self, AutoAttachChildren, DetachFromTarget, Done, SetAutoAttach};
use super::{failure, Client, Page};
use cotab_shared::controller::{CloseTabParams, RpcError, TabsClose};
use cotab_shared::{ErrorKind, TabId};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::sync::Arc;
use tokio::sync::{mpsc, Notify};

/// The commands on a tab's sessions, numbered as the client sent them,
/// that have not answered yet.
#[derive(Debug, Default)]
pub(super) struct Order {
    state: std::sync::Mutex<(u64, BTreeSet<u64>)>,
    done: Notify,
}

/// A command's place in its tab's [`Order`], given up when dropped.
#[derive(Debug)]
pub(super) struct Turn {
    order: Arc<Order>,
    n: u64,
}

impl Order {
    /// The next command's place.
    pub(super) fn enter(self: &Arc<Self>) -> Turn {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.0 += 1;
        let n = s.0;
        s.1.insert(n);
        Turn {
            order: self.clone(),
            n,
        }
    }

    /// Until every command before place `n` has answered.
    async fn wait_before(&self, n: u64) {
        loop {
            // Made before the look, so a command that answers in between
            // still wakes it.
            let answered = self.done.notified();
            let earlier = {
                let s = self.state.lock().unwrap_or_else(|e| e.into_inner());
                s.1.first().is_some_and(|first| *first < n)
            };
            if !earlier {
                return;
            }
            answered.await;
        }
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let mut s = self.order.state.lock().unwrap_or_else(|e| e.into_inner());
        s.1.remove(&self.n);
        drop(s);
        self.order.done.notify_waiters();
    }
}

impl Client {
    /// A command on `page`'s session, or on one of its `child` sessions.
    pub(super) async fn page_command(
        &self,
        page: &Arc<Page>,
        child: Option<&str>,
        method: &str,
        params: Value,
        turn: Option<Turn>,
    ) -> Result<Value, RpcError> {
        let revoked = page
            .revoked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(why) = revoked {
            return in_page(method, failure(ErrorKind::HumanHasControl, why));
        }
        let r = match method {
            "Target.setAutoAttach" => self.auto_attach(page, child, &params).await,
            // The page itself never waits; other targets are not
            // discovered from a page.
            "Target.setDiscoverTargets" => return domain::result(&Done {}),
            "Runtime.runIfWaitingForDebugger" if child.is_none() => {
                return domain::result(&Done {})
            }
            // The tab's own session closes it as `tabs.close` (which
            // runs no beforeunload handler): the answer comes once the
            // tab is gone, and the detach follows as for any closed tab.
            "Page.close" if child.is_none() => {
                page.closing().in_flight = true;
                let close = CloseTabParams {
                    tab_id: Some(page.tab),
                };
                page.mux.call::<TabsClose>(&close).await.map(|_| json!({}))
            }
            // The children stay attached for the tab's other clients;
            // this client stops hearing of this one.
            "Target.detachFromTarget" => {
                let p = domain::params::<DetachFromTarget>(params)?;
                if let Some(s) = p.session_id {
                    self.lock().children.remove(&s);
                }
                return domain::result(&Done {});
            }
            m if in_turn(m) => {
                if let Some(turn) = &turn {
                    turn.order.wait_before(turn.n).await;
                }
                send(page, child, method, params).await
            }
            _ => send(page, child, method, params).await,
        };
        drop(turn);
        match r {
            // The session lost its lease: it is detached, and says why —
            // the person's takeover, or what else ended it (the lane
            // dropped, developer mode went off), never the one for the
            // other.
            Err(e)
                if matches!(
                    e.data.kind,
                    ErrorKind::HumanHasControl | ErrorKind::NoControl
                ) =>
            {
                let why = lost_control(page.tab, &e);
                page.revoke(&why);
                in_page(method, failure(e.data.kind, why))
            }
            r => r,
        }
    }

    /// After the answer to a command on session `s` went: a session the
    /// person's takeover revoked is detached, and so is one whose tab a
    /// `Page.close` of its own closed.
    pub(super) async fn after_answer(&self, s: &str) {
        let Some(page) = self.page(s) else {
            return;
        };
        let gone = {
            let mut closing = page.closing();
            std::mem::take(&mut closing.in_flight) && closing.gone
        };
        if gone {
            self.detach_page(&page, Some("the client closed the tab"))
                .await;
            return;
        }
        let revoked = page
            .revoked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some();
        if revoked {
            self.detach_page(&page, None).await;
        }
    }

    /// `page`'s tab went (`why`): its sessions are detached now, unless a
    /// `Page.close` of the client's is in flight, whose answer goes
    /// first ([`Client::after_answer`]).
    async fn tab_went(&self, page: &Page, why: &str) {
        let now = {
            let mut closing = page.closing();
            closing.gone = true;
            !closing.in_flight
        };
        if now {
            self.detach_page(page, Some(why)).await;
        }
    }
}

/// Whether a `Page.close` of the client's is in flight on a tab, and
/// whether the tab went meanwhile.
#[derive(Debug, Default)]
pub(super) struct Closing {
    in_flight: bool,
    gone: bool,
}

impl Page {
    fn closing(&self) -> std::sync::MutexGuard<'_, Closing> {
        self.closing.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn revoke(&self, why: &str) {
        let mut r = self.revoked.lock().unwrap_or_else(|e| e.into_inner());
        if r.is_none() {
            *r = Some(why.to_owned());
        }
    }
}

/// The failure of a command the person's takeover refused. Clients turn
/// every protocol error of an evaluation into one of their own
/// (Playwright: "Execution context was destroyed"), so an evaluation is
/// answered with an exception that carries the reason instead; it did
/// not run.
fn in_page(method: &str, e: RpcError) -> Result<Value, RpcError> {
    if !matches!(method, "Runtime.evaluate" | "Runtime.callFunctionOn") {
        return Err(e);
    }
    let description = format!("Error: {}", e.message);
    Ok(json!({
        "result": {"type": "undefined"},
        "exceptionDetails": {
            "exceptionId": 0,
            "text": "Uncaught",
            "lineNumber": 0,
            "columnNumber": 0,
            "exception": {
                "type": "object",
                "subtype": "error",
                "className": "Error",
                "description": description,
            },
        },
    }))
}

/// Why a session that lost its lease (`e`, `HUMAN_HAS_CONTROL` or
/// `NO_CONTROL`) can no longer act: the person's takeover only when it
/// was that.
fn lost_control(tab: TabId, e: &RpcError) -> String {
    match e.data.kind {
        ErrorKind::HumanHasControl => took_control(tab),
        _ => format!(
            "this session no longer controls tab {tab} in cotab ({}); attach again",
            e.message
        ),
    }
}

fn took_control(tab: TabId) -> String {
    format!(
        "the person took control of tab {tab} in cotab: this session can no longer act on it \
         and is detached; ask them to hand control back, then attach again"
    )
}

impl Client {
    /// `Target.setAutoAttach`: the tab's frames in other processes and its
    /// dedicated workers, the only children raw CDP may reach, held for
    /// the client if it asks. On the tab's own session it is turned off
    /// first: the children another client asked for are attached again and
    /// reported to this one too.
    async fn auto_attach(
        &self,
        page: &Page,
        child: Option<&str>,
        params: &Value,
    ) -> Result<Value, RpcError> {
        let asked = domain::params::<SetAutoAttach>(params.clone())?;
        if !asked.auto_attach {
            return domain::result(&Done {});
        }
        if child.is_none() {
            let off = domain::result(&AutoAttachChildren::off())?;
            send(page, None, "Target.setAutoAttach", off).await?;
        }
        // Held until the client runs them, so it sees their first
        // document commit; cotab lets them run if the client's lease ends
        // first.
        let on = AutoAttachChildren::on(asked.wait_for_debugger_on_start);
        send(page, child, "Target.setAutoAttach", domain::result(&on)?).await
    }

    /// A child session the tab's browser session (or one of its children)
    /// attached or detached, from the event that says so.
    fn child_event(&self, page: &Arc<Page>, method: &str, params: &Value) {
        if !matches!(
            method,
            "Target.attachedToTarget" | "Target.detachedFromTarget"
        ) {
            return;
        }
        let Some(s) = params.get("sessionId").and_then(Value::as_str) else {
            return;
        };
        let mut st = self.lock();
        match method {
            "Target.attachedToTarget" => {
                let child = super::Child {
                    page: page.clone(),
                    order: Arc::default(),
                };
                st.children.insert(s.to_owned(), child);
            }
            "Target.detachedFromTarget" => {
                st.children.remove(s);
            }
            _ => {}
        }
    }

    /// Whether `s` is a child session of `page`'s this client heard of.
    fn child_of(&self, s: &str, page: &Arc<Page>) -> bool {
        self.lock()
            .children
            .get(s)
            .is_some_and(|c| Arc::ptr_eq(&c.page, page))
    }
}

/// Whether `method` waits for the commands its session sent before it,
/// as the browser runs a session's commands in order (the others run at
/// once, side by side): the contexts `Runtime.enable` reports come after
/// what set them up, and a held frame or worker runs only once the
/// domains enabled before it are on, so its first commit is heard, not
/// missed.
pub(super) fn in_turn(method: &str) -> bool {
    matches!(method, "Runtime.enable" | "Runtime.runIfWaitingForDebugger")
}

/// `cdp.send` of `method` to the page's tab, or to a child session of it.
async fn send(
    page: &Page,
    child: Option<&str>,
    method: &str,
    params: Value,
) -> Result<Value, RpcError> {
    let params = match params {
        Value::Object(m) => Value::Object(m),
        Value::Null => Value::Object(Map::new()),
        _ => {
            return Err(failure(
                ErrorKind::InvalidRequest,
                "params must be an object",
            ));
        }
    };
    let mut call = json!({"method": method, "params": params});
    if let Some(s) = child {
        call["sessionId"] = json!(s);
    }
    let _slot = page
        .slots
        .acquire()
        .await
        .map_err(|_| failure(ErrorKind::RuntimeLost, "the tab's session closed"))?;
    page.mux.call_raw("cdp.send", &call).await
}

/// A tab's session's notifications: its events go to the client with the
/// session id; the person's takeover, the tab's end and developer mode
/// turning off end the session.
pub(super) async fn watch_page(
    client: Arc<Client>,
    page: Arc<Page>,
    mut notes: mpsc::UnboundedReceiver<Value>,
) {
    while let Some(n) = notes.recv().await {
        let method = n.get("method").and_then(Value::as_str).unwrap_or("");
        match method {
            "cdp.event" => {
                let Some(params) = n.get("params") else {
                    continue;
                };
                let method = params.get("method").and_then(Value::as_str).unwrap_or("");
                let event = params.get("params").unwrap_or(&Value::Null);
                match params.get("sessionId").and_then(Value::as_str) {
                    // A child's: on its own session, if this client heard
                    // of it.
                    Some(child) => {
                        if !client.child_of(child, &page) {
                            continue;
                        }
                        client.child_event(&page, method, event);
                        client.send(json!({
                            "method": method,
                            "params": event,
                            "sessionId": child,
                        }));
                    }
                    None => {
                        client.child_event(&page, method, event);
                        let ids = page.ids.lock().unwrap_or_else(|e| e.into_inner()).clone();
                        for (id, _) in ids {
                            client.send(json!({
                                "method": method,
                                "params": event,
                                "sessionId": id,
                            }));
                        }
                    }
                }
            }
            "control.revoked" => match n.pointer("/params/reason").and_then(Value::as_str) {
                Some("human") => page.revoke(&took_control(page.tab)),
                Some("tabClosed" | "unshared" | "blockedTarget") => {
                    client.tab_went(&page, "the tab went").await;
                    return;
                }
                _ => page.revoke("cotab ended this session's control of the tab"),
            },
            // Every session hears of every shared tab that closes.
            "tab.closed"
                if n.pointer("/params/tabId").and_then(Value::as_i64)
                    == Some(i64::from(page.tab.0)) =>
            {
                client.tab_went(&page, "the tab closed").await;
                return;
            }
            "tab.opened" => {
                if let Some(tab) = n.pointer("/params/id").and_then(Value::as_i64) {
                    let Ok(tab) = i32::try_from(tab) else {
                        continue;
                    };
                    tokio::spawn(client.opened(TabId(tab), page.clone()));
                }
            }
            "developerMode.changed"
                if n.pointer("/params/enabled") == Some(&Value::Bool(false)) =>
            {
                client.close("developer mode was turned off");
                return;
            }
            _ => {}
        }
    }
    client.detach_page(&page, None).await;
}

#[cfg(test)]
mod tests {
    use super::{in_turn, lost_control, Order};
    use cotab_shared::controller::RpcError;
    use cotab_shared::{ErrorKind, TabId, WireError};

    #[test]
    fn a_lost_lease_names_the_person_only_when_they_took_control() {
        let e = |kind, m: &str| RpcError::from(WireError::new(kind, m));
        let human = lost_control(TabId(3), &e(ErrorKind::HumanHasControl, "x"));
        assert!(
            human.contains("the person took control of tab 3"),
            "{human}"
        );
        let lane = lost_control(
            TabId(3),
            &e(
                ErrorKind::NoControl,
                "this session does not hold control of the tab",
            ),
        );
        assert!(!lane.contains("the person"), "{lane}");
        assert!(lane.contains("does not hold control"), "{lane}");
    }

    #[test]
    fn a_held_child_runs_only_after_the_commands_sent_before_it() {
        // Playwright enables a frame's domains, then runs it: run first,
        // its commit would come before `Page.enable` and never be heard.
        assert!(in_turn("Runtime.runIfWaitingForDebugger"));
        assert!(in_turn("Runtime.enable"));
        for method in ["Page.enable", "Runtime.evaluate", "Page.getFrameTree"] {
            assert!(!in_turn(method), "{method}");
        }
    }

    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test]
    async fn an_enable_waits_for_the_commands_sent_before_it_only() {
        let order = Arc::new(Order::default());
        let first = order.enter();
        let second = order.enter();
        let enable = order.enter();
        let later = order.enter();
        let waiting = {
            let order = order.clone();
            let n = enable.n;
            tokio::spawn(async move { order.wait_before(n).await })
        };
        drop(second);
        // The runtime is this thread's: the waiting task runs meanwhile.
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        assert!(!waiting.is_finished(), "the first has not answered");
        drop(first);
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("free once both answered, the later one still out")
            .expect("task");
        drop(later);
    }
}
