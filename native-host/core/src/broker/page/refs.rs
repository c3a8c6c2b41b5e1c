//! Element refs: each session's latest snapshot of each tab, the rule
//! that only it is valid, the numbers elements keep within a document, and
//! the whole outline the session was last given of the tab.

use crate::broker::{err, Core, Fence};
use crate::session::SessionId;
use cotab_shared::controller::Ref;
use cotab_shared::{ErrorKind, TabId, WireError};
use std::collections::HashMap;
use std::sync::Arc;

/// An element a ref stands for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NodeRef {
    /// The CDP frame id of the element's document.
    pub frame: String,
    /// The element's `backendNodeId`.
    pub backend_node_id: i64,
}

/// The refs of one snapshot.
#[derive(Debug)]
pub(in crate::broker) struct Snapshot {
    /// Main-frame navigations of the tab when the snapshot started.
    nav: u64,
    refs: HashMap<u64, NodeRef>,
    /// The number of every element of the tab's document numbered so far
    /// (by this snapshot and the session's earlier ones since the
    /// navigation), so that an element keeps its ref.
    issued: HashMap<NodeRef, u64>,
    /// The latest whole outline the session was given of the tab: what it
    /// saw, what `page.snapshot`'s `changes` are of, and how the person is
    /// told what its refs stand for ([`Core::ref_label`]). Kept through a
    /// navigation until the next whole outline.
    text: Option<Shown>,
}

/// A whole outline a session was given of a tab.
#[derive(Debug)]
struct Shown {
    outline: Arc<str>,
    /// Main-frame navigations of the tab when its snapshot started.
    nav: u64,
}

/// The whole outline a new one replaces ([`Core::snapshot_finished`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Given {
    /// The outline the session was given.
    pub outline: Arc<str>,
    /// Whether the two are of one document.
    pub same: bool,
}

/// The most elements of one document a session's numbering remembers;
/// past it, only the latest snapshot's are kept (older elements get new
/// numbers if they show up again).
pub const MAX_ISSUED_REFS: usize = 100_000;

/// The numbers a snapshot gives its elements ([`Core::reserve_refs`]):
/// the number an element already has in the tab's document, else the
/// next of the numbers reserved for the snapshot.
#[derive(Debug, Clone, Default)]
pub struct RefNumbers {
    known: HashMap<NodeRef, u64>,
    first: u64,
    fresh: u64,
}

impl RefNumbers {
    /// Numbers from `first` on, no element known yet (for tests of the
    /// outline).
    pub fn starting_at(first: u64) -> RefNumbers {
        RefNumbers {
            first,
            ..RefNumbers::default()
        }
    }

    /// The first number reserved.
    pub fn first(&self) -> u64 {
        self.first
    }

    /// How many reserved numbers were given out.
    pub fn fresh(&self) -> u64 {
        self.fresh
    }

    /// The number [`RefNumbers::number`] would give `node` now.
    pub fn peek(&self, node: &NodeRef) -> u64 {
        self.known
            .get(node)
            .copied()
            .unwrap_or(self.first + self.fresh)
    }

    /// `node`'s number: the one it has, else the next reserved one.
    pub fn number(&mut self, node: &NodeRef) -> u64 {
        if let Some(n) = self.known.get(node) {
            return *n;
        }
        let n = self.first + self.fresh;
        self.fresh += 1;
        self.known.insert(node.clone(), n);
        n
    }
}

/// Where a tab stood when a snapshot started (see
/// [`Core::snapshot_started`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotMark {
    nav: u64,
}

fn stale_ref(why: &str) -> WireError {
    err(ErrorKind::StaleRef, why)
}

/// The number of a ref (`e12` → 12).
fn ref_number(r: &Ref) -> Option<u64> {
    let digits = r.0.strip_prefix('e')?;
    if digits.is_empty() || digits.len() > 18 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

impl Core {
    /// Marks where the tab stands as a snapshot starts.
    pub fn snapshot_started(&self, fence: &Fence) -> SnapshotMark {
        SnapshotMark {
            nav: self.tabs.get(&fence.tab).map_or(0, |t| t.nav),
        }
    }

    /// Reserves `count` ref numbers for a snapshot being rendered (at most
    /// one per node of its trees), with the numbers the tab's elements
    /// already have in its current document; a snapshot of the same
    /// session rendered meanwhile takes numbers after them. Hand them back
    /// with [`Core::snapshot_finished`].
    pub fn reserve_refs(&mut self, fence: &Fence, count: u64) -> Result<RefNumbers, WireError> {
        self.check(fence)?;
        let nav = self.tabs.get(&fence.tab).map(|t| t.nav);
        let s = self.bound_mut(fence.session, fence.conn)?;
        let first = s.next_ref;
        s.next_ref = first.saturating_add(count);
        let known = match s.snapshots.get(&fence.tab) {
            Some(old) if Some(old.nav) == nav => old.issued.clone(),
            _ => HashMap::new(),
        };
        Ok(RefNumbers {
            known,
            first,
            fresh: 0,
        })
    }

    /// Stores a snapshot's refs (each element with the number
    /// [`RefNumbers::number`] gave it; `numbers` is what
    /// [`Core::reserve_refs`] returned, for its `reserved` numbers) as the
    /// session's latest of the tab: a ref it does not show is stale from
    /// now on, and the numbers it did not use go back unless another
    /// snapshot reserved numbers after them. An element keeps its number
    /// in the next snapshots of the same document. A navigation since
    /// `mark` makes these stale at once. A whole snapshot comes with its
    /// `text` and gets back the whole outline it replaces, with whether
    /// both are of one document (no navigation between their starts, nor
    /// since this one started): what its `changes` are of. Snapshots that
    /// end in turn are each compared with the one before. A partial one
    /// (one element's subtree, or some levels, no `text`) adds its refs to
    /// the latest snapshot's, which stay good, and keeps the text.
    pub fn snapshot_finished(
        &mut self,
        fence: &Fence,
        mark: SnapshotMark,
        numbers: (u64, u64),
        reserved: u64,
        nodes: Vec<(u64, NodeRef)>,
        text: Option<Arc<str>>,
    ) -> Result<Option<Given>, WireError> {
        self.check(fence)?;
        let now = self.tabs.get(&fence.tab).map(|t| t.nav);
        let partial = text.is_none();
        let (first, fresh) = numbers;
        let s = self.bound_mut(fence.session, fence.conn)?;
        let (mut issued, mut refs, old_text) = match s.snapshots.remove(&fence.tab) {
            Some(old) if old.nav == mark.nav => (old.issued, old.refs, old.text),
            Some(old) => (HashMap::new(), HashMap::new(), old.text),
            None => (HashMap::new(), HashMap::new(), None),
        };
        let (kept, replaced) = match text {
            Some(outline) => (
                Some(Shown {
                    outline,
                    nav: mark.nav,
                }),
                old_text,
            ),
            None => (old_text, None),
        };
        if issued.len() + nodes.len() > MAX_ISSUED_REFS {
            issued.clear();
            refs.clear();
        }
        if !partial {
            refs.clear();
        }
        issued.extend(nodes.iter().map(|(n, node)| (node.clone(), *n)));
        refs.extend(nodes);
        s.snapshots.insert(
            fence.tab,
            Snapshot {
                nav: mark.nav,
                refs,
                issued,
                text: kept,
            },
        );
        if s.next_ref == first.saturating_add(reserved) {
            s.next_ref = first + fresh;
        }
        s.next_ref = s.next_ref.max(first + fresh);
        Ok(replaced.map(|old| Given {
            same: old.nav == mark.nav && now == Some(mark.nav),
            outline: old.outline,
        }))
    }

    /// The element `r` stands for: only a ref of the session's latest
    /// snapshot of the fence's tab, with no main-frame navigation since.
    /// Anything else is `STALE_REF` (never another element), whose message
    /// tells a ref never issued to the session from one that went stale.
    pub fn resolve_ref(&self, fence: &Fence, r: &Ref) -> Result<NodeRef, WireError> {
        self.check(fence)?;
        let n = ref_number(r).ok_or_else(|| {
            err(
                ErrorKind::InvalidRequest,
                "invalid params: `params.ref` is not an element ref like `e12`",
            )
        })?;
        let s = self.bound(fence.session, fence.conn)?;
        if n >= s.next_ref {
            return Err(stale_ref(&format!(
                "{} was never issued to this session: call page.snapshot and use a ref it shows",
                r.0
            )));
        }
        let snap = s
            .snapshots
            .get(&fence.tab)
            .ok_or_else(|| stale_ref("no snapshot of this tab: call page.snapshot first"))?;
        if self.tabs.get(&fence.tab).map(|t| t.nav) != Some(snap.nav) {
            return Err(stale_ref(
                "the page navigated since the snapshot: call page.snapshot again",
            ));
        }
        snap.refs.get(&n).cloned().ok_or_else(|| {
            stale_ref("the ref is not from this tab's latest snapshot: call page.snapshot again")
        })
    }

    /// What the element of ref `r` is, as the session's latest whole
    /// outline of `tab` showed it (`button "Delete draft"`): the person's
    /// terms for what an agent acts on.
    pub fn ref_label(&self, sid: SessionId, tab: TabId, r: &Ref) -> Option<String> {
        crate::outline::label_of(&self.last_outline(sid, tab)?, ref_number(r)?)
    }

    /// The latest whole outline the session was given of `tab`.
    pub fn last_outline(&self, sid: SessionId, tab: TabId) -> Option<Arc<str>> {
        let text = self
            .sessions
            .get(&sid)?
            .snapshots
            .get(&tab)?
            .text
            .as_ref()?;
        Some(text.outline.clone())
    }

    /// Number of refs of the session's latest snapshot of `tab` (tests).
    pub fn snapshot_refs(&self, sid: SessionId, tab: TabId) -> usize {
        self.sessions
            .get(&sid)
            .and_then(|s| s.snapshots.get(&tab))
            .map_or(0, |s| s.refs.len())
    }
}
