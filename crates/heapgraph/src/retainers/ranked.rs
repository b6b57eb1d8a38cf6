//! The reachable objects numbered group by group: an object's *rank* is its place among the
//! members of all groups, listed group after group and in object order within a group. Every
//! object of a retainer path's step is in the step's group, so a step's objects lie in one run
//! of the tables below, in the same order as their objects: a step sweeps its group's run, not
//! the whole of every per-object table. Past the budget these tables are work files, and a
//! sweep of the whole table per step is what the climbs would otherwise read from disk.

use std::ops::Range;

use crate::HeapGraph;
use crate::dominators::{DominatorTree, UNPLACED};
use crate::retained::Dominated;
use crate::table::Table;

/// What the climbs read about each reachable object, by rank.
pub(super) struct Ranked {
    /// Per group, its first rank; group `g`'s ranks are `start[g]..start[g + 1]`.
    pub start: Vec<usize>,
    /// The object of each rank.
    pub members: Table<u32>,
    /// The rank of each object ([`UNPLACED`] if unreachable).
    pub rank: Table<u32>,
    /// The rank of the object's holder ([`crate::retained::dominated_and_holders`]).
    pub holder: Table<u32>,
    /// The object's preorder position.
    pub pos: Table<u32>,
    /// The object's shallow bytes, or u32::MAX where they do not fit ([`Ranked::shallow`]).
    shallow: Table<u32>,
    /// The object's retained bytes.
    pub retained: Table<u64>,
    /// A bit per rank, as [`Dominated::nested`].
    nested: Table<u64>,
}

impl Ranked {
    /// The members of each group by rank, with their preorder positions, shallow and retained
    /// bytes, read in one sweep in object order (the writes go to one run per group). The
    /// holders and nesting come later ([`Ranked::with_holders`]), from a pass that can run
    /// beside this one.
    pub fn new(g: &HeapGraph, tree: &DominatorTree, group_count: usize) -> Ranked {
        let pos = &tree.position;
        let reachable = |o: usize| pos[o] != UNPLACED;
        let mut start = vec![0usize; group_count + 1];
        for o in (0..g.object_count()).filter(|&o| reachable(o)) {
            start[g.group[o] as usize + 1] += 1;
        }
        for i in 0..group_count {
            start[i + 1] += start[i];
        }
        let count = start[group_count];
        let mut fill = start.clone();
        let mut ranked = Ranked {
            members: Table::filled(count, 0u32),
            // Written in whole below, in order: zeros at first, so that past the budget its
            // work file is not written once before that.
            rank: Table::filled(g.object_count(), 0u32),
            holder: Table::default(),
            pos: Table::filled(count, 0u32),
            shallow: Table::filled(count, 0u32),
            retained: Table::filled(count, 0u64),
            nested: Table::default(),
            start: Vec::new(),
        };
        for o in 0..g.object_count() {
            if !reachable(o) {
                ranked.rank[o] = UNPLACED;
                continue;
            }
            let r = fill[g.group[o] as usize];
            fill[g.group[o] as usize] += 1;
            ranked.members[r] = o as u32;
            ranked.rank[o] = r as u32;
            ranked.pos[r] = pos[o];
            ranked.shallow[r] = u32::try_from(g.shallow[o]).unwrap_or(u32::MAX);
            ranked.retained[r] = tree.retained[o];
        }
        ranked.start = start;
        ranked
    }

    /// `holder` (by object) and `dominated`'s nesting, by rank.
    pub fn with_holders(mut self, holder: Table<u32>, dominated: &Dominated) -> Ranked {
        let count = self.members.len();
        let mut by_rank = Table::filled(count, 0u32);
        let mut nested = Table::filled(count.div_ceil(64), 0u64);
        for (o, &r) in self.rank.iter().enumerate().filter(|&(_, &r)| r != UNPLACED) {
            let r = r as usize;
            by_rank[r] = self.rank[holder[o] as usize];
            if dominated.is_nested(o as u32) {
                nested[r / 64] |= 1 << (r % 64);
            }
        }
        drop(holder);
        (self.holder, self.nested) = (by_rank, nested);
        self
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

    pub fn shallow(&self, g: &HeapGraph, r: u32) -> u64 {
        match self.shallow[r as usize] {
            u32::MAX => g.shallow[self.members[r as usize] as usize],
            bytes => u64::from(bytes),
        }
    }

    pub fn is_nested(&self, r: u32) -> bool {
        self.nested[r as usize / 64] >> (r % 64) & 1 != 0
    }
}
