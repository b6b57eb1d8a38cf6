//! Growth over a time window (docs/structures.md, "Growth"): the instances alive at both ends
//! are matched by identity, and each one's growth of retained size, deep (transitive) size,
//! structure size and deep structure size is put in relation to the heap's growth (the heap
//! growth portion, HGP) and read as one of five patterns.

use rustc_hash::FxHashMap;
use std::hash::Hash;

pub use crate::detect::Sizes;

mod window;

pub(crate) use window::leaf_changes;
pub use window::{InstanceGrowth, LeafChange, SortBy, Window, growth_of, rank, window};

/// What one instance measures at one end of the window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Measure {
    pub retained: Sizes,
    /// Everything reachable from the head.
    pub deep: Sizes,
    pub structure: Sizes,
    pub deep_structure: Sizes,
}

/// How an instance grew, read from its metrics (the paper's Figure 12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// Elements were added and this structure alone keeps them alive: a leak that is freed by
    /// removing them from it.
    SingleOwnershipContainerGrowth,
    /// Elements were added, but others keep them alive too.
    SharedOwnershipContainerGrowth,
    /// No elements added, but what it owns grew.
    SingleOwnershipDataGrowth,
    /// Neither it nor what it owns grew, but what it reaches did.
    SharedOwnershipDataGrowth,
    NonGrowth,
}

impl Pattern {
    pub fn name(self) -> &'static str {
        match self {
            Pattern::SingleOwnershipContainerGrowth => "single-ownership container growth",
            Pattern::SharedOwnershipContainerGrowth => "shared-ownership container growth",
            Pattern::SingleOwnershipDataGrowth => "single-ownership data growth",
            Pattern::SharedOwnershipDataGrowth => "shared-ownership data growth",
            Pattern::NonGrowth => "non-growth",
        }
    }
}

/// A metric's growth counts as strong from this share of the window's reference growth.
pub const STRONG_PERCENT: f64 = 10.0;

/// Growth in objects and bytes (end − start; negative where it shrank).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Delta {
    pub objects: i64,
    pub bytes: i64,
}

fn delta(start: Sizes, end: Sizes) -> Delta {
    Delta { objects: end.objects as i64 - start.objects as i64, bytes: end.bytes as i64 - start.bytes as i64 }
}

/// One surviving instance's growth over the window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Growth {
    pub retained: Delta,
    pub deep: Delta,
    pub structure: Delta,
    pub deep_structure: Delta,
    /// Heap growth portions in percent (bytes), in the order retained, deep, structure, deep
    /// structure; `None` when the heap did not grow.
    pub hgp: [Option<f64>; 4],
    pub pattern: Pattern,
}

/// The growth of one instance between `start` and `end`, where the reachable heap grew by
/// `heap_growth` bytes and holds `end_heap` bytes at the end.
///
/// HGP = growth ÷ heap growth × 100, as the paper defines it; it can pass 100 % (a structure
/// grew by more than the heap did) and is undefined when the heap did not grow. A metric grows
/// *strongly* when it grew by at least [`STRONG_PERCENT`] % of the reference growth: the heap's
/// growth, or a tenth of the heap where the heap grew by less than that — so in a heap that
/// barely grew a structure must gain 1 % of the heap to count, and a bounded cache filling up
/// in a flat heap is not read as a leak.
pub fn compare(start: &Measure, end: &Measure, heap_growth: i64, end_heap: u64) -> Growth {
    let (retained, deep) = (delta(start.retained, end.retained), delta(start.deep, end.deep));
    let (structure, deep_structure) =
        (delta(start.structure, end.structure), delta(start.deep_structure, end.deep_structure));
    let hgp = |d: Delta| (heap_growth > 0).then(|| d.bytes as f64 / heap_growth as f64 * 100.0);
    let reference = (heap_growth as f64).max(end_heap as f64 / 10.0).max(1.0);
    let strong = |d: Delta| d.bytes > 0 && d.bytes as f64 >= reference * STRONG_PERCENT / 100.0;
    let container = strong(structure) || strong(deep_structure);
    let pattern = match (strong(retained), container) {
        (true, true) => Pattern::SingleOwnershipContainerGrowth,
        (false, true) => Pattern::SharedOwnershipContainerGrowth,
        (true, false) => Pattern::SingleOwnershipDataGrowth,
        (false, false) if strong(deep) => Pattern::SharedOwnershipDataGrowth,
        (false, false) => Pattern::NonGrowth,
    };
    Growth {
        retained,
        deep,
        structure,
        deep_structure,
        hgp: [hgp(retained), hgp(deep), hgp(structure), hgp(deep_structure)],
        pattern,
    }
}

/// Whether an instance lived through the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    Survived,
    /// Alive at the start only.
    Died,
    /// Alive at the end only.
    Appeared,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Survived => "survived",
            Status::Died => "died",
            Status::Appeared => "appeared",
        }
    }
}

/// Pairs the instances of the window's two ends by identity: `(start index, end index)` with
/// `None` on the side where the instance is missing. Survivors first, in the end's order. An
/// identity found more than once on one side pairs only its first instance; the others count as
/// died or appeared (two maps reached by the same field path cannot be told apart).
pub fn pair<K: Hash + Eq + Clone>(start: &[K], end: &[K]) -> Vec<(Option<usize>, Option<usize>, Status)> {
    let mut at_start: FxHashMap<&K, usize> =
        FxHashMap::with_capacity_and_hasher(start.len(), Default::default());
    for (i, k) in start.iter().enumerate() {
        at_start.entry(k).or_insert(i);
    }
    let mut paired = vec![false; start.len()];
    let mut out = Vec::new();
    let mut appeared = Vec::new();
    for (j, k) in end.iter().enumerate() {
        match at_start.get(k) {
            Some(&i) if !paired[i] => {
                paired[i] = true;
                out.push((Some(i), Some(j), Status::Survived));
            }
            _ => appeared.push((None, Some(j), Status::Appeared)),
        }
    }
    out.extend(appeared);
    out.extend((0..start.len()).filter(|&i| !paired[i]).map(|i| (Some(i), None, Status::Died)));
    out
}

#[cfg(test)]
mod tests;
