//! Who controls each shared tab, as the daemon tells the extension
//! ([`super::HostToExtension::Controllers`]), and the tabs whose pages
//! may open no tab at another site ([`super::HostToExtension::HoldOpened`]).

use crate::ids::TabId;
use crate::tagged::Tagged;
use serde::{Deserialize, Deserializer, Serialize};

/// Who controls a shared tab, as the daemon tells the extension.
/// (Deserialised by hand, with the same shape.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Holder {
    /// Nobody holds the control lease.
    Nobody,
    /// The person took control.
    Human,
    /// An agent holds the lease.
    Agent {
        /// The agent's name from `session.hello`.
        name: String,
        /// A request of its in the tab waits for the person's yes.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        waiting: bool,
    },
}

impl Holder {
    /// Agent `name`, with nothing waiting for the person.
    pub fn agent(name: impl Into<String>) -> Holder {
        Holder::Agent {
            name: name.into(),
            waiting: false,
        }
    }
}

impl<'de> Deserialize<'de> for Holder {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut t = Tagged::read(d, "kind")?;
        Ok(match t.tag.as_str() {
            "nobody" => Holder::Nobody,
            "human" => Holder::Human,
            "agent" => Holder::Agent {
                name: t.field("name")?,
                waiting: t.field_or_default("waiting")?,
            },
            _ => return Err(t.unknown(&["nobody", "human", "agent"])),
        })
    }
}

/// One shared tab's controller.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabControl {
    /// The shared tab.
    #[serde(rename = "tabId")]
    pub tab_id: TabId,
    /// Who controls it.
    pub holder: Holder,
}

/// A shared tab an agent holds whose scope is some sites
/// ([`super::HostToExtension::HoldOpened`]): a tab its pages open may not
/// go to another site first. The extension has the browser block such a
/// first request before it leaves (the opener's debugger cannot pause a
/// request of another tab), and tells the daemon
/// ([`super::Event::OpenedRefused`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenedHold {
    /// The shared tab.
    #[serde(rename = "tabId")]
    pub tab_id: TabId,
    /// Its sites (registrable domains, or hosts without one), never
    /// empty.
    pub sites: Vec<String>,
}
