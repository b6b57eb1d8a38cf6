//! A series of dumps becomes a history: files read in parallel, every dump's objects grouped by
//! one shared grouper (so keys agree across the series), snapshots ordered by the dumps' own
//! timestamps. A bad file rejects the whole series.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use memcity_heapgraph::{Grouper, Grouping, SeriesHeap, history_of};
use memcity_model::History;
use rayon::prelude::*;

use crate::error::HprofError;
use crate::layout::Layout;
use crate::snapshot::{assign_leaves, default_grouping, group_dump};
use crate::source;

/// How dumps are read (the JVM's object layout) and grouped.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    pub layout: Layout,
    pub grouping: Grouping,
    /// How far gzipped dumps may inflate.
    pub inflation: crate::inflate::Inflation,
}

impl Default for ImportOptions {
    fn default() -> ImportOptions {
        ImportOptions {
            layout: Layout::default(),
            grouping: default_grouping(),
            inflation: Default::default(),
        }
    }
}

/// Imports the dumps named by `paths` (files, or folders of `.hprof`/`.hprof.gz` files).
/// `progress(done, total)` reports bytes of the files on disk.
pub fn import(
    paths: &[PathBuf],
    options: &ImportOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<History, HprofError> {
    let files = source::expand(paths)?;
    // A bad file is reported before the good ones are read.
    files.par_iter().try_for_each(|f| crate::precheck::precheck(f))?;
    let sizes: Vec<u64> = files.iter().map(|f| f.metadata().map(|m| m.len()).unwrap_or(0)).collect();
    let total = sizes.iter().sum();
    let done = AtomicU64::new(0);
    let grouper = Mutex::new(Grouper::new(options.grouping.classifiers.clone()));
    let results: Vec<Result<SeriesHeap, HprofError>> = files
        .par_iter()
        .zip(&sizes)
        .map(|(file, &size)| {
            let reported = AtomicU64::new(0);
            // Pass 1 reports positions in the decompressed bytes; scale them to the file's size.
            let on_bytes = |pos: u64, len: u64| {
                let now = if len == 0 { size } else { (pos as u128 * size as u128 / len as u128) as u64 };
                let before = reported.swap(now, Ordering::Relaxed);
                let sum = done.fetch_add(now.saturating_sub(before), Ordering::Relaxed)
                    + now.saturating_sub(before);
                progress(sum, total);
            };
            import_one(file, options, &grouper, &on_bytes)
        })
        .collect();
    let heaps = results.into_iter().collect::<Result<Vec<_>, _>>()?;
    let grouper = grouper.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(history_of(&grouper, heaps))
}

fn import_one(
    file: &Path,
    options: &ImportOptions,
    grouper: &Mutex<Grouper>,
    progress: &dyn Fn(u64, u64),
) -> Result<SeriesHeap, HprofError> {
    let name = file.display().to_string();
    let bytes = source::open_within(file, &options.inflation)?;
    let len = bytes.len() as u64;
    let mut dump = crate::read_dump_bytes(&bytes, &name, &options.layout, &|pos| progress(pos, len))?;
    drop(bytes);
    let (mut roots, group_count) = {
        let mut grouper = grouper.lock().unwrap_or_else(|e| e.into_inner());
        (assign_leaves(&mut dump, &mut grouper), grouper.group_count())
    };
    // Groups other dumps add meanwhile have no objects here; the counts cover what exists now.
    let heap = group_dump(&mut dump, &mut roots, group_count, &options.grouping.analysis);
    let label = file.file_name().map_or(name.clone(), |n| n.to_string_lossy().into_owned());
    Ok(SeriesHeap { time_ms: dump.timestamp_ms, label, heap, metrics: Default::default() })
}

/// The exact GC closure `(objects, bytes)` of the leaf group `key` in one dump, grouped the way
/// `options` groups a series: what the app computes on demand for the selected building.
pub fn closure_of(file: &Path, options: &ImportOptions, key: &str) -> Result<(u64, u64), HprofError> {
    let name = file.display().to_string();
    let bytes = source::open_within(file, &options.inflation)?;
    let mut dump = crate::read_dump_bytes(&bytes, &name, &options.layout, &|_| {})?;
    drop(bytes);
    let mut grouper = Grouper::new(options.grouping.classifiers.clone());
    let mut roots = assign_leaves(&mut dump, &mut grouper);
    crate::snapshot::hold_unreached(&mut dump, &mut roots);
    let group = grouper
        .group_of_key(key)
        .ok_or_else(|| HprofError::new(&name, format!("no group has the key \"{key}\" in this dump")))?;
    let live = vec![true; dump.graph.object_count()];
    Ok(memcity_heapgraph::retained::closure_size(&dump.graph, &live, group))
}
