//! The one heap pipeline every source goes through: a heap graph whose objects carry their
//! leaf group becomes what a snapshot shows — counts, pointer maps, retained sizes and retainer
//! paths per group ([`group_heap`]) — and, once the history's groups are all known, a snapshot
//! with keys ([`Grouper::snapshot`]).

use std::collections::BTreeMap;
use std::hash::Hash;

use memcity_model::{HeapMetrics, PointerMap, RetainerPath, RetainerStep, Snapshot};
use rustc_hash::FxHashMap as HashMap;

use crate::classify::ObjectFacts;
use crate::dominators::dominators;
use crate::group::{GroupCounts, Grouper};
use crate::retained::dominated_sizes;
use crate::retainers::retainer_paths;
use crate::roots::RootSet;
use crate::{HeapGraph, PointerMaps, pointer_maps, retained_sizes};

/// How much of "why is it alive" to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retained {
    None,
    /// What each group dominates (one dominator tree per snapshot: fast).
    Dominated,
    /// Also every group's exact GC closure (one marking pass per group: slow on big heaps).
    Closure,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnalysisOptions {
    pub pointer_maps: bool,
    pub retained: Retained,
    pub retainer_paths: bool,
    /// Heaps with more objects than this build their pointer maps and their dominator tree one
    /// after the other instead of side by side: slower by the maps' time, but the two sets of
    /// tables are never alive together (a source that must stay below its input's size in
    /// memory, such as a V8 snapshot's text, lowers it).
    pub sequential_above: usize,
}

impl Default for AnalysisOptions {
    fn default() -> AnalysisOptions {
        AnalysisOptions {
            pointer_maps: true,
            retained: Retained::Dominated,
            retainer_paths: true,
            sequential_above: usize::MAX,
        }
    }
}

/// A retainer path in group ids, with the root kinds it ends at.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupPath {
    pub steps: Vec<crate::retainers::RetainerStep>,
    pub roots: Vec<String>,
}

/// One heap grouped, in group ids.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GroupedHeap {
    pub counts: Vec<GroupCounts>,
    pub maps: Option<PointerMaps>,
    /// By group; `None` for groups without live objects or when paths are off.
    pub paths: Vec<Option<GroupPath>>,
    pub reachable_bytes: u64,
}

/// Groups a heap whose `g.group` holds each object's leaf group (`0..group_count`). `live`
/// marks the reachable objects (see [`crate::reachable`]); `roots[o]` are the root kinds that hold
/// object `o` directly.
pub fn group_heap(
    g: &HeapGraph,
    group_count: usize,
    live: &[bool],
    roots: &[RootSet],
    options: &AnalysisOptions,
) -> GroupedHeap {
    group_heap_named(g, group_count, live, roots, &|_| None, options)
}

/// [`group_heap`], naming the objects retainer paths end at where the source can
/// (`holder(o)`: a static field's name, `class LeakApp`), so a path says which root holds it.
pub fn group_heap_named(
    g: &HeapGraph,
    group_count: usize,
    live: &[bool],
    roots: &[RootSet],
    holder: &dyn Fn(u32) -> Option<String>,
    options: &AnalysisOptions,
) -> GroupedHeap {
    let mut counts = vec![GroupCounts::default(); group_count];
    let mut reachable_bytes = 0;
    for o in (0..g.object_count()).filter(|&o| live[o]) {
        let c = &mut counts[g.group[o] as usize];
        c.objects += 1;
        c.bytes += g.shallow[o];
        reachable_bytes += g.shallow[o];
    }
    // Pointer maps and the dominator tree (then retained sizes and paths) are independent;
    // run side by side unless the heap is big enough for memory to matter more.
    let want_retained = options.retained != Retained::None;
    let maps = || options.pointer_maps.then(|| pointer_maps(g, group_count, live));
    let tree = || {
        if !want_retained && !options.retainer_paths {
            return (None, None);
        }
        let tree = dominators(g);
        rayon::join(
            || want_retained.then(|| dominated_sizes(g, &tree, group_count)),
            || options.retainer_paths.then(|| retainer_paths(g, &tree, group_count)),
        )
    };
    let (maps, (dominated, paths)) =
        if g.object_count() > options.sequential_above { (maps(), tree()) } else { rayon::join(maps, tree) };
    for (c, (_, bytes)) in counts.iter_mut().zip(dominated.unwrap_or_default()) {
        c.retained = (c.objects > 0).then_some(bytes);
    }
    let paths = match paths {
        Some(paths) => paths
            .into_iter()
            .map(|p| p.map(|p| GroupPath { roots: root_labels(&p.rooted, roots, holder), steps: p.steps }))
            .collect(),
        None => vec![None; group_count],
    };
    if options.retained == Retained::Closure {
        for (c, (_, bytes)) in counts.iter_mut().zip(retained_sizes(g, group_count, live)) {
            c.closure = (c.objects > 0).then_some(bytes);
        }
    }
    GroupedHeap { counts, maps, paths, reachable_bytes }
}

/// How the objects a path ends at are rooted: their root kinds and, where the source knows it,
/// the holder's name ("Static Field app.Registry.people"); objects that no root holds alone are
/// held jointly by several. At most [`NAMED_ROOTS`] labels, then how many more.
fn root_labels(rooted: &[u32], roots: &[RootSet], holder: &dyn Fn(u32) -> Option<String>) -> Vec<String> {
    let mut labels: Vec<String> = Vec::new();
    let mut more = 0;
    for &o in rooted {
        let kinds = roots[o as usize];
        let label = match (kinds.is_empty(), holder(o)) {
            (false, Some(name)) => format!("{} {name}", kinds.label()),
            (false, None) => kinds.label(),
            (true, Some(name)) => format!("{name}, held by {SEVERAL_ROOTS}"),
            (true, None) => SEVERAL_ROOTS.into(),
        };
        if labels.contains(&label) {
            continue;
        }
        if labels.len() == NAMED_ROOTS {
            more += 1;
        } else {
            labels.push(label);
        }
    }
    if more > 0 {
        labels.push(format!("and {more} more"));
    }
    labels
}

/// How many distinct root labels a retainer path lists.
pub const NAMED_ROOTS: usize = 3;

/// How a retainer path names objects that only several roots together keep alive.
pub const SEVERAL_ROOTS: &str = "several roots";

/// What a snapshot says about its GC point besides the grouped heap.
#[derive(Debug, Clone, Default)]
pub struct SnapshotInfo {
    pub time_ms: u64,
    pub gc_id: Option<u64>,
    pub label: Option<String>,
    pub heap: Option<HeapMetrics>,
}

impl Grouper {
    /// The snapshot of a grouped heap, with this grouper's keys (build it once the history's
    /// groups are all known, so `(self)` keys are stable).
    pub fn snapshot(&self, grouped: &GroupedHeap, info: SnapshotInfo) -> Snapshot {
        let keyed = |maps: &[BTreeMap<u32, u64>]| -> PointerMap {
            maps.iter()
                .enumerate()
                .filter(|(_, m)| !m.is_empty())
                .map(|(g, m)| {
                    let inner = m.iter().map(|(&h, &n)| (self.leaf_key(h), n)).collect();
                    (self.leaf_key(g as u32), inner)
                })
                .collect()
        };
        let retainers = grouped
            .paths
            .iter()
            .enumerate()
            .filter_map(|(group, path)| Some((self.leaf_key(group as u32), self.keyed_path(path.as_ref()?))))
            .collect();
        Snapshot {
            time_ms: info.time_ms,
            gc_id: info.gc_id,
            label: info.label,
            tree: self.tree(&grouped.counts),
            points_to: grouped.maps.as_ref().map(|m| keyed(&m.points_to)).unwrap_or_default(),
            pointed_from: grouped.maps.as_ref().map(|m| keyed(&m.pointed_from)).unwrap_or_default(),
            heap: info.heap,
            retainers,
        }
    }

    fn keyed_path(&self, path: &GroupPath) -> RetainerPath {
        let steps = path
            .steps
            .iter()
            .map(|s| RetainerStep {
                key: self.leaf_key(s.group),
                objects: s.objects,
                bytes: s.bytes,
                retained_bytes: s.retained_bytes,
            })
            .collect();
        RetainerPath { steps, roots: path.roots.clone() }
    }
}

/// Leaves by what a source knows of its objects: objects with equal keys share a leaf, so the
/// level names are formatted once per key, not once per object.
#[derive(Debug, Clone)]
pub struct LeafMemo<K>(HashMap<K, u32>);

impl<K> Default for LeafMemo<K> {
    fn default() -> Self {
        LeafMemo(HashMap::default())
    }
}

impl<K: Hash + Eq> LeafMemo<K> {
    pub fn leaf<'a>(
        &mut self,
        grouper: &mut Grouper,
        key: K,
        facts: impl FnOnce() -> ObjectFacts<'a>,
    ) -> u32 {
        *self.0.entry(key).or_insert_with(|| grouper.leaf(&facts()))
    }
}

#[cfg(test)]
mod tests;
