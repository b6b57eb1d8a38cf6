//! Every instance's retained size at every snapshot of a run, by identity: what the leak gate
//! (`memcity check`, docs/ci.md) judges a data structure's growth by. Built from one heap's
//! measurements at a time ([`crate::measure`]), so no heap is held; an instance absent from a
//! snapshot (not yet made, or gone) counts 0 bytes there.

use rustc_hash::FxHashMap;

use crate::measure::{HeapStructures, InstanceKey};

/// One instance over the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tracked {
    pub key: InstanceKey,
    pub type_name: String,
    /// Its root path as last seen (`static app.Registry.people`).
    pub path: String,
    /// Retained bytes per snapshot.
    pub retained: Vec<u64>,
}

/// The instances of a run, one snapshot added at a time.
#[derive(Debug, Clone, Default)]
pub struct RetainedSeries {
    tracked: Vec<Tracked>,
    by_key: FxHashMap<InstanceKey, usize>,
    /// The reachable heap per snapshot.
    heap_bytes: Vec<u64>,
}

impl RetainedSeries {
    /// Adds the next snapshot's instances.
    pub fn push(&mut self, measured: &HeapStructures) {
        let snapshot = self.heap_bytes.len();
        self.heap_bytes.push(measured.heap_bytes);
        for i in &measured.instances {
            let at = *self.by_key.entry(i.key.clone()).or_insert_with(|| {
                self.tracked.push(Tracked {
                    key: i.key.clone(),
                    type_name: i.type_name.clone(),
                    path: String::new(),
                    retained: vec![0; snapshot],
                });
                self.tracked.len() - 1
            });
            let t = &mut self.tracked[at];
            // Two instances of one path in one heap (a reader's duplicate): the larger counts.
            t.retained.resize(snapshot + 1, 0);
            t.retained[snapshot] = t.retained[snapshot].max(i.measure.retained.bytes);
            if t.path != i.path {
                t.path.clone_from(&i.path);
            }
        }
        for t in &mut self.tracked {
            t.retained.resize(snapshot + 1, 0);
        }
    }

    pub fn snapshots(&self) -> usize {
        self.heap_bytes.len()
    }

    pub fn heap_bytes(&self) -> &[u64] {
        &self.heap_bytes
    }

    pub fn instances(&self) -> &[Tracked] {
        &self.tracked
    }
}

#[cfg(test)]
mod tests;
