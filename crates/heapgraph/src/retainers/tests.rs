//! Retainer paths on hand-made heaps shaped like a JVM's, and their invariants on random graphs.

use super::*;
use crate::dominators::tests::{graph, random_graphs};
use crate::dominators::{UNREACHABLE, dominators};
use crate::retained::dominated_sizes;

/// A heap under construction: objects are numbered as they are added.
#[derive(Default)]
struct Heap {
    group: Vec<u32>,
    shallow: Vec<u64>,
    refs: Vec<(u32, u32)>,
    roots: Vec<u32>,
}

impl Heap {
    fn object(&mut self, group: u32, bytes: u64, refs: &[u32]) -> u32 {
        let o = self.group.len() as u32;
        self.group.push(group);
        self.shallow.push(bytes);
        self.refs.extend(refs.iter().map(|&t| (o, t)));
        o
    }

    fn paths(self) -> Vec<Option<RetainerPath>> {
        let groups = self.group.iter().max().map_or(0, |&m| m as usize + 1);
        let g = graph(self.group, self.shallow, &self.refs, self.roots);
        retainer_paths(&g, &dominators(&g), groups)
    }
}

fn step(group: u32, objects: u64, bytes: u64, retained_bytes: u64) -> RetainerStep {
    RetainerStep { group, objects, bytes, retained_bytes }
}

const LIST: u32 = 0;
const NODE: u32 = 1;
const PERSON: u32 = 2;
const STRING: u32 = 3;
const CHARS: u32 = 4;

/// A person with a name (24-byte String holding a 50-byte char[]).
fn person(heap: &mut Heap) -> u32 {
    let chars = heap.object(CHARS, 50, &[]);
    let name = heap.object(STRING, 24, &[chars]);
    heap.object(PERSON, 40, &[name])
}

/// Root → List → Node → Node → …, each Node → Person; the list also references its last node.
fn linked_list(heap: &mut Heap, k: usize) -> u32 {
    let mut next = None;
    let mut last = None;
    for _ in 0..k {
        let item = person(heap);
        let refs: Vec<u32> = next.into_iter().chain([item]).collect();
        let node = heap.object(NODE, 32, &refs);
        last.get_or_insert(node);
        next = Some(node);
    }
    let list = heap.object(LIST, 24, &[next.unwrap(), last.unwrap()]);
    heap.roots.push(list);
    list
}

#[test]
fn char_arrays_in_a_linked_list_are_held_through_string_person_node_list() {
    let mut heap = Heap::default();
    let list = linked_list(&mut heap, 5);
    let paths = heap.paths();
    let path = paths[CHARS as usize].as_ref().unwrap();
    assert_eq!(
        path.steps,
        vec![
            step(CHARS, 5, 250, 250),
            step(STRING, 5, 120, 370),
            step(PERSON, 5, 200, 570),
            step(NODE, 5, 160, 730),
            step(LIST, 1, 24, 754),
        ]
    );
    assert_eq!(path.rooted, vec![list]);
    // A node's path skips the nodes that dominate it and ends at the list too.
    let node_path = paths[NODE as usize].as_ref().unwrap();
    assert_eq!(node_path.steps.iter().map(|s| s.group).collect::<Vec<_>>(), vec![NODE, LIST]);
    assert_eq!(node_path.rooted, vec![list]);
}

#[test]
fn a_list_held_by_nobody_else_is_rooted_at_its_head() {
    // Root → Node → Node → Node (no list object): the nodes' path is one step, rooted at the head.
    let mut heap = Heap::default();
    let tail = heap.object(NODE, 32, &[]);
    let middle = heap.object(NODE, 32, &[tail]);
    let head = heap.object(NODE, 32, &[middle]);
    heap.roots.push(head);
    let path = heap.paths()[NODE as usize].clone().unwrap();
    assert_eq!((path.steps, path.rooted), (vec![step(NODE, 3, 96, 96)], vec![head]));
}

const HOLDER: u32 = 5;
const MAP: u32 = 6;
const TABLE: u32 = 7;
const ENTRY: u32 = 8;
const SESSION: u32 = 9;

/// Map → Entry[] → Entry → (key String, value); every other entry chains a colliding one.
fn map(heap: &mut Heap, values: &[u32]) -> u32 {
    let mut entries = Vec::new();
    for (i, &value) in values.iter().enumerate() {
        let chars = heap.object(CHARS, 50, &[]);
        let key = heap.object(STRING, 24, &[chars]);
        let chained = (i % 2 == 1).then(|| entries.pop().unwrap());
        let refs: Vec<u32> = [key, value].into_iter().chain(chained).collect();
        entries.push(heap.object(ENTRY, 32, &refs));
    }
    let table = heap.object(TABLE, 16 + 4 * values.len() as u64, &entries);
    heap.object(MAP, 48, &[table])
}

#[test]
fn sessions_are_held_by_the_managers_map_not_by_every_map_of_the_type() {
    // A manager's map holds 4 sessions, each with a map holding one person; a cache holds a
    // map of 2 persons. Maps, tables and entries are all of one type each.
    let mut heap = Heap::default();
    let sessions: Vec<u32> = (0..4)
        .map(|_| {
            let p = person(&mut heap);
            let attributes = map(&mut heap, &[p]);
            heap.object(SESSION, 64, &[attributes])
        })
        .collect();
    let sessions_map = map(&mut heap, &sessions);
    let manager = heap.object(HOLDER, 100, &[sessions_map]);
    let cached = [person(&mut heap), person(&mut heap)];
    let cache_map = map(&mut heap, &cached);
    let cache = heap.object(HOLDER, 100, &[cache_map]);
    heap.roots.extend([manager, cache]);
    let paths = heap.paths();
    let summary = |group: u32| {
        let path = paths[group as usize].clone().unwrap();
        (path.steps.iter().map(|s| (s.group, s.objects)).collect::<Vec<_>>(), path.rooted)
    };
    let tail = [(ENTRY, 4), (TABLE, 1), (MAP, 1), (HOLDER, 1)];
    assert_eq!(summary(SESSION), ([&[(SESSION, 4)], &tail[..]].concat(), vec![manager]));
    // The heavier branch (4 persons through sessions, against 2 in the cache) is followed.
    let head = [(PERSON, 6), (ENTRY, 6), (TABLE, 5), (MAP, 5), (SESSION, 4)];
    assert_eq!(summary(PERSON), ([&head[..], &tail[..]].concat(), vec![manager]));
}

#[test]
fn a_group_held_jointly_by_two_roots_ends_at_its_shared_object() {
    let mut heap = Heap::default();
    let y = heap.object(2, 7, &[]);
    let x = heap.object(2, 5, &[y]);
    let a = heap.object(0, 1, &[x]);
    let b = heap.object(1, 1, &[x]);
    heap.roots.extend([a, b, b]);
    let path = heap.paths()[2].clone().unwrap();
    assert_eq!((path.steps, path.rooted), (vec![step(2, 2, 12, 12)], vec![x]));
}

/// Holder 0 holds `a` objects of group 2, holder 1 holds `b` (bytes each); both are roots.
fn two_holders(a: &[u64], b: &[u64]) -> (RetainerPath, [u32; 2]) {
    let mut heap = Heap::default();
    let holder = |heap: &mut Heap, group: u32, sizes: &[u64]| {
        let held: Vec<u32> = sizes.iter().map(|&s| heap.object(2, s, &[])).collect();
        let h = heap.object(group, 8, &held);
        heap.roots.push(h);
        h
    };
    let holders = [holder(&mut heap, 0, a), holder(&mut heap, 1, b)];
    (heap.paths()[2].clone().unwrap(), holders)
}

#[test]
fn the_holder_of_more_bytes_wins_then_of_more_objects() {
    let (path, [_, h1]) = two_holders(&[10, 10, 10], &[100]);
    assert_eq!(path.steps, vec![step(2, 4, 130, 130), step(1, 1, 8, 108)]);
    assert_eq!(path.rooted, vec![h1]);
    let (path, [h0, _]) = two_holders(&[10, 10, 10], &[20]);
    assert_eq!((path.steps[1].group, path.rooted), (0, vec![h0]));
    let (path, [_, h1]) = two_holders(&[50], &[25, 25]);
    assert_eq!((path.steps[1].group, path.rooted), (1, vec![h1]));
}

#[test]
fn a_path_through_alternating_groups_stops_at_the_cap() {
    // A chain of 200 objects alternating between groups 0 and 1 from root 0: each step climbs
    // one level, and each step of group 0 still holds the root, the only rooted object.
    let n = 200u32;
    let refs: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
    let g = graph((0..n).map(|i| i % 2).collect(), vec![1; n as usize], &refs, vec![0]);
    let path = retainer_paths(&g, &dominators(&g), 2)[1].clone().unwrap();
    assert_eq!(path.steps.len(), MAX_STEPS);
    assert_eq!(
        path.steps[..3].iter().map(|s| (s.group, s.objects)).collect::<Vec<_>>(),
        [(1, 100), (0, 100), (1, 99)]
    );
    assert_eq!((path.steps[MAX_STEPS - 1].group, path.rooted), (0, vec![0]));
    let path = retainer_paths(&g, &dominators(&g), 2)[0].clone().unwrap();
    assert_eq!((path.steps.len(), path.steps[MAX_STEPS - 1].group, path.rooted), (MAX_STEPS, 1, vec![]));
}

#[test]
fn a_million_node_list_is_climbed_without_recursion() {
    let mut heap = Heap::default();
    let list = linked_list(&mut heap, 250_000);
    let path = heap.paths()[PERSON as usize].clone().unwrap();
    let objects: Vec<(u32, u64)> = path.steps.iter().map(|s| (s.group, s.objects)).collect();
    assert_eq!((objects, path.rooted), (vec![(PERSON, 250_000), (NODE, 250_000), (LIST, 1)], vec![list]));
}

#[test]
fn paths_on_random_graphs_start_at_the_group_and_end_below_the_virtual_root() {
    for g in random_graphs() {
        let groups = g.group.iter().max().map_or(0, |m| m as usize + 1);
        let tree = dominators(&g);
        let dominated = dominated_sizes(&g, &tree, groups);
        for (group, path) in retainer_paths(&g, &tree, groups).into_iter().enumerate() {
            let members: Vec<usize> = (0..g.object_count())
                .filter(|&o| g.group[o] as usize == group && tree.idom[o] != UNREACHABLE)
                .collect();
            let Some(path) = path else {
                assert!(members.is_empty());
                continue;
            };
            let bytes = members.iter().map(|&o| g.shallow[o]).sum();
            assert_eq!(path.steps[0], step(group as u32, members.len() as u64, bytes, dominated[group].1));
            assert!(path.steps.iter().all(|s| s.objects > 0 && s.bytes <= s.retained_bytes));
            let last = path.steps.last().unwrap().group;
            assert!(path.steps.len() < MAX_STEPS && !path.rooted.is_empty());
            assert!(
                path.rooted
                    .iter()
                    .all(|&r| tree.idom[r as usize] == VIRTUAL_ROOT && g.group[r as usize] == last)
            );
        }
    }
}

#[test]
fn representatives_are_one_per_step_each_dominated_by_the_next() {
    let mut checked = 0;
    for g in random_graphs() {
        let groups = g.group.iter().max().map_or(0, |m| m as usize + 1);
        let tree = dominators(&g);
        let plain = retainer_paths(&g, &tree, groups);
        let represented = retainer_paths_represented(&g, &tree, groups);
        for (plain, path) in plain.into_iter().zip(represented) {
            let (Some(plain), Some(path)) = (plain, path) else { continue };
            assert_eq!((&plain.steps, &plain.rooted), (&path.steps, &path.rooted), "the same path");
            assert!(plain.representatives.is_empty());
            let reps = &path.representatives;
            assert_eq!(reps.len(), path.steps.len());
            for (rep, step) in reps.iter().zip(&path.steps) {
                assert_eq!(g.group[*rep as usize], step.group);
            }
            for pair in reps.windows(2) {
                // The holder is the nearest dominator of the object outside the object's group.
                let mut at = tree.idom[pair[0] as usize];
                while g.group[at as usize] == g.group[pair[0] as usize] {
                    at = tree.idom[at as usize];
                }
                assert_eq!(at, pair[1]);
                checked += 1;
            }
        }
    }
    assert!(checked > 10, "{checked} pairs checked");
}

/// The weights of a step's objects stay with their objects when the step is put in preorder:
/// where B's subtree comes first in preorder, the exits are met as B, A and sorted to A, B.
#[test]
fn the_representative_is_the_exit_most_bytes_reach_whatever_order_exits_are_met_in() {
    const X: u32 = 0;
    const Y: u32 = 1;
    for (big_first, b_referenced_first) in [(true, true), (true, false), (false, true), (false, false)] {
        // A holds B and a small Y; B holds a big Y. The path of Y climbs to X (A, then B
        // through A), and most bytes reach B.
        let mut heap = Heap::default();
        let (big, b, small);
        if big_first {
            big = heap.object(Y, 1000, &[]);
            b = heap.object(X, 16, &[big]);
            small = heap.object(Y, 10, &[]);
        } else {
            small = heap.object(Y, 10, &[]);
            big = heap.object(Y, 1000, &[]);
            b = heap.object(X, 16, &[big]);
        }
        let refs = if b_referenced_first { [b, small] } else { [small, b] };
        let a = heap.object(X, 16, &refs);
        heap.roots.push(a);
        let g = graph(heap.group, heap.shallow, &heap.refs, heap.roots);
        let tree = dominators(&g);
        let paths = retainer_paths_represented(&g, &tree, 2);
        let path = paths[Y as usize].as_ref().unwrap();
        assert_eq!(path.steps.len(), 2, "{path:?}");
        assert_eq!(path.representatives, vec![big, b], "{path:?}");
    }
}

/// The paths the plain way, as the module's documentation states them: per group, a map from
/// each step's objects to their weights, exits found by walking up the dominators.
fn plain_climb(g: &HeapGraph, tree: &DominatorTree, groups: usize) -> Vec<Option<RetainerPath>> {
    use std::collections::BTreeMap;
    let pos = &tree.position;
    let group = |o: u32| g.group[o as usize];
    let idom = |o: u32| tree.idom[o as usize];
    let exit = |o: u32| {
        let mut d = idom(o);
        while d != VIRTUAL_ROOT && group(d) == group(o) {
            d = idom(d);
        }
        d
    };
    let top = |o: u32| {
        let mut t = o;
        while idom(t) != VIRTUAL_ROOT && group(idom(t)) == group(o) {
            t = idom(t);
        }
        t
    };
    let figures = |at: u32, objects: &BTreeMap<u32, u64>| {
        let mut by_pos: Vec<u32> = objects.keys().copied().collect();
        by_pos.sort_by_key(|&o| pos[o as usize]);
        let (mut retained, mut end) = (0, 0);
        for &o in &by_pos {
            if pos[o as usize] >= end {
                retained += tree.retained[o as usize];
                end = pos[o as usize] + tree.subtree[o as usize];
            }
        }
        let bytes = objects.keys().map(|&o| g.shallow[o as usize]).sum();
        RetainerStep { group: at, objects: objects.len() as u64, bytes, retained_bytes: retained }
    };
    (0..groups as u32)
        .map(|at| {
            let mut objects: BTreeMap<u32, u64> = (0..g.object_count() as u32)
                .filter(|&o| group(o) == at && pos[o as usize] != u32::MAX)
                .map(|o| (o, g.shallow[o as usize]))
                .collect();
            if objects.is_empty() {
                return None;
            }
            let mut steps = vec![figures(at, &objects)];
            let mut children: Vec<BTreeMap<u32, u32>> = Vec::new();
            while steps.len() < MAX_STEPS {
                let (mut root, mut tally) = ((0, 0), BTreeMap::<u32, (u64, u64)>::new());
                let mut exits: BTreeMap<u32, (u64, u32)> = BTreeMap::new();
                for (&o, &w) in &objects {
                    let x = exit(o);
                    if x == VIRTUAL_ROOT {
                        root = (root.0 + w, root.1 + 1);
                        continue;
                    }
                    let t = tally.entry(group(x)).or_default();
                    *t = (t.0 + w, t.1 + 1);
                    let e = exits.entry(x).or_insert((0, o));
                    e.0 += w;
                    if pos[o as usize] < pos[e.1 as usize] {
                        e.1 = o;
                    }
                }
                // Most weight, then most objects, then the smallest group.
                let best = tally.iter().max_by_key(|&(&h, &t)| (t, std::cmp::Reverse(h)));
                let Some((&next, _)) = best.filter(|&(_, &t)| t > root) else { break };
                let chosen: Vec<(u32, (u64, u32))> =
                    exits.into_iter().filter(|&(x, _)| group(x) == next).collect();
                objects = chosen.iter().map(|&(x, (w, _))| (x, w)).collect();
                children.push(chosen.iter().map(|&(x, (_, first))| (x, first)).collect());
                steps.push(figures(next, &objects));
            }
            let heaviest = objects.iter().max_by_key(|&(&o, &w)| (w, std::cmp::Reverse(pos[o as usize])));
            let mut representatives = vec![*heaviest.unwrap().0];
            for step in children.iter().rev() {
                representatives.push(step[representatives.last().unwrap()]);
            }
            representatives.reverse();
            let mut rooted: Vec<u32> = Vec::new();
            let mut by_pos: Vec<u32> = objects.keys().copied().filter(|&o| exit(o) == VIRTUAL_ROOT).collect();
            by_pos.sort_by_key(|&o| pos[o as usize]);
            for o in by_pos {
                if !rooted.contains(&top(o)) {
                    rooted.push(top(o));
                }
            }
            Some(RetainerPath { steps, rooted, representatives })
        })
        .collect()
}

/// The sorted, table-based climb gives the plain climb's paths, representatives included, on
/// the random graphs and on large ones whose steps take the radix sort (more than 65,536
/// objects), with sizes of 1 or 2 bytes so that ties are common, and again with sizes past 32
/// bits.
#[test]
fn paths_match_a_plain_climb_on_random_graphs() {
    use crate::dominators::tests::Rng;
    let mut rng = Rng(77);
    let mut graphs: Vec<HeapGraph> = random_graphs().collect();
    for (n, groups) in [(150_000, 2), (200_000, 3)] {
        // A random tree below object 0 with a few more references, numbered at random so that
        // no step comes sorted.
        let mut number: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            number.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut refs: Vec<(u32, u32)> = (1..n as u64).map(|o| (rng.below(o) as u32, o as u32)).collect();
        refs.extend((0..n / 10).map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32)));
        let refs: Vec<(u32, u32)> =
            refs.into_iter().map(|(s, t)| (number[s as usize], number[t as usize])).collect();
        let group = (0..n).map(|_| rng.below(groups) as u32).collect();
        let shallow = (0..n).map(|_| 1 + rng.below(2)).collect();
        graphs.push(graph(group, shallow, &refs, vec![number[0]]));
    }
    // The same graphs with sizes of 2 or 4 GiB, so that groups retain more than 32 bits of
    // bytes: their paths without representatives take the wide entries, the others the narrow;
    // with sizes of 8 or 16 bytes, so that a table by rank holds sizes in units of 8 in its
    // byte (and escapes to the object's own tables for retained sizes of more than 254 units);
    // and with sizes of 40,000 or 80,000 bytes, whose unit is 64, so that every size escapes.
    let heavy = |scale: u64| -> Vec<HeapGraph> {
        graphs
            .iter()
            .map(|g| HeapGraph { shallow: g.shallow.iter().map(|&s| s * scale).collect(), ..g.clone() })
            .collect()
    };
    let (wide, in_units, escaping) = (heavy(1 << 31), heavy(8), heavy(40_000));
    graphs.extend(wide.into_iter().chain(in_units).chain(escaping));
    for g in graphs {
        let groups = g.group.iter().max().map_or(0, |m| m as usize + 1);
        let tree = dominators(&g);
        let plain = plain_climb(&g, &tree, groups);
        assert_eq!(retainer_paths_represented(&g, &tree, groups), plain);
        let unnamed: Vec<_> =
            plain.into_iter().map(|p| p.map(|p| RetainerPath { representatives: Vec::new(), ..p })).collect();
        assert_eq!(retainer_paths(&g, &tree, groups), unnamed);
        // A caller that lets the pass spend the tree's dominators and preorder gets the same.
        let mut spent = tree.clone();
        let (dominated, paths) = dominated_and_paths_spending(&g, &mut spent, None, groups);
        assert_eq!((dominated, paths), (dominated_sizes(&g, &tree, groups), unnamed.clone()));
        assert!(spent.idom.is_empty() && spent.preorder.is_empty(), "they are freed");
        assert_eq!((spent.subtree, spent.retained), (tree.subtree.clone(), tree.retained.clone()));
        // And so does a tree assembled for it alone, with the dominators above its parts' starts
        // only (the pass's parts start inside the subtrees: there are several per worker).
        let mut alone = tree_for_spending(&g);
        assert!(alone.idom.is_empty() && !alone.idom_above.is_empty());
        let (dominated, paths) = dominated_and_paths_spending(&g, &mut alone, None, groups);
        assert_eq!((dominated, paths), (dominated_sizes(&g, &tree, groups), unnamed));
    }
}

/// The tree the pipeline assembles for [`dominated_and_paths_spending`] alone.
fn tree_for_spending(g: &HeapGraph) -> DominatorTree {
    use crate::dominators::{Dominators, RetainedBytes, assemble_with, immediate_dominators};
    let crate::spanning::Spanning { vertex, parent, referrers, .. } = crate::spanning::Spanning::new(g);
    let idom = immediate_dominators(&parent, &referrers);
    let starts = spending_part_starts(vertex.len() - 1);
    let shallow = |o| g.shallow[o];
    assemble_with(g.object_count(), shallow, &vertex, &idom, RetainedBytes::Full, Dominators::Above(&starts))
}

#[test]
fn an_array_over_4_gib_counts_its_bytes_and_empty_groups_do_not_shift_the_groups() {
    // Root → holder (group 0) → two arrays of 5 GiB (group 3); groups 1 and 2 are empty, so
    // group 3's ranks start where group 0's end. The arrays' shallow sizes do not fit in the
    // byte a rank's table keeps, and the paths read them from the graph.
    const BIG: u64 = 5 << 30;
    let mut heap = Heap::default();
    let first = heap.object(3, BIG, &[]);
    let second = heap.object(3, BIG + 8, &[]);
    let holder = heap.object(0, 16, &[first, second]);
    heap.roots.push(holder);
    let paths = heap.paths();
    assert!(paths[1].is_none() && paths[2].is_none());
    let arrays = paths[3].as_ref().unwrap();
    let (bytes, retained) = (2 * BIG + 8, 2 * BIG + 8 + 16);
    assert_eq!(arrays.steps, vec![step(3, 2, bytes, bytes), step(0, 1, 16, retained)]);
    assert_eq!(arrays.rooted, vec![holder]);
    let holder_path = paths[0].as_ref().unwrap();
    assert_eq!(
        (holder_path.steps.clone(), holder_path.rooted.clone()),
        (vec![step(0, 1, 16, retained)], vec![holder])
    );
}

/// The ranks and holders, made by several workers (three here, for parts of uneven shares:
/// the walks down the preorder start inside subtrees, and the holders above a part's first
/// object are renamed once the part before has ended), number each group's reachable members
/// in preorder, group after group; the holders by rank are found by climbing the dominators
/// one by one (the first dominator in another group, else the top-most of the object's own
/// group below the virtual root), the nesting is [`crate::retained::dominated`]'s and so are
/// the sizes. Also on a chain with groups taking turns, whose parts start many objects deep.
#[test]
fn the_ranks_and_the_holders_by_rank_are_found_by_climbing() {
    use crate::dominators::{UNPLACED, VIRTUAL_ROOT};
    use crate::retained::dominated;
    use ranked::Ranked;
    let workers = rayon::ThreadPoolBuilder::new().num_threads(3).build().expect("a pool");
    let chain = {
        let n = 3_000u32;
        let refs: Vec<(u32, u32)> = (1..n).map(|o| (o - 1, o)).collect();
        graph((0..n).map(|o| o / 7 % 3).collect(), vec![8; n as usize], &refs, vec![0])
    };
    for g in random_graphs().chain([chain]) {
        let groups = g.group.iter().max().map_or(0, |m| m as usize + 1);
        let tree = dominators(&g);
        // The sizes read from the objects' tables, or a byte each as the first import makes
        // them (the chain's retained sizes escape).
        let unit = crate::narrow::Unit::of_sample(&g.shallow);
        let narrowed = crate::narrow::NarrowSizes {
            shallow: crate::narrow::Narrow::of(&g.shallow, unit),
            retained: crate::narrow::Narrow::of(&tree.retained, unit),
        };
        for (with_pos, narrow) in
            [(false, None), (true, None), (false, Some(&narrowed)), (true, Some(&narrowed))]
        {
            let (ranked, fills) = workers.install(|| Ranked::new(&g, &tree, groups, with_pos, narrow));
            let (ranked, sizes) = workers.install(|| ranked.with_holders(fills, &g, &tree, groups, narrow));
            let reachable: Vec<u32> =
                (0..g.object_count() as u32).filter(|&o| tree.position[o as usize] != UNPLACED).collect();
            let mut expected_members = reachable.clone();
            expected_members.sort_by_key(|&o| (g.group[o as usize], tree.position[o as usize]));
            assert_eq!(ranked.members.to_vec(), expected_members, "{g:?}");
            let rank_of = |o: u32| ranked.rank_of(&tree, o, g.group[o as usize]).expect("a member");
            for (r, &o) in expected_members.iter().enumerate() {
                assert_eq!(rank_of(o), r as u32, "object {o} of {g:?}");
            }
            let by_object = dominated(&g, &tree, groups);
            assert_eq!(sizes, by_object.sizes, "{g:?}");
            for &o in reachable.iter() {
                let mut at = o;
                let holder = loop {
                    let d = tree.idom[at as usize];
                    if d == VIRTUAL_ROOT {
                        break at;
                    }
                    if g.group[d as usize] != g.group[o as usize] {
                        break d;
                    }
                    at = d;
                };
                let r = rank_of(o);
                assert_eq!(ranked.holder[r as usize], rank_of(holder), "object {o} of {g:?}");
                assert_eq!(ranked.is_nested(r), by_object.is_nested(o), "object {o} of {g:?}");
                assert_eq!(ranked.pos(&tree, r), tree.position[o as usize], "object {o} of {g:?}");
                assert_eq!(ranked.shallow(&g, r), g.shallow[o as usize], "object {o} of {g:?}");
                assert_eq!(ranked.retained(&tree, r), tree.retained[o as usize], "object {o} of {g:?}");
            }
        }
    }
}
