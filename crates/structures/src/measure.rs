//! One heap's structures as plain measurements (docs/structures.md, "Growth"): what a caller
//! keeps of each snapshot so that growth over a window is computed from numbers alone
//! ([`crate::growth::window`]), without holding two heaps.

use memcity_heapgraph::{RootPaths, TypedHeap, reachable, root_path};
use rustc_hash::FxHashMap;

use crate::detect::{Scratch, Sizes, Structures, deep_size, detect};
use crate::growth::Measure;
use crate::lang::Descriptions;

/// What makes an instance at the window's start the same as one at its end: the head's stable
/// object id where the source has one (traces, AntTracks), otherwise the shortest reference
/// path from a GC root written with field names (heap dumps, whose addresses move).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InstanceKey {
    Object(u64),
    Path(String),
    /// A root path known by a hash of its steps alone ([`crate::heads`]): the same path in two
    /// heaps hashes the same, and it is named only where it is shown.
    PathHash(u64),
}

impl std::fmt::Display for InstanceKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InstanceKey::Object(id) => write!(f, "@{id}"),
            InstanceKey::Path(path) => f.write_str(path),
            InstanceKey::PathHash(hash) => write!(f, "#{hash:016x}"),
        }
    }
}

/// A group of leaves: their type and, where the source records one, allocation site.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LeafKey {
    pub type_name: String,
    pub site: Option<String>,
}

/// One instance of one heap, measured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstanceMeasure {
    pub key: InstanceKey,
    /// The shortest reference path from a GC root to the head, in field names (`static
    /// Service.INSTANCE .cache`), at most [`PATH_STEPS`] references: what a person reads as
    /// the instance's name, whatever its key.
    pub path: String,
    /// The head's object index in this heap (for the caller's own look-ups; not an identity).
    pub head: u32,
    pub type_name: String,
    pub site: Option<String>,
    /// Whether it is contained in another structure (not a top-level one).
    pub contained: bool,
    pub measure: Measure,
    /// Its deep leaves (through contained structures) by type and site, the most bytes first.
    pub leaves: Vec<(LeafKey, Sizes)>,
}

/// Every instance of one heap, and the heap's reachable size that growth is set against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeapStructures {
    pub instances: Vec<InstanceMeasure>,
    /// The bytes of the reachable objects.
    pub heap_bytes: u64,
}

impl HeapStructures {
    /// The instances no other structure contains.
    pub fn top_level(&self) -> impl Iterator<Item = &InstanceMeasure> {
        self.instances.iter().filter(|i| !i.contained)
    }
}

/// Which measurements to take: the deep (transitive) size costs a walk of everything each
/// head reaches, so a caller that ranks by another metric may skip it (it reads 0 then); the
/// leaves by type cost a walk of each deep structure and strings per group, so a caller that
/// shows a few instances may skip them (empty then) and fill in those it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    pub deep: bool,
    pub leaves: bool,
}

/// The most references an instance's shown path names (the middle ones become `…`).
pub const PATH_STEPS: usize = 8;

/// Detects and measures every instance of `heap`, all four metrics included.
pub fn measure(heap: &TypedHeap, descriptions: &Descriptions) -> HeapStructures {
    measure_with(heap, descriptions, Options { deep: true, leaves: true })
}

/// [`measure`] with a choice of metrics. Time: detection (linear) plus, per instance, its deep
/// structure and, with `deep`, everything it reaches.
pub fn measure_with(heap: &TypedHeap, descriptions: &Descriptions, options: Options) -> HeapStructures {
    measure_detected(heap, descriptions, options).0
}

/// [`measure_with`], also handing back what detection found, for what is filled in later
/// ([`fill_in`]).
pub(crate) fn measure_detected(
    heap: &TypedHeap,
    descriptions: &Descriptions,
    options: Options,
) -> (HeapStructures, Structures) {
    let structures = detect(heap, descriptions);
    let (keys, paths) = keys(heap, &structures, &PathNamer::new(heap));
    let mut scratch = Scratch::new(heap.graph.object_count());
    let objects = &heap.objects;
    let instances = structures
        .instances
        .iter()
        .zip(keys.into_iter().zip(paths))
        .enumerate()
        .map(|(i, (instance, (key, path)))| {
            let deep =
                if options.deep { structures.deep_size(heap, i, &mut scratch) } else { Sizes::default() };
            InstanceMeasure {
                key,
                path,
                head: instance.head,
                type_name: type_name(heap, instance.head).to_string(),
                site: objects.site(instance.head).map(String::from),
                contained: instance.contained,
                measure: Measure {
                    retained: instance.retained,
                    deep,
                    structure: instance.structure,
                    deep_structure: instance.deep_structure,
                },
                leaves: match options.leaves {
                    true => leaves_by_type(heap, &structures.deep_leaves(i, &mut scratch)),
                    false => Vec::new(),
                },
            }
        })
        .collect();
    (HeapStructures { instances, heap_bytes: structures.heap_bytes }, structures)
}

/// The bytes of the objects reachable from the GC roots.
pub fn heap_bytes(heap: &TypedHeap) -> u64 {
    let g = &heap.graph;
    reachable(g).iter().zip(&g.shallow).filter(|(live, _)| **live).map(|(_, &bytes)| bytes).sum()
}

/// Each instance's identity (the head's id where ids are stable, else its root path in full)
/// and its shown path, the instances named in parallel.
fn keys(heap: &TypedHeap, structures: &Structures, namer: &PathNamer) -> (Vec<InstanceKey>, Vec<String>) {
    use rayon::prelude::*;
    let objects = &heap.objects;
    structures
        .instances
        .par_iter()
        .map(|i| {
            let (full, shown) = namer.named(i.head, !objects.identity_stable);
            let key = match full {
                Some(path) => InstanceKey::Path(path),
                None => {
                    InstanceKey::Object(objects.identity.get(i.head as usize).copied().unwrap_or(u64::MAX))
                }
            };
            (key, shown)
        })
        .unzip()
}

/// The roots held only by the engine's own root lists ([`RootKind::Internal`]).
fn engine_only_roots(heap: &TypedHeap) -> rustc_hash::FxHashSet<u32> {
    use memcity_heapgraph::RootKind;
    let kinds = &heap.objects.root_kinds;
    let other: rustc_hash::FxHashSet<u32> =
        kinds.iter().filter(|(_, k)| *k != RootKind::Internal).map(|&(o, _)| o).collect();
    kinds.iter().filter(|(o, k)| *k == RootKind::Internal && !other.contains(o)).map(|&(o, _)| o).collect()
}

/// Names objects by their shortest path from a GC root, as instances are shown.
pub(crate) struct PathNamer<'a> {
    heap: &'a TypedHeap,
    paths: RootPaths<'a>,
}

impl<'a> PathNamer<'a> {
    /// One breadth-first walk of the heap; roots only the engine's own lists hold come last,
    /// so what the program also holds is named by the program's path to it.
    pub(crate) fn new(heap: &'a TypedHeap) -> PathNamer<'a> {
        let engine_only = engine_only_roots(heap);
        PathNamer { heap, paths: RootPaths::preferring(&heap.graph, |r| engine_only.contains(&r)) }
    }

    /// The walk this namer names by.
    pub(crate) fn paths(&self) -> &RootPaths<'a> {
        &self.paths
    }

    /// How an instance with head `o` is shown (`static app.Registry.people`): at most
    /// [`PATH_STEPS`] references.
    pub(crate) fn shown(&self, o: u32) -> String {
        self.named(o, false).1
    }

    /// `o`'s path in full (every reference).
    pub(crate) fn full(&self, o: u32) -> String {
        let (full, shown) = self.named(o, true);
        full.unwrap_or(shown)
    }

    /// `o`'s path in full where `full` is asked for, and as shown.
    pub(crate) fn named(&self, o: u32, full: bool) -> (Option<String>, String) {
        let objects = &self.heap.objects;
        let path = self.paths.path(o);
        // `describe` names a path from its last class object on, which it finds by asking every
        // object's name: cut there first, so that only the first object needs a name (the
        // others are no class objects now; an unnamed one would be `root TYPE`, a string made
        // per step).
        let is_class = |o: u32| objects.root_name(o).is_some_and(|n| n.starts_with("class "));
        let path = &path[path.iter().rposition(|s| is_class(s.object)).unwrap_or(0)..];
        let first = path.first().map(|s| s.object);
        let name_root = |o: u32| match Some(o) == first {
            true => {
                objects.root_name(o).map_or_else(|| format!("root {}", type_name(self.heap, o)), String::from)
            }
            false => String::new(),
        };
        let shown = root_path::describe(path, &objects.labels, &name_root, PATH_STEPS);
        // A path of no more references than are shown is shown whole.
        let full = full.then(|| match path.len() <= PATH_STEPS + 1 {
            true => shown.clone(),
            false => root_path::describe(path, &objects.labels, &name_root, usize::MAX),
        });
        (full, shown)
    }
}

/// Fills in the deep (transitive) size of the instances at `which` — those a caller shows
/// after measuring without it ([`Options`]): everything reachable from each head without
/// passing through another GC root.
pub fn fill_deep(heap: &TypedHeap, measured: &mut HeapStructures, which: &[usize]) {
    let g = &heap.graph;
    let mut root = vec![false; g.object_count()];
    for &r in &g.roots {
        if let Some(flag) = root.get_mut(r as usize) {
            *flag = true;
        }
    }
    let mut scratch = Scratch::new(g.object_count());
    for &i in which {
        let Some(instance) = measured.instances.get_mut(i) else { continue };
        instance.measure.deep = deep_size(heap, instance.head, &root, &mut scratch);
    }
}

/// An object's type name, "?" where the table has none (a reader's table must not crash us).
pub(crate) fn type_name(heap: &TypedHeap, o: u32) -> &str {
    let objects = &heap.objects;
    let t = objects.type_of.get(o as usize).copied().unwrap_or(u32::MAX);
    objects.types.get(t as usize).map_or("?", |t| t.name.as_str())
}

/// Leaves grouped by type and site, the most bytes first (ties by name, so the order is stable).
pub(crate) fn leaves_by_type(heap: &TypedHeap, leaves: &[u32]) -> Vec<(LeafKey, Sizes)> {
    let objects = &heap.objects;
    let mut groups: FxHashMap<(u32, Option<&str>), Sizes> = FxHashMap::default();
    for &o in leaves {
        let t = objects.type_of.get(o as usize).copied().unwrap_or(u32::MAX);
        let sizes = groups.entry((t, objects.site(o))).or_default();
        sizes.objects += 1;
        sizes.bytes += heap.graph.shallow.get(o as usize).copied().unwrap_or(0);
    }
    let mut out: Vec<(LeafKey, Sizes)> = groups
        .into_iter()
        .map(|((t, site), sizes)| {
            let type_name = objects.types.get(t as usize).map_or("?", |t| t.name.as_str()).to_string();
            (LeafKey { type_name, site: site.map(String::from) }, sizes)
        })
        .collect();
    out.sort_by(|a, b| b.1.bytes.cmp(&a.1.bytes).then_with(|| a.0.cmp(&b.0)));
    out
}

#[cfg(test)]
mod tests;
