//! Every algorithm against a brute-force oracle on seeded random heaps.

use std::collections::{BTreeMap, BTreeSet};

use super::*;

/// splitmix64: a tiny seeded generator so the random heaps are the same on every run.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

pub(crate) fn random_heap(rng: &mut Rng, n: usize, groups: u32) -> HeapGraph {
    let mut edge_start = vec![0];
    let mut edges = Vec::new();
    for _ in 0..n {
        for _ in 0..rng.below(4) {
            edges.push(rng.below(n as u64) as u32);
        }
        edge_start.push(edges.len() as u32);
    }
    HeapGraph {
        group: (0..n).map(|_| rng.below(groups as u64) as u32).collect::<Vec<_>>().into(),
        shallow: (0..n).map(|_| 8 + rng.below(100)).collect::<Vec<_>>().into(),
        edge_start: edge_start.into(),
        edges: edges.into(),
        roots: (0..rng.below(4) + 1).map(|_| rng.below(n as u64) as u32).collect(),
    }
}

/// Reachability by fixed point over all edges, skipping `removed` objects.
fn oracle_reachable(g: &HeapGraph, removed: impl Fn(usize) -> bool) -> Vec<bool> {
    let n = g.object_count();
    let mut r = vec![false; n];
    for &root in &g.roots {
        r[root as usize] = !removed(root as usize);
    }
    loop {
        let mut changed = false;
        for s in 0..n {
            for &t in g.referents(s as u32) {
                if r[s] && !r[t as usize] && !removed(t as usize) {
                    r[t as usize] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            return r;
        }
    }
}

fn heaps() -> Vec<HeapGraph> {
    let mut rng = Rng(42);
    (0..200).map(|i| random_heap(&mut rng, 1 + i % 60, 1 + (i as u32 % 7))).collect()
}

#[test]
fn reachable_matches_fixed_point_oracle() {
    for g in heaps() {
        assert_eq!(reachable(&g), oracle_reachable(&g, |_| false));
    }
}

#[test]
fn reachable_follows_a_long_chain_without_recursion() {
    let n = 1_000_000;
    let g = HeapGraph {
        group: vec![0; n].into(),
        shallow: vec![1; n].into(),
        edge_start: (0..=n as u32).map(|i| i.min(n as u32 - 1)).collect::<Vec<_>>().into(),
        edges: (1..n as u32).collect::<Vec<_>>().into(),
        roots: vec![0],
    };
    assert!(reachable(&g).iter().all(|&r| r));
}

#[test]
fn pointer_maps_match_distinct_set_oracle() {
    for g in heaps() {
        let groups = g.group.iter().max().map_or(0, |m| m as usize + 1);
        let live = reachable(&g);
        let maps = pointer_maps(&g, groups, &live);
        // points_to[a][b] = |{t in b : some live s in a references t}|.
        let mut targets: BTreeMap<(u32, u32), BTreeSet<u32>> = BTreeMap::new();
        let mut sources: BTreeMap<(u32, u32), BTreeSet<u32>> = BTreeMap::new();
        for s in 0..g.object_count() as u32 {
            for &t in g.referents(s) {
                if live[s as usize] && live[t as usize] {
                    let (a, b) = (g.group[s as usize], g.group[t as usize]);
                    targets.entry((a, b)).or_default().insert(t);
                    sources.entry((b, a)).or_default().insert(s);
                }
            }
        }
        let mut points_to = vec![BTreeMap::new(); groups];
        for ((a, b), set) in targets {
            points_to[a as usize].insert(b, set.len() as u64);
        }
        let mut pointed_from = vec![BTreeMap::new(); groups];
        for ((b, a), set) in sources {
            pointed_from[b as usize].insert(a, set.len() as u64);
        }
        assert_eq!(maps, PointerMaps { points_to, pointed_from });
    }
}

#[test]
fn retained_sizes_match_removal_oracle() {
    for g in heaps() {
        let groups = g.group.iter().max().map_or(0, |m| m as usize + 1);
        let live = reachable(&g);
        let got = retained_sizes(&g, groups, &live);
        for (group, &size) in got.iter().enumerate() {
            let without = oracle_reachable(&g, |o| g.group[o] as usize == group);
            let freed: Vec<usize> = (0..g.object_count()).filter(|&o| live[o] && !without[o]).collect();
            let expected = (freed.len() as u64, freed.iter().map(|&o| g.shallow[o]).sum());
            assert_eq!(size, expected, "group {group}");
        }
    }
}

#[test]
fn shared_ownership_retains_nothing_alone() {
    // Roots 0 (group 0) and 1 (group 1) both reference 2 (group 2): neither retains 2 alone.
    let g = HeapGraph {
        group: vec![0, 1, 2].into(),
        shallow: vec![10, 20, 30].into(),
        edge_start: vec![0, 1, 2, 2].into(),
        edges: vec![2, 2].into(),
        roots: vec![0, 1],
    };
    let live = reachable(&g);
    assert_eq!(retained_sizes(&g, 3, &live), vec![(1, 10), (1, 20), (1, 30)]);
    let maps = pointer_maps(&g, 3, &live);
    assert_eq!(maps.points_to[0], BTreeMap::from([(2, 1)]));
    assert_eq!(maps.pointed_from[2], BTreeMap::from([(0, 1), (1, 1)]));
}
