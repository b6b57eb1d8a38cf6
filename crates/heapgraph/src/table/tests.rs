use super::*;

/// The spill setting is one for the process: everything that changes it is in this one test,
/// step by step (other tests may see tables mapped meanwhile, which must not matter).
#[test]
fn tables_read_the_same_in_memory_and_mapped() {
    let dir = std::env::temp_dir().join(format!("memcity-tables-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let in_memory = Table::from_fn(100_000, |i| (i as u64) * 3);
    assert!(!in_memory.is_mapped());

    spill_to(0, Some(dir.clone()));
    let mut mapped = Table::from_fn(100_000, |i| (i as u64) * 3);
    assert!(mapped.is_mapped(), "over a budget of 0 every table is mapped");
    assert_eq!(mapped.room_in_memory(), 0, "a mapped table's pushes write it out: no run copied at once");
    assert_eq!(mapped, in_memory);
    let pairs = Table::filled(1_000, [7u32, u32::MAX]);
    assert!(pairs.is_mapped() && pairs.iter().all(|&p| p == [7, u32::MAX]));
    assert!(Table::filled(10, 0u32).iter().all(|&x| x == 0));
    mapped[5] = 1;
    let copy = mapped.clone();
    assert!(copy.is_mapped() && copy[5] == 1 && copy[6] == 18);
    assert!(mapped_peak() >= 2 * 800_000);
    // Other tests' tables are made in the folder meanwhile, each there for an instant (so the
    // folder need never be seen empty on a busy machine): every file seen must be gone within
    // moments, as each work file has a name of its own and one left behind would stay.
    let files = || -> std::collections::HashSet<_> {
        std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name()).collect()
    };
    let seen = files();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    while !files().is_disjoint(&seen) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(files().is_disjoint(&seen), "work files are unlinked at once: {seen:?}");
    assert!(Table::<u32>::default().is_empty());
    let mut room = Table::with_capacity(10_000);
    (0..20_000u32).for_each(|i| room.push(i));
    assert!(room.is_mapped() && room.len() == 20_000 && room[19_999] == 19_999);
    // Grown value by value: into a work file, and the file grows.
    let mut grown = Table::default();
    (0..300_000u64).for_each(|i| grown.push(i * 7));
    assert!(grown.is_mapped() && grown.len() == 300_000 && grown[299_999] == 299_999 * 7);
    assert!(grown.iter().enumerate().all(|(i, &x)| x == i as u64 * 7));
    // Read at random: the work file's map reads no neighbours, until it is read in order again.
    assert!(!advised_random(mapped.as_ptr() as usize), "read-around is on by default");
    mapped.expect(Access::Random);
    assert!(advised_random(mapped.as_ptr() as usize));
    mapped.expect(Access::InOrder);
    assert!(!advised_random(mapped.as_ptr() as usize));
    grown.expect(Access::Random);
    assert!(advised_random(grown.as_ptr() as usize), "after it grew");
    in_memory.expect(Access::Random);
    assert!(!advised_random(in_memory.as_ptr() as usize), "nothing to advise in memory");
    // Read at random and within half the budget: read in whole first. A fresh file's pages
    // are not in memory until touched (zeros are not written).
    let fresh = Table::filled(1 << 20, 0u32);
    assert!(fresh.is_mapped() && resident(&fresh) == 0, "nothing read yet");
    fresh.expect(Access::Random);
    assert_eq!(resident(&fresh), 0, "past half the budget (0): left to the faults");
    spill_to(16 << 20, Some(dir.clone()));
    fresh.expect(Access::Random);
    assert_eq!(resident(&fresh), (4 << 20) / 4096, "read in whole");
    assert!(advised_random(fresh.as_ptr() as usize));
    spill_to(0, Some(dir.clone()));
    // Filled in order past a chunk that is written out: its values read the same.
    let mut filled = Table::with_capacity(1);
    (0..(WRITTEN_OUT as u32 / 2)).for_each(|i| filled.push(i));
    // Its first chunk was let go when the second filled: out of the page cache, not lost.
    assert!(filled.is_mapped());
    // (In a tmpfs folder the page cache is the file: nothing can go.)
    let droppable = !on_tmpfs(&dir);
    assert!(!droppable || resident(&filled[..WRITTEN_OUT / 4]) == 0, "the first chunk's pages went");
    assert!(filled.iter().enumerate().all(|(i, &x)| x == i as u32));
    // Values let go are written out first, and read back the same.
    let mut written = Table::filled(1 << 20, 0u32);
    written.iter_mut().enumerate().for_each(|(i, x)| *x = i as u32 ^ 0x5a5a);
    written.let_go(0..1 << 19);
    assert!(!droppable || resident(&written[..1 << 19]) == 0, "the pages let go went");
    assert_eq!(resident(&written[1 << 19..]), (2 << 20) / 4096, "the others stay");
    assert!(written.iter().enumerate().all(|(i, &x)| x == i as u32 ^ 0x5a5a));
    let in_memory_written = Table::from_fn(1_000, |i| i as u32);
    in_memory_written.let_go(0..1_000);
    assert_eq!(in_memory_written[999], 999, "nothing to let go in memory");
    // A value that straddles a chunk's end (12 bytes do not divide 16 MiB) reads the same too.
    let mut triples = Table::with_capacity(1);
    (0..(WRITTEN_OUT / 12 + 10) as u32).for_each(|i| triples.push([i, i + 1, i + 2]));
    assert!(triples.iter().enumerate().all(|(i, &t)| t == [i as u32, i as u32 + 1, i as u32 + 2]));
    // Appended a slice at a time, emptied and refilled, collected, copied: mapped all the same.
    let mut appended = Table::default();
    for part in (0..100_000u32).collect::<Vec<_>>().chunks(777) {
        appended.extend_from_slice(part);
    }
    assert!(appended.is_mapped() && appended.iter().enumerate().all(|(i, &x)| x == i as u32));
    appended.clear();
    assert!(appended.is_empty() && appended.is_mapped(), "its room stays");
    appended.extend_from_slice(&[5, 6]);
    assert_eq!(appended, vec![5, 6]);
    let collected: Table<u64> = (0..50_000u64).map(|i| i * 2).collect();
    assert!(collected.is_mapped() && collected.len() == 50_000 && collected[49_999] == 99_998);
    let copied = Table::from_slice(&collected[10..20]);
    assert!(copied.is_mapped() && *copied == collected[10..20]);
    assert!(Table::<u32>::from_slice(&[]).is_empty());

    // Under the budget: in memory; memory held elsewhere counts.
    // (Tests running beside this one hold tables too: the budget leaves them room.)
    spill_to(IN_MEMORY.load(Ordering::Relaxed) + (1 << 30), Some(dir.clone()));
    assert!(!Table::filled(1_000, 1u32).is_mapped());
    assert!(fits_in_memory(4_000) && !fits_in_memory(2 << 30), "what would stay in memory");
    {
        let _graph = Held::new(2 << 30);
        assert!(Table::filled(1_000, 1u32).is_mapped());
        assert!(!fits_in_memory(4_000), "memory held elsewhere counts");
    }
    // A table filled and read in order takes only the first half of the budget; one read at
    // random the whole of it.
    {
        let _graph = Held::new(3 << 28);
        assert!(!Table::<u32>::with_capacity(1_000).is_mapped());
        assert!(Table::<u32>::with_capacity_in_order(1_000).is_mapped());
    }
    assert!(!Table::<u32>::with_capacity_in_order(1_000).is_mapped());
    // Read at random while made, in order from then on: past half the budget it moves to a
    // work file, with the same values, and its memory counts no more; within half it stays.
    {
        let _graph = Held::new(3 << 28);
        let mut positions = Table::from_fn(100_000, |i| i as u32 * 3);
        assert!(!positions.is_mapped(), "made for reading at random: the whole budget");
        let held = IN_MEMORY.load(Ordering::Relaxed);
        positions.read_in_order_from_now();
        assert!(positions.is_mapped() && positions.iter().enumerate().all(|(i, &x)| x == i as u32 * 3));
        assert!(IN_MEMORY.load(Ordering::Relaxed) < held, "its memory is given back");
        positions[7] = 1;
        assert_eq!((positions[7], positions[8]), (1, 24), "and written as any mapped table");
    }
    let mut small = Table::from_fn(1_000, |i| i as u32);
    small.read_in_order_from_now();
    assert!(!small.is_mapped() && small[999] == 999, "within half the budget: it stays");
    // Grown in memory past the budget: moved to a work file (32 MiB written a page at a time,
    // its first chunk let go once the second is written), the same values.
    spill_to(IN_MEMORY.load(Ordering::Relaxed) + (48 << 20), Some(dir.clone()));
    let mut moved = Table::default();
    (0..10u32 << 20).for_each(|i| moved.push(i.wrapping_mul(2_654_435_761)));
    assert!(moved.is_mapped() && moved.len() == 10 << 20);
    assert!(!droppable || resident(&moved[..WRITTEN_OUT / 4]) == 0, "the first chunk's pages went");
    assert!(moved.iter().zip(0u32..).all(|(&x, i)| x == i.wrapping_mul(2_654_435_761)));
    drop(moved);

    // A folder that cannot be made (below a file): the table stays in memory and one line
    // says why.
    std::fs::write(dir.join("plain"), b"").unwrap();
    spill_to(0, Some(dir.join("plain").join("work")));
    let kept = Table::filled(1_000, 2u32);
    assert!(!kept.is_mapped() && kept[999] == 2);
    let mut pushed = Table::default();
    (0..5_000u32).for_each(|i| pushed.push(i));
    assert!(!pushed.is_mapped() && pushed[4_999] == 4_999);
    pushed.shrink_to_fit();
    assert_eq!(pushed.len(), 5_000);
    let note = spill_note().expect("a note");
    assert!(note.starts_with("cannot make a work file in ") && !note.contains('\n'), "{note}");
    assert_eq!(spill_note(), None, "said once");

    // The whole analysis on mapped tables: the same as in memory.
    let mut rng = crate::tests::Rng(7);
    let g = crate::tests::random_heap(&mut rng, 20_000, 30);
    let live = crate::reachable(&g);
    let roots = vec![crate::RootSet::NONE; g.object_count()];
    let analyse = || crate::group_heap(&g, 30, &live, &roots, &crate::AnalysisOptions::default());
    spill_to(0, None);
    let (tree, heap) = (crate::dominators(&g), analyse());
    spill_to(0, Some(dir.clone()));
    let before = mapped_peak();
    assert_eq!(crate::dominators(&g), tree);
    assert_eq!(analyse(), heap);
    assert!(mapped_peak() >= before.max(20_000 * 12), "the forest at least was mapped");
    // The graph's own tables mapped too: its sizes are then read a byte each after the search
    // (many retained sizes escape: the sizes' unit here is a byte).
    let mapped = g.clone();
    assert!(mapped.shallow.is_mapped() && mapped.edges.is_mapped());
    assert_eq!(crate::group_heap(&mapped, 30, &live, &roots, &crate::AnalysisOptions::default()), heap);

    spill_to(0, None);
    assert!(!Table::filled(1_000, 1u32).is_mapped(), "no folder: never mapped");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A dropped work file is closed on a thread of its own, where freeing its blocks may wait for
/// the disk, and is closed: its descriptor goes within moments; waiting for the closing (as a
/// work file that finds the disk full does) returns once it is closed.
#[cfg(target_os = "linux")]
#[test]
fn a_dropped_work_file_is_closed_behind_the_dropper() {
    use std::os::fd::AsRawFd as _;
    let dir = std::env::temp_dir().join(format!("memcity-close-{}", std::process::id()));
    // The descriptor's number may be taken again by another test's file: its path tells.
    let open = |fd: i32| {
        let link = std::fs::read_link(format!("/proc/self/fd/{fd}"));
        link.is_ok_and(|path| path.starts_with(&dir))
    };
    let (map, file) = work_file::work_file(&dir, 1 << 20).unwrap();
    let fd = file.as_raw_fd();
    assert!(open(fd));
    work_file::close_behind(map, file);
    // The closing thread names itself once it runs.
    let comm = |task: std::fs::DirEntry| std::fs::read_to_string(task.path().join("comm")).ok();
    let closer = || {
        let mut tasks = std::fs::read_dir("/proc/self/task").unwrap().filter_map(|t| comm(t.ok()?));
        tasks.any(|name| name.trim() == "memcity-close")
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while (open(fd) || !closer()) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(closer(), "no closing thread");
    assert!(!open(fd), "the work file is still open");
    // Waiting for the closing returns once what was handed before is closed.
    let (map, file) = work_file::work_file(&dir, 1 << 20).unwrap();
    let fd = file.as_raw_fd();
    assert!(open(fd));
    work_file::close_behind(map, file);
    work_file::wait_for_closing();
    assert!(!open(fd), "still open when the wait returned");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// How many pages of a table are in memory (`mincore`).
fn resident<T: Plain>(table: &[T]) -> usize {
    let bytes = std::mem::size_of_val(table);
    let mut pages = vec![0u8; bytes.div_ceil(4096)];
    // SAFETY: the table's own pages, one status byte each.
    let status = unsafe { libc::mincore(table.as_ptr() as *mut libc::c_void, bytes, pages.as_mut_ptr()) };
    assert_eq!(status, 0);
    pages.iter().filter(|&&p| p & 1 == 1).count()
}

/// Whether `dir` is on a tmpfs, whose pages are the files themselves.
fn on_tmpfs(dir: &std::path::Path) -> bool {
    use std::os::unix::ffi::OsStrExt as _;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).unwrap();
    // SAFETY: a NUL-terminated path and a zeroed statfs for the kernel to fill.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::statfs(path.as_ptr(), &mut fs) }, 0);
    fs.f_type == libc::TMPFS_MAGIC
}

/// Whether the mapping holding `address` is advised random (`rr` in /proc/self/smaps).
fn advised_random(address: usize) -> bool {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    let mut inside = false;
    for line in smaps.lines() {
        if let Some((range, _)) = line.split_once(' ')
            && let Some((start, end)) = range.split_once('-')
            && let (Ok(start), Ok(end)) = (usize::from_str_radix(start, 16), usize::from_str_radix(end, 16))
        {
            inside = (start..end).contains(&address);
        } else if inside && let Some(flags) = line.strip_prefix("VmFlags:") {
            return flags.split_whitespace().any(|flag| flag == "rr");
        }
    }
    false
}

/// A table read in place from a file: the values are the file's, a write is the process's own
/// (the file keeps its bytes), and growing it moves the values to a table of its own.
#[test]
fn a_private_table_reads_a_file_in_place_and_writes_only_its_copy() {
    let path = std::env::temp_dir().join(format!("memcity-private-{}", std::process::id()));
    let values: Vec<u32> = (0..10_000).collect();
    let mut bytes = vec![0xAAu8; 12];
    bytes.extend(values.iter().flat_map(|v| v.to_le_bytes()));
    std::fs::write(&path, &bytes).unwrap();
    let file = File::open(&path).unwrap();
    let mut table: Table<u32> = Table::map_private(&file, 12, 10_000).unwrap();
    assert_eq!(table, values);
    table[0] = 77;
    assert_eq!(table[0], 77);
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "the file is not written");
    table.push(10_000);
    assert_eq!((table.len(), table[0], table[10_000]), (10_001, 77, 10_000));
    assert!(Table::<u32>::map_private(&file, 12, 0).unwrap().is_empty());
    assert!(Table::<u64>::map_private(&file, 12, 4).is_err(), "u64s at an offset not a multiple of 8");
    assert!(Table::<u32>::map_private(&file, 0, usize::MAX).is_err());
    let _ = std::fs::remove_file(&path);
}

/// Tables read in place at offsets on, past and just before page and 2 MiB boundaries read
/// the file's values there, and their own writes stay theirs.
#[test]
fn private_tables_at_any_offset_read_the_values_there() {
    let path = std::env::temp_dir().join(format!("memcity-private-offsets-{}", std::process::id()));
    let words: Vec<u64> = (0..(5 << 20) / 8).map(|i| i * 0x9E37_79B9).collect();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, &bytes).unwrap();
    let file = File::open(&path).unwrap();
    for offset in [8u64, 4096, (2 << 20) - 8, 2 << 20, (2 << 20) + 4096 + 16, (4 << 20) + 8] {
        let at = offset as usize / 8;
        let n = (words.len() - at).min(300_000);
        let mut table: Table<u64> = Table::map_private(&file, offset, n).unwrap();
        assert_eq!(&table[..], &words[at..at + n], "at byte {offset}");
        table[n - 1] = 7;
        table.expect(Access::Random);
        assert_eq!((table[0], table[n - 1]), (words[at], 7));
    }
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "the file is not written");
    let _ = std::fs::remove_file(&path);
}

/// The values' place and count a table keeps beside its storage follow every change: growing
/// past its room (the values move), truncating, extending, shrinking, clearing, moving out.
#[test]
fn a_table_reads_its_values_after_every_change() {
    let mut table: Table<u64> = Table::default();
    assert!(table.is_empty());
    let mut expected = Vec::new();
    for i in 0..5_000u64 {
        table.push(i * 3);
        expected.push(i * 3);
        // Each growth past the room moves the values: read them all at the boundaries.
        if i.is_power_of_two() || i % 1024 == 1023 {
            assert_eq!(*table, *expected, "after {} pushes", i + 1);
        }
    }
    table.truncate(10);
    expected.truncate(10);
    assert_eq!(*table, *expected);
    table.extend_from_slice(&[1, 2, 3]);
    expected.extend_from_slice(&[1, 2, 3]);
    assert_eq!(*table, *expected);
    table.shrink_to_fit();
    assert_eq!(*table, *expected, "after the room was given back");
    table.extend_from_slice(&[9; 100]);
    expected.extend_from_slice(&[9; 100]);
    assert_eq!(*table, *expected, "extended past its room, value by value");
    table[0] = 77;
    expected[0] = 77;
    let moved = std::mem::take(&mut table);
    assert_eq!(*moved, *expected, "a moved table reads where its values are");
    assert!(table.is_empty());
    table.clear();
    table.push(5);
    assert_eq!(*table, [5]);
    let copy = Table::from_slice(&moved);
    assert_eq!(copy, moved);
    // The room a table in memory has before it grows: what may be copied in at once.
    let mut room: Table<u32> = Table::from(Vec::with_capacity(10));
    assert_eq!(room.room_in_memory(), 10);
    room.extend_from_slice(&[1, 2, 3]);
    assert_eq!((room.room_in_memory(), room.len()), (7, 3));
}

/// A fresh zeroed block's whole pages are backed at once, and still read as zeros; a chunk
/// that starts and ends inside pages gets only the whole pages between.
#[test]
fn zeroed_pages_are_backed_in_one_call() {
    let bytes = 16 << 20;
    let layout = std::alloc::Layout::from_size_align(bytes, 4096).unwrap();
    // SAFETY: a layout of nonzero size; freed below with the same layout.
    let block = unsafe { std::alloc::alloc_zeroed(layout) };
    assert!(!block.is_null());
    // SAFETY: the block just allocated, zeroed, `bytes` long and owned here.
    let values = unsafe { std::slice::from_raw_parts_mut(block, bytes) };
    assert_eq!(populated(&mut values[100..4096 + 100]), 0..0, "no whole page inside");
    assert_eq!(populated(&mut values[100..3 * 4096 + 50]), 3996..2 * 4096 + 3996);
    let whole = populated(values);
    assert_eq!(whole, 0..bytes, "every page of a page-aligned block");
    assert_eq!(resident(values), bytes / 4096, "backed");
    assert!(values.iter().all(|&b| b == 0), "and zeros still");
    // SAFETY: allocated above with this layout.
    unsafe { std::alloc::dealloc(block, layout) };
}
