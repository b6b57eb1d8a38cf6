//! Object id → node for ids that are dense: heap addresses a fixed alignment apart, as HotSpot
//! writes them. One bit per possible address (an aligned slot between the first id and the
//! last) and, every 64 slots, the number of ids before them: a lookup reads one 12-byte entry
//! instead of a bucket start and a binary search in 8 bytes per object, and the ids themselves
//! need not stay in memory while references are resolved.

use memcity_heapgraph::Table;

/// At most this many slots per id: the bitmap then takes at most 6 bytes per object (12 bytes
/// per 64 slots), less than the 8-byte ids it stands in for. Sparser ids (a few far-apart
/// ranges, serial numbers) keep the sorted ids.
const MOST_SLOTS_PER_ID: u64 = 32;

pub struct DenseIds {
    min: u64,
    /// Ids are `min` plus a multiple of `1 << shift`.
    shift: u32,
    slots: u64,
    /// Per 64 slots: their bits (low half, high half) and the ids in the slots before them.
    words: Table<[u32; 3]>,
    len: usize,
}

impl DenseIds {
    /// The bitmap of `ids` (ascending, distinct), or None where they are too sparse for one.
    pub fn new(ids: &[u64]) -> Option<DenseIds> {
        let (&min, &max) = (ids.first()?, ids.last()?);
        // The alignment every id shares, counted from the first one.
        let shift = ids.iter().fold(0u64, |bits, &id| bits | (id - min)).trailing_zeros().min(63);
        let slots = ((max - min) >> shift) + 1;
        if slots > (ids.len() as u64).saturating_mul(MOST_SLOTS_PER_ID) || ids.len() > u32::MAX as usize {
            return None;
        }
        let mut words = Table::filled(slots.div_ceil(64) as usize, [0u32; 3]);
        let mut rank = 0u32;
        let mut at = 0;
        for (w, word) in words.iter_mut().enumerate() {
            word[2] = rank;
            let end = ((w as u64 + 1) * 64).min(slots);
            let mut bits = 0u64;
            while at < ids.len() && (ids[at] - min) >> shift < end {
                bits |= 1 << (((ids[at] - min) >> shift) % 64);
                at += 1;
                rank += 1;
            }
            (word[0], word[1]) = (bits as u32, (bits >> 32) as u32);
        }
        Some(DenseIds { min, shift, slots, words, len: ids.len() })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The position of `id` among the ids, if it is one of them.
    pub fn find(&self, id: u64) -> Option<u32> {
        let offset = id.checked_sub(self.min)?;
        if offset & ((1u64 << self.shift) - 1) != 0 {
            return None;
        }
        let slot = offset >> self.shift;
        if slot >= self.slots {
            return None;
        }
        let [low, high, before] = self.words[(slot / 64) as usize];
        let bits = u64::from(low) | u64::from(high) << 32;
        let bit = slot % 64;
        (bits >> bit & 1 == 1).then(|| before + (bits & ((1u64 << bit) - 1)).count_ones())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(mut ids: Vec<u64>) -> Vec<u64> {
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    #[test]
    fn finds_every_aligned_id_and_nothing_between() {
        // Compressed-oops addresses: 8 bytes apart or more, with gaps of whole words.
        let ids = sorted((0..10_000u64).map(|i| 0x7_0000_0000 + i * 24 + (i % 7) * 8 * (i % 3)).collect());
        let dense = DenseIds::new(&ids).expect("dense enough");
        assert_eq!(dense.len(), ids.len());
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!(dense.find(id), Some(i as u32), "id {id:#x}");
            for probe in [id + 1, id + 4, id + 8, id - 8] {
                assert_eq!(dense.find(probe), ids.binary_search(&probe).ok().map(|p| p as u32));
            }
        }
        for outside in [0, ids[0] - 8, ids[ids.len() - 1] + 8, u64::MAX] {
            assert_eq!(dense.find(outside), None);
        }
    }

    #[test]
    fn unaligned_and_single_ids_are_found_too() {
        let ids = sorted(vec![3, 4, 9, 64, 65, 127, 128, 200]);
        let dense = DenseIds::new(&ids).expect("dense enough");
        for probe in 0..300 {
            assert_eq!(dense.find(probe), ids.binary_search(&probe).ok().map(|p| p as u32), "{probe}");
        }
        let one = DenseIds::new(&[77]).unwrap();
        assert_eq!((one.find(77), one.find(76), one.find(78)), (Some(0), None, None));
        assert!(DenseIds::new(&[]).is_none());
    }

    #[test]
    fn far_apart_ranges_keep_the_sorted_ids() {
        // Two heaps a terabyte apart: a bitmap over the gap would be far larger than the ids.
        let ids = sorted(
            (0..1000u64).map(|i| 0x1000 + i * 8).chain((0..1000).map(|i| (1 << 40) | (i * 8))).collect(),
        );
        assert!(DenseIds::new(&ids).is_none());
    }
}
