use memcity_heapgraph::{HeapGraph, ObjectTable, ObjectType, TypeKind, TypedHeap};

use super::*;
use crate::lang::builtin;

/// A heap built object by object: `object(type, size, referents)`; object 0 is the root.
pub(crate) struct Builder {
    types: Vec<ObjectType>,
    objects: Vec<(u32, u64, Vec<u32>)>,
}

impl Builder {
    pub(crate) fn new() -> Builder {
        Builder { types: Vec::new(), objects: Vec::new() }
    }

    pub(crate) fn object(&mut self, name: &str, size: u64, referents: &[u32]) -> u32 {
        let kind = if name.ends_with("[]") { TypeKind::ReferenceArray } else { TypeKind::Instance };
        let t = match self.types.iter().position(|t| t.name == name) {
            Some(t) => t,
            None => {
                self.types.push(ObjectType { name: name.into(), kind });
                self.types.len() - 1
            }
        };
        self.objects.push((t as u32, size, referents.to_vec()));
        (self.objects.len() - 1) as u32
    }

    /// Points `from` at `to` after both exist (for cycles and later objects).
    pub(crate) fn point(&mut self, from: u32, to: u32) {
        self.objects[from as usize].2.push(to);
    }

    pub(crate) fn heap(&self) -> TypedHeap {
        let mut edge_start = vec![0];
        let mut edges = Vec::new();
        for (_, _, r) in &self.objects {
            edges.extend(r);
            edge_start.push(edges.len() as u32);
        }
        let n = self.objects.len();
        let graph = HeapGraph {
            group: vec![0; n].into(),
            shallow: self.objects.iter().map(|o| o.1).collect::<Vec<_>>().into(),
            edge_start: edge_start.into(),
            edges: edges.into(),
            roots: vec![0],
        };
        let objects = ObjectTable {
            types: self.types.clone(),
            type_of: self.objects.iter().map(|o| o.0).collect(),
            identity: (0..n as u64).collect(),
            identity_stable: true,
            ..ObjectTable::default()
        };
        TypedHeap { graph, objects, tree: None }
    }
}

/// A LinkedList of `n` items held by the root: list → first node → … ; items are Persons.
pub(crate) fn linked_list(b: &mut Builder, n: usize) -> u32 {
    let mut next: Option<u32> = None;
    for i in 0..n {
        let item = b.object("app.Person", 24, &[]);
        let _ = i;
        let refs: Vec<u32> = next.into_iter().chain([item]).collect();
        next = Some(b.object("java.util.LinkedList$Node", 24, &refs));
    }
    b.object("java.util.LinkedList", 32, &next.into_iter().collect::<Vec<_>>())
}

#[test]
fn a_linked_list_is_its_nodes_and_its_items_are_leaves() {
    let mut b = Builder::new();
    let root = b.object("Root", 0, &[]);
    let list = linked_list(&mut b, 3);
    b.point(root, list);
    let heap = b.heap();
    let s = detect(&heap, &builtin());
    assert_eq!(s.instances.len(), 1);
    let list = &s.instances[0];
    assert!(!list.contained);
    // Head + 3 nodes + 3 items.
    assert_eq!(list.structure, Sizes { objects: 7, bytes: 32 + 3 * 24 + 3 * 24 });
    assert_eq!(list.deep_structure, list.structure);
    assert_eq!(list.retained, Sizes { objects: 7, bytes: 176 });
    assert_eq!(s.parts(0).len(), 4);
    assert_eq!(s.leaves(0).len(), 3);
    let mut scratch = Scratch::new(heap.graph.object_count());
    assert_eq!(s.deep_leaves(0, &mut scratch).len(), 3);
    assert_eq!(s.deep_size(&heap, 0, &mut scratch), Sizes { objects: 7, bytes: 176 });
}

#[test]
fn a_set_contains_its_map_and_shared_leaves_are_not_retained() {
    let mut b = Builder::new();
    let root = b.object("Root", 0, &[]);
    let shared = b.object("app.Person", 24, &[]);
    let own = b.object("app.Person", 24, &[]);
    let node2 = b.object("java.util.HashMap$Node", 32, &[own]);
    let node1 = b.object("java.util.HashMap$Node", 32, &[shared, node2]);
    let table = b.object("java.util.HashMap$Node[]", 80, &[node1]);
    let map = b.object("java.util.HashMap", 48, &[table]);
    let set = b.object("java.util.HashSet", 16, &[map]);
    // A list that holds the shared person too, and an unrelated object the set's map reaches
    // through a field no description names.
    let list = b.object("java.util.ArrayList", 24, &[]);
    let array = b.object("java.lang.Object[]", 40, &[shared]);
    b.point(list, array);
    let outside = b.object("app.Config", 100, &[]);
    b.point(map, outside);
    b.point(root, set);
    b.point(root, list);
    let heap = b.heap();
    let s = detect(&heap, &builtin());
    let index = |head: u32| s.instances.iter().position(|i| i.head == head).unwrap();
    let (set_i, map_i, list_i) = (index(set), index(map), index(list));
    assert!(s.instances[map_i].contained && !s.instances[set_i].contained && !s.instances[list_i].contained);
    // The set is itself and its map; deep, the map's table, nodes and people too.
    assert_eq!(s.instances[set_i].structure, Sizes { objects: 2, bytes: 64 });
    assert_eq!(s.instances[set_i].deep_structure, Sizes { objects: 7, bytes: 16 + 48 + 80 + 64 + 48 });
    assert_eq!(s.instances[map_i].structure, Sizes { objects: 6, bytes: 48 + 80 + 64 + 48 });
    // The map retains its parts, its own person and the Config, not the shared person.
    assert_eq!(s.instances[map_i].retained, Sizes { objects: 6, bytes: 48 + 80 + 64 + 24 + 100 });
    let mut scratch = Scratch::new(heap.graph.object_count());
    let mut leaves = s.deep_leaves(set_i, &mut scratch);
    leaves.sort();
    assert_eq!(leaves, [shared, own], "a set's elements are seen through its map");
    // Bottom-up: the shared person is in the map and in the list.
    let containers = s.containers(heap.graph.object_count());
    let mut of_shared: Vec<u32> = containers.of(shared).to_vec();
    of_shared.sort();
    let mut want = vec![map_i as u32, list_i as u32];
    want.sort();
    assert_eq!(of_shared, want);
    assert_eq!(containers.of(outside), [] as [u32; 0]);
    assert_eq!(s.deep_size(&heap, map_i, &mut scratch).bytes, 48 + 80 + 64 + 48 + 100);
}

#[test]
fn user_descriptions_and_wildcards_resolve_per_type() {
    let mut b = Builder::new();
    let root = b.object("Root", 0, &[]);
    let value = b.object("com.example.Value", 8, &[]);
    let bucket = b.object("com.example.Cache$Bucket", 16, &[value]);
    let cache = b.object("com.example.Cache", 16, &[bucket]);
    b.point(root, cache);
    let heap = b.heap();
    assert!(detect(&heap, &builtin()).instances.is_empty(), "nothing describes the cache yet");
    let mut mine = builtin();
    mine.extend(
        crate::lang::parse("mine.ds", "namespace com.example; DS Cache { *Bucket; } Cache$* { (*); }")
            .unwrap(),
    );
    let s = detect(&heap, &mine);
    assert_eq!(s.instances.len(), 1);
    assert_eq!(s.instances[0].structure, Sizes { objects: 3, bytes: 40 });
    assert_eq!(s.leaves(0), [value]);
}

#[test]
fn unreachable_heads_are_not_instances() {
    let mut b = Builder::new();
    b.object("Root", 0, &[]);
    linked_list(&mut b, 2);
    assert!(detect(&b.heap(), &builtin()).instances.is_empty());
}

#[test]
fn a_million_objects_are_detected_in_one_pass() {
    // 40,000 small maps of 2 entries (200,000 objects) and one list of 400,000 items (800,001):
    // every object visited once per structure that holds it.
    let mut b = Builder::new();
    let root = b.object("Root", 0, &[]);
    for _ in 0..40_000 {
        let (k, v) = (b.object("java.lang.String", 24, &[]), b.object("java.lang.Integer", 16, &[]));
        let node = b.object("java.util.HashMap$Node", 32, &[k, v]);
        let table = b.object("java.util.HashMap$Node[]", 80, &[node]);
        let map = b.object("java.util.HashMap", 48, &[table]);
        b.point(root, map);
    }
    let list = linked_list(&mut b, 400_000);
    b.point(root, list);
    let heap = b.heap();
    assert_eq!(heap.graph.object_count(), 1_000_002);
    let started = std::time::Instant::now();
    let s = detect(&heap, &builtin());
    let detected = started.elapsed();
    let measured = crate::measure::measure(&heap, &builtin());
    eprintln!(
        "1,000,002 objects: detect {detected:?}, detect and measure {:?}",
        started.elapsed() - detected
    );
    assert_eq!(s.instances.len(), 40_001);
    let big = s.instances.iter().max_by_key(|i| i.retained.bytes).expect("instances");
    assert_eq!(big.head, list);
    assert_eq!(big.structure.objects, 800_001);
    assert_eq!(measured.instances.len(), 40_001);
    assert_eq!(measured.heap_bytes, 40_000 * 200 + 400_000 * 48 + 32);
}

#[test]
fn patterns_that_match_no_type_are_warnings_with_their_origin() {
    let mut b = Builder::new();
    let root = b.object("Root", 0, &[]);
    let list = linked_list(&mut b, 1);
    b.point(root, list);
    let heap = b.heap();
    let mine = crate::lang::parse(
        "mine.ds",
        "namespace java.util;\nDS LinkedList { LinkedList$Node; }\nDS LinkdList { *Nod; (app.*); }",
    )
    .unwrap();
    let warnings: Vec<String> = unmatched(&heap, &mine).iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "mine.ds:3: warning: described type \"java.util.LinkdList\" matches no type of this heap",
            "mine.ds:3: warning: pointed-to type \"*Nod\" matches no type of this heap",
        ]
    );
    // Still no error: the misspelt description simply finds nothing, the right one finds the list.
    assert_eq!(detect(&heap, &mine).instances.len(), 1);
}

#[test]
fn javascript_and_python_collections_are_found_through_their_backing_stores() {
    let mut b = Builder::new();
    let root = b.object("Root", 0, &[]);
    let (key, value) = (b.object("(string)", 20, &[]), b.object("Point", 32, &[]));
    let table = b.object("(array)", 64, &[key, value]);
    let map = b.object("Map", 24, &[table]);
    let item = b.object("Point", 32, &[]);
    let elements = b.object("(object elements)", 40, &[item]);
    let array = b.object("Array", 16, &[elements]);
    let x = b.object("builtins.int", 28, &[]);
    let list = b.object("builtins.list", 64, &[x]);
    let dict = b.object("builtins.dict", 232, &[list, x]);
    for o in [map, array, dict] {
        b.point(root, o);
    }
    let heap = b.heap();
    let s = detect(&heap, &builtin());
    let sizes = |head: u32| s.instances.iter().find(|i| i.head == head).map(|i| (i.structure, i.contained));
    assert_eq!(sizes(map), Some((Sizes { objects: 4, bytes: 24 + 64 + 20 + 32 }, false)));
    assert_eq!(sizes(array), Some((Sizes { objects: 3, bytes: 16 + 40 + 32 }, false)));
    // The dict holds the list as a contained structure and the int as its own leaf.
    assert_eq!(sizes(dict), Some((Sizes { objects: 3, bytes: 232 + 64 + 28 }, false)));
    assert_eq!(sizes(list), Some((Sizes { objects: 2, bytes: 64 + 28 }, true)));
}
