use memcity_heapgraph::{Contents, FieldValue, TypedHeap, Value, Values};

use super::*;
use crate::detect::detect;
use crate::entries::tests::Heap;
use crate::lang::builtin;

/// A HashMap at the root with `keys` keys of `app.K`, one node each in a bucket of its own;
/// returns the heap and the map's head.
fn map_of(keys: usize, key_type: &str) -> (TypedHeap, u32, Vec<u32>) {
    let mut h = Heap::default();
    let root = h.object("Root", &[]);
    let made: Vec<u32> = (0..keys).map(|_| h.object(key_type, &[])).collect();
    let nodes: Vec<u32> = made.iter().map(|&k| h.object("java.util.HashMap$Node", &[("key", k)])).collect();
    let slots: Vec<String> = (0..keys).map(|i| format!("[{i}]")).collect();
    let refs: Vec<(&str, u32)> = slots.iter().map(String::as_str).zip(nodes.iter().copied()).collect();
    let table = h.object("java.util.HashMap$Node[]", &refs);
    let map = h.object("java.util.HashMap", &[("table", table)]);
    h.point(root, "CACHE", map);
    (h.typed(), map, made)
}

/// Keys whose fields are `(city: text, day: int)` with `kinds` distinct pairs; `None` for
/// every object when `known` is false.
struct Keys {
    first: u32,
    kinds: u32,
    known: bool,
}

impl Values for Keys {
    fn contents(&self, o: u32, _: usize) -> Option<Contents> {
        let k = o.checked_sub(self.first).filter(|_| self.known)? % self.kinds;
        let field = |name: &str, value| FieldValue { name: name.into(), type_name: None, value };
        // The city is a string object of its own per key: equal by text, not by identity.
        Some(Contents::Fields(vec![field("city", Value::Ref(1_000_000 + k)), field("day", Value::Int(3))]))
    }
    fn text(&self, o: u32) -> Option<String> {
        (o >= 1_000_000).then(|| format!("city-{}", o - 1_000_000))
    }
    fn boxed(&self, _: u32) -> Option<Value> {
        None
    }
    fn id(&self, o: u32) -> String {
        o.to_string()
    }
    fn find(&self, _: &str) -> Option<u32> {
        None
    }
}

fn cause(keys: usize, kinds: u32, known: bool) -> Option<Cause> {
    let (heap, map, made) = map_of(keys, "app.Q$Key");
    let found = detect(&heap, &builtin());
    let roles = Roles::new(&heap, &builtin());
    let values = Keys { first: made[0], kinds, known };
    duplicate_keys(&heap, &found, &roles, found.instance_of(map).unwrap(), &values)
}

#[test]
fn value_equal_keys_of_a_class_without_equality_are_the_cause() {
    let found = cause(1_200, 30, true).expect("1,200 keys, 30 distinct");
    assert_eq!(
        (found.kind, found.type_name.as_str(), found.keys, found.distinct),
        ("duplicate-keys", "app.Q$Key", 1_200, Some(30))
    );
    assert_eq!(
        found.message,
        "1,200 keys of app.Q$Key, 30 distinct by value: does app.Q$Key define equals and hashCode?"
    );
    // At the share exactly it fires; above it, not.
    assert_eq!(cause(1_200, 120, true).and_then(|c| c.distinct), Some(120));
    assert_eq!(cause(1_200, 121, true), None);
    assert_eq!(cause(999, 3, true), None, "fewer keys than the rule looks at");
    assert_eq!(cause(1_200, 30, false), None, "unknown values count as distinct");
}

#[test]
fn lists_have_no_keys_and_messages_speak_each_language() {
    let mut h = Heap::default();
    let root = h.object("Root", &[]);
    let items: Vec<u32> = (0..1_500).map(|_| h.object("app.K", &[])).collect();
    let slots: Vec<String> = (0..items.len()).map(|i| format!("[{i}]")).collect();
    let refs: Vec<(&str, u32)> = slots.iter().map(String::as_str).zip(items.iter().copied()).collect();
    let array = h.object("java.lang.Object[]", &refs);
    let list = h.object("java.util.ArrayList", &[("elementData", array)]);
    h.point(root, "LIST", list);
    let heap = h.typed();
    let found = detect(&heap, &builtin());
    let roles = Roles::new(&heap, &builtin());
    let values = Keys { first: items[0], kinds: 1, known: true };
    assert_eq!(duplicate_keys(&heap, &found, &roles, found.instance_of(list).unwrap(), &values), None);
    assert_eq!(
        message("builtins.dict", "app.Key", 5_000, 2),
        "5,000 keys of app.Key, 2 distinct by value: does app.Key define __eq__ and __hash__?"
    );
    assert_eq!(
        message("Map", "Request", 1_000_000, 1),
        "1,000,000 keys of Request, 1 distinct by value: the Map is keyed by fresh objects, equal by value but not the same"
    );
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(1_000), "1,000");
}
