use super::*;
use crate::import::{ImportOptions, import};
use crate::index::seal;
use crate::index::{Opening, open_dump};
use memcity_heapgraph::dominators;

/// A generated dump, its folder of indexes, and an import that writes and reads them.
struct Setup {
    dir: PathBuf,
}

impl Setup {
    fn new(name: &str) -> Setup {
        let dir = std::env::temp_dir().join(format!("memcity-tree-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("index")).unwrap();
        let spec =
            crate::generate::Spec { segment_bytes: 1 << 16, ..crate::generate::Spec::for_objects(4_000) };
        crate::generate::write_file(&dir.join("g.hprof"), &spec).unwrap();
        Setup { dir }
    }

    fn dump(&self) -> PathBuf {
        self.dir.join("g.hprof")
    }

    fn options(&self) -> ImportOptions {
        // The tree is what these tests are about, not the grouped history kept beside it.
        ImportOptions { index: Some(self.dir.join("index")), keep_grouped: false, ..ImportOptions::default() }
    }

    fn tree_file(&self) -> PathBuf {
        let mut trees = std::fs::read_dir(self.dir.join("index"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "hprof-tree"));
        let tree = trees.next().expect("a tree beside the index");
        assert!(trees.next().is_none());
        tree
    }

    fn opened(&self) -> crate::index::Opened {
        let opening = Opening { index: Some(self.dir.join("index")), ..Opening::default() };
        open_dump(&self.dump(), &opening, false, &memcity_heapgraph::Silent).unwrap()
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn an_import_keeps_the_tree_and_the_next_one_reads_it() {
    let setup = Setup::new("keep");
    let plain = import(&[setup.dump()], &ImportOptions::default(), &memcity_heapgraph::Silent).unwrap();
    assert_eq!(import(&[setup.dump()], &setup.options(), &memcity_heapgraph::Silent).unwrap(), plain);
    let opened = setup.opened();
    let kept = opened.tree.expect("the first import kept the tree");
    assert!(opened.keep_tree.is_none());
    // It is the dump's own tree: that of its graph with the unreached objects held by the VM.
    let mut dump = opened.dump;
    let mut roots = vec![memcity_heapgraph::RootSet::NONE; dump.graph.object_count()];
    let held = crate::snapshot::hold_unreached(&mut dump, &mut roots);
    assert_eq!(kept.held_by_vm, held);
    assert_eq!(kept.tree, dominators(&dump.graph));
    assert!(kept.tree.preorder.len() == dump.graph.object_count(), "every object is reachable then");
    assert_eq!(
        import(&[setup.dump()], &setup.options(), &memcity_heapgraph::Silent).unwrap(),
        plain,
        "from the tree"
    );
}

#[test]
fn a_damaged_tree_is_noted_and_built_again() {
    let setup = Setup::new("damaged");
    let plain = import(&[setup.dump()], &setup.options(), &memcity_heapgraph::Silent).unwrap();
    let file = setup.tree_file();
    let good = std::fs::read(&file).unwrap();
    // Cut off, a flipped byte in the body (the checksum), a header of another kind.
    let mut flipped = good.clone();
    flipped[format::HEADER + 100] ^= 0x40;
    let mut other = good.clone();
    other[..8].copy_from_slice(b"MCIDXHP\0");
    for bad in [good[..good.len() / 2].to_vec(), flipped, other] {
        std::fs::write(&file, &bad).unwrap();
        let opened = setup.opened();
        assert!(opened.tree.is_none() && opened.keep_tree.is_some(), "refused, to be kept again");
        assert_eq!(import(&[setup.dump()], &setup.options(), &memcity_heapgraph::Silent).unwrap(), plain);
        assert_eq!(std::fs::read(&file).unwrap(), good, "built again, the same");
    }
    match load(
        &file,
        &Key { size: 1, ..setup.opened().keep_tree.map_or_else(|| key_of(&file), |p| p.key) },
        &[],
    ) {
        Err(Unusable::Stale) => {}
        other => panic!("another dump's tree is stale: {other:?}"),
    }
}

/// A tree file whose checksum is good but whose shape is not a tree's is noted and built
/// again, and the import is the one without it.
#[test]
fn a_kept_tree_of_the_wrong_shape_is_built_again_by_the_import() {
    let setup = Setup::new("wrong-shape");
    let plain = import(&[setup.dump()], &setup.options(), &memcity_heapgraph::Silent).unwrap();
    let file = setup.tree_file();
    let good = std::fs::read(&file).unwrap();
    let key = key_of(&file);
    let shallow = setup.opened().dump.graph.shallow.to_vec();
    let mut kept = load(&file, &key, &shallow).unwrap().expect("kept by the first import");
    let o = kept.tree.preorder[kept.tree.preorder.len() / 2] as usize;
    kept.tree.retained[o] += 8;
    // Unsealed (as by another user's memcity): its shape is checked.
    keep_sealed(&TreePlace { path: file.clone(), key, mode: None }, &kept.held_by_vm, &kept.tree, None)
        .unwrap();
    assert_ne!(std::fs::read(&file).unwrap(), good);
    let opened = setup.opened();
    assert!(opened.tree.is_none() && opened.keep_tree.is_some(), "its shape is refused");
    keep_sealed(&TreePlace { path: file.clone(), key, mode: None }, &kept.held_by_vm, &kept.tree, None)
        .unwrap();
    assert_eq!(import(&[setup.dump()], &setup.options(), &memcity_heapgraph::Silent).unwrap(), plain);
    assert_eq!(std::fs::read(&file).unwrap(), good, "built again, the same");
}

/// A tree sealed with this user's key is what this user's memcity wrote, so its shape is not
/// checked again (even a wrong one it was made to seal is read); the same tree unsealed or
/// sealed with another key is checked and refused, and a sealed tree changed since is found by
/// its seal and then its checksum.
#[test]
fn a_sealed_tree_is_trusted_and_any_other_checked() {
    let setup = Setup::new("sealed");
    import(&[setup.dump()], &setup.options(), &memcity_heapgraph::Silent).unwrap();
    let (file, keys) = (setup.tree_file(), setup.dir.join("keys"));
    let key = key_of(&file);
    let shallow = setup.opened().dump.graph.shallow.to_vec();
    let good = load(&file, &key, &shallow).unwrap().expect("kept");
    let (mine, theirs) =
        (seal::key_in(&keys.join("mine")).unwrap(), seal::key_in(&keys.join("theirs")).unwrap());
    let place = TreePlace { path: file.clone(), key, mode: None };
    keep_sealed(&place, &good.held_by_vm, &good.tree, Some(&mine)).unwrap();
    assert_eq!(load_sealed(&file, &key, &shallow, Some(&mine)).unwrap(), Some(good.clone()));
    assert_eq!(load_sealed(&file, &key, &shallow, Some(&theirs)).unwrap(), Some(good.clone()), "checked");
    let mut wrong = good.clone();
    wrong.tree.retained[wrong.tree.preorder[1] as usize] += 8;
    keep_sealed(&place, &wrong.held_by_vm, &wrong.tree, Some(&mine)).unwrap();
    assert_eq!(load_sealed(&file, &key, &shallow, Some(&mine)).unwrap(), Some(wrong), "trusted");
    for other in [Some(&theirs), None] {
        match load_sealed(&file, &key, &shallow, other) {
            Err(Unusable::Corrupt(why)) => assert!(why.contains("do not add up"), "{why}"),
            read => panic!("a wrong shape under another seal is refused: {read:?}"),
        }
    }
    // Moved beside another dump (its header's key rewritten), the seal no longer holds.
    let another = Key { size: key.size + 1, ..key };
    let mut moved = std::fs::read(&file).unwrap();
    moved[16..56].copy_from_slice(&another.bytes());
    std::fs::write(&file, &moved).unwrap();
    match load_sealed(&file, &another, &shallow, Some(&mine)) {
        Err(Unusable::Corrupt(why)) => assert!(why.contains("do not add up"), "{why}"),
        read => panic!("a sealed tree beside another dump is checked: {read:?}"),
    }
    keep_sealed(&place, &good.held_by_vm, &good.tree, Some(&mine)).unwrap();
    let mut changed = std::fs::read(&file).unwrap();
    changed[format::HEADER + 200] ^= 1;
    std::fs::write(&file, &changed).unwrap();
    match load_sealed(&file, &key, &shallow, Some(&mine)) {
        Err(Unusable::Corrupt(why)) => assert!(why.contains("checksum"), "{why}"),
        read => panic!("a changed tree is refused: {read:?}"),
    }
}

/// The key in a tree file's header.
fn key_of(file: &Path) -> Key {
    format::key_in(&std::fs::read(file).unwrap()).unwrap()
}

/// A change to a good tree.
type Change = dyn Fn(&mut DominatorTree);

/// Trees that pass the checksum (made here) but are not trees over the dump's objects are
/// refused in one line by what checks their shape, never a panic in the analyses.
#[test]
fn a_tree_of_the_wrong_shape_is_refused() {
    // 0 → 1 → 2, 0 → 3; 4 unreachable.
    let shallow = [10u64, 20, 30, 40, 50];
    let good = DominatorTree {
        idom: vec![VIRTUAL_ROOT, 0, 1, 0, UNREACHABLE].into(),
        idom_above: Default::default(),
        retained: vec![100, 50, 30, 40, 0].into(),
        preorder: vec![0, 1, 2, 3].into(),
        subtree: vec![4, 2, 1, 1, 0].into(),
        position: vec![0, 1, 2, 3, UNPLACED].into(),
    };
    let body = |tree: &DominatorTree, held: &[u32], objects: u64| {
        let sum = format::Checksum::default();
        let mut w = format::Writer { out: Vec::new(), written: 0, sum, sealing: None };
        w.values(&[objects, held.len() as u64, tree.preorder.len() as u64]).unwrap();
        w.values(held).unwrap();
        w.values(&tree.idom).unwrap();
        w.values(&tree.retained).unwrap();
        w.values(&tree.preorder).unwrap();
        w.values(&tree.subtree).unwrap();
        w.values(&tree.position).unwrap();
        w.block(&[]).unwrap();
        w.out
    };
    let kept = read(&body(&good, &[3], 5), &shallow).unwrap();
    assert_eq!(kept, KeptTree { held_by_vm: vec![3], tree: good.clone() });
    let wrong = |change: &Change| {
        let mut tree = good.clone();
        change(&mut tree);
        read(&body(&tree, &[], 5), &shallow).unwrap_err()
    };
    let cases: [(&Change, &str); 13] = [
        // Object 3's dominator is 0, but 1's subtree would hold it.
        (&|t| t.subtree[1] = 3, "outside its dominator's subtree"),
        (&|t| t.idom[3] = UNREACHABLE, "disagree on what is reachable"),
        (&|t| t.idom[1] = 2, "outside its dominator's subtree"),
        (&|t| t.idom[2] = 7, "outside its dominator's subtree"),
        (&|t| t.preorder[2] = 9, "beyond the objects"),
        (&|t| t.preorder[3] = 1, "twice in the preorder"),
        (&|t| t.idom[4] = 0, "disagree on what is reachable"),
        (&|t| t.position[3] = 2, "its position elsewhere"),
        (&|t| (t.idom[4], t.position[4]) = (0, 1), "a position that the preorder does not list"),
        (&|t| t.subtree[4] = 1, "an unreachable object with a subtree"),
        (&|t| t.subtree[3] = 3, "a subtree beyond the preorder"),
        (&|t| t.retained[2] = 31, "do not add up"),
        (&|t| (t.subtree[1], t.subtree[2], t.idom[2]) = (1, 1, 0), "do not add up"),
    ];
    for (change, said) in cases {
        let why = wrong(change);
        assert!(why.contains(said), "{why} (expected: {said})");
    }
    assert!(read(&body(&good, &[5], 5), &shallow).unwrap_err().contains("held by the VM beyond"));
    assert!(read(&body(&good, &[], 6), &shallow).unwrap_err().contains("a tree of 6 objects"));
    let whole = body(&good, &[], 5);
    for cut in [0, 8, 30, whole.len() - 8] {
        assert!(read(&whole[..cut], &shallow).is_err(), "cut at {cut}");
    }
}

/// The inspected import (`memcity check`'s) keeps the tree and reads it too: its history and
/// every object's retained bytes are those of a run with no index, and an inspection that asks
/// for no sizes groups the dump from the kept tree all the same.
#[test]
fn the_inspected_import_keeps_and_reads_the_tree() {
    let setup = Setup::new("inspected");
    let sizes = |_: &memcity_heapgraph::TypedHeap, retained: &(dyn Fn() -> Vec<u64> + Sync)| retained();
    let no_sizes =
        |heap: &memcity_heapgraph::TypedHeap, _: &(dyn Fn() -> Vec<u64> + Sync)| heap.graph.object_count();
    let inspected = |options: &ImportOptions| {
        crate::import::import_inspecting(&[setup.dump()], options, &memcity_heapgraph::Silent, &sizes)
            .unwrap()
    };
    let plain = inspected(&ImportOptions::default());
    let first = inspected(&setup.options());
    assert!(setup.opened().tree.is_some(), "kept by the first");
    let again = inspected(&setup.options());
    assert_eq!(first, plain);
    assert_eq!(again, plain);
    assert!(plain.1[0].iter().any(|&r| r > 0));
    let grouped = crate::import::import_inspecting(
        &[setup.dump()],
        &setup.options(),
        &memcity_heapgraph::Silent,
        &no_sizes,
    )
    .unwrap();
    assert_eq!(grouped.0, plain.0);
}

/// A chain as deep as the heap (a long linked list) is checked with one open subtree per
/// level, and a wrong sum at its bottom is found when the chain closes.
#[test]
fn a_chain_as_deep_as_the_heap_is_checked() {
    let n = 200_000usize;
    let shallow: Vec<u64> = (0..n as u64).map(|i| 16 + i % 7).collect();
    let mut retained = vec![0u64; n];
    let mut below = 0;
    for o in (0..n).rev() {
        below += shallow[o];
        retained[o] = below;
    }
    let tree = DominatorTree {
        idom: (0..n as u32).map(|o| o.checked_sub(1).unwrap_or(VIRTUAL_ROOT)).collect::<Vec<_>>().into(),
        idom_above: Default::default(),
        retained: retained.into(),
        preorder: (0..n as u32).collect::<Vec<_>>().into(),
        subtree: (0..n as u32).map(|o| n as u32 - o).collect::<Vec<_>>().into(),
        position: (0..n as u32).collect::<Vec<_>>().into(),
    };
    assert_eq!(check(&tree, &shallow), Ok(()));
    let mut wrong = tree.clone();
    wrong.retained[n - 1] += 1;
    assert!(check(&wrong, &shallow).unwrap_err().contains("do not add up"));
}
