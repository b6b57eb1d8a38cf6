//! Two runs in one history (`memcity --compare BEFORE AFTER`, docs/design.md, "Comparing two
//! runs"): a root with one district per run, each holding the union of both runs' trees — a group
//! only one run has is present, empty, on the other side — so both sides are the same tree and
//! can share one arrangement. Snapshot `i` shows each run at its snapshot `i`, or at its last one
//! when it has fewer; stepping through time steps both.

use std::collections::BTreeMap;

use crate::{History, Node, PointerMap, RetainerPath, Snapshot};

/// The key of the pair's root.
pub const ROOT: &str = "compare";
/// The keys of the two sides' districts: before, after.
pub const SIDES: [&str; 2] = ["compare#before", "compare#after"];

/// What the two sides are called wherever they are shown.
pub const SIDE_NAMES: [&str; 2] = ["before", "after"];
/// The role of the two side districts.
const SIDE_ROLE: &str = "Run";

/// The key `key` of run `side` (0 before, 1 after) has in the pair.
pub fn side_key(side: usize, key: &str) -> String {
    format!("{}#{key}", SIDES[side])
}

/// The run (0 before, 1 after) and the run's own key of a key of the pair; `None` for the root,
/// the side districts themselves and keys of other histories.
pub fn split_key(key: &str) -> Option<(usize, &str)> {
    SIDES.iter().enumerate().find_map(|(side, prefix)| {
        key.strip_prefix(prefix).and_then(|rest| rest.strip_prefix('#')).map(|rest| (side, rest))
    })
}

/// Whether `history` is a pair made by [`pair`].
pub fn is_pair(history: &History) -> bool {
    history
        .snapshots
        .first()
        .is_some_and(|s| s.tree.key == ROOT && s.tree.children.iter().map(|c| c.key.as_str()).eq(SIDES))
}

/// Both runs in one history, `labels` naming them (shown on their districts). Neither may be
/// empty.
pub fn pair(before: &History, after: &History, labels: [&str; 2]) -> History {
    let runs = [before, after];
    let count = runs.iter().map(|r| r.snapshots.len()).max().unwrap_or(0);
    let snapshots = (0..count)
        .filter_map(|i| {
            let (a, b) = (at(before, i)?, at(after, i)?);
            let mut snapshot = pair_snapshot([a, b], labels);
            snapshot.label = Some(pair_label([before, after], i));
            Some(snapshot)
        })
        .collect();
    History { format: before.format.clone(), metric_names: before.metric_names.clone(), snapshots }
}

/// What the pair's snapshot `i` shows of each run: "before dump_2 · after dump_4" (a run
/// without labels by its snapshot's number; a shorter run stays at its last).
fn pair_label(runs: [&History; 2], i: usize) -> String {
    let name = |run: &History| {
        let at = i.min(run.snapshots.len().saturating_sub(1));
        run.snapshots.get(at).and_then(|s| s.label.clone()).unwrap_or_else(|| format!("snapshot {at}"))
    };
    format!("{} {} · {} {}", SIDE_NAMES[0], name(runs[0]), SIDE_NAMES[1], name(runs[1]))
}

/// Run `run`'s snapshot `i`, or its last one when it has fewer.
fn at(run: &History, i: usize) -> Option<&Snapshot> {
    run.snapshots.get(i.min(run.snapshots.len().saturating_sub(1)))
}

fn pair_snapshot(runs: [&Snapshot; 2], labels: [&str; 2]) -> Snapshot {
    let sides: Vec<Node> = (0..2)
        .map(|side| {
            // The same skeleton on both sides — the before run's groups in its order, then the
            // after run's others — so siblings stand in the same order on both.
            let (before, after) = (prefixed(&runs[0].tree, side), prefixed(&runs[1].tree, side));
            let content = if before.key == after.key {
                vec![overlay(union(emptied(&before), &after), if side == 0 { &before } else { &after })]
            } else if side == 0 {
                vec![before, emptied(&after)]
            } else {
                vec![emptied(&before), after]
            };
            let mut district = Node {
                key: SIDES[side].to_string(),
                name: labels[side].to_string(),
                role: SIDE_ROLE.to_string(),
                objects: 0,
                bytes: 0,
                retained_bytes: None,
                closure_bytes: None,
                children: content,
            };
            district.objects = district.children.iter().map(|c| c.objects).sum();
            district.bytes = district.children.iter().map(|c| c.bytes).sum();
            district
        })
        .collect();
    let root = Node {
        key: ROOT.to_string(),
        name: "Compared runs".to_string(),
        role: "Heap".to_string(),
        objects: sides.iter().map(|s| s.objects).sum(),
        bytes: sides.iter().map(|s| s.bytes).sum(),
        retained_bytes: None,
        closure_bytes: None,
        children: sides,
    };
    let mut snapshot = Snapshot::new(runs[0].time_ms.max(runs[1].time_ms), root);
    for (side, run) in runs.iter().enumerate() {
        snapshot.points_to.extend(prefixed_map(&run.points_to, side));
        snapshot.pointed_from.extend(prefixed_map(&run.pointed_from, side));
        snapshot
            .retainers
            .extend(run.retainers.iter().map(|(key, path)| (side_key(side, key), prefixed_path(path, side))));
    }
    snapshot
}

/// `node`'s tree with every key moved under side `side`.
fn prefixed(node: &Node, side: usize) -> Node {
    Node {
        key: side_key(side, &node.key),
        name: node.name.clone(),
        role: node.role.clone(),
        children: node.children.iter().map(|c| prefixed(c, side)).collect(),
        ..*node
    }
}

/// The same tree with nothing in it: a group the other run has.
fn emptied(node: &Node) -> Node {
    Node {
        key: node.key.clone(),
        name: node.name.clone(),
        role: node.role.clone(),
        objects: 0,
        bytes: 0,
        retained_bytes: node.retained_bytes.map(|_| 0),
        closure_bytes: node.closure_bytes.map(|_| 0),
        children: node.children.iter().map(emptied).collect(),
    }
}

/// `own` with the groups only `other` has added, empty, after its own children.
fn union(mut own: Node, other: &Node) -> Node {
    let mut at: BTreeMap<String, usize> =
        own.children.iter().enumerate().map(|(i, c)| (c.key.clone(), i)).collect();
    for child in &other.children {
        match at.get(&child.key) {
            Some(&i) => {
                let mine = std::mem::replace(&mut own.children[i], emptied(child));
                own.children[i] = union(mine, child);
            }
            None => {
                at.insert(child.key.clone(), own.children.len());
                own.children.push(emptied(child));
            }
        }
    }
    own
}

/// `skeleton` with the counts of `run`'s groups, found by key.
fn overlay(mut skeleton: Node, run: &Node) -> Node {
    skeleton.objects = run.objects;
    skeleton.bytes = run.bytes;
    skeleton.retained_bytes = run.retained_bytes;
    skeleton.closure_bytes = run.closure_bytes;
    let at: BTreeMap<&str, usize> =
        run.children.iter().enumerate().map(|(i, c)| (c.key.as_str(), i)).collect();
    skeleton.children = std::mem::take(&mut skeleton.children)
        .into_iter()
        .map(|child| match at.get(child.key.as_str()) {
            Some(&i) => overlay(child, &run.children[i]),
            None => child,
        })
        .collect();
    skeleton
}

fn prefixed_map(map: &PointerMap, side: usize) -> PointerMap {
    map.iter()
        .map(|(from, to)| {
            (side_key(side, from), to.iter().map(|(key, &n)| (side_key(side, key), n)).collect())
        })
        .collect()
}

fn prefixed_path(path: &RetainerPath, side: usize) -> RetainerPath {
    let mut path = path.clone();
    for step in &mut path.steps {
        step.key = side_key(side, &step.key);
    }
    path
}

#[cfg(test)]
mod tests;
