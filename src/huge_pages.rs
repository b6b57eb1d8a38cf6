//! Big tables ask the kernel for huge pages. An import fills gigabytes of fresh tables (numbers,
//! referrers, the dominator forest), and on virtual machines every 4 KiB page fault costs
//! microseconds: a 1 GB heap snapshot spent a third of its import time faulting pages in. With
//! transparent huge pages in `madvise` mode (the usual default) one fault maps 2 MiB instead.
//! Small allocations are left alone: huge pages would only round their memory up.

use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator, advising huge pages for allocations of at least [`BIG`] bytes.
pub struct HugePages;

/// Allocations this big or bigger are advised: per-object tables of heaps with millions of
/// objects. (8 MiB made an HPROF import without dominators slower: more, smaller regions to
/// find huge pages for.)
const BIG: usize = 32 << 20;
const HUGE_PAGE: usize = 2 << 20;

unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is passed on unchanged.
        let p = unsafe { System.alloc(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { System.alloc_zeroed(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        advise(p, new_size);
        p
    }
}

/// Advises huge pages for the whole 2 MiB pages inside `[p, p + size)`; a hint only, so its
/// result is ignored.
fn advise(p: *mut u8, size: usize) {
    if p.is_null() || size < BIG {
        return;
    }
    let start = (p as usize).next_multiple_of(HUGE_PAGE);
    let end = (p as usize + size) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        // SAFETY: the range lies inside the allocation just made; madvise only changes how the
        // kernel backs it, never its contents.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
}
