//! Which instances a report lists, chosen from every instance in brief: the survivors ranked by
//! a growth (largest first, ties in the end's order), then the largest that appeared (retained
//! at the end) and died (retained at the start) — what ranking the whole window would list,
//! without measuring its instances in words.

use std::cmp::Reverse;

use crate::brief::{Brief, Briefs};
use crate::growth::{SortBy, Status, pair};
use crate::measure::HeapStructures;

use super::FATES_SHOWN;

/// The listed instances as `(start, end, status)`, indices into each end's briefs, in the order
/// listed; and how many instances had each fate.
pub(super) struct Chosen {
    pub listed: Vec<(Option<usize>, Option<usize>, Status)>,
    pub survived: usize,
    pub appeared: usize,
    pub died: usize,
}

/// The `top` survivors by `by`, then up to [`FATES_SHOWN`] appeared and died; a window of one
/// snapshot (`end` none) pairs each instance with itself, and none grew.
pub(super) fn choose(start: &Briefs, end: Option<&Briefs>, by: SortBy, top: usize) -> Chosen {
    let Some(end) = end else {
        let n = start.instances.len();
        let listed = (0..n.min(top)).map(|i| (Some(i), Some(i), Status::Survived)).collect();
        return Chosen { listed, survived: n, appeared: 0, died: 0 };
    };
    let pairs = pair(&start.keys().collect::<Vec<_>>(), &end.keys().collect::<Vec<_>>());
    let pairs = &pairs;
    let of = |status: Status| (0..pairs.len()).filter(move |&k| pairs[k].2 == status);
    let metric = |b: &Brief| {
        let m = &b.measure;
        let sizes = match by {
            SortBy::Retained => m.retained,
            SortBy::Deep => m.deep,
            SortBy::Structure => m.structure,
            SortBy::DeepStructure => m.deep_structure,
        };
        sizes.bytes as i64
    };
    let at_start = |k: usize| start.instances[pairs[k].0.expect("at the start")];
    let at_end = |k: usize| end.instances[pairs[k].1.expect("at the end")];
    let largest = |keyed: &mut Vec<(i64, usize)>, count: usize| {
        keyed.sort_unstable_by_key(|&(size, k)| (Reverse(size), k));
        keyed.iter().take(count).map(|&(_, k)| pairs[k]).collect::<Vec<_>>()
    };
    let mut survivors: Vec<(i64, usize)> =
        of(Status::Survived).map(|k| (metric(&at_end(k)) - metric(&at_start(k)), k)).collect();
    let mut appeared: Vec<(i64, usize)> =
        of(Status::Appeared).map(|k| (at_end(k).measure.retained.bytes as i64, k)).collect();
    let mut died: Vec<(i64, usize)> =
        of(Status::Died).map(|k| (at_start(k).measure.retained.bytes as i64, k)).collect();
    let counts = (survivors.len(), appeared.len(), died.len());
    let fates = top.min(FATES_SHOWN);
    let mut listed = largest(&mut survivors, top);
    listed.extend(largest(&mut appeared, fates));
    listed.extend(largest(&mut died, fates));
    Chosen { listed, survived: counts.0, appeared: counts.1, died: counts.2 }
}

/// The instances at `wanted` of one end, in words, in their order in the heap; and that order
/// (`origin[i]` is the brief of the `i`-th named instance).
pub(super) fn named(briefs: &Briefs, wanted: impl Iterator<Item = usize>) -> (Vec<usize>, HeapStructures) {
    let mut origin: Vec<usize> = wanted.collect();
    origin.sort_unstable();
    origin.dedup();
    let instances = origin.iter().map(|&i| briefs.named(i)).collect();
    (origin, HeapStructures { instances, heap_bytes: briefs.heap_bytes })
}
