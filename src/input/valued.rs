//! One snapshot with a reader of its values, for looking inside objects (`memcity objects`):
//! a heap dump's values are read from the dump itself, a V8 heap snapshot's strings and
//! exposed numbers from its nodes' names, a heap file's from its VALS section; other inputs
//! show each object's references by name (their values are not read yet).

use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};
use memcity_heapgraph::{Classifier, Primitives, References, TypedSnapshot, Values};
use memcity_hprof::{DumpValues, Layout};

use super::typed::{
    Snapshots, each_typed_heap, file_name, heap_file_snapshot, ordered_dumps, ordered_heap_files, v8_snapshot,
};
use super::{is_heap_dumps, is_heap_files, is_snapshots};

/// A snapshot, its values where the source has them, and the input's default grouping.
pub struct Valued {
    pub snapshot: TypedSnapshot,
    /// A dump's own values; `None`: only the references ([`Valued::with_values`]).
    dump: Option<DumpValues>,
    /// A V8 heap snapshot's strings and numbers, beside its references.
    nodes: Option<memcity_v8::values::NodeValues>,
    /// A heap file's atoms' values, beside its references.
    atoms: Option<memcity_heapfile::ValueTable>,
    pub classifiers: Vec<Classifier>,
    /// How the source writes object ids, for errors.
    pub id_hint: &'static str,
}

impl Valued {
    /// Calls `f` with the reader of the snapshot's values.
    pub fn with_values<R>(&self, f: impl FnOnce(&dyn Values) -> R) -> R {
        match (&self.dump, &self.atoms) {
            (Some(dump), _) => f(dump),
            (None, Some(values)) => f(&memcity_heapfile::FileValues { heap: &self.snapshot.heap, values }),
            (None, None) => {
                let primitives = self.nodes.as_ref().map(|n| n as &dyn Primitives);
                f(&References { heap: &self.snapshot.heap, primitives })
            }
        }
    }
}

/// Snapshot `time` (default the last) of `specs`, with what is needed to look inside it.
pub fn valued_snapshot(specs: &[String], time: Option<usize>) -> Result<Valued> {
    if dumps(specs)? {
        let files = ordered_dumps(specs)?;
        let last = files.len().saturating_sub(1);
        let index = time.unwrap_or(last);
        if index >= files.len() {
            bail!("--time {index}: the input has {} dumps (0..{last})", files.len());
        }
        return valued_dump(&files, index);
    }
    if !specs.is_empty() && specs.iter().all(|s| is_snapshots(Path::new(s))) {
        return valued_v8(specs, time);
    }
    if !specs.is_empty() && specs.iter().all(|s| is_heap_files(Path::new(s))) {
        return valued_heap_file(specs, time);
    }
    let mut kept = None;
    each_typed_heap(specs, Snapshots::Window { from: time, to: time }, &Layout::default(), &mut |s| {
        kept = Some(s);
        Ok(())
    })
    // The window's checks name its ends; here the one end is --time.
    .map_err(|e| anyhow!("{}", format!("{e:#}").replacen("--from", "--time", 1)))?;
    let snapshot = kept.ok_or_else(|| anyhow!("no snapshot in the input"))?;
    Ok(without_values(specs, snapshot))
}

/// V8 heap snapshots, in the import's order: snapshot `time` (default the last) with its nodes'
/// values.
fn valued_v8(specs: &[String], time: Option<usize>) -> Result<Valued> {
    let paths: Vec<PathBuf> = specs.iter().map(PathBuf::from).collect();
    let files = memcity_v8::source::order(memcity_v8::source::expand(&paths)?);
    let last = files.len().saturating_sub(1);
    let index = time.unwrap_or(last);
    let Some((file, time_ms)) = files.get(index) else {
        bail!("--time {index}: the input has {} heap snapshots (0..{last})", files.len());
    };
    let (typed, nodes) = memcity_v8::values::typed_heap_with_values(file)?;
    let mut valued = without_values(specs, v8_snapshot(index, file, *time_ms, typed));
    valued.nodes = Some(nodes);
    Ok(valued)
}

/// Heap files, in the import's order: snapshot `time` (default the last) with its atoms' values.
fn valued_heap_file(specs: &[String], time: Option<usize>) -> Result<Valued> {
    let files = ordered_heap_files(specs)?;
    let last = files.len().saturating_sub(1);
    let index = time.unwrap_or(last);
    let Some((_, _, file)) = files.get(index) else {
        bail!("--time {index}: the input has {} heap files (0..{last})", files.len());
    };
    let (snapshot, values) = heap_file_snapshot(index, file)?;
    let mut valued = without_values(specs, snapshot);
    valued.atoms = Some(values);
    Ok(valued)
}

/// Whether `specs` are heap dumps (checked as every input is).
fn dumps(specs: &[String]) -> Result<bool> {
    let all = !specs.is_empty() && specs.iter().all(|s| is_heap_dumps(Path::new(s)));
    if all {
        for spec in specs {
            crate::cli::paths::check_input(Path::new(spec))?;
        }
    }
    Ok(all)
}

fn dump_snapshot(file: &Path, index: usize, typed: memcity_hprof::TypedDump) -> TypedSnapshot {
    TypedSnapshot {
        index,
        time_ms: typed.timestamp_ms,
        reachable_bytes: typed.reachable_bytes,
        label: file_name(file),
        metrics: Default::default(),
        heap: typed.heap,
    }
}

fn valued_dump(files: &[PathBuf], index: usize) -> Result<Valued> {
    let (typed, values) = memcity_hprof::typed_heap_with_values(
        &files[index],
        &Layout::default(),
        super::index_dir().as_deref(),
    )?;
    Ok(Valued {
        snapshot: dump_snapshot(&files[index], index, typed),
        dump: Some(values),
        nodes: None,
        atoms: None,
        classifiers: default_classifiers(&[files[index].display().to_string()]),
        id_hint: " (a dump's ids are its addresses, written 0x…, as `memcity objects --json` shows them)",
    })
}

/// The classifiers `specs` are grouped by when opened without a grouping of the user's.
pub fn default_classifiers(specs: &[String]) -> Vec<Classifier> {
    let all = |check: fn(&Path) -> bool| !specs.is_empty() && specs.iter().all(|s| check(Path::new(s)));
    if all(is_heap_dumps) {
        memcity_hprof::default_grouping().classifiers
    } else if all(is_snapshots) {
        memcity_v8::default_grouping().classifiers
    } else if all(is_heap_files) {
        memcity_heapfile::default_grouping().classifiers
    } else {
        memcity_analysis::default_grouping().classifiers
    }
}

/// A snapshot of a source whose values are not read: its references by name.
fn without_values(specs: &[String], snapshot: TypedSnapshot) -> Valued {
    let classifiers = default_classifiers(specs);
    let id_hint = " (ids are the source's own object ids, as `memcity objects --json` shows them)";
    Valued { snapshot, dump: None, nodes: None, atoms: None, classifiers, id_hint }
}
