//! The history: snapshots of grouping trees, with optional pointer maps and heap metrics.
//! These types are the `memcity/1` JSON interface (DESIGN §2), serialized as written.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The format tag of the single-file JSON interface.
pub const FORMAT: &str = "memcity/1";

/// `map[a][b] = count`: for `points_to`, distinct objects in group `b` referenced by objects in
/// `a`; for `pointed_from`, distinct objects in `b` that reference objects in `a`.
pub type PointerMap = BTreeMap<String, BTreeMap<String, u64>>;

/// An ordered list of snapshots (one per garbage-collection point).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct History {
    #[serde(default = "default_format")]
    pub format: String,
    #[serde(default)]
    pub metric_names: MetricNames,
    pub snapshots: Vec<Snapshot>,
}

fn default_format() -> String {
    FORMAT.to_string()
}

/// Display names of the two metrics (a tool may count e.g. "instances" and "shallow bytes").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricNames {
    pub objects: String,
    pub bytes: String,
}

impl MetricNames {
    pub fn get(&self, metric: crate::Metric) -> &str {
        match metric {
            crate::Metric::Objects => &self.objects,
            crate::Metric::Bytes => &self.bytes,
        }
    }
}

impl Default for MetricNames {
    fn default() -> Self {
        MetricNames { objects: "objects".into(), bytes: "bytes".into() }
    }
}

/// The heap at one point in time, grouped into a tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub time_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_id: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub tree: Node,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub points_to: PointerMap,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pointed_from: PointerMap,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heap: Option<HeapMetrics>,
    /// Why each leaf group is alive: its retainer path, by leaf key, where the source knows it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub retainers: BTreeMap<String, RetainerPath>,
}

/// The chain of groups that keep a group's objects alive, from the group itself up to the
/// group holding them closest to the GC roots (see docs/design.md, "Retainer paths").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetainerPath {
    /// `steps[0]` is the group itself; each further step holds the previous one's objects.
    pub steps: Vec<RetainerStep>,
    /// How the last step's objects are rooted: GC root kinds ("Static Field"), or "several
    /// roots" when no single root holds them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roots: Vec<String>,
}

/// One group on a retainer path: how many of its objects are on the path and what they retain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetainerStep {
    /// The leaf key of the group.
    pub key: String,
    /// Objects of the group on the path (for step 0, the whole group).
    pub objects: u64,
    /// Their shallow bytes.
    pub bytes: u64,
    /// The bytes they dominate together.
    pub retained_bytes: u64,
}

impl Snapshot {
    /// A snapshot of `tree` at `time_ms` with nothing else (no pointer maps, no heap metrics).
    pub fn new(time_ms: u64, tree: Node) -> Snapshot {
        Snapshot {
            time_ms,
            gc_id: None,
            label: None,
            tree,
            points_to: PointerMap::new(),
            pointed_from: PointerMap::new(),
            heap: None,
            retainers: BTreeMap::new(),
        }
    }

    /// What the UI calls this snapshot: its label, else its GC id, else its time.
    pub fn display_label(&self) -> String {
        match (&self.label, self.gc_id) {
            (Some(label), _) => label.clone(),
            (None, Some(id)) => format!("GC #{id}"),
            (None, None) => format!("t = {} ms", self.time_ms),
        }
    }
}

/// A group of heap objects. Inner nodes are districts, leaves are buildings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Unique in a tree and stable across snapshots (path of names joined by `#`).
    pub key: String,
    pub name: String,
    /// The classifier that made this node (Type, Allocation Site, Package, …).
    #[serde(default)]
    pub role: String,
    pub objects: u64,
    pub bytes: u64,
    /// Bytes the group's objects dominate: freed if the group's objects were freed, counting
    /// only what each of them holds alone or with other objects of the group on every path
    /// (the dominator tree's union of their subtrees), where the source knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retained_bytes: Option<u64>,
    /// Bytes of the group's exact GC closure: everything unreachable if the whole group were
    /// freed, shared ownership counted (≥ `retained_bytes`), where the source computed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closure_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Node>,
}

impl Node {
    pub fn leaf(key: &str, name: &str, role: &str, objects: u64, bytes: u64) -> Node {
        Node {
            key: key.into(),
            name: name.into(),
            role: role.into(),
            objects,
            bytes,
            retained_bytes: None,
            closure_bytes: None,
            children: Vec::new(),
        }
    }

    pub fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }

    /// Visits every node in pre-order with its parent.
    pub fn walk<'a>(&'a self, visit: &mut impl FnMut(&'a Node, Option<&'a Node>)) {
        fn go<'a>(n: &'a Node, p: Option<&'a Node>, f: &mut impl FnMut(&'a Node, Option<&'a Node>)) {
            f(n, p);
            for c in &n.children {
                go(c, Some(n), f);
            }
        }
        go(self, None, visit);
    }
}

/// Heap-level metrics of one GC point; every field is optional in the JSON.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HeapMetrics {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reachable_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used_before_gc: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used_after_gc: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_start_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_end_ms: Option<u64>,
}
