//! Trace replay: applies events to the heap; at each `gc` collects garbage and records a
//! snapshot (grouping counts, pointer maps, retained sizes, heap metrics). The history is built
//! at the end, when every group that will ever exist is known.

pub use memcity_heapgraph::Grouping;
use memcity_heapgraph::{Classifier, GroupedHeap, Grouper, PathNames, SnapshotInfo, group_heap_labelled};
use memcity_model::{FORMAT, HeapMetrics, History, MetricNames};

use crate::group::Leaves;
use crate::heap::Heap;
use crate::trace::{Op, OpSink, Strings, Trace, TraceError};

/// Traces are grouped by type, then allocation site, by default.
pub fn default_grouping() -> Grouping {
    Grouping::new(vec![Classifier::Type, Classifier::AllocationSite { depth: 1 }])
}

/// One recorded GC point, in group ids.
struct Recorded {
    gc_id: u64,
    time_ms: u64,
    grouped: GroupedHeap,
    heap: HeapMetrics,
}

pub struct Replay {
    pub heap: Heap,
    grouper: Grouper,
    leaves: Leaves,
    options: Grouping,
    recorded: Vec<Recorded>,
    last_gc: Option<(u64, u64)>,
    /// Keep the heap graph of this GC (by index) and replay nothing after it.
    keep_at: Option<usize>,
    kept: Option<KeptHeap>,
    /// Keep the typed heaps of these GCs (by index) and replay nothing after the last.
    typed_at: Vec<usize>,
    /// Keep the typed heap of every GC, for the caller to take one at a time.
    typed_every: bool,
    typed: Vec<TypedAt>,
}

use memcity_heapgraph::TypedSnapshot as TypedAt;

/// The heap of one GC as the pipeline saw it: enough to compute an exact GC closure later.
pub struct KeptHeap {
    pub graph: memcity_heapgraph::HeapGraph,
    pub live: Vec<bool>,
}

impl Replay {
    pub fn new(options: Grouping) -> Replay {
        Replay::with_strings(options, Strings::default())
    }

    /// A replay of ops interned into `strings`.
    pub fn with_strings(options: Grouping, strings: Strings) -> Replay {
        Replay {
            heap: Heap::with_strings(strings),
            grouper: Grouper::new(options.classifiers.clone()),
            leaves: Leaves::default(),
            options,
            recorded: Vec::new(),
            last_gc: None,
            keep_at: None,
            kept: None,
            typed_at: Vec::new(),
            typed_every: false,
            typed: Vec::new(),
        }
    }

    /// Applies ops interned into this replay's strings; an error names the op's index.
    pub fn apply_ops(&mut self, ops: &[Op]) -> Result<(), (usize, String)> {
        let mut done = 0;
        for run in ops.split_inclusive(|op| matches!(op, Op::Gc { .. })) {
            if self.kept.is_some() || self.typed_done() {
                return Ok(());
            }
            self.heap.apply_ops(run).map_err(|(i, m)| (done + i, m))?;
            done += run.len();
            if let Some(&Op::Gc { id, start, end }) = run.last() {
                self.gc(id, start, end).map_err(|m| (done - 1, m))?;
            }
        }
        Ok(())
    }

    fn gc(&mut self, id: u64, start: u64, end: u64) -> Result<(), String> {
        if end < start {
            return Err(format!("gc {id} ends ({end} ms) before it starts ({start} ms)"));
        }
        if let Some((last_id, last_end)) = self.last_gc {
            if id <= last_id {
                return Err(format!("gc id {id} does not follow the previous gc id {last_id}"));
            }
            if start < last_end {
                return Err(format!(
                    "gc {id} starts ({start} ms) before the previous gc ended ({last_end} ms)"
                ));
            }
        }
        self.last_gc = Some((id, end));
        let collection = self.heap.collect();
        let mut graph = collection.graph;
        let roots = self.heap.root_sets();
        graph.group = self.leaves.assign(&mut self.grouper, &self.heap, &collection.live, &roots).into();
        let groups = self.grouper.group_count();
        let names = self.heap.root_names();
        let holder = |slot: u32| names.get(&slot).cloned();
        let heap = &self.heap;
        let namer = |from: u32, to: u32| heap.reference_name(from, to);
        let grouped = group_heap_labelled(
            &graph,
            groups,
            &collection.live,
            &roots,
            &holder,
            PathNames::Namer(&namer),
            &self.options.analysis,
        );
        let heap = HeapMetrics {
            reachable_bytes: Some(collection.used_after),
            used_before_gc: Some(collection.used_before),
            used_after_gc: Some(collection.used_after),
            gc_start_ms: Some(start),
            gc_end_ms: Some(end),
        };
        self.recorded.push(Recorded { gc_id: id, time_ms: end, grouped, heap });
        let index = self.recorded.len() - 1;
        if self.keep_at == Some(index) {
            self.kept = Some(KeptHeap { graph, live: collection.live });
        }
        if self.typed_every || self.typed_at.contains(&index) {
            let recorded = &self.recorded[index];
            self.typed.push(TypedAt {
                index,
                time_ms: end,
                reachable_bytes: collection.used_after,
                label: gc_label(id),
                metrics: recorded.heap.clone(),
                heap: self.heap.typed(),
            });
        }
        Ok(())
    }

    /// Whether every typed heap asked for is kept.
    fn typed_done(&self) -> bool {
        !self.typed_at.is_empty() && self.typed.len() == self.typed_at.len()
    }

    /// The history of every GC so far.
    pub fn history(&self) -> History {
        let snapshots = self
            .recorded
            .iter()
            .map(|r| {
                let info = SnapshotInfo {
                    time_ms: r.time_ms,
                    gc_id: Some(r.gc_id),
                    label: Some(gc_label(r.gc_id)),
                    heap: Some(r.heap.clone()),
                };
                self.grouper.snapshot(&r.grouped, info)
            })
            .collect();
        History { format: FORMAT.into(), metric_names: MetricNames::default(), snapshots }
    }

    /// The grouper that names this replay's groups.
    pub fn grouper(&self) -> &Grouper {
        &self.grouper
    }
}

/// What a history calls the snapshot of a GC.
fn gc_label(id: u64) -> String {
    format!("GC #{id}")
}

/// Replays a whole trace into a history; the first bad event stops it with its line number.
pub fn replay(trace: Trace, options: Grouping, source_name: &str) -> Result<History, TraceError> {
    // One batch: the tables are then sized once for the whole trace.
    let mut streaming = Streaming::new(options, source_name, trace.unit);
    streaming.replay.heap.strings = trace.strings;
    (streaming.batch, streaming.lines) = (trace.ops, trace.lines);
    streaming.finish()
}

/// Replays ops as a reader produces them, a batch at a time, so a long trace file is never
/// held whole in memory.
pub struct Streaming {
    replay: Replay,
    batch: Vec<Op>,
    lines: Vec<usize>,
    source_name: String,
    unit: &'static str,
    last_line: usize,
}

/// Big enough for prefetching and per-batch overhead not to matter, small enough to stay cached.
const BATCH: usize = 1 << 16;

impl Streaming {
    /// `unit` names what lines count in errors ("line" or "record").
    pub fn new(options: Grouping, source_name: &str, unit: &'static str) -> Streaming {
        Streaming {
            replay: Replay::new(options),
            batch: Vec::with_capacity(BATCH),
            lines: Vec::with_capacity(BATCH),
            source_name: source_name.into(),
            unit,
            last_line: 0,
        }
    }

    fn error(&self, line: usize, message: String) -> TraceError {
        TraceError { source_name: self.source_name.clone(), unit: self.unit, line, message }
    }

    fn flush(&mut self) -> Result<(), TraceError> {
        let applied = self.replay.apply_ops(&self.batch);
        let applied = applied.map_err(|(i, m)| self.error(self.lines[i], m));
        self.last_line = self.lines.last().copied().unwrap_or(self.last_line);
        self.batch.clear();
        self.lines.clear();
        applied
    }

    /// The history, once every op is in.
    pub fn finish(mut self) -> Result<History, TraceError> {
        self.flush()?;
        if self.replay.recorded.is_empty() {
            return Err(
                self.error(self.last_line, "the trace has no gc event, so there is no snapshot".into())
            );
        }
        Ok(self.replay.history())
    }

    /// Replays only up to GC `index` (0-based) and keeps that heap, for an exact GC closure.
    pub fn keep_heap_at(mut self, index: usize) -> Streaming {
        self.replay.keep_at = Some(index);
        self
    }

    /// Replays only up to the last of `indices` (GC indices, 0-based) and keeps the typed heap
    /// of each.
    pub fn keep_typed_heaps_at(mut self, mut indices: Vec<usize>) -> Streaming {
        indices.sort_unstable();
        indices.dedup();
        self.replay.typed_at = indices;
        self
    }

    /// Keeps the typed heap of every GC, each ready for [`Streaming::take_typed`] as soon as
    /// its `gc` op is in (the batch is replayed then), so a caller can handle one heap at a
    /// time instead of holding the whole series.
    pub fn keep_every_typed_heap(mut self) -> Streaming {
        self.replay.typed_every = true;
        self
    }

    /// The typed heaps kept and not yet taken, in GC order.
    pub fn take_typed(&mut self) -> Vec<TypedAt> {
        std::mem::take(&mut self.replay.typed)
    }

    /// The typed heaps kept by [`Streaming::keep_typed_heaps_at`] (or, with
    /// [`Streaming::keep_every_typed_heap`], those not yet taken), in GC order.
    pub fn finish_typed(mut self) -> Result<Vec<TypedAt>, TraceError> {
        self.flush()?;
        if self.replay.recorded.is_empty() {
            return Err(
                self.error(self.last_line, "the trace has no gc event, so there is no snapshot".into())
            );
        }
        if !self.replay.typed_every && !self.replay.typed_done() {
            let gcs = self.replay.recorded.len();
            let missing = self.replay.typed_at.iter().find(|&&i| i >= gcs).copied().unwrap_or(0);
            return Err(
                self.error(self.last_line, format!("there is no GC at index {missing}: the trace has {gcs}"))
            );
        }
        Ok(std::mem::take(&mut self.replay.typed))
    }

    /// The exact GC closure `(objects, bytes)` of the leaf group `key` at the GC kept by
    /// [`Streaming::keep_heap_at`].
    pub fn finish_closure(mut self, key: &str) -> Result<(u64, u64), TraceError> {
        self.flush()?;
        let (Some(index), Some(kept)) = (self.replay.keep_at, &self.replay.kept) else {
            let gcs = self.replay.recorded.len();
            return Err(self.error(
                self.last_line,
                format!("there is no GC at index {:?}: the trace has {gcs}", self.replay.keep_at),
            ));
        };
        let Some(group) = self.replay.grouper.group_of_key(key) else {
            return Err(
                self.error(self.last_line, format!("no group has the key \"{key}\" at GC index {index}"))
            );
        };
        Ok(memcity_heapgraph::retained::closure_size(&kept.graph, &kept.live, group))
    }
}

impl OpSink for Streaming {
    fn strings(&mut self) -> &mut Strings {
        &mut self.replay.heap.strings
    }

    fn op(&mut self, line: usize, op: Op) -> Result<(), TraceError> {
        let gc = matches!(op, Op::Gc { .. });
        self.batch.push(op);
        self.lines.push(line);
        if self.batch.len() == BATCH || (gc && self.replay.typed_every) { self.flush() } else { Ok(()) }
    }
}

#[cfg(test)]
mod tests;
