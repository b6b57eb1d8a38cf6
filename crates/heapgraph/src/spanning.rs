//! The live heap numbered depth-first from the GC roots, with the referrers of every number.
//! Lengauer–Tarjan walks the numbers and their referrers, and the points-to side of the pointer
//! maps needs the groups of each object's referrers: both read this one table, built in one
//! search and one pass over the references, so the heap's references are reversed only once.

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
    pub referrers: Referrers,
}

/// The numbers that reference each number (0 for a GC root), once per reference, in compressed
/// sparse rows.
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
    /// Numbers what `g.roots` reach and collects the referrers. Memory besides the result: two
    /// `u32`s per object, while it runs.
    pub fn new(g: &HeapGraph) -> Spanning {
        let limit = VIRTUAL_ROOT as usize;
        assert!(
            g.object_count() < limit && g.edges.len() + g.roots.len() < limit,
            "heap graph too large for u32 indices"
        );
        // The search reads objects and their references by id, at random; the reversal (which
        // gives read-around back) in order.
        g.edge_start.expect(Access::Random);
        g.edges.expect(Access::Random);
        let mut search = Search::new(g);
        let referrers = referrers(g, &mut search);
        Spanning { vertex: search.vertex, parent: search.parent, referrers }
    }

    /// The number of numbers (reachable objects and the virtual root).
    pub fn len(&self) -> usize {
        self.vertex.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vertex.is_empty()
    }
}

/// In the search's table: an object without a number yet. Number 0 is the virtual root's,
/// never an object's, so a fresh table reads as all unnumbered: past the budget its work file
/// is not written (and read back) once before the search begins.
const UNNUMBERED: u32 = 0;

/// The search's state: numbers by object, and the spanning tree so far.
struct Search {
    /// Per object: its number (or [`UNNUMBERED`]), and the references to it from reachable
    /// objects (counted by the search, later a fill position). Side by side because both are
    /// touched for every reference, at random: one cache miss instead of two.
    object: Table<[u32; 2]>,
    vertex: Table<u32>,
    parent: Table<u32>,
}

impl Search {
    /// Iterative: real heaps have reference chains of millions of objects.
    fn new(g: &HeapGraph) -> Search {
        // At most every object gets a number: room for all at once, since growing by doubling
        // would hold twice that.
        let mut search = Search {
            object: Table::filled(g.object_count(), [UNNUMBERED, 0]),
            vertex: Table::with_capacity(g.object_count() + 1),
            parent: Table::with_capacity(g.object_count() + 1),
        };
        search.object.expect(Access::Random);
        search.vertex.push(VIRTUAL_ROOT);
        search.parent.push(0);
        // Frames: (number, next reference, end of references) in `g.edges`.
        let mut stack: Vec<(u32, usize, usize)> = Vec::new();
        let frame = |v: u32, o: u32| {
            let edges = g.edge_range(o);
            (v, edges.start, edges.end)
        };
        for &root in &g.roots {
            if let Some(v) = search.visit(root, 0) {
                stack.push(frame(v, root));
            }
            while let Some(top) = stack.last_mut() {
                if top.1 == top.2 {
                    stack.pop();
                    continue;
                }
                let t = g.edges[top.1];
                top.1 += 1;
                if let Some(v) = search.visit(t, top.0) {
                    stack.push(frame(v, t));
                }
            }
        }
        search
    }

    /// Counts a reference from number `from` to object `o`, and numbers `o` if it is new.
    fn visit(&mut self, o: u32, from: u32) -> Option<u32> {
        let entry = &mut self.object[o as usize];
        entry[1] += 1;
        if entry[0] != UNNUMBERED {
            return None;
        }
        let v = self.vertex.len() as u32;
        entry[0] = v;
        self.vertex.push(o);
        self.parent.push(from);
        Some(v)
    }
}

/// The referrers of each number as numbers (a counting sort by the counts the search left).
/// Both sweeps go over the objects in id order, not the numbers': the references are then
/// read in order, and only the targets' entries and the lists are met at random — past the
/// budget, where the tables are work files, that halves the tables read at random. A list's
/// order is then the referrers' ids', which nothing reads it by.
fn referrers(g: &HeapGraph, search: &mut Search) -> Referrers {
    let count = search.vertex.len();
    let mut start = Table::filled(count + 1, 0u32);
    search.object.expect(Access::InOrder);
    for &[v, referrers] in search.object.iter().filter(|e| e[0] != UNNUMBERED) {
        start[v as usize + 1] = referrers;
    }
    for v in 1..count {
        start[v + 1] += start[v];
    }
    // The virtual root's referrers (none) are empty: its start and end are both 0.
    for entry in search.object.iter_mut().filter(|e| e[0] != UNNUMBERED) {
        entry[1] = start[entry[0] as usize];
    }
    let mut list = Table::filled(start[count] as usize, 0u32);
    g.edge_start.expect(Access::InOrder);
    g.edges.expect(Access::InOrder);
    search.object.expect(Access::Random);
    let object = &mut search.object;
    let mut note = |object: &mut [[u32; 2]], t: u32, v: u32| {
        let entry = &mut object[t as usize];
        list[entry[1] as usize] = v;
        entry[1] += 1;
    };
    for &t in &g.roots {
        note(object, t, 0);
    }
    for o in 0..g.object_count() as u32 {
        let v = object[o as usize][0];
        if v != UNNUMBERED {
            g.referents(o).iter().for_each(|&t| note(object, t, v));
        }
    }
    Referrers { start, list }
}
