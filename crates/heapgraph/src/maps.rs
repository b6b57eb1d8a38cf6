//! Pointer maps between groups (docs/design.md, "Pointer maps"): which groups reference which,
//! counted in distinct objects. The pointed-from side follows each object's references; the
//! points-to side needs each object's referrers, which the [`Spanning`] table the dominator tree
//! uses already holds, so a pipeline that builds both reverses the references once.

use std::collections::BTreeMap;

use crate::dominators::UNREACHABLE;
use crate::spanning::{Referrers, Spanning, every_referrer};
use crate::table::Table;
use crate::{HeapGraph, Live, ObjectGroups, prefetch};

/// How many references ahead [`maps_where`] asks for its targets' entries.
const EDGES_AHEAD: usize = 16;

/// Pointer maps, indexed by group:
/// `points_to[a][b]` = distinct objects of `b` referenced by objects of `a`;
/// `pointed_from[b][a]` = distinct objects of `a` that reference objects of `b`.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PointerMaps {
    pub points_to: Vec<BTreeMap<u32, u64>>,
    pub pointed_from: Vec<BTreeMap<u32, u64>>,
}

/// Pointer maps over the live objects, `live` being what [`crate::reachable`] marks (edges from
/// or to dead objects are left out).
pub fn pointer_maps<'a>(g: &HeapGraph, group_count: usize, live: impl Into<Live<'a>>) -> PointerMaps {
    let live = live.into();
    let (points_to, pointed_from) = rayon::join(
        || {
            let spanning = Spanning::new(g);
            points_to(&g.group, group_count, &spanning.vertex, &spanning.parent, &spanning.referrers)
        },
        || pointed_from(g, group_count, live),
    );
    PointerMaps { points_to, pointed_from }
}

/// `pointed_from[b][a]`: for each live object of `a`, the distinct groups of what it references.
pub fn pointed_from<'a>(
    g: &HeapGraph,
    group_count: usize,
    live: impl Into<Live<'a>>,
) -> Vec<BTreeMap<u32, u64>> {
    // Where every object is live (a heap dump's are), no reference's target is looked up in
    // the marks: a read at random per reference saved.
    match live.into() {
        Live::Marked(marks) if !marks.iter().all(|&l| l) => pointed_from_where(g, group_count, |o| marks[o]),
        _ => pointed_from_where(g, group_count, |_| true),
    }
}

/// [`pointed_from`] over the objects `live` says.
fn pointed_from_where(
    g: &HeapGraph,
    group_count: usize,
    live: impl Fn(usize) -> bool,
) -> Vec<BTreeMap<u32, u64>> {
    let mut pointed_from = Tally::new(group_count);
    let mut seen = vec![u32::MAX; group_count];
    for s in (0..g.object_count()).filter(|&s| live(s)) {
        let a = g.group[s];
        for &t in g.referents(s as u32).iter().filter(|&&t| live(t as usize)) {
            point_from(&mut pointed_from, &mut seen, s as u32, a, g.group[t as usize]);
        }
    }
    pointed_from.into_maps()
}

/// Pointer map counts, kept in a small table of recent pairs and added into the map only when
/// a pair leaves it: a heap has a few groups that reference each other many million times, and
/// a search of the map per count was a third of the maps' time.
struct Tally {
    maps: Vec<BTreeMap<u32, u64>>,
    /// (the pair `row << 32 | column`, its count not yet in the map), by a hash of the pair.
    recent: Vec<(u64, u64)>,
}

/// Pairs a [`Tally`] holds at once: 64 KB.
const TALLY_BITS: u32 = 12;

/// No pair: rows and columns are groups, below u32::MAX.
const NO_PAIR: u64 = u64::MAX;

impl Tally {
    fn new(rows: usize) -> Tally {
        Tally { maps: vec![BTreeMap::new(); rows], recent: vec![(NO_PAIR, 0); 1 << TALLY_BITS] }
    }

    /// One more for `maps[row][column]`.
    fn add(&mut self, row: u32, column: u32) {
        let pair = u64::from(row) << 32 | u64::from(column);
        let slot = (pair.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - TALLY_BITS)) as usize;
        let (held, count) = &mut self.recent[slot];
        if *held == pair {
            *count += 1;
            return;
        }
        let left = std::mem::replace(&mut self.recent[slot], (pair, 1));
        self.put(left);
    }

    fn put(&mut self, (pair, count): (u64, u64)) {
        if pair != NO_PAIR {
            *self.maps[(pair >> 32) as usize].entry(pair as u32).or_insert(0) += count;
        }
    }

    fn into_maps(mut self) -> Vec<BTreeMap<u32, u64>> {
        for held in std::mem::take(&mut self.recent) {
            self.put(held);
        }
        self.maps
    }
}

/// The (object, group) pairs of [`maps_where`] that the bit per object does not count, each
/// `object << 32 | group`. A pair met lately is not listed again: an object that many of one
/// group reference but that another group's object dominates (an enum constant, a cached
/// `Integer`, an empty list shared by all) would otherwise be listed once per reference.
struct Listed {
    pairs: Table<u64>,
    /// The pairs met lately, by a hash of the pair.
    recent: Vec<u64>,
}

/// Pairs [`Listed`] remembers: 512 KB, within a core's cache.
const RECENT_BITS: u32 = 16;

impl Default for Listed {
    fn default() -> Listed {
        // No pair is all ones: objects and groups are below u32::MAX.
        Listed { pairs: Table::default(), recent: vec![u64::MAX; 1 << RECENT_BITS] }
    }
}

impl Listed {
    fn add(&mut self, object: u32, group: u32) {
        let pair = u64::from(object) << 32 | u64::from(group);
        let slot =
            &mut self.recent[(pair.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - RECENT_BITS)) as usize];
        if *slot != pair {
            *slot = pair;
            self.pairs.push(pair);
        }
    }
}

/// Counts object `s` of group `a` in `pointed_from[b]` once, however many of its references
/// reach `b`: `seen[b] == s` once it is counted, so no set is cleared per object.
fn point_from(pointed_from: &mut Tally, seen: &mut [u32], s: u32, a: u32, b: u32) {
    if seen[b as usize] != s {
        seen[b as usize] = s;
        pointed_from.add(b, a);
    }
}

/// `points_to[a][b]`: for each reachable object of `b`, the distinct groups of its referrers
/// (the virtual root above the GC roots is no group). `group` is each object's group, `vertex`,
/// `parent` and `referrers` are a [`Spanning`]'s.
pub fn points_to(
    group: &ObjectGroups,
    group_count: usize,
    vertex: &[u32],
    parent: &[u32],
    referrers: &Referrers,
) -> Vec<BTreeMap<u32, u64>> {
    let mut points_to = Tally::new(group_count);
    let mut seen = vec![u32::MAX; group_count];
    for v in 1..vertex.len() as u32 {
        let b = group[vertex[v as usize] as usize];
        for r in every_referrer(parent, referrers, v).filter(|&r| r != 0) {
            let a = group[vertex[r as usize] as usize];
            if seen[a as usize] != v {
                seen[a as usize] = v;
                points_to.add(a, b);
            }
        }
    }
    points_to.into_maps()
}

/// Both maps for a caller that has a dominator tree but no spanning tree (a source that kept
/// the tree from an earlier opening), in one sweep over the references: each reference's
/// target's group is read once for both. As with the spanning tree, the points-to maps count
/// only references between objects the tree reaches (`idom` not [`UNREACHABLE`]), so they are
/// [`pointer_maps`]'s.
///
/// The points-to side needs no reversed references: a target counts once for the group of its
/// immediate dominator, which is the referrer itself for every object with one referrer (most
/// objects), with a bit per object to say it is counted; a referrer of another group is listed
/// as an (object, group) pair, and those pairs are sorted and counted once each. Memory: a bit
/// per object and 8 bytes per reference from a group other than its target's dominator's, less
/// the repeats [`Listed`] sees.
pub fn pointer_maps_reached<'a>(
    g: &HeapGraph,
    idom: &[u32],
    group_count: usize,
    live: impl Into<Live<'a>>,
) -> PointerMaps {
    let live = live.into();
    // Where every object is live and reached (a heap dump's are), no reference's target is
    // looked up in the marks or the tree.
    let every_one_live = match live {
        Live::All => true,
        Live::Marked(marks) => marks.iter().all(|&l| l),
    };
    let every_one_reached = idom.iter().all(|&d| d != UNREACHABLE);
    match every_one_live && every_one_reached {
        true => maps_where(g, idom, group_count, |_| true, |_| true),
        false => {
            maps_where(g, idom, group_count, |o| live.has(o as usize), |o| idom[o as usize] != UNREACHABLE)
        }
    }
}

/// [`pointer_maps_reached`] over the objects `live` and `reached` say.
fn maps_where(
    g: &HeapGraph,
    idom: &[u32],
    group_count: usize,
    live: impl Fn(u32) -> bool,
    reached: impl Fn(u32) -> bool,
) -> PointerMaps {
    let n = g.object_count();
    let mut points_to = Tally::new(group_count);
    let mut pointed_from = Tally::new(group_count);
    let mut seen = vec![u32::MAX; group_count];
    // A bit per object: counted for its dominator's group.
    let mut counted = Table::filled(n.div_ceil(64), 0u64);
    let mut others = Listed::default();
    let (edges, keys): (&[u32], &[u32]) = (&g.edges, g.group.keys());
    for s in 0..n as u32 {
        let (from_live, from_reached) = (live(s), reached(s));
        if !from_live && !from_reached {
            continue;
        }
        let a = g.group[s as usize];
        for k in g.edge_range(s) {
            // The targets lie at random in the keys and dominators: their reads are started
            // a few references ahead.
            if let Some(&ahead) = edges.get(k + EDGES_AHEAD) {
                prefetch(keys, ahead as usize);
                prefetch(idom, ahead as usize);
            }
            let t = edges[k];
            let b = g.group[t as usize];
            if from_live && live(t) {
                point_from(&mut pointed_from, &mut seen, s, a, b);
            }
            if from_reached && reached(t) {
                // The virtual root and "unreachable" are beyond the objects.
                let d = idom[t as usize];
                if d == s || (d as usize) < n && g.group[d as usize] == a {
                    let (word, bit) = (&mut counted[t as usize / 64], 1u64 << (t % 64));
                    if *word & bit == 0 {
                        *word |= bit;
                        points_to.add(a, b);
                    }
                } else {
                    others.add(t, a);
                }
            }
        }
    }
    drop(counted);
    let mut others = others.pairs;
    others.sort_unstable();
    let mut last = None;
    for &pair in others.iter() {
        if last != Some(pair) {
            points_to.add(pair as u32, g.group[(pair >> 32) as usize]);
            last = Some(pair);
        }
    }
    PointerMaps { points_to: points_to.into_maps(), pointed_from: pointed_from.into_maps() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dominators::{dominators, tests::random_graphs};

    /// From the references alone, the same maps as from the spanning tree's referrers, on
    /// random graphs (unreachable objects, several referrers of several groups, several
    /// references from one object to another), with every object live, with the reached ones
    /// marked, and with fewer marked than reached (the pointed-from maps follow the marks, the
    /// points-to maps the tree).
    #[test]
    fn maps_from_the_references_are_maps_from_the_referrers() {
        for g in random_graphs() {
            let groups = g.group.iter().max().map_or(0, |m| m as usize + 1);
            let tree = dominators(&g);
            let marks: Vec<bool> = tree.idom.iter().map(|&d| d != UNREACHABLE).collect();
            let expected = pointer_maps(&g, groups, &marks);
            assert_eq!(pointer_maps_reached(&g, &tree.idom, groups, &marks), expected, "{g:?}");
            let fewer: Vec<bool> = marks.iter().enumerate().map(|(o, &m)| m && o % 3 != 0).collect();
            let expected = pointer_maps(&g, groups, &fewer);
            assert_eq!(pointer_maps_reached(&g, &tree.idom, groups, &fewer), expected, "{g:?}");
            let all = pointer_maps_reached(&g, &tree.idom, groups, Live::All);
            assert_eq!(all.points_to, expected.points_to, "{g:?}");
            assert_eq!(all.pointed_from, pointer_maps(&g, groups, Live::All).pointed_from, "{g:?}");
        }
    }

    /// The counts that pass through the table of recent pairs are those counted one by one:
    /// more pairs than its slots (so pairs leave it and come back), runs of one pair, and the
    /// pairs still held at the end.
    #[test]
    fn a_tally_counts_every_pair_it_is_given() {
        let (rows, mut tally) = (150u32, Tally::new(150));
        let mut expected = vec![BTreeMap::new(); rows as usize];
        let mut x = 12345u64;
        for i in 0..200_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let (row, column) = ((x >> 33) as u32 % rows, (x >> 17) as u32 % 90);
            for _ in 0..1 + i % 3 {
                tally.add(row, column);
                *expected[row as usize].entry(column).or_insert(0u64) += 1;
            }
        }
        assert!(expected.iter().map(BTreeMap::len).sum::<usize>() > 1 << (TALLY_BITS + 1));
        assert_eq!(tally.into_maps(), expected);
    }

    /// A pair met again lately is listed once, however often its references come; pairs that
    /// take turns are each listed.
    #[test]
    fn a_shared_object_is_listed_once_per_group() {
        let mut listed = Listed::default();
        for _ in 0..1_000 {
            listed.add(7, 2);
        }
        for i in 0..1_000u32 {
            listed.add(9, i % 2);
        }
        assert_eq!(listed.pairs.to_vec(), [7 << 32 | 2, 9 << 32, 9 << 32 | 1]);
    }
}
