//! A series that grows while the program runs (`memcity --inspect`): each new snapshot file is
//! grouped with the series' grouper as it arrives and becomes a snapshot of the live history.

use std::path::Path;
use std::sync::Mutex;

use memcity_heapgraph::{Grouper, Grouping, SnapshotInfo};
use memcity_model::{HeapMetrics, Snapshot};

use crate::error::V8Error;
use crate::import::import_one;

pub struct LiveSeries {
    options: Grouping,
    grouper: Mutex<Grouper>,
}

impl LiveSeries {
    pub fn new(options: Grouping) -> LiveSeries {
        let grouper = Mutex::new(Grouper::new(options.classifiers.clone()));
        LiveSeries { options, grouper }
    }

    /// The snapshot of one more file, taken `time_ms` after the series began. Keys stay stable
    /// as long as no group gains subgroups later (true of the default classifiers and of any
    /// list without `package`).
    pub fn add(&self, file: &Path, time_ms: u64) -> Result<Snapshot, V8Error> {
        let heap = import_one(file, &self.options, &self.grouper, &memcity_heapgraph::Silent)?;
        let label =
            file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
        let metrics = HeapMetrics { reachable_bytes: Some(heap.reachable_bytes), ..Default::default() };
        let info = SnapshotInfo { time_ms, gc_id: None, label: Some(label), heap: Some(metrics) };
        let grouper = self.grouper.lock().unwrap_or_else(|e| e.into_inner());
        Ok(grouper.snapshot(&heap, info))
    }
}
