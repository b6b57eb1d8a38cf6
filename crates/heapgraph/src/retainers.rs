//! Retainer paths: why a group is alive. From the group's objects the path climbs the dominator
//! tree group by group: each object leaves its group at its *exit*, the nearest dominator in
//! another group (dominators in the same group are skipped: a linked list's nodes dominate each
//! other), and the next step is the group whose exits carry most of the group's bytes. The path
//! follows the dominators of these objects, not of the whole group they fall into, so one map
//! among thousands of the same type is found through its own holder.

use rayon::prelude::*;

use std::ops::Range;

use crate::HeapGraph;
use crate::dominators::{DominatorTree, VIRTUAL_ROOT};
use crate::narrow::NarrowSizes;
use crate::radix::sort_by_bits;
use crate::table::{Plain, Table};
use item::Item;
use ranked::Ranked;

mod item;
mod ranked;

/// The preorder positions at which the spending pass's parts start ([`ranked::walk_parts`]):
/// a tree assembled for [`dominated_and_paths_spending`] alone needs the dominators above them
/// only ([`crate::dominators::Dominators::Above`]).
pub(crate) fn spending_part_starts(reached: usize) -> Vec<usize> {
    ranked::walk_parts(reached).1.into_iter().map(|part| part.start).collect()
}

/// The most steps of a path; groups may repeat (String → Person → String), but a path cannot be
/// longer than the dominator tree is deep.
pub const MAX_STEPS: usize = 64;

/// One group on a retainer path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RetainerStep {
    pub group: u32,
    /// The step's objects: all reachable members at step 0, then the distinct exits in `group`.
    pub objects: u64,
    /// Their shallow bytes.
    pub bytes: u64,
    /// The bytes of the union of their dominator subtrees (nothing counted twice).
    pub retained_bytes: u64,
}

/// Why a group is alive.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RetainerPath {
    /// From the group itself (`steps[0]`) up to the root-most holder.
    pub steps: Vec<RetainerStep>,
    /// The objects of the last step that hang directly below the virtual root (the GC roots, or
    /// objects held jointly by several roots), so the caller can name their root kinds. Where a
    /// last-step object is held through others of its group (a list's later nodes through its
    /// head), the top-most of them is listed. Empty only when the path stopped at MAX_STEPS
    /// before reaching them.
    pub rooted: Vec<u32>,
    /// One object per step, each held by the next (asked for with
    /// [`retainer_paths_represented`], else empty): the next step's representative is the exit
    /// of this step's. The last step's is its heaviest object (the most of the group's bytes
    /// lead to it), each lower one the first (in preorder) of those whose exit is the one above.
    pub representatives: Vec<u32>,
}

/// The retainer path of every group with reachable objects (None for the others); every
/// `g.group[o]` must be below `group_count`.
///
/// Cost: O(n + Σ over groups of Σ over their steps of s·log s) for a step of s objects, where a
/// step never has more objects than its group and a path at most MAX_STEPS steps, so at worst
/// O(MAX_STEPS · n log n) and in practice a few times n: the exits (and top-most same-group
/// holders) of all objects are computed once in one preorder pass, and each step only looks at
/// its own objects. A step's objects are kept in rank order ([`ranked`]: group by group, in
/// preorder within a group) and everything it needs about them is read in that order from
/// tables by rank, then sorted locally (by exit, by preorder position): past the budget these
/// tables are mapped files, and a step's reads sweep only its group's run of them instead of
/// faulting a page per object, or sweeping tables of all objects. Memory: 2.5 `u32`s' worth per
/// reachable object (members and holders by rank, and shallow and retained bytes by rank a
/// byte each; one more for the preorder positions by rank with representatives) and, per worker, 8 bytes per object of the largest
/// step it climbs (16 with representatives, or for a group retaining 4 GiB or more: an
/// [`item::Item`]): its objects with their weights, each replaced by its exit in place, which
/// are filtered and become the next step's objects; as many more only where the exits come out
/// of order (their sort's second table), and 16 (32 for narrow entries) where a step's objects
/// nest (its subtrees and their sort's second table).
pub fn retainer_paths(g: &HeapGraph, tree: &DominatorTree, group_count: usize) -> Vec<Option<RetainerPath>> {
    dominated_and_paths(g, tree, group_count, false).1
}

/// [`retainer_paths`] with a representative object per step ([`RetainerPath::representatives`]),
/// for naming the references along the path.
pub fn retainer_paths_represented(
    g: &HeapGraph,
    tree: &DominatorTree,
    group_count: usize,
) -> Vec<Option<RetainerPath>> {
    dominated_and_paths(g, tree, group_count, true).1
}

/// The groups' dominated sizes ([`crate::retained::dominated`]), which are also the paths'
/// first steps' retained bytes, and [`retainer_paths`] (or [`retainer_paths_represented`])
/// beside them. The groups' runs of ranks are counted first, by all workers in object order;
/// then the pass down the preorder that gives the dominated sizes numbers the members and
/// writes every table by rank, the holders included (no table of ranks or holders by object,
/// and no sweep to rank them).
pub fn dominated_and_paths(
    g: &HeapGraph,
    tree: &DominatorTree,
    group_count: usize,
    represent: bool,
) -> (Vec<(u64, u64)>, Vec<Option<RetainerPath>>) {
    let (dominated, paths, ()) = dominated_and_paths_beside(g, tree, None, group_count, represent, || ());
    (dominated, paths)
}

/// [`dominated_and_paths`], with `beside` run beside the pass down the preorder and the
/// climbs (work for a worker whenever one of theirs waits or runs out), and the objects' sizes
/// read a byte each from `narrow` where the first import made them with the tree (dropped once
/// the pass that reads them is done).
pub(crate) fn dominated_and_paths_beside<R: Send>(
    g: &HeapGraph,
    tree: &DominatorTree,
    narrow: Option<NarrowSizes>,
    group_count: usize,
    represent: bool,
    beside: impl FnOnce() -> R + Send,
) -> (Vec<(u64, u64)>, Vec<Option<RetainerPath>>, R) {
    let (ranked, fills) = Ranked::new(g, tree, group_count, represent, narrow.as_ref());
    // The workers' first step tables, made now with the tables by rank rather than when the
    // climbs begin: on a machine that hands freed pages back to its host, a page asked for
    // seconds into a run costs more than one asked for at its start (the freed ones of the run
    // before are still there). Not where the sizes come narrow (the memory is tight): there
    // they wait for the narrow tables' memory, and stay out of work files (the climbs took
    // 2.5 s instead of 1.4-2.2 in a 2 GiB cgroup with both in files).
    let largest = ranked.largest_group(group_count);
    let first_tables = || match represent {
        true => Vec::new(),
        false => first_step_tables(largest, group_count),
    };
    let early = narrow.is_none().then(first_tables);
    let ((dominated, paths), beside) = rayon::join(
        || {
            let (ranked, dominated) = ranked.with_holders(fills, g, tree, group_count, narrow.as_ref());
            drop(narrow);
            let first_tables = early.unwrap_or_else(first_tables);
            let paths = climb_all(&Climb::new(g, tree, &ranked, represent), &dominated, first_tables);
            (dominated, paths)
        },
        beside,
    );
    (dominated, paths, beside)
}

/// [`dominated_and_paths_beside`] with nothing beside and no representatives, for a caller
/// that reads neither the tree's dominators nor its preorder once the pass down the preorder
/// is done (it does not keep the tree, nor name the paths' references), so the tree may have
/// only the dominators above its parts' starts ([`spending_part_starts`]): they go before the
/// climbs' first step tables are made, so that the import's peak does not hold them at once
/// (on a machine whose host takes back the memory its guest frees, each GiB more than the
/// process held before costs seconds).
pub(crate) fn dominated_and_paths_spending(
    g: &HeapGraph,
    tree: &mut DominatorTree,
    narrow: Option<NarrowSizes>,
    group_count: usize,
) -> (Vec<(u64, u64)>, Vec<Option<RetainerPath>>) {
    let (ranked, fills) = Ranked::new(g, tree, group_count, false, narrow.as_ref());
    let (ranked, dominated) = ranked.with_holders(fills, g, tree, group_count, narrow.as_ref());
    drop(narrow);
    (tree.idom, tree.preorder) = (Table::default(), Table::default());
    tree.idom_above = Default::default();
    let first_tables = first_step_tables(ranked.largest_group(group_count), group_count);
    let paths = climb_all(&Climb::new(g, tree, &ranked, false), &dominated, first_tables);
    (dominated, paths)
}

/// A first step table for narrow entries per worker, each `largest` long (the most members a
/// group has).
fn first_step_tables(largest: usize, group_count: usize) -> Vec<Table<u64>> {
    let workers = rayon::current_num_threads().clamp(1, group_count.max(1));
    (0..workers).map(|_| Table::filled(largest, 0u64)).collect()
}

/// Every group's path. Groups are independent: each worker takes the next group, largest
/// first, with tables of its own.
/// `first_tables` are step tables for narrow entries made beforehand, one per worker at most.
fn climb_all(
    climb: &Climb,
    dominated: &[(u64, u64)],
    first_tables: Vec<Table<u64>>,
) -> Vec<Option<RetainerPath>> {
    let (ranked, group_count) = (climb.ranked, dominated.len());
    let members_of = |group: usize| ranked.of(group);
    let mut order: Vec<usize> = (0..group_count).filter(|&group| !members_of(group).is_empty()).collect();
    order.sort_by_key(|&group| std::cmp::Reverse(members_of(group).len()));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = rayon::current_num_threads().clamp(1, order.len().max(1));
    let first_tables = std::sync::Mutex::new(first_tables);
    let found: Vec<Vec<(usize, RetainerPath)>> = (0..workers)
        .into_par_iter()
        .map(|_| {
            let mut narrow: Scratch<u64> = Scratch::new(group_count);
            let made = first_tables.lock().map(|mut made| made.pop()).unwrap_or_default();
            narrow.objects = made.unwrap_or_default();
            let mut wide: Scratch<[u64; 2]> = Scratch::new(group_count);
            let mut found = Vec::new();
            while let Some(&group) = order.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                let (members, first) = (members_of(group), dominated[group].1);
                // The union of the members' subtrees holds the members: a group retaining less
                // than 4 GiB has its weights in 32 bits.
                let path = match climb.represent || first > u64::from(u32::MAX) {
                    true => climb.path(group as u32, members, first, &mut wide),
                    false => climb.path(group as u32, members, first, &mut narrow),
                };
                found.push((group, path));
            }
            found
        })
        .collect();
    let mut paths = vec![None; group_count];
    for (group, path) in found.into_iter().flatten() {
        paths[group] = Some(path);
    }
    paths
}

/// What every path needs about every object, computed once.
/// Steps hold ranks ([`ranked`]), not objects: the rank of an object's holder is its exit, the
/// nearest dominator in another group, or where there is none (the exit is the virtual root),
/// the top-most dominator in its own group (or the object itself), the one hanging below the
/// virtual root. Which of the two it holds is told by its group: one table where an exit and
/// a top would take two ([`Climb::exit`]).
struct Climb<'a> {
    g: &'a HeapGraph,
    tree: &'a DominatorTree,
    ranked: &'a Ranked,
    represent: bool,
    /// Bits of the largest rank (and preorder position): what the sorts sort by.
    bits: u32,
}

/// A worker's step tables, reused from step to step and group to group while they are in
/// memory: they only grow (to the largest step the worker meets), so a large step neither
/// allocates nor zeroes fresh memory. Past the budget they are work files like the per-object
/// tables, made anew for each step ([`prefix`]).
struct Scratch<I: Item> {
    tally: Tally,
    /// The ranks of a step's objects whose exit is the virtual root, where the exits are
    /// compacted as they are found ([`Climb::exit_compacted`]).
    rooted: Vec<u32>,
    /// A step's objects in rank order, as [`Item`]s (the object, the preorder position of the
    /// first object below leading to it where entries are wide, the bytes of the path's group
    /// that lead to it); each becomes its exit in place ([`Climb::exit_in_place`]), and the
    /// exits are filtered and sorted into the next step's objects.
    objects: Table<I>,
    /// What the exits' sort moves them through, or, for wide entries, a step's subtrees (only
    /// where the exits come out of order, or the step's objects nest: a table a step's size is
    /// fresh memory, which costs more than the sweeps that fill it).
    through: Table<I>,
    /// A step's subtrees where entries are narrow, and only for steps whose objects nest.
    spans: Table<[u64; 2]>,
    /// What the sorts of a step's subtrees move them through (only for steps whose objects
    /// nest).
    spare: Table<[u64; 2]>,
}

impl<I: Item> Scratch<I> {
    fn new(group_count: usize) -> Scratch<I> {
        Scratch {
            tally: Tally::new(group_count),
            rooted: Vec::new(),
            objects: Table::default(),
            through: Table::default(),
            spans: Table::default(),
            spare: Table::default(),
        }
    }
}

/// The first `len` values of `table`, which grows (with zeros) when it is shorter. A table in a
/// work file is made anew instead: a fresh file's pages read as zeros with no disk read, while
/// writing over pages the kernel has written out and dropped reads each back first.
fn prefix<T: Plain + Default>(table: &mut Table<T>, len: usize) -> &mut [T] {
    if table.len() < len || table.is_mapped() {
        *table = Table::default();
        *table = Table::filled(len, T::default());
    }
    &mut table[..len]
}

/// Per group of a step's exits: (bytes reaching it, objects of the step leading to it), with
/// the groups touched so that nothing else is cleared between steps.
struct Tally {
    by_group: Vec<(u64, u64)>,
    touched: Vec<u32>,
}

impl Tally {
    fn new(group_count: usize) -> Tally {
        Tally { by_group: vec![(0, 0); group_count], touched: Vec::new() }
    }

    /// `objects` of the step, `weight` bytes, lead to an exit in `group`.
    fn add(&mut self, group: u32, weight: u64, objects: u64) {
        let tally = &mut self.by_group[group as usize];
        if *tally == (0, 0) {
            self.touched.push(group);
        }
        *tally = (tally.0 + weight, tally.1 + objects);
    }

    /// The group receiving the most weight, then the most objects, then the smallest id, if it
    /// beats `root` (what the virtual root receives), with its tally; the tally is left empty.
    fn heaviest(&mut self, root: (u64, u64)) -> Option<(u32, (u64, u64))> {
        let mut best: Option<(u32, (u64, u64))> = None;
        for group in self.touched.drain(..) {
            let tally = std::mem::take(&mut self.by_group[group as usize]);
            let better = best.is_none_or(|(b, t)| tally > t || (tally == t && group < b));
            if better {
                best = Some((group, tally));
            }
        }
        best.filter(|&(_, tally)| tally > root)
    }
}

impl<'a> Climb<'a> {
    fn new(g: &'a HeapGraph, tree: &'a DominatorTree, ranked: &'a Ranked, represent: bool) -> Climb<'a> {
        // Preorder positions are below the number of ranks too.
        let bits = u32::BITS - (ranked.len() as u32).leading_zeros();
        Climb { g, tree, ranked, represent, bits }
    }

    /// The rank of the nearest dominator in another group of rank `r`, a member of `group`, or
    /// VIRTUAL_ROOT. (The caller knows the group: every object of a step is in the step's.)
    fn exit(&self, r: u32, group: u32) -> u32 {
        let h = self.ranked.holder[r as usize];
        match self.ranked.is_in(h, group) {
            true => VIRTUAL_ROOT,
            false => h,
        }
    }

    /// The objects of `group` are the `members` ranks, `retained` the bytes of the union of
    /// their subtrees.
    fn path<I: Item>(
        &self,
        group: u32,
        members: Range<usize>,
        retained: u64,
        scratch: &mut Scratch<I>,
    ) -> RetainerPath {
        let Scratch { tally, rooted, objects, through, spans, spare } = scratch;
        let mut bytes = 0;
        for (item, r) in prefix(objects, members.len()).iter_mut().zip(members.clone()) {
            let weight = self.ranked.shallow(self.g, r as u32);
            bytes += weight;
            *item = I::of(r as u32, weight);
        }
        let mut steps =
            vec![RetainerStep { group, objects: members.len() as u64, bytes, retained_bytes: retained }];
        let mut len = members.len();
        // Per step above the first, each object with its child below, sorted by object.
        let mut children: Vec<Table<[u32; 2]>> = Vec::new();
        // Whether the last step's objects have become their exits.
        let mut exited = false;
        // The group of the last step's objects.
        let mut at = group;
        // The rooted objects of the last step, where its exits were compacted.
        let mut rooted_last = None;
        while steps.len() < MAX_STEPS {
            let (held, root, compacted) = match self.represent {
                // Representatives need the rooted entries among the exits.
                true => {
                    let (held, root) = self.exit_in_place(&mut objects[..len], at, tally);
                    (held, root, None)
                }
                false => {
                    let (held, root, kept, in_order) =
                        self.exit_compacted(&mut objects[..len], at, tally, rooted);
                    (held, root, Some((kept, in_order)))
                }
            };
            exited = true;
            let Some((next, (_, reaching))) = tally.heaviest(root) else {
                rooted_last = compacted.map(|_| &*rooted);
                break;
            };
            // Where every exit is in `next` (a String's byte[] has one kind of holder), only
            // the rooted objects are left out.
            let only_next = reaching == held as u64;
            len = match compacted {
                Some((kept, true)) if only_next => kept,
                Some((kept, _)) => self.next_objects(next, &mut objects[..kept], only_next, through),
                None => self.next_objects(next, &mut objects[..len], only_next, through),
            };
            (exited, at) = (false, next);
            let step_objects = &objects[..len];
            if self.represent {
                // The exit's rank with the object below leading to it.
                let first = |item: &I| [item.object(), self.tree.preorder[item.first() as usize]];
                children.push(step_objects.iter().map(first).collect());
            }
            let spans = I::as_spans(through).unwrap_or(spans);
            steps.push(self.step(next, step_objects, spans, spare));
        }
        let last = &objects[..len];
        let representatives = match self.represent {
            true => representatives(last, exited, &children, self.g, self.tree, self.ranked),
            false => Vec::new(),
        };
        let rooted = match rooted_last {
            Some(ranks) => self.tops(ranks.iter().copied()),
            None => self.rooted(last, at, exited),
        };
        RetainerPath { steps, rooted, representatives }
    }

    /// The step's figures; `objects` in rank order. Where none of
    /// them lies below another of their group, their subtrees are disjoint and their retained
    /// bytes add up; else the union of their subtrees is one sweep in preorder: each object's
    /// position, subtree size and retained bytes are read in object order into `spans` and then
    /// sorted by position (through `spare`), so nested subtrees are skipped.
    fn step<I: Item>(
        &self,
        group: u32,
        objects: &[I],
        spans: &mut Table<[u64; 2]>,
        spare: &mut Table<[u64; 2]>,
    ) -> RetainerStep {
        let (rank, ranked) = (|item: &I| item.object(), self.ranked);
        let mut step = RetainerStep { group, objects: objects.len() as u64, bytes: 0, retained_bytes: 0 };
        // Retained bytes summed as if none nests (most steps), in the same sweep that looks
        // for one that does: the sum is thrown away where one nests.
        let mut nested = false;
        for r in objects.iter().map(rank) {
            nested |= ranked.is_nested(r);
            step.bytes += ranked.shallow(self.g, r);
            step.retained_bytes += ranked.retained(self.tree, r);
        }
        if !nested {
            return step;
        }
        step.retained_bytes = 0;
        let spans = prefix(spans, objects.len());
        for (span, r) in spans.iter_mut().zip(objects.iter().map(rank)) {
            let r = r as usize;
            let subtree = self.tree.subtree[ranked.members[r] as usize];
            *span = [
                u64::from(ranked.pos(self.tree, r as u32)) << 32 | u64::from(subtree),
                ranked.retained(self.tree, r as u32),
            ];
        }
        sort_by_bits(spans, spare, |span| span[0], 32, self.bits);
        let mut end = 0;
        for &[at, retained] in spans.iter() {
            let (pos, subtree) = ((at >> 32) as u32, at as u32);
            if pos >= end {
                step.retained_bytes += retained;
                end = pos + subtree;
            }
        }
        step
    }

    /// Each of `objects` replaced by its exit, in place ([`Item::exited`], with the preorder
    /// position of the object only when representatives are asked), or by [`Item::rooted`]
    /// where the exit is the virtual root; the weights and objects are tallied by the exits' groups. Returns
    /// how many have an exit, and what reaches the virtual root (the path ends there unless a
    /// group receives more).
    fn exit_in_place<I: Item>(
        &self,
        objects: &mut [I],
        group: u32,
        tally: &mut Tally,
    ) -> (usize, (u64, u64)) {
        let mut root = (0, 0);
        let mut held = 0;
        let mut last = group;
        for item in objects.iter_mut() {
            let (r, weight) = (item.object(), item.weight());
            let x = self.exit(r, group);
            if x == VIRTUAL_ROOT {
                root = (root.0 + weight, root.1 + 1);
                *item = I::rooted(r, weight);
                continue;
            }
            last = self.ranked.group_near(x, last);
            tally.add(last, weight, 1);
            let first = if self.represent { self.ranked.pos(self.tree, r) } else { 0 };
            *item = I::exited(x, first, weight);
            held += 1;
        }
        (held, root)
    }

    /// [`Climb::exit_in_place`] and the first sweep of [`Climb::next_objects`] in one: each of
    /// `objects` replaced by its exit, the exits compacted at the start as they come (rooted
    /// objects left out and listed in `rooted` instead, neighbours with one exit merged), so
    /// that a step whose exits all fall in the next group and come in order needs no second
    /// sweep. Returns how many have an exit, what reaches the virtual root, how many exits are
    /// kept, and whether they are in order.
    fn exit_compacted<I: Item>(
        &self,
        objects: &mut [I],
        group: u32,
        tally: &mut Tally,
        rooted: &mut Vec<u32>,
    ) -> (usize, (u64, u64), usize, bool) {
        rooted.clear();
        let (mut root, mut held, mut last) = ((0, 0), 0, group);
        let (mut kept, mut in_order) = (0usize, true);
        for i in 0..objects.len() {
            let (r, weight) = (objects[i].object(), objects[i].weight());
            let x = self.exit(r, group);
            if x == VIRTUAL_ROOT {
                root = (root.0 + weight, root.1 + 1);
                rooted.push(r);
                continue;
            }
            last = self.ranked.group_near(x, last);
            tally.add(last, weight, 1);
            held += 1;
            // `kept <= i`: the places it writes are read already.
            kept = keep_merged(objects, kept, I::exited(x, 0, weight), &mut in_order);
        }
        (held, root, kept, in_order)
    }

    /// The distinct exits in group `next` of `exits` ([`Climb::exit_in_place`]; all that are
    /// not rooted: `only_next`), sorted (moved through `through` where they come out of order),
    /// each with the weight reaching it and the first position leading to it, at the start of
    /// `exits`; returns how many.
    fn next_objects<I: Item>(
        &self,
        next: u32,
        exits: &mut [I],
        only_next: bool,
        through: &mut Table<I>,
    ) -> usize {
        // Neighbouring objects often share their exit (the Strings of one object's fields):
        // such exits are merged as they come, and checked to come in order, so that most steps
        // need neither a sort nor a second sweep.
        let (mut kept, mut in_order) = (0usize, true);
        for i in 0..exits.len() {
            let x = exits[i];
            if x.is_rooted() || !(only_next || self.ranked.is_in(x.object(), next)) {
                continue;
            }
            kept = keep_merged(exits, kept, x, &mut in_order);
        }
        if in_order {
            return kept;
        }
        let exits = &mut exits[..kept];
        sort_by_bits(exits, through, I::word, 32, self.bits);
        let (mut distinct, mut i) = (0, 0);
        while i < exits.len() {
            let mut exit = exits[i];
            let mut j = i + 1;
            while j < exits.len() && exits[j].object() == exit.object() {
                exit = exit.merged(exits[j]);
                j += 1;
            }
            exits[distinct] = exit;
            (distinct, i) = (distinct + 1, j);
        }
        distinct
    }

    /// The top-most same-group holders, directly below the virtual root, of the objects whose
    /// exit is the virtual root (each once, in preorder of the first object leading to it), of
    /// a step's objects, or of what they became (`exited`: [`Climb::exit_in_place`]).
    fn rooted<I: Item>(&self, objects: &[I], group: u32, exited: bool) -> Vec<u32> {
        let rooted = |item: &I| match exited {
            true => item.is_rooted().then(|| item.rooted_object()),
            false => Some(item.object()).filter(|&r| self.exit(r, group) == VIRTUAL_ROOT),
        };
        self.tops(objects.iter().filter_map(rooted))
    }

    /// The top-most same-group holders of the ranks `rooted` (whose exit is the virtual root),
    /// each once, in preorder of the first of them leading to it ([`Climb::rooted`]).
    fn tops(&self, rooted: impl Iterator<Item = u32>) -> Vec<u32> {
        let ranked = self.ranked;
        let mut tops: Vec<[u32; 2]> =
            rooted.map(|r| [ranked.holder[r as usize], ranked.pos(self.tree, r)]).collect();
        tops.sort_unstable();
        tops.dedup_by_key(|&mut [top, _]| top);
        tops.sort_unstable_by_key(|&[_, pos]| pos);
        tops.into_iter().map(|[top, _]| ranked.members[top as usize]).collect()
    }
}

/// `exit` kept after the first `kept` exits of `exits`: merged into the last of them where it
/// is the same object, else put next (noting in `in_order` whether it comes after it); returns
/// how many are kept. Inlined: called once per exit of every step (not inlined, the reopening of
/// the 96 M-object dump took 1.03× the time).
#[inline(always)]
fn keep_merged<I: Item>(exits: &mut [I], kept: usize, exit: I, in_order: &mut bool) -> usize {
    if let Some(last) = kept.checked_sub(1).map(|at| exits[at]) {
        if last.object() == exit.object() {
            exits[kept - 1] = last.merged(exit);
            return kept;
        }
        *in_order &= last.object() < exit.object();
    }
    exits[kept] = exit;
    kept + 1
}

/// The representative of each step, from the last step's objects (wide [`Item`]s,
/// or what they became: `exited`, [`Climb::exit_in_place`] with positions) down through each
/// step's children, step 0 first. Of equally heavy last objects, the first in preorder.
fn representatives<I: Item>(
    last: &[I],
    exited: bool,
    children: &[Table<[u32; 2]>],
    g: &HeapGraph,
    tree: &DominatorTree,
    ranked: &Ranked,
) -> Vec<u32> {
    debug_assert!(I::WIDE, "narrow entries carry no positions");
    let object = |item: &I| match exited {
        true if item.is_rooted() => ranked.members[item.rooted_object() as usize],
        true => tree.preorder[item.first() as usize],
        false => ranked.members[item.object() as usize],
    };
    let pos = &tree.position;
    let heaviest =
        last.iter().max_by_key(|item| (item.weight(), std::cmp::Reverse(pos[object(item) as usize])));
    let Some(top) = heaviest.map(object) else { return Vec::new() };
    let mut chain = vec![top];
    // Each step's children are keyed by the exit's rank, and lead to an object.
    for step in children.iter().rev() {
        let top = *chain.last().expect("the top");
        let Some(at) = ranked.rank_of(tree, top, g.group[top as usize]) else { return Vec::new() };
        match step.binary_search_by_key(&at, |&[x, _]| x) {
            Ok(i) => chain.push(step[i][1]),
            Err(_) => return Vec::new(),
        }
    }
    chain.reverse();
    chain
}

#[cfg(test)]
mod tests;
