//! `browser_resize` and `browser_emulate_media`: the page rendered at
//! another size or with other media features (`page.resize`,
//! `page.emulateMedia`). Neither touches the person's window: the page
//! inside the tab takes the size, up to DESIGN's agent viewport.

use super::bridge::Bridge;
use super::outcome::{ToolFailure, ToolOutput};
use cotab_shared::controller::{
    EmulateMedia, EmulateMediaParams, MediaEmulation, Resize, ResizeParams, MAX_AGENT_VIEWPORT,
};
use schemars::JsonSchema;
use serde::Deserialize;
use std::fmt::Write as _;

/// Arguments of `browser_resize`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResizeArgs {
    /// Width of the page's viewport, in CSS pixels (at most 1920).
    pub(crate) width: f64,
    /// Height of the page's viewport, in CSS pixels (at most 1200).
    pub(crate) height: f64,
}

/// Arguments of `browser_emulate_media`: the protocol's own params (each
/// absent is left unchanged, `null` clears the override).
pub(crate) type EmulateMediaArgs = EmulateMediaParams;

impl Bridge {
    pub(super) async fn resize(&mut self, a: ResizeArgs) -> Result<ToolOutput, ToolFailure> {
        let (max_w, max_h) = MAX_AGENT_VIEWPORT;
        let side = |v: f64, max: u32, name: &str| {
            if v.is_finite() && v >= 1.0 && v <= f64::from(max) {
                Ok(v.round() as u32)
            } else {
                Err(ToolFailure::invalid(format!(
                    "`{name}` must be 1 to {max} CSS pixels (cotab's largest agent viewport is \
                     {max_w}x{max_h})"
                )))
            }
        };
        let params = ResizeParams {
            width: Some(side(a.width, max_w, "width")?),
            height: Some(side(a.height, max_h, "height")?),
        };
        let r = self.act::<Resize>(&params).await?;
        Ok(ToolOutput::text(format!(
            "### Result\nThe page's viewport is {}x{} now (the person's window is unchanged; \
             the size lasts until the person takes control or the tab is no longer shared).",
            r.width, r.height
        )))
    }

    pub(super) async fn emulate_media(
        &mut self,
        a: EmulateMediaArgs,
    ) -> Result<ToolOutput, ToolFailure> {
        let params = a;
        if params.is_empty() {
            return Err(ToolFailure::invalid(
                "Specify at least one media feature to emulate.",
            ));
        }
        let now = self.act::<EmulateMedia>(&params).await?;
        Ok(ToolOutput::text(format!(
            "### Result\n{}",
            emulation_text(&now)
        )))
    }
}

/// What the page emulates, a line each.
fn emulation_text(m: &MediaEmulation) -> String {
    let value = serde_json::to_value(m).unwrap_or_default();
    let Some(fields) = value.as_object().filter(|o| !o.is_empty()) else {
        return "The page emulates no media features now.".into();
    };
    let mut text = String::from("The page emulates:\n");
    for (name, v) in fields {
        let _ = writeln!(text, "- {name}: {}", v.as_str().unwrap_or_default());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    use cotab_shared::controller::ColorScheme;

    #[test]
    fn what_the_page_emulates_is_a_line_each() {
        assert_eq!(
            emulation_text(&MediaEmulation {
                color_scheme: Some(ColorScheme::Dark),
                ..MediaEmulation::default()
            }),
            "The page emulates:\n- colorScheme: dark\n"
        );
        assert_eq!(
            emulation_text(&MediaEmulation::default()),
            "The page emulates no media features now."
        );
    }
}
