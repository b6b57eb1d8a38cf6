use super::*;
use crate::{Metric, Timeline, validate_history};

fn run(snapshots: &[&[(&str, u64)]]) -> History {
    History {
        format: crate::FORMAT.to_string(),
        metric_names: Default::default(),
        snapshots: snapshots
            .iter()
            .enumerate()
            .map(|(i, leaves)| {
                let children: Vec<Node> =
                    leaves.iter().map(|&(k, b)| Node::leaf(&format!("Heap#{k}"), k, "Type", 1, b)).collect();
                let mut root = Node::leaf("Heap", "Heap", "Heap", children.len() as u64, 0);
                root.bytes = children.iter().map(|c| c.bytes).sum();
                root.children = children;
                Snapshot::new(i as u64 * 10, root)
            })
            .collect(),
    }
}

fn bytes(timeline: &Timeline, snapshot: usize, key: &str) -> u64 {
    timeline.values[snapshot].get(Metric::Bytes)[timeline.group(key).unwrap() as usize]
}

#[test]
fn both_sides_hold_the_union_of_groups_and_step_together() {
    let before = run(&[&[("A", 10), ("B", 5)], &[("A", 20), ("B", 5)]]);
    let after = run(&[&[("A", 10)], &[("A", 12), ("C", 7)], &[("A", 14), ("C", 9)]]);
    let pair = pair(&before, &after, ["before.json", "after.json"]);
    assert!(is_pair(&pair));
    assert_eq!(pair.snapshots.len(), 3, "as long as the longer run");
    validate_history(&pair, &|_| "pair".into(), &|_| String::new()).unwrap();
    let t = Timeline::new(&pair);
    for side in 0..2 {
        for key in ["Heap#A", "Heap#B", "Heap#C"] {
            assert!(t.group(&side_key(side, key)).is_some(), "{side} {key}");
        }
    }
    // The shorter run stays at its last snapshot.
    assert_eq!(bytes(&t, 2, &side_key(0, "Heap#A")), 20);
    assert_eq!(bytes(&t, 2, &side_key(1, "Heap#A")), 14);
    assert_eq!(bytes(&t, 1, &side_key(0, "Heap#C")), 0, "only the other run has it");
    assert_eq!(bytes(&t, 1, &side_key(1, "Heap#C")), 7);
    assert_eq!(bytes(&t, 0, SIDES[0]), 15);
    assert_eq!(bytes(&t, 0, ROOT), 25);
    assert_eq!(pair.snapshots[0].tree.children[1].name, "after.json");
    // Siblings stand in the same order on both sides.
    let order = |side: usize| -> Vec<&str> {
        let heap = &pair.snapshots[1].tree.children[side].children[0];
        heap.children.iter().map(|c| split_key(&c.key).unwrap().1).collect()
    };
    assert_eq!(order(0), ["Heap#A", "Heap#B", "Heap#C"]);
    assert_eq!(order(1), order(0));
}

#[test]
fn keys_split_back_into_run_and_key() {
    assert_eq!(split_key(&side_key(1, "Heap#A")), Some((1, "Heap#A")));
    assert_eq!(split_key(SIDES[0]), None);
    assert_eq!(split_key("Heap#A"), None);
    assert!(!is_pair(&run(&[&[("A", 1)]])));
}

#[test]
fn runs_with_different_roots_sit_side_by_side_in_each_district() {
    let before = run(&[&[("A", 10)]]);
    let mut after = run(&[&[("A", 3)]]);
    after.snapshots[0].tree.key = "Other".into();
    after.snapshots[0].tree.children[0].key = "Other#A".into();
    let pair = pair(&before, &after, ["a", "b"]);
    validate_history(&pair, &|_| "pair".into(), &|_| String::new()).unwrap();
    let t = Timeline::new(&pair);
    assert_eq!(bytes(&t, 0, &side_key(0, "Other#A")), 0);
    assert_eq!(bytes(&t, 0, &side_key(1, "Other#A")), 3);
    assert_eq!(bytes(&t, 0, &side_key(1, "Heap#A")), 0);
}

#[test]
fn pointer_maps_and_retainer_paths_follow_their_groups() {
    let mut before = run(&[&[("A", 10), ("B", 5)]]);
    before.snapshots[0].points_to.insert("Heap#A".into(), [("Heap#B".to_string(), 3)].into());
    before.snapshots[0].retainers.insert(
        "Heap#B".into(),
        RetainerPath {
            steps: vec![crate::RetainerStep {
                key: "Heap#B".into(),
                objects: 1,
                bytes: 5,
                retained_bytes: 5,
                via: None,
            }],
            roots: vec![],
        },
    );
    let pair = pair(&before, &run(&[&[("A", 1)]]), ["a", "b"]);
    validate_history(&pair, &|_| "pair".into(), &|_| String::new()).unwrap();
    let s = &pair.snapshots[0];
    assert_eq!(s.points_to[&side_key(0, "Heap#A")][&side_key(0, "Heap#B")], 3);
    assert_eq!(s.retainers[&side_key(0, "Heap#B")].steps[0].key, side_key(0, "Heap#B"));
}
