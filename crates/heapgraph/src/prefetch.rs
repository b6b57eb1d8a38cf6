//! A hint to the CPU to start loading a value a loop will read soon: random reads of big
//! per-object tables each wait for memory, and a loop that knows its next objects ahead (the
//! next events of a trace, the next objects of a preorder) can overlap those waits.

/// How many objects ahead of a walk down a dominator tree's preorder the walk asks for their
/// tables' entries: far enough for the loads to arrive, near enough to stay cached.
pub const PREORDER_AHEAD: usize = 16;

/// Asks the CPU to start loading `items[index]` (if there is one) into the cache. Only a hint:
/// it never faults, so a stale index costs nothing but the wasted load.
#[inline(always)]
pub fn prefetch<T>(items: &[T], index: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(item) = items.get(index) {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE is part of x86_64, and a prefetch reads nothing the program sees.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((item as *const T).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (items, index);
}
