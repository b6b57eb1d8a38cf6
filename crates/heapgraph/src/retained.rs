//! TEMPORARY (lead's scaffold, replaced by the dom12 branch).

use crate::HeapGraph;
use crate::dominators::{DominatorTree, VIRTUAL_ROOT};

pub fn dominated_sizes(g: &HeapGraph, tree: &DominatorTree, group_count: usize) -> Vec<(u64, u64)> {
    let mut out = vec![(0u64, 0u64); group_count];
    let mut count = vec![0u64; g.object_count()];
    for &x in tree.preorder.iter().rev() {
        count[x as usize] += 1;
        let d = tree.idom[x as usize];
        if d != VIRTUAL_ROOT {
            count[d as usize] += count[x as usize];
        }
    }
    for &x in &tree.preorder {
        let grp = g.group[x as usize];
        let mut d = tree.idom[x as usize];
        let mut covered = false;
        while d != VIRTUAL_ROOT {
            if g.group[d as usize] == grp {
                covered = true;
                break;
            }
            d = tree.idom[d as usize];
        }
        if !covered {
            out[grp as usize].0 += count[x as usize];
            out[grp as usize].1 += tree.retained[x as usize];
        }
    }
    out
}

pub fn closure_size(g: &HeapGraph, live: &[bool], group: u32) -> (u64, u64) {
    let mut marked = vec![false; g.object_count()];
    let mut stack: Vec<u32> = Vec::new();
    for &r in &g.roots {
        if live[r as usize] && g.group[r as usize] != group && !marked[r as usize] {
            marked[r as usize] = true;
            stack.push(r);
        }
    }
    while let Some(o) = stack.pop() {
        for &t in g.referents(o) {
            if live[t as usize] && g.group[t as usize] != group && !marked[t as usize] {
                marked[t as usize] = true;
                stack.push(t);
            }
        }
    }
    let mut out = (0, 0);
    for o in 0..g.object_count() {
        if live[o] && !marked[o] {
            out.0 += 1;
            out.1 += g.shallow[o];
        }
    }
    out
}
