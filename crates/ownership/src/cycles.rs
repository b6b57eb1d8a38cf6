//! Cycles of the class graph (docs/ownership.md, "Cycles"). Its edges are ownership: base
//! node A → B where an object of A is the immediate dominator of an object of B. References
//! that own nothing — to a shared string, to a cache elsewhere, a session's to its manager — are
//! no edges: taken as edges they tie a real heap's framework classes into one cycle of
//! thousands. One reference does count: to an object of the same type and base node that does
//! not dominate the referrer (a linked list's node to the next), a loop. Strongly connected
//! base nodes — a loop included — become one cycle node; since every dominator tree edge is a
//! class graph edge, the ownership tree never meets a class node below itself.

use memcity_heapgraph::{DominatorTree, TypedHeap, VIRTUAL_ROOT};
use rustc_hash::FxHashSet;

/// Base nodes grouped into the class graph's strongly connected components.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Components {
    /// Per base node its component.
    pub of_node: Vec<u32>,
    /// Per component its base nodes, ascending.
    pub members: Vec<Vec<u32>>,
    /// Per component whether it is a cycle: several members, or one holding its own kind.
    pub cycle: Vec<bool>,
}

/// The components of the class graph over `node_count` base nodes, `of_object` placing each
/// reachable object.
pub fn components(
    heap: &TypedHeap,
    tree: &DominatorTree,
    of_object: &[u32],
    node_count: usize,
) -> Components {
    let (edges, looped) = class_edges(heap, tree, of_object, node_count);
    let (of_node, count) = strongly_connected(node_count, &edges);
    let mut members = vec![Vec::new(); count];
    for (node, &c) in of_node.iter().enumerate() {
        members[c as usize].push(node as u32);
    }
    let cycle = members.iter().map(|m| m.len() > 1 || m.iter().any(|&n| looped[n as usize])).collect();
    Components { of_node, members, cycle }
}

/// The class graph's edges between distinct base nodes, as sorted adjacency (`(from, to)`
/// pairs, deduplicated), and per node whether it holds its own kind: an object of its own type
/// (a large string owning its characters, which belong to it, is no cycle).
fn class_edges(
    heap: &TypedHeap,
    tree: &DominatorTree,
    of_object: &[u32],
    node_count: usize,
) -> (Vec<(u32, u32)>, Vec<bool>) {
    let (g, type_of) = (&heap.graph, &heap.objects.type_of);
    let position = &tree.position;
    // `c` dominates `o` when `o` lies in the preorder range of `c`'s dominator subtree.
    let dominates = |c: u32, o: u32| {
        let (pc, po) = (position[c as usize], position[o as usize]);
        po >= pc && po - pc < tree.subtree[c as usize]
    };
    let mut looped = vec![false; node_count];
    let mut seen: FxHashSet<u64> = FxHashSet::default();
    let mut last = u64::MAX;
    let mut edge = |(a, from): (u32, u32), (b, to): (u32, u32), looped: &mut Vec<bool>| {
        if a == b {
            looped[a as usize] |= type_of[from as usize] == type_of[to as usize];
            return;
        }
        let key = (u64::from(a) << 32) | u64::from(b);
        // Neighbouring references mostly repeat one pair: skip the set for those.
        if key != last {
            last = key;
            seen.insert(key);
        }
    };
    for &o in &tree.preorder {
        let a = (of_object[o as usize], o);
        let d = tree.idom[o as usize];
        if d != VIRTUAL_ROOT {
            edge((of_object[d as usize], d), a, &mut looped);
        }
        if looped[a.0 as usize] {
            continue;
        }
        let ty = type_of[o as usize];
        let same = |&c: &u32| of_object[c as usize] == a.0 && type_of[c as usize] == ty && !dominates(c, o);
        if g.referents(o).iter().any(same) {
            looped[a.0 as usize] = true;
        }
    }
    let mut edges: Vec<(u32, u32)> = seen.into_iter().map(|k| ((k >> 32) as u32, k as u32)).collect();
    edges.sort_unstable();
    (edges, looped)
}

/// Tarjan's strongly connected components, iteratively (class graphs of real heaps have long
/// chains). `edges` sorted by source. Returns each node's component and the count; components
/// are numbered in reverse topological order (a component after every one it reaches).
fn strongly_connected(n: usize, edges: &[(u32, u32)]) -> (Vec<u32>, usize) {
    let mut start = vec![0usize; n + 1];
    for &(a, _) in edges {
        start[a as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    const UNSEEN: u32 = u32::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut component = vec![UNSEEN; n];
    let (mut stack, mut calls) = (Vec::new(), Vec::new());
    let (mut next_index, mut count) = (0u32, 0usize);
    for v in 0..n {
        if index[v] != UNSEEN {
            continue;
        }
        // (node, its next edge to look at)
        calls.push((v, start[v]));
        index[v] = next_index;
        low[v] = next_index;
        next_index += 1;
        stack.push(v as u32);
        on_stack[v] = true;
        while let Some(&(u, at)) = calls.last() {
            if at < start[u + 1] {
                let w = edges[at].1 as usize;
                if let Some(call) = calls.last_mut() {
                    call.1 += 1;
                }
                if index[w] == UNSEEN {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w as u32);
                    on_stack[w] = true;
                    calls.push((w, start[w]));
                } else if on_stack[w] {
                    low[u] = low[u].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent] = low[parent].min(low[u]);
            }
            if low[u] == index[u] {
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    component[w as usize] = count as u32;
                    if w as usize == u {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    (component, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tarjan_finds_cycles_and_orders_components() {
        // 0 → 1 → 2 → 1, 2 → 3, 4 alone.
        let edges = [(0, 1), (1, 2), (2, 1), (2, 3)];
        let (c, count) = strongly_connected(5, &edges);
        assert_eq!(count, 4);
        assert_eq!(c[1], c[2]);
        assert!(c[0] != c[1] && c[3] != c[1] && c[4] != c[0]);
        assert!(c[3] < c[1] && c[1] < c[0], "a component comes after those it reaches: {c:?}");
    }

    #[test]
    fn a_long_chain_needs_no_recursion() {
        let n = 200_000u32;
        let mut edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        edges.push((n - 1, 0));
        edges.sort_unstable();
        let (c, count) = strongly_connected(n as usize, &edges);
        assert_eq!(count, 1);
        assert!(c.iter().all(|&x| x == 0));
    }
}
