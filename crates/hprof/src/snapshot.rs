//! One dump through the one heap pipeline: its objects get leaf groups from the series' shared
//! grouper (class name and root kinds are what a dump knows of an object), then counts, pointer
//! maps, retained sizes and retainer paths per group.

use memcity_heapgraph::{
    AnalysisOptions, Classifier, GroupedHeap, Grouper, Grouping, LeafMemo, ObjectFacts, RootKind, RootSet,
    group_heap_owned, reachable, root_sets,
};

use crate::resolve::Dump;

/// Dumps are grouped by package, then type, by default.
pub fn default_grouping() -> Grouping {
    Grouping::new(vec![Classifier::Package, Classifier::Type])
}

/// Puts every object of the dump into its leaf group (`dump.graph.group` held class indices)
/// and returns the objects' root kinds.
pub fn assign_leaves(dump: &mut Dump, grouper: &mut Grouper) -> Vec<RootSet> {
    let roots = root_sets(dump.graph.object_count(), dump.root_kinds.iter().copied());
    let uses = grouper.uses();
    let mut memo = LeafMemo::default();
    for (node, group) in dump.graph.group.iter_mut().enumerate() {
        let class = *group;
        let rooted = if uses.roots { roots[node] } else { RootSet::NONE };
        let name = &dump.classes.names[class as usize];
        *group = memo.leaf(grouper, (class, rooted), || ObjectFacts {
            type_name: name,
            roots: rooted,
            ..ObjectFacts::default()
        });
    }
    roots
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
    hold_unreached(dump, roots);
    let live = vec![true; dump.graph.object_count()];
    // Nothing reads the graph afterwards: its references can go as soon as they are followed.
    let graph = std::mem::take(&mut dump.graph);
    group_heap_owned(graph, group_count, &live, roots, &|node| dump.holder_name(node), options)
}

/// Makes the objects no root record reaches roots of the VM's own.
pub(crate) fn hold_unreached(dump: &mut Dump, roots: &mut [RootSet]) {
    let reached = reachable(&dump.graph);
    for (o, _) in reached.iter().enumerate().filter(|(_, r)| !**r) {
        dump.graph.roots.push(o as u32);
        roots[o] = roots[o].with(RootKind::Internal);
    }
}
