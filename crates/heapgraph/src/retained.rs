//! The two retained sizes of a group. *Dominated* (fast, the default): the objects that some
//! member of the group dominates, i.e. the union of its members' dominator subtrees; objects
//! kept alive by the group together with others are left out. *Closure* (exact, on demand): the
//! objects that become unreachable if the whole group were freed, shared ownership within the
//! group counted. The dominated size never exceeds the closure.

use crate::dominators::{DominatorTree, VIRTUAL_ROOT};
use crate::{HeapGraph, mark};

/// Per group (`g.group[o]` is the group of `o`; groups `0..group_count`): (objects, bytes) of the union
/// of the dominator subtrees of its members — i.e. the sum over members that have NO dominator-tree
/// ancestor in the same group (NOT merely "idom outside the group": A(G)→X(H)→B(G) must not count
/// B twice). Linear time: one pass down the preorder, keeping the open dominator-tree path with
/// a count per group of the objects on it.
pub fn dominated_sizes(g: &HeapGraph, tree: &DominatorTree, group_count: usize) -> Vec<(u64, u64)> {
    let mut sizes = vec![(0, 0); group_count];
    let mut open = vec![0u32; group_count];
    let mut path: Vec<u32> = Vec::new();
    for &o in &tree.preorder {
        let d = tree.idom[o as usize];
        // Leave the subtrees that end before `o`: its dominator is the top of the path then.
        while let Some(&top) = path.last() {
            if top == d {
                break;
            }
            open[g.group[top as usize] as usize] -= 1;
            path.pop();
        }
        debug_assert!(d == VIRTUAL_ROOT || path.last() == Some(&d));
        let group = g.group[o as usize] as usize;
        if open[group] == 0 {
            sizes[group].0 += u64::from(tree.subtree[o as usize]);
            sizes[group].1 += tree.retained[o as usize];
        }
        open[group] += 1;
        path.push(o);
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
