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

/// Whether the two largest heaps of a series fit `budget` together (every size known): only
/// then are two read and analysed at once, else one after the other.
pub fn two_fit(needs: &[Option<u64>], budget: u64) -> bool {
    let Some(mut known) = needs.iter().copied().collect::<Option<Vec<u64>>>() else { return false };
    known.sort_unstable_by(|a, b| b.cmp(a));
    needs.len() > 1 && known[0].saturating_add(known[1]) <= budget
}

/// [`two_fit`] against the budget tables are held to now ([`crate::table::budget`]); with no
/// budget every table stays in memory, and two heaps are read at once.
pub fn two_fit_now(needs: &[Option<u64>]) -> bool {
    crate::table::budget().is_none_or(|budget| two_fit(needs, budget))
}

/// About how much memory importing the file at `path` takes, at `per_byte` bytes of tables per
/// byte of it; None where its size is unknown (gzip) or it cannot be read.
pub fn estimated_memory(path: &std::path::Path, per_byte: u64) -> Option<u64> {
    let mut head = [0u8; 2];
    let mut file = std::fs::File::open(path).ok()?;
    std::io::Read::read_exact(&mut file, &mut head).ok()?;
    let size = file.metadata().ok()?.len();
    (head != [0x1f, 0x8b]).then(|| size.saturating_mul(per_byte))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_heaps_at_once_only_when_both_fit() {
        assert!(two_fit(&[Some(3), Some(5), Some(2)], 8));
        assert!(!two_fit(&[Some(3), Some(5), Some(4)], 8), "the two largest count");
        assert!(!two_fit(&[Some(3), None], 1 << 40), "a gzipped file's size is unknown");
        assert!(!two_fit(&[Some(3)], 8), "one heap is one at a time");
        assert!(!two_fit(&[Some(u64::MAX), Some(1)], u64::MAX - 1), "no overflow");
    }
}
