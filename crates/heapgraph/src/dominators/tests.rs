//! Dominators against a removal oracle on seeded random graphs, and on deep heaps. The helpers
//! here (generator, graph builder, oracle) are shared with the retained-size and retainer tests.

use super::*;

/// xorshift64*: a tiny seeded generator so the random graphs are the same on every run.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) % n
    }
}

/// A heap graph from `(source, target)` references (kept in the order given per source).
pub(crate) fn graph(group: Vec<u32>, shallow: Vec<u64>, refs: &[(u32, u32)], roots: Vec<u32>) -> HeapGraph {
    let n = group.len();
    let mut edge_start = vec![0u32; n + 1];
    for &(s, _) in refs {
        edge_start[s as usize + 1] += 1;
    }
    for i in 0..n {
        edge_start[i + 1] += edge_start[i];
    }
    let mut fill = edge_start.clone();
    let mut edges = vec![0; refs.len()];
    for &(s, t) in refs {
        edges[fill[s as usize] as usize] = t;
        fill[s as usize] += 1;
    }
    HeapGraph {
        group: group.into(),
        shallow: shallow.into(),
        edge_start: edge_start.into(),
        edges: edges.into(),
        roots,
    }
}

/// A random graph with cycles, self-loops, duplicate roots and (usually) unreachable objects.
pub(crate) fn random_graph(rng: &mut Rng, n: usize, groups: u32) -> HeapGraph {
    let mut refs = Vec::new();
    let density = 1 + rng.below(3);
    for s in 0..n as u32 {
        for _ in 0..rng.below(density + 1) {
            // Mostly forward references, so the graphs are deep and not one big cycle.
            let t = if rng.below(4) == 0 { rng.below(n as u64) as u32 } else { s + 1 + rng.below(3) as u32 };
            refs.push((s, t.min(n as u32 - 1)));
        }
        if rng.below(10) == 0 {
            refs.push((s, s));
        }
    }
    let mut roots: Vec<u32> = (0..1 + rng.below(3)).map(|_| rng.below(n as u64) as u32).collect();
    if rng.below(3) == 0 {
        roots.push(roots[0]);
    }
    let group = (0..n).map(|_| rng.below(groups as u64) as u32).collect();
    let shallow = (0..n).map(|_| 1 + rng.below(100)).collect();
    graph(group, shallow, &refs, roots)
}

pub(crate) fn random_graphs() -> impl Iterator<Item = HeapGraph> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    (0..400).map(move |i| random_graph(&mut rng, 1 + i % 40, 1 + i as u32 % 5))
}

/// What is reachable from the roots when `removed` is gone (a plain worklist, no dominators).
fn reachable_without(g: &HeapGraph, removed: Option<u32>) -> Vec<bool> {
    let mut seen = vec![false; g.object_count()];
    let mut work: Vec<u32> = g.roots.iter().copied().filter(|&r| Some(r) != removed).collect();
    while let Some(o) = work.pop() {
        if !std::mem::replace(&mut seen[o as usize], true) {
            work.extend(g.referents(o).iter().filter(|&&t| Some(t) != removed));
        }
    }
    seen
}

/// `dominates[d][v]`: `d != v` and `v` is reachable, but not once `d` is removed.
pub(crate) fn oracle_dominates(g: &HeapGraph) -> Vec<Vec<bool>> {
    let live = reachable_without(g, None);
    (0..g.object_count() as u32)
        .map(|d| {
            let without = reachable_without(g, Some(d));
            (0..g.object_count()).map(|v| v != d as usize && live[v] && !without[v]).collect()
        })
        .collect()
}

/// The immediate dominator by the oracle: of the strict dominators (a chain), the deepest.
fn oracle_idom(g: &HeapGraph, dominates: &[Vec<bool>]) -> Vec<u32> {
    let live = reachable_without(g, None);
    let n = g.object_count();
    let depth = |d: usize| (0..n).filter(|&e| dominates[e][d]).count();
    (0..n)
        .map(|v| match (0..n).filter(|&d| dominates[d][v]).max_by_key(|&d| depth(d)) {
            _ if !live[v] => UNREACHABLE,
            Some(d) => d as u32,
            None => VIRTUAL_ROOT,
        })
        .collect()
}

#[test]
fn idom_matches_removal_oracle_on_random_graphs() {
    for g in random_graphs() {
        let dominates = oracle_dominates(&g);
        assert_eq!(dominators(&g).idom, oracle_idom(&g, &dominates), "{g:?}");
    }
}

#[test]
fn retained_is_the_shallow_size_of_the_dominated_objects() {
    for g in random_graphs() {
        let dominates = oracle_dominates(&g);
        let tree = dominators(&g);
        for (v, dominated) in dominates.iter().enumerate() {
            let expected: u64 = if tree.idom[v] == UNREACHABLE {
                0
            } else {
                g.shallow[v]
                    + (0..g.object_count()).filter(|&u| dominated[u]).map(|u| g.shallow[u]).sum::<u64>()
            };
            assert_eq!(tree.retained[v], expected, "object {v} of {g:?}");
        }
    }
}

/// The tree assembled from narrow shallow sizes, writing the retained sizes a byte each too
/// (as the first import does), is the tree from the full sizes, and the narrow retained sizes
/// read back as its own; also where sizes escape (large ones, and odd ones beside a unit of 8).
#[test]
fn a_tree_assembled_from_narrow_sizes_is_the_same() {
    use crate::narrow::{Narrow, Unit};
    for mut g in random_graphs() {
        let n = g.object_count();
        g.shallow = (0..n).map(|o| [8, 16, 4000, 24, 13][o % 5] as u64).collect::<Vec<_>>().into();
        let unit = Unit::of_sample(&g.shallow[..n.min(2)]);
        let shallow = Narrow::of(&g.shallow, unit);
        let Spanning { vertex, parent, referrers, .. } = Spanning::new(&g);
        let idom = immediate_dominators(&parent, &referrers);
        let mut retained = Narrow::zeros(n, unit);
        let shallow = |o| shallow.get(o, &g.shallow);
        let tree = assemble_with(
            n,
            shallow,
            &vertex,
            &idom,
            RetainedBytes::FullAndNarrow(&mut retained),
            Dominators::Every,
        );
        assert_eq!(tree, dominators(&g), "{g:?}");
        assert!((0..n).all(|o| retained.get(o, &tree.retained) == tree.retained[o]), "{g:?}");
        // Narrow only: the same narrow sizes, the full ones only where those escape.
        let mut alone = Narrow::zeros(n, unit);
        let narrow =
            assemble_with(n, shallow, &vertex, &idom, RetainedBytes::Narrow(&mut alone), Dominators::Every);
        assert!(alone.values == retained.values);
        assert!((0..n).all(|o| alone.get(o, &narrow.retained) == tree.retained[o]), "{g:?}");
        let escaped = |o: &usize| alone.values[*o] == ESCAPE;
        assert!((0..n).filter(|o| !escaped(o)).all(|o| narrow.retained[o] == 0), "only the escapes written");
        assert_eq!(DominatorTree { retained: tree.retained.clone(), ..narrow }, tree);
    }
}

/// A tree asked for the dominators above some preorder positions only is the whole tree but
/// for its `idom`: empty, with exactly the dominators of the objects at those positions and
/// of all objects above them in `idom_above`, each the whole tree's.
#[test]
fn a_tree_with_the_dominators_above_some_positions_has_those_exactly() {
    for g in random_graphs() {
        let Spanning { vertex, parent, referrers, .. } = Spanning::new(&g);
        let idom = immediate_dominators(&parent, &referrers);
        let whole = dominators(&g);
        let starts: Vec<usize> = (0..whole.preorder.len()).step_by(3).collect();
        let shallow = |o| g.shallow[o];
        let above = assemble_with(
            g.object_count(),
            shallow,
            &vertex,
            &idom,
            RetainedBytes::Full,
            Dominators::Above(&starts),
        );
        assert!(above.idom.is_empty());
        let mut expected = HashMap::default();
        for &p in &starts {
            let mut o = whole.preorder[p];
            while o != VIRTUAL_ROOT {
                expected.insert(o, whole.idom[o as usize]);
                o = whole.idom[o as usize];
            }
        }
        assert_eq!(above.idom_above, expected, "{g:?}");
        assert!(expected.keys().all(|&o| above.dominator(o) == whole.dominator(o)));
        assert_eq!(
            DominatorTree { idom: whole.idom.clone(), idom_above: HashMap::default(), ..above },
            whole
        );
    }
}

#[test]
fn preorder_lists_each_reachable_object_once_with_contiguous_subtrees() {
    for g in random_graphs() {
        let dominates = oracle_dominates(&g);
        let tree = dominators(&g);
        let reachable = reachable_without(&g, None);
        assert_eq!(tree.preorder.len(), reachable.iter().filter(|&&r| r).count());
        let pos = &tree.position;
        assert_eq!(*pos, positions_of(&tree.preorder, g.object_count()), "the preorder's inverse");
        let size = &tree.subtree;
        for v in 0..g.object_count() {
            if !reachable[v] {
                assert_eq!((pos[v], size[v]), (u32::MAX, 0));
                continue;
            }
            let subtree = 1 + (0..g.object_count()).filter(|&u| dominates[v][u]).count();
            assert_eq!(size[v] as usize, subtree);
            let range = pos[v] as usize..pos[v] as usize + subtree;
            assert!(tree.preorder[range].iter().all(|&u| u as usize == v || dominates[v][u as usize]));
        }
    }
}

#[test]
fn empty_and_rootless_graphs_have_no_reachable_objects() {
    let empty = dominators(&HeapGraph { edge_start: vec![0].into(), ..HeapGraph::default() });
    assert_eq!(empty, DominatorTree::default());
    let rootless = dominators(&graph(vec![0; 2], vec![5; 2], &[(0, 1), (1, 0)], vec![]));
    assert_eq!(rootless.idom, vec![UNREACHABLE; 2]);
    assert_eq!((rootless.retained.to_vec(), rootless.preorder.to_vec()), (vec![0, 0], vec![]));
}

/// `n` objects of 3 bytes in a chain from root 0, each referencing back to `back(i)` too.
fn chain(n: usize, back: impl Fn(u32) -> Option<u32>) -> HeapGraph {
    let mut refs = Vec::with_capacity(2 * n);
    for i in 0..n as u32 {
        if i + 1 < n as u32 {
            refs.push((i, i + 1));
        }
        refs.extend(back(i).map(|b| (i, b)));
    }
    graph(vec![0; n], vec![3; n], &refs, vec![0])
}

#[test]
fn ten_million_object_chain_needs_no_recursion() {
    let n = 10_000_000;
    let tree = dominators(&chain(n, |_| None));
    assert!(tree.idom.iter().enumerate().skip(1).all(|(i, &d)| d as usize == i - 1));
    assert_eq!(tree.idom[0], VIRTUAL_ROOT);
    assert!(tree.retained.iter().enumerate().all(|(i, &r)| r == 3 * (n - i) as u64));
    assert!(tree.preorder.iter().enumerate().all(|(p, &o)| p == o as usize));
}

#[test]
fn back_references_into_a_long_chain_keep_it_a_chain() {
    // Every object also references one far above it: the only way down is still the chain, but
    // the semi-dominator search now walks long compressed paths.
    let n = 1_000_000;
    let tree = dominators(&chain(n, |i| Some(i / 2)));
    assert!(tree.idom.iter().enumerate().skip(1).all(|(i, &d)| d as usize == i - 1));
    assert_eq!(tree.retained[0], 3 * n as u64);
}

#[test]
fn million_object_deep_tree_is_its_own_dominator_tree() {
    // Parent of i is i-1 or i-2: a tree about 670,000 levels deep. Every third object also
    // references its grandparent, which adds cycles but changes no dominator.
    let n = 1_000_000u32;
    let mut rng = Rng(7);
    let parent: Vec<u32> = (0..n).map(|i| i.saturating_sub(1 + rng.below(2) as u32)).collect();
    let mut refs: Vec<(u32, u32)> = (1..n).map(|i| (parent[i as usize], i)).collect();
    refs.extend((1..n).step_by(3).map(|i| (i, parent[parent[i as usize] as usize])));
    let shallow: Vec<u64> = (0..n).map(|_| 1 + rng.below(50)).collect();
    let g = graph(vec![0; n as usize], shallow.clone(), &refs, vec![0, 0]);
    let tree = dominators(&g);
    let mut retained = shallow;
    for i in (1..n as usize).rev() {
        retained[parent[i] as usize] += retained[i];
    }
    assert_eq!(tree.idom[0], VIRTUAL_ROOT);
    assert!((1..n as usize).all(|i| tree.idom[i] == parent[i]));
    assert_eq!(tree.retained, retained);
}

#[test]
fn objects_below_a_deep_list_and_indexed_from_a_root_hang_below_the_virtual_root() {
    // Root 0 → … → list tail → array → items, and a second root indexes every item: each item's
    // DFS parent is 200,000 levels deep but its dominator is the virtual root. (The semi-NCA
    // variant walks the whole list for every item here: quadratic.)
    let (length, items) = (200_000u32, 200_000u32);
    let (array, index) = (length, length + items + 1);
    let mut refs: Vec<(u32, u32)> = (0..length).map(|i| (i, i + 1)).collect();
    refs.extend((array + 1..index).flat_map(|x| [(array, x), (index, x)]));
    let n = index as usize + 1;
    let tree = dominators(&graph(vec![0; n], vec![1; n], &refs, vec![0, index]));
    assert!((1..=array).all(|i| tree.idom[i as usize] == i - 1));
    assert!((array + 1..index).all(|x| tree.idom[x as usize] == VIRTUAL_ROOT));
    assert_eq!((tree.retained[0], tree.retained[array as usize]), (length as u64 + 1, 1));
}

/// The positions of `preorder`'s objects among `objects` objects (the others UNPLACED).
fn positions_of(preorder: &[u32], objects: usize) -> Table<u32> {
    let mut position = Table::filled(objects, UNPLACED);
    for (p, &o) in preorder.iter().enumerate() {
        position[o as usize] = p as u32;
    }
    position
}

/// Retained bytes past `u32` (summed in four bytes an object until they no longer fit): a
/// chain of 3 GiB objects, one beside it that sums to just below the limit, and one to it.
#[test]
fn retained_bytes_past_four_gib_are_exact() {
    const GIB: u64 = 1 << 30;
    let max = u64::from(u32::MAX);
    // 0 → 1 → 2 → 3; 4 → 5 (sums to u32::MAX - 1), 6 → 7 (sums to u32::MAX exactly).
    let shallow = vec![3 * GIB, 3 * GIB, 3 * GIB, 3 * GIB, max - 11, 10, max - 10, 10];
    let refs = [(0, 1), (1, 2), (2, 3), (4, 5), (6, 7)];
    let g = graph(vec![0; 8], shallow, &refs, vec![0, 4, 6]);
    let tree = dominators(&g);
    assert_eq!(tree.retained[..4], [12 * GIB, 9 * GIB, 6 * GIB, 3 * GIB]);
    assert_eq!(tree.retained[4..], [max - 1, 10, max, 10]);
}

/// The placing's watch finds exactly the positions asked for, among many more than its bitmap
/// has bits.
#[test]
fn the_watched_positions_are_found_exactly() {
    let count = 10_000_000;
    let asked = [0, 5, 152, 70_000, 70_001, 9_999_999];
    let watched = Watched::new(&asked, count);
    let found: Vec<usize> = (0..count).filter(|&at| watched.has(at as u32)).collect();
    assert_eq!(found, asked);
    assert!(!Watched::new(&[], count).has(0));
}
