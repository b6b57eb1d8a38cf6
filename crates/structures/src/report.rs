//! One window's analysis as the command line and the app show it: both ends measured, paired,
//! ranked, the transitive size filled in for the instances shown, and the instances listed in
//! the order a reader wants them (the ranked survivors, then the largest that appeared or died).

use memcity_heapgraph::TypedSnapshot;
use rustc_hash::FxHashMap;

use crate::detect::{Scratch, detect};
use crate::growth::{InstanceGrowth, SortBy, Status, Window, compare, leaf_changes, rank, window};
use crate::lang::Descriptions;
use crate::measure::{HeapStructures, InstanceMeasure, Options, fill_in, measure_detected};

/// Instances that appeared or died listed after the survivors, each.
pub const FATES_SHOWN: usize = 5;

/// A measured and ranked window.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The snapshots at the window's ends (their index in the input's history).
    pub from: usize,
    pub to: usize,
    pub start: HeapStructures,
    pub end: HeapStructures,
    pub window: Window,
    /// How many survivors a reader is shown (`usize::MAX`: all).
    pub top: usize,
}

/// Measures the window from `first` to `last` (the same snapshot where `last` is `None`),
/// ranks its survivors by `by` and fills in the transitive size of the `top` shown: walking
/// everything each head reaches is the costly metric, so it is taken for every instance only
/// where it is the ranking. Leaves by type are filled in for the listed instances alone
/// ([`Report::listed`]): no other instance's are read.
pub fn report(
    first: &TypedSnapshot,
    last: Option<&TypedSnapshot>,
    descriptions: &Descriptions,
    by: SortBy,
    top: usize,
) -> Report {
    let options = Options { deep: by == SortBy::Deep, leaves: false };
    let end_heap = last.map_or(&first.heap, |l| &l.heap);
    let measure = |heap| measure_detected(heap, descriptions, options);
    // The two ends side by side; a window of one snapshot has one end, detected once.
    let ((start, found_at_start), (end, found_at_end)) = match last {
        Some(last) => {
            let (start, (end, found)) = rayon::join(|| measure(&first.heap), || measure(&last.heap));
            (start, (end, Some(found)))
        }
        None => {
            let start = measure(&first.heap);
            let end = start.0.clone();
            (start, (end, None))
        }
    };
    let mut ranked = window(&start, &end);
    rank(&mut ranked.instances, by);
    let to = last.map_or(first.index, |l| l.index);
    let mut report = Report { from: first.index, to, start, end, window: ranked, top };
    // The listed instances read in full (neither their order nor the list depends on what is
    // filled in): leaves, and the transitive size of the survivors shown.
    let listed = report.listed_positions();
    let fill_deep = !options.deep;
    let mut scratch = Scratch::new(first.heap.graph.object_count().max(end_heap.graph.object_count()));
    let ends = [
        (&first.heap, &found_at_start, &mut report.start, false),
        (end_heap, found_at_end.as_ref().unwrap_or(&found_at_start), &mut report.end, true),
    ];
    for (heap, found, measured, at_end) in ends {
        let all = &report.window.instances;
        let at = |k: &usize| if at_end { all[*k].end } else { all[*k].start };
        let (survivors, others): (Vec<usize>, Vec<usize>) =
            listed.iter().partition(|&&k| all[k].status == Status::Survived);
        fill_in(
            heap,
            found,
            measured,
            &survivors.iter().filter_map(at).collect::<Vec<_>>(),
            fill_deep,
            &mut scratch,
        );
        fill_in(
            heap,
            found,
            measured,
            &others.iter().filter_map(at).collect::<Vec<_>>(),
            false,
            &mut scratch,
        );
    }
    let (heap_growth, end_bytes) = (report.window.heap_growth, report.window.end_heap);
    for k in listed {
        let i = &report.window.instances[k];
        let (a, b) = (report.at_start(i), report.at_end(i));
        let leaves = leaf_changes(a, b);
        // Only the survivors shown have a new size: compared again, not the whole window.
        let growth = match (a, b) {
            (Some(a), Some(b)) if fill_deep => Some(compare(&a.measure, &b.measure, heap_growth, end_bytes)),
            _ => i.growth,
        };
        let i = &mut report.window.instances[k];
        (i.leaves, i.growth) = (leaves, growth);
    }
    // No new ranking: what was filled in is not what the instances are ranked by (ranked by
    // the transitive size, all of them were measured).
    report
}

impl Report {
    /// The instance as measured at the end where it is alive (the end where both).
    pub fn instance(&self, i: &InstanceGrowth) -> &InstanceMeasure {
        match (i.end, i.start) {
            (Some(e), _) => &self.end.instances[e],
            (None, Some(s)) => &self.start.instances[s],
            (None, None) => unreachable!("window() pairs every instance with an end"),
        }
    }

    pub fn at_start(&self, i: &InstanceGrowth) -> Option<&InstanceMeasure> {
        i.start.map(|s| &self.start.instances[s])
    }

    pub fn at_end(&self, i: &InstanceGrowth) -> Option<&InstanceMeasure> {
        i.end.map(|e| &self.end.instances[e])
    }

    pub fn with_status(&self, status: Status) -> impl Iterator<Item = &InstanceGrowth> {
        self.window.instances.iter().filter(move |i| i.status == status)
    }

    pub fn count(&self, status: Status) -> usize {
        self.with_status(status).count()
    }

    /// The ranked survivors shown.
    pub fn survivors(&self) -> impl Iterator<Item = &InstanceGrowth> {
        self.with_status(Status::Survived).take(self.top)
    }

    /// The survivors shown, then the largest instances that appeared or died.
    pub fn listed(&self) -> Vec<&InstanceGrowth> {
        self.listed_positions().into_iter().map(|k| &self.window.instances[k]).collect()
    }

    /// Where the listed instances are in `window.instances`, in the order listed.
    fn listed_positions(&self) -> Vec<usize> {
        let all = &self.window.instances;
        let with = |status: Status| (0..all.len()).filter(move |&k| all[k].status == status);
        let size = |m: Option<&InstanceMeasure>| m.map_or(0, |m| m.measure.retained.bytes);
        let mut appeared: Vec<usize> = with(Status::Appeared).collect();
        appeared.sort_by_key(|&k| std::cmp::Reverse(size(self.at_end(&all[k]))));
        let mut died: Vec<usize> = with(Status::Died).collect();
        died.sort_by_key(|&k| std::cmp::Reverse(size(self.at_start(&all[k]))));
        let fates = self.top.min(FATES_SHOWN);
        let survivors = with(Status::Survived).take(self.top);
        survivors.chain(appeared.into_iter().take(fates)).chain(died.into_iter().take(fates)).collect()
    }
}

/// The type names of everything the instances at `heads` hold in `heap` — their own parts and
/// the leaves, through contained structures — per head, sorted: what a viewer marks when one is
/// picked. Detects the heap's structures once more (linear), as measurements keep no objects.
pub fn types_held(
    heap: &memcity_heapgraph::TypedHeap,
    descriptions: &Descriptions,
    heads: &[u32],
) -> Vec<Vec<String>> {
    let held = objects_held(heap, descriptions, heads);
    held.into_iter().map(|types| types.into_iter().map(|(name, _)| name).collect()).collect()
}

/// What each instance headed by `heads` holds at its depth, as (type name, objects) sorted by
/// name: which of the city's groups it keeps alive, and how many of their objects.
pub fn objects_held(
    heap: &memcity_heapgraph::TypedHeap,
    descriptions: &Descriptions,
    heads: &[u32],
) -> Vec<Vec<(String, u64)>> {
    let structures = detect(heap, descriptions);
    let mut scratch = Scratch::new(heap.graph.object_count());
    heads
        .iter()
        .map(|&head| {
            let Some(i) = structures.instances.iter().position(|i| i.head == head) else { return Vec::new() };
            let mut types: FxHashMap<u32, u64> = FxHashMap::default();
            let type_of = &heap.objects.type_of;
            structures.visit_deep(i, &mut scratch, &mut |o| {
                *types.entry(type_of[o as usize]).or_default() += 1;
            });
            let mut named: Vec<(String, u64)> =
                types.into_iter().map(|(t, n)| (heap.objects.types[t as usize].name.clone(), n)).collect();
            named.sort();
            named
        })
        .collect()
}

#[cfg(test)]
mod tests;
