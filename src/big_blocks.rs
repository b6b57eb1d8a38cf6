//! Big allocations: mapped by the allocator itself and kept for reuse once freed. Small ones
//! go to the system allocator unchanged.
//!
//! Memory handed back to the kernel and asked for again is zeroed anew, and on a virtual
//! machine whose host takes back the pages its guest frees, each page is first a fault on the
//! host: on the development machine (Firecracker) 1.7–2.4 s per GiB, against 0.05 s for a
//! block this process freed and took again — zeroing was 45 % of a reopening's CPU time. An
//! analysis frees per-object tables and makes others of the same sizes phase after phase, so
//! freed big blocks are kept ([`pool`]), up to a share of the memory budget
//! ([`keep_at_most`]), for the next allocation they fit; an allocation none fits has them
//! moved into its region (mremap: their pages, not copies), so that only the rest is fresh.
//!
//! No transparent huge pages are asked for. They were (2026-11-23 to 2026-12-06), for fewer
//! faults; but a huge page needs 2 MiB of free memory in one piece, and a guest reports such
//! pieces to its host once they have been free for a moment (free page reporting), so huge
//! pages were the ones the host had to back anew: 11.7–13.2 s a GiB to touch, against 0.4–0.9 s
//! for 4 KiB pages, which come from the smaller free pieces the guest still has backed (zeroing
//! huge pages was 77 % of a first import's reading phase). Without the advice, paired runs on
//! the development machine: a 1.5 GB V8 snapshot imported in 6.5 s instead of 17.5 s, a
//! reopening of the 96 M-object dump in 3.8 s instead of 8.9 s (docs/hprof.md, "Huge pages").

mod pool;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::{Mutex, MutexGuard};

use pool::{Block, Pool, Taken};

/// The system allocator for small allocations; big ones mapped here.
pub struct BigBlocks;

/// Allocations this big or bigger are mapped here: per-object tables of heaps with millions of
/// objects.
const BIG: usize = 32 << 20;
/// Big regions are whole multiples of this, so that tables of nearly one size fit each
/// other's kept blocks.
const GRAIN: usize = 2 << 20;
/// The alignment a fresh mapping has: a page.
const PAGE: usize = 4096;

static POOL: Mutex<Pool> = Mutex::new(Pool::new());
/// Bytes handed out again from kept blocks, for the tests to see the pool at work.
static REUSED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn pool() -> MutexGuard<'static, Pool> {
    // Nothing panics while the lock is held; a poisoned lock is still a good pool.
    POOL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Keeps at most `bytes` of freed big blocks from now on (nothing until this is called).
pub fn keep_at_most(bytes: u64) {
    let released = pool().set_cap(usize::try_from(bytes).unwrap_or(usize::MAX));
    released.iter().for_each(unmap);
}

/// Releases every kept block: a long-lived process (the app) does so once an import is done,
/// so that the memory of the import's freed tables goes back to the system.
pub fn release_kept() {
    let released = pool().drain();
    released.iter().for_each(unmap);
}

fn is_big(layout: &Layout) -> bool {
    layout.size() >= BIG && layout.align() <= PAGE
}

/// The length of the region a big allocation of `size` bytes gets.
fn length(size: usize) -> usize {
    size.next_multiple_of(GRAIN)
}

unsafe impl GlobalAlloc for BigBlocks {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match is_big(&layout) {
            true => big(layout.size(), false),
            // SAFETY: the caller's contract is passed on unchanged.
            false => unsafe { System.alloc(layout) },
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match is_big(&layout) {
            true => big(layout.size(), true),
            // SAFETY: as above.
            false => unsafe { System.alloc_zeroed(layout) },
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match is_big(&layout) {
            true => free(Block { at: ptr as usize, len: length(layout.size()) }),
            // SAFETY: as above.
            false => unsafe { System.dealloc(ptr, layout) },
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees the new size is valid for the alignment.
        let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (is_big(&layout), is_big(&new)) {
            // SAFETY: as above.
            (false, false) => unsafe { System.realloc(ptr, layout, new_size) },
            (true, true) => remap(Block { at: ptr as usize, len: length(layout.size()) }, length(new_size)),
            _ => {
                // Across the threshold: a copy between the two allocators.
                // SAFETY: `new` has the caller's alignment and a nonzero size.
                let moved = unsafe { self.alloc(new) };
                if !moved.is_null() {
                    // SAFETY: both regions hold at least the smaller size and do not overlap.
                    unsafe { std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size)) };
                    // SAFETY: `ptr` was allocated with `layout` and is not used again.
                    unsafe { self.dealloc(ptr, layout) };
                }
                moved
            }
        }
    }
}

/// A region for `size` bytes: a kept block if one fits, else a fresh mapping once what is kept
/// has been released.
fn big(size: usize, zeroed: bool) -> *mut u8 {
    let taken = pool().take(length(size), BIG);
    match taken {
        Taken::Reused { block, release } => {
            release.into_iter().for_each(unmap);
            REUSED.fetch_add(block.len as u64, std::sync::atomic::Ordering::Relaxed);
            if zeroed {
                // SAFETY: the block is this process's, mapped read-write, and in no one's use.
                unsafe { std::ptr::write_bytes(block.at as *mut u8, 0, size) };
            }
            block.at as *mut u8
        }
        Taken::Missed { gather, release } => {
            release.iter().for_each(unmap);
            let region = map(length(size));
            for (block, offset) in gather.iter() {
                if region.is_null() || !move_to(block, region as usize + offset) {
                    unmap(block);
                    continue;
                }
                REUSED.fetch_add(block.len as u64, std::sync::atomic::Ordering::Relaxed);
                if zeroed {
                    // SAFETY: the block's pages now lie at this offset of the region, this
                    // process's, mapped read-write and in no one's use.
                    unsafe { std::ptr::write_bytes((region as usize + offset) as *mut u8, 0, block.len) };
                }
            }
            region
        }
    }
}

/// Moves `block`'s pages to `to` (in the page tables: no copy, and nothing faulted or zeroed
/// anew), replacing what was mapped there. False where the kernel refuses: a block made of
/// pieces moved together earlier spans several mappings, which mremap does not take at once.
fn move_to(block: Block, to: usize) -> bool {
    // SAFETY: `block` is a whole region of this allocator's in no one's use, and `to` lies in a
    // region of its own just mapped for it, which the move may replace.
    let moved = unsafe {
        libc::mremap(
            block.at as *mut libc::c_void,
            block.len,
            block.len,
            libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
            to as *mut libc::c_void,
        )
    };
    moved != libc::MAP_FAILED
}

fn free(block: Block) {
    let back = pool().keep(block);
    back.into_iter().for_each(unmap);
}

/// A fresh anonymous mapping of `len` bytes; null when the kernel has no room.
fn map(len: usize) -> *mut u8 {
    // SAFETY: a new private anonymous mapping, overlapping nothing.
    let raw = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if raw == libc::MAP_FAILED { std::ptr::null_mut() } else { raw.cast() }
}

/// Moves or resizes a big region in the page tables (no copy, no fresh zeroing of what it
/// held).
fn remap(block: Block, len: usize) -> *mut u8 {
    if len == block.len {
        return block.at as *mut u8;
    }
    // SAFETY: `block` is a whole mapping of this allocator's, in no one else's use.
    let moved = unsafe { libc::mremap(block.at as *mut libc::c_void, block.len, len, libc::MREMAP_MAYMOVE) };
    if moved != libc::MAP_FAILED {
        return moved as *mut u8;
    }
    // A region gathered from kept blocks spans several mappings, which mremap does not resize:
    // copied into a region of the new length instead.
    let copy = big(len, false);
    if !copy.is_null() {
        // SAFETY: both regions hold at least the smaller length and do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(block.at as *const u8, copy, block.len.min(len)) };
        free(block);
    }
    copy
}

fn unmap(block: Block) {
    if block.len > 0 {
        // SAFETY: the range is this allocator's and in no one's use; a failure leaves it mapped.
        unsafe { libc::munmap(block.at as *mut libc::c_void, block.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// These tests map and free big blocks; side by side, one would take the other's.
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

    #[test]
    fn a_freed_table_is_mapped_again_for_the_next_of_its_size() {
        let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        keep_at_most(1 << 30);
        // Another test's thread may take the block in between; it comes back on a later try.
        let reused = (0..3).any(|_| {
            let first = vec![7u64; 8 << 20];
            assert_eq!(first.as_ptr() as usize % PAGE, 0, "on a page boundary");
            drop(first);
            let before = REUSED.load(std::sync::atomic::Ordering::Relaxed);
            let second = vec![0u64; 8 << 20];
            assert!(second.iter().all(|&x| x == 0), "a kept block comes back zeroed where asked");
            REUSED.load(std::sync::atomic::Ordering::Relaxed) >= before + (64 << 20)
        });
        assert!(reused, "the freed block was not taken again");
    }

    #[test]
    fn a_larger_table_is_made_of_kept_blocks_pages_and_grows_whole() {
        let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        keep_at_most(1 << 30);
        release_kept();
        // Another test's thread may take the block in between; it comes back on a later try.
        let gathered = (0..3).find_map(|_| {
            drop(vec![7u64; 8 << 20]);
            let before = REUSED.load(std::sync::atomic::Ordering::Relaxed);
            let larger = vec![0u64; 24 << 20];
            let moved = REUSED.load(std::sync::atomic::Ordering::Relaxed) >= before + (64 << 20);
            moved.then_some(larger)
        });
        let mut larger = gathered.expect("the kept block was not moved into the larger table");
        assert!(larger.iter().all(|&x| x == 0), "zeroed where asked, the moved pages too");
        // Its region is two mappings now (the moved pages and the fresh rest): growing it
        // copies instead of resizing in place, and nothing is lost.
        larger.iter_mut().enumerate().for_each(|(i, x)| *x = i as u64);
        larger.extend(std::iter::repeat_n(1u64, 24 << 20));
        assert_eq!(larger.len(), 48 << 20);
        assert!(larger[..24 << 20].iter().enumerate().all(|(i, &x)| x == i as u64));
        assert!(larger[24 << 20..].iter().all(|&x| x == 1));
    }

    #[test]
    fn released_blocks_are_not_taken_again() {
        let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        keep_at_most(1 << 30);
        drop(vec![7u64; 8 << 20]);
        release_kept();
        let before = REUSED.load(std::sync::atomic::Ordering::Relaxed);
        let fresh = vec![0u64; 8 << 20];
        assert!(fresh.iter().all(|&x| x == 0));
        assert_eq!(REUSED.load(std::sync::atomic::Ordering::Relaxed), before, "mapped afresh");
    }

    #[test]
    fn big_regions_grow_and_shrink_across_the_threshold_whole() {
        let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let mut grown = vec![1u32; 16 << 20];
        grown.extend(std::iter::repeat_n(2u32, 16 << 20));
        assert_eq!((grown[0], grown[(16 << 20) - 1], grown[16 << 20], grown.len()), (1, 1, 2, 32 << 20));
        grown.truncate(4);
        grown.shrink_to_fit();
        assert_eq!(grown, [1, 1, 1, 1], "moved below the threshold, whole");
        let mut small = vec![3u8; 1 << 20];
        small.resize(64 << 20, 4);
        assert_eq!((small[0], small[(1 << 20) - 1], small[1 << 20], small[(64 << 20) - 1]), (3, 3, 4, 4));
    }
}
