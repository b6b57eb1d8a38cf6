//! Two snapshots compared group by group (`memcity diff`): the leaf groups (buildings) of both
//! trees matched by key, each with its objects and bytes on either side, the largest change
//! first. A group only one side has counts zero on the other.

use std::collections::BTreeMap;

use crate::Node;

/// A group's objects and bytes on one side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub objects: u64,
    pub bytes: u64,
}

/// One leaf group on both sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupChange {
    pub key: String,
    /// Its names from the level below the root down, joined with ` › ` (`java.util.HashMap ›
    /// Registry.<clinit>`).
    pub name: String,
    pub before: Counts,
    pub after: Counts,
}

impl GroupChange {
    pub fn delta_objects(&self) -> i64 {
        self.after.objects as i64 - self.before.objects as i64
    }

    pub fn delta_bytes(&self) -> i64 {
        self.after.bytes as i64 - self.before.bytes as i64
    }
}

/// The leaf groups of `before` and `after`, matched by key, the largest change in bytes first
/// (then in objects, then by key, so the order is the same every time).
pub fn diff(before: &Node, after: &Node) -> Vec<GroupChange> {
    let mut groups: BTreeMap<String, GroupChange> = BTreeMap::new();
    for (tree, after_side) in [(before, false), (after, true)] {
        for (key, name, counts) in leaves(tree) {
            let change = groups.entry(key.clone()).or_insert_with(|| GroupChange {
                key,
                name,
                before: Counts::default(),
                after: Counts::default(),
            });
            if after_side { change.after = counts } else { change.before = counts }
        }
    }
    let mut changes: Vec<GroupChange> = groups.into_values().collect();
    changes.sort_by(|a, b| {
        b.delta_bytes()
            .unsigned_abs()
            .cmp(&a.delta_bytes().unsigned_abs())
            .then(b.delta_objects().unsigned_abs().cmp(&a.delta_objects().unsigned_abs()))
            .then_with(|| a.key.cmp(&b.key))
    });
    changes
}

/// Every leaf of `tree` with its key, its path of names below the root and its counts
/// (without recursion: trees can be deep).
fn leaves(tree: &Node) -> Vec<(String, String, Counts)> {
    let mut out = Vec::new();
    let mut pending: Vec<(&Node, String)> = tree.children.iter().map(|c| (c, c.name.clone())).collect();
    while let Some((node, name)) = pending.pop() {
        if node.is_leaf() {
            out.push((node.key.clone(), name, Counts { objects: node.objects, bytes: node.bytes }));
        } else {
            pending.extend(node.children.iter().map(|c| (c, format!("{name} › {}", c.name))));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(key: &str, objects: u64, children: Vec<Node>) -> Node {
        let mut n = Node::leaf(key, key.rsplit('#').next().unwrap(), "Type", objects, objects * 8);
        n.children = children;
        n
    }

    #[test]
    fn leaves_are_matched_by_key_and_the_largest_change_comes_first() {
        let before = node(
            "Heap",
            0,
            vec![
                node("Heap#A", 0, vec![node("Heap#A#site1", 10, vec![]), node("Heap#A#site2", 5, vec![])]),
                node("Heap#Gone", 3, vec![]),
            ],
        );
        let after = node(
            "Heap",
            0,
            vec![
                node("Heap#A", 0, vec![node("Heap#A#site1", 10, vec![]), node("Heap#A#site2", 50, vec![])]),
                node("Heap#New", 1, vec![]),
            ],
        );
        let changes = diff(&before, &after);
        let rows: Vec<(&str, i64)> = changes.iter().map(|c| (c.key.as_str(), c.delta_objects())).collect();
        assert_eq!(rows, [("Heap#A#site2", 45), ("Heap#Gone", -3), ("Heap#New", 1), ("Heap#A#site1", 0)]);
        assert_eq!(changes[0].name, "A › site2");
        assert_eq!(changes[0].delta_bytes(), 360);
        assert_eq!(changes[1].after, Counts::default(), "gone: zero after");
        assert_eq!(changes[2].before, Counts::default(), "new: zero before");
    }
}
