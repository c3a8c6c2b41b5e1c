//! `page.capture`: the screenshot, its geometry and frame, downscaling,
//! clips, and the digest that answers `knownFrameId` with `unchanged`.

use super::emulation;
use super::{invalid_params, off_thread_if, wire, Cx};
use crate::broker::{CaptureMeta, Fence, Need};
use crate::validate::image_size;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use cotab_shared::cdp::{CaptureScreenshot, Viewport};
use cotab_shared::controller::{
    CaptureParams, CaptureResult, ImageFormat, RpcError, DEFAULT_JPEG_QUALITY, MAX_FULL_PAGE_CSS,
};
use cotab_shared::native::CommandClass;
use cotab_shared::ErrorKind;
use serde_json::Value;
use sha2::{Digest as _, Sha256};

pub(super) fn dpr_of(v: &Value) -> f64 {
    v.as_f64()
        .filter(|d| d.is_finite() && *d > 0.0)
        .unwrap_or(1.0)
}

/// A capture's base64 text (in characters) above which it is decoded and
/// hashed on the blocking pool, so the daemon's one thread keeps serving
/// other requests meanwhile.
pub(super) const LARGE_IMAGE: usize = 1 << 20;

/// A capture's image, read from its base64 text.
pub(super) struct Image {
    /// The base64 text, as the browser sent it.
    data: String,
    /// The SHA-256 of the image's bytes.
    digest: [u8; 32],
    /// Width in pixels.
    width: u32,
    /// Height in pixels.
    height: u32,
}

/// Reads a capture's base64 text as an [`Image`].
pub(super) fn read_image(data: String) -> Result<Image, RpcError> {
    let bytes = STANDARD
        .decode(data.as_bytes())
        .map_err(|_| wire(ErrorKind::CommandFailed, "the capture is not valid base64"))?;
    let (width, height) = image_size(&bytes).ok_or_else(|| {
        wire(
            ErrorKind::CommandFailed,
            "the capture is not a readable image",
        )
    })?;
    Ok(Image {
        data,
        digest: Sha256::digest(&bytes).into(),
        width,
        height,
    })
}

/// A rectangle in viewport CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Rect {
    pub(super) x: f64,
    pub(super) y: f64,
    pub(super) width: f64,
    pub(super) height: f64,
}

/// The page's scrollable size, `[width, height]` in CSS pixels.
const CONTENT_SIZE: &str = "[Math.max(document.documentElement.scrollWidth, \
     document.body ? document.body.scrollWidth : 0), \
     Math.max(document.documentElement.scrollHeight, \
     document.body ? document.body.scrollHeight : 0)]";

/// One side of a full-page capture: the page's, at least the viewport's,
/// at most [`MAX_FULL_PAGE_CSS`].
fn side(v: &Value, viewport: f64) -> f64 {
    let page = v.as_f64().filter(|s| s.is_finite()).unwrap_or(viewport);
    page.max(viewport).clamp(1.0, f64::from(MAX_FULL_PAGE_CSS))
}

pub(super) async fn capture(cx: &Cx<'_>, p: CaptureParams) -> Result<CaptureResult, RpcError> {
    let quality = match (p.format, p.quality) {
        (ImageFormat::Png, Some(_)) => {
            return Err(invalid_params(
                "invalid params: `params.quality` is only allowed with jpeg",
            ));
        }
        (ImageFormat::Jpeg, Some(q)) if q > 100 => {
            return Err(invalid_params(
                "invalid params: `params.quality` must be 0 to 100",
            ));
        }
        (ImageFormat::Jpeg, q) => Some(q.unwrap_or(DEFAULT_JPEG_QUALITY)),
        (ImageFormat::Png, None) => None,
    };
    if p.max_width == Some(0) {
        return Err(invalid_params(
            "invalid params: `params.maxWidth` must be at least 1",
        ));
    }
    if p.full_page && p.clip.is_some() {
        return Err(invalid_params(
            "invalid params: `params.fullPage` and `params.clip` do not go together",
        ));
    }
    let fence = cx.fence(Need::Observe)?;
    if !p.full_page {
        return shoot_at(cx, &fence, p, quality).await;
    }
    // Laying the whole page out for the capture, and the scrollbars given
    // back after, resize the page for a moment: not under the person's
    // hands.
    if cx.core(|c| c.person_controls(fence.tab)) {
        return Err(wire(
            ErrorKind::HumanHasControl,
            "the person controls this tab: a full-page capture resizes the page for a moment,              so it waits until they hand control back (a capture of the viewport does not)",
        ));
    }
    // A capture beyond the viewport, failed or not, leaves the page
    // without its scrollbars until they are given back.
    let before = emulation::page_size(cx, &fence).await?;
    let shot = shoot_at(cx, &fence, p, quality).await;
    let settled = emulation::settle_viewport(cx, &fence, before).await;
    let shot = shot?;
    settled?;
    Ok(shot)
}

/// [`capture`] once its params are checked: `quality` is the JPEG
/// quality.
async fn shoot_at(
    cx: &Cx<'_>,
    fence: &Fence,
    p: CaptureParams,
    quality: Option<u8>,
) -> Result<CaptureResult, RpcError> {
    let fence = fence.clone();
    let mark = cx.core(|c| c.capture_started(&fence));
    let params = CaptureScreenshot {
        format: p.format.as_str(),
        quality,
        clip: None,
        capture_beyond_viewport: p.full_page,
    };
    let shoot = |params: CaptureScreenshot| {
        let fence = &fence;
        async move {
            // What the person is shown of an agent at work is theirs: no
            // capture holds it ([`crate::overlay`]).
            cx.shell.overlays.hide(&cx.shell.lane, fence.tab);
            let shot = cx.send(fence, &params, CommandClass::Observe).await?;
            let data = shot
                .data
                .ok_or_else(|| wire(ErrorKind::CommandFailed, "the capture returned no image"))?;
            off_thread_if(data.len() > LARGE_IMAGE, "reading the capture", move || {
                read_image(data)
            })
            .await
        }
    };
    let (data, digest, width, height, dpr, geometry, origin) =
        if p.clip.is_none() && p.max_width.is_none() && !p.full_page {
            let (shot, dpr, geometry) = tokio::join!(
                shoot(params),
                cx.read(&fence, "window.devicePixelRatio"),
                cx.geometry(&fence),
            );
            let Image {
                data,
                digest,
                width,
                height,
            } = shot?;
            (
                data,
                digest,
                width,
                height,
                dpr_of(&dpr?),
                geometry?,
                (0.0, 0.0),
            )
        } else {
            // The element's box first: bringing it into view scrolls.
            let region = match &p.clip {
                Some(r) => Some(cx.element_box(&fence, r).await?),
                None => None,
            };
            let (dpr, geometry, content) = tokio::join!(
                cx.read(&fence, "window.devicePixelRatio"),
                cx.geometry(&fence),
                async {
                    match p.full_page {
                        true => cx.read(&fence, CONTENT_SIZE).await.map(Some),
                        false => Ok(None),
                    }
                },
            );
            let (dpr, geometry) = (dpr_of(&dpr?), geometry?);
            // The whole page, from its top left corner: in viewport
            // coordinates, that is minus the scroll offset.
            let region = region.or(content?.map(|size| Rect {
                x: -geometry.scroll_x,
                y: -geometry.scroll_y,
                width: side(&size[0], geometry.viewport_width),
                height: side(&size[1], geometry.viewport_height),
            }));
            let region = region.unwrap_or(Rect {
                x: 0.0,
                y: 0.0,
                width: geometry.viewport_width,
                height: geometry.viewport_height,
            });
            let natural = region.width * dpr;
            let mut scale = match p.max_width {
                Some(m) if natural > f64::from(m) => f64::from(m) / natural,
                _ => 1.0,
            };
            let mut attempt = 0;
            loop {
                // `Page.captureScreenshot` reads a clip in document
                // coordinates: the viewport's scroll offset plus the box.
                let params = CaptureScreenshot {
                    clip: Some(Viewport {
                        x: region.x + geometry.scroll_x,
                        y: region.y + geometry.scroll_y,
                        width: region.width,
                        height: region.height,
                        scale,
                    }),
                    ..params.clone()
                };
                let Image {
                    data,
                    digest,
                    width,
                    height,
                } = shoot(params).await?;
                match p.max_width {
                    Some(m) if width > m => {
                        if attempt > 0 {
                            return Err(wire(
                                ErrorKind::CommandFailed,
                                "the browser did not downscale the capture to maxWidth",
                            ));
                        }
                        attempt += 1;
                        // Rounding made it too wide: shrink by what it missed.
                        scale *= (f64::from(m) - 0.5) / f64::from(width);
                    }
                    _ => {
                        break (
                            data,
                            digest,
                            width,
                            height,
                            dpr * scale,
                            geometry,
                            (region.x, region.y),
                        )
                    }
                }
            }
        };
    if let Some(known) = &p.known_frame_id {
        let same = cx.core(|c| c.unchanged_frame(&fence, known, &digest, &geometry));
        if let Some(f) = same {
            return Ok(CaptureResult {
                format: p.format,
                data: None,
                unchanged: true,
                width,
                height,
                device_pixel_ratio: f.dpr,
                frame_id: f.id,
                geometry: f.geometry,
            });
        }
    }
    let g = geometry.clone();
    let frame_id = cx.core(|c| {
        c.capture_finished_with(
            &fence,
            mark,
            CaptureMeta {
                dpr,
                geometry: g,
                origin,
                digest,
            },
        )
    })?;
    Ok(CaptureResult {
        format: p.format,
        data: Some(data),
        unchanged: false,
        width,
        height,
        device_pixel_ratio: dpr,
        frame_id,
        geometry,
    })
}
