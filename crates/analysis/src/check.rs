//! The leak gate (`memcity check`, docs/ci.md): which groups of a run grew past the limits, and
//! so whether a build should fail. A group is a finding when its retained bytes (its own bytes
//! where the input has no retained sizes) grew from the first snapshot to the last by more than
//! both limits, in at least `min_steps` of the steps between snapshots, and still in the last
//! third of the run: a heap that fills a cache and then settles passes, a steady leak fails.

use memcity_model::{History, Timeline};

use crate::suspects::heap_bytes;

/// The limits a group's growth must pass to fail the check.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    pub max_growth_bytes: u64,
    /// Of the heap at the last snapshot.
    pub max_growth_percent: f64,
    pub min_steps: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_growth_bytes: 1 << 20, max_growth_percent: 5.0, min_steps: 3 }
    }
}

/// One group that grew past the limits.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub group: u32,
    /// Of its retained bytes (own bytes where none are retained).
    pub grew: Grew,
}

/// A group's size at each snapshot: retained bytes where the snapshot has them, else bytes.
fn sizes(timeline: &Timeline, group: u32) -> Vec<u64> {
    (0..timeline.snapshot_count())
        .map(|s| match timeline.retained.get(s).filter(|r| !r.is_empty()) {
            Some(retained) => retained.get(&group).copied().unwrap_or(0),
            None => timeline.values[s].bytes.get(group as usize).copied().unwrap_or(0),
        })
        .collect()
}

/// The leaf groups that grew past `limits`, the largest growth first; groups whose key or name
/// matches `ignored` are left out.
pub fn findings(
    history: &History,
    timeline: &Timeline,
    limits: Limits,
    ignored: &dyn Fn(u32) -> bool,
) -> Vec<Finding> {
    let n = timeline.snapshot_count();
    if n < 2 {
        return Vec::new();
    }
    let heap = heap_bytes(history, n - 1);
    let mut found: Vec<Finding> = (0..timeline.groups.len() as u32)
        .filter(|&g| timeline.groups[g as usize].is_leaf() && !ignored(g))
        .filter_map(|g| Some(Finding { group: g, grew: grew_past(&sizes(timeline, g), heap, limits)? }))
        .collect();
    found.sort_by(|a, b| b.grew.growth_bytes.cmp(&a.grew.growth_bytes).then(a.group.cmp(&b.group)));
    found
}

/// How something measured at every snapshot grew: a group's or a data structure's bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grew {
    /// From the first snapshot to the last.
    pub growth_bytes: i64,
    /// Growth divided by the number of steps (snapshots − 1).
    pub growth_per_step: f64,
    /// At the last snapshot.
    pub retained_bytes: u64,
    /// How many steps it grew in.
    pub steps_grown: usize,
}

/// The rule of the module's head applied to one series of sizes (one per snapshot) in a heap of
/// `heap_end` bytes at the last snapshot: `Some` when it grew past `limits`. Groups and data
/// structures are judged by this one rule.
pub fn grew_past(sizes: &[u64], heap_end: u64, limits: Limits) -> Option<Grew> {
    let n = sizes.len();
    if n < 2 {
        return None;
    }
    let late = (2 * n) / 3;
    let growth = sizes[n - 1] as i64 - sizes[0] as i64;
    let steps_grown = sizes.windows(2).filter(|w| w[1] > w[0]).count();
    let still_growing = sizes[n - 1] > sizes[late.min(n - 2)];
    let big = growth > limits.max_growth_bytes as i64
        && growth as f64 >= limits.max_growth_percent / 100.0 * heap_end.max(1) as f64;
    (big && still_growing && steps_grown >= limits.min_steps).then(|| Grew {
        growth_bytes: growth,
        growth_per_step: growth as f64 / (n - 1) as f64,
        retained_bytes: sizes[n - 1],
        steps_grown,
    })
}

/// Whether `text` matches `pattern`, where `*` stands for any run of characters and the
/// pattern may match anywhere (`HashMap`, `*Cache*`, `java.util.*`).
pub fn matches(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*').filter(|p| !p.is_empty());
    let mut rest = text;
    parts.all(|part| match rest.find(part) {
        Some(at) => {
            rest = &rest[at + part.len()..];
            true
        }
        None => false,
    })
}

#[cfg(test)]
mod tests;
