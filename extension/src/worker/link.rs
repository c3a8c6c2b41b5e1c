//! The native link's conversation: what each message of the host does,
//! what follows a hello (the shared list once the restore is done, then
//! the developer-mode state; the host's welcome marks the link connected
//! and resets the backoff) and what follows a drop (the held input the
//! daemon forgot is released). The host's `controllers` message is kept
//! for the popup and forgotten when the port drops ([`super::port`]).

use super::cells::{Inbox, PortHandle, Worker};
use super::port;
use super::{announce, commands, developer_mode, held_input, opened, toolbar};
use crate::chrome::{error_message, from_js};
use crate::{log, trace};
use cotab_shared::native::HostToExtension;
use gloo_timers::future::TimeoutFuture;
use std::rc::Rc;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::spawn_local;

/// What [`port`] hands the host's news to.
static INBOX: Inbox = Inbox {
    message: on_host_message,
    dropped,
};

/// Opens the native link (it reopens itself when it drops). Once the hello
/// is posted, the shared list follows when the restore is done, then the
/// developer-mode state.
pub(super) async fn connect(worker: Rc<Worker>) {
    let Some(generation) = port::connect(&worker, &INBOX).await else {
        return;
    };
    worker.restored.wait().await;
    if worker.generation.get() == generation {
        announce::send_shared(worker.clone()).await;
    }
    if worker.generation.get() == generation {
        developer_mode::send_current(&worker).await;
    }
}

fn on_host_message(worker: &Rc<Worker>, message: JsValue) {
    let received = trace::now();
    match from_js::<HostToExtension>(message) {
        Ok(HostToExtension::Welcome { protocol_version }) => {
            let said = worker.state.borrow_mut().welcome(protocol_version);
            announce::apply(worker, vec![said]);
        }
        Ok(HostToExtension::Controllers { tabs, recorded }) => {
            worker.state.borrow_mut().controllers(tabs, recorded);
            toolbar::refresh(worker);
        }
        Ok(HostToExtension::HoldOpened { tabs }) => opened::set(worker, tabs),
        Ok(HostToExtension::Agents { names }) => {
            worker.state.borrow_mut().agents = names;
        }
        Ok(HostToExtension::Policy { file_dirs }) => {
            let effects = worker.state.borrow_mut().policy(file_dirs);
            announce::apply(worker, effects);
        }
        Ok(HostToExtension::SocketOffer { port, token }) => {
            port::socket_offered(worker, port, &token);
        }
        Ok(HostToExtension::SocketSwitched { accepted }) => {
            port::socket_switched(worker, accepted);
        }
        Ok(HostToExtension::Request { id, command }) => {
            spawn_local(commands::handle(worker.clone(), id, command, received));
        }
        Err(e) => log::warn(&format!(
            "ignoring a malformed message from the native host: {}",
            error_message(&e)
        )),
    }
}

/// The port dropped for `reason` ([`crate::machine::Machine::link_dropped`]).
/// The daemon dropped what agents held when it lost this link, and the
/// pages still hold it: release it, then reconnect after the backoff
/// delay. The old port's handle goes first, in a later task.
fn dropped(worker: Rc<Worker>, reason: String, old: Option<PortHandle>) {
    let (delay, said) = worker.state.borrow_mut().link_dropped(reason);
    announce::apply(&worker, vec![said]);
    // The daemon let go of its leases with the link: nothing is held.
    opened::set(&worker, Vec::new());
    spawn_local(async move {
        drop(old);
        held_input::release_all(&worker).await;
        TimeoutFuture::new(delay).await;
        connect(worker).await;
    });
}
