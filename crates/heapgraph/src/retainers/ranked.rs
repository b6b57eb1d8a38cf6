//! The reachable objects numbered group by group: an object's *rank* is its place among the
//! members of all groups, listed group after group and in object order within a group. Every
//! object of a retainer path's step is in the step's group, so a step's objects lie in one run
//! of the tables below, in the same order as their objects: a step sweeps its group's run, not
//! the whole of every per-object table. Past the budget these tables are work files, and a
//! sweep of the whole table per step is what the climbs would otherwise read from disk.

use std::ops::Range;

use rayon::prelude::*;

use crate::disjoint::{Bits, Disjoint, parts};
use crate::dominators::{DominatorTree, UNPLACED};
use crate::retained::{Visit, dominated_pass};
use crate::table::Table;
use crate::{HeapGraph, prefetch};

/// What the climbs read about each reachable object, by rank.
pub(super) struct Ranked {
    /// Per group, its first rank; group `g`'s ranks are `start[g]..start[g + 1]`.
    pub start: Vec<usize>,
    /// The object of each rank.
    pub members: Table<u32>,
    /// The rank of the object's holder ([`crate::retained::Visit`]).
    pub holder: Table<u32>,
    /// The object's preorder position; empty without representatives ([`Ranked::pos`]).
    pos: Table<u32>,
    /// The object's shallow bytes in [`Ranked::unit`]s, or [`ESCAPE`] where they do not fit
    /// ([`Ranked::shallow`]).
    shallow: Table<u8>,
    /// The object's retained bytes in units, or [`ESCAPE`] where they do not fit
    /// ([`Ranked::retained`]): most objects retain a few hundred bytes, and each byte per object
    /// of a table by rank is fresh memory, which on a machine that hands pages back to its host
    /// costs more than the climbs' rare second read in the tree's own table.
    retained: Table<u8>,
    /// The unit of the sizes by rank: the largest power of two that divides a sample of the
    /// shallow sizes ([`Unit::of_sample`]), 8 bytes in a JVM's heap.
    unit: Unit,
    /// A bit per rank, as [`Dominated::nested`].
    nested: Table<u64>,
}

impl Ranked {
    /// The members of each group by rank, with their preorder positions, shallow and retained
    /// bytes, read in sweeps in object order: the objects are cut into one part per worker,
    /// each part's members of each group are counted, and then every part is ranked at once
    /// into its own runs of ranks (within a group, the earlier parts' members come first, so
    /// the ranks are in object order). The holders and nesting come later
    /// ([`Ranked::with_holders`]).
    /// Also returns the rank of each object ([`UNPLACED`] if unreachable), which only
    /// [`Ranked::with_holders`] needs.
    pub fn new(
        g: &HeapGraph,
        tree: &DominatorTree,
        group_count: usize,
        with_pos: bool,
    ) -> (Ranked, Table<u32>) {
        let pos = &tree.position;
        let reachable = |o: usize| pos[o] != UNPLACED;
        let n = g.object_count();
        let (part, parts) = parts(n);
        // Per part, its reachable members of each group; then, in place, the first rank of
        // each group's run in the part.
        let mut fills: Vec<Vec<usize>> = parts
            .par_iter()
            .map(|objects| {
                let mut count = vec![0usize; group_count];
                for o in objects.clone().filter(|&o| reachable(o)) {
                    count[g.group[o] as usize] += 1;
                }
                count
            })
            .collect();
        let unit = Unit::of_sample(&g.shallow);
        let mut start = Vec::with_capacity(group_count + 1);
        let mut next = 0;
        for group in 0..group_count {
            start.push(next);
            for fill in fills.iter_mut() {
                (fill[group], next) = (next, next + fill[group]);
            }
        }
        start.push(next);
        let mut ranked = Ranked {
            members: Table::filled(next, 0u32),
            holder: Table::default(),
            pos: Table::filled(if with_pos { next } else { 0 }, 0u32),
            shallow: Table::filled(next, 0u8),
            retained: Table::filled(next, 0u8),
            nested: Table::default(),
            unit,
            start,
        };
        // Written in whole below, in order: zeros at first, so that past the budget its work
        // file is not written once before that.
        let mut rank = Table::filled(n, 0u32);
        let members = Disjoint::new(&mut ranked.members);
        let positions = Disjoint::new(&mut ranked.pos);
        let shallow = Disjoint::new(&mut ranked.shallow);
        let retained = Disjoint::new(&mut ranked.retained);
        let work = rank.par_chunks_mut(part).zip(parts.par_iter()).zip(fills.par_iter_mut());
        work.for_each(|((ranks, objects), fill)| {
            for (rank, o) in ranks.iter_mut().zip(objects.clone()) {
                if !reachable(o) {
                    *rank = UNPLACED;
                    continue;
                }
                let r = fill[g.group[o] as usize];
                fill[g.group[o] as usize] += 1;
                *rank = r as u32;
                // SAFETY: each rank is in one part's run of one group, written once.
                unsafe {
                    members.set(r, o as u32);
                    if with_pos {
                        positions.set(r, pos[o]);
                    }
                    shallow.set(r, unit.narrow(g.shallow[o]));
                    retained.set(r, unit.narrow(tree.retained[o]));
                }
            }
        });
        (ranked, rank)
    }

    /// The holders and nesting by rank ([`crate::retained::Visit`]), from one pass down the
    /// preorder, which also gives the groups' dominated sizes. `rank` is [`Ranked::new`]'s,
    /// and goes once it is read: its memory is what the climbs' tables are made in.
    pub fn with_holders(
        mut self,
        rank: Table<u32>,
        g: &HeapGraph,
        tree: &DominatorTree,
        group_count: usize,
    ) -> (Ranked, Vec<(u64, u64)>) {
        let count = self.members.len();
        let mut holder = Table::filled(count, 0u32);
        let mut nested = Table::filled(count.div_ceil(64), 0u64);
        let by_rank =
            ByRank { rank: &rank, holder: Disjoint::new(&mut holder), nested: Bits::new(&mut nested) };
        let sizes = dominated_pass(g, tree, group_count, &by_rank);
        (self.holder, self.nested) = (holder, nested);
        (self, sizes)
    }

    /// How many objects are ranked (the reachable ones).
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// The ranks of `group`.
    pub fn of(&self, group: usize) -> Range<usize> {
        self.start[group]..self.start[group + 1]
    }

    /// Whether rank `r` is a member of `group`.
    pub fn is_in(&self, r: u32, group: u32) -> bool {
        self.of(group as usize).contains(&(r as usize))
    }

    /// The group of rank `r`.
    pub fn group(&self, r: u32) -> u32 {
        (self.start.partition_point(|&s| s <= r as usize) - 1) as u32
    }

    /// The group of rank `r`, `guess` tried first. A step's exits mostly fall in the group of
    /// the exit before (the Strings of consecutive byte[]s are consecutive), and the binary
    /// search over the group starts for each exit was a third of a reopening's CPU time.
    pub fn group_near(&self, r: u32, guess: u32) -> u32 {
        match self.is_in(r, guess) {
            true => guess,
            false => self.group(r),
        }
    }

    /// The rank of object `o`, a member of `group`: its place among the group's members,
    /// which are in object order.
    pub fn rank_of(&self, o: u32, group: u32) -> Option<u32> {
        let run = self.of(group as usize);
        let members = &self.members[run.clone()];
        members.binary_search(&o).ok().map(|i| (run.start + i) as u32)
    }

    pub fn shallow(&self, g: &HeapGraph, r: u32) -> u64 {
        match self.shallow[r as usize] {
            ESCAPE => g.shallow[self.members[r as usize] as usize],
            units => self.unit.bytes(units),
        }
    }

    pub fn pos(&self, tree: &DominatorTree, r: u32) -> u32 {
        match self.pos.is_empty() {
            true => tree.position[self.members[r as usize] as usize],
            false => self.pos[r as usize],
        }
    }

    pub fn retained(&self, tree: &DominatorTree, r: u32) -> u64 {
        match self.retained[r as usize] {
            ESCAPE => tree.retained[self.members[r as usize] as usize],
            units => self.unit.bytes(units),
        }
    }

    pub fn is_nested(&self, r: u32) -> bool {
        self.nested[r as usize / 64] >> (r % 64) & 1 != 0
    }
}

/// How many sizes [`Unit::of_sample`] reads.
const SAMPLE: usize = 1 << 16;

/// A byte count too large for a table by rank: the object's own table is read instead.
const ESCAPE: u8 = u8::MAX;

/// The unit of the sizes by rank, as a shift: sizes are kept as whole units, so a byte per
/// object holds up to 254 units (2,032 bytes where the unit is 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Unit(u32);

impl Unit {
    /// The largest power of two (up to 2^16) dividing every size whose bits are ORed in `bits`.
    fn dividing(bits: u64) -> Unit {
        Unit(bits.trailing_zeros().min(16))
    }

    /// The unit dividing a sample of the `sizes` spread over the table: a sweep of all of them
    /// would read a table as long as the heap. A size the sample misses that is no whole
    /// number of units escapes ([`Unit::narrow`]), so the unit only decides what fits.
    fn of_sample(sizes: &[u64]) -> Unit {
        let step = (sizes.len() / SAMPLE).max(1);
        Unit::dividing(sizes.iter().step_by(step).fold(0, |all, &s| all | s))
    }

    /// `bytes` for a table by rank, [`ESCAPE`] where they are not a whole number of units
    /// below it.
    fn narrow(self, bytes: u64) -> u8 {
        let units = bytes >> self.0;
        match units << self.0 == bytes && units < u64::from(ESCAPE) {
            true => units as u8,
            false => ESCAPE,
        }
    }

    fn bytes(self, units: u8) -> u64 {
        u64::from(units) << self.0
    }
}

/// The holders and nesting of a [`dominated_pass`], written by rank.
struct ByRank<'a> {
    rank: &'a Table<u32>,
    holder: Disjoint<'a, u32>,
    nested: Bits<'a>,
}

impl Visit for ByRank<'_> {
    fn ahead(&self, o: usize) {
        prefetch(self.rank, o);
    }

    fn visit(&self, o: usize, holder: u32, nested: bool) {
        let r = self.rank[o] as usize;
        // The holder is the object itself, its dominator or its dominator's holder: all met
        // lately, their ranks still cached.
        // SAFETY: each object is visited once, and ranks are distinct.
        unsafe { self.holder.set(r, self.rank[holder as usize]) };
        if nested {
            self.nested.set(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_by_rank_are_whole_units_or_escape() {
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
}
