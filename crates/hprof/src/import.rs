//! A series of dumps becomes a history: files read one at a time, every dump's objects grouped by
//! one shared grouper (so keys agree across the series), snapshots ordered by the dumps' own
//! timestamps. A bad file rejects the whole series.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::AtomicU64;

use memcity_heapgraph::{
    Grouper, Grouping, InSeries, ObjectGroups, Phase, Progress, SeriesHeap, TypedHeap, group_heap_inspected,
    history_of, two_fit,
};
use memcity_model::History;
use rayon::prelude::*;

use crate::error::HprofError;
use crate::index::{KeptTree, analysed};
use crate::layout::Layout;
use crate::snapshot::{
    assign_leaves, assign_leaves_of, default_grouping, group_dump_with_tree, hold_with_tree,
};
use crate::source;
use crate::typed::object_table;

/// How dumps are read (the JVM's object layout) and grouped.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    pub layout: Layout,
    pub grouping: Grouping,
    /// How far gzipped dumps may inflate.
    pub inflation: crate::inflate::Inflation,
    /// The memory budget in bytes (`--memory`): two dumps of a series are read at once only
    /// when both fit in it.
    pub memory: u64,
    /// The folder of indexes for reopening dumps (`--index-dir`, or the user's cache);
    /// `None` reads every dump in full and writes no index ([`crate::index`]).
    pub index: Option<PathBuf>,
    /// Whether the history of an import is kept beside the indexes and read again by the next
    /// import of the same dumps with the same grouping ([`crate::index`]'s grouped history),
    /// and each dump's analysis by the next import whose grouping parts its objects alike
    /// (its kept analysis).
    pub keep_grouped: bool,
}

impl ImportOptions {
    /// How each dump is opened.
    pub fn opening(&self) -> crate::index::Opening {
        crate::index::Opening {
            layout: self.layout,
            inflation: self.inflation.clone(),
            index: self.index.clone(),
        }
    }
}

impl Default for ImportOptions {
    fn default() -> ImportOptions {
        ImportOptions {
            layout: Layout::default(),
            grouping: default_grouping(),
            inflation: Default::default(),
            memory: memcity_heapgraph::budget::default_budget().bytes,
            index: None,
            keep_grouped: true,
        }
    }
}

/// Imports the dumps named by `paths` (files, or folders of `.hprof`/`.hprof.gz` files).
/// `progress` hears the bytes of the files on disk as they are read, and each phase after.
pub fn import(
    paths: &[PathBuf],
    options: &ImportOptions,
    progress: &dyn Progress,
) -> Result<History, HprofError> {
    // The same dumps imported again with the same grouping: the history kept the last time.
    let files = source::expand(paths)?;
    let (index, layout, grouping) = (options.index.as_deref(), &options.layout, &options.grouping);
    let kept =
        options.keep_grouped.then(|| crate::index::grouped::place(&files, index, layout, grouping)).flatten();
    if let Some(history) =
        kept.as_deref().and_then(|place| crate::index::grouped::read(place, &files, progress))
    {
        return Ok(history);
    }
    let history = import_each(paths, options, progress, None::<&Inspect<()>>)?.0;
    if let Some(place) = kept {
        crate::index::grouped::keep(&place, &files, &history);
    }
    Ok(history)
}

/// What looks at each dump's single objects while it is imported: its typed heap (every
/// reference named; the graph's groups are the history's), and `retained`, which it calls
/// once: that groups the dump and hands back every object's retained bytes, so whatever the
/// inspection needs no sizes for can run meanwhile (`rayon::join`).
pub type Inspect<T> = dyn Fn(&TypedHeap, &(dyn Fn() -> Vec<u64> + Sync)) -> T + Sync;

/// [`import`], also handing every dump to `inspect` from the same read and dominator tree
/// (`memcity check` measures data structures this way); its answers come back in the
/// history's order of snapshots.
pub fn import_inspecting<T: Send>(
    paths: &[PathBuf],
    options: &ImportOptions,
    progress: &dyn Progress,
    inspect: &Inspect<T>,
) -> Result<(History, Vec<T>), HprofError> {
    let (history, seen) = import_each(paths, options, progress, Some(inspect))?;
    Ok((history, seen.into_iter().flatten().collect()))
}

fn import_each<T: Send>(
    paths: &[PathBuf],
    options: &ImportOptions,
    progress: &dyn Progress,
    inspect: Option<&Inspect<T>>,
) -> Result<(History, Vec<Option<T>>), HprofError> {
    let files = source::expand(paths)?;
    // A bad file is reported before the good ones are read.
    files.par_iter().try_for_each(|f| crate::precheck::precheck(f))?;
    let sizes: Vec<u64> = files.iter().map(|f| f.metadata().map(|m| m.len()).unwrap_or(0)).collect();
    let total = sizes.iter().sum();
    let done = AtomicU64::new(0);
    let grouper = Mutex::new(Grouper::new(options.grouping.classifiers.clone()));
    let one = |(file, &size): (&PathBuf, &u64)| {
        let in_series = InSeries::new(progress, size, &done, total);
        import_one(file, options, &grouper, &in_series, inspect)
    };
    // Each dump is read and analysed in parallel inside; two at once only when both fit.
    let needs: Vec<Option<u64>> = files.iter().map(|f| estimated_memory(f)).collect();
    let results: Vec<Result<(SeriesHeap, Option<T>), HprofError>> = if two_fit(&needs, options.memory) {
        files.par_iter().zip(&sizes).map(one).collect()
    } else {
        files.iter().zip(&sizes).map(one).collect()
    };
    let (heaps, mut seen): (Vec<SeriesHeap>, Vec<Option<T>>) =
        results.into_iter().collect::<Result<Vec<_>, _>>()?.into_iter().unzip();
    // The history's order: by time, stable (as `history_of` sorts).
    let mut order: Vec<usize> = (0..heaps.len()).collect();
    order.sort_by_key(|&i| heaps[i].time_ms);
    let seen = order.into_iter().map(|i| seen[i].take()).collect();
    let grouper = grouper.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok((history_of(&grouper, heaps), seen))
}

/// Bytes of tables per byte of an uncompressed dump at the import's peak, with room to spare
/// (measured: 1.5 on generated dumps, docs/hprof.md).
const MEMORY_PER_DUMP_BYTE: u64 = 2;

/// About how much memory reading the dump at `path` takes; None where its size is unknown
/// (gzip) or it cannot be read.
pub fn estimated_memory(path: &Path) -> Option<u64> {
    memcity_heapgraph::estimated_memory(path, MEMORY_PER_DUMP_BYTE)
}

/// Where the analysis of the dump at `file`, its objects in the leaf groups `group`, is kept
/// for the next grouping that parts them alike; `None` without an index or kept analyses.
fn analysed_place(
    file: &Path,
    options: &ImportOptions,
    group: &ObjectGroups,
    group_count: usize,
) -> Option<analysed::AnalysedPlace> {
    let index = options.index.as_deref().filter(|_| options.keep_grouped)?;
    analysed::place(file, Some(index), &options.layout, &options.grouping.analysis, group, group_count)
}

fn import_one<T>(
    file: &Path,
    options: &ImportOptions,
    grouper: &Mutex<Grouper>,
    progress: &dyn Progress,
    inspect: Option<&Inspect<T>>,
) -> Result<(SeriesHeap, Option<T>), HprofError> {
    let name = file.display().to_string();
    // Reference names only where someone reads them: they cost a table as long as the edges.
    let (opened, pending) =
        crate::index::open_dump_pending(file, &options.opening(), inspect.is_some(), progress)?;
    let (mut dump, labels) = (opened.dump, opened.labels);
    let classes = inspect.map(|_| dump.graph.group.keys().to_vec());
    let (mut roots, group_count) = {
        let mut grouper = grouper.lock().unwrap_or_else(|e| e.into_inner());
        let (graph, names, root_kinds) = (&mut dump.graph, &dump.classes.names, &dump.root_kinds);
        (assign_leaves_of(&mut graph.group, names, root_kinds, &mut grouper), grouper.group_count())
    };
    let label = file.file_name().map_or(name.clone(), |n| n.to_string_lossy().into_owned());
    // Groups other dumps add meanwhile have no objects here; the counts cover what exists now.
    // A grouping that parts the objects as an earlier one did reads that one's analysis, and
    // the kept tree is not even opened.
    let analysed = inspect.is_none().then(|| analysed_place(file, options, &dump.graph.group, group_count));
    let analysed = analysed.flatten();
    let size = file.metadata().map_or(0, |m| m.len());
    if let Some(heap) = analysed.as_ref().and_then(|place| analysed::read(place, size, group_count, progress))
    {
        let heap = SeriesHeap { time_ms: dump.timestamp_ms, label, heap, metrics: Default::default() };
        return Ok((heap, None));
    }
    let (kept, keep_at) = match pending {
        Some(pending) => pending.load(&dump.graph.shallow, progress),
        None => (None, opened.keep_tree),
    };
    let (Some(inspect), Some(classes)) = (inspect, classes) else {
        let analysis = &options.grouping.analysis;
        let heap = group_dump_with_tree(
            &mut dump,
            &mut roots,
            group_count,
            analysis,
            kept,
            keep_at.as_ref(),
            progress,
        );
        if let Some(place) = &analysed {
            analysed::keep(place, file, &heap);
        }
        let heap = SeriesHeap { time_ms: dump.timestamp_ms, label, heap, metrics: Default::default() };
        return Ok((heap, None));
    };
    // The graph is kept past grouping (the inspection follows its references), and the
    // dominator tree's retained sizes are handed on rather than built again; a kept tree is
    // read, a built one kept.
    let (held_by_vm, tree) = hold_with_tree(&mut dump, &mut roots, kept, keep_at.is_some());
    let live = vec![true; dump.graph.object_count()];
    let objects = object_table(&dump, classes.into(), labels.unwrap_or_default(), &roots);
    let typed = TypedHeap { graph: std::mem::take(&mut dump.graph), objects, tree: None };
    let grouped = Mutex::new(None);
    let tree = Mutex::new(Some(tree));
    let analysis = &options.grouping.analysis;
    // Called once: by the inspection asking for sizes, or afterwards.
    let group = |object_retained: bool| {
        let holder = |node| dump.holder_name(node);
        let tree = tree.lock().unwrap_or_else(|e| e.into_inner()).take().unwrap_or_default();
        let g = &typed.graph;
        let (heap, retained, built) = group_heap_inspected(
            g,
            tree,
            object_retained,
            group_count,
            &live,
            &roots,
            &holder,
            analysis,
            progress,
        );
        if let (Some(place), Some(tree)) = (&keep_at, built) {
            progress.phase(Phase::KeepingTree);
            crate::index::keep_tree(place, &KeptTree { held_by_vm: held_by_vm.clone(), tree });
        }
        (heap, retained)
    };
    let retained = || {
        let (heap, retained) = group(true);
        *grouped.lock().unwrap_or_else(|e| e.into_inner()) = Some(heap);
        retained
    };
    let seen = inspect(&typed, &retained);
    // An inspection that asked for no sizes: the dump is grouped all the same.
    let heap = grouped.into_inner().unwrap_or_else(|e| e.into_inner()).unwrap_or_else(|| group(false).0);
    Ok((SeriesHeap { time_ms: dump.timestamp_ms, label, heap, metrics: Default::default() }, Some(seen)))
}

/// The exact GC closure `(objects, bytes)` of the leaf group `key` in one dump, grouped the way
/// `options` groups a series: what the app computes on demand for the selected building.
pub fn closure_of(file: &Path, options: &ImportOptions, key: &str) -> Result<(u64, u64), HprofError> {
    let name = file.display().to_string();
    let mut dump = crate::index::open_dump(file, &options.opening(), false, &memcity_heapgraph::Silent)?.dump;
    let mut grouper = Grouper::new(options.grouping.classifiers.clone());
    let mut roots = assign_leaves(&mut dump, &mut grouper);
    crate::snapshot::hold_unreached(&mut dump, &mut roots);
    let group = grouper
        .group_of_key(key)
        .ok_or_else(|| HprofError::new(&name, format!("no group has the key \"{key}\" in this dump")))?;
    let live = vec![true; dump.graph.object_count()];
    Ok(memcity_heapgraph::retained::closure_size(&dump.graph, &live, group))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gzipped_dumps_memory_is_unknown() {
        let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/hprof");
        let gz = std::fs::read_dir(sample)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "gz"));
        assert_eq!(estimated_memory(&gz.unwrap()), None);
    }

    #[test]
    fn a_series_reads_the_same_one_or_two_at_a_time() {
        let dir = std::env::temp_dir().join(format!("memcity-series-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (i, entries) in [(0, 500), (1, 900)] {
            let spec = crate::generate::Spec {
                entries,
                timestamp_ms: 1_000 + i,
                ..crate::generate::Spec::for_objects(1_000)
            };
            crate::generate::write_file(&dir.join(format!("d{i}.hprof")), &spec).unwrap();
        }
        let paths = [dir.clone()];
        assert!(two_fit(
            &[estimated_memory(&dir.join("d0.hprof")), estimated_memory(&dir.join("d1.hprof"))],
            u64::MAX
        ));
        let small = ImportOptions { memory: 0, ..ImportOptions::default() };
        let large = ImportOptions { memory: u64::MAX, ..ImportOptions::default() };
        let one_at_a_time = import(&paths, &small, &memcity_heapgraph::Silent).unwrap();
        assert_eq!(one_at_a_time.snapshots.len(), 2);
        assert_eq!(one_at_a_time, import(&paths, &large, &memcity_heapgraph::Silent).unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_inspected_import_is_the_import_and_sees_every_dump_typed_in_its_order() {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/hprof");
        let paths = [folder];
        let options = ImportOptions::default();
        let plain = import(&paths, &options, &memcity_heapgraph::Silent).unwrap();
        let inspect = |heap: &TypedHeap, retained: &(dyn Fn() -> Vec<u64> + Sync)| {
            let sizes = retained();
            let cache = heap.objects.root_names.iter().find(|(_, n)| n == "class LeakApp").map(|(o, _)| *o);
            let named = heap.objects.labels.of_edge.len() == heap.graph.edges.len();
            (heap.graph.shallow.iter().sum::<u64>(), sizes.len() == heap.graph.object_count(), cache, named)
        };
        let (history, seen) =
            import_inspecting(&paths, &options, &memcity_heapgraph::Silent, &inspect).unwrap();
        assert_eq!(history, plain, "the same history with or without an inspection");
        assert_eq!(seen.len(), history.snapshots.len());
        for (snapshot, (bytes, sized, class, named)) in history.snapshots.iter().zip(seen) {
            let reachable = snapshot.heap.as_ref().and_then(|h| h.reachable_bytes);
            assert_eq!(Some(bytes), reachable, "in the history's order");
            assert!(sized && named && class.is_some());
        }
    }
}
