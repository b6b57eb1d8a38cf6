//! Object id → node lookup over the ids in ascending order. Ids are heap addresses, spread
//! fairly evenly over a few ranges, so a table of bucket starts narrows each binary search to a
//! handful of ids (no hash map: 8 bytes per object, built in one pass). Where the ids are dense
//! enough ([`dense`]), a lookup that needs no ids afterwards ([`IdLookup`]) uses a bitmap instead.

mod dense;

use std::collections::HashMap;

use memcity_heapgraph::Table;
use std::hash::{BuildHasherDefault, Hasher};

pub struct IdIndex {
    ids: Table<u64>,
    min: u64,
    shift: u32,
    /// `starts[b]` = first position whose id falls in bucket `b` or later; one extra at the end.
    starts: Table<u32>,
}

impl IdIndex {
    /// `ids` must be sorted ascending.
    pub fn new(ids: Table<u64>) -> IdIndex {
        let (min, max) = (ids.first().copied().unwrap_or(0), ids.last().copied().unwrap_or(0));
        // About two ids per bucket on average.
        let span = max - min;
        let buckets_wanted = (ids.len() as u64 / 2).max(1);
        let shift = (64 - (span / buckets_wanted).leading_zeros()).min(63);
        let buckets = (span >> shift) as usize + 1;
        let mut starts = Table::filled(buckets + 1, 0u32);
        let mut bucket = 0;
        for (i, &id) in ids.iter().enumerate() {
            let b = ((id - min) >> shift) as usize;
            while bucket < b {
                bucket += 1;
                starts[bucket] = i as u32;
            }
        }
        for start in &mut starts[bucket + 1..] {
            *start = ids.len() as u32;
        }
        IdIndex { ids, min, shift, starts }
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// The id at position `i`.
    pub fn get(&self, i: usize) -> Option<u64> {
        self.ids.get(i).copied()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The position of `id`, if it is there.
    pub fn find(&self, id: u64) -> Option<u32> {
        let offset = id.checked_sub(self.min)?;
        let bucket = (offset >> self.shift) as usize;
        if bucket + 1 >= self.starts.len() {
            return None;
        }
        let (lo, hi) = (self.starts[bucket] as usize, self.starts[bucket + 1] as usize);
        self.ids[lo..hi].binary_search(&id).ok().map(|i| (lo + i) as u32)
    }
}

/// Object id → position for a reader that needs nothing else of the ids (resolving references):
/// a bitmap over the aligned addresses where the ids are dense, the ids themselves dropped;
/// else the sorted ids with their bucket starts.
pub enum IdLookup {
    Dense(dense::DenseIds),
    Sorted(IdIndex),
}

impl IdLookup {
    /// `ids` must be sorted ascending, without repeats.
    pub fn new(ids: Table<u64>) -> IdLookup {
        match dense::DenseIds::new(&ids) {
            Some(dense) => IdLookup::Dense(dense),
            None => IdLookup::Sorted(IdIndex::new(ids)),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            IdLookup::Dense(dense) => dense.len(),
            IdLookup::Sorted(sorted) => sorted.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The position of `id`, if it is there.
    pub fn find(&self, id: u64) -> Option<u32> {
        match self {
            IdLookup::Dense(dense) => dense.find(id),
            IdLookup::Sorted(sorted) => sorted.find(id),
        }
    }
}

/// A hasher for object ids (already well spread: multiply and fold, no SipHash cost).
#[derive(Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, id: u64) {
        let x = id.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = x ^ (x >> 29);
    }
}

pub type IdMap<V> = HashMap<u64, V, BuildHasherDefault<IdHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_id_and_nothing_else() {
        let ids: Vec<u64> = (0..5000u64).map(|i| 0x7000_0000 + i * i * 8 + (i % 3) * 1_000_000_000).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        sorted.dedup();
        let index = IdIndex::new(sorted.clone().into());
        for (i, &id) in sorted.iter().enumerate() {
            assert_eq!(index.find(id), Some(i as u32));
            assert_eq!(index.find(id + 1), sorted.binary_search(&(id + 1)).ok().map(|p| p as u32));
        }
        assert_eq!(index.find(0), None);
        assert_eq!(index.find(u64::MAX), None);
        assert_eq!(IdIndex::new(Vec::new().into()).find(5), None);
        assert_eq!(IdIndex::new(vec![7].into()).find(7), Some(0));
    }

    #[test]
    fn a_lookup_finds_the_same_dense_or_sorted() {
        let aligned: Vec<u64> = (0..3000u64).map(|i| 0x8000_0000 + i * 48 + (i % 5) * 8).collect();
        let spread: Vec<u64> = (0..3000u64).map(|i| i * i * 977 + 1).collect();
        for (ids, dense) in [(aligned, true), (spread, false)] {
            let (mut sorted, index) = (ids.clone(), IdIndex::new(ids.clone().into()));
            sorted.dedup();
            let lookup = IdLookup::new(ids.clone().into());
            assert_eq!((matches!(lookup, IdLookup::Dense(_)), lookup.len()), (dense, index.len()));
            for &id in &ids {
                for probe in [id, id + 1, id + 8, id.wrapping_sub(8)] {
                    assert_eq!(lookup.find(probe), index.find(probe), "{probe}");
                }
            }
        }
    }
}
