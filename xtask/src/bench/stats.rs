//! Summaries of timing samples: count, median, p90, p99 and max, by the
//! nearest-rank method (every reported figure is a sample that was
//! measured, never an interpolation).

use serde_json::{json, Value};
use std::time::Duration;

/// The summary of one series of samples, in milliseconds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Summary {
    pub(crate) n: usize,
    pub(crate) median: f64,
    pub(crate) p90: f64,
    pub(crate) p99: f64,
    pub(crate) max: f64,
    pub(crate) mean: f64,
}

impl Summary {
    /// Summarises `samples` (milliseconds); `None` when there are none.
    pub(crate) fn of_ms(samples: &[f64]) -> Option<Summary> {
        let mut v: Vec<f64> = samples.iter().copied().filter(|s| s.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        Some(Summary {
            n: v.len(),
            median: nearest_rank(&v, 50.0),
            p90: nearest_rank(&v, 90.0),
            p99: nearest_rank(&v, 99.0),
            max: v[v.len() - 1],
            mean: v.iter().sum::<f64>() / v.len() as f64,
        })
    }

    /// Summarises durations.
    pub(crate) fn of(samples: &[Duration]) -> Option<Summary> {
        let ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        Summary::of_ms(&ms)
    }

    /// The summary as JSON (milliseconds).
    pub(crate) fn to_json(&self) -> Value {
        json!({
            "n": self.n,
            "medianMs": round3(self.median),
            "p90Ms": round3(self.p90),
            "p99Ms": round3(self.p99),
            "maxMs": round3(self.max),
            "meanMs": round3(self.mean),
        })
    }
}

/// The `p`-th percentile (0 < p ≤ 100) of sorted, non-empty `sorted` by
/// nearest rank: the smallest sample with at least p % of the samples at
/// or below it.
pub(crate) fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    debug_assert!(!sorted.is_empty());
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Rounds to three decimals (microseconds, for milliseconds) for JSON.
pub(crate) fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// Milliseconds for a table: three significant decimals below 10 ms.
pub(crate) fn ms(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.2} ms")
    } else {
        format!("{v:.1} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(nearest_rank(&v, 50.0), 50.0);
        assert_eq!(nearest_rank(&v, 90.0), 90.0);
        assert_eq!(nearest_rank(&v, 99.0), 99.0);
        assert_eq!(nearest_rank(&v, 100.0), 100.0);
        // Ten samples: p99 is the largest, the median the fifth.
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(nearest_rank(&v, 50.0), 5.0);
        assert_eq!(nearest_rank(&v, 99.0), 10.0);
        assert_eq!(nearest_rank(&[7.0], 1.0), 7.0);
    }

    #[test]
    fn summary_sorts_and_ignores_non_finite_samples() {
        let s = Summary::of_ms(&[3.0, f64::NAN, 1.0, 2.0, 4.0]).expect("samples");
        assert_eq!(s.n, 4);
        assert_eq!(s.median, 2.0);
        assert_eq!(s.p90, 4.0);
        assert_eq!(s.max, 4.0);
        assert_eq!(s.mean, 2.5);
        assert_eq!(Summary::of_ms(&[]), None);
        let d = Summary::of(&[Duration::from_micros(1500)]).expect("one sample");
        assert_eq!(d.median, 1.5);
    }
}
