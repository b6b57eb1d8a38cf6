use memcity_model::{History, Node, Snapshot};

use super::*;

/// A heap of types with these object counts (bytes = 10 per object), under the root.
fn heap(types: &[(&str, u64)]) -> Node {
    let mut root = Node::leaf("Heap", "Heap", "Heap", 0, 0);
    for (name, objects) in types {
        root.children.push(Node::leaf(&format!("Heap#{name}"), name, "Type", *objects, objects * 10));
        root.objects += objects;
        root.bytes += objects * 10;
    }
    root
}

fn timeline(snapshots: &[&[(&str, u64)]]) -> Timeline {
    let snapshots =
        snapshots.iter().enumerate().map(|(t, types)| Snapshot::new(t as u64 * 1000, heap(types))).collect();
    Timeline::new(&History {
        format: memcity_model::FORMAT.into(),
        metric_names: Default::default(),
        snapshots,
    })
}

fn group(t: &Timeline, name: &str) -> u32 {
    t.groups.iter().position(|g| g.name == name).unwrap() as u32
}

fn view(order: &[u32], pruning: Pruning, levels: u32, scale: u64) -> TreeView<'_> {
    TreeView { metric: Metric::Objects, order, pruning, root: 0, levels, scale }
}

fn names(t: &Timeline, parts: &[Part]) -> Vec<String> {
    parts
        .iter()
        .map(|p| match &p.node {
            PartNode::Group(g) => t.groups[*g as usize].name.clone(),
            PartNode::Other { groups, .. } => format!("Other({})", groups.len()),
        })
        .collect()
}

#[test]
fn growth_orders_the_grower_first_even_while_it_is_small() {
    let t = timeline(&[&[("Big", 100), ("Leak", 1)], &[("Big", 100), ("Leak", 50)]]);
    let order = sort_order(&t, Metric::Objects, SortBy::Growth, 0, 1);
    assert_eq!(order[group(&t, "Leak") as usize], 0);
    assert_eq!(order[group(&t, "Big") as usize], 1);
    let by_end = sort_order(&t, Metric::Objects, SortBy::EndSize, 0, 1);
    assert_eq!(by_end[group(&t, "Big") as usize], 0);
}

#[test]
fn a_branch_keeps_children_until_ninety_percent_at_most_nine_and_merges_the_rest() {
    // 50 + 30 + 10 = 90 % of 100: the three first stay, the two small ones are merged.
    let t = timeline(&[&[("A", 50), ("B", 30), ("C", 10), ("D", 6), ("E", 4)]]);
    let order = sort_order(&t, Metric::Objects, SortBy::EndSize, 0, 0);
    let (kept, rest) = kept_children(&t, &view(&order, Pruning::default(), 1, 1), 0, 0);
    assert_eq!(kept, ["A", "B", "C"].map(|n| group(&t, n)));
    assert_eq!(rest, ["D", "E"].map(|n| group(&t, n)));
    // Twelve equal children: nine, and the other three merged.
    let many: Vec<(String, u64)> = (0..12).map(|i| (format!("T{i:02}"), 10)).collect();
    let many: Vec<(&str, u64)> = many.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    let t = timeline(&[&many]);
    let order = sort_order(&t, Metric::Objects, SortBy::EndSize, 0, 0);
    let (kept, rest) = kept_children(&t, &view(&order, Pruning::default(), 1, 1), 0, 0);
    assert_eq!((kept.len(), rest.len()), (9, 3));
    // One child left over is shown as itself, not as "Other".
    let t = timeline(&[&[("A", 80), ("B", 15), ("C", 5)]]);
    let order = sort_order(&t, Metric::Objects, SortBy::EndSize, 0, 0);
    let (kept, rest) = kept_children(&t, &view(&order, Pruning::default(), 1, 1), 0, 0);
    assert_eq!((kept.len(), rest.len()), (3, 0));
}

#[test]
fn parts_tile_their_parent_in_sort_order_with_other_last() {
    let t = timeline(&[&[("A", 50), ("B", 30), ("C", 10), ("D", 6), ("E", 4)]]);
    let order = sort_order(&t, Metric::Objects, SortBy::EndSize, 0, 0);
    let parts = partition(&t, &view(&order, Pruning::default(), 2, 100), 0);
    assert_eq!(names(&t, &parts), ["Heap", "A", "B", "C", "Other(2)"]);
    assert_eq!((parts[0].start, parts[0].end), (0.0, 1.0));
    for pair in parts[1..].windows(2) {
        assert!((pair[0].end - pair[1].start).abs() < 1e-12, "contiguous");
    }
    assert!((parts[4].end - 1.0).abs() < 1e-12);
    assert_eq!(parts[4].value, 10);
    assert!(parts[1..].iter().all(|p| p.depth == 1));
}

#[test]
fn positions_stay_in_order_while_sizes_swap_and_a_scaled_view_shows_growth() {
    let t = timeline(&[&[("Big", 100), ("Leak", 10)], &[("Big", 100), ("Leak", 300)]]);
    let order = sort_order(&t, Metric::Objects, SortBy::Growth, 0, 1);
    let scale = window_scale(&t, Metric::Objects, 0, 0, 1);
    assert_eq!(scale, 400);
    for snapshot in 0..2 {
        let parts = partition(&t, &view(&order, Pruning { share: 1.0, max_children: 9 }, 1, scale), snapshot);
        assert_eq!(names(&t, &parts), ["Heap", "Leak", "Big"], "the same order at {snapshot}");
    }
    let first = partition(&t, &view(&order, Pruning::default(), 1, scale), 0);
    assert!((first[0].end - 110.0 / 400.0).abs() < 1e-12, "the smaller heap takes its share of the axis");
    // Unscaled: the root fills the axis.
    let unscaled = partition(&t, &view(&order, Pruning::default(), 1, first[0].value), 0);
    assert!((unscaled[0].end - 1.0).abs() < 1e-12);
}

#[test]
fn icicles_put_levels_in_columns_and_sunbursts_in_rings() {
    let part = Part { node: PartNode::Group(1), depth: 1, start: 0.25, end: 0.5, value: 1 };
    assert_eq!(icicle_rect(&part, 2, 300.0, 100.0), [100.0, 25.0, 200.0, 50.0]);
    let [r0, r1, a0, a1] = sunburst_sector(&part, 2, 90.0);
    assert_eq!((r0, r1), (30.0, 60.0));
    assert!((a0 - std::f64::consts::FRAC_PI_2).abs() < 1e-12 && (a1 - std::f64::consts::PI).abs() < 1e-12);
}

#[test]
fn levels_below_count_the_union_tree_under_a_group_and_a_leaf_still_gets_one() {
    let t = timeline(&[&[("A", 1)], &[("A", 2), ("B", 1)]]);
    assert_eq!(levels_below(&t, 0), 1);
    assert_eq!(levels_below(&t, group(&t, "B")), 1, "a leaf shows as a column of its own");
    let mut deep = heap(&[("A", 1)]);
    deep.children[0].children.push(Node::leaf("Heap#A#site", "site", "Allocation Site", 1, 10));
    let t = Timeline::new(&History {
        format: memcity_model::FORMAT.into(),
        metric_names: Default::default(),
        snapshots: vec![Snapshot::new(0, deep)],
    });
    assert_eq!(levels_below(&t, 0), 2);
    assert_eq!(levels_below(&t, group(&t, "A")), 1);
}

#[test]
fn an_empty_city_or_a_root_of_another_city_gives_no_parts_and_one_level() {
    let empty = timeline(&[]);
    let order = sort_order(&empty, Metric::Objects, SortBy::Growth, 0, 0);
    assert!(partition(&empty, &view(&order, Pruning::default(), 2, 0), 0).is_empty());
    assert_eq!(levels_below(&empty, 0), 1);
    assert_eq!(window_scale(&empty, Metric::Objects, 0, 0, 0), 0);
    // A view made for a larger city (its root and order) over a smaller one.
    let small = timeline(&[&[("A", 1)]]);
    let stale: Vec<u32> = vec![0; 9];
    let mut far = view(&stale, Pruning::default(), 2, 1);
    far.root = 7;
    assert!(partition(&small, &far, 0).is_empty());
    assert_eq!(levels_below(&small, 7), 1);
    let order = sort_order(&small, Metric::Objects, SortBy::Growth, 0, 0);
    let mut past = view(&order, Pruning::default(), 2, 1);
    past.root = 7;
    assert!(partition(&small, &past, 0).is_empty(), "a root past the groups");
    assert_eq!(
        partition(&small, &view(&order, Pruning::default(), 2, 1), 3),
        Vec::new(),
        "a time past the end"
    );
}
