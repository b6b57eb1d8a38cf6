//! A dump's analysis kept beside its index, for groupings that part its objects the same way.
//!
//! What an analysis finds (counts, pointer maps, retained sizes, retainer paths, all in group
//! ids) depends on the grouping only through which objects share a leaf group, and on the ids
//! only through their order ([`Partition`]). Most groupings of a dump end in the object's type
//! (`package → type`, `type`, `root-kind → type`): they part its objects alike, and the second
//! of them gets the first one's analysis, kept numbered by rank and read back in its own ids;
//! only the tree of levels above the leaves, which is the grouping's own and cheap, is made
//! anew. A grouping that parts the objects otherwise (by object kind, by root kind below the
//! type) is analysed from the index and kept beside.
//!
//! The file's name and its stored key are a hash of everything the analysis depends on: the
//! dump's key and full path, the build (as for the grouped history), the analysis options, and
//! every object's group by rank. It is input like any other: bounded in size, parsed, its key
//! compared, and every group id checked against the partition ([`GroupedHeap::check`]); one
//! that does not read is removed with a one-line note.

use std::path::{Path, PathBuf};

use memcity_heapgraph::{AnalysisOptions, GroupedHeap, ObjectGroups, Partition, Phase, Progress};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::format::bytes_of;
use super::key::Key;
use super::{mode_of, note, replace, supported};
use crate::layout::Layout;

/// The most analyses kept in one index folder, the least recently used going first.
const KEPT_AT_MOST: usize = 32;

/// Bumped when what a kept analysis holds changes meaning.
const VERSION: &str = "memcity analysed heap 1";

/// A kept analysis as it lies in its file.
#[derive(Deserialize)]
struct Kept {
    version: String,
    /// The hash the file is named by, in full.
    key: String,
    heap: GroupedHeap,
}

/// [`Kept`] as it is written, borrowing the heap.
#[derive(Serialize)]
struct Keeping<'a> {
    version: &'a str,
    key: &'a str,
    heap: &'a GroupedHeap,
}

/// Where a kept analysis lies, the key it must carry, and the partition it is of.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AnalysedPlace {
    path: PathBuf,
    key: String,
    partition: Partition,
}

/// Where the analysis of the dump at `file` (read with `layout`) with `options`, whose objects
/// fall into the groups `group` of `group_count`, is kept in the index folder `index`; `None`
/// without one or where the dump's key cannot be read.
pub(crate) fn place(
    file: &Path,
    index: Option<&Path>,
    layout: &Layout,
    options: &AnalysisOptions,
    group: &ObjectGroups,
    group_count: usize,
) -> Option<AnalysedPlace> {
    let dir = index.filter(|d| supported() && !d.as_os_str().is_empty())?;
    let dump = file.is_file().then(|| Key::of(file, layout).ok()).flatten()?;
    let mut hash = blake3::Hasher::new();
    hash.update(VERSION.as_bytes());
    hash.update(&super::grouped::build_stamp());
    hash.update(
        std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf()).as_os_str().as_encoded_bytes(),
    );
    hash.update(&dump.bytes());
    hash.update(format!("{options:?}").as_bytes());
    let (partition, key_ranks) = Partition::with_key_ranks(group, group_count);
    hash.update(&(partition.len() as u64).to_le_bytes());
    hash.update(&(group.len() as u64).to_le_bytes());
    match key_ranks {
        // Groups through the classes: the classes are the dump's (its key is hashed above), so
        // each class's group's rank says every object's.
        Some(ranks) => _ = hash.update(b"by class").update(bytes_of(&ranks)),
        None => {
            // The ranks a run of objects at a time, on every worker, each run's hash in order.
            let runs: Vec<[u8; 32]> = (0..group.len().div_ceil(RUN))
                .into_par_iter()
                .map_init(Vec::new, |ranks, run| {
                    partition.ranks(group, run * RUN..group.len().min((run + 1) * RUN), ranks);
                    *blake3::hash(bytes_of(ranks)).as_bytes()
                })
                .collect();
            runs.iter().for_each(|run| _ = hash.update(run));
        }
    }
    let key = hash.finalize().to_hex().to_string();
    Some(AnalysedPlace { path: dir.join(format!("{}.analysed-heap", &key[..16])), key, partition })
}

/// Objects whose ranks are hashed at once.
const RUN: usize = 1 << 20;

/// The analysis kept at `place` for a grouping of `group_count` groups, if there is one and it
/// reads; one that does not is removed, with a note. `dump_size` bounds the file.
pub(crate) fn read(
    place: &AnalysedPlace,
    dump_size: u64,
    group_count: usize,
    progress: &dyn Progress,
) -> Option<GroupedHeap> {
    let size = std::fs::metadata(&place.path).ok().filter(|m| m.is_file())?.len();
    progress.phase(Phase::OpeningAnalysed);
    match parse(place, size, dump_size, group_count) {
        Ok(heap) => {
            super::KEPT_ANALYSES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            super::evict::renew(&place.path);
            Some(heap)
        }
        Err(e) => {
            note(&format!("the kept analysis {} is unusable ({e}); analysing again", place.path.display()));
            let _ = std::fs::remove_file(&place.path);
            None
        }
    }
}

fn parse(
    place: &AnalysedPlace,
    size: u64,
    dump_size: u64,
    group_count: usize,
) -> Result<GroupedHeap, String> {
    // An analysis in groups is far smaller than the dump of objects it was made from.
    if size > dump_size.max(64 << 20) {
        return Err(format!("{size} bytes, more than the dump"));
    }
    let bytes = std::fs::read(&place.path).map_err(|e| e.to_string())?;
    let kept: Kept = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
    if kept.version != VERSION {
        return Err(format!("version {:?}", kept.version));
    }
    if kept.key != place.key {
        return Err("made for another dump or grouping".into());
    }
    kept.heap.check(place.partition.len())?;
    Ok(kept.heap.in_groups(&place.partition, group_count))
}

/// Keeps `heap`, the analysis of the dump at `file`, at `place` with the dump's permissions; a
/// failure is one line and the next import analyses again.
pub(crate) fn keep(place: &AnalysedPlace, file: &Path, heap: &GroupedHeap) {
    let dir = place.path.parent().unwrap_or(Path::new("."));
    let ranked = heap.ranked(&place.partition);
    let kept = Keeping { version: VERSION, key: &place.key, heap: &ranked };
    let written = std::fs::create_dir_all(dir).and_then(|()| {
        replace::replace(&place.path, mode_of(file), |temporary| {
            let json = serde_json::to_vec(&kept).map_err(std::io::Error::other)?;
            std::fs::write(temporary, json)
        })
    });
    if let Err(e) = written {
        note(&format!("cannot keep the analysis in {} ({e})", dir.display()));
    }
    super::evict::evict(dir, &place.path, "analysed-heap", &[], KEPT_AT_MOST);
}

#[cfg(test)]
mod tests;
