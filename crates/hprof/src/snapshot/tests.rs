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
