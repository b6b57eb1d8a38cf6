use memcity_heapgraph::{Label, TypedHeap};

use super::*;
use crate::detect::tests::Builder;
use crate::growth::{Pattern, SortBy, Status, rank, window};
use crate::lang::builtin;

/// A java.util.HashMap holding `values` under fresh String keys: map → table → one node per
/// entry (chained in pairs, as colliding buckets are). `head` exists already, so that its
/// object index (the id in these heaps) is the same whatever it holds.
fn fill_map(b: &mut Builder, head: u32, values: &[u32]) {
    let mut buckets = Vec::new();
    for pair in values.chunks(2) {
        let mut next = None;
        for &value in pair.iter().rev() {
            let key = b.object("java.lang.String", 24, &[]);
            let refs: Vec<u32> = [key, value].into_iter().chain(next).collect();
            next = Some(b.object("java.util.HashMap$Node", 32, &refs));
        }
        buckets.extend(next);
    }
    let table = b.object("java.util.HashMap$Node[]", 16 + 4 * buckets.len() as u64, &buckets);
    b.point(head, table);
}

fn new_map(b: &mut Builder) -> u32 {
    b.object("java.util.HashMap", 48, &[])
}

fn person(b: &mut Builder) -> u32 {
    b.object("app.Person", 24, &[])
}

fn by_head(h: &HeapStructures, head: u32) -> &InstanceMeasure {
    h.instances.iter().find(|i| i.head == head).expect("an instance with this head")
}

#[test]
fn a_hash_map_is_its_table_nodes_and_entries() {
    let mut b = Builder::new();
    let root = b.object("Root", 0, &[]);
    let map = new_map(&mut b);
    let people: Vec<u32> = (0..3).map(|_| person(&mut b)).collect();
    fill_map(&mut b, map, &people);
    b.point(root, map);
    let h = measure(&b.heap(), &builtin());
    assert_eq!(h.instances.len(), 1);
    let m = &h.instances[0].measure;
    // head 48 + table (2 buckets) 24 + 3 nodes 96 + 3 keys 72 + 3 people 72.
    assert_eq!(m.structure, Sizes { objects: 11, bytes: 48 + 24 + 96 + 72 + 72 });
    assert_eq!(m.deep_structure, m.structure, "nothing contained");
    assert_eq!(m.retained, m.structure, "the map alone holds its entries");
    assert_eq!(m.deep, m.structure);
    assert_eq!(h.heap_bytes, m.structure.bytes);
    let leaves: Vec<(&str, u64)> =
        h.instances[0].leaves.iter().map(|(k, s)| (k.type_name.as_str(), s.objects)).collect();
    assert_eq!(leaves, [("app.Person", 3), ("java.lang.String", 3)]);
}

#[test]
fn a_map_of_lists_contains_them_and_sees_their_items_deep() {
    let mut b = Builder::new();
    let root = b.object("Root", 0, &[]);
    let map = new_map(&mut b);
    let mut lists = Vec::new();
    for n in [2, 3] {
        let items: Vec<u32> = (0..n).map(|_| person(&mut b)).collect();
        let array = b.object("java.lang.Object[]", 16 + 4 * n as u64, &items);
        lists.push(b.object("java.util.ArrayList", 24, &[array]));
    }
    fill_map(&mut b, map, &lists);
    b.point(root, map);
    let heap = b.heap();
    let h = measure(&heap, &builtin());
    assert_eq!(h.instances.len(), 3);
    assert_eq!(h.top_level().map(|i| i.head).collect::<Vec<_>>(), [map]);
    let m = by_head(&h, map);
    // Own closure: head, table (1 bucket: 20), 2 nodes, 2 keys, and the two list heads as leaves.
    assert_eq!(m.measure.structure, Sizes { objects: 8, bytes: 48 + 20 + 64 + 48 + 48 });
    // Deep: plus each list's array and items: (24 + 2·24) + (28 + 3·24).
    assert_eq!(m.measure.deep_structure, Sizes { objects: 15, bytes: 228 + 72 + 100 });
    assert_eq!(m.measure.retained, m.measure.deep_structure);
    let small = by_head(&h, lists[0]);
    assert!(small.contained);
    assert_eq!(small.measure.structure, Sizes { objects: 4, bytes: 24 + 24 + 48 });
    // The map's leaves seen deep: people through the lists, keys; not the lists themselves.
    let leaves: Vec<(&str, u64)> = m.leaves.iter().map(|(k, s)| (k.type_name.as_str(), s.objects)).collect();
    assert_eq!(leaves, [("app.Person", 5), ("java.lang.String", 2)]);
    let s = detect(&heap, &builtin());
    let map_i = s.instances.iter().position(|i| i.head == map).expect("the map");
    let mut contained: Vec<u32> = s.contained(map_i).map(|i| s.instances[i].head).collect();
    contained.sort();
    assert_eq!(contained, lists);
    assert_eq!(s.top_level().count(), 1);
}

/// Two maps of the same values: at the end each holds 40 more entries, the values shared.
fn shared_maps(entries: usize) -> (TypedHeap, [u32; 2]) {
    let mut b = Builder::new();
    let root = b.object("Root", 0, &[]);
    let maps = [new_map(&mut b), new_map(&mut b)];
    let values: Vec<u32> = (0..entries).map(|_| b.object("app.Blob", 1000, &[])).collect();
    for &m in &maps {
        fill_map(&mut b, m, &values);
        b.point(root, m);
    }
    (b.heap(), maps)
}

#[test]
fn maps_sharing_their_growing_values_grow_with_shared_ownership() {
    let ((start, maps), (end, _)) = (shared_maps(2), shared_maps(42));
    let (start, end) = (measure(&start, &builtin()), measure(&end, &builtin()));
    let w = window(&start, &end);
    assert_eq!(w.instances.len(), 2);
    for i in &w.instances {
        assert_eq!(i.status, Status::Survived);
        let g = i.growth.expect("survivors have a growth");
        assert_eq!(g.pattern, Pattern::SharedOwnershipContainerGrowth, "{:?}", i.key);
        // Each map's structure took in 40 Blobs; neither alone retains them.
        assert!(g.structure.bytes > 40_000 && g.retained.bytes < 4_000, "{g:?}");
        let blobs = i.leaves.iter().find(|l| l.key.type_name == "app.Blob").expect("blob leaves");
        assert_eq!((blobs.start.objects, blobs.end.objects), (2, 42));
    }
    assert_eq!(
        by_head(&end, maps[0]).measure.deep.bytes,
        by_head(&end, maps[0]).measure.deep_structure.bytes
    );
}

/// 50 stable maps of 4 entries and, first, one that holds `growing` entries.
fn many_maps(growing: usize) -> TypedHeap {
    let mut b = Builder::new();
    let root = b.object("Root", 0, &[]);
    let leak = new_map(&mut b);
    b.point(root, leak);
    let stable: Vec<u32> = (0..50).map(|_| new_map(&mut b)).collect();
    for &m in &stable {
        let values: Vec<u32> = (0..4).map(|_| person(&mut b)).collect();
        fill_map(&mut b, m, &values);
        b.point(root, m);
    }
    let values: Vec<u32> = (0..growing).map(|_| person(&mut b)).collect();
    fill_map(&mut b, leak, &values);
    b.heap()
}

/// The heap with unstable ids: identity must come from root paths (`Root.mN`).
fn without_ids(mut heap: TypedHeap) -> TypedHeap {
    heap.objects.identity_stable = false;
    let root_edges = heap.graph.referents(0).len();
    heap.objects.labels.names = (0..root_edges).map(|i| format!("m{i}")).collect();
    heap.objects.labels.of_edge = (0..heap.graph.edges.len())
        .map(|e| if e < root_edges { Label::field(e as u32) } else { Label::NONE })
        .collect();
    heap
}

fn check_the_leak_ranks_first(start: &HeapStructures, end: &HeapStructures) {
    let mut w = window(start, end);
    rank(&mut w.instances, SortBy::Retained);
    assert_eq!(w.instances.len(), 51);
    let first = &w.instances[0];
    let g = first.growth.expect("the leak survived");
    let hgp = g.hgp[0].expect("the heap grew");
    assert!(hgp >= 50.0, "retained HGP {hgp}");
    assert_eq!(g.pattern, Pattern::SingleOwnershipContainerGrowth);
    assert_eq!(
        end.instances[first.end.expect("alive at the end")].measure.structure.objects,
        1 + 1 + 3 * 400
    );
    let people = first.leaves.iter().find(|l| l.key.type_name == "app.Person").expect("people");
    assert_eq!((people.start.objects, people.end.objects), (2, 400));
    for other in &w.instances[1..] {
        assert_eq!(other.status, Status::Survived);
        assert_eq!(other.growth.map(|g| g.pattern), Some(Pattern::NonGrowth), "{:?}", other.key);
    }
}

#[test]
fn a_growing_map_among_stable_ones_ranks_first_by_object_id() {
    let (start, end) = (measure(&many_maps(2), &builtin()), measure(&many_maps(400), &builtin()));
    assert!(matches!(start.instances[0].key, InstanceKey::Object(_)));
    check_the_leak_ranks_first(&start, &end);
}

#[test]
fn a_growing_map_among_stable_ones_ranks_first_by_root_path() {
    let start = measure(&without_ids(many_maps(2)), &builtin());
    let end = measure(&without_ids(many_maps(400)), &builtin());
    let keys: Vec<String> = start.instances.iter().take(2).map(|i| i.key.to_string()).collect();
    assert_eq!(keys, ["root Root .m0", "root Root .m1"]);
    check_the_leak_ranks_first(&start, &end);
}

#[test]
fn instances_that_die_or_appear_have_no_growth_and_rank_last() {
    let mut b = Builder::new();
    let root = b.object("Root", 0, &[]);
    let kept = new_map(&mut b);
    let gone = new_map(&mut b);
    b.point(root, kept);
    b.point(root, gone);
    let start = measure(&b.heap(), &builtin());
    let mut b = Builder::new();
    let root = b.object("Root", 0, &[]);
    let kept = new_map(&mut b);
    b.object("Filler", 8, &[]);
    let new = b.object("java.util.TreeMap", 40, &[]);
    b.point(root, new);
    b.point(root, kept);
    let end = measure(&b.heap(), &builtin());
    let mut w = window(&start, &end);
    rank(&mut w.instances, SortBy::Deep);
    let statuses: Vec<(Status, bool)> = w.instances.iter().map(|i| (i.status, i.growth.is_some())).collect();
    assert_eq!(statuses, [(Status::Survived, true), (Status::Appeared, false), (Status::Died, false)]);
    assert_eq!(w.heap_growth, 40 - 48);
    assert_eq!(w.instances[0].growth.map(|g| g.hgp), Some([None; 4]), "no HGP when the heap shrank");
}

#[test]
fn deep_sizes_skipped_at_first_are_filled_in_for_the_chosen_instances() {
    let mut b = Builder::new();
    let root = b.object("Root", 0, &[]);
    let (small, large) = (new_map(&mut b), new_map(&mut b));
    let one = [person(&mut b)];
    fill_map(&mut b, small, &one);
    let many: Vec<u32> = (0..4).map(|_| person(&mut b)).collect();
    fill_map(&mut b, large, &many);
    b.point(root, small);
    b.point(root, large);
    let heap = b.heap();
    let whole = measure(&heap, &builtin());
    let mut cheap = measure_with(&heap, &builtin(), Options { deep: false, leaves: true });
    assert!(cheap.instances.iter().all(|i| i.measure.deep == Sizes::default()));
    let chosen = cheap.instances.iter().position(|i| i.head == large).unwrap();
    fill_deep(&heap, &mut cheap, &[chosen, 99]);
    assert_eq!(by_head(&cheap, large).measure, by_head(&whole, large).measure);
    assert_eq!(by_head(&cheap, small).measure.deep, Sizes::default(), "not chosen");
    assert_ne!(by_head(&whole, large).measure.deep, Sizes::default());
}
