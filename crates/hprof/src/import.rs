//! A series of dumps becomes a history: files read in parallel, snapshots ordered by the dumps'
//! own timestamps. A bad file rejects the whole series.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use memcity_model::History;
use rayon::prelude::*;

use crate::error::HprofError;
use crate::layout::Layout;
use crate::snapshot::{SnapshotOptions, build_snapshot};
use crate::source;

#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    pub layout: Layout,
    pub snapshot: SnapshotOptions,
}

/// Imports the dumps named by `paths` (files, or folders of `.hprof`/`.hprof.gz` files).
/// `progress(done, total)` reports bytes of the files on disk.
pub fn import(
    paths: &[PathBuf],
    options: &ImportOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<History, HprofError> {
    let files = source::expand(paths)?;
    let sizes: Vec<u64> = files.iter().map(|f| f.metadata().map(|m| m.len()).unwrap_or(0)).collect();
    let total = sizes.iter().sum();
    let done = AtomicU64::new(0);
    let results: Vec<Result<(u64, memcity_model::Snapshot), HprofError>> = files
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
            import_one(file, options, &on_bytes)
        })
        .collect();
    let mut snapshots = Vec::with_capacity(results.len());
    for result in results {
        snapshots.push(result?);
    }
    // Stable: dumps with equal timestamps keep their file order.
    snapshots.sort_by_key(|(time, _)| *time);
    Ok(History {
        format: memcity_model::FORMAT.to_string(),
        metric_names: memcity_model::MetricNames::default(),
        snapshots: snapshots.into_iter().map(|(_, s)| s).collect(),
    })
}

fn import_one(
    file: &Path,
    options: &ImportOptions,
    progress: &dyn Fn(u64, u64),
) -> Result<(u64, memcity_model::Snapshot), HprofError> {
    let name = file.display().to_string();
    let bytes = source::open(file)?;
    let len = bytes.len() as u64;
    let dump = crate::read_dump_bytes(&bytes, &name, &options.layout, &|pos| progress(pos, len))?;
    drop(bytes);
    let label = file.file_name().map_or(name.clone(), |n| n.to_string_lossy().into_owned());
    let time = dump.timestamp_ms;
    Ok((time, build_snapshot(dump, &label, &options.snapshot)))
}
