//! A program's snapshots side by side (docs/ownership.md, "Over time"): the same place in two
//! trees — the same chain of class nodes from the root — has one path id, so each tree node
//! knows its growth since the previous snapshot, its new objects and its history.
//!
//! New objects are counted by identity where the source's ids name the same object in every
//! snapshot (traces, V8, the Python probe); HPROF addresses move, so there a node's new
//! objects are the increase of its object count, a lower bound.

use memcity_heapgraph::TypedSnapshot;
use memcity_structures::Descriptions;
use rustc_hash::FxHashMap;

use crate::tree::build;
use crate::{Options, Ownership};

/// One snapshot's ownership, its tree nodes with their paths.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Its index in the input's history.
    pub index: usize,
    pub time_ms: u64,
    pub label: String,
    pub ownership: Ownership,
    /// Path → tree node.
    by_path: FxHashMap<u32, u32>,
}

impl Snapshot {
    /// The tree node at `path`, if this snapshot has one.
    pub fn node_at(&self, path: u32) -> Option<u32> {
        self.by_path.get(&path).copied()
    }
}

/// The snapshots of one series, paired as they are added.
#[derive(Debug, Clone, Default)]
pub struct Series {
    pub options: Options,
    snapshots: Vec<Snapshot>,
    /// Class node keys by id.
    keys: FxHashMap<String, u32>,
    /// (parent path, class key) → path; path 0 is the root's.
    paths: FxHashMap<(u32, u32), u32>,
    /// The sorted identities of the last snapshot's reachable objects, where stable.
    previous_ids: Option<Vec<u64>>,
}

impl Series {
    pub fn new(options: Options) -> Series {
        Series { options, ..Series::default() }
    }

    pub fn snapshots(&self) -> &[Snapshot] {
        &self.snapshots
    }

    /// Adds the next snapshot of the series: its ownership, paired with the previous one.
    pub fn push(&mut self, snapshot: &TypedSnapshot, descriptions: &Descriptions) -> &Snapshot {
        let heap = &snapshot.heap;
        let (mut own, tree_of) = build(heap, descriptions, &self.options);
        let mut by_path = FxHashMap::default();
        for t in 0..own.tree.len() {
            let node = &own.tree[t];
            let path = match node.parent {
                None => 0,
                Some(p) => {
                    let key = self.key(&own.classes[node.class as usize].key);
                    let next = self.paths.len() as u32 + 1;
                    *self.paths.entry((own.tree[p as usize].path, key)).or_insert(next)
                }
            };
            own.tree[t].path = path;
            by_path.insert(path, t as u32);
        }
        let ids = &heap.objects.identity;
        let stable = heap.objects.identity_stable && ids.len() == tree_of.len();
        if let Some(previous) = self.snapshots.last() {
            let known = self.previous_ids.as_deref().filter(|_| stable);
            pair(&mut own, previous, known, ids, &tree_of);
        }
        self.previous_ids = stable.then(|| {
            let mut live: Vec<u64> =
                tree_of.iter().zip(ids).filter(|(t, _)| **t != u32::MAX).map(|(_, &id)| id).collect();
            live.sort_unstable();
            live
        });
        self.snapshots.push(Snapshot {
            index: snapshot.index,
            time_ms: snapshot.time_ms,
            label: snapshot.label.clone(),
            ownership: own,
            by_path,
        });
        self.snapshots.last().expect("just pushed")
    }

    fn key(&mut self, key: &str) -> u32 {
        if let Some(&id) = self.keys.get(key) {
            return id;
        }
        let id = self.keys.len() as u32;
        self.keys.insert(key.to_string(), id);
        id
    }

    /// The owned bytes at `path` in every snapshot (0 where it is absent): a node's history.
    pub fn history(&self, path: u32) -> Vec<u64> {
        self.snapshots
            .iter()
            .map(|s| s.node_at(path).map_or(0, |t| s.ownership.tree[t as usize].owned_bytes))
            .collect()
    }

    /// The reachable heap of every snapshot.
    pub fn heap_history(&self) -> Vec<u64> {
        self.snapshots.iter().map(|s| s.ownership.heap_bytes).collect()
    }
}

/// Fills in growth and new objects of `own` against the `previous` snapshot: by identity
/// where `known` holds the previous snapshot's sorted ids, else by object counts.
fn pair(own: &mut Ownership, previous: &Snapshot, known: Option<&[u64]>, ids: &[u64], tree_of: &[u32]) {
    let before = |path: u32| previous.node_at(path).map(|t| &previous.ownership.tree[t as usize]);
    for node in own.tree.iter_mut() {
        let (objects, owned) = before(node.path).map_or((0, 0), |b| (b.objects, b.owned_bytes));
        node.growth_bytes = node.owned_bytes as i64 - owned as i64;
        node.new_objects = node.objects.saturating_sub(objects);
    }
    if let Some(known) = known {
        own.tree.iter_mut().for_each(|n| n.new_objects = 0);
        for (&t, id) in tree_of.iter().zip(ids) {
            if t != u32::MAX && known.binary_search(id).is_err() {
                own.tree[t as usize].new_objects += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests;
