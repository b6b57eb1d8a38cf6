//! A series of heap files becomes a history through the one heap pipeline: every file's objects
//! get leaf groups from one shared grouper (type name, allocation site and root kinds are what a
//! file knows of an object), then counts, pointer maps, retained sizes and retainer paths per
//! group; snapshots are ordered by the probe's clock.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use memcity_heapgraph::{
    AnalysisOptions, Classifier, Grouper, Grouping, HeapGraph, LeafMemo, ObjectFacts, RootSet, SeriesHeap,
    Table, closure_size, group_heap_owned, history_of, reachable, root_sets, two_fit_now,
};
use memcity_model::{HeapMetrics, History};
use rayon::prelude::*;

use crate::error::HeapFileError;
use crate::format::{
    EXTENSION, HEADER_LEN, HeapFile, Meta, NO_SITE, OLDEST_VERSION, SECTION_HEADER_LEN, VERSION,
};

/// Heap files are grouped by module, then type, then allocation site, by default.
pub fn default_grouping() -> Grouping {
    Grouping::new(vec![Classifier::Package, Classifier::Type, Classifier::AllocationSite { depth: 1 }])
}

/// Reads and checks one heap file.
pub fn read_file(path: &Path) -> Result<HeapFile, HeapFileError> {
    let name = path.display().to_string();
    // A FIFO or device would block or never end.
    let metadata = std::fs::metadata(path).map_err(|e| HeapFileError::io(&name, e))?;
    if !metadata.is_file() {
        return Err(HeapFileError::io(&name, "not a regular file"));
    }
    // Mapped, not read: the file's pages are the page cache's, which the kernel may drop and
    // read again under a memory limit, where a copy would count in full. The probe writes
    // each file under another name and renames it, so none shrinks while it is mapped.
    let file = std::fs::File::open(path).map_err(|e| HeapFileError::io(&name, e))?;
    if metadata.len() == 0 {
        return crate::parse(&[], &name);
    }
    // SAFETY: a read-only private map; a file truncated meanwhile would fault, as for dumps.
    let bytes = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| HeapFileError::io(&name, e))?;
    crate::parse(&bytes, &name)
}

/// A heap file's META alone (when and by what it was taken), without reading its heap: the
/// other sections are skipped by their lengths, so a series is put in order cheaply. The heap is
/// checked when the file is read whole.
pub fn read_meta(path: &Path) -> Result<Meta, HeapFileError> {
    use std::io::{Read, Seek, SeekFrom};
    let name = path.display().to_string();
    let metadata = std::fs::metadata(path).map_err(|e| HeapFileError::io(&name, e))?;
    if !metadata.is_file() {
        return Err(HeapFileError::io(&name, "not a regular file"));
    }
    let size = metadata.len();
    let mut file = std::fs::File::open(path).map_err(|e| HeapFileError::io(&name, e))?;
    let fault =
        |offset: u64, message: String| HeapFileError::Malformed { file: name.clone(), offset, message };
    let mut header = [0u8; HEADER_LEN];
    if file.read_exact(&mut header).is_err() {
        // Too short or not a heap file at all: the whole reader says which, and where.
        return read_file(path).map(|f| f.meta);
    }
    if !crate::has_magic(&header) {
        return Err(fault(0, "not a memcity heap file (no MEMCITYH magic)".into()));
    }
    let version = u32::from_le_bytes(header[8..12].try_into().expect("4 bytes"));
    if !(OLDEST_VERSION..=VERSION).contains(&version) {
        return Err(HeapFileError::Version { file: name.clone(), offset: 8, version });
    }
    let mut pos = HEADER_LEN as u64;
    loop {
        let mut section = [0u8; SECTION_HEADER_LEN];
        file.read_exact(&mut section).map_err(|_| fault(pos, "truncated: no META section".into()))?;
        let len = u64::from_le_bytes(section[8..16].try_into().expect("8 bytes"));
        let payload_at = pos + SECTION_HEADER_LEN as u64;
        if len > size.saturating_sub(payload_at) {
            return Err(fault(
                pos + 8,
                format!(
                    "truncated: the {} section announces {len} bytes, the file has {} more",
                    String::from_utf8_lossy(&section[..4]),
                    size.saturating_sub(payload_at)
                ),
            ));
        }
        match &section[..4] {
            b"META" => {
                let mut payload = vec![0u8; len as usize];
                file.read_exact(&mut payload).map_err(|e| HeapFileError::io(&name, e))?;
                let crc = u32::from_le_bytes(section[4..8].try_into().expect("4 bytes"));
                if crc32fast::hash(&payload) != crc {
                    return Err(fault(pos + 4, "the META section is corrupted (CRC-32 mismatch)".into()));
                }
                return serde_json::from_slice::<Meta>(&payload).map_err(|e| {
                    fault(payload_at, format!("META is not a JSON object with a whole time_ms: {e}"))
                });
            }
            b"END." => return Err(fault(pos, "no META section before END.".into())),
            _ => {
                file.seek(SeekFrom::Start(payload_at + len)).map_err(|e| HeapFileError::io(&name, e))?;
                pos = payload_at + len;
            }
        }
    }
}

/// Whether a folder entry is a finished snapshot (probes write `.NAME.tmp` first, then rename):
/// a `.mcheap` name, or a heap file's magic whatever the name ([`memcity_formats`] decides).
fn is_snapshot_name(path: &Path) -> bool {
    let hidden = path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
    let by_name = path.extension().is_some_and(|e| e == EXTENSION);
    let by_content = || {
        path.is_file()
            && memcity_formats::recognize_file(path).is_ok_and(|i| i.kind == memcity_formats::Kind::HeapFile)
    };
    !hidden && (by_name || by_content())
}

/// A heap file (by its magic) or a folder holding `.mcheap` files.
pub fn is_heap_input(path: &Path) -> bool {
    if path.is_dir() {
        let entries = std::fs::read_dir(path).into_iter().flatten().flatten();
        return entries.into_iter().any(|e| is_snapshot_name(&e.path()));
    }
    // Only regular files are sniffed: opening a FIFO would block.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut head = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| crate::has_magic(&head))
}

/// The snapshot files named by `paths`: files as given, folders as their `.mcheap` files in name
/// order (partial files of a probe still writing are left out).
pub fn snapshot_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, HeapFileError> {
    let mut files = Vec::new();
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let name = path.display().to_string();
        let entries = std::fs::read_dir(path).map_err(|e| HeapFileError::io(&name, e))?;
        let mut found: Vec<PathBuf> =
            entries.flatten().map(|e| e.path()).filter(|p| is_snapshot_name(p)).collect();
        if found.is_empty() {
            return Err(HeapFileError::io(&name, format!("no .{EXTENSION} snapshot files in this folder")));
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

/// Bytes of tables per byte of a heap file at the import's peak, with room to spare (the
/// file's columns, read from its mapped pages, and the pipeline's tables beside them).
const MEMORY_PER_FILE_BYTE: u64 = 2;

/// About how much memory importing the heap file at `path` takes; None where it cannot be read.
pub fn estimated_memory(path: &Path) -> Option<u64> {
    memcity_heapgraph::estimated_memory(path, MEMORY_PER_FILE_BYTE)
}

/// Imports the heap files named by `paths` (files, or folders of `.mcheap` files), one snapshot
/// per file. A bad file rejects the whole series.
pub fn import(paths: &[PathBuf], options: &Grouping) -> Result<History, HeapFileError> {
    let files = snapshot_files(paths)?;
    let grouper = Mutex::new(Grouper::new(options.classifiers.clone()));
    let one = |path: &PathBuf| Ok(series_heap(read_file(path)?, &label(path), &grouper, &options.analysis));
    // Each file is analysed in parallel inside; two at once only when both fit the budget.
    let needs: Vec<Option<u64>> = files.iter().map(|f| estimated_memory(f)).collect();
    let heaps = if two_fit_now(&needs) {
        files.par_iter().map(one).collect::<Result<Vec<_>, HeapFileError>>()?
    } else {
        files.iter().map(one).collect::<Result<Vec<_>, HeapFileError>>()?
    };
    let grouper = grouper.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(history_of(&grouper, heaps))
}

/// The exact GC closure `(objects, bytes)` of the leaf group `key` in one heap file, grouped
/// the way `options` groups a series: what the app computes on demand for the selected building.
pub fn closure_of(path: &Path, options: &Grouping, key: &str) -> Result<(u64, u64), HeapFileError> {
    let file = read_file(path)?;
    let mut grouper = Grouper::new(options.classifiers.clone());
    let (graph, _) = heap_graph(&file, &mut grouper);
    let group = grouper
        .group_of_key(key)
        .ok_or_else(|| HeapFileError::NoGroup { file: path.display().to_string(), key: key.into() })?;
    Ok(closure_size(&graph, &reachable(&graph), group))
}

/// Whether a snapshot's label names the heap file `path` (labels add the trigger and cost).
pub fn labels_file(label: &str, path: &Path) -> bool {
    let stem = self::label(path);
    label == stem || label.strip_prefix(&stem).is_some_and(|rest| rest.starts_with(" ("))
}

/// A heap file's name without its extension: how its snapshot's label starts.
pub fn label(path: &Path) -> String {
    path.file_stem().map_or_else(|| path.display().to_string(), |s| s.to_string_lossy().into_owned())
}

/// One file through the pipeline; the grouper is locked only while leaves are assigned. The
/// file's columns move into the graph.
pub(crate) fn series_heap(
    file: HeapFile,
    label: &str,
    grouper: &Mutex<Grouper>,
    analysis: &AnalysisOptions,
) -> SeriesHeap {
    let (label, metrics, time_ms) =
        (snapshot_label(label, &file.meta), snapshot_metrics(&file.meta), file.meta.time_ms);
    let (graph, roots, group_count) = {
        let mut grouper = grouper.lock().unwrap_or_else(|e| e.into_inner());
        let (graph, roots) = into_heap_graph(file, &mut grouper);
        (graph, roots, grouper.group_count())
    };
    let live = reachable(&graph);
    let heap = group_heap_owned(graph, group_count, &live, &roots, &|_| None, analysis);
    SeriesHeap { time_ms, label, heap, metrics }
}

/// What a history calls the snapshot of the heap file labelled `label` (its name without the
/// extension): the label, with the probe's trigger and cost where META has them.
pub fn snapshot_label(label: &str, meta: &Meta) -> String {
    let mut label = label.to_string();
    match (&meta.trigger, meta.cost_ms) {
        (Some(trigger), Some(ms)) => label.push_str(&format!(" ({trigger}; cost {ms:.0} ms)")),
        (None, Some(ms)) => label.push_str(&format!(" (cost {ms:.0} ms)")),
        (Some(trigger), None) => label.push_str(&format!(" ({trigger})")),
        (None, None) => {}
    }
    label
}

/// What a heap file's META measured besides the reachable bytes.
pub fn snapshot_metrics(meta: &Meta) -> HeapMetrics {
    HeapMetrics { used_after_gc: meta.traced_bytes, ..HeapMetrics::default() }
}

/// The file's heap as a graph whose objects carry their leaf groups, and each object's roots.
pub fn heap_graph(file: &HeapFile, grouper: &mut Grouper) -> (HeapGraph, Vec<RootSet>) {
    let (group, roots) = leaves(file, grouper);
    let graph = HeapGraph {
        group: group.into(),
        shallow: file.size.clone(),
        edge_start: file.edge_start.clone(),
        edges: file.edges.clone(),
        roots: file.roots.iter().map(|&(o, _)| o).collect(),
    };
    (graph, roots)
}

/// [`heap_graph`], the file's columns moved into the graph rather than copied.
pub fn into_heap_graph(mut file: HeapFile, grouper: &mut Grouper) -> (HeapGraph, Vec<RootSet>) {
    let (group, roots) = leaves(&file, grouper);
    let graph = HeapGraph {
        group: group.into(),
        shallow: std::mem::take(&mut file.size),
        edge_start: std::mem::take(&mut file.edge_start),
        edges: std::mem::take(&mut file.edges),
        roots: file.roots.iter().map(|&(o, _)| o).collect(),
    };
    (graph, roots)
}

/// Every object's leaf group of `grouper`, and its roots.
fn leaves(file: &HeapFile, grouper: &mut Grouper) -> (Table<u32>, Vec<RootSet>) {
    let n = file.object_count();
    let roots = root_sets(n, file.roots.iter().copied());
    let uses = grouper.uses();
    // Each site's frames as text, built once per site.
    let sites: Vec<Vec<String>> = if uses.site {
        file.sites.iter().map(|f| f.iter().map(|&s| file.strings[s as usize].clone()).collect()).collect()
    } else {
        Vec::new()
    };
    let mut memo = LeafMemo::default();
    let mut group = Table::with_capacity(n);
    for (o, &rooted) in roots.iter().enumerate() {
        let ty = file.types[o];
        let site = if uses.site { file.site[o] } else { NO_SITE };
        let rooted = if uses.roots { rooted } else { RootSet::NONE };
        group.push(memo.leaf(grouper, (ty, site, rooted), || ObjectFacts {
            type_name: &file.strings[ty as usize],
            site: sites.get(site as usize).map_or(&[], Vec::as_slice),
            roots: rooted,
            ..ObjectFacts::default()
        }));
    }
    (group, roots)
}
