//! One window's analysis as the command line and the app show it: both ends measured, paired,
//! ranked, the transitive size filled in for the instances shown, and the instances listed in
//! the order a reader wants them (the ranked survivors, then the largest that appeared or died).

use memcity_heapgraph::TypedSnapshot;
use rustc_hash::FxHashSet;

use crate::detect::{Scratch, detect};
use crate::growth::{InstanceGrowth, SortBy, Status, Window, compare, rank, window};
use crate::lang::Descriptions;
use crate::measure::{HeapStructures, InstanceMeasure, Options, fill_deep, measure_with};

/// Instances that appeared or died listed after the survivors, each.
pub const FATES_SHOWN: usize = 5;

/// A measured and ranked window.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The snapshots at the window's ends (their index in the input's history).
    pub from: usize,
    pub to: usize,
    pub start: HeapStructures,
    /// `None` for a window of one snapshot: its end is its start.
    end: Option<HeapStructures>,
    pub window: Window,
    /// How many survivors a reader is shown (`usize::MAX`: all).
    pub top: usize,
}

/// Measures the window from `first` to `last` (the same snapshot where `last` is `None`),
/// ranks its survivors by `by` and fills in the transitive size of the `top` shown: walking
/// everything each head reaches is the costly metric, so it is taken for every instance only
/// where it is the ranking.
pub fn report(
    first: &TypedSnapshot,
    last: Option<&TypedSnapshot>,
    descriptions: &Descriptions,
    by: SortBy,
    top: usize,
) -> Report {
    let options = Options { deep: by == SortBy::Deep };
    let mut start = measure_with(&first.heap, descriptions, options);
    // A window of one snapshot has one end, detected and held once.
    let mut end = last.map(|last| measure_with(&last.heap, descriptions, options));
    let mut ranked = window(&start, end.as_ref().unwrap_or(&start));
    rank(&mut ranked.instances, by);
    if !options.deep {
        let shown = ranked.instances.iter().filter(|i| i.status == Status::Survived).take(top);
        let (s, e): (Vec<usize>, Vec<usize>) = shown.filter_map(|i| Some((i.start?, i.end?))).unzip();
        fill_deep(&first.heap, &mut start, &s);
        if let (Some(end), Some(last)) = (end.as_mut(), last) {
            fill_deep(&last.heap, end, &e);
        }
        // Only the shown instances' growth changes: compared again, not the whole window.
        let (heap_growth, end_bytes) = (ranked.heap_growth, ranked.end_heap);
        let end = end.as_ref().unwrap_or(&start);
        for i in ranked.instances.iter_mut().filter(|i| i.status == Status::Survived).take(top) {
            if let (Some(a), Some(b)) = (i.start, i.end) {
                i.growth = Some(compare(
                    &start.instances[a].measure,
                    &end.instances[b].measure,
                    heap_growth,
                    end_bytes,
                ));
            }
        }
        rank(&mut ranked.instances, by);
    }
    let to = last.map_or(first.index, |l| l.index);
    Report { from: first.index, to, start, end, window: ranked, top }
}

impl Report {
    /// The measurements at the window's end.
    pub fn end(&self) -> &HeapStructures {
        self.end.as_ref().unwrap_or(&self.start)
    }

    /// The instance as measured at the end where it is alive (the end where both).
    pub fn instance(&self, i: &InstanceGrowth) -> &InstanceMeasure {
        match (i.end, i.start) {
            (Some(e), _) => &self.end().instances[e],
            (None, Some(s)) => &self.start.instances[s],
            (None, None) => unreachable!("window() pairs every instance with an end"),
        }
    }

    pub fn at_start(&self, i: &InstanceGrowth) -> Option<&InstanceMeasure> {
        i.start.map(|s| &self.start.instances[s])
    }

    pub fn at_end(&self, i: &InstanceGrowth) -> Option<&InstanceMeasure> {
        i.end.map(|e| &self.end().instances[e])
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
        let size = |m: Option<&InstanceMeasure>| m.map_or(0, |m| m.measure.retained.bytes);
        let mut appeared: Vec<&InstanceGrowth> = self.with_status(Status::Appeared).collect();
        appeared.sort_by_key(|i| std::cmp::Reverse(size(self.at_end(i))));
        let mut died: Vec<&InstanceGrowth> = self.with_status(Status::Died).collect();
        died.sort_by_key(|i| std::cmp::Reverse(size(self.at_start(i))));
        let fates = self.top.min(FATES_SHOWN);
        self.survivors().chain(appeared.into_iter().take(fates)).chain(died.into_iter().take(fates)).collect()
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
    let structures = detect(heap, descriptions);
    let mut scratch = Scratch::new(heap.graph.object_count());
    heads
        .iter()
        .map(|&head| {
            let Some(i) = structures.instances.iter().position(|i| i.head == head) else { return Vec::new() };
            let mut types: FxHashSet<u32> = FxHashSet::default();
            let type_of = &heap.objects.type_of;
            structures.visit_deep(i, &mut scratch, &mut |o| {
                types.insert(type_of[o as usize]);
            });
            let mut names: Vec<String> =
                types.into_iter().map(|t| heap.objects.types[t as usize].name.clone()).collect();
            names.sort();
            names
        })
        .collect()
}

#[cfg(test)]
mod tests;
