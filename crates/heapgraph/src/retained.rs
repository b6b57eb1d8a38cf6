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
/// they cost a write each. Told from several workers at once, each object once.
pub trait Visit: Sync {
    /// `o` comes a few objects later: the entries its visit reads may be asked for now.
    fn ahead(&self, _o: usize) {}
    fn visit(&self, o: usize, holder: u32, nested: bool);
}

/// A pass whose holders and nesting nobody asks for.
struct Unseen;

impl Visit for Unseen {
    fn visit(&self, _: usize, _: u32, _: bool) {}
}

/// The nested objects, a bit per object ([`Dominated::nested`]).
struct NestedByObject<'a>(Bits<'a>);

impl Visit for NestedByObject<'_> {
    fn visit(&self, o: usize, _: u32, nested: bool) {
        if nested {
            self.0.set(o);
        }
    }
}

/// The groups' dominated sizes, each object told to `visit`. The preorder is cut into one
/// part per worker, walked at once: a part starts with the path open above its first object,
/// rebuilt from the dominators, so the walks see what one walk down the whole preorder would
/// (the walk waits on reads at random, which two workers overlap).
pub fn dominated_pass(
    g: &HeapGraph,
    tree: &DominatorTree,
    group_count: usize,
    visit: &impl Visit,
) -> Vec<(u64, u64)> {
    use rayon::prelude::*;
    let (_, parts) = parts(tree.preorder.len());
    let sizes = parts.into_par_iter().map(|positions| dominated_part(g, tree, group_count, positions, visit));
    sizes.reduce(
        || vec![(0, 0); group_count],
        |mut sum, part| {
            for (total, (objects, bytes)) in sum.iter_mut().zip(part) {
                *total = (total.0 + objects, total.1 + bytes);
            }
            sum
        },
    )
}

/// One part of a [`dominated_pass`]: the objects at `positions` of the preorder.
fn dominated_part(
    g: &HeapGraph,
    tree: &DominatorTree,
    group_count: usize,
    positions: Range<usize>,
    visit: &impl Visit,
) -> Vec<(u64, u64)> {
    let mut sizes = vec![(0, 0); group_count];
    let mut open = vec![0u32; group_count];
    // The open path: [object, its group, its holder].
    let mut path: Vec<[u32; 3]> = Vec::new();
    let holder_of = |path: &[[u32; 3]], o: u32, group: u32| match path.last() {
        None => o,
        Some(&[_, d_group, d_holder]) if d_group == group => d_holder,
        Some(&[d, ..]) => d,
    };
    // The path above the part's first object, root-most first, as the walk before left it.
    if let Some(&first) = tree.preorder.get(positions.start).filter(|_| positions.start > 0) {
        let mut above = Vec::new();
        let mut d = tree.idom[first as usize];
        while d != VIRTUAL_ROOT {
            above.push(d);
            d = tree.idom[d as usize];
        }
        for &a in above.iter().rev() {
            let group = g.group[a as usize];
            let holder = holder_of(&path, a, group);
            open[group as usize] += 1;
            path.push([a, group, holder]);
        }
    }
    for p in positions.clone() {
        let o = tree.preorder[p];
        // The objects come in preorder, at random in the tables: their reads are started early.
        if let Some(&next) = tree.preorder.get(p + PREORDER_AHEAD) {
            let next = next as usize;
            prefetch(&tree.idom, next);
            prefetch(g.group.keys(), next);
            prefetch(&tree.subtree, next);
            prefetch(&tree.retained, next);
            visit.ahead(next);
        }
        let d = tree.idom[o as usize];
        // Leave the subtrees that end before `o`: its dominator is the top of the path then.
        while let Some(&[top, top_group, _]) = path.last() {
            if top == d {
                break;
            }
            open[top_group as usize] -= 1;
            path.pop();
        }
        debug_assert!(d == VIRTUAL_ROOT || path.last().map(|&[top, ..]| top) == Some(d));
        let group = g.group[o as usize];
        let holder = holder_of(&path, o, group);
        let nested = open[group as usize] > 0;
        visit.visit(o as usize, holder, nested);
        if !nested {
            sizes[group as usize].0 += u64::from(tree.subtree[o as usize]);
            sizes[group as usize].1 += tree.retained[o as usize];
        }
        open[group as usize] += 1;
        path.push([o, group, holder]);
    }
    sizes
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
