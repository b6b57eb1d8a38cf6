//! One dump through the one heap pipeline: its objects get leaf groups from the series' shared
//! grouper (class name and root kinds are what a dump knows of an object), then counts, pointer
//! maps, retained sizes and retainer paths per group.

use memcity_heapgraph::{
    AnalysisOptions, Classifier, DominatorTree, GroupedHeap, Grouper, Grouping, LeafMemo, Live, ObjectFacts,
    ObjectGroups, Phase, Progress, Retained, RootKind, RootSet, Silent, TreeSource, Unreached,
    group_heap_owned_handing_tree, group_heap_owned_with_tree, reachable, root_sets,
};

use rayon::prelude::*;

use crate::index::{KeptTree, TreePlace};
use crate::resolve::Dump;

/// Dumps are grouped by package, then type, by default.
pub fn default_grouping() -> Grouping {
    Grouping::new(vec![Classifier::Package, Classifier::Type])
}

/// Puts every object of the dump into its leaf group (`dump.graph.group` held class indices)
/// and returns the objects' root kinds.
pub fn assign_leaves(dump: &mut Dump, grouper: &mut Grouper) -> Vec<RootSet> {
    assign_leaves_of(&mut dump.graph.group, &dump.classes.names, &dump.root_kinds, grouper)
}

/// [`assign_leaves`] over the parts of a dump it reads and writes (each object's class, which
/// becomes its leaf; the class names; the root records), so that the rest of the dump can be
/// read meanwhile. Where the leaf is the class's alone, the groups come through the classes
/// ([`ObjectGroups::through`]): the class table stays as it is (an index's, read in place).
pub(crate) fn assign_leaves_of(
    group: &mut ObjectGroups,
    names: &[String],
    root_kinds: &[(u32, RootKind)],
    grouper: &mut Grouper,
) -> Vec<RootSet> {
    let roots = root_sets(group.len(), root_kinds.iter().copied());
    if !grouper.uses().roots {
        let by_class = leaves_by_class(group, names, grouper);
        *group = std::mem::take(group).grouped_by_key(by_class);
        return roots;
    }
    let mut memo = LeafMemo::default();
    for (node, group) in group.as_mut_slice().iter_mut().enumerate() {
        let (class, rooted) = (*group, roots[node]);
        let name = &names[class as usize];
        *group = memo.leaf(grouper, (class, rooted), || ObjectFacts {
            type_name: name,
            roots: rooted,
            ..ObjectFacts::default()
        });
    }
    roots
}

/// Each class's leaf where the leaf is the class's alone: the classes are given their leaves
/// in the order the objects first meet them, which is the numbering an object-by-object walk
/// gives.
fn leaves_by_class(classes: &ObjectGroups, names: &[String], grouper: &mut Grouper) -> Vec<u32> {
    let first_met = match classes.totals() {
        // The reader counted them, the first of each too.
        Some(totals) => totals.iter().map(|t| if t.objects > 0 { t.first as usize } else { NEVER }).collect(),
        None => first_met(classes.keys(), names.len()),
    };
    let mut met: Vec<(usize, usize)> = first_met
        .into_iter()
        .enumerate()
        .filter(|&(_, at)| at != NEVER)
        .map(|(class, at)| (at, class))
        .collect();
    met.sort_unstable();
    let mut leaf = vec![0u32; names.len()];
    for (_, class) in met {
        leaf[class] = grouper.leaf(&ObjectFacts { type_name: &names[class], ..ObjectFacts::default() });
    }
    leaf
}

/// In [`first_met`]: a class no object has.
const NEVER: usize = usize::MAX;

/// The first object of each of `count` classes, found a run of objects at a time on every
/// worker.
fn first_met(classes: &[u32], count: usize) -> Vec<usize> {
    const RUN: usize = 1 << 20;
    classes
        .par_chunks(RUN)
        .enumerate()
        .fold(
            || vec![NEVER; count],
            |mut first, (run, classes)| {
                for (i, &class) in classes.iter().enumerate() {
                    let at = &mut first[class as usize];
                    *at = (*at).min(run * RUN + i);
                }
                first
            },
        )
        .reduce(|| vec![NEVER; count], |a, b| a.into_iter().zip(b).map(|(a, b)| a.min(b)).collect())
}

/// Groups one dump whose objects already have their leaves (see [`assign_leaves`]). A dump
/// holds only objects the JVM keeps alive, so every one counts; those its root records do not
/// reach are held by the VM itself and become roots of that kind. The dump's graph is used up.
pub fn group_dump(
    dump: &mut Dump,
    roots: &mut [RootSet],
    group_count: usize,
    options: &AnalysisOptions,
) -> GroupedHeap {
    group_dump_with_tree(dump, roots, group_count, options, None, None, &Silent)
}

/// [`group_dump`] with the dump's dominator tree `kept` from an earlier analysis (the index
/// keeps it), or building it and, with `keep_at`, keeping it there as soon as it is assembled
/// (the retained sizes and paths, which follow, then need less of it in memory); `progress`
/// hears each phase as it begins.
#[allow(clippy::too_many_arguments)] // group_dump's, the tree's source and place, progress
pub fn group_dump_with_tree(
    dump: &mut Dump,
    roots: &mut [RootSet],
    group_count: usize,
    options: &AnalysisOptions,
    kept: Option<KeptTree>,
    keep_at: Option<&TreePlace>,
    progress: &dyn Progress,
) -> GroupedHeap {
    let Some(kept) = kept else {
        // The objects no root record reaches are found by the depth-first search, as what it
        // left, instead of by a marking of every reference beforehand; but the exact closures
        // mark from the roots, the VM's own among them, so for them they are marked first.
        let marked = (options.retained == Retained::Closure).then(|| hold_unreached(dump, roots));
        let unreached = if marked.is_some() { Unreached::Left } else { Unreached::Held };
        // Handed over only to be kept: a tree that goes nowhere needs less (its retained bytes
        // may stay narrow).
        let keep = keep_at.map(|place| {
            move |tree: &DominatorTree, held_by_search: &[u32]| {
                progress.phase(Phase::KeepingTree);
                crate::index::keep_tree_parts(place, marked.as_deref().unwrap_or(held_by_search), tree);
            }
        });
        let hand = keep.as_ref().map(|keep| keep as &dyn Fn(&DominatorTree, &[u32]));
        // Nothing reads the graph afterwards: its references can go as soon as they are followed.
        let graph = std::mem::take(&mut dump.graph);
        let holder = |node| dump.holder_name(node);
        return group_heap_owned_handing_tree(
            graph,
            hand,
            unreached,
            group_count,
            Live::All,
            roots,
            &holder,
            options,
            progress,
        );
    };
    hold(dump, roots, &kept.held_by_vm);
    let graph = std::mem::take(&mut dump.graph);
    let holder = |node| dump.holder_name(node);
    let known = TreeSource::Known(kept.tree);
    group_heap_owned_with_tree(graph, known, group_count, Live::All, roots, &holder, options, progress).0
}

/// Makes the objects no root record reaches roots of the VM's own — those the kept tree lists,
/// or those found by marking — and says where the grouping's tree comes from: the kept one, or
/// built (and, with `keep`, handed back). Returns the held objects too, to keep with the tree.
pub(crate) fn hold_with_tree(
    dump: &mut Dump,
    roots: &mut [RootSet],
    kept: Option<KeptTree>,
    keep: bool,
) -> (Vec<u32>, TreeSource) {
    match kept {
        Some(kept) => {
            hold(dump, roots, &kept.held_by_vm);
            (kept.held_by_vm, TreeSource::Known(kept.tree))
        }
        None => {
            (hold_unreached(dump, roots), if keep { TreeSource::BuildAndKeep } else { TreeSource::Build })
        }
    }
}

/// Makes the objects no root record reaches roots of the VM's own; returns them.
pub(crate) fn hold_unreached(dump: &mut Dump, roots: &mut [RootSet]) -> Vec<u32> {
    let reached = reachable(&dump.graph);
    let unreached: Vec<u32> = (0..reached.len() as u32).filter(|&o| !reached[o as usize]).collect();
    drop(reached);
    hold(dump, roots, &unreached);
    unreached
}

/// Makes `objects` roots of the VM's own.
fn hold(dump: &mut Dump, roots: &mut [RootSet], objects: &[u32]) {
    for &o in objects {
        dump.graph.roots.push(o);
        roots[o as usize] = roots[o as usize].with(RootKind::Internal);
    }
}

#[cfg(test)]
mod tests;
