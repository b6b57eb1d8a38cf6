//! Growth of every instance over a window, from the measurements of its two ends
//! ([`crate::measure`]): pairing by identity, the four growths with their HGP and pattern for
//! the survivors, and each one's leaves at start and end.

use rustc_hash::FxHashMap;

use super::{Growth, Status, compare, pair};
use crate::detect::Sizes;
use crate::measure::{HeapStructures, InstanceKey, InstanceMeasure, LeafKey};

/// One instance over the window.
#[derive(Debug, Clone, PartialEq)]
pub struct InstanceGrowth {
    pub key: InstanceKey,
    pub status: Status,
    /// Its index in the start's and the end's instances, where it is alive.
    pub start: Option<usize>,
    pub end: Option<usize>,
    /// For survivors only.
    pub growth: Option<Growth>,
    /// Leaf groups of either end, the most bytes at the end first.
    pub leaves: Vec<LeafChange>,
}

/// One group of leaves at the window's start and end (zero where absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeafChange {
    pub key: LeafKey,
    pub start: Sizes,
    pub end: Sizes,
}

/// The whole window: how the heap grew and every instance's fate.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// End heap bytes − start heap bytes.
    pub heap_growth: i64,
    pub end_heap: u64,
    /// Survivors first (in the end's order), then the appeared, then the died.
    pub instances: Vec<InstanceGrowth>,
}

/// The metric to rank survivors by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortBy {
    Retained,
    Deep,
    Structure,
    DeepStructure,
}

/// Compares the window's two ends. Instances are paired by key (see [`pair`]).
pub fn window(start: &HeapStructures, end: &HeapStructures) -> Window {
    let heap_growth = end.heap_bytes as i64 - start.heap_bytes as i64;
    let start_keys: Vec<&InstanceKey> = start.instances.iter().map(|i| &i.key).collect();
    let end_keys: Vec<&InstanceKey> = end.instances.iter().map(|i| &i.key).collect();
    let instances = pair(&start_keys, &end_keys)
        .into_iter()
        .map(|(s, e, status)| {
            let (a, b) = (s.and_then(|s| start.instances.get(s)), e.and_then(|e| end.instances.get(e)));
            let key = b.or(a).map(|i| i.key.clone()).unwrap_or(InstanceKey::Object(u64::MAX));
            let growth = match (a, b) {
                (Some(a), Some(b)) => Some(compare(&a.measure, &b.measure, heap_growth, end.heap_bytes)),
                _ => None,
            };
            let leaves = leaf_changes(a, b);
            InstanceGrowth { key, status, start: s, end: e, growth, leaves }
        })
        .collect();
    Window { heap_growth, end_heap: end.heap_bytes, instances }
}

/// The growth in bytes of the chosen metric, `None` for instances that did not survive.
pub fn growth_of(instance: &InstanceGrowth, by: SortBy) -> Option<i64> {
    let g = instance.growth.as_ref()?;
    Some(match by {
        SortBy::Retained => g.retained.bytes,
        SortBy::Deep => g.deep.bytes,
        SortBy::Structure => g.structure.bytes,
        SortBy::DeepStructure => g.deep_structure.bytes,
    })
}

/// Orders the instances by the chosen growth, the largest first; instances that did not
/// survive go last, in their former order (the sort is stable); ties keep their order too.
/// The keys are sorted and the instances swapped into place: no copy of them is made.
pub fn rank(instances: &mut [InstanceGrowth], by: SortBy) {
    instances.sort_by_cached_key(|i| {
        (growth_of(i, by).is_none(), std::cmp::Reverse(growth_of(i, by).unwrap_or(0)))
    });
}

/// The leaf groups of an instance at both ends side by side (none at an end where it is not
/// alive), the most bytes at the end first.
pub(crate) fn leaf_changes(
    start: Option<&InstanceMeasure>,
    end: Option<&InstanceMeasure>,
) -> Vec<LeafChange> {
    let no_leaves = &[][..];
    let (start, end) = (start.map_or(no_leaves, |a| &a.leaves[..]), end.map_or(no_leaves, |b| &b.leaves[..]));
    let mut by_key: FxHashMap<&LeafKey, (Sizes, Sizes)> = FxHashMap::default();
    for (key, sizes) in start {
        by_key.entry(key).or_default().0 = *sizes;
    }
    for (key, sizes) in end {
        by_key.entry(key).or_default().1 = *sizes;
    }
    let mut out: Vec<LeafChange> =
        by_key.into_iter().map(|(key, (start, end))| LeafChange { key: key.clone(), start, end }).collect();
    out.sort_by(|a, b| {
        b.end
            .bytes
            .cmp(&a.end.bytes)
            .then_with(|| b.start.bytes.cmp(&a.start.bytes))
            .then_with(|| a.key.cmp(&b.key))
    });
    out
}
