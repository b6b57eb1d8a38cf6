//! The dominator tree of a heap. Object `d` dominates `v` when every path from the GC roots to
//! `v` passes through `d`: freeing `d` frees `v`, so the bytes of `d`'s dominator subtree are
//! what `d` alone keeps alive (its retained size).
//!
//! The tree is built with semi-NCA (Georgiadis' variant of Lengauer–Tarjan): semi-dominators by
//! Lengauer–Tarjan's path-compressed forest, then each immediate dominator as the nearest common
//! ancestor of its DFS parent and its semi-dominator in the tree built so far. Everything is
//! iterative, on flat `u32` arrays indexed by DFS number: real heaps have reference chains of
//! millions of objects, and recursion over them would overflow the stack.

use crate::HeapGraph;

/// In [`DominatorTree::idom`]: dominated only by the virtual root above all GC roots (a root,
/// or an object held through several roots).
pub const VIRTUAL_ROOT: u32 = u32::MAX - 1;
/// In [`DominatorTree::idom`]: not reachable from the GC roots.
pub const UNREACHABLE: u32 = u32::MAX;

/// The dominator tree over the objects reachable from the GC roots.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DominatorTree {
    /// Immediate dominator of each object: an object index, VIRTUAL_ROOT, or UNREACHABLE.
    pub idom: Vec<u32>,
    /// Shallow bytes of each object's dominator subtree (its retained size); 0 if unreachable.
    pub retained: Vec<u64>,
    /// Reachable objects in pre-order of the dominator tree (every object after its idom, each
    /// subtree contiguous).
    pub preorder: Vec<u32>,
}

impl DominatorTree {
    /// The number of objects in each object's dominator subtree (itself included; 0 if
    /// unreachable), by one bottom-up pass over the reverse preorder.
    pub fn subtree_objects(&self) -> Vec<u32> {
        let mut size = vec![0u32; self.idom.len()];
        for &o in self.preorder.iter().rev() {
            size[o as usize] += 1;
            let d = self.idom[o as usize];
            if d != VIRTUAL_ROOT {
                size[d as usize] += size[o as usize];
            }
        }
        size
    }

    /// The position of each reachable object in [`Self::preorder`] (unreachable: `u32::MAX`).
    pub fn positions(&self) -> Vec<u32> {
        let mut pos = vec![u32::MAX; self.idom.len()];
        for (p, &o) in self.preorder.iter().enumerate() {
            pos[o as usize] = p as u32;
        }
        pos
    }
}

/// The dominator tree of what is reachable from `g.roots`, with a virtual root above the roots.
/// Time O(m α(m, n)) for the semi-dominators plus the NCA walks (linear on heap-shaped graphs);
/// memory about 10 `u32`s per reachable object plus one per reference.
pub fn dominators(g: &HeapGraph) -> DominatorTree {
    assert!(g.object_count() < VIRTUAL_ROOT as usize, "heap graph too large for u32 object indices");
    let dfs = Dfs::new(g);
    let (pred_start, preds) = predecessors(g, &dfs);
    let semi = semi_dominators(&dfs.parent, &pred_start, &preds);
    drop((pred_start, preds));
    let idom = nearest_common_ancestors(&dfs.parent, &semi);
    assemble(g, &dfs, &idom)
}

/// A depth-first spanning tree from the virtual root, by DFS number: the virtual root is 0,
/// reachable objects `1..vertex.len()` in the order the search first enters them.
struct Dfs {
    /// The DFS number of each object, or UNREACHABLE.
    number: Vec<u32>,
    /// The object with each number (`vertex[0]` is VIRTUAL_ROOT).
    vertex: Vec<u32>,
    /// The number of each number's parent in the spanning tree (`parent[0] == 0`).
    parent: Vec<u32>,
}

impl Dfs {
    fn new(g: &HeapGraph) -> Dfs {
        let mut number = vec![UNREACHABLE; g.object_count()];
        let mut vertex = vec![VIRTUAL_ROOT];
        let mut parent = vec![0];
        // Frames: (number, index of the next successor to look at).
        let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
        while let Some(frame) = stack.last_mut() {
            let targets = successors(g, frame.0, vertex[frame.0 as usize]);
            let next = targets[frame.1..].iter().position(|&t| number[t as usize] == UNREACHABLE);
            match next {
                Some(i) => {
                    let t = targets[frame.1 + i];
                    frame.1 += i + 1;
                    let v = vertex.len() as u32;
                    parent.push(frame.0);
                    number[t as usize] = v;
                    vertex.push(t);
                    stack.push((v, 0));
                }
                None => {
                    stack.pop();
                }
            }
        }
        Dfs { number, vertex, parent }
    }
}

/// The successors of DFS number `v` (object `o`): the GC roots for the virtual root.
fn successors(g: &HeapGraph, v: u32, o: u32) -> &[u32] {
    if v == 0 { &g.roots } else { g.referents(o) }
}

/// The predecessors of each DFS number as DFS numbers, in compressed sparse row form. Only
/// reachable objects have numbers, so references from unreachable objects are left out.
fn predecessors(g: &HeapGraph, dfs: &Dfs) -> (Vec<usize>, Vec<u32>) {
    let count = dfs.vertex.len();
    let mut start = vec![0usize; count + 1];
    for (v, &o) in dfs.vertex.iter().enumerate() {
        for &t in successors(g, v as u32, o) {
            start[dfs.number[t as usize] as usize + 1] += 1;
        }
    }
    for i in 0..count {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut preds = vec![0u32; start[count]];
    for (v, &o) in dfs.vertex.iter().enumerate() {
        for &t in successors(g, v as u32, o) {
            let w = dfs.number[t as usize] as usize;
            preds[fill[w]] = v as u32;
            fill[w] += 1;
        }
    }
    (start, preds)
}

/// The semi-dominator of each DFS number (Lengauer–Tarjan, simple linking with path
/// compression). Numbers are processed in decreasing order; those above the current one are
/// linked into the forest, so `ancestor[v] > w` means `v` still has a linked ancestor.
fn semi_dominators(parent: &[u32], pred_start: &[usize], preds: &[u32]) -> Vec<u32> {
    let count = parent.len();
    let mut ancestor = parent.to_vec();
    // The smallest semi-dominator on the compressed forest path from each number (itself while
    // it is not processed: then its own number is all that is known).
    let mut label: Vec<u32> = (0..count as u32).collect();
    let mut semi = label.clone();
    let mut path = Vec::new();
    for w in (1..count).rev() {
        let mut s = parent[w];
        for &v in &preds[pred_start[w]..pred_start[w + 1]] {
            s = s.min(eval(v, w as u32, &mut ancestor, &mut label, &mut path));
        }
        semi[w] = s;
        label[w] = s;
    }
    semi
}

/// The smallest label on the forest path from `v` up to (not including) its tree's root, with
/// that path compressed. `path` is scratch space so the walk needs no recursion.
fn eval(v: u32, w: u32, ancestor: &mut [u32], label: &mut [u32], path: &mut Vec<u32>) -> u32 {
    if ancestor[v as usize] <= w {
        return label[v as usize];
    }
    let mut u = v;
    while ancestor[u as usize] > w {
        path.push(u);
        u = ancestor[u as usize];
    }
    // `u` is the topmost linked number; its label already covers the rest of the path.
    let mut above = u as usize;
    while let Some(x) = path.pop() {
        let x = x as usize;
        label[x] = label[x].min(label[above]);
        ancestor[x] = ancestor[above];
        above = x;
    }
    label[v as usize]
}

/// The immediate dominator of each DFS number: the nearest ancestor of its DFS parent, in the
/// dominator tree built so far, whose number is at most its semi-dominator.
fn nearest_common_ancestors(parent: &[u32], semi: &[u32]) -> Vec<u32> {
    let mut idom = parent.to_vec();
    for w in 1..parent.len() {
        let mut d = idom[w];
        while d > semi[w] {
            d = idom[d as usize];
        }
        idom[w] = d;
    }
    idom
}

/// Retained sizes bottom-up (a dominator's number is below its children's), then preorder
/// positions top-down: each child takes the next free slot of its dominator's range.
fn assemble(g: &HeapGraph, dfs: &Dfs, idom: &[u32]) -> DominatorTree {
    let count = dfs.vertex.len();
    let mut size = vec![1u32; count];
    let mut bytes = vec![0u64; count];
    for v in (1..count).rev() {
        bytes[v] += g.shallow[dfs.vertex[v] as usize];
        let d = idom[v] as usize;
        size[d] += size[v];
        bytes[d] += bytes[v];
    }
    let n = g.object_count();
    let mut tree =
        DominatorTree { idom: vec![UNREACHABLE; n], retained: vec![0; n], preorder: vec![0; count - 1] };
    // `next[v]`: the next free position in the subtree of `v` (the virtual root owns none).
    // Until `v` is placed it still holds the subtree size of `v`, which its dominator reserves.
    let mut next = size;
    next[0] = 0;
    for v in 1..count {
        let d = idom[v] as usize;
        let at = next[d];
        next[d] += next[v];
        next[v] = at + 1;
        let o = dfs.vertex[v] as usize;
        tree.preorder[at as usize] = o as u32;
        tree.idom[o] = if d == 0 { VIRTUAL_ROOT } else { dfs.vertex[d] };
        tree.retained[o] = bytes[v];
    }
    tree
}

#[cfg(test)]
pub(crate) mod tests;
