//! Byte counts a byte each. Most objects' shallow and retained sizes are a few whole *units*
//! (8 bytes in a JVM's heap), fewer than 255 of them, so a table of a byte per object holds
//! them, with an escape to the full table for the others. Past the memory budget the full
//! tables are work files: a pass that reads every object's size then reads an eighth as much
//! from disk (the retainer paths' tables by rank, and the first import's passes after the
//! depth-first search, which read the sizes as narrow tables made before it).

use rayon::prelude::*;

use crate::table::Table;

/// How many sizes [`Unit::of_sample`] reads.
const SAMPLE: usize = 1 << 16;

/// A byte count too large for a narrow table: the full table is read instead.
pub(crate) const ESCAPE: u8 = u8::MAX;

/// The unit of narrow sizes, as a shift: sizes are kept as whole units, so a byte holds up to
/// 254 units (2,032 bytes where the unit is 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unit(u32);

impl Unit {
    /// The largest power of two (up to 2^16) dividing every size whose bits are ORed in `bits`.
    fn dividing(bits: u64) -> Unit {
        Unit(bits.trailing_zeros().min(16))
    }

    /// The unit dividing a sample of the `sizes` spread over the table: a sweep of all of them
    /// would read a table as long as the heap. A size the sample misses that is no whole
    /// number of units escapes ([`Unit::narrow`]), so the unit only decides what fits.
    pub(crate) fn of_sample(sizes: &[u64]) -> Unit {
        let step = (sizes.len() / SAMPLE).max(1);
        Unit::dividing(sizes.iter().step_by(step).fold(0, |all, &s| all | s))
    }

    /// `bytes` for a narrow table, [`ESCAPE`] where they are not a whole number of units
    /// below it.
    pub(crate) fn narrow(self, bytes: u64) -> u8 {
        let units = bytes >> self.0;
        match units << self.0 == bytes && units < u64::from(ESCAPE) {
            true => units as u8,
            false => ESCAPE,
        }
    }

    pub(crate) fn bytes(self, units: u8) -> u64 {
        u64::from(units) << self.0
    }
}

/// A full table of byte counts, a byte each ([`Unit::narrow`]).
pub(crate) struct Narrow {
    pub unit: Unit,
    pub values: Table<u8>,
}

impl Narrow {
    /// `sizes` a byte each, in `unit`s, made by all workers.
    pub(crate) fn of(sizes: &[u64], unit: Unit) -> Narrow {
        let mut values = Table::filled(sizes.len(), 0u8);
        let chunk = 1 << 20;
        values.par_chunks_mut(chunk).zip(sizes.par_chunks(chunk)).for_each(|(narrow, sizes)| {
            narrow.iter_mut().zip(sizes).for_each(|(n, &size)| *n = unit.narrow(size));
        });
        Narrow { unit, values }
    }

    /// Zeros, filled later with [`Narrow::set`].
    pub(crate) fn zeros(len: usize, unit: Unit) -> Narrow {
        Narrow { unit, values: Table::filled(len, 0u8) }
    }

    pub(crate) fn set(&mut self, i: usize, bytes: u64) {
        self.values[i] = self.unit.narrow(bytes);
    }

    /// The count at `i`; `full` is the table the narrow one stands for.
    #[inline]
    pub(crate) fn get(&self, i: usize, full: &[u64]) -> u64 {
        match self.values[i] {
            ESCAPE => full[i],
            units => self.unit.bytes(units),
        }
    }
}

/// An object's shallow and retained sizes a byte each, as the first import makes them beside
/// the dominator tree.
pub(crate) struct NarrowSizes {
    pub shallow: Narrow,
    pub retained: Narrow,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_whole_units_or_escape() {
        let unit = Unit::dividing(24 | 40 | 16);
        assert_eq!(unit, Unit(3));
        assert_eq!((unit.narrow(24), unit.bytes(unit.narrow(24))), (3, 24));
        assert_eq!(unit.narrow(254 * 8), 254);
        assert_eq!(unit.narrow(255 * 8), ESCAPE, "the escape is no size");
        assert_eq!(unit.narrow(20), ESCAPE, "not a whole number of units");
        assert_eq!(unit.narrow(8 << 40), ESCAPE);
        assert_eq!(Unit::dividing(0), Unit(16), "all sizes 0");
        assert_eq!(Unit::dividing(0).narrow(0), 0);
        assert_eq!(Unit::dividing(49 | 16).narrow(49), 49, "odd sizes: bytes");
        let sizes: Vec<u64> = (0..1 << 20).map(|i| 16 + (i % 5) * 8).collect();
        assert_eq!(Unit::of_sample(&sizes), Unit(3));
    }

    #[test]
    fn a_narrow_table_reads_every_size_back() {
        // Across chunks, with sizes that escape: too large, and not whole units.
        let sizes: Vec<u64> =
            (0..3_000_000u64).map(|i| [16, 24, 4096, 20, 254 * 8, 0][i as usize % 6]).collect();
        let narrow = Narrow::of(&sizes, Unit::of_sample(&sizes[..4]));
        assert_eq!(narrow.unit, Unit(2), "the sample's 16, 24, 4096 and 20");
        assert!((0..sizes.len()).all(|i| narrow.get(i, &sizes) == sizes[i]));
        let escaped = narrow.values.iter().filter(|&&v| v == ESCAPE).count();
        assert_eq!(escaped, 2 * sizes.len() / 6, "4096 and 2032 in units of 4 do not fit a byte");
        let mut set = Narrow::zeros(sizes.len(), narrow.unit);
        (0..sizes.len()).for_each(|i| set.set(i, sizes[i]));
        assert!(set.values == narrow.values);
    }
}
