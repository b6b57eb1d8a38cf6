use memcity_model::compare::{pair, side_key};
use memcity_model::{History, Node, Snapshot, Timeline};

use super::*;
use crate::{Settings, frame, layout};

fn run(snapshots: &[&[(&str, u64)]]) -> History {
    History {
        format: memcity_model::FORMAT.to_string(),
        metric_names: Default::default(),
        snapshots: snapshots
            .iter()
            .enumerate()
            .map(|(i, leaves)| {
                let children: Vec<Node> = leaves
                    .iter()
                    .map(|&(k, n)| Node::leaf(&format!("Heap#{k}"), k, "Type", n, n * 8))
                    .collect();
                let mut root = Node::leaf("Heap", "Heap", "Heap", 0, 0);
                root.objects = children.iter().map(|c| c.objects).sum();
                root.bytes = children.iter().map(|c| c.bytes).sum();
                root.children = children;
                Snapshot::new(i as u64, root)
            })
            .collect(),
    }
}

fn compared() -> Timeline {
    let before = run(&[&[("A", 10), ("B", 50), ("C", 5)], &[("A", 40), ("B", 50), ("C", 5)]]);
    let after = run(&[&[("A", 10), ("B", 20), ("D", 30)], &[("A", 12), ("B", 90), ("D", 30)]]);
    Timeline::new(&pair(&before, &after, ["before", "after"]))
}

#[test]
fn twins_pair_each_group_with_its_counterpart() {
    let t = compared();
    let pairs = twins(&t).unwrap();
    let a0 = t.group(&side_key(0, "Heap#A")).unwrap();
    let a1 = t.group(&side_key(1, "Heap#A")).unwrap();
    assert_eq!((pairs[a0 as usize], pairs[a1 as usize]), (a1, a0));
    assert_eq!(pairs[0], NONE, "the root has none");
    assert!(twins(&Timeline::new(&run(&[&[("A", 1)]]))).is_none());
}

#[test]
fn both_sides_are_laid_out_alike() {
    let t = compared();
    let city = layout(&t, &Settings::default());
    assert_eq!(city.buildings.len(), 8, "four groups on each side");
    for key in ["Heap#A", "Heap#B", "Heap#C", "Heap#D"] {
        let cell = |side| {
            let b = city.building(t.group(&side_key(side, key)).unwrap()).unwrap();
            city.buildings[b].cell
        };
        let (before, after) = (cell(0), cell(1));
        assert!(
            (before.w - after.w).abs() < 1e-9 && (before.d - after.d).abs() < 1e-9,
            "{key}: {before:?} {after:?}"
        );
        let d = |side| city.districts[city.district(t.group(SIDES[side]).unwrap()).unwrap()].rect;
        // The same offset inside each side's district.
        assert!(((before.x - d(0).x) - (after.x - d(1).x)).abs() < 1e-9, "{key}");
        assert!(((before.z - d(0).z) - (after.z - d(1).z)).abs() < 1e-9, "{key}");
    }
}

#[test]
fn a_difference_city_shows_the_after_run_coloured_by_what_it_has_more() {
    let t = compared();
    let city = layout(&t, &Settings { compare: CompareView::Difference, ..Settings::default() });
    assert_eq!(city.buildings.len(), 4, "the after side only");
    assert!(city.building(t.group(&side_key(0, "Heap#A")).unwrap()).is_none());
    let last = frame(&city, 1);
    let state = |key| last.states[city.building(t.group(&side_key(1, key)).unwrap()).unwrap()];
    // B: 90 after against 50 before, the largest difference: full red under the relative scale.
    let relative = layout(
        &t,
        &Settings {
            compare: CompareView::Difference,
            growth: crate::GrowthScale::Relative,
            ..Settings::default()
        },
    );
    let b = relative.building(t.group(&side_key(1, "Heap#B")).unwrap()).unwrap();
    assert_eq!(frame(&relative, 1).states[b].growth, 1.0);
    assert!(relative.buildings[b].solid);
    // A shrank against before (12 < 40): gray; D is new: grew by all it has.
    assert_eq!(state("Heap#A").growth, 0.0);
    assert!(state("Heap#D").growth > 0.0);
    // At the first snapshot B had less than before: gray then.
    assert_eq!(
        frame(&city, 0).states[city.building(t.group(&side_key(1, "Heap#B")).unwrap()).unwrap()].growth,
        0.0
    );
}

#[test]
fn both_sides_of_a_pair_sort_their_groups_alike() {
    use crate::partition::{SortBy, sort_order};
    let t = compared();
    let pairs = twins(&t).unwrap();
    let rank = |order: &[u32], side, key| order[t.group(&side_key(side, key)).unwrap() as usize];
    // Alone, each side sorts by its own growth: A first before (grew by 30), B first after (70).
    let own = sort_order(&t, Metric::Objects, SortBy::Growth, 0, 1);
    assert_ne!(rank(&own, 0, "Heap#A"), rank(&own, 1, "Heap#A"));
    let shared = shared_order(&t, &pairs, Metric::Objects, SortBy::Growth, 0, 1);
    for key in ["Heap#A", "Heap#B", "Heap#C", "Heap#D"] {
        assert_eq!(rank(&shared, 0, key), rank(&shared, 1, key), "{key}");
    }
    assert_eq!(rank(&shared, 0, "Heap#B"), 0, "B grew most over both runs (70 + 0)");
}
