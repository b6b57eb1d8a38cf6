//! Every instance's retained size at every snapshot of a run, by identity: what the leak gate
//! (`memcity check`, docs/ci.md) judges a data structure's growth by. Built from one heap's
//! measurements at a time ([`crate::measure`]), so no heap is held; an instance absent from a
//! snapshot (not yet made, or gone) counts 0 bytes there.

use rustc_hash::FxHashMap;

use crate::heads::HeapHeads;
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
            self.add(snapshot, &i.key, &i.type_name, Some(&i.path), i.measure.retained.bytes);
        }
        self.close(snapshot);
    }

    /// Adds the next snapshot's instances measured by retained size alone
    /// ([`crate::heads_retained`]): an instance's path is the last one named.
    pub fn push_heads(&mut self, measured: &HeapHeads) {
        let snapshot = self.heap_bytes.len();
        self.heap_bytes.push(measured.heap_bytes);
        for i in &measured.heads {
            let type_name = measured.types.get(i.type_index as usize).map_or("?", String::as_str);
            self.add(snapshot, &i.key, type_name, i.path.as_deref(), i.retained);
        }
        self.close(snapshot);
    }

    fn add(
        &mut self,
        snapshot: usize,
        key: &InstanceKey,
        type_name: &str,
        path: Option<&str>,
        retained: u64,
    ) {
        let at = *self.by_key.entry(key.clone()).or_insert_with(|| {
            self.tracked.push(Tracked {
                key: key.clone(),
                type_name: type_name.to_string(),
                path: String::new(),
                retained: vec![0; snapshot],
            });
            self.tracked.len() - 1
        });
        let t = &mut self.tracked[at];
        // Two instances of one path in one heap (a reader's duplicate): the larger counts.
        t.retained.resize(snapshot + 1, 0);
        t.retained[snapshot] = t.retained[snapshot].max(retained);
        if let Some(path) = path.filter(|p| *p != t.path) {
            t.path = path.to_string();
        }
    }

    /// Instances absent from `snapshot` count 0 there.
    fn close(&mut self, snapshot: usize) {
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
