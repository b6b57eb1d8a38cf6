//! The grouped history kept beside the indexes: a series imported once is, imported again with
//! the same grouping by the same build of memcity, read from a small `memcity/1` file instead
//! of being analysed again — the dominator tree's retained sizes, retainer paths and pointer
//! maps take most of a reopening. Any other grouping, classifier or layout is analysed from the
//! indexes as before; nothing is grouped in advance.
//!
//! The file's name is a hash of everything the history depends on: each dump's key (size,
//! mtime, the hash of its ends) and full path, the layout, the grouping (classifiers and
//! analysis options), and the build (the executable's size and mtime: a rebuilt memcity may
//! group differently). It is input like any other: read through the `memcity/1` reader, which
//! checks and bounds it; one that does not read is removed with a one-line note.

use std::path::{Path, PathBuf};

use memcity_heapgraph::{Phase, Progress};
use memcity_model::History;

use super::key::{Fnv, Key};
use super::{mode_of, note, replace, supported};
use crate::layout::Layout;

/// The most histories kept in one index folder: each build and grouping keeps its own, so
/// without a bound the folder would grow with every rebuild. The least recently used go first.
const KEPT_AT_MOST: usize = 16;

/// Bumped when what a kept history holds changes meaning.
const VERSION: &[u8] = b"memcity grouped history 1";

/// Where the grouped history of `files` read with `layout` and grouped by `grouping` is kept
/// in the index folder `index`; `None` without one (`--no-index`) or where a dump's key cannot
/// be read.
pub(crate) fn place(
    files: &[PathBuf],
    index: Option<&Path>,
    layout: &Layout,
    grouping: &memcity_heapgraph::Grouping,
) -> Option<PathBuf> {
    let dir = index.filter(|d| supported() && !d.as_os_str().is_empty())?;
    let mut hash = Fnv::default();
    hash.write(VERSION);
    hash.write(&build_stamp());
    for file in files {
        let key = file.is_file().then(|| Key::of(file, layout).ok()).flatten()?;
        let full = std::fs::canonicalize(file).unwrap_or_else(|_| file.clone());
        hash.write(full.as_os_str().as_encoded_bytes());
        for field in [key.size, key.mtime_s, key.mtime_ns, key.ends_hash, key.layout_hash] {
            hash.write(&field.to_le_bytes());
        }
    }
    hash.write(format!("{grouping:?}").as_bytes());
    Some(dir.join(format!("{:016x}.grouped-history", hash.0)))
}

/// The running executable's size and modification time.
pub(super) fn build_stamp() -> Vec<u8> {
    let meta = std::env::current_exe().and_then(std::fs::metadata);
    let Ok(meta) = meta else { return Vec::new() };
    let since = meta.modified().ok().and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok());
    let nanos = since.map_or(0, |s| s.as_nanos());
    [meta.len().to_le_bytes().as_slice(), nanos.to_le_bytes().as_slice()].concat()
}

/// The history kept at `place`, if there is one and it reads; one that does not is removed,
/// with a note.
pub(crate) fn read(place: &Path, files: &[PathBuf], progress: &dyn Progress) -> Option<History> {
    let size = std::fs::metadata(place).ok().filter(|m| m.is_file())?.len();
    progress.phase(Phase::OpeningGrouped);
    // A history of groups is far smaller than the dumps of objects it was made from.
    let dumps: u64 = files.iter().filter_map(|f| std::fs::metadata(f).ok()).map(|m| m.len()).sum();
    let read = match size <= dumps.max(64 << 20) {
        true => memcity_model::load_file(place).map_err(|e| e.to_string()),
        false => Err(format!("{} bytes, more than the dumps", size)),
    };
    match read {
        Ok(history) => {
            super::KEPT_GROUPED.store(true, std::sync::atomic::Ordering::Relaxed);
            super::evict::renew(place);
            Some(history)
        }
        Err(e) => {
            note(&format!("the kept grouped history is unusable ({e}); grouping again"));
            let _ = std::fs::remove_file(place);
            None
        }
    }
}

/// Keeps `history`, the import of `files`, at `place` (with the dumps' permissions, the
/// strictest of them); a failure is one line and the next import analyses again.
pub(crate) fn keep(place: &Path, files: &[PathBuf], history: &History) {
    let dir = place.parent().unwrap_or(Path::new("."));
    let mode = files.iter().map(|f| mode_of(f)).try_fold(0o7777, |m, f| f.map(|f| m & f));
    let written = std::fs::create_dir_all(dir).and_then(|()| {
        replace::replace(place, mode, |temporary| {
            memcity_model::save_history(history, temporary).map_err(std::io::Error::other)
        })
    });
    if let Err(e) = written {
        note(&format!("cannot keep the grouped history in {} ({e})", dir.display()));
    }
    super::evict::evict(dir, place, "grouped-history", &[], KEPT_AT_MOST);
}
