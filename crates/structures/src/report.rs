//! One window's analysis as the command line and the app show it: both ends measured, paired,
//! ranked, the transitive size filled in for the instances shown, and the instances listed in
//! the order a reader wants them (the ranked survivors, then the largest that appeared or died).

use memcity_heapgraph::TypedSnapshot;
use rustc_hash::FxHashMap;

use crate::brief::{Briefs, measure_briefly};
use crate::detect::{Scratch, detect};
use crate::growth::{InstanceGrowth, SortBy, Status, Window, compare, leaf_changes};
use crate::lang::Descriptions;
use crate::measure::{HeapStructures, InstanceMeasure, leaves_by_type};

mod choose;

use choose::{choose, named};

/// Instances that appeared or died listed after the survivors, each.
pub const FATES_SHOWN: usize = 5;

/// A measured and ranked window: the instances it lists, named and measured in full, and how
/// many there were of each fate.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The snapshots at the window's ends (their index in the input's history).
    pub from: usize,
    pub to: usize,
    /// The listed instances as measured at the window's start and end (what `window`'s
    /// instances point into). The others are counted, not kept.
    pub start: HeapStructures,
    pub end: HeapStructures,
    /// The listed instances: the ranked survivors shown, then the largest that appeared and
    /// died.
    pub window: Window,
    /// How many survivors a reader is shown (`usize::MAX`: all).
    pub top: usize,
    /// How many instances survived, appeared and died, listed or not.
    pub survived: usize,
    pub appeared: usize,
    pub died: usize,
}

/// Measures the window from `first` to `last` (the same snapshot where `last` is `None`),
/// ranks its survivors by `by` and lists the `top` of them, then the largest that appeared and
/// died. Every instance is measured in brief ([`crate::brief`]: numbers and a hashed identity);
/// only the listed ones are named, their leaves by type read and, unless it is the ranking
/// (walking everything each head reaches is the costly metric), their transitive size.
pub fn report(
    first: &TypedSnapshot,
    last: Option<&TypedSnapshot>,
    descriptions: &Descriptions,
    by: SortBy,
    top: usize,
) -> Report {
    let deep = by == SortBy::Deep;
    let brief = |heap| measure_briefly(heap, descriptions, deep);
    // The two ends side by side; a window of one snapshot has one end, detected once.
    let (start, end) = match last {
        Some(last) => {
            let (start, end) = rayon::join(|| brief(&first.heap), || brief(&last.heap));
            (start, Some(end))
        }
        None => (brief(&first.heap), None),
    };
    let chosen = choose(&start, end.as_ref(), by, top);
    let end = end.as_ref().unwrap_or(&start);
    let (start_origin, start_named) = named(&start, chosen.listed.iter().filter_map(|l| l.0));
    let (end_origin, end_named) = named(end, chosen.listed.iter().filter_map(|l| l.1));
    let heap_growth = end.heap_bytes as i64 - start.heap_bytes as i64;
    let at = |origin: &[usize], i: Option<usize>| i.map(|i| origin.binary_search(&i).expect("named"));
    let instances = chosen
        .listed
        .iter()
        .map(|&(s, e, status)| {
            let (s, e) = (at(&start_origin, s), at(&end_origin, e));
            let (a, b) = (s.map(|s| &start_named.instances[s]), e.map(|e| &end_named.instances[e]));
            let key = b.or(a).map(|i| i.key.clone()).expect("alive at an end");
            let growth = match (a, b) {
                (Some(a), Some(b)) => Some(compare(&a.measure, &b.measure, heap_growth, end.heap_bytes)),
                _ => None,
            };
            InstanceGrowth { key, status, start: s, end: e, growth, leaves: Vec::new() }
        })
        .collect();
    let mut report = Report {
        from: first.index,
        to: last.map_or(first.index, |l| l.index),
        start: start_named,
        end: end_named,
        window: Window { heap_growth, end_heap: end.heap_bytes, instances },
        top,
        survived: chosen.survived,
        appeared: chosen.appeared,
        died: chosen.died,
    };
    fill_in(&mut report, [(&start, &start_origin), (end, &end_origin)], !deep);
    report
}

/// Reads the listed instances in full: leaves at both ends, and the transitive size of the
/// survivors where `fill_deep` (their growth compared again).
fn fill_in(report: &mut Report, ends: [(&Briefs, &Vec<usize>); 2], fill_deep: bool) {
    let objects = ends.iter().map(|(b, _)| b.heap.graph.object_count()).max().unwrap_or(0);
    let mut scratch = Scratch::new(objects);
    for (at_end, (briefs, origin)) in ends.into_iter().enumerate() {
        let at_end = at_end == 1;
        let measured = if at_end { &mut report.end } else { &mut report.start };
        for i in &report.window.instances {
            let Some(m) = (if at_end { i.end } else { i.start }) else { continue };
            let (heap, found, instance) = (briefs.heap, &briefs.found, &mut measured.instances[m]);
            instance.leaves = leaves_by_type(heap, &found.deep_leaves(origin[m], &mut scratch));
            if fill_deep && i.status == Status::Survived {
                instance.measure.deep = found.deep_size(heap, origin[m], &mut scratch);
            }
        }
    }
    let (heap_growth, end_bytes) = (report.window.heap_growth, report.window.end_heap);
    for k in 0..report.window.instances.len() {
        let i = &report.window.instances[k];
        let (a, b) = (report.at_start(i), report.at_end(i));
        let leaves = leaf_changes(a, b);
        let growth = match (a, b) {
            (Some(a), Some(b)) => Some(compare(&a.measure, &b.measure, heap_growth, end_bytes)),
            _ => i.growth,
        };
        let i = &mut report.window.instances[k];
        (i.leaves, i.growth) = (leaves, growth);
    }
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

    /// How many instances had `status`, listed or not.
    pub fn count(&self, status: Status) -> usize {
        match status {
            Status::Survived => self.survived,
            Status::Appeared => self.appeared,
            Status::Died => self.died,
        }
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
