//! The history: snapshots of grouping trees, with optional pointer maps and heap metrics.
//! These types are the `memcity/1` JSON interface (docs/design.md, "Data model"), serialized as written.

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

impl RetainerPath {
    /// The path as references from the root down, where the source names them:
    /// `static Registry.people → .first .next → .item` (`?` for a step it does not name). A
    /// class object's static field reads `static LeakApp.CACHE`. `None` when no step is named.
    pub fn reference_path(&self) -> Option<String> {
        reference_path(self.steps.iter().map(|s| s.via.as_deref()))
    }
}

/// [`RetainerPath::reference_path`] of the steps' `via`s, the group's own first.
pub fn reference_path<'a>(vias: impl DoubleEndedIterator<Item = Option<&'a str>> + Clone) -> Option<String> {
    if vias.clone().all(|v| v.is_none()) {
        return None;
    }
    let mut parts: Vec<String> = vias.rev().map(|v| v.unwrap_or("?").to_string()).collect();
    // `class X` then `.f …`: the static field X.f.
    if parts.len() > 1
        && let Some(class) = parts[0].strip_prefix("class ")
        && let Some(field) = parts[1].strip_prefix('.')
    {
        parts[1] = format!("static {class}.{field}");
        parts.remove(0);
    }
    Some(parts.join(" → "))
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
    /// How one object of this step (its representative) is referenced from the next step's
    /// representative, as the source names references: `.next`, `[3]`, `.first .next … .item`
    /// (`?` for a reference without a name, `…` for elided hops). On the last step: its root
    /// holder where the source knows it (`static app.Registry.people`, `class LeakApp`),
    /// then the references within the group down to the representative. Absent when the source
    /// names no references (docs/why.md, "Field names on paths").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
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

    /// About how many bytes of memory the snapshot takes (its nodes, strings and pointer maps):
    /// what a server charges against its memory budget for holding it.
    pub fn memory_estimate(&self) -> u64 {
        let mut bytes = size_of::<Snapshot>() as u64;
        self.tree.walk(&mut |node, _| {
            bytes += (size_of::<Node>() + node.key.len() + node.name.len() + node.role.len()) as u64;
        });
        bytes + pointer_map_estimate(&self.points_to) + pointer_map_estimate(&self.pointed_from)
    }

    /// What the UI calls this snapshot: its label, else its GC id, else its time.
    pub fn display_label(&self) -> String {
        match (&self.label, self.gc_id) {
            (Some(label), _) => label.clone(),
            (None, Some(id)) => format!("GC #{id}"),
            // Never raw epoch milliseconds: a clock time reads as one.
            (None, None) if self.time_ms >= crate::time::CLOCK_FROM_MS => {
                format!("taken at {}", crate::time::utc_clock(self.time_ms))
            }
            (None, None) => format!("t = {}", crate::time::offset(self.time_ms as i128)),
        }
    }
}

/// A B-tree entry costs its key, its value and a share of a node (about 3 words).
fn pointer_map_estimate(map: &PointerMap) -> u64 {
    const ENTRY: usize = size_of::<String>() + 3 * size_of::<usize>();
    map.iter()
        .map(|(from, to)| {
            let inner: usize = to.keys().map(|k| ENTRY + 8 + k.len()).sum();
            (ENTRY + size_of::<BTreeMap<String, u64>>() + from.len() + inner) as u64
        })
        .sum()
}

impl History {
    /// [`Snapshot::memory_estimate`] summed over the snapshots.
    pub fn memory_estimate(&self) -> u64 {
        self.snapshots.iter().map(Snapshot::memory_estimate).sum()
    }
}

/// A group of heap objects.
///
/// Trees may be deep (10,000 levels and more: long allocation chains), so nothing that follows
/// a tree may recurse on the machine stack unguarded: [`Node::walk`] and drop are iterative,
/// clone, comparison and serialization grow the stack as they go (`stacker`).
#[derive(Debug, Serialize, Deserialize)]
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
    #[serde(default, skip_serializing_if = "Vec::is_empty", serialize_with = "serialize_children")]
    pub children: Vec<Node>,
}

/// Stack the recursion into one level of children may need, and what it grows by.
const STACK_RED_ZONE: usize = 64 * 1024;
const STACK_GROWTH: usize = 1 << 20;

/// Runs `f` on a fresh stack segment when the current one is nearly used up.
pub fn with_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(STACK_RED_ZONE, STACK_GROWTH, f)
}

fn serialize_children<S: serde::Serializer>(children: &Vec<Node>, s: S) -> Result<S::Ok, S::Error> {
    with_stack(|| children.serialize(s))
}

impl Clone for Node {
    fn clone(&self) -> Node {
        Node {
            key: self.key.clone(),
            name: self.name.clone(),
            role: self.role.clone(),
            objects: self.objects,
            bytes: self.bytes,
            retained_bytes: self.retained_bytes,
            closure_bytes: self.closure_bytes,
            children: with_stack(|| self.children.clone()),
        }
    }
}

impl PartialEq for Node {
    fn eq(&self, other: &Node) -> bool {
        self.key == other.key
            && self.name == other.name
            && self.role == other.role
            && self.objects == other.objects
            && self.bytes == other.bytes
            && self.retained_bytes == other.retained_bytes
            && with_stack(|| self.children == other.children)
    }
}

impl Drop for Node {
    /// Dropping a deep tree the default way recurses once per level; instead the descendants
    /// are moved into one list and dropped childless.
    fn drop(&mut self) {
        if self.children.iter().all(Node::is_leaf) {
            return;
        }
        let mut pending = std::mem::take(&mut self.children);
        while let Some(mut node) = pending.pop() {
            pending.append(&mut node.children);
        }
    }
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

    /// Visits every node in pre-order with its parent (iteratively: trees may be deep).
    pub fn walk<'a>(&'a self, visit: &mut impl FnMut(&'a Node, Option<&'a Node>)) {
        let mut stack: Vec<(&'a Node, Option<&'a Node>)> = vec![(self, None)];
        while let Some((node, parent)) = stack.pop() {
            visit(node, parent);
            stack.extend(node.children.iter().rev().map(|c| (c, Some(node))));
        }
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
