//! One dump becomes one snapshot: objects grouped into leaves by the classifiers, the grouping
//! tree with counts and retained sizes, pointer maps between leaves, heap metrics.

use std::collections::{BTreeMap, HashMap};

use memcity_model::{HeapMetrics, Node, PointerMap, Snapshot};

use crate::classify::{Classifier, Level, leaf_path};
use crate::resolve::Dump;
use crate::roots::RootKind;
use memcity_heapgraph::{pointer_maps, reachable, retained_sizes};

/// The root key of every tree this importer builds.
pub const ROOT_KEY: &str = "Heap";

/// How dumps become snapshots.
#[derive(Debug, Clone)]
pub struct SnapshotOptions {
    pub classifiers: Vec<Classifier>,
    /// Compute retained sizes (one GC closure per leaf group; the slowest step on big heaps).
    pub retained: bool,
}

impl Default for SnapshotOptions {
    fn default() -> SnapshotOptions {
        SnapshotOptions { classifiers: vec![Classifier::Package, Classifier::Type], retained: true }
    }
}

/// Groups the dump's objects and builds its snapshot, labelled `label`.
pub fn build_snapshot(mut dump: Dump, label: &str, options: &SnapshotOptions) -> Snapshot {
    let leaves = assign_leaves(&mut dump, &options.classifiers);
    let keys: Vec<String> = leaves.iter().map(|path| leaf_key(path)).collect();
    let graph = &dump.graph;
    let live = reachable(graph);
    let maps = pointer_maps(graph, leaves.len(), &live);
    let retained = options.retained.then(|| retained_sizes(graph, leaves.len(), &live));

    let mut totals = vec![(0u64, 0u64); leaves.len()];
    for (&leaf, &size) in graph.group.iter().zip(&graph.shallow) {
        totals[leaf as usize].0 += 1;
        totals[leaf as usize].1 += size;
    }
    let mut root = TreeBuilder::default();
    for (leaf, path) in leaves.iter().enumerate() {
        let retained = retained.as_ref().map(|r| r[leaf].1);
        root.insert(path, totals[leaf], retained);
    }
    let reachable_bytes = graph.shallow.iter().zip(&live).filter(|&(_, &l)| l).map(|(s, _)| s).sum();
    Snapshot {
        time_ms: dump.timestamp_ms,
        gc_id: None,
        label: Some(label.to_string()),
        tree: root.into_node(ROOT_KEY, ROOT_KEY, "Root"),
        points_to: named(&maps.points_to, &keys),
        pointed_from: named(&maps.pointed_from, &keys),
        heap: Some(HeapMetrics { reachable_bytes: Some(reachable_bytes), ..HeapMetrics::default() }),
    }
}

/// Replaces each node's class index by its leaf index and returns the leaves' paths.
fn assign_leaves(dump: &mut Dump, classifiers: &[Classifier]) -> Vec<Vec<Level>> {
    let mut roots: HashMap<u32, Vec<RootKind>> = HashMap::new();
    if classifiers.contains(&Classifier::RootKind) {
        for &(node, kind) in &dump.root_kinds {
            roots.entry(node).or_default().push(kind);
        }
        for kinds in roots.values_mut() {
            kinds.sort_unstable();
            kinds.dedup();
        }
    }
    let mut leaf_of: HashMap<Vec<Level>, u32> = HashMap::new();
    let mut leaves = Vec::new();
    let mut leaf_for = |class: u32, kinds: &[RootKind]| -> u32 {
        let path = leaf_path(classifiers, &dump.classes.names[class as usize], kinds);
        *leaf_of.entry(path.clone()).or_insert_with(|| {
            leaves.push(path);
            (leaves.len() - 1) as u32
        })
    };
    // Objects that are no direct root share their class's leaf: compute it once per class.
    let mut plain: Vec<Option<u32>> = vec![None; dump.classes.names.len()];
    for (node, group) in dump.graph.group.iter_mut().enumerate() {
        *group = match roots.get(&(node as u32)) {
            Some(kinds) => leaf_for(*group, kinds),
            None => *plain[*group as usize].get_or_insert_with(|| leaf_for(*group, &[])),
        };
    }
    leaves
}

fn leaf_key(path: &[Level]) -> String {
    let mut key = ROOT_KEY.to_string();
    for level in path {
        key.push('#');
        key.push_str(&level_key(level));
    }
    key
}

fn level_key(level: &Level) -> String {
    format!("{}:{}", level.role, level.value)
}

fn named(maps: &[BTreeMap<u32, u64>], keys: &[String]) -> PointerMap {
    maps.iter()
        .enumerate()
        .filter(|(_, targets)| !targets.is_empty())
        .map(|(from, targets)| {
            let targets = targets.iter().map(|(&to, &n)| (keys[to as usize].clone(), n)).collect();
            (keys[from].clone(), targets)
        })
        .collect()
}

/// The grouping tree while it is being filled.
#[derive(Default)]
struct TreeBuilder {
    objects: u64,
    bytes: u64,
    retained: Option<u64>,
    children: BTreeMap<Level, TreeBuilder>,
}

impl TreeBuilder {
    fn insert(&mut self, path: &[Level], (objects, bytes): (u64, u64), retained: Option<u64>) {
        self.objects += objects;
        self.bytes += bytes;
        match path.split_first() {
            Some((level, rest)) => {
                self.children.entry(level.clone()).or_default().insert(rest, (objects, bytes), retained)
            }
            None => self.retained = retained,
        }
    }

    fn into_node(self, key: &str, name: &str, role: &str) -> Node {
        let children = self
            .children
            .into_iter()
            .map(|(level, child)| {
                let child_key = format!("{key}#{}", level_key(&level));
                child.into_node(&child_key, &level.value, level.role)
            })
            .collect();
        Node {
            key: key.to_string(),
            name: name.to_string(),
            role: role.to_string(),
            objects: self.objects,
            bytes: self.bytes,
            retained_bytes: self.retained,
            children,
        }
    }
}
