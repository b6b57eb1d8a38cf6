//! One storage type for the pipeline's large per-object arrays: a [`Table`] is a slice that
//! lives in memory or, once the tables in memory would pass the memory budget, in a
//! memory-mapped work file. The analyses index it like any slice and never ask which.
//!
//! Work files are created in the work folder ([`spill_to`]) and unlinked at once: the kernel
//! frees the space when the mapping goes, so nothing is left behind by an exit, Ctrl+C or a
//! kill, and there are no stale files to clean up at the next start. The space is reserved
//! when the file is made (`posix_fallocate`; where the disk is full, again once the work files
//! being closed behind are closed), so a full disk is noticed then — the table stays
//! in memory and [`spill_note`] says how much room was missing — not as a fault on a later
//! write to the mapping.

use std::fs::File;
use std::ops::{Deref, DerefMut};
use std::path::PathBuf;
use std::ptr::NonNull;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use work_file::{
    PAGE, WRITTEN_OUT, close_behind, let_go, map_reserved, page_out, work_file, write_in_pages, write_out,
};

/// Types whose every bit pattern, zeros included, is a value, with no padding: what a mapped
/// file may hold.
///
/// # Safety
/// Only for `Copy` types without padding or invalid bit patterns.
pub unsafe trait Plain: Copy + Send + Sync + 'static {}

unsafe impl Plain for u8 {}
unsafe impl Plain for u16 {}
unsafe impl Plain for u32 {}
unsafe impl Plain for u64 {}
unsafe impl Plain for usize {}
unsafe impl Plain for [u32; 2] {}
unsafe impl Plain for [u32; 3] {}
unsafe impl Plain for [u64; 2] {}

/// Where tables go once the budget is used up; none set: always in memory.
struct Spill {
    budget: u64,
    dir: PathBuf,
}

static SPILL: Mutex<Option<Spill>> = Mutex::new(None);
/// Bytes of the tables now in memory.
static IN_MEMORY: AtomicU64 = AtomicU64::new(0);
/// Bytes of the tables now in work files, and the most at once.
static MAPPED: AtomicU64 = AtomicU64::new(0);
static MAPPED_PEAK: AtomicU64 = AtomicU64::new(0);
/// Why a table that should have gone to disk stayed in memory (the first time).
static NOTE: Mutex<Option<String>> = Mutex::new(None);

/// From now on, tables that would take the tables in memory past `budget` bytes are mapped
/// from work files in `dir`; `None` keeps every table in memory.
pub fn spill_to(budget: u64, dir: Option<PathBuf>) {
    let spill = dir.map(|dir| Spill { budget, dir });
    *SPILL.lock().unwrap_or_else(|e| e.into_inner()) = spill;
}

/// The budget tables are held to now ([`spill_to`]); None while every table stays in memory.
pub fn budget() -> Option<u64> {
    SPILL.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|spill| spill.budget)
}

/// Whether tables of `bytes` more, read at random, would all stay in memory now: then the
/// order they are made in places none of them differently.
pub fn fits_in_memory(bytes: u64) -> bool {
    budget().is_none_or(|budget| within(bytes, budget))
}

/// Whether the tables in memory and `bytes` more take at most `limit`.
fn within(bytes: u64, limit: u64) -> bool {
    IN_MEMORY.load(Ordering::Relaxed).saturating_add(bytes) <= limit
}

/// The most bytes of tables that were in work files at once.
pub fn mapped_peak() -> u64 {
    MAPPED_PEAK.load(Ordering::Relaxed)
}

/// Why spilling failed, once (a full disk, a missing folder), for the run to say in one line.
pub fn spill_note() -> Option<String> {
    NOTE.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// How a table in a file is about to be read ([`Table::expect`]), or how a table will be used
/// ([`Table::with_capacity_in_order`]: where it goes). A fault on a mapped file
/// normally brings in its neighbours too (some 32 pages): right for a pass in order, but for
/// reads by object id at random inside a tight memory limit it evicts the pages still in use
/// for pages never read — a 400 MB dump in a 200 MB cgroup took seven times as long with it on
/// for the depth-first numbering. A table to be read at random that fits in half the budget
/// (the page cache's share of the memory) is read in whole first, in order: one sequential
/// read rather than a fault for each page it has (the numbering of a 96 M-object dump in a 2
/// GiB cgroup: 11 s, then 5 s).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Random,
    InOrder,
}

/// Fresh zeroed tables this big are faulted in by all workers at once ([`fault_in`]).
const FAULTED_TOGETHER: u64 = 64 << 20;

/// Whether a table of `bytes` more leaves the tables in memory within half the budget: a table
/// faulted in whole at once ([`fault_in`]) takes its memory before it is used, and inside a
/// tight memory limit that pushes out pages still in use (the mapped dump, the work files):
/// a 96 M-object dump in a 2 GiB cgroup took 10 % longer with every table faulted in early.
fn room_to_spare(bytes: u64) -> bool {
    budget().is_none_or(|budget| within(bytes, budget / 2))
}

/// Touches every page of `values`, which are zeros, from all workers at once. A fresh zeroed
/// table is a mapping with no pages yet, each faulted in (and zeroed by the kernel) at its
/// first write; on a virtual machine whose host takes back the memory its guest frees, that
/// costs up to seconds per GiB (with huge pages, as the binary's allocator once asked for, a
/// second per 400 MB table), and a table written by one worker (the group table copied from an
/// index, the holders of a pass whose other workers are busy) would pay it all on that worker.
/// With 4 KiB pages a reopening measured the same with and without it (1.00×). Pages already
/// there (a block the allocator kept) are only written over with the zeros they hold.
fn fault_in<T: Plain>(values: &mut [T]) {
    use rayon::prelude::*;
    // SAFETY: `T` is plain (every bit pattern a value, no padding): its bytes may be written.
    let bytes =
        unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u8>(), size_of_val(values)) };
    bytes.par_chunks_mut(8 << 20).for_each(|chunk| {
        let whole = populated(chunk);
        let (head, rest) = chunk.split_at_mut(whole.start);
        let tail = &mut rest[whole.len()..];
        for page in head.chunks_mut(PAGE).chain(tail.chunks_mut(PAGE)) {
            // SAFETY: a byte of the chunk, which is zero, written with the zero it holds;
            // volatile so that the write, which changes nothing, is not left out.
            unsafe { std::ptr::write_volatile(page.as_mut_ptr(), 0) };
        }
    });
}

/// The whole pages of `chunk` (its place in it) backed by the kernel in one call, as writes
/// would back them but without a fault per page (on Linux since 5.14; a 96 M-object
/// reopening's 1.4 GB of fresh tables took 0.71 s of system time instead of 0.82). Empty where
/// the call is refused: the caller writes those pages.
fn populated(chunk: &mut [u8]) -> std::ops::Range<usize> {
    let start = chunk.as_mut_ptr() as usize;
    let first = start.next_multiple_of(PAGE) - start;
    let end = (start + chunk.len()) / PAGE * PAGE - start;
    if end <= first {
        return 0..0;
    }
    #[cfg(target_os = "linux")]
    {
        // SAFETY: whole pages of the chunk, which the caller holds mutably; backing a page
        // changes none of the values (they stay the zeros they are).
        let asked = unsafe {
            libc::madvise(chunk.as_mut_ptr().add(first).cast(), end - first, libc::MADV_POPULATE_WRITE)
        };
        if asked == 0 {
            return first..end;
        }
    }
    0..0
}

/// A slice in memory or in a mapped work file.
pub struct Table<T: Plain> {
    /// Where the values are and how many, as the storage holds them, kept beside it so that
    /// an index reads no variant: a match per index was a sixth of a pass down the preorder.
    /// Set anew by [`Table::new`] and [`Table::sync`] whenever the storage changes.
    values: NonNull<T>,
    len: usize,
    storage: Storage<T>,
}

// SAFETY: a table owns its values (a vector or a mapping of its own) as a `Vec<T>` would, and
// `values` only points into them; `Plain` values are `Send` and `Sync`.
unsafe impl<T: Plain> Send for Table<T> {}
unsafe impl<T: Plain> Sync for Table<T> {}

enum Storage<T> {
    Memory(Vec<T>),
    /// `len` values at the start of a mapping of the whole work file (room for more when the
    /// table grows by [`Table::push`]).
    Mapped {
        map: memmap2::MmapMut,
        len: usize,
        file: File,
    },
    /// `len` values read in place from a region of a file someone else wrote (an index): a
    /// private copy-on-write mapping, so the clean pages stay the page cache's (the kernel may
    /// drop and read them again) and a value written changes only this process's copy.
    Private {
        map: memmap2::MmapMut,
        len: usize,
    },
}

impl<T: Plain> Table<T> {
    fn new(storage: Storage<T>) -> Table<T> {
        let mut table = Table { values: NonNull::dangling(), len: 0, storage };
        table.sync();
        table
    }

    /// `values` and `len` as the storage now holds them.
    fn sync(&mut self) {
        let (values, len) = match &mut self.storage {
            Storage::Memory(v) => (v.as_mut_ptr(), v.len()),
            Storage::Mapped { map, len, .. } | Storage::Private { map, len } => {
                (map.as_mut_ptr().cast::<T>(), *len)
            }
        };
        (self.values, self.len) = (NonNull::new(values).unwrap_or(NonNull::dangling()), len);
    }

    /// `len` copies of `value`.
    pub fn filled(len: usize, value: T) -> Table<T> {
        Table::filled_for(len, value, Access::Random)
    }

    /// [`Table::filled`] for a table read in order: see [`Table::with_capacity_in_order`].
    pub fn filled_in_order(len: usize, value: T) -> Table<T> {
        Table::filled_for(len, value, Access::InOrder)
    }

    fn filled_for(len: usize, value: T, access: Access) -> Table<T> {
        let bytes = (len as u64).saturating_mul(size_of::<T>() as u64);
        if let Some((map, file)) = map_if_over_budget(bytes, access) {
            let mut table = Table::new(Storage::Mapped { map, len, file });
            // A fresh file reads as zeros; anything else is written.
            if bytes_of(&value).iter().any(|&b| b != 0) {
                table.fill(value);
            }
            MAPPED_PEAK.fetch_max(MAPPED.fetch_add(bytes, Ordering::Relaxed) + bytes, Ordering::Relaxed);
            return table;
        }
        let mut values = vec![value; len];
        if bytes >= FAULTED_TOGETHER && bytes_of(&value).iter().all(|&b| b == 0) && room_to_spare(bytes) {
            fault_in(&mut values);
        }
        Table::from(values)
    }

    /// An empty table with room for `capacity` values (in a work file past the budget).
    pub fn with_capacity(capacity: usize) -> Table<T> {
        Table::with_capacity_for(capacity, Access::Random)
    }

    /// [`Table::with_capacity`] for a table that is filled and read in order: it stays in
    /// memory only while the tables there take at most half the budget, leaving the rest to
    /// tables made later and read at random. In a work file, read-around makes a pass in order
    /// cheap, while a table read at random pays a disk read for each page it misses: the
    /// depth-first search's order of the objects, made before the dominator forest's buckets,
    /// once took the room the buckets then lacked.
    pub fn with_capacity_in_order(capacity: usize) -> Table<T> {
        Table::with_capacity_for(capacity, Access::InOrder)
    }

    fn with_capacity_for(capacity: usize, access: Access) -> Table<T> {
        let bytes = (capacity as u64).saturating_mul(size_of::<T>() as u64);
        match map_if_over_budget(bytes, access) {
            Some((map, file)) => {
                MAPPED_PEAK.fetch_max(MAPPED.fetch_add(bytes, Ordering::Relaxed) + bytes, Ordering::Relaxed);
                Table::new(Storage::Mapped { map, len: 0, file })
            }
            None => Table::from(Vec::with_capacity(capacity)),
        }
    }

    /// `f(0), f(1), …, f(len - 1)`.
    pub fn from_fn(len: usize, f: impl Fn(usize) -> T) -> Table<T> {
        let Some(first) = (len > 0).then(|| f(0)) else { return Table::default() };
        let mut table = Table::filled(len, first);
        table.iter_mut().enumerate().skip(1).for_each(|(i, x)| *x = f(i));
        table
    }

    /// Appends a value. A table in memory that must grow past the budget moves to a work file;
    /// a mapped one grows its file (if the disk is full, it moves to memory, with a note).
    pub fn push(&mut self, value: T) {
        if let Storage::Memory(v) = &mut self.storage
            && v.len() < v.capacity()
        {
            // No reallocation: the values stay where they are.
            v.push(value);
            self.len += 1;
            return;
        }
        self.push_moving(value);
        self.sync();
    }

    /// [`Table::push`] where the values may move (or the storage change); `values` and `len`
    /// are left for the caller to sync.
    fn push_moving(&mut self, value: T) {
        let size = size_of::<T>();
        match &mut self.storage {
            Storage::Private { .. } => {
                // A file's region cannot grow: the values move to a table of their own.
                let mut own = Table::with_capacity(self.len() * 2 + 1);
                own.extend_from_slice(self);
                own.push(value);
                *self = own;
            }
            Storage::Memory(v) if v.len() < v.capacity() => v.push(value),
            Storage::Memory(v) => {
                let room = (v.capacity() * 2).max(1024);
                let extra = ((room - v.capacity()) * size) as u64;
                match map_if_over_budget(extra, Access::Random) {
                    Some((mut map, file)) => {
                        let bytes = (room * size) as u64;
                        drop(map);
                        map = match map_reserved(&file, bytes) {
                            Ok(map) => map,
                            Err(why) => return self.keep_in_memory(why, value),
                        };
                        if let Err(e) = write_in_pages(&mut map, &file, bytes_of_slice(v)) {
                            return self.keep_in_memory(format!("cannot write a work file ({e})"), value);
                        }
                        MAPPED_PEAK
                            .fetch_max(MAPPED.fetch_add(bytes, Ordering::Relaxed) + bytes, Ordering::Relaxed);
                        let (len, held) = (v.len(), (v.capacity() * size) as u64);
                        self.storage = Storage::Mapped { map, len, file };
                        IN_MEMORY.fetch_sub(held, Ordering::Relaxed);
                        self.push(value);
                    }
                    None => {
                        v.reserve_exact(room - v.len());
                        IN_MEMORY.fetch_add(extra, Ordering::Relaxed);
                        v.push(value);
                    }
                }
            }
            Storage::Mapped { map, len, file } if (*len + 1) * size <= map.len() => {
                map[*len * size..(*len + 1) * size].copy_from_slice(bytes_of(&value));
                *len += 1;
                // The value that fills a chunk (or, for sizes that do not divide it, crosses
                // into the next) writes it out.
                let end = *len * size;
                if end / WRITTEN_OUT > (end - size) / WRITTEN_OUT {
                    write_out(map, file, end / WRITTEN_OUT * WRITTEN_OUT - WRITTEN_OUT);
                }
            }
            Storage::Mapped { map, file, .. } => {
                let old = map.len() as u64;
                match map_reserved(file, old * 2) {
                    Ok(bigger) => {
                        *map = bigger;
                        MAPPED_PEAK
                            .fetch_max(MAPPED.fetch_add(old, Ordering::Relaxed) + old, Ordering::Relaxed);
                        self.push(value);
                    }
                    Err(why) => self.keep_in_memory(why, value),
                }
            }
        }
    }

    /// How many values can be appended to a table in memory without it growing (0 for a table
    /// in a file, whose pushes write it out as they fill it).
    pub fn room_in_memory(&self) -> usize {
        match &self.storage {
            Storage::Memory(v) => v.capacity() - v.len(),
            Storage::Mapped { .. } | Storage::Private { .. } => 0,
        }
    }

    /// Appends `values` (growing as [`Table::push`] does: to a work file past the budget).
    pub fn extend_from_slice(&mut self, values: &[T]) {
        if let Storage::Memory(v) = &mut self.storage
            && v.capacity() - v.len() >= values.len()
        {
            v.extend_from_slice(values);
            self.sync();
            return;
        }
        values.iter().for_each(|&value| self.push(value));
    }

    /// A copy of `values` (in a work file past the budget).
    pub fn from_slice(values: &[T]) -> Table<T> {
        let Some(&first) = values.first() else { return Table::default() };
        let mut table = Table::filled(values.len(), first);
        table.copy_from_slice(values);
        table
    }

    /// Empties the table, keeping its room (memory or file) for what is pushed next.
    pub fn clear(&mut self) {
        self.truncate(0);
    }

    /// Keeps the first `keep` values (all when there are fewer), and the room for the rest.
    pub fn truncate(&mut self, keep: usize) {
        match &mut self.storage {
            Storage::Memory(v) => v.truncate(keep),
            Storage::Mapped { len, .. } | Storage::Private { len, .. } => *len = keep.min(*len),
        }
        self.sync();
    }

    /// `len` values read in place from `file` at byte `offset` (which must be a multiple of
    /// the type's alignment), through a private copy-on-write mapping: nothing is copied until
    /// it is written, and the clean pages count as the file's cache, not as the process's
    /// memory. The file must not be truncated or written in place while the table lives (an
    /// index is replaced by rename, never written in place).
    pub fn map_private(file: &File, offset: u64, len: usize) -> std::io::Result<Table<T>> {
        let bytes = len.checked_mul(size_of::<T>()).ok_or_else(|| std::io::Error::other("too large"))?;
        if bytes == 0 {
            return Ok(Table::default());
        }
        if !offset.is_multiple_of(align_of::<T>() as u64) {
            return Err(std::io::Error::other("a table at an unaligned offset"));
        }
        // SAFETY: private, so this process's writes never reach the file; see above for others'.
        let map = unsafe { memmap2::MmapOptions::new().offset(offset).len(bytes).map_copy(file) }?;
        Ok(Table::new(Storage::Private { map, len }))
    }

    /// Says how the table is about to be read, when it is in a file: [`Access::Random`] turns
    /// off the kernel's read-around for it (reading it in whole first where it fits in half the
    /// budget), [`Access::InOrder`] turns it back on. Nothing for a table in memory.
    pub fn expect(&self, access: Access) {
        let map = match &self.storage {
            Storage::Memory(_) => return,
            Storage::Mapped { map, .. } | Storage::Private { map, .. } => map,
        };
        match access {
            Access::Random => {
                let _ = map.advise(memmap2::Advice::Random);
                if budget().is_some_and(|budget| map.len() as u64 <= budget / 2) {
                    // Read ahead with read-around off: the pages come one by one, not in the
                    // large folios read-around takes, which on a machine that hands free memory
                    // back to its host are mostly memory it must back anew (the dominator phase
                    // of a 96 M-object dump in a 2 GiB cgroup: 19.1-19.5 s instead of 20.5-22.3).
                    // Older kernels refuse MADV_POPULATE_READ; the faults then read it.
                    let _ = map.advise(memmap2::Advice::WillNeed);
                    let _ = map.advise(memmap2::Advice::PopulateRead);
                }
            }
            Access::InOrder => {
                let _ = map.advise(memmap2::Advice::Normal);
            }
        }
    }

    /// Says the table is not read for a while: the pages of a table in a file leave memory now
    /// (clean ones; see `page_out`), so that the tables read meanwhile keep theirs. The
    /// kernel would otherwise keep a mapped table's pages over the pages read at random beside
    /// it: the dominator tree's byte sizes, unread during the depth-first search, kept the
    /// search's references out of a 2 GiB cgroup. Nothing for a table in memory.
    pub fn set_aside(&self) {
        let map = match &self.storage {
            Storage::Memory(_) => return,
            Storage::Mapped { map, .. } | Storage::Private { map, .. } => map,
        };
        // A private page that was written has no file to go to and stays.
        page_out(map, 0..map.len());
    }

    /// Lets the pages of the values `range` of a table in a work file go (`let_go`): they are
    /// final and not read again soon. Nothing for a table in memory.
    pub fn let_go(&self, range: std::ops::Range<usize>) {
        if let Storage::Mapped { map, file, .. } = &self.storage {
            let size = size_of::<T>();
            let_go(map, file, range.start * size..range.end * size);
        }
    }

    /// Gives back the room a table in memory grew beyond its length (a mapped one keeps its
    /// file: disk, not memory).
    pub fn shrink_to_fit(&mut self) {
        if let Storage::Memory(v) = &mut self.storage {
            let before = v.capacity();
            v.shrink_to_fit();
            IN_MEMORY.fetch_sub(((before - v.capacity()) * size_of::<T>()) as u64, Ordering::Relaxed);
        }
        self.sync();
    }

    /// Moves a table that could not grow on disk to memory, noting why, and appends `value`.
    fn keep_in_memory(&mut self, why: String, value: T) {
        NOTE.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(why);
        let mut v: Vec<T> = Vec::with_capacity(self.len() * 2 + 1);
        v.extend_from_slice(self);
        v.push(value);
        *self = Table::from(v);
    }

    pub fn is_mapped(&self) -> bool {
        matches!(self.storage, Storage::Mapped { .. })
    }

    /// Says the table, read at random while it was made, is read in order from now on: one in
    /// memory that a table read in order would not have been given ([`Access::InOrder`]) goes
    /// to a work file now, written out in order, and leaves its memory to the tables made
    /// next. (If no work file can be had, it stays, with a note.)
    pub fn read_in_order_from_now(&mut self) {
        let Storage::Memory(v) = &self.storage else { return };
        let held = (v.capacity() * size_of::<T>()) as u64;
        let others = IN_MEMORY.load(Ordering::Relaxed).saturating_sub(held);
        if budget().is_none_or(|budget| others.saturating_add(held) <= budget / 2) {
            return;
        }
        let bytes = size_of_val(&v[..]) as u64;
        let Some((mut map, file)) = map_if_over_budget(bytes, Access::InOrder) else { return };
        if let Err(e) = write_in_pages(&mut map, &file, bytes_of_slice(v)) {
            NOTE.lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert(format!("cannot write a work file ({e})"));
            return;
        }
        MAPPED_PEAK.fetch_max(MAPPED.fetch_add(bytes, Ordering::Relaxed) + bytes, Ordering::Relaxed);
        IN_MEMORY.fetch_sub(held, Ordering::Relaxed);
        let len = v.len();
        self.storage = Storage::Mapped { map, len, file };
        self.sync();
    }

    /// Whether the table is read in place from a file someone else wrote ([`Table::map_private`]):
    /// a value written there is a fresh private page outside the budget's count.
    pub fn is_read_in_place(&self) -> bool {
        matches!(self.storage, Storage::Private { .. })
    }
}

/// A slice's bytes.
fn bytes_of_slice<T: Plain>(values: &[T]) -> &[u8] {
    // SAFETY: `Plain` types have no padding, so every byte is initialised.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), size_of_val(values)) }
}

/// Any value's bytes (for telling a zero fill from another).
fn bytes_of<T: Plain>(value: &T) -> &[u8] {
    // SAFETY: `Plain` types have no padding, so every byte is initialised.
    unsafe { std::slice::from_raw_parts((value as *const T).cast::<u8>(), size_of::<T>()) }
}

/// A zeroed shared mapping of a fresh, unlinked work file of `bytes`, when spilling is on and
/// the tables in memory would pass the budget (half of it for a table `access`ed in order);
/// None otherwise or when the file cannot be made.
fn map_if_over_budget(bytes: u64, access: Access) -> Option<(memmap2::MmapMut, File)> {
    let spill = SPILL.lock().unwrap_or_else(|e| e.into_inner());
    let spill = spill.as_ref()?;
    let limit = match access {
        Access::Random => spill.budget,
        Access::InOrder => spill.budget / 2,
    };
    if bytes == 0 || within(bytes, limit) {
        return None;
    }
    match work_file(&spill.dir, bytes) {
        Ok(map) => Some(map),
        Err(why) => {
            let mut note = NOTE.lock().unwrap_or_else(|e| e.into_inner());
            note.get_or_insert(why);
            None
        }
    }
}

/// Memory that other arrays hold while tables are made (the heap graph during its analysis):
/// it counts against the budget until this is dropped.
pub struct Held(u64);

impl Held {
    pub fn new(bytes: u64) -> Held {
        IN_MEMORY.fetch_add(bytes, Ordering::Relaxed);
        Held(bytes)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        IN_MEMORY.fetch_sub(self.0, Ordering::Relaxed);
    }
}

impl<T: Plain> From<Vec<T>> for Table<T> {
    fn from(v: Vec<T>) -> Table<T> {
        IN_MEMORY.fetch_add((v.capacity() * size_of::<T>()) as u64, Ordering::Relaxed);
        Table::new(Storage::Memory(v))
    }
}

impl<T: Plain> Drop for Table<T> {
    fn drop(&mut self) {
        match std::mem::replace(&mut self.storage, Storage::Memory(Vec::new())) {
            Storage::Memory(v) => {
                IN_MEMORY.fetch_sub((v.capacity() * size_of::<T>()) as u64, Ordering::Relaxed);
            }
            Storage::Mapped { map, file, .. } => {
                MAPPED.fetch_sub(map.len() as u64, Ordering::Relaxed);
                close_behind(map, file);
            }
            Storage::Private { .. } => {}
        }
    }
}

impl<T: Plain> Deref for Table<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: `values` and `len` are the storage's (synced at every change): `len`
        // initialised values of a `Plain` type, aligned (a vector's, or a page-aligned
        // mapping's), owned by `self` and so alive as long as the borrow.
        unsafe { std::slice::from_raw_parts(self.values.as_ptr(), self.len) }
    }
}

impl<T: Plain> DerefMut for Table<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, borrowed mutably through `self`; `values` was taken from the
        // storage mutably ([`Table::sync`]).
        unsafe { std::slice::from_raw_parts_mut(self.values.as_ptr(), self.len) }
    }
}

impl<T: Plain> Default for Table<T> {
    fn default() -> Table<T> {
        Table::from(Vec::new())
    }
}

impl<T: Plain> Clone for Table<T> {
    fn clone(&self) -> Table<T> {
        let mut copy = match self.first() {
            Some(&first) => Table::filled(self.len(), first),
            None => Table::default(),
        };
        copy.copy_from_slice(self);
        copy
    }
}

impl<T: Plain + PartialEq> PartialEq for Table<T> {
    fn eq(&self, other: &Table<T>) -> bool {
        **self == **other
    }
}

impl<T: Plain + Eq> Eq for Table<T> {}

impl<T: Plain + PartialEq> PartialEq<Vec<T>> for Table<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        **self == **other
    }
}

impl<T: Plain> FromIterator<T> for Table<T> {
    fn from_iter<I: IntoIterator<Item = T>>(values: I) -> Table<T> {
        let mut table = Table::default();
        values.into_iter().for_each(|value| table.push(value));
        table.shrink_to_fit();
        table
    }
}

impl<'a, T: Plain> IntoIterator for &'a Table<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Plain + std::fmt::Debug> std::fmt::Debug for Table<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

#[cfg(test)]
mod tests;
mod work_file;
