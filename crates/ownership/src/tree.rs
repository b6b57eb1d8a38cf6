//! The ownership tree (docs/ownership.md, "Ownership"): the object dominator tree contracted
//! by class nodes. An object in the class node of its immediate dominator belongs to the same
//! tree node; any other starts (or joins) the child of its dominator's tree node for its class
//! node. So a class node owned by several others appears once under each, holding exactly what
//! that owner dominates — its fraction of the class node — and every tree node owns its self
//! bytes plus its children's: the root owns the reachable heap.

use memcity_heapgraph::{TypedHeap, VIRTUAL_ROOT};
use memcity_structures::{CollectionTypes, Descriptions};
use rustc_hash::FxHashMap;

use crate::classes::{BaseNodes, NO_NODE, base_nodes};
use crate::cycles::{Components, components};
use crate::{ClassNode, Kind, Options, Ownership, TreeNode};

/// The ownership graph and tree of one heap, collections recognized by `descriptions`.
pub fn ownership(heap: &TypedHeap, descriptions: &Descriptions, options: &Options) -> Ownership {
    build(heap, descriptions, options).0
}

/// [`ownership`], and the tree node of every object (`u32::MAX`: unreachable).
pub(crate) fn build(
    heap: &TypedHeap,
    descriptions: &Descriptions,
    options: &Options,
) -> (Ownership, Vec<u32>) {
    let g = &heap.graph;
    let dom = heap.dominators();
    let collections = CollectionTypes::new(heap, descriptions);
    let BaseNodes { nodes, of_object: mut class_of } = base_nodes(heap, &dom, &collections, options);
    let comps = components(heap, &dom, &class_of, nodes.len());
    let mut base_self = vec![0u64; nodes.len()];
    for &o in &dom.preorder {
        base_self[class_of[o as usize] as usize] += g.shallow[o as usize];
    }
    // Class nodes in the order the preorder meets them; 0 is the root.
    let mut classes = vec![root_class()];
    let mut class_of_comp = vec![NO_NODE; comps.members.len()];
    for &o in &dom.preorder {
        let c = comps.of_node[class_of[o as usize] as usize] as usize;
        if class_of_comp[c] == NO_NODE {
            class_of_comp[c] = classes.len() as u32;
            classes.push(class_node(&nodes, &comps, c, &base_self));
        }
        class_of[o as usize] = class_of_comp[c];
    }
    let mut tree = vec![tree_node(0, None)];
    let mut tree_of = vec![NO_NODE; g.object_count()];
    let mut child: FxHashMap<(u32, u32), u32> = FxHashMap::default();
    for &o in &dom.preorder {
        let (d, class) = (dom.idom[o as usize], class_of[o as usize]);
        let t = if d != VIRTUAL_ROOT && class_of[d as usize] == class {
            tree_of[d as usize]
        } else {
            let parent = if d == VIRTUAL_ROOT { 0 } else { tree_of[d as usize] };
            let next = tree.len() as u32;
            let t = *child.entry((parent, class)).or_insert(next);
            if t == next {
                tree.push(tree_node(class, Some(parent)));
            }
            t
        };
        tree_of[o as usize] = t;
        let node = &mut tree[t as usize];
        node.objects += 1;
        node.self_bytes += g.shallow[o as usize];
    }
    finish(&mut classes, &mut tree);
    let heap_bytes = tree[0].owned_bytes;
    (Ownership { heap_bytes, classes, tree }, tree_of)
}

fn root_class() -> ClassNode {
    ClassNode {
        kind: Kind::Root,
        name: "GC roots".into(),
        referrer: None,
        members: Vec::new(),
        key: "root".into(),
        objects: 0,
        self_bytes: 0,
        owned_bytes: 0,
        parents: Vec::new(),
    }
}

fn tree_node(class: u32, parent: Option<u32>) -> TreeNode {
    TreeNode {
        class,
        parent,
        children: Vec::new(),
        objects: 0,
        self_bytes: 0,
        owned_bytes: 0,
        fraction: 1.0,
        new_objects: 0,
        growth_bytes: 0,
        path: 0,
    }
}

/// The class node of component `c`: its one member, or a cycle named after its largest
/// member and keyed by all of them (a class that becomes a cycle of one keeps its key).
fn class_node(
    nodes: &[crate::classes::BaseNode],
    comps: &Components,
    c: usize,
    base_self: &[u64],
) -> ClassNode {
    let members = &comps.members[c];
    let mut keys: Vec<&str> = members.iter().map(|&m| nodes[m as usize].key.as_str()).collect();
    keys.sort_unstable();
    let key = keys.join("\n");
    let largest = members.iter().copied().max_by_key(|&m| (base_self[m as usize], std::cmp::Reverse(m)));
    let first = &nodes[largest.expect("a component has members") as usize];
    let mut node = ClassNode {
        kind: first.kind,
        name: first.name.clone(),
        referrer: first.referrer.clone(),
        members: Vec::new(),
        key,
        objects: 0,
        self_bytes: 0,
        owned_bytes: 0,
        parents: Vec::new(),
    };
    if comps.cycle[c] {
        let mut names: Vec<String> = members.iter().map(|&m| nodes[m as usize].full_name()).collect();
        names.sort_unstable();
        node.kind = Kind::Cycle;
        node.name = match members.len() {
            1 => format!("cycle of {}", first.name),
            n => format!("cycle of {} +{}", first.name, n - 1),
        };
        if members.len() > 1 {
            node.referrer = None;
        }
        node.members = names;
    }
    node
}

/// Owned bytes bottom-up, children largest first, class node totals, owners and fractions.
fn finish(classes: &mut [ClassNode], tree: &mut [TreeNode]) {
    for t in (0..tree.len()).rev() {
        tree[t].owned_bytes += tree[t].self_bytes;
        if let Some(p) = tree[t].parent {
            tree[p as usize].owned_bytes += tree[t].owned_bytes;
            tree[p as usize].children.push(t as u32);
        }
    }
    let owned: Vec<u64> = tree.iter().map(|n| n.owned_bytes).collect();
    for node in tree.iter_mut() {
        node.children.sort_by_key(|&c| (std::cmp::Reverse(owned[c as usize]), c));
    }
    let mut parents: FxHashMap<(u32, u32), u64> = FxHashMap::default();
    for node in tree.iter() {
        let class = &mut classes[node.class as usize];
        class.objects += node.objects;
        class.self_bytes += node.self_bytes;
        class.owned_bytes += node.owned_bytes;
        if let Some(p) = node.parent {
            *parents.entry((node.class, tree[p as usize].class)).or_default() += node.owned_bytes;
        }
    }
    for ((class, parent), bytes) in parents {
        classes[class as usize].parents.push((parent, bytes));
    }
    for class in classes.iter_mut() {
        class.parents.sort_by_key(|&(p, bytes)| (std::cmp::Reverse(bytes), p));
    }
    for node in tree.iter_mut() {
        let total = classes[node.class as usize].owned_bytes;
        node.fraction = if total == 0 { 1.0 } else { node.owned_bytes as f64 / total as f64 };
    }
}

/// The tree nodes shown at `min_share` of the heap: the root, and every node owning at least
/// that share whose parent is shown. In the tree's order (parents first).
pub fn visible(own: &Ownership, min_share: f64) -> Vec<bool> {
    let least = own.heap_bytes as f64 * min_share;
    let mut shown = vec![false; own.tree.len()];
    for (t, node) in own.tree.iter().enumerate() {
        shown[t] = match node.parent {
            None => true,
            Some(p) => shown[p as usize] && node.owned_bytes as f64 >= least,
        };
    }
    shown
}
