//! The reachable objects numbered group by group: an object's *rank* is its place among the
//! members of all groups, listed group after group and in preorder within a group. Every
//! object of a retainer path's step is in the step's group, so a step's objects lie in one run
//! of the tables below: a step sweeps its group's run, not the whole of every per-object table.
//! Past the budget these tables are work files, and a sweep of the whole table per step is what
//! the climbs would otherwise read from disk. In preorder, because the pass down the preorder
//! that finds the holders then meets each group's members in rank order: it numbers them as it
//! goes and writes every table by rank in runs, with no table of ranks by object.

use std::ops::Range;

use rayon::prelude::*;

use crate::disjoint::{Bits, Disjoint, parts, parts_per_worker};
use crate::dominators::{DominatorTree, UNPLACED};
use crate::narrow::{ESCAPE, NarrowSizes, Unit};
use crate::retained::{Visit, WalkEnd, dominated_pass_in};
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
    /// The object's shallow bytes in [`Ranked::unit`]s (the low byte) and its retained bytes
    /// (the high byte), each [`ESCAPE`] where they do not fit ([`Ranked::shallow`],
    /// [`Ranked::retained`]): most objects retain a few hundred bytes, and each byte per object
    /// of a table by rank is fresh memory, which on a machine that hands pages back to its host
    /// costs more than the climbs' rare second read in the tree's own table. One table, as the
    /// pass writes and a climb's step reads both: one stream of writes per group, not two.
    sizes: Table<u16>,
    /// The unit of the sizes by rank: the largest power of two that divides a sample of the
    /// shallow sizes ([`Unit::of_sample`]), 8 bytes in a JVM's heap.
    unit: Unit,
    /// A bit per rank, as [`Dominated::nested`].
    nested: Table<u64>,
}

/// Where the pass down the preorder numbers each group's members: the preorder cut into
/// parts, one per worker, and per part and group the first rank of the part's run.
pub(super) struct Fills {
    parts: Vec<Range<usize>>,
    first: Vec<Vec<u32>>,
}

/// The names [`ByRank`] gives the objects above a part's first object (an earlier part's,
/// whose ranks are not known yet): `ABOVE - i` for the `i`-th, root-most first. No rank is as
/// large: where more than half of `u32` objects are ranked, the preorder is one part.
const ABOVE: u32 = u32::MAX - 1;

/// Parts of the preorder per worker. The pass runs beside the pointer maps, which hold one
/// worker for a second or more: with one part per worker, the other took both parts in turn
/// while the maps' worker then had nothing left to take (a 96 M-object reopening); with four,
/// the last part (0.17 s there) left the other worker waiting.
const WALKS_PER_WORKER: usize = 8;

/// The parts of a preorder of `reached` objects that [`Ranked::with_holders`] walks at once,
/// each `share` long (the last one maybe shorter).
pub(crate) fn walk_parts(reached: usize) -> (usize, Vec<Range<usize>>) {
    match reached > (ABOVE / 2) as usize {
        true => (reached.max(1), std::iter::once(0..reached).collect()),
        false => parts_per_worker(reached, WALKS_PER_WORKER),
    }
}

impl Ranked {
    /// The groups' runs of ranks, counted in one sweep in object order (each object's group,
    /// and its preorder position for the part of the preorder it lies in), and the tables by
    /// rank made; they are filled by [`Ranked::with_holders`].
    /// The sizes' unit is `narrow`'s where the sizes come narrowed already.
    pub fn new(
        g: &HeapGraph,
        tree: &DominatorTree,
        group_count: usize,
        with_pos: bool,
        narrow: Option<&NarrowSizes>,
    ) -> (Ranked, Fills) {
        let pos = &tree.position;
        let (share, walks) = walk_parts(tree.preorder.len());
        let (_, objects) = parts(g.object_count());
        // Per run of objects, the reachable ones of each group in each part of the preorder.
        let counts = objects.par_iter().map(|objects| {
            let mut count = vec![0usize; walks.len() * group_count];
            for o in objects.clone().filter(|&o| pos[o] != UNPLACED) {
                count[pos[o] as usize / share * group_count + g.group[o] as usize] += 1;
            }
            count
        });
        let count = counts.reduce(Vec::new, |a, b| match a.is_empty() {
            true => b,
            false => a.iter().zip(b).map(|(a, b)| a + b).collect(),
        });
        let mut first = vec![vec![0u32; group_count]; walks.len()];
        let mut start = Vec::with_capacity(group_count + 1);
        let mut next = 0;
        for group in 0..group_count {
            start.push(next);
            for (part, first) in first.iter_mut().enumerate() {
                first[group] = next as u32;
                next += count.get(part * group_count + group).copied().unwrap_or(0);
            }
        }
        start.push(next);
        let ranked = Ranked {
            members: Table::filled(next, 0u32),
            holder: Table::default(),
            pos: Table::filled(if with_pos { next } else { 0 }, 0u32),
            sizes: Table::filled(next, 0u16),
            nested: Table::default(),
            unit: narrow.map_or_else(|| Unit::of_sample(&g.shallow), |narrow| narrow.shallow.unit),
            start,
        };
        (ranked, Fills { parts: walks, first })
    }

    /// The tables by rank, the holders and nesting included ([`crate::retained::Visit`]), from
    /// one pass down the preorder, which also gives the groups' dominated sizes. Each part's
    /// walk numbers its members of each group from its first rank on; the holders above its
    /// first object are named for the time being ([`ABOVE`]) and renamed once the part before
    /// has ended with their ranks on its path. The sizes are read from `narrow` where given
    /// (the same unit).
    pub fn with_holders(
        mut self,
        fills: Fills,
        g: &HeapGraph,
        tree: &DominatorTree,
        group_count: usize,
        narrow: Option<&NarrowSizes>,
    ) -> (Ranked, Vec<(u64, u64)>) {
        let count = self.members.len();
        let mut holder = Table::filled(count, 0u32);
        let mut nested = Table::filled(count.div_ceil(64), 0u64);
        let by_rank = ByRank {
            g,
            tree,
            unit: self.unit,
            narrow,
            first: &fills.first,
            holder: Disjoint::new(&mut holder),
            nested: Bits::new(&mut nested),
            members: Disjoint::new(&mut self.members),
            pos: (!self.pos.is_empty()).then(|| Disjoint::new(&mut self.pos)),
            sizes: Disjoint::new(&mut self.sizes),
        };
        let (sizes, ends) = dominated_pass_in(g, tree, group_count, &fills.parts, &by_rank);
        rename_above(&mut holder, &fills, &ends);
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

    /// The most members any of the `group_count` groups has.
    pub fn largest_group(&self, group_count: usize) -> usize {
        (0..group_count).map(|group| self.of(group).len()).max().unwrap_or(0)
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
    /// which are in preorder.
    pub fn rank_of(&self, tree: &DominatorTree, o: u32, group: u32) -> Option<u32> {
        let run = self.of(group as usize);
        let (members, at) = (&self.members[run.clone()], tree.position[o as usize]);
        let i = members.partition_point(|&m| tree.position[m as usize] < at);
        (members.get(i) == Some(&o)).then_some((run.start + i) as u32)
    }

    pub fn shallow(&self, g: &HeapGraph, r: u32) -> u64 {
        match self.sizes[r as usize] as u8 {
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
        match (self.sizes[r as usize] >> 8) as u8 {
            ESCAPE => tree.retained[self.members[r as usize] as usize],
            units => self.unit.bytes(units),
        }
    }

    pub fn is_nested(&self, r: u32) -> bool {
        self.nested[r as usize / 64] >> (r % 64) & 1 != 0
    }
}

/// The holders above each part's first object ([`ABOVE`]) renamed by their ranks: the
/// part before ended with them first on its path, named by rank or, where they were above
/// its own first object too, renamed already. The names are found part after part (the
/// paths are short); the parts' runs of holders are renamed side by side.
fn rename_above(holder: &mut Table<u32>, fills: &Fills, ends: &[WalkEnd<PartWalk>]) {
    // Per part, the ranks of the objects above its first, root-most first.
    let mut aboves: Vec<Vec<u32>> = Vec::with_capacity(ends.len());
    let mut above: Vec<u32> = Vec::new();
    for (walk, path) in ends {
        debug_assert!(walk.above <= above.len(), "the part before ended below them");
        let next = path.iter().map(|&(_, name)| renamed(name, &above, walk.above)).collect();
        aboves.push(std::mem::replace(&mut above, next));
    }
    let holder = Disjoint::new(holder);
    let parts = ends.par_iter().zip(aboves).enumerate().filter(|(_, ((walk, _), _))| walk.above > 0);
    parts.for_each(|(part, ((walk, _), above))| {
        for (&first, &end) in fills.first[part].iter().zip(&walk.next) {
            // SAFETY: a part's run of each group is its own: no other part's lies there.
            for h in unsafe { holder.run(first as usize..end as usize) } {
                *h = renamed(*h, &above, walk.above);
            }
        }
    });
}

/// `name` as a rank: the `i`-th of `above` where it is the `i`-th object above a part's
/// first ([`ABOVE`]) and the part named `count` of them.
fn renamed(name: u32, above: &[u32], count: usize) -> u32 {
    match ABOVE.checked_sub(name) {
        Some(i) if (i as usize) < count => above.get(i as usize).copied().unwrap_or(name),
        _ => name,
    }
}

/// A part's walk in a [`ByRank`] pass: the next rank of each group's run, and how many
/// objects above the part's first it named.
struct PartWalk {
    next: Vec<u32>,
    above: usize,
}

/// The tables by rank, filled by a [`crate::retained::dominated_pass`].
struct ByRank<'a> {
    g: &'a HeapGraph,
    tree: &'a DominatorTree,
    unit: Unit,
    /// The sizes a byte each in `unit`s, where the first import made them.
    narrow: Option<&'a NarrowSizes>,
    first: &'a [Vec<u32>],
    holder: Disjoint<'a, u32>,
    nested: Bits<'a>,
    members: Disjoint<'a, u32>,
    pos: Option<Disjoint<'a, u32>>,
    sizes: Disjoint<'a, u16>,
}

impl Visit for ByRank<'_> {
    type Walk = PartWalk;

    fn walk(&self, part: usize) -> PartWalk {
        PartWalk { next: self.first[part].clone(), above: 0 }
    }

    fn ahead(&self, tree: &DominatorTree, o: usize) {
        match self.narrow {
            Some(narrow) => {
                prefetch(&narrow.shallow.values, o);
                prefetch(&narrow.retained.values, o);
            }
            None => {
                prefetch(&self.g.shallow, o);
                prefetch(&tree.retained, o);
            }
        }
    }

    fn retained(&self, tree: &DominatorTree, o: usize) -> u64 {
        match self.narrow {
            Some(narrow) => narrow.retained.get(o, &tree.retained),
            None => tree.retained[o],
        }
    }

    fn visit(
        &self,
        walk: &mut PartWalk,
        o: usize,
        at: usize,
        group: u32,
        holder: Option<u32>,
        nested: bool,
    ) -> u32 {
        let r = walk.next[group as usize];
        walk.next[group as usize] += 1;
        let r_at = r as usize;
        // SAFETY: each object is visited once, and its rank is in its part's run of its group,
        // which no other part writes.
        unsafe {
            self.holder.set(r_at, holder.unwrap_or(r));
            self.members.set(r_at, o as u32);
            if let Some(pos) = &self.pos {
                pos.set(r_at, at as u32);
            }
            let (shallow, retained) = match self.narrow {
                Some(narrow) => (narrow.shallow.values[o], narrow.retained.values[o]),
                None => (self.unit.narrow(self.g.shallow[o]), self.unit.narrow(self.tree.retained[o])),
            };
            self.sizes.set(r_at, u16::from(retained) << 8 | u16::from(shallow));
        }
        if nested {
            self.nested.set(r_at);
        }
        r
    }

    fn above(&self, walk: &mut PartWalk, _: u32, i: usize) -> u32 {
        walk.above = i + 1;
        ABOVE - i as u32
    }
}
