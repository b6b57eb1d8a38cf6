//! The index folder is a cache: each kind of file in it (indexes with their kept trees, kept
//! grouped histories) is held to a number of the most recently used, so that dumps deleted or
//! moved long ago, whose indexes nothing will read again, do not fill the disk.

use std::path::{Path, PathBuf};

/// Marks `path` as used now (its modification time, or its stamp's where it has one: setting
/// its own would undo the stamp, [`super::stamp`]), so it is the last to be evicted.
pub(super) fn renew(path: &Path) {
    let now = std::time::SystemTime::now();
    let stamp = super::stamp::path_of(path);
    let used = if stamp.is_file() { stamp.as_path() } else { path };
    let _ = std::fs::File::options().append(true).open(used).and_then(|f| f.set_modified(now));
}

/// When `path` was last used: its modification time, or its stamp's where that is later.
fn used(path: &Path) -> Option<std::time::SystemTime> {
    let modified = |p: &Path| std::fs::metadata(p).ok()?.modified().ok();
    let own = modified(path)?;
    Some(modified(&super::stamp::path_of(path)).map_or(own, |stamp| stamp.max(own)))
}

/// Removes the least recently used files named `*.extension` in `dir` (by modification time,
/// which [`renew`] sets on a read: [`used`]) beyond the `most` newest, each with its companions (the same
/// name with each of `companions` as its extension); never `place`, just written.
pub(super) fn evict(dir: &Path, place: &Path, extension: &str, companions: &[&str], most: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut kept: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == extension) && p != place)
        .filter_map(|p| Some((used(&p)?, p)))
        .collect();
    kept.sort();
    let over = (kept.len() + 1).saturating_sub(most);
    for (_, old) in kept.into_iter().take(over) {
        for companion in companions {
            let _ = std::fs::remove_file(old.with_extension(companion));
        }
        let _ = std::fs::remove_file(old);
    }
}
