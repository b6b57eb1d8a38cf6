use std::collections::BTreeMap;

use super::*;
use crate::pipeline::{AnalysisOptions, group_heap};
use crate::retainers::RetainerStep;

/// The pipeline tests' heap grouped by `classifiers`, its types in packages.
fn grouped(classifiers: &str) -> (GroupedHeap, ObjectGroups, usize) {
    let types = ["app.List", "app.Node", "app.Person", "java.lang.String", "app.Temp", "x.Garbage"];
    let (g, roots, grouper) = crate::pipeline::tests::example(classifiers, types);
    let live = crate::reachable(&g);
    let heap = group_heap(&g, grouper.group_count(), &live, &roots, &AnalysisOptions::default());
    (heap, g.group.clone(), grouper.group_count())
}

#[test]
fn groupings_that_part_the_objects_alike_rank_to_one_analysis() {
    let (by_package, group_a, count_a) = grouped("package,type");
    let (by_type, group_b, count_b) = grouped("type");
    assert_ne!(group_a, group_b, "numbered otherwise: packages are groups too");
    let (a, b) = (Partition::of(&group_a, count_a), Partition::of(&group_b, count_b));
    let ranks = |p: &Partition, group: &ObjectGroups| {
        let mut ranks = Vec::new();
        p.ranks(group, 0..group.len(), &mut ranks);
        ranks
    };
    assert_eq!(ranks(&a, &group_a), ranks(&b, &group_b), "the same partition");
    assert_eq!((a.len(), b.len()), (6, 6));
    let ranked = by_package.ranked(&a);
    assert_eq!(ranked, by_type.ranked(&b), "one analysis by rank");
    assert_eq!(ranked.check(6), Ok(()));
    assert_eq!(ranked.clone().in_groups(&b, count_b), by_type, "read back in the other grouping's ids");
    assert_eq!(ranked.in_groups(&a, count_a), by_package);
}

#[test]
fn a_ranked_heap_survives_json() {
    let (heap, group, count) = grouped("package,type");
    let ranked = heap.ranked(&Partition::of(&group, count));
    let back: GroupedHeap = serde_json::from_str(&serde_json::to_string(&ranked).unwrap()).unwrap();
    assert_eq!(back, ranked);
}

fn step(group: u32) -> RetainerStep {
    RetainerStep { group, objects: 1, bytes: 16, retained_bytes: 16 }
}

fn two_groups() -> GroupedHeap {
    let path = GroupPath { steps: vec![step(1), step(0)], roots: vec!["Static Field".into()], via: vec![] };
    let map = BTreeMap::from([(0, 1)]);
    GroupedHeap {
        counts: vec![GroupCounts::default(); 2],
        maps: Some(PointerMaps {
            points_to: vec![map.clone(), map.clone()],
            pointed_from: vec![map, BTreeMap::new()],
        }),
        paths: vec![None, Some(path)],
        reachable_bytes: 32,
    }
}

#[test]
fn group_ids_past_the_partition_are_refused_by_name() {
    assert_eq!(two_groups().check(2), Ok(()));
    assert_eq!(two_groups().check(3).unwrap_err(), "2 counts for 3 groups");
    let mut heap = two_groups();
    heap.maps.as_mut().unwrap().pointed_from[1].insert(7, 1);
    assert_eq!(heap.check(2).unwrap_err(), "a pointer map to group 7 of 2");
    let mut heap = two_groups();
    heap.maps.as_mut().unwrap().points_to.pop();
    assert_eq!(heap.check(2).unwrap_err(), "1 points-to maps for 2 groups");
    let mut heap = two_groups();
    heap.paths[1].as_mut().unwrap().steps.push(step(9));
    assert_eq!(heap.check(2).unwrap_err(), "a retainer path through group 9 of 2");
    let mut heap = two_groups();
    heap.paths[1].as_mut().unwrap().steps.clear();
    assert_eq!(heap.check(2).unwrap_err(), "a retainer path of 0 steps");
    let mut heap = two_groups();
    heap.paths[1].as_mut().unwrap().via = vec![None; 3];
    assert_eq!(heap.check(2).unwrap_err(), "3 names for a path of 2 steps");
}

#[test]
fn groups_through_keys_part_alike_and_their_keys_rank_every_object() {
    // Keys 0..5, key 3 held by no object; keys 1 and 4 in one group; group 2 empty.
    let keys: Vec<u32> = vec![0, 1, 4, 2, 4, 0, 1];
    let by_key = vec![5, 0, 3, 1, 0];
    let through = ObjectGroups::through(keys.clone().into(), by_key.clone());
    let direct: ObjectGroups = keys.iter().map(|&k| by_key[k as usize]).collect::<Vec<_>>().into();
    let ((a, key_ranks), (b, none)) =
        (Partition::with_key_ranks(&through, 6), Partition::with_key_ranks(&direct, 6));
    assert_eq!(a, b);
    assert_eq!(a, Partition::of(&through, 6));
    assert_eq!(a.ids, [0, 3, 5], "groups 1, 2 and 4 hold no object");
    assert_eq!(none, None, "a group per object: no keys");
    let by_key_rank = key_ranks.unwrap();
    assert_eq!(by_key_rank, [2, 0, 1, ABSENT, 0]);
    let mut ranks = Vec::new();
    a.ranks(&through, 0..keys.len(), &mut ranks);
    assert_eq!(ranks, keys.iter().map(|&k| by_key_rank[k as usize]).collect::<Vec<_>>());
}
