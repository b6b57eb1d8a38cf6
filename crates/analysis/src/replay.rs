//! Trace replay: applies events to the heap; at each `gc` collects garbage and records a
//! snapshot (grouping counts, pointer maps, retained sizes, heap metrics). The history is built
//! at the end, when every group that will ever exist is known.

use memcity_heapgraph::{PointerMaps, pointer_maps, retained_sizes};
use memcity_model::{FORMAT, HeapMetrics, History, MetricNames, PointerMap, Snapshot};

use crate::classify::Classifier;
use crate::group::{Counts, Grouper};
use crate::heap::Heap;
use crate::trace::{Event, Op, Strings, Trace, TraceError};

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

    pub fn apply(&mut self, event: &Event) -> Result<(), String> {
        match *event {
            Event::Gc { id, start, end } => self.gc(id, start, end),
            _ => self.heap.apply(event),
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
    let unit = trace.unit;
    let error = |line, message| TraceError { source_name: source_name.into(), unit, line, message };
    let mut replay = Replay::with_strings(options, trace.strings);
    replay.apply_ops(&trace.ops).map_err(|(i, m)| error(trace.lines[i], m))?;
    if replay.recorded.is_empty() {
        let last = trace.lines.last().copied().unwrap_or(0);
        return Err(error(last, "the trace has no gc event, so there is no snapshot".into()));
    }
    Ok(replay.history())
}

#[cfg(test)]
mod tests;
