//! A table's work file and its pages: made, reserved and unlinked at once, and the pages of
//! a table filled in order written out and let go as it fills.

use std::fs::File;
use std::sync::atomic::{AtomicU64, Ordering};

/// A table filled in order in a work file is written out a chunk of this many bytes at a time.
pub(super) const WRITTEN_OUT: usize = 16 << 20;

/// Starts writing out the `WRITTEN_OUT` bytes of `map` from `at`, and lets the chunk before
/// go, written out by now ([`let_go`]). A table filled in order is read again in order, which
/// read-around makes cheap, while its dirty pages would stay until the kernel reclaims them
/// (`MADV_PAGEOUT` leaves dirty file pages for the flusher): inside a memory limit the page
/// cache then grows to the limit, over memory this process has not had yet, which on a machine
/// that hands freed memory back to its host costs like memory never touched. Let go, the
/// pages are taken again at once for the next chunk (the 96 M-object dump in a 2 GiB cgroup:
/// 0.89x the time, 15 s of system time instead of 27).
pub(super) fn write_out(map: &memmap2::MmapMut, file: &File, at: usize) {
    sync_range(file, at..at + WRITTEN_OUT, false);
    if let Some(before) = at.checked_sub(WRITTEN_OUT) {
        let_go(map, file, before..at);
    }
}

/// Writes `bytes` at the start of a fresh work file mapped as `map`, a page at a time, each
/// whole chunk written out and the one before let go as [`super::Table::push`] does. A
/// page-sized write takes one page for the page cache, where a copy through the mapping (faults
/// with read-around) or a larger write takes large folios, which on a machine that hands free
/// memory back to its host are mostly memory it must back anew: the offsets of a 96 M-object
/// dump, 256 MB moved to a work file in a 2 GiB cgroup, took 4 s of the reading that way.
pub(super) fn write_in_pages(map: &mut memmap2::MmapMut, file: &File, bytes: &[u8]) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt as _;
        for (chunk, at) in bytes.chunks(WRITTEN_OUT).zip((0..).step_by(WRITTEN_OUT)) {
            for (page, offset) in chunk.chunks(PAGE).zip((at..).step_by(PAGE)) {
                file.write_all_at(page, offset as u64)?;
            }
            if chunk.len() == WRITTEN_OUT {
                write_out(map, file, at);
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        map[..bytes.len()].copy_from_slice(bytes);
    }
    Ok(())
}

/// Writes `bytes` of a work file out (waiting for it where `wait`).
fn sync_range(file: &File, bytes: std::ops::Range<usize>, wait: bool) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd as _;
        let flags = match wait {
            true => {
                libc::SYNC_FILE_RANGE_WAIT_BEFORE
                    | libc::SYNC_FILE_RANGE_WRITE
                    | libc::SYNC_FILE_RANGE_WAIT_AFTER
            }
            false => libc::SYNC_FILE_RANGE_WRITE,
        };
        // SAFETY: a valid descriptor; a range of the file.
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), bytes.start as i64, bytes.len() as i64, flags);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, bytes, wait);
}

/// Lets the pages of `bytes` of a work file's mapping go: written out and waited for, unmapped
/// and dropped from the page cache (only pages of this shared mapping: its values stay in the
/// file, and a page written again meanwhile stays too).
pub(super) fn let_go(map: &memmap2::MmapMut, file: &File, bytes: std::ops::Range<usize>) {
    let start = bytes.start.next_multiple_of(PAGE);
    let end = (bytes.end / PAGE * PAGE).min(map.len());
    if start >= end {
        return;
    }
    sync_range(file, start..end, true);
    #[cfg(target_os = "linux")]
    // SAFETY: advice on a range of this shared mapping, whose pages are written out: the
    // values stay in the file.
    unsafe {
        libc::madvise(map.as_ptr().add(start) as *mut libc::c_void, end - start, libc::MADV_DONTNEED);
    }
    drop_written(file, start..end);
}

/// Drops `bytes` of a file from the page cache, written out and waited for first.
fn drop_written(file: &File, bytes: std::ops::Range<usize>) {
    sync_range(file, bytes.clone(), true);
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd as _;
        // SAFETY: advice on a range of an open file whose pages are written out.
        unsafe {
            libc::posix_fadvise(
                file.as_raw_fd(),
                bytes.start as i64,
                bytes.len() as i64,
                libc::POSIX_FADV_DONTNEED,
            );
        }
    }
}

/// Lets the clean pages of `bytes` of `map` go (`MADV_PAGEOUT`; changed pages of a file are
/// left to the kernel's flusher, and private ones stay).
pub(super) fn page_out(map: &memmap2::MmapMut, bytes: std::ops::Range<usize>) {
    debug_assert!(bytes.end <= map.len());
    #[cfg(target_os = "linux")]
    // SAFETY: advice on a range of this mapping; MADV_PAGEOUT changes no contents. Older
    // kernels refuse it, and then nothing changes.
    unsafe {
        libc::madvise(map.as_ptr().add(bytes.start) as *mut libc::c_void, bytes.len(), libc::MADV_PAGEOUT);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (map, bytes);
}

/// Unmaps and closes a work file on a thread of its own. The kernel frees an unlinked file's
/// blocks at its last close, and where the file system discards freed blocks as they are
/// freed (ext4 mounted with `discard`) the closing thread waits for the disk to discard every
/// block that was written out: 0.05-0.15 s for each of some twenty tables of a 96 M-object
/// dump imported in a 2 GiB cgroup, in the import's own path. If no thread can be had, the
/// file is closed here.
pub(super) fn close_behind(map: memmap2::MmapMut, file: File) {
    if let Err(std::sync::mpsc::SendError(unsent)) = send_to_closer(Closing::File(map, file)) {
        drop(unsent);
    }
}

/// Returns once every work file handed to [`close_behind`] so far is closed: their disk space
/// is free again (a work file that found the disk full waits for it before giving up).
pub(super) fn wait_for_closing() {
    let (done, closed) = std::sync::mpsc::channel();
    if send_to_closer(Closing::Told(done)).is_ok() {
        let _ = closed.recv();
    }
}

/// What the closing thread is handed, in turn.
enum Closing {
    File(memmap2::MmapMut, File),
    /// Told once everything handed before is closed.
    Told(std::sync::mpsc::Sender<()>),
}

/// Hands `closing` to the closing thread, started at the first call; gives it back where no
/// thread could be had.
fn send_to_closer(closing: Closing) -> Result<(), std::sync::mpsc::SendError<Closing>> {
    use std::sync::Mutex;
    use std::sync::mpsc::{Sender, channel};
    static CLOSER: Mutex<Option<Sender<Closing>>> = Mutex::new(None);
    let mut closer = CLOSER.lock().unwrap_or_else(|e| e.into_inner());
    if closer.is_none() {
        let (send, receive) = channel::<Closing>();
        let closing = std::thread::Builder::new().name("memcity-close".into());
        let close = move || {
            for closing in receive {
                match closing {
                    Closing::File(map, file) => drop((map, file)),
                    Closing::Told(done) => {
                        let _ = done.send(());
                    }
                }
            }
        };
        if closing.spawn(close).is_ok() {
            *closer = Some(send);
        }
    }
    match closer.as_ref() {
        Some(closer) => closer.send(closing),
        None => Err(std::sync::mpsc::SendError(closing)),
    }
}

/// The size of a page, which advice is given in and memory is backed in.
pub(super) const PAGE: usize = 4096;

/// Makes, reserves, unlinks and maps a work file.
pub(super) fn work_file(dir: &std::path::Path, bytes: u64) -> Result<(memmap2::MmapMut, File), String> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = format!("memcity-{}-{}.work", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    let path = dir.join(name);
    let shown = dir.display();
    // The default folder (the user's cache) is made when first needed.
    let _ = std::fs::create_dir_all(dir);
    let file = File::options()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| format!("cannot make a work file in {shown}: {e}"))?;
    let _ = std::fs::remove_file(&path);
    let map = map_reserved(&file, bytes).map_err(|e| format!("{e} in the work folder {shown}"))?;
    Ok((map, file))
}

/// Reserves `bytes` of the file and maps all of it. Where the disk is full, once more after
/// the work files being closed behind are closed (their space is freed as they are).
pub(super) fn map_reserved(file: &File, bytes: u64) -> Result<memmap2::MmapMut, String> {
    let reserved = reserve(file, bytes).or_else(|_| {
        wait_for_closing();
        reserve(file, bytes)
    });
    reserved.map_err(|e| {
        format!("no room for {} more ({e}); free some or give --work-dir", crate::budget::bytes_text(bytes))
    })?;
    // SAFETY: the file is this process's alone (made new, already unlinked).
    unsafe { memmap2::MmapMut::map_mut(file) }.map_err(|e| format!("cannot map a work file ({e})"))
}

/// Gives the file its length with the disk space allocated, so writes cannot fail later.
fn reserve(file: &File, bytes: u64) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd as _;
        let len = libc::off_t::try_from(bytes).map_err(|_| std::io::Error::other("too large"))?;
        // SAFETY: a valid descriptor; posix_fallocate returns the error instead of setting errno.
        match unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len) } {
            0 => Ok(()),
            e => Err(std::io::Error::from_raw_os_error(e)),
        }
    }
    #[cfg(not(target_os = "linux"))]
    file.set_len(bytes)
}
