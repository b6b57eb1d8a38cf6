//! Retainer paths: why a group is alive. From the group's objects the path climbs the dominator
//! tree group by group: each object leaves its group at its *exit*, the nearest dominator in
//! another group (dominators in the same group are skipped: a linked list's nodes dominate each
//! other), and the next step is the group whose exits carry most of the group's bytes. The path
//! follows the dominators of these objects, not of the whole group they fall into, so one map
//! among thousands of the same type is found through its own holder.

use rayon::prelude::*;

use crate::HeapGraph;
use crate::dominators::{DominatorTree, VIRTUAL_ROOT};
use crate::table::Table;

/// The most steps of a path; groups may repeat (String → Person → String), but a path cannot be
/// longer than the dominator tree is deep.
pub const MAX_STEPS: usize = 64;

/// One group on a retainer path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetainerStep {
    pub group: u32,
    /// The step's objects: all reachable members at step 0, then the distinct exits in `group`.
    pub objects: u64,
    /// Their shallow bytes.
    pub bytes: u64,
    /// The bytes of the union of their dominator subtrees (nothing counted twice).
    pub retained_bytes: u64,
}

/// Why a group is alive.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RetainerPath {
    /// From the group itself (`steps[0]`) up to the root-most holder.
    pub steps: Vec<RetainerStep>,
    /// The objects of the last step that hang directly below the virtual root (the GC roots, or
    /// objects held jointly by several roots), so the caller can name their root kinds. Where a
    /// last-step object is held through others of its group (a list's later nodes through its
    /// head), the top-most of them is listed. Empty only when the path stopped at MAX_STEPS
    /// before reaching them.
    pub rooted: Vec<u32>,
    /// One object per step, each held by the next (asked for with
    /// [`retainer_paths_represented`], else empty): the next step's representative is the exit
    /// of this step's. The last step's is its heaviest object (the most of the group's bytes
    /// lead to it), each lower one the first (in preorder) of those whose exit is the one above.
    pub representatives: Vec<u32>,
}

/// The retainer path of every group with reachable objects (None for the others); every
/// `g.group[o]` must be below `group_count`.
///
/// Cost: O(n + Σ over groups of Σ over their steps of s·log s) for a step of s objects, where a
/// step never has more objects than its group and a path at most MAX_STEPS steps, so at worst
/// O(MAX_STEPS · n log n) and in practice a few times n: the exits (and top-most same-group
/// holders) of all objects are computed once in one preorder pass, and each step only looks at
/// its own objects (no per-group walk of the heap or of a list; the exits are a sparse set, never
/// cleared). Memory: 5 `u32`s per object (exit, top-most holder, preorder position, members by
/// group, the sparse set's index).
pub fn retainer_paths(g: &HeapGraph, tree: &DominatorTree, group_count: usize) -> Vec<Option<RetainerPath>> {
    paths(g, tree, group_count, false)
}

/// [`retainer_paths`] with a representative object per step ([`RetainerPath::representatives`]),
/// for naming the references along the path. One more `u32` per object of scratch space.
pub fn retainer_paths_represented(
    g: &HeapGraph,
    tree: &DominatorTree,
    group_count: usize,
) -> Vec<Option<RetainerPath>> {
    paths(g, tree, group_count, true)
}

fn paths(
    g: &HeapGraph,
    tree: &DominatorTree,
    group_count: usize,
    represent: bool,
) -> Vec<Option<RetainerPath>> {
    let climb = Climb::new(g, tree, group_count);
    let (start, members) = members_by_group(g, tree, group_count);
    let members_of = |group: usize| &members[start[group]..start[group + 1]];
    // Groups are independent: each worker takes the next group, largest first, with scratch
    // space of its own (one `u32` per object each).
    let mut order: Vec<usize> = (0..group_count).filter(|&group| !members_of(group).is_empty()).collect();
    order.sort_by_key(|&group| std::cmp::Reverse(members_of(group).len()));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = rayon::current_num_threads().clamp(1, order.len().max(1));
    let found: Vec<Vec<(usize, RetainerPath)>> = (0..workers)
        .into_par_iter()
        .map(|_| {
            let mut scratch = Scratch::new(g.object_count(), group_count);
            scratch.represent = represent;
            let mut found = Vec::new();
            while let Some(&group) = order.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                found.push((group, climb.path(group as u32, members_of(group), &mut scratch)));
            }
            found
        })
        .collect();
    let mut paths = vec![None; group_count];
    for (group, path) in found.into_iter().flatten() {
        paths[group] = Some(path);
    }
    paths
}

/// The reachable objects of each group in preorder (a counting sort), so that members come
/// sorted by subtree for the union of their subtrees.
fn members_by_group(g: &HeapGraph, tree: &DominatorTree, group_count: usize) -> (Vec<usize>, Table<u32>) {
    let mut start = vec![0usize; group_count + 1];
    for &o in &tree.preorder {
        start[g.group[o as usize] as usize + 1] += 1;
    }
    for i in 0..group_count {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut members = Table::filled(tree.preorder.len(), 0u32);
    for &o in &tree.preorder {
        let group = g.group[o as usize] as usize;
        members[fill[group]] = o;
        fill[group] += 1;
    }
    (start, members)
}

/// What every path needs about every object, computed once.
struct Climb<'a> {
    g: &'a HeapGraph,
    tree: &'a DominatorTree,
    /// The nearest dominator in another group, or VIRTUAL_ROOT.
    exit: Table<u32>,
    /// Where the exit is VIRTUAL_ROOT: the top-most dominator in the object's own group (or
    /// the object itself), the one hanging below the virtual root.
    top: Table<u32>,
    pos: Table<u32>,
}

/// Per-step scratch space. The exits of a step are a sparse set: `exits[at[x]] == x` says `x`
/// is one (whatever `at` held before), so nothing is cleared between steps and only one `u32`
/// per object is kept; weights and children sit beside the exits, as many as there are.
struct Scratch {
    at: Table<u32>,
    exits: Table<u32>,
    /// Bytes of the path's group that reach each exit.
    weights: Table<u64>,
    /// Per exit (when representatives are asked for): the first object of the current step
    /// (in preorder) that leads to it.
    children: Table<u32>,
    represent: bool,
    /// Per group of the exits: (bytes reaching it, objects of the current step leading to it).
    tally: Vec<(u64, u64)>,
    touched: Vec<u32>,
}

impl Scratch {
    fn new(n: usize, group_count: usize) -> Scratch {
        Scratch {
            at: Table::filled(n, 0),
            exits: Table::default(),
            weights: Table::default(),
            children: Table::default(),
            represent: false,
            tally: vec![(0, 0); group_count],
            touched: Vec::new(),
        }
    }

    /// Where `x` is in `list`, if `at` says so truly.
    fn find(at: &[u32], list: &[u32], x: u32) -> Option<usize> {
        let i = at[x as usize] as usize;
        (list.get(i) == Some(&x)).then_some(i)
    }
}

impl<'a> Climb<'a> {
    fn new(g: &'a HeapGraph, tree: &'a DominatorTree, group_count: usize) -> Climb<'a> {
        debug_assert!(g.group.iter().all(|&h| (h as usize) < group_count));
        let mut exit = Table::filled(g.object_count(), VIRTUAL_ROOT);
        let mut top = Table::from_fn(g.object_count(), |o| o as u32);
        for &o in &tree.preorder {
            let (o, d) = (o as usize, tree.idom[o as usize] as usize);
            if d == VIRTUAL_ROOT as usize {
                continue;
            }
            if g.group[d] == g.group[o] {
                (exit[o], top[o]) = (exit[d], top[d]);
            } else {
                exit[o] = d as u32;
            }
        }
        let mut pos = Table::filled(g.object_count(), u32::MAX);
        for (p, &o) in tree.preorder.iter().enumerate() {
            pos[o as usize] = p as u32;
        }
        Climb { g, tree, exit, top, pos }
    }

    fn path(&self, group: u32, members: &[u32], scratch: &mut Scratch) -> RetainerPath {
        // A step can hold most of the heap (every String of it): its tables are within the
        // budget like the per-object ones.
        let mut objects = Table::from_slice(members);
        let mut weights: Table<u64> = Table::from_fn(members.len(), |i| self.g.shallow[members[i] as usize]);
        let mut steps = vec![self.step(group, &objects)];
        // Per step above the first, each object with its child below, sorted by object.
        let mut children: Vec<Table<[u32; 2]>> = Vec::new();
        while steps.len() < MAX_STEPS {
            let Some(next) = self.heaviest_exit_group(&objects, &weights, scratch) else {
                break;
            };
            // The exits in `next` in preorder, each weight moving with its exit.
            let mut chosen: Table<[u64; 2]> = Table::default();
            let mut pairs: Table<[u32; 2]> = Table::default();
            for (i, &x) in
                scratch.exits.iter().enumerate().filter(|&(_, &x)| self.g.group[x as usize] == next)
            {
                chosen.push([(u64::from(self.pos[x as usize]) << 32) | u64::from(x), scratch.weights[i]]);
                if scratch.represent {
                    pairs.push([x, scratch.children[i]]);
                }
            }
            chosen.sort_unstable();
            objects.clear();
            weights.clear();
            for &[x, w] in chosen.iter() {
                objects.push(x as u32);
                weights.push(w);
            }
            drop(chosen);
            if scratch.represent {
                pairs.sort_unstable();
                children.push(pairs);
            }
            steps.push(self.step(next, &objects));
        }
        let representatives =
            if !scratch.represent { Vec::new() } else { representatives(&objects, &weights, &children) };
        RetainerPath { steps, rooted: self.rooted(&objects, scratch), representatives }
    }

    /// `objects` sorted by preorder position: nested subtrees are then skipped in one sweep.
    fn step(&self, group: u32, objects: &[u32]) -> RetainerStep {
        let mut step = RetainerStep { group, objects: objects.len() as u64, bytes: 0, retained_bytes: 0 };
        let mut end = 0;
        for &o in objects {
            let o = o as usize;
            step.bytes += self.g.shallow[o];
            if self.pos[o] >= end {
                step.retained_bytes += self.tree.retained[o];
                end = self.pos[o] + self.tree.subtree[o];
            }
        }
        step
    }

    /// Collects the distinct exits of `objects` (in `scratch.exits`, weights summed) and returns
    /// the group receiving the most weight, then the most of `objects`, then the smallest id;
    /// None when the virtual root receives at least as much (the path ends there).
    fn heaviest_exit_group(&self, objects: &[u32], weights: &[u64], scratch: &mut Scratch) -> Option<u32> {
        scratch.exits.clear();
        scratch.weights.clear();
        scratch.children.clear();
        let mut root = (0, 0);
        for (&o, &w) in objects.iter().zip(weights) {
            let x = self.exit[o as usize];
            if x == VIRTUAL_ROOT {
                root = (root.0 + w, root.1 + 1);
                continue;
            }
            let group = self.g.group[x as usize];
            let tally = &mut scratch.tally[group as usize];
            if *tally == (0, 0) {
                scratch.touched.push(group);
            }
            *tally = (tally.0 + w, tally.1 + 1);
            match Scratch::find(&scratch.at, &scratch.exits, x) {
                Some(i) => scratch.weights[i] += w,
                None => {
                    scratch.at[x as usize] = scratch.exits.len() as u32;
                    scratch.exits.push(x);
                    scratch.weights.push(w);
                    if scratch.represent {
                        scratch.children.push(o);
                    }
                }
            }
        }
        let mut best: Option<(u32, (u64, u64))> = None;
        for group in scratch.touched.drain(..) {
            let tally = std::mem::take(&mut scratch.tally[group as usize]);
            let better = best.is_none_or(|(b, t)| tally > t || (tally == t && group < b));
            if better {
                best = Some((group, tally));
            }
        }
        best.filter(|&(_, tally)| tally > root).map(|(group, _)| group)
    }

    /// The top-most same-group holders, directly below the virtual root, of the objects whose
    /// exit is the virtual root (each once).
    fn rooted(&self, objects: &[u32], scratch: &mut Scratch) -> Vec<u32> {
        let mut rooted = Vec::new();
        for &o in objects.iter().filter(|&&o| self.exit[o as usize] == VIRTUAL_ROOT) {
            let top = self.top[o as usize];
            if Scratch::find(&scratch.at, &rooted, top).is_none() {
                scratch.at[top as usize] = rooted.len() as u32;
                rooted.push(top);
            }
        }
        rooted
    }
}

/// The representative of each step, from the last step's objects (and their weights) down
/// through each step's children, step 0 first.
fn representatives(last: &[u32], weights: &[u64], children: &[Table<[u32; 2]>]) -> Vec<u32> {
    let mut heaviest = 0;
    for (i, &w) in weights.iter().enumerate() {
        if w > weights[heaviest] {
            heaviest = i;
        }
    }
    let Some(&top) = last.get(heaviest) else { return Vec::new() };
    let mut chain = vec![top];
    for step in children.iter().rev() {
        let at = *chain.last().expect("the top");
        match step.binary_search_by_key(&at, |&[x, _]| x) {
            Ok(i) => chain.push(step[i][1]),
            Err(_) => return Vec::new(),
        }
    }
    chain.reverse();
    chain
}

#[cfg(test)]
mod tests;
