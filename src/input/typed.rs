//! Typed heaps (every object with its type, site, identity and reference names) of any input
//! that carries objects, for the analyses of single objects: the two ends of a window for
//! `memcity structures`, every snapshot, one at a time, for the data-structure city.

use std::path::{Path, PathBuf};

use anyhow::Result;
use memcity_analysis::replay::Streaming;
use memcity_analysis::trace::{Op, OpSink, Strings, Trace, TraceError};
use memcity_heapgraph::{AnalysisOptions, Grouping, Retained, TypedSnapshot};
use memcity_hprof::Layout;

use super::{
    is_binary_trace_file, is_heap_dumps, is_heap_files, is_snapshots, is_trace, read_trace_file,
    read_trace_file_into, unit,
};

/// Which snapshots of a series to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Snapshots {
    /// The two ends of a window (one where they are the same), `None` meaning the first or
    /// the last.
    Window {
        from: Option<usize>,
        to: Option<usize>,
    },
    All,
    /// Every snapshot from this index on (a live input's new ones).
    From(usize),
}

/// Handed each typed heap in the series' order; an error stops the reading.
pub type Visit<'a> = dyn FnMut(TypedSnapshot) -> Result<()> + 'a;

/// The typed heaps at two GC points of an input, for the analyses of single objects (data
/// structures). `from` and `to` default to the first and the last GC. Traces and scenarios
/// are replayed to the later point.
pub fn typed_heaps(specs: &[String], from: Option<usize>, to: Option<usize>) -> Result<Vec<TypedSnapshot>> {
    let mut heaps = Vec::new();
    each_typed_heap(specs, Snapshots::Window { from, to }, &Layout::default(), &mut |s| {
        heaps.push(s);
        Ok(())
    })?;
    Ok(heaps)
}

/// Reads the typed heaps `which` of `specs` — a scenario, a trace, HPROF dumps (`layout` sizes
/// their objects), V8 heap snapshots or heap files — in the series' order, handing each to
/// `visit` before the next is read, so no more than one is held at a time.
pub fn each_typed_heap(specs: &[String], which: Snapshots, layout: &Layout, visit: &mut Visit) -> Result<()> {
    if let Snapshots::From(first) = which {
        // A replay goes through the earlier GCs anyway; dumps and files skip them unread.
        let mut later = |s: TypedSnapshot| if s.index < first { Ok(()) } else { visit(s) };
        return each_typed_heap_of(specs, which, layout, &mut later);
    }
    each_typed_heap_of(specs, which, layout, visit)
}

/// Whether `specs` carry single objects (what [`each_typed_heap`] reads): a scenario, a trace,
/// or heap dumps, V8 heap snapshots or heap files, all of one kind.
pub fn carries_objects(specs: &[String]) -> bool {
    let all = |check: fn(&Path) -> bool| !specs.is_empty() && specs.iter().all(|s| check(Path::new(s)));
    let replayed = matches!(specs, [spec] if spec.starts_with("scenario:") || is_trace(Path::new(spec)));
    replayed || all(is_heap_dumps) || all(memcity_v8::is_snapshots) || all(memcity_heapfile::is_heap_input)
}

fn each_typed_heap_of(specs: &[String], which: Snapshots, layout: &Layout, visit: &mut Visit) -> Result<()> {
    let all = |check: fn(&Path) -> bool| !specs.is_empty() && specs.iter().all(|s| check(Path::new(s)));
    // What a missing path would be cannot be told by its content.
    if let Some(missing) = specs.iter().find(|s| !s.starts_with("scenario:") && !Path::new(s).exists()) {
        anyhow::bail!("{missing}: no such file or folder");
    }
    match specs {
        [spec] if spec.starts_with("scenario:") => {
            let scenario = super::scenario_named(&spec["scenario:".len()..])?;
            let trace = Trace::from_events(scenario.trace(&memcity_analysis::scenarios::Params::default()));
            trace_heaps(trace, spec, which, visit)
        }
        [spec] if is_trace(Path::new(spec)) => match which {
            Snapshots::All | Snapshots::From(_) => trace_file_heaps(Path::new(spec), visit),
            Snapshots::Window { .. } => trace_heaps(read_trace_file(Path::new(spec))?, spec, which, visit),
        },
        _ if all(is_heap_dumps) => dump_heaps(specs, which, layout, visit),
        _ if all(is_snapshots) => snapshot_heaps(specs, which, visit),
        _ if all(is_heap_files) => heap_file_heaps(specs, which, visit),
        [spec, ..] if specs.iter().any(|s| is_empty_folder(Path::new(s))) => {
            let empty = specs.iter().find(|s| is_empty_folder(Path::new(s))).unwrap_or(spec);
            anyhow::bail!("{empty}: the folder is empty: no heap dump, heap snapshot or heap file in it")
        }
        [spec, ..] => anyhow::bail!(
            "{spec}: single objects (what data structures and ownership are found in) are read from \
             traces, scenarios, HPROF heap dumps, V8 heap snapshots and heap files (.mcheap) only; \
             this input carries groups, not objects"
        ),
        [] => anyhow::bail!("no input given"),
    }
}

fn is_empty_folder(path: &Path) -> bool {
    std::fs::read_dir(path).is_ok_and(|mut entries| entries.next().is_none())
}

/// The replay that hands out typed heaps: it groups nothing itself.
fn streaming(source: &str, unit: &'static str) -> Streaming {
    let analysis = AnalysisOptions { pointer_maps: false, retained: Retained::None, retainer_paths: false };
    Streaming::new(Grouping { classifiers: Vec::new(), analysis }, source, unit)
}

/// The typed heaps of a trace in memory (a scenario's, or a file read whole for a window,
/// whose GCs are counted first).
pub fn trace_heaps(trace: Trace, source: &str, which: Snapshots, visit: &mut Visit) -> Result<()> {
    let gcs = trace.ops.iter().filter(|op| matches!(op, Op::Gc { .. })).count();
    if gcs == 0 {
        anyhow::bail!("{source}: the trace has no GC, so there is no heap to look at");
    }
    let Snapshots::Window { from, to } = which else {
        let mut sink =
            EachGc { streaming: streaming(source, trace.unit).keep_every_typed_heap(), visit, failed: None };
        *sink.strings() = trace.strings;
        for (op, line) in trace.ops.into_iter().zip(trace.lines) {
            sink.op(line, op).map_err(|e| sink.failure(e))?;
        }
        return sink.finish();
    };
    let (from, to) = window(from, to, gcs, "GCs")?;
    let mut streaming = streaming(source, trace.unit).keep_typed_heaps_at(vec![from, to]);
    *streaming.strings() = trace.strings;
    for (op, line) in trace.ops.into_iter().zip(trace.lines) {
        streaming.op(line, op)?;
    }
    streaming.finish_typed()?.into_iter().try_for_each(visit)
}

/// Every typed heap of a trace file (JSON Lines or binary, whatever its name), replayed while
/// the file is read.
pub fn trace_file_heaps(path: &Path, visit: &mut Visit) -> Result<()> {
    crate::cli::paths::check_input(path)?;
    let binary = is_binary_trace_file(path)?;
    let streaming = streaming(&path.display().to_string(), unit(binary)).keep_every_typed_heap();
    let mut sink = EachGc { streaming, visit, failed: None };
    if let Err(e) = read_trace_file_into(path, binary, &mut sink) {
        return Err(sink.failed.take().unwrap_or(e));
    }
    sink.finish()
}

/// Replays ops and hands each GC's typed heap on as soon as it is taken.
struct EachGc<'v, 'a> {
    streaming: Streaming,
    visit: &'v mut Visit<'a>,
    /// What `visit` failed with: the replay only stops with a trace error, this is the cause.
    failed: Option<anyhow::Error>,
}

impl EachGc<'_, '_> {
    fn hand_on(&mut self) -> Result<()> {
        for heap in self.streaming.take_typed() {
            (self.visit)(heap)?;
        }
        Ok(())
    }

    /// Why the replay stopped: `visit`'s error, or the trace's own.
    fn failure(&mut self, e: TraceError) -> anyhow::Error {
        self.failed.take().unwrap_or_else(|| e.into())
    }

    fn finish(self) -> Result<()> {
        let EachGc { streaming, visit, .. } = self;
        for heap in streaming.finish_typed()? {
            visit(heap)?;
        }
        Ok(())
    }
}

impl OpSink for EachGc<'_, '_> {
    fn strings(&mut self) -> &mut Strings {
        self.streaming.strings()
    }

    fn op(&mut self, line: usize, op: Op) -> Result<(), TraceError> {
        self.streaming.op(line, op)?;
        self.hand_on().map_err(|e| {
            let stop =
                TraceError { source_name: String::new(), unit: "line", line, message: format!("{e:#}") };
            self.failed = Some(e);
            stop
        })
    }
}

/// `--from`/`--to` checked against a series of `count` snapshots (`what`: "GCs", "dumps").
pub(super) fn window(
    from: Option<usize>,
    to: Option<usize>,
    count: usize,
    what: &str,
) -> Result<(usize, usize)> {
    let (from, to) = (from.unwrap_or(0), to.unwrap_or(count.saturating_sub(1)));
    for (flag, index) in [("--from", from), ("--to", to)] {
        if index >= count {
            anyhow::bail!("{flag} {index}: the input has {count} {what} (0..{})", count.saturating_sub(1));
        }
    }
    if from > to {
        anyhow::bail!("--from {from} is after --to {to}");
    }
    Ok((from, to))
}

/// The indices `which` picks from a series of `count` snapshots.
fn picked(which: Snapshots, count: usize, what: &str) -> Result<Vec<usize>> {
    Ok(match which {
        Snapshots::All => (0..count).collect(),
        Snapshots::From(first) => (first..count).collect(),
        Snapshots::Window { from, to } => match window(from, to, count, what)? {
            (from, to) if from == to => vec![from],
            (from, to) => vec![from, to],
        },
    })
}

/// A file's name, as the imports label its snapshot.
pub(super) fn file_name(file: &Path) -> String {
    file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// Dumps, ordered by the dumps' own time as the import orders them (read from each header
/// alone).
fn dump_heaps(specs: &[String], which: Snapshots, layout: &Layout, visit: &mut Visit) -> Result<()> {
    let timed = ordered_dumps(specs)?;
    for index in picked(which, timed.len(), "dumps")? {
        let file = &timed[index];
        let dump = memcity_hprof::typed_heap(file, layout, super::index_dir().as_deref())?;
        visit(TypedSnapshot {
            index,
            time_ms: dump.timestamp_ms,
            reachable_bytes: dump.reachable_bytes,
            label: file_name(file),
            metrics: Default::default(),
            heap: dump.heap,
        })?;
    }
    Ok(())
}

/// The dump files of `specs` in the order of their own time stamps (read from each header).
pub(super) fn ordered_dumps(specs: &[String]) -> Result<Vec<PathBuf>> {
    let files = memcity_hprof::source::expand(&super::dump_paths(specs)?)?;
    let mut timed = Vec::with_capacity(files.len());
    for file in files {
        timed.push((memcity_hprof::dump_time(&file)?, file));
    }
    timed.sort_by_key(|(time, _)| *time);
    Ok(timed.into_iter().map(|(_, file)| file).collect())
}

/// V8 heap snapshots, in the import's order.
fn snapshot_heaps(specs: &[String], which: Snapshots, visit: &mut Visit) -> Result<()> {
    let paths: Vec<PathBuf> = specs.iter().map(PathBuf::from).collect();
    let files = memcity_v8::source::order(memcity_v8::source::expand(&paths)?);
    for index in picked(which, files.len(), "heap snapshots")? {
        let (file, time_ms) = &files[index];
        visit(v8_snapshot(index, file, *time_ms, memcity_v8::typed_heap(file)?))?;
    }
    Ok(())
}

/// Snapshot `index` of a V8 series, read from `file` taken at `time_ms`.
pub(super) fn v8_snapshot(
    index: usize,
    file: &Path,
    time_ms: u64,
    typed: memcity_v8::TypedSnapshot,
) -> TypedSnapshot {
    TypedSnapshot {
        index,
        time_ms,
        reachable_bytes: typed.reachable_bytes,
        label: file_name(file),
        metrics: Default::default(),
        heap: typed.heap,
    }
}

/// Heap files, in the import's order (by the probe's clock, files of equal times as named),
/// read from each file's META alone. Objects are matched by address only where all files come
/// from one process.
fn heap_file_heaps(specs: &[String], which: Snapshots, visit: &mut Visit) -> Result<()> {
    let timed = ordered_heap_files(specs)?;
    let picked = picked(which, timed.len(), "heap files")?;
    // Two processes: an address in one says nothing of the other's objects.
    let one_process = picked.iter().all(|&i| timed[i].1 == timed[picked[0]].1);
    for index in picked {
        let (mut snapshot, _) = heap_file_snapshot(index, &timed[index].2)?;
        snapshot.heap.objects.identity_stable &= one_process;
        visit(snapshot)?;
    }
    Ok(())
}

/// The heap files of `specs` in the import's order: each one's time, process and path.
pub(super) fn ordered_heap_files(specs: &[String]) -> Result<Vec<(u64, Option<u64>, PathBuf)>> {
    let paths: Vec<PathBuf> = specs.iter().map(PathBuf::from).collect();
    let files = memcity_heapfile::snapshot_files(&paths)?;
    let mut timed = Vec::with_capacity(files.len());
    for file in files {
        let meta = memcity_heapfile::read_meta(&file)?;
        timed.push((meta.time_ms, meta.pid, file));
    }
    timed.sort_by_key(|(time, _, _)| *time);
    Ok(timed)
}

/// Heap file `index` of a series as a snapshot, and its atoms' values.
pub(super) fn heap_file_snapshot(
    index: usize,
    file: &Path,
) -> Result<(TypedSnapshot, memcity_heapfile::ValueTable)> {
    let typed = memcity_heapfile::typed_heap(file)?;
    let snapshot = TypedSnapshot {
        index,
        time_ms: typed.meta.time_ms,
        reachable_bytes: typed.reachable_bytes,
        label: memcity_heapfile::snapshot_label(&memcity_heapfile::label(file), &typed.meta),
        metrics: memcity_heapfile::snapshot_metrics(&typed.meta),
        heap: typed.heap,
    };
    Ok((snapshot, typed.values))
}
