//! A series of heaps (dumps or snapshots of one program) becomes a history: every heap is grouped
//! by one shared grouper, so keys agree across the series, and the snapshots are built once all
//! groups are known, ordered by time.

use memcity_model::{FORMAT, HeapMetrics, History, MetricNames};

use crate::group::Grouper;
use crate::pipeline::{GroupedHeap, SnapshotInfo};

/// One heap of a series, grouped: what its snapshot is built from.
#[derive(Debug, Clone)]
pub struct SeriesHeap {
    pub time_ms: u64,
    pub label: String,
    pub heap: GroupedHeap,
    /// Metrics the source knows besides the reachable bytes (filled in here).
    pub metrics: HeapMetrics,
}

/// The history of a series, ordered by time; heaps with equal times keep their order.
pub fn history_of(grouper: &Grouper, mut heaps: Vec<SeriesHeap>) -> History {
    heaps.sort_by_key(|h| h.time_ms);
    let snapshots = heaps
        .into_iter()
        .map(|h| {
            let metrics = HeapMetrics { reachable_bytes: Some(h.heap.reachable_bytes), ..h.metrics };
            let info =
                SnapshotInfo { time_ms: h.time_ms, gc_id: None, label: Some(h.label), heap: Some(metrics) };
            grouper.snapshot(&h.heap, info)
        })
        .collect();
    History { format: FORMAT.to_string(), metric_names: MetricNames::default(), snapshots }
}
