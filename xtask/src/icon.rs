//! cotab's toolbar and extension-page icon, drawn here rather than kept as
//! binary files: an indigo rounded square holding two browser tabs side by
//! side, the person's (white, behind) and the agent's (amber, in front and
//! higher, a rim of the ground around it), over a white tab strip. Each
//! size is drawn at its own pixel grid with 8 × 8 samples per pixel, so
//! the small sizes stay sharp.

use anyhow::{Context, Result};
use image::{Rgba, RgbaImage};
use std::path::Path;

/// The sizes the manifest names (`icons` and the action's `default_icon`).
pub(crate) const SIZES: [u32; 4] = [16, 32, 48, 128];

/// The path of the icon of `size` inside the built extension.
pub(crate) fn file_name(size: u32) -> String {
    format!("icons/cotab-{size}.png")
}

const INDIGO: [u8; 3] = [0x2d, 0x3a, 0x8c];
const WHITE: [u8; 3] = [0xff, 0xff, 0xff];
const AMBER: [u8; 3] = [0xff, 0xb0, 0x20];

/// A shape in the unit square, `y` down.
enum Shape {
    /// A rectangle with every corner rounded by `r`.
    Rounded {
        x0: f64,
        y0: f64,
        x1: f64,
        y1: f64,
        r: f64,
    },
    /// A browser tab: a rectangle whose top corners are rounded by `r`.
    Tab {
        x0: f64,
        y0: f64,
        x1: f64,
        y1: f64,
        r: f64,
    },
}

impl Shape {
    fn contains(&self, x: f64, y: f64) -> bool {
        let (&x0, &y0, &x1, &y1, &r, all) = match self {
            Shape::Rounded { x0, y0, x1, y1, r } => (x0, y0, x1, y1, r, true),
            Shape::Tab { x0, y0, x1, y1, r } => (x0, y0, x1, y1, r, false),
        };
        if x < x0 || x > x1 || y < y0 || y > y1 {
            return false;
        }
        // The centre of the corner's circle, if the point is in a corner.
        let cx = if x < x0 + r {
            x0 + r
        } else if x > x1 - r {
            x1 - r
        } else {
            return true;
        };
        let cy = if y < y0 + r {
            y0 + r
        } else if all && y > y1 - r {
            y1 - r
        } else {
            return true;
        };
        (x - cx).powi(2) + (y - cy).powi(2) <= r * r
    }
}

/// What is painted, back to front.
fn layers() -> [(Shape, [u8; 3]); 5] {
    [
        (
            Shape::Rounded {
                x0: 0.0,
                y0: 0.0,
                x1: 1.0,
                y1: 1.0,
                r: 0.22,
            },
            INDIGO,
        ),
        (
            Shape::Tab {
                x0: 0.14,
                y0: 0.36,
                x1: 0.56,
                y1: 0.74,
                r: 0.09,
            },
            WHITE,
        ),
        // A ground-coloured rim around the agent's tab parts it from the
        // person's.
        (
            Shape::Tab {
                x0: 0.40,
                y0: 0.20,
                x1: 0.90,
                y1: 0.74,
                r: 0.12,
            },
            INDIGO,
        ),
        (
            Shape::Tab {
                x0: 0.44,
                y0: 0.24,
                x1: 0.86,
                y1: 0.74,
                r: 0.09,
            },
            AMBER,
        ),
        (
            Shape::Rounded {
                x0: 0.1,
                y0: 0.72,
                x1: 0.9,
                y1: 0.82,
                r: 0.03,
            },
            WHITE,
        ),
    ]
}

/// Samples per pixel along each axis.
const SAMPLES: u32 = 8;

/// The icon at `size` × `size` pixels.
pub(crate) fn render(size: u32) -> RgbaImage {
    let layers = layers();
    let n = f64::from(SAMPLES);
    RgbaImage::from_fn(size, size, |px, py| {
        let (mut rgb, mut alpha) = ([0.0f64; 3], 0.0f64);
        for sy in 0..SAMPLES {
            for sx in 0..SAMPLES {
                let x = (f64::from(px) + (f64::from(sx) + 0.5) / n) / f64::from(size);
                let y = (f64::from(py) + (f64::from(sy) + 0.5) / n) / f64::from(size);
                // The frontmost shape under the sample gives its colour.
                if let Some((_, colour)) = layers.iter().rev().find(|(s, _)| s.contains(x, y)) {
                    for (acc, c) in rgb.iter_mut().zip(colour) {
                        *acc += f64::from(*c);
                    }
                    alpha += 1.0;
                }
            }
        }
        if alpha == 0.0 {
            return Rgba([0, 0, 0, 0]);
        }
        let channel = |v: f64| (v / alpha).round().clamp(0.0, 255.0) as u8;
        let coverage = (alpha / (n * n) * 255.0).round() as u8;
        Rgba([channel(rgb[0]), channel(rgb[1]), channel(rgb[2]), coverage])
    })
}

/// Writes every size under `dist` ([`file_name`]).
pub(crate) fn write_all(dist: &Path) -> Result<()> {
    std::fs::create_dir_all(dist.join("icons"))?;
    for size in SIZES {
        let path = dist.join(file_name(size));
        render(size)
            .save(&path)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_size_has_clear_corners_an_indigo_ground_and_both_tabs() {
        for size in SIZES {
            let icon = render(size);
            assert_eq!(icon.dimensions(), (size, size));
            let at = |x: f64, y: f64| {
                *icon.get_pixel(
                    ((x * f64::from(size)) as u32).min(size - 1),
                    ((y * f64::from(size)) as u32).min(size - 1),
                )
            };
            assert_eq!(at(0.0, 0.0)[3], 0, "{size}: the corner is clear");
            assert_eq!(
                at(0.5, 0.08),
                Rgba([0x2d, 0x3a, 0x8c, 255]),
                "{size}: ground"
            );
            assert_eq!(
                at(0.25, 0.6),
                Rgba([255, 255, 255, 255]),
                "{size}: the person's tab"
            );
            assert_eq!(
                at(0.72, 0.45),
                Rgba([0xff, 0xb0, 0x20, 255]),
                "{size}: the agent's tab"
            );
        }
    }

    #[test]
    fn tabs_round_only_their_top_corners() {
        let tab = Shape::Tab {
            x0: 0.0,
            y0: 0.0,
            x1: 1.0,
            y1: 1.0,
            r: 0.2,
        };
        assert!(!tab.contains(0.01, 0.01), "top left is rounded");
        assert!(tab.contains(0.01, 0.99), "bottom left is square");
        assert!(tab.contains(0.5, 0.5));
        assert!(!tab.contains(1.1, 0.5));
    }
}
