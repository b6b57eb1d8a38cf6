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
