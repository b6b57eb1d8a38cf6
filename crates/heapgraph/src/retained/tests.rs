//! Both retained sizes of groups against brute force on random graphs and hand-made heaps.

use super::*;
use crate::dominators::dominators;
use crate::dominators::tests::{graph, oracle_dominates, random_graphs};
use crate::{reachable, retained_sizes};

fn group_count(g: &HeapGraph) -> usize {
    g.group.iter().max().map_or(0, |m| m as usize + 1)
}

#[test]
fn dominated_sizes_are_the_union_of_the_members_subtrees() {
    for g in random_graphs() {
        let dominates = oracle_dominates(&g);
        let live = reachable(&g);
        let n = g.object_count();
        let got = dominated_sizes(&g, &dominators(&g), group_count(&g));
        for (group, &size) in got.iter().enumerate() {
            let member = |m: usize| live[m] && g.group[m] as usize == group;
            let union: Vec<usize> =
                (0..n).filter(|&u| member(u) || (0..n).any(|m| member(m) && dominates[m][u])).collect();
            let expected = (union.len() as u64, union.iter().map(|&u| g.shallow[u]).sum());
            assert_eq!(size, expected, "group {group} of {g:?}");
        }
    }
}

#[test]
fn a_member_below_another_group_below_a_member_counts_once() {
    // A(0) → X(1) → B(0) → C(2): group 0 dominates all four, not A's subtree plus B's again.
    let g = graph(vec![0, 1, 0, 2], vec![1, 10, 100, 1000], &[(0, 1), (1, 2), (2, 3)], vec![0]);
    let sizes = dominated_sizes(&g, &dominators(&g), 4);
    assert_eq!(sizes, vec![(4, 1111), (3, 1110), (1, 1000), (0, 0)]);
    let both = dominated(&g, &dominators(&g), 4);
    assert_eq!(
        (0..4).map(|o| both.is_nested(o)).collect::<Vec<_>>(),
        [false, false, true, false],
        "B below A"
    );
}

#[test]
fn nested_objects_are_those_with_a_dominator_in_their_group() {
    for g in random_graphs() {
        let tree = dominators(&g);
        let both = dominated(&g, &tree, group_count(&g));
        for o in 0..g.object_count() {
            let mut d = tree.idom[o];
            let mut nested = false;
            while d != VIRTUAL_ROOT && d != crate::dominators::UNREACHABLE {
                nested |= g.group[d as usize] == g.group[o];
                d = tree.idom[d as usize];
            }
            assert_eq!(both.is_nested(o as u32), nested, "object {o} of {g:?}");
        }
    }
}

#[test]
fn jointly_held_objects_are_dominated_by_neither_holder() {
    // Roots 0 (group 0) and 1 (group 1) both reference 2 (group 2).
    let g = graph(vec![0, 1, 2], vec![10, 20, 30], &[(0, 2), (1, 2)], vec![0, 1]);
    assert_eq!(dominated_sizes(&g, &dominators(&g), 3), vec![(1, 10), (1, 20), (1, 30)]);
}

#[test]
fn closure_size_matches_retained_sizes_and_bounds_the_dominated_size() {
    for g in random_graphs() {
        let live = reachable(&g);
        let groups = group_count(&g);
        let closures = retained_sizes(&g, groups, &live);
        let dominated = dominated_sizes(&g, &dominators(&g), groups);
        for group in 0..groups {
            let closure = closure_size(&g, &live, group as u32);
            assert_eq!(closure, closures[group], "group {group} of {g:?}");
            assert!(dominated[group].0 <= closure.0 && dominated[group].1 <= closure.1);
        }
    }
}

#[test]
fn closure_counts_what_the_group_holds_jointly() {
    // Objects 0 and 1 (both group 0) are roots that hold 2 (group 1) together: the closure of
    // group 0 frees 2, its dominated size does not include it.
    let g = graph(vec![0, 0, 1], vec![10, 20, 30], &[(0, 2), (1, 2)], vec![0, 1]);
    let live = reachable(&g);
    assert_eq!(closure_size(&g, &live, 0), (3, 60));
    assert_eq!(dominated_sizes(&g, &dominators(&g), 2)[0], (2, 30));
}

/// The pass down the preorder gives the same sizes and nesting whatever the number of workers
/// walking its parts (each part starts with the path open above it rebuilt).
#[test]
fn the_dominated_pass_is_the_same_on_any_number_of_workers() {
    for g in random_graphs() {
        let tree = dominators(&g);
        let on = |workers: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(workers).build().expect("a pool");
            pool.install(|| dominated(&g, &tree, group_count(&g)))
        };
        let one = on(1);
        for workers in 2..=5 {
            assert_eq!(on(workers), one, "{workers} workers, {g:?}");
        }
    }
}
