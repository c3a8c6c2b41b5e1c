//! `cotab` subcommands that change how the selected tab's page renders,
//! or print it: `pdf`, `resize`, `emulate`.

use crate::ctx::{print, Ctx, Failure};
use anyhow::Context as _;
use base64::Engine as _;
use cotab_host::cli::Setting;
use cotab_shared::controller::{
    EmulateMedia, EmulateMediaParams, MediaEmulation, Pdf, PdfParams, Resize, ResizeParams,
};
use serde::Serialize;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// `cotab pdf -o FILE`.
pub(crate) async fn pdf(cx: &mut Ctx, output: PathBuf) -> Result<(), Failure> {
    if output == Path::new("-") && cx.json {
        return Err(Failure::Usage(
            "`-o -` writes the PDF to stdout, where --json would write too".into(),
        ));
    }
    let r = cx.client.call::<Pdf>(&PdfParams {}).await?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(r.data.as_bytes())
        .context("the daemon sent invalid base64")?;
    if output == Path::new("-") {
        std::io::stdout()
            .write_all(&bytes)
            .and_then(|()| std::io::stdout().flush())
            .context("writing the PDF to stdout")?;
        return Ok(());
    }
    std::fs::write(&output, &bytes).with_context(|| format!("writing {}", output.display()))?;
    #[derive(Serialize)]
    struct Printed {
        path: PathBuf,
        bytes: usize,
    }
    let printed = Printed {
        path: output,
        bytes: bytes.len(),
    };
    print(cx.json, &printed, |p| {
        format!("{} {} bytes", p.path.display(), p.bytes)
    })
}

/// `cotab resize W H` or `cotab resize --clear`.
pub(crate) async fn resize(
    cx: &mut Ctx,
    width: Option<u32>,
    height: Option<u32>,
) -> Result<(), Failure> {
    let r = cx.act::<Resize>(&ResizeParams { width, height }).await?;
    print(cx.json, &r, |r| format!("{}x{}", r.width, r.height))
}

/// The features `cotab emulate` was given, as the protocol's change.
pub(crate) struct Features {
    pub(crate) color_scheme: Option<Setting<cotab_shared::controller::ColorScheme>>,
    pub(crate) reduced_motion: Option<Setting<cotab_shared::controller::ReducedMotion>>,
    pub(crate) forced_colors: Option<Setting<cotab_shared::controller::ForcedColors>>,
    pub(crate) contrast: Option<Setting<cotab_shared::controller::Contrast>>,
    pub(crate) media: Option<Setting<cotab_shared::controller::MediaType>>,
}

/// `cotab emulate --color-scheme dark …`.
pub(crate) async fn emulate(cx: &mut Ctx, f: Features) -> Result<(), Failure> {
    let params = EmulateMediaParams {
        color_scheme: f.color_scheme.map(|s| s.0),
        reduced_motion: f.reduced_motion.map(|s| s.0),
        forced_colors: f.forced_colors.map(|s| s.0),
        contrast: f.contrast.map(|s| s.0),
        media: f.media.map(|s| s.0),
    };
    let now = cx.act::<EmulateMedia>(&params).await?;
    print(cx.json, &now, emulated)
}

fn emulated(m: &MediaEmulation) -> String {
    let value = serde_json::to_value(m).unwrap_or_default();
    match value.as_object().filter(|o| !o.is_empty()) {
        None => "no media features emulated".into(),
        Some(fields) => fields
            .iter()
            .map(|(k, v)| format!("{k}: {}", v.as_str().unwrap_or_default()))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}
