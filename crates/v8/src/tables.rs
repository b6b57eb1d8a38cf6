//! The entries of JavaScript's Map and Set as a snapshot shows them (docs/structures.md,
//! "Entries"). A `Map` or `Set` object holds its entries in a hash table of V8's own, an array
//! node reached by its internal `table` edge. Its slots are a header of three small integers
//! (elements, deleted, buckets), the buckets (small integers), then one run per entry: key,
//! value and chain for a Map, key and chain for a Set. Small integers, `undefined`, `null`, the
//! booleans and a deleted entry's hole are no nodes, so only keys and values that are objects,
//! strings or heap numbers are edges, each named by its slot number.
//!
//! memcity numbers those edges by entry instead — a Map's key of entry k `[2k]`, its value
//! `[2k+1]`; a Set's element k `[k]` — so the descriptions' `pairs` and `[*]` roles read them
//! without knowing V8's layout. The bucket count is not in the snapshot (it is a small integer
//! of the header): it follows from the table's size, `(2 + 3 + buckets × (1 + 2 × run))` words
//! of 8 bytes (4 with pointer compression), the buckets a power of two. A table whose size or
//! slots do not fit that layout has its slot edges left unnamed, so no entry is read wrong.

use memcity_heapgraph::{Label, LabelKind};

use crate::read::RawHeap;

/// The slots of one entry: key, value, chain (a Map); key, chain (a Set).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    Map,
    Set,
}

impl Table {
    fn of(holder: &str) -> Option<Table> {
        match holder {
            "Map" => Some(Table::Map),
            "Set" => Some(Table::Set),
            _ => None,
        }
    }

    /// Slots per entry, the chain included.
    fn run(self) -> u64 {
        match self {
            Table::Map => 3,
            Table::Set => 2,
        }
    }

    /// The first entry's slot of a table of `bytes`, if the size fits the layout for one tagged
    /// size (a FixedArray's map and length, the three-slot header, the buckets, two entries per
    /// bucket).
    pub fn first_entry(self, bytes: u64) -> Option<u64> {
        [8, 4].into_iter().find_map(|tagged| {
            let words = bytes.is_multiple_of(tagged).then_some(bytes / tagged)?;
            let rest = words.checked_sub(2 + 3)?;
            let per_bucket = 1 + 2 * self.run();
            let buckets = rest.is_multiple_of(per_bucket).then_some(rest / per_bucket)?;
            (buckets.is_power_of_two()).then_some(3 + buckets)
        })
    }

    /// The entry-numbered index of slot `slot`, where `first` is the first entry's slot; `None`
    /// where the slot cannot hold a key or value (the header, the buckets, a chain).
    pub fn renumbered(self, first: u64, slot: u64) -> Option<u64> {
        let at = slot.checked_sub(first)?;
        let (entry, side) = (at / self.run(), at % self.run());
        match self {
            Table::Map if side < 2 => Some(2 * entry + side),
            Table::Set if side == 0 => Some(entry),
            _ => None,
        }
    }
}

/// Renumbers the slot edges of every Map's and Set's table by entry (see the module's
/// comment); `of_edge` are the edges' labels, numbered internal edges already indices.
pub fn renumber(raw: &RawHeap, names: &[String], of_edge: &mut [Label]) {
    let node_type = |o: u32| raw.node_types.get(raw.node_type[o as usize] as usize).map(String::as_str);
    let named = |label: Label, name: &str| match label.get() {
        Some(LabelKind::Field(n)) => names.get(n as usize).is_some_and(|n| n == name),
        _ => false,
    };
    for holder in 0..raw.node_count() {
        if node_type(holder as u32) != Some("object") {
            continue;
        }
        let Some(kind) = Table::of(&raw.strings.get(raw.name[holder])) else { continue };
        let edges = raw.edge_range(holder);
        let Some(table) = edges.clone().find(|&e| named(of_edge[e], "table")).map(|e| raw.edges[e]) else {
            continue;
        };
        if node_type(table) == Some("array") {
            renumber_table(raw, kind, table as usize, of_edge);
        }
    }
}

fn renumber_table(raw: &RawHeap, kind: Table, table: usize, of_edge: &mut [Label]) {
    let slots = raw.edge_range(table);
    let first = kind.first_entry(raw.shallow[table]);
    let renumbered: Option<Vec<(usize, u64)>> = slots
        .clone()
        .filter_map(|e| match of_edge[e].get() {
            Some(LabelKind::Index(slot)) => Some((e, slot)),
            _ => None,
        })
        .map(|(e, slot)| Some((e, kind.renumbered(first?, u64::from(slot))?)))
        .collect();
    match renumbered {
        Some(list) => list.into_iter().for_each(|(e, index)| of_edge[e] = Label::index(index)),
        None => {
            for e in slots {
                if matches!(of_edge[e].get(), Some(LabelKind::Index(_))) {
                    of_edge[e] = Label::NONE;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_follow_from_the_sizes_node_wrote() {
        // Sizes and slots of real Node 20 snapshots: a Map of 5 entries in a 264-byte table
        // (4 buckets) has keys at 7, 10, …; a Map of 100 in 3,624 bytes (64 buckets) at 67, …;
        // a Set of 5 in 200 bytes (4 buckets) at 7, 9, ….
        assert_eq!(Table::Map.first_entry(264), Some(7));
        assert_eq!(Table::Map.first_entry(152), Some(5));
        assert_eq!(Table::Map.first_entry(3_624), Some(67));
        assert_eq!(Table::Set.first_entry(200), Some(7));
        assert_eq!(Table::Set.first_entry(120), Some(5));
        // With pointer compression (Chromium): 4-byte slots, 4 buckets.
        assert_eq!(Table::Map.first_entry(4 * 33), Some(7));
        assert_eq!(Table::Map.first_entry(100), None, "no bucket count fits");
        assert_eq!(Table::Set.first_entry(264), None, "a Map's table is no Set's");
        assert_eq!(Table::Map.first_entry(0), None);
        let map = |slot| Table::Map.renumbered(7, slot);
        assert_eq!((map(7), map(8), map(9), map(10), map(11)), (Some(0), Some(1), None, Some(2), Some(3)));
        assert_eq!(map(2), None, "the header");
        let set = |slot| Table::Set.renumbered(7, slot);
        assert_eq!((set(7), set(8), set(9)), (Some(0), None, Some(1)));
    }
}
