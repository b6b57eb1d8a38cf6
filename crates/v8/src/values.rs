//! The values a V8 heap snapshot holds: the text of its string nodes (V8 writes a string's
//! content as the node's name) and the value of its number nodes where the snapshot was taken
//! with numeric values exposed (Node's `writeHeapSnapshot` with `exposeNumericValues`, DevTools'
//! `captureNumericValue`). Then a number is a node named `smi number` or `heap number` with an
//! internal edge `value` to a string node whose name is the number's text (`3`, `2.5`), and an
//! object's property holding a small integer (Smi) is such a node too. Without them, a Smi is
//! no node at all (the property is absent) and a heap number has no `value`, so a snapshot's
//! objects never compare equal by value on what it does not show. Inside a Map's or Set's
//! table Smis are no nodes either way.

use std::path::Path;

use memcity_heapgraph::{LabelKind, Primitives};

use crate::error::V8Error;
use crate::read::{RawHeap, ReadOptions, read};
use crate::source;
use crate::strings::Strings;
use crate::typed::{TypedSnapshot, typed_keeping_strings};

/// What a node's name means.
const OTHER: u8 = 0;
const TEXT: u8 = 1;
const NUMBER: u8 = 2;

/// The names of a snapshot's string and number nodes.
pub struct NodeValues {
    kind: Vec<u8>,
    name: Vec<u32>,
    strings: Strings,
    /// Whether the snapshot exposes numbers (some number has its value): else a property
    /// holding a small integer is absent, and no object's fields are all known.
    numbers: bool,
}

/// Reads a snapshot into a typed heap and its nodes' values (5 bytes a node and the string
/// table, which the snapshot holds anyway).
pub fn typed_heap_with_values(file: &Path) -> Result<(TypedSnapshot, NodeValues), V8Error> {
    let name = file.display().to_string();
    let (text, size_hint) = source::open(file, |_| {})?;
    let options = ReadOptions { edge_names: false, traces: true, size_hint, labels: true };
    let raw = source::read_ahead(text, |text| read(text, options, &|_| {})).map_err(|f| f.in_file(&name))?;
    with_values(raw).map_err(|message| V8Error::new(name, message))
}

/// The typed heap and node values of a read snapshot (read with [`ReadOptions::labels`]).
pub fn with_values(raw: RawHeap) -> Result<(TypedSnapshot, NodeValues), String> {
    let kinds: Vec<u8> = raw
        .node_types
        .iter()
        .map(|t| match t.as_str() {
            "string" | "concatenated string" | "sliced string" => TEXT,
            "number" | "heap number" => NUMBER,
            _ => OTHER,
        })
        .collect();
    let kind: Vec<u8> =
        raw.node_type.iter().map(|&t| kinds.get(t as usize).copied().unwrap_or(OTHER)).collect();
    let names = value_names(&raw, &kind);
    let numbers = kind.iter().zip(&names).any(|(&k, &n)| k == NUMBER && n != NO_VALUE);
    let (typed, strings) = typed_keeping_strings(raw)?;
    Ok((typed, NodeValues { kind, name: names, strings, numbers }))
}

/// Each node's name, a number's the name of the string its `value` edge leads to (none where it
/// has no such edge).
fn value_names(raw: &RawHeap, kind: &[u8]) -> Vec<u32> {
    let value = |e: usize| match raw.edge_labels.get(e).and_then(|l| l.get()) {
        Some(LabelKind::Field(s)) => raw.strings.get(s) == "value",
        _ => false,
    };
    (0..raw.node_count())
        .map(|o| match kind[o] {
            NUMBER => raw
                .edge_range(o)
                .find(|&e| value(e) && kind.get(raw.edges[e] as usize) == Some(&TEXT))
                .map_or(NO_VALUE, |e| raw.name[raw.edges[e] as usize]),
            _ => raw.name[o],
        })
        .collect()
}

/// The name of a number node without a value.
const NO_VALUE: u32 = u32::MAX;

impl NodeValues {
    fn named(&self, o: u32, kind: u8) -> Option<std::borrow::Cow<'_, str>> {
        let name = *self.name.get(o as usize).filter(|&&n| n != NO_VALUE)?;
        (self.kind.get(o as usize) == Some(&kind)).then(|| self.strings.get(name))
    }
}

impl Primitives for NodeValues {
    fn text(&self, o: u32) -> Option<String> {
        self.named(o, TEXT).map(|t| t.into_owned())
    }

    /// The value of its `value` string, where the snapshot exposes numbers.
    fn number(&self, o: u32) -> Option<f64> {
        self.named(o, NUMBER)?.trim().parse().ok()
    }

    fn fields_known(&self) -> bool {
        self.numbers
    }
}

#[cfg(test)]
mod tests {
    use memcity_heapgraph::{References, Value, Values};

    use super::*;

    // Types: 1 array, 2 string, 3 object, 7 number, 9 synthetic. Edges: 1 element, 2 property,
    // 3 internal.
    const STRINGS: [&str; 18] = [
        "",
        "global",
        "cache",
        "Map",
        "table",
        "7",
        "8",
        "10",
        "Key",
        "Object",
        "city",
        "Linz",
        "day",
        "smi number",
        "value",
        "3",
        "heap number",
        "f",
    ];

    /// As Node 20 writes `global.cache = new Map([[{city: 'Linz', day: 3}, {f: 1.5}], [{city:
    /// 'Linz'}, …]])` with numeric values (its 264-byte table: 4 buckets, entries from slot 7),
    /// but the heap number `f` without its value.
    fn sample() -> String {
        crate::tests::snapshot(
            &[
                (9, 0, 0, 0, &[(1, 1, 1)]),                         // 0 root
                (3, 1, 24, 0, &[(2, 2, 2)]),                        // 1 global
                (3, 3, 32, 0, &[(3, 4, 3)]),                        // 2 Map
                (1, 0, 264, 0, &[(3, 5, 4), (3, 6, 6), (3, 7, 7)]), // 3 its table
                (3, 8, 40, 0, &[(2, 10, 5), (2, 12, 8)]),           // 4 Key
                (2, 11, 24, 0, &[]),                                // 5 "Linz"
                (3, 9, 32, 0, &[(2, 17, 9)]),                       // 6 Object
                (3, 8, 40, 0, &[(2, 10, 5)]),                       // 7 Key
                (7, 13, 0, 0, &[(3, 14, 10)]),                      // 8 smi number 3
                (7, 16, 16, 0, &[]),                                // 9 heap number, no value
                (2, 15, 0, 0, &[]),                                 // 10 "3"
            ],
            &STRINGS,
        )
    }

    #[test]
    fn numbers_are_read_from_their_value_strings_and_a_maps_table_by_entry() {
        let options = ReadOptions { edge_names: false, traces: true, size_hint: None, labels: true };
        let raw = read(sample().as_bytes(), options, &|_| {}).unwrap();
        let (typed, nodes) = with_values(raw).unwrap();
        let heap = &typed.heap;
        let values = References { heap, primitives: Some(&nodes) };
        assert_eq!(values.text(5).as_deref(), Some("Linz"));
        assert_eq!(values.boxed(8), Some(Value::Int(3)), "a Smi's value");
        assert_eq!(values.boxed(9), None, "a heap number without its value");
        assert_eq!(values.text(8), None);
        assert!(values.fields_known(4), "numbers are exposed");
        let table = heap.graph.edge_range(3);
        let slots: Vec<String> = table.map(|e| heap.objects.labels.text(e).unwrap()).collect();
        assert_eq!(slots, ["[0]", "[1]", "[2]"], "key, value of entry 0, key of entry 1");
    }

    #[test]
    fn without_numeric_values_no_fields_are_known() {
        // No number with its value, as a snapshot taken without numeric values has it.
        let text = sample().replace("\"value\"", "\"other\"");
        let options = ReadOptions { edge_names: false, traces: true, size_hint: None, labels: true };
        let (typed, nodes) = with_values(read(text.as_bytes(), options, &|_| {}).unwrap()).unwrap();
        let values = References { heap: &typed.heap, primitives: Some(&nodes) };
        assert_eq!(values.boxed(8), None);
        assert!(!values.fields_known(4));
        assert_eq!(memcity_heapgraph::value_identity(&values, 0, 4), None, "so no key equals another");
        assert!(memcity_heapgraph::value_identity(&values, 0, 5).is_some(), "a string still has its text");
    }

    #[test]
    fn a_table_whose_size_does_not_fit_has_its_slots_unnamed() {
        let text = sample().replace(",264,", ",260,");
        let options = ReadOptions { edge_names: false, traces: true, size_hint: None, labels: true };
        let (typed, _) = with_values(read(text.as_bytes(), options, &|_| {}).unwrap()).unwrap();
        let heap = &typed.heap;
        let table = heap.graph.edge_range(3);
        assert!(
            table.clone().count() == 3 && table.into_iter().all(|e| heap.objects.labels.text(e).is_none())
        );
    }

    #[test]
    fn mutated_maps_and_numbers_never_panic() {
        let text = sample().into_bytes();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below as u64) as usize
        };
        let options = ReadOptions { edge_names: false, traces: true, size_hint: None, labels: true };
        for _ in 0..3_000 {
            let mut mutant = text.clone();
            let at = next(mutant.len());
            mutant[at] = b"0123456789,"[next(11)];
            let Ok(raw) = read(mutant.as_slice(), options, &|_| {}) else { continue };
            if let Ok((typed, nodes)) = with_values(raw) {
                let values = References { heap: &typed.heap, primitives: Some(&nodes) };
                for o in 0..typed.heap.graph.object_count() as u32 {
                    let _ = (values.text(o), values.boxed(o), values.contents(o, 4));
                }
            }
        }
    }
}
