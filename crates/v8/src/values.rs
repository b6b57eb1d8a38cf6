//! The values a V8 heap snapshot holds: the text of its string nodes (V8 writes a string's
//! content as the node's name) and the value of its number nodes where the snapshot was taken
//! with numeric values exposed (Node's `writeHeapSnapshot` with `exposeNumericValues`, DevTools'
//! `captureNumericValue`; otherwise a heap number is named `number` and has none). Small
//! integers (Smis) are no nodes at all unless exposed: a property holding one is absent, so a
//! snapshot's objects never compare equal by value on what it does not show.

use std::path::Path;

use memcity_heapgraph::Primitives;

use crate::error::V8Error;
use crate::read::{ReadOptions, read};
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
}

/// Reads a snapshot into a typed heap and its nodes' values (5 bytes a node and the string
/// table, which the snapshot holds anyway).
pub fn typed_heap_with_values(file: &Path) -> Result<(TypedSnapshot, NodeValues), V8Error> {
    let name = file.display().to_string();
    let (text, size_hint) = source::open(file, |_| {})?;
    let options = ReadOptions { edge_names: false, traces: true, size_hint, labels: true };
    let raw = source::read_ahead(text, |text| read(text, options, &|_| {})).map_err(|f| f.in_file(&name))?;
    let kinds: Vec<u8> = raw
        .node_types
        .iter()
        .map(|t| match t.as_str() {
            "string" | "concatenated string" | "sliced string" => TEXT,
            "number" | "heap number" => NUMBER,
            _ => OTHER,
        })
        .collect();
    let kind = raw.node_type.iter().map(|&t| kinds.get(t as usize).copied().unwrap_or(OTHER)).collect();
    let names = raw.name.clone();
    let (typed, strings) = typed_keeping_strings(raw).map_err(|message| V8Error::new(name, message))?;
    Ok((typed, NodeValues { kind, name: names, strings }))
}

impl NodeValues {
    fn named(&self, o: u32, kind: u8) -> Option<std::borrow::Cow<'_, str>> {
        (self.kind.get(o as usize) == Some(&kind)).then(|| self.strings.get(self.name[o as usize]))
    }
}

impl Primitives for NodeValues {
    fn text(&self, o: u32) -> Option<String> {
        self.named(o, TEXT).map(|t| t.into_owned())
    }

    /// The value where V8 wrote it as the name; a heap number named `number` has none.
    fn number(&self, o: u32) -> Option<f64> {
        self.named(o, NUMBER)?.trim().parse().ok()
    }
}
