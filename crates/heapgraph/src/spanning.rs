//! The live heap numbered depth-first from the GC roots, with the referrers of every number.
//! Lengauer–Tarjan walks the numbers and their referrers, and the points-to side of the pointer
//! maps needs the groups of each object's referrers: both read this one table, built in one
//! search and one pass over the references, so the heap's references are reversed only once.
//!
//! A number's parent in the spanning tree is one of its referrers, and for most objects of a
//! real heap the only one: the reversed references keep the others alone ([`Referrers`]). The
//! search marks the references it numbers through, and the reversal skips them without looking
//! at their targets, so it reads at random only for the references that close a cycle or join
//! two paths.

use crate::HeapGraph;
use crate::table::{Access, Table};

/// The virtual root above all GC roots: number 0's object in the numbering, and in
/// [`crate::DominatorTree::idom`] the dominator of what only it dominates (a root, or an object
/// held through several roots).
pub const VIRTUAL_ROOT: u32 = u32::MAX - 1;
/// Not reached from the GC roots: an object without a number, and its entry in
/// [`crate::DominatorTree::idom`].
pub const UNREACHABLE: u32 = u32::MAX;

/// The depth-first spanning tree of the reachable objects, and who references each of them.
/// Number 0 is the virtual root above the GC roots; reachable objects are `1..len()` in the
/// order the search first enters them. Only reachable objects have numbers, so references from
/// unreachable objects are left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spanning {
    /// The object with each number (`vertex[0]` is VIRTUAL_ROOT).
    pub vertex: Table<u32>,
    /// The number of each number's parent in the spanning tree (`parent[0] == 0`).
    pub parent: Table<u32>,
    /// Each number's referrers besides the reference from its parent.
    pub referrers: Referrers,
    /// The objects the GC roots do not reach, in id order, which [`Unreached::Held`] made roots
    /// of their own (none otherwise).
    pub held: Vec<u32>,
}

/// What becomes of the objects the GC roots do not reach.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Unreached {
    /// They get no number (garbage, or objects outside the live set).
    #[default]
    Left,
    /// Each is a GC root of its own, searched after the others in id order — what a heap dump's
    /// objects are, since the VM dumps only what it keeps alive: those no root record reaches it
    /// holds itself. Found by the search, as what it left unnumbered, instead of by a marking
    /// of its own beforehand (a second pass over every reference, at random).
    Held,
}

/// The numbers that reference each number (0 for a GC root), once per reference, in compressed
/// sparse rows, less one: the reference the search numbered it through, from its parent in the
/// spanning tree (another reference from the parent to it is listed). A number's referrers are
/// its parent and these.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Referrers {
    start: Table<u32>,
    list: Table<u32>,
}

impl Referrers {
    pub fn of(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.list[self.start[v] as usize..self.start[v + 1] as usize]
    }
}

impl Spanning {
    /// Numbers what `g.roots` reach and collects the referrers. Memory besides the result: a
    /// `u32` per object and a bit per reference, while it runs.
    pub fn new(g: &HeapGraph) -> Spanning {
        Spanning::with(g, Unreached::Left)
    }

    /// [`Spanning::new`], with the objects `g.roots` do not reach numbered as `unreached` says.
    pub fn with(g: &HeapGraph, unreached: Unreached) -> Spanning {
        let limit = VIRTUAL_ROOT as usize;
        assert!(
            g.object_count() < limit && g.edges.len() + g.roots.len() < limit,
            "heap graph too large for u32 indices"
        );
        // The search reads objects and their references by id, at random; the reversal (which
        // gives read-around back) in order.
        g.edge_start.expect(Access::Random);
        g.edges.expect(Access::Random);
        let search = Search::new(g, unreached);
        let referrers = referrers(g, &search);
        Spanning { vertex: search.vertex, parent: search.parent, referrers, held: search.held }
    }

    /// Every referrer of number `v`: its parent (none for the virtual root), then the others.
    pub fn referrers_of(&self, v: u32) -> impl Iterator<Item = u32> + '_ {
        every_referrer(&self.parent, &self.referrers, v)
    }

    /// The number of numbers (reachable objects and the virtual root).
    pub fn len(&self) -> usize {
        self.vertex.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vertex.is_empty()
    }
}

/// Every referrer of number `v` (see [`Spanning::referrers_of`]), from the spanning tree's
/// parents and the other referrers.
pub(crate) fn every_referrer<'a>(
    parent: &'a [u32],
    referrers: &'a Referrers,
    v: u32,
) -> impl Iterator<Item = u32> + 'a {
    let parent = (v != 0).then(|| parent[v as usize]);
    parent.into_iter().chain(referrers.of(v).iter().copied())
}

/// In the search's table: an object without a number yet. Number 0 is the virtual root's,
/// never an object's, so a fresh table reads as all unnumbered: past the budget its work file
/// is not written (and read back) once before the search begins.
const UNNUMBERED: u32 = 0;

/// The search's state: numbers by object, and the spanning tree so far.
struct Search {
    /// Per object: its number, or [`UNNUMBERED`]. Touched for every reference, at random: 4
    /// bytes an object, as the other referrers are counted afterwards, by the reversal.
    number: Table<u32>,
    vertex: Table<u32>,
    parent: Table<u32>,
    /// A bit per reference (by its place in `g.edges`): set for the ones numbers were given
    /// through, the spanning tree's edges. A table like the others, counted in the budget.
    tree_edge: Table<u64>,
    /// The objects made roots since no GC root reaches them ([`Unreached::Held`]).
    held: Vec<u32>,
    /// Per GC root (in `g.roots`, then `held`): numbered from the virtual root, not found from
    /// another first.
    root_numbered: Vec<bool>,
}

impl Search {
    /// Iterative: real heaps have reference chains of millions of objects.
    fn new(g: &HeapGraph, unreached: Unreached) -> Search {
        // At most every object gets a number: room for all at once, since growing by doubling
        // would hold twice that.
        let mut search = Search {
            number: Table::filled(g.object_count(), UNNUMBERED),
            vertex: Table::with_capacity_in_order(g.object_count() + 1),
            parent: Table::with_capacity_in_order(g.object_count() + 1),
            tree_edge: Table::filled(g.edges.len().div_ceil(64), 0),
            held: Vec::new(),
            root_numbered: Vec::with_capacity(g.roots.len()),
        };
        search.number.expect(Access::Random);
        search.vertex.push(VIRTUAL_ROOT);
        search.parent.push(0);
        let mut stack = Vec::new();
        for &root in &g.roots {
            search.search_from(g, root, &mut stack);
        }
        if unreached == Unreached::Held {
            // All of them before any is searched: one reached from another is a root all the
            // same, as it would be had they been marked beforehand.
            search.number.expect(Access::InOrder);
            search.held =
                (0..g.object_count() as u32).filter(|&o| search.number[o as usize] == UNNUMBERED).collect();
            search.number.expect(Access::Random);
            for i in 0..search.held.len() {
                search.search_from(g, search.held[i], &mut stack);
            }
        }
        search
    }

    /// Searches from GC root `root`, depth first: `stack` holds the frames (number, next
    /// reference, end of references in `g.edges`), empty between roots.
    fn search_from(&mut self, g: &HeapGraph, root: u32, stack: &mut Vec<(u32, usize, usize)>) {
        let frame = |v: u32, o: u32| {
            let edges = g.edge_range(o);
            (v, edges.start, edges.end)
        };
        let numbered = self.visit(root, 0);
        self.root_numbered.push(numbered.is_some());
        if let Some(v) = numbered {
            stack.push(frame(v, root));
        }
        while let Some(top) = stack.last_mut() {
            if top.1 == top.2 {
                stack.pop();
                continue;
            }
            let e = top.1;
            top.1 += 1;
            let t = g.edges[e];
            if let Some(v) = self.visit(t, top.0) {
                self.tree_edge[e / 64] |= 1 << (e % 64);
                stack.push(frame(v, t));
            }
        }
    }

    /// Numbers object `o`, reached from number `from`, if it is new.
    fn visit(&mut self, o: u32, from: u32) -> Option<u32> {
        let number = &mut self.number[o as usize];
        if *number != UNNUMBERED {
            return None;
        }
        let v = self.vertex.len() as u32;
        *number = v;
        self.vertex.push(o);
        self.parent.push(from);
        Some(v)
    }
}

/// The referrers of each number as numbers, less the spanning tree's edges: counted, then
/// placed (a counting sort). Both sweeps go over the objects in id order, not the numbers': the
/// references and their marks are then read in order, and the targets' numbers and the lists
/// are met at random only for the references outside the tree. A list's order is then the
/// referrers' ids' (reversed), which nothing reads it by.
fn referrers(g: &HeapGraph, search: &Search) -> Referrers {
    let count = search.vertex.len();
    let number = &search.number;
    // `start[v]` counts the other referrers of `v`, then holds where its list ends, then (each
    // list filled from its end) where it starts; `start[count]` is where the last one ends.
    let mut start = Table::filled_in_order(count + 1, 0u32);
    g.edge_start.expect(Access::InOrder);
    g.edges.expect(Access::InOrder);
    number.expect(Access::Random);
    other_referrers(g, search, |t, _| start[number[t as usize] as usize] += 1);
    let mut total = 0;
    for end in &mut start[..count] {
        total += *end;
        *end = total;
    }
    start[count] = total;
    let mut list = Table::filled(total as usize, 0u32);
    other_referrers(g, search, |t, v| {
        let end = &mut start[number[t as usize] as usize];
        *end -= 1;
        list[*end as usize] = v;
    });
    Referrers { start, list }
}

/// `each(target, referrer's number)` for every reference from a numbered object (and from the
/// virtual root to each GC root) that is not a spanning-tree edge, in the objects' id order.
fn other_referrers(g: &HeapGraph, search: &Search, mut each: impl FnMut(u32, u32)) {
    let roots = g.roots.iter().chain(&search.held);
    for (&t, _) in roots.zip(&search.root_numbered).filter(|&(_, &numbered)| !numbered) {
        each(t, 0);
    }
    let tree_edge = &search.tree_edge;
    for (o, &v) in search.number.iter().enumerate().filter(|&(_, &v)| v != UNNUMBERED) {
        let edges = g.edge_range(o as u32);
        for (e, &t) in edges.clone().zip(&g.edges[edges]) {
            if tree_edge[e / 64] >> (e % 64) & 1 == 0 {
                each(t, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dominators::tests::random_graphs;

    /// A number's referrers, its parent with the others, are every reference to it from a
    /// numbered object (and 0 for each time it is a GC root), and the parent's reference is not
    /// listed twice: the lists hold only the references outside the spanning tree.
    #[test]
    fn parents_and_the_other_referrers_are_every_reference_once() {
        for g in random_graphs() {
            let spanning = Spanning::new(&g);
            let number: std::collections::HashMap<u32, u32> =
                spanning.vertex.iter().enumerate().skip(1).map(|(v, &o)| (o, v as u32)).collect();
            let mut expected = vec![Vec::new(); spanning.len()];
            for &root in &g.roots {
                expected[number[&root] as usize].push(0);
            }
            for (&o, &v) in &number {
                for t in g.referents(o) {
                    expected[number[t] as usize].push(v);
                }
            }
            let mut listed = 0;
            for v in 1..spanning.len() as u32 {
                let mut found: Vec<u32> = spanning.referrers_of(v).collect();
                found.sort_unstable();
                expected[v as usize].sort_unstable();
                assert_eq!(found, expected[v as usize], "referrers of number {v}");
                listed += spanning.referrers.of(v).len();
            }
            let references = expected.iter().map(Vec::len).sum::<usize>();
            assert_eq!(listed, references - (spanning.len() - 1), "one tree edge a number left out");
        }
    }

    /// Held, the objects the roots do not reach are searched as if marked beforehand and
    /// appended to the roots in id order: the same numbers, referrers and spanning tree, every
    /// one of them a root even where another reaches it.
    #[test]
    fn held_unreached_objects_are_the_roots_a_marking_would_add() {
        let mut some_held = 0;
        for g in random_graphs() {
            let reached = crate::reachable(&g);
            let unreached: Vec<u32> =
                (0..g.object_count() as u32).filter(|&o| !reached[o as usize]).collect();
            let mut marked = g.clone();
            marked.roots.extend(&unreached);
            let held = Spanning::with(&g, Unreached::Held);
            assert_eq!(held.held, unreached);
            assert_eq!(Spanning { held: Vec::new(), ..held }, Spanning::new(&marked));
            assert!(Spanning::new(&g).held.is_empty());
            some_held += usize::from(unreached.len() > 1);
        }
        assert!(some_held > 10, "the random graphs have garbage: {some_held}");
    }
}
