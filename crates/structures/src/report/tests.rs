use memcity_heapgraph::TypedSnapshot;

use super::*;
use crate::detect::tests::{Builder, linked_list};
use crate::lang::builtin;

/// Root → a growing LinkedList of Persons, and a small one that keeps its size.
fn snapshot(index: usize, people: usize) -> TypedSnapshot {
    let mut b = Builder::new();
    let root = b.object("Root", 0, &[]);
    let growing = linked_list(&mut b, people);
    let stable = linked_list(&mut b, 2);
    b.point(root, growing);
    b.point(root, stable);
    let mut heap = b.heap();
    // The same two lists in every snapshot, whatever their object indices.
    heap.objects.identity[growing as usize] = 1000;
    heap.objects.identity[stable as usize] = 2000;
    TypedSnapshot {
        index,
        time_ms: index as u64,
        reachable_bytes: 0,
        label: format!("GC #{index}"),
        metrics: Default::default(),
        heap,
    }
}

#[test]
fn the_growing_list_is_ranked_first_with_its_transitive_size() {
    let (first, last) = (snapshot(0, 3), snapshot(4, 30));
    let report = report(&first, Some(&last), &builtin(), SortBy::Retained, 1);
    assert_eq!((report.from, report.to), (0, 4));
    let shown: Vec<&InstanceGrowth> = report.survivors().collect();
    assert_eq!(shown.len(), 1, "top 1");
    let end = report.instance(shown[0]);
    assert_eq!(end.type_name, "java.util.LinkedList");
    assert_eq!(end.measure.deep_structure.objects, 1 + 30 * 2);
    // Only the shown instance's transitive size is walked.
    assert_eq!(end.measure.deep.objects, 1 + 30 * 2);
    let other = report.window.instances.iter().find(|i| i.key != shown[0].key).expect("the small list");
    assert_eq!(report.instance(other).measure.deep.objects, 0, "not shown, not walked");
    assert_eq!(report.listed().len(), 1, "nothing appeared or died");
}

#[test]
fn the_listed_instances_have_the_leaves_of_a_whole_measurement_and_no_other_has_any() {
    let (first, last) = (snapshot(0, 3), snapshot(4, 30));
    let report = report(&first, Some(&last), &builtin(), SortBy::Retained, 1);
    let whole = crate::growth::window(
        &crate::measure::measure(&first.heap, &builtin()),
        &crate::measure::measure(&last.heap, &builtin()),
    );
    let shown = report.listed()[0];
    let measured = whole.instances.iter().find(|i| i.key == shown.key).expect("the growing list");
    assert_eq!(shown.leaves, measured.leaves);
    assert_eq!(shown.leaves[0].key.type_name, "app.Person");
    assert_eq!((shown.leaves[0].start.objects, shown.leaves[0].end.objects), (3, 30));
    assert_eq!(report.instance(shown).leaves, whole_end_leaves(&last, shown));
    let other = report.window.instances.iter().find(|i| i.key != shown.key).expect("the small list");
    assert!(other.leaves.is_empty() && report.instance(other).leaves.is_empty(), "not listed, not read");
}

/// The leaves a whole measurement of `snapshot` gives the instance `i` stands for.
fn whole_end_leaves(
    snapshot: &TypedSnapshot,
    i: &InstanceGrowth,
) -> Vec<(crate::measure::LeafKey, crate::Sizes)> {
    let whole = crate::measure::measure(&snapshot.heap, &builtin());
    whole.instances.into_iter().find(|m| m.key == i.key).expect("measured").leaves
}

#[test]
fn a_window_of_one_snapshot_compares_it_with_itself() {
    let only = snapshot(2, 5);
    let report = report(&only, None, &builtin(), SortBy::Deep, usize::MAX);
    assert_eq!((report.from, report.to), (2, 2));
    assert_eq!(report.count(Status::Survived), 2);
    assert!(report.window.instances.iter().all(|i| i.growth.as_ref().is_some_and(|g| g.retained.bytes == 0)));
}

#[test]
fn the_types_held_are_the_parts_and_the_leaves() {
    let last = snapshot(1, 4);
    let lists: Vec<u32> = report(&last, None, &builtin(), SortBy::Retained, usize::MAX)
        .end
        .instances
        .iter()
        .map(|i| i.head)
        .collect();
    let held = types_held(&last.heap, &builtin(), &[lists[0], 0]);
    assert_eq!(held[0], ["app.Person", "java.util.LinkedList", "java.util.LinkedList$Node"]);
    assert!(held[1].is_empty(), "the root heads no structure");
    let counted = objects_held(&last.heap, &builtin(), &[lists[0]]);
    let names: Vec<&str> = counted[0].iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, held[0], "the same types, counted");
    let count = |t: &str| counted[0].iter().find(|(n, _)| n == t).map(|&(_, c)| c);
    assert_eq!(count("java.util.LinkedList"), Some(1), "one list");
    assert_eq!(count("app.Person"), count("java.util.LinkedList$Node"), "a node per person");
}
