use memcity_heapgraph::{TypedHeap, TypedSnapshot};
use memcity_structures::builtin;

use super::*;
use crate::tests::{Builder, assert_conserved, find, sessions};

fn snapshot(index: usize, heap: TypedHeap) -> TypedSnapshot {
    TypedSnapshot {
        index,
        time_ms: index as u64 * 1000,
        reachable_bytes: 0,
        label: format!("#{index}"),
        metrics: Default::default(),
        heap,
    }
}

#[test]
fn a_series_pairs_nodes_by_path_with_growth_new_objects_and_history() {
    let mut series = Series::new(Options::default());
    let mut sizes = Vec::new();
    for (i, count) in [2, 5, 9].into_iter().enumerate() {
        let mut b = Builder::default();
        let manager = sessions(&mut b, count);
        b.root(manager, Some("static app.Registry.manager"));
        let heap = b.heap();
        let s = series.push(&snapshot(i, heap), &builtin());
        assert_conserved(&s.ownership);
        sizes.push(s.ownership.heap_bytes);
    }
    let last = &series.snapshots()[2];
    let session = find(&last.ownership, "app.Session")[0];
    let node = &last.ownership.tree[session as usize];
    let history = series.history(node.path);
    assert_eq!(history.len(), 3);
    assert!(history[0] < history[1] && history[1] < history[2], "{history:?}");
    assert_eq!(node.growth_bytes, (history[2] - history[1]) as i64);
    // Ids are positions here, so the later snapshot's objects beyond the earlier's count are new.
    assert!(node.new_objects > 0);
    assert_eq!(series.heap_history(), sizes);
    let root = &last.ownership.tree[0];
    assert_eq!(root.growth_bytes, (sizes[2] - sizes[1]) as i64);
    let first = &series.snapshots()[0].ownership;
    assert!(first.tree.iter().all(|n| n.growth_bytes == 0 && n.new_objects == 0), "nothing before the first");
}

#[test]
fn without_stable_identities_new_objects_are_the_count_increase() {
    let mut series = Series::new(Options::default());
    for (i, count) in [2, 5].into_iter().enumerate() {
        let mut b = Builder::default();
        let manager = sessions(&mut b, count);
        b.root(manager, None);
        let mut heap = b.heap();
        heap.objects.identity_stable = false;
        series.push(&snapshot(i, heap), &builtin());
    }
    let own = &series.snapshots()[1].ownership;
    let session = find(own, "app.Session")[0];
    assert_eq!(own.tree[session as usize].new_objects, 3);
}
