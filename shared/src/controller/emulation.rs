//! Params and results of the methods that change how the selected tab's
//! page renders without touching the person's window (`page.resize`,
//! `page.emulateMedia`) and of `page.pdf`.
//!
//! Each override lasts until the agent clears it, the person takes control
//! of the tab (they get the page as they left it), or the tab's debugger
//! session ends (the tab is no longer shared, or developer mode was
//! switched off, which re-attaches).

use serde::{Deserialize, Deserializer, Serialize};

/// The largest viewport an agent may set (DESIGN's agent viewport).
pub const MAX_AGENT_VIEWPORT: (u32, u32) = (1920, 1200);

/// Params of `page.resize`: both sides set the page's viewport (CSS
/// pixels, 1 to [`MAX_AGENT_VIEWPORT`]); neither clears the override, so
/// the page fills the tab again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResizeParams {
    /// Viewport width, CSS pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// Viewport height, CSS pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
}

/// Result of `page.resize`: the viewport the page now has, CSS pixels,
/// scrollbars included (the page's `innerWidth` and `innerHeight`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResizeResult {
    /// Viewport width.
    pub width: f64,
    /// Viewport height.
    pub height: f64,
}

/// `prefers-color-scheme`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ColorScheme {
    /// `light`.
    Light,
    /// `dark`.
    Dark,
}

/// `prefers-reduced-motion`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ReducedMotion {
    /// `reduce`.
    Reduce,
    /// `no-preference`.
    NoPreference,
}

/// `forced-colors`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ForcedColors {
    /// `active`.
    Active,
    /// `none`.
    None,
}

/// `prefers-contrast`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Contrast {
    /// `more`.
    More,
    /// `no-preference`.
    NoPreference,
}

/// The CSS media type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum MediaType {
    /// `screen`.
    Screen,
    /// `print`.
    Print,
}

/// A change to one emulated media feature: absent leaves it as it is,
/// `null` clears its override, a value sets it.
pub type Change<T> = Option<Option<T>>;

fn change<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Change<T>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// Params of `page.emulateMedia`, as Playwright's `page.emulateMedia`:
/// each field absent is left unchanged, `null` clears it. At least one
/// field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EmulateMediaParams {
    /// Emulates the prefers-color-scheme media feature.
    #[serde(
        default,
        deserialize_with = "change",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<ColorScheme>"))]
    pub color_scheme: Change<ColorScheme>,
    /// Emulates the prefers-reduced-motion media feature.
    #[serde(
        default,
        deserialize_with = "change",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<ReducedMotion>"))]
    pub reduced_motion: Change<ReducedMotion>,
    /// Emulates the forced-colors media feature.
    #[serde(
        default,
        deserialize_with = "change",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<ForcedColors>"))]
    pub forced_colors: Change<ForcedColors>,
    /// Emulates the prefers-contrast media feature.
    #[serde(
        default,
        deserialize_with = "change",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<Contrast>"))]
    pub contrast: Change<Contrast>,
    /// Changes the CSS media type of the page.
    #[serde(
        default,
        deserialize_with = "change",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<MediaType>"))]
    pub media: Change<MediaType>,
}

/// What a tab's page emulates (result of `page.emulateMedia`): each
/// field absent is not emulated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaEmulation {
    /// `prefers-color-scheme`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color_scheme: Option<ColorScheme>,
    /// `prefers-reduced-motion`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduced_motion: Option<ReducedMotion>,
    /// `forced-colors`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forced_colors: Option<ForcedColors>,
    /// `prefers-contrast`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contrast: Option<Contrast>,
    /// The CSS media type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media: Option<MediaType>,
}

impl EmulateMediaParams {
    /// Whether the params change nothing (no field given).
    pub fn is_empty(&self) -> bool {
        *self == EmulateMediaParams::default()
    }
}

impl MediaEmulation {
    /// This emulation with `change` applied.
    pub fn with(self, change: &EmulateMediaParams) -> MediaEmulation {
        fn apply<T: Copy>(now: Option<T>, change: Change<T>) -> Option<T> {
            change.unwrap_or(now)
        }
        MediaEmulation {
            color_scheme: apply(self.color_scheme, change.color_scheme),
            reduced_motion: apply(self.reduced_motion, change.reduced_motion),
            forced_colors: apply(self.forced_colors, change.forced_colors),
            contrast: apply(self.contrast, change.contrast),
            media: apply(self.media, change.media),
        }
    }
}

/// Params of `page.pdf`: the page printed as Chromium prints it by
/// default (Letter, no backgrounds), as Playwright's `page.pdf()`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PdfParams {}

/// Result of `page.pdf`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PdfResult {
    /// The PDF, base64 (standard alphabet, padded).
    pub data: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_absent_media_feature_is_kept_and_null_clears_it() {
        let p: EmulateMediaParams =
            serde_json::from_value(json!({"colorScheme": "dark", "media": null})).expect("params");
        assert_eq!(p.color_scheme, Some(Some(ColorScheme::Dark)));
        assert_eq!(p.media, Some(None));
        assert_eq!(p.contrast, None);
        assert_eq!(
            serde_json::to_value(p).expect("serialises"),
            json!({"colorScheme": "dark", "media": null})
        );
        let before = MediaEmulation {
            media: Some(MediaType::Print),
            contrast: Some(Contrast::More),
            ..MediaEmulation::default()
        };
        assert_eq!(
            before.with(&p),
            MediaEmulation {
                color_scheme: Some(ColorScheme::Dark),
                contrast: Some(Contrast::More),
                ..MediaEmulation::default()
            }
        );
        assert!(EmulateMediaParams::default().is_empty());
        for bad in [
            json!({"colorScheme": "purple"}),
            json!({"colorScheme": "no-preference"}),
            json!({"zoom": 2}),
        ] {
            assert!(
                serde_json::from_value::<EmulateMediaParams>(bad.clone()).is_err(),
                "{bad}"
            );
        }
    }
}
