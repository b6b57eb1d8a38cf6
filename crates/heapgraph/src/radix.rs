//! A stable radix sort of pairs by a bit field of their first word. A comparison sort of a large
//! table jumps across all of it on every level; past the budget the table is a mapped work
//! file, where each jump can be a page read. A radix sort makes a few sequential passes (one
//! per digit, each writing to as many streams as a digit has values), so the same table is read
//! and written in order.

use rayon::prelude::*;

use crate::table::{Plain, Table};

/// Bits per pass: 1,024 streams, small enough for their heads to stay cached.
const DIGIT: u32 = 10;

/// Below this many pairs, the table is sorted in place (it fits in a cache, and a second
/// table would cost more than it saves).
const SMALL: usize = 1 << 16;

/// Sorts `pairs` by `(word(pair) >> shift) & (2^bits - 1)` (equal keys in any order): pairs of
/// `u64`s by a field of the first, or single `u64`s by a field of their own. The pairs move
/// through `buffer`, which grows to their length if it is shorter, while that fits in memory;
/// past the budget they are sorted in place instead: the passes through a second work file
/// would write it out and read it back on every pass.
pub(crate) fn sort_by_bits<T: Plain + Default>(
    pairs: &mut [T],
    buffer: &mut Table<T>,
    word: impl Fn(&T) -> u64 + Sync + Copy,
    shift: u32,
    bits: u32,
) {
    let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let key = |pair: &T| (word(pair) >> shift) & mask;
    // Objects made together are often numbered, held and laid out together: a step's exits or
    // positions may come in order already.
    if pairs.is_sorted_by_key(key) {
        return;
    }
    if pairs.len() < SMALL {
        pairs.sort_unstable_by_key(key);
        return;
    }
    if buffer.len() < pairs.len() {
        *buffer = Table::default();
        *buffer = Table::filled(pairs.len(), T::default());
    }
    if buffer.is_mapped() {
        *buffer = Table::default();
        pairs.par_sort_unstable_by_key(key);
        return;
    }
    let other = &mut buffer[..pairs.len()];
    let mut sorted_in_other = false;
    for low in (0..bits).step_by(DIGIT as usize) {
        let width = DIGIT.min(bits - low);
        let (from, to) = if sorted_in_other { (&*other, &mut *pairs) } else { (&*pairs, &mut *other) };
        if pass(from, to, word, shift + low, width) {
            sorted_in_other = !sorted_in_other;
        }
    }
    if sorted_in_other {
        pairs.copy_from_slice(other);
    }
}

/// One counting pass by the digit `(word(pair) >> shift) & (2^width - 1)`; false (nothing
/// moved) when every pair has the same digit.
fn pass<T: Copy>(from: &[T], to: &mut [T], word: impl Fn(&T) -> u64, shift: u32, width: u32) -> bool {
    let digit = |pair: &T| ((word(pair) >> shift) & ((1 << width) - 1)) as usize;
    let mut start = vec![0usize; (1 << width) + 1];
    for pair in from {
        start[digit(pair) + 1] += 1;
    }
    if start.contains(&from.len()) {
        return false;
    }
    for d in 0..1 << width {
        start[d + 1] += start[d];
    }
    for pair in from {
        let at = &mut start[digit(pair)];
        to[*at] = *pair;
        *at += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same keys in the same order as a comparison sort on the field, for sizes around the
    /// cut-over, fields at several shifts, and keys whose high digits are all equal (skipped
    /// passes); no pair lost or doubled.
    #[test]
    fn sorts_by_the_field_like_a_comparison_sort() {
        let mut rng = crate::dominators::tests::Rng(0x2545_F491_4F6C_DD1D);
        for (len, shift, bits, spread) in [
            (10, 0, 27, 1 << 27),
            (SMALL + 5, 32, 27, 1 << 20),
            (200_000, 0, 32, 3),
            (150_000, 7, 24, 1 << 24),
        ] {
            let pairs: Vec<[u64; 2]> =
                (0..len).map(|i| [(rng.below(spread) << shift) | rng.below(128), i as u64]).collect();
            let mut sorted = pairs.clone();
            sort_by_bits(&mut sorted, &mut Table::default(), |p| p[0], shift, bits);
            let mut expected = pairs;
            expected.sort_by_key(|&[key, _]| (key >> shift) & ((1 << bits) - 1));
            let keys = |pairs: &[[u64; 2]]| {
                pairs.iter().map(|&[k, _]| (k >> shift) & ((1 << bits) - 1)).collect::<Vec<_>>()
            };
            assert_eq!(keys(&sorted), keys(&expected), "{len} pairs, {bits} bits from {shift}");
            sorted.sort_unstable();
            expected.sort_unstable();
            assert_eq!(sorted, expected, "the same pairs");
        }
    }

    /// Single words sort by their own field the same way (a narrow retainer path step's
    /// entries, by their high 32 bits).
    #[test]
    fn sorts_single_words_by_their_high_bits() {
        let mut rng = crate::dominators::tests::Rng(0x9e37_79b9);
        for len in [100, SMALL + 100, 300_000] {
            let words: Vec<u64> = (0..len).map(|i| rng.below(1 << 20) << 32 | i as u64).collect();
            let mut sorted = words.clone();
            sort_by_bits(&mut sorted, &mut Table::default(), |&w| w, 32, 20);
            assert!(sorted.is_sorted_by_key(|&w| w >> 32), "{len} words");
            let mut expected = words;
            expected.sort_unstable();
            sorted.sort_unstable();
            assert_eq!(sorted, expected, "the same words");
        }
    }
}
