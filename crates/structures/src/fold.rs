//! One leak, one finding (docs/ci.md, "One leak, one finding"): the groups whose growth a
//! growing structure holds are its detail, not findings of their own. A group's retained
//! growth (the bytes its objects dominate) is set against the part of it that lies inside the
//! structure's retained set; where that part is most of it, the structure is what grows.

use memcity_heapgraph::{DominatorTree, HeapGraph, UNPLACED, VIRTUAL_ROOT, dominated_sizes};

/// The share of a group's growth (in percent) a structure must retain to fold it.
pub const FOLD_PERCENT: i64 = 80;

/// Per group (`g.group[o]`, groups `0..group_count`): the bytes its objects dominate (as
/// [`dominated_sizes`] counts them) and, of those, the bytes inside the dominator subtree of
/// `head` (what freeing the structure would free). One pass down the dominator tree's preorder,
/// keeping the groups open on the path: an object inside the subtree counts for every group
/// that dominates it, above the head (the class whose static holds the map) or below it (the
/// map's keys).
pub fn dominated_inside(
    g: &HeapGraph,
    tree: &DominatorTree,
    group_count: usize,
    head: u32,
) -> Vec<(u64, u64)> {
    let total = dominated_sizes(g, tree, group_count);
    let mut inside = vec![0u64; group_count];
    let positions = &tree.position;
    let Some(&start) = positions.get(head as usize).filter(|&&p| p != UNPLACED) else {
        return total.into_iter().map(|(_, bytes)| (bytes, 0)).collect();
    };
    let end = start as usize + tree.subtree[head as usize] as usize;
    let mut open = vec![0u32; group_count];
    // The groups with an object on the path, each once.
    let mut open_groups: Vec<u32> = Vec::new();
    let mut path: Vec<u32> = Vec::new();
    for (p, &o) in tree.preorder.iter().enumerate().take(end) {
        let d = tree.idom[o as usize];
        while let Some(&top) = path.last() {
            if top == d {
                break;
            }
            let group = g.group[top as usize] as usize;
            open[group] -= 1;
            if open[group] == 0 {
                open_groups.retain(|&x| x as usize != group);
            }
            path.pop();
        }
        debug_assert!(d == VIRTUAL_ROOT || path.last() == Some(&d));
        let group = g.group[o as usize];
        if open[group as usize] == 0 {
            open_groups.push(group);
        }
        open[group as usize] += 1;
        path.push(o);
        if p >= start as usize {
            for &k in &open_groups {
                inside[k as usize] += g.shallow[o as usize];
            }
        }
    }
    total.into_iter().zip(inside).map(|((_, bytes), inside)| (bytes, inside)).collect()
}

/// Whether a structure retains enough of a group's growth to fold it: the group grew (its
/// dominated bytes from `start` to `end`, each `(total, inside)`), and at least
/// [`FOLD_PERCENT`] of that growth happened inside the structure.
pub fn folds(start: (u64, u64), end: (u64, u64)) -> bool {
    let grew = end.0 as i64 - start.0 as i64;
    let inside = end.1 as i64 - start.1 as i64;
    grew > 0 && inside * 100 >= grew * FOLD_PERCENT
}

#[cfg(test)]
mod tests {
    use super::*;
    use memcity_heapgraph::dominators;

    /// 0 Class (group 1) → 1 service (2) → 2 map (3) → keys 3, 4, … (4); 5 an unrelated list
    /// (3) held by the class too.
    fn heap(keys: usize) -> HeapGraph {
        let mut edges = vec![vec![1, 5], vec![2], Vec::new(), Vec::new(), Vec::new(), Vec::new()];
        let mut group = vec![1, 2, 3, 4, 4, 3];
        let mut shallow = vec![100, 16, 48, 24, 24, 40];
        edges[2] = vec![3, 4];
        for _ in 0..keys {
            let k = group.len() as u32;
            edges[2].push(k);
            edges.push(Vec::new());
            group.push(4);
            shallow.push(24);
        }
        let mut edge_start = vec![0];
        let mut flat = Vec::new();
        for e in &edges {
            flat.extend(e);
            edge_start.push(flat.len() as u32);
        }
        HeapGraph {
            group: group.into(),
            shallow: shallow.into(),
            edge_start: edge_start.into(),
            edges: flat.into(),
            roots: vec![0],
        }
    }

    #[test]
    fn the_class_above_and_the_keys_below_fold_into_the_map() {
        let (before, after) = (heap(0), heap(10));
        let at = |g: &HeapGraph| dominated_inside(g, &dominators(g), 5, 2);
        let (a, b) = (at(&before), at(&after));
        // The keys (group 4): all their bytes inside the map.
        assert_eq!(b[4], (12 * 24, 12 * 24));
        assert!(folds(a[4], b[4]));
        // The class (group 1) dominates everything; its growth is the map's.
        assert_eq!(b[1].0, 100 + 16 + 48 + 24 + 24 + 40 + 240);
        assert_eq!(b[1].1 - a[1].1, 240);
        assert!(folds(a[1], b[1]));
        // A group that did not grow, or grew outside the map, does not fold.
        assert!(!folds(a[2], a[2]));
        assert!(!folds((100, 0), (200, 50)), "half of the growth outside");
        assert!(folds((100, 0), (200, 80)), "80 % inside");
        // A head not in the tree folds nothing.
        assert!(
            dominated_inside(&before, &dominators(&before), 5, 99).iter().all(|&(_, inside)| inside == 0)
        );
    }
}
