//! The two retained sizes of a group. *Dominated* (fast, the default): the objects that some
//! member of the group dominates, i.e. the union of its members' dominator subtrees; objects
//! kept alive by the group together with others are left out. *Closure* (exact, on demand): the
//! objects that become unreachable if the whole group were freed, shared ownership within the
//! group counted. The dominated size never exceeds the closure.

use crate::dominators::{DominatorTree, VIRTUAL_ROOT};
use std::ops::Range;

use crate::disjoint::{Bits, parts};
use crate::table::Table;
use crate::{HeapGraph, PREORDER_AHEAD, mark, prefetch};

/// Per group (`g.group[o]` is the group of `o`; groups `0..group_count`): (objects, bytes) of the union
/// of the dominator subtrees of its members — i.e. the sum over members that have NO dominator-tree
/// ancestor in the same group (NOT merely "idom outside the group": A(G)→X(H)→B(G) must not count
/// B twice). Linear time: one pass down the preorder, keeping the open dominator-tree path with
/// a count per group of the objects on it.
pub fn dominated_sizes(g: &HeapGraph, tree: &DominatorTree, group_count: usize) -> Vec<(u64, u64)> {
    dominated_pass(g, tree, group_count, &Unseen)
}

/// The groups' dominated sizes, and which objects they leave out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dominated {
    /// Per group, as [`dominated_sizes`].
    pub sizes: Vec<(u64, u64)>,
    /// A bit per object (`o % 64` of word `o / 64`), set where a dominator of the object is in
    /// its group: the object's subtree lies inside that member's. Where no object of a set in one
    /// group has it, their subtrees are disjoint.
    pub nested: Table<u64>,
}

impl Dominated {
    pub fn is_nested(&self, o: u32) -> bool {
        self.nested[o as usize / 64] >> (o % 64) & 1 != 0
    }
}

/// [`dominated_sizes`] and the nested objects, in one pass down the preorder that keeps the
/// open dominator-tree path with a count per group of the objects on it: an object is nested
/// where its group's count is not 0.
pub fn dominated(g: &HeapGraph, tree: &DominatorTree, group_count: usize) -> Dominated {
    let mut nested = Table::filled(g.object_count().div_ceil(64), 0u64);
    let sizes = dominated_pass(g, tree, group_count, &NestedByObject(Bits::new(&mut nested)));
    Dominated { sizes, nested }
}

/// What a [`dominated_pass`] hands on about each object besides the groups' sizes: its
/// *holder*, the nearest dominator in another group, or where there is none (the virtual
/// root), the top-most dominator in its own group (or the object itself), the one hanging
/// below the virtual root; and whether it is nested (a dominator of it is in its group). The
/// holders are what the retainer paths climb; the path open above each object has them, so
/// they cost a write each. Objects are told by *name*: what [`Visit::visit`] returns for each
/// (its rank, for the retainer paths), kept on the open path for the objects it holds.
/// Told from several workers at once, each object once, each part of the preorder in order by
/// one worker with a [`Visit::Walk`] of its own.
pub trait Visit: Sync {
    /// What one worker keeps while it walks one part of the preorder.
    type Walk: Send;
    /// The walk of the preorder's `part`-th part.
    fn walk(&self, part: usize) -> Self::Walk;
    /// `o` comes a few objects later: the entries its visit reads (and its retained bytes)
    /// may be asked for now.
    fn ahead(&self, tree: &DominatorTree, o: usize) {
        prefetch(&tree.retained, o);
    }
    /// The retained bytes of object `o` (the tree's, unless the visit has them nearer).
    fn retained(&self, tree: &DominatorTree, o: usize) -> u64 {
        tree.retained[o]
    }
    /// Object `o` of `group`, at preorder position `at`, held by the object named `holder`
    /// (None: by itself); returns its name.
    fn visit(
        &self,
        walk: &mut Self::Walk,
        o: usize,
        at: usize,
        group: u32,
        holder: Option<u32>,
        nested: bool,
    ) -> u32;
    /// The name of object `o`, above the part's first object: an earlier part's, so not yet
    /// known where parts are walked at once. The `i`-th above, root-most first.
    fn above(&self, _walk: &mut Self::Walk, o: u32, _i: usize) -> u32 {
        o
    }
}

/// A pass whose holders and nesting nobody asks for.
struct Unseen;

impl Visit for Unseen {
    type Walk = ();
    fn walk(&self, _: usize) {}
    fn visit(&self, _: &mut (), o: usize, _: usize, _: u32, _: Option<u32>, _: bool) -> u32 {
        o as u32
    }
}

/// The nested objects, a bit per object ([`Dominated::nested`]).
struct NestedByObject<'a>(Bits<'a>);

impl Visit for NestedByObject<'_> {
    type Walk = ();
    fn walk(&self, _: usize) {}
    fn visit(&self, _: &mut (), o: usize, _: usize, _: u32, _: Option<u32>, nested: bool) -> u32 {
        if nested {
            self.0.set(o);
        }
        o as u32
    }
}

/// The groups' dominated sizes, each object told to `visit`. The preorder is cut into one
/// part per worker ([`parts`]), walked at once: a part starts with the path open above its
/// first object, rebuilt from the dominators, so the walks see what one walk down the whole
/// preorder would (the walk waits on reads at random, which two workers overlap).
pub fn dominated_pass(
    g: &HeapGraph,
    tree: &DominatorTree,
    group_count: usize,
    visit: &impl Visit,
) -> Vec<(u64, u64)> {
    let (_, parts) = parts(tree.preorder.len());
    dominated_pass_in(g, tree, group_count, &parts, visit).0
}

/// A part's walk when it ends: its [`Visit::Walk`], and the path open after its last object,
/// root-most first, as (object, name): the path above the next part's first object begins
/// with it.
pub type WalkEnd<W> = (W, Vec<(u32, u32)>);

/// Per group, (objects, bytes) dominated: the groups' sizes, or one part's share of them.
pub type Sizes = Vec<(u64, u64)>;

/// [`dominated_pass`] over the preorder cut into `parts` (runs of positions, in order,
/// covering it), with each part's walk as it ends.
pub fn dominated_pass_in<V: Visit>(
    g: &HeapGraph,
    tree: &DominatorTree,
    group_count: usize,
    parts: &[Range<usize>],
    visit: &V,
) -> (Sizes, Vec<WalkEnd<V::Walk>>) {
    use rayon::prelude::*;
    let walks: Vec<(Sizes, WalkEnd<V::Walk>)> = parts
        .par_iter()
        .enumerate()
        .map(|(part, positions)| dominated_part(g, tree, group_count, part, positions.clone(), visit))
        .collect();
    let mut sum = vec![(0, 0); group_count];
    let mut ends = Vec::with_capacity(walks.len());
    for (sizes, end) in walks {
        for (total, (objects, bytes)) in sum.iter_mut().zip(sizes) {
            *total = (total.0 + objects, total.1 + bytes);
        }
        ends.push(end);
    }
    (sum, ends)
}

/// One part of a [`dominated_pass`]: the objects at `positions` of the preorder.
fn dominated_part<V: Visit>(
    g: &HeapGraph,
    tree: &DominatorTree,
    group_count: usize,
    part: usize,
    positions: Range<usize>,
    visit: &V,
) -> (Sizes, WalkEnd<V::Walk>) {
    let mut walk = visit.walk(part);
    let mut sizes = vec![(0, 0); group_count];
    let mut open = vec![0u32; group_count];
    // The open path: [object, its group, its holder's name, its name, the position its
    // subtree ends at]. The ends tell when a subtree is left, so no object's dominator is read.
    let mut path: Vec<[u32; 5]> = Vec::new();
    let holder_of = |path: &[[u32; 5]], group: u32| match path.last() {
        None => None,
        Some(&[_, d_group, d_holder, _, _]) if d_group == group => Some(d_holder),
        Some(&[_, _, _, d_name, _]) => Some(d_name),
    };
    let end_of = |o: u32, at: usize| (at + tree.subtree[o as usize] as usize) as u32;
    // The path above the part's first object, root-most first, as the walk before left it.
    if let Some(&first) = tree.preorder.get(positions.start).filter(|_| positions.start > 0) {
        let mut above = Vec::new();
        let mut d = tree.dominator(first);
        while d != VIRTUAL_ROOT {
            above.push(d);
            d = tree.dominator(d);
        }
        for (i, &a) in above.iter().rev().enumerate() {
            let group = g.group[a as usize];
            let name = visit.above(&mut walk, a, i);
            let holder = holder_of(&path, group).unwrap_or(name);
            open[group as usize] += 1;
            path.push([a, group, holder, name, end_of(a, tree.position[a as usize] as usize)]);
        }
    }
    for p in positions.clone() {
        let o = tree.preorder[p];
        // The objects come in preorder, at random in the tables: their reads are started early.
        if let Some(&next) = tree.preorder.get(p + PREORDER_AHEAD) {
            let next = next as usize;
            prefetch(g.group.keys(), next);
            prefetch(&tree.subtree, next);
            visit.ahead(tree, next);
        }
        // Leave the subtrees that end before `o`: its dominator is the top of the path then.
        while let Some(&[_, top_group, _, _, end]) = path.last() {
            if end as usize > p {
                break;
            }
            open[top_group as usize] -= 1;
            path.pop();
        }
        debug_assert!(tree.idom.get(o as usize).is_none_or(|&d| {
            d == VIRTUAL_ROOT && path.is_empty() || path.last().map(|&[top, ..]| top) == Some(d)
        }));
        let group = g.group[o as usize];
        let holder = holder_of(&path, group);
        let nested = open[group as usize] > 0;
        let name = visit.visit(&mut walk, o as usize, p, group, holder, nested);
        if !nested {
            sizes[group as usize].0 += u64::from(tree.subtree[o as usize]);
            sizes[group as usize].1 += visit.retained(tree, o as usize);
        }
        open[group as usize] += 1;
        path.push([o, group, holder.unwrap_or(name), name, end_of(o, p)]);
    }
    let end = path.iter().map(|&[o, _, _, name, _]| (o, name)).collect();
    (sizes, (walk, end))
}

/// The exact GC closure of one group: (objects, bytes) of live objects unreachable if every
/// object of `group` were freed. One marking pass.
pub fn closure_size(g: &HeapGraph, live: &[bool], group: u32) -> (u64, u64) {
    let without = mark(g, |o| live[o as usize] && g.group[o as usize] != group);
    let mut size = (0, 0);
    for o in 0..g.object_count() {
        if live[o] && !without[o] {
            size.0 += 1;
            size.1 += g.shallow[o];
        }
    }
    size
}

#[cfg(test)]
mod tests;
