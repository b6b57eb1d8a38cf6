use memcity_heapgraph::{Grouper, LeafMemo, ObjectFacts, RootKind, parse_list};

use super::assign_leaves_of;

/// Leaves given one object at a time, as an object-by-object walk of the classes gives them.
fn walked(classes: &[u32], names: &[String], grouper: &mut Grouper) -> Vec<u32> {
    let mut memo = LeafMemo::default();
    let facts = |class: u32| ObjectFacts { type_name: &names[class as usize], ..ObjectFacts::default() };
    classes.iter().map(|&class| memo.leaf(grouper, class, || facts(class))).collect()
}

#[test]
fn leaves_by_class_are_numbered_as_the_objects_first_meet_their_classes() {
    // Three runs of objects and more; two classes of one name share a leaf.
    let names: Vec<String> = ["a.B", "a.C", "d.E", "a.B", "f.G", "never.Met"].map(String::from).to_vec();
    let n = (5 << 20) / 2;
    let mut classes: Vec<u32> = (0..n as u64).map(|i| ((i * 2_654_435_761) >> 7) as u32 % 5).collect();
    classes[..4].copy_from_slice(&[3, 2, 3, 0]);
    let classes_late = {
        let mut c = classes.clone();
        c[n - 1] = 4;
        c.iter_mut().take(n - 1).filter(|c| **c == 4).for_each(|c| *c = 1);
        c
    };
    for classes in [classes, classes_late] {
        for grouping in ["package,type", "type"] {
            let mut expected_grouper = Grouper::new(parse_list(grouping).unwrap());
            let expected = walked(&classes, &names, &mut expected_grouper);
            let mut grouper = Grouper::new(parse_list(grouping).unwrap());
            let mut group = classes.clone().into();
            assign_leaves_of(&mut group, &names, &[(1, RootKind::Static)], &mut grouper);
            assert!(group.iter().eq(expected.iter().copied()), "{grouping}: the walk's numbering");
            assert!(group.by_key().is_some(), "{grouping}: through the classes, no table of groups");
            assert_eq!(grouper.group_count(), expected_grouper.group_count());
            let keys = |g: &Grouper| (1..g.group_count() as u32).map(|l| g.leaf_key(l)).collect::<Vec<_>>();
            assert_eq!(keys(&grouper), keys(&expected_grouper));
        }
    }
}

/// The objects no root record reaches, found by the depth-first search, group a real JVM dump
/// as marking them first and making them roots did: counts, retained sizes, paths (those that
/// end at one say the VM holds it) and, marked first for them, the exact closures.
#[test]
fn unreached_objects_held_by_the_search_group_as_if_marked_first() {
    use memcity_heapgraph::{
        AnalysisOptions, Live, Retained, Silent, TreeSource, group_heap_owned_with_tree,
    };
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/hprof/dump1.hprof.gz");
    let read = || crate::read_dump(&sample, &crate::Layout::default(), &|_| {}).unwrap();
    for retained in [Retained::Dominated, Retained::Closure] {
        let options = AnalysisOptions { retained, ..AnalysisOptions::default() };
        let mut grouper = Grouper::new(super::default_grouping().classifiers);
        let mut dump = read();
        let mut roots = super::assign_leaves(&mut dump, &mut grouper);
        let n = grouper.group_count();
        let held = super::group_dump(&mut dump, &mut roots, n, &options);

        let mut dump = read();
        let mut roots = super::assign_leaves(&mut dump, &mut grouper);
        let marked = super::hold_unreached(&mut dump, &mut roots);
        assert!(marked.len() > 100, "the sample has objects no root record reaches: {}", marked.len());
        let graph = std::mem::take(&mut dump.graph);
        let holder = |node| dump.holder_name(node);
        let build = TreeSource::Build;
        let expected =
            group_heap_owned_with_tree(graph, build, n, Live::All, &roots, &holder, &options, &Silent).0;
        assert_eq!(held, expected, "{retained:?}");
        let by_vm =
            held.paths.iter().flatten().filter(|p| p.roots.iter().any(|r| r.starts_with("VM Internal")));
        assert!(by_vm.count() > 0, "some path ends at an object the VM holds");
    }
}
