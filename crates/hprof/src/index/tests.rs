use std::path::{Path, PathBuf};

use super::*;
use crate::import::{ImportOptions, import};

/// A folder of its own for each test, removed at the end.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("memcity-index-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("dumps")).unwrap();
        std::fs::create_dir_all(dir.join("index")).unwrap();
        Scratch(dir)
    }

    /// This user's seal key and another's.
    fn keys(&self) -> (seal::SealKey, seal::SealKey) {
        let keys = self.0.join("keys");
        (seal::key_in(&keys.join("mine")).unwrap(), seal::key_in(&keys.join("theirs")).unwrap())
    }

    fn dumps(&self) -> PathBuf {
        self.0.join("dumps")
    }

    fn index(&self) -> PathBuf {
        self.0.join("index")
    }

    /// A generated dump of about `objects` objects.
    fn generated(&self, objects: u64) -> PathBuf {
        let path = self.dumps().join("generated.hprof");
        let spec =
            crate::generate::Spec { segment_bytes: 1 << 16, ..crate::generate::Spec::for_objects(objects) };
        crate::generate::write_file(&path, &spec).unwrap();
        path
    }

    fn opening(&self) -> Opening {
        Opening { index: Some(self.index()), ..Opening::default() }
    }

    fn files(&self, dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into())
            .collect();
        names.sort();
        names
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn samples() -> Vec<PathBuf> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/hprof");
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| crate::source::is_dump(p))
        .collect();
    files.sort();
    files
}

/// Every field of two dumps agrees.
fn assert_same(a: &Dump, b: &Dump) {
    assert_eq!(a.timestamp_ms, b.timestamp_ms);
    assert_eq!(a.graph, b.graph);
    assert_eq!(a.root_kinds, b.root_kinds);
    assert_eq!(a.first_class_node, b.first_class_node);
    assert_eq!(a.class_of_class_node, b.class_of_class_node);
    assert_eq!(a.layout, b.layout);
    let (x, y) = (&a.classes, &b.classes);
    assert_eq!((&x.names, x.class_class, x.primitive_arrays), (&y.names, y.class_class, y.primitive_arrays));
    assert_eq!(format!("{:?}", x.instances), format!("{:?}", y.instances));
    let sorted = |t: &crate::classes::ClassTable| {
        let mut v: Vec<(u64, u32)> = t.by_id.iter().map(|(&k, &c)| (k, c)).collect();
        v.sort_unstable();
        v
    };
    assert_eq!(sorted(x), sorted(y));
}

#[test]
fn a_reopened_dump_is_the_dump_read_again() {
    let scratch = Scratch::new("reopen");
    let mut dumps = samples();
    dumps.push(scratch.generated(3_000));
    for dump in &dumps {
        let fresh = open_dump(dump, &Opening::default(), true, &memcity_heapgraph::Silent).unwrap();
        let first = open_dump(dump, &scratch.opening(), false, &memcity_heapgraph::Silent).unwrap();
        assert!(!first.from_index && first.labels.is_none(), "names only when asked for");
        let again = open_dump(dump, &scratch.opening(), true, &memcity_heapgraph::Silent).unwrap();
        assert!(again.from_index, "{} is read from its index", dump.display());
        let classes = again.dump.graph.group.keys();
        assert!(classes.is_empty() || classes.is_read_in_place(), "the classes are the index's pages");
        assert_same(&fresh.dump, &again.dump);
        assert_same(&fresh.dump, &first.dump);
        assert_eq!(fresh.labels, again.labels);
    }
    assert_eq!(scratch.files(&scratch.index()).len(), dumps.len(), "one index a dump");
    assert_eq!(scratch.files(&scratch.dumps()), ["generated.hprof"], "nothing beside the dump");
}

#[test]
fn a_history_and_typed_heap_from_the_index_are_those_from_the_dumps() {
    let scratch = Scratch::new("history");
    scratch.generated(2_000);
    for sample in samples() {
        std::fs::copy(&sample, scratch.dumps().join(sample.file_name().unwrap())).unwrap();
    }
    let paths = [scratch.dumps()];
    let plain = import(&paths, &ImportOptions::default(), &memcity_heapgraph::Silent).unwrap();
    let indexed = ImportOptions { index: Some(scratch.index()), ..ImportOptions::default() };
    assert_eq!(import(&paths, &indexed, &memcity_heapgraph::Silent).unwrap(), plain, "writing the indexes");
    let files = scratch.files(&scratch.index());
    assert_eq!(files.iter().filter(|f| f.ends_with(".hprof-index")).count(), 4, "{files:?}");
    assert_eq!(files.iter().filter(|f| f.ends_with(".hprof-tree")).count(), 4, "a tree beside each");
    let from_trees = ImportOptions { keep_grouped: false, ..indexed.clone() };
    assert_eq!(
        import(&paths, &from_trees, &memcity_heapgraph::Silent).unwrap(),
        plain,
        "reading them, trees and all"
    );
    let by_type = ImportOptions {
        grouping: memcity_heapgraph::Grouping::new(memcity_heapgraph::parse_list("type,root-kind").unwrap()),
        ..indexed.clone()
    };
    let regrouped = ImportOptions { index: None, ..by_type.clone() };
    assert_eq!(
        import(&paths, &by_type, &memcity_heapgraph::Silent).unwrap(),
        import(&paths, &regrouped, &memcity_heapgraph::Silent).unwrap()
    );
    let dump = scratch.dumps().join("generated.hprof");
    let fresh = crate::typed_heap(&dump, &Layout::default(), None).unwrap();
    let reopened = crate::typed_heap(&dump, &Layout::default(), Some(&scratch.index())).unwrap();
    assert_eq!(
        (fresh.timestamp_ms, fresh.reachable_bytes),
        (reopened.timestamp_ms, reopened.reachable_bytes)
    );
    assert_eq!(fresh.heap.graph, reopened.heap.graph);
    assert_eq!(fresh.heap.objects, reopened.heap.objects);
    assert_eq!(fresh.heap.tree, None, "no index, no tree kept: analyses build it");
    assert_eq!(
        reopened.heap.tree,
        Some(memcity_heapgraph::dominators(&fresh.heap.graph)),
        "the import's tree"
    );
}

/// The first typed opening of a dump (as `structures` and `ownership` open it) keeps the
/// dominator tree beside the index it writes, and the next one reads it.
#[test]
fn a_typed_opening_keeps_the_tree_and_the_next_reads_it() {
    let scratch = Scratch::new("typed-tree");
    let dump = scratch.generated(2_000);
    let first = crate::typed_heap(&dump, &Layout::default(), Some(&scratch.index())).unwrap();
    let built = memcity_heapgraph::dominators(&first.heap.graph);
    assert_eq!(first.heap.tree.as_ref(), Some(&built));
    let files = scratch.files(&scratch.index());
    assert_eq!(files.iter().filter(|f| f.ends_with(".hprof-tree")).count(), 1, "{files:?}");
    let again = crate::typed_heap(&dump, &Layout::default(), Some(&scratch.index())).unwrap();
    assert_eq!(again.heap, first.heap);
    // The import reads the same tree.
    let indexed = ImportOptions { index: Some(scratch.index()), ..ImportOptions::default() };
    let plain = import(std::slice::from_ref(&dump), &ImportOptions::default(), &memcity_heapgraph::Silent);
    assert_eq!(import(&[dump], &indexed, &memcity_heapgraph::Silent).unwrap(), plain.unwrap());
}

/// Progress as the CLI and the app hear it: every byte of the dump, then each phase in order
/// — the dump's own on the first opening, the index's and kept tree's on the next.
#[test]
fn an_opening_tells_its_bytes_and_then_its_phases_in_order() {
    use memcity_heapgraph::{Phase, Progress};
    #[derive(Default)]
    struct Heard(std::sync::Mutex<(u64, u64, Vec<Phase>)>);
    impl Progress for Heard {
        fn read(&self, done: u64, total: u64) {
            let mut heard = self.0.lock().unwrap();
            (heard.0, heard.1) = (done, total);
        }
        fn phase(&self, phase: Phase) {
            self.0.lock().unwrap().2.push(phase);
        }
    }
    let scratch = Scratch::new("progress");
    let dump = scratch.generated(2_000);
    let size = std::fs::metadata(&dump).unwrap().len();
    let indexed = ImportOptions { index: Some(scratch.index()), ..ImportOptions::default() };
    let heard = |options: &ImportOptions| {
        let heard = Heard::default();
        import(std::slice::from_ref(&dump), options, &heard).unwrap();
        heard.0.into_inner().unwrap()
    };
    // The tree is kept as soon as it is assembled, before the paths that need less of it.
    let first = [
        Phase::Resolving,
        Phase::WritingIndex,
        Phase::Dominators,
        Phase::KeepingTree,
        Phase::RetainedAndPaths,
    ];
    assert_eq!(heard(&indexed), (size, size, first.to_vec()));
    let regrouped = ImportOptions { keep_grouped: false, ..indexed.clone() };
    // The pointer maps are made beside the retained sizes and paths.
    let again = [Phase::OpeningIndex, Phase::OpeningTree, Phase::RetainedAndPaths];
    assert_eq!(heard(&regrouped), (size, size, again.to_vec()));
    // The same grouping again: the history the first import kept, no byte of the dump read.
    assert_eq!(heard(&indexed), (0, 0, vec![Phase::OpeningGrouped]));
    let unindexed = ImportOptions { index: None, ..indexed };
    assert_eq!(
        heard(&unindexed),
        (size, size, vec![Phase::Resolving, Phase::Dominators, Phase::RetainedAndPaths])
    );
}

#[test]
fn a_changed_dump_or_layout_rebuilds_its_index() {
    let scratch = Scratch::new("stale");
    let dump = scratch.generated(1_000);
    assert!(!open_dump(&dump, &scratch.opening(), false, &memcity_heapgraph::Silent).unwrap().from_index);
    let index = scratch.index().join(key::file_name(&dump, &Layout::default()));
    let key = Key::of(&dump, &Layout::default()).unwrap();
    assert!(open_index(&index, &key).unwrap().is_some());
    // Another dump in the same place: more objects, another size and content.
    let bigger =
        crate::generate::Spec { segment_bytes: 1 << 16, ..crate::generate::Spec::for_objects(2_000) };
    crate::generate::write_file(&dump, &bigger).unwrap();
    assert!(matches!(open_index(&index, &Key::of(&dump, &Layout::default()).unwrap()), Err(Unusable::Stale)));
    let rebuilt = open_dump(&dump, &scratch.opening(), false, &memcity_heapgraph::Silent).unwrap();
    assert!(!rebuilt.from_index);
    let reopened = open_dump(&dump, &scratch.opening(), false, &memcity_heapgraph::Silent).unwrap();
    assert!(reopened.from_index);
    assert_same(&rebuilt.dump, &reopened.dump);
    // Only the mtime changes: stale too.
    let file = std::fs::File::options().write(true).open(&dump).unwrap();
    file.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000)).unwrap();
    assert!(!open_dump(&dump, &scratch.opening(), false, &memcity_heapgraph::Silent).unwrap().from_index);
    // A given layout has an index of its own.
    let given = Opening { layout: Layout::uncompressed(), ..scratch.opening() };
    let other = open_dump(&dump, &given, false, &memcity_heapgraph::Silent).unwrap();
    assert!(!other.from_index);
    assert_ne!(other.dump.graph.shallow, reopened.dump.graph.shallow);
    assert!(open_dump(&dump, &given, false, &memcity_heapgraph::Silent).unwrap().from_index);
    assert!(open_dump(&dump, &scratch.opening(), false, &memcity_heapgraph::Silent).unwrap().from_index);
}

/// A good index of a small dump, its key and its path.
fn written(scratch: &Scratch) -> (PathBuf, Key, Vec<u8>, PathBuf) {
    let dump = scratch.generated(500);
    open_dump(&dump, &scratch.opening(), false, &memcity_heapgraph::Silent).unwrap();
    let index = scratch.index().join(key::file_name(&dump, &Layout::default()));
    let key = Key::of(&dump, &Layout::default()).unwrap();
    (index.clone(), key, std::fs::read(&index).unwrap(), dump)
}

/// A FIFO in an index's place (someone else's, in a shared index folder) is found unusable at
/// once rather than waited on, and the dump is read and its index written in its place.
#[cfg(unix)]
#[test]
fn a_fifo_in_an_indexs_place_is_refused_and_replaced() {
    let scratch = Scratch::new("fifo");
    let (index, key, _, dump) = written(&scratch);
    std::fs::remove_file(&index).unwrap();
    let fifo = std::ffi::CString::new(index.clone().into_os_string().into_encoded_bytes()).unwrap();
    // SAFETY: a valid path string; mkfifo only makes a file.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let (sent, answer) = std::sync::mpsc::channel();
    let (opening, fifo, fifo_key) = (scratch.opening(), index.clone(), key);
    std::thread::spawn(move || {
        let why = corrupt_why(&fifo, &fifo_key);
        let opened = open_dump(&dump, &opening, false, &memcity_heapgraph::Silent).map(|o| o.from_index);
        sent.send((why, opened.is_ok_and(|from_index| !from_index)))
    });
    let answered = answer.recv_timeout(std::time::Duration::from_secs(60)).expect("answered at once");
    assert_eq!(answered, ("cannot read it: not a regular file".to_string(), true), "read from the dump");
    assert!(index.is_file(), "an index written in the FIFO's place");
    assert!(open_index(&index, &key).unwrap().is_some());
}

fn corrupt_why(index: &Path, key: &Key) -> String {
    match open_index(index, key) {
        Err(Unusable::Corrupt(why)) => {
            assert!(!why.contains('\n'), "one line: {why}");
            why
        }
        other => panic!("not refused: {:?}", other.map(|d| d.is_some())),
    }
}

#[test]
fn a_corrupt_index_is_refused_in_one_line_and_rebuilt() {
    let scratch = Scratch::new("corrupt");
    let (index, key, good, dump) = written(&scratch);
    let mut bad_magic = good.clone();
    bad_magic[0] = b'X';
    let mut version = good.clone();
    version[8] = 99;
    let mut huge_block = good.clone();
    huge_block[format::HEADER..format::HEADER + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    let mut huge_count = good.clone();
    // The meta block's second number: the objects.
    huge_count[format::HEADER + 16..format::HEADER + 24].copy_from_slice(&(1u64 << 60).to_le_bytes());
    let mut zeros = good.clone();
    // A block the disk never got: zeros where its values were.
    let end = zeros.len() - 4096;
    zeros[end - 4096..end].fill(0);
    // Past the checksum (the fuzz target's way in), each block's own checks refuse them.
    let said = |bytes: &[u8]| match read_index_bytes(bytes) {
        Err(Unusable::Corrupt(why)) => why,
        _ => panic!("not refused"),
    };
    // The seal block (empty where no key sealed it) holding 5 bytes: no seal's length.
    let mut odd_seal = good[..good.len() - 8].to_vec();
    odd_seal.extend(5u64.to_le_bytes());
    odd_seal.extend([1u8, 2, 3, 4, 5, 0, 0, 0]);
    let body = (odd_seal.len() - format::HEADER) as u64;
    odd_seal[56..64].copy_from_slice(&body.to_le_bytes());
    assert!(said(&odd_seal).contains("a seal of 5 bytes"), "{}", said(&odd_seal));
    assert!(said(&huge_block).contains("cut off"));
    assert!(said(&huge_count).contains("more than the index could hold"));
    let cases: [(&[u8], &str); 7] = [
        (&bad_magic, "not a memcity index"),
        (&version, "format version 99"),
        (&good[..good.len() - 8], "its header says"),
        (&good[..40], "not a memcity index"),
        (&huge_block, "do not match its checksum"),
        (&huge_count, "do not match its checksum"),
        (&zeros, "do not match its checksum"),
    ];
    for (bytes, why) in cases {
        std::fs::write(&index, bytes).unwrap();
        let said = corrupt_why(&index, &key);
        assert!(said.contains(why), "{said}");
        let rebuilt = open_dump(&dump, &scratch.opening(), false, &memcity_heapgraph::Silent).unwrap();
        assert!(!rebuilt.from_index);
        assert_eq!(std::fs::read(&index).unwrap(), good, "rebuilt as it was");
    }
}

#[test]
fn an_index_pointing_outside_its_tables_is_refused() {
    let scratch = Scratch::new("hostile");
    let (index, key, _, dump) = written(&scratch);
    let (fresh, labels) = open_index(&index, &key).unwrap().unwrap();
    let nodes = fresh.graph.object_count() as u32;
    type Spoil = fn(&mut Dump, &mut EdgeLabels, u32);
    let spoils: [(Spoil, &str); 7] = [
        (|d, _, n| d.graph.edges[0] = n, "a reference or root beyond the objects"),
        (|d, _, n| d.graph.roots.push(n + 7), "a reference or root beyond the objects"),
        (|d, _, _| d.graph.group.as_mut_slice()[3] = u32::MAX, "an object of a class beyond the classes"),
        (|d, _, _| d.graph.edge_start[2] = u32::MAX, "the reference starts are out of order"),
        (
            |_, l, _| l.of_edge[0] = memcity_heapgraph::Label::field(1 << 20),
            "a reference named beyond the names",
        ),
        (|d, _, _| d.graph.shallow[0] = u64::MAX, "add up to more than 2^64"),
        (
            |d, _, _| {
                // One object counted in another class than its own.
                let mut totals = d.graph.group.totals().expect("read with its totals").to_vec();
                let [from, to] = [d.graph.group.keys()[0] as usize, d.graph.group.keys()[1] as usize];
                let other = if from == to { (to + 1) % totals.len() } else { to };
                (totals[from].objects, totals[other].objects) =
                    (totals[from].objects - 1, totals[other].objects + 1);
                d.graph.group = std::mem::take(&mut d.graph.group).with_totals(totals);
            },
            "class totals that are not the objects' own",
        ),
    ];
    for (spoil, why) in spoils {
        let (mut dump, mut names) = (fresh.clone(), labels.clone());
        spoil(&mut dump, &mut names, nodes);
        write::write(&index, &key, &dump, &names, None).unwrap();
        let said = corrupt_why(&index, &key);
        assert!(said.contains(why), "{said}");
    }
    assert!(!open_dump(&dump, &scratch.opening(), false, &memcity_heapgraph::Silent).unwrap().from_index);
    assert!(open_dump(&dump, &scratch.opening(), false, &memcity_heapgraph::Silent).unwrap().from_index);
}

/// An index sealed with this user's key is what this user's memcity wrote from a dump it
/// parsed, so its tables are not swept again (even a wrong one it was made to seal is read);
/// the same index unsealed or sealed with another key is checked and refused, and a sealed
/// index changed since, or moved beside another dump, is found by its seal and then checked.
#[test]
fn a_sealed_index_is_trusted_and_any_other_checked() {
    let scratch = Scratch::new("sealed");
    let (index, key, _, _) = written(&scratch);
    let (mine, theirs) = scratch.keys();
    let (good, labels) = open_index(&index, &key).unwrap().unwrap();
    write::write_sealed(&index, &key, &good, &labels, None, Some(&mine)).unwrap();
    let (read, _) = open_index_sealed(&index, &key, Some(&mine)).unwrap().unwrap();
    assert_same(&read, &good);
    let (read, _) = open_index_sealed(&index, &key, Some(&theirs)).unwrap().unwrap();
    assert_same(&read, &good);
    let mut wrong = good.clone();
    let beyond = wrong.graph.object_count() as u32;
    wrong.graph.edges[0] = beyond;
    write::write_sealed(&index, &key, &wrong, &labels, None, Some(&mine)).unwrap();
    let (read, _) = open_index_sealed(&index, &key, Some(&mine)).unwrap().expect("trusted");
    assert_eq!(read.graph.edges[0], beyond, "its tables are not swept");
    for other in [Some(&theirs), None] {
        match open_index_sealed(&index, &key, other) {
            Err(Unusable::Corrupt(why)) => assert!(why.contains("beyond the objects"), "{why}"),
            read => panic!("a wrong index under another seal is refused: {:?}", read.map(|r| r.is_some())),
        }
    }
    // Moved beside another dump (its header's key rewritten), the seal no longer holds.
    let another = Key { size: key.size + 1, ..key };
    let mut moved = std::fs::read(&index).unwrap();
    moved[16..56].copy_from_slice(&another.bytes());
    std::fs::write(&index, &moved).unwrap();
    match open_index_sealed(&index, &another, Some(&mine)) {
        Err(Unusable::Corrupt(why)) => assert!(why.contains("beyond the objects"), "{why}"),
        read => panic!("a sealed index beside another dump is checked: {:?}", read.map(|r| r.is_some())),
    }
    write::write_sealed(&index, &key, &good, &labels, None, Some(&mine)).unwrap();
    let mut changed = std::fs::read(&index).unwrap();
    changed[format::HEADER + 200] ^= 1;
    std::fs::write(&index, &changed).unwrap();
    match open_index_sealed(&index, &key, Some(&mine)) {
        Err(Unusable::Corrupt(why)) => assert!(why.contains("checksum"), "{why}"),
        read => panic!("a changed index is refused: {:?}", read.map(|r| r.is_some())),
    }
}

/// A stamp for an index's file as it is lets it be read as sealed without hashing or sweeping
/// it (here a wrong index sealed by another key, stamped by this one: its wrong table is read as
/// it is); a reopening's renewal leaves the stamp holding; changed in place, the index is hashed
/// again, and refused.
#[cfg(unix)]
#[test]
fn a_stamped_index_is_read_without_hashing_while_it_is_unchanged() {
    let scratch = Scratch::new("stamped");
    let (index, key, _, _) = written(&scratch);
    let (mine, theirs) = scratch.keys();
    let (good, labels) = open_index(&index, &key).unwrap().unwrap();
    let mut wrong = good.clone();
    let beyond = wrong.graph.object_count() as u32;
    wrong.graph.edges[0] = beyond;
    write::write_sealed(&index, &key, &wrong, &labels, None, Some(&theirs)).unwrap();
    let refused = |why: &str| match open_index_sealed(&index, &key, Some(&mine)) {
        Err(Unusable::Corrupt(said)) => assert!(said.contains("beyond the objects"), "{why}: {said}"),
        read => panic!("{why}: {:?}", read.map(|r| r.is_some())),
    };
    refused("another key's seal is checked");
    let identity = stamp::Identity::of(&std::fs::File::open(&index).unwrap()).unwrap();
    let later = std::time::SystemTime::now() + stamp::SETTLED + std::time::Duration::from_secs(1);
    stamp::make(&index, &mine, &key.bytes(), &identity, later);
    let (read, _) = open_index_sealed(&index, &key, Some(&mine)).unwrap().expect("trusted by its stamp");
    assert_eq!(read.graph.edges[0], beyond, "neither hashed nor swept");
    evict::renew(&index);
    let (read, _) = open_index_sealed(&index, &key, Some(&mine)).unwrap().expect("renewed, still stamped");
    assert_eq!(read.graph.edges[0], beyond);
    // Rewritten in place with the same bytes, a clock tick later: its status-change time moves.
    std::thread::sleep(std::time::Duration::from_millis(50));
    std::fs::write(&index, std::fs::read(&index).unwrap()).unwrap();
    refused("changed since its stamp");
}

#[test]
fn any_truncation_or_flipped_byte_is_refused_or_read_without_a_panic() {
    let scratch = Scratch::new("flips");
    let (_, key, good, _) = written(&scratch);
    for len in (0..good.len()).step_by(37) {
        assert!(!crate::fuzzing::read_index(&good[..len]), "cut at {len}");
    }
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..300 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut bytes = good.clone();
        let at = format::HEADER + (state as usize % (good.len() - format::HEADER));
        bytes[at] ^= (state >> 40) as u8 | 1;
        crate::fuzzing::read_index(&bytes);
    }
    assert!(crate::fuzzing::read_index(&good), "a good index is accepted");
    let _ = key;
}

#[test]
fn concurrent_openings_of_one_dump_leave_one_whole_index() {
    let scratch = Scratch::new("concurrent");
    let dump = scratch.generated(2_000);
    let fresh = open_dump(&dump, &Opening::default(), false, &memcity_heapgraph::Silent).unwrap();
    std::thread::scope(|s| {
        let runs: Vec<_> = (0..4)
            .map(|_| s.spawn(|| open_dump(&dump, &scratch.opening(), false, &memcity_heapgraph::Silent)))
            .collect();
        for run in runs {
            assert_same(&fresh.dump, &run.join().unwrap().unwrap().dump);
        }
    });
    assert_eq!(scratch.files(&scratch.index()).len(), 1, "no temporary files left");
    // A killed run's temporary file (no such process) goes at the next write; a live one's stays.
    let dead = scratch.index().join("0123456789abcdef.4000000000-0.tmp");
    let live = scratch.index().join(format!("0123456789abcdef.{}-77.tmp", std::process::id()));
    std::fs::write(&dead, b"half").unwrap();
    std::fs::write(&live, b"half").unwrap();
    std::fs::remove_file(scratch.index().join(key::file_name(&dump, &Layout::default()))).unwrap();
    open_dump(&dump, &scratch.opening(), false, &memcity_heapgraph::Silent).unwrap();
    assert!(!dead.exists() && live.exists());
    std::fs::remove_file(live).unwrap();
    assert!(open_dump(&dump, &scratch.opening(), false, &memcity_heapgraph::Silent).unwrap().from_index);
}

#[cfg(unix)]
#[test]
fn an_index_has_the_dumps_permissions_and_no_index_writes_nothing() {
    use std::os::unix::fs::PermissionsExt as _;
    let scratch = Scratch::new("mode");
    let dump = scratch.generated(500);
    std::fs::set_permissions(&dump, std::fs::Permissions::from_mode(0o600)).unwrap();
    open_dump(&dump, &Opening::default(), false, &memcity_heapgraph::Silent).unwrap();
    assert!(scratch.files(&scratch.index()).is_empty(), "no index folder, no index");
    open_dump(&dump, &scratch.opening(), false, &memcity_heapgraph::Silent).unwrap();
    let index = scratch.index().join(key::file_name(&dump, &Layout::default()));
    assert_eq!(std::fs::metadata(index).unwrap().permissions().mode() & 0o777, 0o600);
    // An index folder that cannot be made: the dump is read all the same.
    let blocked = Opening { index: Some(dump.join("inside-a-file")), ..Opening::default() };
    assert!(!open_dump(&dump, &blocked, false, &memcity_heapgraph::Silent).unwrap().from_index);
}

#[test]
fn values_read_beside_the_index_are_those_read_beside_the_dump() {
    use memcity_heapgraph::Values as _;
    let scratch = Scratch::new("values");
    let dump = scratch.generated(2_000);
    let (fresh, fresh_values) = crate::typed_heap_with_values(&dump, &Layout::default(), None).unwrap();
    assert!(scratch.files(&scratch.index()).is_empty());
    let (first, _) =
        crate::typed_heap_with_values(&dump, &Layout::default(), Some(&scratch.index())).unwrap();
    assert_eq!(scratch.files(&scratch.index()).len(), 1, "written by the first opening");
    let (again, values) =
        crate::typed_heap_with_values(&dump, &Layout::default(), Some(&scratch.index())).unwrap();
    for typed in [&first, &again] {
        assert_eq!(fresh.heap.graph, typed.heap.graph);
        assert_eq!(fresh.heap.objects, typed.heap.objects);
    }
    let strings = (0..fresh.heap.graph.object_count() as u32)
        .filter(|&o| fresh.heap.objects.type_name(o) == "java.lang.String")
        .take(50);
    let mut read = 0;
    for o in strings {
        assert_eq!(fresh_values.text(o), values.text(o));
        assert_eq!(fresh_values.id(o), values.id(o));
        read += usize::from(values.text(o).is_some());
    }
    assert!(read > 0, "strings read");
}

/// The phases an import went through.
fn phases(paths: &[PathBuf], options: &ImportOptions) -> (memcity_model::History, Vec<Phase>) {
    struct Heard(std::sync::Mutex<Vec<Phase>>);
    impl Progress for Heard {
        fn read(&self, _: u64, _: u64) {}
        fn phase(&self, phase: Phase) {
            self.0.lock().unwrap().push(phase);
        }
    }
    let heard = Heard(Default::default());
    let history = import(paths, options, &heard).unwrap();
    (history, heard.0.into_inner().unwrap())
}

#[cfg(unix)]
#[test]
fn an_import_again_with_the_same_grouping_reads_the_history_kept_and_no_other_does() {
    use std::os::unix::fs::PermissionsExt as _;
    let scratch = Scratch::new("grouped");
    let dump = scratch.generated(2_000);
    std::fs::set_permissions(&dump, std::fs::Permissions::from_mode(0o640)).unwrap();
    for sample in samples() {
        std::fs::copy(&sample, scratch.dumps().join(sample.file_name().unwrap())).unwrap();
    }
    let paths = [scratch.dumps()];
    let indexed = ImportOptions { index: Some(scratch.index()), ..ImportOptions::default() };
    let kept_files = || -> Vec<PathBuf> {
        let all = std::fs::read_dir(scratch.index()).unwrap().map(|e| e.unwrap().path());
        all.filter(|p| p.extension().is_some_and(|e| e == "grouped-history")).collect()
    };
    let (first, heard) = phases(&paths, &indexed);
    assert!(!heard.contains(&Phase::OpeningGrouped));
    let kept = kept_files();
    assert_eq!(kept.len(), 1, "one history for the series");
    // The strictest of the dumps' permissions (the samples' are the checkout's).
    let mode = std::fs::metadata(&kept[0]).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640, "{mode:o}");
    let long_ago = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1 << 30);
    std::fs::File::options().append(true).open(&kept[0]).unwrap().set_modified(long_ago).unwrap();
    let (again, heard) = phases(&paths, &indexed);
    assert_eq!((&again, heard), (&first, vec![Phase::OpeningGrouped]), "read back as imported");
    let used = std::fs::metadata(&kept[0]).unwrap().modified().unwrap();
    assert!(used > long_ago, "a read renews its time, so it is evicted last");

    // Another grouping, parting the objects otherwise, is analysed (and kept beside the first).
    let by_type = ImportOptions {
        grouping: memcity_heapgraph::Grouping::new(memcity_heapgraph::parse_list("type,root-kind").unwrap()),
        ..indexed.clone()
    };
    let (typed, heard) = phases(&paths, &by_type);
    assert!(heard.contains(&Phase::RetainedAndPaths) && typed != first);
    assert_eq!(kept_files().len(), 2);

    // A dump changed since: its index and the history are of another dump.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options().append(true).open(&dump).unwrap().set_modified(later).unwrap();
    let (changed, heard) = phases(&paths, &indexed);
    assert!(heard.contains(&Phase::Resolving), "read again: {heard:?}");
    assert_eq!(changed, first, "the same contents");

    // A damaged history is removed and the series grouped again (and kept again).
    let kept = kept_files();
    for file in &kept {
        std::fs::write(file, b"{\"format\": \"memcity/1\", \"snapshots\": [{").unwrap();
    }
    let (mended, heard) = phases(&paths, &indexed);
    // From the indexes, each dump's analysis read back as kept.
    assert!(heard.contains(&Phase::OpeningIndex), "grouped again: {heard:?}");
    assert!(!heard.contains(&Phase::RetainedAndPaths), "not analysed again: {heard:?}");
    assert_eq!(mended, first);
    let (_, heard) = phases(&paths, &indexed);
    assert_eq!(heard, vec![Phase::OpeningGrouped], "kept again");

    // No index folder, nothing kept or read.
    let unindexed = ImportOptions { index: None, ..indexed };
    let (_, heard) = phases(&paths, &unindexed);
    assert!(heard.contains(&Phase::Resolving));
}

#[test]
fn the_least_recently_used_histories_beyond_the_bound_are_removed() {
    let scratch = Scratch::new("evict");
    let dir = scratch.index();
    let start = std::time::SystemTime::now() - std::time::Duration::from_secs(1000);
    let name = |i: usize| dir.join(format!("{i:016x}.grouped-history"));
    for i in 0..20 {
        std::fs::write(name(i), b"x").unwrap();
        let at = start + std::time::Duration::from_secs(i as u64);
        std::fs::File::options().append(true).open(name(i)).unwrap().set_modified(at).unwrap();
    }
    std::fs::write(dir.join("other.hprof-index"), b"x").unwrap();
    // The oldest one was just written (its time is old, but it is the one kept now).
    super::evict::evict(&dir, &name(0), "grouped-history", &[], 4);
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    let newest = [0, 17, 18, 19].map(|i| format!("{i:016x}.grouped-history"));
    assert_eq!(
        left,
        [newest.to_vec(), vec!["other.hprof-index".to_string()]].concat(),
        "three newest, the new one, no index"
    );
}

#[test]
fn the_indexes_of_the_least_recently_opened_dumps_beyond_the_bound_go_with_their_trees() {
    let scratch = Scratch::new("evict-indexes");
    let dir = scratch.index();
    let dump = scratch.generated(2_000);
    let opening = scratch.opening();
    let long_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(100_000);
    // Indexes and trees of other dumps (deleted since), all older than this dump's.
    let name = |i: usize, extension: &str| dir.join(format!("{i:016x}.{extension}"));
    for i in 0..super::INDEXES_KEPT_AT_MOST + 3 {
        for extension in ["hprof-index", "hprof-tree"] {
            std::fs::write(name(i, extension), b"x").unwrap();
            let at = long_ago + std::time::Duration::from_secs(i as u64);
            std::fs::File::options().append(true).open(name(i, extension)).unwrap().set_modified(at).unwrap();
        }
    }
    // The first one used since by its stamp (a reopening renews the stamp, not the stamped
    // file), the second's stamp older than itself.
    for (i, at) in [(0, 10_000), (1, 0)] {
        std::fs::write(name(i, "hprof-index-stamp"), b"x").unwrap();
        let at = long_ago + std::time::Duration::from_secs(at);
        std::fs::File::options()
            .append(true)
            .open(name(i, "hprof-index-stamp"))
            .unwrap()
            .set_modified(at)
            .unwrap();
    }
    std::fs::write(dir.join("kept.grouped-history"), b"x").unwrap();
    open_dump(&dump, &opening, false, &memcity_heapgraph::Silent).unwrap();
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    let own = key::file_name(&dump, &Layout::default());
    let mut expected: Vec<String> = (5..super::INDEXES_KEPT_AT_MOST + 3)
        .chain([0])
        .flat_map(|i| [format!("{i:016x}.hprof-index"), format!("{i:016x}.hprof-tree")])
        .collect();
    expected.extend([
        own.clone(),
        "kept.grouped-history".to_string(),
        format!("{:016x}.hprof-index-stamp", 0),
    ]);
    expected.sort();
    assert_eq!(
        left, expected,
        "the seven last used others with their trees and stamps, the new one, no history"
    );

    // Opening a dump from its index renews it: written long ago, it is used now.
    let index = dir.join(&own);
    std::fs::File::options().append(true).open(&index).unwrap().set_modified(long_ago).unwrap();
    let opened = open_dump(&dump, &opening, false, &memcity_heapgraph::Silent).unwrap();
    assert!(opened.from_index);
    assert!(
        std::fs::metadata(&index).unwrap().modified().unwrap()
            > long_ago + std::time::Duration::from_secs(1000)
    );
}

/// The checksum is one over the words whatever pieces they come in (the writer adds each
/// block's length and bytes, the reader the whole body), and a word on another lane changes it.
#[test]
fn the_checksum_is_the_same_in_any_pieces_and_sees_words_move() {
    let bytes: Vec<u8> = (0..1003u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    let whole = |bytes: &[u8]| {
        let mut sum = format::Checksum::default();
        sum.words(bytes);
        sum.value()
    };
    let expected = whole(&bytes);
    for cut in (0..bytes.len()).step_by(8) {
        let mut sum = format::Checksum::default();
        sum.words(&bytes[..cut]);
        sum.words(&bytes[cut..]);
        assert_eq!(sum.value(), expected, "cut at {cut}");
    }
    let mut pieces = format::Checksum::default();
    bytes.chunks(24).for_each(|piece| pieces.words(piece));
    assert_eq!(pieces.value(), expected);
    // Two words swapped (lanes 0 and 1, then 0 and 4 on one lane), a word dropped.
    for (a, b) in [(0, 8), (0, 32), (40, 64)] {
        let mut swapped = bytes.clone();
        for i in 0..8 {
            swapped.swap(a + i, b + i);
        }
        assert_ne!(whole(&swapped), expected, "words {a} and {b} swapped");
    }
    assert_ne!(whole(&bytes[8..]), expected);
    assert_ne!(whole(&[0u8; 64]), whole(&[0u8; 72]), "zero words count");
}
