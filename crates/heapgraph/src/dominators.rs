//! The dominator tree of a heap. Object `d` dominates `v` when every path from the GC roots to
//! `v` passes through `d`: freeing `d` frees `v`, so the bytes of `d`'s dominator subtree are
//! what `d` alone keeps alive (its retained size).
//!
//! The tree is built with Lengauer–Tarjan (simple linking, path compression): a depth-first
//! search numbers the objects, semi-dominators come from a path-compressed forest, and the
//! immediate dominators from buckets of equal semi-dominators. Not semi-NCA: its walk up the
//! tree for each object is quadratic when many objects below a deep list are also held from
//! near the top. Everything is iterative, on flat `u32` arrays indexed by DFS number: real heaps
//! have reference chains of millions of objects, and recursion would overflow the stack.

use rustc_hash::FxHashMap as HashMap;

use crate::HeapGraph;
use crate::narrow::{ESCAPE, Narrow};
use crate::spanning::{Referrers, Spanning};
use crate::table::{Plain, Table};

// The depth-first numbering's markers are the tree's too: they live with the numbering, which
// the tree is built from, so that neither file imports the other.
pub use crate::spanning::{UNREACHABLE, VIRTUAL_ROOT};

/// The dominator tree over the objects reachable from the GC roots.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DominatorTree {
    /// Immediate dominator of each object: an object index, VIRTUAL_ROOT, or UNREACHABLE.
    /// (Each table is in memory or in a work file past the budget: [`Table`].) Empty in a tree
    /// the pipeline assembles for one pass down its preorder in parts: see `idom_above`.
    pub idom: Table<u32>,
    /// Where `idom` is empty, the immediate dominators of the objects above the first object of
    /// each part of that pass (each one's chain up to the virtual root), the only ones it reads
    /// ([`Dominators::Above`]); empty otherwise. [`DominatorTree::dominator`] reads either.
    pub idom_above: HashMap<u32, u32>,
    /// Shallow bytes of each object's dominator subtree (its retained size); 0 if unreachable.
    /// A tree the pipeline assembles for its retainer paths alone, with the retained sizes a
    /// byte each beside it, holds here only those too large for a byte
    /// (`RetainedBytes::Narrow`); no such tree leaves the pipeline.
    pub retained: Table<u64>,
    /// Reachable objects in pre-order of the dominator tree (every object after its idom, each
    /// subtree contiguous).
    pub preorder: Table<u32>,
    /// The number of objects in each object's dominator subtree (itself included; 0 if
    /// unreachable): its subtree is `subtree[o]` entries of the preorder from `o` on.
    pub subtree: Table<u32>,
    /// The position of each object in the preorder ([`UNPLACED`] if unreachable): written as
    /// the preorder is, so the analyses that sort by it need not scatter a table of their own.
    pub position: Table<u32>,
}

/// In [`DominatorTree::position`]: not in the preorder (unreachable).
pub const UNPLACED: u32 = u32::MAX;

impl DominatorTree {
    /// The immediate dominator of object `o`, from `idom`, or from `idom_above` where the tree
    /// has only those (then `o` must be above a part's first object).
    pub fn dominator(&self, o: u32) -> u32 {
        match self.idom.get(o as usize) {
            Some(&d) => d,
            None => self.idom_above[&o],
        }
    }
}

/// The dominator tree of what is reachable from `g.roots`, with a virtual root above the roots.
/// Time O(m log n) for m references and n objects, whatever the shape. Memory: about 9 `u32`s
/// per object plus one per reference outside the depth-first spanning tree, besides the result.
pub fn dominators(g: &HeapGraph) -> DominatorTree {
    let Spanning { vertex, parent, referrers, .. } = Spanning::new(g);
    let idom = immediate_dominators(&parent, &referrers);
    drop((parent, referrers));
    assemble(&g.shallow, &vertex, &idom)
}

/// The end of a bucket list: number 0, the virtual root, is in no bucket. Zero, so the lists'
/// tables start as fresh (zeroed) tables, whose work files past the budget need not be written
/// before they are used.
const NONE: u32 = 0;

/// A number's entry in Lengauer–Tarjan's forest, side by side as path compression reads and
/// writes both.
#[derive(Clone, Copy)]
#[repr(C)]
struct Link {
    /// The forest ancestor (compressed); a link counts once the ancestor itself is linked.
    ancestor: u32,
    /// The number with the smallest semi-dominator on the path to that ancestor.
    label: u32,
}

// SAFETY: two `u32`s, no padding.
unsafe impl Plain for Link {}

/// The immediate dominator of each DFS number (Lengauer–Tarjan with simple linking and path
/// compression: O(m log n) whatever the shape). Numbers are processed in decreasing order and
/// linked to their DFS parent as they go, so the linked numbers are those from `w` up.
/// `referrers` are a [`Spanning`]'s: a number's referrers besides its parent.
pub(crate) fn immediate_dominators(parent: &[u32], referrers: &Referrers) -> Table<u32> {
    let count = parent.len();
    // A number not yet processed has itself as its label.
    let mut forest = Table::from_fn(count, |v| Link { ancestor: parent[v], label: v as u32 });
    // The forest holds the parents: a number's ancestor is only compressed once the number is
    // linked, after its own step, so `forest[w].ancestor` is still its parent at step `w`.
    // The numbers whose semi-dominator is each number, as linked lists: a list's head in
    // `bucket`, a number's link to the next in `idom`, unused until it gets its dominator (or
    // a number with the same one). A number's own bucket is done with before its step (its
    // first child, the next number, came just before and emptied it; none is added later, as
    // a semi-dominator is below its number), so from its step on the number's entry there
    // holds its semi-dominator: two tables where semi-dominators, heads, links and dominators
    // would take four, and the forest, which is read at every step, is written only where a
    // path is compressed.
    let mut idom = Table::filled(count, NONE);
    let mut bucket = Table::filled(count, NONE);
    let mut path = Vec::new();
    for w in (1..count).rev() {
        let p = forest[w].ancestor;
        // The parent is a referrer, not listed among the others.
        let mut s = p;
        for &v in referrers.of(w as u32) {
            // A number below `w` is not processed yet, nor is `w` (a reference to itself) done:
            // its own number stands for its semi-dominator, which `bucket` does not hold yet.
            let candidate = match v <= w as u32 {
                true => v,
                false => bucket[eval(v, w as u32 + 1, &mut forest, &bucket, &mut path) as usize],
            };
            s = s.min(candidate);
        }
        idom[w] = bucket[s as usize];
        bucket[s as usize] = w as u32;
        bucket[w] = s;
        // `w` is linked now; every number whose semi-dominator is its parent gets its
        // immediate dominator, or a number with the same one.
        let mut v = std::mem::replace(&mut bucket[p as usize], NONE);
        while v != NONE {
            let u = eval(v, w as u32, &mut forest, &bucket, &mut path);
            // `v` is in the bucket of `p`: `p` is its semi-dominator.
            let next = std::mem::replace(&mut idom[v as usize], if bucket[u as usize] < p { u } else { p });
            v = next;
        }
    }
    // Every number has been processed, so `bucket` now holds the semi-dominators.
    let semi = bucket;
    for w in 1..count {
        if idom[w] != semi[w] {
            idom[w] = idom[idom[w] as usize];
        }
    }
    // The virtual root's entry is never read as a dominator; it stays as the tables had it.
    idom[0] = 0;
    idom
}

/// The number with the smallest semi-dominator (`semi`, for the processed numbers) on the
/// forest path from `v` up to (not including) its tree's root, with that path compressed.
/// Numbers from `linked` up are linked. `path` is scratch space so the walk needs no recursion.
fn eval(v: u32, linked: u32, forest: &mut [Link], semi: &[u32], path: &mut Vec<u32>) -> u32 {
    if forest[v as usize].ancestor < linked {
        return forest[v as usize].label;
    }
    let mut u = v;
    while forest[u as usize].ancestor >= linked {
        path.push(u);
        u = forest[u as usize].ancestor;
    }
    // `u` is the topmost linked number; its label already covers the rest of the path.
    let mut above = forest[u as usize];
    while let Some(x) = path.pop() {
        let x = &mut forest[x as usize];
        if semi[above.label as usize] < semi[x.label as usize] {
            x.label = above.label;
        }
        x.ancestor = above.ancestor;
        above = *x;
    }
    forest[v as usize].label
}

/// Retained sizes and subtree sizes bottom-up (a dominator's number is below its children's),
/// then preorder positions top-down: each child takes the next free slot of its dominator's range
/// (and the preorder and the positions are written together, the one the other's inverse).
pub(crate) fn assemble(shallow: &[u64], vertex: &[u32], idom: &[u32]) -> DominatorTree {
    assemble_with(shallow.len(), |o| shallow[o], vertex, idom, RetainedBytes::Full, Dominators::Every)
}

/// Which objects' immediate dominators [`assemble_with`] writes.
pub(crate) enum Dominators<'a> {
    /// Every object's, in [`DominatorTree::idom`].
    Every,
    /// Only those of the objects above the preorder's given positions (sorted), in
    /// [`DominatorTree::idom_above`]: for a tree read by nothing but a pass down its preorder
    /// in parts starting there, which climbs the dominators only above each part's first
    /// object. The table by object would be written at random once per object, a third of the
    /// sums' random writes (a 96 M-object dump's first import in a 2 GiB cgroup: 0.91x paired,
    /// its sums 1.7-1.8 s instead of 3.3-3.7; unbounded 0.95x).
    Above(&'a [usize]),
}

/// Where [`assemble_with`] writes each object's retained bytes.
pub(crate) enum RetainedBytes<'a> {
    /// In the tree's table.
    Full,
    /// In the tree's table, and a byte each in the narrow table (zeros at first: unreachable
    /// objects retain nothing).
    FullAndNarrow(&'a mut Narrow),
    /// A byte each in the narrow table, and in the tree's table only where they escape it
    /// ([`Narrow::get`] reads them back): for a tree whose retained bytes nothing reads but
    /// through the narrow table. Past the budget, the tree's table is then a work file that
    /// is mostly never written (a 96 M-object dump's first import in a 2 GiB cgroup: the
    /// assembly in 5.1 s instead of 6.4-6.7).
    Narrow(&'a mut Narrow),
}

/// [`assemble`] for `n` objects, reading each object's shallow bytes from `shallow`, and
/// writing the retained bytes where `retained` says.
pub(crate) fn assemble_with(
    n: usize,
    shallow: impl Fn(usize) -> u64,
    vertex: &[u32],
    idom: &[u32],
    mut retained: RetainedBytes,
    written: Dominators,
) -> DominatorTree {
    let count = vertex.len();
    // The retained sizes are summed in the tree's own tables, by object: a table of them by
    // number, copied into it afterwards, was 8 bytes per object more at the import's peak, and
    // on a machine whose host takes back the memory its guest frees, each GiB more than the
    // process held before costs seconds (the dominator phase of a 96 M-object dump took
    // 13.4-14.1 s instead of 18.0-18.6, unbounded, paired). Tables that start at zero are
    // fresh ones, whose work files past the budget are not written before the pass. The tree
    // outlives this pass and is then mostly swept in order: past half the budget its tables go
    // to work files, leaving the memory to the tables the analyses after it read at random
    // (retained sizes and retainer paths took 12-13 s instead of 8-10 s in a 2 GiB cgroup with
    // the tree in memory, single runs).
    let mut bytes = Table::filled_in_order(n, 0u64);
    // Summed in the table of the positions, which the placing fills afterwards, while a sum
    // fits below `u32::MAX` (then in `bytes`): 4 bytes an object read and written at random
    // instead of 8, and each object's final sum written to `bytes` once, or not at all where
    // it stays narrow. Read and written at random by the sums and the placing, and then read
    // in order: in memory if it fits the budget for that, in a work file from the end of the
    // assembly on where a table read in order would not have been in memory (a 96 M-object
    // dump's first import in a 2 GiB cgroup: 0.97x paired, the placing 1.3 s instead of 2.0;
    // made as read in order, it and every table here were in work files while 640 MB of the
    // budget of 1 GiB were unused).
    let mut sums = Table::filled(n, 0u32);
    // The objects in each object's subtree, itself included, summed the same way: the tree's
    // own table, where a table by number was 4 bytes per object more at the peak.
    let mut subtree = Table::filled_in_order(n, 0u32);
    // Zeros at first, as above; the unreachable objects' markers come after the placing.
    let every = matches!(written, Dominators::Every);
    let mut dominators = Table::filled_in_order(if every { n } else { 0 }, 0);
    for v in (1..count).rev() {
        let o = vertex[v] as usize;
        let own = add(&mut sums, &mut bytes, o, shallow(o));
        subtree[o] += 1;
        // Everything `o` dominates has a larger number: its sizes are final now. They and its
        // dominator are written here, in the pass that has `o`'s pages at hand, rather than in
        // the placing's, which then reads only the subtree sizes by object: in a 2 GiB cgroup
        // the placing's tables past the budget did not fit beside each other (a 96 M-object
        // dump's first import there: 0.97x paired; unbounded 1.01x).
        let full = match &mut retained {
            RetainedBytes::Full => true,
            RetainedBytes::FullAndNarrow(narrow) => {
                narrow.set(o, own);
                true
            }
            RetainedBytes::Narrow(narrow) => {
                narrow.set(o, own);
                narrow.values[o] == ESCAPE
            }
        };
        // A wide sum is there already.
        if full && sums[o] != WIDE {
            bytes[o] = own;
        }
        // The virtual root (number 0) is no object and retains nothing of its own.
        let dominator = match idom[v] as usize {
            0 => VIRTUAL_ROOT,
            d => {
                let (d, below) = (vertex[d] as usize, subtree[o]);
                add(&mut sums, &mut bytes, d, own);
                subtree[d] += below;
                d as u32
            }
        };
        if every {
            dominators[o] = dominator;
        }
    }
    let watched = match written {
        Dominators::Every => Watched::new(&[], count),
        Dominators::Above(positions) => Watched::new(positions, count),
    };
    let mut tree = DominatorTree {
        idom: dominators,
        idom_above: HashMap::default(),
        retained: bytes,
        preorder: Table::filled_in_order(count - 1, 0),
        subtree,
        position: sums,
    };
    // While the objects are placed, `position[o]` of a placed object is the next free
    // position in its subtree; the subtrees below the virtual root take theirs from 0 on.
    let mut next_below_root = 0;
    for v in 1..count {
        let (d, o) = (idom[v] as usize, vertex[v] as usize);
        let size = tree.subtree[o];
        let at = match d {
            0 => {
                next_below_root += size;
                next_below_root - size
            }
            d => {
                let d = vertex[d] as usize;
                let at = tree.position[d];
                tree.position[d] = at + size;
                at
            }
        };
        tree.position[o] = at + 1;
        tree.preorder[at as usize] = o as u32;
        if watched.has(at) {
            chain_above(v, vertex, idom, &mut tree.idom_above);
        }
    }
    finish_positions(&mut tree);
    tree.position.read_in_order_from_now();
    tree
}

/// The dominators of number `v`'s object and of those above it, by object, into `above`: by
/// the numbers' dominators up to the virtual root, or to an object already there.
fn chain_above(mut v: usize, vertex: &[u32], idom: &[u32], above: &mut HashMap<u32, u32>) {
    loop {
        let d = idom[v] as usize;
        let dominator = if d == 0 { VIRTUAL_ROOT } else { vertex[d] };
        if above.insert(vertex[v], dominator).is_some() || d == 0 {
            return;
        }
        v = d;
    }
}

/// Preorder positions the placing watches for, with a bit for each run of positions that
/// holds one (a few KiB, in cache): the placing of every object pays a bit test.
struct Watched {
    runs: Vec<u64>,
    shift: u32,
    positions: Vec<u32>,
}

impl Watched {
    /// `positions` (sorted) among `count` positions.
    fn new(positions: &[usize], count: usize) -> Watched {
        // At most 2^16 runs.
        let shift = (usize::BITS - count.leading_zeros()).saturating_sub(16);
        let mut runs = vec![0u64; if positions.is_empty() { 0 } else { (count >> shift) / 64 + 1 }];
        for &p in positions.iter().filter(|&&p| p < count) {
            runs[(p >> shift) / 64] |= 1 << ((p >> shift) % 64);
        }
        let positions = positions.iter().filter_map(|&p| u32::try_from(p).ok()).collect();
        Watched { runs, shift, positions }
    }

    fn has(&self, at: u32) -> bool {
        let run = (at >> self.shift) as usize;
        let set = self.runs.get(run / 64).is_some_and(|bits| bits & (1 << (run % 64)) != 0);
        set && self.positions.binary_search(&at).is_ok()
    }
}

/// In the table of the sums: the sum is in the table of the retained bytes.
const WIDE: u32 = u32::MAX;

/// Adds `amount` to object `o`'s sum, in `sums` while it fits below [`WIDE`], else in `wide`;
/// returns the new sum.
fn add(sums: &mut [u32], wide: &mut [u64], o: usize, amount: u64) -> u64 {
    let sum = match sums[o] {
        WIDE => wide[o],
        sum => u64::from(sum),
    } + amount;
    match u32::try_from(sum) {
        Ok(sum) if sum != WIDE => sums[o] = sum,
        _ => (sums[o], wide[o]) = (WIDE, sum),
    }
    sum
}

/// After the placing, a placed object's next free position is past its subtree: its own
/// position is its subtree's size before that. An object the placing did not reach has no
/// subtree: its dominator and position get their markers. One sweep in object order.
fn finish_positions(tree: &mut DominatorTree) {
    use rayon::prelude::*;
    let DominatorTree { idom, subtree, position, .. } = tree;
    let chunk = 1 << 20;
    let subtrees = subtree.par_chunks(chunk);
    if idom.is_empty() {
        // A tree with `idom_above` only: the objects there are all placed.
        position.par_chunks_mut(chunk).zip(subtrees).for_each(|(position, subtree)| {
            for (position, &size) in position.iter_mut().zip(subtree) {
                *position = if size == 0 { UNPLACED } else { *position - size };
            }
        });
        return;
    }
    let chunks = position.par_chunks_mut(chunk).zip(idom.par_chunks_mut(chunk)).zip(subtrees);
    chunks.for_each(|((position, idom), subtree)| {
        for ((position, idom), &size) in position.iter_mut().zip(idom).zip(subtree) {
            match size {
                0 => (*idom, *position) = (UNREACHABLE, UNPLACED),
                size => *position -= size,
            }
        }
    });
}

#[cfg(test)]
pub(crate) mod tests;
