use memcity_heapgraph::{EdgeLabels, HeapGraph, Label, ObjectTable, ObjectType, TypeKind, TypedHeap};

use super::*;
use crate::detect::detect;
use crate::lang::builtin;

/// A heap of named references: `object(type, [(field, target)])`, `[i]` for array elements,
/// `['k']` for a dict's values, `?` unnamed; object 0 is the root.
#[derive(Default)]
pub(crate) struct Heap {
    types: Vec<ObjectType>,
    objects: Vec<(u32, Vec<(String, u32)>)>,
}

impl Heap {
    pub(crate) fn object(&mut self, name: &str, refs: &[(&str, u32)]) -> u32 {
        let kind = if name.ends_with("[]") { TypeKind::ReferenceArray } else { TypeKind::Instance };
        let t = self.types.iter().position(|t| t.name == name).unwrap_or_else(|| {
            self.types.push(ObjectType { name: name.into(), kind });
            self.types.len() - 1
        });
        self.objects.push((t as u32, refs.iter().map(|&(f, o)| (f.to_string(), o)).collect()));
        (self.objects.len() - 1) as u32
    }

    pub(crate) fn point(&mut self, from: u32, field: &str, to: u32) {
        self.objects[from as usize].1.push((field.into(), to));
    }

    pub(crate) fn typed(&self) -> TypedHeap {
        let (mut edge_start, mut edges, mut labels) = (vec![0], Vec::new(), EdgeLabels::default());
        for (_, refs) in &self.objects {
            for (field, to) in refs {
                edges.push(*to);
                labels.of_edge.push(match field.strip_prefix('[') {
                    _ if field == "?" => Label::NONE,
                    Some(key) if key.starts_with('\'') => {
                        labels.names.push(key.trim_end_matches(']').to_string());
                        Label::key(labels.names.len() as u32 - 1)
                    }
                    Some(i) => Label::index(i.trim_end_matches(']').parse().unwrap()),
                    None => {
                        labels.names.push(field.clone());
                        Label::field(labels.names.len() as u32 - 1)
                    }
                });
            }
            edge_start.push(edges.len() as u32);
        }
        let n = self.objects.len();
        let graph = HeapGraph {
            group: vec![0; n].into(),
            shallow: vec![16; n].into(),
            edge_start: edge_start.into(),
            edges: edges.into(),
            roots: vec![0],
        };
        let objects = ObjectTable {
            types: self.types.clone(),
            type_of: self.objects.iter().map(|o| o.0).collect(),
            labels,
            ..ObjectTable::default()
        };
        TypedHeap { graph, objects, tree: None }
    }
}

fn entries_of(heap: &TypedHeap, head: u32, limit: usize) -> Vec<Entry> {
    let found = detect(heap, &builtin());
    let roles = Roles::new(heap, &builtin());
    let i = found.instance_of(head).expect("an instance");
    entries(heap, &found, &roles, i, limit)
}

use Slot::{Absent, Null, Object, Unknown};

#[test]
fn a_hash_set_lists_its_maps_keys_in_bucket_order() {
    let mut h = Heap::default();
    let root = h.object("Root", &[]);
    let (a, b, c, present) = (
        h.object("app.K", &[]),
        h.object("app.K", &[]),
        h.object("app.K", &[]),
        h.object("java.lang.Object", &[]),
    );
    let n3 = h.object("java.util.HashMap$Node", &[("value", present)]);
    let n2 = h.object("java.util.HashMap$Node", &[("key", b), ("value", present), ("next", n3)]);
    let n1 = h.object("java.util.HashMap$Node", &[("key", c), ("value", present)]);
    let n0 = h.object("java.util.HashMap$Node", &[("key", a), ("value", present)]);
    let table = h.object("java.util.HashMap$Node[]", &[("[0]", n0), ("[1]", n2), ("[5]", n1)]);
    let map = h.object("java.util.HashMap", &[("table", table)]);
    let set = h.object("java.util.HashSet", &[("map", map)]);
    h.point(root, "SET", set);
    let heap = h.typed();
    let keys: Vec<Slot> = entries_of(&heap, set, usize::MAX).iter().map(|e| e.key).collect();
    assert_eq!(keys, [Object(a), Object(b), Null, Object(c)], "a null key is a key");
    assert!(entries_of(&heap, set, usize::MAX).iter().all(|e| e.value == Absent));
    let map_entries = entries_of(&heap, map, 2);
    assert_eq!(
        map_entries,
        [Entry { key: Object(a), value: Object(present) }, Entry { key: Object(b), value: Object(present) }]
    );
    let found = detect(&heap, &builtin());
    let roles = Roles::new(&heap, &builtin());
    assert!(roles.keyed(&heap, &found, found.instance_of(set).unwrap()));
    assert!(roles.keyed(&heap, &found, found.instance_of(map).unwrap()));
}

#[test]
fn lists_read_first_to_last() {
    let mut h = Heap::default();
    let root = h.object("Root", &[]);
    let items: Vec<u32> = (0..4).map(|_| h.object("app.Item", &[])).collect();
    // A LinkedList: first → … → last, each node with prev and next, written as HotSpot does:
    // `last` before `first`, `prev` before `next`, so only the `walk` roles make it read in order.
    let nodes: Vec<u32> =
        items.iter().map(|&i| h.object("java.util.LinkedList$Node", &[("item", i)])).collect();
    for w in nodes.windows(2) {
        h.point(w[1], "prev", w[0]);
        h.point(w[0], "next", w[1]);
    }
    let list = h.object("java.util.LinkedList", &[("last", nodes[3]), ("first", nodes[0])]);
    // An ArrayList whose array has a null at 1 (no reference) and its elements out of order.
    let array = h.object("java.lang.Object[]", &[("[0]", items[2]), ("[2]", items[0])]);
    let array_list = h.object("java.util.ArrayList", &[("elementData", array)]);
    h.point(root, "LIST", list);
    h.point(root, "ARRAY", array_list);
    let heap = h.typed();
    let values = |head| entries_of(&heap, head, usize::MAX).iter().map(|e| e.value).collect::<Vec<_>>();
    assert_eq!(values(list), items.iter().map(|&i| Object(i)).collect::<Vec<_>>());
    assert_eq!(values(array_list), [Object(items[2]), Object(items[0])]);
    assert!(entries_of(&heap, list, 9).iter().all(|e| e.key == Absent));
    assert_eq!(entries_of(&heap, list, 2).len(), 2, "cut at the limit");
    let found = detect(&heap, &builtin());
    let roles = Roles::new(&heap, &builtin());
    assert!(!roles.keyed(&heap, &found, found.instance_of(list).unwrap()), "a list has no keys");
}

#[test]
fn a_concurrent_hash_map_names_its_values_val() {
    let mut h = Heap::default();
    let root = h.object("Root", &[]);
    let (k, v) = (h.object("app.K", &[]), h.object("app.V", &[]));
    let node = h.object("java.util.concurrent.ConcurrentHashMap$Node", &[("key", k), ("val", v)]);
    let table = h.object("java.util.concurrent.ConcurrentHashMap$Node[]", &[("[3]", node)]);
    let map = h.object("java.util.concurrent.ConcurrentHashMap", &[("table", table)]);
    h.point(root, "MAP", map);
    let heap = h.typed();
    assert_eq!(entries_of(&heap, map, 10), [Entry { key: Object(k), value: Object(v) }]);
}

#[test]
fn an_object_is_a_dictionary_only_with_its_properties_store() {
    let mut h = Heap::default();
    let root = h.object("Root", &[]);
    let session = h.object("Session", &[]);
    let store = h.object("(object properties)", &[("0", session)]);
    let dictionary = h.object("Object", &[("s1", session), ("properties", store)]);
    let plain = h.object("Object", &[("s1", session)]);
    h.point(root, "sessions", dictionary);
    h.point(root, "config", plain);
    let heap = h.typed();
    let found = detect(&heap, &builtin());
    let heads: Vec<u32> = found.instances.iter().map(|i| i.head).collect();
    assert!(heads.contains(&dictionary) && !heads.contains(&plain), "{heads:?}");
    let i = found.instance_of(dictionary).unwrap();
    assert_eq!(found.leaves(i), [session], "the sessions, held through the store");
    // The ownership graph's collection types leave such a type out: only some of its objects are.
    let types = crate::CollectionTypes::new(&heap, &builtin());
    assert!(!types.is_collection(heap.objects.type_of[dictionary as usize]));
}

#[test]
fn a_javascript_maps_table_pairs_keys_and_values_by_index() {
    let mut h = Heap::default();
    let root = h.object("Root", &[]);
    let (k0, v0, k1, v2) =
        (h.object("Key", &[]), h.object("Object", &[]), h.object("Key", &[]), h.object("Object", &[]));
    // As crates/v8 numbers a Map's table: entry k's key [2k], its value [2k+1]. Entry 1's value
    // and entry 2's key are small integers (no nodes); entry 3 is two of them, and is not seen.
    let table = h.object("(array)", &[("[0]", k0), ("[1]", v0), ("[2]", k1), ("[5]", v2)]);
    let map = h.object("Map", &[("table", table)]);
    let set_table = h.object("(array)", &[("[0]", k1), ("[2]", k0)]);
    let set = h.object("Set", &[("table", set_table)]);
    h.point(root, "cache", map);
    h.point(root, "seen", set);
    let heap = h.typed();
    assert_eq!(
        entries_of(&heap, map, 10),
        [
            Entry { key: Object(k0), value: Object(v0) },
            Entry { key: Object(k1), value: Unknown },
            Entry { key: Unknown, value: Object(v2) },
        ]
    );
    assert_eq!(entries_of(&heap, map, 1).len(), 1, "cut at the limit");
    assert_eq!(
        entries_of(&heap, set, 10),
        [Entry { key: Object(k1), value: Absent }, Entry { key: Object(k0), value: Absent }]
    );
    let found = detect(&heap, &builtin());
    let roles = Roles::new(&heap, &builtin());
    assert!(roles.keyed(&heap, &found, found.instance_of(map).unwrap()));
    assert!(roles.keyed(&heap, &found, found.instance_of(set).unwrap()));
    // A Map's table may hold only small integers, which no edge shows: never known empty.
    assert!(!roles.has_entries(&heap, map));
}

#[test]
fn a_python_dict_pairs_its_keys_with_its_values_in_order() {
    let mut h = Heap::default();
    let root = h.object("Root", &[]);
    let (k0, v0) = (h.object("app.QueryKey", &[]), h.object("builtins.str", &[]));
    let (k1, v1) = (h.object("app.QueryKey", &[]), h.object("builtins.str", &[]));
    let dict =
        h.object("builtins.dict", &[("?", k0), ("['<QueryKey>']", v0), ("?", k1), ("['<QueryKey>']", v1)]);
    let empty = h.object("builtins.dict", &[]);
    // A version 2 heap file's dict keyed by str: its values alone.
    let old = h.object("builtins.dict", &[("['a']", v0), ("['b']", v1)]);
    let set = h.object("builtins.set", &[("?", k0), ("?", k1)]);
    for (name, o) in [("cache", dict), ("empty", empty), ("old", old), ("set", set)] {
        h.point(root, name, o);
    }
    let heap = h.typed();
    let pair = |key, value| Entry { key, value };
    assert_eq!(entries_of(&heap, dict, 10), [pair(Object(k0), Object(v0)), pair(Object(k1), Object(v1))]);
    assert_eq!(entries_of(&heap, dict, 1), [pair(Object(k0), Object(v0))], "cut at the limit");
    assert_eq!(entries_of(&heap, empty, 10), [], "an empty dict has no entry");
    assert_eq!(entries_of(&heap, old, 10), [pair(Absent, Object(v0)), pair(Absent, Object(v1))]);
    assert_eq!(entries_of(&heap, set, 10), [pair(Object(k0), Absent), pair(Object(k1), Absent)]);
    let (found, roles) = (detect(&heap, &builtin()), Roles::new(&heap, &builtin()));
    assert!(roles.keyed(&heap, &found, found.instance_of(dict).unwrap()), "a dict is keyed");
}
