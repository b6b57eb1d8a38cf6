//! The two retained sizes of a group. *Dominated* (fast, the default): the objects that some
//! member of the group dominates, i.e. the union of its members' dominator subtrees; objects
//! kept alive by the group together with others are left out. *Closure* (exact, on demand): the
//! objects that become unreachable if the whole group were freed, shared ownership within the
//! group counted. The dominated size never exceeds the closure.

use crate::dominators::{DominatorTree, VIRTUAL_ROOT};
use crate::table::Table;
use crate::{HeapGraph, PREORDER_AHEAD, mark, prefetch};

/// Per group (`g.group[o]` is the group of `o`; groups `0..group_count`): (objects, bytes) of the union
/// of the dominator subtrees of its members — i.e. the sum over members that have NO dominator-tree
/// ancestor in the same group (NOT merely "idom outside the group": A(G)→X(H)→B(G) must not count
/// B twice). Linear time: one pass down the preorder, keeping the open dominator-tree path with
/// a count per group of the objects on it.
pub fn dominated_sizes(g: &HeapGraph, tree: &DominatorTree, group_count: usize) -> Vec<(u64, u64)> {
    dominated(g, tree, group_count).sizes
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
    dominated_pass(g, tree, group_count, None)
}

/// [`dominated`], and each object's holder from the same pass: its nearest dominator in another
/// group, or where there is none (the virtual root), the top-most dominator in its own group
/// (or the object itself), the one hanging below the virtual root. The holders are what the
/// retainer paths climb; the path open above each object has them, so they cost a write each.
pub fn dominated_and_holders(
    g: &HeapGraph,
    tree: &DominatorTree,
    group_count: usize,
) -> (Dominated, Table<u32>) {
    let mut holder = Table::filled(g.object_count(), 0u32);
    let dominated = dominated_pass(g, tree, group_count, Some(&mut holder));
    (dominated, holder)
}

fn dominated_pass(
    g: &HeapGraph,
    tree: &DominatorTree,
    group_count: usize,
    mut holders: Option<&mut [u32]>,
) -> Dominated {
    let mut sizes = vec![(0, 0); group_count];
    let mut nested = Table::filled(g.object_count().div_ceil(64), 0u64);
    let mut open = vec![0u32; group_count];
    // The open path: [object, its group, its holder].
    let mut path: Vec<[u32; 3]> = Vec::new();
    for (p, &o) in tree.preorder.iter().enumerate() {
        // The objects come in preorder, at random in the tables: their reads are started early.
        if let Some(&next) = tree.preorder.get(p + PREORDER_AHEAD) {
            let next = next as usize;
            prefetch(&tree.idom, next);
            prefetch(&g.group, next);
            prefetch(&tree.subtree, next);
            prefetch(&tree.retained, next);
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
        let holder = match path.last() {
            None => o,
            Some(&[_, d_group, d_holder]) if d_group == group => d_holder,
            Some(_) => d,
        };
        let (group, o) = (group as usize, o as usize);
        if let Some(holders) = holders.as_deref_mut() {
            holders[o] = holder;
        }
        if open[group] > 0 {
            nested[o / 64] |= 1 << (o % 64);
        } else {
            sizes[group].0 += u64::from(tree.subtree[o]);
            sizes[group].1 += tree.retained[o];
        }
        open[group] += 1;
        path.push([o as u32, group as u32, holder]);
    }
    Dominated { sizes, nested }
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
