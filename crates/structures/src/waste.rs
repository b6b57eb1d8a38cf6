//! Memory a heap wastes, as Eclipse MAT and HeapLens report it (docs/objects.md, "Waste"):
//! strings held many times over with the same text, collections that hold nothing, collections
//! whose backing arrays are mostly empty, and boxed primitives held in collections. Each with
//! the bytes it wastes: every copy of a string but one (the string and its character array),
//! every empty collection whole, a sparse collection's empty slots, the boxes.

use memcity_heapgraph::{Contents, TypedHeap, Values};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use crate::detect::detect;
use crate::entries::{Roles, Slot, entries};
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

/// The sparse collections of one type: backing arrays at most [`SPARSE_PERCENT`] full.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SparseCollections {
    #[serde(rename = "type")]
    pub type_name: String,
    pub count: u64,
    /// Their entries and the slots of their backing arrays, all together.
    pub entries: u64,
    pub slots: u64,
    /// The bytes of the empty slots (each array's bytes in the share of its slots left empty).
    pub wasted_bytes: u64,
}

/// Boxed values (`java.lang.Integer`) held as keys or values of collections of one type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BoxedPrimitives {
    #[serde(rename = "type")]
    pub collection_type: String,
    pub box_type: String,
    /// Entries holding a box (a key and a value each count).
    pub count: u64,
    /// The distinct boxes among them.
    pub boxes: u64,
    /// The bytes of the distinct boxes: what a collection of primitives would not need.
    pub wasted_bytes: u64,
}

/// A heap's waste, the most wasteful first in each list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Waste {
    pub duplicate_strings: Vec<DuplicateString>,
    pub empty_collections: Vec<EmptyCollections>,
    pub sparse_collections: Vec<SparseCollections>,
    pub boxed_primitives: Vec<BoxedPrimitives>,
}

/// A backing array at most this full (in percent) makes its collection sparse.
pub const SPARSE_PERCENT: u64 = 25;
/// Arrays shorter than this are never called sparse: a default table of 16 is no waste worth
/// a line.
pub const SPARSE_MIN_SLOTS: u64 = 16;

/// The waste of `heap`, whose strings `values` reads; `top` of each kind. Time: one pass over
/// the objects (every string's text read once) and one walk of each collection's entries.
pub fn waste(heap: &TypedHeap, values: &dyn Values, descriptions: &Descriptions, top: usize) -> Waste {
    let tree = heap.dominators();
    let retained = &tree.retained;
    let collections = collections(heap, values, descriptions, retained, top);
    Waste {
        duplicate_strings: duplicate_strings(heap, values, retained, top),
        empty_collections: collections.0,
        sparse_collections: collections.1,
        boxed_primitives: collections.2,
    }
}

/// Strings held many times over with one text.
fn duplicate_strings(
    heap: &TypedHeap,
    values: &dyn Values,
    retained: &[u64],
    top: usize,
) -> Vec<DuplicateString> {
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
    duplicate_strings
}

/// Per type: (count, entries, slots, wasted bytes) of its sparse collections.
type Sparse<'h> = FxHashMap<&'h str, (u64, u64, u64, u64)>;
/// Per (collection type, box type): entries, the distinct boxes.
type Boxed<'h> = FxHashMap<(&'h str, &'h str), (u64, FxHashSet<u32>)>;

/// The empty, sparse and boxing collections, from one walk of each collection's entries (only
/// what says where its entries are can be told empty).
fn collections(
    heap: &TypedHeap,
    values: &dyn Values,
    descriptions: &Descriptions,
    retained: &[u64],
    top: usize,
) -> (Vec<EmptyCollections>, Vec<SparseCollections>, Vec<BoxedPrimitives>) {
    let found = detect(heap, descriptions);
    let roles = Roles::new(heap, descriptions);
    let mut empty: FxHashMap<&str, (u64, u64)> = FxHashMap::default();
    let (mut sparse, mut boxed): (Sparse, Boxed) = Default::default();
    for (i, instance) in found.instances.iter().enumerate() {
        let head = instance.head;
        if !roles.has_entries(heap, head) {
            continue;
        }
        let type_name = heap.objects.type_name(head);
        let all = entries(heap, &found, &roles, i, usize::MAX);
        if all.is_empty() {
            let at = empty.entry(type_name).or_default();
            at.0 += 1;
            at.1 += retained[head as usize];
            continue;
        }
        if let Some((slots, wasted)) = sparse_arrays(heap, values, head, all.len() as u64) {
            let at = sparse.entry(type_name).or_default();
            *at = (at.0 + 1, at.1 + all.len() as u64, at.2 + slots, at.3 + wasted);
        }
        for slot in all.iter().flat_map(|e| [e.key, e.value]) {
            let Slot::Object(o) = slot else { continue };
            if values.boxed(o).is_some() {
                let at = boxed.entry((type_name, heap.objects.type_name(o))).or_default();
                at.0 += 1;
                at.1.insert(o);
            }
        }
    }
    let mut empty: Vec<EmptyCollections> = empty
        .into_iter()
        .map(|(t, (count, bytes))| EmptyCollections { type_name: t.to_string(), count, wasted_bytes: bytes })
        .collect();
    empty.sort_by(|a, b| b.wasted_bytes.cmp(&a.wasted_bytes).then_with(|| a.type_name.cmp(&b.type_name)));
    empty.truncate(top);
    let mut sparse: Vec<SparseCollections> = sparse
        .into_iter()
        .map(|(t, (count, entries, slots, wasted_bytes))| SparseCollections {
            type_name: t.to_string(),
            count,
            entries,
            slots,
            wasted_bytes,
        })
        .collect();
    sparse.sort_by(|a, b| b.wasted_bytes.cmp(&a.wasted_bytes).then_with(|| a.type_name.cmp(&b.type_name)));
    sparse.truncate(top);
    let mut boxed: Vec<BoxedPrimitives> = boxed
        .into_iter()
        .map(|((c, b), (count, boxes))| BoxedPrimitives {
            collection_type: c.to_string(),
            box_type: b.to_string(),
            count,
            boxes: boxes.len() as u64,
            wasted_bytes: boxes.iter().map(|&o| heap.graph.shallow[o as usize]).sum(),
        })
        .collect();
    boxed.sort_by(|a, b| {
        (b.wasted_bytes, &a.collection_type, &a.box_type).cmp(&(
            a.wasted_bytes,
            &b.collection_type,
            &b.box_type,
        ))
    });
    boxed.truncate(top);
    (empty, sparse, boxed)
}

/// The slots of the arrays `head` references directly (its table, its element array) and the
/// bytes of those left empty, where they hold at most [`SPARSE_PERCENT`] of `entries`' worth;
/// None where it has no such array (a linked list) or the source has no array lengths.
fn sparse_arrays(heap: &TypedHeap, values: &dyn Values, head: u32, entries: u64) -> Option<(u64, u64)> {
    let (mut slots, mut bytes) = (0u64, 0u64);
    for &a in heap.graph.referents(head) {
        if let Some(Contents::Array { length, .. }) = values.contents(a, 0) {
            slots += length;
            bytes += heap.graph.shallow[a as usize];
        }
    }
    let sparse =
        slots >= SPARSE_MIN_SLOTS && entries.saturating_mul(100) <= slots.saturating_mul(SPARSE_PERCENT);
    // The array's bytes in the share of its slots left empty.
    let wasted = (bytes as u128 * slots.saturating_sub(entries) as u128 / slots.max(1) as u128) as u64;
    sparse.then_some((slots, wasted))
}

#[cfg(test)]
mod tests;
