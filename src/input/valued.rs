//! One snapshot with a reader of its values, for looking inside objects (`memcity objects`):
//! a heap dump's values are read from the dump itself; other inputs show each object's
//! references by name (their values are not read yet).

use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};
use memcity_heapgraph::{Classifier, References, TypedSnapshot, Values};
use memcity_hprof::{DumpValues, Layout};

use super::typed::{Snapshots, each_typed_heap, file_name, ordered_dumps};
use super::{is_heap_dumps, is_heap_files, is_snapshots};

/// A snapshot, its values where the source has them, and the input's default grouping.
pub struct Valued {
    pub snapshot: TypedSnapshot,
    /// A dump's own values; `None`: only the references ([`Valued::values`]).
    dump: Option<DumpValues>,
    pub classifiers: Vec<Classifier>,
    /// How the source writes object ids, for errors.
    pub id_hint: &'static str,
}

impl Valued {
    /// Calls `f` with the reader of the snapshot's values.
    pub fn with_values<R>(&self, f: impl FnOnce(&dyn Values) -> R) -> R {
        match &self.dump {
            Some(dump) => f(dump),
            None => f(&References { heap: &self.snapshot.heap }),
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
    let (typed, values) = memcity_hprof::typed_heap_with_values(&files[index], &Layout::default())?;
    Ok(Valued {
        snapshot: dump_snapshot(&files[index], index, typed),
        dump: Some(values),
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
    Valued { snapshot, dump: None, classifiers, id_hint }
}
