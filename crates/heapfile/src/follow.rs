//! Following a probe while the program runs: a folder is polled for snapshot files that appeared
//! since the last poll; each goes through the pipeline once, with the same grouper, and the
//! history grows. A bad file is reported and skipped, so the city already built is kept.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use memcity_heapgraph::{Grouper, Grouping, SeriesHeap, history_of};
use memcity_model::History;

use crate::error::HeapFileError;
use crate::import::{label, read_file, series_heap, snapshot_files};

/// The state of following one folder.
pub struct Follower {
    dir: PathBuf,
    options: Grouping,
    grouper: Mutex<Grouper>,
    seen: BTreeSet<PathBuf>,
    heaps: Vec<SeriesHeap>,
}

/// What one poll found.
#[derive(Debug, Default)]
pub struct Poll {
    /// The whole history, when new snapshots were added.
    pub history: Option<History>,
    /// Files that were rejected (each is skipped from now on).
    pub errors: Vec<HeapFileError>,
}

impl Follower {
    /// Follows `dir`, which must be a folder (it may be empty: the probe has not written yet).
    pub fn new(dir: &Path, options: Grouping) -> Result<Follower, HeapFileError> {
        if !dir.is_dir() {
            return Err(HeapFileError::io(
                dir.display().to_string(),
                "not a folder (--follow needs the probe's --out folder)",
            ));
        }
        let grouper = Mutex::new(Grouper::new(options.classifiers.clone()));
        Ok(Follower { dir: dir.to_path_buf(), options, grouper, seen: BTreeSet::new(), heaps: Vec::new() })
    }

    /// Snapshots taken so far.
    pub fn snapshots(&self) -> usize {
        self.heaps.len()
    }

    /// Reads the snapshot files that appeared since the last poll, in name order.
    pub fn poll(&mut self) -> Poll {
        let mut poll = Poll::default();
        // An empty folder is not an error here: the probe may not have written yet.
        let files = snapshot_files(std::slice::from_ref(&self.dir)).unwrap_or_default();
        let mut added = false;
        for file in files {
            if !self.seen.insert(file.clone()) {
                continue;
            }
            match read_file(&file) {
                Ok(heap) => {
                    self.heaps.push(series_heap(heap, &label(&file), &self.grouper, &self.options.analysis));
                    added = true;
                }
                Err(e) => poll.errors.push(e),
            }
        }
        if added {
            let grouper = self.grouper.lock().unwrap_or_else(|e| e.into_inner());
            poll.history = Some(history_of(&grouper, self.heaps.clone()));
        }
        poll
    }
}
