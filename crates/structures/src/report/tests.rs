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
    assert_eq!(report.listed().len(), 1, "nothing appeared or died");
    assert_eq!(report.window.instances.len(), 1, "the small list is counted, not kept");
    assert_eq!(report.count(Status::Survived), 2);
}

#[test]
fn the_listed_instances_have_the_leaves_of_a_whole_measurement() {
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
    assert_eq!(report.window.instances.len(), 1, "the small list is not listed, nor read");
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

/// Lists of the given sizes in the slots of an array a root holds, each instance known by its
/// root path (`root Root [0] [3]`), as in a heap dump: `None` is an empty slot.
fn dump_like(index: usize, sizes: &[Option<usize>]) -> TypedSnapshot {
    use memcity_heapgraph::{EdgeLabels, Label};
    let mut b = Builder::new();
    let root = b.object("Root", 0, &[]);
    let slots = b.object("java.lang.Object[]", 16, &[]);
    b.point(root, slots);
    for size in sizes {
        let held = match size {
            Some(n) => linked_list(&mut b, *n),
            None => b.object("java.lang.Object", 16, &[]),
        };
        b.point(slots, held);
    }
    let mut heap = b.heap();
    let g = &heap.graph;
    let of_edge = (0..g.object_count())
        .flat_map(|o| (0..g.referents(o as u32).len()).map(|i| Label::index(i as u64)))
        .collect();
    heap.objects.labels = EdgeLabels { names: Vec::new(), of_edge };
    heap.objects.identity_stable = false;
    heap.objects.identity = Default::default();
    TypedSnapshot {
        index,
        time_ms: 0,
        reachable_bytes: 0,
        label: String::new(),
        metrics: Default::default(),
        heap,
    }
}

#[test]
fn the_listing_is_what_ranking_every_instance_in_words_lists() {
    // Slots 0–5 survive with various growths (ties among them), 6–7 die, 8–11 appear.
    let first = dump_like(
        0,
        &[Some(3), Some(5), Some(2), Some(4), Some(1), Some(6), Some(2), Some(9), None, None, None, None],
    );
    let last = dump_like(
        1,
        &[
            Some(9),
            Some(5),
            Some(8),
            Some(4),
            Some(7),
            Some(6),
            None,
            None,
            Some(3),
            Some(1),
            Some(4),
            Some(2),
        ],
    );
    let descriptions = builtin();
    for by in [SortBy::Retained, SortBy::Deep, SortBy::Structure, SortBy::DeepStructure] {
        for top in [1, 2, 3, usize::MAX] {
            let report = report(&first, Some(&last), &descriptions, by, top);
            let measure = |s: &TypedSnapshot| crate::measure::measure(&s.heap, &descriptions);
            let (start, end) = (measure(&first), measure(&last));
            let mut whole = crate::growth::window(&start, &end);
            crate::growth::rank(&mut whole.instances, by);
            let mut appeared: Vec<&InstanceGrowth> =
                whole.instances.iter().filter(|i| i.status == Status::Appeared).collect();
            appeared.sort_by_key(|i| std::cmp::Reverse(end.instances[i.end.unwrap()].measure.retained.bytes));
            let mut died: Vec<&InstanceGrowth> =
                whole.instances.iter().filter(|i| i.status == Status::Died).collect();
            died.sort_by_key(|i| std::cmp::Reverse(start.instances[i.start.unwrap()].measure.retained.bytes));
            let fates = top.min(FATES_SHOWN);
            let survivors = whole.instances.iter().filter(|i| i.status == Status::Survived).take(top);
            let expected: Vec<&InstanceGrowth> = survivors
                .chain(appeared.into_iter().take(fates))
                .chain(died.into_iter().take(fates))
                .collect();
            let listed = report.listed();
            let key = |i: &&InstanceGrowth| (i.key.clone(), i.status);
            assert_eq!(
                listed.iter().map(key).collect::<Vec<_>>(),
                expected.iter().map(key).collect::<Vec<_>>(),
                "{by:?} top {top}"
            );
            for (got, want) in listed.iter().zip(&expected) {
                if got.status == Status::Survived {
                    assert_eq!(got.growth, want.growth, "{by:?} top {top}: {}", got.key);
                }
                assert_eq!(got.leaves, want.leaves, "{by:?} top {top}: {}", got.key);
                let named = report.instance(got);
                assert!(
                    matches!(&named.key, crate::InstanceKey::Path(p) if p.starts_with("root Root [0] [")),
                    "{}",
                    named.key
                );
                assert_eq!(named.path, named.key.to_string());
            }
            assert_eq!(
                (report.count(Status::Survived), report.count(Status::Appeared), report.count(Status::Died)),
                (6, 4, 2)
            );
        }
    }
}

/// The spill setting is one for the process: this is the crate's only test that changes it
/// (the others may see tables mapped meanwhile, which must not matter).
#[test]
fn a_report_whose_tables_are_all_in_work_files_lists_the_same() {
    use memcity_heapgraph::table::{mapped_peak, spill_to};
    let first = dump_like(0, &[Some(3), Some(5), Some(2), Some(9), None]);
    let last = dump_like(1, &[Some(9), Some(5), None, Some(4), Some(3)]);
    let in_memory = report(&first, Some(&last), &builtin(), SortBy::Retained, 2);
    let dir = std::env::temp_dir().join(format!("memcity-structures-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let before = mapped_peak();
    spill_to(0, Some(dir.clone()));
    let mapped = report(&first, Some(&last), &builtin(), SortBy::Retained, 2);
    spill_to(0, None);
    let _ = std::fs::remove_dir_all(&dir);
    // The briefs, the root paths and detection's tables went to work files.
    let briefs = size_of::<crate::brief::Brief>() as u64 * 5;
    assert!(mapped_peak() > before && mapped_peak() >= briefs, "mapped at most {} bytes", mapped_peak());
    assert_eq!(mapped, in_memory);
    assert_eq!(mapped.listed().len(), 2 + 1 + 1, "two survivors, one appeared, one died");
}

#[test]
fn in_a_window_of_one_snapshot_instances_of_one_path_neither_appear_nor_die() {
    let mut only = dump_like(0, &[Some(3), Some(5), Some(2)]);
    // No reference named: every list is `root Root ? ?`.
    let edges = only.heap.graph.edges.len();
    only.heap.objects.labels.of_edge = vec![memcity_heapgraph::Label::NONE; edges].into();
    let report = report(&only, None, &builtin(), SortBy::Retained, usize::MAX);
    assert_eq!(
        (report.count(Status::Survived), report.count(Status::Appeared), report.count(Status::Died)),
        (3, 0, 0)
    );
    assert!(report.listed().iter().all(|i| i.key == report.listed()[0].key), "one path for all");
}
