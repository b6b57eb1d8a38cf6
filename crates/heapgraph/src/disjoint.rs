//! Work shared by the workers: `0..n` cut into one part per worker ([`parts`]), and tables
//! written by several workers at once, each value at a place no other worker writes
//! ([`Disjoint`]), or bits set in shared words ([`Bits`]).

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// `0..n` in one run per worker of the current pool, each `len` long but the last: `(len,
/// runs)`, so that a table's `par_chunks_mut(len)` lines up with the runs.
pub fn parts(n: usize) -> (usize, Vec<Range<usize>>) {
    parts_per_worker(n, 1)
}

/// `0..n` in `per_worker` runs per worker, as [`parts`]: for work done beside other work,
/// where a worker busy elsewhere would otherwise leave its one run to wait for it.
pub fn parts_per_worker(n: usize, per_worker: usize) -> (usize, Vec<Range<usize>>) {
    let len = n.div_ceil(rayon::current_num_threads().max(1) * per_worker.max(1)).max(1);
    (len, (0..n).step_by(len).map(|first| first..n.min(first + len)).collect())
}

/// A table written by several workers at once, each at places no other one writes; it holds
/// the table borrowed, so nothing else reads it until the workers are done.
pub struct Disjoint<'a, T> {
    values: *mut T,
    len: usize,
    borrowed: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: the workers write disjoint places ([`Disjoint::set`]'s contract) and nothing reads
// the table while it is borrowed here.
unsafe impl<T: Send> Sync for Disjoint<'_, T> {}
unsafe impl<T: Send> Send for Disjoint<'_, T> {}

impl<'a, T> Disjoint<'a, T> {
    pub fn new(values: &'a mut [T]) -> Disjoint<'a, T> {
        Disjoint { values: values.as_mut_ptr(), len: values.len(), borrowed: std::marker::PhantomData }
    }

    /// # Safety
    /// No other worker writes or reads place `i` while the table is shared.
    pub unsafe fn set(&self, i: usize, value: T) {
        assert!(i < self.len, "a place beyond the table");
        // SAFETY: in bounds (checked), and no one else touches place `i` (the contract).
        unsafe { self.values.add(i).write(value) };
    }

    /// The places `range`, to read and write.
    /// # Safety
    /// No other worker writes or reads a place of `range` while the slice lives.
    #[allow(clippy::mut_from_ref)] // the contract above makes the places this borrow's own
    pub unsafe fn run(&self, range: Range<usize>) -> &mut [T] {
        assert!(range.start <= range.end && range.end <= self.len, "places beyond the table");
        // SAFETY: in bounds (checked), and no one else touches them (the contract).
        unsafe { std::slice::from_raw_parts_mut(self.values.add(range.start), range.len()) }
    }
}

/// A bit per place (`i % 64` of word `i / 64`), set by several workers at once.
pub struct Bits<'a> {
    words: &'a [AtomicU64],
}

impl<'a> Bits<'a> {
    pub fn new(words: &'a mut [u64]) -> Bits<'a> {
        let (at, len) = (words.as_mut_ptr(), words.len());
        assert!((at as usize).is_multiple_of(align_of::<AtomicU64>()), "words aligned for atomics");
        // SAFETY: AtomicU64 has u64's size and (checked) alignment, and the words are borrowed
        // mutably for as long as the view lives, so nothing else reads or writes them.
        let words = unsafe { std::slice::from_raw_parts(at.cast::<AtomicU64>(), len) };
        Bits { words }
    }

    pub fn set(&self, i: usize) {
        self.words[i / 64].fetch_or(1 << (i % 64), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runs cover `0..n` in order, each `len` long but the last: as many as asked per
    /// worker where they divide evenly, fewer where equal runs need fewer, none for `0..0`.
    #[test]
    fn runs_cover_the_range_in_order() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().expect("a pool");
        for (n, per_worker, runs) in [(0, 1, 0), (1, 4, 1), (10, 1, 3), (100, 4, 12), (13, 4, 7), (7, 0, 3)] {
            let (len, parts) = pool.install(|| parts_per_worker(n, per_worker));
            assert_eq!(parts.len(), runs, "{n} in {per_worker} per worker");
            assert_eq!(parts.iter().flat_map(Clone::clone).collect::<Vec<_>>(), (0..n).collect::<Vec<_>>());
            assert!(
                parts.iter().all(|run| run.len() <= len)
                    && parts.iter().rev().skip(1).all(|run| run.len() == len)
            );
        }
        assert_eq!(pool.install(|| parts(10)), pool.install(|| parts_per_worker(10, 1)));
    }
}
