//! Memory a heap wastes, as Eclipse MAT and HeapLens report it (docs/objects.md, "Waste"):
//! strings held many times over with the same text, and collections that hold nothing. Each
//! with the bytes it wastes: every copy of a string but one (the string and its character
//! array), every empty collection whole.

use memcity_heapgraph::{TypedHeap, Values, dominators};
use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::detect::detect;
use crate::entries::{Roles, entries};
use crate::lang::Descriptions;

/// One text held by several strings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DuplicateString {
    pub text: String,
    /// How many strings hold it.
    pub count: u64,
    /// The bytes of all copies but one: each string with what it alone keeps (its characters).
    pub wasted_bytes: u64,
}

/// The empty collections of one type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EmptyCollections {
    #[serde(rename = "type")]
    pub type_name: String,
    pub count: u64,
    /// What they keep alive, all of it wasted.
    pub wasted_bytes: u64,
}

/// A heap's waste, the most wasteful first in each list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Waste {
    pub duplicate_strings: Vec<DuplicateString>,
    pub empty_collections: Vec<EmptyCollections>,
}

/// The waste of `heap`, whose strings `values` reads; `top` of each kind. Time: one pass over
/// the objects (every string's text read once) and one walk of each collection's entries
/// until its first.
pub fn waste(heap: &TypedHeap, values: &dyn Values, descriptions: &Descriptions, top: usize) -> Waste {
    let retained = dominators(&heap.graph).retained;
    let mut texts: FxHashMap<String, (u64, u64)> = FxHashMap::default();
    for o in 0..heap.graph.object_count() as u32 {
        // A cut text (a heap file's short value) may differ from another past its cut.
        if let Some(text) = values.text(o).filter(|_| values.cut(o).is_none()) {
            let at = texts.entry(text).or_default();
            at.0 += 1;
            at.1 += retained[o as usize];
        }
    }
    let mut duplicate_strings: Vec<DuplicateString> = texts
        .into_iter()
        .filter(|(_, (count, _))| *count > 1)
        // The bytes of one copy: the average, as copies may differ (a shared array).
        .map(|(text, (count, bytes))| DuplicateString { text, count, wasted_bytes: bytes - bytes / count })
        .collect();
    duplicate_strings.sort_by(|a, b| b.wasted_bytes.cmp(&a.wasted_bytes).then_with(|| a.text.cmp(&b.text)));
    duplicate_strings.truncate(top);

    let found = detect(heap, descriptions);
    let roles = Roles::new(heap, descriptions);
    let mut empty: FxHashMap<&str, (u64, u64)> = FxHashMap::default();
    for (i, instance) in found.instances.iter().enumerate() {
        // Only what says where its entries are can be told empty.
        if roles.has_entries(heap, instance.head) && entries(heap, &found, &roles, i, 1).is_empty() {
            let at = empty.entry(heap.objects.type_name(instance.head)).or_default();
            at.0 += 1;
            at.1 += retained[instance.head as usize];
        }
    }
    let mut empty_collections: Vec<EmptyCollections> = empty
        .into_iter()
        .map(|(t, (count, bytes))| EmptyCollections { type_name: t.to_string(), count, wasted_bytes: bytes })
        .collect();
    empty_collections
        .sort_by(|a, b| b.wasted_bytes.cmp(&a.wasted_bytes).then_with(|| a.type_name.cmp(&b.type_name)));
    empty_collections.truncate(top);
    Waste { duplicate_strings, empty_collections }
}

#[cfg(test)]
mod tests;
