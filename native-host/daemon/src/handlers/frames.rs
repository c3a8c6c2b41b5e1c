//! A small picture of the tab after an agent's request, for the activity
//! record: once no agent request has ended or runs on the tab for
//! [`QUIET`], the daemon captures its viewport as a JPEG [`WIDTH`] pixels
//! wide and hands it to the recorder. An agent acting in a burst (a
//! script's loop) is never slowed by a capture between its requests; the
//! last request of the burst gets the picture of where it left the page.
//!
//! Only a tab an agent may see is pictured — shared, not on a blocked
//! page, not under the person's control (what the person does is
//! theirs) — checked when the picture is taken, and the extension refuses
//! a blocked page again. No agent can ask for a frame: they go only to
//! the record. The drawing of what the agent aimed at ([`crate::overlay`])
//! stays in the picture: the person reading the record sees it too.

use crate::session::SessionId;
use crate::shell::Shell;
use cotab_shared::cdp::{CaptureScreenshot, CdpCommand, GetLayoutMetrics, LayoutMetrics, Viewport};
use cotab_shared::native::{Command, CommandClass};
use cotab_shared::{TabId, WireError};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// How long a tab stays without agent requests before it is pictured.
pub(super) const QUIET: Duration = Duration::from_millis(250);
/// The picture's width in pixels.
pub(super) const WIDTH: f64 = 320.0;
/// Its JPEG quality.
const QUALITY: u8 = 50;
/// How long a picture may take before it is given up.
const DEADLINE: Duration = Duration::from_secs(3);

/// Request `seq` of session `sid` ended on `tab`: picture the tab once it
/// is quiet, unless another request comes first.
pub(super) fn after(shell: &Arc<Shell>, sid: SessionId, seq: u64, tab: TabId) {
    let Some(generation) = shell.activity.quiet_from(tab) else {
        return;
    };
    let shell = shell.clone();
    drop(tokio::spawn(async move {
        tokio::time::sleep(QUIET).await;
        if !shell.activity.still_quiet(tab, generation) {
            return;
        }
        if !shell.with_core(|c| c.agent_may_see(tab)) {
            return;
        }
        match picture(&shell, tab).await {
            Ok(jpeg) => shell.activity.frame(sid, seq, jpeg),
            Err(e) => tracing::debug!(%tab, kind = %e.kind, "no frame of the tab for the record"),
        }
    }));
}

async fn send<C: CdpCommand>(
    shell: &Shell,
    tab: TabId,
    command: &C,
) -> Result<C::Response, WireError> {
    let command_ = Command::Cdp {
        tab_id: tab,
        method: C::METHOD.into(),
        params: command.params(),
        class: CommandClass::Observe,
        then: None,
        if_viewport: None,
        session: None,
    };
    let v = shell.lane.call(command_, Instant::now() + DEADLINE).await?;
    C::response(v)
}

/// The tab's viewport as a JPEG, base64.
async fn picture(shell: &Shell, tab: TabId) -> Result<String, WireError> {
    let metrics: LayoutMetrics = send(shell, tab, &GetLayoutMetrics {}).await?;
    let g = metrics
        .geometry()
        .ok_or_else(|| WireError::new(cotab_shared::ErrorKind::CommandFailed, "no viewport"))?;
    let width = g.viewport_width.max(1.0);
    let shot = send(
        shell,
        tab,
        &CaptureScreenshot {
            format: "jpeg",
            quality: Some(QUALITY),
            clip: Some(Viewport {
                x: g.scroll_x,
                y: g.scroll_y,
                width,
                height: g.viewport_height.max(1.0),
                scale: (WIDTH / width).min(1.0),
            }),
            capture_beyond_viewport: false,
        },
    )
    .await?;
    shot.data
        .ok_or_else(|| WireError::new(cotab_shared::ErrorKind::CommandFailed, "no image"))
}
