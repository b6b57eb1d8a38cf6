//! Suspicious time windows over per-GC metrics (docs/design.md, "Analysis core"; after Weninger et al., "Detecting
//! suspicious time windows in memory monitoring", see docs/analysis.md). Windows are inclusive
//! ranges of snapshot indices; every search is O(n) or O(n·w) with prefix sums.

use memcity_model::History;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WindowKind {
    /// Reachable memory grows to the end (heuristic); score: growth in bytes per second.
    Leak,
    /// The steepest positive least-squares growth ending at the last GC; score: bytes per second.
    LeakRegression,
    /// The fastest-growing sub-window of the leak window; score: bytes per second.
    FastestGrowth,
    /// The most time spent in GC; score: fraction of the window's duration.
    GcOverhead,
    /// Bytes freed per second well above the trace's average; score: bytes per second.
    Churn,
}

impl WindowKind {
    pub fn label(self) -> &'static str {
        match self {
            WindowKind::Leak => "leak",
            WindowKind::LeakRegression => "leak (regression)",
            WindowKind::FastestGrowth => "fastest growth",
            WindowKind::GcOverhead => "GC overhead",
            WindowKind::Churn => "churn",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Window {
    pub kind: WindowKind,
    pub first: usize,
    pub last: usize,
    pub score: f64,
}

/// A point may not drop below this share of the window's maximum (the paper's 75% rule).
pub const LEAK_DROP_TOLERANCE: f64 = 0.75;
/// A leak window must cover this share of all GCs (the paper's 10% rule).
pub const LEAK_MIN_COVERAGE: f64 = 0.10;
/// Our addition: a leak window must grow reachable memory by this share of its start value, so
/// the noise of a steady state (which always rises somewhere at the end) is not a leak.
pub const LEAK_MIN_GROWTH: f64 = 0.20;
/// GC overhead windows span this many GCs and are reported from this overhead on.
pub const GC_WINDOW_GCS: (usize, usize) = (5, 50);
pub const GC_MIN_OVERHEAD: f64 = 0.10;
/// A churn window must free bytes this many times faster than the trace's average.
pub const CHURN_FACTOR: f64 = 2.0;

fn enough_coverage(first: usize, last: usize, n: usize) -> bool {
    last > first && (last - first + 1) as f64 >= LEAK_MIN_COVERAGE * n as f64
}

fn grows_enough(start: f64, end: f64) -> bool {
    end - start >= LEAK_MIN_GROWTH * start.max(1.0)
}

fn rate(t: &[f64], r: &[f64], s: usize, e: usize) -> f64 {
    (r[e] - r[s]) / ((t[e] - t[s]) / 1000.0).max(1e-3)
}

/// The heuristic leak window: the longest window ending at the last point in which each point
/// rises, or stays above the window's start and at ≥ 75% of the maximum so far.
pub fn leak_heuristic(r: &[f64]) -> Option<(usize, usize)> {
    let n = r.len();
    if n < 2 {
        return None;
    }
    let (mut start, mut max) = (0, r[0]);
    for i in 1..n {
        let grows = r[i] > r[i - 1] || (r[i] > r[start] && r[i] >= LEAK_DROP_TOLERANCE * max);
        if grows {
            max = max.max(r[i]);
        } else {
            (start, max) = (i, r[i]);
        }
    }
    (enough_coverage(start, n - 1, n) && grows_enough(r[start], r[n - 1])).then_some((start, n - 1))
}

/// The regression alternative: windows ending at the last point, from the last 10% backwards;
/// the one with the steepest positive least-squares slope (bytes per ms) wins.
pub fn leak_regression(t: &[f64], r: &[f64]) -> Option<(usize, usize, f64)> {
    let n = r.len();
    let min_len = ((LEAK_MIN_COVERAGE * n as f64).ceil() as usize).max(2);
    if n < min_len {
        return None;
    }
    let (mut sx, mut sy, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0);
    let mut best: Option<(usize, f64)> = None;
    for s in (0..n).rev() {
        // Sums grow as the window's start moves back: each window costs O(1).
        let (x, y) = (t[s] - t[n - 1], r[s]);
        (sx, sy, sxx, sxy) = (sx + x, sy + y, sxx + x * x, sxy + x * y);
        let len = (n - s) as f64;
        let denominator = len * sxx - sx * sx;
        if n - s < min_len || denominator <= 0.0 {
            continue;
        }
        let slope = (len * sxy - sx * sy) / denominator;
        let fitted_growth = slope * (t[n - 1] - t[s]);
        let significant = fitted_growth >= LEAK_MIN_GROWTH * (sy / len).max(1.0);
        if slope > 0.0 && significant && best.is_none_or(|(_, b)| slope > b) {
            best = Some((s, slope));
        }
    }
    best.map(|(s, slope)| (s, n - 1, slope * 1000.0))
}

/// The fastest-growing sub-window of `[first, last]`: between max(2, 10%) and 50% of its points,
/// the largest (R_e − R_s) / (t_e − t_s), in bytes per second.
pub fn fastest_growth(t: &[f64], r: &[f64], first: usize, last: usize) -> Option<(usize, usize, f64)> {
    let n = last + 1 - first;
    let min_len = ((0.1 * n as f64).ceil() as usize).max(2);
    let max_len = (n / 2).max(min_len);
    let mut best: Option<(usize, usize, f64)> = None;
    for s in first..=last {
        for e in (s + min_len - 1)..=(s + max_len - 1).min(last) {
            let g = rate(t, r, s, e);
            if g > 0.0 && best.is_none_or(|b| g > b.2) {
                best = Some((s, e, g));
            }
        }
    }
    best
}

/// The window of `lo..=hi` GCs with the highest `Σ amount / duration`, where a window over GCs
/// `s..=e` lasts from the end of GC `s − 1` (or `origin`) to the end of GC `e`.
fn densest(
    origin: f64,
    end: &[f64],
    amount: &[f64],
    (lo, hi): (usize, usize),
) -> Option<(usize, usize, f64)> {
    let mut prefix = vec![0.0; amount.len() + 1];
    for (i, a) in amount.iter().enumerate() {
        prefix[i + 1] = prefix[i] + a;
    }
    let mut best: Option<(usize, usize, f64)> = None;
    for s in 0..end.len() {
        let from = if s == 0 { origin } else { end[s - 1] };
        for e in (s + lo - 1)..(s + hi).min(end.len()) {
            let score = (prefix[e + 1] - prefix[s]) / (end[e] - from).max(1e-3);
            if best.is_none_or(|b| score > b.2) {
                best = Some((s, e, score));
            }
        }
    }
    best
}

/// The window of 5–50 GCs with the highest GC overhead, if ≥ 10%.
pub fn gc_overhead(start: &[f64], end: &[f64]) -> Option<(usize, usize, f64)> {
    let durations: Vec<f64> = start.iter().zip(end).map(|(s, e)| e - s).collect();
    let origin = start.first().copied()?;
    densest(origin, end, &durations, GC_WINDOW_GCS).filter(|w| w.2 >= GC_MIN_OVERHEAD)
}

/// The window of 5–50 GCs that frees bytes fastest, if ≥ `CHURN_FACTOR` × the trace's average
/// (score in bytes per second).
pub fn churn(start: &[f64], end: &[f64], freed: &[f64]) -> Option<(usize, usize, f64)> {
    let origin = start.first().copied()?;
    let average = freed.iter().sum::<f64>() / (end.last()? - origin).max(1e-3);
    let (s, e, score) = densest(origin, end, freed, GC_WINDOW_GCS)?;
    (score >= CHURN_FACTOR * average && score > 0.0).then_some((s, e, score * 1000.0))
}

/// Every suspicious window of a history, for the app's timeline and `memcity windows`.
/// Reachable bytes come from `heap.reachable_bytes`, else the root's bytes.
pub fn detect(history: &History) -> Vec<Window> {
    let snaps = &history.snapshots;
    let t: Vec<f64> = snaps.iter().map(|s| s.time_ms as f64).collect();
    let r: Vec<f64> = snaps
        .iter()
        .map(|s| s.heap.as_ref().and_then(|h| h.reachable_bytes).unwrap_or(s.tree.bytes) as f64)
        .collect();
    let mut windows = Vec::new();
    let window = |kind, (first, last, score)| Window { kind, first, last, score };
    if let Some((first, last)) = leak_heuristic(&r) {
        windows.push(window(WindowKind::Leak, (first, last, rate(&t, &r, first, last))));
        if let Some(w) = fastest_growth(&t, &r, first, last) {
            windows.push(window(WindowKind::FastestGrowth, w));
        }
    }
    if let Some(w) = leak_regression(&t, &r) {
        windows.push(window(WindowKind::LeakRegression, w));
    }
    let metric = |f: fn(&memcity_model::HeapMetrics) -> Option<u64>| -> Option<Vec<f64>> {
        snaps.iter().map(|s| s.heap.as_ref().and_then(f).map(|v| v as f64)).collect()
    };
    if let (Some(start), Some(end)) = (metric(|h| h.gc_start_ms), metric(|h| h.gc_end_ms)) {
        if let Some(w) = gc_overhead(&start, &end) {
            windows.push(window(WindowKind::GcOverhead, w));
        }
        if let (Some(before), Some(after)) = (metric(|h| h.used_before_gc), metric(|h| h.used_after_gc)) {
            let freed: Vec<f64> = before.iter().zip(&after).map(|(b, a)| (b - a).max(0.0)).collect();
            if let Some(w) = churn(&start, &end, &freed) {
                windows.push(window(WindowKind::Churn, w));
            }
        }
    }
    windows
}

#[cfg(test)]
mod tests;
