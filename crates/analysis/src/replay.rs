//! Trace replay: applies events to the heap; at each `gc` collects garbage and records a
//! snapshot (grouping counts, pointer maps, retained sizes, heap metrics). The history is built
//! at the end, when every group that will ever exist is known.

use memcity_heapgraph::{PointerMaps, pointer_maps, retained_sizes};
use memcity_model::{FORMAT, HeapMetrics, History, MetricNames, PointerMap, Snapshot};

use crate::classify::Classifier;
use crate::group::{Counts, Grouper};
use crate::heap::Heap;
use crate::trace::{Op, OpSink, Strings, Trace, TraceError};

#[derive(Debug, Clone)]
pub struct ReplayOptions {
    pub classifiers: Vec<Classifier>,
    pub pointer_maps: bool,
    /// Retained size per leaf group: one marking pass per group per GC (the costly part).
    pub retained: bool,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            classifiers: vec![Classifier::Type, Classifier::AllocationSite { depth: 1 }],
            pointer_maps: true,
            retained: true,
        }
    }
}

/// One recorded GC point, in group ids.
struct Recorded {
    gc_id: u64,
    time_ms: u64,
    counts: Counts,
    maps: Option<PointerMaps>,
    heap: HeapMetrics,
}

pub struct Replay {
    pub heap: Heap,
    grouper: Grouper,
    options: ReplayOptions,
    recorded: Vec<Recorded>,
    last_gc: Option<(u64, u64)>,
}

impl Replay {
    pub fn new(options: ReplayOptions) -> Replay {
        Replay::with_strings(options, Strings::default())
    }

    /// A replay of ops interned into `strings`.
    pub fn with_strings(options: ReplayOptions, strings: Strings) -> Replay {
        Replay {
            heap: Heap::with_strings(strings),
            grouper: Grouper::new(options.classifiers.clone()),
            options,
            recorded: Vec::new(),
            last_gc: None,
        }
    }

    /// Applies ops interned into this replay's strings; an error names the op's index.
    pub fn apply_ops(&mut self, ops: &[Op]) -> Result<(), (usize, String)> {
        let mut done = 0;
        for run in ops.split_inclusive(|op| matches!(op, Op::Gc { .. })) {
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
        graph.group = self.grouper.assign(&self.heap, &collection.live);
        let groups = self.grouper.group_count();
        let mut counts: Counts = vec![(0, 0, None); groups];
        for (s, &live) in collection.live.iter().enumerate() {
            if live {
                let c = &mut counts[graph.group[s] as usize];
                c.0 += 1;
                c.1 += graph.shallow[s];
            }
        }
        if self.options.retained {
            for (c, r) in counts.iter_mut().zip(retained_sizes(&graph, groups, &collection.live)) {
                if c.0 > 0 {
                    c.2 = Some(r.1);
                }
            }
        }
        let maps = self.options.pointer_maps.then(|| pointer_maps(&graph, groups, &collection.live));
        let heap = HeapMetrics {
            reachable_bytes: Some(collection.used_after),
            used_before_gc: Some(collection.used_before),
            used_after_gc: Some(collection.used_after),
            gc_start_ms: Some(start),
            gc_end_ms: Some(end),
        };
        self.recorded.push(Recorded { gc_id: id, time_ms: end, counts, maps, heap });
        Ok(())
    }

    /// The history of every GC so far.
    pub fn history(&self) -> History {
        let snapshots = self.recorded.iter().map(|r| self.snapshot(r)).collect();
        History { format: FORMAT.into(), metric_names: MetricNames::default(), snapshots }
    }

    fn snapshot(&self, r: &Recorded) -> Snapshot {
        let keyed = |maps: &[std::collections::BTreeMap<u32, u64>]| -> PointerMap {
            maps.iter()
                .enumerate()
                .filter(|(_, m)| !m.is_empty())
                .map(|(g, m)| {
                    let inner = m.iter().map(|(&h, &n)| (self.grouper.leaf_key(h), n)).collect();
                    (self.grouper.leaf_key(g as u32), inner)
                })
                .collect()
        };
        Snapshot {
            time_ms: r.time_ms,
            gc_id: Some(r.gc_id),
            label: Some(format!("GC #{}", r.gc_id)),
            tree: self.grouper.tree(&r.counts),
            points_to: r.maps.as_ref().map(|m| keyed(&m.points_to)).unwrap_or_default(),
            pointed_from: r.maps.as_ref().map(|m| keyed(&m.pointed_from)).unwrap_or_default(),
            heap: Some(r.heap.clone()),
        }
    }
}

/// Replays a whole trace into a history; the first bad event stops it with its line number.
pub fn replay(trace: Trace, options: ReplayOptions, source_name: &str) -> Result<History, TraceError> {
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
    pub fn new(options: ReplayOptions, source_name: &str, unit: &'static str) -> Streaming {
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
}

impl OpSink for Streaming {
    fn strings(&mut self) -> &mut Strings {
        &mut self.replay.heap.strings
    }

    fn op(&mut self, line: usize, op: Op) -> Result<(), TraceError> {
        self.batch.push(op);
        self.lines.push(line);
        if self.batch.len() == BATCH { self.flush() } else { Ok(()) }
    }
}

#[cfg(test)]
mod tests;
