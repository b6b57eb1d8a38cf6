//! Meta trees (docs/design.md, "Meta trees"): the union of all snapshot trees by key, each snapshot's values on it,
//! the max tree and the growth tree. Flat arrays indexed by group id, so the layout and the
//! per-snapshot frames work on plain slices.

use std::collections::HashMap;

use crate::history::{History, Node, PointerMap, Snapshot};

/// Which count a city is built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    #[default]
    Objects,
    Bytes,
}

/// One group (node) of the union tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub key: String,
    pub name: String,
    pub role: String,
    pub parent: Option<u32>,
    /// In order of first appearance.
    pub children: Vec<u32>,
    pub depth: u32,
}

impl Group {
    pub fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }
}

/// A value per group (objects and bytes); absent groups are 0.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Values {
    pub objects: Vec<u64>,
    pub bytes: Vec<u64>,
}

impl Values {
    fn zeros(n: usize) -> Values {
        Values { objects: vec![0; n], bytes: vec![0; n] }
    }

    pub fn get(&self, metric: Metric) -> &[u64] {
        match metric {
            Metric::Objects => &self.objects,
            Metric::Bytes => &self.bytes,
        }
    }
}

/// `last − first` per group, for each metric.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Growth {
    pub objects: Vec<i64>,
    pub bytes: Vec<i64>,
}

impl Growth {
    pub fn get(&self, metric: Metric) -> &[i64] {
        match metric {
            Metric::Objects => &self.objects,
            Metric::Bytes => &self.bytes,
        }
    }
}

/// A history indexed for the city: the union tree (group 0 is the root) with values per snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    pub groups: Vec<Group>,
    pub index: HashMap<String, u32>,
    /// One entry per snapshot.
    pub values: Vec<Values>,
    /// Max tree: the largest value each group reaches, per metric separately.
    pub max: Values,
    /// Growth tree: value(last snapshot) − value(first snapshot).
    pub growth: Growth,
    /// Pointer maps by group id, one entry per snapshot.
    pub pointers: Vec<Pointers>,
    /// Retained bytes by group id where the source gave them, one entry per snapshot.
    pub retained: Vec<HashMap<u32, u64>>,
}

/// One snapshot's pointer maps by group id: `points_to[a] = [(b, count), …]`, sorted by `b`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pointers {
    pub points_to: HashMap<u32, Vec<(u32, u64)>>,
    pub pointed_from: HashMap<u32, Vec<(u32, u64)>>,
}

impl Pointers {
    fn new(map_to: &PointerMap, map_from: &PointerMap, index: &HashMap<String, u32>) -> Pointers {
        let by_id = |map: &PointerMap| {
            map.iter()
                .filter_map(|(a, targets)| {
                    let a = *index.get(a)?;
                    let mut t: Vec<(u32, u64)> =
                        targets.iter().filter_map(|(b, &n)| Some((*index.get(b)?, n))).collect();
                    t.sort_unstable();
                    Some((a, t))
                })
                .collect()
        };
        Pointers { points_to: by_id(map_to), pointed_from: by_id(map_from) }
    }

    /// `map[a][b]`, 0 where absent.
    pub fn count(list: &HashMap<u32, Vec<(u32, u64)>>, a: u32, b: u32) -> u64 {
        list.get(&a).and_then(|t| t.binary_search_by_key(&b, |&(g, _)| g).ok().map(|i| t[i].1)).unwrap_or(0)
    }
}

impl Timeline {
    /// Builds the union tree and meta trees of a validated history.
    pub fn new(history: &History) -> Timeline {
        let mut groups: Vec<Group> = Vec::new();
        let mut index: HashMap<String, u32> = HashMap::new();
        for snapshot in &history.snapshots {
            add_tree(&snapshot.tree, &mut groups, &mut index);
        }
        let n = groups.len();
        let values: Vec<Values> = history.snapshots.iter().map(|s| values_of(&s.tree, &index, n)).collect();
        let mut max = Values::zeros(n);
        for v in &values {
            raise_max(&mut max, v);
        }
        let growth = growth_of(&values);
        let pointers =
            history.snapshots.iter().map(|s| Pointers::new(&s.points_to, &s.pointed_from, &index)).collect();
        let retained = history.snapshots.iter().map(|s| retained_of(&s.tree, &index)).collect();
        Timeline { groups, index, values, max, growth, pointers, retained }
    }

    /// Appends one snapshot (a live history): the same result as [`Timeline::new`] over the longer
    /// history, at the cost of the new snapshot, plus widening the older snapshots' values when it
    /// brings new groups.
    pub fn push(&mut self, snapshot: &Snapshot) {
        add_tree(&snapshot.tree, &mut self.groups, &mut self.index);
        let n = self.groups.len();
        if n > self.max.objects.len() {
            for v in self.values.iter_mut().chain([&mut self.max]) {
                v.objects.resize(n, 0);
                v.bytes.resize(n, 0);
            }
        }
        let values = values_of(&snapshot.tree, &self.index, n);
        raise_max(&mut self.max, &values);
        self.values.push(values);
        self.growth = growth_of(&self.values);
        self.pointers.push(Pointers::new(&snapshot.points_to, &snapshot.pointed_from, &self.index));
        self.retained.push(retained_of(&snapshot.tree, &self.index));
    }

    pub fn snapshot_count(&self) -> usize {
        self.values.len()
    }

    pub fn group(&self, key: &str) -> Option<u32> {
        self.index.get(key).copied()
    }

    /// Path from the root, e.g. `Heap → Type: Person → Allocation Site: foo()`.
    pub fn path_label(&self, id: u32) -> String {
        let mut parts = Vec::new();
        let mut cur = Some(id);
        while let Some(i) = cur {
            let g = &self.groups[i as usize];
            parts.push(if g.parent.is_none() || g.role.is_empty() || g.role == "Root" {
                g.name.clone()
            } else {
                format!("{}: {}", g.role, g.name)
            });
            cur = g.parent;
        }
        parts.reverse();
        parts.join(" → ")
    }
}

fn values_of(tree: &Node, index: &HashMap<String, u32>, n: usize) -> Values {
    let mut v = Values::zeros(n);
    tree.walk(&mut |node, _| {
        let id = index[&node.key] as usize;
        v.objects[id] = node.objects;
        v.bytes[id] = node.bytes;
    });
    v
}

fn raise_max(max: &mut Values, v: &Values) {
    for (m, &x) in max.objects.iter_mut().zip(&v.objects) {
        *m = (*m).max(x);
    }
    for (m, &x) in max.bytes.iter_mut().zip(&v.bytes) {
        *m = (*m).max(x);
    }
}

/// `last − first` per group.
fn growth_of(values: &[Values]) -> Growth {
    let (Some(first), Some(last)) = (values.first(), values.last()) else { return Growth::default() };
    // Widened: values up to u64::MAX must not wrap (or panic) when subtracted.
    let diff = |a: &[u64], b: &[u64]| {
        a.iter()
            .zip(b)
            .map(|(&l, &f)| (l as i128 - f as i128).clamp(i64::MIN.into(), i64::MAX.into()) as i64)
            .collect()
    };
    Growth { objects: diff(&last.objects, &first.objects), bytes: diff(&last.bytes, &first.bytes) }
}

fn retained_of(tree: &Node, index: &HashMap<String, u32>) -> HashMap<u32, u64> {
    let mut r = HashMap::new();
    tree.walk(&mut |node, _| {
        if let Some(bytes) = node.retained_bytes {
            r.insert(index[&node.key], bytes);
        }
    });
    r
}

/// Adds the nodes of `tree` not yet in the union tree (iteratively: trees may be deep).
fn add_tree(tree: &Node, groups: &mut Vec<Group>, index: &mut HashMap<String, u32>) {
    let mut stack: Vec<(&Node, Option<u32>, u32)> = vec![(tree, None, 0)];
    while let Some((node, parent, depth)) = stack.pop() {
        let id = match index.get(&node.key) {
            Some(&id) => id,
            None => {
                let id = groups.len() as u32;
                groups.push(Group {
                    key: node.key.clone(),
                    name: node.name.clone(),
                    role: node.role.clone(),
                    parent,
                    children: Vec::new(),
                    depth,
                });
                index.insert(node.key.clone(), id);
                if let Some(p) = parent {
                    groups[p as usize].children.push(id);
                }
                id
            }
        };
        // Reversed so children are numbered in document order, as a recursive walk would.
        stack.extend(node.children.iter().rev().map(|child| (child, Some(id), depth + 1)));
    }
}

impl std::str::FromStr for Metric {
    type Err = String;
    fn from_str(s: &str) -> Result<Metric, String> {
        match s {
            "objects" => Ok(Metric::Objects),
            "bytes" => Ok(Metric::Bytes),
            _ => Err(format!("unknown metric \"{s}\" (expected objects or bytes)")),
        }
    }
}
