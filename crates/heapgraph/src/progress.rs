//! How a long import tells where it is: the bytes of its input as they are read, then each
//! phase as it begins (on a big heap the phases after the reading take most of the time).
//! Importers report; the CLI's bar and the app's Open pane show it.

use std::sync::atomic::{AtomicU64, Ordering};

/// A step of an import, in the order they come; not every import has every step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Opening an index kept from an earlier opening, and checking it.
    OpeningIndex,
    /// A dump's second pass: every object's references resolved to objects.
    Resolving,
    /// Writing the index, for the next opening.
    WritingIndex,
    /// Reading the dominator tree kept beside the index, and checking it.
    OpeningTree,
    /// The dominator tree, with the pointer maps between groups beside it.
    Dominators,
    /// The pointer maps between groups, beside a dominator tree already known.
    PointerMaps,
    /// Every group's retained size and retainer path, read from the dominator tree (with a
    /// kept tree, the pointer maps are made beside them).
    RetainedAndPaths,
    /// Writing the dominator tree beside the index, for the next opening.
    KeepingTree,
    /// Reading the grouped history kept from an earlier import with the same grouping.
    OpeningGrouped,
    /// Reading a dump's analysis kept from an earlier import whose grouping parted its objects
    /// alike.
    OpeningAnalysed,
}

impl Phase {
    /// What the phase is doing, in a few words for a progress line.
    pub fn describe(self) -> &'static str {
        match self {
            Phase::OpeningIndex => "opening and checking the index",
            Phase::Resolving => "resolving references",
            Phase::WritingIndex => "writing the index",
            Phase::OpeningTree => "opening and checking the kept dominator tree",
            Phase::Dominators => "dominator tree and pointer maps",
            Phase::PointerMaps => "pointer maps",
            Phase::RetainedAndPaths => "retained sizes and retainer paths",
            Phase::KeepingTree => "keeping the dominator tree",
            Phase::OpeningGrouped => "reading the grouped history kept from an earlier import",
            Phase::OpeningAnalysed => "reading the analysis kept from an earlier import",
        }
    }
}

/// Where an import reports its progress. A closure over `(done, total)` bytes is one that
/// ignores the phases; [`Silent`] ignores everything.
pub trait Progress: Sync {
    /// `done` of the input's `total` bytes read.
    fn read(&self, done: u64, total: u64);
    /// `phase` begins (the reading is over).
    fn phase(&self, phase: Phase) {
        let _ = phase;
    }
}

impl<F: Fn(u64, u64) + Sync> Progress for F {
    fn read(&self, done: u64, total: u64) {
        self(done, total);
    }
}

/// One file's progress within a series of files read side by side: its bytes, scaled from its
/// own `len` to its size on disk, added to the series' count; its phases passed on.
pub struct InSeries<'a> {
    series: &'a dyn Progress,
    /// The file's size on disk.
    size: u64,
    /// What this file added to `done` so far.
    reported: AtomicU64,
    /// The series' bytes read, of `total`.
    done: &'a AtomicU64,
    total: u64,
}

impl<'a> InSeries<'a> {
    /// The file of `size` bytes on disk in a series of `total`, of which `done` are read.
    pub fn new(series: &'a dyn Progress, size: u64, done: &'a AtomicU64, total: u64) -> InSeries<'a> {
        InSeries { series, size, reported: AtomicU64::new(0), done, total }
    }
}

impl Progress for InSeries<'_> {
    /// `pos` of `len` bytes of the file (a dump reports its decompressed bytes).
    fn read(&self, pos: u64, len: u64) {
        let size = self.size;
        let now = if len == 0 { size } else { (pos as u128 * size as u128 / len as u128) as u64 };
        let added = now.saturating_sub(self.reported.swap(now, Ordering::Relaxed));
        let sum = self.done.fetch_add(added, Ordering::Relaxed) + added;
        self.series.read(sum, self.total);
    }

    fn phase(&self, phase: Phase) {
        self.series.phase(phase);
    }
}

/// Progress nobody watches.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Progress for Silent {
    fn read(&self, _: u64, _: u64) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    struct Recorded(Mutex<Vec<String>>);

    impl Progress for Recorded {
        fn read(&self, done: u64, total: u64) {
            self.0.lock().unwrap().push(format!("{done}/{total}"));
        }
        fn phase(&self, phase: Phase) {
            self.0.lock().unwrap().push(phase.describe().into());
        }
    }

    #[test]
    fn a_closure_hears_the_bytes_and_a_reporter_the_phases_too() {
        let bytes = Mutex::new(Vec::new());
        let closure = |done, total| bytes.lock().unwrap().push((done, total));
        let progress: &dyn Progress = &closure;
        progress.read(1, 2);
        progress.phase(Phase::Dominators);
        assert_eq!(*bytes.lock().unwrap(), [(1, 2)]);
        let recorded = Recorded(Mutex::new(Vec::new()));
        let progress: &dyn Progress = &recorded;
        progress.read(2, 2);
        progress.phase(Phase::RetainedAndPaths);
        assert_eq!(*recorded.0.lock().unwrap(), ["2/2", "retained sizes and retainer paths"]);
    }

    #[test]
    fn files_of_a_series_add_up_on_disk_and_pass_their_phases_on() {
        let recorded = Recorded(Mutex::new(Vec::new()));
        let done = AtomicU64::new(0);
        // A 100-byte gzipped dump that inflates to 1000 bytes, and a 50-byte file beside it.
        let (dump, file) =
            (InSeries::new(&recorded, 100, &done, 150), InSeries::new(&recorded, 50, &done, 150));
        dump.read(500, 1000);
        file.read(50, 50);
        dump.read(1000, 1000);
        file.phase(Phase::Dominators);
        assert_eq!(
            *recorded.0.lock().unwrap(),
            ["50/150", "100/150", "150/150", "dominator tree and pointer maps"]
        );
    }
}
