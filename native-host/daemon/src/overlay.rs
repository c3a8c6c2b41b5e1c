//! What the person sees of an agent at work in the shared tab itself: the
//! element an action aims at (its box, with its role and name as the
//! browser's tooltip gives them) or the point a pointer action goes to,
//! drawn by the browser over the page (CDP `Overlay`), where no page
//! script can find, read, restyle or hear of it. Each drawing fades after
//! [`FADE`] unless a newer one replaced it.
//!
//! The browser's screenshots do contain the overlay, so a tab's drawing is
//! hidden before any capture an agent asks for ([`Overlays::hide`]): an
//! agent never sees it, and a capture is what it would be without it.
//!
//! It does not decide what an action aims at (the handlers do), and it
//! never waits for the browser: every command here goes out at once, in
//! order with what the request sends after it, and its answer is ignored.

use crate::lane::Lane;
use cotab_shared::cdp::{
    CdpCommand, HideHighlight, HighlightConfig, HighlightNode, HighlightQuad, Rgba,
};
use cotab_shared::native::{CdpCall, Command};
use cotab_shared::TabId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a drawing stays after the action that made it.
pub const FADE: Duration = Duration::from_millis(1500);

/// The agent's colour in cotab's icon (amber), for its drawings.
const AMBER: (u8, u8, u8) = (245, 158, 11);

/// Half the size of the pointer's mark, in CSS pixels.
const POINTER: f64 = 7.0;

fn amber(a: f32) -> Rgba {
    Rgba {
        r: AMBER.0,
        g: AMBER.1,
        b: AMBER.2,
        a,
    }
}

/// What an action aims at, as it is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Aimed {
    /// An element, by its `backendNodeId`.
    Element(i64),
    /// A point of the viewport, in CSS pixels.
    Point(f64, f64),
}

/// The drawing of `aimed`.
fn draw(tab: TabId, aimed: Aimed) -> Command {
    let (method, params) = match aimed {
        Aimed::Element(backend_node_id) => {
            let c = HighlightNode {
                highlight_config: HighlightConfig {
                    show_info: true,
                    show_accessibility_info: true,
                    content_color: amber(0.25),
                    padding_color: amber(0.12),
                    border_color: amber(0.9),
                },
                backend_node_id,
            };
            (HighlightNode::METHOD, c.params())
        }
        // A diamond around the point.
        Aimed::Point(x, y) => {
            let c = HighlightQuad {
                quad: [
                    x,
                    y - POINTER,
                    x + POINTER,
                    y,
                    x,
                    y + POINTER,
                    x - POINTER,
                    y,
                ],
                color: amber(0.85),
                outline_color: Rgba {
                    r: 120,
                    g: 53,
                    b: 15,
                    a: 1.0,
                },
            };
            (HighlightQuad::METHOD, c.params())
        }
    };
    // Refused once the person holds the tab, as the action is.
    Command::Act(CdpCall::new(tab, method, params))
}

/// Its undo, which goes whoever holds the tab.
fn hide(tab: TabId) -> Command {
    Command::Release(CdpCall::new(
        tab,
        HideHighlight::METHOD,
        HideHighlight {}.params(),
    ))
}

/// Which tabs show a drawing now, each with the number of its latest (a
/// fade hides only the drawing it was started for).
#[derive(Debug)]
pub struct Overlays {
    shown: Mutex<HashMap<TabId, u64>>,
    next: std::sync::atomic::AtomicU64,
    /// Whether the person wants drawings at all ([`crate::settings`]).
    enabled: std::sync::atomic::AtomicBool,
}

impl Default for Overlays {
    fn default() -> Self {
        Overlays {
            shown: Mutex::default(),
            next: std::sync::atomic::AtomicU64::new(0),
            enabled: std::sync::atomic::AtomicBool::new(true),
        }
    }
}

impl Overlays {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<TabId, u64>> {
        self.shown.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether drawings are made.
    pub fn enabled(&self) -> bool {
        self.enabled.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Turns the drawings on or off (off also hides every one shown).
    pub fn set_enabled(&self, lane: &Lane, on: bool) {
        self.enabled.store(on, std::sync::atomic::Ordering::Relaxed);
        if !on {
            let tabs: Vec<TabId> = self.lock().keys().copied().collect();
            for tab in tabs {
                self.hide(lane, tab);
            }
        }
    }

    /// Draws `aimed` on `tab` now, and hides it after [`FADE`] unless a
    /// newer drawing replaced it by then; nothing when the person turned
    /// the drawings off.
    pub fn show(self: &Arc<Self>, lane: &Arc<Lane>, tab: TabId, aimed: Aimed) {
        if !self.enabled() || !lane.send_unanswered(&draw(tab, aimed)) {
            return;
        }
        let n = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.lock().insert(tab, n);
        let (overlays, lane) = (self.clone(), lane.clone());
        // Detached on purpose: the fade comes whether or not the request
        // that drew it is still there.
        drop(tokio::spawn(async move {
            tokio::time::sleep(FADE).await;
            let latest = {
                let mut shown = overlays.lock();
                let latest = shown.get(&tab) == Some(&n);
                if latest {
                    shown.remove(&tab);
                }
                latest
            };
            if latest {
                lane.send_unanswered(&hide(tab));
            }
        }));
    }

    /// Hides what `tab` shows, if anything, before what is sent after
    /// this (a capture): at once, in order.
    pub fn hide(&self, lane: &Lane, tab: TabId) {
        if self.lock().remove(&tab).is_some() {
            lane.send_unanswered(&hide(tab));
        }
    }

    /// Whether `tab` shows a drawing now (for tests and status).
    pub fn showing(&self, tab: TabId) -> bool {
        self.lock().contains_key(&tab)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_element_is_drawn_with_its_role_and_name_and_a_point_as_a_mark() {
        let Command::Act(CdpCall { method, params, .. }) = draw(TabId(3), Aimed::Element(42))
        else {
            panic!("an action");
        };
        assert_eq!(method, "Overlay.highlightNode");
        assert_eq!(params["backendNodeId"], 42);
        assert_eq!(params["highlightConfig"]["showAccessibilityInfo"], true);
        let Command::Act(CdpCall { method, params, .. }) =
            draw(TabId(3), Aimed::Point(100.0, 50.0))
        else {
            panic!("an action");
        };
        assert_eq!(method, "Overlay.highlightQuad");
        assert_eq!(
            params["quad"],
            json!([100.0, 43.0, 107.0, 50.0, 100.0, 57.0, 93.0, 50.0])
        );
        let Command::Release(CdpCall { method, .. }) = hide(TabId(3)) else {
            panic!("a release");
        };
        assert_eq!(method, "Overlay.hideHighlight");
    }
}
