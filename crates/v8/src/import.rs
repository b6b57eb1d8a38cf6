//! A series of snapshots becomes a history: files read in parallel, every snapshot's nodes
//! grouped by one shared grouper (so keys agree across the series), snapshots in series order.
//! A bad file rejects the whole series.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::AtomicU64;

use memcity_heapgraph::{
    Classifier, GroupedHeap, Grouper, Grouping, InSeries, Progress, SeriesHeap, TreeSource,
    group_heap_owned_with_tree, history_of, reachable, two_fit_now,
};
use memcity_model::History;
use rayon::prelude::*;

use crate::error::V8Error;
use crate::graph::into_graph;
use crate::read::{ReadOptions, read};
use crate::source;

/// Districts by V8 node type (object, closure, string, native, …), buildings by constructor.
pub const DEFAULT_CLASSIFIERS: &str = "node-type,type";

/// Snapshots are grouped by [`DEFAULT_CLASSIFIERS`] by default.
pub fn default_grouping() -> Grouping {
    Grouping::new(vec![Classifier::NodeType, Classifier::Type])
}

/// Imports the snapshots named by `paths` (files, or folders of snapshots). `progress` hears
/// the bytes of the files on disk as they are read, and each phase after.
pub fn import(paths: &[PathBuf], options: &Grouping, progress: &dyn Progress) -> Result<History, V8Error> {
    let files = source::order(source::expand(paths)?);
    let sizes: Vec<u64> = files.iter().map(|(f, _)| f.metadata().map(|m| m.len()).unwrap_or(0)).collect();
    let total = sizes.iter().sum();
    let done = AtomicU64::new(0);
    let grouper = Mutex::new(Grouper::new(options.classifiers.clone()));
    let one = |((file, time_ms), &size): (&(PathBuf, u64), &u64)| {
        let heap = import_one(file, options, &grouper, &InSeries::new(progress, size, &done, total))?;
        let label =
            file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
        Ok(SeriesHeap { time_ms: *time_ms, label, heap, metrics: Default::default() })
    };
    // Each snapshot is analysed in parallel inside; two at once only when both fit the budget.
    let needs: Vec<Option<u64>> = files.iter().map(|(file, _)| estimated_memory(file)).collect();
    let heaps = if two_fit_now(&needs) {
        files.par_iter().zip(&sizes).map(one).collect::<Result<Vec<_>, V8Error>>()?
    } else {
        files.iter().zip(&sizes).map(one).collect::<Result<Vec<_>, V8Error>>()?
    };
    let grouper = grouper.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(history_of(&grouper, heaps))
}

/// About how much memory importing the snapshot at `path` takes; None where its size is
/// unknown (gzip) or it cannot be read.
pub fn estimated_memory(path: &Path) -> Option<u64> {
    memcity_heapgraph::estimated_memory(path, MEMORY_PER_SNAPSHOT_BYTE)
}

/// Bytes of tables per byte of a plain snapshot's text at the import's peak, with room to spare
/// (measured: 0.95 on a 781 MB Node snapshot, README).
const MEMORY_PER_SNAPSHOT_BYTE: u64 = 2;

/// Reads and groups one snapshot with the series' grouper; `progress` hears the bytes of the
/// file on disk as they are read, then each phase.
pub fn import_one(
    file: &Path,
    options: &Grouping,
    grouper: &Mutex<Grouper>,
    progress: &dyn Progress,
) -> Result<GroupedHeap, V8Error> {
    let name = file.display().to_string();
    let uses = memcity_heapgraph::FactUse::of(&options.classifiers);
    let size = file.metadata().map_or(0, |m| m.len());
    let (text, size_hint) = source::open(file, |now| progress.read(now, size))?;
    let read_options = ReadOptions { edge_names: uses.script, traces: uses.site, size_hint, labels: false };
    let raw =
        source::read_ahead(text, |text| read(text, read_options, &|_| {})).map_err(|f| f.in_file(&name))?;
    let (js, group_count) = {
        let mut grouper = grouper.lock().unwrap_or_else(|e| e.into_inner());
        let js = into_graph(raw, &mut grouper);
        (js, grouper.group_count())
    };
    // Groups other snapshots add meanwhile have no objects here.
    let live = reachable(&js.graph);
    let (heap, _) = group_heap_owned_with_tree(
        js.graph,
        TreeSource::Build,
        group_count,
        &live,
        &js.roots,
        &|_| None,
        &options.analysis,
        progress,
    );
    Ok(heap)
}

/// The exact GC closure `(objects, bytes)` of the leaf group `key` in one snapshot, grouped the
/// way `options` groups a series: what the app computes on demand for the selected building.
pub fn closure_of(file: &Path, options: &Grouping, key: &str) -> Result<(u64, u64), V8Error> {
    let name = file.display().to_string();
    let uses = memcity_heapgraph::FactUse::of(&options.classifiers);
    let (text, size_hint) = source::open(file, |_| {})?;
    let read_options = ReadOptions { edge_names: uses.script, traces: uses.site, size_hint, labels: false };
    let raw =
        source::read_ahead(text, |text| read(text, read_options, &|_| {})).map_err(|f| f.in_file(&name))?;
    let mut grouper = Grouper::new(options.classifiers.clone());
    let js = into_graph(raw, &mut grouper);
    let group = grouper
        .group_of_key(key)
        .ok_or_else(|| V8Error::new(&name, format!("no group has the key \"{key}\" in this snapshot")))?;
    let live = reachable(&js.graph);
    Ok(memcity_heapgraph::closure_size(&js.graph, &live, group))
}
