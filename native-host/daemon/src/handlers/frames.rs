//! A small picture of the tab after an agent's request, for the activity
//! record and the side panel: once no agent request has ended or runs on
//! the tab for a while — until the drawing of what the agent aimed at
//! faded ([`crate::overlay::FADE`] and a little more: a downscaled
//! capture draws it at the wrong scale), or [`QUIET`] while the person
//! turned the drawing off — the daemon captures its viewport as a JPEG of
//! low quality and hands it to the recorder and the watches. An agent acting in a burst (a
//! script's loop) is never slowed by a capture between its requests; the
//! last request of the burst gets the picture of where it left the page.
//!
//! Only a tab an agent may see is pictured — shared, not on a blocked
//! page, not under the person's control (what the person does is
//! theirs) — checked when the picture is taken, and the extension refuses
//! a blocked page again. No agent can ask for a frame: they go only to
//! the record and the person's side panel.

use crate::session::SessionId;
use crate::shell::Shell;
use cotab_shared::cdp::{CaptureScreenshot, CdpCommand};
use cotab_shared::native::{CdpCall, Command};
use cotab_shared::{TabId, WireError};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// How long a tab stays without agent requests before it is pictured,
/// while what agents aim at is not drawn in the page.
pub(super) const QUIET: Duration = Duration::from_millis(250);
/// The picture's JPEG quality: low, as a record's picture is small.
const QUALITY: u8 = 30;
/// How long a picture may take before it is given up.
const DEADLINE: Duration = Duration::from_secs(3);

/// Request `seq` of session `sid` ended on `tab`: picture the tab once it
/// is quiet, unless another request comes first.
pub(super) fn after(shell: &Arc<Shell>, sid: SessionId, seq: u64, tab: TabId) {
    let Some(generation) = shell.activity.quiet_from(tab) else {
        return;
    };
    // The drawing of what the agent aimed at is scaled wrong in a
    // downscaled capture: the picture waits until it faded.
    let quiet = if shell.settings().agent_pointer {
        crate::overlay::FADE + QUIET / 2
    } else {
        QUIET
    };
    let shell = shell.clone();
    drop(tokio::spawn(async move {
        tokio::time::sleep(quiet).await;
        if !shell.activity.still_quiet(tab, generation) {
            return;
        }
        if !shell.with_core(|c| c.agent_may_see(tab)) {
            return;
        }
        match picture(&shell, tab, QUALITY).await {
            Ok(jpeg) => shell.activity.frame(sid, seq, tab, jpeg),
            Err(e) => tracing::debug!(%tab, kind = %e.kind, "no frame of the tab for the record"),
        }
    }));
}

async fn send<C: CdpCommand>(
    shell: &Shell,
    tab: TabId,
    command: &C,
) -> Result<C::Response, WireError> {
    let command_ = Command::Observe(CdpCall::new(tab, C::METHOD, command.params()));
    let v = shell.lane.call(command_, Instant::now() + DEADLINE).await?;
    C::response(v)
}

/// The tab's viewport as a JPEG, base64: a plain capture, as the
/// browser draws it. A capture with a scaled clip would emulate another
/// viewport for a moment, which the page sees (a resize) and which undoes
/// an agent's own emulated size. `quality` is the JPEG's.
pub(super) async fn picture(shell: &Shell, tab: TabId, quality: u8) -> Result<String, WireError> {
    let shot = send(
        shell,
        tab,
        &CaptureScreenshot {
            format: "jpeg",
            quality: Some(quality),
            clip: None,
            capture_beyond_viewport: false,
        },
    )
    .await?;
    shot.data
        .ok_or_else(|| WireError::new(cotab_shared::ErrorKind::CommandFailed, "no image"))
}
