//! Every instance's retained size in one heap, for the leak gate (`memcity check`,
//! docs/ci.md): the heads found by type alone (retained sizes need no descent into the
//! structures) and sized from a dominator tree the caller already has, each known by a hash of
//! its root path, and named in words only where it is large enough to be a finding. Naming
//! every instance of a heap of 175,000 structures took most of the gate's time.

use memcity_heapgraph::{LabelKind, RootPaths, Table, TypedHeap};

use crate::detect::Plan;
use crate::lang::Descriptions;
use crate::measure::{InstanceKey, PathNamer, type_name};

/// One instance: its identity, type, size and, where large enough, its shown path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadRetained {
    pub key: InstanceKey,
    /// Into [`HeapHeads::types`].
    pub type_index: u32,
    /// Its root path as shown (`static app.Registry.people`), for those retaining more than the
    /// bytes asked for.
    pub path: Option<String>,
    pub retained: u64,
}

/// Every instance of one heap.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeapHeads {
    pub heads: Vec<HeadRetained>,
    /// The type names the heads use.
    pub types: Vec<String>,
    /// The bytes of the reachable objects.
    pub heap_bytes: u64,
}

/// The instances of `descriptions` among the reachable objects of `heap`, with their retained
/// bytes from `retained` (which hands back every object's, as
/// [`memcity_heapgraph::DominatorTree::retained`], and is called beside the walk that finds
/// and keys the instances); those retaining more than `named_above` bytes have their path
/// named. Time: one breadth-first walk, and per instance the steps of its path not already
/// hashed for another.
pub fn heads_retained(
    heap: &TypedHeap,
    descriptions: &Descriptions,
    retained: &(dyn Fn() -> Vec<u64> + Sync),
    named_above: u64,
) -> HeapHeads {
    let (retained, (namer, found, types, heap_bytes)) = rayon::join(retained, || {
        let namer = PathNamer::new(heap);
        let (found, types, heap_bytes) = find(heap, descriptions, namer.paths());
        (namer, found, types, heap_bytes)
    });
    let heads = found
        .into_iter()
        .map(|(o, key, type_index)| {
            let bytes = retained.get(o as usize).copied().unwrap_or(0);
            let path = (bytes > named_above).then(|| namer.shown(o));
            HeadRetained { key, type_index, path, retained: bytes }
        })
        .collect();
    HeapHeads { heads, types, heap_bytes }
}

/// The heads (object, key, type) in object order, their types' names and the reachable bytes.
fn find(
    heap: &TypedHeap,
    descriptions: &Descriptions,
    paths: &RootPaths,
) -> (Vec<(u32, InstanceKey, u32)>, Vec<String>, u64) {
    let plan = Plan::new(heap, descriptions);
    let roles = crate::entries::Roles::new(heap, descriptions);
    let objects = &heap.objects;
    let g = &heap.graph;
    let n = g.object_count() as u32;
    let heap_bytes = (0..n).filter(|&o| paths.reached(o)).map(|o| g.shallow[o as usize]).sum();
    let mut hasher = PathHasher::new(heap, paths);
    let mut types: Vec<String> = Vec::new();
    let mut type_slot = rustc_hash::FxHashMap::default();
    let mut found = Vec::new();
    for o in 0..n {
        let t = objects.type_of.get(o as usize).copied().unwrap_or(u32::MAX);
        if !plan.is_head(t) || !paths.reached(o) || !roles.admits(heap, o) {
            continue;
        }
        let type_index = *type_slot.entry(t).or_insert_with(|| {
            types.push(type_name(heap, o).to_string());
            types.len() as u32 - 1
        });
        let key = match objects.identity_stable {
            true => InstanceKey::Object(objects.identity.get(o as usize).copied().unwrap_or(u64::MAX)),
            false => InstanceKey::PathHash(hasher.hash(o)),
        };
        found.push((o, key, type_index));
    }
    (found, types, heap_bytes)
}

/// Hashes root paths step by step, as [`PathNamer`] writes them: from the last class object
/// on (`static Service.INSTANCE`), else from the root; a reference with an empty name is no
/// step, one without a name is `?`. Each object's hash is kept, so paths that share a prefix
/// (the entries of one map) walk it once.
pub(crate) struct PathHasher<'a> {
    heap: &'a TypedHeap,
    paths: &'a RootPaths<'a>,
    class: Vec<bool>,
    /// Per label name, its hash; `None` for an empty name.
    names: Vec<Option<u64>>,
    /// Per object, its path's hash; [`UNKNOWN`] until asked for (a table: past the memory
    /// budget, a work file).
    known: Table<u64>,
    pending: Vec<(u32, usize)>,
}

const UNKNOWN: u64 = 0;

impl<'a> PathHasher<'a> {
    pub(crate) fn new(heap: &'a TypedHeap, paths: &'a RootPaths<'a>) -> PathHasher<'a> {
        let n = heap.graph.object_count();
        let mut class = vec![false; n];
        for (o, name) in &heap.objects.root_names {
            if let Some(c) = class.get_mut(*o as usize) {
                *c = name.starts_with("class ");
            }
        }
        let names = heap
            .objects
            .labels
            .names
            .iter()
            .map(|s| (!s.is_empty()).then(|| bytes_hash(s.as_bytes())))
            .collect();
        PathHasher { heap, paths, class, names, known: Table::filled(n, UNKNOWN), pending: Vec::new() }
    }

    pub(crate) fn hash(&mut self, o: u32) -> u64 {
        let mut at = o;
        let mut h = loop {
            let known = self.known[at as usize];
            if known != UNKNOWN {
                break known;
            }
            match self.paths.up(at).filter(|_| !self.class[at as usize]) {
                Some((parent, edge)) => {
                    self.pending.push((at, edge));
                    at = parent;
                }
                None => {
                    let h = self.root_hash(at);
                    self.known[at as usize] = h;
                    break h;
                }
            }
        };
        while let Some((object, edge)) = self.pending.pop() {
            h = self.step(h, edge);
            self.known[object as usize] = h;
        }
        h
    }

    /// A path's first object, by the name its path starts with.
    fn root_hash(&self, o: u32) -> u64 {
        let objects = &self.heap.objects;
        let h = match objects.root_name(o) {
            Some(name) => bytes_hash(name.as_bytes()),
            None => mix(bytes_hash(b"root "), bytes_hash(type_name(self.heap, o).as_bytes())),
        };
        nonzero(h)
    }

    fn step(&self, h: u64, edge: usize) -> u64 {
        let label = self.heap.objects.labels.of_edge.get(edge).and_then(|l| l.get());
        let name = |i: u32| self.names.get(i as usize).copied();
        let part = match label {
            None => Some(bytes_hash(b"?")),
            Some(LabelKind::Field(i)) => match name(i) {
                Some(None) => None,
                Some(Some(h)) => Some(mix(1, h)),
                None => Some(bytes_hash(b"?")),
            },
            Some(LabelKind::Key(i)) => match name(i) {
                Some(h) => Some(mix(2, h.unwrap_or(0))),
                None => Some(bytes_hash(b"?")),
            },
            Some(LabelKind::Index(i)) => Some(mix(3, u64::from(i))),
        };
        match part {
            // A step a path does not show.
            None => h,
            Some(part) => nonzero(mix(h, part)),
        }
    }
}

fn nonzero(h: u64) -> u64 {
    if h == UNKNOWN { 1 } else { h }
}

/// FNV-1a, finished by [`mix`].
fn bytes_hash(bytes: &[u8]) -> u64 {
    let h = bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3));
    mix(h, 0)
}

/// Two hashes into one, order mattering (a step of murmur3's finaliser over both).
fn mix(a: u64, b: u64) -> u64 {
    let mut h = a.rotate_left(23) ^ b.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

#[cfg(test)]
mod tests;
