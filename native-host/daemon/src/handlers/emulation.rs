//! `page.resize`, `page.emulateMedia` and `page.pdf`: the page rendered at
//! another size or with other media features, and printed, through the
//! tab's debugger session — the person's window is never moved or
//! resized.

use super::{invalid_params, wire, Cx};
use crate::broker::{Fence, Need, Viewport};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use cotab_shared::cdp::{
    ClearDeviceMetricsOverride, PrintToPdf, SetDeviceMetricsOverride, SetEmulatedMedia,
};
use cotab_shared::controller::{
    ColorScheme, Contrast, EmulateMediaParams, ForcedColors, MediaEmulation, MediaType, PdfParams,
    PdfResult, ReducedMotion, ResizeParams, ResizeResult, RpcError, MAX_AGENT_VIEWPORT,
};
use cotab_shared::native::CommandClass;
use cotab_shared::ErrorKind;

pub(super) async fn resize(cx: &Cx<'_>, p: ResizeParams) -> Result<ResizeResult, RpcError> {
    let (max_w, max_h) = MAX_AGENT_VIEWPORT;
    let size = match (p.width, p.height) {
        (Some(w), Some(h)) if (1..=max_w).contains(&w) && (1..=max_h).contains(&h) => Some((w, h)),
        (Some(_), Some(_)) => {
            return Err(invalid_params(format!(
                "invalid params: the viewport must be 1×1 to {max_w}×{max_h} CSS pixels"
            )))
        }
        (None, None) => None,
        _ => {
            return Err(invalid_params(
                "invalid params: give both `params.width` and `params.height`, or neither to \
                 clear the override",
            ))
        }
    };
    let fence = cx.fence(Need::Act)?;
    cx.core(|c| c.input(&fence))?;
    let before = cx.core(|c| c.viewport(fence.tab));
    let viewport = match (size, before) {
        (Some(set), Some(v)) => Some(Viewport { set, ..v }),
        (Some(set), None) => Some(Viewport {
            set,
            own: page_size(cx, &fence).await?,
        }),
        (None, _) => None,
    };
    match size {
        Some((width, height)) => {
            cx.send(&fence, &metrics(width, height), CommandClass::Act)
                .await?;
        }
        None => {
            cx.send(&fence, &ClearDeviceMetricsOverride {}, CommandClass::Act)
                .await?;
        }
    }
    cx.core(|c| c.viewport_set(&fence, viewport))?;
    // The page takes the size when its renderer next lays out, after the
    // browser answered: the answer waits for it, so what the agent reads
    // next is the new page.
    let (width, height) = match (size, before) {
        (Some(want), _) => until_size(cx, &fence, |s| s == want).await?,
        // A cleared override can pass through a size set before it on
        // its way back (the renderer's last size from the browser).
        (None, Some(old)) => until_size(cx, &fence, cleared(old)).await?,
        (None, None) => page_size(cx, &fence).await?,
    };
    cx.check(&fence)?;
    Ok(ResizeResult {
        width: f64::from(width),
        height: f64::from(height),
    })
}

/// Whether the page, read again and again, is done with the clearing of
/// `old`: back at its own size, or at another that held for [`HOLDS`]
/// reads in a row (the window changed while the override was set).
fn cleared(old: Viewport) -> impl FnMut((u32, u32)) -> bool {
    let mut held = (old.set, 0);
    move |s| {
        held = if s == held.0 { (s, held.1 + 1) } else { (s, 1) };
        s == old.own || (s != old.set && held.1 >= HOLDS)
    }
}

/// How many reads in a row a size other than the page's own must hold
/// for [`resize`] to take it as the page's once an override is cleared.
const HOLDS: u32 = 5;

/// How long [`until_size`] waits for the page to lay out at a new size.
const RELAYOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// The page's `innerWidth` and `innerHeight` (scrollbars included).
pub(super) async fn page_size(cx: &Cx<'_>, fence: &Fence) -> Result<(u32, u32), RpcError> {
    let size = cx.read(fence, "[innerWidth, innerHeight]").await?;
    let side = |i: usize| {
        size.get(i)
            .and_then(serde_json::Value::as_u64)
            .and_then(|v| u32::try_from(v).ok())
    };
    match (side(0), side(1)) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => Err(wire(
            ErrorKind::CommandFailed,
            "the page did not tell its size",
        )),
    }
}

/// The page's size once `done` holds for it, read again every few
/// milliseconds; after [`RELAYOUT`] (a page that does not lay out, e.g.
/// one that is stuck), the size it has then.
async fn until_size(
    cx: &Cx<'_>,
    fence: &Fence,
    mut done: impl FnMut((u32, u32)) -> bool,
) -> Result<(u32, u32), RpcError> {
    let give_up = tokio::time::Instant::now() + RELAYOUT;
    loop {
        let size = page_size(cx, fence).await?;
        if done(size) || tokio::time::Instant::now() >= give_up {
            return Ok(size);
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

fn metrics(width: u32, height: u32) -> SetDeviceMetricsOverride {
    SetDeviceMetricsOverride {
        width,
        height,
        device_scale_factor: 0.0,
        mobile: false,
    }
}

/// Gives the page its scrollbars back after a capture beyond its
/// viewport: Chromium leaves a page without them until its viewport
/// changes size. Once the page is back at `before` (its size before the
/// capture: Chromium's own restore may come after the capture's answer),
/// the viewport is set one pixel taller, then back (the size `page.resize`
/// set, else the tab's own), each size waited for, and the whole again if
/// a size did not reach the page (a loaded machine). Sent as reads: the
/// page ends as it was, and this runs while the person controls the tab
/// too.
pub(super) async fn settle_viewport(
    cx: &Cx<'_>,
    fence: &Fence,
    before: (u32, u32),
) -> Result<(), RpcError> {
    until_size(cx, fence, |s| s == before).await?;
    let set = cx.core(|c| c.viewport(fence.tab)).map(|v| v.set);
    let (width, height) = before;
    let taller = (width, height + 1);
    for _ in 0..SETTLE_TRIES {
        // Each size must reach the page's renderer: two sent at once are
        // laid out as one, and the scrollbars stay away.
        cx.send(fence, &metrics(taller.0, taller.1), CommandClass::Observe)
            .await?;
        let grew = until_size(cx, fence, |s| s == taller).await? == taller;
        match set {
            Some((w, h)) => {
                cx.send(fence, &metrics(w, h), CommandClass::Observe)
                    .await?
            }
            None => {
                cx.send(fence, &ClearDeviceMetricsOverride {}, CommandClass::Observe)
                    .await?
            }
        };
        let back = until_size(cx, fence, |s| s == before).await? == before;
        if grew && back {
            break;
        }
    }
    Ok(())
}

/// How many times [`settle_viewport`] tries.
const SETTLE_TRIES: usize = 3;

pub(super) async fn emulate_media(
    cx: &Cx<'_>,
    p: EmulateMediaParams,
) -> Result<MediaEmulation, RpcError> {
    if p.is_empty() {
        return Err(invalid_params(
            "invalid params: name at least one media feature to emulate (null clears one)",
        ));
    }
    let fence = cx.fence(Need::Act)?;
    let media = cx.core(|c| c.media(fence.tab)).with(&p);
    cx.core(|c| c.input(&fence))?;
    cx.send(&fence, &emulated(&media), CommandClass::Act)
        .await?;
    cx.core(|c| c.media_set(&fence, media))?;
    Ok(media)
}

/// The whole emulation as one `Emulation.setEmulatedMedia`: the browser
/// replaces what it emulates with what the command names.
fn emulated(m: &MediaEmulation) -> SetEmulatedMedia {
    let media = match m.media {
        Some(MediaType::Screen) => "screen",
        Some(MediaType::Print) => "print",
        None => "",
    };
    SetEmulatedMedia::with(
        media,
        [
            m.color_scheme.map(|c| match c {
                ColorScheme::Light => "light",
                ColorScheme::Dark => "dark",
            }),
            m.reduced_motion.map(|r| match r {
                ReducedMotion::Reduce => "reduce",
                ReducedMotion::NoPreference => "no-preference",
            }),
            m.forced_colors.map(|f| match f {
                ForcedColors::Active => "active",
                ForcedColors::None => "none",
            }),
            m.contrast.map(|c| match c {
                Contrast::More => "more",
                Contrast::NoPreference => "no-preference",
            }),
        ],
    )
}

pub(super) async fn pdf(cx: &Cx<'_>, _p: PdfParams) -> Result<PdfResult, RpcError> {
    let fence = cx.fence(Need::Observe)?;
    let printed = cx
        .send(&fence, &PrintToPdf {}, CommandClass::Observe)
        .await?;
    cx.check(&fence)?;
    // Only the header is looked at: the browser's bytes are passed on.
    let head = printed.data.get(..8).unwrap_or_default();
    let is_pdf = STANDARD.decode(head).is_ok_and(|b| b.starts_with(b"%PDF"));
    if !is_pdf {
        return Err(wire(
            ErrorKind::CommandFailed,
            "the browser's print is not a PDF",
        ));
    }
    Ok(PdfResult { data: printed.data })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_emulation_is_sent_whole_with_cleared_features_empty() {
        let m = MediaEmulation {
            color_scheme: Some(ColorScheme::Dark),
            media: Some(MediaType::Print),
            ..MediaEmulation::default()
        };
        let sent = serde_json::to_value(emulated(&m)).expect("serialises");
        assert_eq!(
            sent,
            json!({"media": "print", "features": [
                {"name": "prefers-color-scheme", "value": "dark"},
                {"name": "prefers-reduced-motion", "value": ""},
                {"name": "forced-colors", "value": ""},
                {"name": "prefers-contrast", "value": ""},
            ]})
        );
    }

    #[test]
    fn a_cleared_override_waits_for_the_pages_own_size_not_an_earlier_one() {
        let old = Viewport {
            set: (900, 500),
            own: (1280, 761),
        };
        // On its way back the page showed the one-pixel-taller size set
        // before: not done until it is at its own.
        let mut done = cleared(old);
        let reads = [(900, 500), (900, 501), (900, 501), (1280, 761)];
        let seen: Vec<bool> = reads.into_iter().map(&mut done).collect();
        assert_eq!(seen, [false, false, false, true]);
        // The window changed meanwhile: a new size is taken once it held.
        let mut done = cleared(old);
        let seen: Vec<bool> = (0..HOLDS).map(|_| done((1000, 700))).collect::<Vec<_>>();
        assert_eq!(seen.iter().filter(|d| **d).count(), 1);
        assert!(seen[HOLDS as usize - 1]);
        // The override's own size never counts, however long it holds.
        let mut done = cleared(old);
        assert!((0..3 * HOLDS).all(|_| !done((900, 500))));
    }
}
