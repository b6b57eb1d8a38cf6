use memcity_heapgraph::{Primitives, References};

use super::*;
use crate::entries::tests::Heap;
use crate::lang::builtin;

/// Objects 1–3 are strings "Linz", "Linz", "Graz".
struct Texts;

impl Primitives for Texts {
    fn text(&self, o: u32) -> Option<String> {
        match o {
            1 | 2 => Some("Linz".into()),
            3 => Some("Graz".into()),
            _ => None,
        }
    }
    fn number(&self, _: u32) -> Option<f64> {
        None
    }
}

#[test]
fn duplicate_strings_and_empty_collections_with_their_bytes() {
    let mut h = Heap::default();
    let root = h.object("Root", &[]);
    for _ in 0..3 {
        let s = h.object("java.lang.String", &[]);
        h.point(root, "s", s);
    }
    // An empty HashMap (no table), one with an entry, an empty list and a full one.
    let empty_map = h.object("java.util.HashMap", &[]);
    let key = h.object("app.K", &[]);
    let node = h.object("java.util.HashMap$Node", &[("key", key)]);
    let table = h.object("java.util.HashMap$Node[]", &[("[0]", node)]);
    let map = h.object("java.util.HashMap", &[("table", table)]);
    let empty_list = h.object("java.util.ArrayList", &[]);
    for o in [empty_map, map, empty_list] {
        h.point(root, "c", o);
    }
    let heap = h.typed();
    let values = References { heap: &heap, primitives: Some(&Texts) };
    let found = waste(&heap, &values, &builtin(), 10);
    assert_eq!(
        found.duplicate_strings,
        [DuplicateString { text: "Linz".into(), count: 2, wasted_bytes: 16 }]
    );
    let empty: Vec<(&str, u64)> =
        found.empty_collections.iter().map(|e| (e.type_name.as_str(), e.count)).collect();
    assert_eq!(empty, [("java.util.ArrayList", 1), ("java.util.HashMap", 1)]);
    assert_eq!(found.empty_collections[0].wasted_bytes, 16);
    assert!(waste(&heap, &values, &builtin(), 0).duplicate_strings.is_empty(), "top 0 shows none");
}

/// A table of 64 slots (`length` by [`Lengths`]) holding two nodes, a list of three boxed
/// Integers (two of them one shared box) and a list that fills its array.
#[test]
fn sparse_collections_and_boxed_primitives_with_their_bytes() {
    let mut h = Heap::default();
    let root = h.object("Root", &[]);
    let (k1, k2) = (h.object("app.K", &[]), h.object("app.K", &[]));
    let n1 = h.object("java.util.HashMap$Node", &[("key", k1)]);
    let n2 = h.object("java.util.HashMap$Node", &[("key", k2)]);
    let table = h.object("java.util.HashMap$Node[]", &[("[0]", n1), ("[9]", n2)]);
    let map = h.object("java.util.HashMap", &[("table", table)]);
    let (one, two) = (h.object("java.lang.Integer", &[]), h.object("java.lang.Integer", &[]));
    let boxes = h.object("java.lang.Object[]", &[("[0]", one), ("[1]", one), ("[2]", two)]);
    let list = h.object("java.util.ArrayList", &[("elementData", boxes)]);
    for o in [map, list] {
        h.point(root, "c", o);
    }
    let heap = h.typed();
    let lengths = Lengths { heap: &heap, arrays: vec![(table, 64), (boxes, 3)], boxed: vec![one, two] };
    let found = waste(&heap, &lengths, &builtin(), 10);
    let shallow = |o: u32| heap.graph.shallow[o as usize];
    assert_eq!(
        found.sparse_collections,
        [SparseCollections {
            type_name: "java.util.HashMap".into(),
            count: 1,
            entries: 2,
            slots: 64,
            wasted_bytes: shallow(table) * 62 / 64,
        }],
        "the full list is not sparse"
    );
    assert_eq!(
        found.boxed_primitives,
        [BoxedPrimitives {
            collection_type: "java.util.ArrayList".into(),
            box_type: "java.lang.Integer".into(),
            count: 3,
            boxes: 2,
            wasted_bytes: shallow(one) + shallow(two),
        }]
    );
    assert!(found.empty_collections.is_empty());
    // Without array lengths (a source with no values) nothing is called sparse.
    let plain = References { heap: &heap, primitives: None };
    assert!(waste(&heap, &plain, &builtin(), 10).sparse_collections.is_empty());
}

/// References by name, with the lengths of some arrays and some boxes.
struct Lengths<'h> {
    heap: &'h memcity_heapgraph::TypedHeap,
    arrays: Vec<(u32, u64)>,
    boxed: Vec<u32>,
}

impl Values for Lengths<'_> {
    fn contents(&self, o: u32, _: usize) -> Option<Contents> {
        let &(_, length) = self.arrays.iter().find(|(a, _)| *a == o)?;
        Some(Contents::Array { element_type: "java.lang.Object".into(), length, elements: Vec::new() })
    }
    fn text(&self, _: u32) -> Option<String> {
        None
    }
    fn boxed(&self, o: u32) -> Option<memcity_heapgraph::Value> {
        self.boxed.contains(&o).then_some(memcity_heapgraph::Value::Int(o as i64))
    }
    fn id(&self, o: u32) -> String {
        References { heap: self.heap, primitives: None }.id(o)
    }
    fn find(&self, id: &str) -> Option<u32> {
        References { heap: self.heap, primitives: None }.find(id)
    }
}
