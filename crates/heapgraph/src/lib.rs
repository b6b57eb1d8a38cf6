//! The one heap pipeline every heap source shares (trace replay, HPROF dumps, V8 heap snapshots,
//! the Python probe): a heap as a graph of objects, the facts classifiers group objects by, the
//! grouping tree, and the algorithms over the graph — reachability from the GC roots, pointer
//! maps between groups with distinct counts, dominators, retained sizes (dominated and exact GC
//! closure) and retainer paths.

pub mod budget;
pub mod classify;
mod disjoint;
pub mod dominators;
pub mod group;
mod live;
pub mod maps;
mod narrow;
mod object_groups;
pub mod objects;
pub mod pipeline;
mod prefetch;
pub mod progress;
mod radix;
pub mod retained;
pub mod retainers;
pub mod root_path;
pub mod roots;
pub mod series;
pub mod spanning;
pub mod table;
pub mod values;

pub use classify::{Classifier, FactUse, IN_NO_STRUCTURE, InStructure, ObjectFacts, parse_list};
pub use group::{GroupCounts, Grouper, OUTSIDE, OUTSIDE_KEY, ROOT_KEY};
pub use live::Live;
pub use maps::{PointerMaps, pointer_maps};
pub use object_groups::{KeyTotal, ObjectGroups, count_keys};
pub use objects::{
    EdgeLabels, Label, LabelKind, NO_SITE, ObjectTable, ObjectType, TypeKind, TypedHeap, TypedSnapshot,
};
pub use pipeline::{
    AnalysisOptions, GroupPath, GroupedHeap, Grouping, LeafMemo, MAX_HOPS, Partition, PathNames, Retained,
    SnapshotInfo, TreeSource, group_heap, group_heap_inspected, group_heap_labelled, group_heap_named,
    group_heap_owned, group_heap_owned_handing_tree, group_heap_owned_labelled, group_heap_owned_with_tree,
};
pub use prefetch::{PREORDER_AHEAD, prefetch};
pub use progress::{InSeries, Phase, Progress, Silent};
pub use root_path::{PathStep, RootPaths};
pub use roots::{RootKind, RootSet, root_sets};
pub use series::{SeriesHeap, estimated_memory, history_of, two_fit, two_fit_now};
pub use spanning::{Spanning, Unreached};
pub use table::Table;
pub use values::{Contents, EqualBy, FieldValue, Primitives, References, Value, Values, value_identity};

use rayon::prelude::*;

pub use dominators::{DominatorTree, UNPLACED, UNREACHABLE, VIRTUAL_ROOT, dominators};
pub use retained::{Dominated, closure_size, dominated, dominated_sizes};
pub use retainers::{
    RetainerPath, RetainerStep, dominated_and_paths, retainer_paths, retainer_paths_represented,
};

/// A heap as a graph in compressed sparse row form; objects are `0..n`. The per-object and
/// per-reference tables are [`Table`]s: in memory, or in work files past the memory budget.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeapGraph {
    /// The group (leaf of the grouping tree) of each object.
    pub group: ObjectGroups,
    /// The shallow size of each object in bytes.
    pub shallow: Table<u64>,
    /// `edges[edge_start[o]..edge_start[o + 1]]` are the objects `o` references; length `n + 1`.
    /// Four bytes an object: a heap has at most [`most_references`].
    pub edge_start: Table<u32>,
    pub edges: Table<u32>,
    /// The GC roots (duplicates allowed).
    pub roots: Vec<u32>,
}

impl HeapGraph {
    pub fn object_count(&self) -> usize {
        self.group.len()
    }

    pub fn referents(&self, o: u32) -> &[u32] {
        &self.edges[self.edge_range(o)]
    }

    /// Where `o`'s references lie in [`Self::edges`].
    pub fn edge_range(&self, o: u32) -> std::ops::Range<usize> {
        let o = o as usize;
        self.edge_start[o] as usize..self.edge_start[o + 1] as usize
    }
}

/// The most references a heap of `objects` objects may have (GC roots count among the objects:
/// they are at most one each): edge offsets are `u32`, and the depth-first search numbers objects
/// and references together below [`VIRTUAL_ROOT`]. A reader refuses a larger heap with one line
/// rather than widening every offset to eight bytes.
pub fn most_references(objects: usize) -> usize {
    (VIRTUAL_ROOT as usize - 1).saturating_sub(objects)
}

/// Marks every object reachable from the roots (iteratively: heaps have long chains).
pub fn reachable(g: &HeapGraph) -> Vec<bool> {
    mark(g, |_| true)
}

/// Marks from the roots, never entering an object for which `enter` is false.
fn mark(g: &HeapGraph, enter: impl Fn(u32) -> bool) -> Vec<bool> {
    let mut marked = vec![false; g.object_count()];
    let mut stack: Vec<u32> = Vec::new();
    for &r in &g.roots {
        if enter(r) && !marked[r as usize] {
            marked[r as usize] = true;
            stack.push(r);
        }
    }
    while let Some(o) = stack.pop() {
        for &t in g.referents(o) {
            if enter(t) && !marked[t as usize] {
                marked[t as usize] = true;
                stack.push(t);
            }
        }
    }
    marked
}

/// The retained size `(objects, bytes)` of each group: the live objects that become unreachable
/// if the whole group were freed (its GC closure). Shared ownership counts: an object
/// kept alive by two groups together is retained by neither alone. One marking pass per group
/// with live objects, groups in parallel.
pub fn retained_sizes<'a>(g: &HeapGraph, group_count: usize, live: impl Into<Live<'a>>) -> Vec<(u64, u64)> {
    let live = live.into().marks(g.object_count());
    let live = &live[..];
    let mut occupied = vec![false; group_count];
    for (o, &l) in live.iter().enumerate() {
        if l {
            occupied[g.group[o] as usize] = true;
        }
    }
    (0..group_count)
        .into_par_iter()
        .map(|group| if occupied[group] { closure_size(g, live, group as u32) } else { (0, 0) })
        .collect()
}

#[cfg(test)]
mod tests;
