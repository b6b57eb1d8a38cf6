//! Finding the instances of described structures in one heap (docs/structures.md,
//! "Detection"): descriptions are assigned to the heap's types once, with every wildcard
//! resolved per type; then from each reachable head the references are followed, and each
//! object met takes the first of four branches: a head → a contained structure, a leaf of this
//! one; an internal part → part of it, the descent goes on; a leaf → part of it, the descent
//! stops; anything else → outside. Types without a description act as leaves; reference arrays
//! without one pass through to what they hold.

use memcity_heapgraph::{Table, TypedHeap, reachable};

use crate::lang::Descriptions;

mod collections;
mod plan;

pub use collections::CollectionTypes;
use plan::{INTERNAL, NONE, OUTSIDE};
pub(crate) use plan::{Lookup, Plan};
pub use plan::{Warning, unmatched};

/// Objects and bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sizes {
    pub objects: u64,
    pub bytes: u64,
}

impl Sizes {
    pub(crate) fn add(&mut self, bytes: u64) {
        self.objects += 1;
        self.bytes += bytes;
    }
}

/// One structure found in a heap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    /// The head object.
    pub head: u32,
    /// Whether the head is a leaf of another structure (a HashSet's HashMap).
    pub contained: bool,
    /// Its own closure: head, internal parts and leaves (contained heads included, their
    /// insides not).
    pub structure: Sizes,
    /// With the insides of contained structures, recursively.
    pub deep_structure: Sizes,
    /// What freeing the head would free: its dominator subtree.
    pub retained: Sizes,
}

/// Every instance of one heap, with its objects in compact tables.
#[derive(Debug, Clone, Default)]
pub struct Structures {
    pub instances: Vec<Instance>,
    /// `parts[part_start[i]..part_start[i + 1]]`: instance i's head and internal parts.
    /// (Like the per-object tables, in work files past the memory budget.)
    part_start: Table<usize>,
    parts: Table<u32>,
    leaf_start: Table<usize>,
    leaves: Table<u32>,
    /// The instance whose head each object is, or NONE.
    instance_of: Table<u32>,
    /// The GC roots: what everyone reaches, so no structure's transitive size goes past one.
    root: Vec<bool>,
    /// The bytes of the reachable objects (what [`crate::measure::heap_bytes`] counts).
    pub(crate) heap_bytes: u64,
}

/// Finds every structure of `descriptions` among the reachable objects of `heap`. Time linear
/// in the heap plus the sizes of the structures found (an object shared by several is visited
/// once for each); memory a few integers per object.
pub fn detect(heap: &TypedHeap, descriptions: &Descriptions) -> Structures {
    let plan = Plan::new(heap, descriptions);
    let g = &heap.graph;
    let live = reachable(g);
    let n = g.object_count();
    let types = &heap.objects.type_of;
    // A type index beyond the table (a reader's inconsistency) describes nothing.
    let type_of = |o: u32| types.get(o as usize).copied().unwrap_or(NONE);
    let roles = crate::entries::Roles::new(heap, descriptions);
    let heads: Vec<u32> = (0..n as u32)
        .filter(|&o| live[o as usize] && plan.is_head(type_of(o)) && roles.admits(heap, o))
        .collect();
    let mut instance_of = Table::filled(n, NONE);
    for (i, &h) in heads.iter().enumerate() {
        instance_of[h as usize] = i as u32;
    }
    let mut stamp = Table::filled(n, NONE);
    let (mut part_start, mut leaf_start) = (Table::from(vec![0]), Table::from(vec![0]));
    let (mut parts, mut leaves) = (Table::default(), Table::default());
    let mut contained = vec![false; heads.len()];
    let mut stack = Vec::new();
    for (i, &head) in heads.iter().enumerate() {
        let i = i as u32;
        stamp[head as usize] = i;
        parts.push(head);
        stack.push(head);
        while let Some(o) = stack.pop() {
            let row = plan.row(type_of(o));
            for &c in g.referents(o) {
                if stamp[c as usize] == i {
                    continue;
                }
                let c_type = type_of(c);
                let kind = plan.pointed(row, c_type);
                if kind == OUTSIDE {
                    continue;
                }
                stamp[c as usize] = i;
                // A head's type whose object a `requires` role turned away is no head.
                if plan.is_head(c_type) && instance_of[c as usize] != NONE {
                    contained[instance_of[c as usize] as usize] = true;
                    leaves.push(c);
                } else if kind == INTERNAL && plan.has_row(c_type) {
                    parts.push(c);
                    stack.push(c);
                } else {
                    leaves.push(c);
                }
            }
        }
        part_start.push(parts.len());
        leaf_start.push(leaves.len());
    }
    let tree = heap.dominators();
    let shallow = &g.shallow;
    let mut root = vec![false; n];
    for &r in &g.roots {
        root[r as usize] = true;
    }
    let mut s = Structures {
        instances: Vec::with_capacity(heads.len()),
        part_start,
        parts,
        leaf_start,
        leaves,
        instance_of,
        root,
        heap_bytes: live.iter().zip(shallow).filter(|(live, _)| **live).map(|(_, &bytes)| bytes).sum(),
    };
    for (i, &head) in heads.iter().enumerate() {
        let mut structure = Sizes::default();
        for &o in s.parts(i).iter().chain(s.leaves(i)) {
            structure.add(shallow[o as usize]);
        }
        let retained =
            Sizes { objects: u64::from(tree.subtree[head as usize]), bytes: tree.retained[head as usize] };
        s.instances.push(Instance {
            head,
            contained: contained[i],
            structure,
            deep_structure: Sizes::default(),
            retained,
        });
    }
    let mut scratch = Scratch::new(n);
    for i in 0..heads.len() {
        let mut deep = Sizes::default();
        s.visit_deep(i, &mut scratch, &mut |o| deep.add(shallow[o as usize]));
        s.instances[i].deep_structure = deep;
    }
    s
}

impl Structures {
    /// The head and internal parts of instance `i`.
    pub fn parts(&self, i: usize) -> &[u32] {
        &self.parts[self.part_start[i]..self.part_start[i + 1]]
    }

    /// The leaves of instance `i`, the heads of contained structures among them.
    pub fn leaves(&self, i: usize) -> &[u32] {
        &self.leaves[self.leaf_start[i]..self.leaf_start[i + 1]]
    }

    /// The structures instance `i` contains directly (heads among its leaves).
    pub fn contained(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.leaves(i).iter().filter_map(|&o| self.instance_of(o))
    }

    /// The instances no other structure contains.
    pub fn top_level(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.instances.len()).filter(|&i| !self.instances[i].contained)
    }

    /// The instance whose head `o` is.
    pub fn instance_of(&self, o: u32) -> Option<usize> {
        self.instance_of.get(o as usize).filter(|&&i| i != NONE).map(|&i| i as usize)
    }

    /// Calls `visit` once for every object of the deep closure of instance `i`: its own
    /// objects and, recursively, those of the structures it contains.
    pub fn visit_deep(&self, i: usize, scratch: &mut Scratch, visit: &mut dyn FnMut(u32)) {
        scratch.fresh();
        let mut pending = vec![i];
        while let Some(j) = pending.pop() {
            for &o in self.parts(j).iter().chain(self.leaves(j)) {
                if !scratch.mark(o) {
                    continue;
                }
                visit(o);
                if let Some(k) = self.instance_of(o).filter(|&k| k != j) {
                    pending.push(k);
                }
            }
        }
    }

    /// The leaves of the deep closure of instance `i` that are no structure's head: what the
    /// structure holds, seen through contained structures (a HashSet's elements).
    pub fn deep_leaves(&self, i: usize, scratch: &mut Scratch) -> Vec<u32> {
        scratch.fresh();
        let mut out = Vec::new();
        let mut pending = vec![i];
        // An instance is marked by its head (one walk marks heads and leaves alike: they are
        // different objects), so a map of a million lists is not a quadratic search.
        scratch.mark(self.instances[i].head);
        while let Some(j) = pending.pop() {
            for &o in self.leaves(j) {
                let fresh = scratch.mark(o);
                match self.instance_of(o) {
                    Some(k) if fresh => pending.push(k),
                    None if fresh => out.push(o),
                    _ => {}
                }
            }
        }
        out
    }

    /// Everything reachable from the head of instance `i` (its transitive size), whether it
    /// belongs to the structure or not, without passing through a GC root other than the head:
    /// what a root holds is held anyway (a map of `Class` objects would otherwise reach every
    /// static of the program). Linear in what it reaches, so callers ask for the instances
    /// they show.
    pub fn deep_size(&self, heap: &TypedHeap, i: usize, scratch: &mut Scratch) -> Sizes {
        deep_size(heap, self.instances[i].head, &self.root, scratch)
    }

    /// For every object, the instances that contain it (as a part or a leaf): the bottom-up
    /// view. `containers(o)` of the result lists them.
    pub fn containers(&self, object_count: usize) -> Containers {
        let mut start = Table::filled(object_count + 1, 0usize);
        for i in 0..self.instances.len() {
            for &o in self.parts(i).iter().chain(self.leaves(i)) {
                start[o as usize + 1] += 1;
            }
        }
        for o in 0..object_count {
            start[o + 1] += start[o];
        }
        let mut fill = start.clone();
        let mut list = Table::filled(start[object_count], 0u32);
        for i in 0..self.instances.len() {
            for &o in self.parts(i).iter().chain(self.leaves(i)) {
                list[fill[o as usize]] = i as u32;
                fill[o as usize] += 1;
            }
        }
        Containers { start, list }
    }
}

/// Everything reachable from `head` that is not behind another GC root.
pub(crate) fn deep_size(heap: &TypedHeap, head: u32, root: &[bool], scratch: &mut Scratch) -> Sizes {
    let g = &heap.graph;
    let mut size = Sizes::default();
    scratch.fresh();
    scratch.mark(head);
    let mut stack = vec![head];
    while let Some(o) = stack.pop() {
        size.add(g.shallow[o as usize]);
        for &c in g.referents(o) {
            if !root[c as usize] && scratch.mark(c) {
                stack.push(c);
            }
        }
    }
    size
}

/// Marks for one walk over the heap at a time: each walk starts with [`Scratch::fresh`], so no
/// table is cleared between walks. The table is made at the first walk: a scratch no walk
/// uses costs nothing.
#[derive(Debug, Clone)]
pub struct Scratch {
    stamp: Table<u32>,
    now: u32,
    object_count: usize,
}

impl Scratch {
    /// For a heap of `object_count` objects (or a smaller one).
    pub fn new(object_count: usize) -> Scratch {
        Scratch { stamp: Table::default(), now: 0, object_count }
    }

    pub(crate) fn fresh(&mut self) {
        if self.stamp.len() < self.object_count {
            self.stamp = Table::filled(self.object_count, 0);
        }
        self.now = self.now.wrapping_add(1);
        if self.now == 0 {
            self.stamp.fill(0);
            self.now = 1;
        }
    }

    /// Marks `o`; false if this walk had marked it already.
    pub(crate) fn mark(&mut self, o: u32) -> bool {
        let seen = self.stamp[o as usize] == self.now;
        self.stamp[o as usize] = self.now;
        !seen
    }
}

/// The instances containing each object, in compact form.
#[derive(Debug, Clone)]
pub struct Containers {
    start: Table<usize>,
    list: Table<u32>,
}

impl Containers {
    pub fn of(&self, o: u32) -> &[u32] {
        let o = o as usize;
        &self.list[self.start[o]..self.start[o + 1]]
    }
}

#[cfg(test)]
pub(crate) mod tests;
