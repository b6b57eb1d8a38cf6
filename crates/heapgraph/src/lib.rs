//! The one heap pipeline every heap source shares (trace replay, HPROF dumps, V8 heap snapshots,
//! the Python probe): a heap as a graph of objects, the facts classifiers group objects by, the
//! grouping tree, and the algorithms over the graph — reachability from the GC roots, pointer
//! maps between groups with distinct counts, dominators, retained sizes (dominated and exact GC
//! closure) and retainer paths.

use std::collections::BTreeMap;

pub mod classify;
pub mod dominators;
pub mod group;
pub mod pipeline;
pub mod retained;
pub mod retainers;
pub mod roots;
pub mod series;

pub use classify::{Classifier, FactUse, ObjectFacts, parse_list};
pub use group::{GroupCounts, Grouper, ROOT_KEY};
pub use pipeline::{
    AnalysisOptions, GroupPath, GroupedHeap, LeafMemo, Retained, SnapshotInfo, group_heap, group_heap_named,
};
pub use roots::{RootKind, RootSet, root_sets};
pub use series::{SeriesHeap, history_of};

use rayon::prelude::*;

pub use dominators::{DominatorTree, UNREACHABLE, VIRTUAL_ROOT, dominators};
pub use retained::{closure_size, dominated_sizes};
pub use retainers::{RetainerPath, RetainerStep, retainer_paths};

/// A heap as a graph in compressed sparse row form; objects are `0..n`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeapGraph {
    /// The group (leaf of the grouping tree) of each object.
    pub group: Vec<u32>,
    /// The shallow size of each object in bytes.
    pub shallow: Vec<u64>,
    /// `edges[edge_start[o]..edge_start[o + 1]]` are the objects `o` references; length `n + 1`.
    pub edge_start: Vec<usize>,
    pub edges: Vec<u32>,
    /// The GC roots (duplicates allowed).
    pub roots: Vec<u32>,
}

impl HeapGraph {
    pub fn object_count(&self) -> usize {
        self.group.len()
    }

    pub fn referents(&self, o: u32) -> &[u32] {
        let o = o as usize;
        &self.edges[self.edge_start[o]..self.edge_start[o + 1]]
    }
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

/// Pointer maps between groups, indexed by group (docs/design.md, "Pointer maps"):
/// `points_to[a][b]` = distinct objects of `b` referenced by objects of `a`;
/// `pointed_from[b][a]` = distinct objects of `a` that reference objects of `b`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PointerMaps {
    pub points_to: Vec<BTreeMap<u32, u64>>,
    pub pointed_from: Vec<BTreeMap<u32, u64>>,
}

/// Pointer maps over the live objects (edges from or to dead objects are left out).
pub fn pointer_maps(g: &HeapGraph, group_count: usize, live: &[bool]) -> PointerMaps {
    let mut maps = PointerMaps {
        points_to: vec![BTreeMap::new(); group_count],
        pointed_from: vec![BTreeMap::new(); group_count],
    };
    // `seen[group] == stamp` dedupes groups per object without clearing a set each time.
    let mut seen = vec![usize::MAX; group_count];
    for s in 0..g.object_count() {
        if !live[s] {
            continue;
        }
        let a = g.group[s];
        for &t in g.referents(s as u32) {
            let b = g.group[t as usize];
            if live[t as usize] && seen[b as usize] != s {
                seen[b as usize] = s;
                *maps.pointed_from[b as usize].entry(a).or_insert(0) += 1;
            }
        }
    }
    let referrers = reverse(g, live);
    seen.fill(usize::MAX);
    for t in 0..g.object_count() {
        let b = g.group[t];
        for &s in referrers.referents(t as u32) {
            let a = g.group[s as usize];
            if seen[a as usize] != t {
                seen[a as usize] = t;
                *maps.points_to[a as usize].entry(b).or_insert(0) += 1;
            }
        }
    }
    maps
}

/// The live part of the graph with every edge reversed (no roots).
fn reverse(g: &HeapGraph, live: &[bool]) -> HeapGraph {
    let n = g.object_count();
    let live_edge = |s: usize, t: u32| live[s] && live[t as usize];
    let mut count = vec![0usize; n + 1];
    for s in 0..n {
        for &t in g.referents(s as u32) {
            if live_edge(s, t) {
                count[t as usize + 1] += 1;
            }
        }
    }
    for i in 0..n {
        count[i + 1] += count[i];
    }
    let mut fill = count.clone();
    let mut edges = vec![0u32; count[n]];
    for s in 0..n {
        for &t in g.referents(s as u32) {
            if live_edge(s, t) {
                edges[fill[t as usize]] = s as u32;
                fill[t as usize] += 1;
            }
        }
    }
    HeapGraph { group: g.group.clone(), shallow: Vec::new(), edge_start: count, edges, roots: Vec::new() }
}

/// The retained size `(objects, bytes)` of each group: the live objects that become unreachable
/// if the whole group were freed (its GC closure). Shared ownership counts: an object
/// kept alive by two groups together is retained by neither alone. One marking pass per group
/// with live objects, groups in parallel.
pub fn retained_sizes(g: &HeapGraph, group_count: usize, live: &[bool]) -> Vec<(u64, u64)> {
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
