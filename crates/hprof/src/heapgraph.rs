//! TEMPORARY stand-in for `memcity-heapgraph` (same API) until that shared crate lands on this
//! branch; then this module is deleted and the crate used instead.

use std::collections::BTreeMap;

/// Nodes with a group and shallow size, edges in compressed rows, GC roots.
#[derive(Debug, Clone, Default)]
pub struct HeapGraph {
    pub group: Vec<u32>,
    pub shallow: Vec<u64>,
    /// `edges[edge_start[n]..edge_start[n + 1]]` are the nodes `n` references.
    pub edge_start: Vec<usize>,
    pub edges: Vec<u32>,
    pub roots: Vec<u32>,
}

impl HeapGraph {
    fn targets(&self, node: usize) -> &[u32] {
        &self.edges[self.edge_start[node]..self.edge_start[node + 1]]
    }
}

/// Nodes reachable from the roots.
pub fn reachable(g: &HeapGraph) -> Vec<bool> {
    mark(g, |_| true)
}

/// Marks from the roots, never entering nodes `enter` rejects.
fn mark(g: &HeapGraph, enter: impl Fn(usize) -> bool) -> Vec<bool> {
    let mut seen = vec![false; g.group.len()];
    let mut stack: Vec<u32> = Vec::new();
    for &root in &g.roots {
        if enter(root as usize) && !seen[root as usize] {
            seen[root as usize] = true;
            stack.push(root);
        }
    }
    while let Some(node) = stack.pop() {
        for &t in g.targets(node as usize) {
            if !seen[t as usize] && enter(t as usize) {
                seen[t as usize] = true;
                stack.push(t);
            }
        }
    }
    seen
}

/// Pointer maps between groups, indexed by group.
#[derive(Debug, Clone, Default)]
pub struct PointerMaps {
    /// `points_to[a][b]`: distinct objects of `b` referenced by objects of `a`.
    pub points_to: Vec<BTreeMap<u32, u64>>,
    /// `pointed_from[b][a]`: distinct objects of `a` that reference objects of `b`.
    pub pointed_from: Vec<BTreeMap<u32, u64>>,
}

pub fn pointer_maps(g: &HeapGraph, group_count: usize, live: &[bool]) -> PointerMaps {
    let mut maps = PointerMaps {
        points_to: vec![BTreeMap::new(); group_count],
        pointed_from: vec![BTreeMap::new(); group_count],
    };
    let n = g.group.len();
    let mut referrer_groups: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut target_groups = Vec::new();
    for s in (0..n).filter(|&s| live[s]) {
        target_groups.clear();
        for &t in g.targets(s).iter().filter(|&&t| live[t as usize]) {
            target_groups.push(g.group[t as usize]);
            referrer_groups[t as usize].push(g.group[s]);
        }
        target_groups.sort_unstable();
        target_groups.dedup();
        for &b in &target_groups {
            *maps.pointed_from[b as usize].entry(g.group[s]).or_default() += 1;
        }
    }
    for (t, mut groups) in referrer_groups.into_iter().enumerate() {
        groups.sort_unstable();
        groups.dedup();
        for a in groups {
            *maps.points_to[a as usize].entry(g.group[t]).or_default() += 1;
        }
    }
    maps
}

/// Per group: (its live shallow bytes, its retained bytes = live bytes that become unreachable
/// if the whole group were freed, the group included).
pub fn retained_sizes(g: &HeapGraph, group_count: usize, live: &[bool]) -> Vec<(u64, u64)> {
    let live_total: u64 = (0..g.group.len()).filter(|&i| live[i]).map(|i| g.shallow[i]).sum();
    (0..group_count as u32)
        .map(|group| {
            let kept = mark(g, |i| live[i] && g.group[i] != group);
            let shallow =
                (0..g.group.len()).filter(|&i| live[i] && g.group[i] == group).map(|i| g.shallow[i]).sum();
            let still: u64 = (0..g.group.len()).filter(|&i| kept[i]).map(|i| g.shallow[i]).sum();
            (shallow, live_total - still)
        })
        .collect()
}
