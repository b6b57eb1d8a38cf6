//! Work shared by the workers: `0..n` cut into one part per worker ([`parts`]), and tables
//! written by several workers at once, each value at a place no other worker writes
//! ([`Disjoint`]), or bits set in shared words ([`Bits`]).

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// `0..n` in one run per worker of the current pool, each `len` long but the last: `(len,
/// runs)`, so that a table's `par_chunks_mut(len)` lines up with the runs.
pub fn parts(n: usize) -> (usize, Vec<Range<usize>>) {
    let len = n.div_ceil(rayon::current_num_threads().max(1)).max(1);
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
